//! The transposition table: a lock-free table of two bounds and a best move per canonical
//! state, one word an entry, in buckets of half a cache line, shared by every thread of a
//! search.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::{INF, SearchError};

/// Bytes of one table entry: one word.
pub(crate) const ENTRY_BYTES: u64 = 8;
/// Entries of a bucket.
pub(super) const WAYS: usize = 4;
/// Fewest bytes a table may have: one bucket (half a cache line).
pub(crate) const MIN_TT_BYTES: u64 = WAYS as u64 * ENTRY_BYTES;

/// Bits of an entry that hold its bounds, best move and subtree size; the rest, above them,
/// name the state.
const DATA_BITS: u32 = 23;
/// The data bits of an entry.
const DATA_MASK: u64 = (1 << DATA_BITS) - 1;
/// Most bits of a state's hash an entry can keep to name it: a table with fewer than
/// 2^(key bits - `CHECK_BITS`) buckets could not tell every state of its bucket apart.
const CHECK_BITS: u32 = 64 - DATA_BITS;

/// The transposition table: buckets of [`WAYS`] one-word entries, two buckets to a cache line,
/// written and read without locks (a word is written whole, so no reader sees half an entry).
/// (Eight entries to a bucket, a whole line, cost 5 % more instructions a position for no
/// fewer positions: `docs/notes/search-notes.md`.)
///
/// A state of `key_bits` bits is hashed by a bijection of those bits (a multiplication by an
/// odd constant modulo 2^key_bits); the hash's top bits pick the bucket, and the entry keeps its
/// low [`CHECK_BITS`] above its data: the bits the bucket does not give (the *check*) and, where
/// the check is shorter, some of the bucket's own. Bucket and kept bits give the hash back, and
/// so the state: a match is exact, never a collision. Hence the least size of a table for wide
/// states ([`least_bytes`]).
///
/// An entry, bit by bit (low first): the lower bound (6 bits, [`code`]: half of it), the upper
/// bound (6),
/// the best move plus one (6: a line of the canonical state's frame; 0 none), log2 of the
/// subtree's positions (5, at most 31), then the hash's low bits: the check, and above it bits of
/// the bucket's index. A lower bound's code is never 0, so an entry is never the empty word 0.
///
/// Replacement: a new state goes where the same state is, else into an empty entry, else over
/// the entry of the smallest subtree (the first on a tie): the large subtrees are the costly
/// ones to search again.
pub(super) struct Table {
    buckets: Vec<Bucket>,
    /// 2^key_bits - 1, where a state has key_bits bits (the search's lines).
    key_mask: u64,
    /// Bits of the hash that an entry keeps: key_bits less the bucket's bits (or 0).
    check_bits: u32,
}

/// One bucket: `WAYS` entries, half a cache line.
#[repr(align(32))]
pub(super) struct Bucket([AtomicU64; WAYS]);

/// A bound as 6 bits: half of it rounded down, clamped to [-31, 31] and offset to [1, 63].
/// A position of 64 undrawn lines may have 128 boxes left, so a value may lie anywhere in
/// [-128, 128]; but every bound stored has the parity of the position's boxes left, which the
/// reader knows, so twice the half plus that parity ([`BOUNDS`]) is the bound again, from -60
/// to 61 (every value of a board up to 7x8). Past that a code at the end of the range keeps
/// the bound on its side: the least code read as a lower bound is -INF and the greatest read
/// as an upper bound INF (no bound), the greatest read as a lower bound 62 or 63 and the
/// least read as an upper bound -62 or -61, each a weaker bound than the one stored.
fn code(v: i32) -> u64 {
    (v.div_euclid(2).clamp(-31, 31) + 32) as u64
}

/// The bound each code stands for, by the parity of the position's boxes left (odd: 1) and
/// whether it is read as a lower bound (0) or an upper one (1): read from a table rather than
/// worked out and tested, a probe costs fewer instructions.
static BOUNDS: [[[i32; 64]; 2]; 2] = [
    [bounds_of_codes(false, false), bounds_of_codes(false, true)],
    [bounds_of_codes(true, false), bounds_of_codes(true, true)],
];

const fn bounds_of_codes(odd: bool, upper: bool) -> [i32; 64] {
    let mut b = [0; 64];
    let mut c = 1;
    while c < 64 {
        b[c] = 2 * (c as i32 - 32) + odd as i32;
        c += 1;
    }
    if upper {
        b[63] = INF;
    } else {
        b[1] = -INF;
    }
    b
}

