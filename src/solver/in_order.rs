//! The slow twin of the executor's solve: every partition of a space, one at a time, most
//! lines first, each split into row chunks across threads and kept only while a partition
//! still to be computed reads it.

use std::time::Instant;

use rayon::prelude::*;

use crate::game::{Position, Value};

use super::kernel::Kernel;
use super::key::PartitionKey;
use super::root_moves::root_moves;
use super::solution::{Solution, SolveOptions};
use super::space::{Space, SpaceError};
use super::traffic::Traffic;

/// The slow twin of the executor's solve (`crate::exec::solve`): partitions one at a time, most lines first, each split into row
/// chunks across `threads` threads.
pub fn solve_in_order(root: Position, opts: SolveOptions) -> Result<Solution, SpaceError> {
    let start = Instant::now();
    let space = Space::new(root, opts.groups)?.with_penalty(opts.penalty)?;
    if space.free() == 0 {
        return Ok(Solution::trivial(space, start));
    }
    let kernel = Kernel::with_path(&space, opts.kernel);
    let keys = space.keys();
    let total: u64 = keys.iter().map(|k| space.partition_len(k) as u64).sum();
    // Readers still to be computed, per partition.
    let mut readers = vec![0usize; space.key_count()];
    for k in &keys {
        for s in space.successors(k) {
            readers[space.key_index(&s)] += 1;
        }
    }
    let mut tables: Vec<Vec<Value>> = vec![Vec::new(); space.key_count()];
    let (mut resident, mut peak, mut done) = (0u64, 0u64, 0u64);
    let pool = (opts.threads > 1)
        .then(|| rayon::ThreadPoolBuilder::new().num_threads(opts.threads).build().expect("thread pool"));
    let mut moves = Vec::new();
    for key in &keys {
        let len = space.partition_len(key);
        let mut out: Vec<Value> = crate::support::zeroed_bytes(len);
        resident += len as u64;
        peak = peak.max(resident);
        {
            let succ: Vec<&[Value]> = (0..key.groups())
                .map(|g| {
                    if (key.counts()[g] as u32) < space.groups[g].size {
                        tables[space.key_index(&key.plus(g))].as_slice()
                    } else {
                        &[][..]
                    }
                })
                .collect();
            compute_partition(&kernel, key, &succ, &mut out, pool.as_ref());
        }
        tables[space.key_index(key)] = out;
        if key.total() == 0 {
            moves = root_moves(&space, |key, index| tables[space.key_index(key)][index]);
        }
        if !opts.keep_all {
            for s in space.successors(key) {
                let i = space.key_index(&s);
                readers[i] -= 1;
                if readers[i] == 0 {
                    resident -= tables[i].len() as u64;
                    tables[i] = Vec::new();
                }
            }
        }
        done += len as u64;
        if let Some(p) = opts.progress {
            p(done, total);
        }
    }
    let value = tables[space.key_index(&PartitionKey::new(&vec![0; space.groups.len()]))][0];
    Ok(Solution {
        value,
        moves,
        positions: total,
        partitions: keys.len(),
        peak_bytes: peak,
        seconds: start.elapsed().as_secs_f64(),
        traffic: Traffic::of_solve(&space),
        tables: opts.keep_all.then_some(tables),
        space,
    })
}

/// Runs the kernel over a partition, in row chunks on the pool when there is one.
pub(super) fn compute_partition(
    kernel: &Kernel,
    key: &PartitionKey,
    succ: &[&[Value]],
    out: &mut [Value],
    pool: Option<&rayon::ThreadPool>,
) {
    let (rows, row_len) = kernel.shape(key);
    match pool {
        Some(pool) if rows > 1 => {
            // Chunks of about 8 KiB: small enough that mid-sized partitions split across threads, large
            // enough that scheduling costs little next to the rows.
            let rows_per_chunk = (8192 / row_len).clamp(1, rows);
            pool.install(|| {
                out.par_chunks_mut(rows_per_chunk * row_len)
                    .enumerate()
                    .for_each(|(i, chunk)| kernel.compute(key, succ, chunk, i * rows_per_chunk));
            });
        }
        _ => kernel.compute(key, succ, out, 0),
    }
}
