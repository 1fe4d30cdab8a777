//! Byte gathers for the kernel's row path, 64 lanes at a time with AVX-512 VBMI (`vpermi2b`)
//! where the CPU has it: a pass over a row whose successors come from a successor row of fewer
//! than 1023 values. Each lane's index is its successor's rank split into a low byte, which
//! `vpermi2b` looks up in each 256-slot *block* of the row (two permutes and a blend on the
//! byte's top bit), and a high byte that picks the block. The kernel asks [`vbmi`] once, when
//! it is built; the runs and the `u16` gathers in `kernel.rs` are the portable path, and
//! [`relax_portable`] the twin a test compares this one with.
//!
//! Its `unsafe` blocks, each with its `SAFETY` note, are here because a benchmark showed they
//! pay (docs/kernel-profile.md has the figures).

use crate::game::Value;

/// Slots of the largest successor row a [`ByteIndex`] reaches, the slot that names no move
/// (the last) included.
pub(super) const MAX_SLOTS: usize = 1024;

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

/// 256-slot blocks of a table for a successor row of `len` values with a slot to spare for
/// moves that do not exist: 1, 2 or 4; `None` past [`MAX_SLOTS`]. Rows of 255 values or more
/// take two blocks, although slot 255 would still be free, so that the one-block path keeps the
/// rows it had.
pub(super) fn blocks(len: usize) -> Option<usize> {
    [1, 2, 4].into_iter().find(|&b| len < 256 * b - 1)
}

/// Successor ranks of a row's lanes as byte gathers read them: per lane the rank's low byte,
/// and where the successor row spans more than one block the block (the rank's high byte). A
/// move that does not exist names the last slot of the last block.
#[derive(Debug, Default)]
pub(super) struct ByteIndex {
    lo: Vec<u8>,
    /// Empty where `blocks` is 1.
    hi: Vec<u8>,
    blocks: usize,
}

impl ByteIndex {
    /// `ranks` (successor ranks; anything at or past `absent` names no move) as byte indices
    /// into a successor row of `succ_len` values; `None` where that row is too long.
    pub(super) fn new(ranks: &[u16], absent: u16, succ_len: usize) -> Option<ByteIndex> {
        let blocks = blocks(succ_len)?;
        let last = (256 * blocks - 1) as u16;
        let at = |r: u16| if r >= absent { last } else { r };
        let lo = ranks.iter().map(|&r| at(r) as u8).collect();
        let hi = if blocks == 1 { Vec::new() } else { ranks.iter().map(|&r| (at(r) >> 8) as u8).collect() };
        Some(ByteIndex { lo, hi, blocks })
    }

    /// Lanes.
    pub(super) fn len(&self) -> usize {
        self.lo.len()
    }

