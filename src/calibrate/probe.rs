//! Busy-thread timings: a whole solve run on one thread, alone and as one of k copies running
//! at once (each on its own one-thread pool, all started together), so that exactly k threads
//! are busy for the whole timing. The ratio of the two is the contention at k threads; the
//! machine probe is the same timing of a small fixed board, alone and with every hardware
//! thread busy, each read until two readings agree, with the machine's load meanwhile.

use std::sync::Barrier;

use crate::exec::execute;
use crate::game::{Board, Position};
use crate::plan::{PredictedRange, ReadyPlan};
use crate::sched::{Contention, CostModel, Probe, Probed};
use crate::solver::{Space, SpaceError};
use crate::support::{hardware_threads, last_level_cache_bytes, median, quantile};

use super::load::MachineLoad;
use super::machine::{host, machine, physical_cores};

/// The probe's workload: this board solved whole on one thread in [`PROBE_GROUPS`] groups (a
/// fraction of a second).
pub const PROBE_BOARD: &str = "2x5";
/// The probe's groups, fixed rather than the default grouping: in the two groups the default
/// gives since 2026-11-27, 2x5 takes 0.03 s, too short to read a machine's pace; in three,
/// 0.15-0.25 s, as every model before then was probed.
const PROBE_GROUPS: usize = 3;

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

/// Two readings of the probe agree when they differ by at most this share of the faster.
pub const PROBE_AGREE: f64 = 0.05;
/// Most readings of each timing (alone, all threads busy) before the probe gives up waiting
/// for two that agree and keeps the fastest.
pub const PROBE_MAX_READINGS: usize = 8;

/// Times the probe workload on this machine now: alone and with `threads` copies at once.
pub fn probe(threads: usize) -> Probe {
    steady_probe(threads).probe
}

/// A probe read until it holds still, with what the machine was doing meanwhile.
#[derive(Clone, Debug)]
pub struct SteadyProbe {
    /// The kept readings: of each timing, the faster of the first two readings that agree
    /// within [`PROBE_AGREE`] (the fastest of all where none did).
    pub probe: Probe,
    /// Every one-thread reading, in the order taken.
    pub alone: Vec<f64>,
    /// Every reading with every thread busy, in the order taken.
    pub busy: Vec<f64>,
    /// Both timings found two readings that agree.
    pub agreed: bool,
    /// What else the machine was doing while it was probed.
    pub load: MachineLoad,
}

impl SteadyProbe {
    /// How much slower than the kept one the one-thread readings ran, at their median: 0 on a
    /// steady machine.
    pub fn unsteadiness(&self) -> f64 {
        let mut alone = self.alone.clone();
        let kept = self.probe.one_thread_seconds;
        if alone.is_empty() || kept <= 0.0 { 0.0 } else { (median(&mut alone) / kept - 1.0).max(0.0) }
    }
}

/// The probe read until it holds still: each timing repeated until two readings agree within
/// [`PROBE_AGREE`] (at most [`PROBE_MAX_READINGS`]), the faster kept, since a reading is only
/// ever slowed by other work, never sped up; and the machine's load and steal meanwhile.
pub fn steady_probe(threads: usize) -> SteadyProbe {
    let plan = warmed_probe();
    let before = MachineLoad::sample();
    let (alone, alone_agreed) = until_two_agree(|| busy_seconds(&plan, &[1], 1)[0]);
    let (busy, busy_agreed) = match threads > 1 {
        true => until_two_agree(|| busy_seconds(&plan, &[threads], 1)[0]),
        false => (alone.clone(), alone_agreed),
    };
    let load = before.until_now(threads);
    let kept = |readings: &[f64], agreed: Option<f64>| agreed.unwrap_or_else(|| fastest(readings));
    SteadyProbe {
        probe: Probe {
            workload: probe_workload(),
            threads: threads as u32,
            one_thread_seconds: kept(&alone, alone_agreed),
            all_threads_seconds: kept(&busy, busy_agreed),
        },
        agreed: alone_agreed.is_some() && busy_agreed.is_some(),
        alone,
        busy,
        load,
    }
}

/// Readings of `read` until two agree within [`PROBE_AGREE`] or [`PROBE_MAX_READINGS`] are
/// taken: every reading, and the faster of the agreeing pair (None where none agreed).
fn until_two_agree(mut read: impl FnMut() -> f64) -> (Vec<f64>, Option<f64>) {
    let mut readings: Vec<f64> = Vec::new();
    while readings.len() < PROBE_MAX_READINGS {
        let now = read();
        let agreeing = readings.iter().copied().filter(|&r| agree(r, now)).min_by(f64::total_cmp).map(|r| r.min(now));
        readings.push(now);
        if agreeing.is_some() {
            return (readings, agreeing);
        }
    }
    (readings, None)
}

