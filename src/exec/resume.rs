//! Resuming from a store: the jobs it already holds (each file checked; a damaged one is
//! reported and computed again), with an opening book the jobs that need not run at all, and
//! after a run the files of another split of the same partitions, which the run's own files
//! now hold (so that `dab verify` finds one split per partition, as a resume leaves it).

use std::collections::HashSet;

use crate::plan::ReadyPlan;
use crate::store::{Store, StoreError};

use super::options::ExecOptions;

/// The jobs the store already holds, checked (of `only`'s jobs alone, where given: a task
/// looks only at its own); a file that fails its check is reported and its job runs again. A
/// file under another last-move penalty is another game's sound values, not damage: the run
/// stops before anything is written rather than overwrite it.
pub(crate) fn finished_in_store(
    plan: &ReadyPlan,
    store: &Store,
    only: Option<&[bool]>,
    report: Option<&(dyn Fn(&str) + Sync)>,
) -> Result<Vec<bool>, StoreError> {
    let mut held = Vec::with_capacity(plan.graph.len());
    for (i, (j, l)) in plan.graph.jobs.iter().zip(&plan.layout).enumerate() {
        let ours = only.is_none_or(|t| t[i]) && store.has(&j.name);
        held.push(
            ours && match store.read(&j.name, l, j.states) {
                Ok(_) => true,
                Err(e @ StoreError::OtherPenalty { .. }) => return Err(e),
                Err(e) => {
                    if let Some(r) = report {
                        r(&format!("{e}; computing it again"));
                    }
                    false
                }
            },
        );
    }
    Ok(held)
}

/// The jobs not to run: those the store holds and, where files go (a book, or a cluster
/// task's `stays`), those that went: a job without a file runs only if its file stays or a
/// job that runs reads it.
pub(crate) fn to_skip(plan: &ReadyPlan, in_store: &[bool], opts: &ExecOptions) -> Vec<bool> {
    if !opts.removes() {
        return in_store.to_vec();
    }
    let g = &plan.graph;
    let mut runs = vec![false; g.len()];
    // Readers before the jobs they read: the reverse of a topological order.
    let order = g.topological_order().expect("a plan has no cycle");
    for &i in order.iter().rev() {
        runs[i] = !in_store[i] && (opts.stays(plan, i) || g.needed_by(i).iter().any(|&k| runs[k as usize]));
    }
    runs.iter().map(|r| !r).collect()
}

/// After a run that finished: removes the store files named as partitions or pieces of the
/// space that are no job of this plan (files of another split, or of the whole partition
/// where this plan splits it): this plan's own files hold the same partitions now, or the
/// book pruned them as asked. Left in place, pieces of two splits would overlap.
pub(crate) fn remove_stale(
    plan: &ReadyPlan,
    store: &Store,
    report: Option<&(dyn Fn(&str) + Sync)>,
) -> Result<(), StoreError> {
    let jobs: HashSet<&str> = plan.graph.jobs.iter().map(|j| j.name.as_str()).collect();
    for name in store.job_files()? {
        if !jobs.contains(name.as_str()) {
            store.remove(&name)?;
            if let Some(r) = report {
                r(&format!(
                    "removed '{}': a file of another split, which this run's own files replace",
                    store.path(&name).display()
                ));
            }
        }
    }
    Ok(())
}
