//! The executor: runs a plan's jobs on a rayon pool of P threads. Rayon has no task
//! dependencies, so each job counts its unfinished predecessors and becomes ready at zero;
//! every worker takes the best ready job (the plan's priority, then plan order) from one
//! shared queue, computes it with the kernel, and releases what it made ready. Memory is
//! counted by [`Residency`], as the simulator counts it: a job's values are resident from its
//! start until every job that needs them has finished; under `mem_limit`, values still needed
//! are dropped to the store and read back by their next reader. Every job's start and end go
//! to the trace.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::disk::DiskUse;
use crate::kernel::{Kernel, Pieces, Rows, Value};
use crate::key::PartitionKey;
use crate::memory::{Admission, Residency};
use crate::plan::Checked;
use crate::solve::{MoveValue, move_value};
use crate::space::State;
use crate::store::{Store, StoreError};

/// One job's run, seconds from the start of the execution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceRow {
    pub job: String,
    pub thread: usize,
    pub start: f64,
    pub end: f64,
    pub positions: u64,
}

pub struct Execution {
    /// Value of the root position.
    pub value: Value,
    /// Every undrawn line of the root with the value of playing it.
    pub moves: Vec<MoveValue>,
    /// In the order jobs finished.
    pub trace: Vec<TraceRow>,
    pub seconds: f64,
    pub threads: usize,
    pub positions: u64,
    /// Most bytes of job values resident at once, counted as the simulator counts them.
    pub peak_bytes: u64,
    /// Most bytes of values in the store's files at once (0 without a store), counted as
    /// [`crate::disk::predicted_peak`] counts them.
    pub peak_disk_bytes: u64,
    /// Every job's values, by job, when asked to keep them.
    pub tables: Option<Vec<Arc<Vec<Value>>>>,
    /// Jobs found finished in the store and not run again.
    pub resumed: usize,
}

/// How to run a plan.
#[derive(Clone, Copy, Default)]
pub struct ExecOptions<'a> {
    pub threads: usize,
    /// Keep every job's values (tests).
    pub keep: bool,
    /// Called with (positions done, positions in all) as jobs finish.
    pub progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
    /// Write every job to this store, and skip the jobs it already holds.
    pub store: Option<&'a Store>,
    /// Hears about store files that failed their check (they are computed again).
    pub report: Option<&'a (dyn Fn(&str) + Sync)>,
    /// The opening book: delete the store files of partitions with more than this many lines
    /// as soon as no job still to run reads them.
    pub keep_lines: Option<usize>,
    /// Most bytes of job values resident at once. With a store, values still needed are
    /// dropped and read back; without one, jobs wait for memory. A job that can never fit
    /// stops the run with [`ExecError::MemLimit`].
    pub mem_limit: Option<u64>,
}

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "--mem-limit {limit} is too small: job '{job}' needs {needs} bytes at once (its values and every partition it reads)"
    )]
    MemLimit { limit: u64, job: String, needs: u64 },
    #[error(
        "--mem-limit {limit} cannot be kept without a store: job '{job}' cannot start until memory is freed, and nothing running will free it"
    )]
    Stuck { limit: u64, job: String },
}

/// The successor partitions a job reads, as pieces: per group, the jobs of `key.plus(g)` in
/// row order with their first values.
struct Reads {
    /// Per group: (first value of each piece, job of each piece); empty where the group is full.
    groups: Vec<(Vec<usize>, Vec<u32>)>,
}

/// A job's inputs: per group, the pieces of the successor partition it reads (None where it
/// needs no values of that piece).
type Inputs = Vec<Vec<Option<Arc<Vec<Value>>>>>;

/// One job's values in memory, when resident. Outside the shared lock, so that a reader can
/// load them from the store while other workers go on; [`Residency`] (under the lock) decides
/// what is resident, and a slot is emptied only under the lock and only when no running job
/// uses it.
type Slot = Mutex<Option<Arc<Vec<Value>>>>;

