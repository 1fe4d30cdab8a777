//! `dab calibrate`: time the kernel on this machine, fit the cost model, save it under sims/.

use std::path::PathBuf;

use clap::Args;

use dab::calibrate;
use dab::calibrate::{Calibration, Case, DEFAULT_CASES, DEFAULT_HOLDOUT, Stage};
use dab::sched::{CostModel, model_name};
use dab::solver::Simd;

use super::CliResult;

#[derive(Args)]
pub struct CalibrateArgs {
    /// Boards to fit on, separated by commas: `MxN`, `MxN/G` (G groups), `MxN@U` (U lines left
    /// undrawn: whole orbits of the board's symmetries drawn, so a big board gives a solve of a
    /// chosen size; the default's 3x5@32 has levels past the last-level cache, whose reads from
    /// memory the model prices apart), and any of them with `~N`: only N of its jobs, from
    /// small to the largest within 1 GiB, each timed alone on one thread from stand-in inputs
    /// (the default's 3x5/3~12, 3x5/2~12 and 4x4/3~12: the wide rows and gigabyte levels of
    /// the 3x5 and 4x4 solves, which no solve of seconds has; add the board you will run, as
    /// BOARD/G~12).
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_CASES)]
    pub cases: Vec<Case>,
    /// Boards timed but not fitted on, to test the model.
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_HOLDOUT)]
    pub holdout: Vec<Case>,
    /// Threads for the all-threads timing (default: RAYON_NUM_THREADS, else all cores).
    #[arg(long, value_name = "P")]
    pub threads: Option<usize>,
    /// Rounds, each solving every case once at each thread count; each job's median time is fitted
    /// (store writes are timed as many times).
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
    /// Where to save the model (default: sims/cost-model.json, or sims/cost-model-vbmi.json
    /// where the kernel takes AVX-512 VBMI: the file `dab plan` and `dab run` look for).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Every timed job, as CSV.
    #[arg(long, default_value = "reports/runs/calibration.csv")]
    pub samples: PathBuf,
    /// Where to time store writes: a folder on the disk that will hold stores (default: the
    /// system's temporary folder).
    #[arg(long, value_name = "DIR")]
    pub store_dir: Option<PathBuf>,
    /// Only time store writes, and add them to the model already in --output.
    #[arg(long)]
    pub store_only: bool,
}

/// Thread counts for people: `1 and 2`.
fn counts(counts: &[usize]) -> String {
    counts.iter().map(usize::to_string).collect::<Vec<_>>().join(" and ")
}

/// A line for a stage of the calibration as it starts.
fn stage(s: Stage) -> String {
    match s {
        Stage::Timing { cases, counts: c, repeats } => {
            format!("timing {cases} case(s) on {} thread(s), {repeats} round(s) over them all", counts(c))
        }
        Stage::Round { round, of, counts: c, seconds } => {
            format!("round {round} of {of}: every case solved on {} thread(s), {seconds:.1} s", counts(c))
        }
        Stage::Curve { board, copies, repeats } => {
            format!("timing {board} as {copies:?} copies at once, {repeats} times, for the contention curve")
        }
    }
}

/// What the calibration measured, a line each: the cases' times, the time between jobs, the
/// contention, the machine's pace and the probe.
fn measured(cal: &Calibration, threads: usize, repeats: usize) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for t in &cal.timings {
        let alone = if t.sampled { ", each alone" } else { "" };
        let (case, p, jobs, seconds) = (&t.case, t.threads, t.jobs, t.seconds);
        let _ =
            writeln!(out, "timed {case} ({jobs} jobs{alone}) on {p} thread(s), median of {repeats}: {seconds:.2} s");
    }
    let b = cal.between;
    let _ = writeln!(
        out,
        "between jobs on one thread: {:.0} ns a job + {:.4} ns per byte given back ({:.1} % of the solves' time, \
         outside every job's time)",
        b.ns,
        b.per_byte_ns,
        100.0 * b.share
    );
    if let Some(r) = cal.in_solve_ratio {
        let _ = writeln!(
            out,
            "copies at once: {}; the solves' own jobs on {threads} threads took {r:.3}x their one-thread time: \
             contention with {threads} busy {:.3}x",
            calibrate::describe_curve(&cal.copies),
            cal.model.contention.factor(threads)
        );
    }
    if let Some(s) = cal.pace {
        let _ = writeln!(
            out,
            "the machine's pace while the cases were timed ({} before each case of each round): \
             {:.3} s median, {:.3} to {:.3} s from the 10th to the 90th percentile ({:.0} % apart){}",
            calibrate::probe_workload(),
            s.median,
            s.low,
            s.high,
            100.0 * s.width(),
            if s.unsteady() {
                "; warning: the machine was not steady (a shared machine?), so the model may be off by as much: \
                 calibrate again when it is quieter"
            } else {
                ""
            }
        );
    }
    let p = &cal.model.probe;
    let _ = writeln!(
        out,
        "probe ({}): {:.3} s alone, {:.3} s with {threads} busy: the median pace of the timings ({:.3} s alone \
         at this moment)",
        p.workload, p.one_thread_seconds, p.all_threads_seconds, cal.probe_now_seconds
    );
    out
}

