//! Two-level plans: a plan's jobs packed into cluster tasks. A task is a piece of the job
//! graph that one node runs on all its threads with the executor, reading the files of other
//! tasks' jobs from the shared store and writing its own there; the cluster engine sees tasks,
//! never jobs, so its dispatch delay is paid once a task instead of once a job.
//!
//! Jobs are packed by level (the lines a job's partition has drawn): a job reads only jobs of
//! the level above, so the jobs of one level never read each other. A level whose work passes
//! the band size is split across the nodes (its tasks run side by side); smaller levels are
//! gathered, in order, into one task that runs on one node. Tasks listed in that order read
//! only tasks listed before them, so the task graph has no cycle. The band size is chosen by
//! simulation: each task's time is the simulated schedule of its own jobs on the node's
//! threads (with the plan's contention curve), plus the engine's dispatch delay and the store
//! traffic it makes through the shared filesystem (its inputs from other tasks read, its
//! outputs written, the bandwidth shared by the tasks of its band); the task graph is then
//! simulated on the nodes. A one-node cluster gets one task: today's plan.

use std::collections::{BTreeMap, HashSet};

use rayon::prelude::*;

use crate::sched::{Contention, Graph, Job, Policy, Procs, Run, SimError, SimOptions, Simulator, values_limit};
use crate::support::{count_of, round4};

use super::task_store::TaskFiles;
use super::{Plan, PlanChoice, PlanError, PlanOptions, ReadyPlan, SimulatedCandidate, plan_for};

/// Candidates of more jobs than this are not packed for a cluster (their packing alone would
/// take longer than planning should).
const MAX_PACKED_JOBS: usize = 200_000;

/// The two-level plan for `cluster`: every candidate of the planner's `choice` that fits
/// (grouping and split: a cluster's threads may want a finer split than one node's) packed
/// by [`pack`], the one whose cluster run is predicted shortest chosen, fewer tasks on a
/// tie (the planner's choice when none can be packed). Returns it with its plan, tasks
/// recorded, and its row of a sweep.
pub fn plan_for_cluster(
    choice: &PlanChoice,
    opts: &PlanOptions,
    cluster: &ClusterShape,
) -> Result<ClusterPlan, PlanError> {
    let packed = best_packing(choice, opts, cluster, &ready_plans(choice))?;
    let c = &choice.candidates[packed.chosen];
    let mut plan = plan_for(c, opts)?;
    plan.record_packing(&packed.packing, cluster, packed.store_peak_bytes);
    plan.reason = format!(
        "{}: predicted {:.2} s on {} of {} threads as {}, of {} packed for the cluster; on one node: {}",
        c.label(),
        round4(packed.packing.makespan_seconds),
        count_of(cluster.nodes as u64, "node"),
        cluster.threads_per_node,
        count_of(plan.tasks.len() as u64, "task"),
        count_of(packed.tried as u64, "candidate"),
        choice.plan.reason
    );
    Ok(ClusterPlan { chosen: packed.chosen, row: packed.row(choice, cluster), plan })
}

impl PlanOptions {
    /// These options for planning a cluster's nodes: every job writes its file to the shared
    /// store (tasks read each other's files there), and candidates are compared at the node's
    /// threads alone (a node's count is given: no speedup sweep of one machine).
    pub fn for_cluster(self) -> PlanOptions {
        PlanOptions { store: true, at_threads_only: true, pick_threads: false, memory: None, ..self }
    }
}

