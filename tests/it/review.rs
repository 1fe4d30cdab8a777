//! `dab review` and the web board's `/api/review`: on small boards every move's `lost` equals
//! what the retrograde solver gives (a deliberately bad move loses exactly the boxes it
//! should, and is named among the mistakes), littlegolem's notation reviews the same as dab's,
//! a move that is no undrawn line is refused by its number with exit status 2, a 5x5 opening
//! beyond the budget is labelled not proven with how far it is from proof, and the API answers
//! what the command prints.

use crate::common;
use crate::serve_common;

use dab::answer::{Engine, analyse};
use dab::game::{Board, Line, Position, golem_name};
use dab::solver::SolveOptions;

use common::{dab, json_out, refused};
use serve_common::{Served, get};

/// The value of `pos` and of each move, by the retrograde in memory.
fn solved(pos: Position) -> (i32, Vec<(u16, i32)>) {
    let a = analyse(pos, Engine::Partition, SolveOptions { threads: 1, ..Default::default() }).unwrap();
    (a.value, a.moves.iter().map(|m| (m.index, m.value)).collect())
}

/// A game on `board` from the empty board: a best move (the lowest) at each turn, except the
/// moves numbered in `bad` (from 1), which play the worst; with each move's loss by the solver.
fn game(board: Board, bad: &[usize]) -> Vec<(Line, i32)> {
    let mut pos = Position::empty(board);
    let mut out = Vec::new();
    while !pos.undrawn().is_empty() {
        let (value, moves) = solved(pos);
        let pick = if bad.contains(&(out.len() + 1)) {
            moves.iter().min_by_key(|&&(i, v)| (v, std::cmp::Reverse(i))).unwrap()
        } else {
            moves.iter().find(|&&(_, v)| v == value).unwrap()
        };
        out.push((Line(pick.0), value - pick.1));
        pos = Position { board, drawn: pos.drawn.with(Line(pick.0)) };
    }
    out
}

fn names(board: Board, game: &[(Line, i32)]) -> String {
    game.iter().map(|&(l, _)| board.line_name(l)).collect::<Vec<_>>().join(" ")
}

#[test]
fn every_move_s_loss_is_the_solver_s_and_the_bad_moves_are_named() {
    for (size, bad) in [("2x3", &[3usize, 8][..]), ("3x3", &[2, 9, 15][..])] {
        let board: Board = size.parse().unwrap();
        let game = game(board, bad);
        assert!(bad.iter().any(|&k| game[k - 1].1 > 0), "{size}: a bad move loses boxes");
        let review = json_out(&["review", size, "--moves", &names(board, &game), "--threads", "1", "--json"], None);
        let moves = review["moves"].as_array().unwrap();
        assert_eq!(moves.len(), game.len(), "{size}");
        let mut pos = Position::empty(board);
        for (m, &(line, lost)) in moves.iter().zip(&game) {
            let (value, values) = solved(pos);
            let played = values.iter().find(|&&(i, _)| i == line.0).unwrap().1;
            assert_eq!(m["index"].as_u64(), Some(u64::from(line.0)), "{size}: {m}");
            assert_eq!(m["proven"], true, "{size}: {m}");
            assert_eq!(m["lost"].as_i64(), Some(i64::from(lost)), "{size}: {m}");
            assert_eq!(
                (m["value_before"].as_i64(), m["value"].as_i64()),
                (Some(value.into()), Some(played.into())),
                "{m}"
            );
            pos = Position { board, drawn: pos.drawn.with(line) };
        }
        assert!(review["unproven"].as_array().unwrap().is_empty(), "{review}");
        // The largest loss is among the mistakes, with its loss.
        let worst = (1..=game.len()).max_by_key(|&k| (game[k - 1].1, std::cmp::Reverse(k))).unwrap();
        let named = review["mistakes"].as_array().unwrap();
        let m = named.iter().find(|m| m["number"].as_u64() == Some(worst as u64)).unwrap_or_else(|| panic!("{review}"));
        assert_eq!(m["lost"].as_i64(), Some(i64::from(game[worst - 1].1)));
        assert!(m["why"].as_str().unwrap().starts_with("lost "), "{m}");
        // Best play everywhere else: no other move is named.
        assert!(named.iter().all(|m| bad.contains(&(m["number"].as_u64().unwrap() as usize))), "{review}");
        // The result is the score, which adds up to the boxes.
        let score: Vec<u64> = review["score"].as_array().unwrap().iter().map(|s| s.as_u64().unwrap()).collect();
        assert_eq!(score.iter().sum::<u64>() as usize, board.boxes(), "{review}");
    }
}

