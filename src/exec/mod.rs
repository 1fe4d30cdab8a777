//! Execution: runs a checked plan's jobs on a rayon pool ([`execute_with`]), one job
//! as a cluster task ([`run_job`]), and a whole solve as a plan run ([`solve()`]); writes the
//! trace every comparison reads. May use `support`, `game`, `solver`, `sched` (the memory and
//! disk counts it shares with the simulator), `plan` and `store`; never the reports above it.
//! The kernel's hot loop is reached only through [`crate::solver::Kernel`]: this layer owns
//! scheduling, memory and I/O around it.

mod alone;
mod executor;
mod inputs;
mod job;
mod options;
mod recycle;
mod resume;
mod shared;
mod solve;
mod task;
mod trace;

pub use alone::AloneTimer;
pub use executor::{Execution, TaskRun, execute, execute_task, execute_with};
pub use job::{JobRun, run_job, stored_root};
pub use options::{ExecError, ExecOptions};
pub use solve::{SolveError, solve};
pub use task::{TaskOutcome, run_task};
pub use trace::{TraceError, TraceInfo, TraceRow, read_trace, read_trace_for, read_trace_with, write_trace};
