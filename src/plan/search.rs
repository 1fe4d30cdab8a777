//! The planner: builds candidate graphs of a solve (several groupings, with and without
//! subpartitions), costs them with the calibrated model, simulates each on P = 1..max(P, 64)
//! processors with the memory model, and picks the one with the least predicted makespan at P
//! that fits the memory limit (near ties, within half a percent: fewer jobs).

use crate::game::Position;
use crate::sched::{CostModel, CostSpec, Graph, PieceDeps, Policy, Procs, SimOptions, Simulator, Split, orbits};
use crate::solver::{Space, SpaceError};

use super::file::{Candidate, Plan, PlanError, Prediction};

/// Processor counts every plan predicts, at least.
pub(super) const MIN_SWEEP: u32 = 64;
/// Most pieces of a split partition.
pub(super) const MAX_PIECES: u32 = 64;
/// Relative difference under which two predictions tie.
const TIE: f64 = 0.005;

#[derive(Clone, Debug)]
pub struct PlanOptions {
    pub threads: u32,
    pub mem_limit: Option<u64>,
    pub model: CostModel,
    /// Group counts to try (None: the default one and its neighbours).
    pub groups: Option<Vec<usize>>,
    /// The run writes every job to a store: each job's cost includes its write.
    pub store: bool,
    /// Ticks (ns) added to every job: a cluster's dispatch latency (`dab cluster-trace`).
    pub overhead: u64,
    /// Split partitions of more than this many states, instead of trying the default splits.
    pub split: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
pub enum PlannerError {
    #[error("--threads must be at least 1")]
    ZeroThreads,
    #[error("no grouping of this position can be solved: {0}")]
    NoGrouping(SpaceError),
    #[error(
        "no candidate fits in --mem-limit {limit} bytes on {threads} threads: the smallest needs {least} bytes (its largest job with every partition that job reads)"
    )]
    NoFit { limit: u64, threads: u32, least: u64 },
    #[error(transparent)]
    Plan(#[from] PlanError),
}

/// One simulated candidate.
pub struct SimulatedCandidate {
    pub space: Space,
    pub graph: Graph,
    pub candidate: Candidate,
    /// Predicted seconds and peak memory for P = 1..=sweep (None where memory cannot fit).
    pub predictions: Vec<Option<Prediction>>,
    /// W / CP of the graph: the most any number of processors can speed it up.
    pub ceiling: f64,
}

impl SimulatedCandidate {
    pub fn label(&self) -> String {
        let split =
            self.candidate.split.map_or("no split".to_string(), |s| format!("split at {:.0e}", s.threshold as f64));
        format!("{} groups, {split}", self.candidate.groups)
    }
}

pub struct PlanChoice {
    pub plan: Plan,
    pub candidates: Vec<SimulatedCandidate>,
    pub chosen: usize,
}

/// Split thresholds worth trying on a space: none, and fractions of its largest partition.
fn splits(space: &Space, forced: Option<u64>) -> Vec<Option<Split>> {
    if let Some(threshold) = forced {
        return vec![Some(Split { threshold, max_pieces: MAX_PIECES, deps: PieceDeps::Fine })];
    }
    let largest = space.keys().iter().map(|k| space.partition_len(k) as u64).max().unwrap_or(0);
    let mut out = vec![None];
    for parts in [4, 16] {
        let threshold = largest / parts;
        if threshold >= 10_000 {
            out.push(Some(Split { threshold, max_pieces: MAX_PIECES, deps: PieceDeps::Fine }));
        }
    }
    out
}

/// How the planner simulates: `cp`, the memory limit, and with a store, values a memory limit
/// drops read back at the measured rate.
fn sim_options(opts: &PlanOptions) -> SimOptions {
    SimOptions {
        policy: Policy::Cp,
        mem_limit: opts.mem_limit,
        overhead: opts.overhead,
        reload_ps_per_byte: if opts.store { (opts.model.store_read_per_byte_ns * 1000.0).round() as u64 } else { 0 },
        ..Default::default()
    }
}

/// Simulates `graph` for P = 1..=sweep under the model.
fn predict(graph: &Graph, opts: &PlanOptions, sweep: u32) -> Vec<Option<Prediction>> {
    let sim = Simulator::new(graph, sim_options(opts)).expect("no zero bandwidth");
    let procs: Vec<Procs> = (1..=sweep).map(Procs::Limited).collect();
    procs
        .iter()
        .map(|&p| {
            let Procs::Limited(n) = p else { unreachable!() };
            let factor = opts.model.contention(n as usize);
            sim.run(p, false).ok().map(|r| Prediction {
                procs: n,
                makespan_seconds: r.row.makespan as f64 * factor / 1e9,
                peak_memory: r.row.peak_memory,
                job_factor: factor,
            })
        })
        .collect()
}

