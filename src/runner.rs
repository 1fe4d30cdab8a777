//! Plan, run, compare: the reports of `dab plan`, `dab run` and `dab compare`, written into one
//! folder: `plan.json`, `speedup` (the chosen candidate's predicted speedup), `candidates`
//! (every candidate against the fastest one-thread one), `trace.csv` and `compare` (predicted
//! and actual schedules side by side, and every job's predicted against actual time).

use std::path::{Path, PathBuf};

use crate::chart::{self, ChartError, ComparePoint, GanttBar, SpeedupPoint, SpeedupSeries};
use crate::compare::{self, CompareError, Detail, TraceInfo};
use crate::disk;
use crate::exec::{ExecOptions, Execution, execute_with};
use crate::plan::{Plan, PlanError};
use crate::planner::{Evaluated, Planned};
use crate::store::{Store, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error(transparent)]
    Compare(#[from] CompareError),
    #[error(transparent)]
    Chart(#[from] ChartError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Exec(#[from] crate::exec::ExecError),
    #[error("--mem-limit needs --store: values that do not fit in memory are dropped and read back from the store")]
    MemLimitWithoutStore,
}

/// The report folder of a root position: `reports/<board>` for an empty board.
pub fn default_dir(plan_board: &str, root_is_empty: bool) -> PathBuf {
    PathBuf::from("reports").join(if root_is_empty { plan_board.to_string() } else { format!("{plan_board}-position") })
}

/// Speedup points of a candidate relative to `t1` seconds on one processor.
fn speedup_series(c: &Evaluated, t1: f64, label: String) -> SpeedupSeries {
    SpeedupSeries {
        label,
        ceiling: c.ceiling,
        points: c
            .predictions
            .iter()
            .flatten()
            .map(|p| SpeedupPoint {
                procs: p.procs,
                speedup: t1 / p.makespan_seconds,
                bound: (p.procs as f64).min(c.ceiling),
            })
            .collect(),
    }
}

/// Writes the plan and its charts into `dir`; returns the files written.
pub fn write_plan(planned: &Planned, plan_path: &Path, dir: &Path) -> Result<Vec<PathBuf>, RunError> {
    planned.plan.save(plan_path)?;
    let chosen = &planned.candidates[planned.chosen];
    let t1 =
        |c: &Evaluated| c.predictions.first().and_then(|p| p.as_ref()).map_or(f64::INFINITY, |p| p.makespan_seconds);
    let board = &planned.plan.board;
    chart::speedup(
        &dir.join("speedup"),
        &format!("{board}: predicted speedup of the plan ({})", chosen.label()),
        "threads",
        &[speedup_series(chosen, t1(chosen), chosen.label())],
    )?;
    let fastest = planned.candidates.iter().map(t1).fold(f64::INFINITY, f64::min);
    let series: Vec<SpeedupSeries> = planned.candidates.iter().map(|c| speedup_series(c, fastest, c.label())).collect();
    chart::speedup(
        &dir.join("candidates"),
        &format!("{board}: candidates, predicted speedup over the fastest on one thread"),
        "threads",
        &series,
    )?;
    let mut files = vec![plan_path.to_path_buf()];
    for name in ["speedup", "candidates"] {
        files.extend(["svg", "png"].map(|e| dir.join(format!("{name}.{e}"))));
    }
    Ok(files)
}

/// What [`run`] did.
pub struct Ran {
    pub run: Execution,
    /// The comparison with the plan (none for a resumed run).
    pub detail: Option<Detail>,
    /// The store's predicted peak bytes, from the compared schedule (with a store).
    pub predicted_disk: Option<u64>,
    /// Files written into the report folder.
    pub files: Vec<PathBuf>,
}

/// Runs a plan on `threads` threads, writes `trace.csv` into `dir`, and compares. With a
/// store (and its opening book's line limit), jobs it holds are not run again and every other
/// job is written to it; a resumed run is not compared (its trace misses the jobs it skipped).
pub fn run(
    plan: &Plan,
    threads: usize,
    dir: &Path,
    store: Option<(&Path, Option<usize>)>,
    progress: Option<&(dyn Fn(u64, u64) + Sync)>,
    report: Option<&(dyn Fn(&str) + Sync)>,
) -> Result<Ran, RunError> {
    let checked = plan.check()?;
    if plan.mem_limit.is_some() && store.is_none() {
        return Err(RunError::MemLimitWithoutStore);
    }
    let keep_lines = store.and_then(|(_, k)| k);
    let store = store.map(|(base, _)| Store::open(base, &checked)).transpose()?;
    let mem_limit = plan.mem_limit;
    let opts =
        ExecOptions { threads, progress, store: store.as_ref(), report, keep_lines, mem_limit, ..Default::default() };
    let run = execute_with(&checked, &opts)?;
    let info = TraceInfo { board: Some(plan.board.clone()), threads: Some(threads as u32), value: Some(run.value) };
    let trace_path = dir.join("trace.csv");
    compare::write_trace(&trace_path, &run.trace, &info)?;
    let mut files = vec![trace_path];
    let detail = if plan.unit == "ns" && run.resumed == 0 {
        let detail = compare::compare(plan, &run.trace, &info, Some(threads as u32))?;
        files.extend(write_compare(plan, &detail, dir)?);
        Some(detail)
    } else {
        None
    };
    let predicted_disk = match &detail {
        Some(_) if store.is_some() => Some(disk::predict(plan, &checked, threads as u32, keep_lines)?.peak),
        _ => None,
    };
    Ok(Ran { run, detail, predicted_disk, files })
}

/// Writes `compare.svg` and `compare.png`.
pub fn write_compare(plan: &Plan, d: &Detail, dir: &Path) -> Result<Vec<PathBuf>, RunError> {
    let micros = |s: f64| (s * 1e6).round() as u64;
    let bars = |spans: &[(usize, u32, f64, f64)]| -> Vec<GanttBar> {
        spans
            .iter()
            .map(|&(job, proc, start, end)| GanttBar {
                proc,
                start: micros(start),
                end: micros(end),
                label: plan.jobs[job].name.clone(),
            })
            .collect()
    };
    let points: Vec<ComparePoint> =
        d.jobs.iter().map(|&(p, a)| ComparePoint { predicted: p * 1e6, actual: a * 1e6 }).collect();
    let c = &d.comparison;
    chart::compare(
        &dir.join("compare"),
        &format!(
            "{} on {} thread(s): predicted {:.3} s, actual {:.3} s ({:.1} % off); per-job median error {:.1} %",
            c.board,
            c.threads,
            c.predicted_seconds,
            c.actual_seconds,
            100.0 * c.error,
            100.0 * c.job_error_median
        ),
        "µs",
        d.actual.iter().map(|a| a.1 + 1).max().unwrap_or(1).max(c.threads),
        &bars(&d.predicted),
        &bars(&d.actual),
        &points,
    )?;
    Ok(["svg", "png"].map(|e| dir.join(format!("compare.{e}"))).to_vec())
}
