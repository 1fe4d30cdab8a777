//! The endgame theorems (Allcock 2018) against their twins: Theorem 4.1 against Theorem 4.2 and
//! a minimax over component multisets, Theorems 1.1 and 1.3 against the same minimax, and all of
//! them against the exact solver on real boards (positions under `tests/data/endgame/`).

use crate::common;

use std::collections::{HashMap, HashSet};

use common::{Rng, dab, json_out, refused};
use predicates::prelude::*;

use dab::answer::endgame::{Component, Endgame, Minimax, OpenRule, ValueCase, analyse_position};
use dab::exec::solve;
use dab::game::Position;
use dab::solver::SolveOptions;

/// A random multiset: up to `max` components, chains of 3 to 12 and loops of 4 to 12, biased
/// towards the small components the theorems' cases turn on.
fn random_endgame(rng: &mut Rng, max: usize) -> Endgame {
    let n = 1 + rng.below(max);
    let comps = (0..n)
        .map(|_| match rng.below(10) {
            0..=2 => Component::Chain(3),
            3 => Component::Chain(4 + rng.below(9) as u32),
            4..=5 => Component::Loop(4),
            6..=7 => Component::Loop(6),
            _ => Component::Loop(8 + 2 * rng.below(3) as u32),
        })
        .collect();
    Endgame::new(comps)
}

#[test]
fn theorems_agree_with_each_other_and_with_the_minimax() {
    let mut rng = Rng(7);
    let mut mm = Minimax::default();
    let (mut cases, mut rules) = (HashMap::new(), HashMap::new());
    for _ in 0..20_000 {
        let g = random_endgame(&mut rng, 9);
        let brute = mm.value(&g);
        let (explicit, case) = g.value();
        assert_eq!(explicit, brute, "Theorem 4.1 {case} for {g}");
        assert_eq!(g.value_procedural(), brute, "Theorem 4.2 for {g}");
        assert!(g.controlled_value() <= brute, "c(G) <= v(G) for {g}");
        let (open, rule) = g.opener_choice().unwrap();
        *cases.entry(case).or_insert(0) += 1;
        *rules.entry(rule).or_insert(0) += 1;
        assert_eq!(mm.margin(&g, open), brute, "{rule}: opening {open} in {g}");
        for c in g.kinds() {
            let o = g.after_opening(c).unwrap();
            assert_eq!(o.margin, mm.margin(&g, c), "v(G;C) opening {c} in {g}");
            let rest = mm.value(&g.without(c).unwrap());
            let handout = if c.is_loop() { 4 } else { 2 };
            let chosen = if o.keeps_control { c.boxes() - 2 * handout + rest } else { c.boxes() - rest };
            assert_eq!(chosen, o.margin, "Theorem 1.3 after opening {c} in {g}");
        }
    }
    // Every case of both theorems was exercised, not just the common ones.
    use ValueCase::*;
    for case in [Controlled, FourLoopZero, Mod8, ManySixLoops, Parity] {
        assert!(cases.get(&case).copied().unwrap_or(0) >= 20, "{case}: {cases:?}");
    }
    for rule in [OpenRule::ShortestLoop(1), OpenRule::ShortestLoop(2), OpenRule::ShortestLoop(3), OpenRule::Standard] {
        assert!(rules.get(&rule).copied().unwrap_or(0) >= 20, "{rule}: {rules:?}");
    }
}

/// The loops-and-chains positions under `tests/data/endgame/`, each with its `# components:`
/// line and the solver's `# value:` line.
fn data_positions() -> Vec<(String, Position, String, i32)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/endgame");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let header = |key: &str| {
                text.lines().find_map(|l| l.strip_prefix(key)).unwrap_or_else(|| panic!("{p:?} has no '{key}'")).trim()
            };
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let comps = header("# components:").to_string();
            let value = header("# value:").split_whitespace().next().unwrap().parse().unwrap();
            (name, Position::from_art(&text).unwrap(), comps, value)
        })
        .collect()
}

