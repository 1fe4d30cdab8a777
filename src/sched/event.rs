//! The simulator's two queues and the orders that make it deterministic. Events (job
//! completions) pop by [`EventKey`]: earliest time first, and of equal times the one pushed
//! first, by a sequence number the queue hands out, so simultaneous events resolve the same way
//! every run whatever the hash map inside the queue does. Ready jobs start best first by
//! [`ReadyKey`]: the policy's priority, then the order they became ready (fifo) or their index.

use std::cmp::Reverse;
use std::collections::BTreeSet;
use std::hash::Hash;

use priority_queue::PriorityQueue;

/// When an event happens. Ordered by time, then sequence number: earlier first, and of equal
/// times the one pushed first. No two keys of one queue are equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct EventKey {
    /// The tick it happens at, on the simulator's work clock.
    pub(super) time: u64,
    /// How many events the queue had taken before it: unique, and increasing with each push.
    pub(super) seq: u64,
}

/// Pending events, one per item (a job ends once), popped in [`EventKey`] order.
pub(super) struct EventQueue<I: Hash + Eq> {
    /// A max-queue, hence `Reverse`; keys are unique, so its order never depends on hashing.
    queue: PriorityQueue<I, Reverse<EventKey>>,
    /// The sequence number of the next push.
    next_seq: u64,
}

impl<I: Hash + Eq> EventQueue<I> {
    /// An empty queue with room for `n` events.
    pub(super) fn with_capacity(n: usize) -> EventQueue<I> {
        EventQueue { queue: PriorityQueue::with_capacity(n), next_seq: 0 }
    }

    /// Schedules `item` at `time`, after every event already scheduled at that time.
    pub(super) fn push(&mut self, item: I, time: u64) {
        let key = EventKey { time, seq: self.next_seq };
        self.next_seq += 1;
        let earlier = self.queue.push(item, Reverse(key));
        debug_assert!(earlier.is_none(), "an item is scheduled once at a time");
    }

    /// The time of the earliest event; none when the queue is empty.
    pub(super) fn next_time(&self) -> Option<u64> {
        self.queue.peek().map(|(_, Reverse(key))| key.time)
    }

    /// Takes the earliest event if it happens at `time`.
    pub(super) fn pop_at(&mut self, time: u64) -> Option<I> {
        if self.next_time()? != time {
            return None;
        }
        self.queue.pop().map(|(item, _)| item)
    }
}

/// A ready job's place among the ready jobs: the largest key starts first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct ReadyKey {
    /// The policy's priority, higher first (0 for every job under fifo).
    priority: u64,
    /// Among equal priorities, lower first: the order the job became ready (fifo) or its index.
    tie: Reverse<u64>,
    /// The job's index in the graph.
    pub(super) job: u32,
    /// The job's output bytes: never compared (`job` is unique), carried so that a pass turns
    /// away jobs whose output cannot fit without looking them up.
    pub(super) bytes: u64,
}

/// The ready jobs, best first. Ordered rather than a heap: with a memory limit, a pass may try
/// every ready job, and walking a set in order costs far less than popping and pushing each back.
pub(super) struct ReadySet {
    /// The jobs' keys.
    set: BTreeSet<ReadyKey>,
    /// Jobs made ready so far: fifo's tie-break.
    next_seq: u64,
}

impl ReadySet {
    /// No ready job.
    pub(super) fn new() -> ReadySet {
        ReadySet { set: BTreeSet::new(), next_seq: 0 }
    }

    /// Adds `job` with `bytes` of output, ranked by `priority`, or with none (fifo) in the
    /// order jobs are added.
    pub(super) fn push(&mut self, job: u32, priority: Option<u64>, bytes: u64) {
        let (priority, tie) = match priority {
            None => (0, self.next_seq),
            Some(p) => (p, u64::from(job)),
        };
        self.next_seq += 1;
        self.set.insert(ReadyKey { priority, tie: Reverse(tie), job, bytes });
    }

