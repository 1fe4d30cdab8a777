//! The calculator: the nimber of a settled, connected part of a region, by the mex of its
//! options' nimbers (loony options left out), each option's parts valued apart and combined by
//! XOR, every part remembered by its shape so that a shape met again anywhere is not valued
//! twice. Settled states are also remembered by (net, state), which spares the shape's key
//! for the nine in ten states met again.
//!
//! A part's shape is its graph of joints (coins of three or more strings) and the ground,
//! joined by chains of coins of two strings. A chain of three coins or more is kept as three:
//! every cut in it leaves a capturable coin beside a coin of two strings (loony), and joining
//! it to another chain when a joint falls to two strings keeps it at three or more, so its
//! length past three never matters. A part without joints is a chain from the ground to the
//! ground (nimber 1 for one or two coins, 0 for more: every move in a longer one is loony) or
//! a closed loop (nimber 0: every move in it is loony).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use rustc_hash::FxBuildHasher;

use super::net::{GROUND, Net};

/// The valuing did not end before its deadline, or was stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfTime;

/// Most states [`Calculator`] remembers by number before it forgets them all (about 24 bytes
/// each): a long valuing keeps its shapes, which are what it cannot afford to lose.
const MAX_STATES: usize = 1 << 23;

/// The calculator's memory of shapes valued, shared by every region and move of an analysis.
pub struct Calculator<'s> {
    memo: HashMap<Box<[u8]>, u8, FxBuildHasher>,
    /// Nimbers of settled states (a part, or parts together) by (net number, state): nine
    /// in ten of the states met are met again (a pair of cuts made in either order), and
    /// this lookup costs a fraction of a shape's key.
    states: HashMap<(u64, u64), u8, FxBuildHasher>,
    /// [`MAX_STATES`], lower in a test of the forgetting.
    max_states: usize,
    deadline: Option<Instant>,
    /// Set by another thread to stop the valuing as if its deadline had passed (a caller that
    /// no longer waits: Ctrl-C in Python).
    stop: Option<&'s AtomicBool>,
    /// Seconds from its making to the deadline (0 without one), for the error that names them.
    budget: f64,
    ticks: u32,
}

impl<'s> Calculator<'s> {
    /// A calculator that gives up at `deadline` (never, without one).
    pub fn new(deadline: Option<Instant>) -> Calculator<'s> {
        let budget = deadline.map_or(0.0, |d| d.saturating_duration_since(Instant::now()).as_secs_f64());
        Calculator {
            memo: HashMap::default(),
            states: HashMap::default(),
            max_states: MAX_STATES,
            deadline,
            stop: None,
            budget,
            ticks: 0,
        }
    }

    /// The same calculator, giving up also once `stop` is set.
    pub fn stopped_by(self, stop: Option<&'s AtomicBool>) -> Calculator<'s> {
        Calculator { stop, ..self }
    }

    /// Seconds it was given (0: no limit).
    pub fn budget(&self) -> f64 {
        self.budget
    }

    /// Shapes valued so far.
    pub fn shapes(&self) -> u64 {
        self.memo.len() as u64
    }

    /// The nimber of a settled state of `net` (no capturable coin left; see [`Net::settle`]):
    /// its parts valued apart and combined by XOR.
    pub(super) fn settled(&mut self, net: &Net, state: u64) -> Result<u8, OutOfTime> {
        if let Some(&v) = self.states.get(&(net.id, state)) {
            return Ok(v);
        }
        let mut parts = [0u64; 64];
        let n = net.parts(state, &mut parts);
        if n == 1 {
            // One part: the state itself, just looked up; the part remembers its value.
            return self.unseen_part(net, state);
        }
        let mut x = 0;
        for &p in &parts[..n] {
            x ^= self.part(net, p)?;
        }
        self.remember(net, state, x);
        Ok(x)
    }

    /// Remembers a settled state's nimber by number, forgetting every state at the cap.
    fn remember(&mut self, net: &Net, state: u64, v: u8) {
        if self.states.len() >= self.max_states {
            self.states.clear();
        }
        self.states.insert((net.id, state), v);
    }

    /// The nimber of one settled, connected part.
    fn part(&mut self, net: &Net, state: u64) -> Result<u8, OutOfTime> {
        match self.states.get(&(net.id, state)) {
            Some(&v) => Ok(v),
            None => self.unseen_part(net, state),
        }
    }

    /// [`Calculator::part`] of a part not among the states remembered: by its shape.
    fn unseen_part(&mut self, net: &Net, state: u64) -> Result<u8, OutOfTime> {
        let mut key = KeyBuf::default();
        if let Some(v) = shape(net, state, &mut key) {
            return Ok(v);
        }
        if let Some(&v) = self.memo.get(key.bytes()) {
            self.remember(net, state, v);
            return Ok(v);
        }
        self.tick()?;
        // Nimbers of options: a part of n strings has at most n options, so below 128.
        let mut seen = 0u128;
        let mut bits = state;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            // A settled part has every coin on two strings or more: no cut completes a box.
            if let Some(after) = net.settle_cut(state, i) {
                seen |= 1 << self.settled(net, after)?;
            }
        }
        let v = (!seen).trailing_zeros() as u8;
        self.memo.insert(key.bytes().into(), v);
        self.remember(net, state, v);
        Ok(v)
    }

    fn tick(&mut self) -> Result<(), OutOfTime> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks.is_multiple_of(256)
            && (self.deadline.is_some_and(|d| Instant::now() >= d) || self.stop.is_some_and(|s| s.load(Relaxed)))
        {
            return Err(OutOfTime);
        }
        Ok(())
    }
}

