//! The solve suite: the partitioned solver, on its row path and on the scalar twin, against
//! the dense twin (single-threaded), each row's kernel traffic (bytes read and written per
//! second) set against the memory bandwidth measured before the solves.

use serde::Serialize;

use crate::answer::{Analysis, Engine};
use crate::solver::KernelPath;

/// Eight 3-chains on a 3x8 board: 32 undrawn lines, no symmetry, value -2.
pub(crate) const CHAINS_3X8: &str = include_str!("data/eight-3-chains-3x8.txt");

/// A benchmark case: an empty board (`3x4`) or the named built-in position (`chains-3x8`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Case {
    /// The empty board of this size (`MxN`).
    Board(String),
    /// A position given as ASCII art, under a name.
    Art {
        /// Its name (`chains-3x8`).
        name: String,
        /// Its ASCII art.
        art: String,
    },
}

impl Case {
    /// `chains-3x8`, or an empty board (`MxN`).
    pub fn parse(name: &str) -> Result<Case, String> {
        match name {
            "chains-3x8" => Ok(Case::Art { name: name.to_string(), art: CHAINS_3X8.to_string() }),
            b => {
                b.parse::<crate::game::Board>().map_err(|e| format!("bench case: {e} (or use chains-3x8)"))?;
                Ok(Case::Board(b.to_string()))
            }
        }
    }

    /// The name rows carry.
    pub fn name(&self) -> &str {
        match self {
            Case::Board(b) => b,
            Case::Art { name, .. } => name,
        }
    }
}

/// The default cases: boards from a fraction of a second to seconds, and a 32-undrawn-line
/// position of the kind the retrograde takes in memory at most.
pub const DEFAULT_CASES: &[&str] = &["3x3", "2x5", "3x4", "chains-3x8"];

/// One solve of one case.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// The case's name.
    pub case: String,
    /// The engine that solved it.
    pub engine: Engine,
    /// The kernel path (the partitioned solver only).
    pub kernel: Option<KernelPath>,
    /// Undrawn lines of the position.
    pub free_lines: usize,
    /// The position's value.
    pub value: i32,
    /// Positions the engine stores (2^k for the dense twin).
    pub positions: u64,
    /// Wall seconds of the solve.
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
    /// The solve's process's peak resident set.
    pub peak_rss_bytes: Option<u64>,
    /// The solve's peak of values held.
    pub peak_value_bytes: u64,
    /// Dense twin's time (one thread) over this engine's time, on the partition rows.
    pub speedup_vs_dense: Option<f64>,
    /// The scalar kernel's time over the row path's at the same thread count, on the row
    /// path's rows.
    pub speedup_vs_scalar: Option<f64>,
}

/// How one solve of a case is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solver {
    /// The engine.
    pub engine: Engine,
    /// The kernel path of the partitioned solver (its default where `None`).
    pub kernel: Option<KernelPath>,
    /// Threads.
    pub threads: usize,
}

impl Solver {
    /// `engine` on one thread, with its defaults.
    pub fn alone(engine: Engine) -> Solver {
        Solver { engine, kernel: None, threads: 1 }
    }
}

/// Why the solve suite stopped.
#[derive(Debug, thiserror::Error)]
pub enum SolveBenchError<E: std::fmt::Display + std::fmt::Debug> {
    /// A solve failed (the solving function's error).
    #[error("case {case}, engine {engine:?}: {error}")]
    Solve {
        /// The case.
        case: String,
        /// The engine.
        engine: Engine,
        /// What the solving function said.
        error: E,
    },
    /// The partitioned solver and the dense twin disagree.
    #[error("case {case}: the partitioned solver says {partition}, the dense twin {dense}")]
    Disagree {
        /// The case.
        case: String,
        /// The partitioned solver's value.
        partition: i32,
        /// The dense twin's.
        dense: i32,
    },
}

