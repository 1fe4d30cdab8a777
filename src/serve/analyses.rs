//! The analyses the server runs: each on a worker thread of its own, waited for until the
//! request's time limit. The engines cannot be cancelled, so an analysis outlives a request
//! that gave up on it; what keeps abandoned ones from piling up is that at most
//! [`HEAVY_SLOTS`] analyses of more than [`HEAVY_FREE`] undrawn lines run at once, and that a
//! position asked again while its analysis runs waits for that one instead of starting another
//! (so "ask again" after a time limit picks up the same work). Finished answers are kept for
//! positions asked again (undo on the page).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::answer::endgame::components;
use crate::answer::{Advice, Answerer, Asking, HintError, advise, hint};
use crate::game::{Penalty, Position};
use crate::store::{Reader, StoreError};

use super::http::ServeOptions;

/// Most undrawn lines an analysis may have and still run beside any number of others: up to
/// here a position is solved in memory in a fraction of a second (the hint's own threshold);
/// beyond it, unless the store or the endgame theorems answer it, it is searched, which may
/// take minutes.
pub(super) const HEAVY_FREE: usize = 26;

/// Analyses of more than [`HEAVY_FREE`] undrawn lines running at once, by default: each
/// already uses every thread it is given.
pub(super) const HEAVY_SLOTS: usize = 2;

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
}

type Outcome = Result<Advice, Failure>;

/// One analysis, finished or not, and who waits for it.
struct Job {
    outcome: Mutex<Option<Outcome>>,
    done: Condvar,
}

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
    heavy_running: Mutex<usize>,
    slot_freed: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A worker that panicked holds no invariant of these: its guard finished its job.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Analyses {
    pub(super) fn new(opts: ServeOptions) -> Analyses {
        Analyses { opts, table: Mutex::default(), heavy_running: Mutex::new(0), slot_freed: Condvar::new() }
    }

    /// The answer for `pos` by `engine` under `penalty` (None: the server's), waiting at most
    /// `limit`.
    pub(super) fn answer(
        self: &Arc<Self>,
        pos: Position,
        engine: Answerer,
        penalty: Option<Penalty>,
        limit: Duration,
    ) -> Result<Advice, Failure> {
        let deadline = Instant::now() + limit;
        let not_solved = |busy| Failure::NotSolved { seconds: limit.as_secs_f64(), busy };
        let answer_of = |job: &Job| wait(job, deadline).ok_or_else(|| not_solved(false))?;
        // Auto answers within the request's limit (by rules where nothing exact fits in it);
        // the rest of the limit is the wait for a slot and the reply.
        let budget = (engine == Answerer::Auto).then(|| limit.mul_f64(0.9));
        let penalty = penalty.unwrap_or(self.opts.penalty);
        let key = (pos, engine, penalty, budget.map_or(0, |b| b.as_millis() as u64));
        if let Some(job) = lock(&self.table).jobs.get(&key).cloned() {
            return answer_of(&job);
        }
        // Opened only for an analysis to start: an answer known or under way needs no store.
        let reader = self.reader(pos, penalty)?;
        let heavy = is_heavy(pos, engine, penalty, reader.as_ref());
        if heavy && !self.take_slot(deadline) {
            return Err(not_solved(true));
        }
        let job = {
            let mut table = lock(&self.table);
            if let Some(job) = table.jobs.get(&key).cloned() {
                // Started by another request while this one waited for a slot.
                drop(table);
                if heavy {
                    self.free_slot();
                }
                return answer_of(&job);
            }
            let job = Arc::new(Job { outcome: Mutex::new(None), done: Condvar::new() });
            table.jobs.insert(key, Arc::clone(&job));
            job
        };
        let worker = Worker { analyses: Arc::clone(self), key, job: Arc::clone(&job), heavy, outcome: None };
        let ask = Asking::new(engine, self.opts.threads).under(penalty);
        // Should the system refuse a thread, the closure is dropped with the worker in it,
        // which answers the job with a failure.
        let _ = std::thread::Builder::new().name("dab-analysis".into()).spawn(move || {
            let mut worker = worker;
            let advice = match budget {
                Some(b) => advise(pos, reader.as_ref(), ask, b.as_secs_f64()),
                None => hint(pos, reader.as_ref(), ask).map(Advice::Proven),
            };
            worker.outcome = Some(outcome(advice));
        });
        answer_of(&job)
    }

    /// The store's reader for `pos` under `penalty`: None without a store, or when it holds no
    /// solve of the position's board from a root related to it under that penalty (the engines
    /// answer then).
    fn reader(&self, pos: Position, penalty: Penalty) -> Result<Option<Reader>, Failure> {
        let Some(base) = &self.opts.store else { return Ok(None) };
        match Reader::open_under(base, pos, None, penalty) {
            Ok(r) => Ok(Some(r)),
            Err(StoreError::Read { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Failure::Refused { message: e.to_string(), position: false }),
        }
    }

    /// Waits for a heavy slot until `deadline`; whether one was taken.
    fn take_slot(&self, deadline: Instant) -> bool {
        let mut running = lock(&self.heavy_running);
        while *running >= self.opts.heavy_slots.max(1) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            running = self.slot_freed.wait_timeout(running, left).unwrap_or_else(|e| e.into_inner()).0;
        }
        *running += 1;
        true
    }

    fn free_slot(&self) {
        *lock(&self.heavy_running) -= 1;
        self.slot_freed.notify_one();
    }

    /// Records a finished job: kept for later requests when it answered, forgotten otherwise.
    fn finish(&self, key: Key, answered: bool) {
        let mut table = lock(&self.table);
        if !answered || self.opts.cached_answers == 0 {
            table.jobs.remove(&key);
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

/// Waits for `job` until `deadline`: its outcome, or None at the deadline.
fn wait(job: &Job, deadline: Instant) -> Option<Outcome> {
    let mut outcome = lock(&job.outcome);
    loop {
        if let Some(o) = outcome.as_ref() {
            return Some(o.clone());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        outcome = job.done.wait_timeout(outcome, left).unwrap_or_else(|e| e.into_inner()).0;
    }
}

/// A running analysis's hold on its job and slot: dropped when the worker ends, however it
/// ends (a panic too), so a slot is always given back and waiters always hear.
struct Worker {
    analyses: Arc<Analyses>,
    key: Key,
    job: Arc<Job>,
    heavy: bool,
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
        self.job.done.notify_all();
        if self.heavy {
            self.analyses.free_slot();
        }
        self.analyses.finish(self.key, answered);
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
