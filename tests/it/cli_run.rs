//! `dab plan`, `dab run`, `dab compare` and `dab calibrate` from the command line: the files
//! they write, hand-computed comparisons, and every refused plan or trace (exit status 2).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn dab() -> Command {
    Command::cargo_bin("dab").unwrap()
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A successful command's stdout as JSON.
fn stdout_json(a: assert_cmd::assert::Assert) -> serde_json::Value {
    serde_json::from_slice(&a.success().get_output().stdout).unwrap()
}

/// A JSON file (plan, model).
fn file_json(p: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn model() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sims/cost-model.json")
}

#[test]
fn compare_gives_the_hand_computed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let got = stdout_json(
        dab()
            .args(["compare", "--plan", path(&data("compare/plan.json")), "--trace", path(&data("compare/trace.csv"))])
            .args(["--json", "--out", path(dir.path())])
            .assert(),
    );
    let want = file_json(&data("compare/expected.json"));
    for (k, v) in want.as_object().unwrap() {
        match v.as_f64() {
            Some(x) => assert!((got[k].as_f64().unwrap() - x).abs() < 1e-9, "{k}: {} vs {x}", got[k]),
            None => assert_eq!(&got[k], v, "{k}"),
        }
    }
    assert!(dir.path().join("compare.svg").exists() && dir.path().join("compare.png").exists());
}

#[test]
fn plan_run_compare_on_a_small_board() {
    let dir = tempfile::tempdir().unwrap();
    let d = path(dir.path());
    dab()
        .args(["plan", "2x3", "--threads", "2", "--cost", path(&model()), "--no-probe", "--out", d])
        .assert()
        .success()
        .stdout(predicate::str::contains("chose"));
    for f in ["plan.json", "speedup.svg", "speedup.png", "candidates.svg", "candidates.png"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    let plan = dir.path().join("plan.json");
    for threads in ["1", "2", "3"] {
        let v = stdout_json(
            dab().args(["run", "--plan", path(&plan), "--threads", threads, "--json", "--quiet", "--out", d]).assert(),
        );
        assert_eq!(v["value"], published("2x3"));
        assert_eq!(v["threads"].to_string(), threads);
        for k in ["predicted_seconds", "actual_seconds", "error"] {
            assert!(v[k].as_f64().unwrap() >= 0.0, "{k}");
        }
    }
    // The trace of the last run compares again from the files alone.
    dab()
        .args(["compare", "--plan", path(&plan), "--trace", path(&dir.path().join("trace.csv")), "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"threads\":3"));
    // Plan and run in one go.
    dab()
        .args(["run", "2x2", "--threads", "2", "--cost", path(&model()), "--no-probe", "--out", d, "--quiet"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("value of 2x2: {}", published("2x2"))));
}

#[test]
fn outside_the_project_the_built_in_cost_model_is_used() {
    let dir = tempfile::tempdir().unwrap();
    dab()
        .current_dir(dir.path())
        .args(["run", "2x2", "--threads", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("value of 2x2: {}", published("2x2"))))
        .stderr(predicate::str::contains("using the cost model built into dab"))
        // The model is carried here by a probe, and the output says from where to where.
        .stderr(predicate::str::contains("probe: job costs x"));
    assert!(dir.path().join("reports/runs/2x2/compare.svg").exists());
    // A model named on the command line is never replaced by the built-in one.
    dab()
        .current_dir(dir.path())
        .args(["plan", "2x2", "--cost", "missing.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read cost model 'missing.json'"));
}

#[test]
fn a_memory_limit_is_planned_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (d, store) = (path(dir.path()), dir.path().join("store"));
    let run = |extra: &[&str]| {
        let mut c = dab();
        c.args([
            "run",
            "3x3",
            "--threads",
            "2",
            "--cost",
            path(&model()),
            "--no-probe",
            "--out",
            d,
            "--quiet",
            "--json",
        ]);
        c.args(extra);
        c.assert()
    };
    // Without a store, nothing could be dropped from memory: refused before any work.
    run(&["--mem-limit", "100K"]).code(2).stderr(predicate::str::contains("--mem-limit: a memory limit needs a store"));
    assert!(!dir.path().join("plan.json").exists());
    run(&["--mem-limit", "lots", "--store", path(&store)]).code(2).stderr(predicate::str::contains("'lots'"));
    // The limit is the whole process's: what the program, tables and threads hold is counted
    // first, and the values get the rest (at most 200 KB here).
    let own = stdout_json(run(&["--mem-limit", "1G", "--store", path(&store)]))["process_bytes"].as_u64().unwrap();
    assert!(own > 16_000_000, "{own}");
    std::fs::remove_dir_all(&store).unwrap();
    // (A split, with more jobs, may be chosen under the tighter limit: its own bytes differ.)
    let limit = own + 200_000;
    let v = stdout_json(run(&["--mem-limit", &limit.to_string(), "--store", path(&store)]));
    assert_eq!(v["value"], published("3x3"));
    assert_eq!(v["mem_limit_bytes"], limit);
    let values = limit - v["process_bytes"].as_u64().unwrap();
    let (peak, predicted) =
        (v["peak_value_bytes"].as_u64().unwrap(), v["predicted_peak_value_bytes"].as_u64().unwrap());
    assert!(peak <= values && predicted <= values && values <= 200_000, "{peak} {predicted} {values}");
    let (rss, predicted_rss) = (v["peak_rss_bytes"].as_u64().unwrap(), v["predicted_peak_rss_bytes"].as_u64().unwrap());
    assert!(predicted_rss <= limit && rss <= limit + limit / 20 + 150_000_000, "{rss} {predicted_rss} {limit}");
    // The comparison simulates the plan as the planner did, memory limit included.
    let plan = file_json(&dir.path().join("plan.json"));
    let at_2 = plan["predictions"].as_array().unwrap().iter().find(|p| p["threads"] == 2).unwrap();
    let planned = at_2["makespan_seconds"].as_f64().unwrap();
    assert!((v["predicted_seconds"].as_f64().unwrap() - planned).abs() < 1e-6 * planned, "{planned} {v}");
    // A limit below the largest job with its inputs: the planner says what the least is.
    dab()
        .args(["plan", "3x3", "--mem-limit", "1K", "--cost", path(&model()), "--no-probe", "--out", d])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the smallest needs"));
}

