//! The strength of dab's play within a time budget (`dab bench --suite play`): whole games of
//! dab advising itself within the budget ([`crate::answer::advise`]) against a random-safe
//! player (it captures when it can, else draws a line that hands out no box, else any line),
//! and against exact play (a solve of the board kept whole, or a store's book), each side
//! moving first in half the games.

use std::time::Instant;

use serde::Serialize;

use crate::answer::play::{Oracle, PlayError};
use crate::answer::{Advice, Asking, advise};
use crate::game::{Board, Line, Position};
use crate::support::SplitMix64;

/// The opponents dab plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// Captures when it can, else a line that hands out no box, else any line, at random.
    RandomSafe,
    /// A move of best value, from the oracle (one of them at random).
    Exact,
}

/// One row: a board, an opponent, and how dab fared.
#[derive(Clone, Debug, Serialize)]
pub struct PlayRow {
    /// The board, `MxN`.
    pub board: String,
    /// `random-safe` or `exact`.
    pub opponent: String,
    /// Games played.
    pub games: usize,
    /// Games dab won.
    pub wins: usize,
    /// Games drawn.
    pub draws: usize,
    /// Games dab lost.
    pub losses: usize,
    /// Wins over games.
    pub win_rate: f64,
    /// Against exact play: boxes dab ended below the value of the game for the side it took,
    /// a game on average (0: dab played as well as perfect play); 0 against random-safe.
    pub boxes_lost_per_game: f64,
    /// dab's moves in all the games.
    pub dab_moves: usize,
    /// Their mean wall seconds.
    pub mean_move_seconds: f64,
    /// The longest of them, in wall seconds.
    pub max_move_seconds: f64,
    /// dab's moves that took more than 1.1 times the budget.
    pub over_budget_moves: usize,
    /// The position of dab's longest move, as a line string (to time it again alone).
    pub longest_move_position: String,
    /// The budget of each of dab's moves, in seconds.
    pub budget_seconds: f64,
}

