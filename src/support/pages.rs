//! Large zeroed buffers backed by transparent huge pages where the system offers them: a
//! partition's values are written once, front to back, and read a row at a time from all over,
//! so 2 MiB pages cut both the page faults of the first write and the TLB misses of the reads.

/// Buffers smaller than this stay on ordinary pages (a huge page is 2 MiB on x86-64 and
/// aarch64; below two of them, few whole ones fit inside).
const HUGE_MIN: usize = 4 << 20;

/// `n` zero bytes, asked to be backed by huge pages where the system allows it (Linux with
/// transparent huge pages in `madvise` or `always` mode; elsewhere an ordinary zeroed vector).
pub(crate) fn zeroed_bytes<T: Copy + Default + ZeroByte>(n: usize) -> Vec<T> {
    let v = vec![T::default(); n];
    // Only the whole huge pages the values fill: the mapping of a large block runs on to the
    // next huge page (`alloc.rs`), where a huge page would hold up to 2 MiB more than the
    // values, past what the memory count allows for.
    advise_huge_pages(v.as_ptr() as usize, n / super::HUGE_PAGE * super::HUGE_PAGE);
    v
}

/// Element types one byte wide whose default is the all-zero byte, so that `vec!` maps fresh
/// zero pages and nothing is touched before the advice.
pub(crate) trait ZeroByte {}
impl ZeroByte for u8 {}
impl ZeroByte for i8 {}

/// Asks that the `len` bytes from `addr`, inside one live allocation of at least that size
/// (initialised or only reserved), be backed by huge pages where the system allows it, where
/// they are at least [`HUGE_MIN`]: for a large table probed at random (the search's), whose
/// every probe would otherwise also miss the TLB.
pub(crate) fn advise_huge_pages(addr: usize, len: usize) {
    if len >= HUGE_MIN {
        advise_huge(addr, len);
    }
}

#[cfg(target_os = "linux")]
fn advise_huge(addr: usize, len: usize) {
    const PAGE: usize = 4096;
    // Rounded outwards: a range inside a mapping would split it in three, and a buffer that
    // spans several mappings can no longer be grown by moving its pages (`mremap` refuses).
    let start = addr / PAGE * PAGE;
    let end = (addr + len).next_multiple_of(PAGE);
    // SAFETY: [start, end) is the pages that hold a live allocation (the callers': one just
    // made), and MADV_HUGEPAGE only changes how the kernel backs pages, never their contents,
    // so flagging the allocator's header or a neighbour sharing an end page changes nothing
    // they see; a refusal (no THP in this kernel) is harmless and ignored.
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_addr: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_buffer_is_zero_and_as_long_as_asked() {
        for n in [0, 1, HUGE_MIN - 1, HUGE_MIN, 3 * HUGE_MIN + 12_345] {
            let v: Vec<i8> = zeroed_bytes(n);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 0));
        }
    }
}
