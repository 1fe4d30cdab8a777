//! The executor: runs a plan's jobs on a rayon pool of P threads. Rayon has no task
//! dependencies, so each job counts its unfinished predecessors and becomes ready at zero;
//! every worker takes the best ready job (the plan's priority, then plan order) from one
//! shared queue, computes it with the kernel, and releases what it made ready. Memory is
//! counted by [`crate::sched::Residency`], as the simulator counts it: a job's values are resident from its
//! start until every job that needs them has finished; under `mem_limit`, values still needed
//! are dropped to the store and read back by their next reader. Every job's start and end go
//! to the trace. A job that fails or panics stops the run: its error (the panic's message,
//! naming the job) is recorded under the lock and every waiting worker is woken, so the run
//! ends with an error on any thread count, never a hang.

use std::cmp::Reverse;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use crate::game::{MoveValue, Value};
use crate::plan::ReadyPlan;
use crate::solver::Kernel;

use super::inputs::{Reads, Slot, compute, gather, reads, slots};
use super::job::root_from_store;
use super::options::{ExecError, ExecOptions, panic_message};
use super::recycle::Recycler;
use super::resume::{finished_in_store, remove_stale, to_skip};
use super::shared::Shared;
use super::trace::TraceRow;

/// What a run computed and what it cost.
pub struct Execution {
    /// Value of the root position.
    pub value: Value,
    /// Every undrawn line of the root with the value of playing it.
    pub moves: Vec<MoveValue>,
    /// In the order jobs finished.
    pub trace: Vec<TraceRow>,
    /// Wall seconds.
    pub seconds: f64,
    /// Worker threads.
    pub threads: usize,
    /// Positions of every job of the plan.
    pub positions: u64,
    /// Most bytes of job values resident at once, counted as the simulator counts them.
    pub peak_bytes: u64,
    /// Most bytes of values in the store's files at once (0 without a store), counted as
    /// [`crate::sched::predicted_peak`] counts them.
    pub peak_disk_bytes: u64,
    /// Every job's values, by job, when asked to keep them.
    pub tables: Option<Vec<Arc<Vec<Value>>>>,
    /// Jobs found finished in the store and not run again.
    pub resumed: usize,
}

/// Runs every job of `plan` on `threads` threads, in memory. `keep` keeps every job's values
/// (tests); `progress(done, total)` is called as positions complete.
pub fn execute(
    plan: &ReadyPlan,
    threads: usize,
    keep: bool,
    progress: Option<&(dyn Fn(u64, u64) + Sync)>,
) -> Execution {
    execute_with(plan, &ExecOptions { threads, keep, progress, ..Default::default() })
        .unwrap_or_else(|e| panic!("a run without a store or a limit failed: {e}"))
}

