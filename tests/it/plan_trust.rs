//! Plans a user can trust (issue 80): a plan fits the memory the machine has (or plans with
//! the store, or is refused with what would work, before anything runs), takes the thread
//! count that pays, and gives a range a run should fall in. The machine's memory is set small
//! with `--machine-memory`, so that a small board stands for a large one.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::common::dab;

fn model() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sims/cost-model.json")
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `dab plan 3x4` on 2 threads with the committed model, no probe, and these arguments.
fn plan_3x4(dir: &Path, more: &[&str]) -> assert_cmd::assert::Assert {
    dab()
        .args(["plan", "3x4", "--threads", "2", "--cost", path(&model()), "--no-probe", "--out", path(dir)])
        .args(more)
        .assert()
}

#[test]
fn where_nothing_fits_the_machine_the_plan_is_refused_before_anything_is_written_with_what_would_work() {
    let dir = tempfile::tempdir().unwrap();
    // 3x4's candidates need 59-80 MB with the program; 90 % of 40 MB is 36 MB.
    plan_3x4(dir.path(), &["--machine-memory", "40MB"])
        .code(2)
        .stderr(predicate::str::contains("no candidate fits in this machine's memory: 36.0 MB usable of 40.0 MB"))
        .stderr(predicate::str::contains("a run that drops values and reads them back from the store fits"))
        .stderr(predicate::str::contains("read back"))
        .stderr(predicate::str::contains("dab run 3x4 --store DIR --mem-limit 36MB"))
        .stderr(predicate::str::contains("--nodes"));
    assert!(!dir.path().join("plan.json").exists(), "nothing is written");
    // dab run refuses alike, before it runs anything.
    dab()
        .args(["run", "3x4", "--threads", "2", "--cost", path(&model()), "--no-probe", "--out", path(dir.path())])
        .args(["--machine-memory", "40MB"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no candidate fits in this machine's memory"));
    assert!(!dir.path().join("trace.csv").exists(), "nothing ran");
    // Far too little even to drop values: only a cluster is named.
    plan_3x4(dir.path(), &["--machine-memory", "1MB"])
        .code(2)
        .stderr(predicate::str::contains("nor does any run with the store within it"))
        .stderr(predicate::str::contains("--store DIR").not());
}

#[test]
fn where_nothing_fits_and_the_run_has_a_store_it_drops_values_and_reads_them_back_within_the_memory() {
    let dir = tempfile::tempdir().unwrap();
    let json: serde_json::Value = serde_json::from_slice(
        &plan_3x4(dir.path(), &["--machine-memory", "40MB", "--with-store", "--json"]).success().get_output().stdout,
    )
    .unwrap();
    assert!(json["reason"].as_str().unwrap().contains("they are read back from the store"), "{json}");
    let plan: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("plan.json")).unwrap()).unwrap();
    assert_eq!(plan["mem_limit_bytes"], 36_000_000, "the usable memory bounds the run");
    // And the run itself stays within it, with every value right.
    let store = dir.path().join("store");
    let run: serde_json::Value = serde_json::from_slice(
        &dab()
            .args(["run", "--plan", path(&dir.path().join("plan.json")), "--store", path(&store), "--json", "-q"])
            .args(["--out", path(dir.path())])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(run["value"], 0);
    assert!(run["peak_value_bytes"].as_u64().unwrap() + run["process_bytes"].as_u64().unwrap() <= 36_000_000, "{run}");
}

#[test]
fn candidates_past_the_machine_s_memory_say_no_and_the_rest_are_chosen_from() {
    let dir = tempfile::tempdir().unwrap();
    let out = plan_3x4(dir.path(), &["--machine-memory", "75MB", "--json"]).success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let candidates = json["candidates"].as_array().unwrap();
    let (fit, unfit): (Vec<_>, Vec<_>) = candidates.iter().partition(|c| c["fits"] == true);
    assert!(!fit.is_empty() && !unfit.is_empty(), "{json}");
    for c in &unfit {
        // Past the bound: priced all the same, and never chosen.
        assert!(c["peak_value_bytes"].as_u64().unwrap() > 0 && c["chosen"] == false, "{c}");
    }
    assert!(json["reason"].as_str().unwrap().contains("not fit in 67.5 MB"), "{json}");
    // A loaded plan made for a bigger machine is refused before it runs.
    let big = tempfile::tempdir().unwrap();
    plan_3x4(big.path(), &["--machine-memory", "24GB", "-q"]).success();
    dab()
        .args(["run", "--plan", path(&big.path().join("plan.json")), "--machine-memory", "40MB", "--out"])
        .arg(big.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("past the 36.0 MB usable of this machine's 40.0 MB"));
    assert!(!big.path().join("trace.csv").exists());
}

#[test]
fn without_threads_the_plan_takes_the_fewest_within_five_percent_and_says_so() {
    if dab::support::hardware_threads() < 2 {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // 2x2's whole solve is a few microseconds of work: a second thread cannot pay.
    let out = dab()
        .env_remove("RAYON_NUM_THREADS")
        .args(["plan", "2x2", "--cost", path(&model()), "--no-probe", "--out", path(dir.path())])
        .assert()
        .success()
        .stdout(predicate::str::contains("parallelism does not pay here"))
        .stdout(predicate::str::contains("<- planned"));
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let plan: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("plan.json")).unwrap()).unwrap();
    assert_eq!(plan["threads"], 1, "{text}");
    assert_eq!(plan["machine_threads"].as_u64().unwrap() as usize, dab::support::hardware_threads());
    // Given, the count decides.
    plan_3x4(dir.path(), &[]).success().stdout(predicate::str::contains("parallelism does not pay").not());
    let plan: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("plan.json")).unwrap()).unwrap();
    assert_eq!(plan["threads"], 2);
    // Counts past this machine's are labelled as another machine's.
    if dab::support::hardware_threads() < 64 {
        plan_3x4(dir.path(), &[])
            .success()
            .stdout(predicate::str::contains("<- a machine like this one with 64 threads"));
    }
}

#[test]
fn a_plan_gives_the_range_a_run_should_fall_in_and_a_run_says_where_it_fell() {
    let dir = tempfile::tempdir().unwrap();
    plan_3x4(dir.path(), &["-q"]).success().stdout(predicate::str::contains("a run between"));
    let plan: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("plan.json")).unwrap()).unwrap();
    let (below, above) = (plan["range"]["below"].as_f64().unwrap(), plan["range"]["above"].as_f64().unwrap());
    assert!(below > 0.0 && below < 1.0 && above >= below, "{plan}");
    let run: serde_json::Value = serde_json::from_slice(
        &dab()
            .args(["run", "--plan", path(&dir.path().join("plan.json")), "--json", "-q", "--out", path(dir.path())])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    let range = run["predicted_range_seconds"].as_array().unwrap();
    let (low, high) = (range[0].as_f64().unwrap(), range[1].as_f64().unwrap());
    let predicted = run["predicted_seconds"].as_f64().unwrap();
    assert!((low - predicted * (1.0 - below)).abs() < 1e-9 && (high - predicted * (1.0 + above)).abs() < 1e-9, "{run}");
    let actual = run["actual_seconds"].as_f64().unwrap();
    assert_eq!(run["within_predicted_range"], low <= actual && actual <= high, "{run}");
}
