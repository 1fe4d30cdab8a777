//! The search suite: the search engine on empty boards and on positions listed in CSV files
//! (`board,lines,value`, as in `tests/data/search/`), each at every thread count asked for, by
//! a function the binary implements as a process of its own (so that its peak memory is its
//! own); beside it the retrograde where it takes the position, and the value of a store's book
//! or of the file where given, every value checked against them. Searched more than once, a
//! case's row is its median run, the runs taken in rounds over every case so that a slow spell
//! of a shared machine falls on one run of several cases rather than on every run of one.

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
    /// Searches of the case on these threads; the row's time and positions are the median
    /// run's (the upper one of an even count).
    pub repeats: usize,
    /// The fastest of those searches.
    pub search_seconds_min: f64,
    /// The slowest of them.
    pub search_seconds_max: f64,
}

/// The cases searched on one thread count: the figures a target such as "median within 5 s"
/// is read from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// The threads.
    pub threads: usize,
    /// Cases searched on them.
    pub cases: usize,
    /// The median of the cases' seconds (the upper one of an even count).
    pub median_seconds: f64,
    /// Their mean.
    pub mean_seconds: f64,
}

/// One [`Summary`] for each thread count of `rows`, in the order they first appear.
pub fn summary(rows: &[Row]) -> Vec<Summary> {
    let mut threads: Vec<usize> = Vec::new();
    for r in rows {
        if !threads.contains(&r.threads) {
            threads.push(r.threads);
        }
    }
    threads
        .into_iter()
        .map(|p| {
            let mut times: Vec<f64> = rows.iter().filter(|r| r.threads == p).map(|r| r.search_seconds).collect();
            let mean_seconds = times.iter().sum::<f64>() / times.len() as f64;
            Summary { threads: p, cases: times.len(), median_seconds: crate::support::median(&mut times), mean_seconds }
        })
        .collect()
}

/// What the suite is asked.
pub struct Options<'a> {
    /// Thread counts.
    pub threads: &'a [usize],
    /// A store whose book gives each position's value.
    pub store: Option<&'a Path>,
    /// Solve by the retrograde too, where it takes the position.
    pub retrograde: bool,
    /// Searches of each case on each thread count (at least 1): all but the last in rounds
    /// over every case before the round that reports the rows.
    pub repeats: usize,
}

