//! Opening books: the compiled-in 4x4 book agrees with the search where the book is deepest,
//! `dab hint` and `dab play` answer from it, and `dab book` builds a book from a solve and
//! refuses what it cannot build.

use dab::answer::built_in_book;
use dab::{Line, Position};

use crate::common::{board, dab, json_out, refused};

/// A line of play through the 4x4 book: dab's move from the book, then the opponent's first
/// reply that stays in the book (the book holds an exact opponent's best replies), until dab
/// moves at `drawn` lines (or one fewer); the position where it does.
fn deep_position(first_reply: usize, drawn: u32) -> Position {
    let book = built_in_book(board("4x4")).expect("the 4x4 book is compiled in");
    let mut pos = Position::empty(book.board());
    // dab second from the start when `drawn` is odd: the opponent's line first.
    if drawn % 2 == 1 {
        pos.drawn = pos.drawn.with(Line(first_reply as u16));
    }
    // Stops where dab moves at `drawn` lines, or one fewer after a capture changed the parity.
    while pos.drawn.len() + 1 < drawn {
        let m = book.lookup(pos).expect("a position on the book's line");
        let after = pos.drawn.with(m.line);
        if pos.board.completes(pos.drawn, m.line) > 0 {
            // dab took a box and moves again.
            pos.drawn = after;
            continue;
        }
        // The replies the book holds are the opponent's best ones.
        let replies: Vec<Line> = pos
            .board
            .full()
            .minus(after)
            .iter()
            .filter(|&r| book.lookup(Position { board: pos.board, drawn: after.with(r) }).is_some())
            .collect();
        let reply = *replies.get(first_reply).or(replies.first()).expect("the book holds a reply");
        pos.drawn = after.with(reply);
    }
    pos
}

/// The position's value by the search, value only.
fn searched(pos: Position) -> i64 {
    let out = json_out(
        &[
            "solve",
            "4x4",
            "--lines",
            &pos.to_line_string(),
            "--engine",
            "search",
            "--value-only",
            "--json",
            "--threads",
            "2",
        ],
        None,
    );
    out["value"].as_i64().expect("a value")
}

#[test]
fn the_4x4_book_s_deepest_moves_are_best_by_the_search() {
    let book = built_in_book(board("4x4")).unwrap();
    assert_eq!(book.drawn(), 9);
    // dab first at 8 lines drawn, dab second at 9: the book's last moves, where a wrong one
    // would cost the most.
    for (reply, drawn) in [(3, 8), (5, 9)] {
        let pos = deep_position(reply, drawn);
        let m = book.lookup(pos).expect("in the book");
        let value = searched(pos);
        assert_eq!(i64::from(m.value), value, "the book's value of {}", pos.to_line_string());
        let after = Position { board: pos.board, drawn: pos.drawn.with(m.line) };
        // A box completed: the mover moves again; else the opponent moves next.
        let n = i64::from(pos.board.completes(pos.drawn, m.line));
        let played = if n > 0 { n + searched(after) } else { -searched(after) };
        assert_eq!(played, value, "the book's move in {}", pos.to_line_string());
    }
}

#[test]
fn hint_and_play_answer_the_4x4_opening_from_the_book() {
    let out = json_out(&["hint", "4x4", "--json", "--seconds", "1"], None);
    assert_eq!((out["engine"].as_str(), out["proven"].as_bool()), (Some("book"), Some(true)), "{out}");
    assert_eq!(out["rule"], "opening book");
    assert!(out["why"].as_str().unwrap().contains("value is 0"), "{out}");
    let text =
        String::from_utf8(dab().args(["hint", "4x4", "--seconds", "1"]).assert().success().get_output().stdout.clone())
            .unwrap();
    assert!(text.contains("from the opening book; proven best"), "{text}");
    // dab moves first from the book, then the game ends at once (quit).
    let played =
        dab().args(["play", "4x4", "--first", "dab", "--seconds", "1"]).write_stdin("quit\n").assert().success();
    let text = String::from_utf8(played.get_output().stdout.clone()).unwrap();
    assert!(text.contains("(from the opening book)"), "{text}");
}

#[test]
fn dab_book_builds_a_book_that_hint_cannot_tell_from_the_solve() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("3x3.book");
    let p = path.to_str().unwrap();
    dab().args(["book", "3x3", "--drawn", "4", "-o", p, "-q"]).assert().success();
    let bytes = std::fs::read(&path).unwrap();
    let book = dab::answer::Book::from_bytes(&bytes).unwrap();
    assert_eq!((book.board(), book.drawn()), (board("3x3"), 4));
    // The book's move at the empty board is a best move of dab's exact hint.
    let exact = json_out(&["hint", "3x3", "--engine", "partition", "--json"], None);
    let m = book.lookup(Position::empty(board("3x3"))).unwrap();
    let best: Vec<&str> = exact["best"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    assert!(best.contains(&board("3x3").line_name(m.line).as_str()), "{best:?}");
    assert_eq!(i64::from(m.value), exact["value"].as_i64().unwrap());
    // What cannot be built is refused by name, and the file already there is left whole.
    refused(&["book", "3x3", "--drawn", "30", "-o", p], None, "--drawn 30 is more than the 24 lines of 3x3");
    refused(&["book", "5x5", "-o", p], None, "a book of 5x5 (60 lines) needs --store");
    refused(&["book", "3x3", "--store", dir.path().join("none").to_str().unwrap(), "-o", p], None, "none");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}