#[test]
fn a_littlegolem_record_from_a_file_reviews_as_dab_s_notation_does() {
    let board: Board = "2x3".parse().unwrap();
    let game = game(board, &[4]);
    // Littlegolem's turns: numbered, a player's moves in one turn separated by commas.
    let mut record = String::new();
    let (mut turn, mut pos) = (0, Position::empty(board));
    let mut again = false;
    for &(line, _) in &game {
        if again {
            record.push_str(", ");
        } else {
            turn += 1;
            record.push_str(&format!(" {turn}. "));
        }
        record.push_str(&golem_name(board, line));
        again = board.completes(pos.drawn, line) > 0;
        pos = Position { board, drawn: pos.drawn.with(line) };
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.txt");
    std::fs::write(&file, &record).unwrap();
    let from_file = json_out(&["review", "2x3", "--record", file.to_str().unwrap(), "--json"], None);
    let from_names = json_out(&["review", "2x3", "--moves", &names(board, &game), "--json"], None);
    let strip = |v: &serde_json::Value| {
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["index"].clone(), m["lost"].clone(), m["turn"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&from_file), strip(&from_names));
    // Turns as littlegolem numbers them.
    assert_eq!(from_file["moves"].as_array().unwrap().last().unwrap()["turn"].as_u64(), Some(turn));
    let text = dab().args(["review", "2x3", "--record", file.to_str().unwrap()]).assert().success();
    let text = String::from_utf8(text.get_output().stdout.clone()).unwrap();
    assert!(text.contains("every move proven") && text.contains("result: A "), "{text}");
}

#[test]
fn a_move_that_is_no_undrawn_line_is_refused_by_its_number() {
    let drawn = "--moves: move 2, 'h(0,0)': the line h(0,0) is drawn already";
    refused(&["review", "2x2", "--moves", "h(0,0) h(0,0)"], None, drawn);
    // Drawn in the start position.
    refused(
        &["review", "1x1", "--lines", "1000", "--moves", "a2-b2"],
        None,
        "move 1, 'a2-b2': the line h(0,0) is drawn",
    );
    refused(&["review", "2x2", "--moves", "h(0,0) x9"], None, "move 2, 'x9': not a move in dab's notation");
    refused(&["review", "2x2", "--moves", "v(0,1) h(5,0)"], None, "move 2, 'h(5,0)': no line of the 2x2 board");
    refused(&["review", "2x2", "--moves", "a1-c1"], None, "move 1, 'a1-c1': no line of the 2x2 board");
    refused(&["review", "2x2", "--moves", " 1. "], None, "the record has no moves");
    refused(&["review", "2x2"], None, "--moves");
    refused(&["review", "2x2", "--moves", "0", "--seconds", "0"], None, "not a number of seconds above 0");
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.txt");
    refused(&["review", "2x2", "--record", missing.to_str().unwrap()], None, "cannot read the record");
    let big = dir.path().join("big.txt");
    std::fs::write(&big, "h(0,0) ".repeat(60_000)).unwrap();
    refused(&["review", "2x2", "--record", big.to_str().unwrap()], None, "cannot read the record");
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "1. a1-b1 2. zz").unwrap();
    refused(&["review", "2x2", "--record", bad.to_str().unwrap()], None, "move 2, 'zz'");
}

#[test]
fn a_5x5_opening_beyond_the_budget_is_an_estimate_labelled_with_how_far_it_is_from_proof() {
    // Six safe moves of the empty 5x5 at a fifth of a second a position: nothing is proven,
    // and each move says so, with the undrawn lines from which the board is proven.
    let moves = "h(0,0) h(5,4) v(2,0) v(2,5) h(2,2) h(3,2)";
    let review = json_out(&["review", "5x5", "--moves", moves, "--seconds", "0.2", "--threads", "1", "--json"], None);
    let listed = review["moves"].as_array().unwrap();
    assert_eq!(review["unproven"].as_array().unwrap().len(), 6, "{review}");
    for m in listed {
        assert_eq!(m["proven"], false, "{m}");
        let estimate = m["estimate"].as_str().unwrap();
        assert!(estimate.starts_with("not proven: ") && estimate.contains("exact from about"), "{m}");
        assert!(estimate.contains("estimated: "), "{m}");
        // Safe moves hand out nothing: no box estimated lost.
        assert_eq!(m["lost"].as_i64(), Some(0), "{m}");
        assert!(m["value_before"].is_null(), "{m}");
    }
    let text = dab().args(["review", "5x5", "--moves", moves, "--seconds", "0.2", "--threads", "1"]).assert().success();
    let text = String::from_utf8(text.get_output().stdout.clone()).unwrap();
    assert!(text.contains("not proven: 6 moves (move 1-6)") && text.contains("estimate"), "{text}");
    // A move that hands out boxes where a safe one is left is estimated to lose them.
    let handout = json_out(&["review", "5x5", "--moves", "h(0,0) h(1,0) v(0,0)", "--seconds", "0.2", "--json"], None);
    let third = &handout["moves"][2];
    assert_eq!((third["proven"].as_bool(), third["lost"].as_i64()), (Some(false), Some(1)), "{handout}");
}

#[test]
fn the_api_answers_the_review_dab_review_prints_and_refuses_bad_moves_with_400() {
    let board: Board = "2x3".parse().unwrap();
    let game = game(board, &[5]);
    let served = Served::start(&["--threads", "1"]);
    let numbers: Vec<String> = game.iter().map(|(l, _)| l.0.to_string()).collect();
    let (status, body) = get(&format!("{}api/review?board=2x3&moves={}", served.url, numbers.join("+")));
    assert_eq!(status, 200, "{body}");
    let api: serde_json::Value = serde_json::from_str(&body).unwrap();
    let cli = json_out(&["review", "2x3", "--moves", &names(board, &game), "--json"], None);
    let rows = |v: &serde_json::Value| {
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["line"].clone(), m["lost"].clone(), m["proven"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(rows(&api), rows(&cli));
    assert_eq!(api["mistakes"], cli["mistakes"]);
    let (status, body) = get(&format!("{}api/review?board=2x3&moves=0+0", served.url));
    assert_eq!(status, 400);
    assert!(body.starts_with("moves: move 2, '0': the line h(0,0) is drawn already"), "{body}");
    let (status, body) = get(&format!("{}api/review?board=2x3", served.url));
    assert_eq!((status, body.starts_with("moves: ")), (400, true), "{body}");
    let (status, body) = get(&format!("{}api/review?board=2x3&moves=0+1&seconds=3000", served.url));
    assert_eq!(status, 400);
    assert!(body.contains("pass the longest a request may take"), "{body}");
}
