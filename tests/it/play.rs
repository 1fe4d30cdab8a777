//! `dab play` driven through stdin, and `dab hint` from each of its sources.

use crate::common;

use common::{dab, json_out, refused};
use predicates::prelude::*;

use dab::answer::play::{Game, Player};
use dab::exec::solve;
use dab::game::{Board, Line, Position};
use dab::solver::SolveOptions;

/// Plays a game in the library: the player always draws the highest undrawn line, the opponent
/// the lowest of the solver's best moves. Returns the player's moves and dab's, and the score.
fn expected_game(start: Position, first: Player) -> (Vec<Line>, Vec<Line>, (usize, usize)) {
    let mut game = Game::from(start, first);
    let (mut yours, mut dabs) = (Vec::new(), Vec::new());
    while !game.is_over() {
        if game.to_move == Player::You {
            let line = game.pos.undrawn().iter().last().unwrap();
            yours.push(line);
            game.play(line);
        } else {
            let s = solve(game.pos, SolveOptions::default()).unwrap();
            let line = s.best()[0];
            dabs.push(line);
            game.play(line);
        }
    }
    (yours, dabs, game.score())
}

fn check_whole_game(size: &str, first: Player, extra: &[&str]) {
    let board: Board = size.parse().unwrap();
    check_game_from(Position::empty(board), &[size], first, extra);
}

/// [`check_whole_game`] from `start`, named to `dab play` by `position`.
fn check_game_from(start: Position, position: &[&str], first: Player, extra: &[&str]) {
    let board = start.board;
    let (yours, dabs, (you, dab_score)) = expected_game(start, first);
    // Moves typed alternately by name and by number.
    let input: String = yours
        .iter()
        .enumerate()
        .map(|(i, &l)| if i % 2 == 0 { board.line_name(l) } else { l.0.to_string() } + "\n")
        .collect();
    let out =
        dab().arg("play").args(position).args(["--threads", "1"]).args(extra).write_stdin(input).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let played: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("dab draws "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    let expected: Vec<String> = dabs.iter().map(|&l| board.line_name(l)).collect();
    assert_eq!(played, expected, "dab's moves");
    assert_eq!(text.matches("you draw ").count(), yours.len());
    assert!(text.contains(&format!("game over: you {you}, dab {dab_score}")), "{text}");
}

#[test]
fn whole_games_end_with_the_score_perfect_play_gives() {
    check_whole_game("3x3", Player::You, &[]);
    check_whole_game("2x2", Player::Dab, &["--first", "dab"]);
    check_whole_game("2x3", Player::You, &["--first", "you"]);
    // The same game with the values read from a store instead of solved.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    dab().args(["solve", "2x3", "--quiet", "--store", store.to_str().unwrap()]).assert().success();
    check_whole_game("2x3", Player::Dab, &["--first", "dab", "--store", store.to_str().unwrap()]);
}

#[test]
fn games_from_positions_of_wide_boards() {
    // 16x16 with 20 undrawn lines: one solve of the start, every value from it.
    let b: Board = "16x16".parse().unwrap();
    let mut rng = common::Rng(16);
    let start = common::random_position(b, 20, &mut rng);
    let lines = start.to_line_string();
    check_game_from(start, &["16x16", "--lines", &lines], Player::Dab, &["--first", "dab"]);
    // Allcock's example 1.2 on 5x6 (32 undrawn lines): the theorems choose dab's first move.
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/src/bench/data/allcock-example-1.2-5x6.txt");
    let out = dab().args(["play", "--position", file, "--first", "dab"]).write_stdin("quit\n").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("from a position with 32 undrawn lines"), "{text}");
    assert!(text.contains("dab draws h(0,0) (horizontal line 0) (by the endgame theorems)"), "{text}");
    let out = dab()
        .args(["play", "16x16", "--first", "dab", "--seconds", "1"])
        .write_stdin("hint\nquit\n")
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("(by rules: safe)"), "{text}");
    assert!(
        text.contains("hint for you, the player to move:\nsuggested ")
            && text.contains("(by rules: safe; not proven best)"),
        "{text}"
    );
    refused(&["play", "3x5", "--engine", "partition"], None, "38 undrawn lines; play solves positions of at most 31");
}

