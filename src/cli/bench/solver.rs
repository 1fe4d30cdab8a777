//! `dab bench`: the partitioned solver, on its row path and on the scalar twin, against the
//! dense twin (single-threaded), in one run. Each solve runs in its own child process (`dab
//! solve --json`) so that its peak resident memory is its own. Each row sets the kernel's
//! traffic (bytes read and written per second) against the memory bandwidth measured before
//! the solves. Results go to a CSV file.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::Serialize;

use dab::answer::{Analysis, Engine};
use dab::solver::KernelPath;

/// Eight 3-chains on a 3x8 board: 32 undrawn lines, no symmetry, value -2.
pub const CHAINS_3X8: &str = include_str!("../../../tests/data/positions/eight-3-chains-3x8.txt");

/// A benchmark case: an empty board (`3x4`) or the named built-in position (`chains-3x8`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Case {
    Board(String),
    Art { name: String, art: String },
}

impl Case {
    pub fn parse(name: &str) -> Result<Case, String> {
        match name {
            "chains-3x8" => Ok(Case::Art { name: name.to_string(), art: CHAINS_3X8.to_string() }),
            b => {
                b.parse::<dab::game::Board>().map_err(|e| format!("bench case: {e} (or use chains-3x8)"))?;
                Ok(Case::Board(b.to_string()))
            }
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Case::Board(b) => b,
            Case::Art { name, .. } => name,
        }
    }
}

/// The cases of the benchmark.
pub const DEFAULT_CASES: &[&str] = &["3x3", "2x5", "3x4", "chains-3x8"];

/// One solve of one case.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub case: String,
    pub engine: Engine,
    /// The kernel path (the partitioned solver only).
    pub kernel: Option<KernelPath>,
    pub free_lines: usize,
    pub value: i32,
    /// Positions the engine stores (2^k for the dense twin).
    pub positions: u64,
    pub seconds: f64,
    /// All 2^k positions of the space divided by the wall time: comparable across engines.
    pub space_positions_per_second: f64,
    /// Threads the solve ran on.
    pub threads: usize,
    /// Stored positions per wall second per thread.
    pub positions_per_second_per_thread: f64,
    /// Bytes the kernel read and wrote per stored position (the partitioned solver only).
    pub bytes_per_position: Option<f64>,
    /// Those bytes per wall second, in GB/s.
    pub gigabytes_per_second: Option<f64>,
    /// The one-thread memory bandwidth measured before the solves (best of copy and triad).
    pub bandwidth_gigabytes_per_second: f64,
    /// `gigabytes_per_second` over the measured bandwidth.
    pub bandwidth_fraction: Option<f64>,
    pub peak_rss_bytes: Option<u64>,
    pub peak_value_bytes: u64,
    /// Dense twin's time (one thread) over this engine's time, on the partition rows.
    pub speedup_vs_dense: Option<f64>,
    /// The scalar kernel's time over the row path's at the same thread count, on the row
    /// path's rows.
    pub speedup_vs_scalar: Option<f64>,
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("cannot run '{exe}': {source}")]
    Spawn { exe: String, source: std::io::Error },
    #[error("case {case}, engine {engine:?}: the solve failed: {stderr}")]
    Failed { case: String, engine: Engine, stderr: String },
    #[error("case {case}, engine {engine:?}: unreadable output: {source}")]
    Output { case: String, engine: Engine, source: serde_json::Error },
    #[error("case {case}: the partitioned solver says {partition}, the dense twin {dense}")]
    Disagree { case: String, partition: i32, dense: i32 },
    #[error("cannot write '{path}': {source}")]
    Write { path: String, source: std::io::Error },
}

/// How one solve of a case is run.
#[derive(Clone, Copy, Debug)]
pub struct Solver {
    pub engine: Engine,
    /// The kernel path of the partitioned solver (its default where `None`).
    pub kernel: Option<KernelPath>,
    pub threads: usize,
    pub groups: Option<usize>,
}

impl Solver {
    /// `engine` on one thread, with its defaults.
    pub fn alone(engine: Engine) -> Solver {
        Solver { engine, kernel: None, threads: 1, groups: None }
    }
}

/// Why a child `dab solve --json` gave no analysis.
pub(super) enum ChildError {
    /// It could not be started, fed or waited for.
    Spawn(std::io::Error),
    /// It failed: its stderr.
    Failed(String),
    /// Its output is not an analysis.
    Output(serde_json::Error),
}

