//! Plans: what the executor runs and what `dab compare` measures against. A plan names the
//! root position, the grouping and the split, and lists every job (a partition, or a row range
//! of one) with its predicted cost, its priority and the jobs it needs, with the predicted
//! makespan for each processor count. This module owns the file format and its checks: a plan
//! for another board, an older format, missing or overlapping jobs are refused before anything
//! runs.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::game::{Board, Position};
use crate::sched::{Graph, GraphError, Job, Policy, Split};
use crate::solver::{LayoutError, Space};

use super::ready::{ReadyPlan, job_layout, priorities};

/// Plan files this version reads and writes.
pub const PLAN_FORMAT: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanJob {
    /// `<key>` or `<key>_<piece>`.
    pub name: String,
    pub key: String,
    /// Rows of the partition this job computes (kernel rows: all groups but the last).
    pub first_row: u64,
    pub rows: u64,
    pub states: u64,
    pub bytes: u64,
    /// Predicted nanoseconds (or states, without a cost model).
    pub cost: u64,
    /// Higher starts first: the longest predicted path from this job to the end.
    pub priority: u64,
    pub deps: Vec<String>,
}

/// The predicted run on `procs` processors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub procs: u32,
    pub makespan_seconds: f64,
    pub peak_memory: u64,
    /// Jobs run this many times slower than their cost with `procs` threads busy.
    pub job_factor: f64,
}

/// One candidate the planner simulated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub groups: usize,
    pub split: Option<Split>,
    pub jobs: usize,
    pub predicted_seconds: f64,
    pub peak_memory: u64,
    pub fits: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub format: u32,
    pub board: String,
    /// The root position as a line string.
    pub root: String,
    pub scheme: String,
    pub groups: usize,
    pub split: Option<Split>,
    pub policy: Policy,
    /// The processor count the plan was made for.
    pub threads: u32,
    /// Unit of the job costs: `ns` with a cost model, else `states`.
    pub unit: String,
    /// The machine of the cost model.
    pub machine: Option<String>,
    pub mem_limit: Option<u64>,
    /// Whether job costs include writing the job to a store.
    #[serde(default)]
    pub store_writes: bool,
    /// Picoseconds per byte charged for reading back values the memory limit dropped.
    #[serde(default)]
    pub reload_ps_per_byte: u64,
    pub predicted_seconds: f64,
    pub predicted_peak_memory: u64,
    pub predictions: Vec<Prediction>,
    pub candidates: Vec<Candidate>,
    /// Why this candidate.
    pub reason: String,
    pub jobs: Vec<PlanJob>,
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("cannot read plan '{path}': {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("plan '{path}' is not a plan file: {source}")]
    Parse { path: PathBuf, source: serde_json::Error },
    #[error("cannot write plan '{path}': {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error(
        "plan format {found} is not supported: this dab reads format {PLAN_FORMAT}; make the plan again with dab plan"
    )]
    Format { found: u32 },
    #[error("the plan is for {plan}, not {asked}")]
    OtherBoard { plan: String, asked: String },
    #[error("the plan's {0}")]
    Position(String),
    #[error("the plan's grouping: {0}")]
    Space(#[from] crate::solver::SpaceError),
    #[error("the plan's jobs: {0}")]
    Graph(#[from] GraphError),
    #[error("the plan's job '{job}': {message}")]
    Job { job: String, message: String },
    #[error("the plan has no job for rows {first}..{end} of partition {key}")]
    Missing { key: String, first: u64, end: u64 },
    #[error("plan '{path}': {source}")]
    InFile { path: PathBuf, source: Box<PlanError> },
}

impl From<LayoutError> for PlanError {
    fn from(e: LayoutError) -> PlanError {
        match e {
            LayoutError::Job { job, message } => PlanError::Job { job, message },
            LayoutError::Missing { key, first, end } => PlanError::Missing { key, first, end },
        }
    }
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
        let priority = priorities(graph);
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
            mem_limit: None,
            store_writes: false,
            reload_ps_per_byte: 0,
            predicted_seconds: 0.0,
            predicted_peak_memory: 0,
            predictions: Vec::new(),
            candidates: Vec::new(),
            reason: String::new(),
            jobs,
        })
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

    /// Checks everything the executor relies on and builds the space.
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
        Ok(ReadyPlan { space, graph, layout, priority })
    }

    pub fn load(path: &Path) -> Result<Plan, PlanError> {
        let text = std::fs::read_to_string(path).map_err(|source| PlanError::Read { path: path.into(), source })?;
        serde_json::from_str(&text).map_err(|source| PlanError::Parse { path: path.into(), source })
    }

    pub fn save(&self, path: &Path) -> Result<(), PlanError> {
        let text = serde_json::to_string_pretty(self).expect("a plan serialises");
        crate::support::write_atomic(path, text.as_bytes())
            .map_err(|source| PlanError::Write { path: path.into(), source })
    }

    /// The predicted makespan on `procs` processors, if the plan has it.
    pub fn predicted(&self, procs: u32) -> Option<&Prediction> {
        self.predictions.iter().find(|p| p.procs == procs)
    }
}
