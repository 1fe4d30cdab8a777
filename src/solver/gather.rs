//! Byte gathers for the kernel's row path, 64 lanes at a time with AVX-512 VBMI (`vpermi2b`)
//! where the CPU has it: a pass over a row whose successors come from another row through an
//! index (an inner line's moves, or a symmetry's rank map).
//!
//! A pass is cut into *steps* of up to 64 consecutive lanes whose successors all lie in one or
//! two neighbouring 256-slot *blocks* of the successor row. A lane keeps only its successor's
//! rank's low byte, which `vpermi2b` looks up in a block (two permutes, the 128-byte halves,
//! blended on the byte's top bit); a step of two blocks blends them on a per-step mask. Moves
//! that do not exist are in no step's mask, so they cost nothing and need no sentinel. In
//! colex order the 64 configurations of a step reach one block (or two neighbours) for nearly
//! every inner line: over an inner group of 12 lines a step holds 32 moves on average, and no
//! 64 lanes need more than one step. A successor row of fewer than 255 values is gathered
//! whole instead (every lane of a pass, the block held in registers, a sentinel slot for moves
//! that do not exist): its passes are a few steps long, and one loop over them is cheaper.
//!
//! The kernel asks [`vbmi`] once, when it is built; the runs and the `u16` gathers in
//! `kernel.rs` are the portable path, and [`ByteIndex::relax_portable`] the twin a test
//! compares this one with. Its `unsafe` blocks, each with its `SAFETY` note, are here because a
//! benchmark showed they pay (docs/notes/kernel-profile.md has the figures).

use super::simd::Simd;
use crate::game::Value;

/// Slots of the successor row's copy that a gather reads from: every `u16` rank's block and the
/// block after it.
pub(super) const SLOTS: usize = 1 << 16;

/// Whether the kernel takes [`ByteIndex::relax`]: this CPU has AVX-512 F, BW and VBMI, and no
/// narrower set was chosen for the process ([`Simd::current`]).
pub(super) fn vbmi() -> bool {
    Simd::current().gathers()
}

/// Up to 64 lanes of a pass from lane `start`: bit i of `present` set = lane `start + i` has a
/// move, whose successor's rank is `256 * (block + upper bit i) + its low byte`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    present: u64,
    /// Bit i set = lane `start + i`'s successor is in block `block + 1` (never where `present`
    /// is not set). 0 for a step of one block.
    upper: u64,
    start: u32,
    block: u32,
}

/// Steps that read the same blocks: `block` (and `block + 1` for the steps of two), loaded
/// once for them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Set {
    block: u32,
    /// `steps[first..split]` read one block, `steps[split..end]` two.
    first: u32,
    split: u32,
    end: u32,
}

/// The moves of some passes over rows of one length (an inner line each, or one symmetry's
/// rank map), as byte gathers: per lane its successor's rank's low byte (pass-major, `row_len`
/// lanes a pass), and per pass its steps, in sets by block.
#[derive(Debug, Default)]
pub(super) struct ByteIndex {
    lo: Vec<u8>,
    steps: Vec<Step>,
    /// Pass p's sets: `sets[set_start[p]..set_start[p + 1]]`.
    sets: Vec<Set>,
    set_start: Vec<u32>,
    row_len: usize,
    /// Values of the successor row and after it that the steps read: their blocks' ends.
    reach: usize,
    /// A successor row of fewer than 255 values: no steps; every lane of a pass is gathered from
    /// one block in registers, a move that does not exist from slot [`ABSENT8`].
    whole: bool,
}

/// Slot that names no move in a pass gathered whole: past every row of fewer than 255 values.
pub(super) const ABSENT8: u8 = u8::MAX;

