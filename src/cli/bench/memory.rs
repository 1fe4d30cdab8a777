//! `dab bench --suite memory`: the process's peak resident set against `--mem-limit`. Each
//! board runs unlimited on each thread count, then under 1, 0.5 and 0.25 times that peak with a
//! store, each as its own `dab run` process so that every peak is that run's alone.

use std::path::Path;
use std::process::Command;

use serde::Serialize;

/// Fractions of the unlimited peak tried as limits.
pub const FRACTIONS: [f64; 3] = [1.0, 0.5, 0.25];
/// Slack a limited run may take beyond its limit: 5 % and 150 MB (the bound).
const SLACK_RATIO: f64 = 1.05;
const SLACK_BYTES: f64 = 150e6;

/// One run of the suite.
#[derive(Clone, Debug, Serialize)]
pub struct MemoryRow {
    pub board: String,
    pub threads: usize,
    /// Limit as a fraction of the unlimited peak (empty for the unlimited run).
    pub fraction: Option<f64>,
    pub limit_bytes: Option<u64>,
    pub peak_rss_bytes: u64,
    pub predicted_peak_rss_bytes: Option<u64>,
    pub peak_value_bytes: u64,
    /// Peak RSS over the limit (empty for the unlimited run).
    pub rss_over_limit: Option<f64>,
    /// Whether the peak kept within 1.05 x limit + 150 MB.
    pub within_bound: Option<bool>,
    pub seconds: f64,
    /// Why a limit was refused (below the least the planner can keep), else empty.
    pub refused: String,
}

/// Runs `dab run` as a child process and reads its JSON.
fn dab_run(exe: &Path, board: &str, threads: usize, limit: Option<u64>) -> Result<serde_json::Value, String> {
    let tmp = std::env::temp_dir().join(format!("dab-bench-memory-{}", std::process::id()));
    let mut cmd = Command::new(exe);
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
        return Err(format!(
            "dab run {board} on {threads} thread(s), limit {limit:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("dab run {board}: unreadable JSON: {e}"))
}

fn row(board: &str, threads: usize, fraction: Option<f64>, limit: Option<u64>, v: &serde_json::Value) -> MemoryRow {
    let rss = v["peak_rss_bytes"].as_u64().unwrap_or(0);
    MemoryRow {
        board: board.to_string(),
        threads,
        fraction,
        limit_bytes: limit,
        peak_rss_bytes: rss,
        predicted_peak_rss_bytes: v["predicted_peak_rss_bytes"].as_u64(),
        peak_value_bytes: v["peak_bytes"].as_u64().unwrap_or(0),
        rss_over_limit: limit.map(|l| rss as f64 / l as f64),
        within_bound: limit.map(|l| rss as f64 <= SLACK_RATIO * l as f64 + SLACK_BYTES),
        seconds: v["actual_seconds"].as_f64().unwrap_or(0.0),
        refused: String::new(),
    }
}

/// Every board on every thread count: unlimited, then at each fraction of its peak.
pub fn run(
    exe: &Path,
    boards: &[String],
    threads: &[usize],
    each: &mut dyn FnMut(&MemoryRow),
) -> Result<Vec<MemoryRow>, String> {
    let mut rows = Vec::new();
    for board in boards {
        for &p in threads {
            let unlimited = row(board, p, None, None, &dab_run(exe, board, p, None)?);
            each(&unlimited);
            let peak = unlimited.peak_rss_bytes;
            rows.push(unlimited);
            for f in FRACTIONS {
                let limit = (peak as f64 * f) as u64;
                let r = match dab_run(exe, board, p, Some(limit)) {
                    Ok(v) => row(board, p, Some(f), Some(limit), &v),
                    // A limit under the least possible is refused before the run: a result too.
                    Err(e) if e.contains("no candidate fits") => MemoryRow {
                        refused: e.rsplit("error: ").next().unwrap_or(&e).to_string(),
                        within_bound: None,
                        ..row(board, p, Some(f), Some(limit), &serde_json::Value::Null)
                    },
                    Err(e) => return Err(e),
                };
                each(&r);
                rows.push(r);
            }
        }
    }
    Ok(rows)
}
