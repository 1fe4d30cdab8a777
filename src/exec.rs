//! The executor: runs a plan's jobs on a rayon pool of P threads. Rayon has no task
//! dependencies, so each job counts its unfinished predecessors and becomes ready at zero;
//! every worker takes the best ready job (the plan's priority, then plan order) from one
//! shared queue, computes it with the kernel, and releases what it made ready. A job's values
//! are resident from its start until every job that needs them has finished, as in the
//! simulator's memory model. Every job's start and end go to the trace.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::kernel::{Kernel, Pieces, Rows, Value};
use crate::key::PartitionKey;
use crate::plan::Checked;
use crate::solve::{MoveValue, move_value};
use crate::space::State;

/// One job's run, seconds from the start of the execution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceRow {
    pub job: String,
    pub thread: usize,
    pub start: f64,
    pub end: f64,
    pub positions: u64,
}

pub struct Execution {
    /// Value of the root position.
    pub value: Value,
    /// Every undrawn line of the root with the value of playing it.
    pub moves: Vec<MoveValue>,
    /// In the order jobs finished.
    pub trace: Vec<TraceRow>,
    pub seconds: f64,
    pub threads: usize,
    pub positions: u64,
    /// Most bytes of job values resident at once.
    pub peak_bytes: u64,
    /// Every job's values, by job, when asked to keep them.
    pub tables: Option<Vec<Arc<Vec<Value>>>>,
}

/// The successor partitions a job reads, as pieces: per group, the jobs of `key.plus(g)` in
/// row order with their first values.
struct Reads {
    /// Per group: (first value of each piece, job of each piece); empty where the group is full.
    groups: Vec<(Vec<usize>, Vec<u32>)>,
}

struct Shared {
    ready: BinaryHeap<(u64, Reverse<u32>)>,
    missing: Vec<u32>,
    holders: Vec<u32>,
    values: Vec<Option<Arc<Vec<Value>>>>,
    unstarted: usize,
    resident: u64,
    peak: u64,
    done_positions: u64,
    trace: Vec<TraceRow>,
    root: Option<(Value, Vec<MoveValue>)>,
}