#[test]
fn the_store_size_is_predicted() {
    let dir = tempfile::tempdir().unwrap();
    let (d, plan, store) = (path(dir.path()), dir.path().join("plan.json"), dir.path().join("store"));
    dab()
        .args([
            "plan",
            "3x3",
            "--threads",
            "1",
            "--with-store",
            "--keep-lines",
            "6",
            "--cost",
            path(&model()),
            "--no-probe",
        ])
        .args(["--out", d, "-o", path(&plan)])
        .assert()
        .success()
        .stdout(predicate::str::contains("store: values in files peak at"));
    dab()
        .args(["plan", "3x3", "--keep-lines", "6", "--out", d])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--with-store"));
    let v = stdout_json(
        dab()
            .args(["run", "--plan", path(&plan), "--threads", "1", "--store", path(&store), "--keep-lines", "6"])
            .args(["--out", d, "--quiet", "--json"])
            .assert(),
    );
    let (peak, predicted) = (v["peak_disk_bytes"].as_u64().unwrap(), v["predicted_peak_disk_bytes"].as_u64().unwrap());
    // One thread runs the jobs in the simulated order: the same peak, byte for byte.
    assert_eq!(peak, predicted);
    // Above what the book keeps (files were deleted along the way), below every job's values.
    let plan = file_json(&plan);
    let all: u64 = plan["jobs"].as_array().unwrap().iter().map(|j| j["bytes"].as_u64().unwrap()).sum();
    let mut book = 0;
    for e in std::fs::read_dir(store.join("3x3").join(format!("g{}", plan["groups"]))).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|e| e == "dab") {
            book += dab::store::parse(std::fs::read(&p).unwrap()).unwrap().1.len() as u64;
        }
    }
    assert!(book < peak && peak < all, "book {book}, peak {peak}, all {all}");
}

