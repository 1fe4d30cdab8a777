//! Values and moves: the value of a position (net future boxes for the player to move), the
//! value of a move given the value of the position after it, and the report of a move every
//! answer prints. Every engine (the kernel, the twins, the theorems, the search) speaks these.

use serde::{Deserialize, Serialize};

use super::board::{Board, Line};

/// A value of a position: net future boxes for the player to move.
pub type Value = i8;

/// The value of one move from the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The line drawn (external order).
    pub line: Line,
    /// Boxes the move completes.
    pub boxes: u8,
    /// Net future boxes for the mover, counting the boxes this move completes.
    pub value: Value,
}

/// Value of a move that completes `boxes` boxes, given the value of the position after it.
pub fn move_value(boxes: i8, after: Value) -> Value {
    if boxes > 0 { boxes + after } else { -after }
}

/// One move as every answer (solve, query, hint, endgame, job) prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveReport {
    /// `h(r,c)` or `v(r,c)`.
    pub line: String,
    /// Line number in the external order.
    pub index: u16,
    /// Boxes the move completes.
    pub boxes: u8,
    /// Net future boxes for the mover after playing it, counting the boxes it completes.
    pub value: i32,
}

/// The names of the moves in `moves` worth `value` (the position's value: its best moves).
pub fn best_moves(moves: &[MoveReport], value: i32) -> Vec<String> {
    moves.iter().filter(|m| m.value == value).map(|m| m.line.clone()).collect()
}

impl MoveReport {
    /// The report of playing `line` on `board`: it completes `boxes` and is worth `value`.
    pub fn new(board: Board, line: Line, boxes: u8, value: i32) -> MoveReport {
        MoveReport { line: board.line_name(line), index: line.0, boxes, value }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_that_completes_boxes_keeps_the_turn_and_one_that_does_not_passes_it() {
        // Completing 2 boxes then being worth 1 more: 3 for the mover.
        assert_eq!(move_value(2, 1), 3);
        // No box: the opponent moves next, so the mover gets the negation.
        assert_eq!(move_value(0, 4), -4);
        assert_eq!(move_value(0, -2), 2);
    }
}
