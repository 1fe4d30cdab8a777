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

/// The moves of each inner line over the row of one inner count: line j's runs are
/// `runs[run_start[j]..run_start[j + 1]]`, its lanes (`[configuration, successor]`)
/// `lanes[lane_start[j]..lane_start[j + 1]]`.
#[derive(Debug, Default)]
pub(super) struct LineRuns {
    run_start: Vec<u32>,
    runs: Vec<Run>,
    lane_start: Vec<u32>,
    lanes: Vec<[u16; 2]>,
}

impl LineRuns {
    /// Splits `index` (line-major, `row_len` entries for each of `lines` lines: the
    /// successor's rank, or `absent` where the line is no move) into runs and lanes.
    pub(super) fn new(index: &[u16], lines: usize, row_len: usize, absent: u16) -> LineRuns {
        let mut t = LineRuns { run_start: vec![0], lane_start: vec![0], ..LineRuns::default() };
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
                    t.lanes.extend((i..i + len).map(|k| [k as u16, line[k]]));
                }
                i += len;
            }
            t.run_start.push(t.runs.len() as u32);
            t.lane_start.push(t.lanes.len() as u32);
        }
        t
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> u64 {
        (self.run_start.capacity() * 4
            + self.runs.capacity() * size_of::<Run>()
            + self.lane_start.capacity() * 4
            + self.lanes.capacity() * 4) as u64
    }

    /// Lanes gathered one at a time over all lines (the rest move in runs).
    pub(super) fn lane_count(&self) -> usize {
        self.lanes.len()
    }

    /// Moves in runs over all lines.
    pub(super) fn run_moves(&self) -> usize {
        self.runs.iter().map(|r| r.len as usize).sum()
    }

    /// `best[i] = max(best[i], offer(succ[s], bits[i], gate))` for every move `i -> s` of line
    /// `j`. `bits` is line j's box bits over the row.
    #[inline(always)]
    pub(super) fn relax(&self, j: usize, best: &mut [Value], succ: &[Value], bits: &[u8], gate: u8) {
        let runs = &self.runs[self.run_start[j] as usize..self.run_start[j + 1] as usize];
        for r in runs {
            let (d, s, n) = (r.dst as usize, r.src as usize, r.len as usize);
            super::kernel::relax_row(&mut best[d..d + n], &succ[s..s + n], &bits[d..d + n], gate);
        }
        let lanes = &self.lanes[self.lane_start[j] as usize..self.lane_start[j + 1] as usize];
        if gate == 0 {
            for &[d, s] in lanes {
                let b = &mut best[d as usize];
                *b = (*b).max(-succ[s as usize]);
            }
        } else {
            for &[d, s] in lanes {
                let b = &mut best[d as usize];
                *b = (*b).max(offer(succ[s as usize], bits[d as usize], gate));
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
        let t = LineRuns::new(&index, 2, 24, ABSENT);
        assert_eq!(t.runs, vec![Run { dst: 0, src: 100, len: 20 }]);
        assert_eq!(t.lanes, vec![[21, 7], [22, 8], [23, 9], [23, 5]]);
        assert_eq!((t.run_start.clone(), t.lane_start.clone()), (vec![0, 1, 1], vec![0, 3, 4]));
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
            let t = LineRuns::new(&index, 2, row_len, ABSENT);
            for gate in 0..4u8 {
                let bits: Vec<u8> = (0..row_len).map(|_| (rng.next_u64() % 4) as u8).collect();
                let start: Vec<Value> = (0..row_len).map(|_| (rng.next_u64() % 61) as Value - 30).collect();
                for j in 0..2 {
                    let mut fast = start.clone();
                    t.relax(j, &mut fast, &succ, &bits, gate);
                    let mut slow = start.clone();
                    for (i, &r) in index[j * row_len..(j + 1) * row_len].iter().enumerate() {
                        if r != ABSENT {
                            slow[i] = slow[i].max(offer(succ[r as usize], bits[i], gate));
                        }
                    }
                    assert_eq!(fast, slow, "row {row_len}, line {j}, gate {gate}");
                }
            }
        }
    }
}