impl PlanChoice {
    /// This choice packed for clusters of each of `nodes` nodes of the plan's threads,
    /// `overhead_seconds` the dispatch delay before each task and `store_bandwidth` the shared
    /// store's bytes a second, all nodes together (None: not limited). One count: this choice
    /// becomes its two-level plan ([`plan_for_cluster`]) and its row is returned. Several: a
    /// sweep ([`cluster_sweep`]), a row per count, and no plan made.
    pub fn pack_for_nodes(
        &mut self,
        opts: &PlanOptions,
        nodes: &[u32],
        overhead_seconds: f64,
        store_bandwidth: Option<u64>,
        book: Option<usize>,
    ) -> Result<Vec<ClusterRow>, PlanError> {
        let Some(&first) = nodes.first() else { return Ok(Vec::new()) };
        let shape = ClusterShape {
            nodes: first as usize,
            threads_per_node: self.plan.threads as usize,
            overhead_seconds,
            store_bytes_per_second: store_bandwidth.map_or(f64::INFINITY, |b| b as f64),
            book,
        };
        if nodes.len() > 1 {
            let counts: Vec<usize> = nodes.iter().map(|&n| n as usize).collect();
            return cluster_sweep(self, opts, &shape, &counts);
        }
        let ClusterPlan { chosen, row, plan } = plan_for_cluster(self, opts, &shape)?;
        (self.chosen, self.plan) = (chosen, plan);
        Ok(vec![row])
    }
}

/// Whether candidate `c` is packed for a cluster at all.
fn packable(c: &SimulatedCandidate) -> bool {
    c.candidate.fits && c.graph.len() <= MAX_PACKED_JOBS
}

/// Each candidate checked against its space, once for any number of node counts (None: not
/// packed, or not sound).
fn ready_plans(choice: &PlanChoice) -> Vec<Option<ReadyPlan>> {
    let ready = |c: &SimulatedCandidate| ReadyPlan::from_graph(c.space.clone(), c.graph.clone()).ok();
    choice.candidates.par_iter().map(|c| packable(c).then(|| ready(c)).flatten()).collect()
}

/// The shortest cluster run among the candidates' packings, with what a sweep's row needs.
struct Packed {
    /// The candidate packed.
    chosen: usize,
    packing: Packing,
    /// Candidates packed to choose it.
    tried: usize,
    /// The most values one of its tasks holds.
    node_memory_bytes: u64,
    /// The store's predicted peak, files going as their last reader ends.
    store_peak_bytes: u64,
}

impl Packed {
    /// Its row of a sweep of node counts.
    fn row(&self, choice: &PlanChoice, cluster: &ClusterShape) -> ClusterRow {
        let c = &choice.candidates[self.chosen];
        ClusterRow {
            board: c.space.board().to_string(),
            nodes: cluster.nodes as u32,
            threads_per_node: cluster.threads_per_node as u32,
            candidate: c.label(),
            jobs: c.graph.len(),
            tasks: self.packing.tasks.len(),
            predicted_seconds: round4(self.packing.makespan_seconds),
            store_read_bytes: self.packing.read_bytes,
            store_write_bytes: self.packing.write_bytes,
            store_peak_bytes: self.store_peak_bytes,
            node_memory_bytes: self.node_memory_bytes,
        }
    }
}

/// The candidates' checked plans `ready` packed for `cluster`, the shortest run kept (fewer
/// tasks on a tie; the planner's choice, packed, when none can be).
fn best_packing(
    choice: &PlanChoice,
    opts: &PlanOptions,
    cluster: &ClusterShape,
    ready: &[Option<ReadyPlan>],
) -> Result<Packed, PlanError> {
    let key = |(i, _, p): &(usize, &ReadyPlan, Packing)| (p.makespan_seconds, p.tasks.len(), *i);
    let best = (ready.par_iter().enumerate())
        .filter_map(|(i, r)| r.as_ref().map(|r| (i, r, pack_candidate(&choice.candidates[i], r, opts, cluster))))
        .min_by(|a, b| key(a).partial_cmp(&key(b)).expect("finite predictions"));
    let fallback;
    let (chosen, ready_plan, packing) = match best {
        Some(b) => b,
        None => {
            let c = &choice.candidates[choice.chosen];
            fallback = ReadyPlan::from_graph(c.space.clone(), c.graph.clone())?;
            (choice.chosen, &fallback, pack_candidate(c, &fallback, opts, cluster))
        }
    };
    let peak = choice.candidates[chosen].candidate.peak_memory;
    let node_memory_bytes =
        packing.tasks.iter().map(|t| task_memory_bytes(ready_plan, &t.jobs, peak)).max().unwrap_or(0);
    let files = TaskFiles::new(ready_plan, &packing.tasks, cluster.book);
    let node = node_options(&choice.candidates[chosen], opts, cluster);
    let store_peak_bytes = store_peak(ready_plan, (&opts.model.contention, node), cluster, &packing, &files);
    Ok(Packed { chosen, packing, tried: ready.iter().flatten().count(), node_memory_bytes, store_peak_bytes })
}

