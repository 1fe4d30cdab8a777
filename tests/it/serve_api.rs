//! `dab serve`'s JSON API end to end, against the real binary on a port it picks: answers equal
//! `dab hint --json`'s, bad input is a one-line HTTP 400, a slow analysis blocks neither a fast
//! one nor other clients and ends at its time limit, a busy port is refused by name, and a
//! store is read without anything written.

use crate::serve_common;

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

/// 5x5 games of safe moves at 44 undrawn lines (`tests/data/search/5x5-safe.csv` rows 8, 9 and
/// 7), slowest first: on one thread of this project's machine 30, 12 and 6 s of search. The
/// first must outlast a limit of 4 s on a machine several times as fast; the others only 0.5 s.
const SLOW: [&str; 3] = [
    "000101100000011000000010000000101001001010000000011001010001",
    "000010101101001000000010001000000100000100100010000100100101",
    "000010100000110000000011011100000001010010010100010100000000",
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
    let file = Path::new("src/bench/data/allcock-example-1.2-5x6.txt");
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
        assert_eq!(
            body,
            "not solved within 4 s: the analysis goes on in the background, and stops unless it is asked again within 10 s"
        );
        assert!(slow_at >= Duration::from_secs(4) && slow_at < Duration::from_secs(30), "{slow_at:?}");
        for t in &fast {
            assert!(*t < slow_at, "a fast answer at {t:?} waited for the slow one ({slow_at:?})");
        }
    });
    // Asked again, the same position waits for the analysis already running.
    let (status, body) = analyse(&served, &format!("board=5x5&lines={}&seconds=0.5&engine=search", SLOW[0]));
    assert_eq!(
        (status, body.as_str()),
        (
            503,
            "not solved within 0.5 s: the analysis goes on in the background, and stops unless it is asked again within 10 s"
        )
    );
    // A second long analysis takes the second slot; a third finds none free.
    let (status, body) = analyse(&served, &format!("board=5x5&lines={}&seconds=0.5&engine=search", SLOW[1]));
    assert_eq!(
        (status, body.as_str()),
        (
            503,
            "not solved within 0.5 s: the analysis goes on in the background, and stops unless it is asked again within 10 s"
        )
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

/// Sends `request` on a fresh connection to `served` and reads until the server closes or
/// `wait` passes: the status line's code (0 for none) and the whole reply.
fn raw(served: &Served, request: &[u8], wait: Duration) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(served.addr()).expect("a connection");
    s.set_read_timeout(Some(wait)).unwrap();
    // A server that closes on a long head may reset the rest of it: the reply is read anyway.
    let _ = s.write_all(request);
    let mut reply = Vec::new();
    let _ = s.read_to_end(&mut reply);
    let text = String::from_utf8_lossy(&reply).to_string();
    let code = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (code, text)
}

/// Milliseconds of a small request's answer on a fresh connection, checked to be 200.
fn small_request_ms(served: &Served) -> f64 {
    let start = Instant::now();
    let (status, _) = get(&format!("{}api/position?board=2x2", served.url));
    assert_eq!(status, 200);
    start.elapsed().as_secs_f64() * 1000.0
}

/// The median of five small requests' times, in milliseconds.
fn small_requests_ms(served: &Served) -> f64 {
    let mut ms: Vec<f64> = (0..5).map(|_| small_request_ms(served)).collect();
    ms.sort_by(f64::total_cmp);
    ms[2]
}

