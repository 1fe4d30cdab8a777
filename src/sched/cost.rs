//! Job costs for graphs: one tick per state (the thesis's measure), or a cost model in
//! nanoseconds read from a file. The model is linear in a job's features, with a contention
//! curve for busy threads and the time of a fixed probe workload; `dab calibrate` fits it on
//! one machine, and this module loads, checks and applies it, and carries it to another
//! machine by the ratio of that machine's probe time to the stored one.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::contention::Contention;
use super::event::ticks;
use super::sim::SimOptions;
use crate::solver::Simd;

/// The version of the model file this dab reads: it changes whenever the terms or the fields
/// do, since a model fitted without a term cannot price it (the versions and why each came are
/// in `docs/notes/cost-model-history.md`).
pub const MODEL_FORMAT: u32 = 8;

/// Most bytes of a cost model file: a model is a few dozen numbers, about a kilobyte.
const MAX_MODEL_BYTES: u64 = 1 << 20;
/// Why no cost model needs more than [`MAX_MODEL_BYTES`].
const MODEL_BOUND: &str = "a cost model is a few dozen numbers, about a kilobyte";

/// The committed models, (file relative to the project folder, its text when this binary was
/// built), of the kernel without byte gathers and with them (AVX-512 VBMI): indexed by
/// [`Simd::gathers`], through [`built_in_file`].
const BUILT_INS: [(&str, &str); 2] = [
    ("sims/cost-model.json", include_str!("../../sims/cost-model.json")),
    ("sims/cost-model-vbmi.json", include_str!("../../sims/cost-model-vbmi.json")),
];

/// The committed model of the kernel that uses `simd`: its file and its text.
fn built_in_file(simd: Simd) -> (&'static str, &'static str) {
    BUILT_INS[simd.gathers() as usize]
}

/// The model file, relative to the project folder, of the kernel that uses `simd` (where `dab
/// calibrate` saves it): a model fitted with byte gathers cannot price a kernel without them
/// (their moves are other terms), so each kind has its own file, and its own model built into
/// dab.
pub fn model_name(simd: Simd) -> &'static str {
    built_in_file(simd).0
}

