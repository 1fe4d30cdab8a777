//! The command line as a new user meets it: the quick start writes where it says and leaves
//! committed figures alone, the default thread count follows RAYON_NUM_THREADS, shell
//! completions and manual pages, and every plan dab writes is read back by every command that
//! takes one.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn dab() -> Command {
    Command::cargo_bin("dab").unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Files in `dir`, by name, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn the_quick_start_writes_into_reports_runs_and_names_every_file() {
    let dir = tempfile::tempdir().unwrap();
    // A committed figure beside the runs folder, as in the repository.
    let committed = dir.path().join("reports/3x4/plan.json");
    std::fs::create_dir_all(committed.parent().unwrap()).unwrap();
    std::fs::write(&committed, "committed").unwrap();
    let out = dab().current_dir(dir.path()).args(["run", "--threads", "2"]).assert().success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    let runs = dir.path().join("reports/runs/3x4");
    let files = names(&runs);
    assert_eq!(files.len(), 8, "{files:?}");
    let line = stderr.lines().find(|l| l.starts_with("wrote ")).expect("a line naming the files");
    assert!(line.starts_with("wrote 8 files in reports/runs/3x4: "), "{line}");
    for f in &files {
        assert!(line.contains(f.as_str()), "{f} not named in: {line}");
    }
    assert_eq!(std::fs::read_to_string(&committed).unwrap(), "committed");
    // One unit per file, named in the field.
    let trace = std::fs::read_to_string(runs.join("trace.csv")).unwrap();
    assert!(trace.contains("\njob,thread,start_seconds,end_seconds,positions\n"), "{trace}");
}

#[test]
fn rayon_num_threads_is_the_default_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("p.json");
    dab().env("RAYON_NUM_THREADS", "3").args(["plan", "2x3", "--no-probe", "-o", path(&plan)]).assert().success();
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    assert_eq!(json["threads"], 3);
    // --threads still wins.
    dab()
        .env("RAYON_NUM_THREADS", "3")
        .args(["plan", "2x3", "--no-probe", "--threads", "2", "-o", path(&plan)])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    assert_eq!(json["threads"], 2);
    dab()
        .env("RAYON_NUM_THREADS", "many")
        .args(["solve", "2x2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("RAYON_NUM_THREADS='many' is not a thread count"));
}

#[test]
fn completions_for_every_shell_name_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = dab().args(["completions", shell]).assert().success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        for word in ["solve", "scale", "threads"] {
            assert!(text.contains(word), "{shell} completions lack {word}");
        }
    }
    dab().args(["completions", "tcsh"]).assert().code(2).stderr(predicate::str::contains("tcsh"));
}

#[test]
fn manual_pages_on_standard_output_and_into_a_folder() {
    let out = dab().arg("man").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with(".ie") || text.contains(".TH dab 1"), "{}", &text[..200.min(text.len())]);
    assert!(text.contains("solve"));
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("man1");
    dab().args(["man", "--out", path(&pages)]).assert().success().stderr(predicate::str::contains("wrote "));
    let files = names(&pages);
    for page in ["dab.1", "dab-solve.1", "dab-plan.1", "dab-completions.1"] {
        assert!(files.contains(&page.to_string()), "{page} missing from {files:?}");
    }
    let solve = std::fs::read_to_string(pages.join("dab-solve.1")).unwrap();
    assert!(solve.contains("threads"));
}

/// A plan whose candidates are of every shape: fitting and not (a null prediction), split and
/// not, at several group counts.
fn plans(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (name, extra) in [
        ("tight.json", vec!["--mem-limit", "23MB"]),
        ("free.json", vec![]),
        ("split.json", vec!["--split", "1e3", "--groups", "2,3"]),
    ] {
        let p = dir.join(name);
        let mut args = vec!["plan", "2x5", "--no-probe", "--threads", "2", "--with-store", "-o", path(&p)];
        args.extend(extra);
        args.extend(["--out", path(dir)]);
        dab().args(&args).assert().success();
        out.push(p);
    }
    out
}

#[test]
fn every_plan_dab_writes_is_read_by_every_command_that_takes_one() {
    let dir = tempfile::tempdir().unwrap();
    let plans = plans(dir.path());
    let tight: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&plans[0]).unwrap()).unwrap();
    let candidates = tight["candidates"].as_array().unwrap();
    assert!(candidates.iter().any(|c| c["fits"] == false && c["predicted_seconds"].is_null()), "{tight}");
    for plan in &plans {
        let stem = plan.file_stem().unwrap().to_str().unwrap();
        let store = dir.path().join(format!("store-{stem}"));
        let report = dir.path().join(format!("report-{stem}"));
        dab()
            .args(["run", "--plan", path(plan), "--store", path(&store), "--out", path(&report), "--quiet"])
            .assert()
            .success()
            .stdout(predicate::str::contains("value of 2x5"));
        dab().args(["compare", "--plan", path(plan), "--trace", path(&report.join("trace.csv"))]).assert().success();
        for engine in ["slurm", "condor"] {
            let out = dir.path().join(format!("{engine}-{stem}"));
            dab()
                .args(["export", engine, "--plan", path(plan), "--store", path(&store), "--out", path(&out)])
                .assert()
                .success();
        }
        let first = serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(plan).unwrap()).unwrap()["jobs"]
            [0]["name"]
            .as_str()
            .unwrap()
            .to_string();
        dab().args(["job", "--plan", path(plan), "--store", path(&store), "--job", &first]).assert().success();
    }
}

#[test]
fn graphs_plans_and_traces_are_read_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dab().args(["graph", "2x3"]).assert().success();
    let csv = graph.get_output().stdout.clone();
    let out = dab()
        .args(["sim", "-", "--sweep", "1..2", "--json", "--out", path(&dir.path().join("sim"))])
        .write_stdin(csv.clone())
        .assert()
        .success();
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(rows[0]["graph"], "stdin");
    dab().args(["sim", "-", "-"]).write_stdin(csv).assert().code(2).stderr(predicate::str::contains("one graph only"));
    let report = dir.path().join("r");
    dab().args(["run", "2x2", "--threads", "1", "--quiet", "--out", path(&report)]).assert().success();
    let trace = std::fs::read_to_string(report.join("trace.csv")).unwrap();
    dab()
        .args(["compare", "--plan", path(&report.join("plan.json")), "--trace", "-", "--out", path(&report)])
        .write_stdin(trace)
        .assert()
        .success()
        .stdout(predicate::str::contains("2x2 on 1 thread: predicted"));
    dab()
        .args(["compare", "--plan", "-", "--trace", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot both be '-'"));
    let plan = std::fs::read_to_string(report.join("plan.json")).unwrap();
    dab()
        .args(["export", "slurm", "--plan", "-", "--store", "s", "--out", path(&dir.path().join("x"))])
        .write_stdin(plan)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give its path"));
}
