//! The checked plan: a plan's jobs checked against their space, with a priority per job,
//! ready for the executor, a cluster task or the store. [`ReadyPlan::whole`] is the plan
//! `dab solve` runs.
//!
//! Every way to a [`ReadyPlan`] but a struct literal passes [`ReadyPlan::checked`], which
//! refuses what the kernel would trip over: a full root (no groups, no kernel), a job that is
//! not whole rows of a partition of the space or not named for its piece, rows covered twice
//! or not at all, and above all a job that reads rows of a job it does not list among the jobs
//! it needs: the executor would hand the kernel an empty piece there (or one not yet computed).
//! The rows a job reads are derived from the space here, independently of the planner that
//! wrote the dependencies; a unit test holds them against the kernel's own reads.

use std::collections::HashMap;

use crate::sched::{CostSpec, Graph, orbits};
use crate::solver::{Kernel, Layout, PartitionKey, Space, layout};

use super::file::PlanError;

/// A plan checked against its space: ready to run.
pub struct ReadyPlan {
    /// The space the plan solves.
    pub space: Space,
    /// The jobs and their dependencies.
    pub graph: Graph,
    /// Per job, the rows it computes.
    pub layout: Vec<Layout>,
    /// Per job, higher first.
    pub priority: Vec<u64>,
}

/// Why a plan's jobs, each of them whole rows of a partition, cannot run as listed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadsError {
    /// A job reads rows that another job computes, but does not list that job among its
    /// dependencies: nothing makes it wait for them, nor hands them to the kernel.
    #[error(
        "job '{job}' reads job '{input}' (rows {first}..{end} of partition {key}) but does not list it in its deps"
    )]
    Unlisted {
        /// The job that reads.
        job: String,
        /// The job it reads and does not list.
        input: String,
        /// The partition read.
        key: String,
        /// First row read of that job's rows.
        first: u64,
        /// End of the rows read.
        end: u64,
    },
    /// A job's name is not that of its piece: `<key>` for a partition in one job, `<key>_<i>`
    /// for the i-th piece, from 0, of one in several (in plan order, which is row order).
    #[error(
        "job '{job}' computes rows {first}..{end} of partition {key}, piece {piece} of {pieces}: it must be named '{expected}'"
    )]
    Name {
        /// The job's name.
        job: String,
        /// The name its place gives.
        expected: String,
        /// Its partition.
        key: String,
        /// Its first row.
        first: u64,
        /// The end of its rows.
        end: u64,
        /// Its piece number.
        piece: usize,
        /// Pieces of its partition.
        pieces: usize,
    },
}

/// Key and row range of every job of an orbits graph, read from its names and sizes; a full
/// root, which has no partition, is refused first.
pub(crate) fn job_layout(space: &Space, graph: &Graph) -> Result<Vec<Layout>, PlanError> {
    space.require_lines().map_err(|e| PlanError::Position(format!("root: {e}")))?;
    Ok(layout(space, graph.jobs.iter().map(|j| (j.name.as_str(), j.states)))?)
}

impl ReadyPlan {
    /// Whether job `job`'s file stays in a store whose book keeps partitions of at most
    /// `keep_lines` lines (every file stays without a book).
    pub fn in_book(&self, job: usize, keep_lines: Option<usize>) -> bool {
        keep_lines.is_none_or(|most| self.layout[job].key.total() <= most)
    }

    /// The jobs whose files the root's value reads: the root and the jobs it needs, ascending.
    pub fn value_reads(&self) -> Vec<usize> {
        let root = self.layout.iter().position(|l| l.key.total() == 0).expect("a checked plan has a root job");
        let mut out: Vec<usize> = self.graph.needs(root).iter().map(|&k| k as usize).collect();
        out.push(root);
        out.sort_unstable();
        out
    }

    /// The space's own partitions, unsplit, one tick a position: the plan `dab solve` runs.
    /// The root must have a line left to draw ([`Space::require_lines`]).
    pub fn whole(space: Space) -> ReadyPlan {
        let graph = orbits(&space, &CostSpec::States, None).expect("a root with lines and no split to refuse");
        ReadyPlan::from_graph(space, graph).expect("a space's own graph is a valid plan")
    }

    /// An orbits graph of `space` ready to run, priorities by longest remaining cost.
    pub fn from_graph(space: Space, graph: Graph) -> Result<ReadyPlan, PlanError> {
        let layout = job_layout(&space, &graph)?;
        let priority = graph.cost_priorities();
        ReadyPlan::checked(space, graph, layout, priority)
    }

