//! The analyses the server runs, on two fixed pools of worker threads started with the
//! server: one of [`HEAVY_SLOTS`] threads for analyses of more than [`HEAVY_FREE`] undrawn
//! lines, one of the server's thread count plus [`LIGHT_EXTRA`] for the rest, each with a
//! bounded queue. A request waits for its analysis (asynchronously: it holds no thread) until
//! its time limit; a request that finds the light queue full is answered at once with
//! [`Failure::Busy`] (HTTP 503 with Retry-After). The engines cannot be cancelled, so an
//! analysis outlives a request that gave up on it; what keeps abandoned ones from piling up is
//! the heavy pool's size, and that a position asked again while its analysis runs waits for
//! that one instead of starting another (so "ask again" after a time limit picks up the same
//! work). Finished answers are kept for positions asked again (undo on the page).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

use crate::answer::endgame::components;
use crate::answer::{Advice, Answerer, Asking, HintError, advise, hint};
use crate::game::{Penalty, Position};
use crate::store::Reader;

use super::http::ServeOptions;
use super::nimstrings::Nimstrings;

/// Most undrawn lines an analysis may have and still run beside any number of others: up to
/// here a position is solved in memory in a fraction of a second (the hint's own threshold);
/// beyond it, unless the store or the endgame theorems answer it, it is searched, which may
/// take minutes.
pub(super) const HEAVY_FREE: usize = 26;

/// Analyses of more than [`HEAVY_FREE`] undrawn lines running at once, by default: each
/// already uses every thread it is given.
pub(super) const HEAVY_SLOTS: usize = 2;

/// Threads of the light pool beyond the server's thread count: a light analysis takes a
/// fraction of a second, so a few more than the cores keep them flowing.
pub(super) const LIGHT_EXTRA: usize = 2;

/// Analyses waiting for a light worker, per worker, before requests are turned away.
const LIGHT_QUEUE_PER_WORKER: usize = 8;

/// Seconds a client turned away is asked to wait before it asks again.
pub(super) const RETRY_AFTER_SECONDS: u64 = 1;

/// Finished answers kept, by default (a few kilobytes each).
pub(super) const CACHED_ANSWERS: usize = 512;

/// Why no answer came.
#[derive(Clone, Debug)]
pub(super) enum Failure {
    /// The engines refused or failed: the hint's error, as one line, and whether it is about
    /// the position (too large for every engine, another board than the store's) rather than
    /// the server (a store file that cannot be read).
    Refused { message: String, position: bool },
    /// The time limit passed first; `busy` when the analysis never started because every
    /// slot was taken.
    NotSolved { seconds: f64, busy: bool },
    /// Every worker is busy and the queue is full: the request is turned away at once.
    Busy,
}

type Outcome = Result<Advice, Failure>;

/// One analysis, finished or not, and who waits for it.
struct Job {
    outcome: Mutex<Option<Outcome>>,
    done: Notify,
    /// Requests waiting for it now.
    waiters: AtomicUsize,
    /// Set once nobody has waited for it for [`GRACE`]: its engine stops.
    stop: AtomicBool,
}

impl Job {
    fn new() -> Job {
        Job {
            outcome: Mutex::new(None),
            done: Notify::new(),
            waiters: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        }
    }
}

/// How long an unfinished analysis that nobody waits for (its client gone, or its time limit
/// passed) goes on before it is stopped: time for the page to ask again.
pub(super) const GRACE: Duration = Duration::from_secs(10);

/// The position, engine and last-move penalty an answer is for, and for `auto` its budget in
/// milliseconds (a move by rules within one budget is no answer for a request that allows more).
type Key = (Position, Answerer, Penalty, u64);

#[derive(Default)]
struct Table {
    jobs: HashMap<Key, Arc<Job>>,
    /// Finished jobs still in `jobs`, oldest first.
    finished: VecDeque<Key>,
}

