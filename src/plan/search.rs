//! The planner: builds candidate graphs of a solve (several groupings, with and without
//! subpartitions), costs them with the calibrated model, simulates each at P and at the powers
//! of two up to max(P, 64) processors with the memory model and the model's contention, and
//! picks the one with the least predicted makespan at P that fits the memory limit (near ties,
//! within half a percent: fewer jobs); the chosen one is simulated at every count up to 16 as
//! well, for its speedup chart. Simulations run in parallel on the rayon pool.

use rayon::prelude::*;

use crate::game::Position;
use crate::sched::{
    CostModel, CostSpec, Graph, PieceDeps, Policy, Procs, SchemeError, SimError, SimOptions, Simulator, Split, orbits,
    process_bytes, values_limit,
};
use crate::solver::{MAX_FREE_LINES, Space, SpaceError, counts_fit_rows, rows_fit};
use crate::support::{Setting, count_of, human_bytes, thousands};

use super::estimate::SolveEstimate;
use super::file::{Candidate, Plan, PlanError, PredictedRange, Prediction, run_fixed_bytes};
use super::predict::predict_store;

/// Processor counts every plan predicts reach this, at least.
pub(super) const MIN_SWEEP: u32 = 64;
/// The chosen candidate is predicted at every processor count up to this.
const DENSE_SWEEP: u32 = 16;
/// Most pieces of a split partition.
pub(super) const MAX_PIECES: u32 = 64;
/// Relative difference under which two predictions tie.
const TIE: f64 = 0.005;

/// What the planner plans for.
#[derive(Clone, Debug)]
pub struct PlanOptions {
    /// Processors (threads) the run will have: candidates are compared at this count.
    pub threads: u32,
    /// Most bytes of job values resident at once (None: no limit).
    pub mem_limit: Option<u64>,
    /// The cost model that gives job costs in nanoseconds.
    pub model: CostModel,
    /// Group counts to try (None: the default one and its neighbours).
    pub groups: Option<Vec<usize>>,
    /// The run writes every job to a store: each job's cost includes its write.
    pub store: bool,
    /// Ticks (ns) added to every job: a cluster's dispatch latency (`dab cluster-trace`).
    pub overhead: u64,
    /// Split partitions of more than this many states, instead of trying the default splits.
    pub split: Option<u64>,
    /// Simulate candidates at `threads` only, not at the other counts a speedup chart shows:
    /// what a plan for cluster nodes needs (the nodes' threads are given), at a fraction of the
    /// time.
    pub at_threads_only: bool,
    /// The memory the machine gives a run, in bytes (its own, or its cgroup's limit): without
    /// `mem_limit`, a candidate whose peak with the program passes [`USABLE_MEMORY`] of it does
    /// not fit, and where none fits the plan drops and reads back values from the store if the
    /// run has one, or is refused with what would work. None: no bound.
    pub memory: Option<u64>,
    /// `threads` is the most the machine has, and the plan takes the fewest threads whose
    /// prediction is within [`THREADS_TIE`] of the fastest count up to it (more threads that
    /// pay less than that only add contention and memory); false: the plan is for `threads`.
    pub pick_threads: bool,
    /// Hardware threads of the machine planned on: predictions past it are for a machine like
    /// it with more cores.
    pub machine_threads: u32,
    /// Where a run should fall around a prediction (None: not said).
    pub range: Option<PredictedRange>,
}

impl PlanOptions {
    /// A plan for `threads` threads costed by `model`, with nothing else asked: no memory limit,
    /// the default groups and splits, no store, no overhead.
    pub fn new(threads: u32, model: CostModel) -> PlanOptions {
        PlanOptions {
            threads,
            mem_limit: None,
            model,
            groups: None,
            store: false,
            overhead: 0,
            split: None,
            at_threads_only: false,
            memory: None,
            pick_threads: false,
            machine_threads: crate::support::hardware_threads() as u32,
            range: None,
        }
    }

    /// The bound a candidate's peak (values, program, tables and threads) must stay within
    /// where no memory limit is given: [`USABLE_MEMORY`] of the machine's memory.
    pub fn memory_bound(&self) -> Option<u64> {
        match self.mem_limit {
            Some(_) => None,
            None => self.memory.map(usable_memory),
        }
    }
}

/// The share of a machine's memory a plan may fill without a memory limit: the rest is the
/// system's and the page cache's (a run that fills all of it swaps or is killed).
pub const USABLE_MEMORY: f64 = 0.9;

/// [`USABLE_MEMORY`] of `memory` bytes.
pub fn usable_memory(memory: u64) -> u64 {
    (memory as f64 * USABLE_MEMORY) as u64
}

/// Relative slowdown within which fewer threads are taken over the fastest count.
pub const THREADS_TIE: f64 = 0.05;

