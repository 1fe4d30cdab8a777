//! `dab serve`'s JSON API end to end, against the real binary on a port it picks: answers equal
//! `dab hint --json`'s, bad input is a one-line HTTP 400, a slow analysis blocks neither a fast
//! one nor other clients and ends at its time limit, a busy port is refused by name, and a
//! store is read without anything written.

mod serve_common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use serve_common::{Served, get, hint, without_time};

/// Positions of every source the hint has, by line string: solved (3x3, 2x3 and 4x4 of at most
/// 26 undrawn lines) and searched (4x4 of 28).
const POSITIONS: [(&str, &str); 5] = [
    ("3x3", "000000000000000000000000"),
    ("2x3", "10000100010010000"),
    ("3x3", "100100001010000001100010"),
    ("4x4", "1100101010010000111011100001000000001101"),
    ("4x4", "0110001001100100010011000010000001001000"),
];

/// 5x5 games of safe moves at 44 undrawn lines (`tests/data/search/5x5-safe.csv`): minutes of
/// search each.
const SLOW: [&str; 3] = [
    "000010100000110000000011011100000001010010010100010100000000",
    "000101100000011000000010000000101001001010000000011001010001",
    "000010101101001000000010001000000100000100100010000100100101",
];

fn analyse(served: &Served, query: &str) -> (u16, String) {
    get(&format!("{}api/analyse?{query}", served.url))
}

