//! What the shared store of a cluster run holds: which job files stay to the end (the opening
//! book, and the root's inputs, which the value reads), which tasks read each file, the name
//! of the marker a task leaves when it is done, and the store's peak as the task schedule
//! predicts it.
//!
//! Invariant: a file goes only once every task that reads it is done (its marker written), so a
//! task that is not done finds every input it needs, however often it is run again; a done
//! task is never run again. The task that finishes last among a file's readers removes it; two
//! readers that finish together may both try, which is harmless (removing is idempotent).

use crate::sched::{DiskUse, Graph};

use super::ReadyPlan;
use super::tasks::Task;

/// Lines of the partitions a cluster run keeps by default (`dab plan --nodes` without
/// `--keep-lines`): the same book the local runs of docs/guide/stores.md keep.
pub const DEFAULT_BOOK_LINES: usize = 15;

/// The files of a two-level plan as its tasks use them.
pub struct TaskFiles {
    /// Per job, the task it belongs to.
    owner: Vec<usize>,
    /// Per job, the tasks that read its file, ascending, each once.
    readers: Vec<Vec<usize>>,
    /// Per job, whether its file stays to the end.
    kept: Vec<bool>,
    /// Per task, the jobs whose files it reads or writes, ascending: the files that may go
    /// when it is done.
    touched: Vec<Vec<usize>>,
}

impl TaskFiles {
    /// The files of `plan` packed into `tasks`, keeping the book of partitions of at most
    /// `book` lines (None: every file stays) and the root's inputs.
    pub fn new(plan: &ReadyPlan, tasks: &[Task], book: Option<usize>) -> TaskFiles {
        let g = &plan.graph;
        let mut owner = vec![0usize; g.len()];
        for (t, task) in tasks.iter().enumerate() {
            task.jobs.iter().for_each(|&j| owner[j] = t);
        }
        let readers: Vec<Vec<usize>> = (0..g.len())
            .map(|k| {
                let mut r: Vec<usize> = g.needed_by(k).iter().map(|&j| owner[j as usize]).collect();
                r.sort_unstable();
                r.dedup();
                r
            })
            .collect();
        let mut kept: Vec<bool> = (0..g.len()).map(|j| plan.in_book(j, book)).collect();
        plan.value_reads().into_iter().for_each(|j| kept[j] = true);
        let touched = tasks
            .iter()
            .map(|task| {
                let mut files: Vec<usize> = task.jobs.clone();
                files.extend(task.jobs.iter().flat_map(|&j| g.needs(j)).map(|&k| k as usize));
                files.sort_unstable();
                files.dedup();
                files
            })
            .collect();
        TaskFiles { owner, readers, kept, touched }
    }

    /// Whether job `job`'s file stays to the end.
    pub fn kept(&self, job: usize) -> bool {
        self.kept[job]
    }

    /// Whether job `job`'s file (of task `task`) stays while that task runs: it is kept, or a
    /// task other than `task` reads it. Any other goes as soon as the task's jobs that read it
    /// have run.
    pub fn stays_during(&self, job: usize, task: usize) -> bool {
        self.kept[job] || self.readers[job].iter().any(|&r| r != task)
    }

    /// The files (jobs) that go once task `task` is done, `done(t)` saying which tasks are
    /// done (`task` among them): those it reads or writes, not kept, every reader of which is
    /// done.
    pub fn removable_after(&self, task: usize, mut done: impl FnMut(usize) -> bool) -> Vec<usize> {
        self.touched[task]
            .iter()
            .copied()
            .filter(|&k| !self.kept[k] && self.readers[k].iter().all(|&r| r == task || done(r)))
            .collect()
    }