/// Solves every case with the dense twin on one thread and with the partitioned solver on each
/// of `threads`, on the row path and on the scalar twin, by `solve`; checks they all agree, and
/// returns the rows, the kernel's traffic set against `roof` GB/s. `report` hears each row.
pub fn rows<E: std::fmt::Display + std::fmt::Debug>(
    cases: &[Case],
    threads: &[usize],
    roof: f64,
    solve: &mut dyn FnMut(&Case, Solver) -> Result<Analysis, E>,
    report: &mut dyn FnMut(&BenchRow),
) -> Result<Vec<BenchRow>, SolveBenchError<E>> {
    let mut rows = Vec::new();
    for case in cases {
        let mut run = |solver: Solver| {
            solve(case, solver).map_err(|error| SolveBenchError::Solve {
                case: case.name().to_string(),
                engine: solver.engine,
                error,
            })
        };
        let dense = run(Solver::alone(Engine::Dense))?;
        let mut runs = vec![(None, dense.clone())];
        for &p in threads {
            let on = |k| Solver { kernel: Some(k), threads: p, ..Solver::alone(Engine::Partition) };
            let fast = run(on(KernelPath::Rows))?;
            let scalar = run(on(KernelPath::Scalar))?;
            for part in [&fast, &scalar] {
                if dense.value != part.value {
                    return Err(SolveBenchError::Disagree {
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
            let row = row(case, *kernel, a, &dense, roof);
            report(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The row of one solve `a` of `case` (on `kernel`, with its speedup over the scalar twin on
/// the row path), against the dense twin's solve and the bandwidth `roof`.
fn row(case: &Case, kernel: Option<(KernelPath, Option<f64>)>, a: &Analysis, dense: &Analysis, roof: f64) -> BenchRow {
    let free = a.free_lines();
    let seconds = a.seconds.max(1e-9);
    let threads = a.threads.max(1);
    let rate = a.gigabytes_per_second;
    BenchRow {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::analyse;
    use crate::game::Position;
    use crate::solver::SolveOptions;

    /// Solves in this process, as the binary's child would.
    fn here(case: &Case, s: Solver) -> Result<Analysis, String> {
        let Case::Board(b) = case else { return Err("a board".into()) };
        let root = Position::empty(b.parse().unwrap());
        let opts = SolveOptions {
            threads: s.threads,
            kernel: s.kernel.unwrap_or(SolveOptions::default().kernel),
            ..Default::default()
        };
        analyse(root, s.engine, opts).map_err(|e| e.to_string())
    }

    #[test]
    fn a_case_gives_a_dense_row_and_a_row_per_kernel_and_thread_count() {
        let cases = [Case::parse("2x2").unwrap()];
        let mut heard = 0;
        let rows = rows(&cases, &[1, 2], 10.0, &mut here, &mut |_| heard += 1).unwrap();
        assert_eq!((rows.len(), heard), (5, 5));
        let shape: Vec<(Engine, Option<KernelPath>, usize)> =
            rows.iter().map(|r| (r.engine, r.kernel, r.threads)).collect();
        assert_eq!(
            shape,
            [
                (Engine::Dense, None, 1),
                (Engine::Partition, Some(KernelPath::Rows), 1),
                (Engine::Partition, Some(KernelPath::Scalar), 1),
                (Engine::Partition, Some(KernelPath::Rows), 2),
                (Engine::Partition, Some(KernelPath::Scalar), 2),
            ]
        );
        assert!(rows.iter().all(|r| r.value == 2 && r.free_lines == 12 && r.bandwidth_gigabytes_per_second == 10.0));
        assert!(rows[0].speedup_vs_dense.is_none() && rows[1..].iter().all(|r| r.speedup_vs_dense.is_some()));
        let vs_scalar: Vec<bool> = rows.iter().map(|r| r.speedup_vs_scalar.is_some()).collect();
        assert_eq!(vs_scalar, [false, true, false, true, false]);
        let mut csv = csv::Writer::from_writer(Vec::new());
        csv.serialize(&rows[1]).unwrap();
        let text = String::from_utf8(csv.into_inner().unwrap()).unwrap();
        assert_eq!(
            text.lines().next().unwrap(),
            "case,engine,kernel,free_lines,value,positions,seconds,space_positions_per_second,threads,\
             positions_per_second_per_thread,bytes_per_position,gigabytes_per_second,\
             bandwidth_gigabytes_per_second,bandwidth_fraction,peak_rss_bytes,peak_value_bytes,speedup_vs_dense,\
             speedup_vs_scalar"
        );
    }

    #[test]
    fn a_solve_that_fails_or_disagrees_is_named_by_case() {
        let cases = [Case::parse("2x2").unwrap()];
        let mut failing = |_: &Case, s: Solver| -> Result<Analysis, String> { Err(format!("no {}", s.threads)) };
        let e = rows(&cases, &[1], 1.0, &mut failing, &mut |_| {}).unwrap_err().to_string();
        assert_eq!(e, "case 2x2, engine Dense: no 1");
        let mut wrong = |c: &Case, s: Solver| {
            here(c, s).map(|mut a| {
                a.value += i32::from(s.engine == Engine::Partition);
                a
            })
        };
        let e = rows(&cases, &[1], 1.0, &mut wrong, &mut |_| {}).unwrap_err().to_string();
        assert!(e.contains("the partitioned solver says 3, the dense twin 2"), "{e}");
    }
}
