//! The discrete-event simulator: replays a job graph on P identical processors (or as many
//! as it can use) and measures makespan, bounds, busy processors and resident memory.
//!
//! Events (job completions) pop in [`super::event::EventKey`] order, (integer time, sequence
//! number), so equal times resolve the same way every run and the output is byte-for-byte
//! reproducible. A job is ready when every job it needs has finished; ready jobs
//! start, best first by the policy, while a processor is free (and, with a memory limit, while
//! their output fits). A job occupies its processor for its *duration*: per-job overhead
//! (dispatch latency), the transfer of its inputs at `bandwidth` bytes per tick, its cost, and
//! the worker's time between it and the next job (bookkeeping, and giving back its output's
//! memory, which whoever frees it pays once).
//! With a [`Contention`] curve, every running job progresses at 1 / factor(jobs running) of
//! its cost per tick: a *work clock* advances by the elapsed ticks over that factor, and a job
//! ends when the work clock has advanced by its duration since it started. Events are ordered
//! on the work clock (integer, so the order stays exact) and real time follows it; with no
//! contention the two clocks are one.
//! Memory is counted by [`super::memory::Residency`], as the executor counts it: a job's output
//! is resident from its start until every job needing it has finished; under a memory limit,
//! values that readers still need may be evicted to the store and read back by the next
//! reader, and a job starts only when its output and the inputs it must read back fit.
//!
//! Ticks are `u64` and never wrap: durations and their sum are checked when the simulator is
//! made, and before a replay the longest it could take (every duration, every input read back
//! by every reader, all at the curve's worst slowdown) is checked against `u64::MAX`, so a
//! makespan that would not fit is an error, never a small number.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::support::{Setting, choice, round4};

use super::contention::Contention;
use super::event::{EventQueue, ReadyKey, ReadySet, ticks};
use super::graph::Graph;
use super::memory::Residency;
use super::procs::Procs;

choice! {
    "policy",
    /// Which ready job starts first.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Policy {
        /// In the order jobs became ready (the thesis).
        Fifo = "fifo",
        /// Longest remaining path (the job's cost and the costliest chain after it) first.
        Cp = "cp",
        /// Longest duration first.
        Largest = "largest",
    }
}

/// How a graph is simulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// Which ready job starts first.
    pub policy: Policy,
    /// Ticks added to every job (dispatch latency).
    pub overhead: u64,
    /// Bytes per tick for moving a job's inputs to its processor; None: no transfers.
    pub bandwidth: Option<u64>,
    /// Most bytes of job values resident at once (values evicted to the store are read back
    /// when needed); None: no limit.
    pub mem_limit: Option<u64>,
    /// Picoseconds per byte of reading back values the memory limit dropped (added to the
    /// reading job); 0: free.
    pub reload_ps_per_byte: u64,
    /// Ticks a worker spends after every job before it takes the next (the executor's
    /// bookkeeping under its lock); added to the job.
    pub between_jobs: u64,
    /// Picoseconds per byte of a job's output for giving its memory back when its last reader
    /// has finished (a worker's time, outside every job's span); charged to the job that made
    /// it, since each output is given back once whoever frees it.
    pub release_ps_per_byte: u64,
}

impl Default for SimOptions {
    fn default() -> SimOptions {
        SimOptions {
            policy: Policy::Fifo,
            overhead: 0,
            bandwidth: None,
            mem_limit: None,
            reload_ps_per_byte: 0,
            between_jobs: 0,
            release_ps_per_byte: 0,
        }
    }
}

impl SimOptions {
    /// Ticks added to a job of `bytes` of output for the worker's time between it and the
    /// next: [`SimOptions::between_jobs`] and the release of its output.
    pub fn after(&self, bytes: u64) -> u128 {
        self.between_jobs as u128 + bytes as u128 * self.release_ps_per_byte as u128 / 1000
    }
}

