//! A calibration session: the boards to time (cases), each timed on one thread and on all
//! threads, the model fitted on the one-thread times and tested on boards it was not fitted
//! on; the contention curve, its shape from whole solves run as 1, 2, 4, ... copies at once
//! and its level from the all-threads solves' own jobs; the probe that later carries the
//! model to other machines.

use crate::game::{Board, Line, LineSet, Position};
use crate::sched::{Contention, CostModel, MODEL_FORMAT};
use crate::solver::SpaceError;
use crate::support::{last_level_cache_bytes, thread_counts};

use super::fit::{ErrorStats, Fit, between_jobs, errors, fit};
use super::in_solve::{SharedJob, in_solve};
use super::machine::{host, machine, physical_cores};
use super::measure::{Sample, Timed, Timing, measure};
use super::probe::{Pace, PaceSpread, contention_curve, probe};

/// A board to time, from its empty position or from one with some lines drawn, with its
/// grouping (None: the default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The board.
    pub board: Board,
    /// Lines left undrawn (None: the empty board), so that a big board gives a solve of a
    /// chosen size; which are drawn: [`Case::root`].
    pub undrawn: Option<usize>,
    /// Number of groups (None: the default).
    pub groups: Option<usize>,
    /// Time only this many of its jobs, each alone from stand-in inputs, on one thread (None:
    /// solve it whole): the jobs of a board too long to solve in a calibration, 3x5's wide
    /// rows and levels of gigabytes, which no whole solve of seconds has.
    pub sampled: Option<usize>,
}

impl Case {
    /// The position solved: the empty board, or `undrawn` lines left. The drawn lines are whole
    /// orbits of the board's symmetries, spread over the board, so that the solve keeps the
    /// symmetry (and the kernel's turned rows) of a whole board; where no union of orbits
    /// has the size asked, lines evenly spaced in the external order.
    pub fn root(&self) -> Position {
        let Some(undrawn) = self.undrawn else { return Position::empty(self.board) };
        let lines = self.board.lines();
        let drawn = lines - undrawn;
        let drawn = symmetric_lines(self.board, drawn).unwrap_or_else(|| {
            (0..lines).filter(|i| (i + 1) * drawn / lines > i * drawn / lines).map(|i| Line(i as u16)).collect()
        });
        Position { board: self.board, drawn }
    }
}

/// `count` lines made of whole orbits of `board`'s symmetries, the orbits taken in a
/// low-discrepancy order (golden-ratio steps over them in line order) so they spread over the
/// board; None where the orbits so taken cannot make exactly `count`.
fn symmetric_lines(board: Board, count: usize) -> Option<LineSet> {
    let symmetries = board.symmetries();
    let mut orbits: Vec<LineSet> = Vec::new();
    for i in 0..board.lines() {
        let one = LineSet::EMPTY.with(Line(i as u16));
        if orbits.iter().all(|o| !o.contains(Line(i as u16))) {
            orbits.push(symmetries.iter().fold(LineSet::EMPTY, |acc, s| acc.union(s.apply(one))));
        }
    }
    let n = orbits.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| ((a as f64 * 0.618_033_988_75) % 1.0).total_cmp(&((b as f64 * 0.618_033_988_75) % 1.0)));
    let mut drawn = LineSet::EMPTY;
    for o in order {
        let left = count - drawn.len() as usize;
        if left == 0 {
            break;
        }
        if orbits[o].len() as usize <= left {
            drawn = drawn.union(orbits[o]);
        }
    }
    (drawn.len() as usize == count).then_some(drawn)
}

