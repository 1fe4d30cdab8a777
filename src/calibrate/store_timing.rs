//! Timing the store: writes (temporary file, flush to disk, rename) and read-backs of sizes
//! from a few kilobytes to a large partition, fitted as time = per file + per byte * bytes.

use std::path::Path;

use crate::game::Position;
use crate::plan::ReadyPlan;
use crate::solver::Space;
use crate::store::{Store, StoreError};
use crate::support::median;

/// Store writes timed by [`time_store`]: per size, the mean seconds and the spread, and the
/// fitted line.
#[derive(Clone, Debug)]
pub struct StoreTiming {
    /// (bytes, mean seconds) per size written: the mean, since a run's time sums its writes,
    /// and a write now and then waits much longer for the disk than the median one.
    pub sizes: Vec<(u64, f64)>,
    /// (fastest, slowest) seconds per size written.
    pub spread: Vec<(f64, f64)>,
    /// Fitted cost of one write whatever its size, ns.
    pub per_file_ns: f64,
    /// Fitted cost of each byte written, ns.
    pub per_byte_ns: f64,
    /// Reading back, per byte: the summed read time over the summed bytes (just written, so
    /// mostly from the page cache, as values dropped under a memory limit usually are).
    pub read_per_byte_ns: f64,
}

/// Sizes written when timing a store: a few kilobytes to the size of a large partition.
pub const STORE_SIZES: [u64; 6] = [4 << 10, 64 << 10, 1 << 20, 8 << 20, 32 << 20, 128 << 20];

/// Times store writes (temporary file, flush to disk, rename) of each of `sizes` bytes,
/// `repeats` times in turn, in a fresh folder under `dir` that is removed afterwards, and fits
/// time = per file + per byte * bytes to the mean times, minimising the relative error.
pub fn time_store(dir: &Path, sizes: &[u64], repeats: usize) -> Result<StoreTiming, StoreError> {
    // The folder must exist: timing a disk the user did not name is worse than no timing.
    if !dir.is_dir() {
        return Err(StoreError::Read {
            path: dir.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder to time store writes in"),
        });
    }
    let base = dir.join(format!("dab-store-timing-{}", std::process::id()));
    let result = time_store_in(&base, sizes, repeats);
    let _ = std::fs::remove_dir_all(&base);
    result
}

fn time_store_in(base: &Path, sizes: &[u64], repeats: usize) -> Result<StoreTiming, StoreError> {
    // Any plan gives a folder and a header; only the number of values matters here.
    let space = Space::new(Position::empty("1x1".parse().expect("a board")), None).expect("1x1 has a space");
    let plan = ReadyPlan::whole(space);
    let store = Store::open(base, &plan.space)?;
    let layout = plan.layout[0];
    let mut times = vec![Vec::new(); sizes.len()];
    let mut reads = vec![Vec::new(); sizes.len()];
    for _ in 0..repeats.max(1) {
        for (i, &bytes) in sizes.iter().enumerate() {
            let values = vec![0; bytes as usize];
            let start = std::time::Instant::now();
            store.write(&format!("t{i}"), &layout, &values)?;
            times[i].push(start.elapsed().as_secs_f64());
            drop(values);
            let start = std::time::Instant::now();
            store.read(&format!("t{i}"), &layout, bytes)?;
            reads[i].push(start.elapsed().as_secs_f64());
        }
    }
    let read_secs: f64 = reads.iter_mut().map(|t| median(t)).sum();
    let read_per_byte_ns = read_secs * 1e9 / sizes.iter().sum::<u64>() as f64;
    let spread = times
        .iter()
        .map(|t| (t.iter().copied().fold(f64::INFINITY, f64::min), t.iter().copied().fold(0.0, f64::max)))
        .collect();
    let sizes: Vec<(u64, f64)> =
        sizes.iter().zip(&times).map(|(&b, t)| (b, t.iter().sum::<f64>() / t.len() as f64)).collect();
    let (per_file, per_byte) = line_fit(&sizes);
    Ok(StoreTiming { sizes, spread, per_file_ns: per_file * 1e9, per_byte_ns: per_byte * 1e9, read_per_byte_ns })
}

/// a + b x through (x, t) with weights 1/t^2 (relative error), both coefficients at least 0.
fn line_fit(points: &[(u64, f64)]) -> (f64, f64) {
    let (mut s, mut sx, mut sxx, mut st, mut sxt) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, t) in points {
        let (x, w) = (x as f64, 1.0 / (t * t).max(1e-18));
        (s, sx, sxx, st, sxt) = (s + w, sx + w * x, sxx + w * x * x, st + w * t, sxt + w * x * t);
    }
    let det = s * sxx - sx * sx;
    let (a, b) = ((st * sxx - sx * sxt) / det, (s * sxt - sx * st) / det);
    if det <= 0.0 || !a.is_finite() || !b.is_finite() {
        (st / s, 0.0)
    } else if a < 0.0 {
        (0.0, sxt / sxx)
    } else if b < 0.0 {
        (st / s, 0.0)
    } else {
        (a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_fitted_exactly() {
        let points: Vec<(u64, f64)> = [1u64, 10, 100, 1000].iter().map(|&x| (x, 0.5 + 0.25 * x as f64)).collect();
        let (a, b) = line_fit(&points);
        assert!((a - 0.5).abs() < 1e-9 && (b - 0.25).abs() < 1e-9, "{a} {b}");
        // A falling line is not a cost: the per-byte term goes.
        let (a, b) = line_fit(&[(1, 2.0), (2, 1.0)]);
        assert!(b == 0.0 && a > 0.0);
    }
}