/// Whether two readings differ by at most [`PROBE_AGREE`] of the faster.
fn agree(a: f64, b: f64) -> bool {
    a > 0.0 && b > 0.0 && (a - b).abs() <= PROBE_AGREE * a.min(b)
}

/// The fastest of `readings` (0 for none).
fn fastest(readings: &[f64]) -> f64 {
    readings.iter().copied().filter(|r| *r > 0.0).min_by(f64::total_cmp).unwrap_or(0.0)
}

/// `model` carried to this machine by a fresh steady probe on every hardware thread, with
/// whether the model was made here (same host, CPU, cores and memory), and the probe's
/// readings.
pub fn probe_model_steady(model: &CostModel) -> (Probed, SteadyProbe) {
    let same = model.host == host() && model.machine == machine();
    let steady = steady_probe(hardware_threads());
    let mut probed = match keeps_model_pace(same, &steady) {
        true => model.probed(&model.probe, true),
        false => model.probed(&steady.probe, same),
    };
    if !same {
        probed.model.machine = format!("{} (the model of {} carried here by a probe)", machine(), model.machine);
        probed.model.host = host();
        probed.model.cores = physical_cores() as u32;
        probed.model.cache_bytes = last_level_cache_bytes();
    }
    (probed, steady)
}

/// `model` carried to this machine by a fresh probe on every hardware thread, with whether
/// the model was made here (same host, CPU, cores and memory).
pub fn probe_model(model: &CostModel) -> Probed {
    probe_model_steady(model).0
}

/// Whether a model keeps its own pace rather than the probe's: on the machine that made it,
/// while nothing else runs there. Its pace is the median of the paces its calibration read over
/// minutes; one moment's reading is the pace of whichever core the probe ran on, and this
/// project's shared machine runs its cores up to 1.5x apart, trading places within seconds,
/// while whole runs of 3x5 vary by under a tenth (docs/notes/cost-model-history.md). Where others
/// take a share of the machine, the probe reads what they leave, and carries the model.
pub fn keeps_model_pace(same_machine: bool, steady: &SteadyProbe) -> bool {
    same_machine && !steady.load.busy()
}

/// The range a run should fall in around a prediction, given what the probe saw: the model's
/// own range, its top raised by how much slower than the kept reading the machine ran while
/// probed, and on a busy machine by the share others took of it (their work may go on
/// through the run, and only ever slows it). Where the model kept its own pace
/// ([`keeps_model_pace`]), the range reaches the moment's pace too, on whichever side it lies:
/// a short run goes at the pace of its moment.
pub fn predicted_range(model: &CostModel, same_machine: bool, steady: &SteadyProbe) -> PredictedRange {
    let base = PredictedRange::MODEL;
    let busy = if steady.load.busy() { steady.load.steal + steady.load.others } else { 0.0 };
    let (faster, slower) = match keeps_model_pace(same_machine, steady) {
        true => {
            let moment = steady.probe.one_thread_seconds / model.probe.one_thread_seconds;
            if moment.is_finite() && moment > 0.0 {
                ((1.0 - moment).max(0.0), (moment - 1.0).max(0.0))
            } else {
                (0.0, 0.0)
            }
        }
        false => (0.0, 0.0),
    };
    PredictedRange { below: base.below + faster, above: base.above + steady.unsteadiness() + busy + slower }
}

