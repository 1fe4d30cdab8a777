//! What the operating system says about this process: its peak memory, read where every
//! report (solve, run, bench) needs the same figure; and the one allocator setting that lets a
//! memory limit bound the whole process.

/// Memory the system can give this process now without swapping, from `/proc/meminfo`
/// (Linux; None elsewhere).
pub(crate) fn available_memory_bytes() -> Option<u64> {
    kilobytes_field("/proc/meminfo", "MemAvailable:")
}

/// The machine's memory, from `/proc/meminfo` (Linux; None elsewhere).
pub(crate) fn total_memory_bytes() -> Option<u64> {
    kilobytes_field("/proc/meminfo", "MemTotal:")
}

/// The `field` line of a `/proc` file (`Name:   1234 kB`), in bytes. Hand-made: three /proc
/// fields, where procfs or sysinfo would add a crate tree for them.
fn kilobytes_field(file: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// Allocations of at least this many bytes are mapped from the system on their own and
/// returned to it when freed.
pub(crate) const MAP_THRESHOLD: usize = 64 * 1024;

/// Makes freed partition values go back to the system at once. glibc's allocator raises its
/// mapping threshold each time a mapped block is freed (up to 32 MiB), after which values are
/// carved from per-thread heaps that it returns only from the top: a 3x5 run limited to 1.5 GB
/// of values then held 1.9 GB, and 4x4 on 16 threads under 4 GB held 7.9 GB. A fixed threshold
/// turns the dynamic one off. Elsewhere than glibc, nothing to do.
pub fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it is called once at start, before any
    // thread is spawned, with a parameter and value glibc documents.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MAP_THRESHOLD as libc::c_int);
    }
}

/// Peak resident set size of this process, from `/proc/self/status` (Linux).
pub fn peak_rss_bytes() -> Option<u64> {
    kilobytes_field("/proc/self/status", "VmHWM:")
}

/// Hands the allocator's free memory back to the system now: what planning freed (tens of
/// thousands of small graph and schedule records, in every thread's arena) otherwise stays
/// resident beside the values a run then makes (11 MB on 3x4, about 50 MB on 3x5).
pub fn trim_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free pages of the allocator's own heaps; it touches no
    // live allocation and may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}
