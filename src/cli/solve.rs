//! `dab solve`: the value of a position and of every move.

use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use dab::answer::search::{SearchOptions, SearchProgress};
use dab::answer::{Engine, analyse_with};
use dab::solver::{KernelPath, SolveOptions};

use super::{CliResult, PositionArgs, choice};

#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Number of line groups (partitions are counts of drawn lines per group).
    #[arg(long, value_name = "G")]
    pub groups: Option<usize>,
    /// Worker threads (default: RAYON_NUM_THREADS, else all cores).
    #[arg(long, value_name = "P")]
    pub threads: Option<usize>,
    /// Solver: the partitioned retrograde solver, a slow twin, or the search engine.
    #[arg(long, value_parser = choice::<Engine>(), default_value_t = Engine::Partition)]
    pub engine: Engine,
    /// Transposition table of the search engine (--engine search): 256MB, 2G, ... (default:
    /// room for the positions the search is expected to visit, at most a quarter of the memory
    /// available, at least 4 MiB). Rounded down to a power of two buckets of 32 bytes, and up
    /// to what the root's undrawn lines need for exact keys (16 MiB at 60, 256 MiB at 64).
    #[arg(long, value_name = "BYTES", value_parser = super::bytes)]
    pub tt_size: Option<u64>,
    /// With --engine search: the position's value only, not every move's (a fraction of the time).
    #[arg(long)]
    pub value_only: bool,
    /// With --engine search: positions of at most K undrawn lines (at most 12) are valued by a
    /// retrograde pass instead of searched (0, the default, measured fastest).
    #[arg(long, value_name = "K", default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=12))]
    pub leaf_lines: u8,
    /// With --engine search: positions keyed in the table by their exact canonical state, not by
    /// their strings-and-coins graph (the default where no symmetry fixes the root: fewer
    /// positions, but a 64-bit hash; docs/notes/search-notes.md).
    #[arg(long)]
    pub state_keys: bool,
    /// Kernel path of the partitioned solver: the row path, or its scalar twin (benchmarks).
    #[arg(long, value_parser = choice::<KernelPath>(), default_value_t = KernelPath::Rows)]
    pub kernel: KernelPath,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Durable store: every partition is written here; a solve on an existing store resumes.
    #[arg(long, value_name = "DIR")]
    pub store: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub book: BookArgs,
    #[command(flatten)]
    pub penalty: super::PenaltyArgs,
}

pub fn run(args: SolveArgs) -> CliResult {
    let root = args.position.position()?;
    let threads = super::threads(args.threads)?;
    if args.store.is_some() && args.engine != Engine::Partition {
        return Err("--store works only with --engine partition".into());
    }
    if (args.value_only || args.leaf_lines > 0 || args.state_keys) && args.engine != Engine::Search {
        return Err("--value-only, --leaf-lines and --state-keys work only with --engine search".into());
    }
    if let Some(note) = twin_note(args.engine, root.undrawn().len() as i32) {
        super::note!("{note}");
    }
    let shown = super::progress_shown();
    // The table is sized (from the memory available) only where a search runs.
    let tt_bytes = match (args.tt_size, args.engine) {
        (Some(bytes), _) => bytes,
        (None, Engine::Search) => dab::answer::estimate::table_bytes_here(root),
        (None, _) => dab::answer::search::DEFAULT_TT_BYTES,
    };
    // Priced and named with the size the table gets (rounded to whole buckets), not the size
    // asked for; none where the size is refused below.
    if shown
        && args.engine == Engine::Search
        && let Some(table) = dab::answer::search::table_bytes(tt_bytes, root.undrawn().len())
    {
        let model = dab::plan::model_or_built_in();
        let costs = dab::answer::estimate::EngineCosts::of(root, model, threads, table);
        if let Some(seconds) = costs.search {
            let what = if args.value_only { "less for the value only" } else { "every move valued" };
            super::note!(
                "note: the search is priced at about {} ({:.1e} positions, {what}, a {} table); the progress line counts the moves valued",
                dab::support::about_seconds(seconds),
                costs.search_positions,
                dab::support::human_bytes(table)
            );
        }
    }
    let bar = Progress::new(shown);
    let progress = |done: u64, total: u64| bar.update(done, total);
    let report = |m: &str| super::note!("{m}");
    let opts = SolveOptions {
        groups: args.groups,
        threads,
        keep_all: false,
        progress: Some(&progress),
        store: args.store.as_deref(),
        keep_lines: args.book.store(args.store.as_deref())?.and_then(|(_, k)| k),
        kernel: args.kernel,
        penalty: args.penalty.penalty,
        stop: None,
        deadline: None,
        // A damaged file of the store is computed again, and said so, as dab run says it.
        report: Some(&report),
    };
    let line = |p: &SearchProgress| bar.message(&search_line(p));
    let search = SearchOptions {
        tt_bytes,
        progress: Some(&line),
        move_values: !args.value_only,
        leaf_lines: args.leaf_lines.into(),
        graph_keys: !args.state_keys,
        ..Default::default()
    };
    let analysis = analyse_with(root, args.engine, opts, search)?;
    bar.finish();
    if args.json {
        println!("{}", serde_json::to_string(&analysis)?);
    } else {
        print!("{analysis}");
    }
    Ok(())
}

