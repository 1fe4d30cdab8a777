//! Runs for the kernel's wide inner rows (255 configurations or more, too many for a byte
//! index): the moves of one inner line over a row, split into *runs*, where consecutive
//! configurations move to consecutive successors, and the *lanes* left over. Configurations of
//! a count are in numeric order, so drawing line j keeps a block of configurations that share
//! their lines above j in order: a high line moves whole blocks, a low one single lanes. A run
//! is a pass over two contiguous slices that the compiler vectorises; a lane is gathered one at
//! a time. Moves that do not exist are in neither, so they cost nothing.

use crate::game::Value;

use super::gather::offer;

/// Shortest run worth a pass of its own; shorter ones go to the lanes. Measured on 3x4 and 2x6
/// in two groups (inner rows of up to 6435 values; docs/kernel-profile.md): 4 and 8 within
/// noise of each other, 2 and 12 or more slower.
const MIN_RUN: usize = 8;

/// `len` consecutive configurations from `dst` move to consecutive successors from `src`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Run {
    dst: u16,
    src: u16,
    len: u16,
}

/// One move gathered on its own that may complete a box: configuration `dst` moves to successor
/// `src`, completing the boxes whose bits are set in `bits` (where the outer lines' gate
/// allows). The bits travel with the lane so that its loop reads one table, not two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lane {
    dst: u16,
    src: u16,
    bits: u8,
}

/// The moves of each inner line over the row of one inner count: line j's runs are
/// `runs[run_start[j]..run_start[j + 1]]`; its lanes that complete no box whatever the outer
/// lines (most of them), `[configuration, successor]` in `plain[plain_start[j]..plain_start[j +
/// 1]]`, the others in `boxed[boxed_start[j]..boxed_start[j + 1]]`.
#[derive(Debug, Default)]
pub(super) struct LineRuns {
    run_start: Vec<u32>,
    runs: Vec<Run>,
    plain_start: Vec<u32>,
    plain: Vec<[u16; 2]>,
    boxed_start: Vec<u32>,
    boxed: Vec<Lane>,
}

