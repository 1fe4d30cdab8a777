//! Calibration: times the kernel job by job on this machine (solves of several boards on one
//! thread, then on all threads), fits the cost model's coefficients to the one-thread times,
//! and measures how much slower jobs run when every thread is busy (the contention factor).
//! The fit minimises the squared relative error weighted by job time, so the jobs that make
//! up the makespan count most; terms whose removal costs less than 2 % of the fit are dropped.

use serde::Serialize;

use crate::cost::{CostModel, JobFeatures, TERMS};
use crate::exec::execute;
use crate::plan::Checked;
use crate::position::Position;
use crate::space::{Space, SpaceError};
use crate::store::{Store, StoreError};
use std::path::Path;

/// One job's measured time with its features.
#[derive(Clone, Debug, Serialize)]
pub struct Sample {
    pub board: String,
    pub groups: usize,
    pub threads: usize,
    pub job: String,
    pub states: u64,
    pub rows: u64,
    pub outer_moves: u64,
    pub inner_moves: u64,
    pub input_bytes: u64,
    pub seconds: f64,
}

impl Sample {
    pub fn features(&self) -> JobFeatures {
        JobFeatures {
            states: self.states,
            rows: self.rows,
            outer_moves: self.outer_moves,
            inner_moves: self.inner_moves,
            input_bytes: self.input_bytes,
        }
    }
}

/// Runs a whole solve of `root` on the executor on each thread count of `threads`, `repeats`
/// times in turn (so that every count sees the same moments of a shared machine), and returns
/// per thread count every job's median time with its features, and the median wall time.
pub fn measure(
    root: Position,
    groups: Option<usize>,
    threads: &[usize],
    repeats: usize,
) -> Result<Vec<(Vec<Sample>, f64)>, SpaceError> {
    let space = Space::new(root, groups)?;
    let (graph, features) =
        crate::schemes::orbits_with_features(&space, &crate::cost::CostSpec::States, None).expect("no split");
    let plan = Checked::from_graph(space, graph).expect("own graph");
    let index: std::collections::HashMap<&str, usize> =
        plan.graph.jobs.iter().enumerate().map(|(i, j)| (j.name.as_str(), i)).collect();
    let mut times = vec![vec![Vec::new(); plan.graph.len()]; threads.len()];
    let mut walls = vec![Vec::new(); threads.len()];
    for _ in 0..repeats.max(1) {
        for (k, &p) in threads.iter().enumerate() {
            let run = execute(&plan, p, false, None);
            for t in &run.trace {
                times[k][index[t.job.as_str()]].push(t.end - t.start);
            }
            walls[k].push(run.seconds);
        }
    }
    Ok(threads
        .iter()
        .zip(times.iter_mut().zip(&mut walls))
        .map(|(&p, (times, walls))| {
            let samples = plan
                .graph
                .jobs
                .iter()
                .zip(&features)
                .zip(times.iter_mut())
                .map(|((job, f), t)| Sample {
                    board: plan.space.board().to_string(),
                    groups: plan.space.groups.len(),
                    threads: p,
                    job: job.name.clone(),
                    states: f.states,
                    rows: f.rows,
                    outer_moves: f.outer_moves,
                    inner_moves: f.inner_moves,
                    input_bytes: f.input_bytes,
                    seconds: median(t),
                })
                .collect();
            (samples, median(walls))
        })
        .collect())
}