/// Text without its timings: each `source:` line up to its seconds.
fn untimed(text: &str) -> String {
    text.lines()
        .map(|l| if l.starts_with("source: ") { l.split(" (").next().unwrap() } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn play_s_hint_prints_what_dab_hint_prints_loony_marks_and_the_next_loony_move_included() {
    // Positions with loony moves among their moves; the first has a box to take.
    for lines in ["110100100000", "111000011000"] {
        let out = dab().args(["hint", "2x2", "--lines", lines, "--threads", "1"]).assert().success();
        let hint = untimed(&String::from_utf8(out.get_output().stdout.clone()).unwrap());
        assert!(hint.contains("  loony") || hint.contains("completes"), "{hint}");
        assert!(hint.contains("\nnext loony move: "), "{hint}");
        let out = dab()
            .args(["play", "2x2", "--lines", lines, "--threads", "1"])
            .write_stdin("hint\nquit\n")
            .assert()
            .success();
        let text = untimed(&String::from_utf8(out.get_output().stdout.clone()).unwrap());
        let shown = text.split("hint for you, the player to move:\n").nth(1).expect("a hint");
        assert!(shown.starts_with(&hint), "play's hint:\n{shown}\ndab hint:\n{hint}");
    }
}

#[test]
fn illegal_moves_are_refused_and_undo_goes_back_to_the_previous_move() {
    let input = "hint\nh(0,0)\nh(0,0)\nh(3,0)\n12\nv(1,)\nplease\nundo\nundo\nv(0,0)\nquit\nh(2,1)\n";
    let out = dab().args(["play", "2x2", "--threads", "1"]).write_stdin(input).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for expected in [
        "hint for you, the player to move:\nvalue +2 (net future boxes for the player to move)\nbest h(0,0) h(0,1)",
        "you draw h(0,0) (horizontal line 0)",
        "dab draws h(0,1) (horizontal line 1)",
        "refused: h(0,0) (line 0) is already drawn",
        "refused: no such line: h(3,0) (board 2x2 has h(r,c) for r 0..=2, c 0..=1",
        "refused: no such line: 12 (board 2x2 has lines 0 to 11)",
        "refused: cannot read 'v(1,)'",
        "refused: cannot read 'please'",
        "undone: back to before your last move\nh col    0 1\nv col   0 1 2\nh row 0 + + +\nv row 0\nh row 1 + + +\nv row 1\nh row 2 + + +\nyou 0, dab 0; your move",
        "nothing to undo: you have not moved yet",
        "you draw v(0,0) (vertical line 6)",
        "you quit at you 0, dab 0",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    assert!(!text.contains("h(2,1) ("), "nothing is read after quit");
    // End of input stops the game cleanly.
    dab()
        .args(["play", "2x2", "--first", "dab"])
        .write_stdin("")
        .assert()
        .success()
        .stdout(predicate::str::contains("end of input: the game stops unfinished"));
}

#[test]
fn a_line_that_is_not_utf8_is_refused_and_the_game_goes_on() {
    let input: &[u8] = b"\xff\xfe\nh(0,\xc30)\nh(0,0)\nquit\n";
    let out = dab().args(["play", "2x2", "--threads", "1"]).write_stdin(input).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let refusal = "refused: the line is not UTF-8 text: type a line as h(r,c), v(r,c) or its number (0 to 11)";
    assert_eq!(text.matches(refusal).count(), 2, "{text}");
    assert!(text.contains("you draw h(0,0) (horizontal line 0)"), "{text}");
    assert!(text.contains("you quit at you 0, dab 0"), "{text}");
}

#[test]
fn boxes_show_their_owner_and_bad_boards_are_refused() {
    // 1x1, dab first: dab draws two sides, we draw the other two and take the box.
    let out = dab().args(["play", "1x1", "--first", "dab"]).write_stdin("h(1,0)\nv(0,1)\n").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("you draw v(0,1) (vertical line 3) and take 1\nh col    0\nv col   0 1\nh row 0 +-+\nv row 0 |Y|\nh row 1 +-+\nyou 1, dab 0\n"), "{text}");
    assert!(text.contains("game over: you 1, dab 0: you win by 1"), "{text}");
    // Past one solve of the start, dab advises itself within its budget, by rules where
    // nothing exact fits: no refusal for the board's size.
    let out = dab().args(["play", "5x5", "--first", "dab", "--seconds", "1"]).write_stdin("quit\n").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("against dab (D), 1 s a move: exact where it can be, else by rules"), "{text}");
    assert!(text.contains("(by rules: safe)"), "{text}");
    refused(
        &["play", "4x4", "--engine", "partition"],
        None,
        "(--engine auto or search; --store DIR with a solve that holds it)",
    );
    refused(&["play", "3by3"], None, "not of the form MxN");
    refused(&["play", "2x2", "--first", "nobody"], None, "invalid value 'nobody'");
}

#[test]
fn hints_name_their_source() {
    let solved = json_out(&["hint", "2x2", "--lines", "111100000000", "--json"], None);
    assert_eq!(solved["source"], "solved");
    let truth = json_out(&["solve", "2x2", "--lines", "111100000000", "--json"], None);
    assert_eq!(
        (&solved["value"], &solved["moves"], &solved["best"]),
        (&truth["value"], &truth["moves"], &truth["best"])
    );

    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    dab().args(["solve", "2x2", "--quiet", "--store", store.to_str().unwrap()]).assert().success();
    let stored =
        json_out(&["hint", "2x2", "--lines", "111100000000", "--store", store.to_str().unwrap(), "--json"], None);
    assert_eq!(stored["source"], "store");
    assert_eq!(stored["moves"], truth["moves"]);

    // Eight 3-chains, 32 undrawn lines: the theorems answer at once.
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/src/bench/data/eight-3-chains-3x8.txt");
    let endgame = json_out(&["hint", "--position", file, "--json"], None);
    assert_eq!(endgame["source"], "endgame");
    assert_eq!(endgame["value"], -2);
    dab()
        .args(["hint", "--position", file])
        .assert()
        .success()
        .stdout(predicate::str::contains("value -2 (net future boxes for the player to move)\n"))
        .stdout(predicate::str::contains("source: from the endgame theorems"));

    // auto past what an exact engine does within the budget: a move by rules, saying so.
    let rules = json_out(&["hint", "5x5", "--json"], None);
    assert_eq!(rules["proven"], false);
    assert_eq!(rules["engine"], "rules");
    assert_eq!(rules["rule"], "safe");
    assert_eq!(rules["best"].as_array().unwrap().len(), 1);
    // Not proven, and how far from proof, in a player's words: the undrawn lines from which a
    // game on this board is priced to be proven within the budget.
    let why = rules["why"].as_str().unwrap();
    let said = "not proven: 60 undrawn lines are too deep to prove within 5 s; exact from about ";
    let from: usize = why
        .split(said)
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{rules}"));
    assert!((30..60).contains(&from) && why.contains(&format!("{from} undrawn lines")), "{rules}");
    assert!(!why.contains("priced") && !why.contains("it was given"), "{rules}");
    let exact = json_out(&["hint", "2x2", "--json"], None);
    assert_eq!(exact["proven"], true);
    refused(
        &["hint", "5x5", "--engine", "partition"],
        None,
        "too many to solve in memory (at most 32); the search engine takes up to 64 (--engine search",
    );
    refused(&["hint", "6x6", "--engine", "search"], None, "84 undrawn lines are too many to search (at most 64)");
    let big = dab().args(["hint", "16x16", "--seconds", "1"]).assert().success();
    let text = String::from_utf8(big.get_output().stdout.clone()).unwrap();
    assert!(text.contains("by rules: safe; not proven best"), "{text}");
    assert!(text.contains("the Nimstring calculator is out of reach (a region of 544 undrawn lines)"), "{text}");
    refused(&["hint", "2x2", "--groups", "2"], None, "--store");
}
