//! Contention: how much slower one thread's job runs while other threads are busy (shared
//! caches, memory bandwidth, hyperthreads sharing a core). `dab calibrate` measures the factor
//! at 1, 2, 4, ... and all hardware threads busy; between measured counts the factor is
//! interpolated linearly, past the last one it holds (a plan for more threads than the
//! machine has is a plan for a bigger machine or a cluster, not an oversubscribed one). The
//! simulator applies it from the number of jobs running at each moment.

use serde::{Deserialize, Serialize};

/// Per-thread slowdown against busy threads: `(busy threads, factor)` points in increasing
/// order of threads; one thread alone is 1. No points: no contention.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Contention(pub Vec<(u32, f64)>);

impl Contention {
    /// The points sorted by thread count, a point at 0 threads dropped, and an explicit
    /// (1, 1.0) first: what [`Contention::factor`] interpolates.
    fn points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        std::iter::once((1.0, 1.0)).chain(self.0.iter().filter(|&&(t, _)| t > 1).map(|&(t, f)| (t as f64, f)))
    }

    /// How many times slower a job runs with `busy` threads busy (itself included): linear
    /// between measured counts, the last measured factor past them, never below 1 (a factor
    /// under 1 is measurement noise: a busy machine does not speed a thread up).
    pub fn factor(&self, busy: usize) -> f64 {
        if self.0.is_empty() || busy <= 1 {
            return 1.0;
        }
        let n = busy as f64;
        let mut below = (1.0, 1.0);
        for (t, f) in self.points() {
            if t >= n {
                let (t0, f0) = below;
                let f = if t == t0 { f } else { f0 + (f - f0) * (n - t0) / (t - t0) };
                return f.max(1.0);
            }
            below = (t, f);
        }
        below.1.max(1.0)
    }

    /// The largest factor at any number of busy threads (at least 1; infinite for a curve
    /// with an infinite point): what bounds how far real time can run ahead of the work clock.
    pub(crate) fn max_factor(&self) -> f64 {
        // Linear pieces peak at their points, and past the last point the factor holds.
        self.0.iter().filter(|&&(t, _)| t > 1).map(|&(t, _)| self.factor(t as usize)).fold(1.0, f64::max)
    }

    /// Whether every factor is 1: the simulator then runs jobs at their cost.
    pub fn is_none(&self) -> bool {
        self.0.iter().all(|&(_, f)| f <= 1.0)
    }

    /// The points in increasing order of threads, one per count (the last given wins).
    pub fn normalised(mut self) -> Contention {
        self.0.sort_by_key(|&(t, _)| t);
        self.0.reverse();
        self.0.dedup_by_key(|&mut (t, _)| t);
        self.0.reverse();
        self
    }

    /// This curve carried to a machine where a probe measured `factor_now` with `threads_now`
    /// threads busy: each point multiplied by `(factor_now / self.factor(threads_now))` raised
    /// to `ln t / ln threads_now`, so one thread stays at 1, `threads_now` lands exactly on the
    /// probe, and the shape between them is the calibrated one. Points past `threads_now` get
    /// the whole correction; a point is added at `threads_now` if it had none.
    pub fn carried_to(&self, threads_now: usize, factor_now: f64) -> Contention {
        if threads_now <= 1 {
            return self.clone();
        }
        let correction = factor_now / self.factor(threads_now);
        let ln_now = (threads_now as f64).ln();
        let mut counts: Vec<u32> = self.0.iter().map(|&(t, _)| t).filter(|&t| t > 1).collect();
        counts.push(threads_now as u32);
        counts.sort_unstable();
        counts.dedup();
        let points = counts
            .into_iter()
            .map(|t| {
                let share = ((t as f64).ln() / ln_now).min(1.0);
                (t, self.factor(t as usize) * correction.powf(share))
            })
            .collect();
        Contention(points)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_factor_is_linear_between_points_and_holds_past_the_last() {
        let c = Contention(vec![(2, 1.1), (4, 1.5), (8, 2.3)]);
        assert_eq!(c.factor(1), 1.0);
        assert!((c.factor(2) - 1.1).abs() < 1e-12);
        assert!((c.factor(3) - 1.3).abs() < 1e-12);
        assert!((c.factor(6) - 1.9).abs() < 1e-12);
        assert!((c.factor(8) - 2.3).abs() < 1e-12);
        assert!((c.factor(64) - 2.3).abs() < 1e-12);
        // No points: no contention; a factor under 1 is noise.
        assert_eq!(Contention::default().factor(16), 1.0);
        assert_eq!(Contention(vec![(2, 0.97)]).factor(2), 1.0);
        // Between one thread and a first point past 2, the line starts at (1, 1).
        assert!((Contention(vec![(4, 1.6)]).factor(2) - 1.2).abs() < 1e-12);
    }

    #[test]
    fn the_largest_factor_bounds_the_factor_at_every_count() {
        let c = Contention(vec![(2, 1.1), (4, 2.5), (8, 1.8)]);
        assert_eq!(c.max_factor(), 2.5);
        assert!((1..100).all(|t| c.factor(t) <= c.max_factor()));
        assert_eq!(Contention::default().max_factor(), 1.0);
        assert_eq!(Contention(vec![(2, 0.9)]).max_factor(), 1.0);
        assert_eq!(Contention(vec![(2, f64::INFINITY)]).max_factor(), f64::INFINITY);
    }

    #[test]
    fn a_curve_carried_to_a_probe_keeps_one_thread_and_lands_on_the_probe() {
        let c = Contention(vec![(2, 1.05), (4, 1.2), (16, 2.0)]);
        let now = c.carried_to(8, 2.0);
        assert_eq!(now.factor(1), 1.0);
        assert!((now.factor(8) - 2.0).abs() < 1e-12, "{now:?}");
        // The correction grows with the threads busy: 2 threads get less of it than 4.
        let gain = |t: usize| now.factor(t) / c.factor(t);
        assert!(gain(2) > 1.0 && gain(2) < gain(4) && gain(4) < gain(8), "{now:?}");
        // A probe that agrees with the curve changes nothing.
        let same = c.carried_to(4, c.factor(4));
        for t in [1, 2, 3, 4, 8, 16] {
            assert!((same.factor(t) - c.factor(t)).abs() < 1e-12);
        }
        // A curve with no points takes the probe's factor at its count.
        assert!((Contention::default().carried_to(2, 1.3).factor(2) - 1.3).abs() < 1e-12);
    }
}
