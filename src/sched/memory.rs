//! Resident partition values, counted one way for both the executor and the simulator, so that
//! `dab plan --mem-limit` predicts what `dab run --mem-limit` holds.
//!
//! A job's values are resident from its start (the output being made) and stay while jobs that
//! read them are unfinished. A running job pins its output and its inputs. Under a memory
//! limit, with a store behind the values, an unpinned value that readers still need may be
//! evicted (read back from the store by the next reader, which counts it again); a job starts
//! only when its output and the inputs it must load fit beside what stays. Without eviction
//! (no store) a job that does not fit waits for memory to be freed.

use std::collections::BTreeSet;

use super::graph::Graph;

/// What the program holds whatever it solves: code and libraries, the main thread, the
/// allocator's own state and the report it writes at the end (measured: an idle `dab` is about
/// 9 MB resident, a chart being drawn a few more).
pub const PROGRAM_BYTES: u64 = 16_000_000;
/// What each job costs besides its values: its entries in the plan, the graph, the schedule and
/// the trace (names, dependencies, costs, rows), with the allocator's rounding.
pub(crate) const JOB_BYTES: u64 = 2_000;
/// What each worker thread holds: the stack it has touched, the store's read and write buffers,
/// and its allocator arena's slack for small allocations (values of 64 KiB and more are mapped
/// and unmapped whole, so they leave no slack behind).
pub const THREAD_BYTES: u64 = 2_000_000;

/// Bytes a run holds besides partition values whatever its thread count: the program, the
/// space's and the kernel's tables (`table_bytes`) and `jobs` jobs' bookkeeping.
pub fn fixed_bytes(table_bytes: u64, jobs: usize) -> u64 {
    PROGRAM_BYTES.saturating_add(table_bytes).saturating_add(JOB_BYTES.saturating_mul(jobs as u64))
}

/// Bytes a run on `threads` threads holds besides partition values: `fixed` ([`fixed_bytes`])
/// and every thread's own.
pub fn process_bytes(fixed: u64, threads: u32) -> u64 {
    fixed.saturating_add(THREAD_BYTES.saturating_mul(threads as u64))
}

/// The part of a whole-process memory `limit` left for partition values on `threads` threads:
/// None without a limit, 0 where the process alone needs more than the limit.
pub fn values_limit(limit: Option<u64>, fixed: u64, threads: u32) -> Option<u64> {
    limit.map(|l| l.saturating_sub(process_bytes(fixed, threads)))
}

/// The least memory limit `graph` can run under: its largest job together with every job it
/// reads (with eviction, any job can run alone).
pub fn least_limit(graph: &Graph) -> u64 {
    (0..graph.len()).map(|i| alone_bytes(graph, i)).max().unwrap_or(0)
}

/// Bytes `job` of `graph` holds when it runs alone: its output and every input.
pub fn alone_bytes(graph: &Graph, job: usize) -> u64 {
    graph.jobs[job].bytes + graph.needs(job).iter().map(|&k| graph.jobs[k as usize].bytes).sum::<u64>()
}

/// Bytes of `job`'s values and of every job it reads.
fn with_inputs(bytes: &[u64], job: usize, needs: &[u32]) -> u64 {
    bytes[job] + needs.iter().map(|&k| bytes[k as usize]).sum::<u64>()
}

/// What a job may start with: the inputs to read from the store and the values to drop first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Admission {
    /// Inputs not resident: read them from the store (they stay resident for later readers).
    pub load: Vec<u32>,
    /// Values to drop from memory before the job starts (they are in the store).
    pub evict: Vec<u32>,
}

/// The resident set and its accounting, by job index of one graph.
#[derive(Clone, Debug)]
pub struct Residency {
    limit: Option<u64>,
    /// Whether values still needed may leave memory (they can be read back from a store).
    evict: bool,
    bytes: Vec<u64>,
    resident: Vec<bool>,
    /// Running jobs using each job's values, as their output or an input.
    pins: Vec<u32>,
    /// Unfinished jobs that read each job's values.
    readers: Vec<u32>,
    /// Resident, unpinned values that readers still need: (readers, job), the first evicted
    /// first (fewest readers left, then earliest job), so that the choice is the same in the
    /// executor and in the simulator.
    idle: BTreeSet<(u32, u32)>,
    idle_bytes: u64,
    used: u64,
    peak: u64,
}

