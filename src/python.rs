//! The Python extension `dab._dab` (Cargo feature `python`, built by maturin from
//! `pyproject.toml`; the package around it is `python/dab/`): one function per command that
//! answers a position (`solve`, `hint`, `nimstring`, `query`, `review`), each taking the
//! command's settings as keywords and returning the object its `--json` prints, as a dict,
//! from the same library call; and `replay`, a game's record by dab's rules alone. Bad input raises `dab.DabError` (a `ValueError`) with the
//! command's message, the setting named by its keyword where the command names its flag.
//!
//! The work runs on a thread of its own with the GIL released, while the calling thread wakes
//! every [`POLL`] to let Python run its signal handlers: Ctrl-C sets the stop flag that the
//! solve, the search and the Nimstring calculator watch (as the web board stops an analysis
//! nobody waits for), waits for the work to end, and raises `KeyboardInterrupt`. A panic is
//! caught on that thread and raised as `RuntimeError`, never unwound into the interpreter.

use std::error::Error;
use std::ffi::CString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc;
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;

use crate::answer::search::{DEFAULT_TT_BYTES, SearchOptions};
use crate::answer::{Answerer, Asking, Engine, HintError, QueryError};
use crate::game::{Board, Penalty, Position, Record, player_name};
use crate::solver::SolveOptions;
use crate::store::Reader;
use crate::support::{Remedy, Setting};

pyo3::create_exception!(dab, DabError, PyValueError, "Bad input to dab: the message says what is wrong.");

/// How often the calling thread looks for a signal while the work runs: Ctrl-C answered
/// within a tenth of a second, at a cost no call notices.
const POLL: Duration = Duration::from_millis(50);

/// Stack of the thread the work runs on: the main thread's usual 8 MiB, which the command's
/// work has (a spawned thread's default is 2 MiB).
const WORK_STACK: usize = 8 << 20;

/// What the work of a call ends with: the JSON text of its answer and the notes it has for the
/// user (shown as warnings), or the message of its error.
type Outcome = Result<(String, Vec<String>), String>;

/// The position named by a board size and an optional line string, as the commands read it.
fn position(board: &str, lines: Option<&str>) -> Result<Position, String> {
    let board: Board = board.parse().map_err(|e| format!("{e}"))?;
    match lines {
        Some(s) => Position::from_line_string(board, s).map_err(|e| e.to_string()),
        None => Ok(Position::empty(board)),
    }
}

/// A last-move penalty as `--penalty` reads it (the same words for a bad one).
fn penalty(n: i64) -> Result<Penalty, String> {
    n.to_string().parse::<Penalty>().map_err(|e| format!("penalty: {e}"))
}

/// Worker threads: all cores unless given; at least 1, at most what this machine runs at once.
fn threads(asked: Option<usize>) -> Result<usize, String> {
    let limit = crate::support::max_threads();
    match asked {
        None => Ok(crate::support::hardware_threads()),
        Some(0) => Err("threads must be at least 1".into()),
        Some(p) if p > limit => Err(format!("threads={p} is more than this machine runs at once (at most {limit})")),
        Some(p) => Ok(p),
    }
}

/// A time budget: a finite number of seconds above 0 and at most a year, as the commands take.
fn seconds(s: f64) -> Result<f64, String> {
    const YEAR: f64 = 365.0 * 86400.0;
    if s.is_finite() && s > 0.0 && s <= YEAR {
        Ok(s)
    } else {
        Err(format!("seconds={s} is not a number of seconds above 0 and at most {YEAR} (a year)"))
    }
}

/// A named choice (an engine) by its name, or the choice's own message for another.
fn named<T: std::str::FromStr>(text: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    text.parse::<T>().map_err(|e| format!("engine: {e}"))
}

