//! `dab compare`: a plan's prediction against a run's trace (of its jobs, or for a plan of
//! cluster tasks, of its tasks as `dab cluster-trace` writes it). Exit status 0: compared; 1: the
//! trace and the plan do not agree (the trace names another plan's fingerprint, another board,
//! jobs missing or unknown), and nothing is written; 2: a usage error or a file that cannot be
//! read. A trace written before traces named their plan is compared unchecked, with a note.

use std::path::PathBuf;

use clap::Args;

use dab::exec::read_trace_with;
use dab::plan::Plan;
use dab::report::{compare_tasks, compare_with};

use super::{CliResult, Failed};

#[derive(Args)]
pub struct CompareArgs {
    /// The plan that was run (as written by dab plan or dab run; '-' for standard input).
    #[arg(long, value_name = "FILE")]
    pub plan: PathBuf,
    /// The run's trace (trace.csv of dab run, or dab cluster-trace's; '-' for standard input).
    #[arg(long, value_name = "FILE")]
    pub trace: PathBuf,
    /// Threads of the run, or nodes for a trace of cluster tasks (default: as the trace says).
    #[arg(long, value_name = "P")]
    pub threads: Option<u32>,
    /// Folder for compare.svg/.png (default: the trace's folder).
    #[arg(long, value_name = "DIR", value_parser = super::out_dir)]
    pub out: Option<PathBuf>,
    /// Seconds of dispatch latency added to every predicted job (default 0), or for a trace of
    /// cluster tasks, a task's in place of the plan's (default: the plan's); from dab
    /// cluster-trace.
    #[arg(long, value_name = "SECONDS")]
    pub overhead: Option<f64>,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: CompareArgs) -> CliResult {
    // Checked as every command checks it, so that 0 is a usage error (2), not a trace found to
    // disagree with its plan (1).
    if let Some(p) = args.threads {
        super::planned_threads(Some(p as usize))?;
    }
    let overhead = args.overhead.unwrap_or(0.0);
    let ticks = super::nanoseconds("--overhead", overhead)?;
    // Loading checks the plan's fields (and its format); the trace is checked against its
    // graph where there is one (a plan whose jobs are no graph is compare's error to name).
    if args.plan.as_os_str() == "-" && args.trace.as_os_str() == "-" {
        return Err("--plan and --trace cannot both be '-' (standard input is read once)".into());
    }
    let plan = Plan::load(&args.plan)?;
    // A trace of the plan's cluster tasks (unit=task) is checked against the task graph; a
    // trace of another plan against none, so that the comparison refuses it for what it is.
    let fingerprint = plan.fingerprint();
    let (trace, info) = read_trace_with(&args.trace, |info| {
        if info.plan.as_ref().is_some_and(|p| *p != fingerprint) {
            return None;
        }
        if info.tasks { plan.task_graph(None) } else { plan.graph() }.ok()
    })?;
    let detail = if info.tasks {
        compare_tasks(&plan, &trace, &info, args.threads, args.overhead)
    } else {
        compare_with(&plan, &trace, &info, args.threads, ticks)
    }
    .map_err(|e| Failed(format!("plan '{}', trace '{}': {e}", args.plan.display(), args.trace.display())))?;
    // Said once compared: a refusal is the error alone.
    if info.plan.is_none() {
        super::note!(
            "note: trace '{}' does not name the plan its run ran (written before traces did): compared with plan \
             '{}' ({fingerprint}) unchecked",
            args.trace.display(),
            args.plan.display()
        );
    }
    let dir = args.out.unwrap_or_else(|| super::folder_of(&args.trace));
    let files = dab::report::write_compare(&detail, &dir)?;
    if args.json {
        println!("{}", serde_json::to_string(&detail.to_json())?);
    } else {
        println!("{}", detail.comparison);
    }
    super::wrote(&dir, &files);
    Ok(())
}
