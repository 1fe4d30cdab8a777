//! A whole solve as a plan run: the space's own partitions, unsplit, on the executor, in
//! memory or into a store (resuming from what it holds). `dab solve`, `query` and `hint` call
//! it; its slow twin is [`crate::solver::solve_in_order`].

use std::sync::Arc;
use std::time::Instant;

use crate::game::Position;
use crate::plan::ReadyPlan;
use crate::solver::{Solution, SolveOptions, Space, SpaceError, Traffic};
use crate::store::{Store, StoreError};

use super::executor::execute_with;
use super::options::{ExecError, ExecOptions};
use super::trace::TraceRow;

/// Why a solve stopped.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The space could not be built with the groups asked for.
    #[error("{0}")]
    Space(#[from] SpaceError),
    /// The store could not be opened (created, locked or read).
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The run stopped: a store file failed, or a memory limit could not be kept.
    #[error("{0}")]
    Exec(#[from] ExecError),
}

/// Solves every position reachable from `root` on the executor and returns the root's value
/// and moves.
pub fn solve(root: Position, opts: SolveOptions) -> Result<Solution, SolveError> {
    let start = Instant::now();
    let space = Space::new(root, opts.groups)?.with_penalty(opts.penalty)?;
    if space.free() == 0 {
        return Ok(Solution::trivial(space, start));
    }
    let plan = ReadyPlan::whole(space);
    let store = opts.store.map(|base| Store::open(base, &plan.space)).transpose()?;
    let exec = ExecOptions {
        threads: opts.threads,
        keep: opts.keep_all,
        progress: opts.progress,
        store: store.as_ref(),
        report: opts.report,
        keep_lines: opts.keep_lines,
        stays: None,
        mem_limit: None,
        kernel: opts.kernel,
        stop: opts.stop,
        deadline: opts.deadline,
    };
    let run = execute_with(&plan, &exec)?;
    drop(store);
    let traffic = computed_traffic(&plan, &run.trace);
    let ReadyPlan { space, layout, .. } = plan;
    let tables = run.tables.map(|jobs| {
        let mut tables = vec![Vec::new(); space.key_count()];
        for (values, l) in jobs.into_iter().zip(&layout) {
            tables[space.key_index(&l.key)] = Arc::unwrap_or_clone(values);
        }
        tables
    });
    Ok(Solution {
        value: run.value,
        moves: run.moves,
        positions: run.positions,
        partitions: layout.len(),
        peak_bytes: run.peak_bytes,
        seconds: start.elapsed().as_secs_f64(),
        traffic,
        tables,
        space,
    })
}

/// The kernel's traffic for the jobs the run computed (in the trace), not those it resumed
/// from the store. Every job of a whole plan is a whole partition.
fn computed_traffic(plan: &ReadyPlan, trace: &[TraceRow]) -> Traffic {
    let by_name: std::collections::HashMap<&str, usize> =
        plan.graph.jobs.iter().enumerate().map(|(i, j)| (j.name.as_str(), i)).collect();
    trace
        .iter()
        .filter_map(|row| by_name.get(row.job.as_str()))
        .map(|&i| Traffic::of_partition(&plan.space, &plan.layout[i].key))
        .sum()
}
