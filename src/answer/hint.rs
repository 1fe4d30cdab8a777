//! Hints: every move's value and the best moves of a position, from whichever source can answer
//! it — a store's book, the endgame theorems for a large position of loops and long chains, a
//! solve in memory, or the search engine — and which source it was. Under a last-move penalty
//! the theorems are passed over: they value the plain game only.

use crate::game::Position;
use crate::solver::MAX_FREE_LINES;
use crate::store::Reader;
use crate::support::Remedy;

use super::endgame::{NotLoopsAndChains, analyse_position};
use super::query::{Answer, Answerer, Asking, QueryError, from_book, on_the_spot};

/// Why no hint could be given.
#[derive(Debug, thiserror::Error)]
pub enum HintError {
    /// The store or the engine could not answer: a read, solve or search failed, the store's
    /// board is not the position's, or the position is too large for the engine asked for.
    #[error("{0}")]
    Query(#[from] QueryError),
    /// No source can answer: more undrawn lines than the search takes, no store given that
    /// holds the position, and not a position of loops and long chains only.
    #[error("{query}, and {reason}; a store that holds it can answer")]
    Unanswerable {
        /// Why the engine refused it.
        query: QueryError,
        /// Why the endgame theorems do not apply.
        reason: NotLoopsAndChains,
    },
}

impl HintError {
    /// The settings that would answer it.
    pub fn remedies(&self) -> &'static [Remedy] {
        match self {
            HintError::Query(_) => &[],
            HintError::Unanswerable { query: QueryError::TooLarge(free, _), .. } if *free <= MAX_FREE_LINES => {
                &[Remedy::SearchEngine, Remedy::Store]
            }
            HintError::Unanswerable { .. } => &[Remedy::Store],
        }
    }
}

/// The endgame theorems' answer, when `pos` is made of loops and long chains only (`start`:
/// when the answer began, for its seconds).
pub(super) fn from_theorems(pos: Position, start: std::time::Instant) -> Result<Answer, NotLoopsAndChains> {
    analyse_position(pos).map(|r| Answer {
        // Every move of a position of loops and long chains is loony, once the free captures
        // are taken: the player to move makes the next one (it cannot be avoided). A full
        // board has no move, loony or not: neither, as every engine says (`control`).
        next_loony: if r.moves.is_empty() {
            Some(super::NextLoony::Neither)
        } else {
            r.moves.iter().all(|m| m.loony).then_some(super::NextLoony::Mover)
        },
        board: r.board,
        root: r.root,
        value: r.value,
        moves: r.moves,
        best: r.best,
        source: "endgame".into(),
        proven: true,
        engine: "endgame".into(),
        store_leaves: 0,
        seconds: start.elapsed().as_secs_f64(),
        penalty: crate::game::Penalty::NONE,
        next_loony_left_out: None,
    })
}

/// The position's answer: from the store when given and it holds the position; else, with
/// `ask.engine` auto, from the endgame theorems when it is made of loops and long chains
/// (instant, exact), else by the engine the cost model prices cheapest; with another engine,
/// by that engine alone; under a last-move penalty, by the retrograde alone. `source` is
/// `store`, `endgame`, `solved` or `search`.
pub fn hint(pos: Position, reader: Option<&Reader>, ask: Asking) -> Result<Answer, HintError> {
    let start = std::time::Instant::now();
    if let Some(reader) = reader
        && let Some(a) = from_book(reader, pos, ask.penalty, None)?
    {
        return Ok(a);
    }
    if !ask.penalty.is_none() {
        return Ok(on_the_spot(pos, ask, reader)?);
    }
    let theorems = || from_theorems(pos, start);
    if ask.engine == Answerer::Auto {
        return match theorems() {
            Ok(a) => Ok(a),
            Err(reason) => match on_the_spot(pos, ask, reader) {
                Err(query @ QueryError::TooLarge(..)) => Err(HintError::Unanswerable { query, reason }),
                answer => Ok(answer?),
            },
        };
    }
    Ok(on_the_spot(pos, ask, reader)?)
}