/// Why a row could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum PlayBenchError {
    /// dab's advice or the exact opponent failed.
    #[error("{0}")]
    Play(#[from] PlayError),
    /// dab's advice failed.
    #[error("{0}")]
    Hint(#[from] crate::answer::HintError),
}

/// A random-safe player's move in `pos` (some line is undrawn).
fn random_safe(pos: Position, rng: &mut SplitMix64) -> Line {
    let board = pos.board;
    let lines: Vec<Line> = pos.undrawn().iter().collect();
    let pick = |v: &[Line], rng: &mut SplitMix64| v[rng.below(v.len())];
    let captures: Vec<Line> = lines.iter().copied().filter(|&l| board.completes(pos.drawn, l) > 0).collect();
    if !captures.is_empty() {
        return pick(&captures, rng);
    }
    let safe: Vec<Line> = crate::answer::estimate::safe_moves(pos).collect();
    if !safe.is_empty() {
        return pick(&safe, rng);
    }
    pick(&lines, rng)
}

/// Plays `games` games on `board` against `opponent` (`oracle`: the exact one's values), dab
/// advising itself within `seconds` a move on `ask`; `seed` seeds the random-safe player.
pub fn games(
    board: Board,
    opponent: Opponent,
    oracle: Option<&Oracle>,
    games: usize,
    seconds: f64,
    ask: Asking,
    seed: u64,
) -> Result<PlayRow, PlayBenchError> {
    let mut rng = SplitMix64(seed);
    let start = Position::empty(board);
    // The value of the game for the side that moves first, where the oracle knows it.
    let first_value = match oracle {
        Some(o) if opponent == Opponent::Exact => {
            Some(o.moves(start)?.iter().map(|&(_, v)| v as i64).max().expect("an empty board has a move"))
        }
        _ => None,
    };
    let (mut tally, mut clock) = (Tally::default(), MoveClock::default());
    for game in 0..games {
        let dab_first = game % 2 == 0;
        let mut dab_moves = |pos| dab_move(pos, ask, seconds, &mut clock);
        let mut other_moves = |pos| other_move(pos, opponent, oracle, &mut rng);
        let (dab, other) = play(start, dab_first, &mut dab_moves, &mut other_moves)?;
        tally.add(dab, other, first_value.map(|v| if dab_first { v } else { -v }));
    }
    Ok(PlayRow {
        board: board.to_string(),
        opponent: if opponent == Opponent::Exact { "exact" } else { "random-safe" }.into(),
        games,
        wins: tally.wins,
        draws: tally.draws,
        losses: tally.losses,
        win_rate: tally.wins as f64 / games.max(1) as f64,
        boxes_lost_per_game: tally.lost as f64 / games.max(1) as f64,
        dab_moves: clock.moves,
        mean_move_seconds: clock.total / clock.moves.max(1) as f64,
        max_move_seconds: clock.longest,
        over_budget_moves: clock.over,
        longest_move_position: clock.longest_at.map_or(String::new(), |p| p.to_line_string()),
        budget_seconds: seconds,
    })
}

/// How dab fared over the games so far.
#[derive(Default)]
struct Tally {
    wins: usize,
    draws: usize,
    losses: usize,
    /// Boxes dab ended below the game's value for its side, summed (against exact play).
    lost: i64,
}

impl Tally {
    /// A game that ended `dab` boxes to `other`, `expected` dab's margin with perfect play
    /// where known.
    fn add(&mut self, dab: i64, other: i64, expected: Option<i64>) {
        match dab.cmp(&other) {
            std::cmp::Ordering::Greater => self.wins += 1,
            std::cmp::Ordering::Equal => self.draws += 1,
            std::cmp::Ordering::Less => self.losses += 1,
        }
        if let Some(expected) = expected {
            self.lost += expected - (dab - other);
        }
    }
}

/// The wall time of dab's moves so far.
#[derive(Default)]
struct MoveClock {
    moves: usize,
    /// Seconds, all moves together.
    total: f64,
    /// The longest move's seconds.
    longest: f64,
    /// Its position.
    longest_at: Option<Position>,
    /// Moves over 1.1 times the budget.
    over: usize,
}

/// One game from `start`, each side's moves from its closure (dab first where `dab_first`):
/// the boxes dab and the other side took. A side that completes a box moves again.
fn play(
    start: Position,
    dab_first: bool,
    dab_moves: &mut dyn FnMut(Position) -> Result<Line, PlayBenchError>,
    other_moves: &mut dyn FnMut(Position) -> Result<Line, PlayBenchError>,
) -> Result<(i64, i64), PlayBenchError> {
    let mut pos = start;
    let mut dab_to_move = dab_first;
    let (mut dab, mut other) = (0i64, 0i64);
    while !pos.undrawn().is_empty() {
        let line = if dab_to_move { dab_moves(pos)? } else { other_moves(pos)? };
        let boxes = pos.board.completes(pos.drawn, line) as i64;
        pos.drawn = pos.drawn.with(line);
        if dab_to_move {
            dab += boxes;
        } else {
            other += boxes;
        }
        if boxes == 0 {
            dab_to_move = !dab_to_move;
        }
    }
    Ok((dab, other))
}

/// dab's move in `pos`: its advice within `seconds`, timed on `clock`.
fn dab_move(pos: Position, ask: Asking, seconds: f64, clock: &mut MoveClock) -> Result<Line, PlayBenchError> {
    let t = Instant::now();
    let advice = advise(pos, None, ask, seconds)?;
    let took = t.elapsed().as_secs_f64();
    clock.moves += 1;
    clock.total += took;
    if took > clock.longest {
        clock.longest = took;
        clock.longest_at = Some(pos);
    }
    clock.over += usize::from(took > 1.1 * seconds);
    Ok(match advice {
        Advice::Rules(r) => Line(r.index),
        a => a.chosen(pos).expect("a position with an undrawn line"),
    })
}

/// The opponent's move in `pos`: a best move at random where it plays exactly (so that the
/// games differ), else random-safe.
fn other_move(
    pos: Position,
    opponent: Opponent,
    oracle: Option<&Oracle>,
    rng: &mut SplitMix64,
) -> Result<Line, PlayBenchError> {
    match (opponent, oracle) {
        (Opponent::Exact, Some(o)) => {
            let values = o.moves(pos)?;
            let best = values.iter().map(|&(_, v)| v).max().expect("a move");
            let best: Vec<Line> = values.iter().filter(|&&(_, v)| v == best).map(|&(l, _)| l).collect();
            Ok(best[rng.below(best.len())])
        }
        _ => Ok(random_safe(pos, rng)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_random_safe_player_captures_first_and_else_hands_out_nothing_where_it_can() {
        let board: Board = "1x2".parse().unwrap();
        // Box (0,0) has three sides: the only capture is its fourth.
        let pos = Position::from_line_string(board, "1010100").unwrap();
        let mut rng = SplitMix64(1);
        for _ in 0..20 {
            assert_eq!(random_safe(pos, &mut rng), board.v(0, 1));
        }
        let empty = Position::empty(board);
        for _ in 0..20 {
            let l = random_safe(empty, &mut rng);
            assert!(!empty.drawn.contains(l));
        }
    }
}