/// An error of the library as the user reads it: the keyword of the setting it refuses first,
/// then its message, then the keywords that would answer it.
fn message(e: &(dyn Error + 'static)) -> String {
    let causes = || std::iter::successors(Some(e), |&e| e.source());
    let keyword = causes().find_map(setting_of).map_or(String::new(), |s| format!("{}: ", keyword(s)));
    let remedies = causes().map(remedies_of).find(|r| !r.is_empty()).unwrap_or(&[]);
    let pointer = if remedies.is_empty() {
        String::new()
    } else {
        format!(" ({})", remedies.iter().map(|&r| remedy(r)).collect::<Vec<_>>().join("; "))
    };
    format!("{keyword}{e}{pointer}")
}

/// The setting an error of the answers refuses, by its type.
fn setting_of(e: &(dyn Error + 'static)) -> Option<Setting> {
    use crate::answer::{AnalysisError, search::SearchError};
    if e.is::<crate::game::PenaltyError>() {
        Some(Setting::Penalty)
    } else if let Some(e) = e.downcast_ref::<AnalysisError>() {
        e.setting()
    } else if let Some(e) = e.downcast_ref::<QueryError>() {
        e.setting()
    } else if let Some(e) = e.downcast_ref::<SearchError>() {
        e.setting()
    } else if let Some(e) = e.downcast_ref::<crate::solver::SpaceError>() {
        e.setting()
    } else {
        e.downcast_ref::<crate::exec::ExecError>().and_then(|e| e.setting())
    }
}

/// The settings that would answer an error of the answers.
fn remedies_of(e: &(dyn Error + 'static)) -> &'static [Remedy] {
    if let Some(e) = e.downcast_ref::<QueryError>() {
        e.remedies()
    } else if let Some(e) = e.downcast_ref::<HintError>() {
        e.remedies()
    } else {
        &[]
    }
}

/// A setting's keyword in these functions.
fn keyword(s: Setting) -> &'static str {
    match s {
        Setting::Groups => "groups",
        Setting::Penalty => "penalty",
        Setting::MemLimit => "mem_limit",
        Setting::Bandwidth => "bandwidth",
        Setting::Split => "split",
        Setting::Scheme => "scheme",
        Setting::Symmetry => "symmetry",
        Setting::Threads => "threads",
        Setting::Repeats => "repeats",
        Setting::TableSize => "tt_size",
    }
}

/// A remedy in keywords.
fn remedy(r: Remedy) -> &'static str {
    match r {
        Remedy::SearchEngine => "engine='search'",
        Remedy::AutoOrSearchEngine => "engine='auto' or 'search'",
        Remedy::StoreHolding => "store=DIR with a solve that holds it",
        Remedy::Store => "store=DIR",
    }
}

/// An answer as its JSON text, or the library's error as its message.
fn json<T: serde::Serialize, E: Error + 'static>(answer: Result<T, E>) -> Result<String, String> {
    let answer = answer.map_err(|e| message(&e))?;
    serde_json::to_string(&answer).map_err(|e| e.to_string())
}

/// The text of a panic's payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (None, Some(s)) => s.clone(),
        (None, None) => "a panic without a message".into(),
    }
}

/// Runs `work` on a thread of its own with the GIL released (see the module's page), and turns
/// its outcome into a dict, or into `DabError`, `KeyboardInterrupt` or `RuntimeError`.
fn run<'py>(py: Python<'py>, work: impl FnOnce(&AtomicBool) -> Outcome + Send) -> PyResult<Bound<'py, PyAny>> {
    let stop = AtomicBool::new(false);
    let ended: PyResult<Outcome> = py.detach(|| {
        std::thread::scope(|s| {
            let (send, receive) = mpsc::channel();
            let stop = &stop;
            let worker = std::thread::Builder::new()
                .name("dab-python".into())
                .stack_size(WORK_STACK)
                .spawn_scoped(s, move || {
                    let outcome = catch_unwind(AssertUnwindSafe(|| work(stop)));
                    // The caller may have gone on a signal: nobody to tell then.
                    let _ = send.send(outcome);
                })
                .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread for the work: {e}")))?;
            loop {
                match receive.recv_timeout(POLL) {
                    Ok(Ok(outcome)) => return Ok(outcome),
                    Ok(Err(payload)) => {
                        return Err(PyRuntimeError::new_err(format!(
                            "internal error (a bug in dab; please report it): {}",
                            panic_text(&*payload)
                        )));
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if let Err(signal) = Python::attach(|py| py.check_signals()) {
                            stop.store(true, Relaxed);
                            // The scope joins the worker, which ends at its next look at the flag.
                            drop(worker);
                            return Err(signal);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        return Err(PyRuntimeError::new_err("the work ended without an answer"));
                    }
                }
            }
        })
    });
    let (text, notes) = ended?.map_err(DabError::new_err)?;
    for note in notes {
        let note = CString::new(note).unwrap_or_default();
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &note, 2)?;
    }
    dict(py, &text)
}

/// A JSON object as a dict (Python's own reading of the text the command prints).
fn dict<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// `store` opened for `pos`, or None where it is none; a folder that holds no solve of this
/// board and root is answered on the spot, with a note (as `dab hint` does).
fn reader_at(
    store: Option<&Path>,
    pos: Position,
    groups: Option<usize>,
    pen: Penalty,
    notes: &mut Vec<String>,
) -> Result<Option<Reader>, String> {
    let Some(dir) = store else { return Ok(None) };
    match Reader::open_under(dir, pos, groups, pen) {
        Ok(r) => Ok(Some(r)),
        Err(e) if dir.is_dir() && e.is_not_held() => {
            notes.push(format!("{e}: answered on the spot"));
            Ok(None)
        }
        Err(e) => Err(message(&e)),
    }
}