    /// The store's peak in bytes when `tasks` run at `task_spans` (start, end) and their jobs
    /// at `job_spans` (per job of `graph`), in seconds: a job's file counts from the job's end,
    /// as a local run's ([`crate::sched::predicted_peak`]); a file only its own task reads goes
    /// when the last job reading it ends, any other when the last task reading it ends; the
    /// kept stay.
    pub fn peak(&self, graph: &Graph, task_spans: &[(f64, f64)], job_spans: &[(f64, f64)]) -> u64 {
        // (seconds, 0 for a file that goes and 1 for one that comes, job): at one time files
        // go before others come, as a node frees before it takes the next task.
        let mut events: Vec<(f64, u8, usize)> =
            job_spans.iter().enumerate().map(|(j, &(_, end))| (end, 1, j)).collect();
        for k in (0..graph.len()).filter(|&k| !self.kept[k] && !self.readers[k].is_empty()) {
            let gone = if !self.stays_during(k, self.owner[k]) {
                graph.needed_by(k).iter().map(|&j| job_spans[j as usize].1).fold(f64::MIN, f64::max)
            } else {
                self.readers[k].iter().map(|&r| task_spans[r].1).fold(f64::MIN, f64::max)
            };
            events.push((gone, 0, k));
        }
        events.sort_by(|a, b| a.partial_cmp(b).expect("finite times"));
        let mut disk = DiskUse::default();
        for (_, kind, j) in events {
            match kind {
                1 => disk.add(graph.jobs[j].bytes),
                _ => disk.remove(graph.jobs[j].bytes),
            }
        }
        disk.peak()
    }
}

