//! One analysis of a position by any engine (the partitioned solver or a slow twin), as the
//! command line and the benchmark report it: the value, every move's value, the best moves and
//! what it cost. Under a last-move penalty only the retrograde engines answer (the partitioned
//! solver and its twins); the search engine refuses it by name.

use serde::{Deserialize, Serialize};

use crate::exec::solve;
use crate::game::{Line, MoveReport, Penalty, PenaltyError, Position, Value, ValueLines, move_value};
use crate::plan::SolveEstimate;
use crate::support::{Setting, choice, peak_rss_bytes};

use super::control::{Control, KEEP_ALL_FREE, NextLoony, WalkBudget, from_solution, next_loony_within};
use super::estimate::{WalkValues, walk_budget};
use super::search::{SearchError, SearchOptions, search};
use crate::solver::{Dense, MAX_FREE_LINES, SolveOptions, SpaceError, Traffic, TwinError, minimax_under};

choice! {
    "engine",
    /// Which solver computes the values.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Engine {
        /// Retrograde analysis over symmetric partitions (the real solver).
        Partition = "partition",
        /// Dense retrograde over all 2^k subsets of the undrawn lines (slow twin, k <= 32).
        Dense = "dense",
        /// Memoised minimax (slow twin, small positions only).
        Minimax = "minimax",
        /// Alpha-beta search with a transposition table, for positions of up to 64 undrawn
        /// lines (the retrograde in memory takes 32).
        Search = "search",
    }
}

/// Why an analysis failed.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// The space could not be built with the groups asked for ([`analyse`] itself reports this
    /// inside [`AnalysisError::Solve`]).
    #[error("{0}")]
    Space(#[from] SpaceError),
    /// A slow twin refused the position: too many undrawn lines for it.
    #[error("{0}")]
    Twin(#[from] TwinError),
    /// The search refused the position or its table size.
    #[error("{0}")]
    Search(#[from] SearchError),
    /// The partitioned solve failed.
    #[error("{0}")]
    Solve(#[from] crate::exec::SolveError),
    /// The partitioned engine was given more than 32 undrawn lines: what a whole solve would
    /// cost, and what can answer instead.
    #[error(
        "the position has {} undrawn lines; solving in memory handles at most {MAX_FREE_IN_MEMORY}: {estimate}; {}",
        estimate.size.free,
        instead(estimate.size.free)
    )]
    TooLarge {
        /// The whole solve's size and time.
        estimate: Box<SolveEstimate>,
    },
    /// The last-move penalty does not fit the position's values.
    #[error("{0}")]
    Penalty(#[from] PenaltyError),
    /// The search engine was asked under a last-move penalty, which it cannot take.
    #[error(
        "{SEARCH_PLAIN}: it cannot value the game under a last-move penalty of {0}; the partition engine and the slow twins can"
    )]
    SearchUnderPenalty(Penalty),
}

impl AnalysisError {
    /// The setting refused, if one was (a wrapped error says its own).
    pub fn setting(&self) -> Option<Setting> {
        match self {
            AnalysisError::SearchUnderPenalty(_) | AnalysisError::Penalty(_) => Some(Setting::Penalty),
            AnalysisError::Space(_)
            | AnalysisError::Twin(_)
            | AnalysisError::Search(_)
            | AnalysisError::Solve(_)
            | AnalysisError::TooLarge { .. } => None,
        }
    }
}

/// Why the search engine takes no last-move penalty.
pub(super) const SEARCH_PLAIN: &str = "the search engine values the plain game only (its capture and chain rules and its endgame leaves assume no penalty)";

/// Most undrawn lines a solve in memory takes.
pub const MAX_FREE_IN_MEMORY: usize = 32;

/// What answers a position of `free` undrawn lines that a solve in memory does not take.
fn instead(free: usize) -> String {
    if free <= MAX_FREE_LINES {
        format!("`dab run` solves positions of up to {MAX_FREE_LINES} undrawn lines through a store")
    } else {
        format!(
            "the retrograde solver takes at most {MAX_FREE_LINES} undrawn lines; `dab endgame` values positions of loops and long chains of any size"
        )
    }
}

