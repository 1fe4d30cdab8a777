//! The command line: outputs, formats, and every kind of bad input (one clear message, exit 2).

use assert_cmd::Command;
use predicates::prelude::*;

fn dab() -> Command {
    Command::cargo_bin("dab").unwrap()
}

fn json(args: &[&str], stdin: Option<&str>) -> serde_json::Value {
    let mut cmd = dab();
    cmd.args(args);
    if let Some(s) = stdin {
        cmd.write_stdin(s);
    }
    let out = cmd.assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn solve_json_has_the_promised_fields() {
    let v = json(&["solve", "2x2", "--json"], None);
    assert_eq!(v["board"], "2x2");
    assert_eq!(v["value"], 2);
    assert_eq!(v["moves"].as_array().unwrap().len(), 12);
    let first = &v["moves"][0];
    assert_eq!(first["line"], "h(0,0)");
    assert!(first["value"].is_i64());
    assert!(v["best"].as_array().unwrap().iter().all(|l| l.is_string()));
    assert!(v["positions"].as_u64().unwrap() > 0);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    assert!(v["gigabytes_per_second"].as_f64().unwrap() >= 0.0);
}

#[test]
fn solve_json_counts_the_bytes_the_partition_listing_says_a_solve_moves() {
    // Each partition written once, each dependency read whole by each reader.
    let list = json(&["partitions", "2x3", "--json"], None);
    let parts = list["partitions"].as_array().unwrap();
    let bytes = |key: &str| parts.iter().find(|p| p["key"] == key).unwrap()["bytes"].as_u64().unwrap();
    let expected: u64 = parts
        .iter()
        .map(|p| {
            p["bytes"].as_u64().unwrap()
                + p["deps"].as_array().unwrap().iter().map(|d| bytes(d.as_str().unwrap())).sum::<u64>()
        })
        .sum();
    let v = json(&["solve", "2x3", "--json"], None);
    assert_eq!(v["bytes_moved"].as_u64(), Some(expected));
    // A solve resumed from a complete store computes nothing, so moves nothing.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let first = json(&["solve", "2x3", "--json", "--store", store.to_str().unwrap()], None);
    assert_eq!(first["bytes_moved"].as_u64(), Some(expected));
    let again = json(&["solve", "2x3", "--json", "--store", store.to_str().unwrap()], None);
    assert_eq!(again["bytes_moved"].as_u64(), Some(0));
    // The twins have no partitions: no traffic to report.
    let dense = json(&["solve", "2x3", "--json", "--engine", "dense"], None);
    assert!(dense["bytes_moved"].is_null() && dense["gigabytes_per_second"].is_null());
}

#[test]
fn both_position_formats_give_the_same_answer() {
    let art = "# the example of docs/guide/formats.md\n+-+ +\n|   |\n+ +-+\n";
    let a = json(&["solve", "--position", "-", "--json"], Some(art));
    let b = json(&["solve", "1x2", "--lines", "1001101", "--json"], None);
    assert_eq!(a["value"], -2);
    assert_eq!(a["moves"], b["moves"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.txt");
    std::fs::write(&file, art).unwrap();
    let c = json(&["solve", "--position", file.to_str().unwrap(), "--json", "--engine", "minimax"], None);
    assert_eq!(c["moves"], b["moves"]);
}

#[test]
fn a_byte_order_mark_before_a_position_is_ignored() {
    // As a Windows editor saves a UTF-8 file: U+FEFF first, then the text.
    let art = "\u{feff}+-+ +\n|   |\n+ +-+\n";
    let want = json(&["solve", "1x2", "--lines", "1001101", "--json"], None);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.txt");
    std::fs::write(&file, art).unwrap();
    for (args, stdin) in [
        (vec!["solve", "--position", file.to_str().unwrap(), "--json"], None),
        (vec!["solve", "--position", "-", "--json"], Some(art)),
        (vec!["solve", "1x2", "--lines", "\u{feff}1001101", "--json"], None),
    ] {
        assert_eq!(json(&args, stdin)["moves"], want["moves"], "{args:?}");
    }
}

#[test]
fn text_output_names_value_moves_and_costs() {
    dab().args(["solve", "3x3", "--quiet"]).assert().success().stdout(
        predicate::str::contains("value -3")
            .and(predicate::str::contains("v(2,3)"))
            .and(predicate::str::contains("best h(0,0)"))
            .and(predicate::str::contains("positions 872,448"))
            .and(predicate::str::contains("M positions/s"))
            .and(predicate::str::contains("peak memory"))
            .and(
                predicate::str::is_match(
                    r"traffic [0-9.]+ GB read\+written \([0-9.]+ bytes a position\), [0-9.]+ GB/s",
                )
                .unwrap(),
            ),
    );
}

#[test]
fn no_progress_bar_on_a_pipe() {
    dab().args(["solve", "2x3"]).assert().success().stderr(predicate::str::is_empty());
}

use crate::common;

use common::refused as bad;

#[test]
fn bad_input_is_refused_with_status_2() {
    bad(&["solve", "17x16"], None, "board 17x16 has 577 lines; at most 576 are supported");
    bad(
        &["solve", "6x6"],
        None,
        "the position has 84 undrawn lines; solving in memory handles at most 32: a whole solve would store about 7.65e23 positions",
    );
    bad(
        &["plan", "5x6", "--no-probe"],
        None,
        "the position has 71 undrawn lines; the retrograde solver takes at most 64: a whole solve would store about",
    );
    bad(&["run", "9x9", "--no-probe"], None, "180 undrawn lines; the retrograde solver takes at most 64");
    bad(&["solve", "0x3"], None, "board '0x3' has no boxes");
    bad(&["solve", "3by4"], None, "not of the form MxN");
    bad(&["solve", "1x2", "--lines", "100110"], None, "6 characters; board 1x2 has 7 lines");
    bad(&["solve", "1x2", "--lines", "10011x1"], None, "'x' at position 6");
    bad(&["solve", "--position", "-"], Some("+-+ +\n| x |\n+ +-+\n"), "row 2, column 3");
    bad(&["solve", "--position", "-"], Some("+-+ +\n|   |\n"), "odd number");
    bad(&["solve", "--position", "/nonexistent/p.txt"], None, "cannot read position file '/nonexistent/p.txt'");
    bad(&["solve", "2x2", "--position", "-"], Some("+-+ +\n|   |\n+ +-+\n"), "is a 1x2 board, not 2x2");
    // Without a board, the line string is of the default board, 3x4.
    bad(&["solve", "--lines", "0101"], None, "board 3x4 has 31 lines");
    bad(&["solve", "3x3", "--bogus"], None, "unexpected argument '--bogus'");
    bad(&["solve", "3x4", "--groups", "1"], None, "at most 20 are allowed");
    bad(&["solve", "3x3", "--groups", "0"], None, "--groups: the group count must be at least 1");
    // The flag is named however deep the library wrapped the error (a graph, a plan, a run).
    bad(&["graph", "3x3", "--groups", "99"], None, "error: --groups: 99 groups are too many");
    for cmd in ["plan", "run"] {
        bad(&[cmd, "3x3", "--groups", "99", "--no-probe"], None, "error: --groups: no grouping");
    }
    bad(&["solve", "3x3", "--threads", "0"], None, "--threads must be at least 1");
    bad(&["solve", "4x4", "--engine", "dense"], None, "at most 32");
    bad(&["solve", "4x4"], None, "at most 32");
    bad(&["partitions", "9x9"], None, "the position has 180 undrawn lines; the retrograde solver handles at most 64");
    bad(&["graph", "16x16"], None, "the position has 544 undrawn lines; the retrograde solver handles at most 64");
}

#[test]
fn partitions_lists_keys_positions_bytes_and_dependencies() {
    let out = dab().args(["partitions", "3x3", "--groups", "2"]).assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("key,lines,positions,bytes,deps"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 13 * 13);
    assert_eq!(rows[0][0], "12-12");
    let root = rows.last().unwrap();
    assert_eq!((root[0], root[4]), ("0-0", "1-0:0-1"));
    let total: u64 = rows.iter().map(|r| r[2].parse::<u64>().unwrap()).sum();
    assert_eq!(total, 872448);
    // The default grouping: two groups of at most sixteen lines.
    let v = json(&["partitions", "3x4", "--json"], None);
    assert_eq!(v["groups"].as_array().unwrap().len(), 2);
    let parts = v["partitions"].as_array().unwrap();
    for p in parts {
        let key: dab::solver::PartitionKey = p["key"].as_str().unwrap().parse().unwrap();
        assert_eq!(key.to_string(), p["key"].as_str().unwrap());
    }
}

#[test]
fn bench_writes_its_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bench.csv");
    dab().args(["bench", "--cases", "2x2,1x4", "--bandwidth-mib", "1", "-o", out.to_str().unwrap()]).assert().success();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("case,engine,kernel,free_lines,value,positions,seconds,space_positions_per_second,threads,positions_per_second_per_thread,bytes_per_position,gigabytes_per_second,bandwidth_gigabytes_per_second,bandwidth_fraction,"));
    assert!(text.lines().next().unwrap().ends_with(",speedup_vs_dense,speedup_vs_scalar"));
    // Per case: the dense twin, then the row path and its scalar twin on one thread.
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let kinds: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r[0], r[1], r[2])).collect();
    assert_eq!(
        kinds,
        [
            ("2x2", "dense", ""),
            ("2x2", "partition", "rows"),
            ("2x2", "partition", "scalar"),
            ("1x4", "dense", ""),
            ("1x4", "partition", "rows"),
            ("1x4", "partition", "scalar")
        ]
    );
    for r in &rows {
        let vs_scalar = r.last().unwrap();
        assert_eq!(vs_scalar.is_empty(), r[2] != "rows", "{r:?}");
    }
    // Two thread counts: two more rows per case, each on two threads.
    dab()
        .args(["bench", "--cases", "2x2", "--sweep", "1,2", "--bandwidth-mib", "1", "-o"])
        .arg(dir.path().join("b2.csv"))
        .assert()
        .success();
    let two = std::fs::read_to_string(dir.path().join("b2.csv")).unwrap();
    assert_eq!(two.lines().count(), 6, "{two}");
    assert_eq!(two.lines().filter(|l| l.contains(",partition,") && l.split(',').nth(8) == Some("2")).count(), 2);
    dab().args(["bench", "--cases", "7x7", "-o", out.to_str().unwrap()]).assert().code(2);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text, "a failed run leaves the old report");
}

