//! The trace of a run: one row per job (`job,thread,start_seconds,end_seconds,positions`, from the
//! start), after a `#` line naming the board, threads, value and the plan run (its fingerprint,
//! [`crate::plan::Plan::fingerprint`]; traces written before it name none). The executor writes it and
//! `dab cluster-trace` converts Slurm's record into one; `dab compare` reads it, and the reader
//! refuses what no run can give (a missing field, a time that is not a finite number >= 0, an
//! end before its start, a job twice, two jobs of one thread at once, a job before its inputs),
//! naming the line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::game::Value;
use crate::plan::is_fingerprint;
use crate::sched::{Graph, is_job_name};
use crate::support::{one_line, write_atomic};

/// Most bytes of a trace: a row of 128 bytes (rows are about 50: a job's name, its thread,
/// start, end and positions) for each of the most jobs a graph may have.
const MAX_TRACE_BYTES: u64 = crate::sched::MAX_JOBS * 128;
/// Why no trace needs more than [`MAX_TRACE_BYTES`].
const TRACE_BOUND: &str = "a trace has a row of about 50 bytes for each of at most 2,000,000 jobs";

/// Why a trace cannot be read or written; names the file.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file cannot be read.
    #[error("cannot read trace '{path}': {source}")]
    Read {
        /// The trace file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file is not a trace.
    #[error("trace '{path}': {}", one_line(message))]
    Trace {
        /// The trace file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The file cannot be written.
    #[error("cannot write trace '{path}': {source}")]
    Write {
        /// The trace file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

/// One job's run, seconds from the start of the execution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceRow {
    /// The job's name.
    pub job: String,
    /// The worker thread (0-based).
    pub thread: usize,
    /// Seconds from the start of the run (`start_seconds` in the file; `start` also read).
    #[serde(rename = "start_seconds", alias = "start")]
    pub start: f64,
    /// Seconds from the start of the run (`end_seconds` in the file; `end` also read).
    #[serde(rename = "end_seconds", alias = "end")]
    pub end: f64,
    /// Positions the job computed.
    pub positions: u64,
}

/// What the trace's first line says about the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceInfo {
    /// The board, `MxN`.
    pub board: Option<String>,
    /// Threads the run had.
    pub threads: Option<u32>,
    /// The root's value.
    pub value: Option<Value>,
    /// True when the rows are a plan's cluster tasks (`unit=task`; `dab cluster-trace`), not
    /// its jobs, and `threads` its nodes.
    pub tasks: bool,
    /// The fingerprint of the plan the run ran (`plan=`; [`crate::plan::Plan::fingerprint`]),
    /// or for `dab cluster-trace`, of the plan its records were matched with. None in traces
    /// written before traces named their plan.
    pub plan: Option<String>,
}

/// Writes a trace: a `#` line with the board, threads, value and plan, then the CSV.
pub fn write_trace(path: &Path, rows: &[TraceRow], info: &TraceInfo) -> Result<(), TraceError> {
    let mut text = String::from("#");
    if let Some(b) = &info.board {
        text += &format!(" board={b}");
    }
    if let Some(t) = info.threads {
        text += &format!(" threads={t}");
    }
    if let Some(v) = info.value {
        text += &format!(" value={v}");
    }
    if info.tasks {
        text += " unit=task";
    }
    if let Some(p) = &info.plan {
        text += &format!(" plan={p}");
    }
    text.push('\n');
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).expect("write to memory");
    }
    text += &String::from_utf8(w.into_inner().expect("write to memory")).expect("UTF-8");
    write_atomic(path, text.as_bytes()).map_err(|source| TraceError::Write { path: path.into(), source })
}

/// Reads a trace written by [`write_trace`] (or converted from a cluster's record) and checks
/// it: every field of every row present, times finite seconds with 0 <= start <= end, each job
/// once, threads below the first line's count, and no two jobs of one thread overlapping.
/// Errors name the file and the line.
pub fn read_trace(path: &Path) -> Result<(Vec<TraceRow>, TraceInfo), TraceError> {
    read_lines(path).map(|(rows, _, info)| (rows, info))
}

/// [`read_trace`], checked against the graph of the run's plan as well: no job starts before a
/// job it needs (that the trace holds) has ended.
pub fn read_trace_for(path: &Path, graph: &Graph) -> Result<(Vec<TraceRow>, TraceInfo), TraceError> {
    read_trace_with(path, |_| Some(graph.clone()))
}