/// An engine's analysis of a position, as `dab solve` prints it (or writes it as JSON).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Analysis {
    /// The board size, as `MxN`.
    pub board: String,
    /// The position analysed, as a line string (named as a plan names its root).
    pub root: String,
    /// The engine that computed the values.
    pub engine: Engine,
    /// The position's value: net future boxes for the player to move.
    pub value: i32,
    /// Every undrawn line with the value of playing it, in line order.
    pub moves: Vec<MoveReport>,
    /// The names of the moves of best value.
    pub best: Vec<String>,
    /// Positions stored (partitioned: after symmetry and interchangeable lines; dense: 2^k).
    pub positions: u64,
    /// Lines in each group of the partitioned solve (empty for the twins).
    pub groups: Vec<u32>,
    /// Partitions computed (1 for dense, 0 for minimax).
    pub partitions: usize,
    /// Wall seconds the engine took.
    pub seconds: f64,
    /// `positions` per wall second (0 when no time was measured).
    pub positions_per_second: f64,
    /// Most bytes of position values held at once.
    pub peak_value_bytes: u64,
    /// Peak resident memory of the whole process (VmHWM), when the system reports it.
    pub peak_rss_bytes: Option<u64>,
    /// Worker threads used (always 1 for the twins).
    pub threads: usize,
    /// Bytes the kernel read and wrote for the partitions it computed, by the traffic model
    /// ([`crate::solver::Traffic`]: each value written once, each successor read whole by
    /// each reader); None for the twins.
    #[serde(default)]
    pub bytes_moved: Option<u64>,
    /// `bytes_moved` per wall second, in GB/s (10^9 bytes): a lower bound on the memory
    /// bandwidth the solve used; None for the twins.
    #[serde(default)]
    pub gigabytes_per_second: Option<f64>,
    /// Wilson's last-move penalty the values are under: the player who draws the last line
    /// loses this many boxes (left out when none).
    #[serde(default, skip_serializing_if = "Penalty::is_none")]
    pub penalty: Penalty,
    /// Who must make the next loony move with best play ([`super::control`]): from the dense
    /// twin's table, or the partitioned solver's partitions kept where the position has at
    /// most 24 undrawn lines and no store is given; None otherwise (the search and minimax keep no table of values).
    #[serde(default)]
    pub next_loony: Option<NextLoony>,
    /// Why `next_loony` is left out where its walk was priced past the answer's budget: one
    /// line (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_loony_left_out: Option<String>,
}

/// What an engine found, before it is reported.
struct Outcome {
    /// The position's value (the search's may pass a [`Value`]: 128 boxes can be left).
    value: i32,
    /// (line, boxes it completes, value of playing it) for every undrawn line.
    moves: Vec<(Line, u8, i32)>,
    positions: u64,
    groups: Vec<u32>,
    partitions: usize,
    peak_value_bytes: u64,
    /// The kernel's traffic (partitioned solver only).
    traffic: Option<Traffic>,
    /// Who must make the next loony move, worked out after the engine's time is taken (the
    /// walk reads the engine's values but is not the engine's work), within its budget.
    next_loony: Box<dyn FnOnce(WalkBudget) -> Control>,
    /// The engine's own seconds, where it walked for the next loony move itself (the search,
    /// on its table): the walk is not the engine's work.
    seconds: Option<f64>,
}

/// Solves `root` with `engine` and reports the root's value and every move.
pub fn analyse(root: Position, engine: Engine, opts: SolveOptions) -> Result<Analysis, AnalysisError> {
    analyse_with(root, engine, opts, SearchOptions::default())
}

/// [`analyse`] with the search engine's table size and progress from `search` (its thread
/// count is `opts.threads`).
pub fn analyse_with(
    root: Position,
    engine: Engine,
    opts: SolveOptions,
    search_opts: SearchOptions,
) -> Result<Analysis, AnalysisError> {
    let penalty = opts.penalty.check(root)?;
    if engine == Engine::Search && !penalty.is_none() {
        return Err(AnalysisError::SearchUnderPenalty(penalty));
    }
    let (threads, deadline) = (opts.threads, opts.deadline);
    let start = std::time::Instant::now();
    let outcome = match engine {
        Engine::Partition => by_partition(root, opts)?,
        Engine::Dense => by_dense(root, penalty)?,
        Engine::Search => {
            // The search walks for the next loony move on its own table, as long again as it
            // took (at least half a second), within the answer's deadline.
            let model = crate::plan::model_or_built_in();
            let walk = |seconds| walk_budget(root, seconds, deadline, WalkValues::Memory, model);
            by_search(root, SearchOptions { threads, control: Some(&walk), ..search_opts })?
        }
        Engine::Minimax => by_minimax(root, penalty)?,
    };
    let seconds = outcome.seconds.unwrap_or_else(|| start.elapsed().as_secs_f64());
    // The twins run in one thread whatever was asked.
    let threads = if matches!(engine, Engine::Partition | Engine::Search) { threads } else { 1 };
    // The walk for the next loony move gets as long again as the engine took (at least half
    // a second), within the answer's deadline where it has one.
    let budget = walk_budget(root, seconds, deadline, WalkValues::Memory, crate::plan::model_or_built_in());
    Ok(report(root, engine, outcome, seconds, threads, penalty, budget))
}

