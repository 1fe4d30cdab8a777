//! The fit of the cost model: weighted least squares over every subset of the terms, the
//! best non-negative one kept and then terms dropped while that costs under 2 %; the per-job
//! error statistics; and the fixed cost of tiny jobs.

use std::collections::HashMap;

use serde::Serialize;

use crate::sched::{CostModel, PerTerm, TERMS, Term};
use crate::support::quantile;

use super::in_solve::mean_factor;
use super::measure::{Sample, Timing};

/// The weighted normal equations of all the terms, summed once over the samples: the fit then
/// tries every subset of the terms on them, without another pass over the samples.
struct Normal {
    /// sum of w x_i x_j, with w = c / t (c: the weight of the sample's case).
    gram: [[f64; TERMS]; TERMS],
    /// sum of w x_i t.
    rhs: [f64; TERMS],
    /// sum of w t^2 = sum of c t: the objective of the zero model.
    base: f64,
}

/// How far each case's weight is evened out: a case counts as its total time to the power
/// 1 - CASE_BALANCE. At 0 the longest cases set the model and the shorter boards' jobs come
/// out dearer than they ran; at 1 the long cases' sums drift; half-way keeps both close (the
/// measurements are in `docs/notes/cost-model-history.md`).
const CASE_BALANCE: f64 = 0.5;

impl Normal {
    fn of(samples: &[Sample]) -> Normal {
        let mut totals: HashMap<&str, f64> = HashMap::new();
        for s in samples.iter().filter(|s| s.seconds > 0.0) {
            *totals.entry(s.board.as_str()).or_default() += s.seconds;
        }
        let mut n = Normal { gram: [[0.0; TERMS]; TERMS], rhs: [0.0; TERMS], base: 0.0 };
        for s in samples.iter().filter(|s| s.seconds > 0.0) {
            let x = s.features.terms().0;
            let t = s.seconds * 1e9;
            let case = totals[s.board.as_str()].powf(-CASE_BALANCE);
            let w = case / t;
            for i in 0..TERMS {
                for j in 0..TERMS {
                    n.gram[i][j] += w * x[i] * x[j];
                }
                n.rhs[i] += w * x[i] * t;
            }
            n.base += case * t;
        }
        n
    }

    /// sum of c (pred - t)^2 / t under `coef`, from the normal equations.
    fn objective(&self, coef: &[f64; TERMS]) -> f64 {
        let mut q = self.base;
        for i in 0..TERMS {
            q -= 2.0 * coef[i] * self.rhs[i];
            for j in 0..TERMS {
                q += coef[i] * self.gram[i][j] * coef[j];
            }
        }
        q.max(0.0)
    }
}

/// Weighted least squares over the terms in `mask`: minimises sum of c (pred - t)^2 / t.
/// Hand-made, with the non-negativity found by trying every subset of the terms (1,024 small
/// solves, exact): the NNLS crates need a linear-algebra stack (ndarray, nalgebra) for a
/// system of at most 10 unknowns.
/// Returns the coefficients (0 outside the mask) and the objective, or None when the system
/// is singular.
fn least_squares(normal: &Normal, mask: [bool; TERMS]) -> Option<([f64; TERMS], f64)> {
    let idx: Vec<usize> = (0..TERMS).filter(|&k| mask[k]).collect();
    let m = idx.len();
    let mut a: Vec<Vec<f64>> =
        idx.iter().map(|&i| idx.iter().map(|&j| normal.gram[i][j]).chain([normal.rhs[i]]).collect()).collect();
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
    Some((coef, normal.objective(&coef)))
}

/// The fitted coefficients and the terms kept.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    /// Nanoseconds per unit of each term; 0 for a dropped term.
    pub coefficients: PerTerm,
    /// Names of the terms kept (`per_state_ns`, ...).
    pub kept: Vec<&'static str>,
}

