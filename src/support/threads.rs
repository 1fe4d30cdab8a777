//! Thread counts: the hardware threads this process may use, and the ladder of counts that
//! calibration and scaling measure (1, 2, 4, ... up to all threads, with the physical cores).

/// Hardware threads this process may use (cores times threads per core, within its affinity).
pub fn hardware_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Threads one run may start on this machine: 4 per hardware thread (an oversubscribed run is
/// a fair test of the parallel paths; past that the threads only share cores, each with its own
/// stack and scratch), and at least 8.
pub fn max_threads() -> usize {
    hardware_threads().saturating_mul(4).max(8)
}

/// 1, 2, 4, ... up to `threads`, with `cores` (at most `threads`) and `threads` itself: enough
/// points to see where adding threads stops paying (the physical cores, then hyperthreads).
pub fn thread_counts(threads: usize, cores: usize) -> Vec<usize> {
    let threads = threads.max(1);
    let mut out: Vec<usize> =
        std::iter::successors(Some(1usize), |&p| p.checked_mul(2)).take_while(|&p| p <= threads).collect();
    out.extend([cores.clamp(1, threads), threads]);
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_are_powers_of_two_with_the_cores_and_all_threads() {
        assert_eq!(thread_counts(1, 1), vec![1]);
        assert_eq!(thread_counts(2, 2), vec![1, 2]);
        assert_eq!(thread_counts(6, 6), vec![1, 2, 4, 6]);
        assert_eq!(thread_counts(16, 16), vec![1, 2, 4, 8, 16]);
        assert_eq!(thread_counts(12, 6), vec![1, 2, 4, 6, 8, 12]);
        assert_eq!(thread_counts(32, 16), vec![1, 2, 4, 8, 16, 32]);
    }
}
