//! Plans: the plan file and its fingerprint (what a run's trace names it by), the checked (run-ready) plan, the planner's candidate
//! search, the prediction of a plan by simulation (its makespan and its store's disk use), and
//! the estimate of a whole solve too large to plan, and which cost model is used when none is
//! named.
//! Uses `support`, `game`, `solver` and `sched`; never the store or the executor, which take a
//! checked plan from here.

mod estimate;
mod ready;
mod file;
mod fingerprint;
mod model;
mod predict;
mod search;
mod task_store;
mod tasks;

pub use estimate::SolveEstimate;
pub use file::{Candidate, PLAN_FORMAT, Plan, PlanCluster, PlanError, PlanJob, PlanTask, PredictedRange, Prediction};
pub use fingerprint::is_fingerprint;
pub use model::{ModelSource, load_model, model_or_built_in};
pub use predict::{StorePrediction, predict_store, sim_options, simulate, simulate_with};
pub use ready::{ReadsError, ReadyPlan};
pub use search::{
    PlanChoice, PlanOptions, PlannerError, SimulatedCandidate, StoreFallback, THREADS_TIE, ThreadPick, USABLE_MEMORY,
    plan, plan_for, short_seconds, usable_memory,
};
pub use task_store::{DEFAULT_BOOK_LINES, TaskFiles, done_marker};
pub use tasks::{
    ClusterPlan, ClusterRow, ClusterShape, Packing, TASK_TICKS_PER_SECOND, Task, cluster_sweep, pack, plan_for_cluster,
    run_tasks, task_memory_bytes,
};
