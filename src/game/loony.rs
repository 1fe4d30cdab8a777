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
    board.boxes_of(line).find(|&x| x != b)
}

/// `drawn` with every capture taken that cannot usefully be declined, starting from the boxes
/// `seeds` and going on to each box whose sides a capture draws; None at the first box that
/// may be taken or declined (loony). A position with no box of one undrawn side but among
/// the seeds settles to itself.
pub fn settle(board: Board, drawn: LineSet, seeds: &[usize]) -> Option<LineSet> {
    settle_stack(board, drawn, seeds.to_vec())
}

/// [`settle`] with its seeds given as the stack it works on (the last seed first).
fn settle_stack(board: Board, mut drawn: LineSet, mut stack: Vec<usize>) -> Option<LineSet> {
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
/// last move was a loony one). Only the boxes with an undrawn side are looked at, in the order
/// [`settle`] takes every box (a box with none is passed over there, and its sides stay
/// drawn): a few dozen boxes of a 16x16 endgame, not its 256.
pub fn is_loony_position(pos: Position) -> bool {
    // The boxes of the undrawn lines as a bit set (a board of at most 576 lines has fewer than
    // 288 boxes), then in increasing order onto the stack, with room for what settling pushes.
    let mut boxes = [0u64; 5];
    let undrawn = pos.undrawn();
    for b in undrawn.iter().flat_map(|l| pos.board.boxes_of(l)) {
        boxes[b / 64] |= 1 << (b % 64);
    }
    let seeds: u32 = boxes.iter().map(|w| w.count_ones()).sum();
    let mut stack = Vec::with_capacity((seeds + undrawn.len()) as usize);
    for (i, &w) in boxes.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            stack.push(i * 64 + w.trailing_zeros() as usize);
            w &= w - 1;
        }
    }
    settle_stack(pos.board, pos.drawn, stack).is_none()
}

/// [`is_loony_position`] seeded with every box: its slow twin.
#[cfg(test)]
fn is_loony_position_every_box(pos: Position) -> bool {
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

    #[test]
    fn the_boxes_with_an_undrawn_side_settle_as_every_box_does() {
        // Random positions of several boards and densities, captures and chains among them:
        // the fast path's answer is its twin's, before and after each undrawn line.
        // SplitMix64's steps (`game` uses nothing of the crate, not even in tests).
        let mut state = 80u64;
        let mut below = |n: u64| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) % n
        };
        let mut loony = 0;
        for b in ["1x1", "2x3", "3x3", "4x5", "6x6", "16x16", "2x30"] {
            let board: Board = b.parse().unwrap();
            for per_mille in [950, 900, 800, 500] {
                for _ in 0..40 {
                    let drawn: LineSet =
                        (0..board.lines()).filter(|_| below(1000) < per_mille).map(|i| Line(i as u16)).collect();
                    let pos = Position { board, drawn };
                    for after in std::iter::once(pos)
                        .chain(pos.undrawn().iter().map(|l| Position { board, drawn: drawn.with(l) }))
                    {
                        let fast = is_loony_position(after);
                        assert_eq!(fast, is_loony_position_every_box(after), "{b} {}", after.to_line_string());
                        loony += fast as usize;
                    }
                }
            }
        }
        assert!(loony > 100, "{loony} loony positions: too few to test the twins on");
    }
}