/// The name of the marker task `task` of `plan` leaves in the store when it is done: its name
/// and a checksum of its jobs' names (`t3-1a2b3c4d`), so that a task of another packing of
/// the same store is never taken for this one.
pub fn done_marker(plan: &ReadyPlan, task: &Task) -> String {
    let mut names = crc32fast::Hasher::new();
    for (i, &j) in task.jobs.iter().enumerate() {
        if i > 0 {
            names.update(b",");
        }
        names.update(plan.graph.jobs[j].name.as_bytes());
    }
    format!("{}-{:08x}", task.name, names.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Position;
    use crate::sched::{CostSpec, orbits};
    use crate::solver::Space;

    fn plan(board: &str) -> ReadyPlan {
        let space = Space::new(Position::empty(board.parse().unwrap()), Some(3)).unwrap();
        let graph = orbits(&space, &CostSpec::States, None).unwrap();
        ReadyPlan::from_graph(space, graph).unwrap()
    }

    /// One task a level, deepest first, each reading the one before.
    fn by_level(p: &ReadyPlan) -> Vec<Task> {
        let most = p.layout.iter().map(|l| l.key.total()).max().unwrap();
        let mut levels: Vec<Vec<usize>> = vec![Vec::new(); most + 1];
        for (j, l) in p.layout.iter().enumerate() {
            levels[most - l.key.total()].push(j);
        }
        super::super::tasks::named_tasks(p, levels.into_iter().filter(|l| !l.is_empty()).collect())
    }

    #[test]
    fn one_task_a_level_holds_two_levels_at_once_and_the_book_and_the_roots_inputs_stay() {
        let p = plan("2x3");
        let tasks = by_level(&p);
        let bytes = |level: usize| -> u64 {
            p.layout.iter().zip(&p.graph.jobs).filter(|(l, _)| l.key.total() == level).map(|(_, j)| j.bytes).sum()
        };
        // One after the other, a second each; a task's jobs end one after another within it.
        let task_spans: Vec<(f64, f64)> = (0..tasks.len()).map(|t| (t as f64, t as f64 + 1.0)).collect();
        let mut job_spans = vec![(0.0, 0.0); p.graph.len()];
        for (t, task) in tasks.iter().enumerate() {
            let n = task.jobs.len() as f64;
            for (i, &j) in task.jobs.iter().enumerate() {
                job_spans[j] = (t as f64, t as f64 + (i + 1) as f64 / (n + 1.0));
            }
        }
        let all = TaskFiles::new(&p, &tasks, None);
        let total: u64 = p.graph.jobs.iter().map(|j| j.bytes).sum();
        assert_eq!(all.peak(&p.graph, &task_spans, &job_spans), total, "nothing goes without a book");
        let files = TaskFiles::new(&p, &tasks, Some(0));
        // Levels run one after the other: while level L is written, level L+1 is still read.
        let lines = p.layout.iter().map(|l| l.key.total()).max().unwrap();
        let pairs = (0..lines).map(|l| bytes(l) + bytes(l + 1)).max().unwrap();
        let kept = bytes(0) + bytes(1);
        let peak = files.peak(&p.graph, &task_spans, &job_spans);
        assert!(peak >= pairs && peak <= pairs + kept, "{peak} against {pairs} + {kept}");
        assert!(peak < total);
        for j in 0..p.graph.len() {
            assert_eq!(files.kept(j), p.layout[j].key.total() <= 1, "book 0 keeps the root and its inputs alone");
        }
    }

    #[test]
    fn a_file_goes_only_when_every_task_that_reads_it_is_done() {
        let p = plan("2x3");
        let tasks = by_level(&p);
        let files = TaskFiles::new(&p, &tasks, Some(0));
        let last = tasks.len() - 1;
        // The first task (the full board's level) alone done: its files are read by the next.
        assert!(files.removable_after(0, |t| t == 0).is_empty());
        // The second done too: the first's files go, and only those.
        let gone = files.removable_after(1, |t| t <= 1);
        assert!(!gone.is_empty());
        assert!(gone.iter().all(|&j| tasks[0].jobs.contains(&j)), "{gone:?}");
        // The root's task: nothing it touches goes (its inputs and itself are kept).
        assert!(files.removable_after(last, |_| true).iter().all(|&j| !tasks[last].jobs.contains(&j)));
    }

    /// A packing of `board` for `nodes` nodes, finely banded so that levels are split.
    fn packed(board: &str, nodes: usize) -> (ReadyPlan, Vec<Task>) {
        use crate::sched::{Contention, Policy, SimOptions};
        let p = plan(board);
        let shape = super::super::ClusterShape {
            nodes,
            threads_per_node: 2,
            overhead_seconds: 0.0,
            store_bytes_per_second: 1e15,
            book: None,
        };
        let node = SimOptions { policy: Policy::Cp, ..SimOptions::default() };
        let tasks = super::super::pack(&p, &Contention::default(), node, &shape, 1e9).tasks;
        (p, tasks)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

        /// Tasks run in any order their reads allow, some failing part-way (having written some
        /// of their files, leaving no marker) and run again later: every task finds every file
        /// it reads, and at the end the store holds the book and the root's inputs, nothing else.
        #[test]
        fn whatever_the_order_and_the_failures_no_task_finds_an_input_gone(
            nodes in 2usize..6,
            book in 0usize..9,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let (p, tasks) = packed("2x4", nodes);
            proptest::prop_assert!(tasks.len() >= 3, "{} tasks", tasks.len());
            let files = TaskFiles::new(&p, &tasks, Some(book));
            let mut rng = crate::support::SplitMix64(seed);
            let (mut done, mut present) = (vec![false; tasks.len()], vec![false; p.graph.len()]);
            while done.iter().any(|d| !d) {
                let ready: Vec<usize> =
                    (0..tasks.len()).filter(|&t| !done[t] && tasks[t].deps.iter().all(|&d| done[d])).collect();
                proptest::prop_assert!(!ready.is_empty(), "tasks left but none ready");
                let t = ready[rng.below(ready.len())];
                for &j in &tasks[t].jobs {
                    for &k in p.graph.needs(j) {
                        let k = k as usize;
                        let own = tasks[t].jobs.contains(&k);
                        proptest::prop_assert!(own || present[k], "task {} reads {} and finds it gone", t, k);
                    }
                }
                if rng.below(4) == 0 {
                    // Fails part-way: some of its files written, no marker.
                    for &j in &tasks[t].jobs {
                        if rng.below(2) == 0 {
                            present[j] = true;
                        }
                    }
                    continue;
                }
                tasks[t].jobs.iter().for_each(|&j| present[j] = true);
                done[t] = true;
                for k in files.removable_after(t, |r| done[r]) {
                    present[k] = false;
                }
            }
            for (j, &there) in present.iter().enumerate() {
                proptest::prop_assert_eq!(there, files.kept(j), "job {} at the end", j);
            }
        }
    }

    #[test]
    fn a_marker_names_its_task_and_changes_with_its_jobs() {
        let p = plan("2x3");
        let tasks = by_level(&p);
        let m = done_marker(&p, &tasks[1]);
        assert!(m.starts_with("t1-") && m.len() == 3 + 8, "{m}");
        let other = Task { jobs: tasks[1].jobs[1..].to_vec(), ..tasks[1].clone() };
        assert_ne!(done_marker(&p, &other), m);
    }
}
