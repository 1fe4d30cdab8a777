//! Long chains and the long chain rule (Berlekamp; Blom's rules 2b and 3b), as a player counts
//! them in the middle game: the chains of three boxes or more now on the board, and how many
//! long chains the player to move wants at the end to have control.
//!
//! The rule from any position: the turns left are the undrawn lines, less the boxes left, plus
//! the double-crossed moves to come, plus one (every move that completes no box ends a turn,
//! and a double-cross completes two boxes at once; the last move completes a box). The player
//! to move plays the odd turns and wants the last one, which takes the last chain. With control
//! kept, each long chain but the last is double-crossed once and each loop twice; so the player
//! to move wants undrawn lines - boxes left + long chains to be odd. From the empty board this
//! is Blom's rule 2b: the first player wants dots + long chains even.

use super::position::Position;

/// Chains of three boxes or more now on the board: runs of boxes with two undrawn sides, each
/// joined to the next by an undrawn line, that do not close into a loop. A run ends at the
/// board's edge or at a box of one, three or four undrawn sides.
pub fn long_chains(pos: Position) -> usize {
    let board = pos.board;
    let undrawn = |b: usize| board.box_sides(b).into_iter().filter(move |&s| !pos.drawn.contains(s));
    let two = |b: usize| undrawn(b).count() == 2;
    let mut seen = vec![false; board.boxes()];
    let mut count = 0;
    for b in 0..board.boxes() {
        if seen[b] || !two(b) {
            continue;
        }
        seen[b] = true;
        let (mut size, mut links) = (0, 0);
        let mut stack = vec![b];
        while let Some(x) = stack.pop() {
            size += 1;
            for s in undrawn(x) {
                let Some(y) = board.boxes_of(s).find(|&y| y != x).filter(|&y| two(y)) else { continue };
                links += 1;
                if !seen[y] {
                    seen[y] = true;
                    stack.push(y);
                }
            }
        }
        // Each link is met from both its boxes: a run of k boxes has k - 1 links, a loop k.
        if links / 2 < size && size >= 3 {
            count += 1;
        }
    }
    count
}

/// Whether the player to move in `pos` wants an odd number of long chains at the end of the
/// game to have control, by the long chain rule (see the module's page); an even number when
/// false. Loops change nothing (each is double-crossed twice).
pub fn wants_odd_long_chains(pos: Position) -> bool {
    let board = pos.board;
    let left = (0..board.boxes()).filter(|&b| !pos.drawn.contains_all(board.box_mask(b))).count();
    (pos.undrawn().len() as usize - left).is_multiple_of(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2x5 with every horizontal line drawn and the verticals `drawn`: two rows of five boxes.
    fn rows_of_five(drawn: &[(usize, usize)]) -> Position {
        let mut art: Vec<Vec<u8>> =
            (0..5).map(|i| if i % 2 == 0 { b"+-+-+-+-+-+".to_vec() } else { vec![b' '; 11] }).collect();
        for &(r, c) in drawn {
            art[2 * r + 1][2 * c] = b'|';
        }
        let text: Vec<String> = art.into_iter().map(|row| String::from_utf8(row).unwrap() + "\n").collect();
        Position::from_art(&text.concat()).unwrap()
    }

    #[test]
    fn chains_of_three_or_more_count_and_a_loop_or_a_short_chain_does_not() {
        assert_eq!(long_chains(rows_of_five(&[])), 2);
        // v(0,2) cuts the top row into chains of two and three boxes.
        assert_eq!(long_chains(rows_of_five(&[(0, 2)])), 1);
        assert_eq!(long_chains(rows_of_five(&[(0, 2), (1, 3)])), 0);
        // The 2x2 with its border drawn: a loop of four boxes, no chain.
        let loop4 = Position::from_art("+-+-+\n|   |\n+ + +\n|   |\n+-+-+\n").unwrap();
        assert_eq!(long_chains(loop4), 0);
        assert_eq!(long_chains(Position::empty("5x5".parse().unwrap())), 0);
    }

    #[test]
    fn the_long_chain_rule_from_the_empty_board_and_in_an_endgame_of_chains() {
        // Blom's rule 2b: the first player wants dots + long chains even. 5x5 has 36 dots,
        // 4x4 25 (Allcock: on an odd-by-odd board the first player wants an even number).
        assert!(!wants_odd_long_chains(Position::empty("5x5".parse().unwrap())));
        assert!(!wants_odd_long_chains(Position::empty("3x3".parse().unwrap())));
        assert!(wants_odd_long_chains(Position::empty("4x4".parse().unwrap())));
        // Chains only: the player to move must open one and so has no control, whatever
        // their number: the parity wanted is never the count's.
        for drawn in [&[][..], &[(0, 2)][..], &[(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5)][..]] {
            let pos = rows_of_five(drawn);
            assert_ne!(wants_odd_long_chains(pos), long_chains(pos) % 2 == 1, "{drawn:?}");
        }
    }
}