/// Why a simulation cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// The bandwidth is 0 bytes per tick.
    #[error("the bandwidth must be at least 1 byte per tick")]
    ZeroBandwidth,
    /// A simulation on 0 processors.
    #[error("a simulation needs at least 1 processor, not 0")]
    NoProcessors,
    /// A job's duration (overhead, time between jobs, transfer and cost) exceeds `u64::MAX`
    /// ticks.
    #[error(
        "job '{job}': its duration (overhead {overhead} + between jobs {after} + transfer {transfer} + cost {cost} ticks) exceeds the limit of {limit} ticks",
        limit = u64::MAX
    )]
    Duration {
        /// The job.
        job: String,
        /// Ticks of overhead.
        overhead: u64,
        /// Ticks of the worker's time after it.
        after: u128,
        /// Ticks of moving its inputs.
        transfer: u128,
        /// Its cost.
        cost: u64,
    },
    /// The durations add up to more than `u64::MAX` ticks.
    #[error("the job durations add up to more than the limit of {limit} ticks (at job '{job}', overhead {overhead} ticks a job)", limit = u64::MAX)]
    Work {
        /// The job at which the sum overflows.
        job: String,
        /// Ticks of overhead a job.
        overhead: u64,
    },
    /// The makespan could exceed `u64::MAX` ticks: the work and the read-backs, slowed by the
    /// contention.
    #[error(
        "the makespan could exceed the limit of {limit} ticks: {work} ticks of work and up to {reload} of reading back, slowed up to {factor}x by contention",
        limit = u64::MAX
    )]
    Makespan {
        /// Ticks of work (the sum of durations).
        work: u64,
        /// Most ticks of reading back values the memory limit drops.
        reload: u128,
        /// The largest contention factor.
        factor: f64,
    },
    /// A ready job does not fit under the memory limit even with no job running.
    #[error(
        "the memory limit of {limit} bytes is too small: job '{job}' needs {needs} bytes at once (its values and every partition it reads)"
    )]
    MemLimit {
        /// The memory limit, in bytes.
        limit: u64,
        /// The job that cannot start.
        job: String,
        /// Bytes it needs resident at once: its output and every input.
        needs: u64,
    },
}

impl SimError {
    /// The setting refused, if one was.
    pub fn setting(&self) -> Option<Setting> {
        match self {
            SimError::MemLimit { .. } => Some(Setting::MemLimit),
            SimError::ZeroBandwidth => Some(Setting::Bandwidth),
            SimError::NoProcessors | SimError::Duration { .. } | SimError::Work { .. } | SimError::Makespan { .. } => {
                None
            }
        }
    }
}

/// One line of a sweep. Times are in the graph's ticks (ns for a graph costed by a model),
/// `_ticks` in CSV and JSON.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepRow {
    /// Processors simulated (`threads` in CSV and JSON, as every command names them).
    #[serde(rename = "threads")]
    pub procs: Procs,
    /// Ticks until the last job ends.
    #[serde(rename = "makespan_ticks")]
    pub makespan: u64,
    /// Sum of durations.
    #[serde(rename = "work_ticks")]
    pub work: u64,
    /// Longest path of durations.
    #[serde(rename = "critical_path_ticks")]
    pub critical_path: u64,
    /// max(CP, W/P), W/P slowed by the contention with P busy: no schedule is shorter.
    #[serde(rename = "lower_bound_ticks")]
    pub lower_bound: f64,
    /// A tighter bound from the levels: the jobs that cannot start before t need W(t)/P
    /// more, and the jobs with a tail of at least t after them need W'(t)/P before it.
    #[serde(rename = "level_bound_ticks")]
    pub level_bound: f64,
    /// W/P + (1 - 1/P) CP, slowed by the contention with P busy: Graham's bound on any list
    /// schedule.
    #[serde(rename = "graham_bound_ticks")]
    pub graham_bound: f64,
    /// W / makespan (the makespan on one processor is W).
    pub speedup: f64,
    /// Speedup per processor (unlimited: per processor ever busy at once).
    pub efficiency: f64,
    /// Processors busy on average over the makespan.
    pub avg_busy: f64,
    /// Most processors busy at once.
    pub max_busy: u32,
    /// Most bytes of job values resident at once (`peak_value_bytes` in CSV and JSON).
    #[serde(rename = "peak_value_bytes")]
    pub peak_memory: u64,
}