/// Why no plan could be made.
#[derive(Debug, thiserror::Error)]
pub enum PlannerError {
    /// The thread count is 0.
    #[error("a plan needs at least 1 thread")]
    ZeroThreads,
    /// The root has no undrawn line: its value is 0 and there is no job to plan.
    #[error("{0}; there is nothing to plan")]
    Full(SpaceError),
    /// The root has more undrawn lines than the retrograde takes: what a whole solve would
    /// cost instead.
    #[error(
        "the position has {} undrawn lines; the retrograde solver takes at most {MAX_FREE_LINES}: {estimate}",
        estimate.size.free
    )]
    TooLarge {
        /// The whole solve's size and time.
        estimate: Box<SolveEstimate>,
    },
    /// No group count tried makes a space; holds the first error.
    #[error("no grouping of this position can be solved: {0}")]
    NoGrouping(#[source] SpaceError),
    /// Every grouping and split tried makes a graph too big to hold; holds the first refusal.
    #[error("every grouping and split tried makes too big a graph: {0}")]
    TooManyJobs(#[source] SchemeError),
    /// No candidate runs under the memory limit on the thread count.
    #[error(
        "no candidate fits in the memory limit of {limit} bytes on {threads} threads: the smallest needs {least} bytes (its largest job with every partition that job reads, the program, its tables and threads)"
    )]
    NoFit {
        /// The memory limit, in bytes.
        limit: u64,
        /// The thread count.
        threads: u32,
        /// The least limit any candidate can run under, in bytes.
        least: u64,
    },
    /// Without a memory limit, no candidate fits in the machine's memory; what a run with the
    /// store under that memory would take, where one can run at all.
    #[error(
        "no candidate fits in this machine's memory: {} usable of {}, and the smallest needs {} ({}, values with the program, tables and threads, on {}){}",
        human_bytes(usable_memory(*memory)),
        human_bytes(*memory),
        human_bytes(*least),
        least_label,
        count_of(u64::from(*threads), "thread"),
        store.as_ref().map_or(
            "; nor does any run with the store within it (each job with its inputs needs more): a cluster's nodes could".to_string(),
            |s| format!("; a run that drops values and reads them back from the store fits: {s}")
        )
    )]
    NoFitInMemory {
        /// The machine's memory, in bytes.
        memory: u64,
        /// The least any candidate needs without a limit, in bytes.
        least: u64,
        /// The candidate that needs it.
        least_label: String,
        /// The threads planned for.
        threads: u32,
        /// The plan of a run with the store under the usable memory, where one fits.
        store: Option<Box<StoreFallback>>,
    },
    /// The chosen candidate could not be made into a plan.
    #[error("{0}")]
    Plan(#[from] PlanError),
    /// A candidate's graph could not be built (a split too fine to hold) or costed (a cost past
    /// `u64` nanoseconds).
    #[error("{0}")]
    Graph(#[from] SchemeError),
    /// A candidate could not be simulated (durations or a makespan past `u64` ticks).
    #[error("{0}")]
    Simulation(#[from] SimError),
}

impl PlannerError {
    /// The setting refused, if one was (a wrapped error says its own).
    pub fn setting(&self) -> Option<Setting> {
        match self {
            PlannerError::ZeroThreads => Some(Setting::Threads),
            PlannerError::NoFit { .. } => Some(Setting::MemLimit),
            PlannerError::NoFitInMemory { .. } => None,
            PlannerError::Full(_)
            | PlannerError::TooLarge { .. }
            | PlannerError::NoGrouping(_)
            | PlannerError::TooManyJobs(_)
            | PlannerError::Plan(_)
            | PlannerError::Graph(_)
            | PlannerError::Simulation(_) => None,
        }
    }
}

/// One simulated candidate.
pub struct SimulatedCandidate {
    /// The space, with the candidate's group count.
    pub space: Space,
    /// The candidate's orbits graph, costs in nanoseconds (store writes included with a store).
    pub graph: Graph,
    /// What the plan file records of it.
    pub candidate: Candidate,
    /// Predicted seconds and peak memory at the processor counts simulated, fewest first
    /// (counts where memory cannot fit left out).
    pub predictions: Vec<Prediction>,
    /// W / CP of the graph: the most any number of processors can speed it up.
    pub ceiling: f64,
    /// Bytes a run of it holds besides values whatever the thread count (program, tables, jobs).
    pub fixed_bytes: u64,
}

impl SimulatedCandidate {
    /// A short name for reports, e.g. `3 groups, split at 1e5`.
    pub fn label(&self) -> String {
        let split =
            self.candidate.split.map_or("no split".to_string(), |s| format!("split at {:.0e}", s.threshold as f64));
        format!("{}, {split}", count_of(self.candidate.groups as u64, "group"))
    }
}

/// The planner's result: the plan and every candidate it weighed.
pub struct PlanChoice {
    /// The plan of the chosen candidate.
    pub plan: Plan,
    /// Every candidate simulated, in the order tried.
    pub candidates: Vec<SimulatedCandidate>,
    /// Index of the chosen one in `candidates`.
    pub chosen: usize,
    /// The thread count picked, with the time predicted at each count (where the planner
    /// picked it; None where the thread count was given).
    pub threads: Option<ThreadPick>,
    /// Where nothing fitted the machine's memory and the run has a store: the plan drops values
    /// and reads them back, and this says what that costs.
    pub store_fallback: Option<Box<StoreFallback>>,
}

/// How the thread count was picked: the fastest count up to the machine's threads, and the
/// fewest within [`THREADS_TIE`] of it.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadPick {
    /// The machine's hardware threads (the most considered).
    pub machine_threads: u32,
    /// The fastest count and its predicted seconds.
    pub fastest: (u32, f64),
    /// The count the plan is for.
    pub picked: u32,
    /// Why more threads do not pay here, where fewer than the machine's were picked.
    pub why_fewer: Option<String>,
}

/// A plan that fits the machine's memory only by dropping values to the store and reading
/// them back: its figures.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreFallback {
    /// The whole process's memory limit it runs under, in bytes.
    pub mem_limit: u64,
    /// Threads.
    pub threads: u32,
    /// Predicted seconds.
    pub seconds: f64,
    /// Most bytes of values in the store's files at once.
    pub store_peak: u64,
    /// Bytes written to the store (every job's values).
    pub written: u64,
    /// Bytes read back from it after being dropped.
    pub read_back: u64,
}

