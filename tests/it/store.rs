//! The durable store: resumed runs give the same values and the same files, byte for byte;
//! damaged, truncated, misplaced files are named and computed again; a write error stops the
//! run cleanly and a later run resumes; two runs cannot share a store; a run killed at any
//! moment resumes to the same store.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;

use dab::exec::{ExecError, ExecOptions, execute_with};
use dab::game::Position;
use dab::plan::ReadyPlan;
use dab::store::{Store, StoreError, folder};

use crate::common;

/// Every file of a folder tree with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "dab") {
                out.insert(p.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn run(plan: &ReadyPlan, base: &Path, threads: usize) -> Result<(i8, usize, Vec<String>), ExecError> {
    let store = Store::open(base, &plan.space)?;
    let reports = std::sync::Mutex::new(Vec::new());
    let report = |m: &str| reports.lock().unwrap().push(m.to_string());
    let r =
        execute_with(plan, &ExecOptions { threads, store: Some(&store), report: Some(&report), ..Default::default() })?;
    Ok((r.value, r.resumed, reports.into_inner().unwrap()))
}

#[test]
fn damage_is_named_and_repaired() {
    let p = common::checked("3x3", 3, None);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (value, resumed, _) = run(&p, a.path(), 2).unwrap();
    assert_eq!((value, resumed), (-3, 0));
    let clean = files(a.path());
    assert_eq!(clean.len(), p.graph.len());
    // Copy the store, then damage it four ways.
    for (rel, bytes) in &clean {
        let to = b.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
    let dir = folder(b.path(), &p.space);
    let name = |i: usize| dir.join(format!("{}.dab", p.graph.jobs[i].name));
    let mut flipped = std::fs::read(name(40)).unwrap();
    // A value near the end (past the header, before the checksums).
    let at = flipped.len() - 20;
    flipped[at] ^= 0x10;
    std::fs::write(name(40), flipped).unwrap();
    let long = std::fs::read(name(60)).unwrap();
    std::fs::write(name(60), &long[..long.len() - 3]).unwrap();
    std::fs::remove_file(name(80)).unwrap();
    // Another partition's file under this job's name.
    std::fs::copy(name(101), name(100)).unwrap();
    let v = dab::store::verify(b.path()).unwrap();
    assert_eq!(v.damaged.len(), 3, "{:?}", v.damaged);
    let (value, resumed, reports) = run(&p, b.path(), 2).unwrap();
    assert_eq!(value, -3);
    assert_eq!(resumed, p.graph.len() - 4);
    let text = reports.join("\n");
    for (i, why) in [(40, "checksum"), (60, "truncated"), (100, "it holds")] {
        assert!(text.contains(&p.graph.jobs[i].name) && text.contains(why), "{text}");
    }
    let repaired = files(b.path());
    let differ: Vec<_> = clean.keys().filter(|k| repaired.get(*k) != clean.get(*k)).collect();
    for k in &differ {
        let (x, y) = (&clean[*k], &repaired[*k]);
        let first = x.iter().zip(y.iter()).position(|(a, b)| a != b);
        eprintln!("{k:?}: {} vs {} bytes, first difference at {first:?}", x.len(), y.len());
    }
    assert!(differ.is_empty(), "the repaired store differs from the clean one in {differ:?}");
    assert_eq!(repaired.len(), clean.len());
}

#[test]
fn a_full_store_answers_without_running() {
    let p = common::checked("2x3", 2, None);
    let dir = tempfile::tempdir().unwrap();
    let first = run(&p, dir.path(), 1).unwrap();
    let again = run(&p, dir.path(), 3).unwrap();
    assert_eq!(again.0, first.0);
    assert_eq!(again.1, p.graph.len());
    let s = Store::open(dir.path(), &p.space).unwrap();
    let r = execute_with(&p, &ExecOptions { threads: 2, store: Some(&s), ..Default::default() }).unwrap();
    let twin = dab::solver::solve_in_order(
        Position::empty("2x3".parse().unwrap()),
        dab::solver::SolveOptions { groups: Some(2), ..Default::default() },
    )
    .unwrap();
    assert_eq!((r.value, r.moves), (twin.value, twin.moves));
}

#[test]
fn two_runs_cannot_share_a_store() {
    let p = common::checked("2x2", 2, None);
    let dir = tempfile::tempdir().unwrap();
    let _held = Store::open(dir.path(), &p.space).unwrap();
    assert!(matches!(Store::open(dir.path(), &p.space), Err(StoreError::Locked { .. })));
    Command::cargo_bin("dab")
        .unwrap()
        .args(["solve", "2x2", "--groups", "2", "--store", dir.path().to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("in use by another run"));
}

#[test]
fn the_lock_is_the_folders_own_so_deleting_a_file_cannot_let_a_second_run_in() {
    let p = common::checked("2x3", 2, None);
    let dir = tempfile::tempdir().unwrap();
    let held = Store::open(dir.path(), &p.space).unwrap();
    // Whatever files the folder holds, deleting them (a LOCK file of an older dab included)
    // leaves the lock where it is: a second run and a cluster task are refused.
    let lock_file = held.dir().join("LOCK");
    std::fs::write(&lock_file, b"").unwrap();
    std::fs::remove_file(&lock_file).unwrap();
    assert!(matches!(Store::open(dir.path(), &p.space), Err(StoreError::Locked { .. })));
    assert!(matches!(Store::open_shared(dir.path(), &p.space), Err(StoreError::Locked { .. })));
    // A named pipe as LOCK (which once made every opener wait forever) is never opened.
    let made = std::process::Command::new("mkfifo").arg(&lock_file).status().unwrap();
    assert!(made.success());
    assert!(matches!(Store::open(dir.path(), &p.space), Err(StoreError::Locked { .. })));
    drop(held);
    let again = Store::open(dir.path(), &p.space).unwrap();
    // A folder moved away and another made in its place is not this run's to clean.
    let moved = dir.path().join("moved");
    std::fs::rename(again.dir(), &moved).unwrap();
    std::fs::create_dir_all(again.dir()).unwrap();
    let stranger = again.path(&p.graph.jobs[0].name);
    std::fs::write(&stranger, b"another run's").unwrap();
    match again.remove(&p.graph.jobs[0].name) {
        Err(StoreError::Replaced { path }) => assert_eq!(path, again.dir()),
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read(&stranger).unwrap(), b"another run's");
}

#[test]
fn a_write_error_stops_the_run_and_a_later_run_resumes() {
    let p = common::checked("3x3", 3, None);
    let dir = tempfile::tempdir().unwrap();
    let blocked = folder(dir.path(), &p.space).join(format!("{}.dab", p.graph.jobs[30].name));
    // A folder where the file must go: the rename fails (also for root, unlike permissions).
    std::fs::create_dir_all(&blocked).unwrap();
    match run(&p, dir.path(), 2) {
        Err(ExecError::Store(StoreError::Write { path, .. })) => assert_eq!(path, blocked),
        other => panic!("{:?}", other.map(|r| r.0)),
    }
    std::fs::remove_dir(&blocked).unwrap();
    let (value, resumed, _) = run(&p, dir.path(), 2).unwrap();
    assert_eq!(value, -3);
    assert!(resumed > 0 && resumed < p.graph.len());
}

#[test]
fn killed_runs_resume_to_the_same_store() {
    let dir = tempfile::tempdir().unwrap();
    let (clean, killed) = (dir.path().join("clean"), dir.path().join("killed"));
    let solve = |store: &Path| {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("dab"));
        c.args(["solve", "3x4", "--groups", "3", "--threads", "2", "--quiet", "--store", store.to_str().unwrap()]);
        c.stdout(Stdio::null()).stderr(Stdio::null());
        c
    };
    assert!(solve(&clean).status().unwrap().success());
    let mut rng = common::Rng(7);
    for _ in 0..4 {
        let mut child = solve(&killed).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(200 + rng.below(1500) as u64));
        // SIGKILL: no chance to clean up.
        child.kill().unwrap();
        child.wait().unwrap();
    }
    let out = solve(&killed).output().unwrap();
    assert!(out.status.success());
    // Temporary files of killed writes may be left; every job file is identical.
    assert_eq!(files(&killed), files(&clean));
    let v = dab::store::verify(&killed).unwrap();
    assert!(v.sound(), "{:?} {:?}", v.damaged, v.incomplete);
}

fn run_book(plan: &ReadyPlan, base: &Path, keep: usize) -> Result<dab::exec::Execution, ExecError> {
    let store = Store::open(base, &plan.space)?;
    execute_with(plan, &ExecOptions { threads: 2, store: Some(&store), keep_lines: Some(keep), ..Default::default() })
}

#[test]
fn the_opening_book_keeps_only_small_partitions() {
    let p = common::checked("3x3", 3, None);
    let (clean, broken) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = run_book(&p, clean.path(), 6).unwrap();
    assert_eq!(first.value, -3);
    let book = files(clean.path());
    let lines = |name: &Path| -> usize {
        let stem = name.file_stem().unwrap().to_str().unwrap();
        stem.split('_').next().unwrap().split('-').map(|c| c.parse::<usize>().unwrap()).sum()
    };
    assert!(book.keys().all(|f| lines(f) <= 6), "only partitions of at most 6 lines stay");
    let expected = p.layout.iter().filter(|l| l.key.total() <= 6).count();
    assert_eq!(book.len(), expected);
    // The book answers alone: nothing runs, the moves come from the 1-line partitions.
    let again = run_book(&p, clean.path(), 6).unwrap();
    assert_eq!((again.value, &again.moves, again.resumed), (first.value, &first.moves, p.graph.len()));
    assert!(again.trace.is_empty());
    // A run stopped half-way by a write error resumes to the same book.
    let blocked = folder(broken.path(), &p.space).join(format!("{}.dab", p.graph.jobs[p.graph.len() / 2].name));
    std::fs::create_dir_all(&blocked).unwrap();
    assert!(run_book(&p, broken.path(), 6).is_err());
    std::fs::remove_dir(&blocked).unwrap();
    assert_eq!(run_book(&p, broken.path(), 6).unwrap().value, -3);
    assert_eq!(files(broken.path()), book);
}

#[test]
fn book_options_are_checked() {
    for (args, message) in [
        (vec!["solve", "2x2", "--keep-lines", "3"], "--keep-lines needs --store"),
        (vec!["solve", "2x2", "--keep-lines", "0", "--store", "x"], "--keep-lines must be at least 1"),
    ] {
        Command::cargo_bin("dab").unwrap().args(args).assert().code(2).stderr(predicate::str::contains(message));
    }
}

#[test]
fn queries_answer_from_the_book_and_beyond_it() {
    let p = common::checked("3x3", 3, None);
    let dir = tempfile::tempdir().unwrap();
    run_book(&p, dir.path(), 12).unwrap();
    let reader = dab::store::Reader::open(dir.path(), "3x3".parse().unwrap(), None).unwrap();
    let mut rng = common::Rng(11);
    let board = "3x3".parse().unwrap();
    for drawn in [0, 3, 7, 11, 12, 13, 18, 23] {
        for _ in 0..4 {
            let pos = common::random_position(board, 24 - drawn, &mut rng);
            let a = dab::answer::query(&reader, pos, dab::answer::Asking::new(dab::answer::Answerer::Auto, 1)).unwrap();
            let s = dab::exec::solve(pos, dab::solver::SolveOptions::default()).unwrap();
            assert_eq!(a.source, if drawn < 12 { "store" } else { "solved" }, "{drawn} lines");
            assert_eq!(a.value, s.value as i32);
            let want: Vec<i32> = s.moves.iter().map(|m| m.value as i32).collect();
            assert_eq!(a.moves.iter().map(|m| m.value).collect::<Vec<_>>(), want);
            // Who must move loony next: the same from the book (where it holds every position
            // the walk reaches) as from a solve of the position alone.
            let alone = dab::answer::analyse(pos, dab::answer::Engine::Partition, Default::default()).unwrap();
            assert!(alone.next_loony.is_some());
            if a.source == "solved" {
                assert_eq!(a.next_loony, alone.next_loony, "{drawn} lines");
            } else if let Some(n) = a.next_loony {
                assert_eq!(Some(n), alone.next_loony, "{drawn} lines");
            }
        }
    }
    Command::cargo_bin("dab")
        .unwrap()
        .args(["query", "3x3", "--store", dir.path().to_str().unwrap(), "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"value\":-3").and(predicate::str::contains("\"source\":\"store\"")));
    let (here, missing) = (dir.path().to_str().unwrap(), dir.path().join("missing"));
    for (args, message) in [
        (vec!["2x2", "--store", here], "the store holds no solve of the empty 2x2 board"),
        (vec!["3x3", "--groups", "2", "--store", here], "the store holds no 3x3 solve with 2 groups"),
        (vec!["3x3", "--store", missing.to_str().unwrap()], "missing': no such store folder"),
    ] {
        Command::cargo_bin("dab")
            .unwrap()
            .arg("query")
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
}

#[test]
fn recomputation_catches_wrong_values_with_good_checksums() {
    let p = common::checked("2x3", 2, None);
    let dir = tempfile::tempdir().unwrap();
    run(&p, dir.path(), 2).unwrap();
    let n = p.graph.len();
    let clean = dab::store::recompute(dir.path(), n, 3).unwrap();
    assert_eq!(clean.len(), n);
    assert!(clean.iter().all(|r| r.same() && r.outcome == "same"), "{clean:?}");
    // A job rewritten with one wrong value: its checksum is right, its values are not.
    let i = (0..n).find(|&i| p.graph.jobs[i].states > 4 && !p.graph.needs(i).is_empty()).unwrap();
    let store = Store::open(dir.path(), &p.space).unwrap();
    let mut values = store.read(&p.graph.jobs[i].name, &p.layout[i], p.graph.jobs[i].states).unwrap();
    values[1] = values[1].wrapping_add(2);
    store.write(&p.graph.jobs[i].name, &p.layout[i], &values).unwrap();
    drop(store);
    assert!(dab::store::verify(dir.path()).unwrap().damaged.is_empty());
    let all = dab::store::recompute(dir.path(), n, 3).unwrap();
    let wrong: Vec<_> = all.iter().filter(|r| r.failed()).collect();
    // The changed job alone: the jobs that read it (every file was recomputed, inputs first)
    // are unchecked, not called wrong for the wrong input they read.
    let file = |k: usize| format!("{}.dab", p.graph.jobs[k].name);
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(wrong[0].file.ends_with(file(i)) && wrong[0].verdict == dab::store::Verdict::Different);
    for &k in p.graph.needed_by(i) {
        let r = all.iter().find(|r| r.file.ends_with(file(k as usize))).unwrap();
        assert_eq!(r.verdict, dab::store::Verdict::Unchecked, "{r:?}");
        assert!(r.outcome.contains(&file(i)), "{r:?}");
    }
    Command::cargo_bin("dab")
        .unwrap()
        .args(["verify", "--store", dir.path().to_str().unwrap(), "--recompute", &n.to_string()])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!("{} of {n} recomputed files failed", wrong.len())));
}

#[test]
fn solve_over_a_damaged_store_file_says_it_computes_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().to_str().unwrap();
    Command::cargo_bin("dab").unwrap().args(["solve", "2x3", "--store", store]).assert().success();
    let file = files(dir.path()).into_keys().next().expect("a partition file");
    let path = dir.path().join(&file);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[40..47].copy_from_slice(b"garbage");
    std::fs::write(&path, bytes).unwrap();
    Command::cargo_bin("dab")
        .unwrap()
        .args(["solve", "2x3", "--store", store])
        .assert()
        .success()
        .stdout(predicate::str::contains("value -2"))
        .stderr(predicate::str::contains("is damaged").and(predicate::str::contains("computing it again")));
}
