//! Axes and numbers: the axis types plotters lacks (the measured thread counts of a scaling
//! chart, the processor lanes of a Gantt chart, a log axis that ticks inside one decade) and
//! the short forms of numbers every chart writes on its ticks, legends and captions.

use std::collections::BTreeSet;

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, ValueFormatter};
use plotters::prelude::*;

/// Log axes of points (the duration scatter, the cluster sweep) reach this factor past the
/// extreme values, so no point sits on a frame.
pub(super) const PAD: f64 = 1.15;

/// The threads axis of a scaling chart: linear, from a little before the fewest threads measured
/// (never below 0) to a little after the most, with ticks at the thread counts measured (every
/// k-th where they would crowd) rather than at round numbers between them.
#[derive(Clone)]
pub(super) struct Threads {
    /// The left end: a little before the fewest threads, never below 0.
    pub(super) lo: f64,
    /// The right end: a little after the most threads.
    pub(super) hi: f64,
    /// The thread counts measured, increasing, each once.
    ticks: Vec<u32>,
}

impl Threads {
    /// The axis of the thread counts `threads` (in any order, repeated or not).
    pub(super) fn new(threads: impl IntoIterator<Item = u32>) -> Threads {
        let ticks: Vec<u32> = threads.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
        let (first, last) =
            (f64::from(ticks.first().copied().unwrap_or(1)), f64::from(ticks.last().copied().unwrap_or(1)));
        let pad = 0.05 * last + 0.15;
        Threads { lo: (first - pad).max(0.0), hi: last + pad, ticks }
    }

    /// The most threads measured.
    pub(super) fn last(&self) -> f64 {
        f64::from(self.ticks.last().copied().unwrap_or(1))
    }
}