/// Candidate `c` (checked as `ready`) packed for `cluster`, its node's simulation options
/// those the planner simulated it with, at the node's threads.
fn pack_candidate(c: &SimulatedCandidate, ready: &ReadyPlan, opts: &PlanOptions, cluster: &ClusterShape) -> Packing {
    pack(ready, &opts.model.contention, node_options(c, opts, cluster), cluster, PLAN_TICKS_PER_SECOND)
}

/// How a node of `cluster` runs candidate `c`'s jobs: the planner's simulation options at
/// the node's threads, with its memory limit for values.
fn node_options(c: &SimulatedCandidate, opts: &PlanOptions, cluster: &ClusterShape) -> SimOptions {
    let threads = cluster.threads_per_node as u32;
    super::search::sim_options(opts, values_limit(opts.mem_limit, c.fixed_bytes, threads))
}

/// A cluster as the packing sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusterShape {
    /// Nodes that run tasks at once.
    pub nodes: usize,
    /// Threads of one node: a task runs on all of them.
    pub threads_per_node: usize,
    /// Seconds from a task being ready to its start (the engine's dispatch and start-up).
    pub overhead_seconds: f64,
    /// Bytes per second of the shared store, every node together.
    pub store_bytes_per_second: f64,
    /// The opening book the run keeps: files of partitions of at most this many lines stay to
    /// the end, with the root's inputs; any other goes once every task that reads it is done
    /// ([`TaskFiles`]). None: every file stays.
    pub book: Option<usize>,
}

/// A cluster task: jobs of the plan, by index, in plan order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// `t<i>`: its place in the task order.
    pub name: String,
    /// The plan's jobs it runs.
    pub jobs: Vec<usize>,
    /// The tasks whose jobs' files it reads (all listed before it), by index.
    pub deps: Vec<usize>,
}

/// Per task, the tasks whose jobs its jobs read, from the plan's graph: sorted, itself left out.
pub(super) fn task_deps(plan: &ReadyPlan, tasks: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut owner = vec![0usize; plan.graph.len()];
    for (t, jobs) in tasks.iter().enumerate() {
        jobs.iter().for_each(|&j| owner[j] = t);
    }
    tasks
        .iter()
        .enumerate()
        .map(|(t, jobs)| {
            let mut deps: Vec<usize> = jobs
                .iter()
                .flat_map(|&j| plan.graph.needs(j))
                .map(|&k| owner[k as usize])
                .filter(|&d| d != t)
                .collect();
            deps.sort_unstable();
            deps.dedup();
            deps
        })
        .collect()
}

/// Bytes of values one task holds at worst: its jobs' outputs and the inputs it reads from other
/// tasks, all resident at once, but never more than the plan's predicted peak on one node
/// (`peak_bytes`, 0: not predicted), which the executor keeps to by dropping values it can read
/// back from the store. What a cluster engine is asked for, a task.
pub fn task_memory_bytes(plan: &ReadyPlan, jobs: &[usize], peak_bytes: u64) -> u64 {
    let g = &plan.graph;
    let all: u64 = jobs.iter().chain(&read_from_others(g, jobs)).map(|&j| g.jobs[j].bytes).sum();
    if peak_bytes > 0 { all.min(peak_bytes) } else { all }
}

/// The jobs outside `jobs` that `jobs` read (other tasks' files), sorted, each once.
fn read_from_others(g: &Graph, jobs: &[usize]) -> Vec<usize> {
    let inside: HashSet<usize> = jobs.iter().copied().collect();
    let mut inputs: Vec<usize> =
        jobs.iter().flat_map(|&j| g.needs(j)).map(|&k| k as usize).filter(|k| !inside.contains(k)).collect();
    inputs.sort_unstable();
    inputs.dedup();
    inputs
}

