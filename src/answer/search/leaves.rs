//! The exact leaves a search values without searching below them: positions made only of
//! loops and chains (every live box with two undrawn sides), by Allcock's theorems where every
//! chain is long and otherwise by a memoised recursion over the chains of one and two boxes
//! on top of them, and positions of at most [`MAX_LEAF_LINES`] undrawn lines, by a retrograde
//! pass over their subsets.

use crate::answer::endgame::{Component, Tally};

use super::MAX_LEAF_LINES;
use super::rules::{CHAIN_HAND_BACK, LOOP_HAND_BACK, NO_BOX, Rules, Structure, two_bits};

/// Sub-positions a recursion over short chains may remember (its memo, on the stack); a
/// position with more is left to the search.
const MEMO: usize = 1024;

/// Kinds of long component (a chain or a loop of one length) a position may hold for the
/// recursion; a position with more is left to the search.
const KINDS: usize = 8;

impl Rules {
    /// The value of `s` when it is a simple loony endgame ([`Rules::simple_endgame`]), else
    /// `None`. With every chain of 3 boxes or more it is Allcock's Theorem 4.1: minus the
    /// controller's margin v(G). With chains of one or two boxes it is [`Simple::value`], which
    /// opens them in turn on top of the theorem (`None` where the position has more kinds of
    /// long component or more sub-positions than the recursion keeps).
    pub(super) fn theorem_value(&self, s: u64) -> Option<i32> {
        self.simple_endgame(s).and_then(|g| g.value(true))
    }

    /// `s` read as a simple loony endgame, if it is one: independent chains (both ends on the
    /// border) and loops, every live box with two undrawn sides, so that every move opens one.
    pub(super) fn simple_endgame(&self, s: u64) -> Option<Simple> {
        let open = self.full & !s;
        let mut live = 0u64;
        // No bit count per box: this portable build has no population-count instruction, and
        // every table miss asks.
        for (b, &m) in self.box_sides.iter().enumerate() {
            match m & open {
                0 => {}
                u if two_bits(u) => live |= 1 << b,
                _ => return None,
            }
        }
        // The box beyond `line` from `b` (`NO_BOX` past the border).
        let beyond = |line: usize, b: u8| {
            let [x, y] = self.line_boxes[line];
            if x == b { y } else { x }
        };
        let mut g = Simple::default();
        let mut seen = 0u64;
        let mut ends = open & self.border;
        while ends != 0 {
            let start = ends.trailing_zeros() as usize;
            ends &= ends - 1;
            let (mut b, mut came, mut k) = (self.line_boxes[start][0], start, 0u32);
            loop {
                seen |= 1 << b;
                k += 1;
                let out = (self.box_sides[b as usize] & open & !(1u64 << came)).trailing_zeros() as usize;
                match beyond(out, b) {
                    NO_BOX => {
                        ends &= !(1u64 << out);
                        break;
                    }
                    next => (b, came) = (next, out),
                }
            }
            match k {
                1 => g.ones += 1,
                2 => g.twos += 1,
                _ => g.add(Component::Chain(k))?,
            }
        }
        let mut rest = live & !seen;
        while rest != 0 {
            let first = rest.trailing_zeros() as u8;
            let (mut b, mut came, mut k) =
                (first, (self.box_sides[first as usize] & open).trailing_zeros() as usize, 0);
            loop {
                seen |= 1 << b;
                k += 1;
                let out = (self.box_sides[b as usize] & open & !(1u64 << came)).trailing_zeros() as usize;
                (b, came) = (beyond(out, b), out);
                if b == first {
                    break;
                }
            }
            g.add(Component::Loop(k))?;
            rest = live & !seen;
        }
        Some(g)
    }

    /// The exact value of `s`, which has at most [`MAX_LEAF_LINES`] undrawn lines, by a
    /// retrograde pass over every subset of them (from all drawn back to `s`).
    pub(super) fn retrograde_value(&self, s: u64) -> i32 {
        let open = self.full & !s;
        let k = open.count_ones() as usize;
        debug_assert!(k <= MAX_LEAF_LINES);
        let mut local = [0u8; 64];
        let mut global = [0u8; MAX_LEAF_LINES];
        let mut bits = open;
        for (j, g) in global.iter_mut().enumerate().take(k) {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            *g = i as u8;
            local[i] = j as u8;
        }
        // Per local line, its boxes' other undrawn sides as local masks.
        let mut others = [[0u16; 2]; MAX_LEAF_LINES];
        let mut count = [0u8; MAX_LEAF_LINES];
        for j in 0..k {
            let lb = &self.boxes[global[j] as usize];
            count[j] = lb.count;
            for (b, &m) in lb.others[..lb.count as usize].iter().enumerate() {
                let (mut m, mut loc) = (m & open, 0u16);
                while m != 0 {
                    loc |= 1 << local[m.trailing_zeros() as usize];
                    m &= m - 1;
                }
                others[j][b] = loc;
            }
        }
        let full = (1usize << k) - 1;
        let mut v = [0i8; 1 << MAX_LEAF_LINES];
        for m in (0..full).rev() {
            let mut best = i8::MIN;
            let mut free = full & !m;
            while free != 0 {
                let j = free.trailing_zeros() as usize;
                free &= free - 1;
                let n = others[j][..count[j] as usize].iter().filter(|&&o| o as usize & !m == 0).count() as i8;
                let after = v[m | 1 << j];
                best = best.max(if n > 0 { n + after } else { -after });
            }
            v[m] = best;
        }
        v[0] as i32
    }
}

