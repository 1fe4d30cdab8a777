//! Who must make the next loony move with best play: Wilson's `v` (the player to move) and `^`
//! (the opponent). The definition dab implements, on exact values of any engine that can give
//! the value of every position after the one asked about:
//!
//! * A full board: *neither*.
//! * A *best move* is one whose value equals the position's (under the same last-move penalty).
//! * A best move that is loony ([`crate::game::is_loony`]) makes the player to move the one
//!   who made the next loony move. A best move that completes a box leaves the same player to
//!   move: the answer is the position after it. Any other best move hands the turn over: the
//!   answer of the position after it, seen from the other side.
//! * Among its best moves, the player to move prefers the opponent to have to move loony, then
//!   neither, then itself: the score first, control second, as a player who knows the score
//!   cannot be bettered plays. The answer is what that preference achieves against the same
//!   preference of the opponent.
//!
//! Only best moves are followed and a loony move ends the walk, so the positions visited are
//! few where the values are decided; not where most moves are best: a 16x16 position of 20
//! undrawn lines apart, whose every move completes boxes, has every order of its captures. So
//! a walk is priced like every engine ([`super::estimate::walk_budget`]): it gets the
//! positions its budget buys (at most [`MAX_POSITIONS`]), and one that reaches them is left
//! out of the answer, which says so in one line ([`Control::LeftOut`]). A position is keyed by
//! the root's undrawn lines it has drawn, one bit each, at least of their images under the
//! symmetries that fix the root (tables of at most 64 entries, built once a walk by the
//! board's word-level maps, [`crate::game::Symmetry::apply`]): no position's 544-line set is
//! mapped or hashed, and a root with no symmetry has no image to take.

use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::game::{Board, Line, LineSet, Position, Value, is_loony_position, move_value};
use crate::solver::{MAX_FREE_LINES, Solution};

/// Who must make the next loony move with best play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NextLoony {
    /// The player to move (Wilson's `v`).
    Mover,
    /// The opponent (Wilson's `^`).
    Opponent,
    /// Nobody: best play ends the game with no loony move.
    Neither,
}

impl NextLoony {
    /// The same fact seen by the other player.
    #[cfg(test)]
    fn flip(self) -> NextLoony {
        match self {
            NextLoony::Mover => NextLoony::Opponent,
            NextLoony::Opponent => NextLoony::Mover,
            NextLoony::Neither => NextLoony::Neither,
        }
    }

    /// How much the player to move likes it: -1, 0 or 1, the other player's score its
    /// negation (the walk is a negamax of these).
    fn score(self) -> i8 {
        match self {
            NextLoony::Mover => -1,
            NextLoony::Neither => 0,
            NextLoony::Opponent => 1,
        }
    }

    /// The answer of a score.
    fn of_score(score: i8) -> NextLoony {
        match score {
            ..0 => NextLoony::Mover,
            0 => NextLoony::Neither,
            _ => NextLoony::Opponent,
        }
    }

    /// Wilson's suffix: `v`, `^`, or nothing.
    pub fn mark(self) -> &'static str {
        match self {
            NextLoony::Mover => "v",
            NextLoony::Opponent => "^",
            NextLoony::Neither => "",
        }
    }

    /// In words, for the text answers.
    pub fn words(self) -> &'static str {
        match self {
            NextLoony::Mover => "the player to move (v)",
            NextLoony::Opponent => "the opponent (^)",
            NextLoony::Neither => "neither player",
        }
    }
}

/// Most positions (up to symmetry) one walk visits, whatever its budget: its memo's bound. The
/// empty 3x3 board takes 92,613.
pub const MAX_POSITIONS: usize = 500_000;

/// How far a walk may go: the positions its budget buys at the walk's price
/// ([`super::estimate::walk_budget`]), never more than [`MAX_POSITIONS`], and where its values
/// come from a disk, whose pace no price holds, its seconds on the clock too.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WalkBudget {
    /// Seconds the walk was given (infinite: none but [`MAX_POSITIONS`]).
    pub seconds: f64,
    /// Positions (up to symmetry) they buy.
    pub positions: usize,
    /// The walk also stops when its seconds have passed (a walk on values in memory does
    /// not: its price holds, and its answer stays the same however busy the machine).
    pub clocked: bool,
}