impl LineRuns {
    /// Splits `index` (line-major, `row_len` entries for each of `lines` lines: the
    /// successor's rank, or `absent` where the line is no move) into runs and lanes; `bits`
    /// (laid out as `index`) are each move's box bits.
    pub(super) fn new(index: &[u16], bits: &[u8], lines: usize, row_len: usize, absent: u16) -> LineRuns {
        let mut t = LineRuns { run_start: vec![0], plain_start: vec![0], boxed_start: vec![0], ..LineRuns::default() };
        for j in 0..lines {
            let line = &index[j * row_len..(j + 1) * row_len];
            let mut i = 0;
            while i < line.len() {
                if line[i] == absent {
                    i += 1;
                    continue;
                }
                let mut len = 1;
                while i + len < line.len() && line[i + len] != absent && line[i + len] == line[i] + len as u16 {
                    len += 1;
                }
                if len >= MIN_RUN {
                    t.runs.push(Run { dst: i as u16, src: line[i], len: len as u16 });
                } else {
                    for k in i..i + len {
                        match bits[j * row_len + k] {
                            0 => t.plain.push([k as u16, line[k]]),
                            b => t.boxed.push(Lane { dst: k as u16, src: line[k], bits: b }),
                        }
                    }
                }
                i += len;
            }
            t.run_start.push(t.runs.len() as u32);
            t.plain_start.push(t.plain.len() as u32);
            t.boxed_start.push(t.boxed.len() as u32);
        }
        t
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> u64 {
        (self.run_start.capacity() * 4
            + self.runs.capacity() * size_of::<Run>()
            + (self.plain_start.capacity() + self.boxed_start.capacity()) * 4
            + self.plain.capacity() * 4
            + self.boxed.capacity() * size_of::<Lane>()) as u64
    }

    /// Lanes gathered one at a time over all lines (the rest move in runs).
    pub(super) fn lane_count(&self) -> usize {
        self.plain.len() + self.boxed.len()
    }

    /// Moves in runs over all lines.
    pub(super) fn run_moves(&self) -> usize {
        self.runs.iter().map(|r| r.len as usize).sum()
    }

    /// `best[i] = max(best[i], offer(succ[s], bits[i], gate))` for every move `i -> s` of line
    /// `j` over the first `row_len` values of `best`. `bits` is line j's box bits over the row
    /// (the runs read them; each lane carries its own). Both arrays take every `u16` index, so
    /// a lane's reads and writes need no bounds check.
    #[inline(always)]
    pub(super) fn relax(
        &self,
        j: usize,
        best: &mut [Value; 1 << 16],
        row_len: usize,
        succ: &[Value; 1 << 16],
        bits: &[u8],
        gate: u8,
    ) {
        let runs = &self.runs[self.run_start[j] as usize..self.run_start[j + 1] as usize];
        let row = &mut best[..row_len];
        for r in runs {
            let (d, s, n) = (r.dst as usize, r.src as usize, r.len as usize);
            super::kernel::relax_row(&mut row[d..d + n], &succ[s..s + n], &bits[d..d + n], gate);
        }
        for &[d, s] in &self.plain[self.plain_start[j] as usize..self.plain_start[j + 1] as usize] {
            let b = &mut best[d as usize];
            *b = (*b).max(-succ[s as usize]);
        }
        let boxed = &self.boxed[self.boxed_start[j] as usize..self.boxed_start[j + 1] as usize];
        if gate == 0 {
            for l in boxed {
                let b = &mut best[l.dst as usize];
                *b = (*b).max(-succ[l.src as usize]);
            }
        } else {
            for l in boxed {
                let b = &mut best[l.dst as usize];
                *b = (*b).max(offer(succ[l.src as usize], l.bits, gate));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::SplitMix64;

    const ABSENT: u16 = u16::MAX;

    #[test]
    fn runs_and_lanes_cover_every_move_once_and_no_absent_one() {
        // Line 0: a run of 20, an absent, a run of 3 (lanes); line 1: all absent but one.
        let mut index: Vec<u16> = (100..120).chain([ABSENT]).chain([7, 8, 9]).collect();
        index.extend([ABSENT; 23].iter().copied().chain([5]));
        let bits: Vec<u8> = (0..48).map(|i| (i % 3) as u8).collect();
        let t = LineRuns::new(&index, &bits, 2, 24, ABSENT);
        assert_eq!(t.runs, vec![Run { dst: 0, src: 100, len: 20 }]);
        let lane = |dst: u16, src: u16, bits: u8| Lane { dst, src, bits };
        assert_eq!(t.plain, vec![[21, 7]]);
        assert_eq!(t.boxed, vec![lane(22, 8, 1), lane(23, 9, 2), lane(23, 5, 2)]);
        assert_eq!(t.run_start, vec![0, 1, 1]);
        assert_eq!((t.plain_start.clone(), t.boxed_start.clone()), (vec![0, 1, 1], vec![0, 2, 3]));
        assert_eq!(t.run_moves() + t.lane_count(), 24);
    }

    #[test]
    fn relaxing_by_runs_equals_relaxing_lane_by_lane() {
        let mut rng = SplitMix64(11);
        for row_len in [1usize, 13, 300, 1716] {
            let succ: Vec<Value> = (0..row_len + 40).map(|_| (rng.next_u64() % 61) as Value - 30).collect();
            // Runs of random lengths at random sources, with absent moves between them.
            let mut index = Vec::new();
            while index.len() < 2 * row_len {
                let len = 1 + (rng.next_u64() % 40) as usize;
                let src = (rng.next_u64() % row_len as u64) as usize;
                for k in 0..len {
                    index.push(if rng.next_u64().is_multiple_of(9) { ABSENT } else { ((src + k) % row_len) as u16 });
                }
            }
            index.truncate(2 * row_len);
            let bits: Vec<u8> = (0..2 * row_len).map(|_| (rng.next_u64() % 4) as u8).collect();
            let t = LineRuns::new(&index, &bits, 2, row_len, ABSENT);
            let mut wide = vec![0 as Value; 1 << 16];
            wide[..succ.len()].copy_from_slice(&succ);
            let wide_succ: &[Value; 1 << 16] = wide.as_slice().try_into().unwrap();
            for gate in 0..4u8 {
                let start: Vec<Value> = (0..row_len).map(|_| (rng.next_u64() % 61) as Value - 30).collect();
                for j in 0..2 {
                    let line_bits = &bits[j * row_len..(j + 1) * row_len];
                    let mut fast = Box::new([0 as Value; 1 << 16]);
                    fast[..row_len].copy_from_slice(&start);
                    t.relax(j, &mut fast, row_len, wide_succ, line_bits, gate);
                    let fast = fast[..row_len].to_vec();
                    let mut slow = start.clone();
                    for (i, &r) in index[j * row_len..(j + 1) * row_len].iter().enumerate() {
                        if r != ABSENT {
                            slow[i] = slow[i].max(offer(succ[r as usize], line_bits[i], gate));
                        }
                    }
                    assert_eq!(fast, slow, "row {row_len}, line {j}, gate {gate}");
                }
            }
        }
    }
}
