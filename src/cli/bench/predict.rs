//! `dab bench --suite predict`: each board run as a user runs it, `dab run BOARD --json`, in a
//! process of its own (its own probe, plan and run) `--repeats` times (default 10), each
//! run's time against the range and the point it was predicted at, and the spread of the
//! predictions themselves.

use std::path::Path;
use std::process::{Command, Stdio};

use dab::bench::predict::{PredictSummary, RunFigures};
use dab::solver::{SIMD_VAR, Simd};

use super::BenchArgs;
use crate::cli::CliResult;

/// Runs of each board where `--repeats` is not given.
const PREDICT_RUNS: usize = 10;

pub fn run(args: BenchArgs) -> CliResult {
    let runs = args.repeats_or(PREDICT_RUNS);
    let output = args.output.clone().unwrap_or_else(|| crate::cli::runs_path("bench-predict.csv"));
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the dab binary: {e}"))?;
    let dir = output.with_extension("");
    let mut summaries = Vec::new();
    let mut all = Vec::new();
    println!(
        "{:<6} {:>4} {:>7} {:>11} {:>17} {:>10} {:>8} {:>6} {:>7} {:>5}",
        "board", "run", "threads", "predicted s", "range s", "actual s", "act/pred", "range", "10 %", "load"
    );
    for board in &args.boards {
        board.parse::<dab::game::Board>().map_err(|e| format!("--boards: {e}"))?;
        let out = dir.join(board);
        let mut once = |_: usize| {
            let load = dab::calibrate::load_average();
            run_once(&exe, board, &out, args.cost.as_deref()).map(|f| (f, load))
        };
        let rows = dab::bench::predict::runs(board, runs, &mut once, &mut |r| {
            println!(
                "{:<6} {:>4} {:>7} {:>11.2} {:>17} {:>10.2} {:>7.2}x {:>6} {:>7} {:>5}",
                r.board,
                r.run,
                r.threads,
                r.predicted_seconds,
                format!("{:.2}-{:.2}", r.range_low_seconds, r.range_high_seconds),
                r.actual_seconds,
                r.actual_over_predicted,
                if r.within_range { "in" } else { "OUT" },
                if r.within_10_percent { "yes" } else { "no" },
                r.load_average.map_or("-".into(), |l| format!("{l:.2}"))
            )
        })?;
        summaries.extend(PredictSummary::of(&rows));
        all.extend(rows);
    }
    println!();
    for s in &summaries {
        println!(
            "{}: {} of {} runs within the predicted range, {} of {} within 10 % of the point; predictions {:.2}-{:.2} s \
             (median {:.2} s, spread {:.1} %), runs {:.2}-{:.2} s (median {:.2} s){}",
            s.board,
            s.within_range,
            s.runs,
            s.within_10_percent,
            s.runs,
            s.predicted_min_seconds,
            s.predicted_max_seconds,
            s.predicted_median_seconds,
            100.0 * s.predicted_spread,
            s.actual_min_seconds,
            s.actual_max_seconds,
            s.actual_median_seconds,
            if s.meets_targets() { "" } else { "  [below the targets: 9 of 10 in range, 8 of 10 within 10 %]" }
        );
    }
    super::write(&all, &output)?;
    let summary_path = output.with_file_name(format!(
        "{}-summary.csv",
        output.file_stem().map_or("bench-predict".into(), |s| s.to_string_lossy().into_owned())
    ));
    super::write(&summaries, &summary_path)?;
    println!("wrote {} and {}", output.display(), summary_path.display());
    Ok(())
}

/// One `dab run BOARD --json --quiet --out DIR` as a child of `exe`: what it predicted and took.
fn run_once(exe: &Path, board: &str, out: &Path, cost: Option<&Path>) -> Result<RunFigures, String> {
    let mut cmd = Command::new(exe);
    // The child runs the kernel this process chose (`--simd`), not the widest its CPU has.
    cmd.env(SIMD_VAR, Simd::current().name());
    cmd.arg("run").arg(board).args(["--json", "--quiet", "--out"]).arg(out);
    if let Some(cost) = cost {
        cmd.arg("--cost").arg(cost);
    }
    let spawn = |e: std::io::Error| format!("cannot run '{}': {e}", exe.display());
    let done = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).output().map_err(spawn)?;
    if !done.status.success() {
        return Err(format!("dab run {board} failed: {}", String::from_utf8_lossy(&done.stderr).trim()));
    }
    let json: serde_json::Value =
        serde_json::from_slice(&done.stdout).map_err(|e| format!("dab run {board}: unreadable output: {e}"))?;
    figures(&json).ok_or_else(|| format!("dab run {board}: its JSON lacks a prediction, a range or a time: {json}"))
}

/// The figures of `dab run --json`'s object.
fn figures(json: &serde_json::Value) -> Option<RunFigures> {
    let range = json.get("predicted_range_seconds")?.as_array()?;
    Some(RunFigures {
        threads: json.get("threads")?.as_u64()? as u32,
        predicted: json.get("predicted_seconds")?.as_f64()?,
        range: (range.first()?.as_f64()?, range.get(1)?.as_f64()?),
        actual: json.get("actual_seconds")?.as_f64()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_s_figures_are_read_from_its_json() {
        let json = serde_json::json!({"threads": 2, "predicted_seconds": 25.0, "actual_seconds": 26.5,
            "predicted_range_seconds": [22.0, 28.0]});
        let f = figures(&json).unwrap();
        assert_eq!((f.threads, f.predicted, f.range, f.actual), (2, 25.0, (22.0, 28.0), 26.5));
        assert_eq!(figures(&serde_json::json!({"threads": 2})), None);
    }
}