impl WalkBudget {
    /// No budget but [`MAX_POSITIONS`]: what [`next_loony`] walks within (the library's callers
    /// and tests that price nothing).
    pub const WHOLE: WalkBudget = WalkBudget { seconds: f64::INFINITY, positions: MAX_POSITIONS, clocked: false };
}

/// What a walk found.
#[derive(Clone, Debug, PartialEq)]
pub enum Control {
    /// Who must make the next loony move with best play.
    Known(NextLoony),
    /// A value the walk needed is not at hand (a store that does not hold it, or an engine
    /// that keeps no table of values).
    Unknown,
    /// The walk reached the positions its budget buys: the answer leaves it out, and says so
    /// in the one line held here.
    LeftOut(String),
}

impl Control {
    /// The answer's two fields: who must make the next loony move, and why it was left out.
    pub fn fields(self) -> (Option<NextLoony>, Option<String>) {
        match self {
            Control::Known(n) => (Some(n), None),
            Control::Unknown => (None, None),
            Control::LeftOut(why) => (None, Some(why)),
        }
    }
}

/// Who must make the next loony move in `pos` with best play, from `value` (the exact value of
/// any position after `pos`, None where the engine does not know it), with no budget but
/// [`MAX_POSITIONS`]. None where a value is missing or the walk passes it; `Err` where `value`
/// fails.
pub fn next_loony<E>(
    pos: Position,
    value: &mut dyn FnMut(LineSet) -> Result<Option<Value>, E>,
) -> Result<Option<NextLoony>, E> {
    Ok(next_loony_within(pos, WalkBudget::WHOLE, value)?.fields().0)
}

/// [`next_loony`] within `budget`: the walk stops at the positions it buys and is left out,
/// with one line saying so. A position of more than 64 undrawn lines, which no engine values
/// whole, is unknown.
pub fn next_loony_within<E>(
    pos: Position,
    budget: WalkBudget,
    value: &mut dyn FnMut(LineSet) -> Result<Option<Value>, E>,
) -> Result<Control, E> {
    walk(pos, budget, value).map(|(control, _)| control)
}

/// [`next_loony_within`] and the positions the walk answered.
fn walk<E>(
    pos: Position,
    budget: WalkBudget,
    value: &mut dyn FnMut(LineSet) -> Result<Option<Value>, E>,
) -> Result<(Control, usize), E> {
    let free: Vec<Line> = pos.undrawn().iter().collect();
    if free.len() > MAX_FREE_LINES {
        return Ok((Control::Unknown, 0));
    }
    let limit = budget.positions.min(MAX_POSITIONS);
    let Some(here) = value(pos.drawn)? else { return Ok((Control::Unknown, 0)) };
    let until = (budget.clocked && budget.seconds.is_finite())
        .then(|| Instant::now() + Duration::from_secs_f64(budget.seconds.max(0.0)));
    let mut walk = Walk {
        board: pos.board,
        value,
        memo: FxHashMap::default(),
        images: images(pos, &free),
        free,
        limit,
        until,
        reads: 0,
    };
    let control = match walk.state(pos.drawn, 0, here, Window::WHOLE) {
        Ok(score) => Control::Known(NextLoony::of_score(score)),
        Err(Halt::Failed(e)) => return Err(e),
        Err(Halt::Missing) => Control::Unknown,
        Err(Halt::Budget) => Control::LeftOut(left_out(limit, budget)),
        Err(Halt::Clock) => Control::LeftOut(format!(
            "left out: too deep to settle within {:.2} s (its walk had settled {} positions)",
            budget.seconds,
            crate::support::thousands(walk.memo.len() as u64)
        )),
    };
    Ok((control, walk.memo.len()))
}