/// Mixes two words (SplitMix64's finaliser), for the colours of joints.
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a.rotate_left(17) ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A shape's key: the number of joints, then each chain as (end, end, coins) with the ground
/// numbered 255, sorted. At most 64 chains (each holds a string).
struct KeyBuf {
    bytes: [u8; 1 + 3 * 64],
    len: usize,
}

impl Default for KeyBuf {
    fn default() -> KeyBuf {
        KeyBuf { bytes: [0; 1 + 3 * 64], len: 0 }
    }
}

impl KeyBuf {
    fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The shape of a settled, connected part into `key`, or its value where it has no joint. The
/// joints are numbered by colour refinement, so that most relabellings of one graph give one
/// key; two keys alike are always one graph, which is what exactness needs.
fn shape(net: &Net, state: u64, key: &mut KeyBuf) -> Option<u8> {
    let mut found = Coins::of(net, state);
    if found.joints == 0 {
        // A loop (no string to the ground) or a chain from the ground to the ground.
        return Some(u8::from(found.on_ground > 0 && found.coins <= 2));
    }
    let n = found.joints;
    let joints = &mut found.joint[..n];
    joints.sort_unstable();
    // Joint number of each coin.
    let mut label = [u8::MAX; 256];
    for (j, &k) in joints.iter().enumerate() {
        label[k as usize] = j as u8;
    }
    let mut edges = [(0u8, 0u8, 0u8); 64];
    let m = chains(net, state, joints, &label, &mut edges);
    write_key(key, n, &edges[..m]);
    None
}

/// What a walk over a part's strings finds: its coins, which of them are joints, and the
/// strings to the ground.
struct Coins {
    /// The joints' coins, in the order met (the first `joints`).
    joint: [u8; 64],
    joints: usize,
    /// Coins of the part.
    coins: usize,
    /// Strings to the ground.
    on_ground: u32,
}

impl Coins {
    fn of(net: &Net, state: u64) -> Coins {
        let mut found = Coins { joint: [0; 64], joints: 0, coins: 0, on_ground: 0 };
        let mut seen = [0u64; 4];
        let mut bits = state;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            for &k in &net.ends[i] {
                if k == GROUND {
                    found.on_ground += 1;
                    continue;
                }
                let (w, b) = (k as usize / 64, k as usize % 64);
                if seen[w] >> b & 1 == 0 {
                    seen[w] |= 1 << b;
                    found.coins += 1;
                    if net.degree(state, k) >= 3 {
                        found.joint[found.joints] = k;
                        found.joints += 1;
                    }
                }
            }
        }
        found
    }
}

