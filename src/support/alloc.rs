//! The process's allocator, and pages moved between the large blocks it maps. Blocks of at
//! least [`HUGE_PAGE`] bytes get a mapping of their own: whole huge pages on a huge-page
//! boundary, with nothing before the block (the system allocator, glibc's, puts its header
//! there). A finished partition's values can then lend their pages, as they are, to the next
//! job's output ([`Pages`]): the system moves them in its page tables, where a fresh page costs
//! a zeroing (in a virtual machine, the host's first touch too: a sixth of the complete 4x4's
//! time on 2 cores). Everything smaller, and everything off Linux, is the system allocator's.
//! A program opts in by installing [`PageAlloc`] as its global allocator (`dab` does); under any
//! other, no pages move and the recycler keeps whole buffers.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

/// Huge pages are this long (x86-64, aarch64), and blocks at least this long are mapped on
/// their own.
pub(crate) const HUGE_PAGE: usize = 2 << 20;

/// Bytes of the mapping of a block of `size` bytes, where it has one of its own.
fn mapping_len(size: usize) -> usize {
    size.next_multiple_of(HUGE_PAGE)
}

/// Whether a block of this layout is mapped on its own, where [`PageAlloc`] allocates.
fn own_mapping(layout: Layout) -> bool {
    cfg!(target_os = "linux") && layout.size() >= HUGE_PAGE && layout.align() <= HUGE_PAGE
}

/// Set once [`PageAlloc`] has mapped a block: it is the global allocator, so every block of
/// an `own_mapping` layout alive is one of its mappings (under another allocator it stays
/// unset, and no pages are taken or moved).
static MAPPING: AtomicBool = AtomicBool::new(false);

/// Whether a live block of this layout is a mapping of [`PageAlloc`]'s own.
fn mapped(layout: Layout) -> bool {
    own_mapping(layout) && MAPPING.load(Ordering::Relaxed)
}

/// The global allocator `dab` installs (`main.rs`, and the test binaries): the system's, but
/// for blocks of at least [`HUGE_PAGE`] bytes on Linux, which are mappings of their own whose
/// pages the executor moves from a finished partition's values into a later job's output.
pub struct PageAlloc;

// SAFETY: every block is either the system allocator's, under its own contract, or a mapping
// of `mapping_len(size)` bytes that no other block overlaps, aligned to a huge page (which
// covers any alignment `own_mapping` accepts); which of the two a block is follows from its
// layout alone, the same at allocation and release.
unsafe impl GlobalAlloc for PageAlloc {
    // SAFETY: each method: the caller keeps `GlobalAlloc`'s contract, which is passed on to
    // the system allocator or kept by the mapping as above.
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        if own_mapping(layout) { os::map(mapping_len(layout.size())) } else { unsafe { System.alloc(layout) } }
    }

    // SAFETY: as above; fresh anonymous pages read as zero.
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        if own_mapping(layout) { os::map(mapping_len(layout.size())) } else { unsafe { System.alloc_zeroed(layout) } }
    }

    // SAFETY: as above; a block of its own is its mapping of `mapping_len` bytes.
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe {
            if own_mapping(layout) {
                os::unmap(ptr as usize, mapping_len(layout.size()))
            } else {
                System.dealloc(ptr, layout)
            }
        }
    }

    // SAFETY: as above.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` is a live block of `layout`, and `new_size`, rounded to the alignment,
        // fits an `isize` (the caller's contract); the new block is apart from the old one.
        unsafe {
            let new = Layout::from_size_align_unchecked(new_size, layout.align());
            match (own_mapping(layout), own_mapping(new)) {
                (false, false) => System.realloc(ptr, layout, new_size),
                (true, true) => {
                    let (old_len, new_len) = (mapping_len(layout.size()), mapping_len(new_size));
                    if new_len <= old_len {
                        os::unmap(ptr as usize + new_len, old_len - new_len);
                        return ptr;
                    }
                    let to = os::map(new_len);
                    if !to.is_null() {
                        // The pages move rather than being copied; what the system refused to
                        // move is copied. Only the part not moved is released: the moved part
                        // is no longer this block's, and another mapping may already sit there.
                        let moved = os::move_pages(ptr as usize, to as usize, old_len);
                        std::ptr::copy_nonoverlapping(
                            ptr.add(moved),
                            to.add(moved),
                            layout.size().saturating_sub(moved),
                        );
                        os::unmap(ptr as usize + moved, old_len - moved);
                    }
                    to
                }
                _ => {
                    // Across the threshold: a new block, the bytes copied, the old one released.
                    let to = self.alloc(new);
                    if !to.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, to, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    to
                }
            }
        }
    }
}

/// Whole huge pages that belonged to a block no longer in use, owned: the bytes from `addr` to
/// `addr + len`, each page holding whatever the block held (pages it never touched hold no
/// memory). The first `filled` bytes held the block's values, so they hold memory for sure.
/// Dropped, they go back to the system.
#[derive(Debug)]
pub(crate) struct Pages {
    addr: usize,
    len: usize,
    filled: usize,
}

