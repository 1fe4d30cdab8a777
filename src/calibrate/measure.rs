//! Timing runs: whole solves on the executor, every job's median time with the features the
//! cost model prices, at each thread count asked, repeated in turn so that every count sees
//! the same moments of a shared machine.

use std::collections::HashMap;

use serde::Serialize;

use crate::exec::execute;
use crate::game::Position;
use crate::plan::ReadyPlan;
use crate::sched::{CostSpec, JobFeatures, Residency, orbits_with_features};
use crate::solver::{Space, SpaceError};
use crate::support::median;

use super::in_solve::busy_profile;

/// One job's measured time with its features.
#[derive(Clone, Debug, Serialize)]
pub struct Sample {
    /// The case solved: its board (`MxN`), with `@U` where U lines were left undrawn.
    pub board: String,
    /// Groups of its space.
    pub groups: usize,
    /// Threads of the run it was timed in.
    pub threads: usize,
    /// The job's name.
    pub job: String,
    /// Positions it computes.
    pub states: u64,
    /// Kernel rows it computes.
    pub rows: u64,
    /// Moves it examines in the outer groups, summed over its positions.
    pub outer_moves: u64,
    /// Inner moves it makes through byte gathers, 64 lanes at a time.
    pub inner_moves: u64,
    /// Inner moves it makes in runs.
    pub run_inner_moves: u64,
    /// Inner moves it makes one lane at a time.
    pub lane_inner_moves: u64,
    /// Bytes of the job outputs it reads.
    pub input_bytes: u64,
    /// Passes over a row for outer moves.
    pub outer_passes: u64,
    /// Passes over a row for inner lines.
    pub inner_passes: u64,
    /// Outer moves gathered lane by lane from a turned successor row.
    pub turned_moves: u64,
    /// Input bytes read back from memory rather than the cache (this machine's last level).
    pub cold_input_bytes: u64,
    /// Median seconds from its start to its end over the repeats.
    pub seconds: f64,
}

impl Sample {
    /// The features the cost model prices.
    pub fn features(&self) -> JobFeatures {
        JobFeatures {
            states: self.states,
            rows: self.rows,
            outer_moves: self.outer_moves,
            inner_moves: self.inner_moves,
            run_inner_moves: self.run_inner_moves,
            lane_inner_moves: self.lane_inner_moves,
            input_bytes: self.input_bytes,
            outer_passes: self.outer_passes,
            inner_passes: self.inner_passes,
            turned_moves: self.turned_moves,
            cold_input_bytes: self.cold_input_bytes,
        }
    }
}

/// A whole solve timed at one thread count.
#[derive(Clone, Debug)]
pub struct Timing {
    /// Every job's median time with its features, in the plan's job order.
    pub samples: Vec<Sample>,
    /// Median wall seconds of the solve.
    pub seconds: f64,
    /// Per job, the seconds it ran with 1, 2, ... of the count's threads busy (itself
    /// included), summed over the repeats: what contention it met.
    pub busy: Vec<Vec<f64>>,
    /// On one thread, per job but the last of each repeat: the bytes of output its end gave
    /// back (the inputs it was the last to read) and the seconds until the next job began.
    pub gaps: Vec<(u64, f64)>,
}

/// The gaps of a one-thread run's `spans` (job, start, end): after each job, the bytes its
/// end gave back (replayed by the [`Residency`] the executor frees by) and the seconds until
/// the next job began.
fn gaps(plan: &ReadyPlan, spans: &[(usize, f64, f64)]) -> Vec<(u64, f64)> {
    let g = &plan.graph;
    let mut memory = Residency::new(g, None, false);
    let mut order: Vec<&(usize, f64, f64)> = spans.iter().collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    order
        .windows(2)
        .map(|w| {
            let (job, _, end) = *w[0];
            memory.try_start(job, g.needs(job));
            let freed = memory.finish(job, g.needs(job)).iter().map(|&k| g.jobs[k as usize].bytes).sum();
            (freed, (w[1].1 - end).max(0.0))
        })
        .collect()
}

/// Runs a whole solve of `root` (named `case` in the samples) on the executor on each thread count of `threads`, `repeats`
/// times in turn (so that every count sees the same moments of a shared machine), and returns
/// per thread count every job's median time with its features, how many threads were busy
/// while it ran, and the median wall time. `pace` is called before each round.
pub fn measure(
    case: &str,
    root: Position,
    groups: Option<usize>,
    threads: &[usize],
    repeats: usize,
    pace: &mut dyn FnMut(),
) -> Result<Vec<Timing>, SpaceError> {
    let space = Space::new(root, groups)?;
    let (graph, features) = orbits_with_features(&space, &CostSpec::States, None).expect("no split");
    let plan = ReadyPlan::from_graph(space, graph).expect("own graph");
    let index: HashMap<&str, usize> = plan.graph.jobs.iter().enumerate().map(|(i, j)| (j.name.as_str(), i)).collect();
    let mut times = vec![vec![Vec::new(); plan.graph.len()]; threads.len()];
    let mut walls = vec![Vec::new(); threads.len()];
    let mut gaps_one = vec![Vec::new(); threads.len()];
    let mut busy: Vec<Vec<Vec<f64>>> = threads.iter().map(|&p| vec![vec![0.0; p.max(1)]; plan.graph.len()]).collect();
    for _ in 0..repeats.max(1) {
        pace();
        for (k, &p) in threads.iter().enumerate() {
            let run = execute(&plan, p, false, None);
            let spans: Vec<(usize, f64, f64)> =
                run.trace.iter().map(|t| (index[t.job.as_str()], t.start, t.end)).collect();
            for &(j, start, end) in &spans {
                times[k][j].push(end - start);
            }
            for (sum, one) in busy[k].iter_mut().zip(busy_profile(&spans, plan.graph.len(), p)) {
                sum.iter_mut().zip(one).for_each(|(s, o)| *s += o);
            }
            walls[k].push(run.seconds);
            if p == 1 {
                gaps_one[k].extend(gaps(&plan, &spans));
            }
        }
    }
    Ok(threads
        .iter()
        .zip(times.iter_mut().zip(&mut walls).zip(busy).zip(gaps_one))
        .map(|(&p, (((times, walls), busy), gaps))| {
            let samples = plan
                .graph
                .jobs
                .iter()
                .zip(&features)
                .zip(times.iter_mut())
                .map(|((job, f), t)| Sample {
                    board: case.to_string(),
                    groups: plan.space.groups.len(),
                    threads: p,
                    job: job.name.clone(),
                    states: f.states,
                    rows: f.rows,
                    outer_moves: f.outer_moves,
                    inner_moves: f.inner_moves,
                    run_inner_moves: f.run_inner_moves,
                    lane_inner_moves: f.lane_inner_moves,
                    input_bytes: f.input_bytes,
                    outer_passes: f.outer_passes,
                    inner_passes: f.inner_passes,
                    turned_moves: f.turned_moves,
                    cold_input_bytes: f.cold_input_bytes,
                    seconds: median(t),
                })
                .collect();
            Timing { samples, seconds: median(walls), busy, gaps }
        })
        .collect())
}
