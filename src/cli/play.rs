//! `dab play`: a game in the terminal against a perfect opponent, one command a line on stdin.

use std::io::IsTerminal;

use clap::Args;

use dab::answer::play::{Oracle, Player};
use dab::game::Board;

use super::{CliResult, choice};

#[derive(Args)]
pub struct PlayArgs {
    /// Board size MxN (solved on the fly up to 3x4; larger boards need --store).
    pub board: String,
    /// Who moves first.
    #[arg(long, value_parser = choice::<Player>(), default_value_t = Player::You)]
    pub first: Player,
    #[command(flatten)]
    pub store: super::hint::StoreArgs,
    /// Worker threads for solving (default: RAYON_NUM_THREADS, else all cores).
    #[arg(long, value_name = "P")]
    pub threads: Option<usize>,
}

pub fn run(args: PlayArgs) -> CliResult {
    let board: Board = args.board.parse()?;
    let threads = super::threads(args.threads)?;
    let start = std::time::Instant::now();
    let oracle = match &args.store.store {
        Some(dir) => Oracle::store(dir, board, args.store.groups, threads)?,
        None => Oracle::solved(board, threads)?,
    };
    if args.store.store.is_none() {
        println!("solved {board} in {:.1} s", start.elapsed().as_secs_f64());
    }
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    dab::answer::play::run(&oracle, board, args.first, stdin.lock(), &mut std::io::stdout().lock(), echo)?;
    Ok(())
}