pub fn plan(root: Position, opts: &PlanOptions) -> Result<PlanChoice, PlannerError> {
    if opts.threads == 0 {
        return Err(PlannerError::ZeroThreads);
    }
    let sweep = opts.threads.max(MIN_SWEEP);
    let default = Space::default_groups(root);
    let group_counts = opts
        .groups
        .clone()
        .unwrap_or_else(|| [default.saturating_sub(1), default, default + 1].into_iter().filter(|&g| g >= 1).collect());
    let cost = CostSpec::Model(opts.model.clone());
    let mut candidates = Vec::new();
    let mut first_error = None;
    for &g in &group_counts {
        let space = match Space::new(root, Some(g)) {
            Ok(s) => s,
            Err(e) => {
                first_error.get_or_insert(e);
                continue;
            }
        };
        for split in splits(&space, opts.split) {
            let mut graph = orbits(&space, &cost, split.as_ref()).expect("valid split");
            if opts.store {
                for j in &mut graph.jobs {
                    j.cost += opts.model.store_nanoseconds(j.bytes);
                }
            }
            let predictions = predict(&graph, opts, sweep);
            let at = predictions[opts.threads as usize - 1].as_ref();
            let cp = graph.critical_path().max(1);
            candidates.push(SimulatedCandidate {
                candidate: Candidate {
                    groups: g,
                    split,
                    jobs: graph.len(),
                    predicted_seconds: at.map_or(f64::INFINITY, |p| p.makespan_seconds),
                    peak_memory: at.map_or(0, |p| p.peak_memory),
                    fits: at.is_some(),
                },
                ceiling: graph.work() as f64 / cp as f64,
                predictions,
                space: space.clone(),
                graph,
            });
        }
    }
    if candidates.is_empty() {
        return Err(PlannerError::NoGrouping(first_error.expect("a grouping was tried")));
    }
    let chosen = choose(&candidates).ok_or_else(|| PlannerError::NoFit {
        limit: opts.mem_limit.unwrap_or(0),
        threads: opts.threads,
        least: least_memory(&candidates),
    })?;
    let mut plan = plan_for(&candidates[chosen], opts)?;
    plan.candidates = candidates.iter().map(|c| c.candidate.clone()).collect();
    plan.reason = reason(&candidates, chosen, opts);
    Ok(PlanChoice { plan, candidates, chosen })
}

/// The plan of one candidate, with its predictions.
pub fn plan_for(c: &SimulatedCandidate, opts: &PlanOptions) -> Result<Plan, PlanError> {
    let machine = Some(opts.model.machine.clone());
    let mut plan = Plan::new(&c.space, &c.graph, c.candidate.split, Policy::Cp, opts.threads, "ns", machine)?;
    plan.mem_limit = opts.mem_limit;
    plan.store_writes = opts.store;
    plan.reload_ps_per_byte = sim_options(opts).reload_ps_per_byte;
    plan.predicted_seconds = c.candidate.predicted_seconds;
    plan.predicted_peak_memory = c.candidate.peak_memory;
    plan.predictions = c.predictions.iter().flatten().cloned().collect();
    Ok(plan)
}

/// The fitting candidate with the least predicted time; near ties go to fewer jobs.
fn choose(candidates: &[SimulatedCandidate]) -> Option<usize> {
    let fitting: Vec<usize> = (0..candidates.len()).filter(|&i| candidates[i].candidate.fits).collect();
    let best = fitting.iter().map(|&i| candidates[i].candidate.predicted_seconds).fold(f64::INFINITY, f64::min);
    fitting
        .into_iter()
        .filter(|&i| candidates[i].candidate.predicted_seconds <= best * (1.0 + TIE))
        .min_by_key(|&i| (candidates[i].candidate.jobs, i))
}

/// The least peak memory any candidate needs on one processor without a limit.
fn least_memory(candidates: &[SimulatedCandidate]) -> u64 {
    candidates.iter().map(|c| crate::sched::least_limit(&c.graph)).min().unwrap_or(0)
}

/// Why the chosen candidate won, in a sentence or two.
fn reason(candidates: &[SimulatedCandidate], chosen: usize, opts: &PlanOptions) -> String {
    let c = &candidates[chosen];
    let mut text = format!(
        "{}: predicted {:.2} s on {} thread(s), peak {:.1} MB, {} jobs",
        c.label(),
        c.candidate.predicted_seconds,
        opts.threads,
        c.candidate.peak_memory as f64 / 1e6,
        c.candidate.jobs
    );
    let runner_up = (0..candidates.len()).filter(|&i| i != chosen && candidates[i].candidate.fits).min_by(|&a, &b| {
        candidates[a].candidate.predicted_seconds.total_cmp(&candidates[b].candidate.predicted_seconds)
    });
    if let Some(r) = runner_up {
        let o = &candidates[r];
        let gap = o.candidate.predicted_seconds / c.candidate.predicted_seconds - 1.0;
        text += &if gap.abs() <= TIE {
            format!(
                "; {} is as fast ({:.2} s) but has {} jobs",
                o.label(),
                o.candidate.predicted_seconds,
                o.candidate.jobs
            )
        } else {
            format!("; next best {} at {:.2} s ({:+.1} %)", o.label(), o.candidate.predicted_seconds, 100.0 * gap)
        };
    }
    let unfit = candidates.iter().filter(|c| !c.candidate.fits).count();
    if unfit > 0 {
        text += &format!("; {unfit} candidate(s) do not fit in {} bytes", opts.mem_limit.unwrap_or(0));
    }
    text
}