/// The partitioned solver's outcome (refused past [`MAX_FREE_IN_MEMORY`] undrawn lines, with
/// what a whole solve would cost).
fn by_partition(root: Position, opts: SolveOptions) -> Result<Outcome, AnalysisError> {
    let free = root.undrawn().len() as usize;
    if free > MAX_FREE_IN_MEMORY {
        let model = crate::plan::model_or_built_in();
        return Err(AnalysisError::TooLarge { estimate: Box::new(SolveEstimate::of(root, model, opts.threads)) });
    }
    // A solve resumed from a store does not hold the partitions it read back.
    let keep_all = opts.keep_all || (free <= KEEP_ALL_FREE && opts.store.is_none());
    let s = solve(root, SolveOptions { keep_all, ..opts })?;
    Ok(Outcome {
        value: s.value as i32,
        moves: s.moves.iter().map(|m| (m.line, m.boxes, m.value as i32)).collect(),
        positions: s.positions,
        groups: s.space.groups.iter().map(|g| g.size).collect(),
        partitions: s.partitions,
        peak_value_bytes: s.peak_bytes,
        traffic: Some(s.traffic),
        next_loony: Box::new(move |budget| from_solution(root, &s, budget)),
        seconds: None,
    })
}

/// The dense twin's outcome: its whole table is kept, for the next loony move.
fn by_dense(root: Position, penalty: Penalty) -> Result<Outcome, AnalysisError> {
    let d = Dense::solve_under(root, penalty)?;
    let moves = twin_moves(root, |after| Ok(d.value(after.drawn)))?;
    let len = d.values.len() as u64;
    Ok(Outcome {
        value: d.values[0] as i32,
        moves,
        positions: len,
        groups: vec![],
        partitions: 1,
        peak_value_bytes: len,
        traffic: None,
        next_loony: Box::new(move |budget| {
            let mut value = |drawn| Ok::<_, std::convert::Infallible>(Some(d.value(drawn)));
            next_loony_within(root, budget, &mut value).unwrap_or_else(|e| match e {})
        }),
        seconds: None,
    })
}

/// The search's outcome: positions visited, and its table as the bytes held.
fn by_search(root: Position, opts: SearchOptions) -> Result<Outcome, AnalysisError> {
    let s = search(root, opts)?;
    Ok(Outcome {
        value: s.value,
        moves: s.moves,
        positions: s.nodes,
        groups: vec![],
        partitions: 0,
        peak_value_bytes: s.table_bytes,
        traffic: None,
        next_loony: Box::new(move |_| s.next_loony),
        seconds: Some(s.seconds),
    })
}

/// Memoised minimax's outcome: no positions counted, no table kept.
fn by_minimax(root: Position, penalty: Penalty) -> Result<Outcome, AnalysisError> {
    let minimax = |pos| minimax_under(pos, penalty);
    let moves = twin_moves(root, minimax)?;
    let value = minimax(root)?;
    Ok(Outcome {
        value: value as i32,
        moves,
        positions: 0,
        groups: vec![],
        partitions: 0,
        peak_value_bytes: 0,
        traffic: None,
        next_loony: Box::new(|_| Control::Unknown),
        seconds: None,
    })
}

/// The analysis `engine` gives of `root` from its outcome, `seconds` the engine's time.
fn report(
    root: Position,
    engine: Engine,
    outcome: Outcome,
    seconds: f64,
    threads: usize,
    penalty: Penalty,
    budget: WalkBudget,
) -> Analysis {
    let moves: Vec<MoveReport> =
        outcome.moves.iter().map(|&(l, boxes, v)| MoveReport::new(root, l, boxes, v)).collect();
    let best = crate::game::best_moves(&moves, outcome.value);
    let (next_loony, next_loony_left_out) = (outcome.next_loony)(budget).fields();
    Analysis {
        board: root.board.to_string(),
        root: root.to_line_string(),
        engine,
        value: outcome.value,
        moves,
        best,
        positions: outcome.positions,
        groups: outcome.groups,
        partitions: outcome.partitions,
        seconds,
        positions_per_second: if seconds > 0.0 { outcome.positions as f64 / seconds } else { 0.0 },
        peak_value_bytes: outcome.peak_value_bytes,
        peak_rss_bytes: peak_rss_bytes(),
        threads,
        bytes_moved: outcome.traffic.map(|t| t.bytes()),
        gigabytes_per_second: outcome.traffic.map(|t| t.gigabytes_per_second(seconds)),
        penalty,
        next_loony,
        next_loony_left_out,
    }
}