/// `dab solve --json`: the value of a position and of every move, by an engine.
#[pyfunction]
#[pyo3(signature = (board, lines=None, *, engine="partition", groups=None, threads=None, penalty=0, tt_size=None, value_only=false, store=None, keep_lines=None))]
#[allow(clippy::too_many_arguments)]
fn solve<'py>(
    py: Python<'py>,
    board: &str,
    lines: Option<&str>,
    engine: &str,
    groups: Option<usize>,
    threads: Option<usize>,
    penalty: i64,
    tt_size: Option<u64>,
    value_only: bool,
    store: Option<PathBuf>,
    keep_lines: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let pos = position(board, lines).map_err(DabError::new_err)?;
    let engine: Engine = named(engine).map_err(DabError::new_err)?;
    let settings = (self::threads(threads), self::penalty(penalty));
    let (threads, penalty) = (settings.0.map_err(DabError::new_err)?, settings.1.map_err(DabError::new_err)?);
    if store.is_some() && engine != Engine::Partition {
        return Err(DabError::new_err("store works only with engine='partition'"));
    }
    if value_only && engine != Engine::Search {
        return Err(DabError::new_err("value_only works only with engine='search'"));
    }
    match (&store, keep_lines) {
        (None, Some(_)) => return Err(DabError::new_err("keep_lines needs store")),
        (_, Some(0)) => {
            return Err(DabError::new_err(
                "keep_lines must be at least 1: the first moves are read from the 1-line partitions",
            ));
        }
        _ => {}
    }
    run(py, |stop| {
        let tt_bytes = match (tt_size, engine) {
            (Some(bytes), _) => bytes,
            (None, Engine::Search) => crate::answer::estimate::table_bytes_here(pos),
            (None, _) => DEFAULT_TT_BYTES,
        };
        let opts = SolveOptions {
            groups,
            threads,
            store: store.as_deref(),
            keep_lines,
            penalty,
            stop: Some(stop),
            ..Default::default()
        };
        let search = SearchOptions { tt_bytes, move_values: !value_only, stop: Some(stop), ..Default::default() };
        Ok((json(crate::answer::analyse_with(pos, engine, opts, search))?, Vec::new()))
    })
}

/// `dab hint --json`: the best move within a time budget, and what is proven of it.
#[pyfunction]
#[pyo3(signature = (board, lines=None, seconds=1.0, *, engine="auto", store=None, groups=None, threads=None, penalty=0))]
#[allow(clippy::too_many_arguments)]
fn hint<'py>(
    py: Python<'py>,
    board: &str,
    lines: Option<&str>,
    seconds: f64,
    engine: &str,
    store: Option<PathBuf>,
    groups: Option<usize>,
    threads: Option<usize>,
    penalty: i64,
) -> PyResult<Bound<'py, PyAny>> {
    let pos = position(board, lines).map_err(DabError::new_err)?;
    let budget = self::seconds(seconds).map_err(DabError::new_err)?;
    let ask = asking(engine, threads, penalty).map_err(DabError::new_err)?;
    run(py, |stop| {
        let mut notes = Vec::new();
        let reader = reader_at(store.as_deref(), pos, groups, ask.penalty, &mut notes)?;
        let ask = Asking { stop: Some(stop), ..ask };
        Ok((json(crate::answer::advise(pos, reader.as_ref(), ask, budget))?, notes))
    })
}

/// The engine, threads and penalty of an answer, as `hint`, `query` and `review` take them.
fn asking(engine: &str, threads: Option<usize>, penalty: i64) -> Result<Asking<'static>, String> {
    Ok(Asking::new(named::<Answerer>(engine)?, self::threads(threads)?).under(self::penalty(penalty)?))
}

/// `dab nimstring --json`: the Nimstring value (a nimber, or loony) and every move's.
#[pyfunction]
#[pyo3(signature = (board, lines=None, *, seconds=60.0))]
fn nimstring<'py>(py: Python<'py>, board: &str, lines: Option<&str>, seconds: f64) -> PyResult<Bound<'py, PyAny>> {
    let pos = position(board, lines).map_err(DabError::new_err)?;
    let budget = self::seconds(seconds).map_err(DabError::new_err)?;
    run(py, |stop| Ok((json(crate::answer::nimstring::nimstring_until(pos, Some(budget), Some(stop)))?, Vec::new())))
}

