//! Hostile command lines: every error on one line with exit 2 (clap's own included), resource
//! limits refused at once with the limit named, ignored options said, and nothing written
//! before a refusal.

use assert_cmd::Command;
use predicates::prelude::*;

fn dab() -> Command {
    Command::cargo_bin("dab").unwrap()
}

/// Runs `args` (in `dir` when given), expects exit 2 and returns standard error, which must be
/// one line starting with "error: ".
fn refused(args: &[&str], dir: Option<&std::path::Path>) -> String {
    let mut cmd = dab();
    cmd.args(args).timeout(std::time::Duration::from_secs(60));
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let out = cmd.assert().code(2).get_output().clone();
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("note: ")).collect();
    assert_eq!(lines.len(), 1, "not one line: {err:?}");
    assert!(lines[0].starts_with("error: "), "{err:?}");
    lines[0].to_string()
}

#[test]
fn clap_errors_are_one_line_naming_the_subcommand_help() {
    let e = refused(&["run", "--bogus"], None);
    assert!(e.contains("'--bogus'") && e.ends_with("see 'dab run --help'"), "{e}");
    let e = refused(&["sim", "g.csv", "--policy", "foo"], None);
    assert!(e.contains("'foo'") && e.contains("fifo, cp, largest") && e.ends_with("see 'dab sim --help'"), "{e}");
    let e = refused(&["solve", "3x4", "--threads", "x"], None);
    assert!(e.contains("--threads") && e.ends_with("see 'dab solve --help'"), "{e}");
    let e = refused(&["nosuch"], None);
    assert!(e.contains("'nosuch'") && e.ends_with("see 'dab --help'"), "{e}");
}

#[test]
fn help_and_version_are_not_errors() {
    dab().args(["run", "--help"]).assert().success().stdout(predicate::str::contains("--threads"));
    dab().arg("--version").assert().success();
}

#[test]
fn more_threads_than_the_machine_runs_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["solve", "2x2", "--threads", "100000"][..],
        &["run", "2x2", "--threads", "100000", "--no-probe"],
        &["scale", "2x2", "--sweep", "1,100000", "--no-probe"],
        &["hint", "2x2", "--threads", "100000"],
    ] {
        let e = refused(args, Some(dir.path()));
        assert!(e.contains("100000 threads") && e.contains("at most"), "{args:?}: {e}");
    }
    // Nothing was planned or written before the refusal.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_thread_count_of_0_is_a_usage_error_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/compare");
    let (plan, trace) = (format!("{data}/plan.json"), format!("{data}/trace.csv"));
    for (args, flag) in [
        (&["solve", "2x2", "--threads", "0"][..], "--threads"),
        (&["plan", "2x2", "--threads", "0", "--no-probe"], "--threads"),
        (&["run", "2x2", "--threads", "0", "--no-probe"], "--threads"),
        (&["hint", "2x2", "--threads", "0"], "--threads"),
        (&["play", "2x2", "--threads", "0"], "--threads"),
        (&["calibrate", "--threads", "0"], "--threads"),
        // A usage error (2), not a trace found to disagree with its plan (1).
        (&["compare", "--plan", &plan, "--trace", &trace, "--threads", "0", "--out", "r"], "--threads"),
        // Refused whichever suite reads the list, before minutes of another suite.
        (&["bench", "--sweep", "0"], "--sweep: thread counts"),
        (&["bench", "--suite", "memory", "--sweep", "1,0"], "--sweep: thread counts"),
        (&["bench", "--suite", "search", "--sweep", "0"], "--sweep: thread counts"),
    ] {
        let e = refused(args, Some(dir.path()));
        assert!(e.contains(&format!("{flag} must be at least 1")), "{args:?}: {e}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written before a refusal");
}

/// A temporary folder holding `p.json`, a plan of 2x2 for `threads` threads.
fn plan_2x2(threads: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    dab()
        .current_dir(dir.path())
        .args(["plan", "2x2", "--threads", threads, "--no-probe", "-o", "p.json", "--out", "r"])
        .assert()
        .success();
    dir
}

#[test]
fn a_plan_for_more_threads_than_this_machine_is_still_a_plan() {
    let dir = plan_2x2("1000");
    // Run as it is, it would start 1000 threads: refused, naming how to run it on fewer.
    let e = refused(&["run", "--plan", "p.json", "--out", "r"], Some(dir.path()));
    assert!(e.contains("1000 threads") && e.contains("--threads"), "{e}");
}

#[test]
fn processor_lists_too_long_to_simulate_are_refused_with_the_limit() {
    let e = refused(&["sim", "g.csv", "--sweep", "1..100000000"], None);
    assert!(e.contains("more than 10000 processor counts"), "{e}");
}

