//! The processes of `dab bench`: each solve or run whose peak memory a row reports runs as a
//! child `dab solve --json` or `dab run --json` of this binary, so that the peak is its own.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use dab::answer::{Analysis, Engine};
use dab::bench::memory::{Outcome, RunFigures};
use dab::bench::solve::{Case, Solver};
use dab::game::Position;
use dab::solver::{SIMD_VAR, Simd};

/// Runs `dab solve ARGS --json --quiet` as a child of `exe` (the `dab` binary), with `stdin`
/// fed to it (none: nothing to read), and reads its analysis.
fn solve_in_child(exe: &Path, args: &[&str], stdin: Option<&str>) -> Result<Analysis, String> {
    let mut cmd = Command::new(exe);
    // The child runs the kernel this process chose (`--simd`), not the widest its CPU has.
    cmd.env(SIMD_VAR, Simd::current().name());
    cmd.arg("solve").args(args).args(["--json", "--quiet"]);
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let spawn = |e: std::io::Error| format!("cannot run '{}': {e}", exe.display());
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(spawn)?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes()).map_err(spawn)?;
    }
    let out = child.wait_with_output().map_err(spawn)?;
    if !out.status.success() {
        return Err(format!("the solve failed: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("unreadable output: {e}"))
}

/// One solve of a case of the solve suite.
pub fn solve_case(exe: &Path, case: &Case, solver: Solver) -> Result<Analysis, String> {
    let Solver { engine, kernel, threads } = solver;
    let (engine, threads, kernel) = (engine.to_string(), threads.to_string(), kernel.map(|k| k.to_string()));
    let (mut args, art): (Vec<&str>, _) = match case {
        Case::Board(b) => (vec![b.as_str()], None),
        Case::Art { art, .. } => (vec!["--position", "-"], Some(art.as_str())),
    };
    args.extend(["--engine", &engine, "--threads", &threads]);
    if let Some(k) = &kernel {
        args.extend(["--kernel", k]);
    }
    solve_in_child(exe, &args, art)
}

/// One solve of a position of the search suite: the search (value only, with its table of
/// `tt_size` bytes, or each position's default where None) or the retrograde.
pub fn solve_position(
    exe: &Path,
    pos: Position,
    threads: usize,
    engine: Engine,
    tt_size: Option<u64>,
) -> Result<Analysis, String> {
    let (board, lines, threads) = (pos.board.to_string(), pos.to_line_string(), threads.to_string());
    let size = tt_size.map(|b| b.to_string());
    let mut args = vec!["--engine", dab::support::Choice::name(engine), "--threads", &threads];
    if engine == Engine::Search {
        args.push("--value-only");
        // None (`auto`): no size given, so the child sizes the table as `dab solve` does.
        if let Some(size) = &size {
            args.extend(["--tt-size", size]);
        }
    }
    let all: Vec<&str> = [board.as_str(), "--lines", &lines].into_iter().chain(args.iter().copied()).collect();
    solve_in_child(exe, &all, None).map_err(|e| format!("dab solve {board} --lines {lines} {}: {e}", args.join(" ")))
}

/// `dab solve BOARD --lines L` of `pos` as a user types it, with `--engine search` where
/// `engine` says so (None: the command's default), and the wall seconds of the whole command,
/// the child's start included.
pub fn solve_as_typed(exe: &Path, pos: Position, engine: Option<Engine>) -> Result<(Analysis, f64), String> {
    let (board, lines) = (pos.board.to_string(), pos.to_line_string());
    let mut args = vec![board.as_str(), "--lines", &lines];
    if let Some(e) = engine {
        args.extend(["--engine", dab::support::Choice::name(e)]);
    }
    let start = std::time::Instant::now();
    let a = solve_in_child(exe, &args, None).map_err(|e| format!("dab solve {board} --lines {lines}: {e}"))?;
    Ok((a, start.elapsed().as_secs_f64()))
}

/// `dab query BOARD --store STORE --lines L --json` of `pos` as a user types it, and the wall
/// seconds of the whole command, the child's start included.
pub fn query_as_typed(exe: &Path, store: &Path, pos: Position) -> Result<dab::bench::query::QueryFigures, String> {
    let (board, lines) = (pos.board.to_string(), pos.to_line_string());
    let start = std::time::Instant::now();
    let out = Command::new(exe)
        .env(SIMD_VAR, Simd::current().name())
        .args(["query", &board, "--lines", &lines, "--json", "--quiet", "--store"])
        .arg(store)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run '{}': {e}", exe.display()))?;
    let seconds = start.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(format!("dab query {board} --lines {lines}: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("dab query {board} --lines {lines}: unreadable output: {e}"))?;
    let text = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    Ok(dab::bench::query::QueryFigures {
        value: v["value"].as_i64().unwrap_or_default() as i32,
        next_loony: text("next_loony"),
        left_out: text("next_loony_left_out"),
        source: text("source"),
        seconds,
    })
}

/// One run of the memory suite: `dab run` of `board` on `threads` threads, under `limit` with a
/// store (None: unlimited, in memory), in a temporary folder removed after it.
pub fn run_board(exe: &Path, board: &str, threads: usize, limit: Option<u64>) -> Result<Outcome, String> {
    let tmp = std::env::temp_dir().join(format!("dab-bench-memory-{}", std::process::id()));
    let mut cmd = Command::new(exe);
    cmd.env(SIMD_VAR, Simd::current().name());
    cmd.args(["run", board, "--threads", &threads.to_string(), "--json", "--quiet", "--no-probe", "--out"])
        .arg(tmp.join("report"));
    if let Some(l) = limit {
        cmd.args(["--mem-limit", &l.to_string(), "--store"]).arg(tmp.join("store"));
    }
    let out = cmd.output();
    // The store of a 3x5 run is 23 GB: never left behind.
    let _ = std::fs::remove_dir_all(&tmp);
    let out = out.map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let e = format!("dab run {board} on {threads} thread(s), limit {limit:?}: {}", stderr.trim());
        // A limit under the least possible is refused before the run: a result too.
        if limit.is_some() && e.contains("no candidate fits") {
            return Ok(Outcome::Refused(e.rsplit("error: ").next().unwrap_or(&e).to_string()));
        }
        return Err(e);
    }
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("dab run {board}: unreadable JSON: {e}"))?;
    Ok(Outcome::Ran(RunFigures {
        peak_rss_bytes: v["peak_rss_bytes"].as_u64().unwrap_or(0),
        predicted_peak_rss_bytes: v["predicted_peak_rss_bytes"].as_u64(),
        peak_value_bytes: v["peak_value_bytes"].as_u64().unwrap_or(0),
        seconds: v["actual_seconds"].as_f64().unwrap_or(0.0),
    }))
}
