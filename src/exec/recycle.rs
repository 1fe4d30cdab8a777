//! Buffers of values no job reads again, handed to the jobs that start after: a fresh buffer
//! costs the system a zeroed page for every page first written (a sixth of the complete 4x4's
//! time on 2 cores), and the kernel overwrites every value of its output anyway. A job's output
//! is mostly longer than any single buffer released before it starts, so a large output is
//! made of the pages of several: the system moves them into its mapping ([`Pages`]) rather than
//! copying them, and only what they do not cover is fresh.
//!
//! The recycler never lets the process hold more than the executor counts: bytes it keeps are
//! bytes the [`crate::sched::Residency`] count has already released, and before any fresh
//! allocation (what kept pages do not cover of a new output, or a partition read back from the
//! store) it gives back at least as many bytes as are fresh, counting what it gave back beyond
//! an earlier ask (kept pages go back in whole huge pages, even for a small buffer). Held
//! values plus kept buffers therefore never exceed the most values the count ever held.

use std::sync::{Arc, Mutex, PoisonError};

use crate::game::Value;
use crate::support::{HUGE_PAGE, Pages};

/// What is kept: buffers of the system allocator's (small ones), and the pages of large ones.
#[derive(Default)]
struct Kept {
    small: Vec<Vec<Value>>,
    pages: Vec<Pages>,
    /// Bytes given back beyond those asked for: fresh bytes up to this many need no more.
    credit: usize,
}

impl Kept {
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.small.iter().map(Vec::capacity).sum::<usize>() + self.pages.iter().map(Pages::len).sum::<usize>()
    }
}

/// Kept buffers, each holding (initialised) values of a finished job.
#[derive(Default)]
pub(crate) struct Recycler {
    kept: Mutex<Kept>,
}

impl Recycler {
    /// A buffer of `len` values whose contents are unspecified (left from an earlier job), for
    /// a caller that overwrites every one: the smallest kept small buffer at least as long,
    /// cut to length; or else, for a large buffer, kept pages moved in, largest first, as far
    /// as they go, the rest fresh and zero. Whatever is fresh is first given back from the
    /// other kept buffers.
    pub(crate) fn take(&self, len: usize) -> Vec<Value> {
        let (fitting, pieces) = {
            let mut kept = self.lock();
            let small = &mut kept.small;
            let fitting = (0..small.len()).filter(|&i| small[i].len() >= len).min_by_key(|&i| small[i].len());
            match fitting {
                Some(i) => (Some(small.swap_remove(i)), Vec::new()),
                None if len >= HUGE_PAGE => (None, pieces(&mut kept.pages, len.next_multiple_of(HUGE_PAGE))),
                None => (None, Vec::new()),
            }
        };
        if let Some(mut v) = fitting {
            // The tail goes back to the system, so the buffer holds no more than counted.
            v.truncate(len);
            v.shrink_to_fit();
            return v;
        }
        let mut v = crate::support::zeroed_bytes(len);
        // Outside the lock: a move takes the system microseconds a mapping. What a piece's
        // values filled holds memory already; the rest of the output is fresh once written
        // (its last, partial huge page on small pages: `zeroed_bytes`).
        let (mut at, mut held) = (0, 0);
        for p in pieces {
            let filled = p.filled();
            let moved = p.move_into(&mut v, at);
            held += filled.min(moved).min(len.saturating_sub(at));
            at += moved;
        }
        self.make_room(len - held);
        v
    }

    /// Gives kept buffers back to the system until at least `bytes` have gone or none is left,
    /// small ones first (their memory cannot move into another buffer), largest first: called
    /// before anything of that size is allocated afresh.
    pub(crate) fn make_room(&self, bytes: usize) {
        let gone = {
            let mut kept = self.lock();
            // What was given back beyond the ask before (a whole huge page for a small buffer)
            // counts towards this.
            let spent = kept.credit.min(bytes);
            kept.credit -= spent;
            let bytes = bytes - spent;
            kept.small.sort_unstable_by_key(Vec::capacity);
            let (mut small, mut freed) = (Vec::new(), 0);
            while freed < bytes {
                let Some(v) = kept.small.pop() else { break };
                freed += v.capacity();
                small.push(v);
            }
            // Then pages, only as many as asked: the rest may still serve.
            let pages = pieces(&mut kept.pages, bytes.saturating_sub(freed));
            freed += pages.iter().map(Pages::len).sum::<usize>();
            kept.credit = freed.saturating_sub(bytes);
            (small, pages)
        };
        // Outside the lock: unmapping megabytes takes a thread 100-200 us.
        drop(gone);
    }

    /// Keeps `values` for a later job, where nothing else holds them (a copy kept for a test,
    /// say, lets them go).
    pub(crate) fn give(&self, values: Arc<Vec<Value>>) {
        if let Ok(v) = Arc::try_unwrap(values)
            && v.capacity() > 0
        {
            match Pages::of(v) {
                Ok(p) => self.lock().pages.push(p),
                Err(v) => self.lock().small.push(v),
            }
        }
    }