/// Runs every job of `plan` on `threads` threads. `keep` keeps every job's values (tests);
/// `progress(done, total)` is called as positions complete.
pub fn execute(plan: &Checked, threads: usize, keep: bool, progress: Option<&(dyn Fn(u64, u64) + Sync)>) -> Execution {
    let start = Instant::now();
    let (space, graph, layout) = (&plan.space, &plan.graph, &plan.layout);
    let kernel = Kernel::new(space);
    let n = graph.len();
    let total: u64 = graph.jobs.iter().map(|j| j.states).sum();
    // Pieces of each partition in row order, with their first values.
    let mut pieces: HashMap<PartitionKey, (Vec<usize>, Vec<u32>)> = HashMap::new();
    for (i, l) in layout.iter().enumerate() {
        let (_, row_len) = kernel.shape(&l.key);
        let e = pieces.entry(l.key).or_default();
        e.0.push(l.first_row * row_len);
        e.1.push(i as u32);
    }
    let reads: Vec<Reads> = layout
        .iter()
        .map(|l| Reads {
            groups: (0..l.key.groups())
                .map(|g| {
                    if (l.key.counts()[g] as u32) < space.groups[g].size {
                        pieces[&l.key.plus(g)].clone()
                    } else {
                        (Vec::new(), Vec::new())
                    }
                })
                .collect(),
        })
        .collect();
    let mut shared = Shared {
        ready: BinaryHeap::new(),
        missing: (0..n).map(|i| graph.needs(i).len() as u32).collect(),
        holders: (0..n).map(|i| graph.needed_by(i).len() as u32).collect(),
        values: vec![None; n],
        unstarted: n,
        resident: 0,
        peak: 0,
        done_positions: 0,
        trace: Vec::with_capacity(n),
        root: None,
    };
    for i in 0..n {
        if shared.missing[i] == 0 {
            shared.ready.push((plan.priority[i], Reverse(i as u32)));
        }
    }
    let state = (Mutex::new(shared), Condvar::new());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().expect("thread pool");
    pool.broadcast(|ctx| {
        let (lock, wake) = &state;
        loop {
            // Take the best ready job, with the values it reads.
            let (job, inputs) = {
                let mut s = lock.lock().expect("executor lock");
                let job = loop {
                    if s.unstarted == 0 {
                        return;
                    }
                    if let Some((_, Reverse(j))) = s.ready.pop() {
                        break j as usize;
                    }
                    s = wake.wait(s).expect("executor lock");
                };
                s.unstarted -= 1;
                s.resident += graph.jobs[job].bytes;
                s.peak = s.peak.max(s.resident);
                let needs = graph.needs(job);
                let inputs: Vec<Vec<Option<Arc<Vec<Value>>>>> = reads[job]
                    .groups
                    .iter()
                    .map(|(_, jobs)| {
                        jobs.iter()
                            .map(|k| if needs.contains(k) { s.values[*k as usize].clone() } else { None })
                            .collect()
                    })
                    .collect();
                (job, inputs)
            };
            let began = start.elapsed().as_secs_f64();
            let l = layout[job];
            let (_, row_len) = kernel.shape(&l.key);
            let views: Vec<Pieces> = reads[job]
                .groups
                .iter()
                .zip(&inputs)
                .map(|((starts, _), parts)| {
                    Pieces::new(
                        starts.clone(),
                        parts.iter().map(|p| p.as_ref().map_or(&[][..], |v| v.as_slice())).collect(),
                    )
                })
                .collect();
            let mut out = vec![0 as Value; l.rows * row_len];
            kernel.compute(&l.key, &views, &mut out, l.first_row);
            let root = (l.key.total() == 0).then(|| (out[0], root_moves(plan, &views)));
            drop(views);
            drop(inputs);
            let ended = start.elapsed().as_secs_f64();
            let (done, states) = {
                let mut s = lock.lock().expect("executor lock");
                let states = graph.jobs[job].states;
                let sink = graph.needed_by(job).is_empty();
                if keep || !sink {
                    s.values[job] = Some(Arc::new(out));
                } else {
                    s.resident -= graph.jobs[job].bytes;
                }
                for &k in graph.needs(job) {
                    let k = k as usize;
                    s.holders[k] -= 1;
                    if s.holders[k] == 0 && !keep {
                        s.values[k] = None;
                        s.resident -= graph.jobs[k].bytes;
                    }
                }
                for &k in graph.needed_by(job) {
                    s.missing[k as usize] -= 1;
                    if s.missing[k as usize] == 0 {
                        s.ready.push((plan.priority[k as usize], Reverse(k)));
                    }
                }
                if root.is_some() {
                    s.root = root;
                }
                s.done_positions += states;
                s.trace.push(TraceRow {
                    job: graph.jobs[job].name.clone(),
                    thread: ctx.index(),
                    start: began,
                    end: ended,
                    positions: states,
                });
                wake.notify_all();
                (s.done_positions, states)
            };
            if let (Some(p), true) = (progress, states > 0) {
                p(done, total);
            }
        }
    });
    let s = state.0.into_inner().expect("executor lock");
    let (value, moves) = s.root.expect("the root partition was computed");
    Execution {
        value,
        moves,
        trace: s.trace,
        seconds: start.elapsed().as_secs_f64(),
        threads: threads.max(1),
        positions: total,
        peak_bytes: s.peak,
        tables: keep.then(|| s.values.into_iter().map(|v| v.expect("kept")).collect()),
    }
}

/// Values of every undrawn line of the root, read from the root's successors.
fn root_moves(plan: &Checked, views: &[Pieces]) -> Vec<MoveValue> {
    let space = &plan.space;
    let mut by_line: Vec<MoveValue> = (0..space.free())
        .map(|i| {
            let (key, index) = space.locate(State(1 << i));
            let g = (0..key.groups()).find(|&g| key.counts()[g] == 1).expect("one line drawn");
            let after = views[g].row(index, 1)[0];
            let boxes = space.completes(State(0), i);
            MoveValue { line: space.lines[i], boxes: boxes as u8, value: move_value(boxes, after) }
        })
        .collect();
    by_line.sort_by_key(|m| m.line);
    by_line
}