/// Times store writes and puts them in `model`.
fn store_terms(args: &CalibrateArgs, model: &mut CostModel) -> CliResult {
    let dir = args.store_dir.clone().unwrap_or_else(std::env::temp_dir);
    let t = calibrate::time_store(&dir, &calibrate::STORE_SIZES, args.repeats)?;
    (model.store_per_file_ns, model.store_per_byte_ns) = (t.per_file_ns, t.per_byte_ns);
    model.store_read_per_byte_ns = t.read_per_byte_ns;
    println!(
        "store writes in {}: {:.2} ms per file + {:.3} ns per byte; reads {:.3} ns per byte",
        dir.display(),
        t.per_file_ns / 1e6,
        t.per_byte_ns,
        t.read_per_byte_ns
    );
    for ((bytes, secs), (fastest, slowest)) in t.sizes.iter().zip(&t.spread) {
        let predicted = model.store_nanoseconds(*bytes) as f64 / 1e9;
        println!(
            "  {:>10} bytes: {:>8.2} ms mean ({:.2} to {:.2} ms), predicted {:.2} ms",
            bytes,
            secs * 1e3,
            fastest * 1e3,
            slowest * 1e3,
            predicted * 1e3
        );
    }
    Ok(())
}

/// Refuses, before anything is timed or written, a store folder that does not exist: a
/// mistyped `--store-dir` must not be created, nor the model overwritten after minutes of timing.
fn check_store_dir(args: &CalibrateArgs) -> CliResult {
    match &args.store_dir {
        Some(dir) if !dir.is_dir() => {
            Err(format!("--store-dir '{}' is not an existing folder (nothing was written)", dir.display()).into())
        }
        _ => Ok(()),
    }
}

pub fn run(args: CalibrateArgs) -> CliResult {
    check_store_dir(&args)?;
    let output = args.output.clone().unwrap_or_else(|| model_name(Simd::current()).into());
    if args.store_only {
        let mut model = CostModel::load(&output)?;
        store_terms(&args, &mut model)?;
        model.save(&output)?;
        println!("saved {}", output.display());
        return Ok(());
    }
    let started = std::time::Instant::now();
    let threads = super::threads(args.threads)?;
    super::note!(
        "calibrating on {threads} thread(s) ({} physical cores): about {} s",
        calibrate::physical_cores().min(threads),
        estimate(threads)
    );
    let cal = calibrate::run(&args.cases, &args.holdout, threads, args.repeats, &mut |s| super::note!("{}", stage(s)))?;
    super::note!("{}", measured(&cal, threads, args.repeats).trim_end());
    let mut model = cal.model.clone();
    store_terms(&args, &mut model)?;
    let m = &model;
    println!("machine: {} (host {}); kernel: {}", m.machine, m.host, m.simd);
    let terms: Vec<String> =
        m.coefficients.named().filter(|(_, c)| *c > 0.0).map(|(name, c)| format!("{name} = {c:.4}")).collect();
    println!("model: {} (terms kept: {})", terms.join(", "), cal.fit.kept.join(", "));
    println!("hardware: {} physical cores, {} hardware threads", m.cores, m.hardware_threads);
    println!("contention (threads busy: slowdown of each): {}", calibrate::describe_curve(&m.contention));
    if let Some(r) = cal.in_solve_ratio {
        println!(
            "  shape from copies of a {} solve at once ({}), level from the solves' own jobs ({r:.3}x their \
             one-thread time on {} threads)",
            calibrate::CURVE_BOARD,
            calibrate::describe_curve(&cal.copies),
            m.hardware_threads
        );
    }
    println!(
        "probe ({}): {:.3} s alone, {:.3} s with {} threads busy",
        m.probe.workload, m.probe.one_thread_seconds, m.probe.all_threads_seconds, m.probe.threads
    );
    println!(
        "\n{:<8} {:>7} {:>6} {:>10} {:>10} {:>10}  fitted on",
        "board", "threads", "jobs", "median", "p90", "total"
    );
    for s in &cal.stats {
        println!(
            "{:<8} {:>7} {:>6} {:>9.1}% {:>9.1}% {:>9.1}%  {}",
            s.board,
            s.threads,
            s.jobs,
            100.0 * s.median,
            100.0 * s.p90,
            100.0 * s.total,
            if s.fitted_on { "yes" } else { "no" }
        );
    }
    model.calibrate_seconds = started.elapsed().as_secs_f64();
    model.save(&output)?;
    dab::support::write_csv(&cal.samples, &args.samples)
        .map_err(|e| format!("cannot write '{}': {e}", args.samples.display()))?;
    println!("\nsaved {} (samples in {})", output.display(), args.samples.display());
    Ok(())
}

