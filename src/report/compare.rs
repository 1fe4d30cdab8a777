//! Predicted against actual: a run's trace ([`crate::exec::read_trace`]) checked against its
//! plan, and the makespan error and the per-job error distribution, error = |predicted -
//! actual| / actual. The predicted schedule is the plan's graph replayed by the simulator on
//! the run's thread count ([`crate::plan::simulate`]). A plan of cluster tasks is compared
//! task by task with the trace of a cluster run (`dab cluster-trace`): its predicted schedule is
//! the task graph on the run's nodes ([`crate::plan::run_tasks`]). A trace that names the plan
//! its run ran (its fingerprint, [`Plan::fingerprint`]) is compared with that plan only: a plan
//! rewritten since (a later `dab plan` into the same folder) predicts another run.

use std::collections::HashMap;

use serde::Serialize;

use crate::exec::{TraceError, TraceInfo, TraceRow};
use crate::game::Value;
use crate::plan::{Plan, TASK_TICKS_PER_SECOND, run_tasks, sim_options, simulate};
use crate::sched::Graph;
use crate::sched::Span;
use crate::solver::PartitionKey;
use crate::support::quantile;

/// Why a trace cannot be compared with its plan.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// The trace could not be read; [`compare`] never returns it, it is for callers that read
    /// the trace and compare under one error.
    #[error("{0}")]
    Trace(#[from] TraceError),
    /// The trace is not of this plan: another board, a job the plan lacks, a job twice, or
    /// plan jobs missing (what is wrong).
    #[error("the trace does not match the plan: {0}")]
    Mismatch(String),
    /// The trace is of a run of another plan: the fingerprint the trace names, and the plan's.
    #[error(
        "the trace is of a run of plan {trace}, and this plan is {plan}: not the plan that ran (rewritten or changed \
         since the run), whose prediction is not the run's; compare the trace with the plan its run ran"
    )]
    OtherPlan {
        /// The fingerprint of the plan the run ran, as the trace names it.
        trace: String,
        /// The fingerprint of the plan given.
        plan: String,
    },
    /// The plan's costs are not in ns, so they cannot be compared with seconds (the unit
    /// they are in).
    #[error("the plan's costs are in {0}, not ns: make it with a cost model (dab plan) to compare times")]
    Unit(String),
    /// The plan's graph could not be built or simulated (the reason).
    #[error("the plan: {0}")]
    Plan(String),
}

/// Runs shorter than this are too short to compare with their prediction: thread start-up,
/// the clock's resolution and the first touches of memory, which the cost model does not price,
/// are as long as the work it does price.
pub(crate) const MIN_COMPARED_SECONDS: f64 = 0.05;

/// The summary `dab compare --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The plan's board, `MxN`.
    pub board: String,
    /// What the trace times: `job` (a run of the plan's jobs) or `task` (a cluster run of its
    /// tasks; `threads` are then nodes).
    pub unit: &'static str,
    /// Threads the prediction is simulated on: as given, else the trace's count, else its
    /// highest thread + 1.
    pub threads: u32,
    /// The plan's fingerprint ([`Plan::fingerprint`]).
    pub plan_fingerprint: String,
    /// The fingerprint of the plan the trace's run ran, the same as `plan_fingerprint`
    /// (another is refused); None for a trace written before traces named their plan, which is
    /// compared unchecked.
    pub trace_plan_fingerprint: Option<String>,
    /// The root's value, from the trace's first line.
    pub value: Option<Value>,
    /// Jobs in the plan.
    pub job_count: usize,
    /// Cluster tasks compared (a task trace only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_count: Option<usize>,
    /// The simulated makespan, seconds.
    pub predicted_seconds: f64,
    /// The latest job end in the trace, seconds.
    pub actual_seconds: f64,
    /// (actual - predicted) / actual of the makespan: positive when the run was slower than
    /// predicted, as in `dab scale`.
    pub error: f64,
    /// actual / predicted makespan: above 1, the run took longer than predicted.
    pub actual_over_predicted: f64,
    /// The run took less than [`MIN_COMPARED_SECONDS`]: its error says little about the model.
    pub too_short: bool,
    /// Jobs (tasks) with a positive actual time: those the relative errors are over.
    pub timed_count: usize,
    /// Median per-job (per-task for a task trace) error, over those with a positive actual
    /// time (0 when none has).
    pub job_error_median: f64,
    /// 90th percentile of the same per-job errors.
    pub job_error_p90: f64,
    /// Median over the jobs (tasks) with a positive actual time of actual / predicted time (0
    /// when none has): the convention reports print, "0.91x".
    pub job_ratio_median: f64,
    /// 10th percentile of the same per-job ratios.
    pub job_ratio_p10: f64,
    /// 90th percentile of the same per-job ratios.
    pub job_ratio_p90: f64,
    /// Median of |predicted - actual| seconds over every job (task): what is left where the
    /// actual times are too coarse for a ratio (Slurm records whole seconds).
    pub abs_error_median_seconds: f64,
    /// 90th percentile of the same.
    pub abs_error_p90_seconds: f64,
}

