//! `dab scale` from the command line: the JSON rows and their arithmetic, the files it writes,
//! and the thread lists it refuses (exit status 2, one line naming the list).

use std::path::PathBuf;

use assert_cmd::Command;

fn dab() -> Command {
    Command::cargo_bin("dab").unwrap()
}

fn model() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sims/cost-model.json")
}

const FIELDS: [&str; 9] = [
    "threads",
    "predicted_seconds",
    "actual_seconds",
    "error",
    "predicted_speedup",
    "actual_speedup",
    "efficiency",
    "lower_bound_seconds",
    "job_error_median",
];

#[test]
fn scale_writes_rows_whose_error_and_efficiency_follow_from_the_times() {
    let dir = tempfile::tempdir().unwrap();
    let out = dab()
        .args(["scale", "2x4", "--sweep", "1,2", "--repeats", "1", "--json"])
        .args(["--cost", model().to_str().unwrap(), "--out", dir.path().to_str().unwrap()])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["board"], "2x4");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for (row, threads) in rows.iter().zip([1, 2]) {
        for f in FIELDS {
            assert!(row[f].is_number(), "{f} in {row}");
        }
        let get = |f: &str| row[f].as_f64().unwrap();
        assert_eq!(row["threads"], threads);
        let (predicted, actual) = (get("predicted_seconds"), get("actual_seconds"));
        assert!(predicted > 0.0 && actual > 0.0, "{row}");
        assert!((get("error") - (actual - predicted) / actual).abs() < 1e-9, "{row}");
        assert!((get("efficiency") - get("actual_speedup") / f64::from(threads)).abs() < 1e-9, "{row}");
        assert!(get("lower_bound_seconds") > 0.0 && get("lower_bound_seconds") <= predicted * (1.0 + 1e-9), "{row}");
    }
    // One thread is in the list: the speedups are over its own times.
    assert_eq!(rows[0]["predicted_speedup"], 1.0);
    assert_eq!(rows[0]["actual_speedup"], 1.0);

    let csv = std::fs::read_to_string(dir.path().join("scale.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], FIELDS.join(","));
    assert_eq!(lines.len(), 3, "{csv}");
    for f in ["scale.svg", "scale.png"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
}

#[test]
fn scale_refuses_a_bad_thread_list_in_one_line_naming_it() {
    for list in ["0", "4..2", "unlimited"] {
        let out = dab().args(["scale", "2x4", "--sweep", list, "--repeats", "1"]).assert().failure().code(2);
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(&format!("'{list}'")), "{stderr}");
    }
}

#[test]
fn a_probe_before_a_run_that_reads_the_machine_twice_as_slow_doubles_its_prediction() {
    use dab::plan::PlanOptions;
    use dab::sched::CostModel;
    let opts = PlanOptions::new(1, CostModel::built_in());
    let root = dab::game::Position::empty("2x3".parse().unwrap());
    let as_planned = dab::scale::scale(root, &[1, 2], 1, &opts, None, &mut |_| {}).unwrap();
    let twice = 2.0 * opts.model.probe.one_thread_seconds;
    let mut slow = || twice;
    let mut lines = Vec::new();
    let probed =
        dab::scale::scale(root, &[1, 2], 1, &opts, Some(&mut slow), &mut |m| lines.push(m.to_string())).unwrap();
    for (a, b) in as_planned.iter().zip(&probed) {
        assert!((b.predicted_seconds - 2.0 * a.predicted_seconds).abs() < 1e-9 * a.predicted_seconds, "{a:?} {b:?}");
        assert!(
            (b.lower_bound_seconds - 2.0 * a.lower_bound_seconds).abs() < 1e-9 * a.predicted_seconds,
            "{a:?} {b:?}"
        );
        // The predicted speedup is the plans' own: a probe scales every count alike.
        assert!((b.predicted_speedup - a.predicted_speedup).abs() < 1e-9, "{a:?} {b:?}");
    }
    let runs: Vec<&String> = lines.iter().filter(|l| l.starts_with("run ")).collect();
    assert_eq!(runs.len(), 2, "{lines:?}");
    assert!(runs.iter().all(|l| l.contains(": x2.000)")), "{runs:?}");
}

/// A probe that reads the machine faster before the 2-thread runs than before the one-thread
/// ones (a shared machine's load changing) must not lift the predicted speedup above the
/// plans' own, nor above P: each row's speedup is over the one-thread prediction scaled by its
/// own probe.
#[test]
fn no_predicted_speedup_exceeds_the_thread_count_whatever_the_probes_read() {
    use dab::plan::PlanOptions;
    use dab::sched::CostModel;
    let opts = PlanOptions::new(1, CostModel::built_in());
    let root = dab::game::Position::empty("2x3".parse().unwrap());
    let as_planned = dab::scale::scale(root, &[1, 2], 1, &opts, None, &mut |_| {}).unwrap();
    let base = opts.model.probe.one_thread_seconds;
    // Runs alternate 1 thread, 2 threads: the second reads the machine 20 % faster.
    let mut n = 0;
    let mut noisy = || {
        n += 1;
        if n % 2 == 1 { base } else { 0.8 * base }
    };
    let probed = dab::scale::scale(root, &[1, 2], 1, &opts, Some(&mut noisy), &mut |_| {}).unwrap();
    for (a, b) in as_planned.iter().zip(&probed) {
        assert!((b.predicted_speedup - a.predicted_speedup).abs() < 1e-9, "{a:?} {b:?}");
        assert!(b.predicted_speedup <= b.threads as f64 + 1e-9, "{b:?}");
        assert!(b.bound_speedup() <= b.threads as f64 + 1e-9, "{b:?}");
    }
    // The plans themselves: no simulated count beats its share of the one-thread time.
    for board in ["3x4", "2x5"] {
        let root = dab::game::Position::empty(board.parse().unwrap());
        let plan = dab::plan::plan(root, &PlanOptions::new(2, CostModel::built_in())).unwrap().plan;
        let t1 = plan.predicted(1).unwrap().makespan_seconds;
        for p in [2, 4, 8, 16] {
            let tp = plan.predicted(p).unwrap().makespan_seconds;
            assert!(t1 / tp <= p as f64 + 1e-9, "{board}: speedup {} on {p}", t1 / tp);
        }
    }
}
