//! Plans: what the executor runs and what `dab compare` measures against. A plan names the
//! root position, the grouping and the split, and lists every job (a partition, or a row range
//! of one) with its predicted cost, its priority and the jobs it needs, with the predicted
//! makespan for each processor count. This module owns the file format and its checks: a plan
//! for another board, an older format, missing or overlapping jobs are refused before anything
//! runs. Loading checks the fields themselves: every field present (`null` where a value may be
//! absent) but the few whose default reads an older plan as it was made (the fields a format
//! gained and the names it had: docs/notes/plan-format-history.md), counts at least 1, seconds finite
//! and >= 0, contention factors finite and > 0. A two-level plan adds the cluster it was packed for and its tasks (which
//! jobs run together on one node), checked against its jobs before any runs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};

use crate::game::{Board, Position};
use crate::sched::{Contention, Graph, GraphError, Job, Policy, Split, fixed_bytes, is_job_name, values_limit};
use crate::solver::{Kernel, LayoutError, Space};
use crate::support::{one_line, round4};

use super::ready::{ReadsError, ReadyPlan, job_layout};
use super::tasks::{ClusterShape, Task, task_deps, task_job};

/// Plan files this version reads and writes (2: the contention curve, lower bounds).
pub const PLAN_FORMAT: u32 = 2;

/// Most bytes of a plan file: 512 a job (its name, rows, costs and priority take about 200,
/// the names of the jobs it needs the rest) for the most jobs a graph may have.
const MAX_PLAN_BYTES: u64 = crate::sched::MAX_JOBS * 512;
/// Why no plan needs more than [`MAX_PLAN_BYTES`].
const PLAN_BOUND: &str = "a plan has at most 2,000,000 jobs, 512 bytes each with the jobs it needs";

/// One job of a plan: a partition, or a range of its rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanJob {
    /// `<key>` or `<key>_<piece>`.
    pub name: String,
    /// The partition's key.
    pub key: String,
    /// First row of the partition this job computes (kernel rows: all groups but the last).
    pub first_row: u64,
    /// Number of rows it computes.
    pub rows: u64,
    /// Positions it computes.
    pub states: u64,
    /// Bytes of its output.
    pub bytes: u64,
    /// Predicted nanoseconds (or states, without a cost model).
    pub cost: u64,
    /// Higher starts first: the longest predicted path from this job to the end.
    pub priority: u64,
    /// Names of the jobs it needs.
    pub deps: Vec<String>,
}

/// The predicted run on `procs` processors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// Processors (threads); `threads` in the file (`procs` also read).
    #[serde(rename = "threads", alias = "procs")]
    pub procs: u32,
    /// Predicted makespan in seconds, contention included.
    pub makespan_seconds: f64,
    /// Most bytes of job values resident at once (`peak_value_bytes` in the file, as in every
    /// command's JSON; `peak_memory` also read).
    #[serde(rename = "peak_value_bytes", alias = "peak_memory")]
    pub peak_memory: u64,
    /// No schedule on `procs` processors is shorter: the longest chain of jobs, or the work
    /// over the processors slowed by their contention (seconds).
    pub lower_bound_seconds: f64,
}

/// Where a run should fall around a prediction `p`: from `p (1 - below)` to `p (1 + above)`.
/// The model's own error on whole solves sets the least of it; a probe that found the machine
/// unsteady or busy widens the top, since other work only ever slows a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PredictedRange {
    /// Share of the prediction a run may be faster by.
    pub below: f64,
    /// Share of the prediction a run may be slower by.
    pub above: f64,
}

impl PredictedRange {
    /// The range of the model alone on a quiet machine: how far whole runs of the boards it
    /// was fitted on fell from their predictions (docs/notes/prediction-history.md).
    pub const MODEL: PredictedRange = PredictedRange { below: 0.12, above: 0.12 };

