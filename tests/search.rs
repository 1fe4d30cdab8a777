//! The search engine against the retrograde solver: every position of the boards up to 2x3 and
//! random positions of 3x3, 2x5 and 3x4, the value and every move's value.

mod common;

use common::{Rng, board, json_out, random_position};

use dab::answer::search::{SearchOptions, search};
use dab::exec::solve;
use dab::game::{Position, move_value};
use dab::solver::{Solution, SolveOptions, State};

/// The whole board solved, every partition kept.
fn solved(b: &str) -> Solution {
    solve(Position::empty(board(b)), SolveOptions { threads: 2, keep_all: true, ..Default::default() }).unwrap()
}

/// The search's value and moves of `pos` against the solution of its board.
fn check(sol: &Solution, pos: Position, opts: SearchOptions) {
    let sp = &sol.space;
    let value = |drawn| if drawn == pos.board.full() { 0 } else { sol.value_of(sp.state_of(drawn)).unwrap() };
    let s = search(pos, opts).unwrap();
    assert_eq!(s.value, value(pos.drawn), "{}", pos.to_line_string());
    if !opts.move_values {
        assert!(s.moves.is_empty());
        return;
    }
    assert_eq!(s.moves.len(), pos.undrawn().len() as usize);
    for &(line, boxes, v) in &s.moves {
        let n = pos.board.completes(pos.drawn, line);
        assert_eq!(boxes as u32, n);
        assert_eq!(v, move_value(n as i8, value(pos.drawn.with(line))), "{} move {line:?}", pos.to_line_string());
    }
}

#[test]
fn every_position_of_the_boards_up_to_2x3_matches_the_retrograde() {
    let opts = SearchOptions { tt_bytes: 4096, threads: 1, ..Default::default() };
    for b in ["1x1", "1x2", "1x3", "2x2", "2x3"] {
        let sol = solved(b);
        let sp = &sol.space;
        for state in (0..1u64 << sp.free()).map(State) {
            check(&sol, sp.position_of(state), opts);
        }
    }
}

#[test]
fn random_positions_of_3x3_2x5_and_3x4_match_the_retrograde() {
    let mut rng = Rng(19);
    for (b, frees) in [("3x3", &[10, 16, 22, 24][..]), ("2x5", &[12, 20, 26][..]), ("3x4", &[14, 20, 24][..])] {
        let sol = solved(b);
        for &free in frees {
            for threads in [1, 2] {
                let pos = random_position(board(b), free, &mut rng);
                check(&sol, pos, SearchOptions { tt_bytes: 16 << 20, threads, ..Default::default() });
                // The value alone, and with the retrograde's leaves.
                let alone = SearchOptions { tt_bytes: 16 << 20, threads, move_values: false, leaf_lines: 10, ..Default::default() };
                check(&sol, pos, alone);
            }
        }
    }
}

#[test]
fn late_positions_full_of_chains_and_captures_match_the_retrograde() {
    // Few undrawn lines: capturable boxes, chains and loops everywhere, where the capture rules act.
    let mut rng = Rng(1919);
    for b in ["3x4", "2x5", "3x3"] {
        let sol = solved(b);
        for i in 0..300 {
            let pos = random_position(board(b), 6 + i % 11, &mut rng);
            // By turns: as shipped, without the theorems' leaves, with retrograde leaves.
            let (theorems, leaf_lines) = [(true, 0), (false, 0), (true, 8)][i % 3];
            let opts = SearchOptions { tt_bytes: 1 << 16, threads: 1, theorems, leaf_lines, ..Default::default() };
            check(&sol, pos, opts);
        }
    }
}

#[test]
fn a_tiny_table_gives_the_same_values() {
    let sol = solved("3x3");
    let mut rng = Rng(3);
    for _ in 0..3 {
        check(
            &sol,
            random_position(board("3x3"), 20, &mut rng),
            SearchOptions { tt_bytes: 64, threads: 2, ..Default::default() },
        );
    }
}

#[test]
fn a_long_search_reports_its_progress() {
    let calls = std::sync::Mutex::new(Vec::new());
    let progress = |p: &dab::answer::search::SearchProgress| calls.lock().unwrap().push(*p);
    let opts = SearchOptions { threads: 2, progress: Some(&progress), progress_seconds: 0.01, ..Default::default() };
    let s = search(Position::empty(board("2x5")), opts).unwrap();
    assert_eq!(s.value, -2);
    let calls = calls.into_inner().unwrap();
    assert!(!calls.is_empty());
    for w in calls.windows(2) {
        assert!(
            w[0].nodes <= w[1].nodes && w[0].root_moves_done <= w[1].root_moves_done && w[0].seconds < w[1].seconds
        );
        // The value's proven bounds only narrow.
        assert!(w[0].lower <= w[1].lower && w[1].upper <= w[0].upper, "{w:?}");
    }
    assert!(calls.iter().all(|p| p.lower <= -2 && -2 <= p.upper));
    let last = calls.last().unwrap();
    assert!(last.nodes <= s.nodes && last.table_hits <= s.table_hits && last.root_moves == 27, "{last:?}");
}

#[test]
fn dab_solve_runs_the_search_engine() {
    let v = json_out(&["solve", "3x3", "--engine", "search", "--tt-size", "1M", "--json"], None);
    assert_eq!((v["value"].as_i64(), v["engine"].as_str()), (Some(-3), Some("search")));
    common::refused(
        &["solve", "3x3", "--engine", "search", "--tt-size", "16"],
        None,
        "--tt-size 16 bytes is too small",
    );
}
