//! Whole solves in memory: every partition of a space from the full board back to the root,
//! each kept only while a partition still to be computed reads it. Reports the root's value,
//! every move's value and the cost. [`solve`] runs the partitions as jobs on the executor;
//! [`solve_in_order`], its slow twin, runs them one at a time in a fixed order, splitting each
//! partition's rows across threads.

use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use crate::board::Line;
use crate::kernel::{Kernel, Value};
use crate::key::PartitionKey;
use crate::plan::Checked;
use crate::position::Position;
use crate::space::{Space, SpaceError, State};

/// How to run a solve.
#[derive(Clone, Copy)]
pub struct SolveOptions<'p> {
    /// Number of groups; None for the default.
    pub groups: Option<usize>,
    /// Worker threads.
    pub threads: usize,
    /// Keep every partition (for lookups of any position afterwards).
    pub keep_all: bool,
    /// Called after each partition with (positions done, positions in all).
    pub progress: Option<&'p (dyn Fn(u64, u64) + Sync)>,
    /// Durable store: every partition is written there, and a solve on an existing store
    /// resumes from the partitions it holds.
    pub store: Option<&'p std::path::Path>,
    /// With a store, keep only the partitions with at most this many lines (the opening book).
    pub keep_lines: Option<usize>,
}

#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    #[error(transparent)]
    Space(#[from] SpaceError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Exec(#[from] crate::exec::ExecError),
}

impl Default for SolveOptions<'_> {
    fn default() -> Self {
        SolveOptions { groups: None, threads: 1, keep_all: false, progress: None, store: None, keep_lines: None }
    }
}

/// The value of one move from the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    pub line: Line,
    /// Boxes the move completes.
    pub boxes: u8,
    /// Net future boxes for the mover, counting the boxes this move completes.
    pub value: Value,
}

/// What a solve found and what it cost.
pub struct Solution {
    pub space: Space,
    pub value: Value,
    /// Every undrawn line of the root, in the external order.
    pub moves: Vec<MoveValue>,
    /// Stored positions over all partitions.
    pub positions: u64,
    pub partitions: usize,
    /// Most bytes of partition values resident at once.
    pub peak_bytes: u64,
    pub seconds: f64,
    /// All partitions when `keep_all` was asked, by [`Space::key_index`].
    pub tables: Option<Vec<Vec<Value>>>,
}

impl Solution {
    /// Best moves (external lines) of the root.
    pub fn best(&self) -> Vec<Line> {
        self.moves.iter().filter(|m| m.value == self.value).map(|m| m.line).collect()
    }

    /// Value of any position of the space (needs `keep_all`).
    pub fn value_of(&self, state: State) -> Option<Value> {
        let tables = self.tables.as_ref()?;
        let (key, index) = self.space.locate(state);
        Some(tables[self.space.key_index(&key)][index])
    }
}

/// Value of a move that completes `boxes` boxes, given the value of the position after it.
pub fn move_value(boxes: i8, after: Value) -> Value {
    if boxes > 0 { boxes + after } else { -after }
}

/// Solves every position reachable from `root` on the executor and returns the root's value
/// and moves.
pub fn solve(root: Position, opts: SolveOptions) -> Result<Solution, SolveError> {
    let start = Instant::now();
    let space = Space::new(root, opts.groups)?;
    if space.free() == 0 {
        return Ok(trivial(space, start));
    }
    let plan = Checked::whole(space);
    let store = opts.store.map(|base| crate::store::Store::open(base, &plan)).transpose()?;
    let exec = crate::exec::ExecOptions {
        threads: opts.threads,
        keep: opts.keep_all,
        progress: opts.progress,
        store: store.as_ref(),
        report: None,
        keep_lines: opts.keep_lines,
        mem_limit: None,
    };
    let run = crate::exec::execute_with(&plan, &exec)?;
    drop(store);
    let Checked { space, layout, .. } = plan;
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
        tables,
        space,
    })
}

/// The solve of a position with no undrawn line.
fn trivial(space: Space, start: Instant) -> Solution {
    Solution {
        space,
        value: 0,
        moves: Vec::new(),
        positions: 1,
        partitions: 1,
        peak_bytes: 1,
        seconds: start.elapsed().as_secs_f64(),
        tables: None,
    }
}

/// The slow twin of [`solve`]: partitions one at a time, most lines first, each split into row
/// chunks across `threads` threads.
pub fn solve_in_order(root: Position, opts: SolveOptions) -> Result<Solution, SpaceError> {
    let start = Instant::now();
    let space = Space::new(root, opts.groups)?;
    if space.free() == 0 {
        return Ok(trivial(space, start));
    }
    let kernel = Kernel::new(&space);
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
    let mut root_moves = Vec::new();
    for key in &keys {
        let len = space.partition_len(key);
        let mut out = vec![0 as Value; len];
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
            root_moves = root_move_values(&space, &tables);
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
        moves: root_moves,
        positions: total,
        partitions: keys.len(),
        peak_bytes: peak,
        seconds: start.elapsed().as_secs_f64(),
        tables: opts.keep_all.then_some(tables),
        space,
    })
}

/// Runs the kernel over a partition, in row chunks on the pool when there is one.
pub fn compute_partition(
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

/// Values of every undrawn line of the root, read from the root's successor partitions.
fn root_move_values(space: &Space, tables: &[Vec<Value>]) -> Vec<MoveValue> {
    let mut by_line: Vec<MoveValue> = (0..space.free())
        .map(|i| {
            let (key, index) = space.locate(State(1 << i));
            let after = tables[space.key_index(&key)][index];
            let boxes = space.completes(State(0), i);
            MoveValue { line: space.lines[i], boxes: boxes as u8, value: move_value(boxes, after) }
        })
        .collect();
    by_line.sort_by_key(|m| m.line);
    by_line
}
