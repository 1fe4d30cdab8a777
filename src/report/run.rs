//! The charts of `dab plan` and `dab run`: the plan saved beside its predicted speedup
//! (`speedup`) and every candidate against the fastest one-thread one (`candidates`); a run's
//! predicted and actual schedules side by side with every job's predicted against actual time
//! (`compare`); a sweep of node counts (`dab plan --nodes 1,2,..`) as `cluster.csv` and a chart of
//! the predicted makespan and store traffic against nodes (`cluster`).

use std::path::{Path, PathBuf};

use crate::plan::{ClusterRow, PlanChoice, PlanError, SimulatedCandidate};

use super::chart::{self, BarScale, ChartError, ClusterPoint, ComparePoint, GanttBar, SpeedupPoint, SpeedupSeries};
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

/// Speedup points of a candidate relative to `t1` seconds on one processor, up to `threads`
/// (the planner simulates more, to 64, which a chart of a plan for fewer would only stretch).
fn speedup_series(c: &SimulatedCandidate, t1: f64, label: String, chosen: bool, threads: u32) -> SpeedupSeries {
    SpeedupSeries {
        label,
        ceiling: c.ceiling,
        // Bounds of the chosen candidate only: one set per chart stays readable.
        bounds: chosen,
        chosen,
        points: c
            .predictions
            .iter()
            .filter(|p| p.procs <= threads)
            .map(|p| SpeedupPoint {
                procs: p.procs,
                speedup: t1 / p.makespan_seconds,
                bound: (p.procs as f64).min(c.ceiling),
            })
            .collect(),
    }
}

/// Writes the plan and its charts into `dir`; returns the files written.
pub fn write_plan(planned: &PlanChoice, plan_path: &Path, dir: &Path) -> Result<Vec<PathBuf>, WriteError> {
    planned.plan.save(plan_path)?;
    let chosen = &planned.candidates[planned.chosen];
    let t1 = |c: &SimulatedCandidate| {
        c.predictions.iter().find(|p| p.procs == 1).map_or(f64::INFINITY, |p| p.makespan_seconds)
    };
    let board = &planned.plan.board;
    chart::speedup(
        &dir.join("speedup"),
        &format!("{board}: predicted speedup of the plan ({})", chosen.label()),
        "threads",
        &[speedup_series(chosen, t1(chosen), chosen.label(), true, planned.plan.threads)],
        Some(planned.plan.threads),
    )?;
    let fastest = planned.candidates.iter().map(t1).fold(f64::INFINITY, f64::min);
    let series: Vec<SpeedupSeries> = (planned.candidates.iter().enumerate())
        .map(|(i, c)| speedup_series(c, fastest, c.label(), i == planned.chosen, planned.plan.threads))
        .collect();
    chart::speedup(
        &dir.join("candidates"),
        &format!("{board}: candidates, predicted speedup over the fastest on one thread"),
        "threads",
        &series,
        Some(planned.plan.threads),
    )?;
    let mut files = vec![plan_path.to_path_buf()];
    for name in ["speedup", "candidates"] {
        files.extend(["svg", "png"].map(|e| dir.join(format!("{name}.{e}"))));
    }
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