/// The comparison with what the charts need: both schedules and every job's pair of times.
pub struct Detail {
    /// The summary.
    pub comparison: Comparison,
    /// The names of what was timed (jobs, or tasks), by index.
    pub names: Vec<String>,
    /// Predicted spans, seconds.
    pub predicted: Vec<(usize, u32, f64, f64)>,
    /// Actual spans by plan job: (job, thread, start, end).
    pub actual: Vec<(usize, u32, f64, f64)>,
    /// Per job: (predicted, actual) seconds.
    pub jobs: Vec<(f64, f64)>,
    /// Per job, its level: what colours it in the charts.
    pub levels: Vec<u32>,
    /// What a level counts: lines drawn (jobs of partitions), or the depth in the task graph.
    pub level: &'static str,
}

/// Compares a run's trace with its plan. `threads` overrides the trace's own count.
pub fn compare(
    plan: &Plan,
    trace: &[TraceRow],
    info: &TraceInfo,
    threads: Option<u32>,
) -> Result<Detail, CompareError> {
    compare_with(plan, trace, info, threads, 0)
}

/// [`compare`] with `overhead` ticks added to every predicted job (a cluster's dispatch
/// latency, as `dab cluster-trace` fits it).
pub fn compare_with(
    plan: &Plan,
    trace: &[TraceRow],
    info: &TraceInfo,
    threads: Option<u32>,
    overhead: u64,
) -> Result<Detail, CompareError> {
    comparable(plan, info)?;
    let graph = plan.graph().map_err(|e| CompareError::Plan(e.to_string()))?;
    let actual = matched(&graph, trace, "job")?;
    let p = threads.or(info.threads).unwrap_or_else(|| actual.iter().map(|r| r.thread as u32 + 1).max().unwrap_or(1));
    let run = simulate(plan, &graph, p, overhead).map_err(|e| CompareError::Plan(e.to_string()))?;
    // A job's predicted time is its simulated span (its cost and any reading back) without the
    // dispatch overhead and the worker's time after it, which a trace's job times do not hold.
    let opts = sim_options(plan, p, overhead);
    let mut span = vec![0; graph.len()];
    for s in &run.spans {
        let after = opts.after(graph.jobs[s.job as usize].bytes);
        span[s.job as usize] =
            (s.end - s.start).saturating_sub(overhead.saturating_add(u64::try_from(after).unwrap_or(u64::MAX)));
    }
    let times: Vec<f64> = span.iter().map(|&t| t as f64 / 1e9).collect();
    Ok(detail(plan, &graph, &actual, info, p, &run, 1e9, &times, "job"))
}

