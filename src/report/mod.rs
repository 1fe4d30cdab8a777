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