/// [`read_trace_for`] with the graph chosen by what the trace's first line says (a trace of
/// cluster tasks is checked against the task graph); None: not checked against a graph.
pub fn read_trace_with(
    path: &Path,
    graph_of: impl FnOnce(&TraceInfo) -> Option<Graph>,
) -> Result<(Vec<TraceRow>, TraceInfo), TraceError> {
    let (rows, lines, info) = read_lines(path)?;
    let Some(graph) = graph_of(&info) else { return Ok((rows, info)) };
    let bad = |message: String| TraceError::Trace { path: path.into(), message };
    let row_of: HashMap<&str, usize> = rows.iter().enumerate().map(|(i, r)| (r.job.as_str(), i)).collect();
    let job_of: HashMap<&str, usize> = graph.jobs.iter().enumerate().map(|(i, j)| (j.name.as_str(), i)).collect();
    for (i, r) in rows.iter().enumerate() {
        let Some(&g) = job_of.get(r.job.as_str()) else { continue };
        for &k in graph.needs(g) {
            let Some(&j) = row_of.get(graph.jobs[k as usize].name.as_str()) else { continue };
            if r.start < rows[j].end {
                return Err(bad(format!(
                    "line {}: job '{}' starts at {} s, before its input '{}' (line {}) ends at {} s",
                    lines[i], r.job, r.start, rows[j].job, lines[j], rows[j].end
                )));
            }
        }
    }
    Ok((rows, info))
}

/// The rows, the line of each, and the first line's facts, checked as [`read_trace`] says.
fn read_lines(path: &Path) -> Result<(Vec<TraceRow>, Vec<usize>, TraceInfo), TraceError> {
    let text = crate::support::read_text_at_most(path, MAX_TRACE_BYTES, TRACE_BOUND)
        .map_err(|source| TraceError::Read { path: path.into(), source })?;
    let bad = |message: String| TraceError::Trace { path: path.into(), message };
    let info = read_header(&text).map_err(bad)?;
    let (rows, lines) = read_rows(&text, &info).map_err(bad)?;
    if rows.is_empty() {
        return Err(bad("no jobs".into()));
    }
    check_threads(&rows, &lines).map_err(bad)?;
    Ok((rows, lines, info))
}

/// The facts of the `#` lines that open the trace.
fn read_header(text: &str) -> Result<TraceInfo, String> {
    let mut info = TraceInfo::default();
    for (n, line) in text.lines().enumerate().take_while(|(_, l)| l.starts_with('#')) {
        let n = n + 1;
        for item in line.trim_start_matches('#').split_whitespace() {
            match item.split_once('=') {
                Some(("board", b)) => info.board = Some(b.to_string()),
                Some(("threads", t)) => {
                    let threads = t.parse().ok().filter(|&t: &u32| t >= 1);
                    info.threads =
                        Some(threads.ok_or_else(|| format!("line {n}: threads={t} is not a thread count >= 1"))?);
                }
                Some(("value", v)) => {
                    info.value = Some(v.parse().map_err(|_| format!("line {n}: value={v} is not a value"))?)
                }
                Some(("plan", p)) => {
                    if !is_fingerprint(p) {
                        return Err(format!("line {n}: plan={p} is not a plan's fingerprint (16 hex digits)"));
                    }
                    info.plan = Some(p.to_string());
                }
                Some(("unit", u)) => {
                    info.tasks = match u {
                        "task" => true,
                        "job" => false,
                        _ => return Err(format!("line {n}: unit={u} is neither job nor task")),
                    }
                }
                _ => {}
            }
        }
    }
    Ok(info)
}

