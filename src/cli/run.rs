//! `dab run`: plan (or load a plan), execute it on a rayon pool, write the trace, and compare
//! the prediction with what happened.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use dab::plan::Plan;
use dab::position::Position;

use super::plan::{PlanCommon, print_choice};
use super::solve::Progress;
use super::{CliResult, PositionArgs};

/// The board `dab run` plans, runs and compares without arguments.
pub const DEFAULT_BOARD: &str = "3x4";

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Run this plan instead of making one.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    #[command(flatten)]
    pub common: PlanCommon,
    /// Report folder (default: reports/<board>).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Durable store: every job's values are written here, and a run on an existing store
    /// resumes, skipping the jobs it holds.
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    #[command(flatten)]
    pub book: super::solve::BookArgs,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: RunArgs) -> CliResult {
    let named = args.position.board.is_some() || args.position.position.is_some();
    let (plan, dir) = match &args.plan {
        Some(path) => {
            let plan = Plan::load(path)?;
            if named {
                let root = args.position.position()?;
                if root.board.to_string() != plan.board || root.to_line_string() != plan.root {
                    return Err(format!(
                        "plan '{}' is for {} (root {}), not this position",
                        path.display(),
                        plan.board,
                        plan.root
                    )
                    .into());
                }
            }
            let empty = !plan.root.contains('1');
            let dir = args.out.clone().unwrap_or_else(|| dab::runner::default_dir(&plan.board, empty));
            (plan, dir)
        }
        None => {
            let root = if named { args.position.position()? } else { Position::empty(DEFAULT_BOARD.parse()?) };
            let planned = dab::planner::plan(root, &args.common.options()?)?;
            if !args.json {
                print_choice(&planned);
            }
            let dir = args
                .out
                .clone()
                .unwrap_or_else(|| dab::runner::default_dir(&planned.plan.board, root.drawn.is_empty()));
            dab::runner::write_plan(&planned, &dir.join("plan.json"), &dir)?;
            (planned.plan, dir)
        }
    };
    let threads = match args.common.threads {
        Some(_) => super::threads(args.common.threads)?,
        None => plan.threads as usize,
    };
    let bar = Progress::new(!args.quiet && std::io::stderr().is_terminal());
    let progress = |done: u64, total: u64| bar.update(done, total);
    let report = |m: &str| eprintln!("{m}");
    let (run, detail, files) = dab::runner::run(
        &plan,
        threads,
        &dir,
        args.book.store(args.store.as_deref())?,
        Some(&progress),
        Some(&report),
    )?;
    if run.resumed > 0 {
        eprintln!("resumed: {} of {} jobs were already in the store", run.resumed, plan.jobs.len());
    }
    bar.finish();
    match (&detail, args.json) {
        (Some(d), true) => println!("{}", serde_json::to_string(&d.comparison)?),
        (None, true) => println!(
            "{}",
            serde_json::json!({"board": plan.board, "value": run.value, "threads": threads, "actual_seconds": run.seconds})
        ),
        (d, false) => {
            println!(
                "value of {}: {} ({} positions, {:.3} s on {threads} thread(s))",
                plan.board, run.value, run.positions, run.seconds
            );
            if let Some(d) = d {
                println!("{}", d.comparison);
            }
        }
    }
    eprintln!("wrote {} files in {}", files.len(), dir.display());
    Ok(())
}
