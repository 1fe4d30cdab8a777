//! Wilson's last-move penalty: the solver against a plain game tree played on the raw rules
//! (the player who draws the last line loses N boxes, with nothing assumed about who that is),
//! the empty boards' values under penalties against tests/data, Wilson's observations on
//! consecutive penalties, and sequential against parallel solves.

use crate::common;

use std::collections::HashMap;

use common::{Rng, board, random_position};
use proptest::prelude::*;

use dab::exec::solve;
use dab::game::{Board, LineSet, Penalty, Position};
use dab::solver::{Dense, KernelPath, Solution, SolveOptions, minimax_under, solve_in_order};

fn penalty(n: u8) -> Penalty {
    Penalty::new(n).unwrap()
}

/// The game tree on the raw rules: player A's net boxes from `drawn` to the end, A to move when
/// `a_moves`, both playing their best; a move that completes a box keeps the move, and whoever
/// draws the last line loses `n` boxes. Memoised on (lines drawn, who moves): nothing else of
/// the past changes what is still to win.
fn tree(b: Board, drawn: LineSet, a_moves: bool, n: i32, memo: &mut HashMap<(LineSet, bool), i32>) -> i32 {
    if drawn == b.full() {
        return 0;
    }
    if let Some(&v) = memo.get(&(drawn, a_moves)) {
        return v;
    }
    let best = b
        .full()
        .minus(drawn)
        .iter()
        .map(|l| {
            let for_a = move_for_a(b, drawn, l, a_moves, n, memo);
            if a_moves { for_a } else { -for_a }
        })
        .max()
        .expect("a line to draw");
    let v = if a_moves { best } else { -best };
    memo.insert((drawn, a_moves), v);
    v
}

/// A's net boxes when the player to move (A when `a_moves`) draws `line`, then both play best.
fn move_for_a(
    b: Board,
    drawn: LineSet,
    line: dab::game::Line,
    a_moves: bool,
    n: i32,
    memo: &mut HashMap<(LineSet, bool), i32>,
) -> i32 {
    let took = b.completes(drawn, line) as i32;
    let after = drawn.with(line);
    let gain = took - if after == b.full() { n } else { 0 };
    let next_a = if took > 0 { a_moves } else { !a_moves };
    (if a_moves { gain } else { -gain }) + tree(b, after, next_a, n, memo)
}

/// The tree's value of `pos` and of every move in line order, for the player to move.
fn tree_values(pos: Position, n: u8) -> (i32, Vec<i32>) {
    let mut memo = HashMap::new();
    let value =
        if pos.undrawn().is_empty() { -(n as i32) } else { tree(pos.board, pos.drawn, true, n as i32, &mut memo) };
    let moves = pos.undrawn().iter().map(|l| move_for_a(pos.board, pos.drawn, l, true, n as i32, &mut memo)).collect();
    (value, moves)
}

fn solve_under(pos: Position, n: u8, threads: usize, keep_all: bool) -> Solution {
    solve(pos, SolveOptions { threads, keep_all, penalty: penalty(n), ..Default::default() }).unwrap()
}

/// A random position of 2x2, 2x3 or 3x3 with at most 14 undrawn lines (the tree's memo holds
/// two entries per subset of them).
fn random_small(which: usize, free: usize, seed: u64) -> Position {
    let b = board(["2x2", "2x3", "3x3"][which]);
    random_position(b, free.min(b.lines()), &mut Rng(seed))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn the_solver_and_its_twins_agree_with_the_raw_game_tree_on_every_move(
        which in 0usize..3, free in 0usize..=14, seed in any::<u64>(), n in 0u8..=6,
    ) {
        let pos = random_small(which, free, seed);
        let what = format!("{} {} penalty {n}", pos.board, pos.to_line_string());
        let (value, moves) = tree_values(pos, n);
        let s = solve_under(pos, n, 2, false);
        prop_assert_eq!(s.value as i32, value, "{}", what);
        let solved: Vec<i32> = s.moves.iter().map(|m| m.value as i32).collect();
        if !pos.undrawn().is_empty() {
            prop_assert_eq!(&solved, &moves, "{}", what);
        }
        let twin = solve_in_order(pos, SolveOptions { penalty: penalty(n), ..Default::default() }).unwrap();
        prop_assert_eq!((twin.value, &twin.moves), (s.value, &s.moves), "{}", what);
        let scalar = SolveOptions { penalty: penalty(n), kernel: KernelPath::Scalar, ..Default::default() };
        let scalar = solve(pos, scalar).unwrap();
        prop_assert_eq!((scalar.value, &scalar.moves), (s.value, &s.moves), "{}: the scalar path", what);
        let dense = Dense::solve_under(pos, penalty(n)).unwrap();
        prop_assert_eq!(dense.values[0] as i32, value, "{}", what);
        prop_assert_eq!(minimax_under(pos, penalty(n)).unwrap() as i32, value, "{}", what);
    }
}

