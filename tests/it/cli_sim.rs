//! `dab graph` and `dab sim` from the command line: files written, reproducible bytes, and
//! bad input refused with one clear message and exit status 2.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn dab() -> Command {
    Command::cargo_bin("dab").unwrap()
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/graphs").join(name)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn graph_then_sim_writes_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("q.csv");
    dab()
        .args(["graph", "4x4", "--scheme", "quadrants", "--symmetry", "dih8", "--split", "200000000", "-o", path(&g)])
        .assert()
        .success()
        .stderr(predicate::str::contains("2987 jobs"));
    let out = dir.path().join("report");
    let json = dab()
        .args(["sim", path(&g), "--sweep", "1..30,unlimited", "--policy", "fifo,cp", "--json", "--out", path(&out)])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2 * 31);
    assert_eq!(rows[0]["threads"], 1);
    assert_eq!(rows[0]["makespan_ticks"], rows[0]["work_ticks"]);
    assert_eq!(rows[30]["threads"], "unlimited");
    assert_eq!(rows[30]["makespan_ticks"], rows[30]["critical_path_ticks"]);
    // Two policies: a Gantt chart each.
    let names = ["sweep.csv", "speedup.svg", "speedup.png", "busy.svg", "busy.png", "gantt-fifo.svg", "gantt-cp.png"];
    for name in names {
        assert!(out.join(name).metadata().unwrap().len() > 0, "{name}");
    }
    let csv = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert!(csv.starts_with(
        "graph,policy,threads,makespan_ticks,work_ticks,critical_path_ticks,lower_bound_ticks,level_bound_ticks,graham_bound_ticks,speedup,efficiency,avg_busy,max_busy,peak_value_bytes\n"
    ));
}

#[test]
fn same_input_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        let out = dir.path().join(name);
        let stdout = dab()
            .args(["sim", path(&data("policies.csv")), path(&data("largest.csv")), "--sweep", "1..4,unlimited"])
            .args(["--policy", "fifo,cp,largest", "--out", path(&out)])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        (out, stdout)
    };
    let (a, sa) = run("a");
    let (b, sb) = run("b");
    assert_eq!(sa, sb);
    let mut files: Vec<_> = std::fs::read_dir(&a).unwrap().map(|e| e.unwrap().file_name()).collect();
    files.sort();
    // Two graphs under three policies: a Gantt chart each, and every policy in the busy chart.
    for graph in ["policies", "largest"] {
        for policy in ["fifo", "cp", "largest"] {
            assert!(files.iter().any(|f| *f == *format!("gantt-{graph}-{policy}.svg")), "{graph} {policy}: {files:?}");
        }
    }
    let busy = std::fs::read_to_string(a.join("busy.svg")).unwrap();
    for policy in ["fifo", "cp", "largest"] {
        assert!(busy.contains(&format!(", {policy}")), "busy lacks {policy}");
    }
    for f in files {
        assert_eq!(std::fs::read(a.join(&f)).unwrap(), std::fs::read(b.join(&f)).unwrap(), "{f:?}");
    }
}

#[test]
fn thesis_format_is_read_like_csv() {
    let dir = tempfile::tempdir().unwrap();
    let thesis = dir.path().join("g.txt");
    dab().args(["graph", "3x3", "--split", "3000", "--format", "thesis", "-o", path(&thesis)]).assert().success();
    assert!(std::fs::read_to_string(&thesis).unwrap().lines().any(|l| l.contains("::")));
    let csv = dir.path().join("g.csv");
    dab().args(["graph", "3x3", "--split", "3000", "-o", path(&csv)]).assert().success();
    let sweep = |g: &Path| {
        dab()
            .args(["sim", path(g), "--sweep", "1..8", "--json", "--out", path(&dir.path().join("r"))])
            .output()
            .unwrap()
            .stdout
    };
    let (a, b) = (sweep(&thesis), sweep(&csv));
    assert!(!a.is_empty());
    // Same rows but for the graph's label.
    assert_eq!(
        String::from_utf8(a).unwrap().replace("\"g\"", "X"),
        String::from_utf8(b).unwrap().replace("\"g\"", "X")
    );
}

#[test]
fn malformed_graphs_exit_2_with_the_line() {
    let dir = tempfile::tempdir().unwrap();
    for (file, message) in [
        ("duplicate.csv", "line 4"),
        ("cycle.csv", "cycle: a -> b -> c -> a"),
        ("negative-cost.csv", "line 3: cost '-3'"),
        ("missing-column.csv", "missing column 'bytes'"),
        ("empty.csv", "no jobs"),
        ("thesis-unknown.txt", "line 2"),
    ] {
        dab()
            .args(["sim", path(&data(&format!("bad/{file}"))), "--out", path(dir.path())])
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with("error: ").and(predicate::str::contains(message)));
    }
    dab()
        .args(["sim", "no-such-graph.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read graph file 'no-such-graph.csv'"));
    // Nothing was written for a refused graph.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn bad_options_exit_2() {
    let g = data("policies.csv");
    let cases: &[(&[&str], &str)] = &[
        (&["graph", "3x3", "--scheme", "quadrants"], "square board with an even side"),
        (
            &["graph", "4x4", "--scheme", "quadrants", "--groups", "3"],
            "--groups: a group count applies only to the orbits scheme",
        ),
        (&["graph", "3x4", "--symmetry", "dih8"], "--symmetry: a symmetry applies only to the quadrants scheme"),
        (
            &["graph", "4x4", "--scheme", "quadrants", "--split", "10", "--piece-deps", "fine"],
            "fine piece dependencies",
        ),
        (&["graph", "3x3", "--split", "0"], "--split: a split needs a threshold of at least 1"),
        (&["graph", "3x3", "--cost", "no-such-model.json"], "cannot read cost model 'no-such-model.json'"),
        (&["sim", path(&g), "--sweep", "0"], "processor list '0'"),
        (&["sim", path(&g), "--sweep", "5..2"], "processor list '5..2'"),
        (&["sim", path(&g), "--bandwidth", "0"], "--bandwidth: "),
        (&["sim", path(&g), "--mem-limit", "3"], "the memory limit of 3 bytes is too small"),
        (&["sim", path(&g), "--policy", "random"], "invalid value 'random'"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (args, message) in cases {
        dab()
            .args(*args)
            .args(if args[0] == "sim" { vec!["--out", path(dir.path())] } else { vec![] })
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*message));
    }
}

