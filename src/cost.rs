//! Job costs for graphs: one tick per state (the thesis's measure), or a cost model in
//! nanoseconds read from a file. The model is linear in a job's features; `dab calibrate`
//! fits it on this machine, and this module only loads, checks and applies it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Cost model files this version reads.
pub const MODEL_FORMAT: u32 = 1;

/// What a job's cost is computed from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobFeatures {
    /// Positions it computes.
    pub states: u64,
    /// Moves it examines: undrawn lines summed over its positions.
    pub moves: u64,
    /// Bytes of the job outputs it reads.
    pub input_bytes: u64,
}

/// Nanoseconds of a job: `per_job + per_state * states + per_move * moves + per_input_byte *
/// input_bytes`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    pub format: u32,
    /// The machine it was measured on (free text: CPU, cores, memory).
    pub machine: String,
    #[serde(default)]
    pub per_job_ns: f64,
    #[serde(default)]
    pub per_state_ns: f64,
    #[serde(default)]
    pub per_move_ns: f64,
    #[serde(default)]
    pub per_input_byte_ns: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum CostError {
    #[error("cannot read cost model '{path}': {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cost model '{path}' is not a cost model file: {source}")]
    Parse { path: PathBuf, source: serde_json::Error },
    #[error("cost model '{path}' has format {found}; this dab reads format {MODEL_FORMAT}")]
    Format { path: PathBuf, found: u32 },
    #[error("cost model '{path}': {field} = {value} must be a finite number >= 0")]
    Coefficient { path: PathBuf, field: &'static str, value: f64 },
}

impl CostModel {
    pub fn load(path: &Path) -> Result<CostModel, CostError> {
        let text = std::fs::read_to_string(path).map_err(|source| CostError::Read { path: path.into(), source })?;
        let model: CostModel =
            serde_json::from_str(&text).map_err(|source| CostError::Parse { path: path.into(), source })?;
        if model.format != MODEL_FORMAT {
            return Err(CostError::Format { path: path.into(), found: model.format });
        }
        for (field, value) in model.coefficients() {
            if !(value.is_finite() && value >= 0.0) {
                return Err(CostError::Coefficient { path: path.into(), field, value });
            }
        }
        Ok(model)
    }

    fn coefficients(&self) -> [(&'static str, f64); 4] {
        [
            ("per_job_ns", self.per_job_ns),
            ("per_state_ns", self.per_state_ns),
            ("per_move_ns", self.per_move_ns),
            ("per_input_byte_ns", self.per_input_byte_ns),
        ]
    }

    /// Predicted nanoseconds of a job, rounded.
    pub fn nanoseconds(&self, f: JobFeatures) -> u64 {
        let ns = self.per_job_ns
            + self.per_state_ns * f.states as f64
            + self.per_move_ns * f.moves as f64
            + self.per_input_byte_ns * f.input_bytes as f64;
        ns.round() as u64
    }
}

/// How graph builders cost a job.
#[derive(Clone, Debug, PartialEq)]
pub enum CostSpec {
    /// One tick per state.
    States,
    /// Nanoseconds from a model.
    Model(CostModel),
}

impl CostSpec {
    /// `states`, or the path of a cost model file.
    pub fn parse(arg: &str) -> Result<CostSpec, CostError> {
        if arg == "states" { Ok(CostSpec::States) } else { CostModel::load(Path::new(arg)).map(CostSpec::Model) }
    }

    pub fn cost(&self, f: JobFeatures) -> u64 {
        match self {
            CostSpec::States => f.states,
            CostSpec::Model(m) => m.nanoseconds(f),
        }
    }

    /// The unit of the costs, for charts and reports.
    pub fn unit(&self) -> &'static str {
        match self {
            CostSpec::States => "states",
            CostSpec::Model(_) => "ns",
        }
    }
}