#[test]
fn theorems_match_the_solver_on_real_boards() {
    let mut cases = HashSet::new();
    let positions = data_positions();
    assert!(positions.len() >= 20);
    for (name, pos, comps, value) in positions {
        let free = pos.undrawn().len();
        assert!(free <= 26, "{name}: {free} undrawn lines is too many for a quick solve");
        let r = analyse_position(pos).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.endgame.components, comps, "{name}: components found");
        let s = solve(pos, SolveOptions { threads: 2, ..Default::default() }).unwrap();
        assert_eq!(s.value as i32, value, "{name}: the solver against the data file");
        assert_eq!(r.value, value, "{name}: {} against the solver", r.endgame.value_case);
        assert_eq!(r.moves.len(), s.moves.len(), "{name}");
        for (t, m) in r.moves.iter().zip(&s.moves) {
            assert_eq!((t.index, t.value), (m.line.0, m.value as i32), "{name}: the move {}", t.line);
        }
        let play = pos.board.parse_line(r.play.as_deref().unwrap()).unwrap();
        assert!(s.best().contains(&play), "{name}: Theorem 1.1 plays {:?}, not a best move", r.play);
        cases.insert(r.endgame.value_case.clone());
        if comps == "C3 C3 L4" {
            cases.insert("4-loop + 3 + 3".to_string());
        }
    }
    for case in ["(1)", "(2)", "(3a)", "(3b)", "(4)"] {
        assert!(cases.contains(&format!("Theorem 4.1{case}")), "no position for Theorem 4.1{case}: {cases:?}");
    }
    assert!(cases.contains("4-loop + 3 + 3"));
}

#[test]
fn malformed_component_lists_are_refused() {
    refused(&["endgame", "C3 C2 L4"], None, "component 'C2': a chain needs at least 3 boxes");
    refused(&["endgame", "C3 L5"], None, "component 'L5': a loop needs an even number of boxes, at least 4");
    refused(&["endgame", "C3 L2"], None, "component 'L2'");
    refused(&["endgame", "C3 X4"], None, "component 'X4' is not C<k>");
    refused(&["endgame", "C3 C"], None, "component 'C' is not C<k>");
    refused(&["endgame", "C3 L4x"], None, "component 'L4x'");
    // Too long: the limit named with what was typed, even past what a u64 holds.
    for typed in ["C4000000000", "C99999999999999999999", "L1000002"] {
        let message = format!("component '{typed}' is too long: a chain or a loop has at most 1000000 boxes");
        refused(&["endgame", typed], None, &message);
    }
    refused(&["endgame", "X4000000000"], None, "component 'X4000000000' is not C<k>");
    refused(&["endgame", " "], None, "the component list is empty");
    refused(&["endgame"], None, "required");
}

#[test]
fn positions_that_are_not_loops_and_chains_name_the_obstacle() {
    refused(&["endgame", "--position", "-"], Some("+ +\n\n+ +\n"), "a box with 4 undrawn sides at (0,0)");
    refused(&["endgame", "--position", "-"], Some("+-+\n\n+ +\n"), "a box with 3 undrawn sides at (0,0)");
    refused(&["endgame", "--position", "-"], Some("+-+\n| |\n+ +\n"), "a box with 3 drawn sides at (0,0)");
    refused(&["endgame", "--position", "-"], Some("+-+ +-+\n    | |\n+-+-+-+\n"), "a chain of 2 boxes at (0,0) (0,1)");
    refused(&["endgame", "--position", "-"], Some("+-+-+\n    |\n+-+-+\n"), "a box with 3 drawn sides at (0,1)");
    refused(&["endgame", "--position", "-"], Some("+-+\n  |\n+ +\n"), "a chain of 1 box at (0,0)");
    refused(&["endgame", "--position", "no/such/file.txt"], None, "cannot read position file");
}

#[test]
fn the_command_answers_lists_and_positions() {
    let v = json_out(&["endgame", "C3 C3 L4 L8", "--json"], None);
    assert_eq!(v["component_list"], "C3 C3 L4 L8");
    assert_eq!(v["controlled_value"], 0);
    assert_eq!((v["v"].as_i64(), v["value"].as_i64()), (Some(0), Some(0)));
    assert_eq!(v["open"], "L4");
    assert_eq!(v["opened"][0]["component"], "C3");
    assert!(v["convention"].as_str().unwrap().contains("value = -v"));
    dab().args(["endgame", "C3 L4 L8"]).assert().success().stdout(
        predicate::str::contains("value v(G) = 1 (Theorem 4.1(3a)")
            .and(predicate::str::contains("open L4"))
            .and(predicate::str::contains("player to move (the opener): -1")),
    );
    // Eight 3-chains on 3x8: 32 undrawn lines, answered without solving.
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/src/bench/data/eight-3-chains-3x8.txt");
    let v = json_out(&["endgame", "--position", file, "--json"], None);
    assert_eq!(v["endgame"]["component_list"], "C3 C3 C3 C3 C3 C3 C3 C3");
    assert_eq!(v["value"], -2);
    assert_eq!(v["moves"].as_array().unwrap().len(), 32);
    assert_eq!(v["play"], "h(0,1)");
    // In text, the value once: the value format's line, not the list's line as well.
    let out = dab().args(["endgame", "--position", file]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert_eq!(text.matches("value -2 ").count(), 1, "{text}");
    assert!(!text.contains("player to move (the opener)"), "{text}");
}
