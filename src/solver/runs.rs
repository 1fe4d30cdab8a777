//! Runs for the kernel's wide inner rows (255 configurations or more, too many for a byte
//! index): the moves of one inner line over a row, split into *runs*, where consecutive
//! configurations move to consecutive successors, and the *lanes* left over. Configurations of
//! a count are in numeric order, so drawing line j keeps a block of configurations that share
//! their lines above j in order: a high line moves whole blocks, a low one single lanes. A run
//! is a pass over two contiguous slices that the compiler vectorises; the lanes go in chunks of
//! sixteen consecutive configurations whose successors lie within 32 slots, picked from those
//! slots by byte shuffles with AVX2 (`dwords.rs`), one at a time otherwise. Moves that do not
//! exist are in neither, so they cost nothing.

use crate::game::Value;

use super::dwords::{CHUNK, Chunk, NO_MOVE, PAD, WINDOW, lane, unlane};
use super::gather::offer;

/// Shortest run worth a pass of its own; shorter ones go to the lanes. Measured on 3x4 and 2x6
/// in two groups (inner rows of up to 6435 values; docs/notes/kernel-profile.md): 4 and 8 within
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
/// `runs[run_start[j]..run_start[j + 1]]`, its lanes `chunks[chunk_start[j]..chunk_start[j +
/// 1]]`. A lane's box bits travel with it, so that its gather reads one table, not two.
#[derive(Debug, Default)]
pub(super) struct LineRuns {
    run_start: Vec<u32>,
    runs: Vec<Run>,
    chunk_start: Vec<u32>,
    chunks: Vec<Chunk>,
}

impl LineRuns {
    /// Splits `index` (line-major, `row_len` entries for each of `lines` lines: the
    /// successor's rank, or `absent` where the line is no move) into runs and lanes; `bits`
    /// (laid out as `index`) are each move's box bits.
    pub(super) fn new(index: &[u16], bits: &[u8], lines: usize, row_len: usize, absent: u16) -> LineRuns {
        let mut t = LineRuns { run_start: vec![0], chunk_start: vec![0], ..LineRuns::default() };
        for j in 0..lines {
            let first = t.chunks.len();
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
                        t.push_lane(first, row_len, k, line[k], bits[j * row_len + k]);
                    }
                }
                i += len;
            }
            t.run_start.push(t.runs.len() as u32);
            t.chunk_start.push(t.chunks.len() as u32);
        }
        t
    }

    /// Adds lane `dst -> src` to the line's last chunk (from `first`) where it lies within its
    /// lanes and its window, else to a new chunk from `dst`, or from [`CHUNK`] before the row's
    /// end where that is sooner (a chunk's lanes never pass the row), whose window starts at
    /// `src`. Chunks may share lanes: each lane has its move in one of them.
    fn push_lane(&mut self, first: usize, row_len: usize, dst: usize, src: u16, bits: u8) {
        let fits = |c: &&mut Chunk| dst < c.dst as usize + CHUNK && src >= c.base && ((src - c.base) as usize) < WINDOW;
        let c = match self.chunks[first..].last_mut().filter(fits) {
            Some(c) => c,
            None => {
                let at = dst.min(row_len.saturating_sub(CHUNK));
                let c = Chunk { lanes: [NO_MOVE; CHUNK], base: src, dst: at as u16 };
                self.chunks.push(c);
                self.chunks.last_mut().expect("just pushed")
            }
        };
        let i = dst - c.dst as usize;
        c.lanes[i] = lane((src - c.base) as usize, bits);
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> u64 {
        (self.run_start.capacity() * 4
            + self.runs.capacity() * size_of::<Run>()
            + self.chunk_start.capacity() * 4
            + self.chunks.capacity() * size_of::<Chunk>()) as u64
    }

    /// Moves in chunks' lanes over all lines (the rest move in runs).
    pub(super) fn lane_count(&self) -> usize {
        self.chunks.iter().map(|c| c.lanes.iter().filter(|&&b| b != NO_MOVE).count()).sum()
    }

    /// Moves in runs over all lines.
    pub(super) fn run_moves(&self) -> usize {
        self.runs.iter().map(|r| r.len as usize).sum()
    }

    /// `best[i] = max(best[i], offer(succ[s], bits[i], gate))` for every move `i -> s` of line
    /// `j` over the first `row_len` values of `best`. `bits` is line j's box bits over the row
    /// (the runs read them; each lane carries its own). Both arrays take every `u16` index, so
    /// a lane's reads and writes need no bounds check. `avx2`: the lanes by byte shuffles,
    /// a chunk at a time (where the CPU has AVX2; else one at a time).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn relax(
        &self,
        j: usize,
        best: &mut [Value; 1 << 16],
        row_len: usize,
        succ: &[Value; (1 << 16) + PAD],
        bits: &[u8],
        gate: u8,
        avx2: bool,
    ) {
        let runs = &self.runs[self.run_start[j] as usize..self.run_start[j + 1] as usize];
        let row = &mut best[..row_len];
        for r in runs {
            let (d, s, n) = (r.dst as usize, r.src as usize, r.len as usize);
            super::gather::relax_row(&mut row[d..d + n], &succ[s..s + n], &bits[d..d + n], gate);
        }
        let chunks = &self.chunks[self.chunk_start[j] as usize..self.chunk_start[j + 1] as usize];
        #[cfg(target_arch = "x86_64")]
        if avx2 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (asked just above).
            return unsafe { super::dwords::relax_chunks(chunks, best, succ, gate) };
        }
        let _ = avx2;
        relax_lanes(chunks, best, succ, gate);
    }
}

