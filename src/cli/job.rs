//! `dab job`: one cluster task. Computes one job of a plan from the store files of the jobs it
//! needs and writes its own file (or, with `--value`, records the root's value once every job
//! is done). The store is opened shared: tasks run side by side, never beside a `dab run`.

use std::path::{Path, PathBuf};

use clap::Args;

use dab::exec;
use dab::plan::{Plan, PlanError, ReadyPlan};
use dab::store::Store;

use super::CliResult;

#[derive(Args)]
pub struct JobArgs {
    /// The plan (as written by dab plan; '-' for standard input).
    #[arg(long, value_name = "FILE")]
    pub plan: PathBuf,
    /// The store base folder, shared by every task.
    #[arg(long, value_name = "DIR")]
    pub store: PathBuf,
    /// The plan job to compute (`<key>` or `<key>_<piece>`).
    #[arg(long, value_name = "NAME", required_unless_present = "value", conflicts_with = "value")]
    pub job: Option<String>,
    /// Instead of a job: write the root's value and every move's, as JSON, to FILE (the store
    /// must hold the root job and the jobs it needs).
    #[arg(long, value_name = "FILE")]
    pub value: Option<PathBuf>,
}

/// Loads and checks a plan, naming its file in any error.
pub fn load_checked(path: &Path) -> Result<(Plan, ReadyPlan), PlanError> {
    let in_file = |e: PlanError| PlanError::InFile { path: path.into(), source: Box::new(e) };
    let plan = Plan::load(path)?;
    let checked = plan.check().map_err(in_file)?;
    Ok((plan, checked))
}

pub fn run(args: JobArgs) -> CliResult {
    let (plan, checked) = load_checked(&args.plan)?;
    let store = Store::open_shared(&args.store, &checked.space)?;
    if let Some(path) = &args.value {
        let (value, moves) = exec::stored_root(&checked, &store)?;
        let board = checked.space.board();
        let moves: Vec<_> =
            moves.iter().map(|m| dab::game::MoveReport::new(board, m.line, m.boxes, m.value as i32)).collect();
        let best = dab::game::best_moves(&moves, value as i32);
        let json =
            serde_json::json!({"board": plan.board, "root": plan.root, "value": value, "moves": moves, "best": best});
        dab::support::write_atomic(path, format!("{json}\n").as_bytes())
            .map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
        println!("value of {}: {value} (written to {})", plan.board, path.display());
        return Ok(());
    }
    let name = args.job.as_deref().expect("clap requires --job without --value");
    let Some(job) = checked.graph.jobs.iter().position(|j| j.name == name) else {
        let first = checked.graph.jobs.first().map_or("", |j| j.name.as_str());
        return Err(format!(
            "plan '{}' has no job '{name}' (its {} jobs are named like '{first}')",
            args.plan.display(),
            checked.graph.len()
        )
        .into());
    };
    let run = exec::run_job(&checked, &store, job)?;
    let what = if run.computed { "computed" } else { "already in the store:" };
    println!("{what} {name} ({} positions) in {:.3} s", run.positions, run.seconds);
    Ok(())
}