/// Runs every job of `plan`; with a store, skips the jobs it holds and writes every other job
/// to it before counting the job done. A store error, or a memory limit that cannot be kept,
/// stops the run cleanly.
pub fn execute_with(plan: &ReadyPlan, opts: &ExecOptions) -> Result<Execution, ExecError> {
    let (s, reads, total, start, resumed) = run_jobs(plan, opts, None)?;
    let (value, moves) = match s.root {
        Some(root) => root,
        None => root_from_store(plan, &reads, opts.store.expect("the root was not run, so it was stored"))?,
    };
    if let Some(store) = opts.store {
        remove_stale(plan, store, opts.report)?;
    }
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

/// What one cluster task did: the jobs of a sub-plan run on one node's threads.
#[derive(Clone, Debug)]
pub struct TaskRun {
    /// The task's jobs run, in the order they finished (jobs already in the store not run).
    pub trace: Vec<TraceRow>,
    /// The task's jobs found in the store and not run again.
    pub resumed: usize,
    /// Wall seconds.
    pub seconds: f64,
    /// Most bytes of job values resident at once.
    pub peak_bytes: u64,
    /// Most bytes of job files in the store at once as this task counts them: the files of
    /// other tasks' jobs it found there or took as there, and its own as they come and go.
    pub peak_disk_bytes: u64,
    /// The root's value and moves, when the root job is one of the task's.
    pub root: Option<(Value, Vec<MoveValue>)>,
}

/// Runs the jobs of `plan` that `task` marks (a cluster task: a connected piece of the plan)
/// on `opts.threads` threads against `opts.store`, shared with the other tasks. Every other
/// job counts as done: a job of the task reads its values from the store (checked, as every
/// read is), and one that is missing is an error naming its file. A job of the task already
/// in the store is not run again, nor one whose file went once every job reading it had run,
/// so a task run twice is harmless. Files are removed only as `opts.stays` allows (the
/// caller keeps other tasks' files and what they read: [`super::run_task`]); without it
/// nothing is removed.
pub fn execute_task(plan: &ReadyPlan, opts: &ExecOptions, task: &[bool]) -> Result<TaskRun, ExecError> {
    assert!(opts.store.is_some(), "a cluster task reads and writes a store");
    assert_eq!(task.len(), plan.graph.len(), "one mark per job");
    let opts = ExecOptions { keep_lines: None, keep: false, ..*opts };
    let own = plan.graph.jobs.iter().zip(task).filter(|&(_, &t)| t).map(|(j, _)| j.name.as_str()).collect();
    opts.store.expect("checked above").remove_temps_of(&own);
    let (s, _, _, start, resumed) = run_jobs(plan, &opts, Some(task))?;
    Ok(TaskRun {
        trace: s.trace,
        resumed: resumed - task.iter().filter(|&&t| !t).count(),
        seconds: start.elapsed().as_secs_f64(),
        peak_bytes: s.memory.peak(),
        peak_disk_bytes: s.disk.peak(),
        root: s.root,
    })
}

/// The run itself, every job or (`only`) those of one task: the shared state once every
/// worker is done, what each job reads, the positions of every job, when it started and how
/// many jobs were not run.
type Finished = (Shared, Vec<Reads>, u64, Instant, usize);

fn run_jobs(plan: &ReadyPlan, opts: &ExecOptions, only: Option<&[bool]>) -> Result<Finished, ExecError> {
    let start = Instant::now();
    let kernel = Kernel::with_path(&plan.space, opts.kernel);
    let (shared, resumed) = prepare(plan, opts, only)?;
    let run = Run {
        plan,
        opts,
        start,
        total: plan.graph.jobs.iter().map(|j| j.states).sum(),
        reads: reads(plan, &kernel),
        kernel,
        slots: slots(plan),
        recycler: Recycler::default(),
        state: (Mutex::new(shared), Condvar::new()),
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(opts.threads.max(1)).build().expect("thread pool");
    pool.broadcast(|ctx| run.work(ctx.index()));
    let Run { reads, total, state, .. } = run;
    let mut s = state.0.into_inner().unwrap_or_else(PoisonError::into_inner);
    match s.error.take() {
        Some(e) => Err(e),
        None => Ok((s, reads, total, start, resumed)),
    }
}

/// The shared state before the first job: with a store, the jobs it holds marked finished
/// (and, with a book, those it pruned), and files no job still to run reads removed. Returns
/// the state and the number of jobs not to run. For a task (`only`), only its own jobs are
/// looked for in the store, every other job counts as finished, and nothing is removed before
/// the first job (files go as their readers end, as `opts.stays` allows).
fn prepare(plan: &ReadyPlan, opts: &ExecOptions, only: Option<&[bool]>) -> Result<(Shared, usize), ExecError> {
    let mut shared = Shared::new(plan, opts.mem_limit, opts.store.is_some());
    // Jobs whose values are in the store, not in memory; fixed for the whole run.
    let on_disk = match opts.store {
        Some(store) => finished_in_store(plan, store, only, opts.report)?,
        None => vec![false; plan.graph.len()],
    };
    if let Some(task) = only {
        // Other tasks' jobs count as done; the task's own that went run only where a job of
        // the task still to run reads them.
        let done: Vec<bool> = on_disk.iter().zip(task).map(|(&d, &t)| d || !t).collect();
        let skip = to_skip(plan, &done, opts);
        let resumed = skip.iter().filter(|&&d| d).count();
        shared.resume(plan, &skip);
        for (i, j) in plan.graph.jobs.iter().enumerate().filter(|&(i, _)| skip[i]) {
            if !task[i] || on_disk[i] {
                shared.disk.add(j.bytes);
            }
        }
        return Ok((shared, resumed));
    }
    let skip = to_skip(plan, &on_disk, opts);
    let resumed = skip.iter().filter(|&&d| d).count();
    if resumed > 0 {
        shared.resume(plan, &skip);
    }
    if let Some(store) = opts.store {
        for (i, j) in plan.graph.jobs.iter().enumerate().filter(|&(i, _)| on_disk[i]) {
            // Files left from earlier runs outside the book that no job still to run reads go;
            // the others count as the store's from the start.
            if shared.memory.readers(i) == 0 && !opts.stays(plan, i) {
                store.remove(&j.name)?;
            } else {
                shared.disk.add(j.bytes);
            }
        }
    }
    Ok((shared, resumed))
}

/// One run in progress: what every worker reads, and the state they share.
struct Run<'a> {
    plan: &'a ReadyPlan,
    opts: &'a ExecOptions<'a>,
    start: Instant,
    /// Positions of every job.
    total: u64,
    kernel: Kernel<'a>,
    reads: Vec<Reads>,
    slots: Vec<Slot>,
    /// Buffers of values no job reads again, for the outputs of jobs to come.
    recycler: Recycler,
    state: (Mutex<Shared>, Condvar),
}

impl Run<'_> {
    /// The shared state. A worker that panicked under the lock poisoned it; the others go on
    /// to read the error it leaves and stop, so the poison itself is no reason to panic.
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.state.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A worker: takes jobs until none is left or a job has failed. A panic is caught and
    /// recorded like an error: a worker that unwound without a word would leave the others
    /// waiting for its job forever.
    fn work(&self, thread: usize) {
        let mut current = None;
        let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<(), ExecError> {
            while let Some(job) = self.next_job() {
                current = Some(job);
                self.run_job(job, thread)?;
                current = None;
            }
            Ok(())
        }));
        let error = match outcome {
            Ok(Ok(())) => return,
            Ok(Err(e)) => e,
            Err(payload) => ExecError::Panicked {
                job: current.map_or_else(|| "(between jobs)".into(), |j| self.plan.graph.jobs[j].name.clone()),
                message: panic_message(payload.as_ref()),
            },
        };
        self.lock().error.get_or_insert(error);
        self.state.1.notify_all();
    }

    /// Waits for the best ready job that fits in memory. None when every job has started, a
    /// job has failed, or the memory limit cannot be kept (the error is then set).
    fn next_job(&self) -> Option<usize> {
        let wake = &self.state.1;
        let mut s = self.lock();
        loop {
            if s.unstarted == 0 || s.error.is_some() {
                return None;
            }
            if let Some(job) = s.start(self.plan, &self.slots, &self.recycler) {
                return Some(job);
            }
            if s.running == 0 && !s.ready.is_empty() {
                // Nothing running will free memory: the limit cannot be kept.
                s.error = Some(self.stuck(&s));
                wake.notify_all();
                return None;
            }
            s = wake.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Why the best ready job can never start.
    fn stuck(&self, s: &MutexGuard<Shared>) -> ExecError {
        let (plan, opts) = (self.plan, self.opts);
        let (_, Reverse(j)) = *s.ready.peek().expect("a ready job");
        let (j, limit) = (j as usize, opts.mem_limit.unwrap_or(0));
        let name = plan.graph.jobs[j].name.clone();
        let needs = s.memory.alone(j, plan.graph.needs(j));
        if opts.store.is_some() || needs > limit {
            ExecError::MemLimit { limit, job: name, needs }
        } else {
            ExecError::Stuck { limit, job: name }
        }
    }

    /// Computes `job` on worker `thread`, writes it to the store, counts it finished and
    /// deletes the files no job still to run reads.
    fn run_job(&self, job: usize, thread: usize) -> Result<(), ExecError> {
        let (plan, opts) = (self.plan, self.opts);
        if opts.stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(ExecError::Stopped);
        }
        if opts.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return Err(ExecError::OutOfTime(self.start.elapsed().as_secs_f64()));
        }
        // A job's span covers its store reads and its write: the plan costs them too.
        let began = self.start.elapsed().as_secs_f64();
        let inputs = gather(plan, opts.store, &self.reads[job], job, &self.slots, &self.recycler)?;
        let (out, root) = compute(plan, &self.kernel, &self.reads[job], job, &inputs, &self.recycler);
        // Inputs go before the lock is taken, so a freed partition really is freed.
        drop(inputs);
        if let Some(store) = opts.store {
            store.write(&plan.graph.jobs[job].name, &plan.layout[job], &out)?;
        }
        let ended = self.start.elapsed().as_secs_f64();
        let positions = plan.graph.jobs[job].states;
        let row = TraceRow { job: plan.graph.jobs[job].name.clone(), thread, start: began, end: ended, positions };
        let (done, to_delete) = self.finished(job, out, root, row);
        if let Some(store) = opts.store {
            for k in to_delete {
                store.remove(&plan.graph.jobs[k].name)?;
            }
        }
        if let (Some(p), true) = (opts.progress, positions > 0) {
            p(done, self.total);
        }
        Ok(())
    }

    /// Records a finished job under the lock, drops the values it released outside it, then
    /// wakes the waiting workers. Returns the positions done so far and the store files to delete.
    fn finished(
        &self,
        job: usize,
        out: Vec<Value>,
        root: Option<(Value, Vec<MoveValue>)>,
        row: TraceRow,
    ) -> (u64, Vec<usize>) {
        let mut s = self.lock();
        let released = s.finish(self.plan, &self.slots, job, out, self.opts);
        if root.is_some() {
            s.root = root;
        }
        s.trace.push(row);
        let (done, to_delete) = (s.done_positions, std::mem::take(&mut s.to_delete));
        drop(s);
        // Waiting workers wake only once the values are the recycler's, which gives them back
        // before anything is allocated afresh: a job admitted against the freed bytes never
        // finds them held twice.
        for values in released {
            self.recycler.give(values);
        }
        self.state.1.notify_all();
        (done, to_delete)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::game::Position;
    use crate::sched::{CostSpec, PieceDeps, Split, orbits};
    use crate::solver::Space;

    fn space(board: &str, groups: usize) -> Space {
        Space::new(Position::empty(board.parse().unwrap()), Some(groups)).unwrap()
    }

    /// Small plans: whole partitions, and partitions split into row ranges whose pieces need
    /// the whole of each predecessor or only the pieces they read.
    fn plans() -> Vec<(String, ReadyPlan)> {
        let mut out = vec![
            ("2x3 whole".to_string(), ReadyPlan::whole(space("2x3", 2))),
            ("2x4 whole".to_string(), ReadyPlan::whole(space("2x4", 3))),
        ];
        for deps in [PieceDeps::Fine, PieceDeps::Whole] {
            let split = Split { threshold: 200, max_pieces: 4, deps };
            let s = space("2x3", 2);
            let graph = orbits(&s, &CostSpec::States, Some(&split)).unwrap();
            assert!(graph.jobs.iter().any(|j| j.name.contains('_')), "2x3 split {deps:?}: some job in pieces");
            out.push((format!("2x3 split {deps:?}"), ReadyPlan::from_graph(s, graph).unwrap()));
        }
        out
    }

    fn run(plan: &ReadyPlan, threads: usize) -> Execution {
        execute_with(plan, &ExecOptions { threads, keep: true, ..Default::default() }).unwrap()
    }

    #[test]
    fn one_thread_and_several_threads_give_identical_values_for_every_job() {
        for (what, plan) in plans() {
            assert!(plan.graph.len() > 1, "{what}: a plan worth running in parallel");
            let one = run(&plan, 1);
            let tables = one.tables.as_ref().unwrap();
            assert_eq!(tables.len(), plan.graph.len(), "{what}");
            for (values, job) in tables.iter().zip(&plan.graph.jobs) {
                assert_eq!(values.len() as u64, job.states, "{what}: job {}", job.name);
            }
            for threads in [2, 3, 2, 3] {
                let many = run(&plan, threads);
                assert_eq!(many.value, one.value, "{what} P={threads}");
                assert_eq!(many.moves, one.moves, "{what} P={threads}");
                assert_eq!(many.tables.as_ref().unwrap(), tables, "{what} P={threads}");
            }
        }
    }

    #[test]
    fn the_trace_has_one_row_per_job_and_every_job_starts_after_the_jobs_it_needs_end() {
        for (what, plan) in plans() {
            for threads in [1, 2, 3] {
                let trace = run(&plan, threads).trace;
                let g = &plan.graph;
                assert_eq!(trace.len(), g.len(), "{what} P={threads}");
                let by_name: HashMap<&str, &TraceRow> = trace.iter().map(|r| (r.job.as_str(), r)).collect();
                assert_eq!(by_name.len(), g.len(), "{what} P={threads}: no job twice");
                for (i, job) in g.jobs.iter().enumerate() {
                    let row = by_name[job.name.as_str()];
                    assert!(row.start <= row.end && row.thread < threads, "{what} P={threads}: {row:?}");
                    assert_eq!(row.positions, job.states, "{what} P={threads}: {}", job.name);
                    for &k in g.needs(i) {
                        let before = by_name[g.jobs[k as usize].name.as_str()];
                        assert!(
                            before.end <= row.start,
                            "{what} P={threads}: {} starts before {} ends",
                            job.name,
                            before.job
                        );
                    }
                }
            }
        }
    }
}