#[test]
fn a_gantt_chart_of_more_processors_than_jobs_has_a_lane_per_job() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.csv");
    dab().args(["graph", "2x2", "-o"]).arg(&graph).assert().success();
    dab()
        .args(["sim", "--sweep", "1,4000000000", "--gantt", "4000000000", "--out"])
        .arg(dir.path().join("r"))
        .arg(&graph)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success();
    assert!(dir.path().join("r/gantt.svg").exists());
}

#[test]
fn splits_that_would_not_fit_in_memory_are_refused_with_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let e = refused(&["graph", "3x4", "--split", "1", "--max-pieces", "4000000000", "-o", "g.csv"], Some(dir.path()));
    assert!(e.contains("jobs") && e.contains("at most 2000000 jobs"), "{e}");
    let e =
        refused(&["plan", "3x4", "--split", "1", "--groups", "2,3,4", "--no-probe", "-o", "p.json"], Some(dir.path()));
    assert!(e.contains("at most 2000000 jobs"), "{e}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn calibrate_with_a_missing_store_dir_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.json");
    std::fs::write(&model, "old model").unwrap();
    let missing = dir.path().join("missing");
    for extra in [&[][..], &["--store-only"]] {
        let mut args = vec!["calibrate", "-o", model.to_str().unwrap(), "--store-dir", missing.to_str().unwrap()];
        args.extend_from_slice(extra);
        let e = refused(&args, Some(dir.path()));
        assert!(e.contains("--store-dir") && e.contains("missing"), "{e}");
    }
    assert!(!missing.exists(), "the mistyped folder was created");
    assert_eq!(std::fs::read_to_string(&model).unwrap(), "old model");
}

#[test]
fn options_a_loaded_plan_ignores_are_named() {
    let dir = plan_2x2("1");
    dab()
        .current_dir(dir.path())
        .args(["run", "--plan", "p.json", "--out", "r", "--groups", "2", "--split", "5"])
        .assert()
        .success()
        .stderr(predicate::str::contains("note: --groups, --split ignored with --plan"));
}

#[test]
fn inputs_too_big_for_this_machine_s_memory_are_refused_before_they_are_read() {
    let dir = tempfile::tempdir().unwrap();
    // A sparse file of a terabyte: no disk used, but no machine here parses it.
    let big = dir.path().join("big.csv");
    std::fs::File::create(&big).unwrap().set_len(1 << 40).unwrap();
    let big = big.to_str().unwrap();
    for args in [
        &["sim", big, "--out", "r"][..],
        &["run", "--plan", big, "--out", "r"],
        &["compare", "--plan", big, "--trace", big, "--out", "r"],
        &["plan", "2x2", "--cost", big, "--out", "r"],
    ] {
        let e = refused(args, Some(dir.path()));
        assert!(e.contains("1099511627776 bytes is too big to read"), "{args:?}: {e}");
    }
}

#[test]
fn an_option_that_only_applies_with_another_is_refused_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let e = refused(&["verify", "--store", dir.path().to_str().unwrap(), "--seed", "3"], None);
    assert!(e.contains("--recompute"), "{e}");
}

#[test]
fn a_full_board_says_it_has_no_best_move() {
    for cmd in ["solve", "hint"] {
        dab()
            .args([cmd, "1x1", "--lines", "1111"])
            .assert()
            .success()
            .stdout(predicate::str::contains("best none (no lines left to draw)"));
    }
}

#[test]
fn a_value_alone_claims_no_best_move_and_lists_no_moves() {
    // It once printed "best none (no lines left to draw)" for a position with every line left.
    dab()
        .args(["solve", "2x2", "--engine", "search", "--value-only"])
        .assert()
        .success()
        .stdout(predicate::str::contains("best not searched: the position's value alone was asked for"))
        .stdout(predicate::str::contains("best none").not())
        .stdout(predicate::str::contains("moves (").not());
}

#[test]
fn a_model_of_an_older_format_is_refused_naming_dab_calibrate_once() {
    let dir = tempfile::tempdir().unwrap();
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/sims/cost-model.json")).unwrap();
    let mut model: serde_json::Value = serde_json::from_str(&committed).unwrap();
    // A model of the scalar kernel: its costs cannot be carried to the row path by a probe.
    model["format"] = 2.into();
    let path = dir.path().join("old.json");
    std::fs::write(&path, model.to_string()).unwrap();
    let e = refused(&["plan", "2x3", "--cost", path.to_str().unwrap(), "--no-probe"], Some(dir.path()));
    assert!(e.contains("has format 2") && e.contains("old.json"), "{e}");
    assert_eq!(e.matches("dab calibrate").count(), 1, "{e}");
}