/// The CSV rows after the header, each checked alone ([`check_row`]) and against the rows
/// before it (each job once), with the line of each.
fn read_rows(text: &str, info: &TraceInfo) -> Result<(Vec<TraceRow>, Vec<usize>), String> {
    let mut r = csv::ReaderBuilder::new().comment(Some(b'#')).trim(csv::Trim::All).from_reader(text.as_bytes());
    let columns = "columns: job,thread,start_seconds,end_seconds,positions";
    let header = r.headers().map_err(|e| format!("{e} ({columns})"))?.clone();
    let mut rows: Vec<TraceRow> = Vec::new();
    let mut lines = Vec::new();
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| match e.kind() {
            csv::ErrorKind::UnequalLengths { pos: Some(pos), expected_len, len } => {
                format!("line {}: {len} fields where the header has {expected_len} ({columns})", pos.line())
            }
            _ => format!("{e} ({columns})"),
        })?;
        let line = rec.position().map_or(0, |p| p.line() as usize);
        let row: TraceRow = rec.deserialize(Some(&header)).map_err(|e| format!("line {line}: {e} ({columns})"))?;
        check_row(&row, line, info)?;
        if let Some(first) = first_line.insert(row.job.clone(), line) {
            return Err(format!("line {line}: job '{}' appears twice (first on line {first})", row.job));
        }
        rows.push(row);
        lines.push(line);
    }
    Ok((rows, lines))
}

/// One row alone, on line `line`: a job name, finite times with 0 <= start <= end, and a thread
/// below the first line's count.
fn check_row(row: &TraceRow, line: usize, info: &TraceInfo) -> Result<(), String> {
    let job = &row.job;
    if !is_job_name(job) {
        return Err(format!(
            "line {line}: '{job}' is not a job name (non-empty; no spaces, control characters, ':', ',' or '#')"
        ));
    }
    if !(row.start.is_finite() && row.end.is_finite() && row.start >= 0.0) {
        return Err(format!(
            "line {line}: job '{job}' has start {} and end {}: times are finite seconds >= 0",
            row.start, row.end
        ));
    }
    if row.end < row.start {
        return Err(format!("line {line}: job '{job}' ends at {} s, before it starts at {} s", row.end, row.start));
    }
    let limit = info.threads.map_or(u32::MAX as usize, |t| t as usize);
    if row.thread >= limit {
        let have = info.threads.map_or(String::new(), |t| format!(" (the first line says threads={t})"));
        return Err(format!("line {line}: job '{job}' is on thread {}, beyond the run's threads{have}", row.thread));
    }
    Ok(())
}

/// One thread runs one job at a time: by thread and start, each starts after the last ends.
fn check_threads(rows: &[TraceRow], lines: &[usize]) -> Result<(), String> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&rows[a], &rows[b]);
        a.thread.cmp(&b.thread).then(a.start.total_cmp(&b.start)).then(a.end.total_cmp(&b.end))
    });
    for w in order.windows(2) {
        let (a, b) = (&rows[w[0]], &rows[w[1]]);
        if a.thread == b.thread && b.start < a.end {
            return Err(format!(
                "line {}: job '{}' starts at {} s on thread {}, before job '{}' (line {}) on the same thread ends at {} s",
                lines[w[1]], b.job, b.start, b.thread, a.job, lines[w[0]], a.end
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{TraceInfo, TraceRow, read_trace, write_trace};

    fn rows() -> Vec<TraceRow> {
        vec![TraceRow { job: "a".into(), thread: 0, start: 0.0, end: 0.5, positions: 3 }]
    }

    #[test]
    fn a_trace_names_the_plan_it_ran_and_one_written_before_names_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.csv");
        let info = TraceInfo {
            board: Some("1x1".into()),
            threads: Some(1),
            value: None,
            tasks: false,
            plan: Some("0123456789abcdef".into()),
        };
        write_trace(&path, &rows(), &info).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# board=1x1 threads=1 plan=0123456789abcdef\n"), "{text}");
        assert_eq!(read_trace(&path).unwrap(), (rows(), info.clone()));
        // Before traces named their plan.
        std::fs::write(&path, text.replace(" plan=0123456789abcdef", "")).unwrap();
        assert_eq!(read_trace(&path).unwrap().1, TraceInfo { plan: None, ..info });
    }

    #[test]
    fn a_plan_that_is_no_fingerprint_is_refused_naming_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.csv");
        for bad in ["", "xyz", "0123456789ABCDEF", "0123456789abcdef0"] {
            std::fs::write(&path, format!("# board=1x1 plan={bad}\njob,thread,start,end,positions\na,0,0,1,1\n"))
                .unwrap();
            let e = read_trace(&path).unwrap_err().to_string();
            assert!(e.contains(&format!("line 1: plan={bad} is not a plan's fingerprint (16 hex digits)")), "{e}");
        }
    }
}
