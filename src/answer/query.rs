//! Queries: the value of a position and of every move, read from a store's opening book, or
//! answered on the spot from the position's own undrawn lines when the book does not reach it:
//! by the retrograde in memory or by the search engine, as the caller asks or as the cost
//! model prices cheapest ([`EngineCosts`]). Under a last-move penalty, the book must be a solve
//! under the same penalty, and only the retrograde answers on the spot: the search engine (and,
//! for a hint, the endgame theorems) value the plain game only.

use super::estimate::{EngineCosts, table_bytes_here};

use serde::{Deserialize, Serialize};

use crate::exec::solve;
use crate::game::{Line, MoveReport, Penalty, PenaltyError, Position, ValueLines, move_value};
use crate::solver::{MAX_FREE_LINES, SolveOptions};
use crate::store::{Book, Reader, StoreError};
use crate::support::{Remedy, Setting, choice};

use super::analysis::{MAX_FREE_IN_MEMORY, SEARCH_PLAIN};
use super::control::{KEEP_ALL_FREE, NextLoony, from_solution, next_loony_within};
use super::estimate::{WalkValues, walk_budget};
use super::search::{KeptTable, SearchError, SearchOptions, SearchProgress, SoFar, search};

/// Hears how far a long search is (a progress line on a terminal), and that it ended.
pub trait SearchWatch: Sync {
    /// Called every [`SearchWatch::every`] seconds while a search runs, from a thread of its
    /// own.
    fn progress(&self, p: &SearchProgress);
    /// How often, in seconds, the watch wants to hear (a second unless it says otherwise).
    fn every(&self) -> f64 {
        1.0
    }
    /// Called once when a search has ended, whatever its outcome.
    fn done(&self);
}

/// How a position that no store holds is answered: the engine, its threads, and what hears a
/// search's progress.
#[derive(Clone, Copy)]
pub struct Asking<'w> {
    /// What answers.
    pub engine: Answerer,
    /// Worker threads for solves and searches.
    pub threads: usize,
    /// What hears a search's progress (None: nothing).
    pub watch: Option<&'w dyn SearchWatch>,
    /// Wilson's last-move penalty the answer is under (none: the plain game).
    pub penalty: Penalty,
    /// Most bytes a search's table may take (None: what the machine and `ulimit -v` allow,
    /// [`super::estimate::table_bytes_here`]); a server shares its memory limit out this way.
    pub table_cap: Option<u64>,
    /// Set by another thread to stop a solve or search started for the answer (a server's
    /// analysis that nobody waits for any more).
    pub stop: Option<&'w std::sync::atomic::AtomicBool>,
}

impl Asking<'static> {
    /// `engine` on `threads` threads, with nothing watching, for the plain game.
    pub fn new(engine: Answerer, threads: usize) -> Asking<'static> {
        Asking { engine, threads, watch: None, penalty: Penalty::NONE, table_cap: None, stop: None }
    }
}

impl<'w> Asking<'w> {
    /// The same, under the last-move `penalty`.
    pub fn under(self, penalty: Penalty) -> Asking<'w> {
        Asking { penalty, ..self }
    }
}

choice! {
    "engine",
    /// What answers a position that no store holds.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Answerer {
        /// The cheapest by the cost model's estimate of each: the retrograde in memory (up to
        /// 32 undrawn lines) or the search engine (up to 44); for a hint, the endgame theorems
        /// first on loops and long chains of any size.
        Auto = "auto",
        /// The retrograde solver in memory (at most 32 undrawn lines).
        Partition = "partition",
        /// The search engine (at most 64 undrawn lines).
        Search = "search",
    }
}

/// Most undrawn lines that `auto` answers: 5x5 positions of 44 undrawn lines take the search
/// minutes and each line more multiplies that; the search engine asked for by name goes on to
/// 64 for a user who will wait.
pub(super) const AUTO_SEARCH_FREE: usize = 44;