/// A job's run in a recorded simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    /// The job's index in the graph.
    pub job: u32,
    /// The processor it ran on: ids from 0, the lowest free one first.
    pub proc: u32,
    /// Tick it started.
    pub start: u64,
    /// Tick it ended: its start plus its duration and the time to read back evicted inputs
    /// (slowed by the contention while it ran).
    pub end: u64,
}

/// A simulation with its record: the spans of every job and the busy-processor steps
/// `(time, busy from then on)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Its sweep line.
    pub row: SweepRow,
    /// Every job's span, in the order jobs started (empty unless recorded).
    pub spans: Vec<Span>,
    /// `(tick, processors busy from then on)` at every change (empty unless recorded).
    pub busy: Vec<(u64, u32)>,
    /// Bytes of values read back after a memory limit dropped them (0 without a limit).
    pub reloaded_bytes: u64,
}

/// A graph with everything the simulations of one option set share: durations, bounds,
/// policy priorities.
#[derive(Clone)]
pub struct Simulator<'g> {
    graph: &'g Graph,
    opts: SimOptions,
    duration: Vec<u64>,
    /// Most ticks of reading back inputs the memory limit dropped: every input of every job
    /// read back once for it (0 without a limit or a read-back rate).
    reload_bound: u128,
    /// Higher starts first (fifo: unused).
    priority: Vec<u64>,
    work: u64,
    critical_path: u64,
    /// (t, work of the jobs whose earliest start or whose tail is at least t), per distinct t:
    /// every such pair bounds the makespan by t + work / P.
    level_cuts: Vec<(u64, u64)>,
    contention: Contention,
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

impl<'g> Simulator<'g> {
    /// Computes the durations, bounds and priorities of `graph` under `opts`; refuses a
    /// bandwidth of 0, and durations that do not fit `u64` ticks one by one or together.
    pub fn new(graph: &'g Graph, opts: SimOptions) -> Result<Simulator<'g>, SimError> {
        if opts.bandwidth == Some(0) {
            return Err(SimError::ZeroBandwidth);
        }
        let mut duration = Vec::with_capacity(graph.len());
        let mut work = 0u64;
        let mut reload_bound = 0u128;
        for i in 0..graph.len() {
            // u128 sums: a u64 times a u64 per byte cannot overflow them.
            let input: u128 = graph.needs(i).iter().map(|&k| graph.jobs[k as usize].bytes as u128).sum();
            let transfer = opts.bandwidth.map_or(0, |b| input.div_ceil(b as u128));
            let (job, cost) = (&graph.jobs[i], graph.jobs[i].cost);
            let after = opts.after(job.bytes);
            let d = u64::try_from(opts.overhead as u128 + after + transfer + cost as u128).map_err(|_| {
                SimError::Duration { job: job.name.clone(), overhead: opts.overhead, after, transfer, cost }
            })?;
            work =
                work.checked_add(d).ok_or_else(|| SimError::Work { job: job.name.clone(), overhead: opts.overhead })?;
            if opts.mem_limit.is_some() {
                reload_bound += input * opts.reload_ps_per_byte as u128 / 1000;
            }
            duration.push(d);
        }
        let levels = graph.bottom_levels(|i| duration[i]);
        let critical_path = levels.iter().copied().max().unwrap_or(0);
        let tops = graph.top_levels(|i| duration[i]);
        let tails: Vec<u64> = levels.iter().zip(&duration).map(|(b, d)| b - d).collect();
        let mut level_cuts = cuts(&tops, &duration);
        level_cuts.extend(cuts(&tails, &duration));
        let priority = match opts.policy {
            Policy::Fifo => Vec::new(),
            // Ranked by cost, as the executor ranks a plan's jobs: what a worker spends between
            // jobs and a dispatch latency, in the durations, would reorder ties and near-ties,
            // and a one-thread store's predicted peak then missed the run's.
            Policy::Cp => graph.cost_priorities(),
            Policy::Largest => duration.clone(),
        };
        let contention = Contention::default();
        Ok(Simulator { graph, opts, work, duration, reload_bound, priority, critical_path, level_cuts, contention })
    }

    /// This simulator under another memory limit of the same kind (a limit where it had one,
    /// none where it had none): durations, levels and bounds are kept, not recomputed.
    pub fn with_mem_limit(&self, limit: Option<u64>) -> Simulator<'g> {
        debug_assert_eq!(limit.is_some(), self.opts.mem_limit.is_some(), "the read-back bound depends on it");
        let mut sim = self.clone();
        sim.opts.mem_limit = limit;
        sim
    }