/// Every analysis of one server.
pub(super) struct Analyses {
    opts: ServeOptions,
    table: Mutex<Table>,
    /// One permit per heavy worker: a heavy analysis is queued only with one in hand.
    heavy_slots: Arc<Semaphore>,
    heavy: Pool,
    light: Pool,
    /// Threads of both pools.
    workers: usize,
    /// Most bytes of one analysis's search table: the memory limit shared by the workers.
    table_cap: u64,
    /// The Nimstring valuings, apart from the analyses' pools.
    nimstrings: Nimstrings,
}

/// What a worker runs: one analysis.
struct Task {
    worker: Worker,
    pos: Position,
    reader: Option<Reader>,
    ask: Asking<'static>,
    budget: Option<Duration>,
}

impl Task {
    fn run(mut self) {
        let job = Arc::clone(&self.worker.job);
        // Stopped before it started: nobody waits any more.
        if job.stop.load(Relaxed) {
            return;
        }
        let Task { pos, reader, ask, budget, .. } = self;
        let ask = Asking { stop: Some(&job.stop), ..ask };
        let advice = match budget {
            Some(b) => advise(pos, reader.as_ref(), ask, b.as_secs_f64()),
            None => hint(pos, reader.as_ref(), ask).map(Advice::Proven),
        };
        self.worker.outcome = Some(outcome(advice));
    }
}

/// A fixed set of worker threads fed by a bounded queue.
struct Pool {
    queue: SyncSender<Box<Task>>,
}

impl Pool {
    /// `workers` threads named `name`, and room for `queued` tasks waiting.
    fn new(name: &str, workers: usize, queued: usize) -> Pool {
        let (queue, tasks) = sync_channel::<Box<Task>>(queued);
        let tasks = Arc::new(Mutex::new(tasks));
        for _ in 0..workers.max(1) {
            let tasks: Arc<Mutex<Receiver<Box<Task>>>> = Arc::clone(&tasks);
            // A thread the system refuses leaves the pool smaller; the first is needed.
            let _ = std::thread::Builder::new().name(name.into()).spawn(move || {
                loop {
                    let task = lock(&tasks).recv();
                    match task {
                        Ok(task) => task.run(),
                        Err(_) => return,
                    }
                }
            });
        }
        Pool { queue }
    }

