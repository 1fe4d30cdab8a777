//! `dab job`: one cluster task. Computes one job of a plan from the store files of the jobs it
//! needs and writes its own file; with `--task`, every job of one of a two-level plan's tasks
//! on all the node's threads, leaving its done marker and removing the files no task still to
//! run reads; with `--value`, records the root's value once every job is done.
//! The store is opened shared: tasks run side by side, never beside a `dab run`.

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
    #[arg(long, value_name = "NAME", required_unless_present_any = ["value", "task"], conflicts_with_all = ["value", "task"])]
    pub job: Option<String>,
    /// The cluster task of a two-level plan (from `dab plan --nodes`) to run: every job of it,
    /// on `--threads` threads.
    #[arg(long, value_name = "NAME", conflicts_with = "value")]
    pub task: Option<String>,
    /// Threads for `--task` (default: RAYON_NUM_THREADS, else all cores: the node's).
    #[arg(long, value_name = "P", requires = "task")]
    pub threads: Option<usize>,
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
        let root = checked.space.root;
        let moves: Vec<_> =
            moves.iter().map(|m| dab::game::MoveReport::new(root, m.line, m.boxes, m.value as i32)).collect();
        let best = dab::game::best_moves(&moves, value as i32);
        let json =
            serde_json::json!({"board": plan.board, "root": plan.root, "value": value, "moves": moves, "best": best});
        dab::support::write_atomic(path, format!("{json}\n").as_bytes())
            .map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
        println!("value of {}: {value} (written to {})", plan.board, path.display());
        return Ok(());
    }
    if let Some(name) = &args.task {
        return run_task(&args, &plan, &checked, &store, name);
    }
    let name = args.job.as_deref().expect("clap requires --job without --value or --task");
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

/// `dab job --task NAME`: every job of one cluster task on the node's threads.
fn run_task(args: &JobArgs, plan: &Plan, checked: &ReadyPlan, store: &Store, name: &str) -> CliResult {
    let tasks = plan.checked_tasks(checked).map_err(|e| format!("plan '{}': {e}", args.plan.display()))?;
    let Some(task) = tasks.iter().find(|t| t.name == name) else {
        let which = if tasks.is_empty() {
            "no cluster tasks (make one with dab plan --nodes N)".to_string()
        } else {
            format!(
                "no task '{}' (its {} tasks are t0 to t{})",
                dab::support::one_line(name),
                tasks.len(),
                tasks.len() - 1
            )
        };
        return Err(format!("plan '{}' has {which}", args.plan.display()).into());
    };
    let threads = super::threads(args.threads)?;
    let t = tasks.iter().position(|x| x.name == task.name).expect("found above");
    // A damaged file of the task's is computed again, and said so, as dab run says it.
    let report = |m: &str| super::note!("{m}");
    let opts = exec::ExecOptions { threads, store: Some(store), report: Some(&report), ..Default::default() };
    let book = plan.cluster.as_ref().and_then(|c| c.keep_lines);
    match exec::run_task(checked, &tasks, t, book, &opts)? {
        exec::TaskOutcome::AlreadyDone { marker } => println!(
            "task {name}: already done (its marker '{}' is in the store); nothing run",
            store.dir().join(dab::store::DONE_FOLDER).join(marker).display()
        ),
        exec::TaskOutcome::Ran { run, removed } => println!(
            "task {name}: {} computed, {} already in the store, on {} in {:.3} s; removed {} that no task still to run reads",
            dab::support::count_of(run.trace.len() as u64, "job"),
            run.resumed,
            dab::support::count_of(threads as u64, "thread"),
            run.seconds,
            dab::support::count_of(removed.len() as u64, "file"),
        ),
    }
    Ok(())
}
