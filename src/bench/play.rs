//! The strength of dab's play within a time budget (`dab bench --suite play`): whole games of
//! dab advising itself within the budget ([`crate::answer::advise`]) against a random-safe
//! player (it captures when it can, else draws a line that hands out no box, else any line),
//! against exact play (a solve of the board kept whole, or a store's book), and against a
//! hybrid of the two (random-safe until [`HYBRID_EXACT_FROM`] undrawn lines, exact by the
//! search after), each side moving first in half the games. Against the hybrid, dab's own
//! moves of the middle game ([`REVIEWED_LINES`]) that it did not prove best are reviewed
//! exactly after each game: the boxes they gave up against best play.

use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::answer::play::{Oracle, PlayError};
use crate::answer::search::SearchError;
use crate::answer::{Advice, Asking, QueryError, advise, best_move};
use crate::game::{Board, Line, Position};
use crate::support::SplitMix64;

/// The opponents dab plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// Captures when it can, else a line that hands out no box, else any line, at random.
    RandomSafe,
    /// A move of best value, from the oracle (one of them at random).
    Exact,
    /// Random-safe while more than [`HYBRID_EXACT_FROM`] lines are undrawn, then a best move
    /// by the search, without a time limit.
    Hybrid,
}

impl Opponent {
    /// Its name in the rows: `random-safe`, `exact` or `hybrid`.
    pub fn name(self) -> &'static str {
        match self {
            Opponent::RandomSafe => "random-safe",
            Opponent::Exact => "exact",
            Opponent::Hybrid => "hybrid",
        }
    }
}

/// Undrawn lines from which the hybrid opponent plays exactly (the middle game's end on 5x5,
/// where the search proves a best move within seconds).
pub const HYBRID_EXACT_FROM: u32 = 40;

/// Undrawn lines of the positions whose moves by dab are reviewed against the hybrid: the 5x5
/// middle game, beyond what dab proves within a second.
pub const REVIEWED_LINES: RangeInclusive<u32> = 40..=48;

/// What games to play: a board, an opponent, how many games and each move's budget.
#[derive(Clone, Copy, Debug)]
pub struct Match {
    /// The board.
    pub board: Board,
    /// Whom dab plays.
    pub opponent: Opponent,
    /// Games, dab moving first in every other.
    pub games: usize,
    /// The budget of each of dab's moves, in seconds.
    pub seconds: f64,
    /// Seeds the random-safe player.
    pub seed: u64,
    /// Against the hybrid: seconds each position of a reviewed move may take to be valued
    /// exactly (a move not valued within them is counted as not reviewed).
    pub review_seconds: f64,
}

