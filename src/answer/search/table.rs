//! The transposition table: a lock-free table of two bounds and a best move per canonical
//! state, in buckets of one cache line, shared by every thread of a search.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::SearchError;

/// Bytes of one table entry: the canonical state and its packed bounds, two words.
pub(crate) const ENTRY_BYTES: u64 = 16;
/// Fewest bytes a table may have: one bucket of four entries (a cache line).
pub(crate) const MIN_TT_BYTES: u64 = WAYS as u64 * ENTRY_BYTES;

/// The transposition table: buckets of [`WAYS`] entries of two words, one cache line each,
/// written and read without locks. An entry's first word is the canonical state XOR its
/// second, the packed bounds, so that a torn write (one word of one writer, one of another)
/// fails the check and is a miss. Replacement: a new state goes where the same state is, else
/// into an empty entry, else over the entry of the smallest subtree (by positions searched
/// under it, as a power of two), the first on a tie: the large subtrees are the costly ones to
/// search again.
pub(super) struct Table {
    buckets: Vec<Bucket>,
}

/// Entries of a bucket.
pub(super) const WAYS: usize = 4;

/// One bucket: `WAYS` entries of (check, data), on one cache line.
#[repr(align(64))]
pub(super) struct Bucket([AtomicU64; 2 * WAYS]);

/// Packed bounds: lower (i8), upper (i8), best move (u8), log2 of the subtree's positions
/// (u8), 1 (valid).
pub(super) fn pack(lower: i32, upper: i32, best: u8, size: u32) -> u64 {
    (lower as i8 as u8 as u64) | (upper as i8 as u8 as u64) << 8 | (best as u64) << 16 | (size as u64) << 24 | 1 << 32
}

pub(super) fn unpack(data: u64) -> (i32, i32, u8, u32) {
    (data as u8 as i8 as i32, (data >> 8) as u8 as i8 as i32, (data >> 16) as u8, (data >> 24) as u8 as u32)
}

/// Bytes a table asked for `bytes` holds: the most buckets that fit, a power of two of them
/// (0 below one bucket).
pub(crate) fn usable_bytes(bytes: u64) -> u64 {
    match bytes / MIN_TT_BYTES {
        0 => 0,
        n => (1u64 << (63 - n.leading_zeros())) * MIN_TT_BYTES,
    }
}

impl Table {
    pub(super) fn new(bytes: u64) -> Result<Table, SearchError> {
        if bytes < MIN_TT_BYTES {
            return Err(SearchError::TableTooSmall(bytes));
        }
        let count = usable_bytes(bytes) / MIN_TT_BYTES;
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
        Ok(Table { buckets })
    }

    pub(super) fn bytes(&self) -> u64 {
        self.buckets.len() as u64 * MIN_TT_BYTES
    }

    fn bucket(&self, key: u64) -> &[AtomicU64; 2 * WAYS] {
        // Fibonacci hashing: the product's top bits depend on every bit of the state (states
        // differ in few bits), taken by a multiply-high by the bucket count (a power of two).
        let z = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        &self.buckets[((z as u128 * self.buckets.len() as u128) >> 64) as usize].0
    }

    /// Asks for `key`'s bucket to be brought near the processor, so that several probes'
    /// misses overlap (a no-op off x86-64).
    #[inline]
    pub(super) fn prefetch(&self, key: u64) {
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
        #[cfg(target_arch = "x86_64")]
        {
            let b = self.bucket(key);
            // SAFETY: a prefetch is a hint: it reads nothing the program sees and never faults,
            // whatever the address; SSE, which has it, is in the x86-64 baseline. A plain load
            // in its place searched 5x5 positions 1.1-1.3x slower (docs/search-notes.md).
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(b.as_ptr().cast::<i8>()) };
        }
    }

    pub(super) fn get(&self, key: u64) -> Option<(i32, i32, u8)> {
        let b = self.bucket(key);
        (0..WAYS).find_map(|e| {
            let data = b[2 * e + 1].load(Relaxed);
            let check = b[2 * e].load(Relaxed);
            (data != 0 && check ^ data == key).then(|| {
                let (lo, hi, best, _) = unpack(data);
                (lo, hi, best)
            })
        })
    }

    pub(super) fn put(&self, key: u64, lower: i32, upper: i32, best: u8, size: u32) {
        let b = self.bucket(key);
        let data = pack(lower, upper, best, size);
        let mut slot = 0;
        let mut smallest = u32::MAX;
        for e in 0..WAYS {
            let (check, old) = (b[2 * e].load(Relaxed), b[2 * e + 1].load(Relaxed));
            if old == 0 || check ^ old == key {
                slot = e;
                break;
            }
            let size = unpack(old).3;
            if size < smallest {
                (slot, smallest) = (e, size);
            }
        }
        b[2 * slot].store(key ^ data, Relaxed);
        b[2 * slot + 1].store(data, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::search::{DEFAULT_TT_BYTES, INF};

    #[test]
    fn bounds_are_kept_whole_and_a_torn_entry_is_a_miss() {
        let t = Table::new(4 * MIN_TT_BYTES).unwrap();
        assert_eq!(t.bytes(), 4 * MIN_TT_BYTES);
        assert_eq!(t.get(42), None);
        t.put(42, -3, 5, 7, 20);
        assert_eq!(t.get(42), Some((-3, 5, 7)));
        t.put(42, 2, 2, 1, 20);
        assert_eq!(t.get(42), Some((2, 2, 1)), "the same state is replaced in place");
        assert_eq!(unpack(pack(-INF, INF, 255, 64)), (-INF, INF, 255, 64));
        // A torn write: the check word of another state.
        let b = t.bucket(42);
        let e = (0..WAYS).find(|&e| b[2 * e + 1].load(Relaxed) != 0).unwrap();
        b[2 * e].store(99 ^ b[2 * e + 1].load(Relaxed), Relaxed);
        assert_eq!(t.get(42), None);
        assert!(matches!(Table::new(MIN_TT_BYTES - 1), Err(SearchError::TableTooSmall(_))));
    }

    #[test]
    fn the_table_stays_within_its_size() {
        for bytes in [MIN_TT_BYTES, 1000, 1 << 20, 3 << 20, DEFAULT_TT_BYTES] {
            let t = Table::new(bytes).unwrap();
            assert!(t.bytes() <= bytes && 2 * t.bytes() > bytes, "{bytes}: {}", t.bytes());
            assert_eq!(t.buckets.capacity() as u64 * 64, t.bytes());
            assert_eq!(std::mem::size_of::<Bucket>() as u64, MIN_TT_BYTES, "a bucket is one cache line");
        }
    }

    #[test]
    fn a_full_bucket_keeps_the_larger_subtree() {
        let t = Table::new(MIN_TT_BYTES).unwrap();
        for (key, size) in [(1, 30), (2, 10), (3, 20), (4, 25)] {
            t.put(key, key as i32, key as i32, 0, size);
        }
        t.put(5, 5, 5, 0, 15);
        // One bucket: 5 replaced 2 (the smallest subtree); the rest stay.
        let kept: Vec<bool> = (1..=5).map(|k| t.get(k).is_some()).collect();
        assert_eq!(kept, [true, false, true, true, true]);
        assert_eq!(t.get(5), Some((5, 5, 0)));
    }
}