/// Everything the workers share, behind one lock.
struct Shared {
    /// Ready jobs: (priority, job), best first; ties go to the earlier job of the plan.
    ready: BinaryHeap<(u64, Reverse<u32>)>,
    /// Unfinished jobs each job still waits for.
    missing: Vec<u32>,
    memory: Residency,
    /// Every job's values, when asked to keep them (tests); not counted as resident.
    kept: Vec<Option<Arc<Vec<Value>>>>,
    unstarted: usize,
    running: usize,
    done_positions: u64,
    trace: Vec<TraceRow>,
    root: Option<(Value, Vec<MoveValue>)>,
    /// Jobs found finished in the store (or pruned from it): never run, never made ready.
    stored: Vec<bool>,
    /// Store files to delete, collected under the lock and deleted outside it.
    to_delete: Vec<usize>,
    /// Bytes in the store's files (counted when written and when marked for deletion).
    disk: DiskUse,
    /// The first error; it stops every worker.
    error: Option<ExecError>,
}

impl Shared {
    fn new(plan: &Checked, mem_limit: Option<u64>, evict: bool) -> Shared {
        let g = &plan.graph;
        let n = g.len();
        let mut s = Shared {
            ready: BinaryHeap::new(),
            missing: (0..n).map(|i| g.needs(i).len() as u32).collect(),
            memory: Residency::new(g, mem_limit, evict),
            kept: vec![None; n],
            unstarted: n,
            running: 0,
            done_positions: 0,
            trace: Vec::with_capacity(n),
            root: None,
            stored: vec![false; n],
            to_delete: Vec::new(),
            disk: DiskUse::default(),
            error: None,
        };
        for i in 0..n {
            if s.missing[i] == 0 {
                s.ready.push((plan.priority[i], Reverse(i as u32)));
            }
        }
        s
    }

    /// Marks `done` (jobs already in the store) finished without running them.
    fn resume(&mut self, plan: &Checked, done: &[bool]) {
        let g = &plan.graph;
        for (job, _) in done.iter().enumerate().filter(|(_, d)| **d) {
            self.unstarted -= 1;
            self.stored[job] = true;
            self.done_positions += g.jobs[job].states;
            self.memory.done_before(g.needs(job));
            for &k in g.needed_by(job) {
                self.missing[k as usize] -= 1;
            }
        }
        self.ready = (0..g.len())
            .filter(|&i| !done[i] && self.missing[i] == 0)
            .map(|i| (plan.priority[i], Reverse(i as u32)))
            .collect();
    }

    /// Takes the best ready job that fits in memory, drops what it evicts and counts it
    /// running. None: no ready job fits now.
    fn start(&mut self, plan: &Checked, slots: &[Slot]) -> Option<usize> {
        let g = &plan.graph;
        let mut held = Vec::new();
        let mut started = None;
        while let Some(entry) = self.ready.pop() {
            let job = entry.1.0 as usize;
            match self.memory.try_start(job, g.needs(job)) {
                Some(Admission { evict, .. }) => {
                    for k in evict {
                        slots[k as usize].lock().expect("slot lock").take();
                    }
                    started = Some(job);
                    break;
                }
                None => held.push(entry),
            }
        }
        self.ready.extend(held);
        if started.is_some() {
            self.unstarted -= 1;
            self.running += 1;
        }
        started
    }

    /// `job` has produced `out`: keeps it for its readers, frees the inputs nobody else reads,
    /// and makes ready the jobs that waited only for it.
    fn finish(&mut self, plan: &Checked, slots: &[Slot], job: usize, out: Vec<Value>, opts: &ExecOptions) {
        let g = &plan.graph;
        let out = Arc::new(out);
        if opts.keep {
            self.kept[job] = Some(out.clone());
        }
        *slots[job].lock().expect("slot lock") = Some(out);
        if opts.store.is_some() {
            self.disk.add(g.jobs[job].bytes);
        }
        for k in self.memory.finish(job, g.needs(job)) {
            slots[k as usize].lock().expect("slot lock").take();
        }
        for &k in g.needs(job) {
            let k = k as usize;
            if self.memory.readers(k) == 0 && !plan.in_book(k, opts.keep_lines) {
                self.to_delete.push(k);
                self.disk.remove(g.jobs[k].bytes);
            }
        }
        for &k in g.needed_by(job) {
            self.missing[k as usize] -= 1;
            if self.missing[k as usize] == 0 && !self.stored[k as usize] {
                self.ready.push((plan.priority[k as usize], Reverse(k)));
            }
        }
        self.running -= 1;
        self.done_positions += g.jobs[job].states;
    }
}

