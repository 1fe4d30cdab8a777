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
