//! The machine's memory bandwidth, measured the STREAM way: *copy* (`c[i] = a[i]`) and *triad*
//! (`a[i] = b[i] + q * c[i]`) over three arrays of `f64` well beyond the last-level cache, best
//! of a few repeats, on one thread and on several (each thread its own contiguous chunk of
//! every array). Bytes count as STREAM counts them: those read plus those written (16 an
//! element for copy, 24 for triad), in GB/s of 10^9 bytes. The roof a solve's traffic
//! (`crate::solver::Traffic`) is set against.

use std::hint::black_box;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::support::available_memory_bytes;

/// Default size of each of the three arrays: 256 MiB, far beyond any last-level cache of
/// today's machines (at most a few hundred MiB split across sockets).
pub(crate) const DEFAULT_ARRAY_BYTES: u64 = 256 << 20;

/// Passes of each loop; the fastest counts (STREAM's rule: the others were disturbed).
pub const DEFAULT_REPEATS: usize = 3;

/// The copy and triad rates on some number of threads.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bandwidth {
    /// Threads that ran the loops.
    pub threads: usize,
    /// Bytes of each of the three arrays.
    pub array_bytes: u64,
    /// Passes of each loop (the best counts).
    pub repeats: usize,
    /// `c[i] = a[i]`: GB/s read plus written.
    pub copy_gigabytes_per_second: f64,
    /// `a[i] = b[i] + q * c[i]`: GB/s read plus written.
    pub triad_gigabytes_per_second: f64,
}

impl Bandwidth {
    /// The better of the two rates: the roof a solve is set against.
    pub fn best(&self) -> f64 {
        self.copy_gigabytes_per_second.max(self.triad_gigabytes_per_second)
    }
}

/// Why the bandwidth could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum BandwidthError {
    /// The arrays are smaller than one element each.
    #[error("bandwidth arrays of {0} bytes are too small: at least 8 bytes each")]
    TooSmall(u64),
    /// The three arrays would take more than a quarter of the memory available.
    #[error(
        "bandwidth arrays of {mib} MiB each (three of them) exceed a quarter of the memory available ({available_mib} MiB); use a smaller size"
    )]
    TooLarge {
        /// MiB of each array asked for.
        mib: u64,
        /// MiB the system says are available.
        available_mib: u64,
    },
    /// No threads, or the thread pool could not be started.
    #[error("bandwidth on {threads} threads: {message}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// What went wrong.
        message: String,
    },
}

/// The default array size, made smaller where three arrays of it would exceed a quarter of
/// the memory available (never below 1 MiB).
pub fn default_array_bytes() -> u64 {
    match available_memory_bytes() {
        Some(avail) => DEFAULT_ARRAY_BYTES.min(avail / 12).max(1 << 20),
        None => DEFAULT_ARRAY_BYTES,
    }
}

/// Copy and triad on `threads` threads over three arrays of `array_bytes` bytes each, best of
/// `repeats` passes of each (at least one). Refuses arrays of less than one element or,
/// together, more than a quarter of the memory available.
pub fn bandwidth(array_bytes: u64, threads: usize, repeats: usize) -> Result<Bandwidth, BandwidthError> {
    if array_bytes < 8 {
        return Err(BandwidthError::TooSmall(array_bytes));
    }
    if let Some(avail) = available_memory_bytes()
        && array_bytes.saturating_mul(3) > avail / 4
    {
        return Err(BandwidthError::TooLarge { mib: array_bytes >> 20, available_mib: avail >> 20 });
    }
    if threads == 0 {
        return Err(BandwidthError::Threads { threads, message: "at least one thread is needed".into() });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| BandwidthError::Threads { threads, message: e.to_string() })?;
    let n = (array_bytes / 8) as usize;
    // One contiguous chunk of every array per thread, so each thread streams its own memory.
    let chunk = n.div_ceil(threads);
    let repeats = repeats.max(1);
    let (copy, triad) = pool.install(|| {
        // Each thread first touches its own chunks, so they are placed near it (NUMA) and
        // page faults stay out of the timed passes.
        let fill = |x: f64| {
            let mut v = vec![0.0f64; n];
            v.par_chunks_mut(chunk).for_each(|c| c.fill(x));
            v
        };
        let (mut a, b, mut c) = (fill(1.0), fill(2.0), fill(0.0));
        // A half keeps the values bounded over the passes (a tends to 2 * b).
        let q = black_box(0.5);
        let (mut copy, mut triad) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..repeats {
            let t = Instant::now();
            c.par_chunks_mut(chunk).zip(a.par_chunks(chunk)).for_each(|(c, a)| c.copy_from_slice(a));
            black_box(&mut c);
            copy = copy.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            a.par_chunks_mut(chunk).zip(b.par_chunks(chunk)).zip(c.par_chunks(chunk)).for_each(|((a, b), c)| {
                for ((a, &b), &c) in a.iter_mut().zip(b).zip(c) {
                    *a = b + q * c;
                }
            });
            black_box(&mut a);
            triad = triad.min(t.elapsed().as_secs_f64());
        }
        (copy, triad)
    });
    let bytes = (n * 8) as f64;
    // A pass too short for the clock counts as one nanosecond: the rate stays finite.
    let rate = |moved: f64, seconds: f64| moved / seconds.max(1e-9) / 1e9;
    Ok(Bandwidth {
        threads,
        array_bytes: (n * 8) as u64,
        repeats,
        copy_gigabytes_per_second: rate(2.0 * bytes, copy),
        triad_gigabytes_per_second: rate(3.0 * bytes, triad),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_arrays_give_positive_finite_rates_on_one_and_two_threads() {
        for threads in [1, 2] {
            let b = bandwidth(1 << 16, threads, 2).unwrap();
            assert_eq!((b.threads, b.array_bytes, b.repeats), (threads, 1 << 16, 2));
            for r in [b.copy_gigabytes_per_second, b.triad_gigabytes_per_second] {
                assert!(r.is_finite() && r > 0.0, "{threads} threads: {r}");
            }
            assert_eq!(b.best(), b.copy_gigabytes_per_second.max(b.triad_gigabytes_per_second));
        }
    }

    #[test]
    fn an_array_not_a_whole_number_of_elements_or_chunks_is_measured_whole_elements() {
        // 1001 bytes: 125 elements, split into chunks of 42 on 3 threads (the last shorter).
        let b = bandwidth(1001, 3, 1).unwrap();
        assert_eq!(b.array_bytes, 1000);
        assert!(b.copy_gigabytes_per_second > 0.0 && b.triad_gigabytes_per_second > 0.0);
    }

    #[test]
    fn arrays_too_small_too_large_or_no_threads_are_refused() {
        assert!(matches!(bandwidth(7, 1, 1), Err(BandwidthError::TooSmall(7))));
        assert!(matches!(bandwidth(8, 0, 1), Err(BandwidthError::Threads { threads: 0, .. })));
        if available_memory_bytes().is_some() {
            let err = bandwidth(u64::MAX / 2, 1, 1).unwrap_err();
            assert!(matches!(err, BandwidthError::TooLarge { .. }), "{err}");
            assert!(err.to_string().contains("exceed a quarter of the memory available"), "{err}");
        }
    }

    #[test]
    fn the_default_size_keeps_three_arrays_within_a_quarter_of_the_memory_available() {
        let d = default_array_bytes();
        assert!((1 << 20..=DEFAULT_ARRAY_BYTES).contains(&d));
        if let Some(avail) = available_memory_bytes().filter(|&a| a >= 12 << 20) {
            assert!(3 * d <= avail / 4, "{d} of {avail}");
        }
    }
}