/// A simple loony endgame ([`Rules::simple_endgame`]): chains of one box, of two, and long
/// components by kind (a chain of 3 boxes or more, or a loop, of one length) with their counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Simple {
    ones: u32,
    twos: u32,
    kinds: [(Option<Component>, u32); KINDS],
}

impl Simple {
    /// One more long component; `None` where it would be a kind past [`KINDS`].
    fn add(&mut self, c: Component) -> Option<()> {
        let slot = self.kinds.iter_mut().find(|(k, _)| k.is_none() || *k == Some(c))?;
        *slot = (Some(c), slot.1 + 1);
        Some(())
    }

    /// The value for the player to move, who must open a component: a chain of one or two is
    /// taken whole by the opponent, who moves next (a chain of two opened in its middle, which
    /// is never worse: see [`Rules::opening_class`]); a long one is taken whole, or all but the
    /// last two boxes (four of a loop) are taken and those handed back, the opponent's choice
    /// ([`super::rules::Structure::worth`]). Memoised over the sub-positions; where the short
    /// chains are gone, Allcock's Theorem 4.1 gives the rest at once (`theorem`; without it the
    /// recursion goes on to the empty position: the twin a test compares it with). `None` where
    /// the sub-positions pass [`MEMO`].
    pub(super) fn value(&self, theorem: bool) -> Option<i32> {
        if self.ones + self.twos == 0 && theorem {
            return Some(self.allcock(&self.counts()));
        }
        // Mixed radix over (ones left, twos left, each kind's count left).
        let mut size = (self.ones as usize + 1) * (self.twos as usize + 1);
        for (_, n) in &self.kinds {
            size = size.checked_mul(*n as usize + 1).filter(|&n| n <= MEMO)?;
        }
        let mut counts = self.counts();
        // A small memo where it does: most endgames have a few sub-positions, and the memo is
        // set afresh for each.
        Some(if size <= MEMO / 16 {
            self.recurse(&mut [i8::MIN; MEMO / 16], self.ones, self.twos, &mut counts, theorem)
        } else {
            self.recurse(&mut [i8::MIN; MEMO], self.ones, self.twos, &mut counts, theorem)
        })
    }

    fn counts(&self) -> [u32; KINDS] {
        self.kinds.map(|(_, n)| n)
    }

    /// Minus v(G) of the long components `counts` (Theorem 4.1): the value for the opener.
    fn allcock(&self, counts: &[u32; KINDS]) -> i32 {
        let tally = self
            .kinds
            .iter()
            .zip(counts)
            .filter_map(|((c, _), &n)| c.map(|c| (c, n)))
            .fold(Tally::default(), |t, (c, n)| (0..n).fold(t, |t, _| t.with(c)));
        -(tally.value().0 as i32)
    }

    fn recurse(&self, memo: &mut [i8], ones: u32, twos: u32, counts: &mut [u32; KINDS], theorem: bool) -> i32 {
        let mut at = ones as usize + (self.ones as usize + 1) * twos as usize;
        let mut stride = (self.ones as usize + 1) * (self.twos as usize + 1);
        for (&n, (_, all)) in counts.iter().zip(&self.kinds) {
            at += n as usize * stride;
            stride *= *all as usize + 1;
        }
        if memo[at] != i8::MIN {
            return memo[at] as i32;
        }
        let best = if ones + twos == 0 && (theorem || counts.iter().all(|&n| n == 0)) {
            self.allcock(counts)
        } else {
            // Each opening worth what the search's openings are (`Structure::worth`) given the
            // value v after it: a short chain's boxes taken, a long one's taken or declined.
            let opened =
                |boxes: i32, hand_back: i32, v: i32| Structure { boxes, hand_back, ..Structure::NONE }.worth(v);
            let mut best = i32::MIN;
            if ones > 0 {
                best = best.max(opened(1, 0, self.recurse(memo, ones - 1, twos, counts, theorem)));
            }
            if twos > 0 {
                best = best.max(opened(2, 0, self.recurse(memo, ones, twos - 1, counts, theorem)));
            }
            for t in 0..KINDS {
                let Some(c) = self.kinds[t].0.filter(|_| counts[t] > 0) else { continue };
                counts[t] -= 1;
                let v = self.recurse(memo, ones, twos, counts, theorem);
                counts[t] += 1;
                best =
                    best.max(opened(c.boxes() as i32, if c.is_loop() { LOOP_HAND_BACK } else { CHAIN_HAND_BACK }, v));
            }
            best
        };
        memo[at] = best as i8;
        best
    }
}