/// One node count of a cluster sweep: the plan [`plan_for_cluster`] chooses for it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ClusterRow {
    /// The board, `MxN`.
    pub board: String,
    /// Nodes.
    pub nodes: u32,
    /// Threads of a node.
    pub threads_per_node: u32,
    /// The candidate chosen (grouping and split).
    pub candidate: String,
    /// Jobs of its plan.
    pub jobs: usize,
    /// Cluster tasks they are packed into.
    pub tasks: usize,
    /// Predicted seconds of the cluster run.
    pub predicted_seconds: f64,
    /// Bytes the tasks read from the store.
    pub store_read_bytes: u64,
    /// Bytes the tasks write, every job's file once.
    pub store_write_bytes: u64,
    /// The most bytes in the store at once: files go once every task that reads them is done,
    /// but the book's ([`ClusterShape::book`]).
    pub store_peak_bytes: u64,
    /// The most values one task holds ([`task_memory_bytes`]): the memory a node needs.
    pub node_memory_bytes: u64,
}

/// One node count's two-level plan, from [`plan_for_cluster`].
pub struct ClusterPlan {
    /// The index of the candidate chosen.
    pub chosen: usize,
    /// What a sweep's table shows of it.
    pub row: ClusterRow,
    /// The plan, tasks recorded.
    pub plan: Plan,
}

/// The row of [`plan_for_cluster`]'s plan for each of `nodes` (the other fields of `cluster`
/// as given), in order, each candidate checked once for all of them and no plan made.
pub fn cluster_sweep(
    choice: &PlanChoice,
    opts: &PlanOptions,
    cluster: &ClusterShape,
    nodes: &[usize],
) -> Result<Vec<ClusterRow>, PlanError> {
    let ready = ready_plans(choice);
    (nodes.iter())
        .map(|&n| {
            let shape = ClusterShape { nodes: n, ..*cluster };
            Ok(best_packing(choice, opts, &shape, &ready)?.row(choice, &shape))
        })
        .collect()
}

/// Tasks and what the simulation predicts of them.
#[derive(Clone, Debug, PartialEq)]
pub struct Packing {
    /// In an order in which every task reads only tasks before it.
    pub tasks: Vec<Task>,
    /// Per task, predicted seconds from its dispatch to its end.
    pub task_seconds: Vec<f64>,
    /// Predicted seconds from the first dispatch to the last task's end.
    pub makespan_seconds: f64,
    /// Bytes the tasks read from the store (each task reads each input of another task once).
    pub read_bytes: u64,
    /// Bytes the tasks write to the store (every job's file).
    pub write_bytes: u64,
    /// The band size chosen, in seconds of work (infinite: one task).
    pub band_seconds: f64,
}

/// Packs `plan` for `cluster`, the band size chosen by simulation among sizes from the whole
/// plan's work down to a 2^-24 share of it (every sixth power of two, then closer around the
/// best). `node`: how a node runs a task's jobs (the plan's
/// simulation options on the node's threads: its memory limit for values, read-back rate, time
/// between jobs), with the `contention` curve. `ticks_per_second`: the unit of the plan's
/// costs (1e9 for nanoseconds). Deterministic.
pub fn pack(
    plan: &ReadyPlan,
    contention: &Contention,
    node: SimOptions,
    cluster: &ClusterShape,
    ticks_per_second: f64,
) -> Packing {
    let g = &plan.graph;
    let work: u64 = g.jobs.iter().map(|j| j.cost).sum();
    let model = (contention, node);
    let whole = simulate(plan, model, cluster, ticks_per_second, bands(plan, cluster.nodes, u64::MAX));
    if cluster.nodes <= 1 {
        return whole;
    }
    // Band sizes a factor of 64 apart first, then those 8 times and 2 times larger and smaller
    // than the best so far: the makespan changes slowly with the band, and each try is a
    // simulation of every job.
    let try_shifts = |shifts: Vec<u32>| -> Vec<(u32, u64, Packing)> {
        shifts
            .into_par_iter()
            .map(|shift| {
                let band = (work >> shift).max(1);
                (shift, band, simulate(plan, model, cluster, ticks_per_second, bands(plan, cluster.nodes, band)))
            })
            .collect()
    };
    let key = |p: &Packing| (p.makespan_seconds, p.tasks.len());
    let mut tried = try_shifts((0..=MAX_SHIFT).step_by(6).collect());
    for step in [3, 1] {
        let best = tried.iter().min_by(|a, b| key(&a.2).partial_cmp(&key(&b.2)).expect("not NaN")).map_or(0, |t| t.0);
        let near = [best.checked_sub(step), Some(best + step).filter(|&s| s <= MAX_SHIFT)];
        let new: Vec<u32> = near.into_iter().flatten().filter(|s| tried.iter().all(|t| t.0 != *s)).collect();
        tried.extend(try_shifts(new));
    }
    // Weighed in the order of the band sizes, so the choice does not hang on the threads.
    tried.sort_by_key(|t| t.0);
    let mut best = whole;
    for (_, band, candidate) in tried {
        // Fewer tasks win a tie: each is one more thing for the engine to dispatch.
        if key(&candidate) < key(&best) {
            best = Packing { band_seconds: band as f64 / ticks_per_second, ..candidate };
        }
    }
    best
}