impl Residency {
    /// Nothing resident; `limit` None is no limit.
    pub fn new(graph: &Graph, limit: Option<u64>, evict: bool) -> Residency {
        let n = graph.len();
        Residency {
            limit,
            evict,
            bytes: graph.jobs.iter().map(|j| j.bytes).collect(),
            resident: vec![false; n],
            pins: vec![0; n],
            readers: (0..n).map(|i| graph.needed_by(i).len() as u32).collect(),
            idle: BTreeSet::new(),
            idle_bytes: 0,
            used: 0,
            peak: 0,
        }
    }

    /// `job` was finished before the run (its values are in the store): it reads nothing now.
    pub fn done_before(&mut self, needs: &[u32]) {
        for &k in needs {
            self.readers[k as usize] -= 1;
        }
    }

    /// Unfinished jobs still to read `job`'s values.
    pub fn readers(&self, job: usize) -> u32 {
        self.readers[job]
    }

    /// Bytes resident now.
    #[cfg(test)]
    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    /// Most bytes resident at once so far.
    pub fn peak(&self) -> u64 {
        self.peak
    }

    /// The largest output a job could start with now: what is free under the limit and what
    /// may be dropped (u64::MAX without a limit). Starting a job never makes it larger, so a job
    /// whose output passes it cannot start until one ends.
    pub fn room(&self) -> u64 {
        match self.limit {
            Some(limit) => limit.saturating_sub(self.used) + if self.evict { self.idle_bytes } else { 0 },
            None => u64::MAX,
        }
    }

    /// Bytes `job` needs to start with nothing else resident: its output and every input.
    pub fn alone(&self, job: usize, needs: &[u32]) -> u64 {
        with_inputs(&self.bytes, job, needs)
    }

    fn set_idle(&mut self, k: usize, idle: bool) {
        // Only a limit with eviction ever picks from the idle set: keep the unlimited path cheap.
        if self.limit.is_none() || !self.evict {
            return;
        }
        let entry = (self.readers[k], k as u32);
        if idle {
            if self.idle.insert(entry) {
                self.idle_bytes += self.bytes[k];
            }
        } else if self.idle.remove(&entry) {
            self.idle_bytes -= self.bytes[k];
        }
    }

    /// Starts `job`, which reads `needs`, if it fits: pins its inputs and output and says what
    /// to load and what to drop. None: it does not fit now (nothing changed).
    pub fn try_start(&mut self, job: usize, needs: &[u32]) -> Option<Admission> {
        // Its output alone must fit in what is free and what may be dropped: a cheap test that
        // turns away most jobs while memory is full, before any input is looked at.
        if self.bytes[job] > self.room() {
            return None;
        }
        // Nothing is collected until the job is known to fit: most tries fail while memory is full.
        let need = self.bytes[job]
            + needs.iter().filter(|&&k| !self.resident[k as usize]).map(|&k| self.bytes[k as usize]).sum::<u64>();
        let mut evict = Vec::new();
        if let Some(limit) = self.limit
            && self.used + need > limit
        {
            // The job's own resident inputs are not candidates: dropping them only to load them
            // again would not help.
            let own: u64 = needs
                .iter()
                .filter(|&&k| self.resident[k as usize] && self.pins[k as usize] == 0)
                .map(|&k| self.bytes[k as usize])
                .sum();
            if !self.evict || self.used - (self.idle_bytes - own) + need > limit {
                return None;
            }
            let mut freed = 0;
            for &(_, k) in &self.idle {
                if self.used - freed + need <= limit {
                    break;
                }
                if needs.contains(&k) {
                    continue;
                }
                freed += self.bytes[k as usize];
                evict.push(k);
            }
            for &k in &evict {
                self.set_idle(k as usize, false);
                self.resident[k as usize] = false;
            }
            self.used -= freed;
        }
        let load: Vec<u32> = needs.iter().copied().filter(|&k| !self.resident[k as usize]).collect();
        for &k in needs {
            let k = k as usize;
            if self.pins[k] == 0 {
                self.set_idle(k, false);
            }
            self.pins[k] += 1;
            self.resident[k] = true;
        }
        self.pins[job] += 1;
        self.resident[job] = true;
        self.used += need;
        self.peak = self.peak.max(self.used);
        Some(Admission { load, evict })
    }