/// Packed data (the low [`DATA_BITS`] of an entry): the bounds as [`code`]s, the best move
/// plus one (0: none, as is a line past 62), log2 of the subtree's positions (clamped to 31).
/// The bounds must have the parity of the position's boxes left (the search tightens every
/// bound to it) or be infinite.
pub(super) fn pack(lower: i32, upper: i32, best: u8, size: u32) -> u64 {
    let best = if best < 63 { best as u64 + 1 } else { 0 };
    code(lower) | code(upper) << 6 | best << 12 | (size.min(31) as u64) << 18
}

/// [`pack`] read back for a position with an odd number of boxes left where `odd`: lower,
/// upper, best (`u8::MAX`: none), size.
#[inline]
pub(super) fn unpack(data: u64, odd: bool) -> (i32, i32, u8, u32) {
    let [lowers, uppers] = &BOUNDS[odd as usize];
    let lower = lowers[(data & 63) as usize];
    let upper = uppers[(data >> 6 & 63) as usize];
    let best = ((data >> 12 & 63) as u8).wrapping_sub(1);
    (lower, upper, best, (data >> 18 & 31) as u32)
}

/// Bytes a table asked for `bytes` holds: the most buckets that fit, a power of two of them
/// (0 below one bucket).
pub(crate) fn usable_bytes(bytes: u64) -> u64 {
    match bytes / MIN_TT_BYTES {
        0 => 0,
        n => (1u64 << (63 - n.leading_zeros())) * MIN_TT_BYTES,
    }
}

/// Bytes the table of a search of a root of `undrawn` lines holds when asked for `asked`:
/// rounded down to a power of two buckets, and up to the least a root that wide needs; None
/// where `asked` is below one bucket (the search refuses it).
pub fn table_bytes(asked: u64, undrawn: u32) -> Option<u64> {
    (asked >= MIN_TT_BYTES).then(|| usable_bytes(asked.max(least_bytes(undrawn))))
}

/// Fewest bytes a table of states of `key_bits` bits has, so that an entry keeps every bit of
/// the hash its bucket does not give: one bucket up to 41 bits, 16 MiB at 60 (the empty 5x5),
/// 256 MiB at 64.
fn least_bytes(key_bits: u32) -> u64 {
    MIN_TT_BYTES << key_bits.saturating_sub(CHECK_BITS)
}

/// An odd multiplier whose products' top bits depend on every bit of the state (states differ
/// in few bits): 2^64 over the golden ratio.
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

impl Table {
    /// A table of about `bytes` (rounded down to a power of two buckets, and up to
    /// [`least_bytes`] of `key_bits`) for states of `key_bits` bits, or for 64-bit hashes of
    /// them where `hashed` (graph keys, `graph.rs`: an entry then keeps the bits of the hash
    /// its bucket does not give as far as it has room, [`CHECK_BITS`]).
    pub(super) fn new(bytes: u64, key_bits: u32, hashed: bool) -> Result<Table, SearchError> {
        debug_assert!(key_bits <= 64);
        // (Past 2^key_bits buckets some are never used; the size asked for is kept, so that a
        // size no machine has is still refused.)
        let count = table_bytes(bytes, key_bits).ok_or(SearchError::TableTooSmall(bytes))? / MIN_TT_BYTES;
        let bucket_bits = count.trailing_zeros();
        // Zeroed by writing, in order: pages zeroed by the system on first touch would fault in
        // the hashed, random order of every thread's first writes.
        let mut buckets = Vec::new();
        if !usize::try_from(count).is_ok_and(|n| buckets.try_reserve_exact(n).is_ok()) {
            return Err(SearchError::TableTooLarge(bytes));
        }
        // Probes land all over the table: huge pages spare most of them a TLB miss.
        crate::support::advise_huge_pages(buckets.as_ptr() as usize, buckets.capacity() * size_of::<Bucket>());
        // On every thread of the pool it is called in: the system zeroes each page on its first
        // touch (0.1 s to 2 s a GiB on this project's 2-core machine, as its virtual machine's
        // memory is backed or not), and two threads took 0.39-0.49 s for 4 GiB against
        // 0.62-0.68 s on one.
        buckets.par_extend(
            (0..count as usize).into_par_iter().map(|_| Bucket(std::array::from_fn(|_| AtomicU64::new(0)))),
        );
        // A hash of 64 bits, 63 for one bucket (whose index takes no bit of it: a shift by 64
        // would overflow).
        let key_bits = if !hashed {
            key_bits
        } else if bucket_bits == 0 {
            63
        } else {
            64
        };
        Ok(Table {
            buckets,
            key_mask: u64::MAX >> (64 - key_bits.max(1)),
            check_bits: key_bits.saturating_sub(bucket_bits),
        })
    }

