//! Strings and coins: a position's regions (boxes joined by undrawn lines) as coin graphs, and
//! the two rules that make Nimstring values computable: captures that cannot usefully be
//! declined are taken at once, and a position where the player to move could take or decline is
//! loony ([`Net::settle`]).

use crate::game::{Board, Line, Position};

/// A string's end that is the board's edge rather than a coin.
pub(super) const GROUND: u8 = u8::MAX;

/// Most strings a region may have: a region's undrawn lines are the bits of one `u64`.
pub(crate) const MAX_REGION_LINES: usize = 64;

/// One region of a position as strings and coins. Strings are the region's undrawn lines,
/// numbered 0..n in the external order; coins are its boxes not yet completed. A state of the
/// region is a `u64`: bit i set = string i still uncut (line undrawn).
#[derive(Clone, Debug)]
pub(super) struct Net {
    /// String i's line on the board.
    pub lines: Vec<Line>,
    /// String i's two ends: coins, or [`GROUND`] (always second) for a line on the board's edge.
    pub ends: Vec<[u8; 2]>,
    /// Coin k's strings: bit i set = string i touches coin k.
    pub touch: Vec<u64>,
    /// This net's number, unique in the process (a clone keeps it: its states mean the
    /// same), so that a calculator may remember its states by number.
    pub id: u64,
}

/// The next net's number.
static NEXT_NET: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Coins waiting to be looked at by [`Net::settle`]: a capture pushes at most one coin, each
/// string is cut once, and the first push is at most every coin, so 256 + 64 places do.
struct Stack {
    coins: [u8; 320],
    len: usize,
}

impl Default for Stack {
    fn default() -> Stack {
        Stack { coins: [0; 320], len: 0 }
    }
}

impl Stack {
    fn push(&mut self, k: u8) {
        if k != GROUND {
            self.coins[self.len] = k;
            self.len += 1;
        }
    }

    fn pop(&mut self) -> Option<u8> {
        self.len = self.len.checked_sub(1)?;
        Some(self.coins[self.len])
    }
}

/// A region too large for one `u64` of strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RegionTooLarge {
    /// Its undrawn lines.
    pub lines: usize,
}