    /// This simulator with jobs slowed by `contention` from the number running at each moment.
    pub fn with_contention(mut self, contention: &Contention) -> Simulator<'g> {
        self.contention = contention.clone().normalised();
        self
    }

    /// Sum of the job durations, in ticks.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// Longest path of job durations, in ticks.
    pub fn critical_path(&self) -> u64 {
        self.critical_path
    }

    /// Duration of job `i` in ticks.
    pub fn duration(&self, i: usize) -> u64 {
        self.duration[i]
    }

    /// Refuses a replay whose clocks could pass `u64::MAX`: the work clock reaches at most the
    /// sum of durations and read-backs, and real time that times the worst contention factor,
    /// plus under a tick of rounding at each of at most one event a job.
    fn check_horizon(&self) -> Result<(), SimError> {
        let factor = self.contention.max_factor();
        let clock = self.work as u128 + self.reload_bound;
        let fits = if factor == 1.0 {
            // No contention: real time is the work clock, exactly.
            clock <= u64::MAX as u128
        } else {
            // 2^64 is exact in f64.
            (clock as f64 * factor + self.graph.len() as f64) < 18_446_744_073_709_551_616.0
        };
        if !fits {
            return Err(SimError::Makespan { work: self.work, reload: self.reload_bound, factor });
        }
        Ok(())
    }

    /// Simulates on `procs` processors; `record` keeps the spans and busy steps.
    pub fn run(&self, procs: Procs, record: bool) -> Result<Run, SimError> {
        let cap = match procs {
            Procs::Limited(0) => return Err(SimError::NoProcessors),
            Procs::Limited(p) => p as usize,
            Procs::Unlimited => usize::MAX,
        };
        self.check_horizon()?;
        let mut r = Replay::new(self, cap, record);
        loop {
            r.start_ready()?;
            // Finish every job that ends at the next event (on the work clock).
            let Some(w) = r.events.next_time() else { break };
            r.advance_to(w)?;
            while let Some(job) = r.events.pop_at(w) {
                r.finish(job as usize);
            }
        }
        debug_assert!(r.missing.iter().all(|&m| m == 0), "every job ran");
        let row = self.row(procs, r.now, r.max_busy, r.memory.peak());
        Ok(Run { row, spans: r.spans, busy: r.busy, reloaded_bytes: r.reloaded_bytes })
    }

    /// The sweep line of a finished simulation.
    fn row(&self, procs: Procs, makespan: u64, max_busy: usize, peak_memory: u64) -> SweepRow {
        let (w, cp) = (self.work as f64, self.critical_path as f64);
        let (lower_bound, level_bound, graham_bound, per) = match procs {
            Procs::Limited(p) => {
                // With k busy the machine does k / factor(k) ticks of work per tick, and a steep
                // curve makes fewer threads faster than P: the bound takes the best k up to P.
                // Between the curve's knots k / factor(k) is monotone, so the best is at a knot,
                // at 1 or at P.
                let rate = |k: usize| k as f64 / self.contention.factor(k);
                let knots = self.contention.0.iter().map(|&(k, _)| k as usize).filter(|&k| k <= p as usize);
                let best = knots.chain([1, p as usize]).map(rate).fold(0.0, f64::max);
                let slow = self.contention.factor(p as usize);
                let p = p as f64;
                let lower = (w / best).max(cp);
                let level =
                    self.level_cuts.iter().map(|&(t, work)| t as f64 + work as f64 / best).fold(lower, f64::max);
                (lower, level, slow * (w / p + (1.0 - 1.0 / p) * cp), p)
            }
            Procs::Unlimited => (cp, cp, cp, max_busy.max(1) as f64),
        };
        let speedup = if makespan == 0 { 1.0 } else { w / makespan as f64 };
        SweepRow {
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
            peak_memory,
        }
    }

    /// The error of a replay whose clock would pass `u64::MAX` (the horizon check makes it
    /// unreachable; it is the answer if it were not).
    fn makespan_error(&self) -> SimError {
        SimError::Makespan { work: self.work, reload: self.reload_bound, factor: self.contention.max_factor() }
    }

    /// One row per processor count, simulated in parallel, in the order given.
    pub fn sweep(&self, procs: &[Procs]) -> Result<Vec<SweepRow>, SimError> {
        procs.par_iter().map(|&p| self.run(p, false).map(|r| r.row)).collect()
    }
}

