//! `dab bench --suite endgame`: the endgame theorems against the exact solver on
//! loops-and-chains positions (ASCII art files, as in `tests/data/endgame/`): how long each
//! takes to value the position and every move, and whether they agree.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::endgame::analyse_position;
use crate::position::Position;
use crate::solve::{SolveOptions, solve};

/// One position: the theorems' time (median of many runs) and one single-threaded solve.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub position: String,
    pub board: String,
    pub free_lines: usize,
    pub components: String,
    pub value: i32,
    pub theorem_microseconds: f64,
    pub solve_seconds: f64,
    /// How many times faster the theorems were.
    pub speedup: f64,
    /// The theorems and the solver give the same value for the position and every move.
    pub agree: bool,
}

/// Runs of the theorems per position (their median is reported).
pub const THEOREM_RUNS: usize = 1001;

/// Times every `.txt` position in `dir`, in name order; `progress` hears each row.
pub fn run(dir: &Path, progress: &mut dyn FnMut(&Row)) -> Result<Vec<Row>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read '{}': {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut rows = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        let pos = Position::from_art(&text).map_err(|e| format!("'{}': {e}", path.display()))?;
        let report = analyse_position(pos).map_err(|e| format!("'{}' is not loops and chains: {e}", path.display()))?;
        let mut times: Vec<f64> = (0..THEOREM_RUNS)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(analyse_position(std::hint::black_box(pos)).is_ok());
                start.elapsed().as_secs_f64()
            })
            .collect();
        let theorem = crate::calibrate::median(&mut times);
        let start = Instant::now();
        let solved = solve(pos, SolveOptions::default()).map_err(|e| format!("'{}': {e}", path.display()))?;
        let solve_seconds = start.elapsed().as_secs_f64();
        let mut theorem_moves: Vec<(u8, i32)> = report.moves.iter().map(|m| (m.index, m.value)).collect();
        let mut solver_moves: Vec<(u8, i32)> = solved.moves.iter().map(|m| (m.line.0, m.value as i32)).collect();
        theorem_moves.sort_unstable();
        solver_moves.sort_unstable();
        let row = Row {
            position: path.file_stem().map_or(String::new(), |s| s.to_string_lossy().into_owned()),
            board: report.board.clone(),
            free_lines: pos.undrawn().len() as usize,
            components: report.endgame.components.clone(),
            value: report.value,
            theorem_microseconds: theorem * 1e6,
            solve_seconds,
            speedup: solve_seconds / theorem,
            agree: report.value == solved.value as i32 && theorem_moves == solver_moves,
        };
        progress(&row);
        rows.push(row);
    }
    Ok(rows)
}