/// The symmetries of `pos`'s board that fix it, but the identity, each as the image of every
/// one of its undrawn lines `free` (by index in `free`): built once a walk, by the word-level
/// maps. Only these keep every position of the walk in it (all of the root's lines drawn).
fn images(pos: Position, free: &[Line]) -> Vec<[u8; MAX_FREE_LINES]> {
    let index =
        |l: Line| free.iter().position(|&f| f == l).expect("a symmetry fixing the root keeps its undrawn lines");
    pos.board
        .symmetries()
        .into_iter()
        .skip(1)
        .filter(|g| g.apply(pos.drawn) == pos.drawn)
        .map(|g| {
            let mut image = [0u8; MAX_FREE_LINES];
            for (i, &l) in free.iter().enumerate() {
                image[i] = index(g.perm[l.0 as usize]) as u8;
            }
            image
        })
        .collect()
}

/// The line an answer gives in place of the next loony move when its walk stopped at `limit`
/// positions.
fn left_out(limit: usize, budget: WalkBudget) -> String {
    let positions = crate::support::thousands(limit as u64);
    if limit >= MAX_POSITIONS || !budget.seconds.is_finite() {
        format!("left out: its walk reached {positions} positions, the most a walk visits")
    } else {
        format!("left out: its walk reached {positions} positions, what its budget of {:.2} s buys", budget.seconds)
    }
}

/// Most undrawn lines of a position whose solve in memory keeps every partition, to answer
/// who must make the next loony move (2^24 values at most, before symmetry).
pub(super) const KEEP_ALL_FREE: usize = 24;

/// [`next_loony_within`] from a solve of `pos` that kept every partition (unknown where it did
/// not).
pub(super) fn from_solution(pos: Position, s: &Solution, budget: WalkBudget) -> Control {
    if pos.undrawn().is_empty() {
        return Control::Known(NextLoony::Neither);
    }
    if s.tables.is_none() {
        return Control::Unknown;
    }
    let mut value = |d: LineSet| Ok::<_, std::convert::Infallible>(s.value_of(s.space.state_of(d)));
    next_loony_within(pos, budget, &mut value).unwrap_or_else(|e| match e {})
}

/// Why a walk stopped before its answer.
enum Halt<E> {
    /// The values failed.
    Failed(E),
    /// A value is not at hand.
    Missing,
    /// The walk reached its budget's positions.
    Budget,
    /// The walk reached its budget's seconds (values read from disk go at the disk's pace).
    Clock,
}

/// The scores a search of a position still cares about, exclusive at both ends: a score at or
/// below `alpha` or at or above `beta` settles nothing more than that bound.
#[derive(Clone, Copy, Debug)]
struct Window {
    alpha: i8,
    beta: i8,
}

impl Window {
    /// Every score: -1, 0 and 1.
    const WHOLE: Window = Window { alpha: -2, beta: 2 };

    /// The same window from the other player's side.
    fn flip(self) -> Window {
        Window { alpha: -self.beta, beta: -self.alpha }
    }
}

/// What the walk knows of a position's score: at least `low`, at most `high`.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    low: i8,
    high: i8,
}

/// One walk's memo of the positions it has answered.
struct Walk<'v, E> {
    board: Board,
    value: &'v mut dyn FnMut(LineSet) -> Result<Option<Value>, E>,
    /// The root's undrawn lines, in line order: a position of the walk is the root with some
    /// of them drawn, bit i of its *bits* for `free[i]`.
    free: Vec<Line>,
    /// Bounds on each position's score, by the least of its bits and their images under
    /// `images`.
    memo: FxHashMap<u64, Bounds>,
    /// The symmetries that fix the root, on its undrawn lines ([`images`]): the answer is the
    /// same for every image of a position.
    images: Vec<[u8; MAX_FREE_LINES]>,
    /// Most positions the walk may answer.
    limit: usize,
    /// When the budget's seconds run out (None: no clock).
    until: Option<Instant>,
    /// Values read so far.
    reads: usize,
}

