//! `dab run`: plan (or load a plan), execute it on a rayon pool, write the trace, and compare
//! the prediction with what happened.

use std::path::{Path, PathBuf};

use clap::Args;

use dab::pipeline::RunOutcome;
use dab::plan::Plan;
use dab::support::human_bytes;

use super::plan::{PlanCommon, print_choice};
use super::solve::Progress;
use super::{CliResult, PositionArgs};

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Run this plan instead of making one ('-' for standard input).
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    #[command(flatten)]
    pub common: PlanCommon,
    /// Report folder (default: reports/runs/<board>).
    #[arg(long, value_name = "DIR", value_parser = super::out_dir)]
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
    #[command(flatten)]
    pub penalty: super::PenaltyArgs,
}

pub fn run(args: RunArgs) -> CliResult {
    // The store's path is checked before the probe and the planning, which take seconds.
    if let Some(store) = args.store.as_deref().filter(|s| s.exists() && !s.is_dir()) {
        return Err(format!("--store '{}' is a file, not a store folder", store.display()).into());
    }
    if args.common.mem_limit.is_some() && args.store.is_none() {
        return Err(dab::pipeline::RunError::MemLimitWithoutStore.into());
    }
    // Threads asked for are checked before any planning; a loaded plan's own count after it.
    let asked = args.common.threads.map(|p| super::threads(Some(p))).transpose()?;
    let (plan, dir, mut files) = match &args.plan {
        Some(path) => loaded_plan(&args, path).map(|(plan, dir)| (plan, dir, Vec::new()))?,
        None => new_plan(&args)?,
    };
    let threads = match asked {
        Some(p) => p,
        None => {
            let p = plan.threads as usize;
            super::run_threads(p).map_err(|e| format!("{e} (give --threads to run the plan on fewer)"))?;
            p
        }
    };
    // A loaded plan made for a bigger machine is refused before it runs out of memory hours in.
    if let Some(path) = &args.plan {
        let memory = args.common.machine_memory.or_else(dab::support::machine_memory_bytes);
        if let Some(memory) = memory
            // A plan that cannot be sized fails its check below, which names what is wrong.
            && let Ok(Some(need)) = plan.past_memory(threads as u32, memory)
        {
            return Err(format!(
                "plan '{}' peaks at {} on {threads} threads (values with the program, tables and threads), past the {} \
                 usable of this machine's {}: run it with --store DIR --mem-limit {}, or plan again here",
                path.display(),
                human_bytes(need),
                human_bytes(dab::plan::usable_memory(memory)),
                human_bytes(memory),
                super::plan::mem_limit_text(dab::plan::usable_memory(memory)),
            )
            .into());
        }
    }
    // The limit is the whole process's: planning here (every candidate simulated, its charts
    // drawn) may already have passed it, which the run cannot undo.
    if let (None, Some(limit), Some(peak)) = (&args.plan, plan.mem_limit, dab::support::peak_rss_bytes())
        && peak > limit
    {
        let least = peak.div_ceil(1_000_000) * 1_000_000;
        return Err(format!(
            "--mem-limit {limit} bytes: planning in this process already held {peak} bytes resident (every candidate \
             simulated, its charts drawn); give at least {least} bytes (the plan is in {}), or run the plan it wrote \
             with --plan, which holds only the run",
            dir.join("plan.json").display()
        )
        .into());
    }
    let predicted = plan.predicted(threads as u32).map(|p| p.makespan_seconds);
    let bar = Progress::predicting(super::progress_shown(), predicted);
    let progress = |done: u64, total: u64| bar.update(done, total);
    let report = |m: &str| super::note!("{m}");
    let outcome = dab::pipeline::run(
        &plan,
        threads,
        &dir,
        args.book.store(args.store.as_deref())?,
        args.penalty.penalty,
        Some(&progress),
        Some(&report),
    )
    .map_err(|e| match (e, &args.plan) {
        // A loaded plan that fails its check is named, as `dab job` and `dab export` name it.
        (dab::pipeline::RunError::Plan(e), Some(path)) => format!("plan '{}': {e}", path.display()).into(),
        (e, _) => Box::<dyn std::error::Error>::from(e),
    })?;
    if outcome.run.resumed > 0 {
        super::note!("resumed: {} of {} jobs were already in the store", outcome.run.resumed, plan.jobs.len());
    }
    bar.finish();
    let penalty = args.penalty.penalty;
    let empty =
        args.store.as_deref().filter(|_| !plan.root.contains('1')).and_then(|s| store_answer(s, &plan, penalty));
    if args.json {
        let mut out = json(&plan, threads, &outcome, args.store.is_some())?;
        if !penalty.is_none() {
            out["penalty"] = penalty.boxes().into();
        }
        // Who must make the next loony move from the empty board: the store's walk where a
        // complete store keeps the values; a run in memory keeps none once read.
        let (next, why) = match &empty {
            Some(a) => (a.next_loony, a.next_loony_left_out.clone()),
            None if plan.root.contains('1') => (None, Some("left out: the run starts from a later position".into())),
            None if args.store.is_some() => {
                (None, Some("left out: the store does not hold the empty board's moves".into()))
            }
            None => (None, Some(NOT_KEPT.into())),
        };
        out["next_loony"] = serde_json::to_value(next)?;
        out["next_loony_left_out"] = why.into();
        if let Some(a) = &empty {
            out["store_answer"] = serde_json::json!({
                "value": a.value,
                "next_loony": a.next_loony,
                "next_loony_left_out": a.next_loony_left_out,
                "seconds": a.seconds,
            });
        }
        println!("{out}");
    } else {
        if !penalty.is_none() {
            println!("last-move penalty {penalty}: {}", penalty.words());
        }
        print_outcome(&plan, threads, &outcome, args.store.is_some());
        if let Some(a) = &empty {
            let next =
                a.next_loony.map_or_else(|| a.next_loony_left_out.clone().unwrap_or_default(), |n| n.words().into());
            println!(
                "the store's answer for the empty board: value {}, best {}; next loony move: {next} ({:.3} s)",
                a.value,
                a.best.join(" "),
                a.seconds
            );
        }
    }
    files.extend(outcome.files.iter().cloned());
    super::wrote(&dir, &files);
    Ok(())
}