    /// The range around `seconds`: (fastest, slowest).
    pub fn around(&self, seconds: f64) -> (f64, f64) {
        (seconds * (1.0 - self.below).max(0.0), seconds * (1.0 + self.above))
    }
}

/// One candidate the planner simulated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Number of line groups.
    pub groups: usize,
    /// How its partitions were split (None: not at all).
    #[serde(deserialize_with = "required")]
    pub split: Option<Split>,
    /// Number of jobs (`job_count` in the file, since `jobs` is a plan's list; `jobs` also read).
    #[serde(rename = "job_count", alias = "jobs")]
    pub jobs: usize,
    /// Predicted makespan in seconds on the plan's thread count (infinite where it does not
    /// fit, which JSON writes as `null`).
    #[serde(deserialize_with = "null_is_infinite")]
    pub predicted_seconds: f64,
    /// Most bytes of job values resident at once on the plan's thread count (0 where it does
    /// not fit); `peak_value_bytes` in the file (`peak_memory` also read).
    #[serde(rename = "peak_value_bytes", alias = "peak_memory")]
    pub peak_memory: u64,
    /// Whether it runs under the memory limit on the plan's thread count.
    pub fits: bool,
}

/// A plan file: how to cut a solve into jobs, what each costs, and the predicted run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Version of the file's format ([`PLAN_FORMAT`]).
    pub format: u32,
    /// The board, as `MxN`.
    pub board: String,
    /// The root position as a line string.
    pub root: String,
    /// The graph scheme; only `orbits` can be run.
    pub scheme: String,
    /// Number of line groups of the space.
    pub groups: usize,
    /// How partitions were split into jobs (None: not at all).
    #[serde(deserialize_with = "required")]
    pub split: Option<Split>,
    /// Which ready job starts first.
    pub policy: Policy,
    /// The processor count the plan was made for.
    pub threads: u32,
    /// Unit of the job costs: `ns` with a cost model, else `states`.
    pub unit: String,
    /// The machine of the cost model.
    #[serde(deserialize_with = "required")]
    pub machine: Option<String>,
    /// How much slower jobs run with more threads busy: `(threads, factor)` points, applied by
    /// the simulator from the jobs running at each moment (none for a plan in states).
    pub contention: Contention,
    /// Most bytes the run's process may hold (None: no limit): partition values, and the
    /// program, tables, jobs and threads counted by [`crate::sched::process_bytes`].
    /// `mem_limit_bytes` in the file (`mem_limit` also read).
    #[serde(rename = "mem_limit_bytes", alias = "mem_limit", deserialize_with = "required")]
    pub mem_limit: Option<u64>,
    /// Whether job costs include writing the job to a store (absent: false, costs without
    /// the writes).
    #[serde(default)]
    pub store_writes: bool,
    /// Picoseconds per byte charged for reading back values the memory limit dropped (absent:
    /// 0, read-backs not charged).
    #[serde(default)]
    pub reload_ps_per_byte: u64,
    /// Nanoseconds a worker spends after each job before the next, from the cost model
    /// (absent: 0, no time between jobs).
    #[serde(default)]
    pub between_jobs_ns: u64,
    /// Picoseconds per byte of a job's output for giving its memory back once read, charged
    /// to the job that made it, from the cost model (absent: 0, not charged).
    #[serde(default)]
    pub release_ps_per_byte: u64,
    /// Predicted makespan in seconds on `threads` processors (0 where not predicted).
    pub predicted_seconds: f64,
    /// Predicted peak of resident job values on `threads` processors, in bytes (0 where not
    /// predicted); `predicted_peak_value_bytes` in the file (`predicted_peak_memory` also
    /// read).
    #[serde(rename = "predicted_peak_value_bytes", alias = "predicted_peak_memory")]
    pub predicted_peak_memory: u64,
    /// Predictions at P, at every processor count up to 16 and at the powers of two to max(P, 64),
    /// fewest first, where the plan fits its memory limit (empty
    /// where not predicted).
    pub predictions: Vec<Prediction>,
    /// Every candidate the planner simulated, the chosen one included.
    pub candidates: Vec<Candidate>,
    /// Why this candidate.
    pub reason: String,
    /// The jobs, in graph order.
    pub jobs: Vec<PlanJob>,
    /// The cluster the plan's jobs were packed into tasks for (absent: a plan for one
    /// machine, whose cluster export submits every job on its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<PlanCluster>,
    /// The cluster tasks, each reading only tasks listed before it (empty: none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<PlanTask>,
    /// Hardware threads of the machine it was planned on: its predictions past that count are
    /// for a machine like it with more cores (absent in plans made before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_threads: Option<u32>,
    /// Where a run should fall around each prediction (absent in plans made before it was
    /// recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<PredictedRange>,
}

