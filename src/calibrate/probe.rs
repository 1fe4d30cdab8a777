//! Busy-thread timings: a whole solve run on one thread, alone and as one of k copies running
//! at once (each on its own one-thread pool, all started together), so that exactly k threads
//! are busy for the whole timing. The ratio of the two is the contention at k threads; the
//! machine probe is the same timing of a small fixed board, alone and with every hardware
//! thread busy.

use std::sync::Barrier;

use crate::exec::execute;
use crate::game::{Board, Position};
use crate::plan::ReadyPlan;
use crate::sched::{Contention, CostModel, Probe, Probed};
use crate::solver::{Space, SpaceError};
use crate::support::{hardware_threads, human_bytes, last_level_cache_bytes, median, quantile};

use super::machine::{host, machine, physical_cores};

/// The probe's workload: this board solved whole on one thread in [`PROBE_GROUPS`] groups (a
/// fraction of a second).
pub const PROBE_BOARD: &str = "2x5";
/// The probe's groups, fixed rather than the default grouping: in the two groups the default
/// gives since 2026-11-27, 2x5 takes 0.03 s, too short to read a machine's pace; in three,
/// 0.15-0.25 s, as every model before then was probed.
const PROBE_GROUPS: usize = 3;
/// Rounds of the probe (each: alone, then every thread busy), after one warm-up solve that
/// is not timed, since the first solve in a process runs slower (page faults, cold caches);
/// the median of each is kept.
pub(crate) const PROBE_ROUNDS: usize = 4;

