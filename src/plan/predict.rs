//! Prediction of a plan by simulation: the schedule `dab compare` measures a run against (the
//! plan's graph replayed on the run's thread count with the plan's memory limit and read-back
//! rate), and the store's disk use along that schedule, counted as the executor counts it.

use crate::sched::{
    Graph, PROGRAM_BYTES, Policy, Procs, Run, SimError, SimOptions, Simulator, predicted_peak, values_limit,
};

use super::file::Plan;
use super::ready::ReadyPlan;

/// The plan's schedule on `p` threads, recorded, simulated as the planner did: its memory
/// limit, the values it drops read back, its contention curve, the worker's time between
/// jobs, and `overhead` ticks a job.
pub fn simulate(plan: &Plan, graph: &Graph, p: u32, overhead: u64) -> Result<Run, SimError> {
    simulate_with(plan, graph, p, overhead, true)
}

/// [`simulate`], recording the spans and busy steps only when `record`.
pub fn simulate_with(plan: &Plan, graph: &Graph, p: u32, overhead: u64, record: bool) -> Result<Run, SimError> {
    Simulator::new(graph, sim_options(plan, p, overhead))?
        .with_contention(&plan.contention)
        .run(Procs::Limited(p), record)
}

/// How [`simulate`] simulates `plan` on `p` threads with `overhead` ticks a job.
pub fn sim_options(plan: &Plan, p: u32, overhead: u64) -> SimOptions {
    // A plan whose space cannot be built is refused by `Plan::check` before any run; here it
    // is simulated with the program's bytes alone.
    let mem_limit = plan.values_limit(p).unwrap_or_else(|_| values_limit(plan.mem_limit, PROGRAM_BYTES, p));
    SimOptions {
        policy: Policy::Cp,
        overhead,
        mem_limit,
        reload_ps_per_byte: plan.reload_ps_per_byte,
        between_jobs: plan.between_jobs_ns,
        release_ps_per_byte: plan.release_ps_per_byte,
        ..Default::default()
    }
}

/// What a plan's run will leave in its store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorePrediction {
    /// Most bytes of values in files at once.
    pub peak: u64,
    /// Bytes left at the end: every job's, or only the book's.
    pub left: u64,
    /// Bytes written: every job's values.
    pub written: u64,
    /// Bytes read back after a memory limit dropped them.
    pub read_back: u64,
}

/// The store of `plan` run on `threads` threads, keeping a book of at most `keep_lines` lines,
/// from the schedule `dab compare` simulates (jobs ending at once: the lower first).
pub fn predict_store(
    plan: &Plan,
    checked: &ReadyPlan,
    threads: u32,
    keep_lines: Option<usize>,
) -> Result<StorePrediction, SimError> {
    let run = simulate(plan, &checked.graph, threads, 0)?;
    let mut ends: Vec<(u64, usize)> = run.spans.iter().map(|s| (s.end, s.job as usize)).collect();
    ends.sort_unstable();
    let kept = |k: usize| checked.in_book(k, keep_lines);
    let peak = predicted_peak(&checked.graph, ends.into_iter().map(|(_, j)| j), kept);
    let left = (0..checked.graph.len()).filter(|&k| kept(k)).map(|k| checked.graph.jobs[k].bytes).sum();
    let written = checked.graph.jobs.iter().map(|j| j.bytes).sum();
    Ok(StorePrediction { peak, left, written, read_back: run.reloaded_bytes })
}