/// A load test on loopback, bounded in count and time: idle connections past the most the
/// server holds (under `ulimit -n 128`), pipelined analyses, endless heads, requests with no
/// Host or two, slow clients, clients that never read their replies, and abandoned heavy
/// analyses (two of them pipelined on one connection). The server answers a small request
/// within 100 ms throughout, closes the clients that never read, stops the abandoned analyses,
/// and its threads and memory stay bounded.
#[test]
fn the_server_holds_under_load_and_keeps_answering_a_small_request_quickly() {
    use std::io::{Read, Write};
    let mut served = Served::start_with_files(128, &["--threads", "1", "--mem-limit", "500MB"]);
    // 128 descriptors less 64 kept for files: 64 connections at most.
    let idle: Vec<_> = (0..100).map(|_| std::net::TcpStream::connect(served.addr()).expect("connects")).collect();
    let mut refused = 0;
    for mut c in idle.iter().skip(64) {
        c.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut reply = String::new();
        let _ = c.read_to_string(&mut reply);
        refused += reply.starts_with("HTTP/1.1 503") as usize;
    }
    assert!(refused >= 30, "only {refused} of 36 connections past the most were refused at once");
    // The idle ones are closed once they have sent no head for HEAD_SECONDS.
    std::thread::sleep(Duration::from_secs(dab::serve::HEAD_SECONDS + 1));
    let mut closed = 0;
    for mut c in idle.iter().take(64) {
        c.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
        closed += matches!(c.read(&mut [0; 64]), Ok(0)) as usize;
    }
    assert_eq!(closed, 64, "idle connections closed");
    drop(idle);
    assert!(served.running());
    let idle_ms = small_requests_ms(&served);

    // Endless heads: a long URL is 414 or 431, long headers 431; the server stays small.
    let url = format!("GET /api/position?board=2x2&x={} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "a".repeat(6000));
    assert_eq!(raw(&served, url.as_bytes(), Duration::from_secs(5)).0, 414);
    let huge = format!("GET /{} HTTP/1.1\r\n", "a".repeat(4 << 20));
    assert_eq!(raw(&served, huge.as_bytes(), Duration::from_secs(5)).0, 431);
    let headers = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: {}\r\n\r\n", "b".repeat(64 << 10));
    assert_eq!(raw(&served, headers.as_bytes(), Duration::from_secs(5)).0, 431);
    // Hyper's own 431 says what is wrong in one line, as every other error does.
    let (_, reply) = raw(&served, headers.as_bytes(), Duration::from_secs(5));
    let body = reply.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    assert!(body.ends_with('\n') && body.lines().count() == 1 && body.contains("8192 bytes"), "{reply}");
    // A foreign Host (DNS rebinding) is refused, and so are none and two; a loopback one answered.
    let foreign = b"GET /api/position?board=2x2 HTTP/1.1\r\nHost: attacker.example:80\r\nConnection: close\r\n\r\n";
    assert_eq!(raw(&served, foreign, Duration::from_secs(5)).0, 403);
    let none = b"GET /api/position?board=2x2 HTTP/1.1\r\nConnection: close\r\n\r\n";
    let (code, reply) = raw(&served, none, Duration::from_secs(5));
    assert!(code == 400 && reply.contains("names no Host"), "{reply}");
    let two = b"GET /api/position?board=2x2 HTTP/1.1\r\nHost: localhost\r\nHost: attacker.example\r\nConnection: close\r\n\r\n";
    let (code, reply) = raw(&served, two, Duration::from_secs(5));
    assert!(code == 400 && reply.contains("more than once"), "{reply}");
    let local = b"GET /api/position?board=2x2 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    assert_eq!(raw(&served, local, Duration::from_secs(5)).0, 200);
    // A slow client that never finishes its head is closed after HEAD_SECONDS.
    let start = Instant::now();
    let (code, _) = raw(&served, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", Duration::from_secs(30));
    let slow = start.elapsed().as_secs_f64();
    assert!(slow < dab::serve::HEAD_SECONDS as f64 + 3.0, "a slow client held {slow:.1} s (status {code})");

    // 60 analyses of small positions pipelined on one connection: each answered, 200 or 503.
    let mut rng = 7u64;
    let mut pipelined = Vec::new();
    for _ in 0..60 {
        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let lines: String = (0..24).map(|i| if (rng >> (i + 20)) & 1 == 1 { '1' } else { '0' }).collect();
        pipelined.extend_from_slice(
            format!("GET /api/analyse?board=3x3&lines={lines}&seconds=20 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .as_bytes(),
        );
    }
    pipelined
        .extend_from_slice(b"GET /api/position?board=2x2 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    let mut c = std::net::TcpStream::connect(served.addr()).unwrap();
    c.write_all(&pipelined).unwrap();
    let mut most_threads = 0;
    let reader = std::thread::spawn(move || {
        c.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        let mut reply = String::new();
        let _ = c.read_to_string(&mut reply);
        reply
    });
    while !reader.is_finished() {
        most_threads = most_threads.max(served.status("Threads"));
        std::thread::sleep(Duration::from_millis(20));
    }
    let reply = reader.join().unwrap();
    let answered = reply.matches("HTTP/1.1 200").count() + reply.matches("HTTP/1.1 503").count();
    assert_eq!(answered, 61, "pipelined requests answered");

    // Clients that never read: pipelined requests for the page's script (8 MB of replies each,
    // more than the sockets' buffers hold). Each is closed once its reply has waited
    // HEAD_SECONDS to be written, and gives its slot back.
    let sockets = served.sockets();
    let script = "GET /app.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".repeat(400);
    let stuck: Vec<_> = (0..16)
        .map(|_| {
            let mut c = std::net::TcpStream::connect(served.addr()).unwrap();
            c.write_all(script.as_bytes()).unwrap();
            c
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));
    let held = served.sockets() - sockets;
    assert!(held >= 16, "{held} of the 16 clients that never read were held a second after");
    let start = Instant::now();
    while served.sockets() > sockets && start.elapsed() < Duration::from_secs(dab::serve::HEAD_SECONDS + 10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let unread = start.elapsed().as_secs_f64() + 1.0;
    assert_eq!(served.sockets(), sockets, "clients that never read still held after {unread:.1} s");
    drop(stuck);

    // Two heavy analyses pipelined on one connection whose client then goes: the first, which
    // runs, and the second, queued behind it, stop as a lone request's do.
    let mut c = std::net::TcpStream::connect(served.addr()).unwrap();
    for lines in &SLOW[..2] {
        let q = format!(
            "GET /api/analyse?board=5x5&lines={lines}&engine=search&seconds=120 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        );
        c.write_all(q.as_bytes()).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    drop(c);
    // Heavy analyses abandoned: each client gives up at once; the server goes on answering.
    for lines in SLOW {
        let mut c = std::net::TcpStream::connect(served.addr()).unwrap();
        let q = format!("GET /api/analyse?board=5x5&lines={lines}&engine=search HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        c.write_all(q.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    let heavy_ms = small_requests_ms(&served);
    most_threads = most_threads.max(served.status("Threads"));
    let rss_mb = served.status("VmRSS") / 1024;
    eprintln!(
        "load: {refused} connections refused at once, idle closed after {} s; slow client closed after {slow:.1} s; \
         clients that never read closed after {unread:.1} s; \
         small request {idle_ms:.1} ms after idle load, {heavy_ms:.1} ms beside abandoned searches; \
         at most {most_threads} threads; {rss_mb} MB resident",
        dab::serve::HEAD_SECONDS
    );
    assert!(idle_ms < 100.0 && heavy_ms < 100.0, "small requests took {idle_ms:.1} and {heavy_ms:.1} ms");
    // Abandoned: once nobody has waited for them for the grace, the searches stop.
    std::thread::sleep(Duration::from_secs(12));
    let before = served.cpu_seconds();
    std::thread::sleep(Duration::from_secs(1));
    let busy = served.cpu_seconds() - before;
    eprintln!("load: {busy:.2} CPU seconds a second after the grace");
    assert!(busy < 0.3, "abandoned analyses still use {busy:.2} CPU seconds a second");
    // The runtime's 2, the pools' 2 + 3, the engines' own (one each), the main thread, slack.
    assert!(most_threads <= 24, "{most_threads} threads");
    // The heavy searches' tables within --mem-limit, and the program.
    assert!(rss_mb < 600, "{rss_mb} MB resident");
    assert!(served.running());
}

#[test]
fn serve_open_opens_the_board_in_the_browser_the_system_names() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let opened = dir.path().join("opened");
    let browser = dir.path().join("browser.sh");
    std::fs::write(&browser, format!("#!/bin/sh\necho \"$1\" > '{}'\n", opened.display())).unwrap();
    std::fs::set_permissions(&browser, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_dab"))
        .args(["serve", "--port", "0", "--open"])
        .env("BROWSER", &browser)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("serving ").unwrap().to_string();
    let start = Instant::now();
    while !opened.exists() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(std::fs::read_to_string(&opened).unwrap().trim(), url);
}

/// `dab nimstring BOARD --lines LINES --json`, without its timing.
fn nimstring_cli(board: &str, lines: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_dab"))
        .args(["nimstring", board, "--lines", lines, "--json"])
        .output()
        .expect("dab nimstring runs");
    assert!(out.status.success(), "dab nimstring: {}", String::from_utf8_lossy(&out.stderr));
    without_time(serde_json::from_slice(&out.stdout).expect("JSON"))
}

#[test]
fn the_nimstring_value_its_regions_and_the_long_chains_are_served_for_the_web_board() {
    let served = Served::start(&["--threads", "1"]);
    // 2x5 with every horizontal drawn: two chains of five boxes, edge to edge; and a 3x3 of
    // two regions.
    let rows = format!("{}{}", "1".repeat(15), "0".repeat(12));
    for (board, lines) in
        [("2x5", rows.as_str()), ("3x3", "100100001010000001100010"), ("3x3", "000000000000000000000000")]
    {
        let (status, body) = get(&format!("{}api/nimstring?board={board}&lines={lines}&seconds=30", served.url));
        assert_eq!(status, 200, "{board} {lines}: {body}");
        let answer = without_time(serde_json::from_str(&body).unwrap());
        assert_eq!(answer, nimstring_cli(board, lines), "{board} {lines}");
    }
    let (_, body) = get(&format!("{}api/nimstring?board=2x5&lines={rows}", served.url));
    let two: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (two["value"].as_u64(), two["regions"].as_array().map(Vec::len), two["wins"].as_bool()),
        (Some(0), Some(2), Some(false))
    );
    // Its long chains: two, and the player to move wants an odd number (and must open one).
    let (status, body) = get(&format!("{}api/position?board=2x5&lines={rows}", served.url));
    assert_eq!(status, 200, "{body}");
    let p: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!((p["long_chains"].as_u64(), p["long_chains_wanted"].as_str()), (Some(2), Some("odd")));
    // The empty 5x5: no chain yet, and the first player wants an even number (36 dots).
    let (_, body) = get(&format!("{}api/position?board=5x5", served.url));
    let p: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!((p["long_chains"].as_u64(), p["long_chains_wanted"].as_str()), (Some(0), Some("even")));
    // Out of reach: a region past the calculator is a 422, a valuing priced far past the limit a
    // 503 at once, each saying why.
    let (status, body) = get(&format!("{}api/nimstring?board=8x8", served.url));
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("the Nimstring calculator takes regions of at most 64"), "{body}");
    let (status, body) = get(&format!("{}api/nimstring?board=5x5&seconds=0.5", served.url));
    assert_eq!(status, 503, "{body}");
    assert!(
        body.starts_with("the Nimstring value is out of reach within 0.5 s: its largest region has 60 undrawn lines"),
        "{body}"
    );
    let (status, body) = get(&format!("{}api/nimstring?board=2x2&seconds=0", served.url));
    assert_eq!(status, 400, "{body}");
    // A littlegolem record given as a position is named and sent to the moves.
    let (status, body) = get(&format!("{}api/position?board=3x3&text=1.+a1-b1+2.+b1-c1", served.url));
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("a game's record in littlegolem's notation"), "{body}");
}
