//! `dab bench --suite sim`: the simulator's speed on the thesis's 4x4 quadrant graph, and the
//! quality of its schedules (worst makespan / lower bound over a sweep) on the thesis's graphs
//! and on the orbit graphs `dab` itself runs, with and without subpartitions.

use std::time::Instant;

use serde::Serialize;

use dab::game::Position;
use dab::report::sweep::worst_ratio;
use dab::sched::{
    CostSpec, Graph, PieceDeps, Policy, Procs, QuadrantSymmetry, SchemeError, SimError, SimOptions, Simulator, Split,
};
use dab::solver::Space;
use dab::support::round4;

/// Processor counts of every sweep here.
pub const MAX_PROCS: u32 = 150;

/// A graph of the benchmark, by how it is built.
pub struct Case {
    pub name: &'static str,
    build: fn() -> Result<Graph, SchemeError>,
}

fn split(threshold: u64, max_pieces: u32, deps: PieceDeps) -> Option<Split> {
    Some(Split { threshold, max_pieces, deps })
}

fn quadrants(split: Option<Split>) -> Result<Graph, SchemeError> {
    dab::sched::quadrants("4x4".parse().expect("board"), QuadrantSymmetry::Dih8, &CostSpec::States, split.as_ref())
}

fn orbits(board: &str, split: Option<Split>) -> Result<Graph, SchemeError> {
    let space = Space::new(Position::empty(board.parse().expect("board")), None)?;
    dab::sched::orbits(&space, &CostSpec::States, split.as_ref())
}

/// The speed case: the 4x4 quadrants, dih8, split at 2e8 states into at most 20.
pub const SPEED_CASE: Case =
    Case { name: "4x4-quadrants-dih8-split", build: || quadrants(split(200_000_000, 20, PieceDeps::Whole)) };

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

#[derive(Debug, thiserror::Error)]
pub enum SimBenchError {
    #[error("case {case}: {source}")]
    Build { case: &'static str, source: SchemeError },
    #[error("case {case}: {source}")]
    Sim { case: &'static str, source: SimError },
}

/// The speed of one sweep of P = 1..=150 under fifo and cp.
#[derive(Clone, Debug, Serialize)]
pub struct SpeedRow {
    pub case: String,
    pub jobs: usize,
    pub edges: usize,
    pub build_seconds: f64,
    /// Both policies, P = 1..=150, on every core.
    pub sweep_seconds: f64,
    /// The same on one thread.
    pub sweep_seconds_one_thread: f64,
    pub threads: usize,
}

/// Schedule quality of one graph under one policy.
#[derive(Clone, Debug, Serialize)]
pub struct QualityRow {
    pub case: String,
    pub policy: Policy,
    pub jobs: usize,
    pub edges: usize,
    pub work: u64,
    pub critical_path: u64,
    pub w_over_cp: f64,
    /// Largest makespan / max(CP, W/P) over P = 1..=150, and the P where it happens.
    pub worst_ratio: f64,
    pub worst_at: u32,
    /// The same against the level bound (tighter, so closer to the schedule's true distance
    /// from the optimum).
    pub worst_level_ratio: f64,
    pub worst_level_at: u32,
    /// makespan / lower bound at P = 2 (this machine) and P = 64.
    pub ratio_p2: f64,
    pub ratio_p64: f64,
    pub peak_memory_p2: u64,
    pub peak_memory_p150: u64,
}

fn all_procs() -> Vec<Procs> {
    (1..=MAX_PROCS).map(Procs::Limited).collect()
}

fn sweep_both(case: &'static str, g: &Graph) -> Result<Vec<(Policy, Vec<dab::sched::SweepRow>)>, SimBenchError> {
    [Policy::Fifo, Policy::Cp]
        .into_iter()
        .map(|policy| {
            let sim = Simulator::new(g, SimOptions { policy, ..Default::default() })
                .map_err(|source| SimBenchError::Sim { case, source })?;
            sim.sweep(&all_procs()).map(|rows| (policy, rows)).map_err(|source| SimBenchError::Sim { case, source })
        })
        .collect()
}

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

fn ratio_at(row: &dab::sched::SweepRow) -> f64 {
    round4(row.makespan as f64 / row.lower_bound.max(1.0))
}

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