/// Median wall seconds of one copy of `plan` solved on one thread, for each of `counts` copies
/// running at once, the counts taken in turn `repeats` times (so every count sees the same
/// moments of a shared machine). A copy's time is the mean over the copies of that round.
pub(crate) fn busy_seconds(plan: &ReadyPlan, counts: &[usize], repeats: usize) -> Vec<f64> {
    let mut times = vec![Vec::new(); counts.len()];
    for _ in 0..repeats.max(1) {
        for (k, &copies) in counts.iter().enumerate() {
            let copies = copies.max(1);
            let start = Barrier::new(copies);
            let seconds: f64 = std::thread::scope(|s| {
                let handles: Vec<_> = (0..copies)
                    .map(|_| {
                        s.spawn(|| {
                            start.wait();
                            execute(plan, 1, false, None).seconds
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().expect("a solve does not panic")).sum()
            });
            times[k].push(seconds / copies as f64);
        }
    }
    times.iter_mut().map(|t| median(t)).collect()
}

/// The machine's pace while the cases are timed: the probe's workload solved once on one
/// thread before each round of timings. A shared machine changes speed within minutes, so one
/// probe at the end of a calibration can catch a moment off the moments the costs were fitted
/// at; the model keeps instead the median pace, which is the machine of its costs.
pub(super) struct Pace {
    plan: ReadyPlan,
    seconds: Vec<f64>,
}

impl Pace {
    /// The workload, warmed up.
    pub(super) fn new() -> Pace {
        Pace { plan: warmed_probe(), seconds: Vec::new() }
    }

    /// Times the workload now.
    pub(super) fn take(&mut self) {
        self.seconds.push(execute(&self.plan, 1, false, None).seconds);
    }

    /// How steady the machine was while the cases were timed: the 10th percentile, median and
    /// 90th percentile of the paces (None without paces).
    pub(super) fn spread(&self) -> Option<PaceSpread> {
        PaceSpread::of(&self.seconds)
    }

    /// `probe` carried to the median pace: its one-thread time that median, its all-threads
    /// time scaled alike (its contention kept). Unchanged without paces.
    pub(super) fn carry(&self, probe: &mut Probe) {
        let Some(pace) = self.spread().filter(|_| probe.one_thread_seconds > 0.0) else { return };
        let f = pace.median / probe.one_thread_seconds;
        probe.one_thread_seconds *= f;
        probe.all_threads_seconds *= f;
    }
}

/// The spread of a calibration's paces: seconds of the probe's workload at the 10th
/// percentile, the median and the 90th percentile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaceSpread {
    /// The 10th percentile.
    pub low: f64,
    /// The median.
    pub median: f64,
    /// The 90th percentile.
    pub high: f64,
}

/// Above this spread (90th over 10th percentile of the paces, less 1) a calibration says the
/// machine was not steady: the paces are how a user can tell a calibration taken while the
/// machine drifted.
const UNSTEADY: f64 = 0.10;

impl PaceSpread {
    fn of(seconds: &[f64]) -> Option<PaceSpread> {
        let mut sorted: Vec<f64> = seconds.iter().copied().filter(|s| s.is_finite() && *s > 0.0).collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let q = |f| quantile(&sorted, f);
        // The median as the model's probe keeps it (the upper middle of an even count).
        Some(PaceSpread { low: q(0.1), median: median(&mut sorted.clone()), high: q(0.9) })
    }

    /// 90th over 10th percentile, less 1.
    pub fn width(&self) -> f64 {
        self.high / self.low - 1.0
    }

    /// Whether the machine was too unsteady for the model to be trusted to better than the
    /// spread: wider than [`UNSTEADY`].
    pub fn unsteady(&self) -> bool {
        self.width() > UNSTEADY
    }
}

/// The probe's workload, solved once untimed: a process's first solve runs slow.
fn warmed_probe() -> ReadyPlan {
    let plan = whole(PROBE_BOARD, Some(PROBE_GROUPS)).expect("the probe board has a space");
    execute(&plan, 1, false, None);
    plan
}

/// The plan of a whole solve of the empty `board` in `groups` groups (None: its default).
fn whole(board: &str, groups: Option<usize>) -> Result<ReadyPlan, SpaceError> {
    let board: Board = board.parse().expect("a built-in board");
    Ok(ReadyPlan::whole(Space::new(Position::empty(board), groups)?))
}

/// The contention curve of this machine: a whole solve of `board` (with `groups`) timed with
/// each of `counts` copies running at once, each count's time over the time alone.
pub fn contention_curve(
    board: &str,
    groups: Option<usize>,
    counts: &[usize],
    repeats: usize,
) -> Result<Contention, SpaceError> {
    let plan = whole(board, groups)?;
    let mut all = vec![1];
    all.extend(counts.iter().copied().filter(|&k| k > 1));
    Ok(curve(&all, &busy_seconds(&plan, &all, repeats)))
}

/// The curve from a copy's seconds at each count of copies, the first count being 1: each
/// count's seconds over the seconds alone.
pub fn curve(counts: &[usize], seconds: &[f64]) -> Contention {
    let alone = seconds[0];
    Contention(counts.iter().zip(seconds).skip(1).map(|(&k, &s)| (k as u32, s / alone)).collect())
}

/// The probe's workload in words, as a model file names it.
pub fn probe_workload() -> String {
    format!("{PROBE_BOARD} in {PROBE_GROUPS} groups on one thread")
}

/// Times the probe workload on this machine now: alone and with `threads` copies at once.
pub fn probe(threads: usize) -> Probe {
    let plan = warmed_probe();
    let counts = if threads > 1 { vec![1, threads] } else { vec![1] };
    let seconds = busy_seconds(&plan, &counts, PROBE_ROUNDS);
    Probe {
        workload: probe_workload(),
        threads: threads as u32,
        one_thread_seconds: seconds[0],
        all_threads_seconds: *seconds.last().expect("one count at least"),
    }
}

/// `model` carried to this machine by a fresh probe on every hardware thread, with whether
/// the model was made here (same host, CPU, cores and memory).
pub fn probe_model(model: &CostModel) -> Probed {
    let same = model.host == host() && model.machine == machine();
    let mut probed = model.probed(&probe(hardware_threads()), same);
    if !same {
        probed.model.machine = format!("{} (the model of {} carried here by a probe)", machine(), model.machine);
        probed.model.host = host();
        probed.model.cores = physical_cores() as u32;
        probed.model.cache_bytes = last_level_cache_bytes();
    }
    probed
}

/// What a probe did, for people: the model's machine, this one, the probe times and the scale;
/// for a model from another machine, how to measure this one and about how long that takes.
pub fn describe(model: &CostModel, probed: &Probed) -> String {
    let now = &probed.model.probe;
    let mut text = format!(
        "cost model from {} (host {}); this machine: {} (host {}); probe {}: {:.3} s alone (model {:.3} s), \
         {:.2}x with {} threads busy (model {:.2}x with {}): job costs scaled x{:.3}, contention with {} busy {:.2}x",
        model.machine,
        model.host,
        machine(),
        host(),
        PROBE_BOARD,
        now.one_thread_seconds,
        model.probe.one_thread_seconds,
        now.contention(),
        now.threads,
        model.probe.contention(),
        model.probe.threads,
        probed.scale,
        now.threads,
        probed.contention
    );
    if probed.model.cache_bytes != model.cache_bytes {
        text += &format!(
            "; inputs past this machine's last-level cache of {} priced as read from memory (the model's machine: {})",
            human_bytes(probed.model.cache_bytes),
            human_bytes(model.cache_bytes)
        );
    }
    let here = crate::solver::Simd::current();
    if model.simd != here {
        text += &format!(
            "; the model prices the kernel that uses {} and this process runs the one that uses {here} \
             (dab calibrate fits this one)",
            model.simd
        );
    }
    if !probed.same_machine {
        text += &format!(
            "; the model was made on another machine: run dab calibrate to measure this one (about {:.0} s here)",
            probed.model.calibrate_seconds.max(1.0)
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pace_spread_takes_the_10th_and_90th_percentiles() {
        // Twenty paces of 0.1 to 0.1076 s, and one of 0.5 s that a burst made: the percentiles
        // leave the burst out.
        let mut paces: Vec<f64> = (0..20).map(|i| 0.1 + 0.0004 * i as f64).collect();
        paces.push(0.5);
        let s = PaceSpread::of(&paces).unwrap();
        assert_eq!((s.low, s.median, s.high), (paces[2], paces[10], paces[18]));
        assert!((s.width() - (paces[18] / paces[2] - 1.0)).abs() < 1e-12 && s.width() < UNSTEADY);
        let unsteady = PaceSpread::of(&[0.1, 0.1, 0.1, 0.13, 0.13, 0.13]).unwrap();
        assert!(unsteady.width() > UNSTEADY, "{unsteady:?}");
        assert_eq!(PaceSpread::of(&[]), None);
        assert_eq!(PaceSpread::of(&[f64::NAN, 0.0]), None);
    }

    #[test]
    fn the_curve_of_synthetic_timings_is_the_curve_they_were_made_from() {
        // A machine whose threads slow each other by 1 + 0.05 (k - 1) up to 8 cores, and share
        // a core two by two past them: 1.35 * 1.6 at 16.
        let known = Contention(vec![(2, 1.05), (4, 1.15), (8, 1.35), (16, 2.16)]);
        let counts = [1, 2, 4, 8, 16];
        let alone = 0.8;
        let seconds: Vec<f64> = counts.iter().map(|&k| alone * known.factor(k)).collect();
        let got = curve(&counts, &seconds);
        for k in 1..=20 {
            assert!((got.factor(k) - known.factor(k)).abs() < 1e-12, "{k}: {got:?}");
        }
        assert!((got.factor(12) - (1.35 + (2.16 - 1.35) / 2.0)).abs() < 1e-12, "linear between the knees");
    }
}