#[test]
fn a_failed_graph_write_keeps_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.csv");
    std::fs::write(&g, "precious").unwrap();
    // A bad option: the graph is never built, the file is untouched.
    dab().args(["graph", "3x3", "--groups", "99", "-o", path(&g)]).assert().code(2);
    assert_eq!(std::fs::read_to_string(&g).unwrap(), "precious");
}

/// The committed model with `edit` applied, saved in `dir`, and a 3x3 graph costed with it.
fn costed_3x3(
    dir: &std::path::Path,
    edit: impl FnOnce(&mut serde_json::Value),
) -> (std::path::PathBuf, std::path::PathBuf) {
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/sims/cost-model.json")).unwrap();
    let mut model: serde_json::Value = serde_json::from_str(&committed).unwrap();
    edit(&mut model);
    let m = dir.join("model.json");
    std::fs::write(&m, model.to_string()).unwrap();
    let g = dir.join("g.csv");
    dab().args(["graph", "3x3", "--cost", path(&m), "-o", path(&g)]).assert().success();
    (m, g)
}

/// `dab sim GRAPH --json` with `args`, its rows.
fn sim_rows(dir: &std::path::Path, g: &std::path::Path, args: &[&str]) -> Vec<serde_json::Value> {
    let out = dab()
        .args(["sim", path(g), "--json", "--out", path(&dir.join("r"))])
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice::<serde_json::Value>(&out).unwrap().as_array().unwrap().clone()
}

#[test]
fn sim_with_a_cost_model_slows_jobs_by_its_contention_curve() {
    let dir = tempfile::tempdir().unwrap();
    // The committed model with threads that slow each other by half when two are busy.
    let (m, g) = costed_3x3(dir.path(), |model| {
        model["contention"] = serde_json::json!([[2, 1.5]]);
        (model["between_jobs_ns"], model["release_per_byte_ns"]) = (0.into(), 0.into());
    });
    let sweep = |extra: &[&str]| sim_rows(dir.path(), &g, &[&["--sweep", "1,2", "--policy", "cp"], extra].concat());
    let (plain, slowed) = (sweep(&[]), sweep(&["--cost", path(&m), "--no-probe"]));
    let makespan = |rows: &[serde_json::Value], i: usize| rows[i]["makespan_ticks"].as_f64().unwrap();
    // One thread never runs beside another: the sum of the costs either way.
    assert_eq!(makespan(&plain, 0), makespan(&slowed, 0));
    // Two threads: each job slowed by 1.5 while both run, not at all while one runs alone.
    let work = plain[1]["work_ticks"].as_f64().unwrap();
    let (p, s) = (makespan(&plain, 1), makespan(&slowed, 1));
    assert!(s > p && s <= 1.5 * p + 1.0 && s >= 1.5 * work / 2.0 - 1.0, "{p} {s} {work}");
    assert!(slowed[1]["lower_bound_ticks"].as_f64().unwrap() >= 1.5 * work / 2.0 - 1.0);
}

#[test]
fn sim_with_a_cost_model_adds_its_worker_s_time_between_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let (m, g) = costed_3x3(dir.path(), |model| {
        (model["between_jobs_ns"], model["release_per_byte_ns"]) = (1000.into(), 0.5.into());
    });
    let one_thread = |extra: &[&str]| {
        sim_rows(dir.path(), &g, &[&["--sweep", "1"], extra].concat())[0]["makespan_ticks"].as_f64().unwrap()
    };
    // On one thread: the costs, then 1 us after every job and 0.5 ns per byte it made.
    let graph = std::fs::read_to_string(&g).unwrap();
    let (jobs, bytes) = graph
        .lines()
        .skip(1)
        .fold((0.0, 0.0), |(n, b), l| (n + 1.0, b + l.split(',').nth(3).unwrap().parse::<f64>().unwrap()));
    let (plain, with) = (one_thread(&[]), one_thread(&["--cost", path(&m), "--no-probe"]));
    assert!(jobs > 100.0 && bytes > 0.0);
    assert!((with - plain - (1000.0 * jobs + 0.5 * bytes)).abs() <= jobs, "{plain} {with} {jobs} {bytes}");
}
