//! The wide suite: `dab solve BOARD --lines L` on boards of 5x6 to 16x16 at 18 to 26 undrawn
//! lines, as the command answers them (the default engine, the walk for the next loony move
//! within its budget), by a function the binary implements as a process of its own, each row
//! checked against the search engine's value and against [`TARGET_SECONDS`]. The positions are
//! those of `data/wide-boards.csv`, each made by [`generate`] from its row's seed (a test holds
//! the file to it).

use serde::Serialize;

use crate::answer::{Analysis, Engine};
use crate::game::{Board, Line, LineSet, Position};
use crate::support::SplitMix64;

/// The cases: `case,board,undrawn,worm,seed,lines`, each row's position [`generate`]d from its
/// board, undrawn lines, worm and seed.
pub const CASES: &str = include_str!("data/wide-boards.csv");

/// The most seconds a case may take, the process's start included.
pub const TARGET_SECONDS: f64 = 1.0;

/// One position of the suite.
#[derive(Clone, Debug)]
pub struct Case {
    /// Its name in the file.
    pub name: String,
    /// The position.
    pub pos: Position,
}

/// Why the wide suite stopped, naming the case.
#[derive(Debug, thiserror::Error)]
pub enum WideBenchError {
    /// A row of the cases file is not a case.
    #[error("wide-boards.csv, row {row}: {message}")]
    Case {
        /// The row (the header is row 1, comments not counted).
        row: usize,
        /// What is wrong.
        message: String,
    },
    /// A solve failed.
    #[error("case {case}: {message}")]
    Solve {
        /// The case.
        case: String,
        /// What the solve said.
        message: String,
    },
}

/// A row of the cases file.
#[derive(serde::Deserialize)]
struct FileRow {
    case: String,
    board: String,
    undrawn: usize,
    worm: usize,
    seed: u64,
    lines: String,
}

/// A position of `board` with `undrawn` lines left, from `seed`: every line drawn but *worms*
/// of up to `worm` lines (each drawn at random from 1 to `worm` long), each worm's next line a
/// side of a box of its last one, so that worms of two or more make chains through boxes;
/// worms of one line leave lines apart, each completing the boxes beside it (issue 80's
/// example: every move a capture).
pub fn generate(board: Board, undrawn: usize, worm: usize, seed: u64) -> Position {
    let mut rng = SplitMix64(seed);
    let undrawn = undrawn.min(board.lines());
    let mut free = LineSet::EMPTY;
    while (free.len() as usize) < undrawn {
        let mut line = loop {
            let l = Line(rng.below(board.lines()) as u16);
            if !free.contains(l) {
                break l;
            }
        };
        for _ in 0..1 + rng.below(worm.max(1)) {
            free = free.with(line);
            let next: Vec<Line> =
                board.boxes_of(line).flat_map(|b| board.box_sides(b)).filter(|&s| !free.contains(s)).collect();
            if free.len() as usize == undrawn || next.is_empty() {
                break;
            }
            line = next[rng.below(next.len())];
        }
    }
    Position { board, drawn: board.full().minus(free) }
}

/// The cases of [`CASES`], each checked against [`generate`].
pub fn cases() -> Result<Vec<Case>, WideBenchError> {
    let mut reader = csv::ReaderBuilder::new().comment(Some(b'#')).from_reader(CASES.as_bytes());
    let mut out = Vec::new();
    for (i, row) in reader.deserialize::<FileRow>().enumerate() {
        let bad = |message: String| WideBenchError::Case { row: i + 2, message };
        let row = row.map_err(|e| bad(e.to_string()))?;
        let board: Board = row.board.parse().map_err(|e: crate::game::BoardError| bad(e.to_string()))?;
        let pos = Position::from_line_string(board, &row.lines).map_err(|e| bad(e.to_string()))?;
        if pos != generate(board, row.undrawn, row.worm, row.seed) || pos.undrawn().len() as usize != row.undrawn {
            return Err(bad(format!("{}: not the position its board, undrawn lines, worm and seed make", row.case)));
        }
        out.push(Case { name: row.case, pos });
    }
    Ok(out)
}

/// One case: the answer of `dab solve BOARD --lines L`, its time, and the search's value.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The case's name.
    pub case: String,
    /// The board.
    pub board: String,
    /// Undrawn lines.
    pub undrawn: usize,
    /// The engine that answered.
    pub engine: String,
    /// The position's value.
    pub value: i32,
    /// The search engine's value of it.
    pub search_value: i32,
    /// Whether the two agree.
    pub agree: bool,
    /// Who must make the next loony move (`mover`, `opponent`, `neither`), `left out` where its
    /// walk was priced past its budget, or empty where the engine kept no table of values.
    pub next_loony: String,
    /// The engine's own seconds, as the answer gives them.
    pub engine_seconds: f64,
    /// Wall seconds of the whole command, the process's start included (the median of the
    /// runs where there are several).
    pub seconds: f64,
    /// Whether `seconds` is within [`TARGET_SECONDS`].
    pub within_target: bool,
}

