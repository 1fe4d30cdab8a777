//! The query suite: `dab query BOARD --store S --lines L` as a user types it, each a process of
//! its own (the store opened, the position and every move read, the walk for the next loony
//! move), on the empty board, each first move and random positions of every count of drawn
//! lines; each row's seconds set against [`TARGET_MEDIAN_SECONDS`] (the median) and
//! [`TARGET_MOST_SECONDS`] (each).

use serde::Serialize;

use crate::game::{Board, Line, LineSet, Position};
use crate::support::{SplitMix64, median};

/// The median a complete store's queries must meet, the process's start included.
pub const TARGET_MEDIAN_SECONDS: f64 = 0.05;
/// The most any one query may take.
pub const TARGET_MOST_SECONDS: f64 = 0.5;

/// The suite's positions of `board`: the empty board, each first move, and `random` positions
/// whose count of drawn lines is drawn evenly from 0 to one short of the full board, made
/// from `seed`; each with its name.
pub fn cases(board: Board, random: usize, seed: u64) -> Vec<(String, Position)> {
    let empty = Position::empty(board);
    let mut out = vec![("empty".to_string(), empty)];
    for l in 0..board.lines() {
        let line = Line(l as u16);
        out.push((format!("first-{}", board.line_name(line)), Position { board, drawn: LineSet::EMPTY.with(line) }));
    }
    let mut rng = SplitMix64(seed);
    for i in 0..random {
        let drawn_count = rng.below(board.lines());
        let mut lines: Vec<u16> = (0..board.lines() as u16).collect();
        // The first `drawn_count` of a shuffle.
        for k in 0..drawn_count {
            let j = k + rng.below(lines.len() - k);
            lines.swap(k, j);
        }
        let drawn = lines[..drawn_count].iter().fold(LineSet::EMPTY, |d, &l| d.with(Line(l)));
        out.push((format!("random-{}", i + 1), Position { board, drawn }));
    }
    out
}

/// What one query printed, and how long the command took.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryFigures {
    /// The position's value.
    pub value: i32,
    /// Who must make the next loony move, as the answer names it (empty where it gives none).
    pub next_loony: String,
    /// Why it gave none, where it says (empty otherwise).
    pub left_out: String,
    /// Where the answer came from (`store`, `solved`, ...).
    pub source: String,
    /// Wall seconds of the whole command.
    pub seconds: f64,
}

/// One row of the suite.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueryRow {
    /// The case's name.
    pub case: String,
    /// The board.
    pub board: String,
    /// Lines drawn.
    pub drawn: usize,
    /// The position, as a line string.
    pub lines: String,
    /// Its value.
    pub value: i32,
    /// Who must make the next loony move (empty: not given).
    pub next_loony: String,
    /// Why not, where the answer says.
    pub left_out: String,
    /// The answer's source.
    pub source: String,
    /// Wall seconds of the command.
    pub seconds: f64,
    /// Within [`TARGET_MOST_SECONDS`].
    pub within_most: bool,
}

/// Queries every case with `query` (a `dab query` in a process of its own), hearing each row.
pub fn rows(
    cases: &[(String, Position)],
    query: &mut dyn FnMut(Position) -> Result<QueryFigures, String>,
    heard: &mut dyn FnMut(&QueryRow),
) -> Result<Vec<QueryRow>, String> {
    let mut out = Vec::new();
    for (name, pos) in cases {
        let f = query(*pos).map_err(|e| format!("case {name}: {e}"))?;
        let row = QueryRow {
            case: name.clone(),
            board: pos.board.to_string(),
            drawn: pos.drawn.len() as usize,
            lines: pos.to_line_string(),
            value: f.value,
            next_loony: f.next_loony,
            left_out: f.left_out,
            source: f.source,
            seconds: f.seconds,
            within_most: f.seconds <= TARGET_MOST_SECONDS,
        };
        heard(&row);
        out.push(row);
    }
    Ok(out)
}

/// The suite's figures: the median and longest seconds, and how many answers gave who must
/// make the next loony move.
#[derive(Clone, Debug, PartialEq)]
pub struct QuerySummary {
    /// Queries.
    pub queries: usize,
    /// Median seconds.
    pub median: f64,
    /// Longest seconds.
    pub longest: f64,
    /// Answers that gave the next loony move (or a full board's "neither").
    pub with_next_loony: usize,
    /// Whether the median and every query meet their targets.
    pub meets_targets: bool,
}

impl QuerySummary {
    /// The summary of `rows`.
    pub fn of(rows: &[QueryRow]) -> QuerySummary {
        let mut seconds: Vec<f64> = rows.iter().map(|r| r.seconds).collect();
        let longest = seconds.iter().copied().fold(0.0, f64::max);
        let median = if seconds.is_empty() { 0.0 } else { median(&mut seconds) };
        QuerySummary {
            queries: rows.len(),
            median,
            longest,
            with_next_loony: rows.iter().filter(|r| !r.next_loony.is_empty()).count(),
            meets_targets: median <= TARGET_MEDIAN_SECONDS && longest <= TARGET_MOST_SECONDS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cases_are_the_empty_board_each_first_move_and_random_positions_short_of_full() {
        let board: Board = "2x2".parse().unwrap();
        let cases = cases(board, 50, 7);
        assert_eq!(cases.len(), 1 + 12 + 50);
        assert_eq!(cases[0].1, Position::empty(board));
        assert!(cases[1..13].iter().all(|(_, p)| p.drawn.len() == 1));
        let counts: std::collections::BTreeSet<u32> = cases[13..].iter().map(|(_, p)| p.drawn.len()).collect();
        assert!(counts.iter().all(|&c| c < 12) && counts.len() > 6, "{counts:?}");
        assert_eq!(super::cases(board, 50, 7), cases, "made from the seed alone");
    }

    #[test]
    fn the_summary_holds_the_median_and_every_query_to_their_targets() {
        let row = |seconds: f64, next: &str| QueryRow {
            case: "c".into(),
            board: "4x4".into(),
            drawn: 3,
            lines: String::new(),
            value: 0,
            next_loony: next.into(),
            left_out: String::new(),
            source: "store".into(),
            seconds,
            within_most: seconds <= TARGET_MOST_SECONDS,
        };
        let fast: Vec<QueryRow> = (0..9).map(|_| row(0.02, "mover")).chain([row(0.4, "")]).collect();
        let s = QuerySummary::of(&fast);
        assert!(s.meets_targets && s.with_next_loony == 9 && s.longest == 0.4, "{s:?}");
        let slow: Vec<QueryRow> = fast.iter().cloned().chain([row(0.6, "")]).collect();
        assert!(!QuerySummary::of(&slow).meets_targets);
        let median_slow: Vec<QueryRow> = (0..5).map(|_| row(0.06, "mover")).collect();
        assert!(!QuerySummary::of(&median_slow).meets_targets);
    }
}
