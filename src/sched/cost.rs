//! Job costs for graphs: one tick per state (the thesis's measure), or a cost model in
//! nanoseconds read from a file. The model is linear in a job's features; `dab calibrate`
//! fits it on this machine, and this module only loads, checks and applies it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Cost model files this version reads.
pub(super) const MODEL_FORMAT: u32 = 1;

/// Where `dab calibrate` saves the model, relative to the project folder.
pub const BUILT_IN_NAME: &str = "sims/cost-model.json";
const BUILT_IN_MODEL: &str = include_str!("../../sims/cost-model.json");

/// What a job's cost is computed from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobFeatures {
    /// Positions it computes.
    pub states: u64,
    /// Kernel rows (0 where jobs are not laid out in rows).
    pub rows: u64,
    /// Moves it examines in the outer groups (whole rows at a time): undrawn lines outside the
    /// inner group, summed over its positions.
    pub outer_moves: u64,
    /// Moves it examines in the inner group (one position at a time): undrawn lines of the inner
    /// group, summed over its positions.
    pub inner_moves: u64,
    /// Bytes of the job outputs it reads.
    pub input_bytes: u64,
}

/// Number of terms of the cost model.
pub const TERMS: usize = 6;

impl JobFeatures {
    /// The model's terms: 1 (per job), then each feature.
    pub fn terms(&self) -> [f64; TERMS] {
        [
            1.0,
            self.states as f64,
            self.rows as f64,
            self.outer_moves as f64,
            self.inner_moves as f64,
            self.input_bytes as f64,
        ]
    }
}

/// Nanoseconds of a job: a linear combination of its features, plus a per-job constant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    /// Version of the model file's format; a file of another version is refused.
    pub format: u32,
    /// The machine it was measured on (free text: CPU, cores, memory).
    pub machine: String,
    /// Nanoseconds per job, whatever its size.
    #[serde(default)]
    pub per_job_ns: f64,
    /// Nanoseconds per position computed.
    #[serde(default)]
    pub per_state_ns: f64,
    /// Nanoseconds per kernel row.
    #[serde(default)]
    pub per_row_ns: f64,
    /// Nanoseconds per move examined in the outer groups.
    #[serde(default)]
    pub per_outer_move_ns: f64,
    /// Nanoseconds per move examined in the inner group.
    #[serde(default)]
    pub per_inner_move_ns: f64,
    /// Nanoseconds per byte of the job outputs it reads.
    #[serde(default)]
    pub per_input_byte_ns: f64,
    /// (threads, factor): jobs run `factor` times slower while `threads` threads are busy
    /// (shared caches, memory bandwidth, hyperthreads). One thread is 1.
    #[serde(default)]
    pub contention: Vec<(u32, f64)>,
    /// Nanoseconds of writing a job's values to a store, per file (create, flush to disk,
    /// rename). Zero in models made before stores were timed.
    #[serde(default)]
    pub store_per_file_ns: f64,
    /// Nanoseconds of writing a job's values to a store, per byte. Zero in models made before
    /// stores were timed.
    #[serde(default)]
    pub store_per_byte_ns: f64,
    /// Reading a job's values back from a store (checked), per byte.
    #[serde(default)]
    pub store_read_per_byte_ns: f64,
}

