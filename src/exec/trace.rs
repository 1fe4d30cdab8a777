//! The trace of a run: one row per job (`job,thread,start,end,positions`, seconds from the
//! start), after a `#` line naming the board, threads and value. The executor writes it,
//! `dab compare` and `dab cluster-trace` read it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::game::Value;
use crate::support::write_atomic;

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
    #[error("trace '{path}': {message}")]
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
    /// Seconds from the start of the run.
    pub start: f64,
    /// Seconds from the start of the run.
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
}

/// Writes a trace: a `#` line with the board, threads and value, then the CSV.
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
    text.push('\n');
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).expect("write to memory");
    }
    text += &String::from_utf8(w.into_inner().expect("write to memory")).expect("UTF-8");
    write_atomic(path, text.as_bytes()).map_err(|source| TraceError::Write { path: path.into(), source })
}

/// Reads a trace written by [`write_trace`] (or converted from a cluster's record).
pub fn read_trace(path: &Path) -> Result<(Vec<TraceRow>, TraceInfo), TraceError> {
    let text = std::fs::read_to_string(path).map_err(|source| TraceError::Read { path: path.into(), source })?;
    let bad = |message: String| TraceError::Trace { path: path.into(), message };
    let mut info = TraceInfo::default();
    for line in text.lines().take_while(|l| l.starts_with('#')) {
        for item in line.trim_start_matches('#').split_whitespace() {
            match item.split_once('=') {
                Some(("board", b)) => info.board = Some(b.to_string()),
                Some(("threads", t)) => info.threads = Some(t.parse().map_err(|_| bad(format!("threads '{t}'")))?),
                Some(("value", v)) => info.value = Some(v.parse().map_err(|_| bad(format!("value '{v}'")))?),
                _ => {}
            }
        }
    }
    let mut r = csv::ReaderBuilder::new().comment(Some(b'#')).trim(csv::Trim::All).from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for rec in r.deserialize::<TraceRow>() {
        let row = rec.map_err(|e| bad(format!("{e} (columns: job,thread,start,end,positions)")))?;
        if !(row.start.is_finite() && row.end.is_finite() && 0.0 <= row.start && row.start <= row.end) {
            return Err(bad(format!("job '{}' has start {} and end {}", row.job, row.start, row.end)));
        }
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(bad("no jobs".into()));
    }
    Ok((rows, info))
}
