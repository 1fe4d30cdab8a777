//! `--mem-limit` on the executor: the tracked peak never passes the limit, the values do not
//! change, the simulator predicts the same peak, and the process itself (under an allocator
//! with a hard cap) never holds more than the limit plus its fixed tables.

use std::alloc::System;
use std::path::Path;

use cap::Cap;
use dab::cost::CostSpec;
use dab::exec::{ExecError, ExecOptions, Execution, execute, execute_with};
use dab::memory::least_limit;
use dab::plan::Checked;
use dab::position::Position;
use dab::schemes::{self, PieceDeps, Split};
use dab::sim::{Policy, Procs, SimError, SimOptions, Simulator};
use dab::space::Space;
use dab::store::Store;

/// Counts every allocation of this test binary; a cap makes an allocation past it abort.
#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

fn plan(board: &str, groups: usize, split: Option<Split>) -> Checked {
    let space = Space::new(Position::empty(board.parse().unwrap()), Some(groups)).unwrap();
    let graph = schemes::orbits(&space, &CostSpec::States, split.as_ref()).unwrap();
    Checked::from_graph(space, graph).unwrap()
}

fn limited(plan: &Checked, base: &Path, threads: usize, limit: u64) -> Result<Execution, ExecError> {
    let store = Store::open(base, plan).unwrap();
    execute_with(plan, &ExecOptions { threads, store: Some(&store), mem_limit: Some(limit), ..Default::default() })
}

fn sim_peak(plan: &Checked, limit: Option<u64>) -> Result<u64, SimError> {
    let sim = Simulator::new(&plan.graph, SimOptions { policy: Policy::Cp, mem_limit: limit, ..Default::default() });
    Ok(sim.unwrap().run(Procs::Limited(1), false)?.row.peak_memory)
}

#[test]
fn the_limit_is_kept_and_the_simulator_predicts_the_peak() {
    let split = Split { threshold: 3000, max_pieces: 8, deps: PieceDeps::Fine };
    for (board, groups, split) in [("3x3", 3, None), ("3x3", 3, Some(split)), ("2x4", 3, None)] {
        let p = plan(board, groups, split);
        let free = execute(&p, 1, false, None);
        let floor = least_limit(&p.graph);
        assert!(floor < free.peak_bytes, "{board}: a limit between {floor} and {} must bite", free.peak_bytes);
        for limit in [floor, (floor + free.peak_bytes) / 2] {
            for threads in [1, 2] {
                let dir = tempfile::tempdir().unwrap();
                let run = limited(&p, dir.path(), threads, limit).unwrap();
                assert_eq!((run.value, &run.moves), (free.value, &free.moves), "{board} limit {limit} P={threads}");
                assert!(run.peak_bytes <= limit, "{board}: peak {} over limit {limit}", run.peak_bytes);
                if threads == 1 {
                    // Same order, same accounting: the prediction is exact on one thread.
                    assert_eq!(Ok(run.peak_bytes), sim_peak(&p, Some(limit)), "{board} limit {limit}");
                }
            }
        }
    }
}

#[test]
fn a_limit_no_job_fits_in_is_refused_by_both() {
    let p = plan("3x3", 3, None);
    let dir = tempfile::tempdir().unwrap();
    let limit = least_limit(&p.graph) - 1;
    match limited(&p, dir.path(), 2, limit) {
        Err(ExecError::MemLimit { needs, job, .. }) => {
            assert_eq!(needs, least_limit(&p.graph));
            assert!(p.graph.jobs.iter().any(|j| j.name == job));
        }
        other => panic!("{:?}", other.map(|r| r.value)),
    }
    assert!(matches!(sim_peak(&p, Some(limit)), Err(SimError::MemLimit { .. })));
}

#[test]
fn the_process_never_holds_more_than_the_limit() {
    let p = plan("3x4", 4, None);
    let limit = (least_limit(&p.graph) + execute(&p, 1, false, None).peak_bytes) / 2;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), &p).unwrap();
    // Everything but the partition values: kernel tables, the pool, trace rows, I/O chunks.
    // (measured: 2 to 4 MB; the limit is 37 MB where an unlimited run holds 68 MB).
    let fixed = 4 << 20;
    ALLOCATOR.set_limit(ALLOCATOR.allocated() + limit as usize + fixed).unwrap();
    let opts = ExecOptions { threads: 2, store: Some(&store), mem_limit: Some(limit), ..Default::default() };
    let run = execute_with(&p, &opts);
    ALLOCATOR.set_limit(usize::MAX).unwrap();
    assert_eq!(run.unwrap().value, 0);
}