impl std::fmt::Display for StoreFallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "predicted {} on {} under {}, the store peaking at {}, {} written and {} read back",
            match self.seconds < 60.0 {
                true => format!("{:.2} s", self.seconds),
                false => crate::support::about_seconds(self.seconds),
            },
            count_of(u64::from(self.threads), "thread"),
            human_bytes(self.mem_limit),
            human_bytes(self.store_peak),
            human_bytes(self.written),
            human_bytes(self.read_back)
        )
    }
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

/// How the planner simulates: `cp`, the memory limit, the worker's time between jobs, and
/// with a store, values a memory limit drops read back at the measured rate.
pub(super) fn sim_options(opts: &PlanOptions, values_limit: Option<u64>) -> SimOptions {
    SimOptions {
        policy: Policy::Cp,
        mem_limit: values_limit,
        overhead: opts.overhead,
        reload_ps_per_byte: if opts.store { (opts.model.store_read_per_byte_ns * 1000.0).round() as u64 } else { 0 },
        ..opts.model.between_jobs()
    }
}

/// Processor counts a candidate is simulated at: `threads` and the powers of two up to
/// max(`threads`, 64); with `dense`, every count up to 16 too.
fn counts(threads: u32, dense: bool) -> Vec<u32> {
    let top = threads.max(MIN_SWEEP);
    let mut out: Vec<u32> =
        std::iter::successors(Some(1u32), |&p| p.checked_mul(2)).take_while(|&p| p <= top).collect();
    out.extend([threads, top]);
    if dense {
        out.extend(1..=DENSE_SWEEP.min(top));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Simulates `graph` at each of `counts` under the model, in parallel; None where the memory
/// limit cannot be met; an error where ticks would pass `u64`. The memory limit is the whole
/// process's: at each count, the values get what the program, tables (`fixed` bytes) and that
/// many threads leave.
fn predict(
    graph: &Graph,
    fixed: u64,
    opts: &PlanOptions,
    counts: &[u32],
) -> Result<Vec<(u32, Option<Prediction>)>, SimError> {
    let base = Simulator::new(graph, sim_options(opts, values_limit(opts.mem_limit, fixed, 1)))?
        .with_contention(&opts.model.contention);
    counts
        .par_iter()
        .map(|&n| {
            let sim = base.with_mem_limit(values_limit(opts.mem_limit, fixed, n));
            let prediction = match sim.run(Procs::Limited(n), false) {
                Ok(r) => Some(Prediction {
                    procs: n,
                    makespan_seconds: r.row.makespan as f64 / 1e9,
                    peak_memory: r.row.peak_memory,
                    lower_bound_seconds: r.row.lower_bound / 1e9,
                }),
                Err(SimError::MemLimit { .. }) => None,
                Err(e) => return Err(e),
            };
            Ok((n, prediction))
        })
        .collect()
}

/// Plans a solve of `root`: simulates every candidate (each group count tried, with each
/// split) and chooses the fitting one with the least predicted makespan at `opts.threads`
/// (near ties, within half a percent: the one with fewer jobs); with `pick_threads`, at the
/// fewest threads within [`THREADS_TIE`] of the fastest count. Where no candidate fits the
/// machine's memory (`opts.memory`, no limit given), a run with a store is planned to drop
/// values and read them back under that memory, and a run without one is refused with the
/// figures of a run that would fit.
pub fn plan(root: Position, opts: &PlanOptions) -> Result<PlanChoice, PlannerError> {
    let (memory, least, least_label, threads) = match plan_once(root, opts) {
        Err(PlannerError::NoFitInMemory { memory, least, least_label, threads, .. }) => {
            (memory, least, least_label, threads)
        }
        done => return done,
    };
    let with_store = PlanOptions { mem_limit: Some(usable_memory(memory)), store: true, ..opts.clone() };
    let fallback = match plan_once(root, &with_store) {
        Ok(choice) => {
            let f = store_fallback(&choice)?;
            Some((choice, f))
        }
        Err(PlannerError::NoFit { .. }) => None,
        Err(e) => return Err(e),
    };
    match (opts.store, fallback) {
        (true, Some((mut choice, f))) => {
            choice.plan.reason += &format!(
                "; no candidate fits in {} of memory without dropping values: they are read back from the store ({f})",
                human_bytes(usable_memory(memory))
            );
            choice.store_fallback = Some(Box::new(f));
            Ok(choice)
        }
        (_, fallback) => Err(PlannerError::NoFitInMemory {
            memory,
            least,
            least_label,
            threads,
            store: fallback.map(|(_, f)| Box::new(f)),
        }),
    }
}

/// What the plan of `choice`, which drops values under a memory limit, costs in the store.
fn store_fallback(choice: &PlanChoice) -> Result<StoreFallback, PlannerError> {
    let plan = &choice.plan;
    let store = predict_store(plan, &plan.check()?, plan.threads, None)?;
    Ok(StoreFallback {
        mem_limit: plan.mem_limit.unwrap_or(0),
        threads: plan.threads,
        seconds: plan.predicted_seconds,
        store_peak: store.peak,
        written: store.written,
        read_back: store.read_back,
    })
}

/// [`plan`] without the fallback to the store.
fn plan_once(root: Position, opts: &PlanOptions) -> Result<PlanChoice, PlannerError> {
    if opts.threads == 0 {
        return Err(PlannerError::ZeroThreads);
    }
    if root.undrawn().is_empty() {
        return Err(PlannerError::Full(SpaceError::Full));
    }
    if root.undrawn().len() as usize > MAX_FREE_LINES {
        let estimate = Box::new(SolveEstimate::of(root, &opts.model, opts.threads as usize));
        return Err(PlannerError::TooLarge { estimate });
    }
    let default = Space::default_groups(root);
    let group_counts = opts
        .groups
        .clone()
        .unwrap_or_else(|| [default.saturating_sub(1), default, default + 1].into_iter().filter(|&g| g >= 1).collect());
    let cost = CostSpec::Model(Box::new(opts.model.clone()));
    let mut first_error = None;
    let mut tried = Vec::new();
    let mut spaces = Vec::new();
    // Of the groupings tried by default, one whose inner group is too wide for the row path is
    // left out where another fits: the scalar path took the 4x4 in two groups 720 s against
    // 142 s in three, and a model fitted where every job took the row path cannot price it.
    // Where the lines' classes already tell, the tables of such a grouping are not built.
    let fits: Vec<Option<bool>> = group_counts
        .iter()
        .map(|&g| Space::inner_config_counts(root, g).map(|c| counts_fit_rows(c.into_iter())))
        .collect();
    let one_fits = opts.groups.is_none() && fits.contains(&Some(true));
    for (&g, &fit) in group_counts.iter().zip(&fits) {
        if one_fits && fit == Some(false) {
            continue;
        }
        match Space::new(root, Some(g)) {
            Ok(space) => spaces.push((g, space)),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    // The groupings the classes could not tell, once built.
    if opts.groups.is_none() && spaces.iter().any(|(_, s)| rows_fit(s)) {
        spaces.retain(|(_, s)| rows_fit(s));
    }
    for (g, space) in spaces {
        tried.extend(splits(&space, opts.split).into_iter().map(|split| (g, space.clone(), split)));
    }
    // Candidates built and simulated side by side (a plan for a cluster simulates each at one
    // count only, which would otherwise keep one thread busy), then taken in order.
    let built: Vec<_> =
        tried.into_par_iter().map(|(g, space, split)| simulate_candidate(g, space, split, &cost, opts)).collect();
    let mut candidates = Vec::new();
    let mut too_big = None;
    for b in built {
        match b? {
            Ok(c) => candidates.push(c),
            Err(e) => {
                too_big.get_or_insert(e);
            }
        }
    }
    if candidates.is_empty() {
        return Err(match too_big {
            Some(e) => PlannerError::TooManyJobs(e),
            None => PlannerError::NoGrouping(first_error.expect("a grouping was tried")),
        });
    }
    // Every candidate at the count planned for: the one given, or the fewest threads within
    // the tie of the fastest.
    let pick = if opts.pick_threads { pick_threads(&candidates, opts) } else { None };
    let opts = &PlanOptions { threads: pick.as_ref().map_or(opts.threads, |p| p.picked), ..opts.clone() };
    for c in &mut candidates {
        settle(c, opts.threads, opts);
    }
    let Some(chosen) = choose(&candidates) else {
        return Err(match (opts.mem_limit, opts.memory) {
            (None, Some(memory)) => {
                let (least, i) = least_peak(&candidates, opts);
                let (least_label, threads) = (candidates[i].label(), opts.threads);
                PlannerError::NoFitInMemory { memory, least, least_label, threads, store: None }
            }
            _ => PlannerError::NoFit {
                limit: opts.mem_limit.unwrap_or(0),
                threads: opts.threads,
                least: least_memory(&candidates, opts.threads),
            },
        });
    };
    // The chosen candidate's speedup chart: every count up to 16 as well.
    let c = &mut candidates[chosen];
    let known: Vec<u32> = c.predictions.iter().map(|p| p.procs).collect();
    let dense = if opts.at_threads_only { Vec::new() } else { counts(opts.threads, true) };
    let more: Vec<u32> = dense.into_iter().filter(|n| !known.contains(n)).collect();
    c.predictions.extend(predict(&c.graph, c.fixed_bytes, opts, &more)?.into_iter().filter_map(|(_, p)| p));
    c.predictions.sort_by_key(|p| p.procs);
    let mut plan = plan_for(&candidates[chosen], opts)?;
    plan.candidates = candidates.iter().map(|c| c.candidate.clone()).collect();
    plan.reason = reason(&candidates, chosen, opts);
    plan.machine_threads = Some(opts.machine_threads);
    let threads = pick.map(|mut p| {
        p.why_fewer = why_fewer(&candidates[chosen], &p, opts);
        p
    });
    Ok(PlanChoice { plan, candidates, chosen, threads, store_fallback: None })
}

/// Sets `c`'s prediction, peak and fit to those at `threads`: it fits where the simulation met
/// the memory limit, and without one, where its peak with the program stays within the
/// machine's usable memory.
fn settle(c: &mut SimulatedCandidate, threads: u32, opts: &PlanOptions) {
    let at = c.predictions.iter().find(|p| p.procs == threads);
    c.candidate.predicted_seconds = at.map_or(f64::INFINITY, |p| p.makespan_seconds);
    c.candidate.peak_memory = at.map_or(0, |p| p.peak_memory);
    c.candidate.fits = at.is_some_and(|p| fits_machine(opts, c.fixed_bytes, p));
}

/// The fastest thread count up to `opts.threads` over every candidate that fits there, and
/// the fewest threads within [`THREADS_TIE`] of it; None where nothing fits at any count.
fn pick_threads(candidates: &[SimulatedCandidate], opts: &PlanOptions) -> Option<ThreadPick> {
    let best_at = |t: u32| {
        (candidates.iter())
            .filter_map(|c| {
                let p = c.predictions.iter().find(|p| p.procs == t)?;
                fits_machine(opts, c.fixed_bytes, p).then_some(p.makespan_seconds)
            })
            .min_by(f64::total_cmp)
    };
    let times: Vec<(u32, f64)> = (1..=opts.threads).filter_map(|t| Some((t, best_at(t)?))).collect();
    let fastest = times.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let picked = times.iter().find(|(_, s)| *s <= fastest.1 * (1.0 + THREADS_TIE)).map_or(fastest.0, |&(t, _)| t);
    Some(ThreadPick { machine_threads: opts.threads, fastest, picked, why_fewer: None })
}

/// Whether prediction `p` of a candidate holding `fixed` bytes besides values stays within the
/// machine's usable memory (always, with a memory limit: the simulation met it).
fn fits_machine(opts: &PlanOptions, fixed: u64, p: &Prediction) -> bool {
    opts.memory_bound().is_none_or(|m| p.peak_memory.saturating_add(process_bytes(fixed, p.procs)) <= m)
}

/// Why more threads than `pick.picked` do not pay for `c`, in one line (None where every
/// thread of the machine was picked).
fn why_fewer(c: &SimulatedCandidate, pick: &ThreadPick, opts: &PlanOptions) -> Option<String> {
    let most = pick.machine_threads;
    if pick.picked >= most {
        return None;
    }
    let at = |t: u32| c.predictions.iter().find(|p| p.procs == t).map(|p| p.makespan_seconds);
    let (Some(picked), Some(all)) = (at(pick.picked), at(most)) else {
        return Some(format!(
            "{} do not fit in memory: planned on {}",
            count_of(u64::from(most), "thread"),
            count_of(u64::from(pick.picked), "thread")
        ));
    };
    let contention = opts.model.contention(most as usize);
    let (work, cp) = (c.graph.work() as f64 / 1e9, c.graph.critical_path() as f64 / 1e9);
    let why = if c.ceiling < 1.0 + 2.0 * THREADS_TIE {
        format!(
            "too little work to share: its longest chain of jobs is {} of its {} of work (W/CP {:.2})",
            short_seconds(cp),
            short_seconds(work),
            c.ceiling
        )
    } else if contention > 1.0 + THREADS_TIE && f64::from(most).min(c.ceiling) / contention < 1.0 + 2.0 * THREADS_TIE {
        format!(
            "contention measured: with {most} threads busy each runs {contention:.2}x slower than alone, which takes what \
             the {:.2}x its graph allows",
            f64::from(most).min(c.ceiling)
        )
    } else {
        format!(
            "too little work: {} of work in {} jobs, each with {} of overhead before it, and contention {contention:.2}x",
            short_seconds(work),
            thousands(c.graph.len() as u64),
            short_seconds(opts.model.between_jobs().between_jobs as f64 / 1e9)
        )
    };
    let verb = if pick.picked == 1 { "parallelism does not pay here" } else { "more threads gain under 5 % here" };
    Some(format!(
        "{verb}: {} predicted {} against {} on {} ({why})",
        count_of(u64::from(most), "thread"),
        short_seconds(all),
        short_seconds(picked),
        count_of(u64::from(pick.picked), "thread"),
    ))
}

/// Seconds to three significant digits (`0.0000123 s`, `0.412 s`, `25.3 s`, `6596 s`).
pub fn short_seconds(seconds: f64) -> String {
    let digits = if seconds > 0.0 { (2 - seconds.log10().floor() as i32).clamp(0, 9) } else { 0 };
    format!("{seconds:.*} s", digits as usize)
}

/// The least peak (values with the program, tables and threads) of any candidate on
/// `opts.threads` threads, and which candidate needs it.
fn least_peak(candidates: &[SimulatedCandidate], opts: &PlanOptions) -> (u64, usize) {
    let peak = |c: &SimulatedCandidate| {
        let values = c.predictions.iter().find(|p| p.procs == opts.threads).map_or(u64::MAX, |p| p.peak_memory);
        values.saturating_add(process_bytes(c.fixed_bytes, opts.threads))
    };
    (0..candidates.len()).map(|i| (peak(&candidates[i]), i)).min().unwrap_or((0, 0))
}

/// Candidate `g` groups with `split` built and simulated under `opts`; the inner error a split
/// the planner chose that makes too big a graph (one candidate fewer, see [`candidate_graph`]).
fn simulate_candidate(
    g: usize,
    space: Space,
    split: Option<Split>,
    cost: &CostSpec,
    opts: &PlanOptions,
) -> Result<Result<SimulatedCandidate, SchemeError>, PlannerError> {
    let forced = opts.split.is_some();
    let mut too_big = None;
    let Some(mut graph) = candidate_graph(orbits(&space, cost, split.as_ref()), forced, &mut too_big)? else {
        return Ok(Err(too_big.expect("a refusal is kept where no graph is")));
    };
    if opts.store {
        for j in &mut graph.jobs {
            // Saturating: the simulator then refuses the sum rather than see it wrap.
            j.cost = j.cost.saturating_add(opts.model.store_nanoseconds(j.bytes));
        }
    }
    let fixed = run_fixed_bytes(&space, graph.len());
    let mut sim_counts = if opts.at_threads_only { vec![opts.threads] } else { counts(opts.threads, false) };
    if opts.pick_threads {
        // Every count the pick may take.
        sim_counts.extend(1..=opts.threads.min(MIN_SWEEP));
        sim_counts.sort_unstable();
        sim_counts.dedup();
    }
    let predictions = predict(&graph, fixed, opts, &sim_counts)?;
    let cp = graph.critical_path().max(1);
    // Settled at the count planned for once every candidate is simulated.
    Ok(Ok(SimulatedCandidate {
        candidate: Candidate {
            groups: g,
            split,
            jobs: graph.len(),
            predicted_seconds: f64::INFINITY,
            peak_memory: 0,
            fits: false,
        },
        ceiling: graph.work() as f64 / cp as f64,
        fixed_bytes: fixed,
        predictions: predictions.into_iter().filter_map(|(_, p)| p).collect(),
        space,
        graph,
    }))
}

/// A candidate's graph, or None where a split the planner chose (or a grouping) makes it too
/// big to hold: one candidate fewer, the first such refusal kept in `too_big` (5x5 in seven
/// groups makes 6.9 million partitions, and refusing there lost the plans of fewer groups). A
/// split the user gave (`forced`) that makes too big a graph is their error.
fn candidate_graph(
    graph: Result<Graph, SchemeError>,
    forced: bool,
    too_big: &mut Option<SchemeError>,
) -> Result<Option<Graph>, SchemeError> {
    match graph {
        Ok(graph) => Ok(Some(graph)),
        Err(e @ SchemeError::TooBig { .. }) if !forced => {
            too_big.get_or_insert(e);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The plan of one candidate, with its predictions.
pub fn plan_for(c: &SimulatedCandidate, opts: &PlanOptions) -> Result<Plan, PlanError> {
    let machine = Some(opts.model.machine.clone());
    let mut plan = Plan::new(&c.space, &c.graph, c.candidate.split, Policy::Cp, opts.threads, "ns", machine)?;
    plan.mem_limit = opts.mem_limit;
    plan.store_writes = opts.store;
    let sim = sim_options(opts, None);
    (plan.reload_ps_per_byte, plan.between_jobs_ns, plan.release_ps_per_byte) =
        (sim.reload_ps_per_byte, sim.between_jobs, sim.release_ps_per_byte);
    plan.predicted_seconds = c.candidate.predicted_seconds;
    plan.predicted_peak_memory = c.candidate.peak_memory;
    plan.predictions = c.predictions.clone();
    plan.contention = opts.model.contention.clone();
    plan.range = opts.range;
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

/// The least whole-process limit any candidate runs under on `threads` threads: its largest
/// job with every partition that job reads, and the process's own bytes.
fn least_memory(candidates: &[SimulatedCandidate], threads: u32) -> u64 {
    candidates
        .iter()
        .map(|c| crate::sched::least_limit(&c.graph).saturating_add(process_bytes(c.fixed_bytes, threads)))
        .min()
        .unwrap_or(0)
}

/// Why the chosen candidate won, in a sentence or two.
fn reason(candidates: &[SimulatedCandidate], chosen: usize, opts: &PlanOptions) -> String {
    let c = &candidates[chosen];
    let mut text = format!(
        "{}: predicted {:.2} s on {}, peak {} of values ({} with the program, tables and threads), {} jobs",
        c.label(),
        c.candidate.predicted_seconds,
        count_of(u64::from(opts.threads), "thread"),
        human_bytes(c.candidate.peak_memory),
        human_bytes(c.candidate.peak_memory + process_bytes(c.fixed_bytes, opts.threads)),
        thousands(c.candidate.jobs as u64)
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
        let verb = if unfit == 1 { "does" } else { "do" };
        let limit = match opts.memory_bound() {
            Some(bound) => format!("{} (the usable share of this machine's memory)", human_bytes(bound)),
            None => human_bytes(opts.mem_limit.unwrap_or(0)),
        };
        text += &format!("; {} {verb} not fit in {limit}", count_of(unfit as u64, "candidate"));
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn options(threads: u32) -> PlanOptions {
        PlanOptions::new(threads, CostModel::built_in())
    }

    fn root(board: &str) -> Position {
        Position::empty(board.parse().unwrap())
    }

    #[test]
    fn too_big_a_graph_is_a_candidate_fewer_unless_the_user_gave_the_split() {
        let too_big = || Err(SchemeError::TooBig { jobs: 6_908_733, deps: 43_223_868 });
        let mut first = None;
        assert!(candidate_graph(too_big(), false, &mut first).unwrap().is_none());
        assert!(candidate_graph(Err(SchemeError::TooBig { jobs: 1, deps: 2 }), false, &mut first).unwrap().is_none());
        assert!(matches!(first, Some(SchemeError::TooBig { jobs: 6_908_733, .. })), "the first refusal is kept");
        let mut none = None;
        assert!(matches!(candidate_graph(too_big(), true, &mut none), Err(SchemeError::TooBig { .. })));
        assert!(none.is_none());
        assert!(matches!(candidate_graph(Err(SchemeError::BadSplit), false, &mut none), Err(SchemeError::BadSplit)));
        let graph = orbits(&Space::new(root("2x2"), None).unwrap(), &CostSpec::States, None).unwrap();
        let jobs = graph.len();
        assert_eq!(candidate_graph(Ok(graph), false, &mut none).unwrap().map(|g| g.len()), Some(jobs));
        // Every candidate refused: the planner says so with the first refusal.
        let e = PlannerError::TooManyJobs(first.unwrap()).to_string();
        assert!(
            e.starts_with("every grouping and split tried makes too big a graph: the graph would have 6908733 jobs"),
            "{e}"
        );
    }

    #[test]
    fn the_chosen_candidate_is_the_fastest_that_fits_at_p_within_the_tie() {
        for (threads, split) in [(1, None), (2, None), (4, Some(50))] {
            let choice = plan(root("2x3"), &PlanOptions { split, ..options(threads) }).unwrap();
            assert!(choice.candidates.len() > 1, "several candidates to choose from");
            let chosen = &choice.candidates[choice.chosen].candidate;
            assert!(chosen.fits);
            let fitting: Vec<&Candidate> = choice.candidates.iter().map(|c| &c.candidate).filter(|c| c.fits).collect();
            let best = fitting.iter().map(|c| c.predicted_seconds).fold(f64::INFINITY, f64::min);
            assert!(chosen.predicted_seconds <= best * (1.0 + TIE), "P={threads}: {chosen:?} is not within the tie");
            for c in fitting.iter().filter(|c| c.predicted_seconds <= best * (1.0 + TIE)) {
                assert!(c.jobs >= chosen.jobs, "P={threads}: {c:?} ties with fewer jobs than {chosen:?}");
            }
            // The plan carries the chosen candidate's prediction at P.
            assert_eq!(choice.plan.predicted_seconds, chosen.predicted_seconds);
            assert_eq!(choice.plan.predicted(threads).unwrap().makespan_seconds, chosen.predicted_seconds);
            assert_eq!(choice.plan.candidates.len(), choice.candidates.len());
        }
    }

    #[test]
    fn near_ties_go_to_fewer_jobs_and_unfit_candidates_are_never_chosen() {
        let space = Space::new(root("2x2"), None).unwrap();
        let graph = orbits(&space, &CostSpec::States, None).unwrap();
        let candidate = |seconds: f64, jobs: usize, fits: bool| SimulatedCandidate {
            space: space.clone(),
            graph: graph.clone(),
            candidate: Candidate { groups: 1, split: None, jobs, predicted_seconds: seconds, peak_memory: 0, fits },
            predictions: Vec::new(),
            ceiling: 1.0,
            fixed_bytes: 0,
        };
        // 1.004 s ties with 1.0 s (within half a percent): the fewer jobs win.
        assert_eq!(choose(&[candidate(1.0, 10, true), candidate(1.004, 5, true)]), Some(1));
        // 1.01 s does not tie: the faster wins, however many jobs it has.
        assert_eq!(choose(&[candidate(1.0, 10, true), candidate(1.01, 5, true)]), Some(0));
        // The fastest does not fit: the fastest of the rest.
        assert_eq!(choose(&[candidate(0.5, 1, false), candidate(1.0, 10, true), candidate(2.0, 5, true)]), Some(1));
        // Equal times and jobs: the first.
        assert_eq!(choose(&[candidate(1.0, 5, true), candidate(1.0, 5, true)]), Some(0));
        assert_eq!(choose(&[candidate(1.0, 5, false)]), None);
    }

    /// A 2x2 candidate with these (threads, seconds, peak values) predictions.
    fn predicted(times: &[(u32, f64, u64)]) -> SimulatedCandidate {
        let space = Space::new(root("2x2"), None).unwrap();
        let graph = orbits(&space, &CostSpec::States, None).unwrap();
        let predictions = times
            .iter()
            .map(|&(procs, s, peak)| Prediction {
                procs,
                makespan_seconds: s,
                peak_memory: peak,
                lower_bound_seconds: 0.0,
            })
            .collect();
        SimulatedCandidate {
            space,
            graph,
            candidate: Candidate {
                groups: 1,
                split: None,
                jobs: 1,
                predicted_seconds: 0.0,
                peak_memory: 0,
                fits: false,
            },
            predictions,
            ceiling: 1.0,
            fixed_bytes: 0,
        }
    }

    #[test]
    fn the_pick_is_the_fewest_threads_within_five_percent_of_the_fastest() {
        let opts = PlanOptions { pick_threads: true, ..options(4) };
        // 3 threads are within 5 % of 4 (0.60 against 0.58): three.
        let c = predicted(&[(1, 1.0, 0), (2, 0.97, 0), (3, 0.60, 0), (4, 0.58, 0)]);
        let pick = pick_threads(&[c], &opts).unwrap();
        assert_eq!((pick.fastest, pick.picked), ((4, 0.58), 3));
        // Two threads slower than one (a busy machine): one.
        let slower = predicted(&[(1, 0.62, 0), (2, 0.72, 0)]);
        let pick = pick_threads(&[slower], &PlanOptions { pick_threads: true, ..options(2) }).unwrap();
        assert_eq!((pick.fastest, pick.picked), ((1, 0.62), 1));
        // The best of every candidate at each count: the second is fastest on 2.
        let (a, b) = (predicted(&[(1, 1.0, 0), (2, 0.9, 0)]), predicted(&[(1, 1.2, 0), (2, 0.5, 0)]));
        let pick = pick_threads(&[a, b], &PlanOptions { pick_threads: true, ..options(2) }).unwrap();
        assert_eq!((pick.fastest, pick.picked), ((2, 0.5), 2));
    }

    #[test]
    fn past_the_machine_s_memory_a_count_does_not_fit_and_is_not_picked() {
        // 2 threads would be faster but peak at 1 GB, past 90 % of 1 GB with the program.
        let c = predicted(&[(1, 1.0, 1_000), (2, 0.6, 1_000_000_000)]);
        let opts = PlanOptions { pick_threads: true, memory: Some(1_000_000_000), ..options(2) };
        let pick = pick_threads(std::slice::from_ref(&c), &opts).unwrap();
        assert_eq!(pick.picked, 1);
        let mut c = c;
        settle(&mut c, 2, &opts);
        assert!(!c.candidate.fits && c.candidate.peak_memory == 1_000_000_000, "priced, but past the bound");
        settle(&mut c, 1, &opts);
        assert!(c.candidate.fits);
        // A memory limit bounds by dropping values instead: the simulation decides.
        let limited = PlanOptions { mem_limit: Some(10), ..opts };
        settle(&mut c, 2, &limited);
        assert!(c.candidate.fits);
    }

    #[test]
    fn a_library_plan_without_memory_or_pick_is_for_the_threads_given_whatever_its_size() {
        let choice = plan(root("2x3"), &options(3)).unwrap();
        assert_eq!(choice.plan.threads, 3);
        assert!(choice.threads.is_none() && choice.store_fallback.is_none());
        // With a bound too small for any candidate and no store: refused, naming the least.
        let small = PlanOptions { memory: Some(1_000), ..options(1) };
        match plan(root("2x3"), &small) {
            Err(PlannerError::NoFitInMemory { memory: 1_000, least, store: None, .. }) => assert!(least > 1_000),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("planned within 1 kB"),
        }
    }

    #[test]
    fn a_model_from_a_machine_twice_as_fast_predicts_twice_the_time_after_a_probe() {
        let fast = CostModel::built_in();
        // This machine takes twice as long over the probe, alone and with every thread busy.
        let here = crate::sched::Probe {
            one_thread_seconds: 2.0 * fast.probe.one_thread_seconds,
            all_threads_seconds: 2.0 * fast.probe.all_threads_seconds,
            ..fast.probe.clone()
        };
        let probed = fast.probed(&here, false);
        assert!((probed.scale - 2.0).abs() < 1e-12);
        for threads in [1, 2] {
            let before = plan(root("2x3"), &options(threads)).unwrap().plan;
            let after =
                plan(root("2x3"), &PlanOptions { model: probed.model.clone(), ..options(threads) }).unwrap().plan;
            let ratio = after.predicted_seconds / before.predicted_seconds;
            // Job costs are rounded to whole nanoseconds, hence the tolerance.
            assert!((ratio - 2.0).abs() < 1e-3, "P={threads}: {ratio}");
            assert_eq!(after.contention, before.contention, "the same contention at the probe's count");
        }
    }

    /// Asserts that two JSON values are equal, floats to within a few units in the last place.
    fn assert_json_close(a: &Value, b: &Value, at: &str) {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) if !(x.is_u64() && y.is_u64()) => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                assert!((x - y).abs() <= 4.0 * f64::EPSILON * x.abs().max(y.abs()), "{at}: {x:e} != {y:e}");
            }
            (Value::Array(x), Value::Array(y)) => {
                assert_eq!(x.len(), y.len(), "{at}");
                for (i, (x, y)) in x.iter().zip(y).enumerate() {
                    assert_json_close(x, y, &format!("{at}[{i}]"));
                }
            }
            (Value::Object(x), Value::Object(y)) => {
                assert!(x.keys().eq(y.keys()), "{at}");
                for (k, x) in x {
                    assert_json_close(x, &y[k], &format!("{at}.{k}"));
                }
            }
            _ => assert_eq!(a, b, "{at}"),
        }
    }

    #[test]
    fn a_2x3_plan_checks_and_round_trips_through_json() {
        let choice = plan(root("2x3"), &options(2)).unwrap();
        let p = &choice.plan;
        let ready = p.check().unwrap();
        assert_eq!(ready.graph.len(), p.jobs.len());
        assert_eq!(ready.priority, p.jobs.iter().map(|j| j.priority).collect::<Vec<_>>());
        let text = serde_json::to_string(p).unwrap();
        let back: Plan = serde_json::from_str(&text).unwrap();
        back.check().unwrap();
        // serde_json (without its float_roundtrip feature) may read a float back one unit in the
        // last place off, so floats are compared to within that; everything else exactly.
        assert_json_close(&serde_json::to_value(&back).unwrap(), &serde_json::to_value(p).unwrap(), "plan");
    }
}