/// The plan of `--plan FILE` (with `--mem-limit` applied), checked against the position named
/// beside it, and its report folder.
fn loaded_plan(args: &RunArgs, path: &Path) -> Result<(Plan, PathBuf), Box<dyn std::error::Error>> {
    let c = &args.common;
    let ignored: Vec<&str> = [
        ("--cost", c.cost.is_some()),
        ("--groups", c.groups.is_some()),
        ("--split", c.split.is_some()),
        ("--overhead", c.overhead != 0.0),
        ("--no-probe", c.no_probe),
    ]
    .into_iter()
    .filter_map(|(flag, given)| given.then_some(flag))
    .collect();
    if !ignored.is_empty() {
        super::note!("note: {} ignored with --plan: the plan fixes its grouping, split and costs", ignored.join(", "));
    }
    let mut plan = Plan::load(path)?;
    if args.common.mem_limit.is_some() {
        plan.mem_limit = args.common.mem_limit;
    }
    if args.position.named() {
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
    let dir = args.out.clone().unwrap_or_else(|| dab::pipeline::default_dir(&plan.board, empty));
    Ok((plan, dir))
}

/// A plan made for the position named (the default board without one), printed and written
/// with its charts into the report folder; the files written.
fn new_plan(args: &RunArgs) -> Result<(Plan, PathBuf, Vec<PathBuf>), Box<dyn std::error::Error>> {
    let root = args.position.position()?;
    // Refused before planning writes anything (the run would refuse it after).
    args.penalty.penalty.check(root)?;
    let planned = super::plan::plan_or_say(root, &args.common.options(args.store.is_some())?)?;
    if !args.json {
        print_choice(&planned);
    }
    let dir =
        args.out.clone().unwrap_or_else(|| dab::pipeline::default_dir(&planned.plan.board, root.drawn.is_empty()));
    let files = dab::report::write_plan(&planned, &dir.join("plan.json"), &dir)?;
    Ok((planned.plan, dir, files))
}

/// The comparison (or, for a resumed run, the value and time) with the memory and disk peaks.
fn json(plan: &Plan, threads: usize, outcome: &RunOutcome, store: bool) -> serde_json::Result<serde_json::Value> {
    let RunOutcome { run, detail, predicted_disk, .. } = outcome;
    let mut out = match detail {
        Some(d) => serde_json::to_value(d.to_json())?,
        None => {
            serde_json::json!({"board": plan.board, "value": run.value, "threads": threads, "actual_seconds": run.seconds})
        }
    };
    out["peak_value_bytes"] = run.peak_bytes.into();
    out["predicted_peak_value_bytes"] = plan.predicted(threads as u32).map(|p| p.peak_memory).into();
    out["peak_rss_bytes"] = outcome.peak_rss_bytes.into();
    out["predicted_peak_rss_bytes"] =
        plan.predicted(threads as u32).map(|p| p.peak_memory + outcome.process_bytes).into();
    out["process_bytes"] = outcome.process_bytes.into();
    if let Some((low, high)) = plan.predicted_range(threads as u32) {
        out["predicted_range_seconds"] = serde_json::json!([low, high]);
        // A resumed run computed only part of the plan: its time is not the plan's.
        if run.resumed == 0 {
            out["within_predicted_range"] = (low <= run.seconds && run.seconds <= high).into();
        }
    }
    out["mem_limit_bytes"] = plan.mem_limit.into();
    if store {
        out["peak_disk_bytes"] = run.peak_disk_bytes.into();
        out["predicted_peak_disk_bytes"] = (*predicted_disk).into();
    }
    Ok(out)
}

/// Why a run gives no next loony move without a complete store.
const NOT_KEPT: &str = "left out: a run in memory frees each partition once its readers are done, and the walk needs \
                        them all (--store DIR keeps them, and answers it)";

/// The complete store's answer for the empty board, as `dab query` gives it; None (with a note
/// where reading failed) where the store does not hold every position after one move.
fn store_answer(store: &std::path::Path, plan: &Plan, penalty: dab::game::Penalty) -> Option<dab::answer::Answer> {
    let board: dab::game::Board = plan.board.parse().ok()?;
    let read = dab::store::Reader::open_under(store, dab::game::Position::empty(board), None, penalty)
        .map_err(dab::answer::QueryError::from)
        .and_then(|r| dab::answer::from_store(&r, dab::game::Position::empty(board), penalty));
    match read {
        Ok(a) => a,
        Err(e) => {
            super::note!("the store's answer for the empty board could not be read: {e}");
            None
        }
    }
}

/// The value, the comparison, and the memory and disk peaks against their predictions.
fn print_outcome(plan: &Plan, threads: usize, outcome: &RunOutcome, store: bool) {
    let RunOutcome { run, detail, predicted_disk, .. } = outcome;
    if run.resumed == plan.jobs.len() {
        println!(
            "value of {}: {} (every one of the {} jobs was in the store: nothing computed, {:.3} s)",
            plan.board,
            run.value,
            dab::support::thousands(plan.jobs.len() as u64),
            run.seconds
        );
        return;
    }
    println!(
        "value of {}: {} ({} positions, {:.3} s on {})",
        plan.board,
        run.value,
        dab::support::thousands(run.positions),
        run.seconds,
        dab::support::count_of(threads as u64, "thread")
    );
    if let Some(d) = detail {
        println!("{}", d.comparison);
    }
    if let Some((low, high)) = plan.predicted_range(threads as u32).filter(|_| run.resumed == 0) {
        let verdict = match run.seconds {
            s if s < low => "faster than the range",
            s if s > high => "slower than the range",
            _ => "within it",
        };
        println!(
            "a run should take {low:.2}-{high:.2} s on {threads} threads, as predicted: {:.2} s is {verdict}",
            run.seconds
        );
    }
    let predicted_peak = plan.predicted(threads as u32).map(|p| p.peak_memory);
    let predicted = predicted_peak.map_or(String::new(), |p| format!(", predicted {}", human_bytes(p)));
    println!("peak resident partition values: {}{predicted}", human_bytes(run.peak_bytes));
    let predicted = predicted_peak.map_or(String::new(), |p| {
        format!(
            ", predicted {} (values and {} of program, tables and threads)",
            human_bytes(p + outcome.process_bytes),
            human_bytes(outcome.process_bytes)
        )
    });
    let limit = plan.mem_limit.map_or(String::new(), |m| format!(", limit {}", human_bytes(m)));
    let rss = outcome.peak_rss_bytes.map_or("unknown".to_string(), human_bytes);
    println!("peak process memory (resident set): {rss}{predicted}{limit}");
    if store {
        let predicted = predicted_disk.map_or(String::new(), |p| format!(", predicted {}", human_bytes(p)));
        println!("peak values in store files: {}{predicted}", human_bytes(run.peak_disk_bytes));
    }
}
