//! The search engine: alpha-beta over net future boxes, for positions the retrograde cannot
//! reach whole. A position is renumbered as the solver does (its undrawn lines, at most 64,
//! in a `u64`: bit i set = undrawn line i drawn) and searched depth first, with
//! - captures taken at once where no choice that can be best is lost: a box completed by a line
//!   whose other box does not get its third side, and the first box of a chain of at least 3
//!   (half open) or 5 (closed) capturable boxes, whose all-but-two (all-but-four) choice comes
//!   later;
//! - a transposition table of bounded size, shared by every thread, holding a lower and an upper
//!   bound, keyed where no symmetry fixes the root by the position's strings-and-coins graph
//!   (its paths through boxes of two undrawn sides, by their ends and lengths; a 64-bit hash
//!   kept move by move), else by the canonical state (interchangeable border lines of a box
//!   normalised, then the least image under the symmetries that fix the root);
//! - every bound stored or returned tightened to the parity of the boxes left, which every
//!   value has, and the root's tests two apart (on two threads one at a time, both threads
//!   on it);
//! - enhanced transposition cutoffs: a node of many undrawn lines first looks up the children
//!   of its moves that give no box (their buckets prefetched together) and stops where the
//!   table already refutes one's reply, and then the positions after its chain and loop
//!   openings, where the table's bounds may already make one worth enough;
//! - loony endgames of independent chains and loops valued at once: by Allcock's theorems where
//!   every chain is long, with the chains of one and two boxes opened in turn on top of them by
//!   a memoised recursion where some are short;
//! - moves ordered: the table's best move, then captures, then moves that give no box, then
//!   openings of short chains, of long chains and loops, and the rest;
//! - the root's moves searched in parallel on rayon (root splitting), each to its exact value.
//!
//! Values follow the solver's convention: a move that completes n boxes is worth n plus the
//! value after it (the same player moves again), any other move minus the value after it.
//!
//! The files: `table.rs` (the transposition table), `rules.rs` (the capture and chain rules,
//! canonical states), `graph.rs` (keys by the strings-and-coins graph), `leaves.rs`
//! (the theorem and retrograde leaves), `book.rs` (a store's
//! positions as exact leaves), `bitmap.rs` (state maps by byte tables), `searcher.rs` (one thread's
//! alpha-beta and MTD(f)), `driver.rs` (the threads, the progress and the outcome).

mod bitmap;
mod book;
mod driver;
mod graph;
mod leaves;
mod rules;
mod searcher;
mod table;

use crate::game::{Line, Value};

use super::control::{Control, WalkBudget};
use crate::solver::MAX_FREE_LINES;
use crate::store::Book;
use crate::support::Setting;

pub use driver::search;
pub(crate) use table::ENTRY_BYTES;
pub(crate) use table::MIN_TT_BYTES;

/// Fewest bytes a transposition table may have: one bucket (a table given less is refused).
pub const MIN_TABLE_BYTES: u64 = MIN_TT_BYTES;
pub use table::table_bytes;
pub(crate) use table::usable_bytes;

/// Why a position could not be searched.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SearchError {
    /// More undrawn lines than a state holds.
    #[error("the position has {0} undrawn lines; the search engine takes at most {MAX_FREE_LINES}")]
    TooLarge(usize),
    /// The table was given less room than one bucket.
    #[error("a transposition table of {0} bytes is too small: it needs at least {MIN_TT_BYTES} bytes")]
    TableTooSmall(u64),
    /// The system would not give the table its memory.
    #[error("a transposition table of {} is more memory than this machine gives: it could not be allocated", crate::support::about_bytes(*.0 as f64))]
    TableTooLarge(u64),
    /// A file of the store given as leaves could not be read (the message names it).
    #[error("{0}")]
    Book(String),
    /// The deadline passed before the search finished (the seconds it ran).
    #[error("the search did not finish within its time ({0:.2} s)")]
    OutOfTime(f64),
    /// The search was asked to stop ([`SearchOptions::stop`]).
    #[error("the search was stopped before it finished: nobody waits for its answer any more")]
    Stopped,
}

