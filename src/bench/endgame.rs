//! The endgame suite: the endgame theorems against the exact solver on
//! loops-and-chains positions (ASCII art files, as in `tests/data/endgame/`): how long each
//! takes to value the position and every move, and whether they agree.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::answer::endgame::{NotLoopsAndChains, analyse_position};
use crate::exec::{SolveError, solve};
use crate::game::{FormatError, Position};
use crate::solver::SolveOptions;

/// One position: the theorems' time (median of many runs) and one single-threaded solve.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The position's file name, without `.txt`.
    pub position: String,
    /// Its board.
    pub board: String,
    /// Its undrawn lines.
    pub free_lines: usize,
    /// Its loops and chains (`C3 C3 L4`).
    pub components: String,
    /// Its value by the theorems.
    pub value: i32,
    /// The theorems' median time.
    pub theorem_microseconds: f64,
    /// One solve's time.
    pub solve_seconds: f64,
    /// How many times faster the theorems were.
    pub speedup: f64,
    /// The theorems and the solver give the same value for the position and every move.
    pub agree: bool,
}

/// Runs of the theorems per position (their median is reported).
pub(crate) const THEOREM_RUNS: usize = 1001;

/// Why the endgame suite stopped, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum EndgameBenchError {
    /// A folder or file could not be read.
    #[error("cannot read '{}': {source}", path.display())]
    Read {
        /// The folder or file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file is not a position.
    #[error("'{}': {source}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// Why.
        source: FormatError,
    },
    /// A position is not one of loops and chains.
    #[error("'{}' is not loops and chains: {source}", path.display())]
    NotLoopsAndChains {
        /// The file.
        path: PathBuf,
        /// Why.
        source: NotLoopsAndChains,
    },
    /// The solver failed on a position.
    #[error("'{}': {source}", path.display())]
    Solve {
        /// The file.
        path: PathBuf,
        /// Why.
        source: SolveError,
    },
}

/// Times every `.txt` position in `dir`, in name order; `progress` hears each row.
pub fn run(dir: &Path, progress: &mut dyn FnMut(&Row)) -> Result<Vec<Row>, EndgameBenchError> {
    let read = |path: &Path| {
        let path = path.to_path_buf();
        move |source| EndgameBenchError::Read { path, source }
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(read(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut rows = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(read(&path))?;
        let pos =
            Position::from_art(&text).map_err(|source| EndgameBenchError::Format { path: path.clone(), source })?;
        let report = analyse_position(pos)
            .map_err(|source| EndgameBenchError::NotLoopsAndChains { path: path.clone(), source })?;
        let mut times: Vec<f64> = (0..THEOREM_RUNS)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(analyse_position(std::hint::black_box(pos)).is_ok());
                start.elapsed().as_secs_f64()
            })
            .collect();
        let theorem = crate::support::median(&mut times);
        let start = Instant::now();
        let solved = solve(pos, SolveOptions::default())
            .map_err(|source| EndgameBenchError::Solve { path: path.clone(), source })?;
        let solve_seconds = start.elapsed().as_secs_f64();
        let mut theorem_moves: Vec<(u16, i32)> = report.moves.iter().map(|m| (m.index, m.value)).collect();
        let mut solver_moves: Vec<(u16, i32)> = solved.moves.iter().map(|m| (m.line.0, m.value as i32)).collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endgame_benchmark_times_and_checks_each_position() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["four-loop-three-three.txt", "two-threes.txt"] {
            std::fs::copy(format!("tests/data/endgame/{name}"), dir.path().join(name)).unwrap();
        }
        let mut heard = 0;
        let rows = run(dir.path(), &mut |_| heard += 1).unwrap();
        assert_eq!((rows.len(), heard), (2, 2));
        assert!(rows.iter().all(|r| r.agree && r.theorem_microseconds > 0.0 && r.solve_seconds > 0.0));
        assert_eq!((rows[0].components.as_str(), rows[0].value), ("C3 C3 L4", -2));
        // A position the theorems do not cover is named.
        std::fs::write(dir.path().join("empty.txt"), "+ +\n   \n+ +\n").unwrap();
        let err = run(dir.path(), &mut |_| {}).unwrap_err().to_string();
        assert!(err.contains("empty.txt"), "{err}");
    }
}