/// Declares a job's features once: [`JobFeatures`], its fields' names
/// ([`JobFeatures::NAMES`], the columns of a calibration's samples) and their values in that
/// order ([`JobFeatures::values`]), so a new feature is one line here and one term in
/// `terms!` below.
macro_rules! features {
    ($($(#[doc = $doc:literal])* $field:ident,)*) => {
        /// What a job's cost is computed from.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct JobFeatures {
            $($(#[doc = $doc])* pub $field: u64,)*
        }

        impl JobFeatures {
            /// The features' names, in declaration order.
            pub const NAMES: [&'static str; [$(stringify!($field)),*].len()] = [$(stringify!($field)),*];

            /// The features' values, in the order of [`JobFeatures::NAMES`].
            pub fn values(&self) -> [u64; JobFeatures::NAMES.len()] {
                [$(self.$field),*]
            }
        }
    };
}

features! {
    /// Positions it computes.
    states,
    /// Kernel rows (0 where jobs are not laid out in rows).
    rows,
    /// Moves it examines in the outer groups (whole rows at a time): undrawn lines outside the
    /// inner group, summed over its positions.
    outer_moves,
    /// Lanes of the inner group's byte gathers (on a CPU with AVX-512 VBMI): 64 a step, each
    /// step counted once per 256-slot block of the successor row it reads (two permutes
    /// each).
    inner_moves,
    /// Inner moves it makes in runs: contiguous passes where consecutive configurations move
    /// to consecutive successors (the other rows).
    run_inner_moves,
    /// Inner moves it makes one lane at a time: those left out of runs, and where the inner
    /// group is too wide for the row path, the undrawn inner lines the scalar path examines.
    lane_inner_moves,
    /// Bytes of the job outputs it reads.
    input_bytes,
    /// Passes over a row for outer moves: every undrawn outer line of every row (each a
    /// successor row found and relaxed into the row, whatever the row's length).
    outer_passes,
    /// Passes over a row for inner moves: every inner line of every row whose inner group is
    /// not full, on the row path (the scalar path makes none).
    inner_passes,
    /// Outer moves gathered lane by lane from a successor row turned by a symmetry (a move in
    /// group 0 to a configuration stored as its image, in rows too wide for byte gathers),
    /// summed over its positions.
    turned_moves,
    /// Of its input bytes, those read back from memory rather than from the cache: each input
    /// partition's bytes times the share of its level (the positions of its number of drawn
    /// lines) that the last-level cache cannot hold, `1 - cache / level bytes` (0 where the
    /// level fits). A level is written just before the level below reads it, so the cache holds
    /// at most its last `cache` bytes.
    cold_input_bytes,
}

/// Declares the cost model's terms in one list, each with its coefficient's name (its field in
/// the model file) and its value for a job's features: [`Term`], [`TERMS`], [`Term::ALL`],
/// [`Term::name`] and [`Term::of`] all come from it, so a new term is one line here (and its
/// feature in `features!`, which the calibration's samples take their columns from).
macro_rules! terms {
    ($($(#[doc = $doc:literal])* $term:ident $name:literal |$f:ident| $value:expr;)*) => {
        /// A term of the cost model: a job's cost is the sum over the terms of the term's
        /// coefficient times its value for the job.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Term {
            $($(#[doc = $doc])* $term,)*
        }

        /// Number of terms of the cost model.
        pub const TERMS: usize = Term::NAMES.len();

        impl Term {
            /// Every term, in the order of the model file and of [`PerTerm`].
            pub const ALL: [Term; TERMS] = [$(Term::$term),*];

            /// The coefficients' names, in the order of [`Term::ALL`]: the model file's fields.
            pub const NAMES: [&'static str; [$($name),*].len()] = [$($name),*];

            /// The coefficient's name: its field in the model file (`per_state_ns`, ...).
            pub const fn name(self) -> &'static str {
                Term::NAMES[self as usize]
            }

            /// The term's value for a job with these features.
            pub fn of(self, features: &JobFeatures) -> f64 {
                match self {
                    $(Term::$term => {
                        let $f = features;
                        $value
                    })*
                }
            }
        }
    };
}

terms! {
    /// 1 for every job: its fixed cost.
    Job "per_job_ns" |_f| 1.0;
    /// Positions computed.
    State "per_state_ns" |f| f.states as f64;
    /// Kernel rows.
    Row "per_row_ns" |f| f.rows as f64;
    /// Moves examined in the outer groups.
    OuterMove "per_outer_move_ns" |f| f.outer_moves as f64;
    /// Lanes of the inner moves' byte gathers, once per block read.
    InnerMove "per_inner_move_ns" |f| f.inner_moves as f64;
    /// Inner moves made in runs.
    RunInnerMove "per_run_inner_move_ns" |f| f.run_inner_moves as f64;
    /// Inner moves made one lane at a time.
    LaneInnerMove "per_lane_inner_move_ns" |f| f.lane_inner_moves as f64;
    /// Bytes of the job outputs read.
    InputByte "per_input_byte_ns" |f| f.input_bytes as f64;
    /// Passes over a row for an outer move, beyond its moves.
    OuterPass "per_outer_pass_ns" |f| f.outer_passes as f64;
    /// Passes over a row for an inner line, beyond its moves.
    InnerPass "per_inner_pass_ns" |f| f.inner_passes as f64;
    /// Outer moves gathered lane by lane from a turned successor row.
    TurnedMove "per_turned_move_ns" |f| f.turned_moves as f64;
    /// Input bytes read back from memory, beyond their cost from the cache.
    ColdInputByte "per_cold_input_byte_ns" |f| f.cold_input_bytes as f64;
}

/// One number per term, indexed by [`Term`]: a model's coefficients (nanoseconds per unit of
/// each term), or a job's terms. In a model file each is a field named by [`Term::name`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PerTerm(pub [f64; TERMS]);

impl PerTerm {
    /// Each term with its number, in the order of [`Term::ALL`].
    pub fn iter(&self) -> impl Iterator<Item = (Term, f64)> + '_ {
        Term::ALL.into_iter().zip(self.0)
    }

    /// Each term's name with its number, in the order of [`Term::ALL`].
    pub fn named(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        self.iter().map(|(t, x)| (t.name(), x))
    }

    /// The sum of the products term by term, in the order of [`Term::ALL`]: a job's
    /// nanoseconds from the coefficients and its terms.
    pub fn dot(&self, other: &PerTerm) -> f64 {
        self.0.iter().zip(&other.0).map(|(c, x)| c * x).sum()
    }
}

impl std::ops::Index<Term> for PerTerm {
    type Output = f64;
    fn index(&self, t: Term) -> &f64 {
        &self.0[t as usize]
    }
}

impl std::ops::IndexMut<Term> for PerTerm {
    fn index_mut(&mut self, t: Term) -> &mut f64 {
        &mut self.0[t as usize]
    }
}

impl Serialize for PerTerm {
    /// A field per term, named by [`Term::name`] (flattened into the model file).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(TERMS))?;
        for (name, x) in self.named() {
            map.serialize_entry(name, &x)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for PerTerm {
    /// Every term's field, each a number; a missing one is named.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PerTerm, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = PerTerm;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the cost model's coefficients")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<PerTerm, A::Error> {
                let mut found: [Option<f64>; TERMS] = [None; TERMS];
                while let Some(key) = map.next_key::<String>()? {
                    match Term::ALL.into_iter().find(|t| t.name() == key) {
                        Some(t) if found[t as usize].is_some() => {
                            return Err(serde::de::Error::duplicate_field(t.name()));
                        }
                        Some(t) => found[t as usize] = Some(map.next_value()?),
                        None => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                let mut c = PerTerm::default();
                for t in Term::ALL {
                    c[t] = found[t as usize].ok_or_else(|| serde::de::Error::missing_field(t.name()))?;
                }
                Ok(c)
            }
        }
        d.deserialize_struct("PerTerm", &Term::NAMES, Fields)
    }
}

impl JobFeatures {
    /// The model's terms for this job: 1 (per job), then each feature.
    pub fn terms(&self) -> PerTerm {
        PerTerm(Term::ALL.map(|t| t.of(self)))
    }
}

/// A short fixed workload timed on a machine, alone and with every hardware thread running a
/// copy at once: how fast the machine is, and how much its threads slow each other.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// What was timed (a board solved whole on one thread); probes of different workloads
    /// cannot be compared.
    pub workload: String,
    /// Threads that ran a copy each at once in the all-threads timing.
    pub threads: u32,
    /// Median seconds of the workload alone.
    pub one_thread_seconds: f64,
    /// Median seconds of one copy with `threads` copies running at once.
    pub all_threads_seconds: f64,
}

impl Probe {
    /// How many times slower a copy ran with every thread busy than alone.
    pub fn contention(&self) -> f64 {
        self.all_threads_seconds / self.one_thread_seconds
    }
}

/// Nanoseconds of a job: a linear combination of its features, plus a per-job constant,
/// slowed by the contention of the threads busy beside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    /// Version of the model file's format; a file of another version is refused.
    pub format: u32,
    /// The machine it was measured on (free text: CPU, cores, memory).
    pub machine: String,
    /// The host name of that machine: machines of one kind differ, so a model is only this
    /// machine's on the host that made it.
    pub host: String,
    /// Physical cores of that machine.
    pub cores: u32,
    /// Hardware threads of that machine (cores times threads per core).
    pub hardware_threads: u32,
    /// Seconds `dab calibrate` took to make the model there.
    pub calibrate_seconds: f64,
    /// The vector instructions the kernel used there: the model prices that kernel's moves
    /// (with byte gathers or without), wherever it is carried.
    pub simd: Simd,
    /// Nanoseconds per unit of each term ([`Term`]); in the file, a field per term
    /// (`per_job_ns`, `per_state_ns`, ...).
    #[serde(flatten)]
    pub coefficients: PerTerm,
    /// Bytes of the last-level cache that the model's cold input bytes assume: the machine's
    /// that made it, or this machine's once a probe carried it here.
    pub cache_bytes: u64,
    /// (busy threads, factor): a job runs `factor` times slower than its cost while that many
    /// threads are busy (itself included); measured at 1, 2, 4, ... and all hardware threads.
    pub contention: Contention,
    /// Nanoseconds of writing a job's values to a store, per file (create, flush to disk,
    /// rename): the mean, since a run's time sums them.
    pub store_per_file_ns: f64,
    /// Nanoseconds of writing a job's values to a store, per byte.
    pub store_per_byte_ns: f64,
    /// Reading a job's values back from a store (checked), per byte.
    pub store_read_per_byte_ns: f64,
    /// Nanoseconds a worker spends after each job before the next (the executor's
    /// bookkeeping), outside every job's span.
    pub between_jobs_ns: f64,
    /// Nanoseconds per byte of giving a job's output back to the system once its last reader
    /// has finished, outside every job's span.
    pub release_per_byte_ns: f64,
    /// The probe workload timed when the model was made.
    pub probe: Probe,
}

/// A model carried to this machine by a fresh probe, and what that did.
#[derive(Clone, Debug, PartialEq)]
pub struct Probed {
    /// The model with its coefficients scaled and its contention carried to this machine.
    pub model: CostModel,
    /// Job costs were multiplied by this: this machine's one-thread probe time over the
    /// model's (2: this machine is half as fast).
    pub scale: f64,
    /// The curve's contention with every thread busy here, after the probe's correction.
    pub contention: f64,
    /// The model was made on this host (with this CPU and core count).
    pub same_machine: bool,
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
    /// The file's text is not JSON at all (refused at its first byte, or as no text).
    #[error("cost model '{path}' is not a cost model file: {source}")]
    NotJson {
        /// The model file.
        path: PathBuf,
        /// What the reader found.
        source: std::io::Error,
    },
    /// The file is not the JSON of a cost model.
    #[error("cost model '{path}' is not a cost model file: {}", crate::support::one_line(&source.to_string()))]
    Parse {
        /// The model file.
        path: PathBuf,
        /// What the JSON reader said.
        source: serde_json::Error,
    },
    /// The file is of a format version this dab does not read.
    #[error(
        "cost model '{path}' has format {found}; this dab reads format {MODEL_FORMAT}: run dab calibrate to make one"
    )]
    Format {
        /// The model file.
        path: PathBuf,
        /// The version the file has.
        found: u32,
    },
    /// The probe's times or thread counts are not positive numbers.
    #[error(
        "cost model '{path}': {field} = {value} must be a finite number > 0 (run dab calibrate to make the model again)"
    )]
    Probe {
        /// The model file.
        path: PathBuf,
        /// The field's name.
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// A coefficient or a store time is negative, infinite or not a number.
    #[error("cost model '{path}': {field} = {value} must be a finite number >= 0")]
    Coefficient {
        /// The model file.
        path: PathBuf,
        /// The coefficient's name.
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// Every coefficient is 0: every job would cost nothing.
    #[error(
        "cost model '{path}': every coefficient (per_job_ns, per_state_ns, ...) is 0, so every job would cost 0 ns (run dab calibrate to make the model again)"
    )]
    NoCost {
        /// The model file.
        path: PathBuf,
    },
    /// A count (cores, hardware threads, the probe's threads, the cache's bytes) is 0.
    #[error("cost model '{path}': {field} = 0 must be at least 1")]
    Count {
        /// The model file.
        path: PathBuf,
        /// The field's name.
        field: &'static str,
    },
    /// A point of the contention curve is at 0 threads, or its factor is not a finite number > 0.
    #[error(
        "cost model '{path}': the contention point ({threads} threads, factor {factor}) must have at least 1 thread and a finite factor > 0"
    )]
    Contention {
        /// The model file.
        path: PathBuf,
        /// The point's thread count.
        threads: u32,
        /// Its factor.
        factor: f64,
    },
}

