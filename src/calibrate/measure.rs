//! Timing runs: whole solves on the executor, every job's median time with the features the
//! cost model prices, at each thread count asked, in rounds that solve every case once at
//! every count, so that all cases and counts see the same moments of a shared machine.

use std::collections::HashMap;

use serde::Serialize;

use crate::exec::{AloneTimer, execute};
use crate::game::Position;
use crate::plan::ReadyPlan;
use crate::sched::{CostSpec, JobFeatures, Residency, alone_bytes, orbits_with_features};
use crate::solver::{Space, SpaceError};
use crate::support::{available_memory_bytes, last_level_cache_bytes, median};

use super::in_solve::busy_profile;

/// One job's measured time with its features.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The case solved: its board (`MxN`), with `@U` where U lines were left undrawn.
    pub board: String,
    /// Groups of its space.
    pub groups: usize,
    /// Threads of the run it was timed in.
    pub threads: usize,
    /// The job's name.
    pub job: String,
    /// What the cost model prices it by.
    pub features: JobFeatures,
    /// Median seconds from its start to its end over the repeats.
    pub seconds: f64,
}

impl Sample {
    /// Job `job` of `board`'s space in `groups` groups, timed on `threads` threads at `seconds`,
    /// with its features `f`.
    pub fn new(board: &str, groups: usize, threads: usize, job: String, f: &JobFeatures, seconds: f64) -> Sample {
        Sample { board: board.to_string(), groups, threads, job, features: *f, seconds }
    }
}

/// One flat row: the case, each feature as its own column (named as in [`JobFeatures::NAMES`]),
/// then the seconds, so that the table has one column per feature without listing them here.
impl Serialize for Sample {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut row = serializer.serialize_struct("Sample", 5 + JobFeatures::NAMES.len())?;
        row.serialize_field("board", &self.board)?;
        row.serialize_field("groups", &self.groups)?;
        row.serialize_field("threads", &self.threads)?;
        row.serialize_field("job", &self.job)?;
        for (name, value) in JobFeatures::NAMES.iter().zip(self.features.values()) {
            row.serialize_field(name, &value)?;
        }
        row.serialize_field("seconds", &self.seconds)?;
        row.end()
    }
}

/// A whole solve timed at one thread count.
#[derive(Clone, Debug)]
pub struct Timing {
    /// Every job's median time with its features, in the plan's job order.
    pub samples: Vec<Sample>,
    /// Median wall seconds of the solve.
    pub seconds: f64,
    /// Per job, the seconds it ran with 1, 2, ... of the count's threads busy (itself
    /// included), summed over the repeats: what contention it met.
    pub busy: Vec<Vec<f64>>,
    /// On one thread, per job but the last of each repeat: the bytes of output its end gave
    /// back (the inputs it was the last to read) and the seconds until the next job began.
    pub gaps: Vec<(u64, f64)>,
}

/// The gaps of a one-thread run's `spans` (job, start, end): after each job, the bytes its
/// end gave back (replayed by the [`Residency`] the executor frees by) and the seconds until
/// the next job began.
fn gaps(plan: &ReadyPlan, spans: &[(usize, f64, f64)]) -> Vec<(u64, f64)> {
    let g = &plan.graph;
    let mut memory = Residency::new(g, None, false);
    let mut order: Vec<&(usize, f64, f64)> = spans.iter().collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    order
        .windows(2)
        .map(|w| {
            let (job, _, end) = *w[0];
            memory.try_start(job, g.needs(job));
            let freed = memory.finish(job, g.needs(job)).iter().map(|&k| g.jobs[k as usize].bytes).sum();
            (freed, (w[1].1 - end).max(0.0))
        })
        .collect()
}

/// A case to time: the name its samples carry, the root solved and its grouping, and where
/// only some of its jobs are timed (each alone, on one thread), how many.
#[derive(Clone, Debug)]
pub struct Timed {
    /// The name its samples carry.
    pub name: String,
    /// The position solved.
    pub root: Position,
    /// Number of groups (None: the default).
    pub groups: Option<usize>,
    /// Jobs timed alone instead of a whole solve (None: the whole solve).
    pub sampled: Option<usize>,
}

/// Fewest positions of a job timed alone: smaller jobs are the whole solves' (and their time
/// is dispatch more than work).
const SAMPLE_MIN_STATES: u64 = 10_000;