/// The cluster a two-level plan is packed for, and what the simulation predicts of its run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanCluster {
    /// Nodes running tasks at once.
    pub nodes: u32,
    /// Threads of a node; a task runs on all of them (the plan's `threads`).
    pub threads_per_node: u32,
    /// Seconds from a task being ready to its start (the engine's dispatch).
    pub overhead_seconds: f64,
    /// Bytes per second of the shared store, all nodes together (null: not limited).
    pub store_bytes_per_second: Option<f64>,
    /// Predicted seconds from the first dispatch to the last task's end.
    pub predicted_seconds: f64,
    /// Bytes the tasks read from the store (inputs made by other tasks).
    pub store_read_bytes: u64,
    /// Bytes the tasks write to the store.
    pub store_write_bytes: u64,
    /// The opening book the run keeps: files of partitions of at most this many lines stay,
    /// with the root's inputs; every other file goes once every task that reads it is done.
    /// Null (plans written before files went): every file stays.
    #[serde(default)]
    pub keep_lines: Option<usize>,
    /// The most bytes in the store at once as the task schedule predicts it, files going as
    /// the book says (null in plans written before it was predicted).
    #[serde(default)]
    pub store_peak_bytes: Option<u64>,
}

/// One cluster task: jobs run together on one node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanTask {
    /// `t<i>`.
    pub name: String,
    /// The tasks whose jobs' files it reads.
    pub deps: Vec<String>,
    /// Its jobs, by name.
    pub jobs: Vec<String>,
    /// Predicted seconds from its dispatch to its end.
    pub predicted_seconds: f64,
}

