//! Buffers of values no job reads again, handed to the jobs that start after: a fresh buffer
//! costs the system a zeroed page for every page first written (a tenth of a 3x5 solve's time
//! on 2 cores), and the kernel overwrites every value of its output anyway. A job's output is
//! mostly longer than any buffer released before it starts, so a long buffer grows into it:
//! the system moves its pages to a larger mapping rather than copying them, and only the rest
//! is fresh.
//!
//! The recycler never lets the process hold more than the executor counts: bytes it keeps are
//! bytes the [`crate::sched::Residency`] count has already released, and before any fresh
//! allocation (a new output, or a partition read back from the store) it gives back at least
//! as many bytes as are asked for. Held values plus kept buffers therefore never exceed the
//! most values the count ever held.

use std::sync::{Arc, Mutex, PoisonError};

use crate::game::Value;

/// Kept buffers at least this long grow into longer ones. glibc maps a buffer this large on
/// pages of its own whatever its threshold (which `dab` fixes at 64 KiB, and which otherwise
/// rises to 32 MiB at most), and grows it by moving those pages, where a buffer in a heap
/// would be copied.
const GROW_MIN: usize = 32 << 20;

/// The C library's bytes before and after a mapped buffer (glibc: a 16-byte chunk header, and
/// sizes rounded to 16 with 8 more).
const MAP_OVERHEAD: usize = 32;

/// Huge pages are this long (x86-64, aarch64).
const HUGE_PAGE: usize = 2 << 20;

/// The capacity asked for `len` values: for a buffer that may grow, one whose mapping is a
/// whole number of huge pages, so that the system places it, and moves it when it grows, on a
/// huge-page boundary and its huge pages move whole (otherwise each is split into small ones,
/// which the kernel's reads then pay for in TLB misses). The tail past `len` is never touched,
/// so it holds no memory.
fn capacity(len: usize) -> usize {
    if len < GROW_MIN { len } else { (len + MAP_OVERHEAD).next_multiple_of(HUGE_PAGE) - MAP_OVERHEAD }
}

/// Kept buffers, each holding (initialised) values of a finished job.
#[derive(Default)]
pub(crate) struct Recycler {
    free: Mutex<Vec<Vec<Value>>>,
}

impl Recycler {
    /// A buffer of `len` values whose contents are unspecified (left from an earlier job), for
    /// a caller that overwrites every one: the smallest kept buffer at least as long, cut to
    /// length; or else the longest kept buffer grown to length, where the system moves its
    /// pages rather than copying them and only the rest is fresh; or else a fresh zeroed one.
    /// Whatever is fresh is first given back from the other kept buffers.
    pub(crate) fn take(&self, len: usize) -> Vec<Value> {
        let kept = {
            let mut free = self.lock();
            let fitting = (0..free.len()).filter(|&i| free[i].len() >= len).min_by_key(|&i| free[i].len());
            let growing = || (0..free.len()).filter(|&i| free[i].len() >= GROW_MIN).max_by_key(|&i| free[i].len());
            fitting.or_else(growing).map(|i| free.swap_remove(i))
        };
        match kept {
            Some(mut v) if v.len() >= len => {
                // The tail goes back to the system, so the buffer holds no more than counted.
                v.truncate(len);
                v.shrink_to(capacity(len));
                v
            }
            Some(mut v) => {
                // Exactly: a doubling would hold more than counted.
                self.make_room(len - v.len());
                v.reserve_exact(capacity(len) - v.len());
                crate::support::advise_huge_pages(v.as_ptr() as usize, v.capacity());
                v.resize(len, 0);
                v
            }
            None => {
                self.make_room(len);
                let mut v = crate::support::zeroed_bytes(capacity(len));
                v.truncate(len);
                v
            }
        }
    }