/// Weighted least squares over the terms in `mask`: minimises sum of (pred - t)^2 / t.
/// Returns the coefficients (0 outside the mask) and the objective, or None when the system
/// is singular.
fn least_squares(samples: &[Sample], mask: [bool; TERMS]) -> Option<([f64; TERMS], f64)> {
    let idx: Vec<usize> = (0..TERMS).filter(|&k| mask[k]).collect();
    let m = idx.len();
    let mut a = vec![vec![0.0f64; m + 1]; m];
    for s in samples.iter().filter(|s| s.seconds > 0.0) {
        let x = s.features().terms();
        let t = s.seconds * 1e9;
        let w = 1.0 / t;
        for (r, &i) in idx.iter().enumerate() {
            for (c, &j) in idx.iter().enumerate() {
                a[r][c] += w * x[i] * x[j];
            }
            a[r][m] += w * x[i] * t;
        }
    }
    // Gaussian elimination with partial pivoting, scaled per row.
    for col in 0..m {
        let pivot = (col..m).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        let pivot_row = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                for (x, p) in row.iter_mut().zip(&pivot_row).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    let mut coef = [0.0; TERMS];
    for (r, &i) in idx.iter().enumerate() {
        coef[i] = a[r][m] / a[r][r];
        if !coef[i].is_finite() {
            return None;
        }
    }
    Some((coef, objective(samples, &coef)))
}

fn predict(coef: &[f64; TERMS], f: JobFeatures) -> f64 {
    f.terms().iter().zip(coef).map(|(x, c)| x * c).sum()
}

fn objective(samples: &[Sample], coef: &[f64; TERMS]) -> f64 {
    samples
        .iter()
        .filter(|s| s.seconds > 0.0)
        .map(|s| {
            let t = s.seconds * 1e9;
            (predict(coef, s.features()) - t).powi(2) / t
        })
        .sum()
}

/// The fitted coefficients and the terms kept.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    pub coefficients: [f64; TERMS],
    pub kept: Vec<&'static str>,
}

/// Non-negative fit: the best of all term subsets whose coefficients are all >= 0, then terms
/// dropped while that costs less than 2 % of the objective.
pub fn fit(samples: &[Sample]) -> Fit {
    let mut best: Option<([f64; TERMS], f64, [bool; TERMS])> = None;
    for bits in 1u32..1 << TERMS {
        let mask: [bool; TERMS] = std::array::from_fn(|k| bits >> k & 1 != 0);
        if let Some((coef, obj)) = least_squares(samples, mask)
            && coef.iter().all(|&c| c >= 0.0)
            && best.as_ref().is_none_or(|b| obj < b.1)
        {
            best = Some((coef, obj, mask));
        }
    }
    let mut state_only = [false; TERMS];
    state_only[1] = true;
    let mut unit = [0.0; TERMS];
    unit[1] = 1.0;
    let (mut coef, mut obj, mut mask) = best.unwrap_or((unit, f64::INFINITY, state_only));
    loop {
        let mut dropped = false;
        for k in 0..TERMS {
            if !mask[k] || mask.iter().filter(|&&m| m).count() == 1 {
                continue;
            }
            let mut fewer = mask;
            fewer[k] = false;
            if let Some((c, o)) = least_squares(samples, fewer)
                && c.iter().all(|&x| x >= 0.0)
                && o <= obj * 1.02
            {
                (coef, obj, mask, dropped) = (c, o, fewer, true);
                break;
            }
        }
        if !dropped {
            break;
        }
    }
    let names = CostModel::from_coefficients(String::new(), coef, Vec::new()).coefficients();
    Fit { coefficients: coef, kept: (0..TERMS).filter(|&k| mask[k]).map(|k| names[k].0).collect() }
}

/// Per-job relative errors |pred - actual| / actual of a set of samples under a model:
/// median and 90th percentile, and the error of the summed time.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorStats {
    pub board: String,
    pub threads: usize,
    pub jobs: usize,
    pub median: f64,
    pub p90: f64,
    /// |sum pred - sum actual| / sum actual.
    pub total: f64,
    pub fitted_on: bool,
}

/// The median of repeated timings (the upper one of an even count); sorts them.
pub fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Quantile `q` (0..=1) of sorted values, nearest rank.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

pub fn errors(model: &CostModel, samples: &[Sample], threads: usize, fitted_on: bool) -> ErrorStats {
    let factor = model.contention(threads);
    let mut errs: Vec<f64> = samples
        .iter()
        .filter(|s| s.seconds > 0.0)
        .map(|s| {
            let p = model.nanoseconds(s.features()) as f64 * factor;
            (p - s.seconds * 1e9).abs() / (s.seconds * 1e9)
        })
        .collect();
    errs.sort_by(f64::total_cmp);
    let actual: f64 = samples.iter().map(|s| s.seconds * 1e9).sum();
    let predicted: f64 = samples.iter().map(|s| model.nanoseconds(s.features()) as f64 * factor).sum();
    ErrorStats {
        board: samples.first().map_or(String::new(), |s| s.board.clone()),
        threads,
        jobs: errs.len(),
        median: quantile(&errs, 0.5),
        p90: quantile(&errs, 0.9),
        total: (predicted - actual).abs() / actual.max(1e-9),
        fitted_on,
    }
}

