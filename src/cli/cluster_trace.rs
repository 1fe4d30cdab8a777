//! `dab cluster-trace`: Slurm's record of a run (the jobcomp/filetxt log or sacct output) as
//! a trace for `dab compare`, and the per-job (for a plan of cluster tasks, per-task) dispatch
//! overhead fitted from it.

use std::path::PathBuf;

use clap::Args;

use dab::cluster::trace::{self, Converted};
use dab::exec::{TraceInfo, write_trace};
use dab::plan::Plan;

use super::CliResult;

#[derive(Args)]
pub struct ClusterTraceArgs {
    /// The plan that was run ('-' for standard input).
    #[arg(long, value_name = "FILE")]
    pub plan: PathBuf,
    /// Slurm's jobcomp/filetxt log (JobCompLoc; '-' for standard input).
    #[arg(long, value_name = "FILE", required_unless_present = "sacct", conflicts_with = "sacct")]
    pub jobcomp: Option<PathBuf>,
    /// Output of `sacct --parsable2 --format=JobID,JobName,Submit,Start,End,State,NodeList`.
    #[arg(long, value_name = "FILE")]
    pub sacct: Option<PathBuf>,
    /// Jobs each node runs at once (its CPUs): Slurm's times are whole seconds, so jobs of the
    /// same second are laid on at most this many lanes (default: as many as they need; for a
    /// plan of cluster tasks, 1: a task takes its node).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub slots: Option<u32>,
    /// Where to write the trace.
    #[arg(long, short, value_name = "FILE")]
    pub output: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: ClusterTraceArgs) -> CliResult {
    let plan = Plan::load(&args.plan)?;
    let (path, parse): (&PathBuf, fn(&_, &_) -> _) = match (&args.jobcomp, &args.sacct) {
        (Some(p), _) => (p, trace::parse_jobcomp),
        (None, Some(p)) => (p, trace::parse_sacct),
        (None, None) => unreachable!("clap requires one"),
    };
    let (most, why) = trace::log_bound(&plan);
    let text = dab::support::read_text_at_most(path, most, &why)
        .map_err(|source| trace::ClusterTraceError::Read { path: path.clone(), source })?;
    let records = parse(path, &text)?;
    let Converted { tasks, rows, threads, ignored, missing, overhead } =
        trace::convert(&plan, &records, args.slots.map(|n| n as usize), path)?;
    // The trace names the plan its records were matched with: dab compare refuses another.
    let plan_fingerprint = Some(plan.fingerprint());
    let info = TraceInfo {
        board: Some(plan.board.clone()),
        threads: Some(threads),
        value: None,
        tasks,
        plan: plan_fingerprint,
    };
    write_trace(&args.output, &rows, &info)?;
    let unit = if tasks { "task" } else { "job" };
    if args.json {
        let json = serde_json::json!({"unit": unit, "job_count": rows.len(), "threads": threads, "ignored": ignored,
            "missing": missing, "overhead": overhead, "trace": args.output});
        println!("{json}");
        return Ok(());
    }
    let lanes = if tasks { "node(s)" } else { "lane(s)" };
    println!(
        "{} on {threads} {lanes} written to {} ({ignored} other records ignored)",
        dab::support::count_of(rows.len() as u64, unit),
        args.output.display()
    );
    if let Some(first) = missing.first() {
        println!(
            "{} plan {unit}(s) have no completed record (in the store before the run?), the first '{first}'",
            missing.len()
        );
    }
    println!(
        "dispatch: a {unit} with a free slot started a median {:.1} s after it was ready ({})",
        overhead.median_wait,
        dab::support::count_of(overhead.jobs as u64, unit)
    );
    match (overhead.seconds, overhead.ticks) {
        (Some(secs), Some(ticks)) => println!(
            "fitted overhead: {secs:.3} s a job ({ticks} ticks) makes the simulated makespan the run's; \
             use dab plan --overhead {secs:.3}, dab compare --overhead {secs:.3}, dab sim --overhead {ticks}"
        ),
        (Some(secs), None) => println!(
            "fitted overhead: {secs:.3} s a task makes the simulated cluster run end when this one did; \
             use dab plan --nodes N --overhead {secs:.3}, dab compare --overhead {secs:.3}"
        ),
        _ => {}
    }
    Ok(())
}
