//! Hostile plans and roots from the command line: a plan with a dependency removed is refused
//! by every command that runs it, naming the job and the input, before anything runs; a full
//! board as the root is answered (value 0) where a value is asked and refused with one clear
//! line where a plan or a graph is; never a panic (exit 101), never a hang.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;

/// Long enough for any of these commands, short enough that a hang fails the test.
const LIMIT: Duration = Duration::from_secs(60);

fn dab() -> Command {
    let mut cmd = Command::cargo_bin("dab").unwrap();
    cmd.timeout(LIMIT);
    cmd
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn model() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sims/cost-model.json")
}

/// Runs `dab args` and expects a refusal: exit status 2 (not 101, not killed by the timeout),
/// one line on stderr, `message` in it.
fn refused(args: &[&str], message: &str) {
    let out = dab().args(args).assert().code(2).get_output().clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let last = stderr.lines().last().unwrap_or("");
    assert!(last.starts_with("error: ") && last.contains(message), "dab {}: {stderr}", args.join(" "));
    assert!(!stderr.contains("panicked"), "dab {}: {stderr}", args.join(" "));
}

/// `dab plan 2x3` in 2 groups (jobs `<group 0>-<group 1>`), written to `dir`; returns its JSON.
fn plan_2x3(dir: &Path) -> serde_json::Value {
    let out = dir.join("plan.json");
    dab()
        .args(["plan", "2x3", "--groups", "2", "--threads", "2", "--cost", path(&model()), "--no-probe"])
        .args(["-o", path(&out), "--out", path(dir)])
        .assert()
        .success();
    serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap()
}

#[test]
fn a_plan_with_a_dependency_removed_is_refused_by_run_job_and_export_naming_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut plan = plan_2x3(d);
    let job = plan["jobs"].as_array_mut().unwrap().iter_mut().find(|j| j["name"] == "8-7").expect("job 8-7");
    assert_eq!(job["deps"], serde_json::json!(["8-8", "9-7"]));
    job["deps"] = serde_json::json!(["8-8"]);
    let bad = d.join("bad.json");
    std::fs::write(&bad, plan.to_string()).unwrap();
    let message = "the plan's job '8-7' reads job '9-7' (rows 0..1 of partition 9-7) but does not list it in its deps";
    let (store, out) = (d.join("store"), d.join("export"));
    std::fs::create_dir(&out).unwrap();
    // Every command names the plan file before the reason.
    let named = format!("plan '{}': {message}", bad.display());
    for threads in ["1", "2"] {
        refused(&["run", "--plan", path(&bad), "--threads", threads, "--quiet", "--out", path(d)], &named);
    }
    refused(&["job", "--plan", path(&bad), "--store", path(&store), "--job", "8-7"], message);
    refused(&["job", "--plan", path(&bad), "--store", path(&store), "--value", path(&d.join("v.json"))], message);
    for engine in ["slurm", "condor"] {
        refused(&["export", engine, "--plan", path(&bad), "--store", path(&store), "--out", path(&out)], message);
    }
    // Nothing ran: no store, no exported file.
    assert!(!store.exists());
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
}

#[test]
fn a_full_board_is_answered_where_a_value_is_asked_and_refused_where_a_plan_is() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let full = "the position is full: no lines left to draw, its value is 0";
    refused(&["plan", "1x2", "--lines", "1111111", "--cost", path(&model()), "--no-probe", "--out", path(d)], full);
    refused(&["run", "1x1", "--lines", "1111", "--cost", path(&model()), "--no-probe", "--out", path(d)], full);
    let art = d.join("full.txt");
    std::fs::write(&art, "+-+-+\n| | |\n+-+-+\n").unwrap();
    refused(&["graph", "--position", path(&art)], full);
    refused(&["graph", "1x1", "--lines", "1111"], full);
    for args in [["solve", "--json"], ["hint", "--json"]] {
        let out = dab().args(args).args(["--position", path(&art)]).assert().success().get_output().stdout.clone();
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!((&json["value"], &json["moves"]), (&serde_json::json!(0), &serde_json::json!([])), "{args:?}");
    }
    // A plan whose root is full (made by hand: dab plan makes none) runs nowhere.
    let mut plan = plan_2x3(d);
    plan["root"] = serde_json::json!("1".repeat(17));
    let bad = d.join("full-plan.json");
    std::fs::write(&bad, plan.to_string()).unwrap();
    let message = format!("the plan's root: {full}");
    refused(&["run", "--plan", path(&bad), "--quiet", "--out", path(d)], &message);
    refused(&["job", "--plan", path(&bad), "--store", path(&d.join("s")), "--job", "0-0"], &message);
    refused(&["export", "slurm", "--plan", path(&bad), "--store", path(&d.join("s")), "--out", path(d)], &message);
}

#[test]
fn a_position_with_one_line_left_is_planned_run_and_answered() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let one = ["1x1", "--lines", "0111"];
    let out = dab().args(["solve", "--json"]).args(one).assert().success().get_output().stdout.clone();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(json["value"], 1);
    dab()
        .arg("run")
        .args(one)
        .args(["--cost", path(&model()), "--no-probe", "--quiet", "--out", path(d)])
        .assert()
        .success()
        .stdout(predicate::str::contains("1x1"));
    dab().arg("graph").args(one).assert().success().stdout(predicate::str::contains("0,1,1,1,1"));
}
