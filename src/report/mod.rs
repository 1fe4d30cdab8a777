//! Reports: predicted against actual (`dab compare`), simulation sweeps with their
//! CSV and charts (`dab sim`), the charts of plans and runs, and measured against predicted
//! speedup (`dab scale`). Uses every layer up to `exec` (for the trace); nothing below uses it.
//! Charts are written through temporary files, like every output.

pub mod chart;
mod compare;
mod run;
mod scale;
pub mod sweep;

pub use compare::{CompareError, CompareJson, Comparison, Detail, compare, compare_tasks, compare_with};
pub use run::{MeasuredRun, WriteError, measured_run, write_cluster_sweep, write_compare, write_plan, write_speedup};
pub use scale::{OneThread, ScaleRow, ScaleWriteError, write_scale};

/// A trace of `plan` run one job after another on one thread, a second each (the tests'
/// stand-in run).
#[cfg(test)]
fn serial_trace(plan: &crate::plan::Plan) -> Vec<crate::exec::TraceRow> {
    (plan.jobs.iter().enumerate())
        .map(|(i, j)| crate::exec::TraceRow {
            job: j.name.clone(),
            thread: 0,
            start: i as f64,
            end: i as f64 + 1.0,
            positions: 1,
        })
        .collect()
}
