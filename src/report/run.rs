//! The charts of `dab plan` and `dab run`: the plan saved beside its predicted speedup
//! (`speedup`, with the measured speedup of a run of the same plan where the folder's trace is
//! one: the same fingerprint) and every candidate against the fastest one-thread one
//! (`candidates`); a run's predicted and actual schedules side by side with every job's
//! predicted against actual time (`compare`); a sweep of node counts (`dab plan --nodes
//! 1,2,..`) as `cluster.csv` and a chart of the predicted makespan and store traffic against
//! nodes (`cluster`).

use std::path::{Path, PathBuf};

use crate::exec::read_trace;
use crate::plan::{ClusterRow, Plan, PlanChoice, PlanError, Prediction, SimulatedCandidate};
use crate::support::count_of;

use super::chart::{
    self, BarScale, ChartError, ClusterPoint, ComparePoint, GanttBar, MeasuredSpeedup, SpeedupPoint, SpeedupSeries,
};
use super::compare::Detail;

/// Why a plan or its charts could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The plan file.
    #[error("{0}")]
    Plan(#[from] PlanError),
    /// A chart.
    #[error("{0}")]
    Chart(#[from] ChartError),
    /// A table could not be written.
    #[error("cannot write '{path}': {source}")]
    Table {
        /// The CSV file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

/// Writes a cluster sweep into `dir`: `cluster.csv` (one row a node count, [`ClusterRow`]'s
/// fields) and `cluster.svg`/`.png` titled `title`. Returns the files written.
pub fn write_cluster_sweep(rows: &[ClusterRow], title: &str, dir: &Path) -> Result<Vec<PathBuf>, WriteError> {
    let csv_path = dir.join("cluster.csv");
    crate::support::write_csv(rows, &csv_path)
        .map_err(|source| WriteError::Table { path: csv_path.clone(), source })?;
    let points: Vec<ClusterPoint> = rows
        .iter()
        .map(|r| ClusterPoint {
            nodes: r.nodes,
            seconds: r.predicted_seconds,
            read_bytes: r.store_read_bytes as f64,
            write_bytes: r.store_write_bytes as f64,
        })
        .collect();
    chart::cluster(&dir.join("cluster"), title, &points)?;
    let mut files = vec![csv_path];
    files.extend(["svg", "png"].map(|e| dir.join(format!("cluster.{e}"))));
    Ok(files)
}

/// Speedup points relative to `t1` seconds on one processor from `predictions`, up to
/// `threads` (the planner simulates more, to 64, which a chart of a plan for fewer would only
/// stretch), each with the model's ceiling min(P, W/CP) for `ceiling` = W/CP.
fn speedup_points(predictions: &[Prediction], t1: f64, ceiling: f64, threads: u32) -> Vec<SpeedupPoint> {
    predictions
        .iter()
        .filter(|p| p.procs <= threads)
        .map(|p| SpeedupPoint {
            procs: p.procs,
            speedup: t1 / p.makespan_seconds,
            bound: f64::from(p.procs).min(ceiling),
        })
        .collect()
}

/// Speedup points of a candidate relative to `t1` seconds on one processor, up to `threads`.
fn speedup_series(c: &SimulatedCandidate, t1: f64, label: String, chosen: bool, threads: u32) -> SpeedupSeries {
    SpeedupSeries {
        label,
        ceiling: c.ceiling,
        // Ceilings of the chosen candidate only: one set per chart stays readable.
        bounds: chosen,
        chosen,
        points: speedup_points(&c.predictions, t1, c.ceiling, threads),
        measured: None,
    }
}

/// A run of a plan, for its speedup chart: the threads it ran on and its makespan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeasuredRun {
    /// Threads of the run.
    pub threads: u32,
    /// Its makespan, seconds: the latest job end in its trace.
    pub seconds: f64,
}

/// The run of `plan` that `dir` holds: its `trace.csv` where that is a run of this plan (the
/// same fingerprint) of every job (not a resumed run, nor a cluster run's tasks), and the
/// plan's costs are in ns. None for any other trace, one that cannot be read, or one written
/// before traces named their plan: a chart of the plan shows no run it cannot tell is its own.
pub fn measured_run(plan: &Plan, dir: &Path) -> Option<MeasuredRun> {
    let path = dir.join("trace.csv");
    if plan.unit != "ns" || !path.is_file() {
        return None;
    }
    let (rows, info) = read_trace(&path).ok()?;
    if info.tasks || info.plan != Some(plan.fingerprint()) || rows.len() != plan.jobs.len() {
        return None;
    }
    let threads = info.threads.unwrap_or_else(|| rows.iter().map(|r| r.thread as u32 + 1).max().unwrap_or(1));
    Some(MeasuredRun { threads, seconds: rows.iter().map(|r| r.end).fold(0.0, f64::max) })
}

/// A plan's grouping and split in a few words, as the planner names its candidates: `3 groups,
/// split at 1e5`.
fn plan_label(plan: &Plan) -> String {
    let split = plan.split.map_or("no split".to_string(), |s| format!("split at {:.0e}", s.threshold as f64));
    format!("{}, {split}", count_of(plan.groups as u64, "group"))
}

/// W / CP of the plan's job costs (infinite where its jobs are no graph).
fn ceiling(plan: &Plan) -> f64 {
    plan.graph().map_or(f64::INFINITY, |g| g.work() as f64 / g.critical_path().max(1) as f64)
}

/// The measured speedups of `runs` as `dab scale` takes them, with the legend entry that says
/// how: the one-thread time over each run's, the one-thread time measured where a run on one
/// thread is among them, else `t1`, the plan's one-thread prediction. None without a run of a
/// finite speedup.
fn measured_speedup(runs: &[MeasuredRun], t1: f64) -> Option<MeasuredSpeedup> {
    let one = runs.iter().find(|r| r.threads == 1).map(|r| r.seconds);
    let base = one.unwrap_or(t1);
    let mut points: Vec<(u32, f64)> =
        runs.iter().map(|r| (r.threads, base / r.seconds)).filter(|(_, v)| v.is_finite() && *v > 0.0).collect();
    points.sort_by_key(|p| p.0);
    let how = if one.is_some() { "one-thread run's time" } else { "one-thread prediction" };
    let what = if runs.len() == 1 { "this plan's run (trace.csv)" } else { "runs of this plan" };
    (!points.is_empty()).then(|| MeasuredSpeedup { label: format!("measured, {what}: {how} / the run's time"), points })
}

/// Writes `speedup.svg/.png` into `dir`: the plan's predicted speedup over its one-thread
/// prediction up to its threads (or the most threads of a run), with the model's ceilings,
/// and the measured speedup of each of `runs` ([`measured_run`]; as `dab scale` defines it: over
/// the one-thread run where one is among them, else over the one-thread prediction). Returns
/// the files written: none where the plan has no prediction to draw.
pub fn write_speedup(plan: &Plan, dir: &Path, runs: &[MeasuredRun]) -> Result<Vec<PathBuf>, WriteError> {
    let t1 = plan.predicted(1).map_or(f64::INFINITY, |p| p.makespan_seconds);
    let threads = runs.iter().map(|r| r.threads).fold(plan.threads, u32::max);
    let ceiling = ceiling(plan);
    let points = speedup_points(&plan.predictions, t1, ceiling, threads);
    if points.is_empty() {
        return Ok(Vec::new());
    }
    let measured = measured_speedup(runs, t1);
    let what = if measured.is_some() { "predicted and measured" } else { "predicted" };
    let label = plan_label(plan);
    let series = SpeedupSeries { label: label.clone(), points, ceiling, bounds: true, chosen: true, measured };
    chart::speedup(
        &dir.join("speedup"),
        &format!("{}: {what} speedup of the plan ({label})", plan.board),
        "threads",
        &[series],
        Some(plan.threads),
    )?;
    Ok(["svg", "png"].map(|e| dir.join(format!("speedup.{e}"))).to_vec())
}

/// Writes the plan and its charts into `dir`; returns the files written. The speedup chart
/// shows the run of `dir`'s trace where that is a run of this plan ([`measured_run`]).
pub fn write_plan(planned: &PlanChoice, plan_path: &Path, dir: &Path) -> Result<Vec<PathBuf>, WriteError> {
    planned.plan.save(plan_path)?;
    let mut files = vec![plan_path.to_path_buf()];
    let runs: Vec<MeasuredRun> = measured_run(&planned.plan, dir).into_iter().collect();
    files.extend(write_speedup(&planned.plan, dir, &runs)?);
    let t1 = |c: &SimulatedCandidate| {
        c.predictions.iter().find(|p| p.procs == 1).map_or(f64::INFINITY, |p| p.makespan_seconds)
    };
    let fastest = planned.candidates.iter().map(t1).fold(f64::INFINITY, f64::min);
    let series: Vec<SpeedupSeries> = (planned.candidates.iter().enumerate())
        .map(|(i, c)| speedup_series(c, fastest, c.label(), i == planned.chosen, planned.plan.threads))
        .collect();
    chart::speedup(
        &dir.join("candidates"),
        &format!("{}: candidates, predicted speedup over the fastest on one thread", planned.plan.board),
        "threads",
        &series,
        Some(planned.plan.threads),
    )?;
    files.extend(["svg", "png"].map(|e| dir.join(format!("candidates.{e}"))));
    Ok(files)
}

/// Writes `compare.svg` and `compare.png`.
pub fn write_compare(d: &Detail, dir: &Path) -> Result<Vec<PathBuf>, WriteError> {
    let micros = |s: f64| (s * 1e6).round() as u64;
    let bars = |spans: &[(usize, u32, f64, f64)]| -> Vec<GanttBar> {
        spans
            .iter()
            .map(|&(job, proc, start, end)| GanttBar {
                proc,
                start: micros(start),
                end: micros(end),
                label: d.names[job].clone(),
                level: d.levels[job],
            })
            .collect()
    };
    let points: Vec<ComparePoint> =
        d.jobs.iter().map(|&(p, a)| ComparePoint { predicted: p * 1e6, actual: a * 1e6 }).collect();
    let c = &d.comparison;
    chart::compare(
        &dir.join("compare"),
        &format!(
            "{}, {}: predicted {:.3} s, actual {:.3} s ({}); per-{} actual / predicted median {}",
            c.board,
            c.procs(),
            c.predicted_seconds,
            c.actual_seconds,
            chart::times(c.actual_over_predicted),
            c.unit,
            chart::times(c.job_ratio_median)
        ),
        &BarScale { time_unit: chart::MICROS, level: d.level },
        d.actual.iter().map(|a| a.1 + 1).max().unwrap_or(1).max(c.threads),
        &bars(&d.predicted),
        &bars(&d.actual),
        &points,
    )?;
    Ok(["svg", "png"].map(|e| dir.join(format!("compare.{e}"))).to_vec())
}

#[cfg(test)]
mod tests {
    use super::{MeasuredRun, ceiling, measured_run, measured_speedup, plan_label, write_speedup};
    use crate::exec::{TraceInfo, write_trace};
    use crate::game::{Board, Position};
    use crate::plan::{PlanChoice, PlanOptions, plan};
    use crate::sched::CostModel;

    fn planned(board: &str, threads: u32) -> PlanChoice {
        let root = Position::empty(board.parse::<Board>().unwrap());
        plan(root, &PlanOptions::new(threads, CostModel::built_in())).unwrap()
    }

    #[test]
    fn the_chart_of_a_plan_draws_what_the_planner_drew_of_its_candidate() {
        let p = planned("2x3", 2);
        let chosen = &p.candidates[p.chosen];
        assert_eq!(ceiling(&p.plan), chosen.ceiling);
        assert_eq!(plan_label(&p.plan), chosen.label());
        assert_eq!(p.plan.predictions, chosen.predictions);
    }

    #[test]
    fn a_measured_speedup_is_over_the_one_thread_run_else_the_one_thread_prediction() {
        let run = |threads, seconds| MeasuredRun { threads, seconds };
        // No run on one thread: over the plan's one-thread prediction.
        let m = measured_speedup(&[run(2, 4.0)], 5.0).unwrap();
        assert_eq!(m.points, [(2, 1.25)]);
        assert!(m.label.contains("one-thread prediction / the run's time"), "{}", m.label);
        // A run on one thread is the baseline, as in dab scale.
        let m = measured_speedup(&[run(4, 2.0), run(1, 6.0)], 5.0).unwrap();
        assert_eq!(m.points, [(1, 1.0), (4, 3.0)]);
        assert!(m.label.contains("one-thread run's time / the run's time"), "{}", m.label);
        // Nothing finite to draw: no measured series.
        assert_eq!(measured_speedup(&[run(2, 0.0)], 5.0), None);
        assert_eq!(measured_speedup(&[run(2, 1.0)], f64::INFINITY), None);
        assert_eq!(measured_speedup(&[], 5.0), None);
    }

    #[test]
    fn only_a_whole_run_of_this_very_plan_is_measured() {
        let p = planned("2x2", 2).plan;
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(measured_run(&p, dir.path()), None, "no trace");
        let rows = super::super::serial_trace(&p);
        let info = TraceInfo {
            board: Some(p.board.clone()),
            threads: Some(3),
            value: None,
            tasks: false,
            plan: Some(p.fingerprint()),
        };
        let trace = dir.path().join("trace.csv");
        write_trace(&trace, &rows, &info).unwrap();
        let whole = MeasuredRun { threads: 3, seconds: p.jobs.len() as f64 };
        assert_eq!(measured_run(&p, dir.path()), Some(whole));
        // Another plan's run, one that names no plan, a resumed run (jobs missing), a cluster
        // run's tasks: none is this plan's run.
        let mut other = p.clone();
        other.threads += 1;
        assert_eq!(measured_run(&other, dir.path()), None);
        for info in [
            TraceInfo { plan: None, ..info.clone() },
            TraceInfo { tasks: true, ..info.clone() },
            TraceInfo { plan: Some("0123456789abcdef".into()), ..info.clone() },
        ] {
            write_trace(&trace, &rows, &info).unwrap();
            assert_eq!(measured_run(&p, dir.path()), None, "{info:?}");
        }
        write_trace(&trace, &rows[1..], &info).unwrap();
        assert_eq!(measured_run(&p, dir.path()), None, "resumed");
        // Its chart: a run on more threads than planned stretches the axis to it.
        let files = write_speedup(&p, dir.path(), &[whole]).unwrap();
        assert_eq!(files.len(), 2);
        let svg = std::fs::read_to_string(&files[0]).unwrap();
        assert!(svg.contains("predicted and measured speedup"), "measured");
        assert!(svg.contains("measured, this plan&apos;s run (trace.csv)"));
    }
}