/// Most bytes (inputs and output) of a job timed alone: a quarter of the memory available and
/// at most 1 GiB, so that a sample takes seconds (3x5's largest job holds 0.8 GB).
fn sample_budget() -> u64 {
    available_memory_bytes().map_or(1 << 30, |a| (a / 4).min(1 << 30))
}

/// `count` jobs of `plan` to time alone: from the smallest of at least [`SAMPLE_MIN_STATES`]
/// positions to the largest within `budget` bytes, spread evenly over the logarithm of
/// their positions (each the job nearest its mark, none twice), smallest first.
fn pick_jobs(plan: &ReadyPlan, count: usize, budget: u64, bytes: impl Fn(usize) -> u64) -> Vec<usize> {
    let g = &plan.graph;
    let mut pool: Vec<usize> =
        (0..g.len()).filter(|&j| g.jobs[j].states >= SAMPLE_MIN_STATES && bytes(j) <= budget).collect();
    pool.sort_by_key(|&j| (g.jobs[j].states, j));
    let (Some(&first), Some(&last)) = (pool.first(), pool.last()) else { return Vec::new() };
    let log = |j: usize| (g.jobs[j].states as f64).ln();
    let (lo, hi) = (log(first), log(last));
    let mut picked: Vec<usize> = Vec::new();
    for i in 0..count.min(pool.len()) {
        let mark = if count > 1 { lo + (hi - lo) * i as f64 / (count - 1) as f64 } else { hi };
        let best = pool
            .iter()
            .copied()
            .filter(|j| !picked.contains(j))
            .min_by(|&a, &b| (log(a) - mark).abs().total_cmp(&(log(b) - mark).abs()))
            .expect("more jobs than picked");
        picked.push(best);
    }
    picked.sort_by_key(|&j| (g.jobs[j].states, j));
    picked
}

/// One case being timed: its plan, every job's features, and what its runs gave so far.
struct CaseRuns<'a> {
    name: &'a str,
    /// The jobs timed alone, where the case is sampled.
    picked: Option<Vec<usize>>,
    plan: ReadyPlan,
    features: Vec<JobFeatures>,
    index: HashMap<String, usize>,
    /// Per thread count, per job, its time in each run.
    times: Vec<Vec<Vec<f64>>>,
    walls: Vec<Vec<f64>>,
    gaps: Vec<Vec<(u64, f64)>>,
    busy: Vec<Vec<Vec<f64>>>,
}