impl CostModel {
    /// Reads a model file and checks it: its format version, every field present (none has a
    /// default), every coefficient and store time a finite number >= 0 and not every
    /// coefficient 0, every contention factor a finite number > 0 at 1 thread or more, the
    /// probe's times finite and > 0, and every count at least 1.
    pub fn load(path: &Path) -> Result<CostModel, CostError> {
        let text =
            crate::support::read_json_at_most(path, MAX_MODEL_BYTES, MODEL_BOUND).map_err(|source| {
                match source.kind() {
                    std::io::ErrorKind::InvalidData => CostError::NotJson { path: path.into(), source },
                    _ => CostError::Read { path: path.into(), source },
                }
            })?;
        Self::parse(&text, path)
    }

    /// The model built into dab for the kernel this process runs ([`Simd::current`]), for runs
    /// outside the project folder (a model of the machine it was measured on, not this one).
    pub fn built_in() -> CostModel {
        Self::built_in_for(Simd::current())
    }

    /// The model committed at [`model_name`]`(simd)` when this binary was built.
    pub fn built_in_for(simd: Simd) -> CostModel {
        let (name, text) = built_in_file(simd);
        Self::parse(text, Path::new(name)).expect("the committed cost model is valid")
    }

    /// A model from the text of its file (`path` names it in errors).
    fn parse(text: &str, path: &Path) -> Result<CostModel, CostError> {
        let parse = |source| CostError::Parse { path: path.into(), source };
        let value: serde_json::Value = serde_json::from_str(text).map_err(parse)?;
        // The version first: an older model lacks fields, and the fix is a new one, not them.
        if let Some(found) = value.get("format").and_then(|f| f.as_u64()).filter(|&f| f != MODEL_FORMAT as u64) {
            return Err(CostError::Format { path: path.into(), found: u32::try_from(found).unwrap_or(u32::MAX) });
        }
        // From the text again rather than the value: serde_json then names the line and column.
        let model: CostModel = serde_json::from_str(text).map_err(parse)?;
        for &(threads, factor) in &model.contention.0 {
            if threads == 0 || !(factor.is_finite() && factor > 0.0) {
                return Err(CostError::Contention { path: path.into(), threads, factor });
            }
        }
        let others = [
            ("store_per_file_ns", model.store_per_file_ns),
            ("store_per_byte_ns", model.store_per_byte_ns),
            ("store_read_per_byte_ns", model.store_read_per_byte_ns),
            ("between_jobs_ns", model.between_jobs_ns),
            ("release_per_byte_ns", model.release_per_byte_ns),
            ("calibrate_seconds", model.calibrate_seconds),
        ];
        for (field, value) in model.coefficients.named().chain(others) {
            if !(value.is_finite() && value >= 0.0) {
                return Err(CostError::Coefficient { path: path.into(), field, value });
            }
        }
        if model.coefficients.0.iter().all(|&c| c == 0.0) {
            return Err(CostError::NoCost { path: path.into() });
        }
        for (field, value) in [
            ("probe.one_thread_seconds", model.probe.one_thread_seconds),
            ("probe.all_threads_seconds", model.probe.all_threads_seconds),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(CostError::Probe { path: path.into(), field, value });
            }
        }
        if model.cache_bytes == 0 {
            return Err(CostError::Count { path: path.into(), field: "cache_bytes" });
        }
        for (field, count) in [
            ("cores", model.cores),
            ("hardware_threads", model.hardware_threads),
            ("probe.threads", model.probe.threads),
        ] {
            if count == 0 {
                return Err(CostError::Count { path: path.into(), field });
            }
        }
        Ok(model)
    }

    /// The slowdown of jobs with `threads` threads busy.
    pub fn contention(&self, threads: usize) -> f64 {
        self.contention.factor(threads)
    }

    /// This model carried to a machine whose probe of the same workload took `now`: every job
    /// cost scaled by the one-thread ratio. The contention curve is kept on the machine that
    /// made the model (`same_machine`, as the caller found it); elsewhere it is corrected at the
    /// probe's thread count by the change in the probe's own contention, or carried to the
    /// probe's factor at another thread count. A probe of another workload, or with times not
    /// finite and > 0, or with no threads, changes nothing (scale 1). Why each rule:
    /// docs/notes/cost-model-history.md ("Carrying a model").
    pub fn probed(&self, now: &Probe, same_machine: bool) -> Probed {
        let sound = |t: f64| t.is_finite() && t > 0.0;
        let usable = now.threads > 0 && sound(now.one_thread_seconds) && sound(now.all_threads_seconds);
        if now.workload != self.probe.workload || !usable {
            let contention = self.contention(now.threads as usize);
            return Probed { model: self.clone(), scale: 1.0, contention, same_machine };
        }
        let scale = now.one_thread_seconds / self.probe.one_thread_seconds;
        let mut model = self.clone();
        for c in &mut model.coefficients.0 {
            *c *= scale;
        }
        model.calibrate_seconds *= scale;
        model.between_jobs_ns *= scale;
        model.release_per_byte_ns *= scale;
        let threads = now.threads as usize;
        // At the model's own thread count the probe corrects the curve by its own change; at
        // another count there is nothing of the model's probe to compare with, and the probe's
        // factor is the best word on this machine's.
        let target = if same_machine && now.threads == self.probe.threads {
            self.contention(threads)
        } else if now.threads == self.probe.threads {
            self.contention(threads) * now.contention() / self.probe.contention()
        } else {
            now.contention()
        };
        model.contention = self.contention.carried_to(threads, target);
        model.hardware_threads = now.threads;
        model.cores = model.cores.min(now.threads);
        model.probe = now.clone();
        Probed { model, scale, contention: target.max(1.0), same_machine }
    }

    /// Writes the model to `path` as JSON, through a temporary file and a rename.
    pub fn save(&self, path: &Path) -> Result<(), CostError> {
        let text = serde_json::to_string_pretty(self).expect("a model serialises");
        crate::support::write_atomic(path, text.as_bytes())
            .map_err(|source| CostError::Write { path: path.into(), source })
    }

    /// The simulator's options for the worker's time between jobs under this model, in ns
    /// ticks (the rest default): its time after every job and its giving back of outputs.
    pub fn between_jobs(&self) -> SimOptions {
        SimOptions {
            between_jobs: self.between_jobs_ns.round() as u64,
            release_ps_per_byte: (self.release_per_byte_ns * 1000.0).round() as u64,
            ..SimOptions::default()
        }
    }

    /// Predicted nanoseconds of writing `bytes` of values to a store, rounded; `u64::MAX` where
    /// it would be more (a model with absurd store times: the simulator then refuses the sum).
    pub fn store_nanoseconds(&self, bytes: u64) -> u64 {
        ticks(self.store_per_file_ns + self.store_per_byte_ns * bytes as f64).unwrap_or(u64::MAX)
    }

    /// Predicted nanoseconds of a job, rounded; `u64::MAX` where it would be more (see
    /// [`CostModel::checked_nanoseconds`] to tell).
    pub fn nanoseconds(&self, f: JobFeatures) -> u64 {
        self.checked_nanoseconds(f).unwrap_or(u64::MAX)
    }

    /// Predicted nanoseconds of a job, rounded, or None where they exceed `u64::MAX` (or are
    /// not a number, which a checked model never gives).
    pub fn checked_nanoseconds(&self, f: JobFeatures) -> Option<u64> {
        ticks(self.raw_nanoseconds(f))
    }

    /// Predicted nanoseconds of a job, unrounded.
    pub(crate) fn raw_nanoseconds(&self, f: JobFeatures) -> f64 {
        self.coefficients.dot(&f.terms())
    }
}