impl Net {
    /// The regions of `pos`: uncompleted boxes joined by undrawn lines between them (a line on
    /// the edge joins nothing), each with its undrawn lines, in the order of their first line.
    /// A region of more than [`MAX_REGION_LINES`] lines is returned as its size.
    pub(super) fn regions(pos: Position) -> Vec<Result<Net, RegionTooLarge>> {
        let board = pos.board;
        let boxes = board.boxes();
        let mut parent: Vec<usize> = (0..boxes).collect();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        let undrawn: Vec<Line> = pos.undrawn().iter().collect();
        for &l in &undrawn {
            if let [a, b] = board.line_boxes(l)[..] {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra] = rb;
            }
        }
        // Lines grouped by the root of their first box, regions ordered by their first line.
        let mut order: Vec<usize> = Vec::new();
        let mut lines_of: std::collections::HashMap<usize, Vec<Line>> = std::collections::HashMap::new();
        for &l in &undrawn {
            let r = root(&mut parent, board.line_boxes(l)[0]);
            let v = lines_of.entry(r).or_default();
            if v.is_empty() {
                order.push(r);
            }
            v.push(l);
        }
        order
            .into_iter()
            .map(|r| {
                let lines = lines_of.remove(&r).unwrap_or_default();
                if lines.len() > MAX_REGION_LINES {
                    return Err(RegionTooLarge { lines: lines.len() });
                }
                Ok(Net::of_lines(board, lines))
            })
            .collect()
    }

    /// The whole of `pos` as one net, its regions unsplit (the sum rule's twin), or its size
    /// past [`MAX_REGION_LINES`] lines.
    pub(super) fn whole(pos: Position) -> Result<Net, RegionTooLarge> {
        let lines: Vec<Line> = pos.undrawn().iter().collect();
        if lines.len() > MAX_REGION_LINES {
            return Err(RegionTooLarge { lines: lines.len() });
        }
        Ok(Net::of_lines(pos.board, lines))
    }

    /// The net of these undrawn lines (at most 64, in the external order) of `board`.
    fn of_lines(board: Board, lines: Vec<Line>) -> Net {
        let mut coin_of: std::collections::HashMap<usize, u8> = std::collections::HashMap::new();
        let mut touch = Vec::new();
        let ends = lines
            .iter()
            .enumerate()
            .map(|(i, &l)| {
                let mut e = [GROUND; 2];
                for (k, b) in board.line_boxes(l).into_iter().enumerate() {
                    let c = *coin_of.entry(b).or_insert_with(|| {
                        touch.push(0u64);
                        (touch.len() - 1) as u8
                    });
                    touch[c as usize] |= 1 << i;
                    e[k] = c;
                }
                e
            })
            .collect();
        let id = NEXT_NET.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Net { lines, ends, touch, id }
    }

    /// Every string uncut.
    pub(super) fn full(&self) -> u64 {
        if self.lines.len() == 64 { u64::MAX } else { (1u64 << self.lines.len()) - 1 }
    }

    /// String `i`'s string index of `line`, if the line is one of this region's.
    pub(super) fn string_of(&self, line: Line) -> Option<usize> {
        self.lines.binary_search(&line).ok()
    }

    /// Coin `k`'s uncut strings in `state`.
    #[inline]
    pub(super) fn degree(&self, state: u64, k: u8) -> u32 {
        // At most four bits: clearing them one by one beats the portable build's popcount,
        // which has no POPCNT instruction to use (this is the calculator's hottest line).
        let mut x = state & self.touch[k as usize];
        let mut n = 0;
        while x != 0 {
            x &= x - 1;
            n += 1;
        }
        n
    }

    /// The end of string `i` that is not `k`.
    #[inline]
    pub(super) fn other(&self, i: usize, k: u8) -> u8 {
        let [a, b] = self.ends[i];
        if a == k { b } else { a }
    }

    /// Boxes completed by cutting string `i` in `state` (where it is uncut).
    pub(super) fn completes(&self, state: u64, i: usize) -> u32 {
        self.ends[i].iter().filter(|&&k| k != GROUND && self.degree(state, k) == 1).count() as u32
    }

    /// `state` with every capture taken that cannot usefully be declined, or None when the
    /// player to move may take or decline (a loony position).
    ///
    /// A coin c with one string left is capturable. Its string's other end x decides:
    /// - the ground, or a coin of one string (a domino), or of three or more: take c. Declining
    ///   gains nothing: whatever the player does instead, the opponent may take c and do it.
    /// - a coin of two strings whose other string reaches the ground or a coin of two or more:
    ///   loony. The player may take c and x and move on, or cut x's other string, a move that
    ///   completes nothing, and leave c and x to the opponent, who must then move on. One of
    ///   the two wins whatever else is on the board, so a loony position is a win for the
    ///   player to move and a move that leaves one loses.
    /// - a coin of two strings whose other string reaches a coin of one (three coins, both ends
    ///   capturable): every cut completes a box, so no declining move exists; take all three.
    ///
    /// Loony shapes are never undone by free captures (these only take coins of one string
    /// and lower the count of coins with three or more), so the order of capture is immaterial.
    pub(super) fn settle(&self, state: u64) -> Option<u64> {
        let mut stack = Stack::default();
        for k in 0..self.touch.len() as u8 {
            stack.push(k);
        }
        self.settle_from(state, stack)
    }

    /// [`Net::settle`] of a settled state with string `i` cut: only its ends can have become
    /// capturable, and then only the coins whose strings the captures cut.
    pub(super) fn settle_cut(&self, state: u64, i: usize) -> Option<u64> {
        let mut stack = Stack::default();
        for &k in &self.ends[i] {
            stack.push(k);
        }
        self.settle_from(state & !(1 << i), stack)
    }

    /// Takes the free captures, starting from the coins on `stack` and going on to every coin
    /// whose strings a capture cuts (the only coins that can become capturable), until none is
    /// left; None at the first loony shape.
    fn settle_from(&self, mut state: u64, mut stack: Stack) -> Option<u64> {
        while let Some(k) = stack.pop() {
            let s = state & self.touch[k as usize];
            if s == 0 || s & (s - 1) != 0 {
                continue;
            }
            let i = s.trailing_zeros() as usize;
            let x = self.other(i, k);
            if x == GROUND || self.degree(state, x) != 2 {
                state &= !(1 << i);
                stack.push(x);
                continue;
            }
            let t = (state & self.touch[x as usize] & !(1 << i)).trailing_zeros() as usize;
            let y = self.other(t, x);
            if y != GROUND && self.degree(state, y) == 1 {
                state &= !(1 << i | 1 << t);
                continue;
            }
            return None;
        }
        Some(state)
    }

    /// The connected parts of `state` (strings joined through coins; the ground joins
    /// nothing), each as the strings it holds, into `out`; returns how many.
    pub(super) fn parts(&self, state: u64, out: &mut [u64; 64]) -> usize {
        let mut n = 0;
        let mut left = state;
        while left != 0 {
            let mut part = left & left.wrapping_neg();
            let mut new = part;
            while new != 0 {
                let mut grown = 0;
                while new != 0 {
                    let i = new.trailing_zeros() as usize;
                    new &= new - 1;
                    for &k in &self.ends[i] {
                        if k != GROUND {
                            grown |= self.touch[k as usize];
                        }
                    }
                }
                new = grown & state & !part;
                part |= new;
            }
            out[n] = part;
            n += 1;
            left &= !part;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(board: &str, lines: &str) -> Position {
        Position::from_line_string(board.parse::<Board>().unwrap(), lines).unwrap()
    }

    #[test]
    fn a_wall_of_drawn_lines_splits_a_board_into_regions() {
        let board: Board = "2x3".parse().unwrap();
        // Every vertical line at column 1 drawn: the left column of boxes is cut off.
        let drawn = [board.v(0, 1), board.v(1, 1)].into_iter().collect();
        let regions = Net::regions(Position { board, drawn });
        assert_eq!(regions.len(), 2);
        let sizes: Vec<usize> = regions.iter().map(|r| r.as_ref().unwrap().lines.len()).collect();
        assert_eq!(sizes.iter().sum::<usize>(), board.lines() - 2);
        assert_eq!(regions[0].as_ref().unwrap().touch.len() + regions[1].as_ref().unwrap().touch.len(), 6);
    }

    #[test]
    fn a_lone_capturable_box_is_taken_and_an_offered_pair_at_the_edge_is_loony() {
        // 1x1 with three sides drawn: take it.
        let one = Net::regions(pos("1x1", "1110")).remove(0).unwrap();
        assert_eq!(one.settle(one.full()), Some(0));
        // 1x2 with both long sides and the left end drawn: the left box is capturable, hanging on
        // the right box of two strings whose other string reaches the edge: loony.
        let board: Board = "1x2".parse().unwrap();
        let drawn = [board.h(0, 0), board.h(1, 0), board.v(0, 0), board.h(0, 1), board.h(1, 1)].into_iter().collect();
        let net = Net::regions(Position { board, drawn }).remove(0).unwrap();
        assert_eq!(net.settle(net.full()), None);
    }
}
