//! Scaling (a top layer, the body of `dab scale`): a position planned for each of several
//! thread counts, each plan run a few times in memory with the repeats interleaved across the
//! counts, and the median wall time set against the plan's prediction and the model's ceiling
//! ([`ScaleRow`]). Uses `plan`, `exec` and `report`; nothing uses it but the binary.

use crate::exec::{TraceInfo, execute};
use crate::game::Position;
use crate::plan::{Plan, PlanError, PlanOptions, PlannerError, ReadyPlan};
use crate::report::{CompareError, OneThread, ScaleRow, compare};
use crate::support::{Setting, median, quantile};

/// Why a scaling run stopped.
#[derive(Debug, thiserror::Error)]
pub enum ScaleError {
    /// The list of thread counts is empty.
    #[error("give at least one thread count")]
    NoThreads,
    /// A thread count is 0.
    #[error("thread counts must be at least 1")]
    ZeroThreads,
    /// The number of repeats is 0.
    #[error("the repeats must be at least 1")]
    ZeroRepeats,
    /// No plan could be made for a thread count.
    #[error("planning for {threads} thread(s): {source}")]
    Planner {
        /// The thread count planned for.
        threads: usize,
        /// The planner's error.
        source: PlannerError,
    },
    /// A plan failed its check.
    #[error("the plan for {threads} thread(s): {source}")]
    Plan {
        /// The thread count planned for.
        threads: usize,
        /// The check's error.
        source: PlanError,
    },
    /// A run's trace could not be compared with its plan.
    #[error("the run on {threads} thread(s): {source}")]
    Compare {
        /// The thread count run.
        threads: usize,
        /// The comparison's error.
        source: CompareError,
    },
    /// One thread was not run and the plan has no one-thread prediction to measure against.
    #[error("the plan for {threads} thread(s) has no one-thread prediction to take speedups from")]
    NoOneThread {
        /// The thread count planned for.
        threads: usize,
    },
}

impl ScaleError {
    /// The setting refused, if one was.
    pub fn setting(&self) -> Option<Setting> {
        match self {
            ScaleError::ZeroRepeats => Some(Setting::Repeats),
            ScaleError::NoThreads
            | ScaleError::ZeroThreads
            | ScaleError::Planner { .. }
            | ScaleError::Plan { .. }
            | ScaleError::Compare { .. }
            | ScaleError::NoOneThread { .. } => None,
        }
    }
}

/// The thread counts measured when none are given: the powers of two below `cores`, and
/// `cores` itself (1, 2, 4, 6 on 6 cores).
pub fn default_threads(cores: usize) -> Vec<usize> {
    crate::support::thread_counts(cores, cores)
}

/// One thread count's plan, ready to run, and what it predicts.
struct Planned {
    threads: usize,
    plan: Plan,
    ready: ReadyPlan,
    lower_bound_seconds: f64,
}

/// Plans `root` for each of `threads` (sorted, duplicates dropped) with `opts` (its thread count
/// replaced; the runs are in memory, without a store), runs each plan `repeats` times with the
/// repeats interleaved across the counts (so that each count sees the same moments of a noisy
/// machine), and gives one row per count, in increasing threads. With `probe` (this machine's
/// probe time now, in the seconds of `opts.model.probe.one_thread_seconds`, which the model was
/// carried here by), every run is predicted as `dab run` predicts it, from a probe taken just
/// before it: the plan's job costs scaled by that probe over the plan's, since on a shared
/// machine the probe behind the plans can be minutes old by the last run (measured in
/// docs/notes/prediction-history.md, "A probe before each run"). A row's prediction is the median of its runs' predictions, as
/// its time is the median of theirs. `report` gets a line per plan and per run, and a note
/// where the speedups are over the one-thread prediction because one thread is not in the list.
pub fn scale(
    root: Position,
    threads: &[usize],
    repeats: usize,
    opts: &PlanOptions,
    mut probe: Option<&mut dyn FnMut() -> f64>,
    report: &mut dyn FnMut(&str),
) -> Result<Vec<ScaleRow>, ScaleError> {
    let threads = checked_threads(threads, repeats)?;
    let plans = threads.iter().map(|&p| planned(root, p, opts, report)).collect::<Result<Vec<_>, _>>()?;
    let mut measured: Vec<Measured> = plans.iter().map(|_| Measured::with_capacity(repeats)).collect();
    let planned_probe = opts.model.probe.one_thread_seconds;
    for r in 1..=repeats {
        for (p, m) in plans.iter().zip(&mut measured) {
            let now = probe.as_mut().map(|probe| probe());
            let line = m.run(p, now, planned_probe, repeats)?;
            report(&format!("run {r} of {repeats} on {line}"));
        }
    }
    let actual: Vec<f64> = measured.iter_mut().map(|m| median(&mut m.times)).collect();
    let factor: Vec<f64> = measured.iter_mut().map(|m| median(&mut m.factors)).collect();
    let job_error: Vec<f64> =
        measured.iter_mut().zip(&factor).map(|(m, &f)| median_job_error(&mut m.jobs, f)).collect();
    let one = one_thread(&plans[0], actual[0], report)?;
    let rows = plans.iter().zip(factor).zip(actual).zip(job_error).map(|(((p, f), actual), job_error)| {
        // The one-thread prediction a row's speedup is over is scaled by that row's own probe:
        // the probes of different counts differ with the machine's load, and dividing one
        // count's scaled prediction by another's would give speedups above P from probe noise.
        let one = OneThread { predicted_seconds: one.predicted_seconds * f, ..one };
        ScaleRow::new(p.threads, p.plan.predicted_seconds * f, actual, p.lower_bound_seconds * f, job_error, one)
    });
    Ok(rows.collect())
}