    pub(super) fn bytes(&self) -> u64 {
        self.buckets.len() as u64 * MIN_TT_BYTES
    }

    /// `key`'s bucket and check (shifted into place above the data).
    #[inline]
    fn slot(&self, key: u64) -> (&[AtomicU64; WAYS], u64) {
        debug_assert_eq!(key & !self.key_mask, 0, "a state of the table's width");
        // A bijection of the key's bits: odd multipliers are invertible modulo 2^key_bits.
        let z = key.wrapping_mul(MIX) & self.key_mask;
        // The entry keeps the hash's low bits: the check and, above it, bits of the bucket's
        // index, the same for every state of the bucket.
        (&self.buckets[(z >> self.check_bits) as usize].0, z << DATA_BITS)
    }

    /// Asks for `key`'s bucket to be brought near the processor, so that several probes'
    /// misses overlap (a no-op off x86-64).
    #[inline]
    pub(super) fn prefetch(&self, key: u64) {
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
        #[cfg(target_arch = "x86_64")]
        {
            let b = self.slot(key).0;
            // SAFETY: a prefetch is a hint: it reads nothing the program sees and never faults,
            // whatever the address; SSE, which has it, is in the x86-64 baseline. A plain load
            // in its place searched 5x5 positions 1.1-1.3x slower (docs/notes/search-notes.md).
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(b.as_ptr().cast::<i8>()) };
        }
    }

    /// The bounds and best move of `key`, a position with an odd number of boxes left where
    /// `odd`.
    #[inline]
    pub(super) fn get(&self, key: u64, odd: bool) -> Option<(i32, i32, u8)> {
        let (b, check) = self.slot(key);
        b.iter().find_map(|e| {
            let word = e.load(Relaxed);
            (word != 0 && word & !DATA_MASK == check).then(|| {
                let (lo, hi, best, _) = unpack(word, odd);
                (lo, hi, best)
            })
        })
    }

    #[inline]
    pub(super) fn put(&self, key: u64, lower: i32, upper: i32, best: u8, size: u32) {
        let (b, check) = self.slot(key);
        let mut slot = 0;
        let mut smallest = u32::MAX;
        for (e, entry) in b.iter().enumerate() {
            let old = entry.load(Relaxed);
            if old == 0 || old & !DATA_MASK == check {
                slot = e;
                break;
            }
            let size = unpack(old, false).3;
            if size < smallest {
                (slot, smallest) = (e, size);
            }
        }
        b[slot].store(check | pack(lower, upper, best, size), Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::answer::search::DEFAULT_TT_BYTES;

    #[test]
    fn bounds_are_kept_whole_and_the_same_state_is_replaced_in_place() {
        let t = Table::new(4 * MIN_TT_BYTES, 40, false).unwrap();
        assert_eq!(t.bytes(), 4 * MIN_TT_BYTES);
        assert_eq!(t.get(42, true), None);
        // Bounds of the parity of the position's boxes left, read back at it.
        t.put(42, -3, 5, 7, 20);
        assert_eq!(t.get(42, true), Some((-3, 5, 7)));
        t.put(42, 2, 2, 1, 20);
        assert_eq!(t.get(42, false), Some((2, 2, 1)), "the same state is replaced in place");
        let used = t.buckets.iter().flat_map(|b| &b.0).filter(|e| e.load(Relaxed) != 0).count();
        assert_eq!(used, 1);
        assert!(matches!(Table::new(MIN_TT_BYTES - 1, 40, false), Err(SearchError::TableTooSmall(_))));
    }

    #[test]
    fn packed_bounds_read_back_at_their_parity_and_past_the_range_stay_on_their_side() {
        // Every bound a search holds: a value of the parity of its boxes left, or no bound.
        for odd in [false, true] {
            for v in (-INF..=INF).filter(|v| v.abs() == INF || (v & 1 == 1) == odd) {
                let (lo, hi, best, size) = unpack(pack(v, v, 9, 3), odd);
                assert_eq!((best, size), (9, 3));
                // A lower bound may only fall and an upper bound only rise.
                assert!(lo <= v && hi >= v, "{v} (odd {odd}) read back as {lo} {hi}");
                if (-60..=61).contains(&v) {
                    assert_eq!((lo, hi), (v, v), "{v} (odd {odd}) kept exactly");
                }
            }
        }
        // Beyond every box a position can have left (128), no bound at all is kept.
        assert_eq!(unpack(pack(-INF, INF, u8::MAX, 64), true), (-INF, INF, u8::MAX, 31));
        let (lo, hi, _, _) = unpack(pack(-128, 128, 0, 0), false);
        assert_eq!((lo, hi), (-INF, INF), "the extremes of 128 boxes read as no bound, on their side");
        for best in 0..63 {
            assert_eq!(unpack(pack(0, 0, best, 0), false).2, best);
        }
        assert_eq!(unpack(pack(0, 0, 63, 0), false).2, u8::MAX, "line 63 (of 64-line roots only) is kept as none");
        assert_ne!(pack(-INF, -INF, 0, 0), 0, "an entry is never the empty word");
    }

    #[test]
    fn the_table_stays_within_its_size_unless_wide_states_need_more() {
        for bytes in [MIN_TT_BYTES, 1000, 1 << 20, 3 << 20, DEFAULT_TT_BYTES] {
            let t = Table::new(bytes, 41, false).unwrap();
            assert!(t.bytes() <= bytes && 2 * t.bytes() > bytes, "{bytes}: {}", t.bytes());
            assert_eq!(t.buckets.capacity() as u64 * MIN_TT_BYTES, t.bytes());
        }
        assert_eq!(std::mem::size_of::<Bucket>(), 32, "two buckets to a cache line");
        assert_eq!(std::mem::align_of::<Bucket>(), 32, "a bucket never straddles two lines");
        assert_eq!(least_bytes(41), MIN_TT_BYTES);
        assert_eq!(least_bytes(60), 16 << 20);
        assert_eq!(Table::new(1 << 20, 60, false).unwrap().bytes(), 16 << 20, "60 bits need 2^19 buckets");
        // What a caller is told the table holds is what it holds.
        for (bytes, bits) in [(MIN_TT_BYTES, 12), (1000, 41), (3 << 20, 44), (1 << 20, 60), (100 << 20, 61)] {
            assert_eq!(
                table_bytes(bytes, bits),
                Some(Table::new(bytes, bits, false).unwrap().bytes()),
                "{bytes} {bits}"
            );
        }
        assert_eq!(table_bytes(MIN_TT_BYTES - 1, 60), None, "below a bucket: refused, whatever the width");
    }

    #[test]
    fn a_full_bucket_keeps_the_larger_subtrees() {
        // States of 2 bits: one bucket holds all four.
        let t = Table::new(MIN_TT_BYTES, 2, false).unwrap();
        // State k's value is k: its parity is k's.
        let odd = |k: u64| k & 1 == 1;
        for (key, size) in [(0, 30), (1, 10), (2, 20), (3, 25)] {
            t.put(key, key as i32, key as i32, 0, size);
        }
        assert!((0..4).all(|k| t.get(k, odd(k)) == Some((k as i32, k as i32, 0))));
        // States of 3 bits in one bucket: the fifth replaces the smallest subtree.
        let t = Table::new(MIN_TT_BYTES, 3, false).unwrap();
        for (key, size) in [(0, 30), (1, 10), (2, 20), (3, 25)] {
            t.put(key, key as i32, key as i32, 0, size);
        }
        t.put(4, 4, 4, 0, 15);
        let kept: Vec<bool> = (0..5).map(|k| t.get(k, odd(k)).is_some()).collect();
        assert_eq!(kept, [true, false, true, true, true]);
        assert_eq!(t.get(4, false), Some((4, 4, 0)));
    }

    proptest! {
        /// Bucket and check name the state: two states never share both, so a match is exact.
        #[test]
        fn bucket_and_check_name_one_state(bits in 1u32..=48, a: u64, b: u64, buckets in 0u32..12) {
            let mask = u64::MAX >> (64 - bits);
            let (a, b) = (a & mask, b & mask);
            let t = Table::new(MIN_TT_BYTES << buckets, bits, false).unwrap();
            let (ba, ca) = t.slot(a);
            let (bb, cb) = t.slot(b);
            prop_assert_eq!(a == b, std::ptr::eq(ba, bb) && ca == cb);
            // And a state put is found, with no other state of its bucket taken for it.
            t.put(a, 1, 3, 5, 7);
            prop_assert_eq!(t.get(a, true), Some((1, 3, 5)));
            prop_assert_eq!(t.get(b, true).is_some(), a == b);
        }

        /// Near-equal states (one line apart, as a node's children are) too.
        #[test]
        fn states_one_line_apart_never_share_an_entry(bits in 30u32..=48, a: u64, line in 0u32..48) {
            let a = a & (u64::MAX >> (64 - bits));
            let b = a ^ (1 << (line % bits));
            let t = Table::new(least_bytes(bits), bits, false).unwrap();
            t.put(a, 1, 3, 5, 7);
            prop_assert_eq!(t.get(b, true), None);
        }
    }
}