/// The finest band size tried is the plan's work over 2^this.
const MAX_SHIFT: u32 = 24;

/// The tasks for one band size (in ticks of work).
fn bands(plan: &ReadyPlan, nodes: usize, band: u64) -> Vec<Task> {
    let g = &plan.graph;
    let mut levels: BTreeMap<std::cmp::Reverse<usize>, Vec<usize>> = BTreeMap::new();
    for (i, l) in plan.layout.iter().enumerate() {
        levels.entry(std::cmp::Reverse(l.key.total())).or_default().push(i);
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut pending: Vec<usize> = Vec::new();
    let mut pending_cost = 0u64;
    for jobs in levels.into_values() {
        let cost: u64 = jobs.iter().map(|&j| g.jobs[j].cost).sum();
        let ways = (cost / band).min(nodes as u64).min(jobs.len() as u64) as usize;
        if ways >= 2 {
            if !pending.is_empty() {
                groups.push(std::mem::take(&mut pending));
                pending_cost = 0;
            }
            groups.extend(balanced(g, jobs, ways));
            continue;
        }
        pending.extend(jobs);
        pending_cost = pending_cost.saturating_add(cost);
        if pending_cost >= band {
            groups.push(std::mem::take(&mut pending));
            pending_cost = 0;
        }
    }
    if !pending.is_empty() {
        groups.push(pending);
    }
    for jobs in &mut groups {
        jobs.sort_unstable();
    }
    named_tasks(plan, groups)
}

/// `groups` of jobs as tasks `t0`, `t1`, ... in that order, each with the tasks it reads.
pub(super) fn named_tasks(plan: &ReadyPlan, groups: Vec<Vec<usize>>) -> Vec<Task> {
    let deps = task_deps(plan, &groups);
    groups
        .into_iter()
        .zip(deps)
        .enumerate()
        .map(|(i, (jobs, deps))| Task { name: format!("t{i}"), jobs, deps })
        .collect()
}

/// `jobs` (one level: none reads another) in `ways` parts of near-equal work: the longest
/// first, each to the part with the least so far.
fn balanced(g: &Graph, mut jobs: Vec<usize>, ways: usize) -> Vec<Vec<usize>> {
    jobs.sort_by_key(|&j| (std::cmp::Reverse(g.jobs[j].cost), j));
    let mut parts: Vec<(u64, Vec<usize>)> = vec![(0, Vec::new()); ways];
    for j in jobs {
        let least = (0..ways).min_by_key(|&p| (parts[p].0, p)).expect("at least one part");
        parts[least].0 += g.jobs[j].cost;
        parts[least].1.push(j);
    }
    parts.into_iter().map(|(_, p)| p).filter(|p| !p.is_empty()).collect()
}

/// The packing of `tasks` with its simulated times.
fn simulate(
    plan: &ReadyPlan,
    model: (&Contention, SimOptions),
    cluster: &ClusterShape,
    ticks_per_second: f64,
    tasks: Vec<Task>,
) -> Packing {
    let g = &plan.graph;
    // Tasks of one band run side by side and share the store's bandwidth.
    let mut band_of = vec![0usize; tasks.len()];
    let mut band_size: Vec<usize> = Vec::new();
    for (t, task) in tasks.iter().enumerate() {
        let level = plan.layout[task.jobs[0]].key.total();
        let one_level = task.jobs.iter().all(|&j| plan.layout[j].key.total() == level);
        let same_as_before = t > 0 && one_level && {
            let prev = &tasks[t - 1];
            prev.jobs.iter().all(|&j| plan.layout[j].key.total() == level)
        };
        if !same_as_before {
            band_size.push(0);
        }
        band_of[t] = band_size.len() - 1;
        *band_size.last_mut().expect("a band") += 1;
    }
    let (mut read_bytes, mut write_bytes) = (0u64, 0u64);
    let mut task_seconds = Vec::with_capacity(tasks.len());
    for (t, task) in tasks.iter().enumerate() {
        let inputs = read_from_others(g, &task.jobs);
        let reads: u64 = inputs.iter().map(|&k| g.jobs[k].bytes).sum();
        let writes: u64 = task.jobs.iter().map(|&j| g.jobs[j].bytes).sum();
        read_bytes += reads;
        write_bytes += writes;
        let share = cluster.store_bytes_per_second / band_size[band_of[t]] as f64;
        let io = if share > 0.0 { (reads + writes) as f64 / share } else { 0.0 };
        // A task that cannot run under the node's memory limit makes the packing useless.
        let jobs = sub_makespan(plan, model, cluster.threads_per_node, &task.jobs, &inputs)
            .map_or(f64::INFINITY, |t| t as f64);
        task_seconds.push(cluster.overhead_seconds + jobs / ticks_per_second + io);
    }
    let makespan_seconds = task_makespan(&tasks, &task_seconds, cluster.nodes);
    Packing { tasks, task_seconds, makespan_seconds, read_bytes, write_bytes, band_seconds: f64::INFINITY }
}

/// Ticks of the simulated schedule of `jobs` alone on `threads` threads (the node's options
/// and contention); None where they cannot run under the node's memory limit. The `inputs` a
/// task reads from other tasks ([`read_from_others`]) are in memory as soon as they fit (a job of no cost each, whose
/// reading is the store traffic counted beside), and count against the limit like any value:
/// dropped while idle, read back when needed again.
fn sub_makespan(
    plan: &ReadyPlan,
    model: (&Contention, SimOptions),
    threads: usize,
    jobs: &[usize],
    inputs: &[usize],
) -> Option<u64> {
    sub_run(plan, model, threads, jobs, inputs, false).map(|run| run.row.makespan)
}

/// The simulated run of [`sub_makespan`], its spans recorded where `record` (the `inputs`
/// first, then `jobs`, by their place in the two lists together).
fn sub_run(
    plan: &ReadyPlan,
    (contention, node): (&Contention, SimOptions),
    threads: usize,
    jobs: &[usize],
    inputs: &[usize],
    record: bool,
) -> Option<Run> {
    let g = &plan.graph;
    let read = inputs.iter().map(|&k| Job { cost: 0, deps: Vec::new(), ..g.jobs[k].clone() });
    let sub: Vec<Job> = read
        .chain(jobs.iter().map(|&j| Job {
            deps: g.needs(j).iter().map(|&k| g.jobs[k as usize].name.clone()).collect(),
            ..g.jobs[j].clone()
        }))
        .collect();
    let graph = Graph::new(sub, None).expect("a piece of a checked graph is a graph");
    let sim = Simulator::new(&graph, node).expect("a graph simulates").with_contention(contention);
    match sim.run(Procs::Limited(threads.max(1) as u32), record) {
        Ok(run) => Some(run),
        Err(SimError::MemLimit { .. }) => None,
        Err(e) => panic!("a task's jobs simulate: {e}"),
    }
}

/// When `packing`'s tasks and jobs run on `cluster` (each task dispatched as [`run_tasks`]
/// schedules them, its jobs as [`sub_makespan`] does after the dispatch delay), and the peak
/// of the store that `files` keeps.
fn store_peak(
    plan: &ReadyPlan,
    model: (&Contention, SimOptions),
    cluster: &ClusterShape,
    packing: &Packing,
    files: &TaskFiles,
) -> u64 {
    let tasks = &packing.tasks;
    let run = run_tasks(&task_graph(tasks, &packing.task_seconds), cluster.nodes as u32, true)
        .expect("a limited simulation runs");
    let mut task_spans = vec![(0.0, 0.0); tasks.len()];
    for s in &run.spans {
        task_spans[s.job as usize] = (s.start as f64 / TASK_TICKS_PER_SECOND, s.end as f64 / TASK_TICKS_PER_SECOND);
    }
    let mut job_spans = vec![(0.0, 0.0); plan.graph.len()];
    for (t, task) in tasks.iter().enumerate() {
        let inputs = read_from_others(&plan.graph, &task.jobs);
        let begin = task_spans[t].0 + cluster.overhead_seconds;
        match sub_run(plan, model, cluster.threads_per_node, &task.jobs, &inputs, true) {
            Some(sub) => {
                for s in sub.spans.iter().filter(|s| s.job as usize >= inputs.len()) {
                    let j = task.jobs[s.job as usize - inputs.len()];
                    let at = |tick: u64| (begin + tick as f64 / PLAN_TICKS_PER_SECOND).min(task_spans[t].1);
                    job_spans[j] = (at(s.start), at(s.end));
                }
            }
            // A task that cannot run under the node's limit: its jobs taken as running the
            // whole task.
            None => task.jobs.iter().for_each(|&j| job_spans[j] = task_spans[t]),
        }
    }
    files.peak(&plan.graph, &task_spans, &job_spans)
}

/// Ticks a second of a plan's job costs: nanoseconds.
const PLAN_TICKS_PER_SECOND: f64 = 1e9;

/// Ticks a second of a task graph: microseconds, so that the simulator's integer clock keeps
/// the order of short tasks.
pub const TASK_TICKS_PER_SECOND: f64 = 1e6;

/// A task graph's job: `seconds` of work in [`TASK_TICKS_PER_SECOND`] ticks (at least one).
pub(super) fn task_job(name: String, seconds: f64, states: u64, deps: Vec<String>) -> Job {
    Job { name, cost: (seconds * TASK_TICKS_PER_SECOND).round().max(1.0) as u64, states, bytes: 0, deps }
}

/// The schedule of a task graph on `nodes` nodes: each task dispatched to the first free node
/// as soon as the tasks it reads have ended, the longest path first. Spans in
/// [`TASK_TICKS_PER_SECOND`] ticks, recorded when `record`.
pub fn run_tasks(graph: &Graph, nodes: u32, record: bool) -> Result<Run, SimError> {
    Simulator::new(graph, SimOptions { policy: Policy::Cp, ..SimOptions::default() })?
        .run(Procs::Limited(nodes.max(1)), record)
}

/// Seconds until the last task ends ([`run_tasks`]).
fn task_makespan(tasks: &[Task], seconds: &[f64], nodes: usize) -> f64 {
    let run = run_tasks(&task_graph(tasks, seconds), nodes as u32, false).expect("a limited simulation runs");
    run.row.makespan as f64 / TASK_TICKS_PER_SECOND
}

/// `tasks` as a graph of jobs, each task's the `seconds` it takes.
fn task_graph(tasks: &[Task], seconds: &[f64]) -> Graph {
    let jobs: Vec<Job> = tasks
        .iter()
        .zip(seconds)
        .map(|(t, &s)| task_job(t.name.clone(), s, 0, t.deps.iter().map(|&k| tasks[k].name.clone()).collect()))
        .collect();
    Graph::new(jobs, None).expect("tasks listed in order form a graph")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Position;
    use crate::sched::{CostSpec, orbits};
    use crate::solver::Space;

    fn plan(board: &str, groups: usize) -> ReadyPlan {
        let space = Space::new(Position::empty(board.parse().unwrap()), Some(groups)).unwrap();
        let graph = orbits(&space, &CostSpec::States, None).unwrap();
        ReadyPlan::from_graph(space, graph).unwrap()
    }

    /// A node with no memory limit, longest path first.
    fn cp() -> SimOptions {
        SimOptions { policy: Policy::Cp, ..SimOptions::default() }
    }

    fn shape(nodes: usize, overhead: f64) -> ClusterShape {
        ClusterShape { nodes, threads_per_node: 2, overhead_seconds: overhead, store_bytes_per_second: 1e9, book: None }
    }

    /// Every job in exactly one task, and every task reads only tasks listed before it.
    fn assert_sound(p: &ReadyPlan, packing: &Packing) {
        let mut seen = vec![0; p.graph.len()];
        for (t, task) in packing.tasks.iter().enumerate() {
            assert_eq!(task.name, format!("t{t}"));
            for &j in &task.jobs {
                seen[j] += 1;
            }
            assert!(task.deps.iter().all(|&d| d < t), "task {t} reads a later task");
        }
        assert!(seen.iter().all(|&n| n == 1), "every job in one task");
    }

    #[test]
    fn one_node_is_one_task_and_its_prediction_is_the_plans_on_its_threads_plus_the_dispatch() {
        let p = plan("2x4", 3);
        let packing = pack(&p, &Contention::default(), cp(), &shape(1, 2.0), 1e9);
        assert_eq!(packing.tasks.len(), 1);
        assert_sound(&p, &packing);
        let all: Vec<usize> = (0..p.graph.len()).collect();
        let alone = sub_makespan(&p, (&Contention::default(), cp()), 2, &all, &[]).unwrap();
        let io = (packing.write_bytes as f64) / 1e9;
        assert!((packing.makespan_seconds - (2.0 + alone as f64 / 1e9 + io)).abs() < 1e-5, "{packing:?}");
        assert_eq!(packing.read_bytes, 0, "one task reads nothing from another");
    }

    #[test]
    fn a_large_dispatch_delay_packs_fewer_tasks_and_no_delay_uses_the_nodes() {
        let p = plan("3x3", 3);
        // Costs in states read as nanoseconds: about a millisecond of work in all; a store
        // fast enough that only the dispatch delay tells the packings apart.
        let fast = |nodes, overhead| ClusterShape { store_bytes_per_second: 1e15, ..shape(nodes, overhead) };
        let none = pack(&p, &Contention::default(), cp(), &fast(4, 0.0), 1e9);
        let slow = pack(&p, &Contention::default(), cp(), &fast(4, 10.0), 1e9);
        assert_sound(&p, &none);
        assert_sound(&p, &slow);
        assert!(none.tasks.len() > slow.tasks.len(), "{} vs {}", none.tasks.len(), slow.tasks.len());
        assert_eq!(slow.tasks.len(), 1, "ten seconds a task: one task is fastest");
        assert!(none.makespan_seconds < pack(&p, &Contention::default(), cp(), &fast(1, 0.0), 1e9).makespan_seconds);
    }

    #[test]
    fn the_tasks_of_a_split_level_share_its_work_within_one_job() {
        let p = plan("3x3", 3);
        let g = &p.graph;
        let tasks = bands(&p, 3, 1);
        let packing = simulate(&p, (&Contention::default(), cp()), &shape(3, 0.0), 1e9, tasks.clone());
        assert_sound(&p, &packing);
        let mut by_level: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
        for t in &tasks {
            let level = p.layout[t.jobs[0]].key.total();
            assert!(t.jobs.iter().all(|&j| p.layout[j].key.total() == level), "band 1: one level a task");
            by_level.entry(level).or_default().push(t.jobs.iter().map(|&j| g.jobs[j].cost).sum());
        }
        for (level, works) in by_level {
            let largest = p
                .layout
                .iter()
                .enumerate()
                .filter(|(_, l)| l.key.total() == level)
                .map(|(j, _)| g.jobs[j].cost)
                .max()
                .unwrap();
            let (lo, hi) = (works.iter().min().unwrap(), works.iter().max().unwrap());
            assert!(hi - lo <= largest, "level {level}: {works:?}");
            let jobs = p.layout.iter().filter(|l| l.key.total() == level).count();
            assert_eq!(works.len(), jobs.min(3), "level {level}");
        }
    }
}