impl SearchError {
    /// The setting refused, if one was.
    pub fn setting(&self) -> Option<Setting> {
        match self {
            SearchError::TableTooSmall(_) | SearchError::TableTooLarge(_) => Some(Setting::TableSize),
            SearchError::TooLarge(_) | SearchError::Book(_) | SearchError::OutOfTime(_) | SearchError::Stopped => None,
        }
    }
}

/// Default table size: 256 MiB.
pub const DEFAULT_TT_BYTES: u64 = 256 << 20;

/// What a search is asked.
#[derive(Clone, Copy)]
pub struct SearchOptions<'p> {
    /// Bytes of the transposition table (rounded down to a power of two entries).
    pub tt_bytes: u64,
    /// Worker threads (the root's moves are shared out among them).
    pub threads: usize,
    /// Called every `progress_seconds` while the search runs, from a thread of its own.
    pub progress: Option<&'p (dyn Fn(&SearchProgress) + Sync)>,
    /// Seconds between calls of `progress`.
    pub progress_seconds: f64,
    /// Whether every move's exact value is searched too (else only the position's value).
    pub move_values: bool,
    /// Without `move_values`: whether a best move is found too (each root move tested against
    /// the value with a null window until one reaches it), in [`SearchOutcome::best`].
    pub best_move: bool,
    /// Whether positions made only of loops and chains are valued by Allcock's theorems, with
    /// any chains of one or two boxes opened in turn on top of them (off only to measure what
    /// they save).
    pub theorems: bool,
    /// Positions of at most this many undrawn lines (at most [`MAX_LEAF_LINES`]) are valued
    /// by a retrograde pass over their subsets instead of searched. 0 by default: the table
    /// already makes the last plies cheap (docs/notes/search-notes.md).
    pub leaf_lines: usize,
    /// Positions of at least this many undrawn lines look their children up in the table
    /// before searching any (enhanced transposition cutoffs); [`ETC_LINES`] by default, 0 at
    /// every position (what the tests use to check them).
    pub etc_lines: u32,
    /// Positions of at least this many undrawn lines are marked while a thread searches them,
    /// and another thread puts off a move (but a node's first) to one so marked until it has
    /// searched the others (ABDADA's exclusive moves); [`BUSY_LINES`] by default, 0 at every
    /// position (what the tests use to check it). Only where the search has two threads or more.
    pub busy_lines: u32,
    /// Whether positions are keyed in the table by their strings-and-coins graph where no
    /// symmetry fixes the root (positions whose boxes of two undrawn sides run other routes
    /// share an entry; `graph.rs`), rather than by their canonical state. On by default: 5x5
    /// positions of 44 undrawn lines visit 1.4-1.9x fewer positions, in 1.0-1.4x less time
    /// (docs/notes/search-notes.md). The key is a 64-bit hash, so two positions may share an entry
    /// (about one false hit in 2,000 searches of 1e8 positions, against none by the state);
    /// off for exact keys.
    pub graph_keys: bool,
    /// A store whose positions are exact leaves: a node it holds is not searched. Only a
    /// store solved from a root later than the searched position can hold a node (a store from
    /// an earlier root that does not hold the position holds none of the positions after it);
    /// a store of another root is not used.
    pub book: Option<&'p Book<'p>>,
    /// When the search gives up with [`SearchError::OutOfTime`] (checked every
    /// [`FLUSH`] positions of each thread; None: never).
    pub deadline: Option<std::time::Instant>,
    /// Set by another thread to stop the search ([`SearchError::Stopped`]): a server's
    /// analysis that nobody waits for any more.
    pub stop: Option<&'p std::sync::atomic::AtomicBool>,
    /// Where given, who must make the next loony move is walked too, on the search's own
    /// table, within the budget this gives for the search's seconds (its seconds only: a
    /// value the walk reads is a search, whose price no walk holds, so it goes by the clock).
    /// None: [`SearchOutcome::next_loony`] is [`Control::Unknown`].
    pub control: Option<&'p (dyn Fn(f64) -> WalkBudget + Sync)>,
    /// The root's first test is near this value (0 by default): a value known of the position
    /// before the last moves spares the tests that climb to it.
    pub guess: i32,
    /// Where the search leaves what it proved of the root, whether it finished or not (out of
    /// time, stopped): a player out of time plays the move proven best so far.
    pub so_far: Option<&'p std::sync::Mutex<Option<SoFar>>>,
    /// A table kept from the last search that left one here, taken where it holds positions
    /// of this root (see [`KeptTable`]), and left here after this search; else a new table.
    pub kept: Option<&'p KeptTable>,
}

