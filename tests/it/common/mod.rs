//! Helpers shared by the integration tests: a seeded generator and random positions.

#![allow(dead_code)]

use dab::game::{Board, Line, LineSet, Position};

/// The seeded generator of the tests: the library's SplitMix64.
pub use dab::support::SplitMix64 as Rng;

/// A random position of `board` with exactly `free` undrawn lines.
pub fn random_position(board: Board, free: usize, rng: &mut Rng) -> Position {
    let mut lines: Vec<u16> = (0..board.lines() as u16).collect();
    for i in (1..lines.len()).rev() {
        lines.swap(i, rng.below(i + 1));
    }
    let drawn = lines[free..].iter().fold(LineSet::EMPTY, |d, &l| d.with(Line(l)));
    Position { board, drawn }
}

/// Every one of the 2^k positions of the space, looked up through canonicalisation, and every
/// stored state directly, against the dense twin; above 22 undrawn lines, `sample` random
/// positions and stored states instead (every one would take minutes).
pub fn assert_matches_dense(sol: &dab::solver::Solution, dense: &dab::solver::Dense, what: &str) {
    assert_matches_dense_sampled(sol, dense, what, 200_000);
}

/// [`assert_matches_dense`] with the sample size given.
pub fn assert_matches_dense_sampled(
    sol: &dab::solver::Solution,
    dense: &dab::solver::Dense,
    what: &str,
    sample: usize,
) {
    use dab::solver::State;
    let sp = &sol.space;
    assert_eq!(sp.free(), dense.free.len());
    let all = sp.free() <= 22;
    let mut rng = Rng(sp.free() as u64);
    let states: Box<dyn Iterator<Item = State>> = if all {
        Box::new((0..1u64 << sp.free()).map(State))
    } else {
        Box::new((0..sample).map(move |_| State(rng.next_u64() & ((1u64 << sp.free()) - 1))))
    };
    for state in states {
        let pos = sp.position_of(state);
        assert_eq!(sol.value_of(state).unwrap(), dense.value(pos.drawn), "{what}: position {}", pos.to_line_string());
    }
    let tables = sol.tables.as_ref().unwrap();
    let mut rng = Rng(7);
    for key in sp.keys() {
        let table = &tables[sp.key_index(&key)];
        let indexes: Vec<usize> = if all || table.len() <= 64 {
            (0..table.len()).collect()
        } else {
            (0..64).map(|_| rng.below(table.len())).collect()
        };
        for i in indexes {
            let pos = sp.position_of(sp.state_at(&key, i));
            assert_eq!(table[i], dense.value(pos.drawn), "{what}: stored {key}[{i}]");
        }
    }
    assert_eq!(sol.value, dense.values[0]);
    for m in &sol.moves {
        let n = sp.board().completes(sp.root.drawn, m.line) as i8;
        let after = dense.value(sp.root.drawn.with(m.line));
        assert_eq!(m.value, if n > 0 { n + after } else { -after }, "{what}: move {}", sp.board().line_name(m.line));
    }
}

pub fn board(s: &str) -> Board {
    s.parse().unwrap()
}

/// The `dab` binary built for the tests.
pub fn dab() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("dab").unwrap()
}

/// Runs `dab` with `args` (and `stdin`) and expects a refusal: exit status 2, nothing on stdout,
/// `message` on stderr.
pub fn refused(args: &[&str], stdin: Option<&str>, message: &str) {
    use predicates::prelude::*;
    let mut cmd = dab();
    cmd.args(args);
    if let Some(s) = stdin {
        cmd.write_stdin(s);
    }
    cmd.assert().code(2).stdout(predicate::str::is_empty()).stderr(predicate::str::contains(message));
}

/// Runs `dab` with `args` (and `stdin`), expects success and reads stdout as one JSON value.
pub fn json_out(args: &[&str], stdin: Option<&str>) -> serde_json::Value {
    let mut cmd = dab();
    cmd.args(args);
    if let Some(s) = stdin {
        cmd.write_stdin(s);
    }
    serde_json::from_slice(&cmd.assert().success().get_output().stdout).unwrap()
}

/// The plan of an empty board's own partitions in `groups` groups, split or not.
pub fn checked(board: &str, groups: usize, split: Option<dab::sched::Split>) -> dab::plan::ReadyPlan {
    let space = dab::solver::Space::new(Position::empty(board.parse().unwrap()), Some(groups)).unwrap();
    let graph = dab::sched::orbits(&space, &dab::sched::CostSpec::States, split.as_ref()).unwrap();
    dab::plan::ReadyPlan::from_graph(space, graph).unwrap()
}