    /// `job` (which read `needs`) has finished: unpins them and frees the values no unfinished
    /// job reads any more, which it returns.
    pub fn finish(&mut self, job: usize, needs: &[u32]) -> Vec<u32> {
        let mut freed = Vec::new();
        for &k in needs {
            self.readers[k as usize] -= 1;
            self.release(k as usize, &mut freed);
        }
        self.release(job, &mut freed);
        freed
    }

    fn release(&mut self, k: usize, freed: &mut Vec<u32>) {
        self.pins[k] -= 1;
        if self.pins[k] > 0 {
            return;
        }
        if self.readers[k] == 0 {
            self.resident[k] = false;
            self.used -= self.bytes[k];
            freed.push(k as u32);
        } else {
            self.set_idle(k, true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::Job;

    /// a, b (1000 bytes each) -> c (10) reads both -> d (10) reads c.
    fn chain() -> Graph {
        let job = |name: &str, bytes: u64, needs: &[&str]| Job {
            name: name.into(),
            cost: 1,
            states: bytes,
            bytes,
            deps: needs.iter().map(|s| s.to_string()).collect(),
        };
        Graph::new(
            vec![job("a", 1000, &[]), job("b", 1000, &[]), job("c", 10, &["a", "b"]), job("d", 10, &["c"])],
            None,
        )
        .unwrap()
    }

    #[test]
    fn values_live_until_their_last_reader_finishes() {
        let g = chain();
        let mut r = Residency::new(&g, None, false);
        assert_eq!(r.try_start(0, &[]), Some(Admission::default()));
        assert!(r.finish(0, &[]).is_empty());
        r.try_start(1, &[]).unwrap();
        r.finish(1, &[]);
        r.try_start(2, &[0, 1]).unwrap();
        assert_eq!(r.used(), 2010);
        assert_eq!(r.finish(2, &[0, 1]), vec![0, 1]);
        r.try_start(3, &[2]).unwrap();
        assert_eq!(r.finish(3, &[2]), vec![2, 3]);
        assert_eq!((r.used(), r.peak()), (0, 2010));
    }

    #[test]
    fn a_limit_evicts_idle_values_and_loads_them_back() {
        let g = chain();
        let mut r = Residency::new(&g, Some(2010), true);
        r.try_start(0, &[]).unwrap();
        r.finish(0, &[]);
        r.try_start(1, &[]).unwrap();
        r.finish(1, &[]);
        // Both inputs resident: c fits exactly.
        assert_eq!(r.try_start(2, &[0, 1]), Some(Admission::default()));
        r.finish(2, &[0, 1]);
        assert_eq!(r.peak(), 2010);

        let mut r = Residency::new(&g, Some(1500), true);
        r.try_start(0, &[]).unwrap();
        r.finish(0, &[]);
        // b does not fit beside a: a is dropped.
        assert_eq!(r.try_start(1, &[]), Some(Admission { load: vec![], evict: vec![0] }));
        r.finish(1, &[]);
        // c needs a and b at once: 2010 bytes can never fit in 1500.
        assert_eq!(r.try_start(2, &[0, 1]), None);
        assert_eq!(r.alone(2, &[0, 1]), 2010);
        assert!(r.peak() <= 1500);
    }

    #[test]
    fn without_eviction_a_job_waits() {
        let g = chain();
        let mut r = Residency::new(&g, Some(1500), false);
        r.try_start(0, &[]).unwrap();
        r.finish(0, &[]);
        assert_eq!(r.try_start(1, &[]), None);
        assert_eq!(r.used(), 1000);
    }
}
