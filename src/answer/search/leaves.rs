//! The exact leaves a search values without searching below them: positions made only of
//! loops and long chains, by Allcock's theorems, and positions of at most
//! [`MAX_LEAF_LINES`] undrawn lines, by a retrograde pass over their subsets.

use crate::answer::endgame::{Component, Tally};

use super::MAX_LEAF_LINES;
use super::rules::{NO_BOX, Rules};

impl Rules {
    /// The value of `s` by Allcock's Theorem 4.1 when it is made only of loops and chains of 3
    /// or more boxes (every live box has two undrawn sides), else `None`: every move there
    /// opens a component, and the value for the player to move is minus the controller's
    /// margin v(G).
    pub(super) fn theorem_value(&self, s: u64) -> Option<i32> {
        let open = self.full & !s;
        let mut live = 0u64;
        for (b, &m) in self.box_sides.iter().enumerate() {
            match (m & open).count_ones() {
                0 => {}
                2 => live |= 1 << b,
                _ => return None,
            }
        }
        // The box beyond `line` from `b` (`NO_BOX` past the border).
        let beyond = |line: usize, b: u8| {
            let [x, y] = self.line_boxes[line];
            if x == b { y } else { x }
        };
        let mut tally = Tally::default();
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
            if k < 3 {
                return None;
            }
            tally = tally.with(Component::Chain(k));
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
            tally = tally.with(Component::Loop(k));
            rest = live & !seen;
        }
        Some(-(tally.value().0 as i32))
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