/// The chains between `joints` (numbered by `label`) and to the ground, into `edges` as
/// (joint, other end's joint or GROUND, coins between, capped at 3); returns how many.
fn chains(net: &Net, state: u64, joints: &[u8], label: &[u8; 256], edges: &mut [(u8, u8, u8); 64]) -> usize {
    let mut m = 0;
    for &k in joints {
        let mut strings = state & net.touch[k as usize];
        while strings != 0 {
            let first = strings.trailing_zeros() as usize;
            strings &= strings - 1;
            let (mut at, mut s, mut len) = (k, first, 0u8);
            let end = loop {
                let next = net.other(s, at);
                if next == GROUND || net.degree(state, next) != 2 {
                    break next;
                }
                len = len.saturating_add(1);
                at = next;
                s = (state & net.touch[next as usize] & !(1 << s)).trailing_zeros() as usize;
            };
            // Each chain between joints is walked from both ends: kept from the lesser.
            if end != GROUND && (end, s) < (k, first) {
                continue;
            }
            let other = if end == GROUND { GROUND } else { label[end as usize] };
            edges[m] = (label[k as usize], other, len.min(3));
            m += 1;
        }
    }
    m
}

/// The key of `n` joints joined by `edges`: the joints renumbered by [`refine`], then the
/// chains sorted.
fn write_key(key: &mut KeyBuf, n: usize, edges: &[(u8, u8, u8)]) {
    let order = refine(n, edges);
    // Each chain as one word (end, end, coins), so that sorting compares words.
    let mut chains = [0u32; 64];
    for (c, &(a, b, len)) in chains.iter_mut().zip(edges) {
        let a = order[a as usize];
        let b = if b == GROUND { GROUND } else { order[b as usize] };
        *c = u32::from(a.min(b)) << 16 | u32::from(a.max(b)) << 8 | u32::from(len);
    }
    let m = edges.len();
    let chains = &mut chains[..m];
    chains.sort_unstable();
    key.bytes[0] = n as u8;
    for (k, &c) in chains.iter().enumerate() {
        key.bytes[1 + 3 * k..4 + 3 * k].copy_from_slice(&c.to_be_bytes()[1..]);
    }
    key.len = 1 + 3 * m;
}

/// New numbers for `n` joints joined by `edges`: by colour (the chains at a joint, then the
/// colours at their other ends, refined until the colours stop splitting), ties by old number.
/// A joint's colour sums what it sees, so no list is sorted.
fn refine(n: usize, edges: &[(u8, u8, u8)]) -> [u8; 64] {
    let mut colour = [0u64; 64];
    let mut next = [0u64; 64];
    let mut distinct = 1;
    for _ in 0..n {
        next[..n].copy_from_slice(&colour[..n]);
        for &(a, b, len) in edges {
            let (sa, sb) = if b == GROUND {
                (mix(u64::from(len), 0), 0)
            } else if a == b {
                (mix(u64::from(len) | 4, 0), 0)
            } else {
                let l = u64::from(len) | 8;
                (mix(l, colour[b as usize]), mix(l, colour[a as usize]))
            };
            next[a as usize] = next[a as usize].wrapping_add(sa);
            if b != GROUND && b != a {
                next[b as usize] = next[b as usize].wrapping_add(sb);
            }
        }
        for c in &mut next[..n] {
            *c = mix(*c, 0x5bd1_e995);
        }
        colour[..n].copy_from_slice(&next[..n]);
        let mut sorted = next;
        sorted[..n].sort_unstable();
        let now = 1 + sorted[..n].windows(2).filter(|w| w[0] != w[1]).count();
        if now == distinct || now == n {
            break;
        }
        distinct = now;
    }
    let mut by = [0u8; 64];
    for (j, b) in by[..n].iter_mut().enumerate() {
        *b = j as u8;
    }
    by[..n].sort_unstable_by_key(|&j| (colour[j as usize], j));
    let mut order = [0u8; 64];
    for (new, &old) in by[..n].iter().enumerate() {
        order[old as usize] = new as u8;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::super::value_of;
    use super::*;
    use crate::game::{Board, Position};

    #[test]
    fn a_calculator_that_forgets_its_states_at_a_small_cap_values_every_move_alike() {
        let board: Board = "4x4".parse().unwrap();
        // 4x4 with its middle row of horizontal lines and a few more drawn: 26 undrawn lines.
        let lines = "0000110000111100001100000000000011000000";
        let pos = Position::from_line_string(board, lines).unwrap();
        let net = Net::whole(pos).unwrap();
        let mut forgetful = Calculator { max_states: 8, ..Calculator::new(None) };
        let mut keeping = Calculator::new(None);
        for i in 0..net.lines.len() {
            let state = net.full() & !(1 << i);
            let (a, b) = (value_of(&net, state, &mut forgetful), value_of(&net, state, &mut keeping));
            assert_eq!(a, b, "string {i}");
        }
        assert!(forgetful.states.len() <= 8 && keeping.states.len() > 8);
    }
}