/// Searches every case at every thread count by `solve(position, threads, engine)` (the
/// engine `Search`, or `Partition` for the retrograde beside it), `opts.repeats` times;
/// `report` hears each row, in the last round. Errors name the case where the store fails or
/// where two searches of it disagree.
pub fn rows(
    cases: &[Case],
    opts: &Options,
    solve: &mut dyn FnMut(Position, usize, Engine) -> Result<Analysis, String>,
    report: &mut dyn FnMut(&Row),
) -> Result<Vec<Row>, String> {
    // The rounds before the last: the searches alone, by case and thread count.
    let mut earlier: Vec<Vec<Vec<Analysis>>> = vec![vec![Vec::new(); opts.threads.len()]; cases.len()];
    for _ in 1..opts.repeats.max(1) {
        for (c, case) in cases.iter().enumerate() {
            for (t, &p) in opts.threads.iter().enumerate() {
                earlier[c][t].push(solve(case.pos, p, Engine::Search)?);
            }
        }
    }
    let mut rows = Vec::new();
    for (c, case) in cases.iter().enumerate() {
        let undrawn = case.pos.undrawn().len();
        let book = match opts.store {
            // Only cases of a board the store holds are valued by it.
            Some(dir) if dir.join(case.pos.board.to_string()).is_dir() => {
                let reader = Reader::open_for(dir, case.pos, None).map_err(|e| format!("{}: {e}", case.name))?;
                reader.value(case.pos.drawn).map_err(|e| format!("{}: {e}", case.name))?.map(i32::from)
            }
            _ => None,
        };
        for (t, &p) in opts.threads.iter().enumerate() {
            let mut runs = std::mem::take(&mut earlier[c][t]);
            runs.push(solve(case.pos, p, Engine::Search)?);
            if let Some(other) = runs.iter().find(|r| r.value != runs[0].value) {
                return Err(format!(
                    "{}: the search on {p} thread(s) gave {} in one run and {} in another",
                    case.name, runs[0].value, other.value
                ));
            }
            runs.sort_by(|x, y| x.seconds.total_cmp(&y.seconds));
            let spread = (runs[0].seconds, runs[runs.len() - 1].seconds, runs.len());
            let a = runs.swap_remove(runs.len() / 2);
            let retro = (opts.retrograde && undrawn as usize <= crate::answer::MAX_FREE_IN_MEMORY)
                .then(|| solve(case.pos, p, Engine::Partition))
                .transpose()?;
            let engines = opts
                .retrograde
                .then(|| time_engines(case.pos, p))
                .transpose()
                .map_err(|e| format!("{}: {e}", case.name))?;
            let row = row(case, p, &a, book, retro.as_ref(), engines, spread);
            report(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The row of search `a` of `case` on `threads`, checked against the file's value, else the
/// store's `book` value, else the retrograde's `retro`; with `engines`, each engine timed as a
/// hint; `(min, max, repeats)`: the spread of the searches `a` is the median of.
fn row(
    case: &Case,
    threads: usize,
    a: &Analysis,
    book: Option<i32>,
    retro: Option<&Analysis>,
    engines: Option<EngineTimes>,
    (min, max, repeats): (f64, f64, usize),
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
        repeats,
        search_seconds_min: min,
        search_seconds_max: max,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::analyse;
    use crate::solver::SolveOptions;

    /// The search's analysis of the empty 2x2, with the time `seconds` and the value `value`
    /// written over its own: the rounds' bookkeeping is what these tests read.
    fn searched(seconds: f64, value: i32) -> Analysis {
        let pos = Position::empty("2x2".parse().unwrap());
        Analysis { seconds, value, ..analyse(pos, Engine::Search, SolveOptions::default()).unwrap() }
    }

    fn two_cases() -> Vec<Case> {
        ["2x2", "2x3"].iter().flat_map(|b| cases(b).unwrap()).collect()
    }

    #[test]
    fn repeats_run_in_rounds_and_each_row_is_its_median_run() {
        let cases = two_cases();
        let opts = Options { threads: &[1, 2], store: None, retrograde: false, repeats: 3 };
        // Each call's time: its order of asking, so the rounds show in the times kept.
        let (mut asked, mut reported) = (Vec::new(), 0);
        let rows = rows(
            &cases,
            &opts,
            &mut |pos, p, _| {
                asked.push((pos.board.to_string(), p));
                Ok(searched(asked.len() as f64, 0))
            },
            &mut |_| reported += 1,
        )
        .unwrap();
        // Three rounds, each over both cases and both thread counts.
        let round: Vec<_> = [("2x2", 1), ("2x2", 2), ("2x3", 1), ("2x3", 2)].map(|(b, p)| (b.to_string(), p)).into();
        assert_eq!(asked, [round.clone(), round.clone(), round].concat());
        assert_eq!(reported, 4, "one row for each case and thread count");
        // 2x3 on 2 threads was asked 4th, 8th and 12th: its median run is the 8th.
        let last = &rows[3];
        assert_eq!((last.case.as_str(), last.threads), ("2x3", 2));
        assert_eq!(
            (last.search_seconds, last.search_seconds_min, last.search_seconds_max, last.repeats),
            (8.0, 4.0, 12.0, 3)
        );
        let s = summary(&rows);
        assert_eq!(s.iter().map(|s| (s.threads, s.cases)).collect::<Vec<_>>(), [(1, 2), (2, 2)]);
        // On one thread the cases' medians are the 5th and 7th asked: the upper one of two.
        assert_eq!((s[0].median_seconds, s[0].mean_seconds), (7.0, 6.0));
    }

    #[test]
    fn searches_of_one_case_that_disagree_are_an_error_naming_it() {
        let cases = two_cases();
        let opts = Options { threads: &[1], store: None, retrograde: false, repeats: 2 };
        let mut n = 0;
        let e = rows(
            &cases,
            &opts,
            &mut |pos, _, _| {
                n += 1;
                // The second search of 2x3 (the 4th asked) goes wrong.
                Ok(searched(1.0, if n == 4 { 5 } else { pos.board.to_string().len() as i32 }))
            },
            &mut |_| {},
        )
        .unwrap_err();
        assert_eq!(e, "2x3: the search on 1 thread(s) gave 3 in one run and 5 in another");
    }
}