/// Values the walk reads between looks at its clock: a read from a cold disk takes a tenth
/// of a millisecond, one from memory a few nanoseconds.
const CLOCK_EVERY: usize = 32;

impl<E> Walk<'_, E> {
    /// The memo's key of the position of `bits`: the least of its images.
    fn key(&self, bits: u64) -> u64 {
        self.images
            .iter()
            .map(|image| {
                let (mut rest, mut out) = (bits, 0u64);
                while rest != 0 {
                    out |= 1 << image[rest.trailing_zeros() as usize];
                    rest &= rest - 1;
                }
                out
            })
            .fold(bits, u64::min)
    }

    /// The score of the position `drawn` (the root with the lines of `bits` drawn, of value
    /// `here`) for the player to move, exact where it falls inside `window`, else a bound on
    /// that side of it. Alpha-beta over the module's preference: the answer of most
    /// positions of an opening, where most moves are best, is settled by one best move each
    /// side, not by every order of them.
    fn state(&mut self, drawn: LineSet, bits: u64, here: Value, window: Window) -> Result<i8, Halt<E>> {
        let undrawn = self.free.len() - bits.count_ones() as usize;
        if undrawn == 0 {
            return Ok(NextLoony::Neither.score());
        }
        let key = self.key(bits);
        let known = self.memo.get(&key).copied();
        let Bounds { low, high } = known.unwrap_or(Bounds { low: -1, high: 1 });
        if low == high || low >= window.beta {
            return Ok(low);
        }
        if high <= window.alpha {
            return Ok(high);
        }
        if known.is_none() && self.memo.len() >= self.limit {
            return Err(Halt::Budget);
        }
        let window = Window { alpha: window.alpha.max(low), beta: window.beta.min(high) };
        let best = self.best_of(drawn, bits, here, window)?;
        let bounds = if best <= window.alpha {
            Bounds { low, high: best.max(low) }
        } else if best >= window.beta {
            Bounds { low: best.min(high), high }
        } else {
            Bounds { low: best, high: best }
        };
        self.memo.insert(key, bounds);
        Ok(best)
    }

    /// The best score of `drawn`'s best moves (the root with `bits` drawn, of value `here`)
    /// within `window`: each move's value read in line order, and a best move followed at
    /// once, so a cutoff leaves the rest unread.
    fn best_of(&mut self, drawn: LineSet, bits: u64, here: Value, mut window: Window) -> Result<i8, Halt<E>> {
        let board = self.board;
        let mut best = i8::MIN;
        for i in 0..self.free.len() {
            if bits >> i & 1 == 1 {
                continue;
            }
            let line = self.free[i];
            let boxes = board.completes(drawn, line) as i8;
            let after = drawn.with(line);
            let next = (self.value)(after).map_err(Halt::Failed)?.ok_or(Halt::Missing)?;
            self.reads += 1;
            if self.reads.is_multiple_of(CLOCK_EVERY) && self.until.is_some_and(|t| Instant::now() >= t) {
                return Err(Halt::Clock);
            }
            if move_value(boxes, next) != here {
                continue;
            }
            // A loony move completes no box ([`crate::game::is_loony`]); a capture leaves the
            // same player to move.
            let score = if boxes == 0 && is_loony_position(Position { board, drawn: after }) {
                NextLoony::Mover.score()
            } else if boxes > 0 {
                self.state(after, bits | 1 << i, next, window)?
            } else {
                -self.state(after, bits | 1 << i, next, window.flip())?
            };
            best = best.max(score);
            window.alpha = window.alpha.max(best);
            if best >= window.beta || best == NextLoony::Opponent.score() {
                break;
            }
        }
        debug_assert!(best > i8::MIN, "a position with an undrawn line has a best move");
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(art: &str) -> NextLoony {
        let pos = Position::from_art(art).unwrap();
        // The slow twin's values: plain minimax on these few lines.
        let mut value = |drawn: LineSet| crate::solver::minimax(Position { board: pos.board, drawn }).map(Some);
        next_loony(pos, &mut value).unwrap().unwrap()
    }

    /// The slow twin: the definition followed word for word, every best move of every
    /// position, no memo and no cutoff.
    fn every_best_move(pos: Position, value: &dyn Fn(LineSet) -> Value) -> NextLoony {
        if pos.undrawn().is_empty() {
            return NextLoony::Neither;
        }
        let here = value(pos.drawn);
        let outcomes = pos.undrawn().iter().filter_map(|line| {
            let boxes = pos.board.completes(pos.drawn, line) as i8;
            let after = Position { board: pos.board, drawn: pos.drawn.with(line) };
            (move_value(boxes, value(after.drawn)) == here).then(|| {
                if boxes == 0 && is_loony_position(after) {
                    NextLoony::Mover
                } else if boxes > 0 {
                    every_best_move(after, value)
                } else {
                    every_best_move(after, value).flip()
                }
            })
        });
        NextLoony::of_score(outcomes.map(NextLoony::score).max().expect("a best move"))
    }

    #[test]
    fn the_pruned_walk_answers_as_every_best_move_followed() {
        let mut rng = crate::support::SplitMix64(85);
        let mut seen = std::collections::HashMap::new();
        for (board, free) in [("2x2", 12), ("2x3", 12), ("2x3", 14), ("3x3", 13), ("1x4", 13)] {
            let board: crate::game::Board = board.parse().unwrap();
            for _ in 0..40 {
                let mut drawn = LineSet::EMPTY;
                while board.lines() - (drawn.len() as usize) > free {
                    drawn = drawn.with(Line(rng.below(board.lines()) as u16));
                }
                let pos = Position { board, drawn };
                let s = crate::exec::solve(pos, crate::solver::SolveOptions { keep_all: true, ..Default::default() })
                    .unwrap();
                let value = |d: LineSet| s.value_of(s.space.state_of(d)).expect("kept");
                let want = every_best_move(pos, &value);
                let mut read = |d: LineSet| Ok::<_, std::convert::Infallible>(Some(value(d)));
                assert_eq!(next_loony(pos, &mut read).unwrap(), Some(want), "{}", pos.to_line_string());
                *seen.entry(want).or_insert(0) += 1;
            }
        }
        // The cases reach every answer.
        assert_eq!(seen.len(), 3, "{seen:?}");
    }

    #[test]
    fn a_walk_stops_by_its_clock_where_its_values_come_slowly() {
        let pos = Position::empty("3x3".parse().unwrap());
        let s = crate::exec::solve(pos, crate::solver::SolveOptions { keep_all: true, ..Default::default() }).unwrap();
        // Values at a disk's pace: 20 us a read. The walk of the empty 3x3 settles 92,613
        // positions, reading far more: its positions budget would take seconds.
        let mut slow = |d: LineSet| {
            std::thread::sleep(Duration::from_micros(20));
            Ok::<_, std::convert::Infallible>(s.value_of(s.space.state_of(d)))
        };
        let start = Instant::now();
        let budget = WalkBudget { seconds: 0.05, positions: MAX_POSITIONS, clocked: true };
        let got = next_loony_within(pos, budget, &mut slow).unwrap();
        assert!(start.elapsed() < Duration::from_millis(500), "{:?}", start.elapsed());
        match got {
            Control::LeftOut(why) => assert!(why.starts_with("left out: too deep to settle within 0.05 s"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn one_long_chain_left_is_opened_by_the_player_to_move() {
        // 1x3 with both long sides drawn: a chain of three boxes open at both ends; any move
        // offers it.
        assert_eq!(answer("+-+-+-+\n\n+-+-+-+\n"), NextLoony::Mover);
    }

    #[test]
    fn a_full_board_and_a_single_box_have_no_loony_move() {
        assert_eq!(answer("+-+\n| |\n+-+\n"), NextLoony::Neither);
        assert_eq!(answer("+ +\n\n+ +\n"), NextLoony::Neither);
    }

    /// The walk's price, measured: walks of the empty 3x3 and 2x4 (every move quiet, eight
    /// and four symmetries), random positions of 3x4 and 4x4, positions of 8x8 to 16x16 with
    /// lines undrawn apart (every move a capture, and a walk of every order of them) and with
    /// worms of lines through boxes (chains), at 16 to 24 undrawn lines, each walk stopped at
    /// 100,000 positions; prints each walk's nanoseconds a position and the least-squares fit
    /// of a * undrawn + b * quiet (the root's lines that complete no box) through the origin
    /// that `estimate::WALK_NS` holds, with each walk's time over the fit's. Run with
    /// `--ignored --nocapture`, on a machine as idle as can be.
    #[test]
    #[ignore]
    fn measure_the_walk_price() {
        use crate::game::Board;
        use crate::solver::SolveOptions;
        let mut rng = crate::support::SplitMix64(80);
        let mut random = |board: Board, free: usize, worm: usize| {
            let mut undrawn = LineSet::EMPTY;
            let mut line = Line(rng.below(board.lines()) as u16);
            while (undrawn.len() as usize) < free {
                undrawn = undrawn.with(line);
                let next: Vec<Line> =
                    board.boxes_of(line).flat_map(|b| board.box_sides(b)).filter(|&s| !undrawn.contains(s)).collect();
                line = if rng.below(worm) == 0 || next.is_empty() {
                    Line(rng.below(board.lines()) as u16)
                } else {
                    next[rng.below(next.len())]
                };
            }
            Position { board, drawn: board.full().minus(undrawn) }
        };
        let mut cases: Vec<Position> = ["3x3", "2x4"].map(|b| Position::empty(b.parse().unwrap())).into();
        for (b, free) in [("3x4", 20), ("3x4", 24), ("4x4", 20), ("4x4", 24)] {
            cases.push(random(b.parse().unwrap(), free, 1));
        }
        for b in ["6x6", "8x8", "10x10", "12x12", "16x16"] {
            for free in [16, 20, 24] {
                cases.extend([random(b.parse().unwrap(), free, 1), random(b.parse().unwrap(), free, 5)]);
            }
        }
        /// One walk timed.
        struct Point {
            pos: Position,
            free: f64,
            quiet: f64,
            positions: usize,
            ns: f64,
        }
        let mut points = Vec::new();
        for pos in cases {
            let s = crate::exec::solve(pos, SolveOptions { keep_all: true, ..Default::default() }).unwrap();
            let mut value = |d: LineSet| Ok::<_, std::convert::Infallible>(s.value_of(s.space.state_of(d)));
            let start = std::time::Instant::now();
            let (_, positions) =
                walk(pos, WalkBudget { seconds: f64::INFINITY, positions: 100_000, clocked: false }, &mut value)
                    .unwrap();
            let ns = start.elapsed().as_secs_f64() * 1e9 / positions.max(1) as f64;
            let (free, quiet) = (pos.undrawn().len() as f64, super::super::estimate::quiet_lines(pos) as f64);
            if positions >= 1000 {
                points.push(Point { pos, free, quiet, positions, ns });
            }
        }
        // Least squares through the origin: [sum ff, sum fq; sum fq, sum qq] (a, b) = (sum fy, sum qy).
        let sum = |f: &dyn Fn(&Point) -> f64| points.iter().map(f).sum::<f64>();
        let (ff, fq, qq) = (sum(&|p| p.free * p.free), sum(&|p| p.free * p.quiet), sum(&|p| p.quiet * p.quiet));
        let (fy, qy) = (sum(&|p| p.free * p.ns), sum(&|p| p.quiet * p.ns));
        let det = ff * qq - fq * fq;
        let (a, b) = ((fy * qq - qy * fq) / det, (ff * qy - fq * fy) / det);
        for Point { pos, free, quiet, positions, ns } in &points {
            let fit = a * free + b * quiet;
            println!(
                "{} {free} undrawn, {quiet} quiet: {positions} positions, {ns:.0} ns each, {:.2}x the fit",
                pos.board,
                ns / fit
            );
        }
        println!("fit: {a:.1} * undrawn + {b:.1} * quiet ns a position");
    }
}