/// `dab query --json`: a position's value and every move's, from a store (beyond its book,
/// on the spot).
#[pyfunction]
#[pyo3(signature = (store, board, lines=None, *, groups=None, engine="auto", threads=None, penalty=0))]
#[allow(clippy::too_many_arguments)]
fn query<'py>(
    py: Python<'py>,
    store: PathBuf,
    board: &str,
    lines: Option<&str>,
    groups: Option<usize>,
    engine: &str,
    threads: Option<usize>,
    penalty: i64,
) -> PyResult<Bound<'py, PyAny>> {
    let pos = position(board, lines).map_err(DabError::new_err)?;
    let ask = asking(engine, threads, penalty).map_err(DabError::new_err)?;
    run(py, |stop| {
        let reader = Reader::open_under(&store, pos, groups, ask.penalty).map_err(|e| message(&e))?;
        Ok((json(crate::answer::query(&reader, pos, Asking { stop: Some(stop), ..ask }))?, Vec::new()))
    })
}

/// `dab review --json`: a game's moves valued against best play within `seconds` a position.
/// `moves` is a record in dab's notation or littlegolem's, or a list of line numbers.
#[pyfunction]
#[pyo3(signature = (board, moves, *, lines=None, seconds=1.0, store=None, groups=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn review<'py>(
    py: Python<'py>,
    board: &str,
    moves: &Bound<'py, PyAny>,
    lines: Option<&str>,
    seconds: f64,
    store: Option<PathBuf>,
    groups: Option<usize>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let record = record(board, lines, moves)?;
    let start = record.start;
    let budget = self::seconds(seconds).map_err(DabError::new_err)?;
    let ask = asking("auto", threads, 0).map_err(DabError::new_err)?;
    run(py, |stop| {
        let mut notes = Vec::new();
        let reader = reader_at(store.as_deref(), start, groups, Penalty::NONE, &mut notes)?;
        let ask = Asking { stop: Some(stop), ..ask };
        let review = crate::answer::review(&record, reader.as_ref(), ask, budget, &|_, _| {});
        Ok((json(review)?, notes))
    })
}

/// A game's record from its start position: `moves` in dab's notation or littlegolem's (a
/// string), or a list of line numbers.
fn record(board: &str, lines: Option<&str>, moves: &Bound<'_, PyAny>) -> PyResult<Record> {
    let start = position(board, lines).map_err(DabError::new_err)?;
    let text = match (moves.extract::<String>(), moves.extract::<Vec<u16>>()) {
        (Ok(text), _) => text,
        (_, Ok(numbers)) => numbers.iter().map(u16::to_string).collect::<Vec<_>>().join(" "),
        _ => return Err(DabError::new_err("moves: give a record (a string) or a list of line numbers")),
    };
    Record::parse(start, &text).map_err(|e| DabError::new_err(format!("moves: {e}")))
}

/// A game's record replayed by dab's rules, without valuing it: each move's player, the boxes
/// it completed, the score before it and the lines that were legal there, and the score at
/// the end. What `dab review` reports of the game beside its values, in a fraction of the time.
#[pyfunction]
#[pyo3(signature = (board, moves, *, lines=None))]
fn replay<'py>(
    py: Python<'py>,
    board: &str,
    moves: &Bound<'py, PyAny>,
    lines: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let record = record(board, lines, moves)?;
    let board = record.start.board;
    let (played, end) = record.replay();
    let mut score = [0u32; 2];
    let moves: Vec<serde_json::Value> = played
        .iter()
        .map(|p| {
            score = p.score;
            score[usize::from(p.player)] += u32::from(p.boxes);
            serde_json::json!({
                "number": p.number,
                "turn": p.turn,
                "player": player_name(p.player),
                "line": board.line_name(p.line),
                "index": p.line.0,
                "boxes": p.boxes,
                "score": p.score,
                "legal": p.before.undrawn().iter().map(|l| l.0).collect::<Vec<_>>(),
            })
        })
        .collect();
    let to_move = played.last().map_or(0, |p| if p.boxes > 0 { p.player } else { p.player ^ 1 });
    let text = serde_json::json!({
        "board": board.to_string(),
        "root": record.start.to_line_string(),
        "moves": moves,
        "score": score,
        "end": end.to_line_string(),
        "to_move": player_name(to_move),
    })
    .to_string();
    dict(py, &text)
}

/// The extension module: the functions and the error they raise.
#[pymodule]
fn _dab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DabError", m.py().get_type::<DabError>())?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(hint, m)?)?;
    m.add_function(wrap_pyfunction!(nimstring, m)?)?;
    m.add_function(wrap_pyfunction!(query, m)?)?;
    m.add_function(wrap_pyfunction!(review, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    Ok(())
}
