//! The kernel's row path on CPUs with AVX2 but not AVX-512 VBMI, for the moves that are not
//! contiguous. The lanes the runs leave (`runs.rs`) go sixteen consecutive lanes a [`Chunk`]:
//! their successors lie within a [`WINDOW`] of 32 slots, two 16-byte loads that two byte
//! shuffles (`vpshufb`) pick the lanes' values from. The outer moves turned by a symmetry
//! (every lane of the row through a rank map, whose successors lie anywhere) go eight a
//! `vpgatherdd`, a 32-bit load at each successor's byte with its low byte kept. Then the
//! offer and the max on byte lanes. One lane at a time, these moves were half of a solve's
//! time on AVX2, and the chunks' gathers still nearly half (docs/notes/kernel-profile.md).
//!
//! A window or a gather reads past a successor's slot, so the successor row's copy holds
//! [`PAD`] slots past every `u16` index. The one-lane loops in `runs.rs` and `kernel.rs` are
//! the twins a test compares these with.

#[cfg(target_arch = "x86_64")]
use crate::game::Value;

/// Slots past the last `u16` index that a chunk's window from that index reads (a 32-bit gather
/// reads fewer).
pub(super) const PAD: usize = WINDOW - 1;

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// The low bytes of the eight 32-bit lanes of `g`, in order, in the low 8 bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn low_bytes(g: __m256i) -> __m128i {
    // Each 128-bit half's four low bytes to its first four, then the two halves' firsts
    // together.
    let pick = _mm256_setr_epi8(
        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1,
    );
    let b = _mm256_shuffle_epi8(g, pick);
    _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1)))
}

/// [`super::gather::offer`] on 16 byte lanes, then the max with `b`: successors worth `v`,
/// box bits `k` (read only where `gate` is not 0).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn offer_max(b: __m128i, v: __m128i, gate: u8, k: impl FnOnce() -> __m128i) -> __m128i {
    let neg = _mm_sub_epi8(_mm_setzero_si128(), v);
    if gate == 0 {
        return _mm_max_epi8(b, neg);
    }
    let one = _mm_set1_epi8(1);
    let k = _mm_and_si128(k(), _mm_set1_epi8(gate as i8));
    // Boxes completed: bit 0 plus bit 1 (a 16-bit shift brings each byte's bit 1 to its bit 0).
    let count = _mm_add_epi8(_mm_and_si128(k, one), _mm_and_si128(_mm_srli_epi16(k, 1), one));
    let none = _mm_cmpeq_epi8(k, _mm_setzero_si128());
    _mm_max_epi8(b, _mm_blendv_epi8(_mm_add_epi8(v, count), neg, none))
}

/// Lanes a chunk spans: `dst..dst + CHUNK`.
pub(super) const CHUNK: usize = 16;

/// Successor slots a chunk reads: `base..base + WINDOW`, two 16-byte loads.
pub(super) const WINDOW: usize = 32;

/// A chunk's byte for a lane with no move: bit 7 set. Its value is taken as [`Value::MIN`],
/// which offers `MIN` again (`0 - MIN` wraps) and so leaves the lane's best as it was.
pub(super) const NO_MOVE: u8 = 0x80;

/// Bits of a lane's byte below its box bits: its successor's offset in the window.
const OFFSET_BITS: u32 = 5;

/// A lane's byte in a [`Chunk`]: bits 0-4 its successor's offset from the window's start,
/// bits 5-6 the boxes its move completes; [`NO_MOVE`] where it has none.
pub(super) const fn lane(offset: usize, bits: u8) -> u8 {
    assert!(offset < WINDOW && bits < 4);
    offset as u8 | bits << OFFSET_BITS
}

/// A lane's byte's successor offset and box bits, or `None` for [`NO_MOVE`].
pub(super) const fn unlane(byte: u8) -> Option<(usize, u8)> {
    if byte & NO_MOVE != 0 { None } else { Some(((byte & (WINDOW as u8 - 1)) as usize, byte >> OFFSET_BITS)) }
}

/// [`CHUNK`] lanes from `dst` whose moves reach successors within [`WINDOW`] slots of `base`,
/// one byte a lane ([`lane`]). The lanes the runs leave: in colex order a low line's moves
/// from consecutive configurations land a few slots apart, so nearly every chunk's successors
/// fit one window and are picked from it by two byte shuffles. 20 bytes, which the kernel
/// reads again for every row of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub(super) struct Chunk {
    pub(super) lanes: [u8; CHUNK],
    pub(super) base: u16,
    pub(super) dst: u16,
}