/// The chunks' lanes one at a time: the portable path, and the twin of
/// [`super::dwords::relax_chunks`].
#[inline(always)]
fn relax_lanes(chunks: &[Chunk], best: &mut [Value; 1 << 16], succ: &[Value; (1 << 16) + PAD], gate: u8) {
    for c in chunks {
        for (i, &byte) in c.lanes.iter().enumerate() {
            if let Some((off, bits)) = unlane(byte) {
                // A chunk's lanes never pass the `u16` range: the mask lets the compiler drop
                // the bounds check (5 % of the portable path on a 3x5 position).
                let b = &mut best[(c.dst as usize + i) & 0xffff];
                *b = (*b).max(offer(succ[c.base as usize + off], bits, gate));
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
        // Lanes 21-23 of a row of 24: their chunk starts 16 before its end, not past it.
        let chunk = |base: u16, lanes: &[(usize, u16, u8)]| {
            let mut c = Chunk { lanes: [NO_MOVE; CHUNK], base, dst: 8 };
            for &(i, src, bits) in lanes {
                c.lanes[i - 8] = lane((src - base) as usize, bits);
            }
            c
        };
        assert_eq!(t.chunks, vec![chunk(7, &[(21, 7, 0), (22, 8, 1), (23, 9, 2)]), chunk(5, &[(23, 5, 2)])]);
        assert_eq!(t.run_start, vec![0, 1, 1]);
        assert_eq!(t.chunk_start, vec![0, 1, 2]);
        assert_eq!(t.run_moves() + t.lane_count(), 24);
    }

    #[test]
    fn a_lane_outside_its_chunk_s_window_starts_a_chunk_that_shares_its_lanes() {
        // Lanes 0-3 of one line: sources 10 and 41 (inside the window from 10), 42 (past it),
        // then 9 (below the second window's start).
        let index = [10, 41, 42, 9];
        let t = LineRuns::new(&index, &[1, 2, 3, 0], 1, 4, ABSENT);
        let starts: Vec<(u16, u16)> = t.chunks.iter().map(|c| (c.dst, c.base)).collect();
        assert_eq!(starts, vec![(0, 10), (0, 42), (0, 9)]);
        assert_eq!(
            t.chunks[0].lanes[..3].iter().map(|&b| unlane(b)).collect::<Vec<_>>(),
            [Some((0, 1)), Some((31, 2)), None]
        );
        assert_eq!(t.lane_count(), 4);
    }

    #[test]
    fn relaxing_by_runs_equals_relaxing_lane_by_lane_by_gathers_or_not() {
        let mut rng = SplitMix64(11);
        // Rows up to the top of the `u16` range, where a gather reads into the padding.
        for row_len in [1usize, 7, 13, 300, 1716, 65_534] {
            let succ: Vec<Value> =
                (0..(row_len + 40).min(1 << 16)).map(|_| (rng.next_u64() % 61) as Value - 30).collect();
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
            let mut wide = vec![0 as Value; (1 << 16) + PAD];
            wide[..succ.len()].copy_from_slice(&succ);
            let wide_succ: &[Value; (1 << 16) + PAD] = wide.as_slice().try_into().unwrap();
            for gate in 0..4u8 {
                let start: Vec<Value> = (0..row_len).map(|_| (rng.next_u64() % 61) as Value - 30).collect();
                for (j, avx2) in [0, 1].into_iter().flat_map(|j| [(j, false), (j, true)]) {
                    let line_bits = &bits[j * row_len..(j + 1) * row_len];
                    let mut fast = vec![0 as Value; 1 << 16].into_boxed_slice();
                    fast[..row_len].copy_from_slice(&start);
                    let fast_best: &mut [Value; 1 << 16] = (&mut fast[..]).try_into().unwrap();
                    t.relax(j, fast_best, row_len, wide_succ, line_bits, gate, avx2);
                    let fast = fast[..row_len].to_vec();
                    let mut slow = start.clone();
                    for (i, &r) in index[j * row_len..(j + 1) * row_len].iter().enumerate() {
                        if r != ABSENT {
                            slow[i] = slow[i].max(offer(succ[r as usize], line_bits[i], gate));
                        }
                    }
                    assert_eq!(fast, slow, "row {row_len}, line {j}, gate {gate}, AVX2 asked {avx2}");
                }
            }
        }
    }
}
