//! Gathers for the kernel's row path on CPUs with AVX2 but not AVX-512 VBMI: eight successor
//! values a `vpgatherdd` (a 32-bit load at each successor's byte, its low byte kept), then the
//! offer and the max on byte lanes. They take the row path's moves that are not contiguous:
//! the lanes the runs leave (`runs.rs`, in chunks of eight consecutive lanes) and the outer
//! moves turned by a symmetry (every lane of the row through a rank map). One lane at a time,
//! these were half of a solve's time on AVX2 (docs/kernel-profile.md).
//!
//! A gather reads four bytes from each successor's slot, so the successor row's copy holds
//! [`PAD`] slots past every `u16` index. The one-lane loops in `runs.rs` and `kernel.rs` are
//! the twins a test compares these with.

#[cfg(target_arch = "x86_64")]
use crate::game::Value;

/// Slots past the last `u16` index that a 32-bit gather at that index reads.
pub(super) const PAD: usize = 3;

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

/// Eight lanes from `dst`, each present one (bit i of `present` = lane `dst + i`) moving to
/// successor `src[i]` and completing the boxes of `bits[i]`: the lanes the runs leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub(super) struct Chunk {
    pub(super) src: [u16; 8],
    pub(super) bits: [u8; 8],
    pub(super) dst: u16,
    pub(super) present: u8,
}

/// Every chunk's present lanes: `best[dst + i] = max(best[dst + i], offer(succ[src[i]],
/// bits[i], gate))`, a gather of eight a chunk.
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
    let lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    let byte_bit = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
    for c in chunks {
        // A chunk's eight lanes lie within the row's `u16` range (`runs.rs` starts the last
        // one early rather than past the end).
        let at = (c.dst as usize).min((1 << 16) - 8);
        // SAFETY: `src` is 16 bytes, `bits` 8.
        let (idx, k) = unsafe {
            (_mm256_cvtepu16_epi32(_mm_loadu_si128(c.src.as_ptr().cast())), _mm_loadl_epi64(c.bits.as_ptr().cast()))
        };
        let p32 = _mm256_set1_epi32(c.present as i32);
        let lanes = _mm256_cmpeq_epi32(_mm256_and_si256(p32, lane_bit), lane_bit);
        // SAFETY: a lane reads the 4 bytes from its `u16` index, inside `succ` (`PAD` slots
        // past the last index); lanes not present read nothing.
        let g = unsafe { _mm256_mask_i32gather_epi32::<1>(_mm256_setzero_si256(), succ.as_ptr().cast(), idx, lanes) };
        let p8 = _mm_set1_epi8(c.present as i8);
        let keep = _mm_cmpeq_epi8(_mm_and_si128(p8, byte_bit), byte_bit);
        // SAFETY: 8 bytes from `at`, inside `best` (at most 2^16 - 8).
        unsafe {
            let b = _mm_loadl_epi64(best.as_ptr().add(at).cast());
            let v = _mm_blendv_epi8(b, offer_max(b, low_bytes(g), gate, || k), keep);
            _mm_storel_epi64(best.as_mut_ptr().add(at).cast(), v);
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
