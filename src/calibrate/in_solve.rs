//! Contention inside a solve: how much slower the jobs of one all-threads solve ran than the
//! same jobs of the one-thread solve, given how many jobs were running beside each. Copies of
//! a whole solve running at once (the curve's shape) each hold their own partitions, so they
//! press on the caches harder than the threads of one solve, which share what they read: on
//! the 2-core machine two copies ran 1.05-1.08x slower while the jobs of a two-thread solve
//! ran 1.00-1.03x their one-thread time. The curve is therefore carried, as a probe carries
//! it, to the level that makes the solves' own jobs come out at the time they took.

use crate::sched::Contention;

/// One job timed in the one-thread solve and in the all-threads solve of the same plan.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct SharedJob {
    /// Seconds it took in the one-thread solve.
    pub(super) alone: f64,
    /// Seconds it took in the all-threads solve.
    pub(super) shared: f64,
    /// Seconds of the all-threads solve's run of it with k + 1 jobs running (itself
    /// included), at index k.
    pub(super) busy: Vec<f64>,
}

/// Per job (`jobs` of them, indexed as in `spans`), the seconds it ran with 1, 2, ...
/// `threads` jobs running at once (itself included), from `(job, start, end)` spans of one run.
/// A count past `threads` (a trace that overlaps more) is put at `threads`.
pub(super) fn busy_profile(spans: &[(usize, f64, f64)], jobs: usize, threads: usize) -> Vec<Vec<f64>> {
    let threads = threads.max(1);
    let mut profile = vec![vec![0.0; threads]; jobs];
    // Ends sort before starts at one moment: a job handed its thread by another is not
    // counted as running beside it.
    let mut events: Vec<(f64, bool, usize)> =
        spans.iter().flat_map(|&(j, s, e)| [(s, true, j), (e.max(s), false, j)]).collect();
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut running: Vec<usize> = Vec::with_capacity(threads);
    let mut since = events.first().map_or(0.0, |e| e.0);
    for (at, start, job) in events {
        if !running.is_empty() && at > since {
            let k = running.len().min(threads) - 1;
            for &j in &running {
                profile[j][k] += at - since;
            }
        }
        since = at;
        if start {
            running.push(job);
        } else if let Some(i) = running.iter().position(|&j| j == job) {
            running.swap_remove(i);
        }
    }
    profile
}

/// The mean slowdown `curve` gives a job that ran `busy` seconds at each count of busy threads
/// (1 for a job that ran no measurable time).
pub(super) fn mean_factor(curve: &Contention, busy: &[f64]) -> f64 {
    let total: f64 = busy.iter().sum();
    if total <= 0.0 {
        return 1.0;
    }
    busy.iter().enumerate().map(|(k, &s)| s * curve.factor(k + 1)).sum::<f64>() / total
}

/// `copies` (the curve from copies of a solve) carried to `threads` threads at the factor that
/// makes `jobs`, each slowed by the carried curve at the busy counts it ran with, take in all
/// the seconds they took in the all-threads solve: the shape from the copies, the level from
/// the solve. The factor is found by bisection (the total grows with it); it is never below 1
/// (faster than alone is noise), and with one thread, or no job that ran, the curve is kept.
pub(super) fn in_solve(copies: &Contention, threads: usize, jobs: &[SharedJob]) -> Contention {
    let shared: f64 = jobs.iter().map(|j| j.shared).sum();
    if threads <= 1 || shared <= 0.0 {
        return copies.clone();
    }
    let predicted = |f: f64| -> f64 {
        let curve = copies.carried_to(threads, f);
        jobs.iter().map(|j| j.alone * mean_factor(&curve, &j.busy)).sum()
    };
    let (mut lo, mut hi) = (1.0, 2.0);
    if predicted(lo) >= shared {
        return copies.carried_to(threads, 1.0);
    }
    // A total that no factor reaches (every job ran alone) stops the doubling.
    while predicted(hi) < shared && hi < 1e6 {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if predicted(mid) < shared {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    copies.carried_to(threads, 0.5 * (lo + hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_counts_each_job_s_time_at_each_number_running() {
        // Two threads: job 0 from 0 to 4, job 1 from 1 to 2, job 2 from 2 to 5 (it takes job
        // 1's thread at 2: ends before starts), job 3 from 5 to 6 alone.
        let spans = [(0, 0.0, 4.0), (1, 1.0, 2.0), (2, 2.0, 5.0), (3, 5.0, 6.0)];
        let p = busy_profile(&spans, 4, 2);
        assert_eq!(p, vec![vec![1.0, 3.0], vec![0.0, 1.0], vec![1.0, 2.0], vec![1.0, 0.0]]);
        // Each job's profile adds up to its span.
        for &(j, s, e) in &spans {
            assert_eq!(p[j].iter().sum::<f64>(), e - s);
        }
    }

    #[test]
    fn the_solve_s_jobs_give_back_the_curve_they_were_slowed_by() {
        // Copies measured 1.08x at 2, 1.2x at 4 and 1.6x at 8; inside a solve the threads
        // slow each other less: the same shape carried to 1.3x at 8.
        let copies = Contention(vec![(2, 1.08), (4, 1.2), (8, 1.6)]);
        let known = copies.carried_to(8, 1.3);
        let mut jobs = Vec::new();
        for i in 0..200 {
            let alone = 1e-3 * (1 + i % 7) as f64;
            // Most time with all 8 busy, some with fewer as the solve's levels drain.
            let mut busy = vec![0.0; 8];
            busy[7] = 0.7 * alone;
            busy[i % 8] += 0.3 * alone;
            let shared = alone * mean_factor(&known, &busy);
            jobs.push(SharedJob { alone, shared, busy });
        }
        let got = in_solve(&copies, 8, &jobs);
        for t in 1..=12 {
            assert!((got.factor(t) - known.factor(t)).abs() < 1e-9, "{t}: {got:?} against {known:?}");
        }
        // Jobs no slower than alone give no contention at the solve's count; one thread keeps
        // the copies' curve.
        let calm: Vec<SharedJob> = jobs.iter().map(|j| SharedJob { shared: 0.99 * j.alone, ..j.clone() }).collect();
        assert_eq!(in_solve(&copies, 8, &calm).factor(8), 1.0);
        assert_eq!(in_solve(&copies, 1, &jobs), copies);
    }

    #[test]
    fn on_two_threads_the_factor_is_the_solve_s_time_over_the_time_alone() {
        let copies = Contention(vec![(2, 1.06)]);
        let jobs = [
            SharedJob { alone: 2.0, shared: 2.04, busy: vec![0.0, 2.04] },
            SharedJob { alone: 1.0, shared: 1.02, busy: vec![0.0, 1.02] },
        ];
        let got = in_solve(&copies, 2, &jobs);
        assert!((got.factor(2) - 1.02).abs() < 1e-9, "{got:?}");
    }
}
