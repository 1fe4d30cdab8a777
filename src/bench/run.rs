//! The run suite: plan, run and compare boards at one thread and at all threads,
//! then run every candidate the planner considered, to see whether the simulator ranked them
//! right.

use serde::Serialize;
use serde::ser::SerializeStruct;

use crate::exec::execute;
use crate::game::{Board, Position};
use crate::pipeline::RunError;
use crate::plan::{PlanOptions, PlannerError};
use crate::report::Comparison;

/// Why the run suite stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunBenchError {
    /// A board could not be planned.
    #[error("{0}")]
    Planner(#[from] PlannerError),
    /// A plan could not be run, compared or written.
    #[error("{0}")]
    Run(#[from] RunError),
}

/// One board at one thread count: the chosen plan's prediction against its run, as `dab
/// compare` measures it, with the plan's label and the speedup.
#[derive(Clone, Debug)]
pub struct RunRow {
    /// The comparison of the run with its plan.
    pub comparison: Comparison,
    /// The chosen candidate.
    pub plan: String,
    /// Actual one-thread time over this run's (filled on the rows after the first).
    pub speedup: Option<f64>,
}

impl Serialize for RunRow {
    /// The comparison's columns around the plan, then the speedup and the value last (the
    /// layout of `reports/bench-run.csv`).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = &self.comparison;
        let mut row = s.serialize_struct("RunRow", 12)?;
        row.serialize_field("board", &c.board)?;
        row.serialize_field("threads", &c.threads)?;
        row.serialize_field("plan", &self.plan)?;
        row.serialize_field("job_count", &c.job_count)?;
        row.serialize_field("predicted_seconds", &c.predicted_seconds)?;
        row.serialize_field("actual_seconds", &c.actual_seconds)?;
        row.serialize_field("error", &c.error)?;
        row.serialize_field("actual_over_predicted", &c.actual_over_predicted)?;
        row.serialize_field("job_error_median", &c.job_error_median)?;
        row.serialize_field("job_error_p90", &c.job_error_p90)?;
        row.serialize_field("speedup", &self.speedup)?;
        row.serialize_field("value", &c.value)?;
        row.end()
    }
}

/// One candidate of one board's plan, actually run.
#[derive(Clone, Debug, Serialize)]
pub struct CandidateRow {
    /// The board.
    pub board: String,
    /// Threads it ran on.
    pub threads: u32,
    /// The candidate's label (grouping and split).
    pub candidate: String,
    /// Its jobs.
    pub jobs: usize,
    /// Its predicted makespan.
    pub predicted_seconds: f64,
    /// Its median measured time.
    pub actual_seconds: f64,
    /// Whether the planner chose it.
    pub chosen: bool,
}

/// Plans and runs `board` at each thread count (the first is the speedup's base), each run
/// `repeats` times; the run with the median time is the one compared, its plan, trace and
/// comparison written under `dir`.
pub fn runs(
    board: Board,
    threads: &[u32],
    opts: &PlanOptions,
    repeats: usize,
    dir: &std::path::Path,
) -> Result<Vec<RunRow>, RunBenchError> {
    let root = Position::empty(board);
    let mut rows: Vec<RunRow> = Vec::new();
    for &p in threads {
        let planned = crate::plan::plan(root, &PlanOptions { threads: p, ..opts.clone() })?;
        let sub = dir.join(format!("{board}-p{p}"));
        crate::report::write_plan(&planned, &sub.join("plan.json"), &sub).map_err(RunError::from)?;
        // Every repeat runs the same checked plan; only the median run is written and compared.
        let checked = planned.plan.check().map_err(RunError::from)?;
        let mut all: Vec<_> = (0..repeats.max(1)).map(|_| execute(&checked, p as usize, false, None)).collect();
        all.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let run = all.swap_remove(all.len() / 2);
        let info = crate::exec::TraceInfo {
            board: Some(board.to_string()),
            threads: Some(p),
            value: Some(run.value),
            tasks: false,
            plan: Some(planned.plan.fingerprint()),
        };
        crate::exec::write_trace(&sub.join("trace.csv"), &run.trace, &info).map_err(RunError::from)?;
        let detail = crate::report::compare(&planned.plan, &run.trace, &info, Some(p)).map_err(RunError::from)?;
        crate::report::write_compare(&detail, &sub).map_err(RunError::from)?;
        // The plan's speedup chart again, with the median run on it, as dab run draws it.
        let measured = crate::report::MeasuredRun { threads: p, seconds: detail.comparison.actual_seconds };
        crate::report::write_speedup(&planned.plan, &sub, &[measured]).map_err(RunError::from)?;
        let speedup = rows.first().map(|r| r.comparison.actual_seconds / detail.comparison.actual_seconds);
        rows.push(RunRow { comparison: detail.comparison, plan: planned.candidates[planned.chosen].label(), speedup });
    }
    Ok(rows)
}

/// Runs every candidate of the plan for `board` on `threads` threads, `repeats` times each
/// (median time).
pub fn candidates(
    board: Board,
    threads: u32,
    opts: &PlanOptions,
    repeats: usize,
) -> Result<Vec<CandidateRow>, RunBenchError> {
    let root = Position::empty(board);
    let opts = PlanOptions { threads, ..opts.clone() };
    let planned = crate::plan::plan(root, &opts)?;
    let mut rows = Vec::new();
    for (i, c) in planned.candidates.iter().enumerate() {
        let plan = crate::plan::plan_for(c, &opts).map_err(|e| RunBenchError::Run(e.into()))?;
        let checked = plan.check().map_err(|e| RunBenchError::Run(e.into()))?;
        let mut times: Vec<f64> =
            (0..repeats.max(1)).map(|_| execute(&checked, threads as usize, false, None).seconds).collect();
        let actual_seconds = crate::support::median(&mut times);
        rows.push(CandidateRow {
            board: board.to_string(),
            threads,
            candidate: c.label(),
            jobs: c.candidate.jobs,
            predicted_seconds: c.candidate.predicted_seconds,
            actual_seconds,
            chosen: i == planned.chosen,
        });
    }
    Ok(rows)
}
