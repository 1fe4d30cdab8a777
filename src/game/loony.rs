//! Loony moves (Berlekamp): a move that offers the opponent the choice to take some boxes or
//! to decline them. The definition dab implements, on the board's own lines (any size):
//!
//! A move is *loony* when it completes no box and leaves a position in which, once the boxes
//! that cannot usefully be declined are taken, a box with one undrawn side is left whose
//! neighbour across that side has two undrawn sides and whose neighbour's other side borders
//! the edge or a box of two undrawn sides or more. Such a box and its neighbour may be taken,
//! or left to the opponent by drawing the neighbour's other side (a move that completes nothing:
//! declining). Boxes that cannot usefully be declined: a box with one undrawn side whose side
//! borders the edge, or a box of one undrawn side (two boxes taken at once), or of three or
//! more; and three boxes in a row whose two ends each have one undrawn side (every line there
//! completes a box, so nothing can be declined). The Nimstring calculator (`answer::nimstring`)
//! applies the same rules to its strings and coins; a test holds the two to each other.

use super::board::{Board, Line, LineSet};
use super::position::Position;

/// Undrawn sides of box `b`.
fn degree(board: Board, drawn: LineSet, b: usize) -> usize {
    board.box_sides(b).iter().filter(|&&s| !drawn.contains(s)).count()
}

/// The box across `line` from box `b`, or None where `line` is on the edge.
fn across(board: Board, line: Line, b: usize) -> Option<usize> {
    board.line_boxes(line).into_iter().find(|&x| x != b)
}

/// `drawn` with every capture taken that cannot usefully be declined, starting from the boxes
/// `seeds` and going on to each box whose sides a capture draws; None at the first box that
/// may be taken or declined (loony). A position with no box of one undrawn side but among
/// the seeds settles to itself.
pub fn settle(board: Board, mut drawn: LineSet, seeds: &[usize]) -> Option<LineSet> {
    let mut stack = seeds.to_vec();
    while let Some(c) = stack.pop() {
        let undrawn = |d: LineSet, b: usize| board.box_sides(b).into_iter().filter(move |&s| !d.contains(s));
        let Some(s) = undrawn(drawn, c).next() else { continue };
        if degree(board, drawn, c) != 1 {
            continue;
        }
        let x = across(board, s, c);
        match x {
            Some(x) if degree(board, drawn, x) == 2 => {
                let t = undrawn(drawn, x).find(|&t| t != s).expect("two undrawn sides");
                match across(board, t, x) {
                    Some(y) if degree(board, drawn, y) == 1 => drawn = drawn.with(s).with(t),
                    _ => return None,
                }
            }
            _ => {
                drawn = drawn.with(s);
                stack.extend(x);
            }
        }
    }
    Some(drawn)
}

/// Whether drawing `line` (undrawn) in `pos` is a loony move. Every box is looked at, not only
/// the line's two: a box left capturable before the move may be the one offered.
pub fn is_loony(pos: Position, line: Line) -> bool {
    pos.board.completes(pos.drawn, line) == 0
        && is_loony_position(Position { board: pos.board, drawn: pos.drawn.with(line) })
}

/// Whether the player to move in `pos` has been offered a choice: the position is loony (the
/// last move was a loony one).
pub fn is_loony_position(pos: Position) -> bool {
    let seeds: Vec<usize> = (0..pos.board.boxes()).collect();
    settle(pos.board, pos.drawn, &seeds).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offering_two_boxes_at_the_edge_is_loony_and_the_hard_hearted_handout_is_not() {
        // 1x2 with both long sides drawn: a chain of two boxes between the two ends.
        let board: Board = "1x2".parse().unwrap();
        let drawn: LineSet = [board.h(0, 0), board.h(0, 1), board.h(1, 0), board.h(1, 1)].into_iter().collect();
        let pos = Position { board, drawn };
        // Drawing an end offers both boxes with the choice (half-hearted): loony.
        assert!(is_loony(pos, board.v(0, 0)));
        assert!(is_loony(pos, board.v(0, 2)));
        // Drawing the middle line offers two single boxes: nothing to decline.
        assert!(!is_loony(pos, board.v(0, 1)));
    }

    #[test]
    fn opening_a_long_chain_is_loony_wherever_it_is_opened() {
        // 1x3, long sides drawn: a chain of three.
        let board: Board = "1x3".parse().unwrap();
        let drawn: LineSet = (0..3).flat_map(|c| [board.h(0, c), board.h(1, c)]).collect();
        let pos = Position { board, drawn };
        for c in 0..=3 {
            assert!(is_loony(pos, board.v(0, c)), "v(0,{c})");
        }
    }
}