/// What a probe did, for people, one short line each: the scale it found; where the model was
/// made elsewhere or for another kernel, that `dab calibrate` fits this machine and about how
/// long it takes here; and where the machine was busy or would not hold still, what it was
/// doing.
pub fn describe(model: &CostModel, probed: &Probed, steady: &SteadyProbe) -> Vec<String> {
    let now = &steady.probe;
    let kept = match keeps_model_pace(probed.same_machine, steady) {
        true => "; the model was made here and nothing else runs: its calibrated pace kept",
        false => "",
    };
    let mut lines = vec![format!(
        "probe: job costs x{:.2} (the {PROBE_BOARD} workload {:.3} s alone, model's {:.3} s; {:.2}x with {} threads busy; {} readings{kept})",
        probed.scale,
        now.one_thread_seconds,
        model.probe.one_thread_seconds,
        now.contention(),
        now.threads,
        steady.alone.len() + steady.busy.len(),
    )];
    let here = crate::solver::Simd::current();
    let elsewhere = match (probed.same_machine, model.simd != here) {
        (_, true) => Some(format!("for the kernel that uses {}, not {here}", model.simd)),
        (false, false) => Some(format!("on {}", model.machine)),
        (true, false) => None,
    };
    if let Some(elsewhere) = elsewhere {
        lines.push(format!(
            "note: the cost model was made {elsewhere}; dab calibrate fits this machine (about {} here) and then needs no carrying",
            crate::support::about_seconds(probed.model.calibrate_seconds.max(1.0))
        ));
    }
    if steady.load.busy() || !steady.agreed {
        let agreed = match steady.agreed {
            true => String::new(),
            false => format!("no two of {} readings agreed within {:.0} %, ", PROBE_MAX_READINGS, 100.0 * PROBE_AGREE),
        };
        lines.push(format!(
            "note: the machine is busy ({agreed}{}): the fastest readings were kept; a run may be slower than predicted",
            steady.load.words()
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_reads_until_two_readings_agree_and_keeps_the_faster() {
        let script = |readings: &'static [f64]| {
            let mut it = readings.iter().copied();
            move || it.next().expect("no more readings asked for than scripted")
        };
        // 0.30 (a burst), 0.20, 0.25, then 0.205 agrees with 0.20: 0.20 is kept.
        let (seen, kept) = until_two_agree(script(&[0.30, 0.20, 0.25, 0.205]));
        assert_eq!((seen.len(), kept), (4, Some(0.20)));
        // The first two agree: two readings.
        assert_eq!(until_two_agree(script(&[0.21, 0.20])), (vec![0.21, 0.20], Some(0.20)));
        // Never two within 5 %: every reading taken, none agreed (the caller keeps the fastest).
        let apart: Vec<f64> = (0..PROBE_MAX_READINGS).map(|i| 0.1 * 1.1f64.powi(i as i32)).collect();
        let leaked: &'static [f64] = Box::leak(apart.clone().into_boxed_slice());
        let (seen, kept) = until_two_agree(script(leaked));
        assert_eq!((seen, kept), (apart, None));
        assert_eq!(fastest(&[0.3, 0.1, 0.2]), 0.1);
    }

    #[test]
    fn the_range_widens_above_with_an_unsteady_or_busy_machine_and_never_below() {
        let steady = SteadyProbe {
            probe: Probe { workload: probe_workload(), threads: 2, one_thread_seconds: 0.2, all_threads_seconds: 0.21 },
            alone: vec![0.2, 0.2],
            busy: vec![0.21, 0.21],
            agreed: true,
            load: MachineLoad::default(),
        };
        let model = CostModel::built_in();
        assert_eq!(predicted_range(&model, false, &steady), PredictedRange::MODEL);
        // Readings at a median 10 % slower than the kept one, and others took 30 % of the machine.
        let busy = SteadyProbe {
            alone: vec![0.2, 0.22, 0.23],
            load: MachineLoad { others: 0.3, ..MachineLoad::default() },
            ..steady.clone()
        };
        for same in [false, true] {
            // Busy: the probe carries the model even where it was made, and the moment is the
            // pace.
            let r = predicted_range(&model, same, &busy);
            assert_eq!(r.below, PredictedRange::MODEL.below);
            assert!((r.above - (PredictedRange::MODEL.above + 0.1 + 0.3)).abs() < 1e-9, "{r:?}");
        }
    }

    #[test]
    fn on_the_machine_that_made_it_and_quiet_the_model_keeps_its_pace_and_the_range_reaches_the_moment() {
        let model = CostModel::built_in();
        let at = |one: f64, others: f64| SteadyProbe {
            probe: Probe { one_thread_seconds: one, all_threads_seconds: one, ..model.probe.clone() },
            alone: vec![one, one],
            busy: vec![one, one],
            agreed: true,
            load: MachineLoad { others, ..MachineLoad::default() },
        };
        let m = model.probe.one_thread_seconds;
        // The probe caught a core 40 % slower than the model's pace: the model is kept, and the
        // range reaches 40 % above.
        let slow = at(1.4 * m, 0.0);
        assert!(keeps_model_pace(true, &slow) && !keeps_model_pace(false, &slow));
        let r = predicted_range(&model, true, &slow);
        assert!(
            (r.above - (PredictedRange::MODEL.above + 0.4)).abs() < 1e-9 && r.below == PredictedRange::MODEL.below,
            "{r:?}"
        );
        // A faster moment reaches below.
        let r = predicted_range(&model, true, &at(0.8 * m, 0.0));
        assert!(
            (r.below - (PredictedRange::MODEL.below + 0.2)).abs() < 1e-9 && r.above == PredictedRange::MODEL.above,
            "{r:?}"
        );
        // Others running: the probe's pace, as on another machine.
        assert!(!keeps_model_pace(true, &at(1.4 * m, 0.3)));
    }

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