#[test]
fn bench_bandwidth_writes_copy_and_triad_on_one_and_all_threads() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bw.csv");
    dab()
        .args(["bench", "--suite", "bandwidth", "--bandwidth-mib", "1", "-o", out.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("bandwidth on 1 thread(s): copy "));
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("threads,array_bytes,repeats,copy_gigabytes_per_second,triad_gigabytes_per_second"));
    let rows: Vec<Vec<String>> = lines.map(|l| l.split(',').map(String::from).collect()).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0][0].as_str(), rows[0][1].as_str()), ("1", "1048576"));
    for r in &rows {
        for rate in &r[3..5] {
            let x: f64 = rate.parse().unwrap();
            assert!(x.is_finite() && x > 0.0, "{text}");
        }
    }
    bad(&["bench", "--suite", "bandwidth", "--bandwidth-mib", "0"], None, "--bandwidth-mib must be at least 1");
    bad(
        &["bench", "--suite", "bandwidth", "--bandwidth-mib", "99999999999"],
        None,
        "exceed a quarter of the memory available",
    );
}

#[test]
fn a_closed_pipe_ends_output_quietly() {
    use std::io::{BufRead, BufReader};
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("dab"))
        .args(["partitions", "3x5", "--groups", "5"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // The reader is gone (as `| head -1` does): the next writes meet a closed pipe.
    let out = child.wait_with_output().unwrap();
    assert!(!first.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
}

/// One rule for every command that takes a position: without a board (or a position file), the
/// empty 3x4 board, as `dab run` has always taken.
#[test]
fn every_command_without_a_board_takes_the_empty_3x4() {
    let out = dab().args(["solve", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["board"], "3x4");
    let out = dab().args(["partitions"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = dab().args(["play"]).write_stdin("quit\n").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("board 3x4:"), "{}", String::from_utf8_lossy(&out.stdout));
    let help = dab().args(["hint", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("[default: 3x4]"));
}

#[test]
fn a_report_folder_flag_refuses_a_file_name_and_makes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in [&["plan", "2x3", "--no-probe"][..], &["run", "2x2", "--no-probe"], &["scale", "2x2", "--no-probe"]] {
        let out = dab().current_dir(dir.path()).args(cmd).args(["--out", "plan.json"]).assert().failure().code(2);
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(stderr.contains("'plan.json' names a .json file") && stderr.contains("-o/--output"), "{stderr}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing made");
}

#[test]
fn a_plan_file_flag_puts_the_charts_beside_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    let out = dab().current_dir(dir.path()).args(["plan", "2x3", "--no-probe", "-o", "x/p.json"]).assert().success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    for f in ["p.json", "speedup.svg", "candidates.png"] {
        assert!(dir.path().join("x").join(f).exists(), "{f}");
    }
    assert!(!dir.path().join("reports").exists(), "no report folder beside the plan's");
    assert!(stderr.contains("wrote 5 files in x: p.json, speedup.svg"), "{stderr}");
}

#[test]
fn quiet_leaves_standard_error_empty_on_every_command_that_notes() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [&[&str]; 3] = [&["plan", "2x3", "--out", "a"], &["run", "2x2", "--out", "b"], &["solve", "2x2"]];
    for (i, args) in cases.iter().enumerate() {
        let loud = dab().current_dir(dir.path()).args(*args).assert().success();
        let quiet = dab().current_dir(dir.path()).args(*args).arg("-q").assert().success();
        let (loud, quiet) = (&loud.get_output().stderr, &quiet.get_output().stderr);
        assert!(i == 2 || !loud.is_empty(), "{args:?} says nothing without -q");
        assert!(quiet.is_empty(), "{args:?} -q: {}", String::from_utf8_lossy(quiet));
    }
    // Before the subcommand too.
    let out = dab().current_dir(dir.path()).args(["-q", "plan", "2x3", "--out", "c"]).assert().success();
    assert!(out.get_output().stderr.is_empty());
}

#[test]
fn a_list_of_counts_is_sweep_and_threads_is_refused_there_with_a_pointer() {
    for (cmd, list) in [("scale", "1,2"), ("sim", "1..4")] {
        let out = dab().args([cmd, "2x2", "--threads", list]).assert().failure().code(2);
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(stderr.contains(&format!("--sweep {list}")) && stderr.contains("one count"), "{stderr}");
    }
}

#[test]
fn plan_json_names_the_choice_and_every_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let v = json(
        &["plan", "2x3", "--no-probe", "--threads", "2", "--json", "-o", dir.path().join("p.json").to_str().unwrap()],
        None,
    );
    let cands = v["candidates"].as_array().unwrap();
    assert!(cands.len() > 1);
    assert_eq!(cands.iter().filter(|c| c["chosen"] == true).count(), 1);
    let chosen = cands.iter().find(|c| c["chosen"] == true).unwrap();
    assert_eq!(chosen["label"], v["chosen"]);
    assert_eq!(chosen["predicted_seconds"], v["predicted_seconds"]);
    assert!(v["plan_file"].as_str().unwrap().ends_with("p.json"));
}

#[test]
fn every_set_of_vector_instructions_this_cpu_has_gives_the_same_values() {
    // The kernel's paths (portable, AVX2, AVX-512 VBMI byte gathers) as a user picks them.
    let has = dab::solver::Simd::detected();
    let values = |simd: &str| {
        let mut v = json(&["--simd", simd, "solve", "3x3", "--groups", "3", "--json"], None);
        let o = v.as_object_mut().unwrap();
        o.retain(|k, _| ["value", "moves", "positions"].contains(&k.as_str()));
        v
    };
    let widest = values(has.name());
    assert_eq!(widest["value"], -3);
    for simd in dab::solver::Simd::ALL.into_iter().filter(|&s| s < has) {
        assert_eq!(values(simd.name()), widest, "{simd} against {has}");
    }
}