#[test]
fn store_writes_are_timed_and_planned_for() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.json");
    std::fs::copy(self::model(), &model).unwrap();
    dab()
        .args(["calibrate", "--store-only", "--repeats", "1", "-o", path(&model), "--store-dir", path(dir.path())])
        .assert()
        .success()
        .stdout(predicate::str::contains("ms per file"));
    let m = file_json(&model);
    assert!(m["store_per_file_ns"].as_f64().unwrap() > 0.0);
    // Only the model and nothing of the timing folder is left.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    let plan = |extra: &[&str]| {
        let out = dir.path().join("plan.json");
        let mut c = dab();
        c.args([
            "plan",
            "2x3",
            "--threads",
            "1",
            "--cost",
            path(&model),
            "--no-probe",
            "--out",
            path(dir.path()),
            "-o",
            path(&out),
        ]);
        c.args(extra).assert().success();
        let v = file_json(&out);
        (v["predicted_seconds"].as_f64().unwrap(), v["store_writes"].as_bool().unwrap())
    };
    let (without, with) = (plan(&[]), plan(&["--with-store"]));
    assert!(!without.1 && with.1);
    assert!(with.0 > without.0, "{with:?} {without:?}");
}

/// The published value of an empty board, from `tests/data/empty-board-values.csv`.
fn published(board: &str) -> i64 {
    let text = std::fs::read_to_string(data("empty-board-values.csv")).unwrap();
    let line = text.lines().find(|l| l.starts_with(&format!("{board},"))).unwrap();
    line.split(',').nth(3).unwrap().parse().unwrap()
}

/// Writes `text` to a file in `dir` and returns its path.
fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn bad_plans_exit_2_and_traces_that_disagree_with_them_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dab()
        .args(["plan", "2x3", "--threads", "2", "--cost", path(&model()), "--no-probe", "--out", path(d)])
        .assert()
        .success();
    let good = std::fs::read_to_string(d.join("plan.json")).unwrap();
    let mut plan: serde_json::Value = serde_json::from_str(&good).unwrap();
    let old =
        file(d, "old.json", &good.replacen(&format!("\"format\": {}", dab::plan::PLAN_FORMAT), "\"format\": 0", 1));
    let jobs = plan["jobs"].as_array_mut().unwrap();
    let last = jobs.pop().unwrap();
    let missing = file(d, "missing.json", &plan.to_string());
    let trace = d.join("trace.csv");
    dab().args(["run", "--plan", path(&d.join("plan.json")), "--quiet", "--out", path(d)]).assert().success();
    let trace_text = std::fs::read_to_string(&trace).unwrap();
    let first_job = trace_text.lines().nth(2).unwrap().split(',').next().unwrap().to_string();
    let short_trace = file(
        d,
        "short.csv",
        &trace_text.lines().filter(|l| !l.starts_with(&format!("{first_job},"))).collect::<Vec<_>>().join("\n"),
    );
    // The trace of a run that named no plan (traces before fingerprints): compared unchecked,
    // so that a plan lacking one of its jobs is refused for that.
    let (header, rows) = trace_text.split_once('\n').unwrap();
    let unnamed = header.split(' ').filter(|w| !w.starts_with("plan=")).collect::<Vec<_>>().join(" ");
    let unnamed_trace = file(d, "unnamed.csv", &format!("{unnamed}\n{rows}"));
    let cases: Vec<(Vec<String>, String)> = vec![
        (vec!["run".into(), "3x3".into(), "--plan".into(), path(&d.join("plan.json")).into()], "is for 2x3".into()),
        // Lines alone name a position too (of the default board), which the plan must be for.
        (
            vec![
                "run".into(),
                "--plan".into(),
                path(&d.join("plan.json")).into(),
                "--lines".into(),
                format!("1{}", "0".repeat(30)),
            ],
            "is for 2x3".into(),
        ),
        (vec!["run".into(), "--plan".into(), path(&old).into()], "format 0 is not supported".into()),
        (vec!["run".into(), "--plan".into(), path(&missing).into()], "no job for rows".into()),
        (
            vec!["run".into(), "--plan".into(), "no-such-plan.json".into()],
            "cannot read plan 'no-such-plan.json'".into(),
        ),
        (
            vec!["run".into(), "--plan".into(), path(&file(d, "junk.json", "{not json")).into()],
            "is not a plan file".into(),
        ),
        (
            vec![
                "compare".into(),
                "--plan".into(),
                path(&missing).into(),
                "--trace".into(),
                path(&unnamed_trace).into(),
            ],
            format!("job '{}' is not in the plan", last["name"].as_str().unwrap()),
        ),
        // The run's own trace names the plan it ran, which `missing.json` is not.
        (
            vec!["compare".into(), "--plan".into(), path(&missing).into(), "--trace".into(), path(&trace).into()],
            "not the plan that ran".into(),
        ),
        (
            vec![
                "compare".into(),
                "--plan".into(),
                path(&d.join("plan.json")).into(),
                "--trace".into(),
                path(&short_trace).into(),
            ],
            "missing from the trace".into(),
        ),
        (
            vec![
                "compare".into(),
                "--plan".into(),
                path(&data("compare/plan.json")).into(),
                "--trace".into(),
                path(&trace).into(),
            ],
            "the trace is of 2x3, the plan of 1x1".into(),
        ),
        (vec!["plan".into(), "2x3".into(), "--cost".into(), "no-model.json".into()], "run dab calibrate".into()),
        (
            vec!["plan".into(), "2x3".into(), "--threads".into(), "0".into(), "--cost".into(), path(&model()).into()],
            "--threads must be at least 1".into(),
        ),
        // A split the user gives that makes too big a graph is refused, naming the limit.
        (
            vec![
                "plan".into(),
                "3x4".into(),
                "--split".into(),
                "1".into(),
                "--groups".into(),
                "2,3,4".into(),
                "--no-probe".into(),
            ],
            "the graph would have 321376 jobs with up to 70502156 dependencies; at most 2000000 jobs".into(),
        ),
    ];
    for (args, message) in cases {
        // A trace and a plan that disagree are inputs found inconsistent (1), not a usage error.
        dab()
            .args(&args)
            .args(["--out", path(d)])
            .assert()
            .code(if args[0] == "compare" { 1 } else { 2 })
            .stderr(predicate::str::starts_with("error: ").and(predicate::str::contains(message.as_str())));
    }
}

