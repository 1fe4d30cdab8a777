//! `dab bench --suite search`: the search engine on empty boards and on positions listed in CSV
//! files (`board,lines,value`, as in `tests/data/search/`), each at every thread count asked
//! for, in a child process (`dab solve --engine search --value-only --json`) so that its peak
//! memory is its own; beside it the retrograde in memory where it takes the position, and the
//! value of a store's book or of the file where given, every value checked against them; with
//! the retrograde, each engine and `auto` answering as a hint does, and auto's time over the
//! fastest's.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use dab::answer::Analysis;
use dab::answer::estimate::EngineTimes;
use dab::game::{Board, Position};
use dab::store::Reader;

use super::solver::{ChildError, solve_in_child};

/// One position to search.
#[derive(Clone, Debug)]
pub struct Case {
    /// The empty board's size, or `file:row`.
    pub name: String,
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

/// Reads `3x5` as the empty board, anything else as a CSV file of positions.
pub fn cases(spec: &str) -> Result<Vec<Case>, String> {
    if let Ok(board) = spec.parse::<Board>() {
        return Ok(vec![Case { name: spec.to_string(), pos: Position::empty(board), expected: None }]);
    }
    let path = Path::new(spec);
    let mut reader = csv::Reader::from_path(path)
        .map_err(|e| format!("--search-cases {spec}: neither a board (MxN) nor a readable positions file: {e}"))?;
    let stem = path.file_stem().map_or(spec.to_string(), |s| s.to_string_lossy().into_owned());
    let mut out = Vec::new();
    for (i, row) in reader.deserialize::<FileRow>().enumerate() {
        let at = format!("{}: row {}", path.display(), i + 2);
        let row = row.map_err(|e| format!("{at}: {e}"))?;
        let board: Board = row.board.parse().map_err(|e| format!("{at}: {e}"))?;
        let pos = Position::from_line_string(board, &row.lines).map_err(|e| format!("{at}: {e}"))?;
        out.push(Case { name: format!("{stem}:{}", i + 1), pos, expected: row.value });
    }
    Ok(out)
}

/// One search of one case on some threads.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub case: String,
    pub board: String,
    pub undrawn: u32,
    pub threads: usize,
    pub value: i32,
    /// What the value is checked against: `file`, `store` or `retrograde` (empty: nothing).
    pub checked_by: String,
    pub expected: Option<i32>,
    pub agree: Option<bool>,
    pub search_seconds: f64,
    pub positions_searched: u64,
    pub table_bytes: u64,
    pub peak_rss_bytes: Option<u64>,
    /// The retrograde in memory on the same threads (positions of at most 32 undrawn lines).
    pub retrograde_seconds: Option<f64>,
    pub retrograde_peak_rss_bytes: Option<u64>,
    /// With the retrograde: each engine and `auto` answering as a hint does (every move).
    #[serde(skip)]
    pub engines: Option<EngineTimes>,
    pub hint_partition_seconds: Option<f64>,
    pub hint_search_seconds: Option<f64>,
    pub auto_engine: Option<String>,
    pub auto_seconds: Option<f64>,
    pub auto_over_best: Option<f64>,
}

/// Runs `dab solve` on `pos` in a child process of `exe` with these extra arguments.
fn solve_child(exe: &Path, pos: Position, args: &[&str]) -> Result<Analysis, String> {
    let (board, lines) = (pos.board.to_string(), pos.to_line_string());
    let all: Vec<&str> = [board.as_str(), "--lines", &lines].into_iter().chain(args.iter().copied()).collect();
    solve_in_child(exe, &all, None).map_err(|e| match e {
        ChildError::Spawn(e) => format!("cannot run '{}': {e}", exe.display()),
        ChildError::Failed(stderr) => format!("dab solve {board} --lines {lines} {}: {stderr}", args.join(" ")),
        ChildError::Output(e) => format!("dab solve {board} --lines {lines}: unreadable output: {e}"),
    })
}

/// What the suite is asked.
pub struct Options<'a> {
    pub threads: &'a [usize],
    pub tt_size: &'a str,
    /// A store whose book gives each position's value.
    pub store: Option<&'a PathBuf>,
    /// Time the retrograde in memory too, where it takes the position.
    pub retrograde: bool,
}

/// Searches every case at every thread count; `report` hears each row.
pub fn run(exe: &Path, cases: &[Case], opts: &Options, report: &mut dyn FnMut(&Row)) -> Result<Vec<Row>, String> {
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
            let threads = p.to_string();
            let a = solve_child(
                exe,
                case.pos,
                &["--engine", "search", "--value-only", "--threads", &threads, "--tt-size", opts.tt_size],
            )?;
            let retro = (opts.retrograde && undrawn <= 32)
                .then(|| solve_child(exe, case.pos, &["--engine", "partition", "--threads", &threads]))
                .transpose()?;
            let (checked_by, expected) = match (case.expected, book, &retro) {
                (Some(v), ..) => ("file", Some(v)),
                (None, Some(v), _) => ("store", Some(v)),
                (None, None, Some(r)) => ("retrograde", Some(r.value)),
                _ => ("", None),
            };
            let engines = opts
                .retrograde
                .then(|| dab::answer::estimate::time_engines(case.pos, p))
                .transpose()
                .map_err(|e| format!("{}: {e}", case.name))?;
            let row = Row {
                case: case.name.clone(),
                board: case.pos.board.to_string(),
                undrawn,
                threads: p,
                value: a.value,
                checked_by: checked_by.into(),
                expected,
                agree: expected.map(|e| e == a.value && retro.as_ref().is_none_or(|r| r.value == a.value)),
                search_seconds: a.seconds,
                positions_searched: a.positions,
                table_bytes: a.peak_value_bytes,
                peak_rss_bytes: a.peak_rss_bytes,
                retrograde_seconds: retro.as_ref().map(|r| r.seconds),
                retrograde_peak_rss_bytes: retro.as_ref().and_then(|r| r.peak_rss_bytes),
                hint_partition_seconds: engines.as_ref().and_then(|e| e.partition_seconds),
                hint_search_seconds: engines.as_ref().map(|e| e.search_seconds),
                auto_engine: engines.as_ref().map(|e| e.auto_engine.to_string()),
                auto_seconds: engines.as_ref().map(|e| e.auto_seconds),
                auto_over_best: engines.as_ref().map(|e| e.auto_over_best),
                engines,
            };
            report(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}