impl Pages {
    /// The pages of `v`'s block, where it is a mapping of [`PageAlloc`]'s own; else `v` back.
    pub(crate) fn of<T: super::ZeroByte>(v: Vec<T>) -> Result<Pages, Vec<T>> {
        if !mapped(Layout::array::<T>(v.capacity()).expect("a live vector's layout")) {
            return Err(v);
        }
        let v = std::mem::ManuallyDrop::new(v);
        // The vector is forgotten: its mapping is these pages' now.
        let len = mapping_len(v.capacity());
        Ok(Pages { addr: v.as_ptr() as usize, len, filled: v.len().min(len) })
    }

    /// Bytes held, a multiple of [`HUGE_PAGE`]: at most this much memory.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bytes from the front that held values: at least this much memory.
    pub(crate) fn filled(&self) -> usize {
        self.filled
    }

    /// The first `n` bytes (rounded up to a whole huge page, at most all) as pages of their
    /// own, the rest left here.
    pub(crate) fn split_front(&mut self, n: usize) -> Pages {
        let n = mapping_len(n).min(self.len);
        let front = Pages { addr: self.addr, len: n, filled: self.filled.min(n) };
        (self.addr, self.len, self.filled) = (self.addr + n, self.len - n, self.filled - front.filled);
        front
    }

    /// Moves these pages over `v`'s from byte `at` (a multiple of [`HUGE_PAGE`]), as far as
    /// `v`'s mapping reaches; returns the bytes of `v` they now back (from `at`). Only a `v`
    /// with a mapping of its own takes any; what is not moved goes back to the system.
    pub(crate) fn move_into<T: super::ZeroByte>(mut self, v: &mut Vec<T>, at: usize) -> usize {
        let cap = Layout::array::<T>(v.capacity()).expect("a live vector's layout");
        if !mapped(cap) || !at.is_multiple_of(HUGE_PAGE) || at >= mapping_len(cap.size()) {
            return 0;
        }
        let n = self.len.min(mapping_len(cap.size()) - at);
        // SAFETY: the source is these pages, owned and mapped; the destination lies inside
        // `v`'s own mapping (checked above), which `v`, borrowed mutably, lets nothing else
        // read or write meanwhile, and whose bytes take any value (`ZeroByte`: one byte,
        // every pattern valid).
        let moved = unsafe { os::move_pages(self.addr, v.as_mut_ptr() as usize + at, n) };
        // The moved range is no longer mapped here; the rest is released on drop.
        (self.addr, self.len, self.filled) = (self.addr + moved, self.len - moved, self.filled.saturating_sub(moved));
        moved
    }
}

impl Drop for Pages {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: the range is owned by these pages and mapped (moved parts were cut off).
            unsafe { os::unmap(self.addr, self.len) }
        }
    }
}

#[cfg(target_os = "linux")]
mod os {
    use super::HUGE_PAGE;

    /// `len` bytes (a multiple of [`HUGE_PAGE`]) of fresh anonymous memory on a huge-page
    /// boundary, or null. The system places a mapping of whole huge pages on such a boundary
    /// itself; where it did not, a longer one is asked and trimmed.
    pub(super) fn map(len: usize) -> *mut u8 {
        let fresh = |n: usize| {
            // SAFETY: a new private anonymous mapping, overlapping nothing.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    n,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            (p != libc::MAP_FAILED).then_some(p as usize)
        };
        let Some(p) = fresh(len) else { return std::ptr::null_mut() };
        super::MAPPING.store(true, std::sync::atomic::Ordering::Relaxed);
        if p.is_multiple_of(HUGE_PAGE) {
            return p as *mut u8;
        }
        // SAFETY: the mapping just made, not handed out.
        unsafe { unmap(p, len) };
        let Some(q) = fresh(len + HUGE_PAGE) else { return std::ptr::null_mut() };
        let a = q.next_multiple_of(HUGE_PAGE);
        // SAFETY: the parts of the mapping just made outside [a, a + len), not handed out.
        unsafe {
            unmap(q, a - q);
            unmap(a + len, q + HUGE_PAGE - a);
        }
        a as *mut u8
    }

    /// Releases the mapped range [addr, addr + len).
    ///
    /// # Safety
    /// SAFETY: the caller's: the range is owned by the caller and used by nothing after.
    pub(super) unsafe fn unmap(addr: usize, len: usize) {
        if len > 0 {
            // SAFETY: the caller's.
            unsafe { libc::munmap(addr as *mut libc::c_void, len) };
        }
    }

    /// Moves the pages of [from, from + len) to [to, to + len), replacing what was mapped
    /// there, both on huge-page boundaries and `len` a multiple of [`HUGE_PAGE`]; returns how
    /// many bytes from the front moved (all, unless the system refused: too many mappings).
    /// The moved source range is left unmapped.
    ///
    /// # Safety
    /// SAFETY: the caller's: both ranges are owned by the caller, mapped, and apart; the
    /// destination's bytes take any value.
    pub(super) unsafe fn move_pages(from: usize, to: usize, len: usize) -> usize {
        let mv = |f: usize, t: usize, n: usize| {
            // SAFETY: the caller's: owned ranges, the destination replaced whole.
            let p = unsafe {
                libc::mremap(
                    f as *mut libc::c_void,
                    n,
                    n,
                    libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
                    t as *mut libc::c_void,
                )
            };
            p != libc::MAP_FAILED
        };
        // A range made of pages moved in from several blocks spans several of the system's
        // mappings, which one call may refuse to move: then a huge page at a time (every
        // boundary between them is on one).
        if len == 0 || mv(from, to, len) {
            return len;
        }
        let mut done = 0;
        while done < len && mv(from + done, to + done, HUGE_PAGE) {
            done += HUGE_PAGE;
        }
        done
    }
}