#[test]
fn a_small_calibration_saves_a_model_with_the_solves_own_contention() {
    let dir = tempfile::tempdir().unwrap();
    let (model, samples) = (dir.path().join("model.json"), dir.path().join("samples.csv"));
    let out = dab()
        .args([
            // The portable kernel, whatever this CPU has: the model records it.
            "--simd",
            "portable",
            "calibrate",
            "--cases",
            "2x3,2x4,3x3@14,3x4/3~4",
            "--holdout",
            "2x2",
            "--threads",
            "2",
            "--repeats",
            "1",
        ])
        .args(["-o", path(&model), "--samples", path(&samples), "--store-dir", path(dir.path())])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("shape from copies of a 3x4 solve at once (1: 1.000x, 2: "), "{text}");
    assert!(text.contains("level from the solves' own jobs ("), "{text}");
    let m = file_json(&model);
    assert_eq!(m["format"], 8);
    assert_eq!(m["simd"], "portable");
    assert!(text.contains("; kernel: portable"), "{text}");
    assert_eq!(m["hardware_threads"], 2);
    assert!(m["cache_bytes"].as_u64().unwrap() > 0, "{m}");
    let at_two = m["contention"][0].as_array().unwrap();
    assert_eq!(at_two[0], 2);
    assert!(at_two[1].as_f64().unwrap() >= 1.0, "{m}");
    // Every job of the fitted cases and the holdout, on one and on two threads.
    let csv = std::fs::read_to_string(&samples).unwrap();
    for (board, threads) in [("2x3", "1"), ("2x3", "2"), ("2x4", "2"), ("3x3@14", "1"), ("2x2", "1")] {
        assert!(
            csv.lines().any(|l| l.starts_with(&format!("{board},")) && l.split(',').nth(2) == Some(threads)),
            "{board} {threads}"
        );
    }
    // The sampled case: its four jobs, timed alone on one thread.
    let sampled: Vec<&str> = csv.lines().filter(|l| l.starts_with("3x4/3~4,")).collect();
    assert_eq!(sampled.len(), 4, "{sampled:?}");
    assert!(sampled.iter().all(|l| l.split(',').nth(2) == Some("1")), "{sampled:?}");
    let said = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(said.contains("timed 3x4/3~4 (4 jobs, each alone) on 1 thread(s)"), "{said}");
    // The saved model plans.
    dab()
        .args(["plan", "2x3", "--threads", "2", "--cost", path(&model), "--no-probe", "-o"])
        .arg(dir.path().join("p.json"))
        .arg("--out")
        .arg(dir.path())
        .assert()
        .success();
}

