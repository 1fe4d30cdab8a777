//! The search suite: the search engine on empty boards and on positions listed in CSV files
//! (`board,lines,value`, as in `tests/data/search/`), each at every thread count asked for, by
//! a function the binary implements as a process of its own (so that its peak memory is its
//! own); beside it the retrograde where it takes the position, and the value of a store's book
//! or of the file where given, every value checked against them.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::answer::{Analysis, Answerer, Asking, Engine, MAX_FREE_IN_MEMORY, QueryError};
use crate::game::{Board, Position};
use crate::store::Reader;

/// One position to search.
#[derive(Clone, Debug)]
pub struct Case {
    /// The empty board's size, or `file:row`.
    pub name: String,
    /// The position.
    pub pos: Position,
    /// The value the file gives, if any.
    pub expected: Option<i32>,
}

/// A row of a positions file.
#[derive(Deserialize)]
struct FileRow {
    board: String,
    lines: String,
    value: Option<i32>,
}

/// Why a case of the search suite could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CasesError {
    /// The case is neither a board nor a file that can be read.
    #[error("{spec}: neither a board (MxN) nor a readable positions file: {source}")]
    Unreadable {
        /// The case as given.
        spec: String,
        /// What the CSV reader said.
        source: csv::Error,
    },
    /// A row of a positions file is not a position: `at` names the file and row.
    #[error("{at}: {message}")]
    Row {
        /// The file and row.
        at: String,
        /// What is wrong.
        message: String,
    },
}

/// Reads `3x5` as the empty board, anything else as a CSV file of positions.
pub fn cases(spec: &str) -> Result<Vec<Case>, CasesError> {
    if let Ok(board) = spec.parse::<Board>() {
        return Ok(vec![Case { name: spec.to_string(), pos: Position::empty(board), expected: None }]);
    }
    let path = Path::new(spec);
    let mut reader =
        csv::Reader::from_path(path).map_err(|source| CasesError::Unreadable { spec: spec.to_string(), source })?;
    let stem = path.file_stem().map_or(spec.to_string(), |s| s.to_string_lossy().into_owned());
    let mut out = Vec::new();
    for (i, row) in reader.deserialize::<FileRow>().enumerate() {
        let at = || format!("{}: row {}", path.display(), i + 2);
        let bad = |e: &dyn std::fmt::Display| CasesError::Row { at: at(), message: e.to_string() };
        let row = row.map_err(|e| bad(&e))?;
        let board: Board = row.board.parse().map_err(|e| bad(&e))?;
        let pos = Position::from_line_string(board, &row.lines).map_err(|e| bad(&e))?;
        out.push(Case { name: format!("{stem}:{}", i + 1), pos, expected: row.value });
    }
    Ok(out)
}

/// One search of one case on some threads.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The case's name.
    pub case: String,
    /// Its board.
    pub board: String,
    /// Its undrawn lines.
    pub undrawn: u32,
    /// Threads of the search.
    pub threads: usize,
    /// The search's value.
    pub value: i32,
    /// What the value is checked against: `file`, `store` or `retrograde` (empty: nothing).
    pub checked_by: String,
    /// The value it is checked against.
    pub expected: Option<i32>,
    /// Whether the search agrees with it (and with the retrograde where it ran).
    pub agree: Option<bool>,
    /// Wall seconds of the search.
    pub search_seconds: f64,
    /// Positions the search visited.
    pub positions_searched: u64,
    /// Bytes of its transposition table.
    pub table_bytes: u64,
    /// Its process's peak resident set.
    pub peak_rss_bytes: Option<u64>,
    /// The retrograde in memory on the same threads (positions of at most 32 undrawn lines).
    pub retrograde_seconds: Option<f64>,
    /// The retrograde's process's peak resident set.
    pub retrograde_peak_rss_bytes: Option<u64>,
    /// The retrograde answering as a hint (positions it takes).
    pub hint_partition_seconds: Option<f64>,
    /// The search answering as a hint (every move valued).
    pub hint_search_seconds: Option<f64>,
    /// The engine `auto` picked.
    pub auto_engine: Option<String>,
    /// `auto`'s time as a hint.
    pub auto_seconds: Option<f64>,
    /// `auto_seconds` over the fastest engine's.
    pub auto_over_best: Option<f64>,
}

/// What the suite is asked.
pub struct Options<'a> {
    /// Thread counts.
    pub threads: &'a [usize],
    /// A store whose book gives each position's value.
    pub store: Option<&'a Path>,
    /// Solve by the retrograde too, where it takes the position.
    pub retrograde: bool,
}