/// The search engine's progress line: nodes and their rate, table hits, the value's bounds
/// proven so far, then the root's moves valued.
fn search_line(p: &SearchProgress) -> String {
    let bound = |v: i32| if v.abs() > dab::answer::search::MAX_BOXES_LEFT { "?".to_string() } else { v.to_string() };
    let stage = if p.root_moves_done > 0 || p.lower == p.upper {
        let left =
            p.moves_left_seconds.map_or(String::new(), |s| format!(", about {} left", dab::support::about_seconds(s)));
        format!("value {:+}, {} of {} moves valued{left}", p.lower, p.root_moves_done, p.root_moves)
    } else {
        format!("value in [{}, {}]", bound(p.lower), bound(p.upper))
    };
    format!(
        "search {:.0} s: {:.3e} positions ({:.1e} a second), {:.3e} table hits, {stage}",
        p.seconds,
        p.nodes as f64,
        p.nodes as f64 / p.seconds.max(1e-9),
        p.table_hits as f64,
    )
}

/// A note before a slow twin's long solve (past about 15 s): its expected time.
fn twin_note(engine: Engine, undrawn: i32) -> Option<String> {
    let seconds = dab::answer::estimate::twin_seconds(engine, undrawn as usize).filter(|&s| s > 15.0)?;
    let time = if seconds < 120.0 { format!("{seconds:.0} s") } else { format!("{:.0} min", seconds / 60.0) };
    Some(format!(
        "note: the {engine} twin on {undrawn} undrawn lines takes about {time} on a 2-core machine \
         (--engine partition takes a fraction of that)"
    ))
}

/// A store folder with its opening book's line limit.
pub type StoreSpec<'a> = Option<(&'a std::path::Path, Option<usize>)>;

/// The opening book of a store.
#[derive(clap::Args)]
pub struct BookArgs {
    /// Keep in the store only the partitions with at most K lines (the opening book),
    /// deleting the others as soon as no job still to run reads them.
    #[arg(long, value_name = "K")]
    pub keep_lines: Option<usize>,
}

impl BookArgs {
    /// The store with its book limit, checking that the limit makes sense.
    pub fn store<'a>(&self, store: Option<&'a std::path::Path>) -> Result<StoreSpec<'a>, Box<dyn std::error::Error>> {
        match (store, self.keep_lines) {
            (None, Some(_)) => Err("--keep-lines needs --store".into()),
            (_, Some(0)) => {
                Err("--keep-lines must be at least 1: the first moves are read from the 1-line partitions".into())
            }
            (s, k) => Ok(s.map(|s| (s, k))),
        }
    }
}