/// Why a plan could not be read, written, or checked.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A cluster task of the plan is not sound.
    #[error("plan task '{task}' {message}")]
    Task {
        /// The task.
        task: String,
        /// What is wrong with it.
        message: String,
    },
    /// The plan file could not be read.
    #[error("cannot read plan '{path}': {source}")]
    Read {
        /// The plan file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not the JSON of a plan.
    #[error("plan '{path}' is not a plan file: {}", one_line(&source.to_string()))]
    Parse {
        /// The plan file.
        path: PathBuf,
        /// What the JSON reader said.
        source: serde_json::Error,
    },
    /// The plan file could not be written.
    #[error("cannot write plan '{path}': {source}")]
    Write {
        /// The plan file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The plan is of a format version this dab does not read.
    #[error(
        "plan format {found} is not supported: this dab reads format {PLAN_FORMAT}; make the plan again with dab plan"
    )]
    Format {
        /// The version the plan has.
        found: u32,
    },
    /// The plan is for another board than the one asked for.
    #[error("the plan is for {plan}, not {asked}")]
    OtherBoard {
        /// The plan's board.
        plan: String,
        /// The board asked for.
        asked: String,
    },
    /// The plan's board, root position or scheme is not valid (the text says which and why).
    #[error("the plan's {0}")]
    Position(String),
    /// The plan's root and group count make no space.
    #[error("the plan's grouping: {0}")]
    Space(#[from] crate::solver::SpaceError),
    /// The plan's jobs are not a valid graph.
    #[error("the plan's jobs: {0}")]
    Graph(#[from] GraphError),
    /// A job names no partition of the space, its size is not whole rows within it, or its key
    /// and rows are not those its name and size give.
    #[error("the plan's job '{job}': {message}")]
    Job {
        /// The job's name.
        job: String,
        /// What does not match.
        message: String,
    },
    /// No job covers these rows of a partition.
    #[error("the plan has no job for rows {first}..{end} of partition {key}")]
    Missing {
        /// The partition's key.
        key: String,
        /// First row not covered.
        first: u64,
        /// End of the partition's rows.
        end: u64,
    },
    /// A job does not read what it lists, or is not named for its piece.
    #[error("the plan's {0}")]
    Reads(#[from] ReadsError),
    /// A field has a value no plan can have (the field, its value, and the rule).
    #[error("the plan's {field} = {value}: {rule}")]
    Field {
        /// The field, e.g. `threads` or `predictions[2].makespan_seconds`.
        field: String,
        /// Its value.
        value: String,
        /// What it must be.
        rule: &'static str,
    },
    /// An error in a plan file, with the file's name.
    #[error("plan '{path}': {source}")]
    InFile {
        /// The plan file.
        path: PathBuf,
        /// The error in it.
        source: Box<PlanError>,
    },
}

/// An `Option` field that must be in the file (`null` for None): serde would take a missing
/// one for None, which is how a damaged plan loses its memory limit unnoticed.
fn required<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

/// Seconds that JSON writes as `null` when infinite (serde_json has no infinity).
fn null_is_infinite<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

/// A field of a plan refused: its name, its value as written, and the rule it breaks.
fn bad(field: String, value: String, rule: &'static str) -> Result<(), PlanError> {
    Err(PlanError::Field { field, value, rule })
}

/// A field of seconds: finite and >= 0.
fn seconds(field: String, value: f64) -> Result<(), PlanError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        bad(field, value.to_string(), "must be a finite number of seconds >= 0")
    }
}

impl From<LayoutError> for PlanError {
    fn from(e: LayoutError) -> PlanError {
        match e {
            LayoutError::Job { job, message } => PlanError::Job { job, message },
            LayoutError::Missing { key, first, end } => PlanError::Missing { key, first, end },
        }
    }
}

/// Bytes a run over `space` with `jobs` jobs holds besides values whatever its thread count:
/// the program, the space's and the kernel's tables, and the jobs' bookkeeping.
pub(crate) fn run_fixed_bytes(space: &Space, jobs: usize) -> u64 {
    fixed_bytes(space.table_bytes() + Kernel::new(space).table_bytes(), jobs)
}

