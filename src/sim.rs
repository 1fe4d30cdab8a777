//! The discrete-event simulator: replays a job graph on P identical processors (or as many
//! as it can use) and measures makespan, bounds, busy processors and resident memory.
//!
//! Events (job completions) live in a `priority_queue::PriorityQueue` ordered by (integer
//! time, sequence number), so equal times resolve the same way every run and the output is
//! byte-for-byte reproducible. A job is ready when every job it needs has finished; ready jobs
//! start, best first by the policy, while a processor is free (and, with a memory limit, while
//! their output fits). A job occupies its processor for its *duration*: per-job overhead
//! (dispatch latency), the transfer of its inputs at `bandwidth` bytes per tick, and its cost.
//! Memory: a job's output is resident from its start until every job needing it has
//! finished (a job nothing needs frees it when it finishes).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::str::FromStr;

use priority_queue::PriorityQueue;
use rayon::prelude::*;
use serde::{Serialize, Serializer};

use crate::graph::Graph;

/// Processors: a number, or as many as the graph can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Procs {
    Limited(u32),
    Unlimited,
}

impl fmt::Display for Procs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Procs::Limited(p) => write!(f, "{p}"),
            Procs::Unlimited => f.write_str("unlimited"),
        }
    }
}

impl Serialize for Procs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Procs::Limited(p) => s.serialize_u32(*p),
            Procs::Unlimited => s.serialize_str("unlimited"),
        }
    }
}

/// A list of processor counts: items separated by commas, each `N`, `A..B` (inclusive) or
/// `unlimited`, e.g. `1..150`, `1,2,4,8`, `1..64,unlimited`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcsList(pub Vec<Procs>);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "processor list '{0}' is not valid: give counts >= 1 as N, A..B or 'unlimited', separated by commas (e.g. 1..150 or 1,2,4,8)"
)]
pub struct ProcsError(String);

impl FromStr for ProcsList {
    type Err = ProcsError;

    fn from_str(s: &str) -> Result<ProcsList, ProcsError> {
        let bad = || ProcsError(s.to_string());
        let count = |t: &str| t.trim().parse::<u32>().ok().filter(|&p| p >= 1).ok_or_else(bad);
        let mut list = Vec::new();
        for item in s.split(',') {
            let item = item.trim();
            if item == "unlimited" {
                list.push(Procs::Unlimited);
            } else if let Some((a, b)) = item.split_once("..") {
                let (a, b) = (count(a)?, count(b)?);
                if a > b {
                    return Err(bad());
                }
                list.extend((a..=b).map(Procs::Limited));
            } else {
                list.push(Procs::Limited(count(item)?));
            }
        }
        list.sort();
        list.dedup();
        Ok(ProcsList(list))
    }
}

/// Which ready job starts first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// In the order jobs became ready (the thesis).
    Fifo,
    /// Longest remaining path (the job's duration and the longest chain after it) first.
    Cp,
    /// Longest duration first.
    Largest,
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Policy::Fifo => "fifo",
            Policy::Cp => "cp",
            Policy::Largest => "largest",
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimOptions {
    pub policy: Policy,
    /// Ticks added to every job (dispatch latency).
    pub overhead: u64,
    /// Bytes per tick for moving a job's inputs to its processor; None: no transfers.
    pub bandwidth: Option<u64>,
    /// Most bytes of job outputs resident at once; None: no limit.
    pub mem_limit: Option<u64>,
}

impl Default for SimOptions {
    fn default() -> SimOptions {
        SimOptions { policy: Policy::Fifo, overhead: 0, bandwidth: None, mem_limit: None }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("--bandwidth must be at least 1 byte per tick")]
    ZeroBandwidth,
    #[error(
        "--mem-limit {limit} is too small: job '{job}' needs {needs} bytes while {resident} bytes are held for jobs that cannot run before it"
    )]
    MemLimit { limit: u64, job: String, needs: u64, resident: u64 },
}

/// One line of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepRow {
    pub procs: Procs,
    pub makespan: u64,
    /// Sum of durations.
    pub work: u64,
    /// Longest path of durations.
    pub critical_path: u64,
    /// max(CP, W/P): no schedule is shorter.
    pub lower_bound: f64,
    /// A tighter bound from the levels: the jobs that cannot start before t need W(t)/P
    /// more, and the jobs with a tail of at least t after them need W'(t)/P before it.
    pub level_bound: f64,
    /// W/P + (1 - 1/P) CP: Graham's bound on any list schedule.
    pub graham_bound: f64,
    /// W / makespan (the makespan on one processor is W).
    pub speedup: f64,
    /// Speedup per processor (unlimited: per processor ever busy at once).
    pub efficiency: f64,
    /// Processors busy on average over the makespan.
    pub avg_busy: f64,
    pub max_busy: u32,
    pub peak_memory: u64,
}