/// Per job, the pieces of each successor partition in row order.
fn reads(plan: &Checked, kernel: &Kernel) -> Vec<Reads> {
    let (space, layout) = (&plan.space, &plan.layout);
    let mut pieces: HashMap<PartitionKey, (Vec<usize>, Vec<u32>)> = HashMap::new();
    for (i, l) in layout.iter().enumerate() {
        let (_, row_len) = kernel.shape(&l.key);
        let e = pieces.entry(l.key).or_default();
        e.0.push(l.first_row * row_len);
        e.1.push(i as u32);
    }
    layout
        .iter()
        .map(|l| Reads {
            groups: (0..l.key.groups())
                .map(|g| {
                    if (l.key.counts()[g] as u32) < space.groups[g].size {
                        pieces[&l.key.plus(g)].clone()
                    } else {
                        (Vec::new(), Vec::new())
                    }
                })
                .collect(),
        })
        .collect()
}

/// The kernel's view of a job's inputs: per group, the successor's pieces (empty where not
/// needed).
fn views<'a>(reads: &Reads, inputs: &'a Inputs) -> Vec<Pieces<'a>> {
    reads
        .groups
        .iter()
        .zip(inputs)
        .map(|((starts, _), parts)| {
            Pieces::new(starts.clone(), parts.iter().map(|p| p.as_ref().map_or(&[][..], |v| v.as_slice())).collect())
        })
        .collect()
}

/// Computes one job from its inputs; the root job also gives the value of every move.
fn compute(
    plan: &Checked,
    kernel: &Kernel,
    reads: &Reads,
    job: usize,
    inputs: &Inputs,
) -> (Vec<Value>, Option<(Value, Vec<MoveValue>)>) {
    let l = plan.layout[job];
    let (_, row_len) = kernel.shape(&l.key);
    let views = views(reads, inputs);
    let mut out = vec![0 as Value; l.rows * row_len];
    kernel.compute(&l.key, &views, &mut out, l.first_row);
    let root = (l.key.total() == 0).then(|| (out[0], root_moves(plan, &views)));
    (out, root)
}

/// Runs every job of `plan` on `threads` threads, in memory. `keep` keeps every job's values
/// (tests); `progress(done, total)` is called as positions complete.
pub fn execute(plan: &Checked, threads: usize, keep: bool, progress: Option<&(dyn Fn(u64, u64) + Sync)>) -> Execution {
    execute_with(plan, &ExecOptions { threads, keep, progress, ..Default::default() })
        .expect("without a store nothing can fail")
}

/// Empty slots, one per job.
fn slots(plan: &Checked) -> Vec<Slot> {
    (0..plan.graph.len()).map(|_| Mutex::new(None)).collect()
}

/// The pieces `job` reads: from memory, or read from the store into their slot, where the
/// next reader finds them.
fn gather(
    plan: &Checked,
    store: Option<&Store>,
    reads: &Reads,
    job: usize,
    slots: &[Slot],
) -> Result<Inputs, StoreError> {
    let needs = plan.graph.needs(job);
    reads
        .groups
        .iter()
        .map(|(_, jobs)| {
            jobs.iter()
                .map(|&k| {
                    if !needs.contains(&k) {
                        return Ok(None);
                    }
                    let mut slot = slots[k as usize].lock().expect("slot lock");
                    if slot.is_none() {
                        // Not in memory: finished before this run, or evicted; either way stored.
                        let store = store.expect("values leave memory only when a store holds them");
                        let j = &plan.graph.jobs[k as usize];
                        *slot = Some(Arc::new(store.read(&j.name, &plan.layout[k as usize], j.states)?));
                    }
                    Ok(slot.clone())
                })
                .collect()
        })
        .collect()
}

/// The jobs the store already holds, checked; a file that fails its check is reported and
/// its job runs again.
fn finished_in_store(plan: &Checked, store: &Store, report: Option<&(dyn Fn(&str) + Sync)>) -> Vec<bool> {
    plan.graph
        .jobs
        .iter()
        .zip(&plan.layout)
        .map(|(j, l)| {
            store.has(&j.name)
                && match store.read(&j.name, l, j.states) {
                    Ok(_) => true,
                    Err(e) => {
                        if let Some(r) = report {
                            r(&format!("{e}; computing it again"));
                        }
                        false
                    }
                }
        })
        .collect()
}

