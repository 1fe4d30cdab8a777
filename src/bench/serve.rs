//! `dab bench --suite serve`: the server's answer time over HTTP on a 4x4 position from a
//! store's book (and the same position solved without the store), a 5x5 position of 40
//! undrawn lines (the search), and a loops-and-chains 5x6 endgame (the theorems); the page's
//! load time over HTTP (the page and its files), and in a headless browser where chromium is
//! installed (navigation to the load event). The server runs in this process on a free port,
//! keeping no answers, so that every request is answered afresh.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::game::{Board, Position};
use crate::solver::SolveOptions;

use crate::serve::{ASSETS, MAX_SECONDS, ServeError, ServeOptions, Server};

/// The 4x4 position of the book case: 16 lines drawn, 24 undrawn, two boxes to take.
pub const BOOK_4X4: &str = "1100101010010000111011100001000000001101";
/// A 5x5 position of 40 undrawn lines: a game of safe moves (`tests/data/search/5x5-safe.csv`).
pub(crate) const SEARCH_5X5: &str = "000010100010110000000011011100100001010011010100010100000001";
/// Allcock's example 1.2: five 3-chains, a 4-loop and an 8-loop on 5x6, 32 undrawn lines.
pub const ENDGAME_5X6: &str = include_str!("data/allcock-example-1.2-5x6.txt");

/// One measurement.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// What was measured: `4x4-book`, `4x4-solved`, `5x5-40`, `5x6-endgame`, `page-http` or
    /// `page-browser`.
    pub case: String,
    /// The position's board (empty for the page).
    pub board: String,
    /// Its undrawn lines (empty for the page).
    pub undrawn: Option<usize>,
    /// What answered (`store`, `solved`, `search`, `endgame`), or `page`.
    pub source: String,
    /// Requests (page loads) timed.
    pub repeats: usize,
    /// Median wall seconds of a request, from connecting to the last byte (for
    /// `page-browser`: from navigation to the load event).
    pub median_seconds: f64,
    /// The fastest.
    pub min_seconds: f64,
    /// The median of the engine's own time (the answer's `seconds`; empty for the page).
    pub engine_seconds: Option<f64>,
    /// Bytes of the answer (of the page and its files).
    pub bytes: usize,
}

/// Why the benchmark stopped.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The server did not start.
    #[error("{0}")]
    Serve(#[from] ServeError),
    /// Building the store of the book case failed.
    #[error("building the 4x4 store: {0}")]
    Store(#[from] crate::exec::SolveError),
    /// A request failed or was refused.
    #[error("{path}: {reason}")]
    Request {
        /// What was asked.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// A temporary folder could not be made.
    #[error("cannot make a temporary folder: {0}")]
    Temp(std::io::Error),
}

/// GET `path` over a fresh connection: the status and the body.
fn get(addr: SocketAddr, path: &str) -> Result<(u16, Vec<u8>), BenchError> {
    let fail = |reason: String| BenchError::Request { path: path.to_string(), reason };
    let mut stream = TcpStream::connect(addr).map_err(|e| fail(e.to_string()))?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
        .map_err(|e| fail(e.to_string()))?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).map_err(|e| fail(e.to_string()))?;
    let end = reply.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(|| fail("no end of headers".into()))?;
    let head = String::from_utf8_lossy(&reply[..end]);
    let status =
        head.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| fail(format!("bad status line: {head}")))?;
    Ok((status, reply[end + 4..].to_vec()))
}

/// Median and minimum of `times`.
fn spread(mut times: Vec<f64>) -> (f64, f64) {
    // The median sorts them: the least is then first.
    let median = crate::support::median(&mut times);
    (median, times[0])
}

/// Times `repeats` answers of `pos` from the server at `addr`.
fn answers(addr: SocketAddr, case: &str, pos: Position, repeats: usize) -> Result<Row, BenchError> {
    let path = format!("/api/analyse?board={}&lines={}&seconds={}", pos.board, pos.to_line_string(), MAX_SECONDS);
    let (mut wall, mut engine) = (Vec::new(), Vec::new());
    let (mut source, mut bytes) = (String::new(), 0);
    for _ in 0..repeats {
        let start = Instant::now();
        let (status, body) = get(addr, &path)?;
        wall.push(start.elapsed().as_secs_f64());
        let text = String::from_utf8_lossy(&body);
        let fail = |reason: String| BenchError::Request { path: path.clone(), reason };
        if status != 200 {
            return Err(fail(format!("HTTP {status}: {text}")));
        }
        let answer: serde_json::Value = serde_json::from_str(&text).map_err(|e| fail(e.to_string()))?;
        engine.push(answer["seconds"].as_f64().unwrap_or(f64::NAN));
        source = answer["source"].as_str().unwrap_or("").to_string();
        bytes = body.len();
    }
    let (median_seconds, min_seconds) = spread(wall);
    Ok(Row {
        case: case.into(),
        board: pos.board.to_string(),
        undrawn: Some(pos.undrawn().len() as usize),
        source,
        repeats,
        median_seconds,
        min_seconds,
        engine_seconds: Some(crate::support::median(&mut engine)),
        bytes,
    })
}