/// What `solve` gives for a position: the analysis `dab solve` prints and the wall seconds the
/// command took.
pub type Solved = (Analysis, f64);

/// Solves every case `repeats` times with the default engine and once with `--engine search`,
/// through `solve` (`None`: the command's default engine); `progress` hears each row.
pub fn rows(
    cases: &[Case],
    repeats: usize,
    solve: &mut dyn FnMut(Position, Option<Engine>) -> Result<Solved, String>,
    progress: &mut dyn FnMut(&Row),
) -> Result<Vec<Row>, WideBenchError> {
    let mut rows = Vec::new();
    for case in cases {
        let failed = |message: String| WideBenchError::Solve { case: case.name.clone(), message };
        let mut runs = Vec::new();
        for _ in 0..repeats.max(1) {
            runs.push(solve(case.pos, None).map_err(failed)?);
        }
        let mut times: Vec<f64> = runs.iter().map(|r| r.1).collect();
        let seconds = crate::support::median(&mut times);
        let (a, _) = runs.pop().expect("a run");
        let (search, _) = solve(case.pos, Some(Engine::Search)).map_err(failed)?;
        let next_loony = match (&a.next_loony, &a.next_loony_left_out) {
            (Some(n), _) => {
                serde_json::to_value(n).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
            }
            (None, Some(_)) => "left out".to_string(),
            (None, None) => String::new(),
        };
        let row = Row {
            case: case.name.clone(),
            board: a.board.clone(),
            undrawn: a.free_lines(),
            engine: a.engine.to_string(),
            value: a.value,
            search_value: search.value,
            agree: a.value == search.value,
            next_loony,
            engine_seconds: a.seconds,
            seconds,
            within_target: seconds <= TARGET_SECONDS,
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
    fn the_cases_file_is_what_the_generator_makes() {
        let cases = cases().unwrap();
        assert!(cases.len() >= 10);
        for c in &cases {
            let free = c.pos.undrawn().len();
            assert!((18..=26).contains(&free), "{}: {free} undrawn lines", c.name);
        }
        let boards: Vec<String> = cases.iter().map(|c| c.pos.board.to_string()).collect();
        for b in ["5x6", "8x8", "16x16"] {
            assert!(boards.iter().any(|x| x == b), "{b}");
        }
    }

    #[test]
    fn worms_of_one_line_leave_lines_apart_and_longer_ones_make_chains() {
        let board: Board = "16x16".parse().unwrap();
        let spread = generate(board, 20, 1, 80);
        assert_eq!(spread.undrawn().len(), 20);
        assert_eq!(spread, generate(board, 20, 1, 80), "the same seed, the same position");
        // A box with two undrawn sides is a link of a chain.
        let links = |p: Position| {
            (0..board.boxes())
                .filter(|&b| p.board.box_sides(b).iter().filter(|&&s| !p.drawn.contains(s)).count() == 2)
                .count()
        };
        let worms = generate(board, 20, 5, 80);
        assert!(links(worms) > links(spread), "{} against {}", links(worms), links(spread));
    }

    #[test]
    fn a_row_checks_the_value_against_the_search_and_the_time_against_the_target() {
        let cases = vec![Case { name: "small".into(), pos: generate("3x3".parse().unwrap(), 12, 3, 1) }];
        let mut solve = |pos: Position, engine: Option<Engine>| {
            let engine = engine.unwrap_or(Engine::Partition);
            let a = crate::answer::analyse(pos, engine, crate::solver::SolveOptions::default())
                .map_err(|e| e.to_string())?;
            Ok((a, if engine == Engine::Search { 9.0 } else { 0.25 }))
        };
        let mut heard = 0;
        let rows = rows(&cases, 3, &mut solve, &mut |_| heard += 1).unwrap();
        assert_eq!((rows.len(), heard), (1, 1));
        let r = &rows[0];
        assert!(r.agree && r.within_target && r.seconds == 0.25, "{r:?}");
        assert!(["mover", "opponent", "neither"].contains(&r.next_loony.as_str()), "{r:?}");
    }

    /// The rows of `data/wide-boards.csv`, printed: each case's board, undrawn lines, worm and
    /// seed, and the position they make. Run with `--ignored --nocapture` to write the file
    /// again (its comment lines above these).
    #[test]
    #[ignore]
    fn print_the_cases_file() {
        let plan = [
            ("5x6", 18, 5),
            ("6x6", 20, 5),
            ("7x7", 22, 5),
            ("8x8", 24, 5),
            ("9x9", 26, 5),
            ("10x10", 20, 1),
            ("10x10", 22, 5),
            ("12x12", 20, 5),
            ("12x12", 24, 1),
            ("16x16", 18, 5),
            ("16x16", 20, 1),
            ("16x16", 26, 5),
        ];
        println!("case,board,undrawn,worm,seed,lines");
        for (i, (b, undrawn, worm)) in plan.into_iter().enumerate() {
            let seed = 80 + i as u64;
            let pos = generate(b.parse().unwrap(), undrawn, worm, seed);
            println!("{b}-{undrawn}-w{worm},{b},{undrawn},{worm},{seed},{}", pos.to_line_string());
        }
    }
}
