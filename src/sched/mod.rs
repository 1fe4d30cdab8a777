//! Scheduling: job graphs and their file formats, the graph schemes (orbits,
//! quadrants, splits), job costs, the cost model and contention between busy threads, memory residency and disk use (one count
//! for the simulator and the executor), and the discrete-event simulator. Uses `support`,
//! `game` and `solver`; knows nothing of plans, stores or the executor. The simulator is
//! deterministic: events ordered by (integer time, sequence number).

mod contention;
mod cost;
mod disk;
mod event;
mod graph;
mod memory;
mod procs;
mod schemes;
mod sim;

pub use contention::Contention;
pub use cost::{
    CostError, CostModel, CostSpec, JobFeatures, MODEL_FORMAT, PerTerm, Probe, Probed, TERMS, Term, model_name,
};
pub use disk::{DiskUse, predicted_peak};
pub use graph::{Format, Graph, GraphError, Job, is_job_name};
pub use memory::{
    Admission, PROGRAM_BYTES, Residency, THREAD_BYTES, alone_bytes, fixed_bytes, least_limit, process_bytes,
    values_limit,
};
pub use procs::{Procs, ProcsError, ProcsList};
pub(crate) use schemes::MAX_JOBS;
pub use schemes::{
    GraphSpec, PieceDeps, QuadrantSymmetry, Scheme, SchemeError, SchemeSetting, Split, orbits, orbits_with_features,
    quadrant_lines, quadrants,
};
pub use sim::{Policy, Run, SimError, SimOptions, Simulator, Span, SweepRow};
