//! `dab review`: a game's moves valued against best play, each with the boxes it gave up and
//! whether that is proven, and the decisive mistakes.

use std::path::PathBuf;

use clap::Args;

use dab::game::Record;

use super::hint::{EngineArgs, StoreArgs};
use super::{CliResult, PositionArgs};

#[derive(Args)]
pub struct ReviewArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// The moves in order: dab's notation (h(0,0) v(1,2) ..., or line numbers) or a littlegolem
    /// record (1. a1-b1 2. c3-c4, ...).
    #[arg(long, value_name = "MOVES", required_unless_present = "record", conflicts_with = "record")]
    pub moves: Option<String>,
    /// A file of the moves, in either notation ('-' for stdin).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Worker threads for a solve or search (default: RAYON_NUM_THREADS, else all cores).
    #[arg(long, value_name = "P")]
    pub threads: Option<usize>,
    /// Seconds each position may take: an exact value where one is proven within it, else an
    /// estimate by rules, labelled so.
    #[arg(long, value_name = "S", default_value_t = super::hint::DEFAULT_SECONDS, value_parser = super::seconds)]
    pub seconds: f64,
    /// Print one JSON object: every move with its values, the mistakes and the result.
    #[arg(long)]
    pub json: bool,
}

/// Most bytes of a record file: a 16x16 game of 544 moves is a few kilobytes in either
/// notation; comments and spacing may add.
const MAX_RECORD_BYTES: u64 = 256 << 10;
/// What the bound is, for its error.
const RECORD_BOUND: &str = "a game's record: a 16x16 game's, in dab's notation, is under 8 KiB";

pub fn run(args: ReviewArgs) -> CliResult {
    let start = args.position.position()?;
    let text = match (&args.moves, &args.record) {
        (Some(m), _) => m.clone(),
        (None, Some(path)) => dab::support::read_text_at_most(path, MAX_RECORD_BYTES, RECORD_BOUND)
            .map_err(|e| format!("cannot read the record '{}': {e}", path.display()))?,
        (None, None) => return Err("give the moves with --moves MOVES or --record FILE".into()),
    };
    let record = Record::parse(start, &text).map_err(|e| match &args.record {
        Some(path) => format!("record '{}': {e}", path.display()),
        None => format!("--moves: {e}"),
    })?;
    let reader = args.store.reader(start, dab::game::Penalty::NONE)?;
    let line = super::solve::SearchLine::on_terminal();
    let engine = EngineArgs { engine: dab::answer::Answerer::Auto };
    let ask = engine.asking(super::threads(args.threads)?, &line);
    let shown = super::progress_shown();
    let progress = |i: usize, n: usize| {
        if shown {
            eprint!("\rreviewing position {} of {n}...", i + 1);
        }
    };
    let review = dab::answer::review(&record, reader.as_ref(), ask, args.seconds, &progress);
    if shown {
        eprint!("\r\x1b[2K");
    }
    let review = review?;
    if args.json {
        println!("{}", serde_json::to_string(&review)?);
    } else {
        print!("{review}");
    }
    Ok(())
}
