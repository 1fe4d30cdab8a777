//! A cluster task from start to end: nothing to do when its done marker is in the store; else
//! its jobs run ([`execute_task`]), a file that only the task's own jobs read going as soon as
//! they have, as in a local run; then its marker is written, and the files that no task still
//! to run reads go ([`TaskFiles`]: the book and the root's inputs stay).

use crate::plan::{ReadyPlan, Task, TaskFiles, done_marker};

use super::executor::{TaskRun, execute_task};
use super::options::{ExecError, ExecOptions};

/// What [`run_task`] did.
pub enum TaskOutcome {
    /// The task's done marker was in the store: nothing ran, nothing was removed.
    AlreadyDone {
        /// The marker's name.
        marker: String,
    },
    /// The task ran and is marked done.
    Ran {
        /// The run of its jobs.
        run: TaskRun,
        /// The job files removed after it, every task that reads them being done.
        removed: Vec<String>,
    },
}

/// Runs task `t` of `tasks` (a two-level plan's, checked against `plan`) against `opts.store`
/// (which it must name), keeping the book of partitions of at most `book` lines (None: every
/// file stays). Idempotent: a task run twice runs once.
pub fn run_task(
    plan: &ReadyPlan,
    tasks: &[Task],
    t: usize,
    book: Option<usize>,
    opts: &ExecOptions,
) -> Result<TaskOutcome, ExecError> {
    let store = opts.store.expect("a cluster task reads and writes a store");
    let marker = done_marker(plan, &tasks[t]);
    if store.is_done(&marker) {
        return Ok(TaskOutcome::AlreadyDone { marker });
    }
    let mut marks = vec![false; plan.graph.len()];
    tasks[t].jobs.iter().for_each(|&j| marks[j] = true);
    let files = TaskFiles::new(plan, tasks, book);
    // While it runs, the task removes only its own files that no other task reads.
    let stays: Vec<bool> = (0..plan.graph.len()).map(|k| !marks[k] || files.stays_during(k, t)).collect();
    let opts = ExecOptions { stays: book.map(|_| &stays[..]), ..*opts };
    let run = execute_task(plan, &opts, &marks)?;
    store.mark_done(&marker)?;
    // Each reading task's marker looked up once, however many of its files are touched.
    let mut seen: Vec<Option<bool>> = vec![None; tasks.len()];
    seen[t] = Some(true);
    let done = |r: usize| *seen[r].get_or_insert_with(|| store.is_done(&done_marker(plan, &tasks[r])));
    let mut removed = Vec::new();
    for k in files.removable_after(t, done) {
        let name = &plan.graph.jobs[k].name;
        store.remove(name)?;
        removed.push(name.clone());
    }
    Ok(TaskOutcome::Ran { run, removed })
}