/// Runs `dab args` in `dir` under `ulimit -f 100` (100 KiB in bash): files past that size must
/// fail their write with a message, not kill dab with SIGXFSZ. Returns standard error.
#[cfg(unix)]
fn under_file_size_limit(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("bash")
        .args(["-c", "ulimit -f 100; exec \"$0\" \"$@\""])
        .arg(assert_cmd::cargo::cargo_bin("dab"))
        .args(args)
        .current_dir(dir)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .get_output()
        .clone();
    // A kill by a signal has no exit code.
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[cfg(unix)]
#[test]
fn a_file_past_the_file_size_limit_is_a_write_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    // The graph of 3x5 is about 690 kB, written through the atomic write of every report.
    let e = under_file_size_limit(dir.path(), &["graph", "3x5", "-o", "g.csv"]);
    assert!(e.contains("cannot write graph file 'g.csv': File too large"), "{e}");
    assert!(!dir.path().join("g.csv").exists());
    // A chart's PNG over 100 KiB (the speedup chart's or the candidates'), drawn by plotters
    // under a temporary name.
    let e = under_file_size_limit(dir.path(), &["plan", "2x3", "--no-probe", "-o", "p.json", "--out", "r"]);
    let failed = ["speedup", "candidates"].into_iter().find(|c| e.contains(&format!("r/{c}.png")));
    let failed = failed.unwrap_or_else(|| panic!("no chart named: {e}"));
    assert!(e.contains("File too large"), "{e}");
    let left: Vec<String> = std::fs::read_dir(dir.path().join("r"))
        .unwrap()
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        left.iter().all(|f| !f.starts_with(failed) && !f.contains("tmp")),
        "no part of the {failed} chart, and no temporary file, is left behind: {left:?}"
    );
}

/// Inputs that never end or are no text: `/dev/zero` as a plan or graph, or piped into
/// `sim -`, a folder as a plan, a NUL byte in a cost model. Each is refused at once, naming
/// what it is, instead of being read until memory runs out.
#[test]
fn an_endless_or_binary_input_is_refused_at_once_naming_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let limit = std::time::Duration::from_secs(30);
    let binary = dir.path().join("model.json");
    std::fs::write(&binary, b"{\"format\": \0}").unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["run", "--plan", "/dev/zero"], "a device or special file, not a text file"),
        (&["sim", "/dev/zero"], "a device or special file, not a text file"),
        (&["run", "--plan", "/"], "a folder, not a text file"),
        (&["plan", "2x2", "--cost", binary.to_str().unwrap()], "a NUL byte at byte 11"),
    ];
    for (args, why) in cases {
        let out = dab().current_dir(dir.path()).args(args).timeout(limit).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
    }
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let mut sim = std::process::Command::new(assert_cmd::cargo::cargo_bin("dab"));
    let out = sim.current_dir(dir.path()).args(["sim", "-"]).stdin(zero).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("a NUL byte at byte 0"), "{err}");
}

#[test]
fn counts_past_what_any_machine_uses_are_refused_at_once() {
    let e = refused(&["compare", "--plan", "p.json", "--trace", "t.csv", "--threads", "1000000000"], None);
    assert!(e.contains("--threads 1000000000") && e.contains("at most 1048576"), "{e}");
    let e = refused(&["plan", "3x4", "--threads", "1000000000"], None);
    assert!(e.contains("at most 1048576"), "{e}");
    let e = refused(&["scale", "2x2", "--repeats", "1000000000"], None);
    assert!(e.contains("--repeats 1000000000") && e.contains("1 to 1000"), "{e}");
}

#[test]
fn inputs_are_bounded_while_they_are_read() {
    // A position file past 1 MiB, from a file and from an endless pipe: refused by size.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.txt");
    std::fs::write(&big, "+-+\n".repeat(300_000)).unwrap();
    let e = refused(&["hint", "--position", big.to_str().unwrap()], None);
    assert!(e.contains("too big to read: at most 1048576"), "{e}");
    let endless = "+-+\n".repeat(1 << 19);
    let out = dab().args(["hint", "--position", "-"]).write_stdin(endless).assert().code(2).get_output().clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("from stdin: more than 1048576 bytes is too big to read"), "{err}");
    // An endless graph on standard input under `ulimit -v`: refused within the address space.
    let sh = format!("ulimit -v 2000000 && yes a,b,c,d | {} sim -", env!("CARGO_BIN_EXE_dab"));
    let out = std::process::Command::new("sh").args(["-c", &sh]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("too big to read") && err.contains("ulimit -v"), "{err}");
    assert!(!err.contains("memory allocation"), "{err}");
}

