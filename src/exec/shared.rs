//! The executor's shared state, behind one lock: the ready queue, the count of unfinished
//! predecessors per job, what is resident ([`Residency`], as the simulator counts it), the
//! store's bytes ([`DiskUse`]), the trace and the first error.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use crate::game::{MoveValue, Value};
use crate::plan::ReadyPlan;
use crate::sched::{Admission, DiskUse, Residency};

use super::inputs::Slot;
use super::options::{ExecError, ExecOptions};
use super::recycle::Recycler;
use super::trace::TraceRow;

/// Everything the workers share, behind one lock.
pub(super) struct Shared {
    /// Ready jobs: (priority, job), best first; ties go to the earlier job of the plan.
    pub(super) ready: BinaryHeap<(u64, Reverse<u32>)>,
    /// Unfinished jobs each job still waits for.
    pub(super) missing: Vec<u32>,
    pub(super) memory: Residency,
    /// Every job's values, when asked to keep them (tests); not counted as resident.
    pub(super) kept: Vec<Option<Arc<Vec<Value>>>>,
    pub(super) unstarted: usize,
    pub(super) running: usize,
    pub(super) done_positions: u64,
    pub(super) trace: Vec<TraceRow>,
    pub(super) root: Option<(Value, Vec<MoveValue>)>,
    /// Jobs found finished in the store (or pruned from it): never run, never made ready.
    pub(super) stored: Vec<bool>,
    /// Store files to delete, collected under the lock and deleted outside it.
    pub(super) to_delete: Vec<usize>,
    /// Bytes in the store's files (counted when written and when marked for deletion).
    pub(super) disk: DiskUse,
    /// The first error; it stops every worker.
    pub(super) error: Option<ExecError>,
}

impl Shared {
    pub(super) fn new(plan: &ReadyPlan, mem_limit: Option<u64>, evict: bool) -> Shared {
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
    pub(super) fn resume(&mut self, plan: &ReadyPlan, done: &[bool]) {
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

    /// Takes the best ready job that fits in memory, hands what it evicts to `recycler` and
    /// counts it running. None: no ready job fits now.
    pub(super) fn start(&mut self, plan: &ReadyPlan, slots: &[Slot], recycler: &Recycler) -> Option<usize> {
        let g = &plan.graph;
        let mut held = Vec::new();
        let mut started = None;
        while let Some(entry) = self.ready.pop() {
            let job = entry.1.0 as usize;
            match self.memory.try_start(job, g.needs(job)) {
                Some(Admission { evict, .. }) => {
                    for k in evict {
                        if let Some(values) = slots[k as usize].lock().expect("slot lock").take() {
                            recycler.give(values);
                        }
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

    /// `job` has produced `out`: keeps it for its readers, makes ready the jobs that waited
    /// only for it, and returns the values nobody will read again, for the caller to hand to
    /// the recycler outside the lock (where giving pages back to the system, which takes a
    /// thread 100-200 us a partition of megabytes, would not stall every other worker).
    pub(super) fn finish(
        &mut self,
        plan: &ReadyPlan,
        slots: &[Slot],
        job: usize,
        out: Vec<Value>,
        opts: &ExecOptions,
    ) -> Vec<Arc<Vec<Value>>> {
        let g = &plan.graph;
        let out = Arc::new(out);
        if opts.keep {
            self.kept[job] = Some(out.clone());
        }
        *slots[job].lock().expect("slot lock") = Some(out);
        if opts.store.is_some() {
            self.disk.add(g.jobs[job].bytes);
        }
        let released = self
            .memory
            .finish(job, g.needs(job))
            .into_iter()
            .filter_map(|k| slots[k as usize].lock().expect("slot lock").take())
            .collect();
        for &k in g.needs(job) {
            let k = k as usize;
            if self.memory.readers(k) == 0 && !opts.stays(plan, k) {
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
        released
    }
}
