//! Disk use of a run with a store. A job's file appears when the job ends; with an opening book
//! (`--keep-lines K`) a file of more than K lines goes as soon as the last job that reads it has
//! ended. The executor counts its store with [`DiskUse`] and [`predicted_peak`] replays a
//! simulated schedule the same way (`crate::plan::predict_store`), so that the peak `dab plan`
//! predicts is the one `dab run` reports. Bytes are the files' values (one byte a position); each file adds a header of a
//! few hundred bytes and a checksum, which neither side counts.

use super::graph::Graph;

/// Bytes in the store now, and the most there ever were.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskUse {
    now: u64,
    peak: u64,
}

impl DiskUse {
    /// A file of `bytes` was written (saturating: a valid graph's bytes add up within `u64`,
    /// and a count past it must not wrap to a small peak).
    pub fn add(&mut self, bytes: u64) {
        self.now = self.now.saturating_add(bytes);
        self.peak = self.peak.max(self.now);
    }

    /// A file of `bytes` was deleted.
    pub fn remove(&mut self, bytes: u64) {
        debug_assert!(bytes <= self.now, "a file is deleted that was never counted");
        self.now = self.now.saturating_sub(bytes);
    }

    /// Bytes in the store now.
    #[cfg(test)]
    pub(crate) fn now(&self) -> u64 {
        self.now
    }

    /// The most bytes there ever were in the store.
    pub fn peak(&self) -> u64 {
        self.peak
    }
}

/// The peak of the store's bytes when the jobs of `graph` end in the order `ended` (every job
/// once) and `kept(i)` says whether job i's file stays after its last reader (the book).
pub fn predicted_peak(graph: &Graph, ended: impl IntoIterator<Item = usize>, kept: impl Fn(usize) -> bool) -> u64 {
    let mut readers: Vec<u32> = (0..graph.len()).map(|i| graph.needed_by(i).len() as u32).collect();
    let mut disk = DiskUse::default();
    for job in ended {
        disk.add(graph.jobs[job].bytes);
        for &k in graph.needs(job) {
            let k = k as usize;
            readers[k] -= 1;
            if readers[k] == 0 && !kept(k) {
                disk.remove(graph.jobs[k].bytes);
            }
        }
    }
    disk.peak()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::graph::Job;

    fn job(name: &str, bytes: u64, deps: &[&str]) -> Job {
        Job { name: name.into(), cost: 1, states: bytes, bytes, deps: deps.iter().map(|d| d.to_string()).collect() }
    }

    #[test]
    fn a_file_goes_when_its_last_reader_ends_unless_it_is_kept() {
        // full <- a, b <- root: a and b both read full; root reads a and b.
        let jobs =
            vec![job("full", 100, &[]), job("a", 10, &["full"]), job("b", 20, &["full"]), job("root", 1, &["a", "b"])];
        let g = Graph::new(jobs, None).unwrap();
        // Nothing deleted: everything stays.
        assert_eq!(predicted_peak(&g, [0, 1, 2, 3], |_| true), 131);
        // Only root kept: full goes after b (peak 130 when b is written), a and b after root.
        assert_eq!(predicted_peak(&g, [0, 1, 2, 3], |i| i == 3), 130);
        let mut d = DiskUse::default();
        d.add(u64::MAX);
        d.add(1);
        assert_eq!(d.peak(), u64::MAX, "saturates, never wraps to a small peak");
        let mut d = DiskUse::default();
        d.add(5);
        d.remove(5);
        d.add(3);
        assert_eq!((d.now(), d.peak()), (3, 5));
    }
}