/// The search engine's progress line for `hint`, `query` and `play`, on a terminal: shown from
/// a search's first report (after a second), cleared when the search ends, so that a game's
/// next line is not drawn over; each search gets a line of its own.
pub struct SearchLine {
    enabled: bool,
    bar: std::sync::Mutex<Option<ProgressBar>>,
}

impl SearchLine {
    /// A line on stderr when it is a terminal, else nothing.
    pub fn on_terminal() -> SearchLine {
        SearchLine { enabled: super::progress_shown(), bar: std::sync::Mutex::new(None) }
    }
}

impl dab::answer::SearchWatch for SearchLine {
    fn progress(&self, p: &SearchProgress) {
        if !self.enabled {
            return;
        }
        let mut bar = self.bar.lock().expect("progress lock");
        let bar = bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(ProgressStyle::with_template("{msg}").expect("valid template"));
            bar
        });
        bar.set_message(search_line(p));
    }

    fn done(&self) {
        if let Some(bar) = self.bar.lock().expect("progress lock").take() {
            bar.finish_and_clear();
        }
    }
}

/// A progress bar on a terminal, shown only once a solve has run for a second.
pub struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    /// The plan's predicted seconds, shown beside the estimate (a run's).
    predicted: Option<f64>,
}

impl Progress {
    pub fn new(enabled: bool) -> Progress {
        Progress::predicting(enabled, None)
    }

    /// A bar that shows `predicted` seconds (the plan's) beside its own estimate.
    pub fn predicting(enabled: bool, predicted: Option<f64>) -> Progress {
        let bar = enabled.then(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{wide_bar}] {percent}% of {human_len} positions, {msg}",
                )
                .expect("valid template"),
            );
            bar
        });
        Progress { bar, start: Instant::now(), predicted }
    }

    /// Shows `text` in place of the bar (the search engine's progress line).
    pub fn message(&self, text: &str) {
        if let Some(bar) = &self.bar {
            if bar.is_hidden() {
                bar.set_style(ProgressStyle::with_template("{elapsed_precise} {msg}").expect("valid template"));
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
            bar.set_message(text.to_string());
        }
    }

    pub fn update(&self, done: u64, total: u64) {
        if let Some(bar) = &self.bar {
            if bar.is_hidden() && self.start.elapsed() > Duration::from_secs(1) {
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
            bar.set_length(total);
            bar.set_position(done);
            bar.set_message(eta(self.start.elapsed().as_secs_f64(), done, total, self.predicted));
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// What is left, from the average rate since the start: partitions differ in cost, so the
/// recent rate (indicatif's) jumps back and forth where the whole run's settles; with the
/// plan's prediction beside it.
fn eta(elapsed: f64, done: u64, total: u64, predicted: Option<f64>) -> String {
    let left = (done > 0).then(|| elapsed * (total.saturating_sub(done)) as f64 / done as f64);
    let left = left.map_or("eta ?".to_string(), |s| format!("about {} left", dab::support::about_seconds(s)));
    match predicted {
        Some(p) => format!("{left} (predicted {} in all)", dab::support::about_seconds(p)),
        None => left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eta_is_the_average_rate_s_beside_the_prediction() {
        assert_eq!(eta(10.0, 0, 100, None), "eta ?");
        assert_eq!(eta(10.0, 50, 100, None), "about 10 s left");
        assert_eq!(eta(10.0, 50, 100, Some(25.0)), "about 10 s left (predicted 25 s in all)");
    }

    #[test]
    fn a_slow_twin_on_many_lines_is_announced_with_its_expected_time() {
        assert_eq!(twin_note(Engine::Minimax, 20), None);
        assert_eq!(twin_note(Engine::Partition, 40), None);
        let note = twin_note(Engine::Minimax, 22).unwrap();
        assert!(note.contains("minimax twin on 22 undrawn lines takes about 88 s"), "{note}");
        assert!(twin_note(Engine::Dense, 32).unwrap().contains("about 3 min"));
    }
}