/// Times `repeats` loads of the page and its files over HTTP, one after the other, each file on
/// a fresh connection (as a browser's first visit).
fn page_http(addr: SocketAddr, repeats: usize) -> Result<Row, BenchError> {
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..repeats {
        let start = Instant::now();
        bytes = 0;
        for asset in &ASSETS {
            let (status, body) = get(addr, asset.path)?;
            if status != 200 {
                return Err(BenchError::Request { path: asset.path.into(), reason: format!("HTTP {status}") });
            }
            bytes += body.len();
        }
        times.push(start.elapsed().as_secs_f64());
    }
    Ok(page_row("page-http", repeats, times, bytes))
}

/// A row of the page's load times.
fn page_row(case: &str, repeats: usize, times: Vec<f64>, bytes: usize) -> Row {
    let (median_seconds, min_seconds) = spread(times);
    Row {
        case: case.into(),
        board: String::new(),
        undrawn: None,
        source: "page".into(),
        repeats,
        median_seconds,
        min_seconds,
        engine_seconds: None,
        bytes,
    }
}

/// The browser this benchmark uses when it is installed.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// Times `repeats` loads of the page at `url` in headless chromium: the page records the time
/// from navigation to its load event in the DOM, which chromium prints. None without chromium.
fn page_browser(url: &str, repeats: usize) -> Result<Option<Row>, BenchError> {
    if !Path::new(CHROMIUM).exists() {
        return Ok(None);
    }
    let fail = |reason: String| BenchError::Request { path: url.to_string(), reason };
    let mut times = Vec::new();
    for _ in 0..repeats {
        let profile = tempfile::tempdir().map_err(BenchError::Temp)?;
        let out = std::process::Command::new(CHROMIUM)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(["--dump-dom", url])
            .output()
            .map_err(|e| fail(format!("cannot run {CHROMIUM}: {e}")))?;
        let dom = String::from_utf8_lossy(&out.stdout);
        let ms = dom
            .split("data-load-ms=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|v| v.parse::<f64>().ok())
            .ok_or_else(|| fail(format!("chromium printed no load time (status {})", out.status)))?;
        times.push(ms / 1000.0);
    }
    Ok(Some(page_row("page-browser", repeats, times, ASSETS.iter().map(|a| a.body.len()).sum())))
}

/// Runs a server on a free port for `f`, and stops it after.
fn serving<T>(opts: ServeOptions, f: impl FnOnce(&Server) -> Result<T, BenchError>) -> Result<T, BenchError> {
    let server = Server::bind(0, opts)?;
    let stopper = server.stopper();
    std::thread::scope(|s| {
        let running = s.spawn(|| server.run());
        let result = f(&server);
        stopper.stop();
        let ran = running.join().expect("the server's thread does not panic");
        ran?;
        result
    })
}

/// Every case, each solve and search on `threads` threads, `repeats` requests of each quick
/// case (the 5x5 search is asked once); `progress` hears each row.
pub fn run(threads: usize, repeats: usize, progress: &mut dyn FnMut(&Row)) -> Result<Vec<Row>, BenchError> {
    let repeats = repeats.max(1);
    let board = |s: &str| s.parse::<Board>().expect("a board of the suite");
    let book = Position::from_line_string(board("4x4"), BOOK_4X4).expect("a position of the suite");
    let search = Position::from_line_string(board("5x5"), SEARCH_5X5).expect("a position of the suite");
    let endgame = Position::from_art(ENDGAME_5X6).expect("a position of the suite");
    let store = tempfile::tempdir().map_err(BenchError::Temp)?;
    crate::exec::solve(book, SolveOptions { threads, store: Some(store.path()), ..Default::default() })?;
    let mut rows = Vec::new();
    let mut keep = |row: Row, rows: &mut Vec<Row>| {
        progress(&row);
        rows.push(row);
    };
    let fresh = |store: Option<&Path>| ServeOptions {
        store: store.map(Path::to_path_buf),
        cached_answers: 0,
        ..ServeOptions::new(threads)
    };
    let row = serving(fresh(Some(store.path())), |s| answers(s.addr(), "4x4-book", book, repeats))?;
    keep(row, &mut rows);
    serving(fresh(None), |s| {
        keep(answers(s.addr(), "4x4-solved", book, repeats)?, &mut rows);
        keep(answers(s.addr(), "5x6-endgame", endgame, repeats)?, &mut rows);
        keep(answers(s.addr(), "5x5-40", search, 1)?, &mut rows);
        keep(page_http(s.addr(), repeats.max(20))?, &mut rows);
        let url = format!("{}?board=4x4&lines={BOOK_4X4}", s.url());
        if let Some(row) = page_browser(&url, repeats.min(5))? {
            keep(row, &mut rows);
        }
        Ok(())
    })?;
    Ok(rows)
}
