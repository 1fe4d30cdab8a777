//! The pipeline of `dab run` (the top layer): a plan checked, executed on the rayon pool
//! (with a store, resumed from what it holds), its trace written (naming the plan by its
//! fingerprint), compared with the prediction and charted, into one report folder: `plan.json`,
//! `speedup` (drawn again after the run with its measured speedup), `candidates`, `trace.csv`
//! and `compare`; under a last-move penalty, the values are that game's (the plan
//! and its prediction do not depend on it). Uses every layer below it; nothing uses it but the
//! binary.

use std::path::{Path, PathBuf};

use crate::exec::{ExecError, ExecOptions, Execution, TraceError, TraceInfo, execute_with, write_trace};
use crate::game::{Penalty, PenaltyError};
use crate::plan::{Plan, PlanError, predict_store};
use crate::report::{CompareError, Detail, MeasuredRun, WriteError, compare, write_compare, write_speedup};
use crate::sched::SimError;
use crate::store::{Store, StoreError};
use crate::support::Setting;

/// Why [`run`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The plan failed its check ([`Plan::check`]).
    #[error("{0}")]
    Plan(#[from] PlanError),
    /// The last-move penalty does not fit the values of the plan's root.
    #[error("{0}")]
    Penalty(#[from] PenaltyError),
    /// The trace could not be compared with the plan.
    #[error("{0}")]
    Compare(#[from] CompareError),
    /// The comparison chart could not be written.
    #[error("{0}")]
    Write(#[from] WriteError),
    /// `trace.csv` could not be written.
    #[error("{0}")]
    Trace(#[from] TraceError),
    /// The plan's schedule could not be simulated to predict the store's peak.
    #[error("the plan: {0}")]
    Simulation(#[from] SimError),
    /// The store could not be opened.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The execution failed: a store file, or a job that does not fit the memory limit.
    #[error("{0}")]
    Exec(#[from] ExecError),
    /// The plan has a memory limit but no store was given to drop values to.
    #[error("a memory limit needs a store: values that do not fit in memory are dropped and read back from the store")]
    MemLimitWithoutStore,
}

impl RunError {
    /// The setting refused, if one was (a wrapped error says its own).
    pub fn setting(&self) -> Option<Setting> {
        match self {
            RunError::MemLimitWithoutStore => Some(Setting::MemLimit),
            RunError::Plan(_)
            | RunError::Penalty(_)
            | RunError::Compare(_)
            | RunError::Write(_)
            | RunError::Trace(_)
            | RunError::Simulation(_)
            | RunError::Store(_)
            | RunError::Exec(_) => None,
        }
    }
}

/// The report folder of a root position: `reports/runs/<board>` for an empty board
/// ([`crate::support::RUNS_DIR`]).
pub fn default_dir(plan_board: &str, root_is_empty: bool) -> PathBuf {
    PathBuf::from(crate::support::RUNS_DIR).join(if root_is_empty {
        plan_board.to_string()
    } else {
        format!("{plan_board}-position")
    })
}

/// What [`run`] did.
pub struct RunOutcome {
    /// The execution: the root's value, the trace and the counts.
    pub run: Execution,
    /// The comparison with the plan (none for a resumed run).
    pub detail: Option<Detail>,
    /// The store's predicted peak bytes, from the compared schedule (with a store).
    pub predicted_disk: Option<u64>,
    /// Files written into the report folder.
    pub files: Vec<PathBuf>,
    /// What the process holds besides values on the run's threads (program, tables, jobs,
    /// threads), as the memory limit counts it.
    pub process_bytes: u64,
    /// The process's peak resident set, as the system measured it (None where it cannot say).
    pub peak_rss_bytes: Option<u64>,
}

/// Runs a plan on `threads` threads, writes `trace.csv` into `dir`, and compares. With a
/// store (and its opening book's line limit), jobs it holds are not run again and every other
/// job is written to it (in the folder of the `penalty`'s values); a resumed run is not
/// compared (its trace misses the jobs it skipped).
pub fn run(
    plan: &Plan,
    threads: usize,
    dir: &Path,
    store: Option<(&Path, Option<usize>)>,
    penalty: Penalty,
    progress: Option<&(dyn Fn(u64, u64) + Sync)>,
    report: Option<&(dyn Fn(&str) + Sync)>,
) -> Result<RunOutcome, RunError> {
    let mut checked = plan.check()?;
    checked.space.penalty = penalty.check(checked.space.root)?;
    if plan.mem_limit.is_some() && store.is_none() {
        return Err(RunError::MemLimitWithoutStore);
    }
    let keep_lines = store.and_then(|(_, k)| k);
    let store = store.map(|(base, _)| Store::open(base, &checked.space)).transpose()?;
    // The limit is the whole process's; the executor counts the values, so it gets what the
    // program, tables and threads leave.
    let fixed = checked.fixed_bytes();
    let process_bytes = crate::sched::process_bytes(fixed, threads as u32);
    let mem_limit = crate::sched::values_limit(plan.mem_limit, fixed, threads as u32);
    // Whatever planning freed leaves the process before the values arrive.
    crate::support::trim_freed_memory();
    let opts =
        ExecOptions { threads, progress, store: store.as_ref(), report, keep_lines, mem_limit, ..Default::default() };
    let run = execute_with(&checked, &opts)?;
    let info = TraceInfo {
        board: Some(plan.board.clone()),
        threads: Some(threads as u32),
        value: Some(run.value),
        tasks: false,
        plan: Some(plan.fingerprint()),
    };
    let trace_path = dir.join("trace.csv");
    write_trace(&trace_path, &run.trace, &info)?;
    let mut files = vec![trace_path];
    let detail = if plan.unit == "ns" && run.resumed == 0 {
        let detail = compare(plan, &run.trace, &info, Some(threads as u32))?;
        files.extend(write_compare(&detail, dir)?);
        // The plan's speedup chart again, with this run's measured speedup on it.
        let measured = MeasuredRun { threads: threads as u32, seconds: detail.comparison.actual_seconds };
        files.extend(write_speedup(plan, dir, &[measured])?);
        Some(detail)
    } else {
        None
    };
    let predicted_disk = match &detail {
        Some(_) if store.is_some() => Some(predict_store(plan, &checked, threads as u32, keep_lines)?.peak),
        _ => None,
    };
    let peak_rss_bytes = crate::support::peak_rss_bytes();
    Ok(RunOutcome { run, detail, predicted_disk, files, process_bytes, peak_rss_bytes })
}
