//! `dab hint`: every move's value and the best moves, and which source answered.

use std::path::PathBuf;

use clap::Args;

use dab::answer::{Answerer, Asking};
use dab::game::{Penalty, Position};
use dab::store::Reader;

use super::{CliResult, PositionArgs, choice};

#[derive(Args)]
pub struct HintArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Worker threads for a solve or search (default: RAYON_NUM_THREADS, else all cores).
    #[arg(long, value_name = "P")]
    pub threads: Option<usize>,
    /// The time budget with --engine auto: an exact answer where one is priced to finish
    /// within it, else a move chosen by rules (the endgame theorems, the Nimstring calculator,
    /// safe moves), marked not proven. Other engines answer exactly, however long it takes.
    #[arg(long, value_name = "S", default_value_t = DEFAULT_SECONDS, value_parser = super::seconds)]
    pub seconds: f64,
    /// Print one JSON object: every move's value, the best moves and what answered.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub penalty: super::PenaltyArgs,
}

/// What answers a position that no store holds.
#[derive(Args)]
pub struct EngineArgs {
    /// What answers a position no store holds: auto (the endgame theorems on loops and long
    /// chains, else the retrograde or the search engine, whichever the cost model prices
    /// cheaper, up to 44 undrawn lines), partition (the retrograde in memory, up to 32) or
    /// search (up to 64).
    #[arg(long, value_parser = choice::<Answerer>(), default_value_t = Answerer::Auto)]
    pub engine: Answerer,
}

impl EngineArgs {
    /// The engine on `threads` threads, its searches reporting to `line`.
    pub fn asking<'w>(&self, threads: usize, line: &'w super::solve::SearchLine) -> Asking<'w> {
        Asking {
            engine: self.engine,
            threads,
            watch: Some(line),
            penalty: dab::game::Penalty::NONE,
            table_cap: None,
            stop: None,
        }
    }
}

/// A store to read values from, with its grouping.
#[derive(Args)]
pub struct StoreArgs {
    /// A store of the board: values are read from it first (positions beyond its book are answered on the spot).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// The store's grouping (needed when the store holds several for the board).
    #[arg(long, value_name = "G", requires = "store")]
    pub groups: Option<usize>,
}

impl StoreArgs {
    /// The store's solve that holds `pos` under `penalty`, None without `--store`. A store
    /// folder that holds no solve of this position's board and root: answered on the spot, as
    /// the help promises, with a note; a path that is no folder is an error.
    pub fn reader(&self, pos: Position, penalty: Penalty) -> Result<Option<Reader>, dab::store::StoreError> {
        let Some(s) = self.store.as_deref() else { return Ok(None) };
        match Reader::open_under(s, pos, self.groups, penalty) {
            Ok(r) => Ok(Some(r)),
            Err(e) if s.is_dir() && e.is_not_held() => {
                super::note!("{e}: answered on the spot");
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

/// The budget of a hint, and of each of dab's moves in a game, when none is given.
pub const DEFAULT_SECONDS: f64 = 5.0;

pub fn run(args: HintArgs) -> CliResult {
    let pos = args.position.position()?;
    let penalty = args.penalty.penalty;
    let reader = args.store.reader(pos, penalty)?;
    let line = super::solve::SearchLine::on_terminal();
    let ask = args.engine.asking(super::threads(args.threads)?, &line).under(penalty);
    let a = dab::answer::advise(pos, reader.as_ref(), ask, args.seconds)?;
    if args.json {
        println!("{}", serde_json::to_string(&a)?);
        return Ok(());
    }
    print!("{a}");
    Ok(())
}