    /// The ready jobs, the one to start first first.
    pub(super) fn best_first(&self) -> impl Iterator<Item = ReadyKey> + '_ {
        self.set.iter().rev().copied()
    }

    /// Takes away a job once it has started.
    pub(super) fn remove(&mut self, key: &ReadyKey) {
        self.set.remove(key);
    }
}

/// `x` rounded to whole ticks, or None where it is not a number, negative, or beyond
/// `u64::MAX`.
pub(super) fn ticks(x: f64) -> Option<u64> {
    crate::support::rounded_u64(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event, in the order the simulator takes them: by time, all of one time at once.
    fn drain<I: Hash + Eq>(queue: &mut EventQueue<I>) -> Vec<(u64, I)> {
        let mut out = Vec::new();
        while let Some(time) = queue.next_time() {
            while let Some(item) = queue.pop_at(time) {
                out.push((time, item));
            }
        }
        out
    }

    #[test]
    fn keys_order_by_time_then_sequence() {
        let key = |time, seq| EventKey { time, seq };
        assert!(key(1, 9) < key(2, 0));
        assert!(key(2, 0) < key(2, 1));
        assert_eq!(key(3, 4).cmp(&key(3, 4)), std::cmp::Ordering::Equal);
    }

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut queue = EventQueue::with_capacity(3);
        for job in [7u32, 2, 5] {
            queue.push(job, 10);
        }
        assert_eq!(drain(&mut queue), [(10, 7), (10, 2), (10, 5)]);
    }

    #[test]
    fn earlier_times_pop_first_whatever_the_insertion_order() {
        let mut queue = EventQueue::with_capacity(4);
        for (job, time) in [(0u32, 9), (1, 3), (2, 6), (3, 0)] {
            queue.push(job, time);
        }
        assert_eq!(queue.pop_at(3), None, "only the earliest time pops");
        assert_eq!(drain(&mut queue), [(0, 3), (3, 1), (6, 2), (9, 0)]);
        assert_eq!(queue.next_time(), None);
    }

    #[test]
    fn many_ties_resolve_the_same_way_in_every_queue() {
        // Each queue hashes with its own random state: the order must not depend on it.
        let jobs: Vec<u32> = (0..2000u32).map(|i| i.wrapping_mul(7919) % 2000).collect();
        let run = || {
            let mut queue = EventQueue::with_capacity(jobs.len());
            for &job in &jobs {
                queue.push(job, u64::from(job % 3));
            }
            drain(&mut queue)
        };
        let first = run();
        for _ in 0..5 {
            assert_eq!(run(), first);
        }
        // Time by time, and within a time in the order pushed.
        let expected: Vec<(u64, u32)> =
            (0..3).flat_map(|t| jobs.iter().filter(move |&&j| u64::from(j % 3) == t).map(move |&j| (t, j))).collect();
        assert_eq!(first, expected);
    }

    #[test]
    fn an_item_can_be_scheduled_again_once_popped() {
        let mut queue = EventQueue::with_capacity(1);
        queue.push(1u32, 4);
        assert_eq!(queue.pop_at(4), Some(1));
        queue.push(1, 4);
        assert_eq!(drain(&mut queue), [(4, 1)]);
    }

    #[test]
    fn ready_jobs_start_by_priority_then_readiness_or_index() {
        let jobs = |set: &ReadySet| set.best_first().map(|k| k.job).collect::<Vec<_>>();
        let mut fifo = ReadySet::new();
        for job in [5, 2, 7] {
            fifo.push(job, None, 1);
        }
        assert_eq!(jobs(&fifo), [5, 2, 7], "fifo: in the order they became ready");

        let mut ranked = ReadySet::new();
        for (job, priority) in [(1, 3), (2, 5), (0, 3)] {
            ranked.push(job, Some(priority), u64::from(job) * 10);
        }
        assert_eq!(jobs(&ranked), [2, 0, 1], "higher priority first, then the lower index");
        let best = ranked.best_first().next().expect("three ready");
        assert_eq!(best.bytes, 20);
        ranked.remove(&best);
        assert_eq!(jobs(&ranked), [0, 1]);
    }
}
