//! The Nimstring calculator against its twins: the raw rules (a game tree of single lines, no
//! theory) on who wins, for the position and every move; the sum rule against a calculator
//! that never splits a position; known values from tests/data/nimstring/.

use crate::common;

use common::{Rng, board, random_position};
use proptest::prelude::*;

use dab::answer::nimstring::{NimValue, RawGame, nimstring, whole_value};
use dab::game::{Board, LineSet, Position, is_loony, is_loony_position};

/// Asserts the calculator and the raw game agree on who wins at `pos` and after every move.
fn agrees_with_the_raw_game(pos: Position) {
    let a = nimstring(pos, None).unwrap();
    let (wins, moves) = RawGame::new(pos).expect("few enough lines").outcomes();
    let what = format!("{} {}", pos.board, pos.to_line_string());
    assert_eq!(a.wins, wins, "who wins at {what} (value {})", a.value);
    assert_eq!(a.moves.len(), moves.len());
    // The board's own loony test (any board size) and the calculator's nets agree.
    assert_eq!(a.value == NimValue::Loony, is_loony_position(pos), "loony position at {what}");
    for (m, (line, w)) in a.moves.iter().zip(moves) {
        assert_eq!(m.index, line.0);
        assert_eq!(m.wins, w, "{} at {what}: value {}", m.line, m.value);
        if a.value != NimValue::Loony {
            assert_eq!(m.boxes == 0 && m.value == NimValue::Loony, is_loony(pos, line), "{} loony at {what}", m.line);
        }
    }
}

/// The boards of the twin's test: every one up to 3x4.
const SMALL: [&str; 9] = ["1x1", "1x2", "1x3", "2x2", "1x4", "2x3", "3x3", "2x4", "3x4"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_calculator_and_the_raw_game_agree_on_who_wins_everywhere(
        b in prop::sample::select(SMALL.to_vec()), free in 1usize..=18, seed in any::<u64>()
    ) {
        let board = board(b);
        let pos = random_position(board, free.min(board.lines()), &mut Rng(seed));
        agrees_with_the_raw_game(pos);
    }

    /// A wall of drawn lines cuts the board in two: the value is the sum (XOR) of the two
    /// halves' values each alone, and a calculator that never splits agrees.
    #[test]
    fn the_value_of_a_position_cut_in_two_is_the_sum_of_its_halves(
        b in prop::sample::select(vec!["2x4", "3x4", "2x5", "3x5", "4x4"]), free in 4usize..=22, seed in any::<u64>()
    ) {
        let board = board(b);
        let mut rng = Rng(seed);
        let wall = 1 + rng.below(board.cols() - 1);
        let walled: LineSet = (0..board.rows()).map(|r| board.v(r, wall)).collect();
        let pos = random_position(board, free.min(board.lines() - board.rows()), &mut rng);
        let pos = Position { board, drawn: pos.drawn.union(walled) };
        // Each half alone: the other half's lines all drawn.
        let left: LineSet = pos.undrawn().iter().filter(|&l| board.midpoint(l).1 < 2 * wall as i32).collect();
        let half = |others: LineSet| Position { board, drawn: pos.drawn.union(others) };
        let (l, r) = (half(pos.undrawn().minus(left)), half(left));
        let sum = nimstring(l, None).unwrap().value.plus(nimstring(r, None).unwrap().value);
        let whole = nimstring(pos, None).unwrap();
        prop_assert_eq!(whole.value, sum, "{} {}", b, pos.to_line_string());
        prop_assert_eq!(whole_value(pos).unwrap(), sum, "unsplit twin at {} {}", b, pos.to_line_string());
        if pos.undrawn().len() <= 20 {
            let (wins, _) = RawGame::new(pos).unwrap().outcomes();
            prop_assert_eq!(wins, sum.mover_wins());
        }
    }
}

#[test]
fn every_position_of_a_1x2_and_2x2_board_agrees_with_the_raw_game() {
    for b in ["1x2", "2x2"] {
        let board = board(b);
        for mask in 0u64..1 << board.lines() {
            let drawn = (0..board.lines() as u16).filter(|i| mask >> i & 1 == 1).map(dab::game::Line).collect();
            agrees_with_the_raw_game(Position { board, drawn });
        }
    }
}

#[test]
fn empty_boards_have_their_known_values() {
    let text = std::fs::read_to_string("tests/data/nimstring/empty-boards.csv").unwrap();
    for row in text.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let [b, value]: [&str; 2] = row.split(',').collect::<Vec<_>>().try_into().unwrap();
        let board: Board = b.parse().unwrap();
        let v = nimstring(Position::empty(board), None).unwrap().value;
        let want = if value == "loony" { NimValue::Loony } else { NimValue::Nimber(value.parse().unwrap()) };
        assert_eq!(v, want, "{b}");
        assert_eq!(whole_value(Position::empty(board)).unwrap(), want, "{b} by the unsplit twin");
        if board.lines() <= 20 {
            assert_eq!(
                RawGame::new(Position::empty(board)).unwrap().outcomes().0,
                want.mover_wins(),
                "{b} by the raw game"
            );
        }
    }
}

