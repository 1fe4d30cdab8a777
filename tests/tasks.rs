//! Two-level plans: the jobs of a plan packed into cluster tasks, each run on its own (as a
//! node runs it) against one shared store. Run in task order they give the store, byte for
//! byte, and the value of a local run; a task run again computes nothing; a task whose input
//! is missing names the file and leaves every other task's files alone.

use std::collections::BTreeMap;
use std::path::Path;

use dab::exec::{ExecError, ExecOptions, execute_task, execute_with, stored_root};
use dab::game::Position;
use dab::plan::{ClusterShape, Packing, ReadyPlan, pack};
use dab::sched::{Contention, CostSpec, PieceDeps, Split, orbits};
use dab::solver::Space;
use dab::store::{Store, StoreError, folder};

fn plan(board: &str, groups: usize, split: Option<Split>) -> ReadyPlan {
    let space = Space::new(Position::empty(board.parse().unwrap()), Some(groups)).unwrap();
    let graph = orbits(&space, &CostSpec::States, split.as_ref()).unwrap();
    ReadyPlan::from_graph(space, graph).unwrap()
}

/// A packing for three nodes with no dispatch delay and a fast store: as many tasks as the
/// simulation finds useful.
fn packing(p: &ReadyPlan) -> Packing {
    let shape = ClusterShape { nodes: 3, threads_per_node: 2, overhead_seconds: 0.0, store_bytes_per_second: 1e15 };
    pack(p, &Contention::default(), &shape, 1e9)
}

fn files(base: &Path, p: &ReadyPlan) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(folder(base, &p.space))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dab"))
        .map(|f| (f.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&f).unwrap()))
        .collect()
}

fn marks(p: &ReadyPlan, jobs: &[usize]) -> Vec<bool> {
    let mut m = vec![false; p.graph.len()];
    jobs.iter().for_each(|&j| m[j] = true);
    m
}

#[test]
fn tasks_run_one_by_one_give_the_store_and_the_value_of_a_local_run() {
    let split = Split { threshold: 2000, max_pieces: 3, deps: PieceDeps::Fine };
    for (what, p) in [("3x3", plan("3x3", 3, None)), ("3x3 split", plan("3x3", 2, Some(split)))] {
        let local = tempfile::tempdir().unwrap();
        let store = Store::open(local.path(), &p.space).unwrap();
        let run = execute_with(&p, &ExecOptions { threads: 2, store: Some(&store), ..Default::default() }).unwrap();
        drop(store);
        let packed = packing(&p);
        assert!(packed.tasks.len() >= 3, "{what}: {} tasks", packed.tasks.len());
        let shared = tempfile::tempdir().unwrap();
        let root = p.layout.iter().position(|l| l.key.total() == 0).unwrap();
        for task in &packed.tasks {
            let store = Store::open_shared(shared.path(), &p.space).unwrap();
            let opts = ExecOptions { threads: 2, store: Some(&store), ..Default::default() };
            let done = execute_task(&p, &opts, &marks(&p, &task.jobs)).unwrap();
            assert_eq!(done.trace.len(), task.jobs.len(), "{what} {}: every job of the task ran", task.name);
            assert_eq!(done.root.is_some(), task.jobs.contains(&root), "{what} {}", task.name);
            if let Some((value, moves)) = &done.root {
                assert_eq!((*value, moves), (run.value, &run.moves), "{what}");
            }
        }
        assert_eq!(files(shared.path(), &p), files(local.path(), &p), "{what}: the same files, byte for byte");
        let store = Store::open_shared(shared.path(), &p.space).unwrap();
        assert_eq!(stored_root(&p, &store).unwrap(), (run.value, run.moves.clone()), "{what}");
        // A task run again finds its jobs in the store and computes nothing.
        let again = execute_task(
            &p,
            &ExecOptions { threads: 2, store: Some(&store), ..Default::default() },
            &marks(&p, &packed.tasks[1].jobs),
        )
        .unwrap();
        assert_eq!((again.trace.len(), again.resumed), (0, packed.tasks[1].jobs.len()), "{what}");
    }
}

#[test]
fn a_task_whose_input_is_missing_names_the_file_and_removes_nothing() {
    let p = plan("3x3", 3, None);
    let g = &p.graph;
    let packed = packing(&p);
    // A task that reads another task's job, and that job.
    let (t, input) = packed
        .tasks
        .iter()
        .enumerate()
        .find_map(|(t, task)| {
            let outside = task.jobs.iter().flat_map(|&j| g.needs(j)).map(|&k| k as usize);
            outside.into_iter().find(|k| !task.jobs.contains(k)).map(|k| (t, k))
        })
        .unwrap();
    let shared = tempfile::tempdir().unwrap();
    let store = Store::open_shared(shared.path(), &p.space).unwrap();
    let opts = ExecOptions { threads: 2, store: Some(&store), ..Default::default() };
    for task in &packed.tasks[..t] {
        execute_task(&p, &opts, &marks(&p, &task.jobs)).unwrap();
    }
    let missing = store.path(&g.jobs[input].name);
    std::fs::remove_file(&missing).unwrap();
    let before = files(shared.path(), &p);
    match execute_task(&p, &opts, &marks(&p, &packed.tasks[t].jobs)) {
        Err(ExecError::Store(StoreError::Read { path, .. })) => assert_eq!(path, missing),
        other => panic!("{:?}", other.map(|r| r.trace.len())),
    }
    // Whatever the task finished before it stopped is new; nothing that was there is gone.
    let after = files(shared.path(), &p);
    assert!(before.iter().all(|(name, bytes)| after.get(name) == Some(bytes)));
    assert!(after.keys().all(|name| before.contains_key(name)
        || packed.tasks[t].jobs.iter().any(|&j| format!("{}.dab", g.jobs[j].name) == *name)));
}
