//! A job's inputs: the pieces of the successor partitions it reads, gathered from memory or
//! read back from the store, and the kernel run over them. Shared by the executor, a cluster
//! task and the root's moves at the end of a run.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::game::{MoveValue, Value};
use crate::plan::ReadyPlan;
use crate::solver::{Kernel, PartitionKey, Pieces, Rows, root_moves};
use crate::store::{Store, StoreError};

use super::recycle::Recycler;

/// The successor partitions a job reads, as pieces: per group, the jobs of `key.plus(g)` in
/// row order with their first values.
pub(crate) struct Reads {
    /// Per group: (first value of each piece, job of each piece); empty where the group is full.
    groups: Vec<(Vec<usize>, Vec<u32>)>,
}

/// A job's inputs: per group, the pieces of the successor partition it reads (None where it
/// needs no values of that piece).
pub(crate) type Inputs = Vec<Vec<Option<Arc<Vec<Value>>>>>;

/// One job's values in memory, when resident. Outside the shared lock, so that a reader can
/// load them from the store while other workers go on; [`crate::sched::Residency`] (under the lock) decides
/// what is resident, and a slot is emptied only under the lock and only when no running job
/// uses it.
pub(crate) type Slot = Mutex<Option<Arc<Vec<Value>>>>;

/// Per job, the pieces of each successor partition in row order.
pub(crate) fn reads(plan: &ReadyPlan, kernel: &Kernel) -> Vec<Reads> {
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
pub(crate) fn views<'a>(reads: &Reads, inputs: &'a Inputs) -> Vec<Pieces<'a>> {
    reads
        .groups
        .iter()
        .zip(inputs)
        .map(|((starts, _), parts)| {
            Pieces::new(starts.clone(), parts.iter().map(|p| p.as_ref().map_or(&[][..], |v| v.as_slice())).collect())
        })
        .collect()
}

/// Computes one job from its inputs into a buffer from `recycler`; the root job also gives the
/// value of every move.
pub(crate) fn compute(
    plan: &ReadyPlan,
    kernel: &Kernel,
    reads: &Reads,
    job: usize,
    inputs: &Inputs,
    recycler: &Recycler,
) -> (Vec<Value>, Option<(Value, Vec<MoveValue>)>) {
    let l = plan.layout[job];
    let (_, row_len) = kernel.shape(&l.key);
    let views = views(reads, inputs);
    // The kernel writes every value (each row starts from the least value), so a buffer left
    // from an earlier job serves as well as a zeroed one.
    let mut out = recycler.take(l.rows * row_len);
    kernel.compute(&l.key, &views, &mut out, l.first_row);
    let root = (l.key.total() == 0).then(|| (out[0], moves_of_root(plan, &views)));
    (out, root)
}

/// Empty slots, one per job.
pub(crate) fn slots(plan: &ReadyPlan) -> Vec<Slot> {
    (0..plan.graph.len()).map(|_| Mutex::new(None)).collect()
}

/// The pieces `job` reads: from memory, or read from the store into their slot, where the
/// next reader finds them (`recycler` first giving back as many bytes).
pub(crate) fn gather(
    plan: &ReadyPlan,
    store: Option<&Store>,
    reads: &Reads,
    job: usize,
    slots: &[Slot],
    recycler: &Recycler,
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
                        recycler.make_room(j.states as usize);
                        *slot = Some(Arc::new(store.read(&j.name, &plan.layout[k as usize], j.states)?));
                    }
                    Ok(slot.clone())
                })
                .collect()
        })
        .collect()
}

/// Values of every undrawn line of the root, read from the root's successors.
pub(crate) fn moves_of_root(plan: &ReadyPlan, views: &[Pieces]) -> Vec<MoveValue> {
    root_moves(&plan.space, |key, index| {
        let g = (0..key.groups()).find(|&g| key.counts()[g] == 1).expect("one line drawn");
        views[g].row(index, 1)[0]
    })
}
