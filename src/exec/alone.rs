//! Jobs timed on their own, from stand-in inputs: what a job of a solve too long to run whole
//! costs on this machine. The kernel's time does not depend on the values it reads (every
//! move is a pass of maxima over a row), so the inputs are filled with a fixed pattern of
//! legal values instead of being solved; the output is allocated and written as the executor
//! does it.

use std::sync::Arc;
use std::time::Instant;

use crate::game::Value;
use crate::plan::ReadyPlan;
use crate::solver::Kernel;

use super::inputs::{Reads, Slot, compute, gather, reads, slots};
use super::recycle::Recycler;

/// Times single jobs of one plan, with the kernel's tables built once.
pub struct AloneTimer<'a> {
    plan: &'a ReadyPlan,
    kernel: Kernel<'a>,
    reads: Vec<Reads>,
    slots: Vec<Slot>,
}

impl<'a> AloneTimer<'a> {
    /// A timer for the jobs of `plan`.
    pub fn new(plan: &'a ReadyPlan) -> AloneTimer<'a> {
        let kernel = Kernel::new(&plan.space);
        let reads = reads(plan, &kernel);
        AloneTimer { plan, kernel, reads, slots: slots(plan) }
    }

    /// Seconds of `job` computed on this thread. Its inputs are written first and then
    /// `evict_bytes` of other memory, so that they are read from memory as a large solve reads
    /// its levels (written long before, out of the cache); they are dropped after.
    pub fn time(&self, job: usize, evict_bytes: usize) -> f64 {
        let g = &self.plan.graph;
        let boxes = self.plan.space.board().boxes() as i64;
        for &k in g.needs(job) {
            let n = g.jobs[k as usize].states as usize;
            let values: Vec<Value> = (0..n).map(|i| ((i as i64 % (2 * boxes + 1)) - boxes) as Value).collect();
            *self.slots[k as usize].lock().expect("slot lock") = Some(Arc::new(values));
        }
        let evict: Vec<u8> = (0..evict_bytes).map(|i| i as u8).collect();
        std::hint::black_box(&evict);
        drop(evict);
        // Nothing kept: a fresh output, as the executor's first jobs have, an upper bound on
        // what it costs.
        let fresh = Recycler::default();
        let inputs = gather(self.plan, None, &self.reads[job], job, &self.slots, &fresh).expect("inputs in memory");
        let start = Instant::now();
        let (out, _) = compute(self.plan, &self.kernel, &self.reads[job], job, &inputs, &fresh);
        let seconds = start.elapsed().as_secs_f64();
        std::hint::black_box(out);
        drop(inputs);
        for &k in g.needs(job) {
            self.slots[k as usize].lock().expect("slot lock").take();
        }
        seconds
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Position;
    use crate::sched::{CostSpec, alone_bytes, orbits};
    use crate::solver::Space;

    #[test]
    fn times_any_job_from_stand_in_inputs_and_counts_its_bytes() {
        let space = Space::new(Position::empty("2x3".parse().unwrap()), Some(2)).unwrap();
        let graph = orbits(&space, &CostSpec::States, None).unwrap();
        let plan = ReadyPlan::from_graph(space, graph).unwrap();
        let timer = AloneTimer::new(&plan);
        let g = &plan.graph;
        for job in 0..g.len() {
            let inputs: u64 = g.needs(job).iter().map(|&k| g.jobs[k as usize].bytes).sum();
            assert_eq!(alone_bytes(g, job), g.jobs[job].bytes + inputs);
            let t = timer.time(job, 1 << 16);
            assert!(t > 0.0 && t < 1.0, "job {job}: {t} s");
            assert!(timer.slots.iter().all(|s| s.lock().unwrap().is_none()), "inputs dropped");
        }
    }
}