/// Every chunk's lanes that have a move: `best[dst + i] = max(best[dst + i], offer(succ[base +
/// offset], bits, gate))`, the window's two halves shuffled into the lanes and picked by each
/// offset's bit 4.
///
/// # Safety
/// SAFETY: the caller's: the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn relax_chunks(
    chunks: &[Chunk],
    best: &mut [Value; 1 << 16],
    succ: &[Value; (1 << 16) + PAD],
    gate: u8,
) {
    let lowest = _mm_set1_epi8(Value::MIN);
    let two_bits = _mm_set1_epi8(3);
    for c in chunks {
        // A chunk's lanes lie within the row's `u16` range (`runs.rs` starts a chunk early
        // rather than past the end); the clamp makes that a fact here, for the unchecked
        // access below.
        let at = (c.dst as usize).min((1 << 16) - CHUNK);
        let base = c.base as usize;
        // SAFETY: `lanes` is 16 bytes; the window's 32 bytes from a `u16` index are inside
        // `succ` (`PAD` slots past the last index); `best`'s 16 bytes from `at` are inside it
        // (at most 2^16 - 16).
        unsafe {
            let l = _mm_loadu_si128(c.lanes.as_ptr().cast());
            let lo = _mm_loadu_si128(succ.as_ptr().add(base).cast());
            let hi = _mm_loadu_si128(succ.as_ptr().add(base + 16).cast());
            // `vpshufb` reads a byte's bits 0-3, and gives 0 where bit 7 is set. An offset's
            // bit 4 picks the upper half: a 16-bit shift by 3 moves each byte's bit 4 to its
            // bit 7, which `blendv` reads, as a shift by 5 brings each byte's box bits to its
            // bits 0-1 (what comes in from the byte above lands higher, and is masked off).
            let v = _mm_blendv_epi8(_mm_shuffle_epi8(lo, l), _mm_shuffle_epi8(hi, l), _mm_slli_epi16(l, 3));
            let v = _mm_blendv_epi8(v, lowest, l);
            let b = _mm_loadu_si128(best.as_ptr().add(at).cast());
            let k = || _mm_and_si128(_mm_srli_epi16(l, OFFSET_BITS as i32), two_bits);
            _mm_storeu_si128(best.as_mut_ptr().add(at).cast(), offer_max(b, v, gate, k));
        }
    }
}

/// `best[i] = max(best[i], offer(slots[index[i]], bits[i], gate))` for the row's lanes sixteen
/// a step (two gathers of eight): the outer moves turned by a symmetry. Returns the lanes done
/// (a multiple of 16), leaving the rest to the caller's one-lane loop.
///
/// # Safety
/// SAFETY: the caller's: the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn relax_mapped(
    best: &mut [Value],
    slots: &[Value; (1 << 16) + PAD],
    index: &[u16],
    bits: &[u8],
    gate: u8,
) -> usize {
    let n = best.len().min(index.len()).min(bits.len());
    let base: *const i32 = slots.as_ptr().cast();
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: lanes i..i + 16 of slices at least n long; each gathered lane reads 4 bytes
        // from its `u16` index, inside `slots`.
        unsafe {
            let idx = _mm256_loadu_si256(index.as_ptr().add(i).cast());
            let lo = _mm256_i32gather_epi32::<1>(base, _mm256_cvtepu16_epi32(_mm256_castsi256_si128(idx)));
            let hi = _mm256_i32gather_epi32::<1>(base, _mm256_cvtepu16_epi32(_mm256_extracti128_si256::<1>(idx)));
            let v = _mm_unpacklo_epi64(low_bytes(lo), low_bytes(hi));
            let b = _mm_loadu_si128(best.as_ptr().add(i).cast());
            let k = || _mm_loadu_si128(bits.as_ptr().add(i).cast());
            _mm_storeu_si128(best.as_mut_ptr().add(i).cast(), offer_max(b, v, gate, k));
        }
        i += 16;
    }
    i
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::solver::gather::offer;
    use crate::support::SplitMix64;

    #[test]
    fn a_lane_s_byte_gives_back_its_offset_and_box_bits_and_no_move_none() {
        for offset in 0..WINDOW {
            for bits in 0..4 {
                let byte = lane(offset, bits);
                assert_eq!(unlane(byte), Some((offset, bits)));
                assert_eq!(byte & NO_MOVE, 0);
            }
        }
        assert_eq!(unlane(NO_MOVE), None);
    }

    #[test]
    fn a_row_gathered_sixteen_lanes_a_step_equals_the_row_gathered_lane_by_lane() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 on this CPU: nothing to compare");
            return;
        }
        let mut rng = SplitMix64(5);
        let mut slots = vec![0 as Value; (1 << 16) + PAD];
        for s in slots.iter_mut() {
            *s = (rng.next_u64() % 61) as Value - 30;
        }
        slots[u16::MAX as usize] = Value::MAX;
        let slots: &[Value; (1 << 16) + PAD] = slots.as_slice().try_into().unwrap();
        for len in [0usize, 5, 16, 17, 40, 1000] {
            // Indices anywhere, the last `u16` too (its gather reads the padding).
            let index: Vec<u16> = (0..len).map(|i| if i % 7 == 3 { u16::MAX } else { rng.next_u64() as u16 }).collect();
            let bits: Vec<u8> = (0..len).map(|_| (rng.next_u64() % 4) as u8).collect();
            let start: Vec<Value> = (0..len).map(|_| (rng.next_u64() % 61) as Value - 30).collect();
            for gate in 0..4u8 {
                let mut fast = start.clone();
                super::super::kernel::relax_gathered(&mut fast, slots, &index, &bits, gate, true);
                let slow: Vec<Value> =
                    (0..len).map(|i| start[i].max(offer(slots[index[i] as usize], bits[i], gate))).collect();
                assert_eq!(fast, slow, "{len} lanes, gate {gate}");
            }
        }
    }
}