/// The jobs not to run: those the store holds and, with an opening book, those it pruned: a
/// job without a file runs only if it belongs to the book or a job that runs reads it.
fn to_skip(plan: &Checked, in_store: &[bool], keep_lines: Option<usize>) -> Vec<bool> {
    if keep_lines.is_none() {
        return in_store.to_vec();
    }
    let g = &plan.graph;
    let mut runs = vec![false; g.len()];
    // Readers before the jobs they read: the reverse of a topological order.
    let order = g.topological_order().expect("a plan has no cycle");
    for &i in order.iter().rev() {
        runs[i] = !in_store[i] && (plan.in_book(i, keep_lines) || g.needed_by(i).iter().any(|&k| runs[k as usize]));
    }
    runs.iter().map(|r| !r).collect()
}

/// Runs every job of `plan`; with a store, skips the jobs it holds and writes every other job
/// to it before counting the job done. A store error, or a memory limit that cannot be kept,
/// stops the run cleanly.
pub fn execute_with(plan: &Checked, opts: &ExecOptions) -> Result<Execution, ExecError> {
    let start = Instant::now();
    let kernel = Kernel::new(&plan.space);
    let total: u64 = plan.graph.jobs.iter().map(|j| j.states).sum();
    let reads = reads(plan, &kernel);
    let mut shared = Shared::new(plan, opts.mem_limit, opts.store.is_some());
    // Jobs whose values are in the store, not in memory; fixed for the whole run.
    let on_disk =
        opts.store.map_or_else(|| vec![false; plan.graph.len()], |store| finished_in_store(plan, store, opts.report));
    let skip = to_skip(plan, &on_disk, opts.keep_lines);
    let resumed = skip.iter().filter(|&&d| d).count();
    if resumed > 0 {
        shared.resume(plan, &skip);
    }
    if let Some(store) = opts.store {
        for (i, j) in plan.graph.jobs.iter().enumerate().filter(|&(i, _)| on_disk[i]) {
            // Files left from earlier runs outside the book that no job still to run reads go;
            // the others count as the store's from the start.
            if shared.memory.readers(i) == 0 && !plan.in_book(i, opts.keep_lines) {
                store.remove(&j.name)?;
            } else {
                shared.disk.add(j.bytes);
            }
        }
    }
    let slots = slots(plan);
    let state = (Mutex::new(shared), Condvar::new());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(opts.threads.max(1)).build().expect("thread pool");
    pool.broadcast(|ctx| {
        let (lock, wake) = &state;
        loop {
            let job = {
                let mut s = lock.lock().expect("executor lock");
                loop {
                    if s.unstarted == 0 || s.error.is_some() {
                        return;
                    }
                    if let Some(job) = s.start(plan, &slots) {
                        break job;
                    }
                    if s.running == 0 && !s.ready.is_empty() {
                        // Nothing running will free memory: the limit cannot be kept.
                        let (_, Reverse(j)) = *s.ready.peek().expect("a ready job");
                        let (j, limit) = (j as usize, opts.mem_limit.unwrap_or(0));
                        let name = plan.graph.jobs[j].name.clone();
                        let needs = s.memory.alone(j, plan.graph.needs(j));
                        s.error = Some(if opts.store.is_some() || needs > limit {
                            ExecError::MemLimit { limit, job: name, needs }
                        } else {
                            ExecError::Stuck { limit, job: name }
                        });
                        wake.notify_all();
                        return;
                    }
                    s = wake.wait(s).expect("executor lock");
                }
            };
            let fail = |e: ExecError| {
                let mut s = lock.lock().expect("executor lock");
                s.error.get_or_insert(e);
                wake.notify_all();
            };
            // A job's span covers its store reads and its write: the plan costs them too.
            let began = start.elapsed().as_secs_f64();
            let inputs = match gather(plan, opts.store, &reads[job], job, &slots) {
                Ok(inputs) => inputs,
                Err(e) => return fail(e.into()),
            };
            let (out, root) = compute(plan, &kernel, &reads[job], job, &inputs);
            // Inputs go before the lock is taken, so a freed partition really is freed.
            drop(inputs);
            if let Some(store) = opts.store
                && let Err(e) = store.write(&plan.graph.jobs[job].name, &plan.layout[job], &out)
            {
                return fail(e.into());
            }
            let ended = start.elapsed().as_secs_f64();
            let positions = plan.graph.jobs[job].states;
            let (done, to_delete) = {
                let mut s = lock.lock().expect("executor lock");
                s.finish(plan, &slots, job, out, opts);
                if root.is_some() {
                    s.root = root;
                }
                let row = TraceRow {
                    job: plan.graph.jobs[job].name.clone(),
                    thread: ctx.index(),
                    start: began,
                    end: ended,
                    positions,
                };
                s.trace.push(row);
                wake.notify_all();
                (s.done_positions, std::mem::take(&mut s.to_delete))
            };
            if let Some(store) = opts.store {
                for k in to_delete {
                    if let Err(e) = store.remove(&plan.graph.jobs[k].name) {
                        return fail(e.into());
                    }
                }
            }
            if let (Some(p), true) = (opts.progress, positions > 0) {
                p(done, total);
            }
        }
    });
    let s = state.0.into_inner().expect("executor lock");
    if let Some(e) = s.error {
        return Err(e);
    }
    let (value, moves) = match s.root {
        Some(root) => root,
        None => root_from_store(plan, &reads, opts.store.expect("the root was not run, so it was stored"))?,
    };
    Ok(Execution {
        value,
        moves,
        trace: s.trace,
        seconds: start.elapsed().as_secs_f64(),
        threads: opts.threads.max(1),
        positions: total,
        peak_bytes: s.memory.peak(),
        peak_disk_bytes: s.disk.peak(),
        tables: opts.keep.then(|| s.kept.into_iter().map(|v| v.expect("kept")).collect()),
        resumed,
    })
}

