//! A calibration session: the boards to time (cases), each timed on one thread and on all
//! threads, the model fitted on the one-thread times and tested on boards it was not fitted
//! on; the contention curve, its shape from whole solves run as 1, 2, 4, ... copies at once
//! and its level from the all-threads solves' own jobs; the probe that later carries the
//! model to other machines.

use crate::game::{Board, Position};
use crate::sched::{Contention, CostModel, MODEL_FORMAT};
use crate::solver::SpaceError;
use crate::support::thread_counts;

use super::fit::{ErrorStats, Fit, errors, fit};
use super::in_solve::{SharedJob, in_solve};
use super::machine::{host, machine, physical_cores};
use super::measure::{Sample, Timing, measure};
use super::probe::{contention_curve, probe};

/// A board to time, with its grouping (None: the default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The board.
    pub board: Board,
    /// Number of groups (None: the default).
    pub groups: Option<usize>,
}

impl std::str::FromStr for Case {
    type Err = String;

    /// `3x4` or `3x4/4` (4 groups).
    fn from_str(s: &str) -> Result<Case, String> {
        let (b, g) = s.split_once('/').map_or((s, None), |(b, g)| (b, Some(g)));
        let board = b.parse().map_err(|e| format!("calibration case '{s}': {e}"))?;
        let groups = g
            .map(|g| g.parse::<usize>().map_err(|_| format!("calibration case '{s}': '{g}' is not a number of groups")))
            .transpose()?;
        Ok(Case { board, groups })
    }
}

/// The default cases: small to mid-sized boards in the groupings the planner tries.
pub const DEFAULT_CASES: &str = "3x3,2x5,2x5/2,3x4/2,3x4/3,3x4/4";
/// The default board left out of the fit, to test the model on.
pub const DEFAULT_HOLDOUT: &str = "2x6";
/// The board whose whole solve, run as 1, 2, 4, ... copies at once, gives the contention
/// curve: big enough that its partitions leave the caches, as large solves' do.
pub const CURVE_BOARD: &str = "3x4";

/// What a calibration found.
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
    /// The curve from copies of a whole solve, before the solves' own jobs set its level.
    pub copies: Contention,
    /// The fitted boards' jobs in the all-threads solves: their total time over their total
    /// time in the one-thread solves (None with one thread).
    pub in_solve_ratio: Option<f64>,
}

/// Times `cases` (each `repeats` times) on one thread and on `threads` threads, fits the model
/// on the one-thread times, measures the contention curve at 1, 2, 4, ... and `threads`
/// threads busy, probes the machine, and tests the model on `holdout` (not fitted on).
/// `report` hears each stage.
pub fn run(
    cases: &[Case],
    holdout: &[Case],
    threads: usize,
    repeats: usize,
    report: &mut dyn FnMut(&str),
) -> Result<Calibration, SpaceError> {
    let started = std::time::Instant::now();
    let counts: Vec<usize> = if threads > 1 { vec![1, threads] } else { vec![1] };
    let time = |case: &Case, report: &mut dyn FnMut(&str)| {
        let runs = measure(Position::empty(case.board), case.groups, &counts, repeats)?;
        for (&p, t) in counts.iter().zip(&runs) {
            report(&format!(
                "timed {} ({} jobs) on {p} thread(s), median of {repeats}: {:.2} s",
                case.board,
                t.samples.len(),
                t.seconds
            ));
        }
        Ok::<_, SpaceError>(runs)
    };
    let mut fitted: Vec<Vec<Timing>> = Vec::new();
    for c in cases {
        fitted.push(time(c, report)?);
    }
    let one: Vec<Sample> = fitted.iter().flat_map(|runs| runs[0].samples.clone()).collect();
    let fit = fit(&one);
    let cores = physical_cores().min(threads);
    let curve_at = thread_counts(threads, cores);
    report(&format!("timing {CURVE_BOARD} as {curve_at:?} copies at once, {repeats} times, for the contention curve"));
    let copies = contention_curve(CURVE_BOARD, None, &curve_at, repeats)?;
    let shared: Vec<SharedJob> = fitted
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
        .collect();
    let contention = in_solve(&copies, threads, &shared);
    let in_solve_ratio = (!shared.is_empty())
        .then(|| shared.iter().map(|j| j.shared).sum::<f64>() / shared.iter().map(|j| j.alone).sum::<f64>().max(1e-12));
    if let Some(r) = in_solve_ratio {
        report(&format!(
            "copies at once: {}; the solves' own jobs on {threads} threads took {r:.3}x their one-thread time: \
             contention with {threads} busy {:.3}x",
            describe_curve(&copies),
            contention.factor(threads)
        ));
    }
    let probe = probe(threads);
    report(&format!(
        "probe ({}): {:.3} s alone, {:.3} s with {threads} busy",
        probe.workload, probe.one_thread_seconds, probe.all_threads_seconds
    ));
    let mut model = CostModel {
        format: MODEL_FORMAT,
        machine: machine(),
        host: host(),
        cores: cores as u32,
        hardware_threads: threads as u32,
        calibrate_seconds: 0.0,
        per_job_ns: 0.0,
        per_state_ns: 0.0,
        per_row_ns: 0.0,
        per_outer_move_ns: 0.0,
        per_inner_move_ns: 0.0,
        per_run_inner_move_ns: 0.0,
        per_lane_inner_move_ns: 0.0,
        per_input_byte_ns: 0.0,
        per_outer_pass_ns: 0.0,
        per_inner_pass_ns: 0.0,
        per_turned_move_ns: 0.0,
        contention,
        store_per_file_ns: 0.0,
        store_per_byte_ns: 0.0,
        store_read_per_byte_ns: 0.0,
        probe,
    };
    model.set_coefficients(fit.coefficients);
    let mut stats = Vec::new();
    let mut samples = Vec::new();
    let mut record = |runs: Vec<Timing>, fitted_on: bool, stats: &mut Vec<ErrorStats>| {
        for (&p, t) in counts.iter().zip(runs) {
            stats.push(errors(&model, &t, p, fitted_on));
            samples.extend(t.samples);
        }
    };
    for runs in fitted {
        record(runs, true, &mut stats);
    }
    for c in holdout {
        record(time(c, report)?, false, &mut stats);
    }
    model.calibrate_seconds = started.elapsed().as_secs_f64();
    Ok(Calibration { model, fit, stats, samples, copies, in_solve_ratio })
}

/// A curve for people, busy threads: slowdown of each, from one thread: `1: 1.000x, 2: 1.053x`.
pub fn describe_curve(curve: &Contention) -> String {
    let points = curve.0.iter().filter(|&&(t, _)| t > 1).map(|(t, f)| format!(", {t}: {f:.3}x"));
    std::iter::once("1: 1.000x".to_string()).chain(points).collect()
}