#[cfg(not(target_os = "linux"))]
mod os {
    // No block has a mapping of its own here (`own_mapping`), so none of these is reached.
    pub(super) fn map(_len: usize) -> *mut u8 {
        std::ptr::null_mut()
    }

    // SAFETY: does nothing.
    pub(super) unsafe fn unmap(_addr: usize, _len: usize) {}

    // SAFETY: does nothing.
    pub(super) unsafe fn move_pages(_from: usize, _to: usize, _len: usize) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(n: usize, x: u8) -> Vec<u8> {
        vec![x; n]
    }

    #[test]
    fn a_large_block_is_its_own_huge_page_aligned_mapping_and_grows_and_shrinks_keeping_its_bytes() {
        let mut v = filled(3 * HUGE_PAGE + 5, 7);
        if cfg!(target_os = "linux") {
            assert!((v.as_ptr() as usize).is_multiple_of(HUGE_PAGE));
        }
        v.extend(std::iter::repeat_n(9u8, 4 * HUGE_PAGE));
        assert!(v[..3 * HUGE_PAGE + 5].iter().all(|&x| x == 7) && v[3 * HUGE_PAGE + 5..].iter().all(|&x| x == 9));
        v.truncate(HUGE_PAGE + 1);
        v.shrink_to_fit();
        assert!(v.iter().all(|&x| x == 7));
        // Across the threshold, both ways.
        v.truncate(100);
        v.shrink_to_fit();
        assert_eq!(v, vec![7; 100]);
        v.resize(2 * HUGE_PAGE, 1);
        assert!(v[..100].iter().all(|&x| x == 7) && v[100..].iter().all(|&x| x == 1));
    }

    #[test]
    fn pages_moved_into_a_buffer_bring_their_bytes_and_the_rest_stays_zero() {
        let a = Pages::of(filled(2 * HUGE_PAGE, 3));
        assert_eq!(a.is_ok(), cfg!(target_os = "linux"), "a block of two huge pages has a mapping of its own on Linux");
        let Ok(mut a) = a else { return };
        assert!(Pages::of(filled(1000, 1)).is_err(), "a small block is the system allocator's");
        assert_eq!(a.len(), 2 * HUGE_PAGE);
        let b = Pages::of(filled(HUGE_PAGE + 1, 4)).expect("own mapping");
        assert_eq!((b.len(), b.filled()), (2 * HUGE_PAGE, HUGE_PAGE + 1), "whole huge pages, the values' filled");
        let front = a.split_front(1);
        assert_eq!((front.len(), a.len()), (HUGE_PAGE, HUGE_PAGE));
        assert_eq!((front.filled(), a.filled()), (HUGE_PAGE, HUGE_PAGE));
        let mut v: Vec<u8> = crate::support::zeroed_bytes(4 * HUGE_PAGE + 10);
        assert_eq!(front.move_into(&mut v, 0), HUGE_PAGE);
        // Past the end of `v`'s mapping (five huge pages) nothing moves; the rest is released.
        assert_eq!(b.move_into(&mut v, 4 * HUGE_PAGE), HUGE_PAGE);
        assert_eq!(a.move_into(&mut v, 3), 0, "not on a huge page");
        let c = Pages::of(filled(HUGE_PAGE, 5)).expect("own mapping");
        assert_eq!(c.move_into(&mut vec![0u8; 10], 0), 0, "a small buffer takes none");
        assert!(v[..HUGE_PAGE].iter().all(|&x| x == 3));
        assert!(v[HUGE_PAGE..4 * HUGE_PAGE].iter().all(|&x| x == 0));
        assert!(v[4 * HUGE_PAGE..].iter().all(|&x| x == 4));
        // A buffer made of moved pages spans several mappings: it still grows, keeping them.
        v.resize(9 * HUGE_PAGE, 6);
        assert!(v[..HUGE_PAGE].iter().all(|&x| x == 3) && v[4 * HUGE_PAGE..4 * HUGE_PAGE + 10].iter().all(|&x| x == 4));
        assert!(v[4 * HUGE_PAGE + 10..].iter().all(|&x| x == 6));
        // And its pages move on whole.
        let d = Pages::of(v).expect("own mapping");
        let mut w: Vec<u8> = crate::support::zeroed_bytes(9 * HUGE_PAGE);
        assert_eq!(d.move_into(&mut w, 0), 9 * HUGE_PAGE);
        assert!(w[..HUGE_PAGE].iter().all(|&x| x == 3) && w[8 * HUGE_PAGE..].iter().all(|&x| x == 6));
    }
}
