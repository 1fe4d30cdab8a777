//! One job on its own: a cluster task computes it from the store files of the jobs it needs
//! and writes its own file; the end of a cluster run reads the root's value and moves back.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use crate::game::{MoveValue, Value};
use crate::plan::ReadyPlan;
use crate::solver::Kernel;
use crate::store::{Store, StoreError};

use super::inputs::{Reads, compute, gather, moves_of_root, reads, slots, views};
use super::options::{ExecError, panic_message};
use super::recycle::Recycler;

/// What [`run_job`] did with one job.
#[derive(Clone, Debug)]
pub struct JobRun {
    /// False when the store already held a sound file for the job.
    pub computed: bool,
    /// Seconds spent reading inputs, computing and writing.
    pub seconds: f64,
    /// Positions of the job.
    pub positions: u64,
}

/// Computes one job of `plan` from the store files of the jobs it needs and writes its own
/// file atomically: one cluster task. A job whose file is already there and sound is left
/// alone, so running a task twice is harmless; a missing or damaged input is an error that
/// names its file, and a panic in the kernel (a bug) an error that names the job.
pub fn run_job(plan: &ReadyPlan, store: &Store, job: usize) -> Result<JobRun, ExecError> {
    let start = Instant::now();
    let j = &plan.graph.jobs[job];
    if store.has(&j.name) && store.read(&j.name, &plan.layout[job], j.states).is_ok() {
        return Ok(JobRun { computed: false, seconds: start.elapsed().as_secs_f64(), positions: j.states });
    }
    let kernel = Kernel::new(&plan.space);
    let reads = reads(plan, &kernel);
    // One job per process: nothing to recycle.
    let recycler = Recycler::default();
    let inputs = gather(plan, Some(store), &reads[job], job, &slots(plan), &recycler)?;
    let (out, _) = catch_unwind(AssertUnwindSafe(|| compute(plan, &kernel, &reads[job], job, &inputs, &recycler)))
        .map_err(|payload| ExecError::Panicked { job: j.name.clone(), message: panic_message(payload.as_ref()) })?;
    store.write(&j.name, &plan.layout[job], &out)?;
    Ok(JobRun { computed: true, seconds: start.elapsed().as_secs_f64(), positions: j.states })
}

/// The root's value and the value of every move, from a store that holds the root job and
/// the jobs it reads (the end of a cluster run).
pub fn stored_root(plan: &ReadyPlan, store: &Store) -> Result<(Value, Vec<MoveValue>), StoreError> {
    let kernel = Kernel::new(&plan.space);
    root_from_store(plan, &reads(plan, &kernel), store)
}

/// The root's value and moves when every job was already in the store.
pub(crate) fn root_from_store(
    plan: &ReadyPlan,
    reads: &[Reads],
    store: &Store,
) -> Result<(Value, Vec<MoveValue>), StoreError> {
    let root = plan.layout.iter().position(|l| l.key.total() == 0).expect("a root job");
    let j = &plan.graph.jobs[root];
    let value = store.read(&j.name, &plan.layout[root], j.states)?[0];
    let inputs = gather(plan, Some(store), &reads[root], root, &slots(plan), &Recycler::default())?;
    let views = views(&reads[root], &inputs);
    Ok((value, moves_of_root(plan, &views)))
}