impl<'a> CaseRuns<'a> {
    fn new(case: &'a Timed, threads: &[usize]) -> Result<CaseRuns<'a>, SpaceError> {
        let space = Space::new(case.root, case.groups)?;
        let (graph, features) = orbits_with_features(&space, &CostSpec::States, None).expect("no split");
        let plan = ReadyPlan::from_graph(space, graph).expect("own graph");
        let picked = case.sampled.map(|n| pick_jobs(&plan, n, sample_budget(), |j| alone_bytes(&plan.graph, j)));
        let jobs = plan.graph.len();
        let index = plan.graph.jobs.iter().enumerate().map(|(i, j)| (j.name.clone(), i)).collect();
        Ok(CaseRuns {
            name: &case.name,
            picked,
            features,
            index,
            times: vec![vec![Vec::new(); jobs]; threads.len()],
            walls: vec![Vec::new(); threads.len()],
            gaps: vec![Vec::new(); threads.len()],
            busy: threads.iter().map(|&p| vec![vec![0.0; p.max(1)]; jobs]).collect(),
            plan,
        })
    }

    /// Solves the case once at each thread count; a sampled case times its jobs alone, at the
    /// count of one thread only.
    fn run(&mut self, threads: &[usize]) {
        if let Some(picked) = &self.picked {
            let Some(k) = threads.iter().position(|&p| p == 1) else { return };
            let timer = AloneTimer::new(&self.plan);
            let evict = 2 * last_level_cache_bytes() as usize;
            let mut wall = 0.0;
            for &j in picked {
                let t = timer.time(j, evict);
                self.times[k][j].push(t);
                self.busy[k][j][0] += t;
                wall += t;
            }
            self.walls[k].push(wall);
            return;
        }
        for (k, &p) in threads.iter().enumerate() {
            let run = execute(&self.plan, p, false, None);
            let spans: Vec<(usize, f64, f64)> =
                run.trace.iter().map(|t| (self.index[t.job.as_str()], t.start, t.end)).collect();
            for &(j, start, end) in &spans {
                self.times[k][j].push(end - start);
            }
            for (sum, one) in self.busy[k].iter_mut().zip(busy_profile(&spans, self.plan.graph.len(), p)) {
                sum.iter_mut().zip(one).for_each(|(s, o)| *s += o);
            }
            self.walls[k].push(run.seconds);
            if p == 1 {
                self.gaps[k].extend(gaps(&self.plan, &spans));
            }
        }
    }

    /// Per thread count, every job's median time with its features; a sampled case's jobs
    /// timed alone, on one thread only.
    fn timings(self, threads: &[usize]) -> Vec<Timing> {
        let CaseRuns { name, picked, plan, features, mut times, mut walls, gaps, busy, .. } = self;
        let timed = |j: usize| picked.as_ref().is_none_or(|p| p.contains(&j));
        threads
            .iter()
            .zip(times.iter_mut().zip(&mut walls).zip(busy).zip(gaps))
            .filter(|(p, _)| picked.is_none() || **p == 1)
            .map(|(&p, (((times, walls), busy), gaps))| {
                let busy = busy.into_iter().enumerate().filter(|&(j, _)| timed(j)).map(|(_, b)| b).collect();
                let samples = plan
                    .graph
                    .jobs
                    .iter()
                    .zip(&features)
                    .zip(times.iter_mut())
                    .enumerate()
                    .filter(|&(j, _)| timed(j))
                    .map(|(_, ((job, f), t))| {
                        Sample::new(name, plan.space.groups.len(), p, job.name.clone(), f, median(t))
                    })
                    .collect();
                Timing { samples, seconds: median(walls), busy, gaps }
            })
            .collect()
    }
}

/// Runs whole solves of `cases` (each a name for its samples, a root and its grouping; a
/// sampled case's chosen jobs each alone, on one thread only) on the executor on each thread
/// count of `threads`, `repeats` rounds in which every case is solved
/// once at every count, and returns per case and thread count every job's median time with
/// its features, how many threads were busy while it ran, and the median wall time. Rounds go
/// over all the cases, so that a case's repeats are spread over the whole session: a shared
/// machine slowed for a few seconds then slows one repeat of several cases, which the medians
/// drop, not every repeat of one case. `pace` is called before each case's solves;
/// `round_done` hears each round's number (from 1) and its seconds.
pub fn measure(
    cases: &[Timed],
    threads: &[usize],
    repeats: usize,
    pace: &mut dyn FnMut(),
    round_done: &mut dyn FnMut(usize, f64),
) -> Result<Vec<Vec<Timing>>, SpaceError> {
    let mut timed = cases.iter().map(|case| CaseRuns::new(case, threads)).collect::<Result<Vec<_>, _>>()?;
    for r in 1..=repeats.max(1) {
        let started = std::time::Instant::now();
        for case in &mut timed {
            pace();
            case.run(threads);
        }
        round_done(r, started.elapsed().as_secs_f64());
    }
    Ok(timed.into_iter().map(|c| c.timings(threads)).collect())
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    #[test]
    fn a_samples_table_has_one_column_per_feature_in_the_models_order() {
        let f = JobFeatures { states: 7, cold_input_bytes: 3, ..Default::default() };
        let mut out = csv::Writer::from_writer(Vec::new());
        out.serialize(Sample::new("2x2", 1, 2, "j".into(), &f, 0.5)).unwrap();
        let text = String::from_utf8(out.into_inner().unwrap()).unwrap();
        let (header, row) = text.trim_end().split_once('\n').unwrap();
        let want = format!("board,groups,threads,job,{},seconds", JobFeatures::NAMES.join(","));
        assert_eq!(header, want);
        assert!(header.contains(",states,rows,outer_moves,") && header.ends_with(",cold_input_bytes,seconds"));
        assert_eq!(row, "2x2,1,2,j,7,0,0,0,0,0,0,0,0,0,3,0.5");
    }

    fn timed(board: &str, groups: Option<usize>, sampled: Option<usize>) -> Timed {
        Timed { name: board.to_string(), root: Position::empty(board.parse().unwrap()), groups, sampled }
    }

    #[test]
    fn every_round_solves_every_case_once_at_every_count() {
        let cases: Vec<Timed> = ["2x2", "2x3"].iter().map(|b| timed(b, None, None)).collect();
        let events = RefCell::new(Vec::new());
        let timed = measure(&cases, &[1, 2], 3, &mut || events.borrow_mut().push("case".to_string()), &mut |r, s| {
            assert!(s > 0.0);
            events.borrow_mut().push(format!("round {r}"))
        })
        .unwrap();
        let round = |r: usize| format!("round {r}");
        let expected: Vec<String> = (1..=3).flat_map(|r| ["case".to_string(), "case".to_string(), round(r)]).collect();
        assert_eq!(events.into_inner(), expected);
        assert_eq!(timed.len(), 2);
        for (Timed { name, .. }, runs) in cases.iter().zip(&timed) {
            assert_eq!(runs.len(), 2, "one timing per count");
            let jobs = runs[0].samples.len();
            assert!(
                jobs > 1 && runs.iter().all(|t| t.samples.len() == jobs && t.samples.iter().all(|s| &s.board == name))
            );
            assert_eq!(runs[0].samples[0].threads, 1);
            assert_eq!(runs[1].samples[0].threads, 2);
            // One thread's gaps: every job but the last of each of the 3 runs.
            assert_eq!(runs[0].gaps.len(), 3 * (jobs - 1), "{name}");
            assert!(runs[1].gaps.is_empty());
        }
    }

    #[test]
    fn picked_jobs_spread_over_the_sizes_within_the_budget() {
        let space = Space::new(Position::empty("3x4".parse().unwrap()), Some(3)).unwrap();
        let (graph, _) = orbits_with_features(&space, &CostSpec::States, None).unwrap();
        let plan = ReadyPlan::from_graph(space, graph).unwrap();
        let g = &plan.graph;
        let states = |j: usize| g.jobs[j].states;
        let eligible: Vec<usize> = (0..g.len()).filter(|&j| states(j) >= SAMPLE_MIN_STATES).collect();
        let (least, most) =
            (eligible.iter().map(|&j| states(j)).min().unwrap(), eligible.iter().map(|&j| states(j)).max().unwrap());
        let picked = pick_jobs(&plan, 6, u64::MAX, states);
        assert_eq!(picked.len(), 6);
        assert!(picked.windows(2).all(|w| states(w[0]) <= states(w[1]) && w[0] != w[1]), "smallest first, none twice");
        assert_eq!((states(picked[0]), states(picked[5])), (least, most), "from the smallest to the largest");
        // Log-spread: the middle picks are far from both ends.
        let mid = states(picked[3]) as f64;
        assert!(mid > (least as f64) * 2.0 && mid < most as f64 / 2.0, "{mid} within {least}..{most}");
        // The budget leaves out the jobs that hold more; more asked than there are gives all.
        let budget = most / 2;
        let small = pick_jobs(&plan, 1000, budget, states);
        assert_eq!(small.len(), eligible.iter().filter(|&&j| states(j) <= budget).count());
        assert!(pick_jobs(&plan, 3, 0, states).is_empty());
    }

    #[test]
    fn a_sampled_case_times_its_jobs_alone_on_one_thread_only() {
        let cases = vec![timed("2x4", Some(2), Some(3)), timed("2x3", None, None)];
        let timed = measure(&cases, &[1, 2], 2, &mut || {}, &mut |_, _| {}).unwrap();
        let (sampled, whole) = (&timed[0], &timed[1]);
        assert_eq!(sampled.len(), 1, "one timing, on one thread");
        assert_eq!(whole.len(), 2);
        let t = &sampled[0];
        assert_eq!(t.samples.len(), 3);
        assert!(t.samples.iter().all(|s| s.threads == 1 && s.board == "2x4" && s.features.states >= SAMPLE_MIN_STATES));
        assert!(t.samples.iter().all(|s| s.seconds > 0.0));
        assert_eq!(t.busy.len(), 3, "one busy profile per sample");
        assert!(t.gaps.is_empty(), "no solve, no time between jobs");
        let sum: f64 = t.samples.iter().map(|s| s.seconds).sum();
        assert!(t.seconds > 0.0 && t.seconds < 3.0 * sum, "{} s against {sum} s", t.seconds);
    }
}