/// Searches every case at every thread count by `solve(position, threads, engine)` (the
/// engine `Search`, or `Partition` for the retrograde beside it); `report` hears each row.
/// Errors name the case where the store fails.
pub fn rows(
    cases: &[Case],
    opts: &Options,
    solve: &mut dyn FnMut(Position, usize, Engine) -> Result<Analysis, String>,
    report: &mut dyn FnMut(&Row),
) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for case in cases {
        let undrawn = case.pos.undrawn().len();
        let book = match opts.store {
            // Only cases of a board the store holds are valued by it.
            Some(dir) if dir.join(case.pos.board.to_string()).is_dir() => {
                let reader = Reader::open_for(dir, case.pos, None).map_err(|e| format!("{}: {e}", case.name))?;
                reader.value(case.pos.drawn).map_err(|e| format!("{}: {e}", case.name))?.map(i32::from)
            }
            _ => None,
        };
        for &p in opts.threads {
            let a = solve(case.pos, p, Engine::Search)?;
            let retro = (opts.retrograde && undrawn as usize <= crate::answer::MAX_FREE_IN_MEMORY)
                .then(|| solve(case.pos, p, Engine::Partition))
                .transpose()?;
            let engines = opts
                .retrograde
                .then(|| time_engines(case.pos, p))
                .transpose()
                .map_err(|e| format!("{}: {e}", case.name))?;
            let row = row(case, p, &a, book, retro.as_ref(), engines);
            report(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The row of search `a` of `case` on `threads`, checked against the file's value, else the
/// store's `book` value, else the retrograde's `retro`; with `engines`, each engine timed as a
/// hint.
fn row(
    case: &Case,
    threads: usize,
    a: &Analysis,
    book: Option<i32>,
    retro: Option<&Analysis>,
    engines: Option<EngineTimes>,
) -> Row {
    let e = engines.as_ref();
    let (checked_by, expected) = match (case.expected, book, retro) {
        (Some(v), ..) => ("file", Some(v)),
        (None, Some(v), _) => ("store", Some(v)),
        (None, None, Some(r)) => ("retrograde", Some(r.value)),
        _ => ("", None),
    };
    Row {
        case: case.name.clone(),
        board: case.pos.board.to_string(),
        undrawn: case.pos.undrawn().len(),
        threads,
        value: a.value,
        checked_by: checked_by.into(),
        expected,
        agree: expected.map(|e| e == a.value && retro.is_none_or(|r| r.value == a.value)),
        search_seconds: a.seconds,
        positions_searched: a.positions,
        table_bytes: a.peak_value_bytes,
        peak_rss_bytes: a.peak_rss_bytes,
        retrograde_seconds: retro.map(|r| r.seconds),
        retrograde_peak_rss_bytes: retro.and_then(|r| r.peak_rss_bytes),
        hint_partition_seconds: e.and_then(|e| e.partition_seconds),
        hint_search_seconds: e.map(|e| e.search_seconds),
        auto_engine: e.map(|e| e.auto_engine.to_string()),
        auto_seconds: e.map(|e| e.auto_seconds),
        auto_over_best: e.map(|e| e.auto_over_best),
    }
}

/// One position answered by each engine on the spot (every move valued, as a hint does), and
/// by `auto`: how far `auto`'s choice is from the fastest.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub(crate) struct EngineTimes {
    /// Seconds of the retrograde in memory (None: more undrawn lines than it takes).
    pub partition_seconds: Option<f64>,
    /// Seconds of the search with its default table.
    pub search_seconds: f64,
    /// The engine `auto` chose.
    pub auto_engine: Answerer,
    /// Seconds of `auto`, its choice made and run.
    pub auto_seconds: f64,
    /// `auto_seconds` over the faster engine's seconds.
    pub auto_over_best: f64,
}

/// Answers `pos` on the spot by the retrograde, the search and `auto`, on `threads` threads,
/// and times each (the least of three runs under a second).
pub(crate) fn time_engines(pos: Position, threads: usize) -> Result<EngineTimes, QueryError> {
    // The least of up to three runs, fewer past a second: a short run's time is mostly noise.
    let run = |engine| -> Result<f64, QueryError> {
        let once = || crate::answer::on_the_spot(pos, Asking::new(engine, threads), None).map(|a| a.seconds);
        let mut best = once()?;
        for _ in 1..3 {
            if best > 1.0 {
                break;
            }
            best = best.min(once()?);
        }
        Ok(best)
    };
    let partition_seconds =
        (pos.undrawn().len() as usize <= MAX_FREE_IN_MEMORY).then(|| run(Answerer::Partition)).transpose()?;
    let search_seconds = run(Answerer::Search)?;
    let auto_engine = crate::answer::auto_engine(pos, threads, crate::answer::estimate::table_bytes_here(pos));
    let auto_seconds = run(Answerer::Auto)?;
    let best = partition_seconds.map_or(search_seconds, |p| p.min(search_seconds));
    Ok(EngineTimes {
        partition_seconds,
        search_seconds,
        auto_engine,
        auto_seconds,
        auto_over_best: auto_seconds / best,
    })
}
