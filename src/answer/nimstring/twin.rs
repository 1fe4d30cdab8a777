//! The calculator's slow twins. [`RawGame`] plays Nimstring on the raw rules, a game tree of
//! single lines with no theory at all: who wins. [`whole_nimber`] values a region by the
//! capture rules and the mex alone, never splitting it into parts: the twin of the sum rule.

use std::collections::HashMap;

use crate::game::{Line, Position};

use super::net::Net;

/// Most undrawn lines the raw game takes (its memory holds one entry per position reached).
pub const RAW_MAX_LINES: usize = 26;

/// Nimstring on the raw rules: drawing a line that completes a box obliges another move; a
/// player who cannot move loses. Positions are the undrawn lines as bits of a `u32` (bit i =
/// the i-th undrawn line of the root, in the external order).
pub struct RawGame {
    lines: Vec<Line>,
    /// Each box's undrawn sides at the root, as bits (boxes already complete left out).
    boxes: Vec<u32>,
    memo: HashMap<u32, bool>,
}

impl RawGame {
    /// The game from `pos`, or None past [`RAW_MAX_LINES`] undrawn lines.
    pub fn new(pos: Position) -> Option<RawGame> {
        let lines: Vec<Line> = pos.undrawn().iter().collect();
        if lines.len() > RAW_MAX_LINES {
            return None;
        }
        let boxes = (0..pos.board.boxes())
            .map(|b| {
                pos.board
                    .box_sides(b)
                    .iter()
                    .filter_map(|s| lines.iter().position(|l| l == s))
                    .fold(0, |m, i| m | 1 << i)
            })
            .filter(|&m| m != 0)
            .collect();
        Some(RawGame { lines, boxes, memo: HashMap::new() })
    }

    /// Every undrawn line of the root.
    fn all(&self) -> u32 {
        ((1u64 << self.lines.len()) - 1) as u32
    }

    /// Whether drawing line `i` in `state` completes a box.
    fn completes(&self, state: u32, i: u32) -> bool {
        let after = state & !(1 << i);
        self.boxes.iter().any(|&b| b >> i & 1 == 1 && after & b == 0)
    }

    /// Whether the player to move in `state` wins.
    fn wins(&mut self, state: u32) -> bool {
        if let Some(&w) = self.memo.get(&state) {
            return w;
        }
        let mut bits = state;
        let mut w = false;
        while bits != 0 && !w {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            w = self.mover_wins(state, i);
        }
        self.memo.insert(state, w);
        w
    }

    /// Whether drawing line `i` in `state` wins for the player who draws it.
    fn mover_wins(&mut self, state: u32, i: u32) -> bool {
        let after = state & !(1 << i);
        if self.completes(state, i) { self.wins(after) } else { !self.wins(after) }
    }

    /// Whether the player to move at the root wins, and for each undrawn line whether drawing
    /// it wins for the player who draws it.
    pub fn outcomes(&mut self) -> (bool, Vec<(Line, bool)>) {
        let all = self.all();
        let moves = (0..self.lines.len() as u32).map(|i| (self.lines[i as usize], self.mover_wins(all, i))).collect();
        (self.wins(all), moves)
    }
}

/// A region's nimber (None: loony) by the capture rules and the mex alone, without splitting it
/// into parts or remembering shapes: every state is its own entry. Small regions only.
pub(super) fn whole_nimber(net: &Net, state: u64, memo: &mut HashMap<u64, Option<u8>>) -> Option<u8> {
    let settled = net.settle(state)?;
    if let Some(&v) = memo.get(&settled) {
        return v;
    }
    let mut seen = 0u128;
    let mut bits = settled;
    while bits != 0 {
        let i = bits.trailing_zeros();
        bits &= bits - 1;
        if let Some(v) = whole_nimber(net, settled & !(1 << i), memo) {
            seen |= 1 << v;
        }
    }
    let v = Some((!seen).trailing_zeros() as u8);
    memo.insert(settled, v);
    v
}
