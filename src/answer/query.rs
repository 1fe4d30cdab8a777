//! Queries: the value of a position and of every move, read from a store's opening book, or
//! solved on the spot from the position's own undrawn lines when the book does not reach it.

use serde::Serialize;

use crate::exec::solve;
use crate::game::{MoveReport, Position, Value, move_value};
use crate::solver::SolveOptions;
use crate::store::{Reader, StoreError};

use super::analysis::MAX_FREE_IN_MEMORY;

/// Why a query failed.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// Reading a value from the store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Solving a position the store does not hold failed.
    #[error(transparent)]
    Solve(#[from] crate::exec::SolveError),
    /// The store does not hold the position, and its undrawn lines (the count) are more than a
    /// solve in memory takes.
    #[error(
        "the store does not hold this position and its {0} undrawn lines are too many to solve in memory (at most {MAX_FREE_IN_MEMORY})"
    )]
    TooLarge(usize),
    /// The position's board is not the store's.
    #[error("the position is a {pos} board, the store's board is {store}")]
    Board {
        /// The position's board size.
        pos: String,
        /// The store's board size.
        store: String,
    },
}

/// The answer, shaped like `dab solve --json`.
#[derive(Clone, Debug, Serialize)]
pub struct Answer {
    /// The board size, as `MxN`.
    pub board: String,
    /// The position asked about, as a line string (named as a plan names its root).
    pub root: String,
    /// The position's value: net future boxes for the player to move.
    pub value: i32,
    /// Every undrawn line with the value of playing it, in line order.
    pub moves: Vec<MoveReport>,
    /// The names of the moves of best value.
    pub best: Vec<String>,
    /// `store` (the book), `solved` (its own undrawn lines, solved now) or, for a hint,
    /// `endgame` (the loops-and-chains theorems).
    pub source: String,
    /// Wall seconds the answer took.
    pub seconds: f64,
}

/// Answers from the store when it holds the position and every position after one move;
/// otherwise solves the position.
pub fn query(reader: &Reader, pos: Position, threads: usize) -> Result<Answer, QueryError> {
    let start = std::time::Instant::now();
    let board = reader.space().board();
    if pos.board != board {
        return Err(QueryError::Board { pos: pos.board.to_string(), store: board.to_string() });
    }
    let mut from_store = reader.value(pos.drawn)?.map(|v| (v, Vec::new()));
    for line in pos.undrawn().iter() {
        let Some((_, moves)) = from_store.as_mut() else { break };
        let after = pos.drawn.with(line);
        let boxes = board.completes(pos.drawn, line) as i8;
        match reader.value(after)? {
            Some(v) => moves.push((line, boxes, move_value(boxes, v))),
            None => from_store = None,
        }
    }
    let (value, moves, source) = match from_store {
        Some((v, m)) => (v, m, "store"),
        None => {
            let free = pos.undrawn().len() as usize;
            if free > MAX_FREE_IN_MEMORY {
                return Err(QueryError::TooLarge(free));
            }
            let s = solve(pos, SolveOptions { threads, ..Default::default() })?;
            (s.value, s.moves.iter().map(|m| (m.line, m.boxes as i8, m.value)).collect(), "solved")
        }
    };
    let moves: Vec<MoveReport> = moves
        .iter()
        .map(|&(l, boxes, v): &(crate::game::Line, i8, Value)| MoveReport::new(board, l, boxes as u8, v as i32))
        .collect();
    let best = moves.iter().filter(|m| m.value == value as i32).map(|m| m.line.clone()).collect();
    Ok(Answer {
        board: board.to_string(),
        root: pos.to_line_string(),
        value: value as i32,
        moves,
        best,
        source: source.into(),
        seconds: start.elapsed().as_secs_f64(),
    })
}