impl Plan {
    /// A plan for `graph` (an orbits graph of `space`), priorities by longest remaining cost.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        space: &Space,
        graph: &Graph,
        split: Option<Split>,
        policy: Policy,
        threads: u32,
        unit: &str,
        machine: Option<String>,
    ) -> Result<Plan, PlanError> {
        let layout = job_layout(space, graph)?;
        let priority = graph.cost_priorities();
        let jobs = graph
            .jobs
            .iter()
            .zip(&layout)
            .zip(&priority)
            .map(|((j, l), &p)| PlanJob {
                name: j.name.clone(),
                key: l.key.to_string(),
                first_row: l.first_row as u64,
                rows: l.rows as u64,
                states: j.states,
                bytes: j.bytes,
                cost: j.cost,
                priority: p,
                deps: j.deps.clone(),
            })
            .collect();
        Ok(Plan {
            format: PLAN_FORMAT,
            board: space.board().to_string(),
            root: space.root.to_line_string(),
            scheme: "orbits".into(),
            groups: space.groups.len(),
            split,
            policy,
            threads,
            unit: unit.into(),
            machine,
            contention: Contention::default(),
            mem_limit: None,
            store_writes: false,
            reload_ps_per_byte: 0,
            between_jobs_ns: 0,
            release_ps_per_byte: 0,
            predicted_seconds: 0.0,
            predicted_peak_memory: 0,
            predictions: Vec::new(),
            candidates: Vec::new(),
            reason: String::new(),
            jobs,
            cluster: None,
            tasks: Vec::new(),
            machine_threads: None,
            range: None,
        })
    }

    /// Records `packing`, the plan's jobs packed into cluster tasks for `cluster` (its
    /// `threads` must be the node's threads; [`super::pack`]): the tasks and the prediction.
    pub(crate) fn record_packing(&mut self, packing: &super::Packing, cluster: &ClusterShape, store_peak: u64) {
        let names = |jobs: &[usize]| jobs.iter().map(|&j| self.jobs[j].name.clone()).collect();
        self.tasks = packing
            .tasks
            .iter()
            .zip(&packing.task_seconds)
            .map(|(t, &seconds)| PlanTask {
                name: t.name.clone(),
                deps: t.deps.iter().map(|&d| packing.tasks[d].name.clone()).collect(),
                jobs: names(&t.jobs),
                predicted_seconds: round4(seconds),
            })
            .collect();
        let bandwidth = cluster.store_bytes_per_second;
        self.cluster = Some(PlanCluster {
            nodes: cluster.nodes as u32,
            threads_per_node: cluster.threads_per_node as u32,
            overhead_seconds: cluster.overhead_seconds,
            store_bytes_per_second: (bandwidth.is_finite() && bandwidth > 0.0).then_some(bandwidth),
            predicted_seconds: round4(packing.makespan_seconds),
            store_read_bytes: packing.read_bytes,
            store_write_bytes: packing.write_bytes,
            keep_lines: cluster.book,
            store_peak_bytes: Some(store_peak),
        });
    }

    /// The plan's cluster tasks checked against its jobs (`ready`: the plan checked): every
    /// job in exactly one task, every task named `t<i>` for its place, reading only tasks
    /// listed before it and listing exactly those. Empty for a plan without tasks.
    pub fn checked_tasks(&self, ready: &ReadyPlan) -> Result<Vec<Task>, PlanError> {
        let index: HashMap<&str, usize> = self.jobs.iter().enumerate().map(|(i, j)| (j.name.as_str(), i)).collect();
        let mut owner: Vec<Option<usize>> = vec![None; self.jobs.len()];
        let bad = |task: &PlanTask, message: String| PlanError::Task { task: one_line(&task.name), message };
        let mut out = Vec::with_capacity(self.tasks.len());
        for (t, task) in self.tasks.iter().enumerate() {
            if task.name != format!("t{t}") {
                return Err(bad(task, format!("is task {t} of the list, so it must be named t{t}")));
            }
            let mut jobs = Vec::with_capacity(task.jobs.len());
            for name in &task.jobs {
                let Some(&j) = index.get(name.as_str()) else {
                    return Err(bad(task, format!("lists job '{}', which the plan has not", one_line(name))));
                };
                if let Some(other) = owner[j] {
                    return Err(bad(task, format!("lists job '{name}', which task t{other} lists too")));
                }
                owner[j] = Some(t);
                jobs.push(j);
            }
            if jobs.is_empty() {
                return Err(bad(task, "lists no job".into()));
            }
            jobs.sort_unstable();
            out.push(jobs);
        }
        if out.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(j) = owner.iter().position(Option::is_none) {
            return Err(PlanError::Job { job: self.jobs[j].name.clone(), message: "is in no cluster task".into() });
        }
        let deps = task_deps(ready, &out);
        for (t, deps) in deps.iter().enumerate() {
            if let Some(&later) = deps.iter().find(|&&d| d > t) {
                return Err(bad(&self.tasks[t], format!("reads task t{later}, which is listed after it")));
            }
            let listed: Vec<String> = deps.iter().map(|d| format!("t{d}")).collect();
            if listed != self.tasks[t].deps {
                return Err(bad(&self.tasks[t], format!("reads tasks {listed:?} but lists {:?}", self.tasks[t].deps)));
            }
        }
        Ok(out
            .into_iter()
            .zip(deps)
            .zip(&self.tasks)
            .map(|((jobs, deps), t)| Task { name: t.name.clone(), jobs, deps })
            .collect())
    }

    /// The plan's cluster tasks as a graph ([`super::run_tasks`] simulates it): each task's
    /// cost its predicted seconds with `overhead_seconds` of dispatch in place of the plan's
    /// (None: the plan's own), in [`super::TASK_TICKS_PER_SECOND`] ticks; its positions those
    /// of its jobs. Err for a plan without tasks, or tasks that are not a graph.
    pub fn task_graph(&self, overhead_seconds: Option<f64>) -> Result<Graph, GraphError> {
        let Some(cluster) = self.cluster.as_ref().filter(|_| !self.tasks.is_empty()) else {
            return Err(GraphError::Empty);
        };
        let states: HashMap<&str, u64> = self.jobs.iter().map(|j| (j.name.as_str(), j.states)).collect();
        let jobs = self
            .tasks
            .iter()
            .map(|t| {
                let work = (t.predicted_seconds - cluster.overhead_seconds).max(0.0);
                let seconds = work + overhead_seconds.unwrap_or(cluster.overhead_seconds);
                let positions = t.jobs.iter().filter_map(|j| states.get(j.as_str())).sum();
                task_job(t.name.clone(), seconds, positions, t.deps.clone())
            })
            .collect();
        Graph::new(jobs, None)
    }

    /// The plan's jobs as a graph.
    pub fn graph(&self) -> Result<Graph, GraphError> {
        let jobs = self
            .jobs
            .iter()
            .map(|j| Job { name: j.name.clone(), cost: j.cost, states: j.states, bytes: j.bytes, deps: j.deps.clone() })
            .collect();
        Graph::new(jobs, None)
    }

    /// Checks everything the executor relies on (the reads of every job:
    /// [`ReadyPlan::checked`]) and builds the space.
    pub fn check(&self) -> Result<ReadyPlan, PlanError> {
        if self.format != PLAN_FORMAT {
            return Err(PlanError::Format { found: self.format });
        }
        let board: Board = self.board.parse().map_err(|e| PlanError::Position(format!("board: {e}")))?;
        let root =
            Position::from_line_string(board, &self.root).map_err(|e| PlanError::Position(format!("root: {e}")))?;
        if self.scheme != "orbits" {
            return Err(PlanError::Position(format!("scheme '{}' cannot be executed (only orbits)", self.scheme)));
        }
        let space = Space::new(root, Some(self.groups))?;
        let graph = self.graph()?;
        let layout = job_layout(&space, &graph)?;
        for (j, l) in self.jobs.iter().zip(&layout) {
            if j.key != l.key.to_string() || j.first_row != l.first_row as u64 || j.rows != l.rows as u64 {
                return Err(PlanError::Job {
                    job: j.name.clone(),
                    message: format!(
                        "says {} rows {}+{}, but its name and size give {} rows {}+{}",
                        j.key, j.first_row, j.rows, l.key, l.first_row, l.rows
                    ),
                });
            }
        }
        let priority = self.jobs.iter().map(|j| j.priority).collect();
        ReadyPlan::checked(space, graph, layout, priority)
    }

    /// Reads a plan file and checks its fields ([`Plan::check_fields`]); its jobs against the
    /// space are [`Plan::check`]'s.
    pub fn load(path: &Path) -> Result<Plan, PlanError> {
        let text = crate::support::read_json_at_most(path, MAX_PLAN_BYTES, PLAN_BOUND)
            .map_err(|source| PlanError::Read { path: path.into(), source })?;
        let in_file = |e: PlanError| PlanError::InFile { path: path.into(), source: Box::new(e) };
        let parse = |source| PlanError::Parse { path: path.into(), source };
        // The version first: a plan of another format lacks fields, and the fix is a new plan.
        let value: serde_json::Value = serde_json::from_str(&text).map_err(parse)?;
        if let Some(found) = value.get("format").and_then(|f| f.as_u64()).filter(|&f| f != PLAN_FORMAT as u64) {
            return Err(in_file(PlanError::Format { found: u32::try_from(found).unwrap_or(u32::MAX) }));
        }
        // From the text again rather than the value: serde_json then names the line and column.
        let plan: Plan = serde_json::from_str(&text).map_err(parse)?;
        plan.check_fields().map_err(in_file)?;
        Ok(plan)
    }

    /// Checks the fields that need no space: the format, counts at least 1 (threads,
    /// processors, a split's threshold and pieces, a memory limit), the unit `ns` or `states`,
    /// seconds finite and >= 0 (a candidate that does not fit may be infinite), contention
    /// points at 1 thread or more with finite factors > 0.
    pub(crate) fn check_fields(&self) -> Result<(), PlanError> {
        if self.format != PLAN_FORMAT {
            return Err(PlanError::Format { found: self.format });
        }
        self.check_settings()?;
        self.check_job_names()?;
        seconds("predicted_seconds".into(), self.predicted_seconds)?;
        self.check_cluster()?;
        self.check_predictions()
    }

    /// The fields that say how the plan was made: threads, unit, split, memory limit and
    /// contention.
    fn check_settings(&self) -> Result<(), PlanError> {
        if self.threads == 0 {
            return bad("threads".into(), "0".into(), "must be at least 1");
        }
        if self.unit != "ns" && self.unit != "states" {
            return bad("unit".into(), format!("'{}'", one_line(&self.unit)), "must be 'ns' or 'states'");
        }
        if let Some(s) = &self.split
            && (s.threshold == 0 || s.max_pieces == 0)
        {
            let value = format!("threshold {}, max_pieces {}", s.threshold, s.max_pieces);
            return bad("split".into(), value, "must have a threshold and max_pieces of at least 1");
        }
        if self.mem_limit == Some(0) {
            return bad("mem_limit_bytes".into(), "0".into(), "must be at least 1 byte (null: no limit)");
        }
        for &(threads, factor) in &self.contention.0 {
            if threads == 0 || !(factor.is_finite() && factor > 0.0) {
                let value = format!("({threads} threads, factor {factor})");
                return bad("contention".into(), value, "points must be at 1 thread or more with a finite factor > 0");
            }
        }
        Ok(())
    }

    /// Every job's name and the names of the jobs it needs.
    fn check_job_names(&self) -> Result<(), PlanError> {
        for (i, j) in self.jobs.iter().enumerate() {
            let names = std::iter::once(("name".to_string(), &j.name))
                .chain(j.deps.iter().enumerate().map(|(k, d)| (format!("deps[{k}]"), d)));
            for (field, name) in names {
                if !is_job_name(name) {
                    let rule = "is not a job name (non-empty; no spaces, control characters, ':', ',' or '#')";
                    return bad(format!("jobs[{i}].{field}"), format!("'{}'", one_line(name)), rule);
                }
            }
        }
        Ok(())
    }

    /// The cluster a two-level plan was packed for, and its tasks (none without a cluster).
    fn check_cluster(&self) -> Result<(), PlanError> {
        if let Some(c) = &self.cluster {
            if c.nodes == 0 {
                return bad("cluster.nodes".into(), "0".into(), "must be at least 1");
            }
            if c.threads_per_node != self.threads {
                let rule = "must be the plan's threads: a task runs on all of a node's threads";
                return bad("cluster.threads_per_node".into(), c.threads_per_node.to_string(), rule);
            }
            seconds("cluster.overhead_seconds".into(), c.overhead_seconds)?;
            seconds("cluster.predicted_seconds".into(), c.predicted_seconds)?;
            if let Some(b) = c.store_bytes_per_second.filter(|b| !(b.is_finite() && *b > 0.0)) {
                return bad("cluster.store_bytes_per_second".into(), b.to_string(), "must be a finite number > 0");
            }
        }
        if self.cluster.is_none() && !self.tasks.is_empty() {
            return bad("tasks".into(), format!("{} tasks", self.tasks.len()), "need the cluster they were packed for");
        }
        for (i, t) in self.tasks.iter().enumerate() {
            seconds(format!("tasks[{i}].predicted_seconds"), t.predicted_seconds)?;
        }
        Ok(())
    }

    /// The predictions at each thread count and the candidates' predicted seconds.
    fn check_predictions(&self) -> Result<(), PlanError> {
        for (i, p) in self.predictions.iter().enumerate() {
            if p.procs == 0 {
                return bad(format!("predictions[{i}].procs"), "0".into(), "must be at least 1");
            }
            seconds(format!("predictions[{i}].makespan_seconds"), p.makespan_seconds)?;
            seconds(format!("predictions[{i}].lower_bound_seconds"), p.lower_bound_seconds)?;
        }
        for (i, c) in self.candidates.iter().enumerate() {
            let field = format!("candidates[{i}].predicted_seconds");
            match c.predicted_seconds {
                f64::INFINITY if c.fits => return bad(field, "null".into(), "is infinite, but the candidate fits"),
                f64::INFINITY => {}
                s => seconds(field, s)?,
            }
        }
        Ok(())
    }

    /// Writes the plan to `path` as JSON, through a temporary file and a rename.
    pub fn save(&self, path: &Path) -> Result<(), PlanError> {
        let text = serde_json::to_string_pretty(self).expect("a plan serialises");
        crate::support::write_atomic(path, text.as_bytes())
            .map_err(|source| PlanError::Write { path: path.into(), source })
    }

    /// Bytes a run of this plan holds besides values whatever its thread count: the program,
    /// the tables of its space and kernel, the jobs' bookkeeping ([`run_fixed_bytes`]).
    pub fn fixed_bytes(&self) -> Result<u64, PlanError> {
        let board: Board = self.board.parse().map_err(|e| PlanError::Position(format!("board: {e}")))?;
        let root =
            Position::from_line_string(board, &self.root).map_err(|e| PlanError::Position(format!("root: {e}")))?;
        let space = Space::new(root, Some(self.groups))?;
        // A full root has no kernel to size: refused as its check refuses it.
        space.require_lines()?;
        Ok(run_fixed_bytes(&space, self.jobs.len()))
    }

    /// Where the plan has no memory limit and its predicted peak on `threads` threads, with the
    /// program, its tables and threads, passes the usable share of a machine's `memory`: that
    /// peak (None where it fits, or where a limit bounds it).
    pub fn past_memory(&self, threads: u32, memory: u64) -> Result<Option<u64>, PlanError> {
        if self.mem_limit.is_some() {
            return Ok(None);
        }
        let values = self.predicted(threads).map_or(self.predicted_peak_memory, |p| p.peak_memory);
        let need = values.saturating_add(crate::sched::process_bytes(self.fixed_bytes()?, threads));
        Ok((need > super::search::usable_memory(memory)).then_some(need))
    }

    /// The part of the memory limit (the whole process's) left for partition values on
    /// `threads` threads (None: no limit).
    pub fn values_limit(&self, threads: u32) -> Result<Option<u64>, PlanError> {
        match self.mem_limit {
            None => Ok(None),
            Some(_) => Ok(values_limit(self.mem_limit, self.fixed_bytes()?, threads)),
        }
    }

    /// The range a run on `procs` processors should fall in, if the plan has its prediction
    /// and a range.
    pub fn predicted_range(&self, procs: u32) -> Option<(f64, f64)> {
        Some(self.range?.around(self.predicted(procs)?.makespan_seconds))
    }

    /// The predicted makespan on `procs` processors, if the plan has it.
    pub fn predicted(&self, procs: u32) -> Option<&Prediction> {
        self.predictions.iter().find(|p| p.procs == procs)
    }
}