impl std::fmt::Display for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.board)?;
        if let Some(u) = self.undrawn {
            write!(f, "@{u}")?;
        }
        if let Some(g) = self.groups {
            write!(f, "/{g}")?;
        }
        if let Some(n) = self.sampled {
            write!(f, "~{n}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Case {
    type Err = String;

    /// `3x4`, `3x4/4` (4 groups), `3x5@32` (32 lines left undrawn), `3x5@32/3`, or any of
    /// them with `~N`: N of its jobs timed alone (`3x5/3~12`).
    fn from_str(s: &str) -> Result<Case, String> {
        let (rest, n) = s.split_once('~').map_or((s, None), |(c, n)| (c, Some(n)));
        let sampled = n
            .map(|n| match n.parse::<usize>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!("calibration case '{s}': '{n}' is not a number of jobs to time (1 or more)")),
            })
            .transpose()?;
        let (rest, g) = rest.split_once('/').map_or((rest, None), |(b, g)| (b, Some(g)));
        let (b, u) = rest.split_once('@').map_or((rest, None), |(b, u)| (b, Some(u)));
        let board: Board = b.parse().map_err(|e| format!("calibration case '{s}': {e}"))?;
        let groups = g
            .map(|g| g.parse::<usize>().map_err(|_| format!("calibration case '{s}': '{g}' is not a number of groups")))
            .transpose()?;
        let undrawn = u
            .map(|u| match u.parse::<usize>() {
                Ok(n) if (1..=board.lines()).contains(&n) => Ok(n),
                _ => Err(format!(
                    "calibration case '{s}': '{u}' is not a number of undrawn lines from 1 to {} (the lines of {board})",
                    board.lines()
                )),
            })
            .transpose()?;
        Ok(Case { board, undrawn, groups, sampled })
    }
}

/// The default cases: small to mid-sized boards in the groupings the planner tries (each named,
/// so that a case does not change with the default grouping), and twelve jobs each of the 3x5
/// solve in three groups and in two and of the 4x4 solve in three, timed alone, for the wide
/// rows, turned moves and gigabyte levels that no whole solve of seconds has (what they
/// changed: `docs/notes/cost-model-history.md`).
pub const DEFAULT_CASES: &str = "3x3/2,2x5/3,2x5/2,3x4/2,3x4/3,3x4/4,3x5@32/3,3x5@32/2,3x5/3~12,3x5/2~12,4x4/3~12";
/// The default board left out of the fit, to test the model on.
pub const DEFAULT_HOLDOUT: &str = "2x6";
/// The board whose whole solve, run as 1, 2, 4, ... copies at once, gives the contention
/// curve: big enough that its partitions leave the caches, as large solves' do.
pub const CURVE_BOARD: &str = "3x4";

/// One case timed at one thread count.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseTime {
    /// The case, as typed (`3x5/3~12`).
    pub case: String,
    /// The thread count.
    pub threads: usize,
    /// Its jobs timed.
    pub jobs: usize,
    /// Whether its jobs were timed each alone (a sampled case) rather than in a whole solve.
    pub sampled: bool,
    /// Median wall seconds over the rounds.
    pub seconds: f64,
}

/// The worker's time between jobs, fitted on the one-thread solves' gaps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BetweenJobs {
    /// Nanoseconds after every job.
    pub ns: f64,
    /// Nanoseconds per byte of output given back.
    pub per_byte_ns: f64,
    /// The gaps' share of the whole solves' time (outside every job's time).
    pub share: f64,
}

/// What a calibration is doing, as it starts each long stage or ends a round.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stage<'a> {
    /// The cases are about to be timed at these thread counts, in rounds over them all.
    Timing {
        /// Cases, fitted and held out.
        cases: usize,
        /// Thread counts.
        counts: &'a [usize],
        /// Rounds.
        repeats: usize,
    },
    /// A round over every case ended.
    Round {
        /// Its number, from 1.
        round: usize,
        /// Rounds in all.
        of: usize,
        /// The thread counts each case was solved on.
        counts: &'a [usize],
        /// Its wall seconds.
        seconds: f64,
    },
    /// The contention curve's board is about to run as this many copies at once.
    Curve {
        /// The board.
        board: &'static str,
        /// Copies at once, in turn.
        copies: &'a [usize],
        /// Rounds of them.
        repeats: usize,
    },
}

/// What a calibration measured and fitted.
pub struct Calibration {
    /// The fitted model, with its contention curve and probe (no store terms: the caller times
    /// the store where it will be).
    pub model: CostModel,
    /// The fit behind it.
    pub fit: Fit,
    /// Per board and thread count, the model's errors.
    pub stats: Vec<ErrorStats>,
    /// Every timed job.
    pub samples: Vec<Sample>,
    /// Every case at every thread count, fitted ones first.
    pub timings: Vec<CaseTime>,
    /// The worker's time between jobs.
    pub between: BetweenJobs,
    /// The curve from copies of a whole solve, before the solves' own jobs set its level.
    pub copies: Contention,
    /// The fitted boards' jobs in the all-threads solves: their total time over their total
    /// time in the one-thread solves (None with one thread).
    pub in_solve_ratio: Option<f64>,
    /// The machine's pace (the probe's workload before each case of each round), None without
    /// paces.
    pub pace: Option<PaceSpread>,
    /// The probe's own one-thread seconds at its moment, before it was carried to the pace.
    pub probe_now_seconds: f64,
}