/// A job's run in a recorded simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    pub job: u32,
    pub proc: u32,
    pub start: u64,
    pub end: u64,
}

/// A simulation with its record: the spans of every job and the busy-processor steps
/// `(time, busy from then on)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub row: SweepRow,
    pub spans: Vec<Span>,
    pub busy: Vec<(u64, u32)>,
}

/// A graph with everything the simulations of one option set share: durations, bounds,
/// policy priorities.
pub struct Simulator<'g> {
    graph: &'g Graph,
    opts: SimOptions,
    duration: Vec<u64>,
    /// Higher starts first (fifo: unused).
    priority: Vec<u64>,
    work: u64,
    critical_path: u64,
    /// (t, work of the jobs whose earliest start or whose tail is at least t), per distinct t:
    /// every such pair bounds the makespan by t + work / P.
    level_cuts: Vec<(u64, u64)>,
}

/// For each distinct level t, the total duration of the jobs at level t or more.
fn cuts(level: &[u64], duration: &[u64]) -> Vec<(u64, u64)> {
    let mut order: Vec<usize> = (0..level.len()).collect();
    order.sort_unstable_by_key(|&i| std::cmp::Reverse(level[i]));
    let mut out: Vec<(u64, u64)> = Vec::new();
    let mut work = 0;
    for i in order {
        work += duration[i];
        match out.last_mut() {
            Some(last) if last.0 == level[i] => last.1 = work,
            _ => out.push((level[i], work)),
        }
    }
    out
}

/// Four decimals: enough for every ratio reported, and stable text.
fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