/// Runs `dab solve ARGS --json --quiet` in a child process of `exe` (the `dab` binary), with
/// `stdin` fed to it (none: nothing to read), and reads its analysis: each solve in a
/// process of its own, so that its peak memory is its own.
pub(super) fn solve_in_child(exe: &Path, args: &[&str], stdin: Option<&str>) -> Result<Analysis, ChildError> {
    let mut cmd = Command::new(exe);
    cmd.arg("solve").args(args).args(["--json", "--quiet"]);
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(ChildError::Spawn)?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes()).map_err(ChildError::Spawn)?;
    }
    let out = child.wait_with_output().map_err(ChildError::Spawn)?;
    if !out.status.success() {
        return Err(ChildError::Failed(String::from_utf8_lossy(&out.stderr).trim().to_string()));
    }
    serde_json::from_slice(&out.stdout).map_err(ChildError::Output)
}

/// Runs one solve of one case in a child process of `exe` (the `dab` binary).
pub fn run_one(exe: &Path, case: &Case, solver: Solver) -> Result<Analysis, BenchError> {
    let Solver { engine, kernel, threads, groups } = solver;
    let (engine_name, threads, kernel, groups) =
        (engine.to_string(), threads.to_string(), kernel.map(|k| k.to_string()), groups.map(|g| g.to_string()));
    let (mut args, art): (Vec<&str>, _) = match case {
        Case::Board(b) => (vec![b.as_str()], None),
        Case::Art { art, .. } => (vec!["--position", "-"], Some(art.as_str())),
    };
    args.extend(["--engine", &engine_name, "--threads", &threads]);
    if let Some(k) = &kernel {
        args.extend(["--kernel", k]);
    }
    if let Some(g) = &groups {
        args.extend(["--groups", g]);
    }
    solve_in_child(exe, &args, art).map_err(|e| match e {
        ChildError::Spawn(source) => BenchError::Spawn { exe: exe.display().to_string(), source },
        ChildError::Failed(stderr) => BenchError::Failed { case: case.name().to_string(), engine, stderr },
        ChildError::Output(source) => BenchError::Output { case: case.name().to_string(), engine, source },
    })
}

/// Runs every case with the dense twin on one thread and with the partitioned solver on each
/// of `threads`, on the row path and on the scalar twin, checks they all agree, and returns
/// the rows, the kernel's traffic set against `roof` GB/s.
pub fn run(
    exe: &Path,
    cases: &[Case],
    threads: &[usize],
    roof: f64,
    mut report: impl FnMut(&BenchRow),
) -> Result<Vec<BenchRow>, BenchError> {
    let mut rows = Vec::new();
    for case in cases {
        let dense = run_one(exe, case, Solver::alone(Engine::Dense))?;
        let mut runs = vec![(None, dense.clone())];
        for &p in threads {
            let on = |k| Solver { kernel: Some(k), threads: p, ..Solver::alone(Engine::Partition) };
            let fast = run_one(exe, case, on(KernelPath::Rows))?;
            let scalar = run_one(exe, case, on(KernelPath::Scalar))?;
            for part in [&fast, &scalar] {
                if dense.value != part.value {
                    return Err(BenchError::Disagree {
                        case: case.name().to_string(),
                        partition: part.value,
                        dense: dense.value,
                    });
                }
            }
            let speedup = scalar.seconds / fast.seconds.max(1e-9);
            runs.push((Some((KernelPath::Rows, Some(speedup))), fast));
            runs.push((Some((KernelPath::Scalar, None)), scalar));
        }
        for (kernel, a) in &runs {
            let free = a.free_lines();
            let seconds = a.seconds.max(1e-9);
            let threads = a.threads.max(1);
            let rate = a.gigabytes_per_second;
            let row = BenchRow {
                case: case.name().to_string(),
                engine: a.engine,
                kernel: kernel.map(|(k, _)| k),
                free_lines: free,
                value: a.value,
                positions: a.positions,
                seconds: a.seconds,
                space_positions_per_second: (1u64 << free) as f64 / seconds,
                threads,
                positions_per_second_per_thread: a.positions as f64 / seconds / threads as f64,
                bytes_per_position: a.bytes_moved.map(|b| b as f64 / a.positions.max(1) as f64),
                gigabytes_per_second: rate,
                bandwidth_gigabytes_per_second: roof,
                bandwidth_fraction: rate.filter(|_| roof > 0.0).map(|r| r / roof),
                peak_rss_bytes: a.peak_rss_bytes,
                peak_value_bytes: a.peak_value_bytes,
                speedup_vs_dense: (a.engine == Engine::Partition).then(|| dense.seconds / a.seconds.max(1e-9)),
                speedup_vs_scalar: kernel.and_then(|(_, s)| s),
            };
            report(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}

/// Writes the rows as CSV: to a temporary file first, renamed over `path` once complete, so a
/// failed write leaves an earlier report intact.
pub fn write_csv(rows: &[BenchRow], path: &Path) -> Result<(), BenchError> {
    dab::support::write_csv(rows, path).map_err(|source| BenchError::Write { path: path.display().to_string(), source })
}