/// The thread counts to measure, sorted and each once; refused where there are none, one is 0,
/// or `repeats` is 0.
fn checked_threads(threads: &[usize], repeats: usize) -> Result<Vec<usize>, ScaleError> {
    if threads.is_empty() {
        return Err(ScaleError::NoThreads);
    }
    if threads.contains(&0) {
        return Err(ScaleError::ZeroThreads);
    }
    if repeats == 0 {
        return Err(ScaleError::ZeroRepeats);
    }
    let mut threads = threads.to_vec();
    threads.sort_unstable();
    threads.dedup();
    Ok(threads)
}

/// One thread count's runs so far.
struct Measured {
    /// Each run's wall seconds.
    times: Vec<f64>,
    /// Each run's probe over the plans' probe: a run's prediction is its plan's times that, and
    /// since the factor scales every job alike, the median run prediction (and each job's
    /// median prediction) is the plan's times the median factor.
    factors: Vec<f64>,
    /// Each job's predicted time and its times in the runs: the per-job error compares the
    /// prediction with the job's median, as the makespan's error does with the runs' median, so
    /// that one noisy run of a job does not count as the model's error.
    jobs: Vec<(f64, Vec<f64>)>,
}

impl Measured {
    fn with_capacity(repeats: usize) -> Measured {
        Measured { times: Vec::with_capacity(repeats), factors: Vec::with_capacity(repeats), jobs: Vec::new() }
    }

    /// Runs plan `p` once and records it, `now` the probe taken just before (None: no probe);
    /// gives the run's report line from its thread count on.
    fn run(&mut self, p: &Planned, now: Option<f64>, planned_probe: f64, repeats: usize) -> Result<String, ScaleError> {
        let factor = now.map_or(1.0, |now| rescale(now, planned_probe));
        let run = execute(&p.ready, p.threads, false, None);
        let info = TraceInfo {
            board: Some(p.plan.board.clone()),
            threads: Some(p.threads as u32),
            value: None,
            tasks: false,
            plan: Some(p.plan.fingerprint()),
        };
        let detail = compare(&p.plan, &run.trace, &info, Some(p.threads as u32))
            .map_err(|source| ScaleError::Compare { threads: p.threads, source })?;
        let line = format!(
            "{}: {:.3} s (predicted {:.3} s{}), per-job actual / predicted median {}",
            crate::support::count_of(p.threads as u64, "thread"),
            run.seconds,
            p.plan.predicted_seconds * factor,
            now.map_or(String::new(), |now| format!(
                "; probe {now:.3} s, the plan's {planned_probe:.3} s: x{factor:.3}"
            )),
            crate::report::chart::times(detail.comparison.job_ratio_median / factor)
        );
        self.times.push(run.seconds);
        self.factors.push(factor);
        self.jobs.resize_with(detail.jobs.len(), || (0.0, Vec::with_capacity(repeats)));
        for ((predicted, runs), &(p, a)) in self.jobs.iter_mut().zip(&detail.jobs) {
            *predicted = p;
            runs.push(a);
        }
        Ok(line)
    }
}

