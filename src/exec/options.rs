//! How a run is asked for and why it stops: [`ExecOptions`] and [`ExecError`], shared by the
//! executor, a job alone, a resume and a cluster task, apart from the executor so that none of
//! them imports another to name them.

use std::any::Any;

use crate::plan::ReadyPlan;
use crate::solver::KernelPath;
use crate::store::{Store, StoreError};
use crate::support::Setting;

/// How to run a plan.
#[derive(Clone, Copy, Default)]
pub struct ExecOptions<'a> {
    /// Worker threads (at least 1).
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
    /// Per job, whether its file stays to the end (a cluster task's: the files of other tasks'
    /// jobs, its own that other tasks read, the book and the root's inputs); where given, every
    /// other file goes as soon as no job still to run reads it, and `keep_lines` is not used.
    pub stays: Option<&'a [bool]>,
    /// Most bytes of job values resident at once. With a store, values still needed are
    /// dropped and read back; without one, jobs wait for memory. A job that can never fit
    /// stops the run with [`ExecError::MemLimit`].
    pub mem_limit: Option<u64>,
    /// The kernel's path (the row path unless a benchmark or test asks for its twin).
    pub kernel: KernelPath,
    /// Set by another thread to stop the run before its next job ([`ExecError::Stopped`]): a
    /// server's analysis that nobody waits for any more.
    pub stop: Option<&'a std::sync::atomic::AtomicBool>,
    /// Once this instant has passed, the run stops before its next job
    /// ([`ExecError::OutOfTime`]).
    pub deadline: Option<std::time::Instant>,
}

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// A store file could not be read, written or removed.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// A job needs more memory at once than the limit.
    #[error(
        "the memory limit leaves {limit} bytes for partition values, too few: job '{job}' needs {needs} bytes at once (its values and every partition it reads)"
    )]
    MemLimit {
        /// The limit, bytes.
        limit: u64,
        /// The job.
        job: String,
        /// What it needs at once, bytes.
        needs: u64,
    },
    /// A job panicked (a bug: a checked plan gives the kernel every input it reads); the
    /// other workers stopped.
    #[error("job '{job}' panicked: {message}")]
    Panicked {
        /// The job, or `(between jobs)` where a worker panicked outside one.
        job: String,
        /// The panic's message.
        message: String,
    },
    /// Without a store, nothing running can free the memory a ready job waits for.
    #[error(
        "the memory limit of {limit} bytes cannot be kept without a store: job '{job}' cannot start until memory is freed, and nothing running will free it"
    )]
    Stuck {
        /// The limit, bytes.
        limit: u64,
        /// The job.
        job: String,
    },
    /// The run was asked to stop ([`ExecOptions::stop`]).
    #[error("the solve was stopped before it finished: nobody waits for its answer any more")]
    Stopped,
    /// The run passed its deadline ([`ExecOptions::deadline`]) after this many seconds.
    #[error("the solve did not finish within its deadline (stopped after {0:.2} s)")]
    OutOfTime(f64),
}

impl ExecOptions<'_> {
    /// Whether job `job`'s file stays in the store to the end: as `stays` says, else as the
    /// book of `keep_lines` does (every file without one).
    pub(crate) fn stays(&self, plan: &ReadyPlan, job: usize) -> bool {
        self.stays.map_or_else(|| plan.in_book(job, self.keep_lines), |s| s[job])
    }

    /// Whether the run removes files as their readers end.
    pub(crate) fn removes(&self) -> bool {
        self.stays.is_some() || self.keep_lines.is_some()
    }
}

impl ExecError {
    /// The setting refused, if one was (a wrapped error says its own).
    pub fn setting(&self) -> Option<Setting> {
        match self {
            ExecError::Stuck { .. } => Some(Setting::MemLimit),
            // A job that cannot fit alone: the message gives the bytes it needs.
            ExecError::MemLimit { .. } => Some(Setting::MemLimit),
            ExecError::Store(_) | ExecError::Panicked { .. } | ExecError::Stopped | ExecError::OutOfTime(_) => None,
        }
    }
}

/// The text of a panic's payload.
pub(super) fn panic_message(payload: &(dyn Any + Send)) -> String {
    match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "a panic without a message".into(),
    }
}
