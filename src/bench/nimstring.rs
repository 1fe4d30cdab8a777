//! The Nimstring calculator's speed (`dab bench --suite nimstring`): positions from a CSV file
//! (`group,board,lines`; tests/data/nimstring/bench.csv: random 5x5 positions without a
//! capturable box at 36, 40 and 44 undrawn lines, and 8x8 middle games cut by drawn lines into
//! regions of at most 30), each valued with every move within a time limit.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::answer::nimstring::{NimstringError, nimstring};
use crate::game::{Board, Position};

/// One position's row.
#[derive(Clone, Debug, Serialize)]
pub struct NimRow {
    /// The case's group (e.g. `5x5-40`).
    pub group: String,
    /// The board, `MxN`.
    pub board: String,
    /// Undrawn lines.
    pub undrawn: usize,
    /// The value (`loony`, a nimber, or empty where the limit passed first).
    pub value: String,
    /// Its regions' count.
    pub regions: usize,
    /// Shapes the calculator valued.
    pub shapes: u64,
    /// Wall seconds (the limit where it passed first).
    pub seconds: f64,
    /// Whether it finished within the limit.
    pub finished: bool,
}

#[derive(Deserialize)]
struct Case {
    group: String,
    board: String,
    lines: String,
}

/// Why the cases could not be read.
#[derive(Debug, thiserror::Error)]
pub enum NimBenchError {
    /// The file could not be read, or a row is not `group,board,lines`.
    #[error("{path}: {message}")]
    Cases {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A position is too large for the calculator.
    #[error("{0}")]
    Nimstring(#[from] NimstringError),
}

/// Values every position of `cases` with every move, each within `limit` seconds; `each`
/// hears each row as it is measured.
pub fn run(cases: &Path, limit: f64, each: &mut dyn FnMut(&NimRow)) -> Result<Vec<NimRow>, NimBenchError> {
    let bad = |message: String| NimBenchError::Cases { path: cases.display().to_string(), message };
    let mut reader = csv::Reader::from_path(cases).map_err(|e| bad(e.to_string()))?;
    let mut rows = Vec::new();
    for case in reader.deserialize::<Case>() {
        let case = case.map_err(|e| bad(e.to_string()))?;
        let board: Board = case.board.parse().map_err(|e| bad(format!("{e}")))?;
        let pos = Position::from_line_string(board, &case.lines).map_err(|e| bad(format!("{e}")))?;
        let undrawn = pos.undrawn().len() as usize;
        let row = match nimstring(pos, Some(limit)) {
            Ok(a) => NimRow {
                group: case.group,
                board: case.board,
                undrawn,
                value: a.value.to_string(),
                regions: a.regions.len(),
                shapes: a.shapes,
                seconds: a.seconds,
                finished: true,
            },
            Err(NimstringError::OutOfTime { shapes, .. }) => NimRow {
                group: case.group,
                board: case.board,
                undrawn,
                value: String::new(),
                regions: 0,
                shapes,
                seconds: limit,
                finished: false,
            },
            Err(e) => return Err(e.into()),
        };
        each(&row);
        rows.push(row);
    }
    Ok(rows)
}