/// A run of milliseconds says it is too short to compare instead of an error ratio, and a
/// resumed run that computed nothing says so instead of peaks against predictions.
#[test]
fn a_run_too_short_to_compare_and_a_run_that_computed_nothing_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let first =
        dab().current_dir(d).args(["run", "2x3", "--no-probe", "--out", "r", "--store", "s"]).assert().success();
    let said = String::from_utf8_lossy(&first.get_output().stdout).into_owned();
    // A run of milliseconds, unless the machine is loaded past all reason: either way the
    // line must agree with the time it shows.
    let actual: f64 = said.split("actual ").nth(1).and_then(|t| t.split(' ').next()).unwrap().parse().unwrap();
    assert_eq!(said.contains("too short to compare (under 0.05 s"), actual < 0.05, "{said}");
    assert_eq!(said.contains("x the prediction"), actual >= 0.05, "{said}");
    let json = stdout_json(dab().current_dir(d).args(["run", "2x3", "--no-probe", "--out", "r2", "--json"]).assert());
    assert_eq!(json["too_short"], json["actual_seconds"].as_f64().unwrap() < 0.05, "{json}");
    let again =
        dab().current_dir(d).args(["run", "2x3", "--no-probe", "--out", "r", "--store", "s"]).assert().success();
    let said = String::from_utf8_lossy(&again.get_output().stdout).into_owned();
    assert!(said.contains("jobs was in the store: nothing computed"), "{said}");
    assert!(!said.contains("peak resident partition values"), "{said}");
}

/// The memory limit is the whole process's and is kept: the planner's least limit runs a plan
/// file within it, and a run that plans in its own process is refused up front where the
/// planning alone passed the limit, naming the least that works.
#[test]
fn a_memory_limit_is_kept_or_refused_up_front_naming_the_least() {
    let dir = tempfile::tempdir().unwrap();
    let (d, store) = (path(dir.path()), dir.path().join("store"));
    let model = model();
    // The groupings the planner tried before the default became two groups for 3x4: planning
    // the four-group candidate holds more than the run's least.
    let common = ["--cost", path(&model), "--no-probe", "--threads", "2", "--groups", "2,3,4", "--out", d, "--quiet"];
    let least_of = |out: &[u8]| -> u64 {
        let err = String::from_utf8_lossy(out).to_string();
        let n = err.split("needs ").nth(1).and_then(|r| r.split(' ').next()).unwrap_or_else(|| panic!("{err}"));
        n.parse().unwrap()
    };
    let refused = dab().args(["plan", "3x4", "--mem-limit", "1K", "--with-store"]).args(common).assert().code(2);
    let least = least_of(&refused.get_output().stderr);
    let plan = dir.path().join("least.json");
    let limit = least.to_string();
    dab()
        .args(["plan", "3x4", "--mem-limit", &limit, "--with-store", "-o", path(&plan)])
        .args(common)
        .assert()
        .success();
    let v = stdout_json(
        dab()
            .args(["run", "--plan", path(&plan), "--mem-limit", &limit, "--store", path(&store), "--json"])
            .args(["--threads", "2", "--out", d, "--quiet"])
            .assert(),
    );
    let solved = stdout_json(dab().args(["solve", "3x4", "--json", "--threads", "2"]).assert());
    assert_eq!(v["value"], solved["value"]);
    let rss = v["peak_rss_bytes"].as_u64().unwrap();
    assert!(rss <= least, "the run held {rss} bytes under a limit of {least}");
    // Planning 3x4 in the process takes more than the run's least: refused before the run.
    std::fs::remove_dir_all(&store).unwrap();
    let out = dab()
        .args(["run", "3x4", "--mem-limit", &limit, "--store", path(&store)])
        .args(common)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("planning in this process already held") && err.contains("give at least"), "{err}");
}