#[test]
fn sizes_numbers_and_store_paths_are_read_as_meant() {
    let e = refused(&["run", "2x2", "--mem-limit", "3Gb", "--store", "s"], None);
    assert!(e.contains("a lowercase b is bits") && e.contains("3GB"), "{e}");
    let e = refused(&["compare", "--plan", "p.json", "--trace", "t.csv", "--overhead=-1e308"], None);
    assert!(e.contains("--overhead -1e308 is not"), "{e}");
    // A store path that is a file is named so, before any probe or plan.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "x").unwrap();
    let start = std::time::Instant::now();
    let e = refused(&["run", "3x4", "--store", file.to_str().unwrap()], None);
    assert!(e.contains("is a file, not a store folder"), "{e}");
    assert!(start.elapsed().as_secs_f64() < 2.0, "took {:?}", start.elapsed());
    let out = dab().args(["query", "3x3", "--store", file.to_str().unwrap()]).assert().failure().get_output().clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("a file, not a store folder"));
    // A store folder that holds no solve of the position: the hint answers on the spot.
    let store = dir.path().join("s");
    dab().args(["solve", "2x2", "--store", store.to_str().unwrap()]).assert().success();
    dab()
        .args(["hint", "2x3", "--store", store.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("value"))
        .stderr(predicate::str::contains("answered on the spot"));
}

/// Runs `dab args` in `dir` under `ulimit -v KB` (kilobytes in bash); returns the output.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn under_address_limit(dir: &std::path::Path, kilobytes: u64, args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .args(["-c", &format!("ulimit -v {kilobytes}; exec \"$0\" \"$@\"")])
        .arg(assert_cmd::cargo::cargo_bin("dab"))
        .args(args)
        .current_dir(dir)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_small_address_space_limit_is_refused_on_one_line_or_enough_for_a_small_run() {
    let dir = tempfile::tempdir().unwrap();
    // Below the floor: one line naming the limit, before any work.
    let out = under_address_limit(dir.path(), 30_000, &["run", "3x3", "--no-probe"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: the address-space limit (ulimit -v) leaves") && err.contains("needs at least"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // 100 MB runs a small board whole, probe and its threads included (each thread's own heap
    // once reserved 64 MiB, and two failing at once printed one garbled abort).
    let out = under_address_limit(dir.path(), 100_000, &["run", "3x3", "--threads", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.path().join("reports/runs/3x3/plan.json").exists());
}

#[test]
fn a_set_of_vector_instructions_that_is_none_or_that_this_cpu_lacks_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let e = refused(&["--simd", "avx512", "run", "2x2", "--no-probe", "--out", "r"], Some(dir.path()));
    assert!(e.contains("--simd: 'avx512' is not a set of vector instructions (portable, avx2 or vbmi)"), "{e}");
    // From the environment, named as such, on any subcommand.
    let mut cmd = dab();
    cmd.current_dir(dir.path()).env("DAB_SIMD", "sse9").args(["solve", "2x2"]);
    let err = String::from_utf8(cmd.assert().code(2).get_output().stderr.clone()).unwrap();
    assert_eq!(err.trim_end(), "error: DAB_SIMD: 'sse9' is not a set of vector instructions (portable, avx2 or vbmi)");
    // A set wider than this CPU's, where it has a narrower one than the widest.
    let has = dab::solver::Simd::detected();
    for wider in dab::solver::Simd::ALL.into_iter().filter(|&s| s > has) {
        let e = refused(&["--simd", wider.name(), "solve", "2x2"], Some(dir.path()));
        assert!(e.contains(&format!("this CPU lacks {wider} (it has {has})")), "{e}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written before a refusal");
}

/// Runs `dab args` with `yes` on its standard input (an endless stream of "y" lines, written
/// until dab stops reading), and returns its exit code, standard error and seconds taken.
fn with_endless_input(args: &[&str], dir: &std::path::Path) -> (Option<i32>, String, f64) {
    use std::io::Write;
    let start = std::time::Instant::now();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("dab"))
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let lines = "y\n".repeat(1 << 15);
        // Until dab closes its end (or two minutes: a reader without a bound).
        let until = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while std::time::Instant::now() < until && stdin.write_all(lines.as_bytes()).is_ok() {}
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), start.elapsed().as_secs_f64())
}

