//! Answers about a position: its analysis by any engine (the partitioned solver or a
//! slow twin, or the search engine), queries of a store's book, hints, a game's review, opening books, the loops-and-chains endgame theorems, and
//! the game in the terminal, and each engine's price before it runs (what `auto` picks by).
//! Uses `game`, `solver`, `sched` and `plan` (the cost model), `store` and `exec` (a solve on
//! the spot); `serve` (the web board's answers) and `bench` use it.

mod advice;
mod analysis;
mod book;
mod control;
pub mod endgame;
pub mod estimate;
mod hint;
pub mod nimstring;
pub mod play;
mod query;
mod review;
pub mod search;

pub use advice::{Advice, RulesAnswer, advise};
pub use analysis::{Analysis, AnalysisError, Engine, MAX_FREE_IN_MEMORY, analyse, analyse_with};
pub use book::{Book, BookError, BookMove, MAX_BOOK_LINES, built_in as built_in_book};
pub use control::{Control, MAX_POSITIONS, NextLoony, WalkBudget, next_loony, next_loony_within};
pub use hint::{HintError, hint};
pub(crate) use query::on_the_spot;
pub use query::{Answer, Answerer, Asking, QueryError, SearchWatch, auto_engine, best_move, from_store, query};
pub use review::{Mistake, Review, ReviewedMove, positions as review_positions, review};
