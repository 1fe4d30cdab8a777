//! The partitioned solver against its slow twins, the published values, and itself in
//! parallel.

use crate::common;

use common::{Rng, board, random_position};

use dab::exec::solve;
use dab::game::Position;
use dab::solver::{Dense, Solution, SolveOptions, Space, minimax};

use common::assert_matches_dense;

fn solve_all(root: Position, groups: Option<usize>, threads: usize) -> Solution {
    solve(root, SolveOptions { groups, threads, keep_all: true, ..Default::default() }).unwrap()
}

#[test]
fn every_position_of_every_board_up_to_24_lines_matches_the_dense_twin() {
    for b in ["1x1", "1x2", "1x3", "1x4", "1x5", "1x6", "1x7", "2x2", "2x3", "2x4", "3x3"] {
        let root = Position::empty(board(b));
        let dense = Dense::solve(root).unwrap();
        let max_groups = if b == "3x3" { 3 } else { 4 };
        for g in std::iter::once(None).chain((1..=max_groups).map(Some)) {
            if Space::new(root, g).is_err() {
                continue;
            }
            let sol = solve_all(root, g, 1);
            assert_matches_dense(&sol, &dense, &format!("{b} groups {g:?}"));
        }
    }
}

#[test]
fn random_positions_of_larger_boards_match_the_dense_twin() {
    let mut rng = Rng(2026);
    for (b, free) in [("3x4", 20), ("3x4", 22), ("4x4", 20), ("3x5", 21), ("4x5", 18), ("5x5", 22), ("1x21", 20)] {
        for _ in 0..3 {
            let root = random_position(board(b), free, &mut rng);
            let dense = Dense::solve(root).unwrap();
            for g in [None, Some(1), Some(2)] {
                if Space::new(root, g).is_err() {
                    continue;
                }
                let sol = solve_all(root, g, 1);
                assert_matches_dense(&sol, &dense, &format!("{b} {} groups {g:?}", root.to_line_string()));
            }
        }
    }
}

#[test]
fn minimax_agrees_on_small_random_positions() {
    let mut rng = Rng(7);
    for b in ["2x2", "2x3", "3x3", "3x4", "4x4", "5x5"] {
        for free in [4, 9, 14].into_iter().filter(|&f| f <= board(b).lines()) {
            let root = random_position(board(b), free, &mut rng);
            let sol = solve(root, SolveOptions::default()).unwrap();
            assert_eq!(sol.value, minimax(root).unwrap(), "{b} {}", root.to_line_string());
        }
    }
}

#[test]
fn empty_board_values_match_the_published_ones() {
    let mut reader = csv::Reader::from_path("tests/data/empty-board-values.csv").unwrap();
    let mut checked = 0;
    for row in reader.records() {
        let row = row.unwrap();
        let b = board(&row[0]);
        let value: i8 = row[3].parse().unwrap();
        // The suite affords in-memory solves up to 31 lines; larger ones are benchmarks.
        if b.lines() > 31 {
            continue;
        }
        let transposed: dab::game::Board = format!("{}x{}", b.cols(), b.rows()).parse().unwrap();
        for bb in [b, transposed] {
            assert_eq!(solve(Position::empty(bb), SolveOptions::default()).unwrap().value, value, "{bb}");
        }
        checked += 1;
    }
    assert!(checked >= 9, "only {checked} boards checked");
}

#[test]
fn parallel_solve_gives_identical_values() {
    for (b, g) in [("2x4", Some(2)), ("3x3", None), ("2x5", Some(3))] {
        let root = Position::empty(board(b));
        let seq = solve_all(root, g, 1);
        for threads in [2, 3] {
            let par = solve_all(root, g, threads);
            assert_eq!(seq.tables, par.tables, "{b} with {threads} threads");
            assert_eq!(seq.moves, par.moves);
        }
    }
}

#[test]
fn whole_solve_keeps_only_what_is_still_needed() {
    let root = Position::empty(board("3x3"));
    let sol = solve(root, SolveOptions::default()).unwrap();
    assert!(sol.peak_bytes * 3 < sol.positions, "peak {} of {}", sol.peak_bytes, sol.positions);
    assert!(sol.tables.is_none());
}

#[test]
fn full_board_and_one_line_positions() {
    let b = board("2x2");
    let full = Position { board: b, drawn: b.full() };
    let sol = solve(full, SolveOptions::default()).unwrap();
    assert_eq!((sol.value, sol.moves.len()), (0, 0));
    // One line left: it completes the boxes on both sides of it.
    let last = Position { board: b, drawn: b.full().without(b.h(1, 0)) };
    let sol = solve(last, SolveOptions::default()).unwrap();
    assert_eq!(sol.value, 2);
}