    /// Gives kept buffers back to the system, largest first, until at least `bytes` have gone
    /// or none is left: called before anything of that size is allocated afresh.
    pub(crate) fn make_room(&self, bytes: usize) {
        let gone = {
            let mut free = self.lock();
            free.sort_unstable_by_key(|v| v.len());
            let mut gone = Vec::new();
            let mut freed = 0;
            while freed < bytes {
                let Some(v) = free.pop() else { break };
                freed += v.capacity();
                gone.push(v);
            }
            gone
        };
        // Outside the lock: unmapping megabytes takes a thread 100-200 us.
        drop(gone);
    }

    /// Keeps `values` for a later job, where nothing else holds them (a copy kept for a test,
    /// say, lets them go).
    pub(crate) fn give(&self, values: Arc<Vec<Value>>) {
        if let Ok(v) = Arc::try_unwrap(values)
            && !v.is_empty()
        {
            self.lock().push(v);
        }
    }

    /// Bytes kept.
    #[cfg(test)]
    fn kept(&self) -> usize {
        self.lock().iter().map(Vec::capacity).sum()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Vec<Value>>> {
        self.free.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_buffer_is_reused_cut_to_length_and_a_shared_one_is_not_kept() {
        let r = Recycler::default();
        let a = Arc::new(vec![7 as Value; 1000]);
        let b = a.clone();
        r.give(a);
        assert_eq!(r.kept(), 0, "still held elsewhere: not kept");
        r.give(b);
        r.give(Arc::new(vec![3 as Value; 400]));
        assert_eq!(r.kept(), 1400);
        // The smallest that fits: the 400, cut to 300.
        let v = r.take(300);
        assert_eq!((v.len(), v.capacity()), (300, 300));
        assert!(v.iter().all(|&x| x == 3));
        assert_eq!(r.kept(), 1000);
        // Nothing kept is long enough, and none long enough to grow: the kept go back first.
        let w = r.take(2000);
        assert!(w.len() == 2000 && w.iter().all(|&x| x == 0));
        assert_eq!(r.kept(), 0);
        // A long one grows, its values kept and the rest zero; another gives room.
        r.give(Arc::new(vec![7 as Value; GROW_MIN]));
        r.give(Arc::new(vec![5 as Value; 100]));
        let w = r.take(GROW_MIN + 1000);
        assert_eq!(w.len(), GROW_MIN + 1000);
        assert!(w[..GROW_MIN].iter().all(|&x| x == 7) && w[GROW_MIN..].iter().all(|&x| x == 0));
        assert_eq!(r.kept(), 0, "the 100 given back to make room");
        assert!((w.capacity() + MAP_OVERHEAD).is_multiple_of(HUGE_PAGE), "a whole number of huge pages");
        // Given back and taken shorter: cut, still a whole number of huge pages.
        r.give(Arc::new(w));
        let c = r.take(GROW_MIN + 5);
        assert_eq!((c.len(), c.capacity()), (GROW_MIN + 5, capacity(GROW_MIN + 5)));
        assert!(c.iter().all(|&x| x == 7 || x == 0));
        drop(c);
        // Nothing kept at all: a fresh zeroed buffer.
        let z = r.take(50);
        assert!(z.len() == 50 && z.iter().all(|&x| x == 0));
    }

    #[test]
    fn only_a_buffer_that_may_grow_is_rounded_to_huge_pages() {
        assert_eq!(capacity(1000), 1000);
        assert_eq!(capacity(GROW_MIN - 1), GROW_MIN - 1);
        for len in [GROW_MIN, GROW_MIN + 1, 3 * GROW_MIN + 12_345] {
            let c = capacity(len);
            assert!(c >= len && c < len + HUGE_PAGE && (c + MAP_OVERHEAD).is_multiple_of(HUGE_PAGE), "{len}: {c}");
        }
    }

    #[test]
    fn making_room_gives_back_the_largest_first_until_enough_has_gone() {
        let r = Recycler::default();
        for n in [100, 300, 200] {
            r.give(Arc::new(vec![1 as Value; n]));
        }
        r.make_room(250);
        assert_eq!(r.kept(), 300, "the 300 alone covers 250");
        r.make_room(1);
        assert_eq!(r.kept(), 100);
        r.make_room(10_000);
        assert_eq!(r.kept(), 0);
    }
}