#[test]
fn empty_board_values_under_penalties_match_the_known_ones() {
    let mut reader = csv::Reader::from_path("tests/data/penalty/empty-board-values.csv").unwrap();
    let mut checked = 0;
    for row in reader.records() {
        let row = row.unwrap();
        let b = board(&row[0]);
        let n: u8 = row[1].parse().unwrap();
        let value: i8 = row[2].parse().unwrap();
        let transposed = board(&format!("{}x{}", b.cols(), b.rows()));
        for bb in [b, transposed] {
            assert_eq!(solve_under(Position::empty(bb), n, 2, false).value, value, "{bb} penalty {n}");
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} rows checked");
}

/// Wilson: for consecutive whole penalties one analysis gives all even scores and the other all
/// odd ones (a position's value has the parity of its boxes left plus the penalty), so they
/// differ by exactly one; and penalties N and M change a score by at most |N - M|.
#[test]
fn consecutive_penalties_give_scores_of_opposite_parity_one_apart() {
    for b in ["2x2", "2x3", "3x3"] {
        let root = Position::empty(board(b));
        let solves: Vec<Solution> = (0..=5).map(|n| solve_under(root, n, 2, true)).collect();
        let tables: Vec<&Vec<Vec<i8>>> = solves.iter().map(|s| s.tables.as_ref().unwrap()).collect();
        for (n, s) in solves.iter().enumerate() {
            // Every first move of one analysis has the parity of the boxes plus the penalty.
            let parity = (board(b).boxes() + n) % 2;
            assert!(s.moves.iter().all(|m| (m.value as i32).rem_euclid(2) as usize == parity), "{b} penalty {n}");
            for (m, t) in tables.iter().enumerate().skip(n + 1) {
                for (x, y) in tables[n].iter().flatten().zip(t.iter().flatten()) {
                    let d = (*x as i32 - *y as i32).abs();
                    assert!(d <= (m - n) as i32, "{b}: penalties {n} and {m} change a value by {d}");
                    if m == n + 1 {
                        assert_eq!(d, 1, "{b}: penalties {n} and {m}");
                    }
                }
            }
        }
    }
}

#[test]
fn random_positions_keep_wilsons_parity_for_every_move() {
    let mut rng = Rng(11);
    for b in ["3x3", "3x4", "4x4"] {
        let pos = random_position(board(b), 18, &mut rng);
        let left = (0..pos.board.boxes()).filter(|&x| !pos.drawn.contains_all(pos.board.box_mask(x))).count();
        let mut before: Option<Vec<i8>> = None;
        for n in 0..=4u8 {
            let s = solve_under(pos, n, 2, false);
            let values: Vec<i8> = s.moves.iter().map(|m| m.value).collect();
            let parity = (left + n as usize) % 2;
            assert!(values.iter().all(|&v| (v as i32).rem_euclid(2) as usize == parity), "{b} penalty {n}: {values:?}");
            if let Some(prev) = before {
                assert!(prev.iter().zip(&values).all(|(a, b)| (a - b).abs() == 1), "{b} penalty {n}");
            }
            before = Some(values);
        }
    }
}

#[test]
fn sequential_and_parallel_solves_are_identical_under_a_penalty() {
    for (b, n) in [("2x4", 1), ("3x3", 3), ("2x5", 7)] {
        let root = Position::empty(board(b));
        let seq = solve_under(root, n, 1, true);
        let twin = solve_in_order(
            root,
            SolveOptions { threads: 3, keep_all: true, penalty: penalty(n), ..Default::default() },
        )
        .unwrap();
        for threads in [2, 3] {
            let par = solve_under(root, n, threads, true);
            assert_eq!(seq.tables, par.tables, "{b} penalty {n} on {threads} threads");
            assert_eq!(seq.moves, par.moves);
        }
        assert_eq!((seq.tables, seq.moves), (twin.tables, twin.moves), "{b} penalty {n}: the slow twin");
    }
}

#[test]
fn a_full_board_is_worth_minus_the_penalty_and_a_penalty_that_could_overflow_is_refused() {
    let b = board("2x2");
    let full = Position { board: b, drawn: b.full() };
    assert_eq!(solve_under(full, 4, 1, false).value, -4);
    let last = Position { board: b, drawn: b.full().without(b.h(1, 0)) };
    assert_eq!(solve_under(last, 4, 1, false).value, 2 - 4);
    let empty = Position::empty(board("3x3"));
    let err = solve(empty, SolveOptions { penalty: penalty(119), ..Default::default() }).err().unwrap();
    assert!(err.to_string().contains("the largest penalty here is 118"), "{err}");
    assert!(Dense::solve_under(empty, penalty(119)).is_err() && minimax_under(empty, penalty(119)).is_err());
}