    /// Bytes kept.
    #[cfg(test)]
    fn kept(&self) -> usize {
        self.lock().bytes()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Kept pages covering `bytes` (rounded up to whole huge pages), or as many as there are,
/// taken from `pages` largest first; the last is split, its rest kept.
fn pieces(pages: &mut Vec<Pages>, bytes: usize) -> Vec<Pages> {
    pages.sort_unstable_by_key(Pages::len);
    let mut taken = Vec::new();
    let mut left = bytes;
    while left > 0 {
        let Some(mut p) = pages.pop() else { break };
        if p.len() > left {
            taken.push(p.split_front(left));
            pages.push(p);
            break;
        }
        left -= p.len();
        taken.push(p);
    }
    taken
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept_values(n: usize, x: Value) -> Arc<Vec<Value>> {
        Arc::new(vec![x; n])
    }

    #[test]
    fn a_kept_small_buffer_is_reused_cut_to_length_and_a_shared_one_is_not_kept() {
        let r = Recycler::default();
        let a = kept_values(1000, 7);
        let b = a.clone();
        r.give(a);
        assert_eq!(r.kept(), 0, "still held elsewhere: not kept");
        r.give(b);
        r.give(kept_values(400, 3));
        assert_eq!(r.kept(), 1400);
        // The smallest that fits: the 400, cut to 300.
        let v = r.take(300);
        assert_eq!((v.len(), v.capacity()), (300, 300));
        assert!(v.iter().all(|&x| x == 3));
        assert_eq!(r.kept(), 1000);
        // Nothing kept is long enough: the kept go back first, and the buffer is fresh.
        let w = r.take(2000);
        assert!(w.len() == 2000 && w.iter().all(|&x| x == 0));
        assert_eq!(r.kept(), 0);
        let z = r.take(50);
        assert!(z.len() == 50 && z.iter().all(|&x| x == 0));
    }

    #[test]
    fn a_large_buffer_is_made_of_kept_pages_largest_first_and_only_the_rest_is_fresh() {
        let r = Recycler::default();
        r.give(kept_values(3 * HUGE_PAGE, 7));
        r.give(kept_values(2 * HUGE_PAGE - 5, 5));
        if !cfg!(target_os = "linux") {
            // No mappings of their own: large buffers are kept whole, as small ones.
            let v = r.take(2 * HUGE_PAGE);
            assert!(v.len() == 2 * HUGE_PAGE && v.iter().all(|&x| x == 7));
            return;
        }
        assert_eq!(r.kept(), 5 * HUGE_PAGE, "whole huge pages");
        let v = r.take(4 * HUGE_PAGE + 10);
        assert_eq!(v.len(), 4 * HUGE_PAGE + 10);
        assert!(v[..3 * HUGE_PAGE].iter().all(|&x| x == 7) && v[3 * HUGE_PAGE..].iter().all(|&x| x == 5));
        assert_eq!(r.kept(), 0);
        // Kept again and taken shorter: split, the rest kept.
        r.give(Arc::new(v));
        let w = r.take(HUGE_PAGE + 1);
        assert!(w.len() == HUGE_PAGE + 1 && w.iter().all(|&x| x == 7));
        assert_eq!(r.kept(), 3 * HUGE_PAGE);
        // Longer than all that is kept: the kept pages first, the rest fresh, and a small
        // buffer given back to make room for it.
        r.give(kept_values(1000, 1));
        let big = r.take(6 * HUGE_PAGE);
        // (The 5s' last five bytes were never written: zero.)
        assert!(big[..HUGE_PAGE].iter().all(|&x| x == 7) && big[HUGE_PAGE..3 * HUGE_PAGE - 5].iter().all(|&x| x == 5));
        assert!(big[3 * HUGE_PAGE - 5..].iter().all(|&x| x == 0));
        assert_eq!(r.kept(), 0, "the small buffer went back to make room");
        // Pages the values never filled are fresh when written, and room is made for them.
        r.give(kept_values(HUGE_PAGE + 1, 8));
        r.give(kept_values(1000, 1));
        let v = r.take(2 * HUGE_PAGE);
        assert!(v[..=HUGE_PAGE].iter().all(|&x| x == 8));
        assert_eq!(r.kept(), 0, "the small buffer went back for the page the values did not fill");
    }

    #[test]
    fn making_room_gives_back_small_buffers_first_then_the_largest_pages() {
        let r = Recycler::default();
        for n in [100, 300, 200] {
            r.give(kept_values(n, 1));
        }
        r.give(kept_values(HUGE_PAGE, 2));
        r.give(kept_values(2 * HUGE_PAGE, 2));
        let pages = if cfg!(target_os = "linux") { 3 * HUGE_PAGE } else { 0 };
        let small = if pages == 0 { 600 + 3 * HUGE_PAGE } else { 600 };
        assert_eq!(r.kept(), small + pages);
        r.make_room(250);
        if pages == 0 {
            return;
        }
        assert_eq!(r.kept(), 300 + pages, "the 300 alone covers 250");
        // The 50 given back beyond the ask count towards the next.
        r.make_room(300);
        assert_eq!(r.kept(), pages, "250 more: the 200 and the 100");
        r.make_room(50);
        assert_eq!(r.kept(), pages, "covered by what was given back beyond the asks");
        // Pages go back a huge page at a time, split from the largest.
        r.make_room(51);
        assert_eq!(r.kept(), 2 * HUGE_PAGE, "one huge page for one byte");
        r.make_room(HUGE_PAGE - 51);
        assert_eq!(r.kept(), 2 * HUGE_PAGE, "covered by the rest of that huge page");
        r.make_room(1);
        assert_eq!(r.kept(), HUGE_PAGE);
        r.make_room(1 << 40);
        assert_eq!(r.kept(), 0);
    }
}
