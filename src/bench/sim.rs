//! The sim suite: the simulator's speed on the thesis's 4x4 quadrant graph, and the
//! quality of its schedules (worst makespan / lower bound over a sweep) on the thesis's graphs
//! and on the orbit graphs `dab` itself runs, with and without subpartitions.

use std::time::Instant;

use serde::Serialize;

use crate::game::Position;
use crate::report::sweep::worst_ratio;
use crate::sched::{
    CostSpec, Graph, PieceDeps, Policy, Procs, QuadrantSymmetry, SchemeError, SimError, SimOptions, Simulator, Split,
};
use crate::solver::Space;
use crate::support::round4;

/// Processor counts of every sweep here.
pub const MAX_PROCS: u32 = 150;

/// A graph of the benchmark, by how it is built.
pub struct Case {
    /// Its name in the rows.
    pub name: &'static str,
    build: fn() -> Result<Graph, SchemeError>,
}

fn split(threshold: u64, max_pieces: u32, deps: PieceDeps) -> Option<Split> {
    Some(Split { threshold, max_pieces, deps })
}

fn quadrants(split: Option<Split>) -> Result<Graph, SchemeError> {
    crate::sched::quadrants("4x4".parse().expect("board"), QuadrantSymmetry::Dih8, &CostSpec::States, split.as_ref())
}

fn orbits(board: &str, split: Option<Split>) -> Result<Graph, SchemeError> {
    let space = Space::new(Position::empty(board.parse().expect("board")), None)?;
    crate::sched::orbits(&space, &CostSpec::States, split.as_ref())
}

/// The speed case: the thesis's 4x4 quadrants, dih8, split at 2e8 states into at most 20 (a
/// graph of thousands of jobs, as large as the planner sweeps).
pub(crate) const SPEED_CASE: Case =
    Case { name: "4x4-quadrants-dih8-split", build: || quadrants(split(200_000_000, 20, PieceDeps::Whole)) };

/// The graphs whose schedules are measured: the thesis's and `dab`'s own, whole and split.
pub const QUALITY_CASES: &[Case] = &[
    Case { name: "4x4-quadrants-dih8", build: || quadrants(None) },
    SPEED_CASE,
    Case { name: "3x4-orbits", build: || orbits("3x4", None) },
    Case { name: "3x4-orbits-split-fine", build: || orbits("3x4", split(200_000, 64, PieceDeps::Fine)) },
    Case { name: "3x4-orbits-split-whole", build: || orbits("3x4", split(200_000, 64, PieceDeps::Whole)) },
    Case { name: "3x5-orbits", build: || orbits("3x5", None) },
    Case { name: "3x5-orbits-split-fine", build: || orbits("3x5", split(10_000_000, 64, PieceDeps::Fine)) },
    Case { name: "3x5-orbits-split-whole", build: || orbits("3x5", split(10_000_000, 64, PieceDeps::Whole)) },
];

/// Why the sim suite stopped.
#[derive(Debug, thiserror::Error)]
pub enum SimBenchError {
    /// A case's graph could not be built.
    #[error("case {case}: {source}")]
    Build {
        /// The case.
        case: &'static str,
        /// Why.
        source: SchemeError,
    },
    /// A case's graph could not be simulated.
    #[error("case {case}: {source}")]
    Sim {
        /// The case.
        case: &'static str,
        /// Why.
        source: SimError,
    },
}

/// The speed of one sweep of P = 1..=150 under fifo and cp.
#[derive(Clone, Debug, Serialize)]
pub struct SpeedRow {
    /// The case.
    pub case: String,
    /// Jobs of its graph.
    pub jobs: usize,
    /// Dependencies of its graph.
    pub edges: usize,
    /// Seconds to build the graph.
    pub build_seconds: f64,
    /// Both policies, P = 1..=150, on every core.
    pub sweep_seconds: f64,
    /// The same on one thread.
    pub sweep_seconds_one_thread: f64,
    /// Threads of the first sweep.
    pub threads: usize,
}

/// Schedule quality of one graph under one policy.
#[derive(Clone, Debug, Serialize)]
pub struct QualityRow {
    /// The case.
    pub case: String,
    /// The policy.
    pub policy: Policy,
    /// Jobs of the graph.
    pub jobs: usize,
    /// Dependencies of the graph.
    pub edges: usize,
    /// W: the sum of the job costs.
    pub work: u64,
    /// CP: the longest path's cost.
    pub critical_path: u64,
    /// W / CP: the most processors the graph can keep busy on average.
    pub w_over_cp: f64,
    /// Largest makespan / max(CP, W/P) over P = 1..=150, and the P where it happens.
    pub worst_ratio: f64,
    /// The P of `worst_ratio`.
    pub worst_at: u32,
    /// The same against the level bound (tighter, so closer to the schedule's true distance
    /// from the optimum).
    pub worst_level_ratio: f64,
    /// The P of `worst_level_ratio`.
    pub worst_level_at: u32,
    /// makespan / lower bound at P = 2 (this machine).
    pub ratio_p2: f64,
    /// makespan / lower bound at P = 64.
    pub ratio_p64: f64,
    /// Peak of values held at P = 2.
    pub peak_memory_p2: u64,
    /// Peak of values held at P = 150.
    pub peak_memory_p150: u64,
}