    /// Bytes a run of this plan holds besides values whatever its thread count (program,
    /// tables, jobs).
    pub fn fixed_bytes(&self) -> u64 {
        super::file::run_fixed_bytes(&self.space, self.graph.len())
    }

    /// The plan of `graph` (a valid graph: known dependencies, no cycle) laid out as `layout`
    /// (whole rows of the space's partitions, each covered once: [`layout`]), once every job
    /// is named for its piece and lists every job whose rows its kernel call reads.
    pub(crate) fn checked(
        space: Space,
        graph: Graph,
        layout: Vec<Layout>,
        priority: Vec<u64>,
    ) -> Result<ReadyPlan, PlanError> {
        check_names(&graph, &layout)?;
        check_reads(&space, &graph, &layout)?;
        Ok(ReadyPlan { space, graph, layout, priority })
    }
}

/// Per partition, its jobs in row order: (first row, end row, job).
fn pieces(layout: &[Layout]) -> HashMap<PartitionKey, Vec<(usize, usize, usize)>> {
    let mut out: HashMap<PartitionKey, Vec<(usize, usize, usize)>> = HashMap::new();
    for (i, l) in layout.iter().enumerate() {
        out.entry(l.key).or_default().push((l.first_row, l.first_row + l.rows, i));
    }
    out
}

/// Every job is named for its place: a store file, a cluster task and `dab job --job` go by
/// the name, so `8-7_1` must be the second piece of `8-7` and nothing else.
fn check_names(graph: &Graph, layout: &[Layout]) -> Result<(), ReadsError> {
    for (key, list) in pieces(layout) {
        for (piece, &(first, end, i)) in list.iter().enumerate() {
            let expected = if list.len() == 1 { key.to_string() } else { format!("{key}_{piece}") };
            if graph.jobs[i].name != expected {
                return Err(ReadsError::Name {
                    job: graph.jobs[i].name.clone(),
                    expected,
                    key: key.to_string(),
                    first: first as u64,
                    end: end as u64,
                    piece,
                    pieces: list.len(),
                });
            }
        }
    }
    Ok(())
}