impl ByteIndex {
    /// `ranks` (pass-major, `row_len` per pass: the successor's rank, or `absent` where the lane
    /// has no move) as byte gathers from a successor row of `succ_len` values. A row of fewer
    /// than 255 values is gathered whole: a pass is then as short as a step, and one loop over
    /// it with the block in registers beats steps.
    pub(super) fn new(ranks: &[u16], row_len: usize, absent: u16, succ_len: usize) -> ByteIndex {
        if succ_len < ABSENT8 as usize {
            let lo = ranks.iter().map(|&r| if r == absent { ABSENT8 } else { r as u8 }).collect();
            return ByteIndex { lo, row_len, reach: 256, whole: true, ..ByteIndex::default() };
        }
        let passes = ranks.len().checked_div(row_len).unwrap_or(0);
        let mut t = ByteIndex { lo: ranks.iter().map(|&r| r as u8).collect(), row_len, ..ByteIndex::default() };
        t.set_start.push(0);
        for p in 0..passes {
            let mut steps = Vec::new();
            for start in (0..row_len).step_by(64) {
                let lanes = &ranks[p * row_len + start..p * row_len + row_len.min(start + 64)];
                let mut left: u64 = lanes.iter().enumerate().filter(|(_, r)| **r != absent).map(|(i, _)| 1 << i).sum();
                // The lowest block left and the one after it, until every move has its step.
                while left != 0 {
                    let block = bits_of(left).map(|i| lanes[i] >> 8).min().expect("a lane left") as u32;
                    let (mut present, mut upper) = (0u64, 0u64);
                    for i in bits_of(left) {
                        let b = (lanes[i] >> 8) as u32;
                        if b <= block + 1 {
                            present |= 1 << i;
                            upper |= ((b == block + 1) as u64) << i;
                        }
                    }
                    left &= !present;
                    steps.push(Step { present, upper, start: start as u32, block });
                }
            }
            steps.sort_by_key(|s| (s.block, s.upper != 0, s.start));
            let block_end = |s: &Step| 256 * (s.block as usize + 1 + (s.upper != 0) as usize);
            t.reach = steps.iter().map(block_end).fold(t.reach, usize::max);
            for same in steps.chunk_by(|a, b| a.block == b.block) {
                let first = t.steps.len() as u32;
                let ones = same.iter().filter(|s| s.upper == 0).count() as u32;
                t.steps.extend_from_slice(same);
                let end = t.steps.len() as u32;
                t.sets.push(Set { block: same[0].block, first, split: first + ones, end });
            }
            t.set_start.push(t.sets.len() as u32);
        }
        t
    }

    /// Lanes gathered per row over every pass, once per block a step reads (64 lanes a step):
    /// the work the cost model prices.
    pub(super) fn lanes(&self) -> u64 {
        if self.whole {
            return self.lo.len() as u64;
        }
        let two: u64 = self.sets.iter().map(|s| (s.end - s.split) as u64).sum();
        64 * (self.steps.len() as u64 + two)
    }

    /// Values of the successor row, and past its end, that [`ByteIndex::relax`] reads; `None`
    /// where it reads a copy of the row whose slot [`ABSENT8`] holds [`Value::MAX`].
    pub(super) fn reach(&self) -> Option<usize> {
        (!self.whole).then_some(self.reach)
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> u64 {
        (self.lo.capacity()
            + self.steps.capacity() * size_of::<Step>()
            + self.sets.capacity() * size_of::<Set>()
            + self.set_start.capacity() * 4) as u64
    }

    /// `best[i] = max(best[i], offer(slots[rank], bits[i], gate))` for every move `i -> rank` of
    /// pass `p` over the row `best`; `slots` holds the successor row from slot 0 and at least
    /// [`ByteIndex::reach`] values (where that is `None`, 256 with [`Value::MAX`] in slot
    /// [`ABSENT8`]), `bits` the pass's box bits over the row. 64 lanes at a time where [`vbmi`]
    /// says yes, else one at a time.
    #[inline(always)]
    pub(super) fn relax(&self, p: usize, best: &mut [Value], slots: &[Value], bits: &[u8], gate: u8) {
        assert!(best.len() >= self.row_len && bits.len() >= self.row_len, "a row of {} lanes", self.row_len);
        assert!(slots.len() >= self.reach, "{} values to gather from", self.reach);
        #[cfg(target_arch = "x86_64")]
        let lo = &self.lo[p * self.row_len..(p + 1) * self.row_len];
        if self.whole {
            debug_assert_eq!(slots[ABSENT8 as usize], Value::MAX, "the slot that names no move");
            let table: &[Value; 256] = slots[..256].try_into().expect("256 slots, asserted above");
            #[cfg(target_arch = "x86_64")]
            if vbmi_cached() {
                // SAFETY: the CPU has AVX-512 F, BW and VBMI (checked at run time above).
                unsafe { relax_whole_vbmi(&mut best[..self.row_len], table, lo, bits, gate) };
                return;
            }
            #[cfg(not(target_arch = "x86_64"))]
            let _ = table;
        }
        #[cfg(target_arch = "x86_64")]
        if vbmi_cached() {
            let sets = &self.sets[self.set_start[p] as usize..self.set_start[p + 1] as usize];
            // SAFETY: the CPU has AVX-512 F, BW and VBMI (checked at run time above); every
            // step's lanes lie in the row (`new`), which `best`, `bits` and `lo` cover (asserted
            // above), and its blocks in `slots` (within `reach`, asserted above).
            unsafe { relax_vbmi(sets, &self.steps, best, slots, lo, bits, gate) };
            return;
        }
        self.relax_portable(p, best, slots, bits, gate);
    }

    /// [`ByteIndex::relax`] one lane at a time: the twin of the AVX-512 path, and its fallback.
    fn relax_portable(&self, p: usize, best: &mut [Value], slots: &[Value], bits: &[u8], gate: u8) {
        let lo = &self.lo[p * self.row_len..(p + 1) * self.row_len];
        if self.whole {
            return relax_whole(&mut best[..self.row_len], slots[..256].try_into().unwrap(), lo, bits, gate);
        }
        for set in &self.sets[self.set_start[p] as usize..self.set_start[p + 1] as usize] {
            relax_portable(&self.steps[set.first as usize..set.end as usize], best, slots, lo, bits, gate);
        }
    }
}

/// [`vbmi`], asked of the CPU once per process.
#[cfg(target_arch = "x86_64")]
fn vbmi_cached() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(vbmi)
}