fn all_procs() -> Vec<Procs> {
    (1..=MAX_PROCS).map(Procs::Limited).collect()
}

fn sweep_both(case: &'static str, g: &Graph) -> Result<Vec<(Policy, Vec<crate::sched::SweepRow>)>, SimBenchError> {
    [Policy::Fifo, Policy::Cp]
        .into_iter()
        .map(|policy| {
            let sim = Simulator::new(g, SimOptions { policy, ..Default::default() })
                .map_err(|source| SimBenchError::Sim { case, source })?;
            sim.sweep(&all_procs()).map(|rows| (policy, rows)).map_err(|source| SimBenchError::Sim { case, source })
        })
        .collect()
}

/// Times the speed case's sweeps of P = 1..=150 under fifo and cp, on every thread and on one.
pub fn speed() -> Result<SpeedRow, SimBenchError> {
    let case = SPEED_CASE.name;
    let start = Instant::now();
    let g = (SPEED_CASE.build)().map_err(|source| SimBenchError::Build { case, source })?;
    let build_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    sweep_both(case, &g)?;
    let sweep_seconds = start.elapsed().as_secs_f64();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("thread pool");
    let start = Instant::now();
    one.install(|| sweep_both(case, &g))?;
    let sweep_seconds_one_thread = start.elapsed().as_secs_f64();
    Ok(SpeedRow {
        case: case.to_string(),
        jobs: g.len(),
        edges: g.edges(),
        build_seconds,
        sweep_seconds,
        sweep_seconds_one_thread,
        threads: rayon::current_num_threads(),
    })
}

fn limited(p: Procs) -> u32 {
    match p {
        Procs::Limited(p) => p,
        Procs::Unlimited => 0,
    }
}

fn ratio_at(row: &crate::sched::SweepRow) -> f64 {
    round4(row.makespan as f64 / row.lower_bound.max(1.0))
}

/// The schedule quality of `case`'s graph under fifo and cp over P = 1..=150.
pub fn quality(case: &Case) -> Result<Vec<QualityRow>, SimBenchError> {
    let g = (case.build)().map_err(|source| SimBenchError::Build { case: case.name, source })?;
    Ok(sweep_both(case.name, &g)?
        .into_iter()
        .map(|(policy, rows)| {
            let (ratio, at) = worst_ratio(&rows, |r| r.lower_bound).expect("150 rows");
            let (level_ratio, level_at) = worst_ratio(&rows, |r| r.level_bound).expect("150 rows");
            let first = &rows[0];
            QualityRow {
                case: case.name.to_string(),
                policy,
                jobs: g.len(),
                edges: g.edges(),
                work: first.work,
                critical_path: first.critical_path,
                w_over_cp: first.work as f64 / first.critical_path.max(1) as f64,
                worst_ratio: round4(ratio),
                worst_at: limited(at),
                worst_level_ratio: round4(level_ratio),
                worst_level_at: limited(level_at),
                ratio_p2: ratio_at(&rows[1]),
                ratio_p64: ratio_at(&rows[63]),
                peak_memory_p2: rows[1].peak_memory,
                peak_memory_p150: rows[rows.len() - 1].peak_memory,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graph_s_quality_is_a_row_per_policy_bounded_below_by_one() {
        let case = Case { name: "2x3-orbits", build: || orbits("2x3", None) };
        let rows = quality(&case).unwrap();
        assert_eq!(rows.iter().map(|r| r.policy).collect::<Vec<_>>(), [Policy::Fifo, Policy::Cp]);
        for r in &rows {
            assert!(r.worst_ratio >= 1.0 && r.ratio_p2 >= 1.0 && r.ratio_p64 >= 1.0, "{r:?}");
            assert!(r.worst_ratio >= r.ratio_p2 && (1..=MAX_PROCS).contains(&r.worst_at), "{r:?}");
            assert!(r.worst_level_ratio <= r.worst_ratio, "the level bound is the tighter: {r:?}");
            assert!((r.w_over_cp - r.work as f64 / r.critical_path as f64).abs() < 1e-9);
        }
        let mut csv = csv::Writer::from_writer(Vec::new());
        csv.serialize(&rows[0]).unwrap();
        let text = String::from_utf8(csv.into_inner().unwrap()).unwrap();
        assert_eq!(
            text.lines().next().unwrap(),
            "case,policy,jobs,edges,work,critical_path,w_over_cp,worst_ratio,worst_at,worst_level_ratio,\
             worst_level_at,ratio_p2,ratio_p64,peak_memory_p2,peak_memory_p150"
        );
    }
}
