//! The predict suite: `dab run BOARD` as a user runs it (probe, plan, run), repeated, each
//! run's predicted range and point set against its time; and how much the predictions
//! themselves moved from run to run. A row's run is a process of its own, given here as a
//! function, so that every run probes and plans afresh.

use serde::Serialize;

use crate::support::median;

/// One run of a board: its prediction (point and range) and its time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PredictRow {
    /// The board.
    pub board: String,
    /// The run's number, from 1.
    pub run: usize,
    /// Threads the plan picked.
    pub threads: u32,
    /// The point prediction.
    pub predicted_seconds: f64,
    /// The range's fast end.
    pub range_low_seconds: f64,
    /// The range's slow end.
    pub range_high_seconds: f64,
    /// The run's time.
    pub actual_seconds: f64,
    /// Actual over predicted.
    pub actual_over_predicted: f64,
    /// The time is within the range.
    pub within_range: bool,
    /// The point prediction is within [`POINT_WITHIN`] of the time.
    pub within_10_percent: bool,
    /// The machine's 1-minute load average as the run started.
    pub load_average: Option<f64>,
}

/// How close a point prediction must be to count as right: 10 % of the actual time.
pub const POINT_WITHIN: f64 = 0.10;

/// What one run reported: threads, point, range (low, high), actual seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunFigures {
    /// Threads the plan picked.
    pub threads: u32,
    /// Predicted seconds.
    pub predicted: f64,
    /// The range (fast end, slow end).
    pub range: (f64, f64),
    /// Actual seconds.
    pub actual: f64,
}

impl PredictRow {
    /// The row of run `run` of `board`.
    pub fn new(board: &str, run: usize, f: RunFigures, load_average: Option<f64>) -> PredictRow {
        PredictRow {
            board: board.to_string(),
            run,
            threads: f.threads,
            predicted_seconds: f.predicted,
            range_low_seconds: f.range.0,
            range_high_seconds: f.range.1,
            actual_seconds: f.actual,
            actual_over_predicted: f.actual / f.predicted,
            within_range: f.range.0 <= f.actual && f.actual <= f.range.1,
            within_10_percent: (f.predicted - f.actual).abs() <= POINT_WITHIN * f.actual,
            load_average,
        }
    }
}

/// One board's runs summed up: how many fell in their range, how many point predictions were
/// within [`POINT_WITHIN`], and the spread of the predictions themselves.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PredictSummary {
    /// The board.
    pub board: String,
    /// Runs.
    pub runs: usize,
    /// Runs whose time was within their range.
    pub within_range: usize,
    /// Runs whose point prediction was within 10 % of their time.
    pub within_10_percent: usize,
    /// The predictions' least, median and most, seconds.
    pub predicted_min_seconds: f64,
    /// The median prediction.
    pub predicted_median_seconds: f64,
    /// The largest prediction.
    pub predicted_max_seconds: f64,
    /// The most over the least prediction, less 1.
    pub predicted_spread: f64,
    /// The actual times' least, median and most, seconds.
    pub actual_min_seconds: f64,
    /// The median time.
    pub actual_median_seconds: f64,
    /// The longest time.
    pub actual_max_seconds: f64,
}

impl PredictSummary {
    /// The summary of `rows`, all of one board (None for no rows).
    pub fn of(rows: &[PredictRow]) -> Option<PredictSummary> {
        let first = rows.first()?;
        let mut predicted: Vec<f64> = rows.iter().map(|r| r.predicted_seconds).collect();
        let mut actual: Vec<f64> = rows.iter().map(|r| r.actual_seconds).collect();
        let (pmin, pmax) = min_max(&predicted);
        let (amin, amax) = min_max(&actual);
        Some(PredictSummary {
            board: first.board.clone(),
            runs: rows.len(),
            within_range: rows.iter().filter(|r| r.within_range).count(),
            within_10_percent: rows.iter().filter(|r| r.within_10_percent).count(),
            predicted_min_seconds: pmin,
            predicted_median_seconds: median(&mut predicted),
            predicted_max_seconds: pmax,
            predicted_spread: pmax / pmin - 1.0,
            actual_min_seconds: amin,
            actual_median_seconds: median(&mut actual),
            actual_max_seconds: amax,
        })
    }

    /// Whether it meets issue 80's targets: the time within the range in at least 9 runs of
    /// 10, and the point within 10 % in at least 8 of 10.
    pub fn meets_targets(&self) -> bool {
        10 * self.within_range >= 9 * self.runs && 10 * self.within_10_percent >= 8 * self.runs
    }
}

fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x)))
}

/// Runs `board` `runs` times with `run_once` (a whole `dab run` in a process of its own),
/// hearing each row as it comes; the rows.
pub fn runs(
    board: &str,
    runs: usize,
    run_once: &mut dyn FnMut(usize) -> Result<(RunFigures, Option<f64>), String>,
    heard: &mut dyn FnMut(&PredictRow),
) -> Result<Vec<PredictRow>, String> {
    let mut rows = Vec::new();
    for i in 1..=runs {
        let (figures, load) = run_once(i)?;
        let row = PredictRow::new(board, i, figures, load);
        heard(&row);
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(predicted: f64, range: (f64, f64), actual: f64) -> PredictRow {
        PredictRow::new("3x4", 1, RunFigures { threads: 2, predicted, range, actual }, None)
    }

    #[test]
    fn a_run_counts_within_its_range_and_its_point_within_ten_percent_of_its_time() {
        let r = row(10.0, (8.8, 11.2), 11.0);
        assert!(r.within_range && r.within_10_percent);
        let slow = row(10.0, (8.8, 11.0), 11.05);
        assert!(!slow.within_range && slow.within_10_percent, "{slow:?}");
        let far = row(10.0, (5.0, 20.0), 12.0);
        assert!(far.within_range && !far.within_10_percent, "{far:?}");
    }

    #[test]
    fn the_summary_counts_the_runs_and_the_spread_of_the_predictions() {
        let mut rows: Vec<PredictRow> = (0..9).map(|i| row(10.0 + i as f64 * 0.1, (9.0, 12.0), 10.5)).collect();
        rows.push(row(12.0, (10.5, 13.5), 15.0));
        let s = PredictSummary::of(&rows).unwrap();
        assert_eq!((s.runs, s.within_range, s.within_10_percent), (10, 9, 9));
        assert!((s.predicted_spread - (12.0 / 10.0 - 1.0)).abs() < 1e-12);
        assert_eq!((s.actual_min_seconds, s.actual_max_seconds), (10.5, 15.0));
        assert!(s.meets_targets());
        rows[0] = row(10.0, (9.0, 10.0), 10.5);
        assert!(!PredictSummary::of(&rows).unwrap().meets_targets(), "8 of 10 in range");
        assert_eq!(PredictSummary::of(&[]), None);
    }
}
