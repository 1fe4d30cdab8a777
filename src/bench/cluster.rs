//! The cluster suite: how long planning a board for a cluster takes (every candidate
//! simulated at a node's threads, then packed into tasks for the node count) and what it plans,
//! on the cluster docs/guide/clusters.md's "4x5 on a cluster" describes.

use std::time::Instant;

use serde::Serialize;

use crate::game::{Board, Position};
use crate::plan::{ClusterShape, PlanOptions};
use crate::sched::CostModel;

/// Threads of a node.
pub(crate) const THREADS_PER_NODE: u32 = 32;
/// Bytes of memory of a node: 256 GB, as `--mem-limit 256G` reads.
pub(crate) const NODE_MEMORY: u64 = 256_000_000_000;
/// Bytes a second of the shared store, every node together.
pub(crate) const STORE_BANDWIDTH: f64 = 100e9;
/// Seconds of dispatch a task (Slurm's, as fitted on the live test cluster, rounded).
pub(crate) const OVERHEAD: f64 = 1.0;

/// One board planned for one node count.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The board.
    pub board: String,
    /// Nodes planned for.
    pub nodes: usize,
    /// Threads of a node.
    pub threads_per_node: u32,
    /// Memory of a node.
    pub node_memory_bytes: u64,
    /// The shared store's bytes a second.
    pub store_bytes_per_second: f64,
    /// Dispatch seconds a task.
    pub overhead_seconds: f64,
    /// Seconds to simulate the candidates at the node's threads.
    pub plan_seconds: f64,
    /// Seconds to pack them into tasks for the nodes and choose.
    pub pack_seconds: f64,
    /// The two together: what planning for the nodes takes, less its probe.
    pub total_seconds: f64,
    /// The chosen candidate.
    pub candidate: String,
    /// Its jobs.
    pub jobs: usize,
    /// Its tasks.
    pub tasks: usize,
    /// Its predicted makespan on the nodes.
    pub predicted_seconds: f64,
    /// Bytes its tasks write to the store, every job's file once.
    pub store_write_bytes: u64,
    /// The store's predicted peak, files going once every task that reads them is done (the
    /// default book of `dab plan --nodes` kept).
    pub store_peak_bytes: u64,
}

/// Why the cluster suite stopped.
#[derive(Debug, thiserror::Error)]
pub enum ClusterBenchError {
    /// A board could not be planned.
    #[error("{0}")]
    Planner(#[from] crate::plan::PlannerError),
    /// A plan could not be packed into tasks.
    #[error("{0}")]
    Pack(#[from] crate::plan::PlanError),
}

/// Plans each board for each node count with `model` (unprobed: the figures are the model's);
/// `each` hears each row.
pub fn rows(
    boards: &[Board],
    nodes: &[usize],
    model: &CostModel,
    each: &mut dyn FnMut(&Row),
) -> Result<Vec<Row>, ClusterBenchError> {
    let opts =
        PlanOptions { mem_limit: Some(NODE_MEMORY), ..PlanOptions::new(THREADS_PER_NODE, model.clone()) }.for_cluster();
    let mut out = Vec::new();
    for &board in boards {
        let root = Position::empty(board);
        let start = Instant::now();
        let planned = crate::plan::plan(root, &opts)?;
        let plan_seconds = start.elapsed().as_secs_f64();
        for &n in nodes {
            let shape = ClusterShape {
                nodes: n,
                threads_per_node: THREADS_PER_NODE as usize,
                overhead_seconds: OVERHEAD,
                store_bytes_per_second: STORE_BANDWIDTH,
                book: Some(crate::plan::DEFAULT_BOOK_LINES),
            };
            // One count packed as `dab plan --nodes N` packs it, candidates checked included.
            let start = Instant::now();
            let packed = crate::plan::plan_for_cluster(&planned, &opts, &shape)?;
            let pack_seconds = start.elapsed().as_secs_f64();
            out.push(Row {
                board: board.to_string(),
                nodes: n,
                threads_per_node: THREADS_PER_NODE,
                node_memory_bytes: NODE_MEMORY,
                store_bytes_per_second: STORE_BANDWIDTH,
                overhead_seconds: OVERHEAD,
                plan_seconds,
                pack_seconds,
                total_seconds: plan_seconds + pack_seconds,
                candidate: packed.row.candidate,
                jobs: packed.row.jobs,
                tasks: packed.row.tasks,
                predicted_seconds: packed.row.predicted_seconds,
                store_write_bytes: packed.row.store_write_bytes,
                store_peak_bytes: packed.row.store_peak_bytes,
            });
            each(out.last().expect("pushed"));
        }
    }
    Ok(out)
}
