//! Byte gathers for the kernel's row path, 64 lanes at a time with AVX-512 VBMI (`vpermi2b`)
//! where the CPU has it: a pass over a row whose successors come from a successor row of fewer
//! than 255 values through byte indices. The kernel asks [`vbmi`] once, when it is built; the
//! `u16` gathers in `kernel.rs` are the portable path, and [`relax_portable`] the twin a test
//! compares this one with.
//!
//! Its `unsafe` blocks, each with its `SAFETY` note, are here because a benchmark showed they
//! pay (docs/kernel-profile.md has the figures).

use crate::game::Value;

/// Index that names no move: the slot past every row of fewer than 255 values.
pub(super) const ABSENT8: u8 = u8::MAX;

/// Whether this CPU has what [`relax`] needs: AVX-512 F, BW and VBMI.
pub(super) fn vbmi() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
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

/// `best[i] = max(best[i], offer(slots[index[i]], bits[i], gate))` over the row, where `slots`
/// holds the successor row (fewer than 255 values) from slot 0; slot [`ABSENT8`] is set to
/// [`Value::MAX`] first, so a move that does not exist never wins. Only where [`vbmi`] said
/// yes (elsewhere it falls back to [`relax_portable`]).
#[inline(always)]
pub(super) fn relax(best: &mut [Value], slots: &mut [Value], index: &[u8], bits: &[u8], gate: u8) {
    slots[ABSENT8 as usize] = Value::MAX;
    let table: &[Value; 256] = slots[..256].try_into().expect("256 slots at least");
    #[cfg(target_arch = "x86_64")]
    if vbmi_cached() {
        // SAFETY: the CPU has AVX-512 F, BW and VBMI (checked at run time above).
        unsafe { relax_vbmi(best, table, index, bits, gate) };
        return;
    }
    relax_portable(best, table, index, bits, gate);
}

/// [`vbmi`], asked of the CPU once per process.
#[cfg(target_arch = "x86_64")]
fn vbmi_cached() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(vbmi)
}

/// [`relax`] one lane at a time: the twin of the AVX-512 path, and its fallback.
#[inline(always)]
pub(super) fn relax_portable(best: &mut [Value], table: &[Value; 256], index: &[u8], bits: &[u8], gate: u8) {
    for ((b, &r), &k) in best.iter_mut().zip(index).zip(bits) {
        *b = (*b).max(offer(table[r as usize], k, gate));
    }
}

/// [`relax`] 64 lanes at a time: the 256-byte table in four registers, two `vpermi2b` per 64
/// indices (bytes 0-127 and 128-255) blended on the index's top bit; the tail masked.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn relax_vbmi(best: &mut [Value], table: &[Value; 256], index: &[u8], bits: &[u8], gate: u8) {
    use std::arch::x86_64::*;
    let n = best.len().min(index.len()).min(bits.len());
    let p = table.as_ptr() as *const __m512i;
    // SAFETY: `table` is 256 bytes, four unaligned 64-byte loads.
    let (t0, t1, t2, t3) = unsafe {
        (
            _mm512_loadu_si512(p),
            _mm512_loadu_si512(p.add(1)),
            _mm512_loadu_si512(p.add(2)),
            _mm512_loadu_si512(p.add(3)),
        )
    };
    let gates = _mm512_set1_epi8(gate as i8);
    let one = _mm512_set1_epi8(1);
    let mut i = 0;
    while i < n {
        let lanes: __mmask64 = if n - i >= 64 { !0 } else { (1u64 << (n - i)) - 1 };
        // SAFETY: masked loads read only lanes i..n of slices at least n long.
        let (idx, b) = unsafe {
            (
                _mm512_maskz_loadu_epi8(lanes, index.as_ptr().add(i) as *const i8),
                _mm512_maskz_loadu_epi8(lanes, best.as_ptr().add(i)),
            )
        };
        let lo = _mm512_permutex2var_epi8(t0, idx, t1);
        let hi = _mm512_permutex2var_epi8(t2, idx, t3);
        let s = _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi);
        let neg = _mm512_sub_epi8(_mm512_setzero_si512(), s);
        let v = if gate == 0 {
            neg
        } else {
            // SAFETY: as above.
            let k =
                _mm512_and_si512(unsafe { _mm512_maskz_loadu_epi8(lanes, bits.as_ptr().add(i) as *const i8) }, gates);
            // Boxes completed: bit 0 plus bit 1 (a 16-bit shift brings each byte's bit 1 to
            // its own bit 0).
            let count = _mm512_add_epi8(_mm512_and_si512(k, one), _mm512_and_si512(_mm512_srli_epi16(k, 1), one));
            _mm512_mask_blend_epi8(_mm512_test_epi8_mask(k, k), neg, _mm512_add_epi8(s, count))
        };
        // SAFETY: a masked store of lanes i..n of `best`.
        unsafe { _mm512_mask_storeu_epi8(best.as_mut_ptr().add(i), lanes, _mm512_max_epi8(b, v)) };
        i += 64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::SplitMix64;

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
        for len in [0usize, 1, 5, 63, 64, 65, 127, 128, 200, 252, 254] {
            for gate in 0..4u8 {
                let mut slots = vec![0 as Value; 1 << 16];
                for s in &mut slots[..len.max(1)] {
                    *s = (rng.next_u64() % 61) as Value - 30;
                }
                let index: Vec<u8> = (0..len)
                    .map(|_| {
                        if rng.next_u64().is_multiple_of(5) {
                            ABSENT8
                        } else {
                            (rng.next_u64() % len.max(1) as u64) as u8
                        }
                    })
                    .collect();
                let bits: Vec<u8> = (0..len).map(|_| (rng.next_u64() % 4) as u8).collect();
                let start: Vec<Value> = (0..len).map(|_| (rng.next_u64() % 61) as Value - 30).collect();
                let mut fast = start.clone();
                // `relax` takes the vector gather wherever the CPU has it.
                relax(&mut fast, &mut slots, &index, &bits, gate);
                let mut slow = start.clone();
                relax_portable(&mut slow, slots[..256].try_into().unwrap(), &index, &bits, gate);
                assert_eq!(fast, slow, "len {len}, gate {gate} (vbmi: {})", vbmi());
            }
        }
    }
}