/// What [`run_job`] did with one job.
#[derive(Clone, Debug)]
pub struct JobRun {
    /// False when the store already held a sound file for the job.
    pub computed: bool,
    /// Seconds spent reading inputs, computing and writing.
    pub seconds: f64,
    pub positions: u64,
}

/// Computes one job of `plan` from the store files of the jobs it needs and writes its own
/// file atomically: one cluster task. A job whose file is already there and sound is left
/// alone, so running a task twice is harmless; a missing or damaged input is an error that
/// names its file.
pub fn run_job(plan: &Checked, store: &Store, job: usize) -> Result<JobRun, StoreError> {
    let start = Instant::now();
    let j = &plan.graph.jobs[job];
    if store.has(&j.name) && store.read(&j.name, &plan.layout[job], j.states).is_ok() {
        return Ok(JobRun { computed: false, seconds: start.elapsed().as_secs_f64(), positions: j.states });
    }
    let kernel = Kernel::new(&plan.space);
    let reads = reads(plan, &kernel);
    let inputs = gather(plan, Some(store), &reads[job], job, &slots(plan))?;
    let (out, _) = compute(plan, &kernel, &reads[job], job, &inputs);
    store.write(&j.name, &plan.layout[job], &out)?;
    Ok(JobRun { computed: true, seconds: start.elapsed().as_secs_f64(), positions: j.states })
}

/// The root's value and the value of every move, from a store that holds the root job and
/// the jobs it reads (the end of a cluster run).
pub fn stored_root(plan: &Checked, store: &Store) -> Result<(Value, Vec<MoveValue>), StoreError> {
    let kernel = Kernel::new(&plan.space);
    root_from_store(plan, &reads(plan, &kernel), store)
}

/// The root's value and moves when every job was already in the store.
fn root_from_store(plan: &Checked, reads: &[Reads], store: &Store) -> Result<(Value, Vec<MoveValue>), StoreError> {
    let root = plan.layout.iter().position(|l| l.key.total() == 0).expect("a root job");
    let j = &plan.graph.jobs[root];
    let value = store.read(&j.name, &plan.layout[root], j.states)?[0];
    let inputs = gather(plan, Some(store), &reads[root], root, &slots(plan))?;
    let views = views(&reads[root], &inputs);
    Ok((value, root_moves(plan, &views)))
}

/// Values of every undrawn line of the root, read from the root's successors.
fn root_moves(plan: &Checked, views: &[Pieces]) -> Vec<MoveValue> {
    let space = &plan.space;
    let mut by_line: Vec<MoveValue> = (0..space.free())
        .map(|i| {
            let (key, index) = space.locate(State(1 << i));
            let g = (0..key.groups()).find(|&g| key.counts()[g] == 1).expect("one line drawn");
            let after = views[g].row(index, 1)[0];
            let boxes = space.completes(State(0), i);
            MoveValue { line: space.lines[i], boxes: boxes as u8, value: move_value(boxes, after) }
        })
        .collect();
    by_line.sort_by_key(|m| m.line);
    by_line
}