/// What this machine is, for the model file: CPU model, cores, memory.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines().find(|l| l.starts_with("MemTotal")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(String::new(), |kb| format!(", {:.0} GiB", kb as f64 / 1048576.0));
    format!("{cpu}, {cores} cores{mem}")
}

/// A model from a fit on one-thread samples and the contention measured with more threads:
/// (threads, summed actual time / summed one-thread prediction).
pub fn model(fit: &Fit, contention: Vec<(u32, f64)>) -> CostModel {
    CostModel::from_coefficients(machine(), fit.coefficients, contention)
}

/// Summed actual time over summed prediction: how much slower jobs run with `threads` busy.
pub fn contention_factor(model: &CostModel, samples: &[Sample]) -> f64 {
    let actual: f64 = samples.iter().map(|s| s.seconds * 1e9).sum();
    let predicted: f64 = samples.iter().map(|s| model.nanoseconds(s.features()) as f64).sum();
    actual / predicted.max(1.0)
}

/// A board to time, with its grouping (None: the default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub board: crate::board::Board,
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

pub struct Calibration {
    pub model: CostModel,
    pub fit: Fit,
    pub stats: Vec<ErrorStats>,
    pub samples: Vec<Sample>,
}

/// Times `cases` (each `repeats` times) on one thread and on `threads` threads, fits the model on the one-thread
/// times, and tests it on `holdout` (not fitted on). `report` hears each stage.
pub fn run(
    cases: &[Case],
    holdout: &[Case],
    threads: usize,
    repeats: usize,
    report: &mut dyn FnMut(&str),
) -> Result<Calibration, SpaceError> {
    let counts: Vec<usize> = if threads > 1 { vec![1, threads] } else { vec![1] };
    let time = |case: &Case, report: &mut dyn FnMut(&str)| {
        let runs = measure(Position::empty(case.board), case.groups, &counts, repeats)?;
        for (&p, (s, secs)) in counts.iter().zip(&runs) {
            report(&format!(
                "timed {} ({} jobs) on {p} thread(s), median of {repeats}: {secs:.2} s",
                case.board,
                s.len()
            ));
        }
        Ok::<_, SpaceError>(runs.into_iter().map(|(s, _)| s).collect::<Vec<_>>())
    };
    let mut fitted = Vec::new();
    for c in cases {
        fitted.push(time(c, report)?);
    }
    let one: Vec<Sample> = fitted.iter().flat_map(|runs| runs[0].clone()).collect();
    let fit = fit(&one);
    let mut model = model(&fit, Vec::new());
    if threads > 1 {
        let many: Vec<Sample> = fitted.iter().flat_map(|runs| runs[1].clone()).collect();
        model.contention = vec![(threads as u32, contention_factor(&model, &many))];
    }
    let mut stats = Vec::new();
    let mut samples = Vec::new();
    let mut record = |runs: Vec<Vec<Sample>>, fitted_on: bool, stats: &mut Vec<ErrorStats>| {
        for (&p, s) in counts.iter().zip(runs) {
            stats.push(errors(&model, &s, p, fitted_on));
            samples.extend(s);
        }
    };
    for runs in fitted {
        record(runs, true, &mut stats);
    }
    for c in holdout {
        record(time(c, report)?, false, &mut stats);
    }
    Ok(Calibration { model, fit, stats, samples })
}

/// Store writes timed by [`time_store`]: per size, the median seconds, and the fitted line.
#[derive(Clone, Debug)]
pub struct StoreTiming {
    /// (bytes, median seconds) per size written.
    pub sizes: Vec<(u64, f64)>,
    pub per_file_ns: f64,
    pub per_byte_ns: f64,
    /// Reading back, per byte: the summed read time over the summed bytes (just written, so
    /// mostly from the page cache, as values dropped under a memory limit usually are).
    pub read_per_byte_ns: f64,
}