/// The value of a move to a successor worth `s` that completes the boxes whose bits are set in
/// both `bits` and `gate`.
#[inline(always)]
pub(super) fn offer(s: Value, bits: u8, gate: u8) -> Value {
    let k = bits & gate;
    // Two bits at most: k - k / 2 counts them (0, 1, 1, 2) in one operation fewer than adding
    // them, and any box completed makes the mover move again.
    if k != 0 { s + (k - (k >> 1)) as Value } else { -s }
}

/// The steps' moves one lane at a time.
#[inline(always)]
fn relax_portable(steps: &[Step], best: &mut [Value], slots: &[Value], lo: &[u8], bits: &[u8], gate: u8) {
    for s in steps {
        for i in bits_of(s.present) {
            let l = s.start as usize + i;
            let rank = (s.block as usize + (s.upper >> i & 1) as usize) << 8 | lo[l] as usize;
            best[l] = best[l].max(offer(slots[rank], bits[l], gate));
        }
    }
}

/// The indices of the set bits of `m`, lowest first.
#[inline(always)]
fn bits_of(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            i
        })
    })
}

/// A pass gathered whole one lane at a time: every lane from the 256-slot `table`.
#[inline(always)]
fn relax_whole(best: &mut [Value], table: &[Value; 256], lo: &[u8], bits: &[u8], gate: u8) {
    for ((b, &r), &k) in best.iter_mut().zip(lo).zip(bits) {
        *b = (*b).max(offer(table[r as usize], k, gate));
    }
}

/// The successor values of 64 lanes whose low bytes are `idx`, from the 256-slot block `t`
/// (four 64-byte quarters): two `vpermi2b`, one per 128-byte half, blended on the byte's top
/// bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
fn look_up(t: &[std::arch::x86_64::__m512i; 4], idx: std::arch::x86_64::__m512i) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    let low = _mm512_permutex2var_epi8(t[0], idx, t[1]);
    let high = _mm512_permutex2var_epi8(t[2], idx, t[3]);
    _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), low, high)
}

/// [`offer`] on 64 lanes: successors worth `v`, box bits from `bits` (read only where `gate` is
/// not 0), then the max with `b`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn offer_max(
    b: std::arch::x86_64::__m512i,
    v: std::arch::x86_64::__m512i,
    gate: u8,
    bits: impl FnOnce() -> std::arch::x86_64::__m512i,
) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    let neg = _mm512_sub_epi8(_mm512_setzero_si512(), v);
    if gate == 0 {
        return _mm512_max_epi8(b, neg);
    }
    let one = _mm512_set1_epi8(1);
    let k = _mm512_and_si512(bits(), _mm512_set1_epi8(gate as i8));
    // Boxes completed: bit 0 plus bit 1 (a 16-bit shift brings each byte's bit 1 to its own
    // bit 0).
    let count = _mm512_add_epi8(_mm512_and_si512(k, one), _mm512_and_si512(_mm512_srli_epi16(k, 1), one));
    _mm512_max_epi8(b, _mm512_mask_blend_epi8(_mm512_test_epi8_mask(k, k), neg, _mm512_add_epi8(v, count)))
}