    /// Queues `task`, or gives it back when the queue is full.
    fn try_run(&self, task: Box<Task>) -> Result<(), Box<Task>> {
        self.queue.try_send(task).map_err(|e| match e {
            TrySendError::Full(t) | TrySendError::Disconnected(t) => t,
        })
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A worker that panicked holds no invariant of these: its guard finished its job.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The workers of both pools under `opts`: (heavy, light).
fn pool_sizes(opts: &ServeOptions) -> (usize, usize) {
    (opts.heavy_slots.max(1), opts.threads.max(1) + LIGHT_EXTRA)
}

/// Workers that may run an analysis at once under `opts`, among which the memory limit is
/// shared.
pub(super) fn workers(opts: &ServeOptions) -> usize {
    let (heavy, light) = pool_sizes(opts);
    heavy + light
}

impl Analyses {
    pub(super) fn new(opts: ServeOptions) -> Analyses {
        let (heavy_slots, light) = pool_sizes(&opts);
        let workers = workers(&opts);
        Analyses {
            heavy_slots: Arc::new(Semaphore::new(heavy_slots)),
            heavy: Pool::new("dab-heavy", heavy_slots, heavy_slots),
            light: Pool::new("dab-analysis", light, light * LIGHT_QUEUE_PER_WORKER),
            workers,
            table_cap: opts.mem_limit.unwrap_or_else(super::http::default_mem_limit) / workers as u64,
            nimstrings: Nimstrings::new(opts.cached_answers),
            opts,
            table: Mutex::default(),
        }
    }

    /// Threads each analysis runs on.
    pub(super) fn threads(&self) -> usize {
        self.opts.threads
    }

    /// The server's Nimstring valuings.
    pub(super) fn nimstrings(&self) -> &Nimstrings {
        &self.nimstrings
    }

    /// Threads the pools hold.
    pub(super) fn pool_threads(&self) -> usize {
        self.workers
    }

    /// The answer for `pos` by `engine` under `penalty` (None: the server's), waiting at most
    /// `limit`.
    pub(super) async fn answer(
        self: &Arc<Self>,
        pos: Position,
        engine: Answerer,
        penalty: Option<Penalty>,
        limit: Duration,
    ) -> Result<Advice, Failure> {
        let deadline = Instant::now() + limit;
        let not_solved = |busy| Failure::NotSolved { seconds: limit.as_secs_f64(), busy };
        // Auto answers within the request's limit (by rules where nothing exact fits in it);
        // the rest of the limit is the wait for a slot and the reply.
        let budget = (engine == Answerer::Auto).then(|| limit.mul_f64(0.9));
        let penalty = penalty.unwrap_or(self.opts.penalty);
        let key = (pos, engine, penalty, budget.map_or(0, |b| b.as_millis() as u64));
        // A job being stopped is no answer: it is started again.
        let known = lock(&self.table).jobs.get(&key).filter(|j| !j.stop.load(Relaxed)).cloned();
        if let Some(job) = known {
            return wait(&job, deadline).await.ok_or_else(|| not_solved(false))?;
        }
        // Opened only for an analysis to start: an answer known or under way needs no store.
        let reader = self.reader(pos, penalty)?;
        let heavy = is_heavy(pos, engine, penalty, reader.as_ref());
        let permit = if heavy {
            let slot = Arc::clone(&self.heavy_slots).acquire_owned();
            match tokio::time::timeout_at(deadline.into(), slot).await {
                Ok(Ok(permit)) => Some(permit),
                _ => return Err(not_solved(true)),
            }
        } else {
            None
        };
        // Started by another request while this one waited for a slot, or new.
        let (job, started) = {
            let mut table = lock(&self.table);
            match table.jobs.get(&key).filter(|j| !j.stop.load(Relaxed)) {
                Some(job) => (Arc::clone(job), false),
                None => {
                    let job = Arc::new(Job::new());
                    table.jobs.insert(key, Arc::clone(&job));
                    (job, true)
                }
            }
        };
        if !started {
            drop(permit);
            return wait(&job, deadline).await.ok_or_else(|| not_solved(false))?;
        }
        let worker = Worker { analyses: Arc::clone(self), key, job: Arc::clone(&job), permit, outcome: None };
        let ask = Asking { table_cap: Some(self.table_cap), ..Asking::new(engine, self.opts.threads).under(penalty) };
        let task = Box::new(Task { worker, pos, reader, ask, budget });
        let pool = if heavy { &self.heavy } else { &self.light };
        if let Err(mut task) = pool.try_run(task) {
            // Dropped here: the job is answered busy, and forgotten.
            task.worker.outcome = Some(Err(Failure::Busy));
        }
        wait(&job, deadline).await.ok_or_else(|| not_solved(false))?
    }

    /// The store's reader for `pos` under `penalty`: None without a store, or when it holds no
    /// solve of the position's board from a root related to it under that penalty (the engines
    /// answer then).
    fn reader(&self, pos: Position, penalty: Penalty) -> Result<Option<Reader>, Failure> {
        let Some(base) = &self.opts.store else { return Ok(None) };
        match Reader::open_under(base, pos, None, penalty) {
            Ok(r) => Ok(Some(r)),
            Err(e) if e.is_not_held() => Ok(None),
            Err(e) => Err(Failure::Refused { message: e.to_string(), position: false }),
        }
    }

    /// Records a finished job: kept for later requests when it answered, forgotten otherwise.
    fn finish(&self, key: Key, job: &Arc<Job>, answered: bool) {
        let mut table = lock(&self.table);
        if !answered || self.opts.cached_answers == 0 {
            // Only this job: a stopped one may have been replaced by a new one asked since.
            if table.jobs.get(&key).is_some_and(|j| Arc::ptr_eq(j, job)) {
                table.jobs.remove(&key);
            }
            return;
        }
        table.finished.push_back(key);
        while table.finished.len() > self.opts.cached_answers {
            let old = table.finished.pop_front().expect("non-empty");
            table.jobs.remove(&old);
        }
    }
}

/// Whether an analysis may take long: more than [`HEAVY_FREE`] undrawn lines, unless (for
/// `auto`) the store's book or the endgame theorems (plain game only) answer it at once.
fn is_heavy(pos: Position, engine: Answerer, penalty: Penalty, reader: Option<&Reader>) -> bool {
    if pos.undrawn().len() as usize <= HEAVY_FREE {
        return false;
    }
    if reader.is_some_and(|r| matches!(r.value(pos.drawn), Ok(Some(_)))) {
        return false;
    }
    !(engine == Answerer::Auto && penalty.is_none() && components(pos).is_ok())
}

/// Counts a request waiting for a job; when the last one stops waiting (answered, past its
/// limit, or its client gone and the request dropped) and the job is unfinished, the job is
/// stopped unless someone asks again within [`GRACE`].
struct Waiting(Arc<Job>);

impl Waiting {
    fn new(job: &Arc<Job>) -> Waiting {
        job.waiters.fetch_add(1, Relaxed);
        Waiting(Arc::clone(job))
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let job = &self.0;
        if job.waiters.fetch_sub(1, Relaxed) == 1 && lock(&job.outcome).is_none() {
            let job = Arc::clone(job);
            // Dropped outside the runtime (a test's, say) there is no timer: stopped at once.
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => {
                    runtime.spawn(async move {
                        tokio::time::sleep(GRACE).await;
                        if job.waiters.load(Relaxed) == 0 {
                            job.stop.store(true, Relaxed);
                        }
                    });
                }
                Err(_) => job.stop.store(true, Relaxed),
            }
        }
    }
}

/// Waits for `job` until `deadline`: its outcome, or None at the deadline.
async fn wait(job: &Arc<Job>, deadline: Instant) -> Option<Outcome> {
    let _waiting = Waiting::new(job);
    loop {
        // Registered before the outcome is looked at, so that an answer published between
        // the two still wakes this waiter.
        let notified = job.done.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if let Some(o) = lock(&job.outcome).as_ref() {
            return Some(o.clone());
        }
        if tokio::time::timeout_at(deadline.into(), notified).await.is_err() {
            return lock(&job.outcome).clone();
        }
    }
}

/// A running analysis's hold on its job and slot: dropped when the worker ends, however it
/// ends (a panic too), so a slot is always given back and waiters always hear.
struct Worker {
    analyses: Arc<Analyses>,
    key: Key,
    job: Arc<Job>,
    /// The heavy slot held, given back when the worker drops.
    permit: Option<OwnedSemaphorePermit>,
    /// The analysis's outcome once it has one; published to the job when the worker drops.
    outcome: Option<Outcome>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        let outcome = self.outcome.take().unwrap_or_else(|| {
            let message = "the analysis stopped without an answer".into();
            Err(Failure::Refused { message, position: false })
        });
        let answered = outcome.is_ok();
        *lock(&self.job.outcome) = Some(outcome);
        self.job.done.notify_waiters();
        drop(self.permit.take());
        self.analyses.finish(self.key, &self.job, answered);
    }
}

/// What a hint's error says, and whether it is about the position.
fn outcome(result: Result<Advice, HintError>) -> Outcome {
    use crate::answer::QueryError;
    result.map_err(|e| {
        let position = matches!(
            e,
            HintError::Unanswerable { .. }
                | HintError::Query(
                    QueryError::TooLarge(..) | QueryError::Board { .. } | QueryError::Unpenalised { .. }
                )
        );
        Failure::Refused { message: e.to_string(), position }
    })
}
