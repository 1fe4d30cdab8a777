//! Calibration (layer 10): times the kernel job by job on this machine (solves of several
//! boards on one thread, then on all threads), fits the cost model's coefficients to the
//! one-thread times, and measures how much slower jobs run when every thread is busy (the
//! contention factor); times store writes and read-backs. The fit minimises the squared
//! relative error weighted by job time, so the jobs that make up the makespan count most;
//! terms whose removal costs less than 2 % of the fit are dropped.
//!
//! May use every layer up to `exec` (it runs real solves); nothing in the library uses it:
//! its output is a cost model file that `sched` reads.

mod fit;
mod machine;
mod measure;
mod run;
mod store_timing;

pub use fit::{ErrorStats, Fit, fit, model};
pub use machine::machine;
pub use measure::{Sample, measure};
pub use run::{Calibration, Case, DEFAULT_CASES, DEFAULT_HOLDOUT, run};
pub use store_timing::{STORE_SIZES, StoreTiming, time_store};
