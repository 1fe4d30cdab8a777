//! Property tests: rank/unrank is a bijection, values are invariant under the board's
//! symmetries and under swapping interchangeable lines, and the formats round-trip.

use crate::common;

use std::sync::OnceLock;

use common::board;
use proptest::prelude::*;

use dab::exec::solve;
use dab::game::{Board, Line, LineSet, Position};
use dab::solver::{Solution, SolveOptions, Space, State};

/// Whole solves kept for lookups: a square (8 symmetries), a rectangle and a 1xN board.
fn solved(i: usize) -> &'static Solution {
    static CELLS: [OnceLock<Solution>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    CELLS[i].get_or_init(|| {
        let b = ["3x3", "2x4", "1x6"][i];
        solve(Position::empty(board(b)), SolveOptions { keep_all: true, ..Default::default() }).unwrap()
    })
}

/// Every size up to 16x16, and long thin boards up to the line limit.
fn any_wide_board() -> impl Strategy<Value = Board> {
    prop_oneof![
        (1usize..=16, 1usize..=16).prop_map(|(m, n)| Board::new(m, n).unwrap()),
        (1usize..=191).prop_map(|n| Board::new(1, n).unwrap()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn rank_and_unrank_are_inverse(b in prop::sample::select(vec!["2x2", "1x5", "2x3", "3x3", "3x4", "4x4"]),
                                   groups in 1usize..=4, state in any::<u64>()) {
        let root = Position::empty(board(b));
        let space = Space::new(root, Some(groups));
        // A grouping the board cannot take is not a case of this property.
        prop_assume!(space.is_ok());
        let space = space.unwrap();
        let state = State(state & ((1u64 << space.free()) - 1));
        let (key, index) = space.locate(state);
        prop_assert!(index < space.partition_len(&key));
        let stored = space.state_at(&key, index);
        prop_assert_eq!(stored, space.canonical(state));
        prop_assert_eq!(space.locate(stored), (key, index));
    }

    #[test]
    fn values_are_invariant_under_symmetries(which in 0usize..3, state in any::<u64>()) {
        let sol = solved(which);
        let sp = &sol.space;
        let state = State(state & ((1u64 << sp.free()) - 1));
        let pos = sp.position_of(state);
        let v = sol.value_of(state).unwrap();
        for sym in sp.board().symmetries() {
            let image = sp.state_of(sym.apply(pos.drawn));
            prop_assert_eq!(sol.value_of(image).unwrap(), v);
        }
    }

    #[test]
    fn values_are_invariant_under_swapping_interchangeable_lines(which in 0usize..3, state in any::<u64>(),
                                                                 pick in any::<prop::sample::Index>()) {
        let sol = solved(which);
        let sp = &sol.space;
        let b = sp.board();
        let state = State(state & ((1u64 << sp.free()) - 1));
        let pos = sp.position_of(state);
        // Two border lines of one box, one drawn and one not.
        let pairs: Vec<(Line, Line)> = (0..b.lines() as u16).flat_map(|x| (0..b.lines() as u16).map(move |y| (Line(x), Line(y))))
            .filter(|&(x, y)| x != y && b.line_boxes(x).len() == 1 && b.line_boxes(x) == b.line_boxes(y))
            .filter(|&(x, y)| pos.drawn.contains(x) && !pos.drawn.contains(y))
            .collect();
        prop_assume!(!pairs.is_empty());
        let (x, y) = pairs[pick.index(pairs.len())];
        let swapped = pos.drawn.without(x).with(y);
        prop_assert_eq!(sol.value_of(sp.state_of(swapped)).unwrap(), sol.value_of(state).unwrap());
    }

    #[test]
    fn art_and_line_string_round_trip(b in any_wide_board(), bits in prop::collection::vec(any::<bool>(), 576)) {
        let drawn: LineSet = b.full().iter().filter(|l| bits[l.0 as usize]).collect();
        let pos = Position { board: b, drawn };
        prop_assert_eq!(Position::from_art(&pos.to_art()).unwrap(), pos);
        prop_assert_eq!(Position::from_line_string(b, &pos.to_line_string()).unwrap(), pos);
    }
}

#[test]
fn every_stored_configuration_has_its_own_rank() {
    for (b, g) in [("3x3", 2), ("4x4", 4), ("1x7", 2), ("3x4", 3)] {
        let space = Space::new(Position::empty(board(b)), Some(g)).unwrap();
        for grp in &space.groups {
            for (c, configs) in grp.configs.iter().enumerate() {
                for (r, &x) in configs.iter().enumerate() {
                    assert_eq!(x.count_ones() as usize, c);
                    assert_eq!(grp.rank[x as usize] as usize, r, "{b}");
                }
            }
        }
    }
}
