//! `--mem-limit` on the executor: the tracked peak never passes the limit, the values do not
//! change, and the simulator predicts the same peak. (`memory_cap.rs` checks the process.)

use crate::common;

use std::path::Path;

use common::checked as plan;

use dab::exec::{ExecError, ExecOptions, Execution, execute, execute_with};
use dab::plan::ReadyPlan;
use dab::sched::{PieceDeps, Policy, Procs, SimError, SimOptions, Simulator, Split, least_limit};
use dab::store::Store;

fn limited(plan: &ReadyPlan, base: &Path, threads: usize, limit: u64) -> Result<Execution, ExecError> {
    let store = Store::open(base, &plan.space).unwrap();
    execute_with(plan, &ExecOptions { threads, store: Some(&store), mem_limit: Some(limit), ..Default::default() })
}

fn sim_peak(plan: &ReadyPlan, limit: Option<u64>) -> Result<u64, SimError> {
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