impl<'g> Simulator<'g> {
    pub fn new(graph: &'g Graph, opts: SimOptions) -> Result<Simulator<'g>, SimError> {
        if opts.bandwidth == Some(0) {
            return Err(SimError::ZeroBandwidth);
        }
        let duration: Vec<u64> = (0..graph.len())
            .map(|i| {
                let transfer = opts.bandwidth.map_or(0, |b| {
                    graph.needs(i).iter().map(|&k| graph.jobs[k as usize].bytes).sum::<u64>().div_ceil(b)
                });
                opts.overhead + transfer + graph.jobs[i].cost
            })
            .collect();
        let levels = graph.bottom_levels(|i| duration[i]);
        let critical_path = levels.iter().copied().max().unwrap_or(0);
        let tops = graph.top_levels(|i| duration[i]);
        let tails: Vec<u64> = levels.iter().zip(&duration).map(|(b, d)| b - d).collect();
        let mut level_cuts = cuts(&tops, &duration);
        level_cuts.extend(cuts(&tails, &duration));
        let priority = match opts.policy {
            Policy::Fifo => Vec::new(),
            Policy::Cp => levels,
            Policy::Largest => duration.clone(),
        };
        Ok(Simulator { graph, opts, work: duration.iter().sum(), duration, priority, critical_path, level_cuts })
    }

    pub fn work(&self) -> u64 {
        self.work
    }

    pub fn critical_path(&self) -> u64 {
        self.critical_path
    }

    /// Duration of job `i` in ticks.
    pub fn duration(&self, i: usize) -> u64 {
        self.duration[i]
    }

    /// Simulates on `procs` processors; `record` keeps the spans and busy steps.
    pub fn run(&self, procs: Procs, record: bool) -> Result<Run, SimError> {
        let g = self.graph;
        let n = g.len();
        let cap = match procs {
            Procs::Limited(p) => p as usize,
            Procs::Unlimited => usize::MAX,
        };
        let mut missing: Vec<u32> = (0..n).map(|i| g.needs(i).len() as u32).collect();
        let mut holders: Vec<u32> = (0..n).map(|i| g.needed_by(i).len() as u32).collect();
        // Ready jobs: (policy priority, tie-break, job); the tie-break is the order they became
        // ready for fifo, the job's index otherwise, so the largest entry is the one to start.
        let mut ready: BinaryHeap<(u64, Reverse<u64>, u32)> = BinaryHeap::new();
        let mut ready_seq = 0u64;
        let make_ready = |ready: &mut BinaryHeap<_>, seq: &mut u64, i: u32| {
            let entry = match self.opts.policy {
                Policy::Fifo => (0, Reverse(*seq), i),
                _ => (self.priority[i as usize], Reverse(i as u64), i),
            };
            *seq += 1;
            ready.push(entry);
        };
        for (i, _) in missing.iter().enumerate().filter(|(_, m)| **m == 0) {
            make_ready(&mut ready, &mut ready_seq, i as u32);
        }
        let mut events: PriorityQueue<u32, Reverse<(u64, u64)>> = PriorityQueue::with_capacity(cap.min(n));
        let mut event_seq = 0u64;
        let mut free: BinaryHeap<Reverse<u32>> = BinaryHeap::new();
        let mut next_proc = 0u32;
        let mut proc_of = vec![0u32; n];
        let (mut running, mut max_busy) = (0usize, 0usize);
        let (mut resident, mut peak) = (0u64, 0u64);
        let mut spans = Vec::new();
        let mut busy: Vec<(u64, u32)> = Vec::new();
        let mut held = Vec::new();
        let mut now = 0u64;
        loop {
            // Start what can start now.
            while running < cap {
                let Some(entry) = ready.pop() else { break };
                let i = entry.2 as usize;
                let bytes = g.jobs[i].bytes;
                if self.opts.mem_limit.is_some_and(|limit| resident + bytes > limit) {
                    held.push(entry);
                    continue;
                }
                resident += bytes;
                peak = peak.max(resident);
                let proc = free.pop().map_or_else(
                    || {
                        next_proc += 1;
                        next_proc - 1
                    },
                    |Reverse(p)| p,
                );
                proc_of[i] = proc;
                let end = now + self.duration[i];
                events.push(entry.2, Reverse((end, event_seq)));
                event_seq += 1;
                running += 1;
                if record {
                    spans.push(Span { job: entry.2, proc, start: now, end });
                }
            }
            if !held.is_empty() {
                if running == 0 {
                    let &(_, _, i) = held.iter().max().expect("held");
                    return Err(SimError::MemLimit {
                        limit: self.opts.mem_limit.unwrap_or(0),
                        job: g.jobs[i as usize].name.clone(),
                        needs: g.jobs[i as usize].bytes,
                        resident,
                    });
                }
                ready.extend(held.drain(..));
            }
            max_busy = max_busy.max(running);
            if record {
                match busy.last_mut() {
                    Some(last) if last.1 == running as u32 => {}
                    Some(last) if last.0 == now => last.1 = running as u32,
                    _ => busy.push((now, running as u32)),
                }
            }
            // Finish every job that ends at the next event time.
            let Some((_, &Reverse((t, _)))) = events.peek() else { break };
            now = t;
            while let Some((_, &Reverse((t, _)))) = events.peek() {
                if t != now {
                    break;
                }
                let (job, _) = events.pop().expect("peeked");
                let i = job as usize;
                running -= 1;
                free.push(Reverse(proc_of[i]));
                for &k in g.needs(i) {
                    holders[k as usize] -= 1;
                    if holders[k as usize] == 0 {
                        resident -= g.jobs[k as usize].bytes;
                    }
                }
                if g.needed_by(i).is_empty() {
                    resident -= g.jobs[i].bytes;
                }
                for &k in g.needed_by(i) {
                    missing[k as usize] -= 1;
                    if missing[k as usize] == 0 {
                        make_ready(&mut ready, &mut ready_seq, k);
                    }
                }
            }
        }
        debug_assert!(missing.iter().all(|&m| m == 0), "every job ran");
        let makespan = now;
        let (w, cp) = (self.work as f64, self.critical_path as f64);
        let (lower_bound, graham_bound, per) = match procs {
            Procs::Limited(p) => {
                let p = p as f64;
                ((w / p).max(cp), w / p + (1.0 - 1.0 / p) * cp, p)
            }
            Procs::Unlimited => (cp, cp, max_busy.max(1) as f64),
        };
        let level_bound = match procs {
            Procs::Limited(p) => {
                self.level_cuts.iter().map(|&(t, work)| t as f64 + work as f64 / p as f64).fold(lower_bound, f64::max)
            }
            Procs::Unlimited => cp,
        };
        let speedup = if makespan == 0 { 1.0 } else { w / makespan as f64 };
        let row = SweepRow {
            procs,
            makespan,
            work: self.work,
            critical_path: self.critical_path,
            lower_bound: round4(lower_bound),
            level_bound: round4(level_bound),
            graham_bound: round4(graham_bound),
            speedup: round4(speedup),
            efficiency: round4(speedup / per),
            avg_busy: round4(speedup),
            max_busy: max_busy as u32,
            peak_memory: peak,
        };
        Ok(Run { row, spans, busy })
    }

    /// One row per processor count, simulated in parallel, in the order given.
    pub fn sweep(&self, procs: &[Procs]) -> Result<Vec<SweepRow>, SimError> {
        procs.par_iter().map(|&p| self.run(p, false).map(|r| r.row)).collect()
    }
}