#[test]
fn a_model_of_another_kernel_is_named_as_such_when_a_plan_probes_this_machine() {
    use dab::solver::Simd;
    let dir = tempfile::tempdir().unwrap();
    let here = Simd::current();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let [ours, other] = [here.gathers(), !here.gathers()].map(|vbmi| {
        let simd = if vbmi { Simd::Vbmi } else { Simd::Avx2 };
        root.join(dab::sched::model_name(simd))
    });
    let plan = |model: &Path| {
        let out = dab()
            .args(["plan", "2x3", "--threads", "1", "--cost", path(model), "--out", path(dir.path())])
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stderr).into_owned()
    };
    let note = "the cost model was made for the kernel that uses";
    let said = plan(&other);
    assert!(said.contains(note) && said.contains(&format!(", not {here}; dab calibrate fits this machine")), "{said}");
    // One short line each.
    assert!(said.lines().all(|l| l.len() <= 200), "{said}");
    // The model of this kernel: no such note (unless this CPU's widest set is narrower than
    // the one the committed model of its kind was timed with).
    let said = plan(&ours);
    let committed = dab::sched::CostModel::built_in_for(here).simd;
    assert_eq!(said.contains(note), committed != here, "{said}");
}

/// The SVG of the speedup chart in `dir`.
fn speedup_chart(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("speedup.svg")).unwrap()
}

/// A run's trace names the plan it ran (its fingerprint), and `dab compare` refuses another:
/// a later `dab plan` into the run's folder rewrites `plan.json`, whose prediction is not the
/// one the run was compared with. The plan that ran still compares, and the speedup chart of
/// a plan shows the folder's run only where that run is of this very plan.
#[test]
fn a_trace_is_compared_only_with_the_plan_its_run_ran() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan_args = |threads: &str| {
        ["2x3", "--threads", threads, "--cost", path(&model()), "--no-probe", "--out", path(d), "--quiet"]
            .map(String::from)
            .to_vec()
    };
    dab().arg("run").args(plan_args("2")).assert().success();
    let plan = d.join("plan.json");
    let ran = d.join("ran.json");
    std::fs::copy(&plan, &ran).unwrap();
    let fingerprint = dab::plan::Plan::load(&plan).unwrap().fingerprint();
    let trace = d.join("trace.csv");
    let header = std::fs::read_to_string(&trace).unwrap().lines().next().unwrap().to_string();
    assert!(header.ends_with(&format!(" plan={fingerprint}")), "{header}");
    // The run drew the plan's speedup chart again with its measured speedup.
    assert!(speedup_chart(d).contains("measured, this plan&apos;s run (trace.csv)"));

    // The same plan again (the planner is deterministic without a probe): the run is its own.
    dab().arg("plan").args(plan_args("2")).assert().success();
    assert_eq!(dab::plan::Plan::load(&plan).unwrap().fingerprint(), fingerprint);
    assert!(speedup_chart(d).contains("measured, this plan&apos;s run"));

    // Another plan into the same folder: not the run's, so neither the chart nor compare takes it.
    dab().arg("plan").args(plan_args("1")).assert().success();
    let other = dab::plan::Plan::load(&plan).unwrap().fingerprint();
    assert_ne!(other, fingerprint);
    assert!(!speedup_chart(d).contains("measured"), "the run is of another plan");
    let out = d.join("compared");
    dab()
        .args(["compare", "--plan", path(&plan), "--trace", path(&trace), "--out", path(&out)])
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty())
        .stderr(
            predicate::str::starts_with(format!("error: plan '{}', trace '{}': ", path(&plan), path(&trace)))
                .and(predicate::str::contains(format!("the trace is of a run of plan {fingerprint}")))
                .and(predicate::str::contains(format!("this plan is {other}"))),
        );
    assert!(!out.exists(), "a refused comparison writes nothing");

    // The plan that ran compares, and says both fingerprints agree.
    let v = stdout_json(
        dab().args(["compare", "--plan", path(&ran), "--trace", path(&trace), "--json", "--out", path(&out)]).assert(),
    );
    assert_eq!(v["plan_fingerprint"], fingerprint.as_str());
    assert_eq!(v["trace_plan_fingerprint"], fingerprint.as_str());

    // A trace written before traces named their plan is compared as before, with a note.
    let text = std::fs::read_to_string(&trace).unwrap().replace(&format!(" plan={fingerprint}"), "");
    let old = file(d, "old.csv", &text);
    let v = stdout_json(
        dab()
            .args(["compare", "--plan", path(&ran), "--trace", path(&old), "--json", "--out", path(&out)])
            .assert()
            .stderr(predicate::str::contains("does not name the plan its run ran")),
    );
    assert_eq!(v["trace_plan_fingerprint"], serde_json::Value::Null);
}