/// How graph builders cost a job.
#[derive(Clone, Debug, PartialEq)]
pub enum CostSpec {
    /// One tick per state.
    States,
    /// Nanoseconds from a model.
    Model(Box<CostModel>),
}

impl CostSpec {
    /// `states`, or the path of a cost model file.
    pub fn parse(arg: &str) -> Result<CostSpec, CostError> {
        if arg == "states" {
            Ok(CostSpec::States)
        } else {
            CostModel::load(Path::new(arg)).map(|m| CostSpec::Model(Box::new(m)))
        }
    }

    /// The cost of a job with features `f`: its states, or the model's nanoseconds; Err with
    /// the model's unrounded nanoseconds where they exceed `u64::MAX`.
    pub fn cost(&self, f: JobFeatures) -> Result<u64, f64> {
        match self {
            CostSpec::States => Ok(f.states),
            CostSpec::Model(m) => m.checked_nanoseconds(f).ok_or_else(|| m.raw_nanoseconds(f)),
        }
    }

    /// The vector instructions of the kernel whose moves the costs count: the model's, or
    /// (costs in states, whose features calibration times here) this process's.
    pub fn simd(&self) -> Simd {
        match self {
            CostSpec::States => Simd::current(),
            CostSpec::Model(m) => m.simd,
        }
    }

