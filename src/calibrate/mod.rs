//! Calibration: times the kernel job by job on this machine (solves of several
//! boards on one thread, then on all threads), fits the cost model's coefficients to the
//! one-thread times (with a fixed cost for tiny jobs), measures how much slower jobs run with
//! 1, 2, 4, ... and all threads busy (the contention curve: its shape from copies of a solve
//! run at once, its level from the all-threads solves' own jobs), times store writes and
//! read-backs, and probes the machine: a short fixed workload whose time, stored in the model,
//! later carries it to whatever machine plans with it. The fit minimises the squared
//! relative error weighted by job time, so the jobs that make up the makespan count most;
//! terms whose removal costs less than 2 % of the fit are dropped. It also measures the
//! memory bandwidth (STREAM copy and triad), the roof a solve's bytes per second are set
//! against by `dab bench`.
//!
//! May use every layer up to `exec` (it runs real solves); nothing in the library uses it:
//! its output is a cost model file that `sched` reads.

mod bandwidth;
mod fit;
mod in_solve;
mod load;
mod machine;
mod measure;
mod probe;
mod run;
mod store_timing;

pub use bandwidth::{Bandwidth, BandwidthError, DEFAULT_REPEATS, bandwidth, default_array_bytes};
pub use fit::{ErrorStats, Fit, fit};
pub use load::{BUSY_SHARE, MachineLoad, load_average};
pub use machine::{host, machine, physical_cores};
pub use measure::{Sample, Timing, measure};
pub use probe::{
    PROBE_AGREE, PROBE_BOARD, PROBE_MAX_READINGS, PaceSpread, SteadyProbe, contention_curve, curve, describe,
    keeps_model_pace, predicted_range, probe, probe_model, probe_model_steady, probe_workload, steady_probe,
};
pub use run::{
    BetweenJobs, CURVE_BOARD, Calibration, Case, CaseTime, DEFAULT_CASES, DEFAULT_HOLDOUT, Stage, describe_curve, run,
};
pub use store_timing::{STORE_SIZES, StoreTiming, time_store};