/// Times `cases` and `holdout` on one thread and on `threads` threads, in `repeats` rounds over
/// them all, fits the model on the one-thread times of `cases`, measures the contention curve
/// at 1, 2, 4, ... and `threads` threads busy, probes the machine, and tests the model on
/// `holdout` (not fitted on). `stage` hears each stage as it starts.
pub fn run(
    cases: &[Case],
    holdout: &[Case],
    threads: usize,
    repeats: usize,
    stage: &mut dyn FnMut(Stage),
) -> Result<Calibration, SpaceError> {
    let started = std::time::Instant::now();
    let counts: Vec<usize> = if threads > 1 { vec![1, threads] } else { vec![1] };
    let mut pace = Pace::new();
    // The held-out cases are timed in the same rounds as the fitted ones, at the same moments.
    let all: Vec<Timed> = cases
        .iter()
        .chain(holdout)
        .map(|c| Timed { name: c.to_string(), root: c.root(), groups: c.groups, sampled: c.sampled })
        .collect();
    stage(Stage::Timing { cases: all.len(), counts: &counts, repeats });
    let of = repeats.max(1);
    let mut timed = measure(&all, &counts, repeats, &mut || pace.take(), &mut |round, seconds| {
        stage(Stage::Round { round, of, counts: &counts, seconds })
    })?;
    let timings = case_times(&all, &counts, &timed);
    let held = timed.split_off(cases.len());
    let fitted = timed;
    let one: Vec<Sample> = fitted.iter().flat_map(|runs| runs[0].samples.clone()).collect();
    let fit = fit(&one);
    let between = between_jobs_of(&fitted, cases, repeats);
    let cores = physical_cores().min(threads);
    let curve_at = thread_counts(threads, cores);
    stage(Stage::Curve { board: CURVE_BOARD, copies: &curve_at, repeats });
    let copies = contention_curve(CURVE_BOARD, None, &curve_at, repeats)?;
    let shared = shared_jobs(&fitted);
    let contention = in_solve(&copies, threads, &shared);
    let in_solve_ratio = (!shared.is_empty())
        .then(|| shared.iter().map(|j| j.shared).sum::<f64>() / shared.iter().map(|j| j.alone).sum::<f64>().max(1e-12));
    let mut probe = probe(threads);
    let probe_now_seconds = probe.one_thread_seconds;
    pace.carry(&mut probe);
    let mut model = CostModel {
        format: MODEL_FORMAT,
        machine: machine(),
        host: host(),
        cores: cores as u32,
        hardware_threads: threads as u32,
        calibrate_seconds: 0.0,
        simd: crate::solver::Simd::current(),
        coefficients: fit.coefficients,
        cache_bytes: last_level_cache_bytes(),
        contention,
        store_per_file_ns: 0.0,
        store_per_byte_ns: 0.0,
        store_read_per_byte_ns: 0.0,
        between_jobs_ns: between.ns,
        release_per_byte_ns: between.per_byte_ns,
        probe,
    };
    let runs = fitted.into_iter().map(|r| (r, true)).chain(held.into_iter().map(|r| (r, false)));
    let (mut stats, mut samples) = (Vec::new(), Vec::new());
    for (runs, fitted_on) in runs {
        for (&p, t) in counts.iter().zip(runs) {
            stats.push(errors(&model, &t, p, fitted_on));
            samples.extend(t.samples);
        }
    }
    model.calibrate_seconds = started.elapsed().as_secs_f64();
    let pace = pace.spread();
    Ok(Calibration { model, fit, stats, samples, timings, between, copies, in_solve_ratio, pace, probe_now_seconds })
}