/// A transposition table kept from one search to the next: a player's search at one move finds
/// what its search at the move before proved of the positions both reach. Every bound in a
/// table is a bound on its position's value, whatever the root, and a graph's key names its
/// paths by the boxes with an undrawn side (`graph.rs`), numbered alike from roots whose
/// completed boxes are the same: such a table is taken by a graph-keyed search of a root of the
/// same board and the same completed boxes, and given up otherwise (a best move it keeps is a
/// hint the move order checks). A search that does not finish writes only what it proved. One
/// search takes it at a time; another at the same time gets a table of its own.
#[derive(Default)]
pub struct KeptTable(std::sync::Mutex<Option<Kept>>);

/// Largest table kept between searches: a player's searches of a second or so fill less, and
/// a long analysis's table is not held by an idle process.
pub const KEPT_MAX_BYTES: u64 = 1 << 30;

/// A kept table and the positions its keys are of.
struct Kept {
    board: crate::game::Board,
    /// The boxes with an undrawn side at the root it was searched from.
    live: Vec<usize>,
    table: table::Table,
}

impl KeptTable {
    /// An empty slot.
    pub const fn new() -> KeptTable {
        KeptTable(std::sync::Mutex::new(None))
    }

    /// The table kept for roots of `board` whose boxes with an undrawn side are `live`, taken
    /// out (None where none is kept, or it is another root's, which is then given up).
    fn take(&self, board: crate::game::Board, live: &[usize]) -> Option<table::Table> {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner()).take()?;
        (kept.board == board && kept.live == live).then_some(kept.table)
    }

    /// Keeps `table`, searched from roots of `board` whose boxes with an undrawn side are
    /// `live`, unless it is larger than [`KEPT_MAX_BYTES`] (it is then freed).
    fn keep(&self, board: crate::game::Board, live: Vec<usize>, table: table::Table) {
        if table.bytes() <= KEPT_MAX_BYTES {
            *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(Kept { board, live, table });
        }
    }
}

/// What a search proved of its root, finished or not: the bounds on its value, and a move
/// proven worth the lower bound where a test found one (the best move where they meet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoFar {
    /// The root's value is at least this (below -[`MAX_BOXES_LEFT`]: nothing proven).
    pub lower: i32,
    /// The root's value is at most this (above [`MAX_BOXES_LEFT`]: nothing proven).
    pub upper: i32,
    /// A move proven worth at least `at_least`, where one was found.
    pub best: Option<Line>,
    /// What `best` is proven worth (at most `lower`).
    pub at_least: i32,
}

impl SoFar {
    /// Whether the root's value is proven (the bounds meet) with a move proven to reach it.
    pub fn proven_best(&self) -> Option<(Line, i32)> {
        self.best.filter(|_| self.lower >= self.upper && self.at_least >= self.lower).map(|l| (l, self.lower))
    }
}

impl Default for SearchOptions<'_> {
    fn default() -> Self {
        SearchOptions {
            tt_bytes: DEFAULT_TT_BYTES,
            threads: 1,
            progress: None,
            progress_seconds: 1.0,
            move_values: true,
            best_move: false,
            theorems: true,
            leaf_lines: 0,
            etc_lines: ETC_LINES,
            busy_lines: BUSY_LINES,
            graph_keys: true,
            book: None,
            deadline: None,
            stop: None,
            control: None,
            guess: 0,
            so_far: None,
            kept: None,
        }
    }
}