/// Sizes written when timing a store: a few kilobytes to the size of a large partition.
pub const STORE_SIZES: [u64; 6] = [4 << 10, 64 << 10, 1 << 20, 8 << 20, 32 << 20, 128 << 20];

/// Times store writes (temporary file, flush to disk, rename) of each of `sizes` bytes,
/// `repeats` times in turn, in a fresh folder under `dir` that is removed afterwards, and fits
/// time = per file + per byte * bytes, minimising the relative error.
pub fn time_store(dir: &Path, sizes: &[u64], repeats: usize) -> Result<StoreTiming, StoreError> {
    let base = dir.join(format!("dab-store-timing-{}", std::process::id()));
    let result = time_store_in(&base, sizes, repeats);
    let _ = std::fs::remove_dir_all(&base);
    result
}

fn time_store_in(base: &Path, sizes: &[u64], repeats: usize) -> Result<StoreTiming, StoreError> {
    // Any plan gives a folder and a header; only the number of values matters here.
    let space = Space::new(Position::empty("1x1".parse().expect("a board")), None).expect("1x1 has a space");
    let plan = Checked::whole(space);
    let store = Store::open(base, &plan)?;
    let layout = plan.layout[0];
    let mut times = vec![Vec::new(); sizes.len()];
    let mut reads = vec![Vec::new(); sizes.len()];
    for _ in 0..repeats.max(1) {
        for (i, &bytes) in sizes.iter().enumerate() {
            let values = vec![0; bytes as usize];
            let start = std::time::Instant::now();
            store.write(&format!("t{i}"), &layout, &values)?;
            times[i].push(start.elapsed().as_secs_f64());
            drop(values);
            let start = std::time::Instant::now();
            store.read(&format!("t{i}"), &layout, bytes)?;
            reads[i].push(start.elapsed().as_secs_f64());
        }
    }
    let read_secs: f64 = reads.iter_mut().map(|t| median(t)).sum();
    let read_per_byte_ns = read_secs * 1e9 / sizes.iter().sum::<u64>() as f64;
    let sizes: Vec<(u64, f64)> = sizes.iter().zip(&mut times).map(|(&b, t)| (b, median(t))).collect();
    let (per_file, per_byte) = line_fit(&sizes);
    Ok(StoreTiming { sizes, per_file_ns: per_file * 1e9, per_byte_ns: per_byte * 1e9, read_per_byte_ns })
}

/// a + b x through (x, t) with weights 1/t^2 (relative error), both coefficients at least 0.
fn line_fit(points: &[(u64, f64)]) -> (f64, f64) {
    let (mut s, mut sx, mut sxx, mut st, mut sxt) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, t) in points {
        let (x, w) = (x as f64, 1.0 / (t * t).max(1e-18));
        (s, sx, sxx, st, sxt) = (s + w, sx + w * x, sxx + w * x * x, st + w * t, sxt + w * x * t);
    }
    let det = s * sxx - sx * sx;
    let (a, b) = ((st * sxx - sx * sxt) / det, (s * sxt - sx * st) / det);
    if det <= 0.0 || !a.is_finite() || !b.is_finite() {
        (st / s, 0.0)
    } else if a < 0.0 {
        (0.0, sxt / sxx)
    } else if b < 0.0 {
        (st / s, 0.0)
    } else {
        (a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_fitted_exactly() {
        let points: Vec<(u64, f64)> = [1u64, 10, 100, 1000].iter().map(|&x| (x, 0.5 + 0.25 * x as f64)).collect();
        let (a, b) = line_fit(&points);
        assert!((a - 0.5).abs() < 1e-9 && (b - 0.25).abs() < 1e-9, "{a} {b}");
        // A falling line is not a cost: the per-byte term goes.
        let (a, b) = line_fit(&[(1, 2.0), (2, 1.0)]);
        assert!(b == 0.0 && a > 0.0);
    }
}
