//! Values and moves: the value of a position (net future boxes for the player to move), the
//! value of a move given the value of the position after it, and the report of a move every
//! answer prints, and the one way every command prints an answer ([`ValueLines`]). Every engine
//! (the kernel, the twins, the theorems, the search) speaks these.

use serde::{Deserialize, Serialize};

use super::board::Line;
use super::position::Position;

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
    /// Whether it is a loony move: it completes no box and offers the opponent the choice to
    /// take some boxes or decline them ([`super::is_loony`]).
    #[serde(default)]
    pub loony: bool,
}

/// The names of the moves in `moves` worth `value` (the position's value: its best moves).
pub fn best_moves(moves: &[MoveReport], value: i32) -> Vec<String> {
    moves.iter().filter(|m| m.value == value).map(|m| m.line.clone()).collect()
}

impl MoveReport {
    /// The report of playing `line` in `pos`: it completes `boxes` and is worth `value`.
    pub fn new(pos: Position, line: Line, boxes: u8, value: i32) -> MoveReport {
        let loony = super::is_loony(pos, line);
        MoveReport { line: pos.board.line_name(line), index: line.0, boxes, value, loony }
    }
}

/// The best moves for people: their names, or a word where there are none (a full board).
fn best_list(best: &[String]) -> String {
    if best.is_empty() { "none (no lines left to draw)".to_string() } else { best.join(" ") }
}

/// A position's answer as every command prints it (`dab solve`, `hint`, `query`, `endgame`):
/// the value, signed, in Wilson's convention (net future boxes for the player to move), then
/// the best moves, then every move with its value for the mover, signed, and the boxes it
/// completes. One line each, each ending in a newline.
#[derive(Clone, Copy, Debug)]
pub struct ValueLines<'a> {
    /// The position's value.
    pub value: i32,
    /// The names of the moves worth `value`.
    pub best: &'a [String],
    /// Every undrawn line with its value.
    pub moves: &'a [MoveReport],
    /// Whether the moves were valued (false: the position's value alone was asked for, so
    /// no best move and no move is printed, rather than "none" for a position with lines left).
    pub valued: bool,
}

impl std::fmt::Display for ValueLines<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "value {:+} (net future boxes for the player to move)", self.value)?;
        if !self.valued {
            return writeln!(f, "best not searched: the position's value alone was asked for");
        }
        writeln!(f, "best {}", best_list(self.best))?;
        writeln!(f, "moves (line: value, net future boxes for the mover)")?;
        for m in self.moves {
            let boxes = if m.boxes > 0 { format!("  completes {}", m.boxes) } else { String::new() };
            let loony = if m.loony { "  loony" } else { "" };
            writeln!(f, "  {:<8} {:+}{boxes}{loony}", m.line, m.value)?;
        }
        Ok(())
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

    #[test]
    fn an_answer_prints_its_value_then_its_best_moves_then_every_move_all_signed() {
        let board: crate::game::Board = "1x1".parse().unwrap();
        let pos = Position::empty(board);
        let moves: Vec<MoveReport> =
            (0..4).map(|i| MoveReport::new(pos, Line(i), u8::from(i == 3), if i == 3 { 1 } else { -1 })).collect();
        let best = best_moves(&moves, 1);
        let text = ValueLines { value: 1, best: &best, moves: &moves, valued: true }.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "value +1 (net future boxes for the player to move)");
        assert_eq!(lines[1], format!("best {}", moves[3].line));
        assert_eq!(lines[3], format!("  {:<8} -1", moves[0].line));
        assert_eq!(lines[6], format!("  {:<8} +1  completes 1", moves[3].line));
        assert_eq!(
            ValueLines { value: 0, best: &[], moves: &[], valued: true }.to_string().lines().nth(1),
            Some("best none (no lines left to draw)")
        );
        // The value alone: no best move claimed, no moves listed.
        let alone = ValueLines { value: 2, best: &[], moves: &[], valued: false }.to_string();
        assert_eq!(
            alone.lines().collect::<Vec<_>>(),
            [
                "value +2 (net future boxes for the player to move)",
                "best not searched: the position's value alone was asked for"
            ]
        );
    }
}
