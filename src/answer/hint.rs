//! Hints: every move's value and the best moves of a position, from whichever source can answer
//! it — a store's book, a solve of the position in memory, or, for a position of loops and long
//! chains too large to solve, the endgame theorems — and which source it was.

use crate::game::Position;
use crate::solver::SolveOptions;
use crate::store::Reader;

use super::analysis::{AnalysisError, Engine, MAX_FREE_IN_MEMORY, analyse};
use super::endgame::{NotLoopsAndChains, analyse_position};
use super::query::{Answer, QueryError, query};

/// Why no hint could be given.
#[derive(Debug, thiserror::Error)]
pub enum HintError {
    /// The store could not answer: a read or solve failed, or its board is not the position's.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// The solve in memory failed.
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// No source can answer: more than 32 undrawn lines, no store given that holds the position,
    /// and not a position of loops and long chains only.
    #[error(
        "the position has {free} undrawn lines, too many to solve in memory (at most {MAX_FREE_IN_MEMORY}), and {reason}; a store that holds it (--store DIR) can answer"
    )]
    Unanswerable {
        /// Undrawn lines of the position.
        free: usize,
        /// Why the endgame theorems do not apply.
        reason: NotLoopsAndChains,
    },
}

/// Most undrawn lines solved in memory when the endgame theorems could answer instead: a
/// fraction of a second, where 32 lines without symmetry take over a minute.
pub(super) const QUICK_SOLVE_FREE: usize = 26;

/// The position's answer: from the store when given and it holds the position (solved on the
/// spot when it does not), otherwise solved in memory, otherwise from the endgame theorems
/// (which also answer, instantly, a loops-and-chains position of more than
/// `QUICK_SOLVE_FREE` undrawn lines). `source` is `store`, `solved` or `endgame`.
pub fn hint(pos: Position, reader: Option<&Reader>, threads: usize) -> Result<Answer, HintError> {
    let start = std::time::Instant::now();
    let free = pos.undrawn().len() as usize;
    let theorems = analyse_position(pos);
    if let Some(reader) = reader {
        match query(reader, pos, threads) {
            Err(QueryError::TooLarge(_)) => {}
            answer => return Ok(answer?),
        }
    } else if free <= QUICK_SOLVE_FREE || (free <= MAX_FREE_IN_MEMORY && theorems.is_err()) {
        let a = analyse(pos, Engine::Partition, SolveOptions { threads, ..Default::default() })?;
        return Ok(Answer {
            board: a.board,
            root: a.root,
            value: a.value,
            moves: a.moves,
            best: a.best,
            source: "solved".into(),
            seconds: a.seconds,
        });
    }
    let r = theorems.map_err(|reason| HintError::Unanswerable { free, reason })?;
    Ok(Answer {
        board: r.board,
        root: r.root,
        value: r.value,
        moves: r.moves,
        best: r.best,
        source: "endgame".into(),
        seconds: start.elapsed().as_secs_f64(),
    })
}