    /// 256-slot blocks of the successor row.
    pub(super) fn blocks(&self) -> usize {
        self.blocks
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> u64 {
        (self.lo.capacity() + self.hi.capacity()) as u64
    }

    /// `best[i] = max(best[i], offer(slots[rank of lane start + i], bits[i], gate))` over `best`,
    /// whose lanes are those from `start`; `slots` holds the successor row from slot 0 and at
    /// least [`MAX_SLOTS`] slots. The last slot of the last block is set to [`Value::MAX`]
    /// first, so a move that does not exist never wins (its box bits are 0). 64 lanes at a time
    /// where [`vbmi`] says yes, else one at a time.
    #[inline(always)]
    pub(super) fn relax(&self, start: usize, best: &mut [Value], slots: &mut [Value], bits: &[u8], gate: u8) {
        slots[256 * self.blocks - 1] = Value::MAX;
        let table: &[Value; MAX_SLOTS] = slots[..MAX_SLOTS].try_into().expect("a table of MAX_SLOTS slots at least");
        let end = start + best.len();
        let lo = &self.lo[start..end];
        let hi = if self.blocks == 1 { &[][..] } else { &self.hi[start..end] };
        #[cfg(target_arch = "x86_64")]
        if vbmi_cached() {
            // SAFETY: the CPU has AVX-512 F, BW and VBMI (checked at run time above).
            unsafe {
                match self.blocks {
                    1 => relax_vbmi::<1>(best, table, lo, hi, bits, gate),
                    2 => relax_vbmi::<2>(best, table, lo, hi, bits, gate),
                    _ => relax_vbmi::<4>(best, table, lo, hi, bits, gate),
                }
            }
            return;
        }
        relax_portable(best, table, lo, hi, bits, gate);
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

/// [`ByteIndex::relax`] one lane at a time: the twin of the AVX-512 path, and its fallback.
/// `hi` is empty for a one-block row.
#[inline(always)]
fn relax_portable(best: &mut [Value], table: &[Value; MAX_SLOTS], lo: &[u8], hi: &[u8], bits: &[u8], gate: u8) {
    for (i, ((b, &l), &k)) in best.iter_mut().zip(lo).zip(bits).enumerate() {
        let h = hi.get(i).map_or(0, |&h| h as usize);
        *b = (*b).max(offer(table[(h << 8 | l as usize) & (MAX_SLOTS - 1)], k, gate));
    }
}

/// [`ByteIndex::relax`] 64 lanes at a time over a row of `B` blocks: the table in `4 * B`
/// registers; per block two `vpermi2b` (bytes 0-127 and 128-255 of the block) blended on the
/// low byte's top bit, then the blocks blended on the high byte's bits; the tail masked.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn relax_vbmi<const B: usize>(
    best: &mut [Value],
    table: &[Value; MAX_SLOTS],
    lo: &[u8],
    hi: &[u8],
    bits: &[u8],
    gate: u8,
) {
    use std::arch::x86_64::*;
    let n = best.len().min(lo.len()).min(bits.len());
    if B > 1 {
        assert!(hi.len() >= n, "a high byte for every lane of a row of {B} blocks");
    }
    let p = table.as_ptr() as *const __m512i;
    let mut t = [_mm512_setzero_si512(); 16];
    for (k, reg) in t.iter_mut().enumerate().take(4 * B) {
        // SAFETY: `table` is MAX_SLOTS = 16 * 64 bytes; k < 4 * B <= 16.
        *reg = unsafe { _mm512_loadu_si512(p.add(k)) };
    }
    let gates = _mm512_set1_epi8(gate as i8);
    let one = _mm512_set1_epi8(1);
    let two = _mm512_set1_epi8(2);
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
        let top = _mm512_movepi8_mask(idx);
        let mut s = [_mm512_setzero_si512(); 4];
        for (k, sk) in s.iter_mut().enumerate().take(B) {
            let low = _mm512_permutex2var_epi8(t[4 * k], idx, t[4 * k + 1]);
            let high = _mm512_permutex2var_epi8(t[4 * k + 2], idx, t[4 * k + 3]);
            *sk = _mm512_mask_blend_epi8(top, low, high);
        }
        let s = if B == 1 {
            s[0]
        } else {
            // SAFETY: as above (`hi` holds at least n lanes where B > 1).
            let h = unsafe { _mm512_maskz_loadu_epi8(lanes, hi.as_ptr().add(i) as *const i8) };
            let odd = _mm512_test_epi8_mask(h, one);
            if B == 2 {
                _mm512_mask_blend_epi8(odd, s[0], s[1])
            } else {
                let upper = _mm512_test_epi8_mask(h, two);
                _mm512_mask_blend_epi8(
                    upper,
                    _mm512_mask_blend_epi8(odd, s[0], s[1]),
                    _mm512_mask_blend_epi8(odd, s[2], s[3]),
                )
            }
        };
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
    fn a_row_needs_the_fewest_blocks_that_leave_a_slot_for_no_move() {
        let cases = [(0, Some(1)), (254, Some(1)), (255, Some(2)), (510, Some(2)), (511, Some(4)), (1022, Some(4))];
        for (len, want) in cases {
            assert_eq!(blocks(len), want, "row of {len}");
        }
        assert_eq!(blocks(1023), None);
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
        const ABSENT: u16 = u16::MAX;
        let mut rng = SplitMix64(7);
        for succ_len in [1usize, 5, 64, 200, 254, 255, 300, 510, 511, 924, 1022] {
            for len in [0usize, 1, 5, 63, 64, 65, 127, 128, 200, 252, 254, 462, 924] {
                for gate in 0..4u8 {
                    let mut slots = vec![0 as Value; 1 << 16];
                    for s in &mut slots[..succ_len] {
                        *s = (rng.next_u64() % 61) as Value - 30;
                    }
                    let ranks: Vec<u16> = (0..len)
                        .map(|_| {
                            if rng.next_u64().is_multiple_of(5) {
                                ABSENT
                            } else {
                                (rng.next_u64() % succ_len as u64) as u16
                            }
                        })
                        .collect();
                    // A move that does not exist completes no box.
                    let bits: Vec<u8> =
                        ranks.iter().map(|&r| if r == ABSENT { 0 } else { (rng.next_u64() % 4) as u8 }).collect();
                    let start: Vec<Value> = (0..len).map(|_| (rng.next_u64() % 61) as Value - 30).collect();
                    let index = ByteIndex::new(&ranks, ABSENT, succ_len).unwrap();
                    // From lane 0, and from a lane past the first 64 as a row span is read.
                    for from in [0, len.min(70)] {
                        let mut fast = start[from..].to_vec();
                        // `relax` takes the vector gather wherever the CPU has it.
                        index.relax(from, &mut fast, &mut slots, &bits[from..], gate);
                        let want: Vec<Value> = (from..len)
                            .map(|i| {
                                let r = ranks[i];
                                start[i].max(if r == ABSENT {
                                    -Value::MAX
                                } else {
                                    offer(slots[r as usize], bits[i], gate)
                                })
                            })
                            .collect();
                        assert_eq!(
                            fast,
                            want,
                            "row {succ_len}, {len} lanes from {from}, gate {gate} (vbmi: {})",
                            vbmi()
                        );
                        let mut slow = start[from..].to_vec();
                        let hi = if index.blocks == 1 { &[][..] } else { &index.hi[from..] };
                        let table: &[Value; MAX_SLOTS] = slots[..MAX_SLOTS].try_into().unwrap();
                        relax_portable(&mut slow, table, &index.lo[from..], hi, &bits[from..], gate);
                        assert_eq!(slow, want, "portable: row {succ_len}, {len} lanes from {from}, gate {gate}");
                    }
                }
            }
        }
    }
}
