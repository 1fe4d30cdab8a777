//! The executor against its slow twin (one partition at a time): the same value for every
//! thread count, whole or split into pieces, and a trace that respects every dependency; a job
//! that panics ends the run with an error, never a hang.

use crate::common;

use std::collections::HashMap;
use std::sync::mpsc;
use std::time::Duration;

use common::checked;

use dab::exec::{ExecOptions, execute, execute_with, run_job};
use dab::game::Position;
use dab::plan::{PlanError, ReadsError, ReadyPlan};
use dab::sched::{Graph, PieceDeps, Policy, Procs, SimOptions, Simulator, Split};
use dab::solver::{Kernel, SolveOptions, solve_in_order};
use dab::store::Store;

#[test]
fn every_thread_count_gives_the_twin_s_values() {
    let cases = [
        ("2x3", 2, None),
        ("3x3", 3, None),
        ("3x3", 3, Some(Split { threshold: 3000, max_pieces: 8, deps: PieceDeps::Fine })),
        ("3x3", 2, Some(Split { threshold: 5000, max_pieces: 5, deps: PieceDeps::Whole })),
        ("2x4", 3, Some(Split { threshold: 400, max_pieces: 16, deps: PieceDeps::Fine })),
        ("1x5", 2, None),
    ];
    for (board, groups, split) in cases {
        let twin = solve_in_order(
            Position::empty(board.parse().unwrap()),
            SolveOptions { groups: Some(groups), keep_all: true, ..Default::default() },
        )
        .unwrap();
        let tables = twin.tables.as_ref().unwrap();
        let plan = checked(board, groups, split);
        let kernel = Kernel::new(&plan.space);
        for threads in [1, 2, 3] {
            let run = execute(&plan, threads, true, None);
            assert_eq!(run.value, twin.value, "{board} {split:?} P={threads}");
            assert_eq!(run.moves, twin.moves, "{board} {split:?} P={threads}");
            // Every job's values equal the twin's rows.
            for (values, l) in run.tables.as_ref().unwrap().iter().zip(&plan.layout) {
                let (_, row_len) = kernel.shape(&l.key);
                let whole = &tables[plan.space.key_index(&l.key)];
                assert_eq!(values.as_slice(), &whole[l.first_row * row_len..(l.first_row + l.rows) * row_len]);
            }
            check_trace(&plan, &run.trace);
        }
    }
}

fn check_trace(plan: &ReadyPlan, trace: &[dab::exec::TraceRow]) {
    let g = &plan.graph;
    let by_name: HashMap<&str, &dab::exec::TraceRow> = trace.iter().map(|r| (r.job.as_str(), r)).collect();
    assert_eq!(trace.len(), g.len(), "every job once");
    assert_eq!(by_name.len(), g.len(), "no job twice");
    for (i, job) in g.jobs.iter().enumerate() {
        let row = by_name[job.name.as_str()];
        assert!(row.start <= row.end);
        assert_eq!(row.positions, job.states);
        for &k in g.needs(i) {
            let before = by_name[g.jobs[k as usize].name.as_str()];
            assert!(before.end <= row.start, "{} starts before {} ends", job.name, before.job);
        }
    }
}

#[test]
fn memory_is_counted_as_the_simulator_counts_it() {
    let plan = checked("3x3", 3, None);
    let one = execute(&plan, 1, false, None);
    // One thread runs the jobs in the simulator's cp order (the plan's priorities, ties to the
    // earlier job), so the two peaks are the same number.
    let sim = Simulator::new(&plan.graph, SimOptions { policy: Policy::Cp, ..Default::default() }).unwrap();
    assert_eq!(one.peak_bytes, sim.run(Procs::Limited(1), false).unwrap().row.peak_memory);
    // Values are freed: far less than everything at once; keeping them for a test is not counted.
    let all: u64 = plan.graph.jobs.iter().map(|j| j.bytes).sum();
    assert!(one.peak_bytes < all / 2, "{} vs {all}", one.peak_bytes);
    assert_eq!(execute(&plan, 1, true, None).peak_bytes, one.peak_bytes);
}

/// The 2x3 plan in 2 groups with job `8-7` no longer needing `9-7`, built past the check (a
/// `ReadyPlan`'s fields are public): the kernel finds that input empty and panics.
fn without_an_input() -> ReadyPlan {
    let good = checked("2x3", 2, None);
    let mut jobs = good.graph.jobs.clone();
    let i = jobs.iter().position(|j| j.name == "8-7").expect("job 8-7");
    jobs[i].deps.retain(|d| d != "9-7");
    let graph = Graph::new(jobs, None).unwrap();
    let refused = ReadyPlan::from_graph(good.space.clone(), graph.clone()).err().expect("the check refuses it");
    assert!(matches!(refused, PlanError::Reads(ReadsError::Unlisted { .. })), "{refused}");
    ReadyPlan { graph, ..good }
}

#[test]
fn a_job_that_panics_ends_the_run_with_an_error_naming_it_on_one_and_on_several_threads() {
    for threads in [1, 2, 3] {
        // On a thread of its own, so that a hang fails the test instead of stalling it.
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let plan = without_an_input();
            let outcome = execute_with(&plan, &ExecOptions { threads, ..Default::default() });
            let _ = tx.send(outcome.err().map(|e| e.to_string()));
        });
        let outcome = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("P={threads}: the run neither ended nor returned ({e})"));
        let message = outcome.unwrap_or_else(|| panic!("P={threads}: the run succeeded without an input"));
        assert!(message.starts_with("job '8-7' panicked: "), "P={threads}: {message}");
    }
}

#[test]
fn a_cluster_task_whose_kernel_panics_returns_an_error_naming_its_job() {
    let good = checked("2x3", 2, None);
    let tmp = tempfile::tempdir().unwrap();
    // Every job's file, from a whole run into a store that keeps them all.
    let store = Store::open_shared(tmp.path(), &good.space).unwrap();
    execute_with(&good, &ExecOptions { threads: 1, store: Some(&store), ..Default::default() }).unwrap();
    let plan = without_an_input();
    let job = plan.graph.jobs.iter().position(|j| j.name == "8-7").unwrap();
    store.remove("8-7").unwrap();
    let err = run_job(&plan, &store, job).expect_err("the task fails");
    assert!(err.to_string().starts_with("job '8-7' panicked: "), "{err}");
    // The sound plan computes it again from the same files.
    assert!(run_job(&good, &store, job).unwrap().computed);
}