/// How far a search has come.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchProgress {
    /// Positions searched so far (counted in batches of [`FLUSH`]).
    pub nodes: u64,
    /// Table probes that answered or narrowed the window so far.
    pub table_hits: u64,
    /// The root's value is proven at least this (below -[`MAX_BOXES_LEFT`]: nothing proven
    /// yet).
    pub lower: i32,
    /// The root's value is proven at most this (above [`MAX_BOXES_LEFT`]: nothing proven yet).
    pub upper: i32,
    /// The root's moves searched to their values.
    pub root_moves_done: usize,
    /// The root's moves.
    pub root_moves: usize,
    /// Wall seconds since the search began.
    pub seconds: f64,
    /// Seconds left to value the rest of the root's moves at the rate of those valued so far
    /// (None before the first).
    pub moves_left_seconds: Option<f64>,
}

/// Fewest undrawn lines at which a node looks its children up before searching them
/// (`Searcher::etc`): 5x5 positions of 44 undrawn lines searched 20-27 % fewer positions in
/// 1.2-1.4x less time with 24 (20 no better; 12 slower than none).
pub const ETC_LINES: u32 = 24;

/// Fewest undrawn lines at which a node with nothing capturable keeps its paths
/// (`graph::Arms`, found from those of the node above that kept them) so that its children's
/// graph keys are a few codes summed rather than walks, and its lines' openings read rather
/// than walked: 20 measured a little faster than 24 and no slower than 16 (docs/notes/search-notes.md).
pub const ARMS_LINES: u32 = 20;

/// Fewest undrawn lines at which the threads mark the positions they search and put off moves
/// to those another thread searches (`SearchOptions::busy_lines`): on the fifteen 5x5 games of
/// 44 undrawn lines, 36 to 42 alike (game 5 5.3-5.6 s on 2 threads, against 6.0 s without the
/// marks, 6.5-6.7 s from 24, 7.7 s from 44, the root alone), and 34 to 40 again once two
/// threads shared one root test (42: game 5 5.4-7.2 s against 4.8-5.0 s), docs/notes/search-notes.md.
pub const BUSY_LINES: u32 = 38;

/// Nodes a thread counts before adding them to the shared counters the progress reads.
pub(crate) const FLUSH: u64 = 1 << 16;

/// What a search found and what it took.
#[derive(Clone, Debug)]
pub struct SearchOutcome {
    /// The position's value: net future boxes for the player to move (up to
    /// [`MAX_BOXES_LEFT`], past a [`Value`]).
    pub value: i32,
    /// Every undrawn line, in line order: (line, boxes it completes, value of playing it).
    pub moves: Vec<(Line, u8, i32)>,
    /// A best move, where [`SearchOptions::best_move`] asked for one (None on a full board).
    pub best: Option<Line>,
    /// Positions searched (table hits included).
    pub nodes: u64,
    /// Table probes that answered or narrowed the window.
    pub table_hits: u64,
    /// Positions valued from the store's book instead of searched.
    pub book_hits: u64,
    /// Bytes of the table.
    pub table_bytes: u64,
    /// Wall seconds (the walk for the next loony move apart).
    pub seconds: f64,
    /// Who must make the next loony move, where [`SearchOptions::control`] asked.
    pub next_loony: Control,
}

/// Most undrawn lines a position valued by the retrograde leaf may have.
pub(crate) const MAX_LEAF_LINES: usize = 12;

/// The most boxes a position the search takes can have left: each box left has an undrawn
/// side and a line borders two boxes at most, so 64 undrawn lines leave at most 128 (a value
/// lies in [-128, 128]).
pub const MAX_BOXES_LEFT: i32 = 2 * MAX_FREE_LINES as i32;

/// Larger than any score a position can have: its boxes left ([`MAX_BOXES_LEFT`]) and a
/// last-move penalty besides (at most [`Value::MAX`], which the search does not take, but a
/// bound past both holds whatever a value may come to mean). Every value and window bound of
/// the search, and its root's shared bounds, hold it.
const INF: i32 = MAX_BOXES_LEFT + Value::MAX as i32 + 1;