#[test]
fn endless_standard_input_stops_at_a_bound_fitting_what_is_read_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let plan = "tests/data/cluster/tasks/plan-3x4.json";
    let plan = std::fs::canonicalize(plan).unwrap();
    let plan = plan.to_str().unwrap();
    // A plan (JSON) is refused at its first byte; a scheduler's log at the bound of the plan
    // it is read for (64 MiB and 3 KiB a job); a game at its first command past the longest.
    let cases: [(&[&str], &str); 4] = [
        (&["run", "--plan", "-", "--out", "r"], "not JSON: the text begins with \"y\" at byte 0"),
        (&["compare", "--plan", "-", "--trace", plan, "--out", "r"], "not JSON"),
        (
            &["cluster-trace", "--plan", plan, "--jobcomp", "-", "-o", "t.csv"],
            "bytes is too big to read (a log of this plan's 338 jobs",
        ),
        (&["play", "3x3"], "refused in a row"),
    ];
    for (args, why) in cases {
        let (code, err, seconds) = with_endless_input(args, dir.path());
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
        assert!(seconds < 30.0, "{args:?} took {seconds:.1} s");
    }
    assert!(!dir.path().join("t.csv").exists() && !dir.path().join("r").exists(), "nothing written");
    // A line longer than any command ends the game at once, its bound named.
    let long = format!("{}\n", "a".repeat(2000));
    dab()
        .args(["play", "3x3"])
        .write_stdin(long)
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a line of input passes 1024 bytes"));
}

#[test]
fn a_trace_or_plan_past_its_format_s_bound_is_refused_by_its_size_naming_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    // Sparse files of 2 GiB: past what any plan or trace dab writes holds, within most
    // machines' memory.
    let big = dir.path().join("big.csv");
    std::fs::File::create(&big).unwrap().set_len(2 << 30).unwrap();
    let big = big.to_str().unwrap();
    let plan = std::fs::canonicalize("tests/data/cluster/tasks/plan-3x4.json").unwrap();
    for (args, why) in [
        (&["run", "--plan", big, "--out", "r"][..], "a plan has at most 2,000,000 jobs"),
        (&["compare", "--plan", plan.to_str().unwrap(), "--trace", big, "--out", "r"], "a trace has a row"),
        (&["sim", big, "--out", "r"], "a graph has at most 2,000,000 jobs"),
    ] {
        let e = refused(args, Some(dir.path()));
        assert!(e.contains("2147483648 bytes is too big to read: at most") && e.contains(why), "{args:?}: {e}");
    }
}

#[test]
fn a_named_pipe_no_program_writes_to_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let fifo = fifo.to_str().unwrap();
    for args in [&["run", "--plan", fifo, "--out", "r"][..], &["solve", "--position", fifo], &["sim", fifo]] {
        let e = refused(args, Some(dir.path()));
        assert!(e.contains("a named pipe that no program writes to"), "{args:?}: {e}");
    }
    // One that a program writes to is read, with the same bound: a position.
    let writer = {
        let fifo = fifo.to_string();
        std::thread::spawn(move || std::fs::write(fifo, "+-+\n| |\n+ +\n"))
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    dab().args(["solve", "--position", fifo]).timeout(std::time::Duration::from_secs(60)).assert().success();
    writer.join().unwrap().unwrap();
}

#[test]
fn small_settings_that_would_fail_later_are_refused_naming_their_flag() {
    let dir = tempfile::tempdir().unwrap();
    let e = refused(&["plan", "2x2", "--nodes", "2", "--threads-per-node", "0"], Some(dir.path()));
    assert!(e.contains("--threads-per-node"), "{e}");
    let file = dir.path().join("taken");
    std::fs::write(&file, "a file").unwrap();
    let e = refused(&["plan", "2x2", "--out", file.to_str().unwrap()], Some(dir.path()));
    assert!(e.contains("--out") && e.contains("taken") && e.contains("is a file, not a folder"), "{e}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a file", "the file is left as it was");
    for limit in ["1B", "0"] {
        let e = refused(&["serve", "--port", "0", "--mem-limit", limit], Some(dir.path()));
        assert!(e.contains("--mem-limit") && e.contains("too small"), "{limit}: {e}");
    }
}

#[test]
fn a_full_board_has_neither_player_to_make_the_next_loony_move_in_every_answer() {
    // Solve (the retrograde), hint (the endgame theorems answer a full board) and the JSON of
    // both: one answer, as the README defines it.
    for cmd in ["solve", "hint"] {
        let out = dab().args([cmd, "2x2", "--lines", "111111111111", "--json"]).output().unwrap();
        assert!(out.status.success(), "{cmd}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["next_loony"].as_str(), Some("neither"), "{cmd}: {v}");
    }
}
