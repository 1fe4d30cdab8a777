//! `dab book`: an opening book of a board, built from a store or a solve in memory.

use std::path::PathBuf;

use clap::Args;

use dab::Board;
use dab::answer::play::Oracle;
use dab::answer::{Answerer, Asking, Book};
use dab::game::Position;

use super::CliResult;

#[derive(Args)]
pub struct BookArgs {
    /// Board size MxN (the empty board's solve is read from --store, or made in memory for
    /// boards of at most 31 lines).
    pub board: String,
    /// A store holding the solve of the empty board (its book must reach --drawn lines, or the
    /// positions past it are solved on the spot, slowly).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// The store's grouping (needed when the store holds several for the board).
    #[arg(long, value_name = "G", requires = "store")]
    pub groups: Option<usize>,
    /// The book's depth: positions with at most D lines drawn.
    #[arg(long, value_name = "D", default_value_t = 8)]
    pub drawn: u32,
    /// The book file to write (replaced whole, only once the book is made).
    #[arg(long, short, value_name = "FILE")]
    pub output: PathBuf,
    /// Worker threads for a solve in memory (default: RAYON_NUM_THREADS, else all cores).
    #[arg(long, value_name = "P")]
    pub threads: Option<usize>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: BookArgs) -> CliResult {
    let board: Board = args.board.parse()?;
    if args.drawn as usize > board.lines() {
        return Err(format!("--drawn {} is more than the {} lines of {board}", args.drawn, board.lines()).into());
    }
    if args.store.is_none() && board.lines() > dab::answer::play::MAX_SOLVED_FREE {
        return Err(format!(
            "a book of {board} ({} lines) needs --store DIR with the board's solve: a solve in memory takes boards of at most {} lines",
            board.lines(),
            dab::answer::play::MAX_SOLVED_FREE
        )
        .into());
    }
    let threads = super::threads(args.threads)?;
    let ask = Asking::new(Answerer::Auto, threads);
    let empty = Position::empty(board);
    let oracle = match &args.store {
        Some(dir) => Oracle::store(dir, empty, args.groups, ask)?,
        None => Oracle::new(empty, Asking::new(Answerer::Partition, threads))?,
    };
    let book = Book::build(&oracle, board, args.drawn, |d, n| {
        if !args.quiet {
            eprintln!("{d} lines drawn: {n} positions");
        }
    })?;
    dab::support::write_atomic(&args.output, &book.to_bytes())
        .map_err(|e| format!("cannot write the book '{}': {e}", args.output.display()))?;
    if !args.quiet {
        println!("{} positions of {board} up to {} lines drawn in {}", book.len(), args.drawn, args.output.display());
    }
    Ok(())
}