/// Compares the trace of a cluster run of `plan`'s tasks (`dab cluster-trace`) with the task
/// graph simulated on `nodes` nodes (default: as the trace says) with `overhead_seconds` of
/// dispatch a task (default: the plan's). A task's predicted time is its predicted seconds
/// less the dispatch, which Slurm's start and end times do not hold.
pub fn compare_tasks(
    plan: &Plan,
    trace: &[TraceRow],
    info: &TraceInfo,
    nodes: Option<u32>,
    overhead_seconds: Option<f64>,
) -> Result<Detail, CompareError> {
    comparable(plan, info)?;
    if plan.tasks.is_empty() {
        return Err(CompareError::Mismatch("the trace is of cluster tasks and the plan has none".into()));
    }
    if let Some(s) = overhead_seconds.filter(|s| !(s.is_finite() && *s >= 0.0)) {
        return Err(CompareError::Plan(format!("a dispatch overhead of {s} s: it must be finite seconds >= 0")));
    }
    let graph = plan.task_graph(overhead_seconds).map_err(|e| CompareError::Plan(e.to_string()))?;
    let actual = matched(&graph, trace, "task")?;
    let p = nodes.or(info.threads).unwrap_or_else(|| actual.iter().map(|r| r.thread as u32 + 1).max().unwrap_or(1));
    let run = run_tasks(&graph, p, true).map_err(|e| CompareError::Plan(e.to_string()))?;
    let cluster = plan.cluster.as_ref().expect("a task graph has its cluster");
    let dispatch = overhead_seconds.unwrap_or(cluster.overhead_seconds);
    let times: Vec<f64> =
        graph.jobs.iter().map(|j| (j.cost as f64 / TASK_TICKS_PER_SECOND - dispatch).max(0.0)).collect();
    Ok(detail(plan, &graph, &actual, info, p, &run, TASK_TICKS_PER_SECOND, &times, "task"))
}

/// A plan of the trace's board, the plan the trace's run ran where the trace names one, and
/// whose times are seconds (costs in ns).
fn comparable(plan: &Plan, info: &TraceInfo) -> Result<(), CompareError> {
    if let Some(b) = info.board.as_ref().filter(|b| **b != plan.board) {
        return Err(CompareError::Mismatch(format!("the trace is of {b}, the plan of {}", plan.board)));
    }
    if let Some(trace) = info.plan.as_ref() {
        let fingerprint = plan.fingerprint();
        if *trace != fingerprint {
            return Err(CompareError::OtherPlan { trace: trace.clone(), plan: fingerprint });
        }
    }
    if plan.unit != "ns" {
        return Err(CompareError::Unit(plan.unit.clone()));
    }
    Ok(())
}

/// The trace's row of every job (task) of `graph`, in graph order: each once, none unknown.
fn matched<'t>(graph: &Graph, trace: &'t [TraceRow], unit: &str) -> Result<Vec<&'t TraceRow>, CompareError> {
    let index: HashMap<&str, usize> = graph.jobs.iter().enumerate().map(|(i, j)| (j.name.as_str(), i)).collect();
    let mut actual: Vec<Option<&TraceRow>> = vec![None; graph.len()];
    for row in trace {
        let &i = index
            .get(row.job.as_str())
            .ok_or_else(|| CompareError::Mismatch(format!("{unit} '{}' is not in the plan", row.job)))?;
        if actual[i].replace(row).is_some() {
            return Err(CompareError::Mismatch(format!("{unit} '{}' appears twice", row.job)));
        }
    }
    if let Some(i) = actual.iter().position(Option::is_none) {
        let missing = actual.iter().filter(|a| a.is_none()).count();
        return Err(CompareError::Mismatch(format!(
            "{missing} plan {unit}(s) missing from the trace, the first '{}'",
            graph.jobs[i].name
        )));
    }
    Ok(actual.into_iter().map(|a| a.expect("checked")).collect())
}

