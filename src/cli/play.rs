//! `dab play`: a game in the terminal against a perfect opponent, one command a line on stdin.

use std::io::IsTerminal;

use clap::Args;

use dab::answer::play::{Oracle, Player};

use super::{CliResult, PositionArgs, choice};

#[derive(Args)]
pub struct PlayArgs {
    /// The starting position: solved on the fly up to 31 undrawn lines (the empty 3x4), else
    /// answered position by position (the endgame theorems on loops and long chains, the
    /// search engine up to 44 undrawn lines, or 64 with --engine search), or from --store.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Who moves first.
    #[arg(long, value_parser = choice::<Player>(), default_value_t = Player::You)]
    pub first: Player,
    #[command(flatten)]
    pub store: super::hint::StoreArgs,
    #[command(flatten)]
    pub engine: super::hint::EngineArgs,
    /// Worker threads for solving (default: RAYON_NUM_THREADS, else all cores).
    #[arg(long, value_name = "P")]
    pub threads: Option<usize>,
    /// The time budget of each of dab's moves past what one solve of the start takes (more
    /// than 31 undrawn lines, --engine auto): exact where an engine is priced to finish within
    /// it, else a move by rules; any board up to 16x16.
    #[arg(long, value_name = "S", default_value_t = super::hint::DEFAULT_SECONDS, value_parser = super::seconds)]
    pub seconds: f64,
    #[command(flatten)]
    pub penalty: super::PenaltyArgs,
}

pub fn run(args: PlayArgs) -> CliResult {
    let pos = args.position.position()?;
    let threads = super::threads(args.threads)?;
    let start = std::time::Instant::now();
    let line = super::solve::SearchLine::on_terminal();
    let ask = args.engine.asking(threads, &line).under(args.penalty.penalty);
    let oracle = match &args.store.store {
        Some(dir) => Oracle::store(dir, pos, args.store.groups, ask)?,
        None => Oracle::within(pos, ask, Some(args.seconds))?,
    };
    if let Oracle::Solved(_) = oracle {
        let what = if pos.drawn.is_empty() { pos.board.to_string() } else { "the position".to_string() };
        println!("solved {what} in {:.1} s", start.elapsed().as_secs_f64());
    }
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    dab::answer::play::run(&oracle, pos, args.first, stdin.lock(), &mut std::io::stdout().lock(), echo)?;
    Ok(())
}