/// [`relax_whole`] 64 lanes at a time: the 256-byte table in four registers, two `vpermi2b` per
/// 64 lanes (bytes 0-127 and 128-255) blended on the index's top bit; the tail masked.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn relax_whole_vbmi(best: &mut [Value], table: &[Value; 256], lo: &[u8], bits: &[u8], gate: u8) {
    use std::arch::x86_64::*;
    let n = best.len().min(lo.len()).min(bits.len());
    let p = table.as_ptr() as *const __m512i;
    // SAFETY: `table` is 256 bytes, four unaligned 64-byte loads.
    let t = unsafe {
        [
            _mm512_loadu_si512(p),
            _mm512_loadu_si512(p.add(1)),
            _mm512_loadu_si512(p.add(2)),
            _mm512_loadu_si512(p.add(3)),
        ]
    };
    let mut i = 0;
    while i < n {
        let lanes: __mmask64 = if n - i >= 64 { !0 } else { (1u64 << (n - i)) - 1 };
        // SAFETY: masked loads read only lanes i..n of slices at least n long.
        let (idx, b) = unsafe {
            (
                _mm512_maskz_loadu_epi8(lanes, lo.as_ptr().add(i) as *const i8),
                _mm512_maskz_loadu_epi8(lanes, best.as_ptr().add(i)),
            )
        };
        // SAFETY: as above.
        let k = || unsafe { _mm512_maskz_loadu_epi8(lanes, bits.as_ptr().add(i) as *const i8) };
        let v = offer_max(b, look_up(&t, idx), gate, k);
        // SAFETY: a masked store of lanes i..n of `best`.
        unsafe { _mm512_mask_storeu_epi8(best.as_mut_ptr().add(i), lanes, v) };
        i += 64;
    }
}

/// The sets' steps 64 lanes at a time: per set, the four 64-byte quarters of its block (and of
/// the next, for its steps of two) loaded once; per step two `vpermi2b` per block (its 128-byte
/// halves) blended on the low byte's top bit, and a second block blended in on the step's
/// `upper` mask. Loads, the max and the store are masked to the step's moves.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
/// # Safety
/// SAFETY: the caller's: the CPU has AVX-512 F, BW and VBMI; every step's lanes `start..start
/// + 64` that are in `present` lie within `best`, `lo` and `bits`, and `slots` holds its
/// blocks (`256 * (block + 2)` values, or `block + 1` for a set without steps of two).
unsafe fn relax_vbmi(
    sets: &[Set],
    steps: &[Step],
    best: &mut [Value],
    slots: &[Value],
    lo: &[u8],
    bits: &[u8],
    gate: u8,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's contract (the step's moves lie in `best`, `lo` and `bits`); the
    // masked loads and store touch only the step's moves.
    let index =
        |s: &Step| unsafe { _mm512_maskz_loadu_epi8(s.present, lo.as_ptr().add(s.start as usize) as *const i8) };
    // SAFETY: as above.
    let relax = |s: &Step, best: &mut [Value], v: __m512i| unsafe {
        let (m, at) = (s.present, s.start as usize);
        let b = _mm512_maskz_loadu_epi8(m, best.as_ptr().add(at));
        let k = || _mm512_maskz_loadu_epi8(m, bits.as_ptr().add(at) as *const i8);
        _mm512_mask_storeu_epi8(best.as_mut_ptr().add(at), m, offer_max(b, v, gate, k));
    };
    for set in sets {
        // SAFETY: the caller's contract: `slots` holds the set's blocks (the next one too where
        // the set has steps of two), read in 64-byte quarters.
        let block = |k: usize| unsafe {
            let q = slots.as_ptr().add(256 * (set.block as usize + k)) as *const __m512i;
            [
                _mm512_loadu_si512(q),
                _mm512_loadu_si512(q.add(1)),
                _mm512_loadu_si512(q.add(2)),
                _mm512_loadu_si512(q.add(3)),
            ]
        };
        let t = block(0);
        for s in &steps[set.first as usize..set.split as usize] {
            relax(s, best, look_up(&t, index(s)));
        }
        if set.split == set.end {
            continue;
        }
        let u = block(1);
        for s in &steps[set.split as usize..set.end as usize] {
            let idx = index(s);
            relax(s, best, _mm512_mask_blend_epi8(s.upper, look_up(&t, idx), look_up(&u, idx)));
        }
    }
}