/// The state of one simulation in progress.
struct Replay<'s, 'g> {
    sim: &'s Simulator<'g>,
    cap: usize,
    record: bool,
    /// Real time, ticks.
    now: u64,
    /// Real time past `now` that a slowed advance left over, in ticks (in [-0.5, 0.5]): carried
    /// so that rounding each event does not add up over thousands of them.
    carry: f64,
    /// Work clock: ticks of cost each running job has done since the start (equal to `now`
    /// without contention).
    work_now: u64,
    /// Jobs each job still waits for.
    missing: Vec<u32>,
    /// Ready jobs, best first by the policy.
    ready: ReadySet,
    /// The entries a pass started, removed from `ready` once it is over (kept to reuse its
    /// allocation: a pass runs at every event).
    started: Vec<ReadyKey>,
    /// Completions: each running job at its end on the work clock.
    events: EventQueue<u32>,
    /// Free processor ids, lowest first; ids are handed out from 0 as needed.
    free: BinaryHeap<Reverse<u32>>,
    next_proc: u32,
    proc_of: Vec<u32>,
    running: usize,
    max_busy: usize,
    memory: Residency,
    spans: Vec<Span>,
    /// Index in `spans` of each running job's span (recorded runs).
    span_of: Vec<u32>,
    busy: Vec<(u64, u32)>,
    /// Bytes read back so far.
    reloaded_bytes: u64,
}

impl<'s, 'g> Replay<'s, 'g> {
    fn new(sim: &'s Simulator<'g>, cap: usize, record: bool) -> Replay<'s, 'g> {
        let g = sim.graph;
        let n = g.len();
        let mut r = Replay {
            sim,
            cap,
            record,
            now: 0,
            carry: 0.0,
            work_now: 0,
            missing: (0..n).map(|i| g.needs(i).len() as u32).collect(),
            ready: ReadySet::new(),
            started: Vec::new(),
            events: EventQueue::with_capacity(cap.min(n)),
            free: BinaryHeap::new(),
            next_proc: 0,
            proc_of: vec![0; n],
            running: 0,
            max_busy: 0,
            memory: Residency::new(g, sim.opts.mem_limit, true),
            spans: Vec::new(),
            span_of: if record { vec![0; n] } else { Vec::new() },
            reloaded_bytes: 0,
            busy: Vec::new(),
        };
        for i in 0..n {
            if r.missing[i] == 0 {
                r.make_ready(i as u32);
            }
        }
        r
    }