/// Each case's median time at each count.
fn case_times(all: &[Timed], counts: &[usize], timed: &[Vec<Timing>]) -> Vec<CaseTime> {
    let mut out = Vec::new();
    for (case, runs) in all.iter().zip(timed) {
        for (&threads, t) in counts.iter().zip(runs) {
            out.push(CaseTime {
                case: case.name.clone(),
                threads,
                jobs: t.samples.len(),
                sampled: case.sampled.is_some(),
                seconds: t.seconds,
            });
        }
    }
    out
}

/// The worker's time between jobs from the fitted cases' one-thread gaps, and their share of
/// the whole solves' time.
fn between_jobs_of(fitted: &[Vec<Timing>], cases: &[Case], repeats: usize) -> BetweenJobs {
    let gaps: Vec<(u64, f64)> = fitted.iter().flat_map(|runs| runs[0].gaps.iter().copied()).collect();
    let (ns, per_byte_ns) = between_jobs(&gaps);
    let gap_sum = gaps.iter().map(|g| g.1).sum::<f64>();
    // Whole solves only: a sampled case's jobs ran alone, with no time between them.
    let time_sum = fitted
        .iter()
        .zip(cases)
        .filter(|(_, case)| case.sampled.is_none())
        .map(|(runs, _)| runs[0].seconds * repeats.max(1) as f64)
        .sum::<f64>();
    BetweenJobs { ns, per_byte_ns, share: gap_sum / time_sum.max(1e-12) }
}

/// Every job of the fitted whole solves, alone (one thread) against shared (all threads).
fn shared_jobs(fitted: &[Vec<Timing>]) -> Vec<SharedJob> {
    fitted
        .iter()
        .filter(|runs| runs.len() > 1)
        .flat_map(|runs| {
            let (one, all) = (&runs[0], &runs[runs.len() - 1]);
            one.samples.iter().zip(&all.samples).zip(&all.busy).map(|((a, s), busy)| SharedJob {
                alone: a.seconds,
                shared: s.seconds,
                busy: busy.clone(),
            })
        })
        .collect()
}

/// A curve for people, busy threads: slowdown of each, from one thread: `1: 1.000x, 2: 1.053x`.
pub fn describe_curve(curve: &Contention) -> String {
    let points = curve.0.iter().filter(|&&(t, _)| t > 1).map(|(t, f)| format!(", {t}: {f:.3}x"));
    std::iter::once("1: 1.000x".to_string()).chain(points).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_names_its_board_undrawn_lines_and_groups_and_reads_back() {
        for text in ["3x4", "3x4/4", "3x5@32", "3x5@32/3", "4x4@20", "3x5/3~12", "4x4@30~3"] {
            let case: Case = text.parse().unwrap();
            assert_eq!(case.to_string(), text);
        }
        for (bad, says) in [
            ("3x5@0", "'0' is not a number of undrawn lines from 1 to 38"),
            ("3x5@39", "'39' is not a number of undrawn lines from 1 to 38"),
            ("3x5@x/3", "'x' is not a number of undrawn lines"),
            ("3x5@32/y", "'y' is not a number of groups"),
            ("0x5@3", "calibration case '0x5@3'"),
            ("3x5/3~0", "'0' is not a number of jobs to time"),
            ("3x5/3~x", "'x' is not a number of jobs to time"),
        ] {
            let err = bad.parse::<Case>().unwrap_err();
            assert!(err.contains(says) && err.contains(bad), "{err}");
        }
    }

    #[test]
    fn a_case_s_root_leaves_the_lines_asked_and_keeps_the_board_s_symmetry() {
        let symmetric = |p: Position| p.board.symmetries().iter().all(|s| s.apply(p.drawn) == p.drawn);
        for text in ["3x5@32", "3x5@30", "3x5@34", "4x4@24", "3x4@21", "5x5@32"] {
            let case: Case = text.parse().unwrap();
            let root = case.root();
            assert_eq!(root.undrawn().len() as usize, case.undrawn.unwrap(), "{text}");
            assert!(symmetric(root), "{text} lost the board's symmetry");
        }
        // One line drawn on 2x4, whose centre is a dot, so no orbit has one line: evenly spaced.
        let root = "2x4@21".parse::<Case>().unwrap().root();
        assert_eq!(root.undrawn().len(), 21);
        assert!(!symmetric(root));
        assert_eq!(
            Case { board: "2x2".parse().unwrap(), undrawn: None, groups: None, sampled: None }.root().drawn.len(),
            0
        );
    }
}
