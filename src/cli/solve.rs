//! `dab solve`: the value of a position and of every move.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use dab::answer::{Engine, analyse};
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
    /// Solver: the partitioned retrograde solver, or a slow twin.
    #[arg(long, value_parser = choice::<Engine>(), default_value_t = Engine::Partition)]
    pub engine: Engine,
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
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: SolveArgs) -> CliResult {
    let root = args.position.position()?;
    let threads = super::threads(args.threads)?;
    if args.store.is_some() && args.engine != Engine::Partition {
        return Err("--store works only with --engine partition".into());
    }
    let bar = Progress::new(!args.quiet && std::io::stderr().is_terminal());
    let progress = |done: u64, total: u64| bar.update(done, total);
    let opts = SolveOptions {
        groups: args.groups,
        threads,
        keep_all: false,
        progress: Some(&progress),
        store: args.store.as_deref(),
        keep_lines: args.book.store(args.store.as_deref())?.and_then(|(_, k)| k),
        kernel: args.kernel,
    };
    let analysis = analyse(root, args.engine, opts)?;
    bar.finish();
    if args.json {
        println!("{}", serde_json::to_string(&analysis)?);
    } else {
        print!("{analysis}");
    }
    Ok(())
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

/// A progress bar on a terminal, shown only once a solve has run for a second.
pub struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
}

impl Progress {
    pub fn new(enabled: bool) -> Progress {
        let bar = enabled.then(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{wide_bar}] {percent}% of {human_len} positions, eta {eta}",
                )
                .expect("valid template"),
            );
            bar
        });
        Progress { bar, start: Instant::now() }
    }

    pub fn update(&self, done: u64, total: u64) {
        if let Some(bar) = &self.bar {
            if bar.is_hidden() && self.start.elapsed() > Duration::from_secs(1) {
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
            bar.set_length(total);
            bar.set_position(done);
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
