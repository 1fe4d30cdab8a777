//! The calculator: the nimber of a settled, connected part of a region, by the mex of its
//! options' nimbers (loony options left out), each option's parts valued apart and combined by
//! XOR, every part remembered by its shape so that a shape met again anywhere is not valued
//! twice.
//!
//! A part's shape is its graph of joints (coins of three or more strings) and the ground,
//! joined by chains of coins of two strings. A chain of three coins or more is kept as three:
//! every cut in it leaves a capturable coin beside a coin of two strings (loony), and joining
//! it to another chain when a joint falls to two strings keeps it at three or more, so its
//! length past three never matters. A part without joints is a chain from the ground to the
//! ground (nimber 1 for one or two coins, 0 for more: every move in a longer one is loony) or
//! a closed loop (nimber 0: every move in it is loony).

use std::collections::HashMap;
use std::time::Instant;

use rustc_hash::FxBuildHasher;

use super::net::{GROUND, Net};

/// The valuing did not end before its deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfTime;

/// What a part's shape tells at once, or the key it is remembered by.
enum Shape {
    Known(u8),
    Key(Box<[u8]>),
}

/// The calculator's memory of shapes valued, shared by every region and move of an analysis.
pub struct Calculator {
    memo: HashMap<Box<[u8]>, u8, FxBuildHasher>,
    deadline: Option<Instant>,
    ticks: u32,
}

impl Calculator {
    /// A calculator that gives up at `deadline` (never, without one).
    pub fn new(deadline: Option<Instant>) -> Calculator {
        Calculator { memo: HashMap::default(), deadline, ticks: 0 }
    }

    /// Shapes valued so far.
    pub fn shapes(&self) -> u64 {
        self.memo.len() as u64
    }

    /// The nimber of a settled state of `net` (no capturable coin left; see [`Net::settle`]):
    /// its parts valued apart and combined by XOR.
    pub(super) fn settled(&mut self, net: &Net, state: u64) -> Result<u8, OutOfTime> {
        let mut parts = Vec::new();
        net.parts(state, &mut parts);
        let mut x = 0;
        for p in parts {
            x ^= self.part(net, p)?;
        }
        Ok(x)
    }

    /// The nimber of one settled, connected part.
    fn part(&mut self, net: &Net, state: u64) -> Result<u8, OutOfTime> {
        let key = match shape(net, state) {
            Shape::Known(v) => return Ok(v),
            Shape::Key(k) => k,
        };
        if let Some(&v) = self.memo.get(&key) {
            return Ok(v);
        }
        self.tick()?;
        // Nimbers of options: a part of n strings has at most n options, so below 128.
        let mut seen = 0u128;
        let mut bits = state;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            // A settled part has every coin on two strings or more: no cut completes a box.
            if let Some(after) = net.settle(state & !(1 << i)) {
                seen |= 1 << self.settled(net, after)?;
            }
        }
        let v = (!seen).trailing_zeros() as u8;
        self.memo.insert(key, v);
        Ok(v)
    }

    fn tick(&mut self) -> Result<(), OutOfTime> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks.is_multiple_of(256)
            && let Some(d) = self.deadline
            && Instant::now() >= d
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

/// The shape of a settled, connected part: its value where it has no joint, else its joints
/// and chains as bytes, the joints numbered by colour refinement (so that most relabellings
/// of one graph give one key; two keys alike are always one graph, which is what exactness
/// needs).
fn shape(net: &Net, state: u64) -> Shape {
    // Joint number of each coin (u8::MAX: not a joint), and the joints' coins in order.
    let mut label = [u8::MAX; 256];
    let mut joints: Vec<u8> = Vec::new();
    let mut coins = 0usize;
    let mut on_ground = 0u32;
    let mut seen = [0u64; 4];
    let mut bits = state;
    while bits != 0 {
        let i = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        for &k in &net.ends[i] {
            if k == GROUND {
                on_ground += 1;
                continue;
            }
            let (w, b) = (k as usize / 64, k as usize % 64);
            if seen[w] >> b & 1 == 0 {
                seen[w] |= 1 << b;
                coins += 1;
                if net.degree(state, k) >= 3 {
                    joints.push(k);
                }
            }
        }
    }
    if joints.is_empty() {
        // A loop (no string to the ground) or a chain from the ground to the ground.
        return Shape::Known(u8::from(on_ground > 0 && coins <= 2));
    }
    joints.sort_unstable();
    for (j, &k) in joints.iter().enumerate() {
        label[k as usize] = j as u8;
    }
    // Chains: (joint, other end's joint or GROUND, coins between, capped at 3).
    let mut edges: Vec<(u8, u8, u8)> = Vec::new();
    for &k in &joints {
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
            edges.push((label[k as usize], other, len.min(3)));
        }
    }
    let order = refine(joints.len(), &edges);
    let mut key: Vec<u8> = Vec::with_capacity(1 + 3 * edges.len());
    key.push(joints.len() as u8);
    let mut relabelled: Vec<[u8; 3]> = edges
        .iter()
        .map(|&(a, b, len)| {
            let a = order[a as usize];
            let b = if b == GROUND { GROUND } else { order[b as usize] };
            [a.min(b), a.max(b), len]
        })
        .collect();
    relabelled.sort_unstable();
    key.extend(relabelled.iter().flatten());
    Shape::Key(key.into_boxed_slice())
}

/// New numbers for `n` joints joined by `edges`: by colour (the chains at a joint, then the
/// colours at their other ends, refined until the colours stop splitting), ties by old number.
fn refine(n: usize, edges: &[(u8, u8, u8)]) -> Vec<u8> {
    let end_kind = |a: u8, b: u8| -> u64 {
        if b == GROUND {
            0
        } else if a == b {
            1
        } else {
            2
        }
    };
    let mut colour = vec![0u64; n];
    let mut around: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut distinct = 0;
    for round in 0..=n {
        for v in &mut around {
            v.clear();
        }
        for &(a, b, len) in edges {
            let side = |x: u8, y: u8| {
                let far = if y == GROUND || x == y { 0 } else { colour[y as usize] };
                mix(u64::from(len) << 2 | end_kind(x, y), far)
            };
            around[a as usize].push(side(a, b));
            if b != GROUND && b != a {
                around[b as usize].push(side(b, a));
            }
        }
        let next: Vec<u64> = (0..n)
            .map(|j| {
                around[j].sort_unstable();
                around[j].iter().fold(mix(colour[j], around[j].len() as u64), |h, &x| mix(h, x))
            })
            .collect();
        let mut sorted = next.clone();
        sorted.sort_unstable();
        sorted.dedup();
        colour = next;
        if round > 0 && sorted.len() == distinct {
            break;
        }
        distinct = sorted.len();
    }
    let mut by: Vec<usize> = (0..n).collect();
    by.sort_by_key(|&j| (colour[j], j));
    let mut order = vec![0u8; n];
    for (new, &old) in by.iter().enumerate() {
        order[old] = new as u8;
    }
    order
}