/// The comparison of `actual` with the simulated `run` (ticks of `per_second`) and each
/// job's (task's) predicted seconds `times`.
#[allow(clippy::too_many_arguments)]
fn detail(
    plan: &Plan,
    graph: &Graph,
    actual: &[&TraceRow],
    info: &TraceInfo,
    p: u32,
    run: &crate::sched::Run,
    per_second: f64,
    times: &[f64],
    unit: &'static str,
) -> Detail {
    let secs = |ticks: u64| ticks as f64 / per_second;
    let predicted_seconds = secs(run.row.makespan);
    let actual_seconds = actual.iter().map(|r| r.end).fold(0.0, f64::max);
    let jobs: Vec<(f64, f64)> = times.iter().zip(actual).map(|(&t, r)| (t, r.end - r.start)).collect();
    let mut errors: Vec<f64> = jobs.iter().filter(|(_, a)| *a > 0.0).map(|(p, a)| (p - a).abs() / a).collect();
    errors.sort_by(f64::total_cmp);
    // A job predicted to take no time and taking some has no finite ratio: it sorts last.
    let mut ratios: Vec<f64> =
        jobs.iter().filter(|(_, a)| *a > 0.0).map(|(p, a)| if *p > 0.0 { a / p } else { f64::INFINITY }).collect();
    ratios.sort_by(f64::total_cmp);
    let mut abs: Vec<f64> = jobs.iter().map(|(p, a)| (p - a).abs()).collect();
    abs.sort_by(f64::total_cmp);
    let comparison = Comparison {
        board: plan.board.clone(),
        unit,
        threads: p,
        plan_fingerprint: plan.fingerprint(),
        trace_plan_fingerprint: info.plan.clone(),
        value: info.value,
        job_count: plan.jobs.len(),
        task_count: (unit == "task").then_some(graph.len()),
        predicted_seconds,
        actual_seconds,
        error: (actual_seconds - predicted_seconds) / actual_seconds.max(1e-12),
        actual_over_predicted: actual_seconds / predicted_seconds.max(1e-12),
        too_short: actual_seconds < MIN_COMPARED_SECONDS,
        timed_count: errors.len(),
        job_error_median: quantile(&errors, 0.5),
        job_error_p90: quantile(&errors, 0.9),
        job_ratio_median: quantile(&ratios, 0.5),
        job_ratio_p10: quantile(&ratios, 0.1),
        job_ratio_p90: quantile(&ratios, 0.9),
        abs_error_median_seconds: quantile(&abs, 0.5),
        abs_error_p90_seconds: quantile(&abs, 0.9),
    };
    let predicted =
        run.spans.iter().map(|&Span { job, proc, start, end }| (job as usize, proc, secs(start), secs(end))).collect();
    let actual = actual.iter().enumerate().map(|(i, r)| (i, r.thread as u32, r.start, r.end)).collect();
    let names = graph.jobs.iter().map(|j| j.name.clone()).collect();
    let (levels, level) = levels(plan, graph, unit);
    Detail { comparison, names, predicted, actual, jobs, levels, level }
}

/// Each job's level and what it counts: for the jobs of partitions, the lines their key has
/// drawn; for cluster tasks (or a key that does not read), the depth in the graph.
fn levels(plan: &Plan, graph: &Graph, unit: &str) -> (Vec<u32>, &'static str) {
    let drawn: Option<Vec<u32>> = (unit == "job" && plan.jobs.len() == graph.len())
        .then(|| plan.jobs.iter().map(|j| j.key.parse::<PartitionKey>().ok().map(|k| k.total() as u32)).collect())
        .flatten();
    match drawn {
        Some(levels) => (levels, "lines drawn"),
        None => (
            graph.depths(),
            if unit == "task" { "task depth (tasks before it on the longest chain)" } else { "job depth" },
        ),
    }
}

/// One job's figures in `dab compare --json` and `dab run --json`.
#[derive(Clone, Debug, Serialize)]
pub struct JobFigures<'a> {
    /// The job's name in the plan.
    pub name: &'a str,
    /// Its simulated time, seconds.
    pub predicted_seconds: f64,
    /// Its time in the trace, seconds.
    pub actual_seconds: f64,
    /// (actual - predicted) / actual; none where the trace timed it at 0.
    pub error: Option<f64>,
}

/// What `dab compare --json` prints: the comparison's fields, then every job's figures in plan
/// order.
#[derive(Clone, Debug, Serialize)]
pub struct CompareJson<'a> {
    /// The makespan and the per-job error distribution.
    #[serde(flatten)]
    pub comparison: &'a Comparison,
    /// Every job.
    pub jobs: Vec<JobFigures<'a>>,
}