/// Why a query failed.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// Reading a value from the store failed.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// Solving a position the store does not hold failed.
    #[error("{0}")]
    Solve(#[from] crate::exec::SolveError),
    /// Searching a position the store does not hold failed.
    #[error("{0}")]
    Search(#[from] SearchError),
    /// No store holds the position, and its undrawn lines (the count) are more than the engine
    /// asked for takes.
    #[error("{}", too_large(*.0, *.1))]
    TooLarge(usize, Answerer),
    /// The position's board is not the store's.
    #[error("the position is a {pos} board, the store's board is {store}")]
    Board {
        /// The position's board size.
        pos: String,
        /// The store's board size.
        store: String,
    },
    /// The last-move penalty does not fit the position's values.
    #[error("{0}")]
    Penalty(#[from] PenaltyError),
    /// The store's solve is under another last-move penalty than the one asked for.
    #[error(
        "the store's solve in '{}' holds values under a last-move penalty of {book}, not {asked}: they are another game's",
        dir.display()
    )]
    BookPenalty {
        /// The solve's folder.
        dir: std::path::PathBuf,
        /// The penalty of its values.
        book: Penalty,
        /// The penalty asked for.
        asked: Penalty,
    },
    /// Under a last-move penalty, the engine asked for values the plain game only, or the
    /// position has more undrawn lines than the one engine that takes a penalty.
    #[error("{}", unpenalised(*.engine, *.free, *.penalty))]
    Unpenalised {
        /// The engine asked for.
        engine: Answerer,
        /// Undrawn lines of the position.
        free: usize,
        /// The penalty asked for.
        penalty: Penalty,
    },
}

impl QueryError {
    /// The setting refused, if one was (a wrapped error says its own).
    pub fn setting(&self) -> Option<Setting> {
        match self {
            QueryError::Penalty(_) | QueryError::BookPenalty { .. } | QueryError::Unpenalised { .. } => {
                Some(Setting::Penalty)
            }
            QueryError::Store(_)
            | QueryError::Solve(_)
            | QueryError::Search(_)
            | QueryError::TooLarge(..)
            | QueryError::Board { .. } => None,
        }
    }

    /// The settings that would answer it.
    pub fn remedies(&self) -> &'static [Remedy] {
        match self {
            QueryError::TooLarge(_, Answerer::Search) => &[Remedy::StoreHolding],
            QueryError::TooLarge(..) => &[Remedy::SearchEngine, Remedy::StoreHolding],
            QueryError::Store(_)
            | QueryError::Solve(_)
            | QueryError::Search(_)
            | QueryError::Board { .. }
            | QueryError::Penalty(_)
            | QueryError::BookPenalty { .. }
            | QueryError::Unpenalised { .. } => &[],
        }
    }
}

/// Why `engine` cannot answer a position of `free` undrawn lines under `penalty`.
fn unpenalised(engine: Answerer, free: usize, penalty: Penalty) -> String {
    if engine == Answerer::Search {
        format!(
            "{SEARCH_PLAIN}: it cannot answer under a last-move penalty of {penalty}; the partition engine can, up to {MAX_FREE_IN_MEMORY} undrawn lines"
        )
    } else {
        format!(
            "no store holds this position under a last-move penalty of {penalty}, and its {free} undrawn lines are too many for the one engine that takes a penalty, the retrograde in memory (at most {MAX_FREE_IN_MEMORY}); the search engine and the endgame theorems value the plain game only"
        )
    }
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
    /// `store` (the book), `solved` (its own undrawn lines, solved now by the retrograde),
    /// `search` (searched now) or, for a hint, `endgame` (the loops-and-chains theorems).
    pub source: String,
    /// Always true: every value is exact (a hint within a budget may instead give a move by
    /// rules, [`super::RulesAnswer`], whose `proven` is false).
    pub proven: bool,
    /// What computed the values: `store`, `endgame`, `partition` (the retrograde) or `search`.
    pub engine: String,
    /// Positions of the search valued from the store instead of searched: a store solved from
    /// a later root than the position's (0 for any other source).
    pub store_leaves: u64,
    /// Wall seconds the answer took.
    pub seconds: f64,
    /// Wilson's last-move penalty the values are under: the player who draws the last line
    /// loses this many boxes (left out when none).
    #[serde(skip_serializing_if = "Penalty::is_none")]
    pub penalty: Penalty,
    /// Who must make the next loony move with best play ([`super::control`]), from the
    /// store's values or a solve in memory of at most 24 undrawn lines; None where the values
    /// of the positions after it are not at hand (the search, the endgame theorems).
    pub next_loony: Option<NextLoony>,
    /// Why `next_loony` is left out where its walk was priced past the answer's budget: one
    /// line (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_loony_left_out: Option<String>,
}

