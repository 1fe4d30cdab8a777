//! The report of `dab scale`: one row per thread count (predicted and measured seconds, the
//! signed error, both speedups, the efficiency and the model's floor under the makespan), the
//! row arithmetic, and the files `scale.csv`, `scale.svg` and `scale.png`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::chart::{self, ChartError, ScalePoint};

/// One thread count of a scaling run; its fields are the columns of `scale.csv`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ScaleRow {
    /// Threads, P.
    pub threads: usize,
    /// The predicted makespan on P threads, seconds: the plan's, or where each run was
    /// probed, the median of the runs' predictions (the plan's scaled by its probe).
    pub predicted_seconds: f64,
    /// The median wall time of the runs on P threads, seconds.
    pub actual_seconds: f64,
    /// (actual - predicted) / actual: positive when the run was slower than predicted. Reports
    /// print [`ScaleRow::actual_over_predicted`] instead; the column stays for the files
    /// that read it.
    pub error: f64,
    /// The one-thread prediction over the prediction at P.
    pub predicted_speedup: f64,
    /// The one-thread time over the measured time at P.
    pub actual_speedup: f64,
    /// The actual speedup per thread.
    pub efficiency: f64,
    /// No simulated schedule of the plan's graph on P threads is shorter, seconds:
    /// max(CP, W/P slowed by the contention) of the modelled costs. A floor of the model, not of
    /// runs: a run is shorter where the model's costs are off. (The column keeps its name for
    /// the files that read it.)
    pub lower_bound_seconds: f64,
    /// Median over the jobs of |predicted - actual| / actual job time, each job's actual time
    /// the median of its runs at P.
    pub job_error_median: f64,
}

/// The one-thread times the speedups are relative to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneThread {
    /// The predicted makespan on one thread, seconds.
    pub predicted_seconds: f64,
    /// The measured time on one thread, or the prediction where one thread was not run.
    pub actual_seconds: f64,
}

impl ScaleRow {
    /// The row of P = `threads` from its three times and the one-thread baseline.
    pub fn new(
        threads: usize,
        predicted_seconds: f64,
        actual_seconds: f64,
        lower_bound_seconds: f64,
        job_error_median: f64,
        one: OneThread,
    ) -> ScaleRow {
        let actual_speedup = one.actual_seconds / actual_seconds;
        ScaleRow {
            threads,
            predicted_seconds,
            actual_seconds,
            error: (actual_seconds - predicted_seconds) / actual_seconds,
            predicted_speedup: one.predicted_seconds / predicted_seconds,
            actual_speedup,
            efficiency: actual_speedup / threads as f64,
            lower_bound_seconds,
            job_error_median,
        }
    }

    /// Actual over predicted seconds, the ratio every report writes as "0.91x": above 1, the
    /// run was slower than predicted.
    pub fn actual_over_predicted(&self) -> f64 {
        self.actual_seconds / self.predicted_seconds
    }

    /// The model's ceiling as a speedup: the one-thread prediction over the model's floor at P
    /// (`lower_bound_seconds`). A measured speedup can pass it.
    pub fn bound_speedup(&self) -> f64 {
        self.predicted_speedup * self.predicted_seconds / self.lower_bound_seconds
    }
}

/// Why the report of `dab scale` could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ScaleWriteError {
    /// `scale.csv`.
    #[error("cannot write '{path}': {source}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The chart.
    #[error("{0}")]
    Chart(#[from] ChartError),
}

/// Writes `scale.csv`, `scale.svg` and `scale.png` into `dir` for `board` on a machine of
/// `machine_threads` threads, each measured time the median of `repeats` runs; returns the
/// files written.
pub fn write_scale(
    rows: &[ScaleRow],
    board: &str,
    machine_threads: usize,
    repeats: usize,
    dir: &Path,
) -> Result<Vec<PathBuf>, ScaleWriteError> {
    let csv = dir.join("scale.csv");
    crate::support::write_csv(rows, &csv).map_err(|source| ScaleWriteError::Csv { path: csv.clone(), source })?;
    let points: Vec<ScalePoint> = rows
        .iter()
        .map(|r| ScalePoint {
            threads: r.threads as u32,
            predicted: r.predicted_speedup,
            actual: r.actual_speedup,
            bound: r.bound_speedup(),
            ratio: r.actual_over_predicted(),
        })
        .collect();
    // Without a one-thread run both speedups are over the one-thread prediction.
    let baseline = if rows.iter().any(|r| r.threads == 1) { "the measured" } else { "the predicted" };
    let median = if repeats > 1 { format!(" (measured: median of {repeats} runs)") } else { String::new() };
    chart::scale(
        &dir.join("scale"),
        &format!("{board} on this machine ({machine_threads} threads): measured speedup against the prediction"),
        &format!("speedup over {baseline} one-thread time{median}"),
        repeats,
        &points,
    )?;
    Ok(["csv", "svg", "png"].map(|e| dir.join(format!("scale.{e}"))).to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speedups_efficiency_and_the_sign_of_the_error_follow_the_baseline() {
        let one = OneThread { predicted_seconds: 8.0, actual_seconds: 10.0 };
        // Slower than predicted: a positive error.
        let slow = ScaleRow::new(4, 2.0, 2.5, 1.6, 0.1, one);
        assert_eq!(slow.error, 0.2);
        assert_eq!(slow.predicted_speedup, 4.0);
        assert_eq!(slow.actual_speedup, 4.0);
        assert_eq!(slow.efficiency, 1.0);
        assert_eq!(slow.bound_speedup(), 5.0);
        assert_eq!(slow.actual_over_predicted(), 1.25);
        // Faster than predicted: a negative error.
        let fast = ScaleRow::new(2, 5.0, 4.0, 4.0, 0.1, one);
        assert_eq!(fast.error, -0.25);
        assert_eq!(fast.predicted_speedup, 1.6);
        assert_eq!(fast.actual_speedup, 2.5);
        assert_eq!(fast.efficiency, 1.25);
        assert_eq!(fast.bound_speedup(), 2.0);
    }
}