    fn make_ready(&mut self, i: u32) {
        let priority = match self.sim.opts.policy {
            Policy::Fifo => None,
            _ => Some(self.sim.priority[i as usize]),
        };
        self.ready.push(i, priority, self.sim.graph.jobs[i as usize].bytes);
    }

    /// Starts ready jobs, best first, while processors are free; with a memory limit, a job
    /// whose output does not fit waits and the next one may start.
    fn start_ready(&mut self) -> Result<(), SimError> {
        let g = self.sim.graph;
        let mut held: Option<u32> = None;
        let mut started = std::mem::take(&mut self.started);
        // The ready jobs best first; those started are removed once the pass is over.
        for entry in self.ready.best_first() {
            if self.running >= self.cap {
                break;
            }
            let i = entry.job as usize;
            let admitted = if entry.bytes > self.memory.room() { None } else { self.memory.try_start(i, g.needs(i)) };
            let Some(admission) = admitted else {
                held.get_or_insert(entry.job);
                continue;
            };
            started.push(entry);
            let loaded: u64 = admission.load.iter().map(|&k| g.jobs[k as usize].bytes).sum();
            self.reloaded_bytes = self.reloaded_bytes.saturating_add(loaded);
            let proc = match self.free.pop() {
                Some(Reverse(p)) => p,
                None => {
                    self.next_proc += 1;
                    self.next_proc - 1
                }
            };
            self.proc_of[i] = proc;
            // Within the horizon checked before the replay; checked all the same, as it is cheap.
            let reload = (loaded as u128 * self.sim.opts.reload_ps_per_byte as u128 / 1000).try_into().ok();
            let end = reload
                .and_then(|r: u64| self.work_now.checked_add(self.sim.duration[i])?.checked_add(r))
                .ok_or_else(|| self.sim.makespan_error())?;
            self.events.push(entry.job, end);
            self.running += 1;
            if self.record {
                self.span_of[i] = self.spans.len() as u32;
                self.spans.push(Span { job: entry.job, proc, start: self.now, end: self.now });
            }
        }
        for entry in started.drain(..) {
            self.ready.remove(&entry);
        }
        self.started = started;
        if let Some(i) = held
            && self.running == 0
        {
            // Nothing running will ever free memory: the limit cannot be met.
            return Err(SimError::MemLimit {
                limit: self.sim.opts.mem_limit.unwrap_or(0),
                job: g.jobs[i as usize].name.clone(),
                needs: self.memory.alone(i as usize, g.needs(i as usize)),
            });
        }
        self.max_busy = self.max_busy.max(self.running);
        if self.record {
            let busy = self.running as u32;
            match self.busy.last_mut() {
                Some(last) if last.1 == busy => {}
                Some(last) if last.0 == self.now => last.1 = busy,
                _ => self.busy.push((self.now, busy)),
            }
        }
        Ok(())
    }

    /// Moves both clocks to the work clock's `work`: every running job has done
    /// `work - work_now` more ticks of its cost, which took that times the contention factor
    /// of the jobs running.
    fn advance_to(&mut self, work: u64) -> Result<(), SimError> {
        let done = work - self.work_now;
        let slow = self.sim.contention.factor(self.running);
        let real = if slow == 1.0 {
            Some(done)
        } else {
            let exact = done as f64 * slow + self.carry;
            let whole = ticks(exact.max(0.0));
            if let Some(w) = whole {
                self.carry = exact - w as f64;
            }
            whole
        };
        self.now = real.and_then(|r| self.now.checked_add(r)).ok_or_else(|| self.sim.makespan_error())?;
        self.work_now = work;
        Ok(())
    }