impl Detail {
    /// The comparison with every job's (task's) figures, in plan order.
    pub fn to_json(&self) -> CompareJson<'_> {
        let jobs = self
            .names
            .iter()
            .zip(&self.jobs)
            .map(|(name, &(p, a))| JobFigures {
                name,
                predicted_seconds: p,
                actual_seconds: a,
                error: (a > 0.0).then(|| (a - p) / a),
            })
            .collect();
        CompareJson { comparison: &self.comparison, jobs }
    }
}

impl Comparison {
    /// The makespan against the prediction in words: "actual 1.33x the prediction (slower than
    /// predicted)".
    pub fn direction(&self) -> String {
        if self.too_short {
            return format!(
                "too short to compare (under {MIN_COMPARED_SECONDS} s, thread start-up, the clock and the first \
                 touches of memory weigh as much as the work the model prices; compare a larger board)"
            );
        }
        let r = self.actual_over_predicted;
        let how = if (r - 1.0).abs() < 0.005 {
            "as predicted"
        } else if r > 1.0 {
            "slower than predicted"
        } else {
            "faster than predicted"
        };
        format!("actual {} the prediction ({how})", crate::report::chart::times(r))
    }
}

impl Comparison {
    /// What ran it: "3 nodes" for a cluster's tasks, else "2 threads".
    pub fn procs(&self) -> String {
        let unit = if self.task_count.is_some() { "node" } else { "thread" };
        crate::support::count_of(u64::from(self.threads), unit)
    }
}

impl std::fmt::Display for Comparison {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (procs, count) = (self.procs(), self.task_count.unwrap_or(self.job_count));
        writeln!(
            f,
            "{} on {procs}: predicted {:.3} s, actual {:.3} s: {}",
            self.board,
            self.predicted_seconds,
            self.actual_seconds,
            self.direction()
        )?;
        let times = crate::report::chart::times;
        let relative = if self.timed_count == 0 {
            "none timed above 0 s".to_string()
        } else {
            format!(
                "actual / predicted median {}, 10th to 90th percentile {} to {} over the {} timed above 0 s",
                times(self.job_ratio_median),
                times(self.job_ratio_p10),
                times(self.job_ratio_p90),
                crate::support::thousands(self.timed_count as u64)
            )
        };
        write!(
            f,
            "per-{} error of {}: {relative}; absolute: median {:.3} s, 90th percentile {:.3} s",
            self.unit,
            crate::support::count_of(count as u64, self.unit),
            self.abs_error_median_seconds,
            self.abs_error_p90_seconds,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{CompareError, compare};
    use crate::exec::TraceInfo;
    use crate::game::{Board, Position};
    use crate::plan::{Plan, PlanOptions, plan};
    use crate::sched::CostModel;

    fn planned(threads: u32) -> Plan {
        let root = Position::empty("2x2".parse::<Board>().unwrap());
        plan(root, &PlanOptions::new(threads, CostModel::built_in())).unwrap().plan
    }

    use super::super::serial_trace as trace;

    #[test]
    fn a_trace_is_compared_with_the_plan_it_names_only() {
        let ran = planned(1);
        let info = |plan: Option<String>| TraceInfo {
            board: Some(ran.board.clone()),
            threads: Some(1),
            plan,
            ..Default::default()
        };
        let rows = trace(&ran);
        let own = compare(&ran, &rows, &info(Some(ran.fingerprint())), None).unwrap().comparison;
        assert_eq!(own.trace_plan_fingerprint.as_deref(), Some(own.plan_fingerprint.as_str()));
        // Another plan, though of the same jobs: refused, naming both fingerprints.
        let mut other = ran.clone();
        other.jobs[0].cost += 1;
        match compare(&other, &rows, &info(Some(ran.fingerprint())), None) {
            Err(e @ CompareError::OtherPlan { .. }) => {
                let text = e.to_string();
                assert!(text.contains(&ran.fingerprint()) && text.contains(&other.fingerprint()), "{text}");
            }
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("compared with a plan that did not run"),
        }
        // A trace that names no plan (written before traces did): compared unchecked.
        let old = compare(&other, &rows, &info(None), None).unwrap().comparison;
        assert_eq!(old.trace_plan_fingerprint, None);
        assert_eq!(old.plan_fingerprint, other.fingerprint());
    }
}