/// Why a cost model could not be loaded or saved.
#[derive(Debug, thiserror::Error)]
pub enum CostError {
    /// The model file could not be read.
    #[error("cannot read cost model '{path}': {source}")]
    Read {
        /// The model file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The model file could not be written.
    #[error("cannot write cost model '{path}': {source}")]
    Write {
        /// The model file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not the JSON of a cost model.
    #[error("cost model '{path}' is not a cost model file: {source}")]
    Parse {
        /// The model file.
        path: PathBuf,
        /// What the JSON reader said.
        source: serde_json::Error,
    },
    /// The file is of a format version this dab does not read.
    #[error("cost model '{path}' has format {found}; this dab reads format {MODEL_FORMAT}")]
    Format {
        /// The model file.
        path: PathBuf,
        /// The version the file has.
        found: u32,
    },
    /// A coefficient or a contention factor is negative, infinite or not a number.
    #[error("cost model '{path}': {field} = {value} must be a finite number >= 0")]
    Coefficient {
        /// The model file.
        path: PathBuf,
        /// The coefficient's name (`contention` for a contention factor).
        field: &'static str,
        /// Its value.
        value: f64,
    },
}

impl CostModel {
    /// Reads a model file and checks it: its format version, and every coefficient and
    /// contention factor a finite number >= 0.
    pub fn load(path: &Path) -> Result<CostModel, CostError> {
        let text = std::fs::read_to_string(path).map_err(|source| CostError::Read { path: path.into(), source })?;
        Self::parse(&text, path)
    }

    /// The model committed in `sims/cost-model.json` when this binary was built, for runs
    /// outside the project folder (a model of the machine it was measured on, not this one).
    pub fn built_in() -> CostModel {
        Self::parse(BUILT_IN_MODEL, Path::new(BUILT_IN_NAME)).expect("the committed cost model is valid")
    }

    /// A model from the text of its file (`path` names it in errors).
    fn parse(text: &str, path: &Path) -> Result<CostModel, CostError> {
        let model: CostModel =
            serde_json::from_str(text).map_err(|source| CostError::Parse { path: path.into(), source })?;
        if model.format != MODEL_FORMAT {
            return Err(CostError::Format { path: path.into(), found: model.format });
        }
        let factors = model.contention.iter().map(|&(_, f)| ("contention", f));
        for (field, value) in model.coefficients().into_iter().chain(factors) {
            if !(value.is_finite() && value >= 0.0) {
                return Err(CostError::Coefficient { path: path.into(), field, value });
            }
        }
        Ok(model)
    }

    /// The slowdown of jobs with `threads` threads busy: measured counts as they are, more
    /// threads than measured as the most measured.
    pub fn contention(&self, threads: usize) -> f64 {
        self.contention
            .iter()
            .filter(|&&(t, _)| t as usize <= threads)
            .max_by_key(|&&(t, _)| t)
            .map_or(1.0, |&(_, f)| f)
    }

    /// The coefficients by name, in the order of [`JobFeatures::terms`].
    pub fn coefficients(&self) -> [(&'static str, f64); TERMS] {
        [
            ("per_job_ns", self.per_job_ns),
            ("per_state_ns", self.per_state_ns),
            ("per_row_ns", self.per_row_ns),
            ("per_outer_move_ns", self.per_outer_move_ns),
            ("per_inner_move_ns", self.per_inner_move_ns),
            ("per_input_byte_ns", self.per_input_byte_ns),
        ]
    }

    /// A model with these coefficients (in the order of [`JobFeatures::terms`]).
    pub fn from_coefficients(machine: String, c: [f64; TERMS], contention: Vec<(u32, f64)>) -> CostModel {
        CostModel {
            format: MODEL_FORMAT,
            machine,
            per_job_ns: c[0],
            per_state_ns: c[1],
            per_row_ns: c[2],
            per_outer_move_ns: c[3],
            per_inner_move_ns: c[4],
            per_input_byte_ns: c[5],
            contention,
            store_per_file_ns: 0.0,
            store_per_byte_ns: 0.0,
            store_read_per_byte_ns: 0.0,
        }
    }

    /// Writes the model to `path` as JSON, through a temporary file and a rename.
    pub fn save(&self, path: &Path) -> Result<(), CostError> {
        let text = serde_json::to_string_pretty(self).expect("a model serialises");
        crate::support::write_atomic(path, text.as_bytes())
            .map_err(|source| CostError::Write { path: path.into(), source })
    }

    /// Predicted nanoseconds of writing `bytes` of values to a store, rounded.
    pub fn store_nanoseconds(&self, bytes: u64) -> u64 {
        (self.store_per_file_ns + self.store_per_byte_ns * bytes as f64).round() as u64
    }

    /// Predicted nanoseconds of a job, rounded.
    pub fn nanoseconds(&self, f: JobFeatures) -> u64 {
        let ns: f64 = self.coefficients().iter().zip(f.terms()).map(|((_, c), x)| c * x).sum();
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

    /// The cost of a job with features `f`: its states, or the model's nanoseconds.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_model_is_the_committed_one() {
        let m = CostModel::built_in();
        assert_eq!(
            m,
            CostModel::load(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/sims/cost-model.json"))).unwrap()
        );
        assert!(m.per_row_ns > 0.0 && !m.machine.is_empty());
    }
}