/// One row: a board, an opponent, and how dab fared.
#[derive(Clone, Debug, Serialize)]
pub struct PlayRow {
    /// The board, `MxN`.
    pub board: String,
    /// `random-safe`, `exact` or `hybrid`.
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
    /// Against the hybrid: dab's moves at [`REVIEWED_LINES`] undrawn lines (0 otherwise).
    pub middle_moves: usize,
    /// Those dab did not prove best itself (by rules, or the search's best so far).
    pub middle_unproven: usize,
    /// Those of them whose review did not finish within its budget.
    pub middle_unreviewed: usize,
    /// Boxes dab's moves at [`REVIEWED_LINES`] undrawn lines gave up against best play,
    /// reviewed exactly, a game on average (moves proven best by dab count 0; moves not
    /// reviewed are left out).
    pub middle_lost_per_game: f64,
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
    /// The hybrid opponent's search, or a review's, failed.
    #[error("{0}")]
    Query(#[from] QueryError),
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

/// Plays the games of `m` (`oracle`: the exact opponent's values), dab advising itself on
/// `ask`; against the hybrid, reviews dab's middle game after each game.
pub fn games(m: &Match, oracle: Option<&Oracle>, ask: Asking) -> Result<PlayRow, PlayBenchError> {
    let Match { board, opponent, games, seconds, seed, review_seconds } = *m;
    let mut rng = SplitMix64(seed);
    let start = Position::empty(board);
    // The value of the game for the side that moves first, where the oracle knows it.
    let first_value = match oracle {
        Some(o) if opponent == Opponent::Exact => {
            Some(o.moves(start)?.iter().map(|&(_, v)| v as i64).max().expect("an empty board has a move"))
        }
        _ => None,
    };
    let (mut tally, mut clock, mut middle) = (Tally::default(), MoveClock::default(), Middle::default());
    for game in 0..games {
        let dab_first = game % 2 == 0;
        // dab's moves of the middle game not proven best, to review after the game.
        let mut unproven = Vec::new();
        let mut dab_moves = |pos: Position| {
            let (line, proven) = dab_move(pos, ask, seconds, &mut clock)?;
            if opponent == Opponent::Hybrid && REVIEWED_LINES.contains(&pos.undrawn().len()) {
                middle.moves += 1;
                if !proven {
                    unproven.push((pos, line));
                }
            }
            Ok(line)
        };
        let mut other_moves = |pos| other_move(pos, opponent, oracle, ask, &mut rng);
        let (dab, other) = play(start, dab_first, &mut dab_moves, &mut other_moves)?;
        tally.add(dab, other, first_value.map(|v| if dab_first { v } else { -v }));
        for (pos, line) in unproven {
            middle.unproven += 1;
            match lost(pos, line, ask, review_seconds)? {
                Some(boxes) => middle.lost += boxes as i64,
                None => middle.unreviewed += 1,
            }
        }
    }
    Ok(PlayRow {
        board: board.to_string(),
        opponent: opponent.name().into(),
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
        middle_moves: middle.moves,
        middle_unproven: middle.unproven,
        middle_unreviewed: middle.unreviewed,
        middle_lost_per_game: middle.lost as f64 / games.max(1) as f64,
    })
}

/// dab's moves of the middle game against the hybrid, over the games so far.
#[derive(Default)]
struct Middle {
    moves: usize,
    unproven: usize,
    unreviewed: usize,
    /// Boxes the reviewed moves gave up, summed.
    lost: i64,
}

/// The boxes `line` gives up in `pos` against best play, from its player's side, valued by
/// the search within `seconds` for each of the (at most two) positions valued: None where
/// they did not finish.
fn lost(pos: Position, line: Line, ask: Asking, seconds: f64) -> Result<Option<i32>, PlayBenchError> {
    let exact = |p: Position| match best_move(p, ask, Some(Instant::now() + Duration::from_secs_f64(seconds))) {
        Ok(found) => Ok(Some(found)),
        Err(QueryError::Search(SearchError::OutOfTime(_))) => Ok(None),
        Err(e) => Err(e),
    };
    let Some((best, value)) = exact(pos)? else { return Ok(None) };
    if best == line {
        return Ok(Some(0));
    }
    let boxes = pos.board.completes(pos.drawn, line) as i32;
    let after = Position { board: pos.board, drawn: pos.drawn.with(line) };
    let after_value = if after.undrawn().is_empty() {
        0
    } else {
        match exact(after)? {
            Some((_, v)) => v,
            None => return Ok(None),
        }
    };
    let worth = if boxes > 0 { boxes + after_value } else { -after_value };
    debug_assert!(worth <= value, "no move is worth more than the position");
    Ok(Some(value - worth))
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

/// dab's move in `pos`: its advice within `seconds`, timed on `clock`, and whether dab proved
/// it best.
fn dab_move(pos: Position, ask: Asking, seconds: f64, clock: &mut MoveClock) -> Result<(Line, bool), PlayBenchError> {
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
        Advice::Rules(r) => (Line(r.index), r.proven),
        a => (a.chosen(pos).expect("a position with an undrawn line"), true),
    })
}

/// The opponent's move in `pos`: a best move at random where it plays exactly (so that the
/// games differ), the search's best move where the hybrid plays exactly, else random-safe.
fn other_move(
    pos: Position,
    opponent: Opponent,
    oracle: Option<&Oracle>,
    ask: Asking,
    rng: &mut SplitMix64,
) -> Result<Line, PlayBenchError> {
    match (opponent, oracle) {
        (Opponent::Hybrid, _) if pos.undrawn().len() <= HYBRID_EXACT_FROM => Ok(best_move(pos, ask, None)?.0),
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

    #[test]
    fn a_review_gives_each_move_the_boxes_it_gives_up_against_every_move_s_value() {
        use crate::answer::{Answerer, hint};
        let board: Board = "2x3".parse().unwrap();
        // Three lines drawn, one box with two sides: captures, handouts and quiet moves.
        let pos = Position::from_line_string(board, "10000000101000000").unwrap();
        let exact = hint(pos, None, Asking::new(Answerer::Partition, 1)).unwrap();
        let ask = Asking::new(Answerer::Auto, 2);
        let mut losing = 0;
        for m in &exact.moves {
            let l = lost(pos, Line(m.index), ask, 60.0).unwrap();
            assert_eq!(l, Some(exact.value - m.value), "{}", m.line);
            losing += usize::from(exact.value > m.value);
        }
        assert!(losing > 0, "some move loses boxes");
    }

    #[test]
    fn against_the_hybrid_on_a_small_board_every_game_is_played_and_nothing_is_left_unreviewed() {
        let m = Match {
            board: "2x2".parse().unwrap(),
            opponent: Opponent::Hybrid,
            games: 2,
            seconds: 1.0,
            seed: 7,
            review_seconds: 10.0,
        };
        let r = games(&m, None, Asking::new(crate::answer::Answerer::Auto, 1)).unwrap();
        assert_eq!((r.opponent.as_str(), r.wins + r.draws + r.losses), ("hybrid", 2));
        // 2x2 is below the reviewed lines: exact play both sides.
        assert_eq!((r.middle_moves, r.middle_unreviewed), (0, 0));
        assert!(r.dab_moves > 0);
    }
}