#[test]
fn every_answer_equals_dab_hints_for_the_same_position_named_by_lines_or_by_art() {
    let served = Served::start(&["--threads", "1"]);
    for (board, lines) in POSITIONS {
        let (status, body) = analyse(&served, &format!("board={board}&lines={lines}"));
        assert_eq!(status, 200, "{board} {lines}: {body}");
        let answer = without_time(serde_json::from_str(&body).unwrap());
        assert_eq!(answer, hint(board, lines), "{board} {lines}");
        // Asked again (undo on the page), the same answer.
        let (_, again) = analyse(&served, &format!("board={board}&lines={lines}"));
        assert_eq!(without_time(serde_json::from_str(&again).unwrap()), answer);
    }
    let sources: Vec<String> =
        POSITIONS.iter().map(|(b, l)| hint(b, l)["source"].as_str().unwrap().to_string()).collect();
    assert!(sources.contains(&"solved".into()) && sources.contains(&"search".into()), "{sources:?}");

    // The endgame theorems, from ASCII art (percent-encoded), as `dab hint --position` reads it.
    let file = Path::new("tests/data/positions/allcock-example-1.2-5x6.txt");
    let art = std::fs::read_to_string(file).unwrap();
    let encoded: String = art.bytes().map(|b| format!("%{b:02X}")).collect();
    let (status, body) = analyse(&served, &format!("art={encoded}"));
    assert_eq!(status, 200, "{body}");
    let answer = without_time(serde_json::from_str(&body).unwrap());
    assert_eq!(answer["source"], "endgame");
    let out = Command::new(env!("CARGO_BIN_EXE_dab"))
        .args(["hint", "--position", file.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert_eq!(answer, without_time(serde_json::from_slice(&out.stdout).unwrap()));

    // The position in both formats, either read back.
    let (status, body) = get(&format!("{}api/position?board=2x3&lines=10000100010010000", served.url));
    assert_eq!(status, 200, "{body}");
    let p: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (p["board"].as_str(), p["lines"].as_str(), p["undrawn"].as_u64()),
        (Some("2x3"), Some("10000100010010000"), Some(13))
    );
    let art: String = p["art"].as_str().unwrap().bytes().map(|b| format!("%{b:02X}")).collect();
    let (_, back) = get(&format!("{}api/position?text={art}", served.url));
    assert_eq!(serde_json::from_str::<serde_json::Value>(&back).unwrap(), p);
}

#[test]
fn bad_input_is_http_400_with_one_line_saying_what_is_wrong() {
    let served = Served::start(&["--threads", "1"]);
    let cases = [
        ("", "no position"),
        ("board=3y3", "board: "),
        ("board=0x3", "board: "),
        ("board=17x17", "board: "),
        ("board=2x2&lines=0101", "lines: the line string has 4 characters; board 2x2 has 12 lines"),
        ("board=2x2&lines=01010101010x", "lines: the line string has 'x' at position 12"),
        ("lines=000000000000", "needs board=MxN"),
        ("art=%2B-%2B%0Ax", "art: "),
        ("board=3x3&art=%2B-%2B%0A%7C%20%7C%0A%2B-%2B", "not 3x3"),
        ("board=2x2&lines=000000000000&art=%2B%20%2B", "one of lines, art and text"),
        ("board=2x2&engine=fast", "engine: "),
        ("board=2x2&seconds=0", "seconds: '0'"),
        ("board=2x2&seconds=abc", "seconds: 'abc'"),
        ("board=2x2&seconds=1e9", "at most 3600"),
        ("board=2x2&colour=red", "unknown parameter 'colour'"),
        ("board=2x2&board=3x3", "given twice"),
        ("board=2x2&lines=%ZZ", "two hex digits"),
    ];
    for (query, says) in cases {
        let (status, body) = analyse(&served, query);
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body.contains(says), "{query}: {body:?} should say {says:?}");
        assert!(!body.trim().is_empty() && !body.contains('\n'), "{query}: {body:?} is not one line");
    }
    let (status, body) = get(&format!("{}api/position?board=2x2&text=abc", served.url));
    assert_eq!(status, 400, "{body}");
    assert!(body.starts_with("text: "), "{body}");
    // A position the engine asked for does not take is no bad request, but no answer either.
    let (status, body) = analyse(&served, "board=16x16&engine=search");
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("544 undrawn lines") && !body.contains('\n'), "{body}");
    // auto answers it within the limit, by rules, saying so.
    let (status, body) = analyse(&served, "board=16x16&seconds=1");
    assert_eq!(status, 200, "{body}");
    let rules: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!((rules["proven"].as_bool(), rules["engine"].as_str()), (Some(false), Some("rules")), "{body}");
    let (status, body) = get(&format!("{}nowhere", served.url));
    assert_eq!((status, body.as_str()), (404, "no such page: /nowhere"));
    let mut post = serve_common::agent().post(&format!("{}api/analyse", served.url)).send("board=2x2").unwrap();
    assert_eq!(post.status().as_u16(), 405);
    assert!(post.body_mut().read_to_string().unwrap().contains("only GET"));
}