#[test]
fn a_loony_position_is_a_win_and_every_move_that_leaves_one_loses() {
    // 1x3 with the middle and right boxes' long sides and the left end drawn: the left box is
    // capturable beside a box of two strings: the player to move may take or decline.
    let board = board("1x3");
    let drawn: LineSet =
        [board.h(0, 0), board.h(1, 0), board.v(0, 0), board.h(0, 1), board.h(1, 1)].into_iter().collect();
    let a = nimstring(Position { board, drawn }, None).unwrap();
    assert_eq!(a.value, NimValue::Loony);
    assert!(a.wins);
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["value"], "loony");
    assert!(json["moves"].as_array().unwrap().iter().all(|m| m["value"].is_number() || m["value"] == "loony"));
}

/// Wilson's observation: with a penalty larger than the boxes left, the player who draws the
/// last line (the Nimstring loser: it completes the last box) loses more than any box count
/// can make up, so a move's penalised value is positive exactly when it wins Nimstring, and
/// every best move is a Nimstring winning move wherever one exists.
#[test]
fn under_a_large_penalty_the_best_moves_are_the_nimstring_winning_moves() {
    use dab::exec::solve;
    use dab::game::Penalty;
    use dab::solver::SolveOptions;
    let mut rng = Rng(0x5eed);
    let mut with_winning = 0;
    for (b, cases) in [("3x3", 40), ("3x4", 25)] {
        let board = board(b);
        for _ in 0..cases {
            let free = 8 + rng.below(12);
            let pos = random_position(board, free, &mut rng);
            let boxes_left = (0..board.boxes())
                .filter(|&k| board.box_sides(k).iter().any(|&s| !pos.drawn.contains(s)))
                .count() as u8;
            let penalty = Penalty::new(boxes_left + 1).unwrap();
            let s = solve(pos, SolveOptions { penalty, ..Default::default() }).unwrap();
            let nim = nimstring(pos, None).unwrap();
            let what = format!("{b} {}", pos.to_line_string());
            assert_eq!(s.value > 0, nim.wins, "who wins at {what}");
            for (m, n) in s.moves.iter().zip(&nim.moves) {
                assert_eq!(m.line.0, n.index);
                assert_eq!(m.value > 0, n.wins, "{} at {what}", n.line);
            }
            if nim.wins {
                with_winning += 1;
                assert!(s.best().iter().all(|l| nim.winning.contains(&board.line_name(*l))), "best moves at {what}");
            }
        }
    }
    assert!(with_winning >= 10, "only {with_winning} positions had a Nimstring winning move");
}

/// Who must make the next loony move, by the raw rules: one game tree valuing the score and,
/// among the moves of best score, the control (the opponent to move loony next is best, then
/// neither, then oneself), both at once and with no oracle of values. Ranks: 0 the player to
/// move, 1 neither, 2 the opponent.
fn score_then_control(
    board: Board,
    drawn: LineSet,
    memo: &mut std::collections::HashMap<LineSet, (i32, u8)>,
) -> (i32, u8) {
    if let Some(&r) = memo.get(&drawn) {
        return r;
    }
    let pos = Position { board, drawn };
    let best = pos
        .undrawn()
        .iter()
        .map(|l| {
            let boxes = board.completes(drawn, l) as i32;
            let (v, r) = score_then_control(board, drawn.with(l), memo);
            match () {
                _ if boxes > 0 => (boxes + v, r),
                _ if is_loony(pos, l) => (-v, 0),
                _ => (-v, 2 - r),
            }
        })
        .max()
        .unwrap_or((0, 1));
    memo.insert(drawn, best);
    best
}

#[test]
fn who_must_make_the_next_loony_move_agrees_with_a_game_tree_of_score_then_control() {
    use dab::answer::{Engine, NextLoony, analyse};
    use dab::solver::SolveOptions;
    let mut rng = Rng(0x10027);
    let mut seen = std::collections::HashSet::new();
    for b in ["2x2", "2x3", "3x3", "2x4", "3x4"] {
        let board = board(b);
        for _ in 0..30 {
            let pos = random_position(board, (6 + rng.below(11)).min(board.lines()), &mut rng);
            let (value, rank) = score_then_control(board, pos.drawn, &mut Default::default());
            let want = [NextLoony::Mover, NextLoony::Neither, NextLoony::Opponent][rank as usize];
            let what = format!("{b} {}", pos.to_line_string());
            for engine in [Engine::Partition, Engine::Dense] {
                let a = analyse(pos, engine, SolveOptions::default()).unwrap();
                assert_eq!(a.value, value, "{engine:?} value at {what}");
                assert_eq!(a.next_loony, Some(want), "{engine:?} at {what}");
            }
            seen.insert(want);
        }
    }
    // The positions drawn cover all three answers.
    assert_eq!(seen.len(), 3, "only {seen:?}");
}