#[cfg(test)]
mod tests {
    use super::super::rules::tests::{empty, value};
    use super::*;
    use crate::support::SplitMix64;

    /// A state of `rules` made only of chains and loops: random lines drawn (a share of them
    /// by `density`), then a random undrawn side of every box with one, three or four until
    /// none is left.
    fn simple_state(rules: &Rules, rng: &mut SplitMix64, density: u32) -> u64 {
        let mut s = (0..density).fold(0, |m, _| m | rng.next_u64()) & rules.full;
        loop {
            let mut changed = false;
            for &sides in &rules.box_sides {
                let u = sides & !s;
                if u.count_ones() == 1 || u.count_ones() >= 3 {
                    let pick = rng.next_u64() as u32 % u.count_ones();
                    s |= 1 << (0..pick).fold(u, |u, _| u & (u - 1)).trailing_zeros();
                    changed = true;
                }
            }
            if !changed {
                return s;
            }
        }
    }

    /// Simple loony endgames with chains of one and two boxes among the loops and long chains,
    /// valued by the recursion on top of Theorem 4.1, by the recursion to the end, and by the
    /// retrograde: random such states of the 3x4 and 3x3.
    #[test]
    fn short_chains_on_top_of_the_theorem_match_the_recursion_and_the_retrograde() {
        for b in ["3x4", "3x3"] {
            let (board, space, rules, sol) = empty(b, true);
            let sol = sol.unwrap();
            let mut rng = SplitMix64(5);
            // Met: [short chains only, short and long together].
            let mut met = [0usize; 2];
            for round in 0..40_000 {
                let s = simple_state(&rules, &mut rng, 1 + round % 2);
                let g = rules.simple_endgame(s).expect("a state of chains and loops");
                let v = g.value(true).expect("a small endgame fits the memo");
                assert_eq!(g.value(false), Some(v), "{b}: state {s:#x} ({g:?}): the recursion to the end");
                assert_eq!(v, value(board, &space, &sol, s), "{b}: state {s:#x} ({g:?}): the retrograde");
                if g.ones + g.twos > 0 {
                    met[g.kinds[0].0.is_some() as usize] += 1;
                }
            }
            assert!(met.iter().all(|&n| n >= 100), "{b}: both kinds of endgame met: {met:?}");
        }
    }

    /// On the 5x5, where components grow longer and more numerous: the recursion on top of the
    /// theorem against the recursion to the end, wherever both fit the memo.
    #[test]
    fn short_chains_on_a_large_board_match_the_recursion_to_the_end() {
        let (_, _, rules, _) = empty("5x5", false);
        let mut rng = SplitMix64(6);
        let (mut compared, mut long) = (0, 0);
        for round in 0..20_000 {
            let s = simple_state(&rules, &mut rng, 1 + round % 3);
            let g = rules.simple_endgame(s).expect("a state of chains and loops");
            if let (Some(v), Some(twin)) = (g.value(true), g.value(false)) {
                assert_eq!(v, twin, "state {s:#x} ({g:?})");
                compared += 1;
                long += usize::from(g.ones + g.twos > 0 && g.kinds[0].0.is_some());
            }
        }
        assert!(compared >= 10_000 && long >= 1_000, "compared {compared}, with short and long {long}");
    }

    /// Short chains alone, by hand: each opening hands its boxes over and the turn to open
    /// with them; and past the kinds or the memo a recursion keeps, the position is left to
    /// the search.
    #[test]
    fn short_chains_alone_and_an_endgame_past_the_memo() {
        let short = |ones, twos| Simple { ones, twos, ..Simple::default() }.value(true);
        // One box: -1. Two: the opener hands one over and is handed the other: 0. A box and a
        // chain of two: the opener hands the box over and is handed the two: +1.
        assert_eq!(
            [short(1, 0), short(2, 0), short(3, 0), short(0, 1), short(1, 1)],
            [Some(-1), Some(0), Some(-1), Some(-2), Some(1)]
        );
        let mut g = Simple { ones: 9, twos: 9, ..Simple::default() };
        assert!(g.value(true).is_some(), "100 sub-positions fit");
        for k in 0..KINDS as u32 {
            g.add(Component::Chain(3 + k)).unwrap();
        }
        assert_eq!(g.add(Component::Loop(4)), None, "a kind past KINDS");
        assert_eq!(g.value(true), None, "10 * 10 * 2^8 sub-positions");
    }
}