impl Ranged for Threads {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, (from, to): (i32, i32)) -> i32 {
        from + ((value - self.lo) / (self.hi - self.lo) * f64::from(to - from)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Grid lines at the measured counts only.
        if hint.weight().allow_light_points() {
            return Vec::new();
        }
        let stride = self.ticks.len().div_ceil(hint.max_num_points().max(1)).max(1);
        self.ticks.iter().step_by(stride).map(|&t| f64::from(t)).collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Threads {
    fn format(value: &f64) -> String {
        compact(*value)
    }
}

/// A processor-count axis: linear from 0 to `hi`, ticked at whole counts only, the multiples of
/// the finest step of 1, 2, 5, 10, 20, 50, ... that leaves room for each label (never 1.5
/// threads, whatever the range: a 2-thread plan is ticked 1 and 2).
#[derive(Clone, Copy)]
pub(super) struct Counts {
    /// The right end, above 0.
    pub(super) hi: f64,
}

impl Counts {
    /// The ticks when `most` fit: every multiple of the step, from the step to `hi`.
    fn ticks(&self, most: usize) -> Vec<f64> {
        let last = self.hi.floor() as u64;
        if last == 0 {
            return Vec::new();
        }
        let most = most.max(1) as u64;
        let mut decade = 1u64;
        let step = loop {
            if let Some(&s) = [decade, 2 * decade, 5 * decade].iter().find(|&&s| last / s <= most) {
                break s;
            }
            decade = decade.saturating_mul(10);
        };
        (1..=last / step).map(|k| (k * step) as f64).collect()
    }
}

impl Ranged for Counts {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, (from, to): (i32, i32)) -> i32 {
        from + (value / self.hi * f64::from(to - from)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Grid lines at the ticks only: a light line between two counts would mark none.
        if hint.weight().allow_light_points() {
            return Vec::new();
        }
        self.ticks(hint.max_num_points())
    }

    fn range(&self) -> std::ops::Range<f64> {
        0.0..self.hi
    }
}

impl ValueFormatter<f64> for Counts {
    fn format(value: &f64) -> String {
        compact(*value)
    }
}

/// The Gantt y axis: processor p's lane is [p, p + 1), drawn top down so that P0 is on top,
/// with a tick in the middle of every `stride`-th lane.
pub(super) struct Lanes {
    /// Lanes, one per processor.
    pub(super) procs: u32,
    /// A tick every this many lanes (at least 1).
    pub(super) stride: u32,
}

impl Ranged for Lanes {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, (bottom, top): (i32, i32)) -> i32 {
        top + ((value / f64::from(self.procs)) * f64::from(bottom - top)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Lane names only: no light grid lines between them.
        if hint.weight().allow_light_points() {
            return Vec::new();
        }
        (0..self.procs).step_by(self.stride as usize).map(|p| f64::from(p) + 0.5).collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        0.0..f64::from(self.procs)
    }
}

impl ValueFormatter<f64> for Lanes {
    fn format(value: &f64) -> String {
        format!("P{}", value.floor())
    }
}

/// A log axis over [lo, hi], 0 < lo < hi, with ticks at 1, 2 and 5 or finer steps of each decade
/// as far as the room allows; plotters' own log axis puts no tick at all on a range inside one
/// decade, as 300 to 800.
#[derive(Clone, Copy)]
pub(super) struct Log {
    /// The low end, positive.
    pub(super) lo: f64,
    /// The high end, above `lo`.
    pub(super) hi: f64,
}

impl Log {
    /// The values m · 10^(k - 1) in range, for every mantissa m in `tenths` and every decade k
    /// that is a multiple of `every`.
    fn ticks(&self, tenths: &[u32], every: i32) -> Vec<f64> {
        let (first, last) = (self.lo.log10().floor() as i32, self.hi.log10().ceil() as i32);
        let decades = (first..=last).filter(|k| k.rem_euclid(every) == 0);
        let values = decades.flat_map(|k| tenths.iter().map(move |&m| f64::from(m) * 10f64.powi(k - 1)));
        values.filter(|v| (self.lo..=self.hi).contains(v)).collect()
    }
}

impl Ranged for Log {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, (from, to): (i32, i32)) -> i32 {
        let share = (value.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln());
        from + (share * f64::from(to - from)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let most = hint.max_num_points().max(2);
        let decades = (self.hi / self.lo).log10().ceil().max(1.0) as usize;
        let every = decades.div_ceil(most).max(1);
        let mut ticks = self.ticks(&[10], every as i32);
        if every > 1 {
            return ticks;
        }
        // Ever finer steps while they fit, and past that until there are two ticks to read by.
        let tenths: Vec<u32> = (10..100).collect();
        for steps in [&[10, 20, 50][..], &[10, 20, 30, 40, 50, 60, 70, 80, 90], &tenths[..]] {
            let more = self.ticks(steps, 1);
            if more.len() > most && ticks.len() >= 2 {
                break;
            }
            ticks = more;
        }
        ticks
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Log {
    fn format(value: &f64) -> String {
        compact(*value)
    }
}

/// An axis end that plotters can draw: positive, finite.
pub(super) fn top(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 { v } else { 1.0 }
}

/// A ratio of times the one way every report writes it: actual over predicted, "0.91x".
pub fn times(ratio: f64) -> String {
    format!("{ratio:.2}x")
}

/// "1 job", "1,452 jobs".
pub(super) fn count(n: usize, what: &str) -> String {
    crate::support::count_of(n as u64, what)
}

/// [`compact`] as plotters' tick formatters take it.
pub(super) fn compact_tick(v: &f64) -> String {
    compact(*v)
}

/// Tick and legend numbers, short enough not to collide: 0.0015, 0.25, 12.5, 1.5k, 120G.
pub(super) fn compact(v: f64) -> String {
    const SUFFIX: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    if !v.is_finite() {
        return v.to_string();
    }
    if v.abs() < 1e3 {
        let digits = if v.abs() >= 100.0 {
            1
        } else if v.abs() >= 1.0 || v == 0.0 {
            2
        } else {
            // Three significant digits: log axes tick durations far below 1 (0.0015 s).
            (2 - v.abs().log10().floor() as i32).max(3) as usize
        };
        return trim(format!("{v:.digits$}"));
    }
    let mut scaled = v;
    let mut power = 0;
    while scaled.abs() >= 1000.0 && power + 1 < SUFFIX.len() {
        scaled /= 1000.0;
        power += 1;
    }
    let digits = if scaled.abs() >= 100.0 {
        0
    } else if scaled.abs() >= 10.0 {
        1
    } else {
        2
    };
    trim(format!("{scaled:.digits$}")) + SUFFIX[power]
}

/// "12.50" → "12.5", "3.00" → "3", "-0" → "0".
fn trim(s: String) -> String {
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { &s };
    if s == "-0" { "0".to_string() } else { s.to_string() }
}

#[cfg(test)]
mod tests {
    use plotters::coord::ranged1d::{BoldPoints, Ranged};

    use super::{Counts, Log, compact};

    #[test]
    fn log_ticks() {
        let ticks = |lo, hi| Log { lo, hi }.key_points(10);
        // Inside one decade, where plotters' own log axis has none.
        assert_eq!(ticks(300.0, 800.0), [300.0, 400.0, 500.0, 600.0, 700.0, 800.0]);
        assert_eq!(ticks(1300.0, 1700.0), [1300.0, 1400.0, 1500.0, 1600.0, 1700.0]);
        assert_eq!(ticks(90.0, 1100.0), [100.0, 200.0, 500.0, 1000.0]);
        assert_eq!(ticks(0.5, 5e4), [1.0, 10.0, 100.0, 1000.0, 10_000.0]);
        // Too many decades for one tick each: every other one.
        assert_eq!(ticks(1.0, 1e15).len(), 8);
    }

    #[test]
    fn processor_counts_are_ticked_at_whole_counts_only() {
        let ticks = |hi, most| Counts { hi }.key_points(BoldPoints(most));
        // A plan for 2 threads: 1 and 2, never 0.5 or 1.5.
        assert_eq!(ticks(2.06, 10), [1.0, 2.0]);
        assert_eq!(ticks(1.03, 10), [1.0]);
        assert_eq!(ticks(3.09, 12), [1.0, 2.0, 3.0]);
        // A 64-thread sweep and one to 150: round steps, every tick a whole count.
        assert_eq!(ticks(65.92, 10), [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]);
        assert_eq!(ticks(65.92, 40), (1..=32).map(|k| f64::from(2 * k)).collect::<Vec<_>>());
        assert_eq!(ticks(154.5, 10), [20.0, 40.0, 60.0, 80.0, 100.0, 120.0, 140.0]);
        assert!(ticks(0.5, 5).is_empty(), "no whole count in range");
        for (hi, most) in [(7.2, 3), (16.5, 4), (1e4, 6)] {
            let t = ticks(hi, most);
            assert!(!t.is_empty() && t.len() <= most.max(1), "{hi}: {t:?}");
            assert!(t.iter().all(|v| v.fract() == 0.0 && *v >= 1.0), "{hi}: {t:?}");
        }
    }

    #[test]
    fn compact_numbers() {
        let cases = [
            (0.0, "0"),
            (0.25, "0.25"),
            (2.5, "2.5"),
            (12.345, "12.35"),
            (999.0, "999"),
            (1500.0, "1.5k"),
            (12_000.0, "12k"),
            (1.2e11, "120G"),
            (2.5e6, "2.5M"),
            (-3e4, "-30k"),
            (0.0015, "0.0015"),
            (0.0002, "0.0002"),
            (0.060000000000000005, "0.06"),
        ];
        for (v, s) in cases {
            assert_eq!(compact(v), s, "{v}");
        }
    }
}