/// The one-thread prediction as planned (unscaled), and the actual time it is compared with:
/// the first count's own where it is 1 (`actual` its median time), else that plan's prediction
/// at one thread for both, with a note to `report`.
fn one_thread(first: &Planned, actual: f64, report: &mut dyn FnMut(&str)) -> Result<OneThread, ScaleError> {
    if first.threads == 1 {
        return Ok(OneThread { predicted_seconds: first.plan.predicted_seconds, actual_seconds: actual });
    }
    let t1 = first.plan.predicted(1).ok_or(ScaleError::NoOneThread { threads: first.threads })?.makespan_seconds;
    report(&format!(
        "note: 1 is not in the thread list, so both speedups are over the one-thread prediction of the plan for \
         {} threads ({t1:.3} s)",
        first.threads
    ));
    Ok(OneThread { predicted_seconds: t1, actual_seconds: t1 })
}

/// A fresh probe's time over the one the plans were made with: what their costs are scaled by
/// (1 where either is not a finite time > 0, as `CostModel::probed` leaves a model whose probe
/// is).
fn rescale(now: f64, planned: f64) -> f64 {
    let sound = |t: f64| t.is_finite() && t > 0.0;
    if sound(now) && sound(planned) { now / planned } else { 1.0 }
}

/// The median over the jobs of |predicted - actual| / actual, each job's actual time the median
/// of its runs, as `compare` takes it from one run (jobs timed at 0 left out; none give 0).
/// Each prediction is scaled by `factor` first.
fn median_job_error(jobs: &mut [(f64, Vec<f64>)], factor: f64) -> f64 {
    median_error(jobs.iter_mut().map(|(p, runs)| (*p * factor, median(runs))))
}

/// The median of |predicted - actual| / actual over (predicted, actual) pairs, those timed at
/// 0 left out (none give 0).
fn median_error(jobs: impl Iterator<Item = (f64, f64)>) -> f64 {
    let mut errors: Vec<f64> = jobs.filter(|&(_, a)| a > 0.0).map(|(p, a)| (p - a).abs() / a).collect();
    errors.sort_by(f64::total_cmp);
    quantile(&errors, 0.5)
}

/// The plan for `threads` threads, checked, with the model's floor under its makespan.
fn planned(
    root: Position,
    threads: usize,
    opts: &PlanOptions,
    report: &mut dyn FnMut(&str),
) -> Result<Planned, ScaleError> {
    let opts = PlanOptions { threads: threads as u32, ..opts.clone() };
    let plan = crate::plan::plan(root, &opts).map_err(|source| ScaleError::Planner { threads, source })?.plan;
    let ready = plan.check().map_err(|source| ScaleError::Plan { threads, source })?;
    // The model's floor at P, as the planner predicted it (contention included): no simulated
    // schedule is shorter, but a run can be.
    let lower_bound_seconds = plan.predicted(threads as u32).map_or(0.0, |p| p.lower_bound_seconds);
    report(&format!(
        "planned for {}: {}, predicted {:.3} s, the model's floor {lower_bound_seconds:.3} s",
        crate::support::count_of(threads as u64, "thread"),
        crate::support::count_of(plan.jobs.len() as u64, "job"),
        plan.predicted_seconds
    ));
    Ok(Planned { threads, plan, ready, lower_bound_seconds })
}

#[cfg(test)]
mod tests {
    use super::{default_threads, median_job_error, rescale};

    #[test]
    fn a_fresh_probe_scales_the_plan_by_its_ratio_and_a_broken_one_leaves_it() {
        assert!((rescale(0.15, 0.12) - 1.25).abs() < 1e-12);
        assert_eq!(rescale(0.0, 0.12), 1.0);
        assert_eq!(rescale(f64::NAN, 0.12), 1.0);
        assert_eq!(rescale(0.15, 0.0), 1.0);
    }

    #[test]
    fn a_jobs_error_is_against_the_median_of_its_runs() {
        // Predicted 1.0 each; the second job had one run twice as slow, which its median drops.
        let mut jobs = vec![(1.0, vec![1.0, 1.0, 1.0]), (1.0, vec![1.0, 2.0, 1.25]), (1.0, vec![0.5, 0.5, 0.5])];
        // Errors 0, 0.2, 1: the median is 0.2.
        assert!((median_job_error(&mut jobs, 1.0) - 0.2).abs() < 1e-12);
        // Predictions doubled: errors 1, 0.6, 3.
        assert!((median_job_error(&mut jobs, 2.0) - 1.0).abs() < 1e-12);
        let mut zero = vec![(1.0, vec![0.0])];
        assert_eq!(median_job_error(&mut zero, 1.0), 0.0);
    }

    #[test]
    fn the_default_threads_are_the_powers_of_two_below_the_cores_and_the_cores() {
        assert_eq!(default_threads(1), [1]);
        assert_eq!(default_threads(2), [1, 2]);
        assert_eq!(default_threads(6), [1, 2, 4, 6]);
        assert_eq!(default_threads(16), [1, 2, 4, 8, 16]);
    }
}