/// Every job lists each job whose rows its kernel call reads (a graph never lists one twice:
/// `Graph::new` refuses it).
fn check_reads(space: &Space, graph: &Graph, layout: &[Layout]) -> Result<(), ReadsError> {
    let kernel = Kernel::new(space);
    let pieces = pieces(layout);
    let mut cache = HashMap::new();
    // listed[k] == i: job i lists job k.
    let mut listed = vec![usize::MAX; graph.len()];
    for (i, l) in layout.iter().enumerate() {
        let name = |k: usize| graph.jobs[k].name.clone();
        for &k in graph.needs(i) {
            listed[k as usize] = i;
        }
        for g in 0..l.key.groups() {
            if l.key.counts()[g] as u32 >= space.groups[g].size {
                continue;
            }
            let dep = l.key.plus(g);
            let list = &pieces[&dep];
            for (lo, hi) in rows_read(space, &kernel, &l.key, g, (l.first_row, l.first_row + l.rows), &mut cache) {
                let start = list.partition_point(|p| p.1 <= lo);
                for &(first, end, k) in list[start..].iter().take_while(|p| p.0 < hi) {
                    if listed[k] != i {
                        return Err(ReadsError::Unlisted {
                            job: name(i),
                            input: name(k),
                            key: dep.to_string(),
                            first: lo.max(first) as u64,
                            end: hi.min(end) as u64,
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Group-0 ranks of the successors (one more line in group 0, made canonical) of group-0
/// configurations `a..b` with `c0` lines, by `(c0, a, b)`.
type Ranks0 = HashMap<(usize, usize, usize), Vec<(usize, usize)>>;

/// Row ranges of partition `key.plus(g)` that rows `lo..hi` of partition `key` read, at the
/// grain of group 0's configurations. With one group a partition is one row and reads its
/// successor's one row. Otherwise a move outside group 0 keeps group 0's configuration
/// (only group 0 is made canonical), so rows of the same group-0 ranks are read; a move in
/// group 0 reads the rows of the successor's canonical group-0 configuration, all of them,
/// since the symmetry that makes it canonical turns the other groups too.
fn rows_read(
    space: &Space,
    kernel: &Kernel,
    key: &PartitionKey,
    g: usize,
    (lo, hi): (usize, usize),
    cache: &mut Ranks0,
) -> Vec<(usize, usize)> {
    let dep = key.plus(g);
    let (dep_rows, _) = kernel.shape(&dep);
    if key.groups() == 1 {
        return vec![(0, dep_rows)];
    }
    let g0 = &space.groups[0];
    let c0 = key.counts()[0] as usize;
    // Rows per group-0 configuration, here and in the successor.
    let r = kernel.shape(key).0 / g0.count(c0);
    let rd = dep_rows / g0.count(dep.counts()[0] as usize);
    let (a, b) = (lo / r, (hi - 1) / r + 1);
    if g != 0 {
        return vec![(a * rd, b * rd)];
    }
    let ranks = cache.entry((c0, a, b)).or_insert_with(|| {
        // Runs of consecutive ranks.
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for q in space.group0_successor_ranks(c0, a..b) {
            match runs.last_mut() {
                Some(last) if last.1 == q => last.1 = q + 1,
                _ => runs.push((q, q + 1)),
            }
        }
        runs
    });
    ranks.iter().map(|&(p, q)| (p * rd, q * rd)).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Mutex;

    use super::*;
    use crate::game::{Board, LineSet, Position, Value};
    use crate::sched::{Job, PieceDeps, Split};
    use crate::solver::Rows;

    /// Spaces of every kind: one group, several (group 0 canonical, outer moves through the
    /// symmetry), and roots with lines drawn (fewer symmetries).
    fn spaces() -> Vec<Space> {
        let b: Board = "2x3".parse().unwrap();
        let drawn = Position { board: b, drawn: LineSet::EMPTY.with(b.h(0, 1)).with(b.v(1, 0)) };
        let mut out = Vec::new();
        for (root, groups) in [
            (Position::empty("2x2".parse().unwrap()), 1),
            (Position::empty("2x2".parse().unwrap()), 2),
            (Position::empty("1x4".parse().unwrap()), 2),
            (Position::empty(b), 2),
            (Position::empty(b), 3),
            (drawn, 2),
            (drawn, 3),
        ] {
            out.push(Space::new(root, Some(groups)).unwrap());
        }
        out
    }

    /// A successor partition that remembers which rows the kernel read (all values 0).
    struct Recorder {
        row_len: usize,
        rows: Mutex<BTreeSet<usize>>,
        zeros: Vec<Value>,
    }

    impl Rows for Recorder {
        fn row(&self, base: usize, len: usize) -> &[Value] {
            assert_eq!(base % self.row_len, 0, "reads start on a row");
            self.rows.lock().unwrap().insert(base / self.row_len);
            &self.zeros[..len]
        }
    }

    #[test]
    fn every_row_the_kernel_reads_is_among_the_rows_the_check_derives() {
        for space in spaces() {
            let kernel = Kernel::new(&space);
            let mut cache = HashMap::new();
            let widest = space.keys().iter().map(|k| kernel.shape(k).1).max().unwrap();
            for key in space.keys() {
                let (rows, row_len) = kernel.shape(&key);
                // One row at a time: the tightest ranges the check derives.
                for row in 0..rows {
                    let succ: Vec<Recorder> = (0..key.groups())
                        .map(|g| Recorder {
                            row_len: if (key.counts()[g] as u32) < space.groups[g].size {
                                kernel.shape(&key.plus(g)).1
                            } else {
                                1
                            },
                            rows: Mutex::new(BTreeSet::new()),
                            zeros: vec![0; widest],
                        })
                        .collect();
                    let mut out = vec![0; row_len];
                    kernel.compute(&key, &succ, &mut out, row);
                    for (g, rec) in succ.iter().enumerate() {
                        let read = rec.rows.lock().unwrap();
                        if (key.counts()[g] as u32) >= space.groups[g].size {
                            assert!(read.is_empty(), "{key} reads its full group {g}");
                            continue;
                        }
                        let ranges = rows_read(&space, &kernel, &key, g, (row, row + 1), &mut cache);
                        for &r in read.iter() {
                            assert!(
                                ranges.iter().any(|&(lo, hi)| lo <= r && r < hi),
                                "{} groups {}: row {row} of {key} reads row {r} of {}, outside {ranges:?}",
                                space.groups.len(),
                                space.root.to_line_string(),
                                key.plus(g)
                            );
                        }
                    }
                }
            }
        }
    }

    /// A plan of `space` split into pieces that need only the pieces they read.
    fn fine(space: &Space, threshold: u64) -> Graph {
        orbits(space, &CostSpec::States, Some(&Split { threshold, max_pieces: 8, deps: PieceDeps::Fine })).unwrap()
    }

    #[test]
    fn the_planner_s_graphs_whole_and_in_pieces_pass_the_check() {
        for space in spaces() {
            for threshold in [1, 7, 40] {
                ReadyPlan::from_graph(space.clone(), fine(&space, threshold)).unwrap();
            }
            let whole = ReadyPlan::whole(space);
            assert!(whole.graph.jobs.iter().all(|j| !j.name.contains('_')));
        }
    }

    /// `graph` with `edit` applied to its jobs.
    fn edited(graph: &Graph, edit: impl FnOnce(&mut Vec<Job>)) -> Graph {
        let mut jobs = graph.jobs.clone();
        edit(&mut jobs);
        Graph::new(jobs, None).unwrap()
    }

    #[test]
    fn a_job_missing_any_one_input_it_reads_is_refused_naming_the_job_and_the_input() {
        for space in spaces() {
            let graph = fine(&space, 7);
            let mut refused = 0;
            // Forty-odd jobs spread over the plan, each without one of its inputs, a different
            // one from job to job.
            let step = graph.len().div_ceil(40);
            for (i, job) in graph.jobs.iter().enumerate().step_by(step) {
                if let Some(d) = (!job.deps.is_empty()).then(|| i % job.deps.len()) {
                    let damaged = edited(&graph, |jobs| {
                        jobs[i].deps.remove(d);
                    });
                    // Fine deps are exactly the pieces read: none can go.
                    let err = ReadyPlan::from_graph(space.clone(), damaged).err().expect("refused");
                    let PlanError::Reads(ReadsError::Unlisted { job: j, input, .. }) = &err else {
                        panic!("{err}");
                    };
                    assert_eq!((j, input), (&job.name, &job.deps[d]), "{err}");
                    assert!(err.to_string().contains(&format!("job '{}' reads job '{}'", job.name, job.deps[d])));
                    refused += 1;
                }
            }
            assert!(refused > 0);
        }
    }

    #[test]
    fn a_dependency_listed_twice_or_a_piece_misnamed_is_refused_by_name() {
        let space = spaces().remove(3);
        let graph = fine(&space, 7);
        let i = graph.jobs.iter().position(|j| !j.deps.is_empty()).unwrap();
        // A dependency listed twice never makes a graph (so never a plan): refused by name.
        let mut jobs = graph.jobs.clone();
        let d = jobs[i].deps[0].clone();
        jobs[i].deps.push(d);
        let err = Graph::new(jobs, None).expect_err("refused").to_string();
        assert!(err.contains(&format!("'{}'", graph.jobs[i].name)) && err.contains("twice"), "{err}");
        // Two pieces of a partition swapped in name (and so in their dependents' deps).
        let p = graph.jobs.iter().position(|j| j.name.ends_with("_0")).expect("a partition in pieces");
        let key = graph.jobs[p].name.trim_end_matches("_0").to_string();
        let swap = |n: &str| {
            if n == format!("{key}_0") {
                format!("{key}_1")
            } else if n == format!("{key}_1") {
                format!("{key}_0")
            } else {
                n.to_string()
            }
        };
        let swapped = edited(&graph, |jobs| {
            for j in jobs.iter_mut() {
                j.name = swap(&j.name);
                j.deps = j.deps.iter().map(|d| swap(d)).collect();
            }
        });
        match ReadyPlan::from_graph(space.clone(), swapped) {
            Err(PlanError::Reads(ReadsError::Name { job, expected, .. })) => {
                assert_eq!((job, expected), (format!("{key}_1"), format!("{key}_0")))
            }
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("a misnamed piece is refused"),
        }
    }

    #[test]
    fn a_full_root_is_refused_not_laid_out() {
        let root = Position::from_line_string("1x1".parse().unwrap(), "1111").unwrap();
        let space = Space::new(root, None).unwrap();
        let graph =
            Graph::new(vec![Job { name: "".into(), cost: 1, states: 1, bytes: 1, deps: vec![] }], None).unwrap();
        let err = job_layout(&space, &graph).unwrap_err();
        assert_eq!(err.to_string(), "the plan's root: the position is full: no lines left to draw, its value is 0");
    }
}