/// Why a position of `free` undrawn lines is beyond `engine`, and what can answer it.
fn too_large(free: usize, engine: Answerer) -> String {
    if engine == Answerer::Auto && free <= MAX_FREE_LINES {
        format!(
            "no store holds this position and its {free} undrawn lines are more than the auto engine searches (at most {AUTO_SEARCH_FREE}: 5x5 positions of 44 took minutes, each line more multiplies it); the search engine tries anyway (up to {MAX_FREE_LINES}), which may take days"
        )
    } else if engine == Answerer::Partition && free <= MAX_FREE_LINES {
        format!(
            "no store holds this position and its {free} undrawn lines are too many to solve in memory (at most {MAX_FREE_IN_MEMORY}); the search engine takes up to {MAX_FREE_LINES}"
        )
    } else {
        format!(
            "no store holds this position and its {free} undrawn lines are too many to search (at most {MAX_FREE_LINES})"
        )
    }
}

/// Answers `pos` from its own undrawn lines with `engine` (the retrograde in memory, or the
/// search engine with every move valued, taking the positions `store` holds as exact leaves);
/// `source` is `solved` or `search`.
pub(crate) fn on_the_spot(pos: Position, ask: Asking, store: Option<&Reader>) -> Result<Answer, QueryError> {
    on_the_spot_until(pos, ask, store, None, None, None)
}

/// Where a search leaves what it proved of its root, finished or not.
pub(super) type SoFarCell = std::sync::Mutex<Option<SoFar>>;

/// [`on_the_spot`], the search giving up at `deadline` ([`SearchError::OutOfTime`]),
/// leaving what it proved in `so_far`, and taking and leaving its table in `kept`.
pub(super) fn on_the_spot_until(
    pos: Position,
    ask: Asking,
    store: Option<&Reader>,
    deadline: Option<std::time::Instant>,
    so_far: Option<&SoFarCell>,
    kept: Option<&KeptTable>,
) -> Result<Answer, QueryError> {
    let Asking { engine, threads, watch, penalty, table_cap, stop } = ask;
    let start = std::time::Instant::now();
    let free = pos.undrawn().len() as usize;
    if let Some(r) = store.filter(|r| r.space().penalty != penalty) {
        return Err(QueryError::BookPenalty { dir: r.dir().to_path_buf(), book: r.space().penalty, asked: penalty });
    }
    let penalised = !penalty.check(pos)?.is_none();
    if penalised && (engine == Answerer::Search || free > MAX_FREE_IN_MEMORY) {
        return Err(QueryError::Unpenalised { engine, free, penalty });
    }
    // Sized only where a search may run: it reads the machine's memory and prices the search.
    let table_bytes = std::cell::LazyCell::new(|| table_bytes_within(pos, table_cap));
    // Only the retrograde takes a penalty: auto picks nothing else.
    let retrograde = penalised
        || match engine {
            Answerer::Auto if free > AUTO_SEARCH_FREE => return Err(QueryError::TooLarge(free, engine)),
            Answerer::Auto => auto_engine(pos, threads, *table_bytes) == Answerer::Partition,
            Answerer::Partition if free <= MAX_FREE_IN_MEMORY => true,
            Answerer::Partition => return Err(QueryError::TooLarge(free, engine)),
            Answerer::Search => false,
        };
    if retrograde {
        let keep_all = free <= KEEP_ALL_FREE;
        let s = solve(pos, SolveOptions { threads, penalty, keep_all, stop, deadline, ..Default::default() })?;
        let moves: Vec<_> = s.moves.iter().map(|m| (m.line, m.boxes, m.value as i32)).collect();
        // The walk gets as long again as the solve took (at least half a second), within the
        // answer's deadline where it has one.
        let model = crate::plan::model_or_built_in();
        let budget = walk_budget(pos, start.elapsed().as_secs_f64(), deadline, WalkValues::Memory, model);
        let (next_loony, next_loony_left_out) = from_solution(pos, &s, budget).fields();
        let answered = answer(pos, penalty, s.value as i32, &moves, "solved", start);
        return Ok(Answer { next_loony, next_loony_left_out, ..answered });
    }
    if free > MAX_FREE_LINES {
        return Err(QueryError::TooLarge(free, engine));
    }
    let line = |p: &SearchProgress| {
        if let Some(w) = watch {
            w.progress(p);
        }
    };
    let progress: Option<&(dyn Fn(&SearchProgress) + Sync)> = watch.map(|_| &line as _);
    let book = store.map(Book::new);
    // The walk for the next loony move gets as long again as the search took (at least half
    // a second), within the answer's deadline where it has one.
    let model = crate::plan::model_or_built_in();
    let walk = |seconds| walk_budget(pos, seconds, deadline, WalkValues::Memory, model);
    let s = search(
        pos,
        SearchOptions {
            tt_bytes: *table_bytes,
            threads,
            progress,
            progress_seconds: watch.map_or(1.0, |w| w.every()),
            book: book.as_ref(),
            deadline,
            stop,
            control: Some(&walk),
            so_far,
            kept,
            ..Default::default()
        },
    );
    if let Some(w) = watch {
        w.done();
    }
    let s = s?;
    let (next_loony, next_loony_left_out) = s.next_loony.fields();
    let answered = answer(pos, penalty, s.value, &s.moves, "search", start);
    Ok(Answer { store_leaves: s.book_hits, next_loony, next_loony_left_out, ..answered })
}