/// Row path: a move whose successors are a contiguous row.
#[inline(always)]
pub(super) fn relax_row(best: &mut [Value], succ: &[Value], bits: &[u8], gate: u8) {
    if gate == 0 {
        for (b, &s) in best.iter_mut().zip(succ) {
            *b = (*b).max(-s);
        }
    } else {
        for ((b, &s), &k) in best.iter_mut().zip(succ).zip(bits) {
            *b = (*b).max(offer(s, k, gate));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::SplitMix64;

    const ABSENT: u16 = u16::MAX;

    #[test]
    fn every_move_is_in_one_step_of_at_most_two_neighbouring_blocks() {
        let mut rng = SplitMix64(3);
        for (row_len, succ_len) in [(1usize, 1usize), (70, 300), (200, 60_000), (924, 792), (130, 65_535)] {
            let ranks: Vec<u16> =
                (0..3 * row_len)
                    .map(|_| {
                        if rng.next_u64().is_multiple_of(4) {
                            ABSENT
                        } else {
                            (rng.next_u64() % succ_len as u64) as u16
                        }
                    })
                    .collect();
            let t = ByteIndex::new(&ranks, row_len, ABSENT, succ_len.max(255));
            for p in 0..3 {
                let mut seen = vec![0u32; row_len];
                let sets = &t.sets[t.set_start[p] as usize..t.set_start[p + 1] as usize];
                let steps = sets.iter().flat_map(|set| {
                    let ones = &t.steps[set.first as usize..set.split as usize];
                    let twos = &t.steps[set.split as usize..set.end as usize];
                    assert!(ones.iter().all(|s| s.upper == 0) && twos.iter().all(|s| s.upper != 0));
                    assert!(ones.iter().chain(twos).all(|s| s.block == set.block), "a set's steps share its block");
                    ones.iter().chain(twos)
                });
                for s in steps {
                    assert_eq!(s.upper & !s.present, 0);
                    for i in bits_of(s.present) {
                        let l = p * row_len + s.start as usize + i;
                        let block = s.block + (s.upper >> i & 1) as u32;
                        assert_eq!((block << 8) | t.lo[l] as u32, ranks[l] as u32);
                        seen[s.start as usize + i] += 1;
                    }
                }
                for (i, &n) in seen.iter().enumerate() {
                    assert_eq!(n, (ranks[p * row_len + i] != ABSENT) as u32, "row {row_len}, pass {p}, lane {i}");
                }
            }
        }
    }

    #[test]
    fn the_vector_gather_where_the_cpu_has_it_equals_the_lane_by_lane_twin() {
        if vbmi() {
            eprintln!("compared: the AVX-512 VBMI gather against its lane-by-lane twin");
        } else {
            eprintln!(
                "this CPU has no AVX-512 VBMI: only the portable path ran (the vector gather is compared where the CPU has it)"
            );
        }
        let mut rng = SplitMix64(7);
        let mut slots = vec![0 as Value; SLOTS];
        for s in &mut slots {
            *s = (rng.next_u64() % 61) as Value - 30;
        }
        // The slot that names no move in a pass gathered whole.
        slots[ABSENT8 as usize] = Value::MAX;
        let slots: &[Value; SLOTS] = slots.as_slice().try_into().unwrap();
        for succ_len in [1usize, 64, 254, 255, 511, 924, 1716, 12_870, 65_535] {
            for row_len in [1usize, 5, 63, 64, 65, 200, 462, 924] {
                // Scattered ranks, and ranks in order as inner lines make them.
                for ordered in [false, true] {
                    let ranks: Vec<u16> = (0..2 * row_len)
                        .map(|i| match (rng.next_u64().is_multiple_of(5), ordered) {
                            (true, _) => ABSENT,
                            (_, false) => (rng.next_u64() % succ_len as u64) as u16,
                            (_, true) => ((i % row_len) * succ_len / row_len) as u16,
                        })
                        .collect();
                    let t = ByteIndex::new(&ranks, row_len, ABSENT, succ_len);
                    assert_eq!(t.whole, succ_len < 255);
                    for gate in 0..4u8 {
                        for p in 0..2 {
                            let pass = &ranks[p * row_len..(p + 1) * row_len];
                            // A move that does not exist completes no box.
                            let bits: Vec<u8> = pass
                                .iter()
                                .map(|&r| if r == ABSENT { 0 } else { (rng.next_u64() % 4) as u8 })
                                .collect();
                            let start: Vec<Value> = (0..row_len).map(|_| (rng.next_u64() % 61) as Value - 30).collect();
                            let want: Vec<Value> = (0..row_len)
                                .map(|i| match pass[i] {
                                    ABSENT => start[i],
                                    r => start[i].max(offer(slots[r as usize], bits[i], gate)),
                                })
                                .collect();
                            let mut fast = start.clone();
                            // `relax` takes the vector gather wherever the CPU has it.
                            t.relax(p, &mut fast, slots, &bits, gate);
                            let what = format!("row {row_len} of {succ_len}, ordered {ordered}, pass {p}, gate {gate}");
                            assert_eq!(fast, want, "{what} (vbmi: {})", vbmi());
                            let mut slow = start.clone();
                            t.relax_portable(p, &mut slow, slots, &bits, gate);
                            assert_eq!(slow, want, "portable: {what}");
                        }
                    }
                }
            }
        }
    }
}