    /// Job `i` ends now: its processor is freed, inputs nobody else needs are released, and the
    /// jobs waiting only for it become ready.
    fn finish(&mut self, i: usize) {
        let g = self.sim.graph;
        self.running -= 1;
        self.free.push(Reverse(self.proc_of[i]));
        if self.record {
            self.spans[self.span_of[i] as usize].end = self.now;
        }
        self.memory.finish(i, g.needs(i));
        for &k in g.needed_by(i) {
            self.missing[k as usize] -= 1;
            if self.missing[k as usize] == 0 {
                self.make_ready(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::graph::Job;

    fn job(name: &str, cost: u64, deps: &[&str]) -> Job {
        Job { name: name.into(), cost, states: cost, bytes: cost, deps: deps.iter().map(|d| d.to_string()).collect() }
    }

    /// a -> {b, c} -> d, and a separate chain e -> f: work 17, critical path a, c, d = 9.
    fn diamond_and_chain() -> Graph {
        Graph::new(
            vec![
                job("a", 3, &[]),
                job("b", 2, &["a"]),
                job("c", 5, &["a"]),
                job("d", 1, &["b", "c"]),
                job("e", 4, &[]),
                job("f", 2, &["e"]),
            ],
            None,
        )
        .unwrap()
    }

    const POLICIES: [Policy; 3] = [Policy::Fifo, Policy::Cp, Policy::Largest];

    fn makespan(g: &Graph, policy: Policy, procs: Procs) -> u64 {
        Simulator::new(g, SimOptions { policy, ..Default::default() }).unwrap().run(procs, false).unwrap().row.makespan
    }

    #[test]
    fn one_processor_makespan_is_the_sum_of_job_costs() {
        let g = diamond_and_chain();
        for policy in POLICIES {
            assert_eq!(makespan(&g, policy, Procs::Limited(1)), 17, "{policy}");
        }
    }

    #[test]
    fn the_time_between_jobs_adds_to_every_job_and_its_output_s_release_by_its_bytes() {
        // bytes = cost: 100 ticks a job and 2.5 ticks a byte (2500 ps) make a job of cost c
        // last 100 + 3.5 c, rounded down.
        let g = diamond_and_chain();
        let opts = SimOptions { between_jobs: 100, release_ps_per_byte: 2500, ..Default::default() };
        let sim = Simulator::new(&g, opts).unwrap();
        for (i, j) in g.jobs.iter().enumerate() {
            assert_eq!(sim.duration(i), j.cost + 100 + j.cost * 5 / 2, "{}", j.name);
        }
        let one = sim.run(Procs::Limited(1), false).unwrap().row.makespan;
        assert_eq!(one, (0..g.len()).map(|i| sim.duration(i)).sum::<u64>());
        assert_eq!(opts.after(7), 100 + 17);
        assert_eq!(SimOptions::default().after(1 << 40), 0, "none by default");
    }

    #[test]
    fn unlimited_processors_makespan_is_the_critical_path() {
        let g = diamond_and_chain();
        assert_eq!(g.critical_path(), 9);
        for policy in POLICIES {
            assert_eq!(makespan(&g, policy, Procs::Unlimited), 9, "{policy}");
        }
    }

    #[test]
    fn makespan_never_falls_below_work_over_p_or_the_critical_path() {
        let g = diamond_and_chain();
        let (work, cp) = (g.work(), g.critical_path());
        for policy in POLICIES {
            for p in 1..=6u32 {
                let m = makespan(&g, policy, Procs::Limited(p));
                assert!(m * p as u64 >= work, "{policy} P={p}: makespan {m} < {work}/{p}");
                assert!(m >= cp, "{policy} P={p}: makespan {m} < critical path {cp}");
            }
        }
    }

    #[test]
    fn two_runs_give_identical_spans() {
        let g = diamond_and_chain();
        for policy in POLICIES {
            let sim = Simulator::new(&g, SimOptions { policy, ..Default::default() }).unwrap();
            for p in [Procs::Limited(1), Procs::Limited(2), Procs::Limited(3), Procs::Unlimited] {
                let (a, b) = (sim.run(p, true).unwrap(), sim.run(p, true).unwrap());
                assert_eq!(a.spans.len(), g.len());
                assert_eq!(a, b, "{policy} P={p}");
                // A fresh simulator of the same graph and options agrees too.
                let c = Simulator::new(&g, SimOptions { policy, ..Default::default() }).unwrap().run(p, true).unwrap();
                assert_eq!(a, c, "{policy} P={p}");
            }
        }
    }

    #[test]
    fn a_job_starts_only_after_every_job_it_needs_has_ended() {
        let g = diamond_and_chain();
        for policy in POLICIES {
            let sim = Simulator::new(&g, SimOptions { policy, ..Default::default() }).unwrap();
            let run = sim.run(Procs::Limited(2), true).unwrap();
            let mut end = vec![0; g.len()];
            let mut start = vec![0; g.len()];
            for s in &run.spans {
                (start[s.job as usize], end[s.job as usize]) = (s.start, s.end);
                assert_eq!(s.end - s.start, g.jobs[s.job as usize].cost);
            }
            for (i, &started) in start.iter().enumerate() {
                for &k in g.needs(i) {
                    let (job, dep) = (&g.jobs[i].name, &g.jobs[k as usize].name);
                    assert!(started >= end[k as usize], "{policy}: {job} starts before {dep} ends");
                }
            }
        }
    }

    #[test]
    fn contention_slows_jobs_by_the_number_running_at_each_moment() {
        // a (10) and b (20) start together on 2 processors, each at half speed while both run:
        // a ends at 20 having done its 10; b has 10 left, alone at full speed, and ends at 30.
        let g = Graph::new(vec![job("a", 10, &[]), job("b", 20, &[])], None).unwrap();
        let curve = Contention(vec![(2, 2.0)]);
        let sim = Simulator::new(&g, SimOptions { policy: Policy::Cp, ..Default::default() }).unwrap();
        let sim = sim.with_contention(&curve);
        let run = sim.run(Procs::Limited(2), true).unwrap();
        let ends: Vec<(u32, u64)> = run.spans.iter().map(|s| (s.job, s.end)).collect();
        assert_eq!(ends, vec![(1, 30), (0, 20)]);
        assert_eq!(run.row.makespan, 30);
        // On one processor nothing runs beside anything: the sum of the costs.
        assert_eq!(sim.run(Procs::Limited(1), false).unwrap().row.makespan, 30);
        // The bound allows for the slowdown: W f(2) / 2 = 30.
        assert_eq!(run.row.lower_bound, 30.0);
        // A curve so steep that two threads do less than one: the schedule runs b alone at
        // full speed at the end, so the bound is the work at one thread's rate (W / 1), not
        // W f(2) / 2 = 37.5, which this schedule beats.
        let steep = sim.with_contention(&Contention(vec![(2, 2.5)]));
        let run = steep.run(Procs::Limited(2), false).unwrap();
        assert_eq!(run.row.lower_bound, 30.0);
        assert!(run.row.makespan as f64 >= run.row.lower_bound, "{:?}", run.row);
    }

    #[test]
    fn no_contention_is_the_plain_simulation() {
        let g = diamond_and_chain();
        for policy in POLICIES {
            let plain = Simulator::new(&g, SimOptions { policy, ..Default::default() }).unwrap();
            let flat = Simulator::new(&g, SimOptions { policy, ..Default::default() })
                .unwrap()
                .with_contention(&Contention(vec![(2, 1.0), (4, 0.99)]));
            for p in [Procs::Limited(1), Procs::Limited(2), Procs::Limited(3), Procs::Unlimited] {
                assert_eq!(plain.run(p, true).unwrap(), flat.run(p, true).unwrap(), "{policy} P={p}");
            }
        }
    }
}
