//! `dab scale`: run a position at several thread counts and set the measured speedup against
//! the prediction (`scale.csv` and the chart).

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use dab::report::ScaleRow;
use dab::sched::{Procs, ProcsList};

use super::plan::PlanCommon;
use super::{CliResult, MAX_REPEATS, PositionArgs};

#[derive(Args)]
pub struct ScaleArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Thread counts, as 1,2,4,8 or 1..16 (default: the powers of two up to RAYON_NUM_THREADS,
    /// else all cores, and that count itself).
    #[arg(long, value_name = "LIST")]
    pub sweep: Option<String>,
    #[command(flatten)]
    pub not_threads: super::SweepNotThreads,
    /// Runs at each thread count; the median is kept.
    #[arg(long, value_name = "K", default_value_t = 3)]
    pub repeats: usize,
    /// Cost model from `dab calibrate` (default: sims/cost-model.json, or
    /// sims/cost-model-vbmi.json where the kernel takes AVX-512 VBMI; the model built into dab
    /// for that kernel where there is none).
    #[arg(long, value_name = "FILE")]
    pub cost: Option<PathBuf>,
    /// Use the cost model as it is, without probing this machine first (by default the plans
    /// are made from a probe, and each run is predicted from another taken just before it).
    #[arg(long)]
    pub no_probe: bool,
    /// Report folder (default: reports/runs/scale/<board>).
    #[arg(long, value_name = "DIR", value_parser = super::out_dir)]
    pub out: Option<PathBuf>,
    /// Print the rows as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `--json` prints.
#[derive(Serialize)]
struct Output<'a> {
    board: &'a str,
    rows: &'a [ScaleRow],
}

pub fn run(args: ScaleArgs) -> CliResult {
    let cores = dab::support::hardware_threads();
    args.not_threads.check("scale")?;
    if args.repeats == 0 || args.repeats > MAX_REPEATS {
        return Err(format!("--repeats {}: give 1 to {MAX_REPEATS} runs at each thread count", args.repeats).into());
    }
    let threads = match &args.sweep {
        Some(text) => thread_list(text)?,
        None => dab::scale::default_threads(super::default_threads()?),
    };
    let root = args.position.position()?;
    // The planner's options as `dab plan` makes them; the thread count is set per run.
    let common = PlanCommon {
        threads: Some(1),
        mem_limit: None,
        cost: args.cost.clone(),
        groups: None,
        overhead: 0.0,
        split: None,
        no_probe: args.no_probe,
        machine_memory: None,
    };
    let opts = common.options(false)?;
    // Each run is predicted from a probe taken just before it, as `dab run` predicts.
    let probe_threads = opts.model.probe.threads as usize;
    let mut probe = || dab::calibrate::probe(probe_threads).one_thread_seconds;
    let probe: Option<&mut dyn FnMut() -> f64> = if args.no_probe { None } else { Some(&mut probe) };
    let rows = dab::scale::scale(root, &threads, args.repeats, &opts, probe, &mut |m| super::note!("{m}"))?;
    let board = root.board.to_string();
    let name = if root.drawn.is_empty() { board.clone() } else { format!("{board}-position") };
    let dir = args.out.unwrap_or_else(|| super::runs_path("scale").join(name));
    let files = dab::report::write_scale(&rows, &board, cores, args.repeats, &dir)?;
    if args.json {
        println!("{}", serde_json::to_string(&Output { board: &board, rows: &rows })?);
    } else {
        print_rows(&rows);
    }
    super::wrote(&dir, &files);
    Ok(())
}

/// `--sweep`: a processor list of counts only (no `unlimited`), as one line naming it.
fn thread_list(text: &str) -> Result<Vec<usize>, String> {
    let bad = || format!("--sweep '{text}' is not a list of thread counts >= 1 (e.g. 1,2,4,8 or 1..16)");
    let ProcsList(list) = text.parse().map_err(|_| bad())?;
    list.into_iter()
        .map(|p| match p {
            Procs::Limited(n) => super::run_threads(n as usize).map(|()| n as usize),
            Procs::Unlimited => Err(bad()),
        })
        .collect()
}

fn print_rows(rows: &[ScaleRow]) {
    println!(
        "{:>7} {:>11} {:>9}  {:<30} {:>17} {:>14} {:>10}",
        "threads",
        "predicted s",
        "actual s",
        "actual against predicted",
        "predicted speedup",
        "actual speedup",
        "efficiency"
    );
    for r in rows {
        println!(
            "{:>7} {:>11.3} {:>9.3}  {:<30} {:>17.2} {:>14.2} {:>10.2}",
            r.threads,
            r.predicted_seconds,
            r.actual_seconds,
            format!("actual {} the prediction", dab::report::chart::times(r.actual_over_predicted())),
            r.predicted_speedup,
            r.actual_speedup,
            r.efficiency
        );
    }
}