/// The search's default table for `pos`, within `cap` bytes where one is set.
fn table_bytes_within(pos: Position, cap: Option<u64>) -> u64 {
    let here = table_bytes_here(pos);
    cap.map_or(here, |cap| here.min(super::search::usable_bytes(cap.max(super::search::MIN_TT_BYTES))))
}

/// A best move of `pos` and its value by the search, before `deadline`: the position's value,
/// then one null-window test a move until one reaches it (a fraction of every move's value).
/// Plain game only (the search takes no penalty); a store's positions are leaves.
pub(super) fn best_by_search(
    pos: Position,
    ask: Asking,
    store: Option<&Reader>,
    deadline: Option<std::time::Instant>,
    so_far: Option<&SoFarCell>,
    kept: Option<&KeptTable>,
) -> Result<(Line, i32), QueryError> {
    let free = pos.undrawn().len() as usize;
    if free > MAX_FREE_LINES {
        return Err(QueryError::TooLarge(free, Answerer::Search));
    }
    let tt_bytes = table_bytes_within(pos, zeroable_cap(ask, deadline));
    let book = store.filter(|r| r.space().penalty.is_none()).map(Book::new);
    let s = search(
        pos,
        SearchOptions {
            tt_bytes,
            threads: ask.threads,
            move_values: false,
            best_move: true,
            book: book.as_ref(),
            deadline,
            stop: ask.stop,
            so_far,
            kept,
            ..Default::default()
        },
    )?;
    Ok((s.best.expect("a position with an undrawn line has a best move"), s.value))
}

/// The cap on a table searched until `deadline`: no larger than can be zeroed in an eighth of
/// the time left (a large one would spend the budget before the search starts, and again when
/// it is freed), within `ask`'s own cap.
pub(super) fn zeroable_cap(ask: Asking, deadline: Option<std::time::Instant>) -> Option<u64> {
    let cap = deadline.map(|d| {
        let left = d.saturating_duration_since(std::time::Instant::now()).as_secs_f64();
        let zeroed = (left / 8.0 / (super::estimate::TABLE_NS_PER_BYTE * 1e-9)) as u64;
        ask.table_cap.map_or(zeroed, |c| c.min(zeroed))
    });
    cap.or(ask.table_cap)
}

/// A best move of `pos` and the position's value by the search engine on `ask.threads`
/// threads, with no store, giving up at `deadline` where one is given: exact play where the
/// search reaches, without every move's value.
pub fn best_move(pos: Position, ask: Asking, deadline: Option<std::time::Instant>) -> Result<(Line, i32), QueryError> {
    best_by_search(pos, ask, None, deadline, None, None)
}

/// The engine `auto` answers `pos` with on `threads` threads: the one the cost model (the
/// default model, [`crate::plan::load_model`]) prices cheapest, the search with a table of
/// `table_bytes`.
pub fn auto_engine(pos: Position, threads: usize, table_bytes: u64) -> Answerer {
    let model = crate::plan::model_or_built_in();
    EngineCosts::of(pos, model, threads, table_bytes).cheapest().unwrap_or(Answerer::Search)
}

/// Where an answer came from, for people: "read from the store", "solved now", "searched
/// now" (with how many positions the store gave the search), or the endgame theorems.
fn source_words(a: &Answer) -> String {
    match a.source.as_str() {
        "store" => "read from the store".into(),
        "solved" => "solved now".into(),
        "search" if a.store_leaves > 0 => {
            format!(
                "searched now, {} from the store's later solve",
                crate::support::count_of(a.store_leaves, "position")
            )
        }
        "search" => "searched now".into(),
        _ => "from the endgame theorems (Allcock)".into(),
    }
}