    /// The last-level cache the jobs' cold input bytes are counted against: the model's, or
    /// (costs in states, whose features calibration times on this machine) this machine's.
    pub fn cache_bytes(&self) -> u64 {
        match self {
            CostSpec::States => crate::support::last_level_cache_bytes(),
            CostSpec::Model(m) => m.cache_bytes,
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
    fn each_built_in_model_is_the_committed_one_of_its_kernel() {
        for simd in Simd::ALL {
            let m = CostModel::built_in_for(simd);
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(model_name(simd));
            assert_eq!(m, CostModel::load(&path).unwrap(), "{simd}");
            // Fitted on the kernel it is named for (with byte gathers or without).
            assert_eq!(m.simd.gathers(), simd.gathers(), "{simd}: {}", m.simd);
            // A fitted model: it prices the work of a job (which terms the fit keeps varies).
            let work = m.coefficients.iter().filter(|&(t, c)| t != Term::Job && c > 0.0).count();
            assert!(work >= 2 && !m.machine.is_empty(), "{simd}: {:?}", m.coefficients);
        }
        assert_eq!(CostModel::built_in(), CostModel::built_in_for(Simd::current()));
        assert_ne!(model_name(Simd::Vbmi), model_name(Simd::Avx2));
        assert_eq!(model_name(Simd::Portable), model_name(Simd::Avx2));
    }

    #[test]
    fn the_model_file_round_trips_through_the_terms_field_for_field() {
        for simd in [Simd::Avx2, Simd::Vbmi] {
            let text = built_in_file(simd).1;
            let file: serde_json::Value = serde_json::from_str(text).unwrap();
            let m = CostModel::built_in_for(simd);
            // Each term reads its own field, and the model writes back the same fields in the
            // same order.
            for t in Term::ALL {
                assert_eq!(file[t.name()].as_f64(), Some(m.coefficients[t]), "{}", t.name());
            }
            let written = serde_json::to_string_pretty(&m).unwrap();
            let order = |text: &str| {
                let v: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).unwrap();
                v.keys().cloned().collect::<Vec<_>>()
            };
            assert_eq!(serde_json::from_str::<serde_json::Value>(&written).unwrap(), file);
            assert_eq!(order(&written), order(text));
        }
        let names: std::collections::HashSet<&str> = Term::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(names.len(), TERMS, "every term has a name of its own");
    }

    #[test]
    fn each_feature_is_the_value_of_its_own_term() {
        let f = JobFeatures {
            states: 2,
            rows: 3,
            outer_moves: 5,
            inner_moves: 7,
            run_inner_moves: 11,
            lane_inner_moves: 13,
            input_bytes: 17,
            outer_passes: 19,
            inner_passes: 23,
            turned_moves: 29,
            cold_input_bytes: 31,
        };
        let want = [1.0, 2.0, 3.0, 5.0, 7.0, 11.0, 13.0, 17.0, 19.0, 23.0, 29.0, 31.0];
        assert_eq!(f.terms().0, want);
        assert_eq!(f.terms()[Term::TurnedMove], 29.0);
        // A model of one coefficient prices one feature.
        let mut m = CostModel::built_in();
        m.coefficients = PerTerm::default();
        m.coefficients[Term::InnerPass] = 2.0;
        assert_eq!(m.nanoseconds(f), 46);
    }

    #[test]
    fn a_probe_whose_threads_slow_each_other_more_raises_another_machine_s_curve_as_much() {
        let m = CostModel::built_in();
        let n = m.probe.threads as usize;
        let here = Probe {
            all_threads_seconds: m.probe.one_thread_seconds * m.probe.contention() * 1.5,
            one_thread_seconds: m.probe.one_thread_seconds,
            ..m.probe.clone()
        };
        // On the machine that made the model the curve stays as calibrated.
        let p = m.probed(&here, true);
        assert!((p.scale - 1.0).abs() < 1e-12);
        assert_eq!(p.model.contention, m.contention);
        // On another machine of the same thread count it follows the probe.
        let p = m.probed(&here, false);
        assert!((p.scale - 1.0).abs() < 1e-12);
        assert_eq!(p.model.contention(1), 1.0);
        if n > 1 {
            let want = m.contention(n) * 1.5;
            assert!((p.model.contention(n) - want).abs() < 1e-9 && (p.contention - want).abs() < 1e-9, "{p:?}");
        }
        assert_eq!(p.model.coefficients[Term::Row], m.coefficients[Term::Row]);
        // A machine with another thread count: the curve lands on the probe's own factor there.
        let wide = Probe { threads: 16, all_threads_seconds: m.probe.one_thread_seconds * 1.6, ..m.probe.clone() };
        let p = m.probed(&wide, false);
        assert!((p.model.contention(16) - 1.6).abs() < 1e-9 && p.model.hardware_threads == 16, "{p:?}");
        assert_eq!(p.model.contention(1), 1.0);
        assert!(p.model.contention(4) > 1.0 && p.model.contention(4) < 1.6);
    }

    #[test]
    fn a_cost_past_u64_is_none_and_saturates_rather_than_wraps() {
        let mut m = CostModel::built_in();
        m.coefficients = PerTerm::default();
        m.coefficients[Term::State] = 1e10;
        let f = |states| JobFeatures { states, ..Default::default() };
        assert_eq!(m.checked_nanoseconds(f(1_000)), Some(10_000_000_000_000));
        // 1e10 ns a state times 1e10 states is past 2^64 (1.8e19).
        assert_eq!(m.checked_nanoseconds(f(10_000_000_000)), None);
        assert_eq!(m.nanoseconds(f(10_000_000_000)), u64::MAX);
        assert_eq!(CostSpec::Model(Box::new(m.clone())).cost(f(10_000_000_000)), Err(1e20));
        assert_eq!(ticks(18_446_744_073_709_549_568.0), Some(18_446_744_073_709_549_568));
        assert_eq!(ticks(18_446_744_073_709_551_616.0), None);
        assert_eq!((ticks(f64::NAN), ticks(-1.0), ticks(0.4)), (None, None, Some(0)));
        m.store_per_byte_ns = 1e10;
        assert_eq!(m.store_nanoseconds(u64::MAX), u64::MAX);
    }

    #[test]
    fn a_missing_field_or_a_bad_probe_is_refused_by_name() {
        let mut v: serde_json::Value = serde_json::from_str(built_in_file(Simd::Avx2).1).unwrap();
        v.as_object_mut().unwrap().remove("per_row_ns");
        let e = CostModel::parse(&v.to_string(), Path::new("m.json")).unwrap_err().to_string();
        assert!(e.contains("m.json") && e.contains("missing field `per_row_ns`"), "{e}");
        let mut v: serde_json::Value = serde_json::from_str(built_in_file(Simd::Avx2).1).unwrap();
        v["probe"]["one_thread_seconds"] = 0.0.into();
        let e = CostModel::parse(&v.to_string(), Path::new("m.json")).unwrap_err().to_string();
        assert!(e.contains("probe.one_thread_seconds = 0"), "{e}");
    }
}
