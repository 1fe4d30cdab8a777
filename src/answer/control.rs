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
//! few where the values are decided; a walk past [`MAX_POSITIONS`] gives no answer.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::game::{LineSet, Position, Symmetry, Value, is_loony, move_value};
use crate::solver::Solution;

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
    fn flip(self) -> NextLoony {
        match self {
            NextLoony::Mover => NextLoony::Opponent,
            NextLoony::Opponent => NextLoony::Mover,
            NextLoony::Neither => NextLoony::Neither,
        }
    }

    /// How much the player to move likes it (higher is better).
    fn rank(self) -> u8 {
        match self {
            NextLoony::Mover => 0,
            NextLoony::Neither => 1,
            NextLoony::Opponent => 2,
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

/// Most positions (up to symmetry) one answer walks before it gives up: about a second. The
/// empty 3x3 board takes 92,613.
pub const MAX_POSITIONS: usize = 500_000;

/// Who must make the next loony move in `pos` with best play, from `value` (the exact value of
/// any position after `pos`, None where the engine does not know it). None where a value is
/// missing or the walk passes [`MAX_POSITIONS`]; `Err` where `value` fails.
pub fn next_loony<E>(
    pos: Position,
    value: &mut dyn FnMut(LineSet) -> Result<Option<Value>, E>,
) -> Result<Option<NextLoony>, E> {
    let symmetries = pos.board.symmetries();
    let mut walk = Walk { pos, value, memo: HashMap::new(), symmetries };
    walk.state(pos.drawn)
}

/// Most undrawn lines of a position whose solve in memory keeps every partition, to answer
/// who must make the next loony move (2^24 values at most, before symmetry).
pub(super) const KEEP_ALL_FREE: usize = 24;

/// [`next_loony`] from a solve of `pos` that kept every partition (None where it did not).
pub(super) fn from_solution(pos: Position, s: &Solution) -> Option<NextLoony> {
    if pos.undrawn().is_empty() {
        return Some(NextLoony::Neither);
    }
    s.tables.as_ref()?;
    let mut value = |d: LineSet| Ok::<_, std::convert::Infallible>(s.value_of(s.space.state_of(d)));
    next_loony(pos, &mut value).unwrap_or_else(|e| match e {})
}

/// One walk's memo of the positions it has answered.
struct Walk<'v, E> {
    pos: Position,
    value: &'v mut dyn FnMut(LineSet) -> Result<Option<Value>, E>,
    memo: HashMap<LineSet, NextLoony>,
    /// The board's symmetries: the answer is the same for every image of a position.
    symmetries: Vec<Symmetry>,
}

impl<E> Walk<'_, E> {
    fn state(&mut self, drawn: LineSet) -> Result<Option<NextLoony>, E> {
        let key = self.symmetries.iter().map(|s| s.apply(drawn)).min().expect("the identity");
        if let Some(&s) = self.memo.get(&key) {
            return Ok(Some(s));
        }
        if self.memo.len() >= MAX_POSITIONS {
            return Ok(None);
        }
        let board = self.pos.board;
        let here = Position { board, drawn };
        let undrawn = here.undrawn();
        if undrawn.is_empty() {
            return Ok(Some(NextLoony::Neither));
        }
        let mut moves = Vec::with_capacity(undrawn.len() as usize);
        for line in undrawn.iter() {
            let boxes = board.completes(drawn, line) as i8;
            let Some(after) = (self.value)(drawn.with(line))? else { return Ok(None) };
            moves.push((line, boxes, move_value(boxes, after)));
        }
        let best = moves.iter().map(|m| m.2).max().expect("an undrawn line");
        let mut answer: Option<NextLoony> = None;
        for &(line, boxes, v) in &moves {
            if v != best {
                continue;
            }
            let outcome = if is_loony(here, line) {
                NextLoony::Mover
            } else {
                let Some(after) = self.state(drawn.with(line))? else { return Ok(None) };
                if boxes > 0 { after } else { after.flip() }
            };
            answer = Some(answer.map_or(outcome, |a| if outcome.rank() > a.rank() { outcome } else { a }));
            if outcome == NextLoony::Opponent {
                break;
            }
        }
        let answer = answer.expect("a best move");
        self.memo.insert(key, answer);
        Ok(Some(answer))
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
}