#[test]
fn a_slow_analysis_ends_at_its_time_limit_and_blocks_neither_fast_ones_nor_other_clients() {
    let served = Served::start(&["--threads", "1"]);
    let start = Instant::now();
    std::thread::scope(|s| {
        let slow = s.spawn(|| {
            let reply = analyse(&served, &format!("board=5x5&lines={}&seconds=4&engine=search", SLOW[0]));
            (reply, start.elapsed())
        });
        std::thread::sleep(Duration::from_millis(300));
        let clients: Vec<_> = (0..4)
            .map(|c| {
                let served = &served;
                s.spawn(move || {
                    let mut done = Vec::new();
                    for (board, lines) in &POSITIONS[..3] {
                        let lines = if c % 2 == 0 { lines.to_string() } else { lines.replacen('0', "1", 1) };
                        let (status, body) = analyse(served, &format!("board={board}&lines={lines}"));
                        assert_eq!(status, 200, "{body}");
                        done.push(start.elapsed());
                    }
                    done
                })
            })
            .collect();
        let fast: Vec<Duration> = clients.into_iter().flat_map(|c| c.join().unwrap()).collect();
        let ((status, body), slow_at) = slow.join().unwrap();
        assert_eq!(status, 503, "{body}");
        assert_eq!(body, "not solved within 4 s (the analysis goes on: ask again for its answer)");
        assert!(slow_at >= Duration::from_secs(4) && slow_at < Duration::from_secs(30), "{slow_at:?}");
        for t in &fast {
            assert!(*t < slow_at, "a fast answer at {t:?} waited for the slow one ({slow_at:?})");
        }
    });
    // Asked again, the same position waits for the analysis already running.
    let (status, body) = analyse(&served, &format!("board=5x5&lines={}&seconds=0.5&engine=search", SLOW[0]));
    assert_eq!(
        (status, body.as_str()),
        (503, "not solved within 0.5 s (the analysis goes on: ask again for its answer)")
    );
    // A second long analysis takes the second slot; a third finds none free.
    let (status, body) = analyse(&served, &format!("board=5x5&lines={}&seconds=0.5&engine=search", SLOW[1]));
    assert_eq!(
        (status, body.as_str()),
        (503, "not solved within 0.5 s (the analysis goes on: ask again for its answer)")
    );
    let (status, body) = analyse(&served, &format!("board=5x5&lines={}&seconds=0.5&engine=search", SLOW[2]));
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("every slot for long analyses is busy"), "{body}");
    // And a quick one is still answered at once.
    let asked = Instant::now();
    let (status, body) = analyse(&served, "board=2x2");
    assert_eq!(status, 200, "{body}");
    assert!(asked.elapsed() < Duration::from_secs(5), "{:?}", asked.elapsed());
}

#[test]
fn a_busy_port_is_refused_naming_the_port() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_dab")).args(["serve", "--port", &port]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("port {port} on 127.0.0.1 is already in use")) && err.contains("--port 0"), "{err}");
}

/// Every file under `dir` with its length and modification time.
fn snapshot(dir: &Path) -> BTreeMap<String, (u64, SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            }
            out.insert(e.path().display().to_string(), (meta.len(), meta.modified().unwrap()));
        }
    }
    out
}

#[test]
fn a_store_is_read_first_and_nothing_is_written_anywhere() {
    let store = tempfile::tempdir().unwrap();
    let root = "10000100010010000";
    let st = store.path().to_str().unwrap();
    let solved = Command::new(env!("CARGO_BIN_EXE_dab"))
        .args(["solve", "2x3", "--lines", root, "--store", st, "--threads", "1"])
        .output()
        .unwrap();
    assert!(solved.status.success(), "{}", String::from_utf8_lossy(&solved.stderr));
    let before = snapshot(store.path());
    let cwd = tempfile::tempdir().unwrap();
    // The server runs in an empty folder, which must stay empty.
    let served = Served::start_in(cwd.path(), &["--threads", "1", "--store", st]);
    let (status, body) = analyse(&served, &format!("board=2x3&lines={root}"));
    assert_eq!(status, 200, "{body}");
    let answer = without_time(serde_json::from_str(&body).unwrap());
    assert_eq!(answer["source"], "store");
    let out = Command::new(env!("CARGO_BIN_EXE_dab"))
        .args(["hint", "2x3", "--lines", root, "--store", st, "--json"])
        .output()
        .unwrap();
    assert_eq!(answer, without_time(serde_json::from_slice(&out.stdout).unwrap()));
    let child = root.replacen('0', "1", 1);
    let (_, body) = analyse(&served, &format!("board=2x3&lines={child}"));
    assert_eq!(serde_json::from_str::<serde_json::Value>(&body).unwrap()["source"], "store", "{body}");
    // A board the store does not hold is answered by the engines.
    let (status, body) = analyse(&served, "board=2x2");
    assert_eq!(status, 200, "{body}");
    assert_eq!(without_time(serde_json::from_str(&body).unwrap()), hint("2x2", "000000000000"));
    drop(served);
    assert_eq!(snapshot(store.path()), before, "the store changed");
    assert!(std::fs::read_dir(cwd.path()).unwrap().next().is_none(), "the server wrote in its folder");
}