/// Rough seconds of a default calibration: the cases and the holdout on one and on all
/// threads, 3x5's sampled jobs, the contention curve and the store.
fn estimate(threads: usize) -> u64 {
    let counts = dab::support::thread_counts(threads, threads).len() as u64;
    // 192 s (VBMI) and 277 s (AVX2) on the 2-core machine, 2026-11-27.
    80 + 55 * counts
}

#[cfg(test)]
mod tests {
    use dab::calibrate::{BetweenJobs, CaseTime, Fit, PaceSpread};
    use dab::sched::Contention;

    use super::*;

    fn calibration(pace: PaceSpread) -> Calibration {
        let model = CostModel::built_in();
        Calibration {
            fit: Fit { coefficients: model.coefficients, kept: vec!["per_state_ns"] },
            model,
            stats: Vec::new(),
            samples: Vec::new(),
            timings: vec![
                CaseTime { case: "3x4/3".into(), threads: 2, jobs: 40, sampled: false, seconds: 1.234 },
                CaseTime { case: "3x5/3~12".into(), threads: 1, jobs: 12, sampled: true, seconds: 5.0 },
            ],
            between: BetweenJobs { ns: 5029.4, per_byte_ns: 0.0779, share: 0.031 },
            copies: Contention(vec![(2, 1.05)]),
            in_solve_ratio: Some(1.1),
            pace: Some(pace),
            probe_now_seconds: 0.12,
        }
    }

    #[test]
    fn the_calibration_is_told_a_line_for_each_thing_measured() {
        let text = measured(&calibration(PaceSpread { low: 0.11, median: 0.112, high: 0.115 }), 2, 3);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 6, "{text}");
        assert_eq!(lines[0], "timed 3x4/3 (40 jobs) on 2 thread(s), median of 3: 1.23 s");
        assert_eq!(lines[1], "timed 3x5/3~12 (12 jobs, each alone) on 1 thread(s), median of 3: 5.00 s");
        assert!(
            lines[2].starts_with("between jobs on one thread: 5029 ns a job + 0.0779 ns per byte given back (3.1 %")
        );
        assert!(
            lines[3].starts_with("copies at once: 1: 1.000x, 2: 1.050x; the solves' own jobs on 2 threads took 1.100x")
        );
        assert!(lines[4].contains("(5 % apart)") && !lines[4].contains("warning"), "{}", lines[4]);
        assert!(
            lines[5].starts_with("probe (2x5 in 3 groups on one thread):")
                && lines[5].ends_with("(0.120 s alone at this moment)")
        );
        let unsteady = measured(&calibration(PaceSpread { low: 0.1, median: 0.11, high: 0.13 }), 2, 3);
        assert!(unsteady.contains("(30 % apart); warning: the machine was not steady"), "{unsteady}");
        assert_eq!(
            stage(Stage::Round { round: 2, of: 3, counts: &[1, 2], seconds: 4.26 }),
            "round 2 of 3: every case solved on 1 and 2 thread(s), 4.3 s"
        );
    }
}