impl Answer {
    /// The value, best moves and every move, as every command prints them.
    pub fn lines(&self) -> ValueLines<'_> {
        ValueLines { value: self.value, best: &self.best, moves: &self.moves, valued: true }
    }
}

/// As every command prints an answer: its values, then where it came from and how long it took.
impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.lines())?;
        if let Some(n) = self.next_loony {
            writeln!(f, "next loony move: {}", n.words())?;
        }
        if let Some(why) = &self.next_loony_left_out {
            writeln!(f, "next loony move: {why}")?;
        }
        if !self.penalty.is_none() {
            writeln!(f, "last-move penalty {} ({})", self.penalty, self.penalty.words())?;
            if let Some(line) = super::analysis::nimstring_line(&self.board, &self.root, self.penalty) {
                writeln!(f, "{line}")?;
            }
        }
        writeln!(f, "source: {} ({:.3} s)", source_words(self), self.seconds)
    }
}

/// The engine behind a source: the retrograde for `solved`, else the source's own name.
pub(super) fn engine_of(source: &str) -> &str {
    if source == "solved" { "partition" } else { source }
}

/// The answer of these values, under `penalty`.
pub(super) fn answer(
    pos: Position,
    penalty: Penalty,
    value: i32,
    moves: &[(Line, u8, i32)],
    source: &str,
    start: std::time::Instant,
) -> Answer {
    let moves: Vec<MoveReport> = moves.iter().map(|&(l, boxes, v)| MoveReport::new(pos, l, boxes, v)).collect();
    let best = crate::game::best_moves(&moves, value);
    Answer {
        board: pos.board.to_string(),
        root: pos.to_line_string(),
        value,
        moves,
        best,
        source: source.into(),
        proven: true,
        engine: engine_of(source).into(),
        store_leaves: 0,
        seconds: start.elapsed().as_secs_f64(),
        penalty,
        next_loony: None,
        next_loony_left_out: None,
    }
}

/// Answers from the store when it holds the position and every position after one move;
/// otherwise answers on the spot as `ask` says.
pub fn query(reader: &Reader, pos: Position, ask: Asking) -> Result<Answer, QueryError> {
    match from_book(reader, pos, ask.penalty, None)? {
        Some(a) => Ok(a),
        None => on_the_spot(pos, ask, Some(reader)),
    }
}

/// The store's own answer for `pos`: its value, every move's, and who must make the next
/// loony move within the walk's least budget; None where the store does not hold the position
/// and every position after one move (nothing is solved on the spot).
pub fn from_store(reader: &Reader, pos: Position, penalty: Penalty) -> Result<Option<Answer>, QueryError> {
    from_book(reader, pos, penalty, None)
}

/// The store's answer, when it holds the position and every position after one move; refused
/// where the store's solve is under another penalty than `penalty`. The walk for the next
/// loony move ends by `deadline` where one is given.
pub(super) fn from_book(
    reader: &Reader,
    pos: Position,
    penalty: Penalty,
    deadline: Option<std::time::Instant>,
) -> Result<Option<Answer>, QueryError> {
    let start = std::time::Instant::now();
    let book = reader.space().penalty;
    if book != penalty {
        return Err(QueryError::BookPenalty { dir: reader.dir().to_path_buf(), book, asked: penalty });
    }
    let board = reader.space().board();
    if pos.board != board {
        return Err(QueryError::Board { pos: pos.board.to_string(), store: board.to_string() });
    }
    let Some(value) = reader.value(pos.drawn)? else { return Ok(None) };
    let mut moves = Vec::new();
    for line in pos.undrawn().iter() {
        let boxes = board.completes(pos.drawn, line) as i8;
        let Some(v) = reader.value(pos.drawn.with(line))? else { return Ok(None) };
        moves.push((line, boxes as u8, move_value(boxes, v) as i32));
    }
    // The walk reads the store a value at a time: priced so, with as long again as the
    // answer's own reads took (at least half a second).
    let model = crate::plan::model_or_built_in();
    let budget = walk_budget(pos, start.elapsed().as_secs_f64(), deadline, WalkValues::Store, model);
    let mut value_of = |drawn| reader.value(drawn);
    let (next_loony, next_loony_left_out) = next_loony_within(pos, budget, &mut value_of)?.fields();
    Ok(Some(Answer { next_loony, next_loony_left_out, ..answer(pos, penalty, value as i32, &moves, "store", start) }))
}
