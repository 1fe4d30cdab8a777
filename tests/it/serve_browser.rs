//! The analysis board in a real headless browser (Debian's chromium, driven over WebDriver by
//! chromedriver): lines clicked on 3x3 show the values `dab hint` gives, a box completed keeps
//! the turn, undo, dab answering with a best move, a 4x4 position from a store's book, and a game
//! reviewed: its moves' losses listed, its mistakes marked on the board, stepped through; and the
//! board as a player reads it: loony and box-completing moves marked, colours by boxes lost, the
//! Nimstring value and the long chains, a pasted littlegolem record played.
//! Skipped, with the reason printed, where chromium or chromedriver is not installed, except
//! under `CI=true`, where that fails.
//! `DAB_SCREENSHOT=reports/serve-4x4.png cargo test --release --test it serve_browser::` also saves
//! the page on the 4x4 position (the README's picture); `DAB_REVIEW_SCREENSHOT=FILE` the page of
//! a reviewed 2x2 game, a mistake played; `DAB_PLAYER_SCREENSHOT=FILE` a 3x3 position with its
//! loony and box-completing moves marked, the legend and the Nimstring value.

use crate::serve_common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use dab::bench::serve::{BOOK_4X4, CHROMIUM};
use serve_common::{Served, agent, hint};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A chromedriver with one headless chromium session, both ended when dropped.
struct Browser {
    driver: Child,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// None, with the reason printed, where the browser or its driver is missing.
    fn start(width: u32, height: u32) -> Option<Browser> {
        for path in [CHROMIUM, CHROMEDRIVER] {
            if !Path::new(path).exists() {
                // CI installs both (.ci/run): there a missing browser is a failure, not a skip.
                assert!(
                    std::env::var("CI").map_or(true, |v| v != "true"),
                    "{path} is not installed, and CI=true requires the browser tests to run"
                );
                eprintln!("skipped: {path} is not installed (apt-get install chromium chromium-driver)");
                return None;
            }
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let profile = tempfile::tempdir().unwrap();
        let mut browser = Browser { driver, session: format!("http://127.0.0.1:{port}/session"), _profile: profile };
        let ready = Instant::now();
        while agent().get(&format!("http://127.0.0.1:{port}/status")).call().is_err() {
            assert!(ready.elapsed() < Duration::from_secs(30), "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                format!("--window-size={width},{height}"),
                format!("--user-data-dir={}", browser._profile.path().display()),
            ]}
        }}});
        let created = browser.call("POST", "", Some(caps));
        let id = created["sessionId"].as_str().unwrap_or_else(|| panic!("no session: {created}")).to_string();
        browser.session = format!("{}/{id}", browser.session);
        Some(browser)
    }

    /// A WebDriver command; its `value`.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.session);
        let mut response = match (method, body) {
            ("GET", _) => agent().get(&url).call(),
            ("DELETE", _) => agent().delete(&url).call(),
            (_, body) => agent().post(&url).send_json(body.unwrap_or(json!({}))),
        }
        .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
        let status = response.status().as_u16();
        let v: Value = response.body_mut().read_json().expect("JSON from chromedriver");
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    fn script(&self, js: &str) -> Value {
        self.call("POST", "/execute/sync", Some(json!({ "script": js, "args": [] })))
    }

    /// A real click (the browser's pointer, at the element's centre) on the element `css`.
    fn click(&self, css: &str) {
        let found = self.call("POST", "/element", Some(json!({ "using": "css selector", "value": css })));
        let id = found.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).expect("an element");
        self.call("POST", &format!("/element/{id}/click"), None);
    }

    /// Waits until the page shows the answer for `lines`.
    fn answered(&self, lines: &str) {
        let start = Instant::now();
        loop {
            let s = self.script("const s = document.getElementById('status'); return [s.dataset.state, s.dataset.root || '', document.getElementById('message').textContent];");
            if s[0] == "ready" && s[1] == lines {
                return;
            }
            assert!(s[0] != "error", "the page says: {}", s[2]);
            assert!(start.elapsed() < Duration::from_secs(60), "no answer for {lines} on the page: {s}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The values shown on the board (line index to text) and the lines marked best.
    fn shown(&self) -> (BTreeMap<u64, String>, Vec<u64>) {
        let v = self.script(
            "return [Array.from(document.querySelectorAll('text.value')).map(t => [Number(t.dataset.line), t.textContent]), \
             Array.from(document.querySelectorAll('line.undrawn.best')).map(l => Number(l.dataset.line))];",
        );
        let values = v[0]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_u64().unwrap(), p[1].as_str().unwrap().to_string()))
            .collect();
        let mut best: Vec<u64> = v[1].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
        best.sort_unstable();
        (values, best)
    }

    fn text(&self, id: &str) -> String {
        self.script(&format!("return document.getElementById('{id}').textContent;")).as_str().unwrap().to_string()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if self.session.rsplit('/').next() != Some("session") {
            let _ = agent().delete(&self.session).call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// What `dab hint` says the page should show: every undrawn line's value as the page writes
/// it, and the best lines.
fn expected(answer: &Value) -> (BTreeMap<u64, String>, Vec<u64>) {
    let best: Vec<&str> = answer["best"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    let moves = answer["moves"].as_array().unwrap();
    let text = |v: i64| if v > 0 { format!("+{v}") } else { v.to_string() };
    let values = moves.iter().map(|m| (m["index"].as_u64().unwrap(), text(m["value"].as_i64().unwrap()))).collect();
    let mut lines: Vec<u64> = moves
        .iter()
        .filter(|m| best.contains(&m["line"].as_str().unwrap()))
        .map(|m| m["index"].as_u64().unwrap())
        .collect();
    lines.sort_unstable();
    (values, lines)
}

fn drawn(lines: &str, line: usize) -> String {
    let mut b = lines.as_bytes().to_vec();
    b[line] = b'1';
    String::from_utf8(b).unwrap()
}

#[test]
fn lines_clicked_on_3x3_show_the_values_dab_hint_gives_and_the_game_keeps_its_turns() {
    // Tall enough that the moves' box is on the screen, where a pointer can click it.
    let Some(browser) = Browser::start(1200, 1600) else { return };
    let served = Served::start(&["--threads", "1"]);
    let mut lines = "0".repeat(24);
    browser.goto(&format!("{}?board=3x3", served.url));
    browser.answered(&lines);
    assert_eq!(browser.shown(), expected(&hint("3x3", &lines)));
    assert_eq!(browser.text("turn"), "A to move");
    // The sides of the top-left box, h(0,0), h(1,0), v(0,0), v(0,1), by A, B, A, B: B
    // completes it and moves again; then a line elsewhere, v(2,3).
    for (line, turn) in [(0, "B to move"), (3, "A to move"), (12, "B to move"), (13, "B to move"), (23, "A to move")] {
        browser.click(&format!("rect.hit[data-line='{line}']"));
        lines = drawn(&lines, line);
        browser.answered(&lines);
        assert_eq!(browser.shown(), expected(&hint("3x3", &lines)), "after line {line}");
        assert_eq!(browser.text("turn"), turn, "after line {line}");
    }
    assert!(browser.text("score").starts_with("score: A 0, B 1; 8 left"), "{}", browser.text("score"));
    let value = hint("3x3", &lines)["value"].as_i64().unwrap();
    assert!(browser.text("verdict").starts_with(&format!("value {}{value} for A", if value > 0 { "+" } else { "" })));
    // Undo takes back v(2,3): B to move again, the values of that position.
    browser.click("#undo");
    lines.replace_range(23..24, "0");
    browser.answered(&lines);
    assert_eq!(browser.shown(), expected(&hint("3x3", &lines)));
    assert_eq!(browser.text("turn"), "B to move");
    assert_eq!(browser.script("return document.getElementById('lines-out').value;"), lines.as_str());
    // Redo plays v(2,3) again; the game's moves are listed in dab's notation.
    browser.click("#redo");
    lines = drawn(&lines, 23);
    browser.answered(&lines);
    assert_eq!(browser.text("turn"), "A to move");
    let moves = browser.script("return document.getElementById('moves-out').value;");
    assert_eq!(moves, "h(0,0) h(1,0) v(0,0) v(0,1) v(2,3)");
    // A move list played from the position shown; a name that is no undrawn line is named.
    browser.script("document.getElementById('moves-in').value = 'h(3,2), h(3, 1)';");
    browser.click("#play-moves");

    lines = drawn(&drawn(&lines, 11), 10);
    browser.answered(&lines);
    browser.script("document.getElementById('moves-in').value = 'h(3,2)';");
    browser.click("#play-moves");
    let said = browser.text("moves-message");
    assert!(said.contains("move 'h(3,2)' is drawn already"), "{said}");
    // The same game as a littlegolem record: dots a.. from the left, 1.. from the bottom, a
    // turn's moves after a completed box joined by commas.
    let record = browser.script("return document.getElementById('golem-out').value;");
    assert_eq!(record, "1. a4-b4 2. a3-b3 3. a3-a4 4. b3-b4, d1-d2 5. c1-d1 6. b1-c1");
    // A record read back: move numbers skipped, dots in either order, with or without the dash;
    // v(2,0) is a1-a2, and a1-c1 joins no neighbours.
    browser.script("document.getElementById('moves-in').value = '7. a2a1 8. a1-c1';");
    browser.click("#play-moves");
    lines = drawn(&lines, 20);
    browser.answered(&lines);
    let said = browser.text("moves-message");
    assert!(said.contains("move 'a1-c1' is no line of this board"), "{said}");
    let record = browser.script("return document.getElementById('golem-out').value;");
    assert!(record.as_str().is_some_and(|r| r.ends_with(" 6. b1-c1 7. a1-a2")), "{record}");
    // The dots named as littlegolem names them, letters from the left and numbers from the
    // bottom; dab's rows and columns of dots beside them, 0..3 across and down.
    let coords = |class: &str| {
        browser.script(&format!(
            "return Array.from(document.querySelectorAll('text.coord.{class}')).map(t => t.textContent).join(' ');"
        ))
    };
    assert_eq!(coords("golem"), "a b c d 4 3 2 1");
    assert_eq!(coords("dab"), "0 1 2 3 0 1 2 3");
}

#[test]
fn a_long_analysis_shows_its_time_and_can_be_cancelled() {
    let Some(browser) = Browser::start(1200, 900) else { return };
    let served = Served::start(&["--threads", "1"]);
    // The empty 5x5 by the search takes minutes: the page counts the seconds, then Cancel.
    browser.goto(&format!("{}?board=5x5", served.url));
    browser
        .script("document.getElementById('engine').value = 'search'; document.getElementById('seconds').value = '60';");
    browser.click("#again");
    std::thread::sleep(Duration::from_millis(1500));
    let message = browser.text("message");
    assert!(message.starts_with("analysing... ") && message.ends_with("s of the 60 s limit"), "{message}");
    assert_eq!(browser.script("return document.getElementById('cancel').hidden;"), false);
    browser.click("#cancel");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        browser.text("message").starts_with("cancelled: the server stops the analysis"),
        "{}",
        browser.text("message")
    );
    assert_eq!(browser.script("return document.getElementById('cancel').hidden;"), true);
}

#[test]
fn dab_answers_a_move_with_one_of_its_best() {
    let Some(browser) = Browser::start(1200, 900) else { return };
    let served = Served::start(&["--threads", "1"]);
    let empty = "0".repeat(12);
    browser.goto(&format!("{}?board=2x2&dab=1", served.url));
    browser.answered(&empty);
    browser.click("rect.hit[data-line='5']");
    let after_you = drawn(&empty, 5);
    let best: Vec<u64> = expected(&hint("2x2", &after_you)).1;
    let start = Instant::now();
    let now = loop {
        let now = browser.script("return document.getElementById('lines-out').value;").as_str().unwrap().to_string();
        if now.matches('1').count() == 2 {
            break now;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "dab did not move: {now}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let dabs = now.bytes().enumerate().find(|&(i, b)| b == b'1' && i != 5).unwrap().0 as u64;
    assert!(best.contains(&dabs), "dab drew line {dabs}, not one of the best {best:?}");
    browser.answered(&now);
    assert_eq!(browser.text("turn"), "you to move");
}

#[test]
fn a_4x4_position_from_a_stores_book_shows_its_values_and_source() {
    let Some(browser) = Browser::start(1000, 760) else { return };
    let store = tempfile::tempdir().unwrap();
    let st = store.path().to_str().unwrap();
    let solved = Command::new(env!("CARGO_BIN_EXE_dab"))
        .args(["solve", "4x4", "--lines", BOOK_4X4, "--store", st])
        .output()
        .unwrap();
    assert!(solved.status.success(), "{}", String::from_utf8_lossy(&solved.stderr));
    let served = Served::start(&["--store", st]);
    browser.goto(&format!("{}?board=4x4&lines={BOOK_4X4}", served.url));
    browser.answered(BOOK_4X4);
    assert_eq!(browser.shown(), expected(&hint("4x4", BOOK_4X4)));
    assert!(browser.text("source").starts_with("answered by the store's book in "), "{}", browser.text("source"));
    if let Ok(path) = std::env::var("DAB_SCREENSHOT") {
        let shot = browser.call("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD.decode(shot.as_str().unwrap()).unwrap();
        std::fs::write(&path, png).unwrap();
        eprintln!("wrote {path}");
    }
}

#[test]
fn the_empty_8x8_shows_a_suggested_move_and_what_is_out_of_reach_instead_of_a_refusal() {
    let Some(browser) = Browser::start(1200, 900) else { return };
    let served = Served::start(&["--threads", "1"]);
    let empty = "0".repeat(144);
    browser.goto(&format!("{}?board=8x8&seconds=2", served.url));
    browser.answered(&empty);
    let (values, best) = browser.shown();
    assert!(values.is_empty(), "no value is known on the empty 8x8: {values:?}");
    assert_eq!(best.len(), 1, "one suggested line is marked");
    let verdict = browser.text("verdict");
    assert!(verdict.starts_with("suggested ") && verdict.contains("by rules: safe; not proven best"), "{verdict}");
    let why = browser.text("best");
    assert!(why.contains("the Nimstring calculator is out of reach (a region of 144 undrawn lines)"), "{why}");
    assert!(browser.text("source").contains("rules"), "{}", browser.text("source"));
}

#[test]
fn the_empty_4x4_shows_the_opening_book_s_move_as_proven_best() {
    let Some(browser) = Browser::start(1200, 900) else { return };
    let served = Served::start(&["--threads", "1"]);
    let empty = "0".repeat(40);
    browser.goto(&format!("{}?board=4x4&seconds=2", served.url));
    browser.answered(&empty);
    let (values, best) = browser.shown();
    assert!(values.is_empty(), "the book keeps one move, no values: {values:?}");
    assert_eq!(best.len(), 1, "the book's line is marked");
    let book = hint("4x4", &empty);
    assert_eq!(book["engine"], "book");
    let verdict = browser.text("verdict");
    let expected = format!("best {} for A (from the opening book; proven best)", book["best"][0].as_str().unwrap());
    assert_eq!(verdict, expected);
    assert!(browser.text("best").contains("the position's value is 0"), "{}", browser.text("best"));
    assert!(browser.text("source").contains("book"), "{}", browser.text("source"));
}

#[test]
fn a_game_reviewed_on_the_page_lists_each_move_s_loss_marks_its_mistakes_and_steps_through() {
    // Tall enough that the review's buttons are on the screen.
    let Some(browser) = Browser::start(1200, 2400) else { return };
    let served = Served::start(&["--threads", "1"]);
    browser.goto(&format!("{}?board=2x2&seconds=2", served.url));
    browser.answered(&"0".repeat(12));
    // A whole 2x2 game, the lines in order, played from the Moves box.
    let board: dab::game::Board = "2x2".parse().unwrap();
    let game: Vec<String> = (0..12).map(|l| l.to_string()).collect();
    let names: Vec<String> = (0..12).map(|l| board.line_name(dab::game::Line(l))).collect();
    browser.script(&format!("document.getElementById('moves-in').value = '{}';", names.join(" ")));
    browser.click("#play-moves");
    browser.click("#review");
    let start = Instant::now();
    let items = loop {
        let items = browser.script(
            "return Array.from(document.querySelectorAll('#review-list li')).map(li => [li.textContent, li.className]);",
        );
        if items.as_array().is_some_and(|a| a.len() == 12) {
            break items;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no review: {}", browser.text("review-message"));
        std::thread::sleep(Duration::from_millis(50));
    };
    let query = format!("{}api/review?board=2x2&moves={}", served.url, game.join("+"));
    let (status, body) = serve_common::get(&query);
    assert_eq!(status, 200, "{body}");
    let review: Value = serde_json::from_str(&body).unwrap();
    let mistakes: Vec<u64> =
        review["mistakes"].as_array().unwrap().iter().map(|m| m["number"].as_u64().unwrap()).collect();
    assert!(!mistakes.is_empty(), "lines in order make mistakes on 2x2: {review}");
    for (k, (item, m)) in items.as_array().unwrap().iter().zip(review["moves"].as_array().unwrap()).enumerate() {
        let text = item[0].as_str().unwrap();
        assert!(
            text.starts_with(&format!("{} {} ", m["player"].as_str().unwrap(), m["line"].as_str().unwrap())),
            "{text}"
        );
        assert!(text.contains(&format!("lost {}", m["lost"])), "{text} {m}");
        let marked = item[1].as_str().unwrap().contains("mistake");
        assert_eq!(marked, mistakes.contains(&(k as u64 + 1)), "move {}: {item}", k + 1);
    }
    assert!(browser.text("review-message").contains("Mistakes: move "), "{}", browser.text("review-message"));
    // The board goes back to the start, the first move dashed with its loss; Next steps on.
    let next = "const l = document.querySelector('line.review-next'); const t = document.querySelector('text.review-lost'); \
                return [l ? Number(l.dataset.line) : -1, t ? t.textContent : ''];";
    browser.answered(&"0".repeat(12));
    let lost = |k: usize| review["moves"][k]["lost"].as_i64().unwrap();
    let mark = |k: usize| if lost(k) > 0 { format!("-{}", lost(k)) } else { "ok".into() };
    assert_eq!(browser.script(next), serde_json::json!([0, mark(0)]));
    browser.click("#review-next");
    browser.answered(&format!("1{}", "0".repeat(11)));
    assert_eq!(browser.script(next), serde_json::json!([1, mark(1)]));
    // A mistake already played is marked on the board in red: the move after it clicked in
    // the list shows the position before that move.
    let first = *mistakes.iter().find(|&&n| n < 11).unwrap_or_else(|| panic!("{review}")) as usize;
    browser.script(&format!("document.querySelectorAll('#review-list li')[{first}].click();"));
    let drawn: String = (0..12).map(|l| if l < first { '1' } else { '0' }).collect();
    browser.answered(&drawn);
    let red = browser.script(
        "return Array.from(document.querySelectorAll('line.review-mistake')).map(l => Number(l.dataset.line));",
    );
    assert_eq!(red, serde_json::json!([first - 1]));
    if let Ok(path) = std::env::var("DAB_REVIEW_SCREENSHOT") {
        let shot = browser.call("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD.decode(shot.as_str().unwrap()).unwrap();
        std::fs::write(&path, png).unwrap();
        eprintln!("wrote {path}");
    }
    browser.click("#review-back");
    let back: String = (0..12).map(|l| if l + 1 < first { '1' } else { '0' }).collect();
    browser.answered(&back);
    assert_eq!(browser.script(next), serde_json::json!([first - 1, mark(first - 1)]));
}

#[test]
fn a_board_wider_than_25_columns_has_littlegolem_names_past_z_both_ways() {
    // Tall enough that the moves' box is on the screen, where a pointer can click it.
    let Some(browser) = Browser::start(1200, 1600) else { return };
    let served = Served::start(&["--threads", "1"]);
    // The page's own sizes go to 16; a pasted position's art names any board.
    browser.goto(&format!("{}?board=2x2&seconds=1", served.url));
    let dots = format!("{}+", "+ ".repeat(30));
    browser.script(&format!("document.getElementById('paste').value = {};", json!(format!("{dots}\n\n{dots}\n"))));
    browser.click("#load");
    let start = Instant::now();
    while browser.script("return typeof S !== 'undefined' && S.cols === 30;") != json!(true) {
        assert!(start.elapsed() < Duration::from_secs(30), "the 1x30 board never showed");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Dots past z are aa, ab, ...: the 28th and 29th columns of dots are ab and ac. (They were
    // '|' and '}', past the alphabet.)
    browser.script("document.getElementById('moves-in').value = 'h(0,27) h(1,29) v(0,28)';");
    browser.click("#play-moves");
    let record = browser.script("return document.getElementById('golem-out').value;");
    assert_eq!(record, "1. ab2-ac2 2. ad1-ae1 3. ac1-ac2");
    // Read back: two letters a dot, with or without the dash.
    browser.script("document.getElementById('moves-in').value = '4. ac2ad2 5. z1-aa1';");
    browser.click("#play-moves");
    let record = browser.script("return document.getElementById('golem-out').value;");
    assert_eq!(record, "1. ab2-ac2 2. ad1-ae1 3. ac1-ac2 4. ac2-ad2 5. z1-aa1");
    assert_eq!(browser.text("moves-message"), "");
}

/// Waits until `js` returns something other than `not`; returns it.
fn until(browser: &Browser, js: &str, not: &Value) -> Value {
    let start = Instant::now();
    loop {
        let v = browser.script(js);
        if v != *not {
            return v;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "still {not} from {js}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_board_marks_loony_and_box_completing_moves_colours_by_boxes_lost_and_shows_control() {
    let Some(browser) = Browser::start(1200, 1800) else { return };
    let served = Served::start(&["--threads", "1"]);
    // 3x3 with boxes to take, loony moves, and moves 6 and 12 boxes worse.
    let lines = "110101111110110001000111";
    browser.goto(&format!("{}?board=3x3&lines={lines}", served.url));
    browser.answered(lines);
    let answer = hint("3x3", lines);
    let moves = answer["moves"].as_array().unwrap();
    let of = |keep: &dyn Fn(&Value) -> bool| -> Vec<u64> {
        moves.iter().filter(|m| keep(m)).map(|m| m["index"].as_u64().unwrap()).collect()
    };
    let marked = |css: &str| {
        let v = browser.script(&format!(
            "return [...new Set(Array.from(document.querySelectorAll('{css}')).map(e => Number(e.dataset.line)))].sort((a, b) => a - b);"
        ));
        v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect::<Vec<u64>>()
    };
    let loony = of(&|m| m["loony"] == true);
    let completes = of(&|m| m["boxes"].as_u64() > Some(0));
    assert!(!loony.is_empty() && !completes.is_empty(), "{answer}");
    assert_eq!(marked("#board line.undrawn.loony"), loony);
    assert_eq!(marked("#board rect.completes"), completes);
    // Colours by the boxes a move loses against the best, not by the spread: best green (hue
    // 125), and a move 4 or more worse red (hue 0) whatever else the board holds.
    let hues = browser.script(
        "return Array.from(document.querySelectorAll('text.value')).map(t => [Number(t.dataset.line), Number(t.dataset.lost), parseInt(t.getAttribute('fill').slice(4))]);",
    );
    let value = answer["value"].as_i64().unwrap();
    let mut worst = 0;
    for h in hues.as_array().unwrap() {
        let m = moves.iter().find(|m| m["index"] == h[0]).unwrap();
        let lost = value - m["value"].as_i64().unwrap();
        assert_eq!(h[1].as_i64(), Some(lost), "{h}");
        let hue = h[2].as_i64().unwrap();
        match lost {
            0 => assert_eq!(hue, 125, "{h}"),
            4.. => assert_eq!(hue, 0, "{h}"),
            _ => assert!(hue > 0 && hue < 125, "{h}"),
        }
        worst = worst.max(lost);
    }
    assert!(worst >= 4, "a move 4 boxes worse is on the board: {answer}");
    let legend = browser.text("legend");
    assert!(legend.contains("a loony move: it offers boxes") && legend.contains("4 or more"), "{legend}");

    // 2x5 with every horizontal drawn: two chains of five, two regions of Nimstring value 0.
    let rows = format!("{}{}", "1".repeat(15), "0".repeat(12));
    browser.goto(&format!("{}?board=2x5&lines={rows}", served.url));
    browser.answered(&rows);
    let nim =
        until(&browser, "return document.getElementById('nimstring').textContent;", &json!("Nimstring: valuing..."));
    assert_eq!(nim, "Nimstring 0 + 0 = 0: A cannot win control: every move leaves a Nimstring win to B");
    let chains = until(&browser, "return document.getElementById('chains').textContent;", &json!(""));
    assert_eq!(
        chains,
        "long chains: 2 now; for control A wants an odd number at the end, B an even one (the long chain rule)"
    );

    // Every move best: said in one line.
    browser.goto(&format!("{}?board=1x1", served.url));
    browser.answered("0000");
    let best = browser.text("best");
    assert!(best.starts_with("best: any move (all 4 are worth -1)"), "{best}");

    // A littlegolem record pasted as a position is played as moves from the empty board.
    browser.goto(&format!("{}?board=3x3", served.url));
    browser.answered(&"0".repeat(24));
    browser.script("document.getElementById('paste').value = '1. a1-b1 2. b1-c1';");
    browser.click("#load");
    let record = until(&browser, "return document.getElementById('golem-out').value;", &json!(""));
    assert_eq!(record, "1. a1-b1 2. b1-c1");
    let said = browser.text("paste-message");
    assert!(said.starts_with("read as a littlegolem record (a game's moves, not a position)"), "{said}");

    if let Ok(path) = std::env::var("DAB_PLAYER_SCREENSHOT") {
        browser.goto(&format!("{}?board=3x3&lines={lines}", served.url));
        browser.answered(lines);
        until(&browser, "return document.getElementById('nimstring').textContent;", &json!("Nimstring: valuing..."));
        let shot = browser.call("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD.decode(shot.as_str().unwrap()).unwrap();
        std::fs::write(&path, png).unwrap();
        eprintln!("wrote {path}");
    }
}
