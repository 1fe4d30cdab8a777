//! `dab bench --suite endgame`: the endgame theorems against the exact solver on
//! loops-and-chains positions (ASCII art files, as in `tests/data/endgame/`): how long each
//! takes to value the position and every move, and whether they agree.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use dab::answer::endgame::analyse_position;
use dab::exec::solve;
use dab::game::Position;
use dab::solver::SolveOptions;

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
        let theorem = dab::support::median(&mut times);
        let start = Instant::now();
        let solved = solve(pos, SolveOptions::default()).map_err(|e| format!("'{}': {e}", path.display()))?;
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
        let err = run(dir.path(), &mut |_| {}).unwrap_err();
        assert!(err.contains("empty.txt"), "{err}");
    }
}
