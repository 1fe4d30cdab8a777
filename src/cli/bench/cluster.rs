//! `dab bench --suite cluster`: how long planning a board for a cluster takes (every candidate
//! simulated at a node's threads, then packed into tasks for the node count) and what it plans,
//! on the cluster the README's "4x5 on a cluster" describes.

use std::time::Instant;

use serde::Serialize;

use dab::plan::{ClusterShape, PlanOptions};
use dab::sched::CostModel;

/// Threads of a node.
pub const THREADS_PER_NODE: u32 = 32;
/// Bytes of memory of a node: 256 GB, as `--mem-limit 256G` reads.
pub const NODE_MEMORY: u64 = 256_000_000_000;
/// Bytes a second of the shared store, every node together.
pub const STORE_BANDWIDTH: f64 = 100e9;
/// Seconds of dispatch a task (Slurm's, as fitted on the live test cluster, rounded).
pub const OVERHEAD: f64 = 1.0;

/// One board planned for one node count.
#[derive(Serialize)]
pub struct Row {
    board: String,
    nodes: usize,
    threads_per_node: u32,
    node_memory_bytes: u64,
    store_bytes_per_second: f64,
    overhead_seconds: f64,
    /// Seconds to simulate the candidates at the node's threads.
    plan_seconds: f64,
    /// Seconds to pack them into tasks for the nodes and choose.
    pack_seconds: f64,
    /// The two together: what `dab plan --nodes` takes, less its probe.
    total_seconds: f64,
    candidate: String,
    jobs: usize,
    tasks: usize,
    predicted_seconds: f64,
}

/// Plans each board for each node count with `model` (unprobed: the figures are the model's).
pub fn rows(boards: &[String], nodes: &[usize], model: &CostModel) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let opts = PlanOptions {
        mem_limit: Some(NODE_MEMORY),
        store: true,
        at_threads_only: true,
        ..PlanOptions::new(THREADS_PER_NODE, model.clone())
    };
    let mut out = Vec::new();
    for board in boards {
        let root = dab::game::Position::empty(board.parse()?);
        for &n in nodes {
            let start = Instant::now();
            let planned = dab::plan::plan(root, &opts)?;
            let plan_seconds = start.elapsed().as_secs_f64();
            let shape = ClusterShape {
                nodes: n,
                threads_per_node: THREADS_PER_NODE as usize,
                overhead_seconds: OVERHEAD,
                store_bytes_per_second: STORE_BANDWIDTH,
            };
            let packed = dab::plan::cluster_sweep(&planned, &opts, &shape, &[n])?.pop().expect("one count");
            let total_seconds = start.elapsed().as_secs_f64();
            out.push(Row {
                board: board.clone(),
                nodes: n,
                threads_per_node: THREADS_PER_NODE,
                node_memory_bytes: NODE_MEMORY,
                store_bytes_per_second: STORE_BANDWIDTH,
                overhead_seconds: OVERHEAD,
                plan_seconds,
                pack_seconds: total_seconds - plan_seconds,
                total_seconds,
                candidate: packed.row.candidate,
                jobs: packed.row.jobs,
                tasks: packed.row.tasks,
                predicted_seconds: packed.row.predicted_seconds,
            });
            let r = out.last().expect("pushed");
            println!(
                "{:<6} {:>6} {:>10.1} {:>10.1} {:>10.1} {:>8} {:>14.1}  {}",
                r.board,
                r.nodes,
                r.plan_seconds,
                r.pack_seconds,
                r.total_seconds,
                r.tasks,
                r.predicted_seconds,
                r.candidate
            );
        }
    }
    Ok(out)
}

/// The table's header, as [`rows`] prints each row.
pub fn header() -> String {
    format!(
        "{:<6} {:>6} {:>10} {:>10} {:>10} {:>8} {:>14}  candidate",
        "board", "nodes", "plan s", "pack s", "total s", "tasks", "predicted s"
    )
}