/// Every undrawn line of `root` with the value of playing it, from a twin's value of the
/// position after it.
fn twin_moves(
    root: Position,
    value_after: impl Fn(Position) -> Result<Value, TwinError>,
) -> Result<Vec<(Line, u8, i32)>, TwinError> {
    root.undrawn()
        .iter()
        .map(|l| {
            let n = root.board.completes(root.drawn, l) as i8;
            let after = value_after(Position { board: root.board, drawn: root.drawn.with(l) })?;
            Ok((l, n as u8, move_value(n, after) as i32))
        })
        .collect()
}

impl Analysis {
    /// Undrawn lines of the analysed position.
    pub fn free_lines(&self) -> usize {
        self.root.bytes().filter(|&b| b == b'0').count()
    }

    /// The value, best moves and every move, as every command prints them.
    pub fn lines(&self) -> ValueLines<'_> {
        ValueLines {
            value: self.value,
            best: &self.best,
            moves: &self.moves,
            valued: !self.moves.is_empty() || !self.best.is_empty() || self.free_lines() == 0,
        }
    }
}

/// What an answer's values under `penalty` say of Nimstring, for the position `root` of
/// `board` (as an answer names them), where the penalty passes its boxes left.
pub(super) fn nimstring_line(board: &str, root: &str, penalty: crate::game::Penalty) -> Option<String> {
    let board = board.parse::<crate::game::Board>().ok()?;
    penalty.nimstring_words(Position::from_line_string(board, root).ok()?)
}

impl std::fmt::Display for Analysis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "board {}, {} undrawn lines, engine: {}", self.board, self.free_lines(), self.engine)?;
        if !self.penalty.is_none() {
            write!(f, ", last-move penalty {} ({})", self.penalty, self.penalty.words())?;
        }
        writeln!(f)?;
        if let Some(line) = nimstring_line(&self.board, &self.root, self.penalty) {
            writeln!(f, "{line}")?;
        }
        write!(f, "{}", self.lines())?;
        if let Some(n) = self.next_loony {
            writeln!(f, "next loony move: {}", n.words())?;
        }
        if let Some(why) = &self.next_loony_left_out {
            writeln!(f, "next loony move: {why}")?;
        }
        let groups: Vec<String> = self.groups.iter().map(|g| g.to_string()).collect();
        // The search counts positions visited (a position reached twice counts twice) and
        // holds a table, not values: its lines say so.
        let search = self.engine == Engine::Search;
        if self.positions > 0 {
            let what = if search { "positions searched" } else { "positions" };
            write!(f, "{what} {}", crate::support::thousands(self.positions))?;
            if !groups.is_empty() {
                write!(
                    f,
                    " in {} of {} ({} lines)",
                    crate::support::count_of(self.partitions as u64, "partition"),
                    crate::support::count_of(groups.len() as u64, "group"),
                    groups.join("+")
                )?;
            }
            writeln!(f)?;
        }
        write!(f, "time {:.3} s on {}", self.seconds, crate::support::count_of(self.threads as u64, "thread"))?;
        if self.positions > 0 {
            write!(f, ", {:.1} M positions/s", self.positions_per_second / 1e6)?;
        }
        writeln!(f)?;
        let held = if search { "transposition table" } else { "values" };
        write!(f, "peak memory {} of {held}", crate::support::human_bytes(self.peak_value_bytes))?;
        if let Some(rss) = self.peak_rss_bytes {
            write!(f, ", {} resident", crate::support::human_bytes(rss))?;
        }
        writeln!(f)?;
        if let (Some(bytes), Some(rate)) = (self.bytes_moved, self.gigabytes_per_second) {
            // The machine's bandwidth is not measured here: that takes seconds and would slow
            // the solve beside it; `dab bench --suite bandwidth` measures it.
            let per = if self.positions > 0 { bytes as f64 / self.positions as f64 } else { 0.0 };
            writeln!(
                f,
                "traffic {:.3} GB read+written ({per:.2} bytes a position), {rate:.2} GB/s (the machine's bandwidth: dab bench's bandwidth suite)",
                bytes as f64 / 1e9
            )?;
        }
        Ok(())
    }
}