/// Non-negative fit: the best of all term subsets whose coefficients are all >= 0, then terms
/// dropped while that costs less than 2 % of the objective.
pub fn fit(samples: &[Sample]) -> Fit {
    let normal = Normal::of(samples);
    let mut best: Option<([f64; TERMS], f64, [bool; TERMS])> = None;
    for bits in 1u32..1 << TERMS {
        let mask: [bool; TERMS] = std::array::from_fn(|k| bits >> k & 1 != 0);
        if let Some((coef, obj)) = least_squares(&normal, mask)
            && coef.iter().all(|&c| c >= 0.0)
            && best.as_ref().is_none_or(|b| obj < b.1)
        {
            best = Some((coef, obj, mask));
        }
    }
    let mut state_only = [false; TERMS];
    state_only[Term::State as usize] = true;
    let mut unit = PerTerm::default();
    unit[Term::State] = 1.0;
    let (mut coef, mut obj, mut mask) = best.unwrap_or((unit.0, f64::INFINITY, state_only));
    loop {
        let mut dropped = false;
        for k in 0..TERMS {
            if !mask[k] || mask.iter().filter(|&&m| m).count() == 1 {
                continue;
            }
            let mut fewer = mask;
            fewer[k] = false;
            if let Some((c, o)) = least_squares(&normal, fewer)
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
    // The fit weighs jobs by their time, so tiny jobs hardly count: their fixed cost is
    // fitted apart, as what they take beyond the terms' prediction.
    let mut coefficients = PerTerm(coef);
    coefficients[Term::Job] += fixed_cost(&coefficients, samples);
    mask[Term::Job as usize] |= coefficients[Term::Job] > 0.0;
    let kept = Term::ALL.into_iter().filter(|&t| mask[t as usize]).map(Term::name).collect();
    Fit { coefficients, kept }
}

/// Jobs predicted under this many nanoseconds are tiny: dispatch, not work, decides their time.
const TINY_NS: f64 = 10_000.0;

/// The fixed cost of a job: the median of actual minus predicted time over the tiny jobs (at
/// least 0; 0 with fewer than 5 tiny jobs to tell).
fn fixed_cost(coef: &PerTerm, samples: &[Sample]) -> f64 {
    let mut residuals: Vec<f64> = samples
        .iter()
        .filter(|s| s.seconds > 0.0)
        .filter_map(|s| {
            let p = coef.dot(&s.features.terms());
            (p < TINY_NS).then_some(s.seconds * 1e9 - p)
        })
        .collect();
    if residuals.len() < 5 {
        return 0.0;
    }
    residuals.sort_by(f64::total_cmp);
    quantile(&residuals, 0.5).max(0.0)
}

/// The worker's time between jobs, from one-thread runs' gaps (bytes given back at a job's
/// end, seconds until the next began): nanoseconds a job and per byte given back, fitted by
/// least squares on every gap, so that their sum, which a makespan holds, is kept; both at
/// least 0. (0, 0) without gaps.
pub(super) fn between_jobs(gaps: &[(u64, f64)]) -> (f64, f64) {
    if gaps.is_empty() {
        return (0.0, 0.0);
    }
    let n = gaps.len() as f64;
    let (sx, sy) = gaps.iter().fold((0.0, 0.0), |(sx, sy), &(x, y)| (sx + x as f64, sy + y * 1e9));
    let (mx, my) = (sx / n, sy / n);
    let (mut sxx, mut sxy, mut sxx0, mut sxy0) = (0.0, 0.0, 0.0, 0.0);
    for &(x, y) in gaps {
        let (x, y) = (x as f64, y * 1e9);
        sxx += (x - mx) * (x - mx);
        sxy += (x - mx) * (y - my);
        sxx0 += x * x;
        sxy0 += x * y;
    }
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    if slope <= 0.0 {
        (my.max(0.0), 0.0)
    } else if my - slope * mx < 0.0 {
        (0.0, sxy0 / sxx0)
    } else {
        (my - slope * mx, slope)
    }
}

/// Per-job relative errors |pred - actual| / actual of a set of samples under a model:
/// median and 90th percentile, and the error of the summed time.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorStats {
    /// The samples' board (`MxN`).
    pub board: String,
    /// Threads busy when the samples were timed.
    pub threads: usize,
    /// Jobs with a measured time above zero: those the errors are over.
    pub jobs: usize,
    /// Median relative error.
    pub median: f64,
    /// 90th percentile of the relative error.
    pub p90: f64,
    /// |sum pred - sum actual| / sum actual.
    pub total: f64,
    /// Whether the model was fitted on these samples (false: held out).
    pub fitted_on: bool,
}

/// The errors of `model` over the jobs of `timing`, each job slowed by the model's contention
/// at the busy counts it ran with.
pub(super) fn errors(model: &CostModel, timing: &Timing, threads: usize, fitted_on: bool) -> ErrorStats {
    let predicted: Vec<f64> = timing
        .samples
        .iter()
        .zip(&timing.busy)
        .map(|(s, busy)| model.nanoseconds(s.features) as f64 * mean_factor(&model.contention, busy))
        .collect();
    let mut errs: Vec<f64> = timing
        .samples
        .iter()
        .zip(&predicted)
        .filter(|(s, _)| s.seconds > 0.0)
        .map(|(s, p)| (p - s.seconds * 1e9).abs() / (s.seconds * 1e9))
        .collect();
    errs.sort_by(f64::total_cmp);
    let actual: f64 = timing.samples.iter().map(|s| s.seconds * 1e9).sum();
    let predicted: f64 = predicted.iter().sum();
    ErrorStats {
        board: timing.samples.first().map_or(String::new(), |s| s.board.clone()),
        threads,
        jobs: errs.len(),
        median: quantile(&errs, 0.5),
        p90: quantile(&errs, 0.9),
        total: (predicted - actual).abs() / actual.max(1e-9),
        fitted_on,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-thread sample of `board` priced on its states, rows and cold input bytes alone.
    fn sample(board: &str, job: String, states: u64, rows: u64, cold_input_bytes: u64, ns: f64) -> Sample {
        let f = crate::sched::JobFeatures { states, rows, cold_input_bytes, ..Default::default() };
        Sample::new(board, 1, 1, job, &f, ns * 1e-9)
    }

    /// Jobs of 10 to a million states taking `fixed` ns plus 2 ns a state, and every third
    /// reading twice its states from memory at `cold` ns a byte.
    fn samples_with(fixed: f64, cold: f64) -> Vec<Sample> {
        (0..60)
            .map(|i| {
                let states = (10.0 * 1.3f64.powi(i)).round() as u64;
                let cold_bytes = if i % 3 == 0 { 2 * states } else { 0 };
                let ns = fixed + 2.0 * states as f64 + cold * cold_bytes as f64;
                sample("synthetic", format!("j{i}"), states, states.div_ceil(16), cold_bytes, ns)
            })
            .collect()
    }

    fn samples(fixed: f64) -> Vec<Sample> {
        samples_with(fixed, 0.0)
    }

    #[test]
    fn a_short_case_counts_more_than_its_time_and_less_than_a_long_one() {
        // Two cases of the same jobs priced per state alone: a long one at 2 ns a state, each
        // job 100 times over, and a short one at 3 ns. With w = c / t the rate is
        // sum c X / sum (c X / r) over the cases (X: a case's states), c = T^-CASE_BALANCE.
        let case = |board: &str, rate: f64, copies: u64| -> Vec<Sample> {
            (0..20 * copies)
                .map(|k| (k, 10_000 * (1 + k % 20)))
                .map(|(k, states)| sample(board, format!("{board}{k}"), states, 0, 0, rate * states as f64))
                .collect()
        };
        let mut samples = case("long", 2.0, 100);
        samples.extend(case("short", 3.0, 1));
        let states = |b: &str| samples.iter().filter(|s| s.board == b).map(|s| s.features.states as f64).sum::<f64>();
        let (xl, xs) = (states("long"), states("short"));
        let (cl, cs) = ((2.0 * xl).powf(-CASE_BALANCE), (3.0 * xs).powf(-CASE_BALANCE));
        let expected = (cl * xl + cs * xs) / (cl * xl / 2.0 + cs * xs / 3.0);
        let f = fit(&samples);
        let rate = f.coefficients[Term::State];
        assert!((rate - expected).abs() < 1e-3 && f.coefficients[Term::Job] < 1.0, "{rate} against {expected}: {f:?}");
        // Weighed by time alone the long case would set it at about 2.007 ns a state; here the
        // short case moves it further, but not half-way.
        assert!(rate > 2.03 && rate < 2.5, "{rate}");
    }

    #[test]
    fn the_time_between_jobs_is_recovered_from_gaps_made_with_it() {
        // 3 us a job and 0.12 ns a byte given back, with gaps of no bytes and of up to 8 MB,
        // and noise that sums to nothing.
        let gaps: Vec<(u64, f64)> = (0..200u64)
            .map(|i| {
                let bytes = if i % 3 == 0 { 0 } else { (i * i * 211) % 8_000_000 };
                let noise = if i % 2 == 0 { 400.0 } else { -400.0 };
                (bytes, (3000.0 + 0.12 * bytes as f64 + noise) * 1e-9)
            })
            .collect();
        let (a, b) = between_jobs(&gaps);
        assert!((a - 3000.0).abs() < 60.0 && (b - 0.12).abs() < 1e-4, "{a} ns a job, {b} ns a byte");
        let total: f64 = gaps.iter().map(|&(x, _)| a + b * x as f64).sum();
        let actual: f64 = gaps.iter().map(|&(_, y)| y * 1e9).sum();
        assert!((total - actual).abs() < 1e-6 * actual, "the sum is kept: {total} against {actual}");
        // Gaps that shrink as bytes grow give no price to bytes; none gives nothing.
        let falling: Vec<(u64, f64)> = (1..50u64).map(|i| (i * 1000, (5000.0 - i as f64) * 1e-9)).collect();
        assert_eq!(between_jobs(&falling).1, 0.0);
        assert_eq!(between_jobs(&[]), (0.0, 0.0));
    }

    #[test]
    fn bytes_read_back_from_memory_get_their_own_rate() {
        let f = fit(&samples_with(1_000.0, 0.4));
        let cold = f.coefficients[Term::ColdInputByte];
        assert!((cold - 0.4).abs() < 0.02, "{f:?}");
        assert!(f.kept.contains(&"per_cold_input_byte_ns"));
        // Bytes from memory that cost nothing more: no rate is invented.
        let none = fit(&samples(1_000.0));
        assert!(none.coefficients[Term::ColdInputByte] < 1e-6, "{none:?}");
    }

    #[test]
    fn tiny_jobs_get_their_fixed_cost_and_big_ones_keep_their_rate() {
        let f = fit(&samples(5_000.0));
        assert!((f.coefficients[Term::Job] - 5_000.0).abs() < 250.0, "{f:?}");
        assert!(f.kept.contains(&"per_job_ns"));
        let rate = f.coefficients[Term::State] + f.coefficients[Term::Row] / 16.0;
        assert!((rate - 2.0).abs() < 0.05, "{f:?}");
        // No fixed cost: none is invented.
        assert!(fit(&samples(0.0)).coefficients[Term::Job] < 1.0);
    }
}
