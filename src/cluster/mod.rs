//! Running a plan on a cluster engine the user already has: one `dab job` per plan job,
//! submitted with its dependencies to Slurm (a bash script of `sbatch` calls) or HTCondor
//! (a DAGMan file), against a store folder shared by every node; and the way back, Slurm's
//! record of the run turned into a trace for `dab compare`, with the per-job dispatch overhead
//! fitted from it. This module owns what both exports share: which plan jobs go into one
//! submission, the memory a task asks for, and the ranks that carry the plan's priorities.

pub mod condor;
pub mod slurm;
pub mod trace;

use std::path::{Path, PathBuf};

use crate::plan::ReadyPlan;

/// Megabytes (MiB) every task asks for besides its values: the `dab` binary, its stack and
/// the allocator's slack.
pub const MARGIN_MB: u64 = 64;

/// Name of the pseudo-job that records the root's value once every job is done.
pub const VALUE_JOB: &str = "value";

/// Absolute paths the generated files name; every node must see them at the same place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paths {
    /// The `dab` binary the tasks run.
    pub dab: PathBuf,
    /// The plan file given to `dab job --plan`.
    pub plan: PathBuf,
    /// The store base folder given to `dab job --store`.
    pub store: PathBuf,
    /// Where the export writes its files, and the tasks their logs and the value.
    pub out: PathBuf,
}

/// Why an export could not be made; names the file or path.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A generated file could not be written.
    #[error("cannot write '{path}': {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// One of the [`Paths`] is relative.
    #[error("{what} path '{path}' is not absolute: every node must find it at the same place")]
    Relative {
        /// Which path: `dab`, `plan`, `store` or `output`.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
    },
    /// One of the [`Paths`] holds a newline or a NUL, which no script line can quote.
    #[error("{what} path '{path}' has a character the script cannot carry (a newline or a NUL)")]
    Unquotable {
        /// Which path: `dab`, `plan`, `store` or `output`.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
    },
}

impl Paths {
    /// Refuses relative paths and paths that cannot be written into a script line.
    pub fn check(&self) -> Result<(), ExportError> {
        for (what, path) in [("dab", &self.dab), ("plan", &self.plan), ("store", &self.store), ("output", &self.out)] {
            if !path.is_absolute() {
                return Err(ExportError::Relative { what, path: path.clone() });
            }
            if path.to_string_lossy().contains(['\n', '\0']) {
                return Err(ExportError::Unquotable { what, path: path.clone() });
            }
        }
        Ok(())
    }
}

/// One submission: a plan job alone, or every piece of a split partition as one job array
/// (task `i` runs piece `<key>_<i>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The job's name, or the partition's key for an array.
    pub name: String,
    /// Plan jobs, in piece order for an array.
    pub jobs: Vec<usize>,
    /// Whether the unit is one job array of the pieces in `jobs`.
    pub array: bool,
}

/// The submissions of a plan in dependency order. The pieces of a split partition become
/// one array when they are named `<key>_0..<key>_<k-1>` and all need the same jobs (then the
/// array depends on exactly what each piece depends on); otherwise each piece goes alone.
pub fn units(plan: &ReadyPlan) -> Vec<Unit> {
    let g = &plan.graph;
    let mut pieces: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (i, l) in plan.layout.iter().enumerate() {
        pieces.entry(l.key.to_string()).or_default().push(i);
    }
    let arrays: std::collections::HashMap<usize, String> = pieces
        .into_iter()
        .filter(|(key, jobs)| {
            let same_needs = jobs.iter().all(|&j| g.needs(j) == g.needs(jobs[0]));
            let named = jobs.iter().enumerate().all(|(p, &j)| g.jobs[j].name == format!("{key}_{p}"));
            jobs.len() > 1 && same_needs && named
        })
        .flat_map(|(key, jobs)| jobs.into_iter().map(move |j| (j, key.clone())))
        .collect();
    let mut out: Vec<Unit> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for i in g.topological_order().expect("a checked plan has no cycle") {
        match arrays.get(&i) {
            Some(key) if seen.insert(key.clone()) => {
                let jobs = (0..plan.layout.len()).filter(|j| arrays.get(j) == Some(key)).collect();
                out.push(Unit { name: key.clone(), jobs, array: true });
            }
            Some(_) => {}
            None => out.push(Unit { name: g.jobs[i].name.clone(), jobs: vec![i], array: false }),
        }
    }
    out
}

/// MiB one task of `job` asks for: its output and every input, all resident while it
/// computes (a file is read into the buffer its values keep and written in small chunks, so
/// neither is held twice), as `memory::least_limit` counts a job, and [`MARGIN_MB`].
pub fn memory_mb(plan: &ReadyPlan, job: usize) -> u64 {
    let g = &plan.graph;
    let bytes = g.jobs[job].bytes + g.needs(job).iter().map(|&k| g.jobs[k as usize].bytes).sum::<u64>();
    bytes.div_ceil(1 << 20) + MARGIN_MB
}

/// MiB of the value task: the root's inputs are read to value every move.
pub fn value_memory_mb(plan: &ReadyPlan) -> u64 {
    let root = root_job(plan);
    memory_mb(plan, root)
}

/// The job of the root partition (nothing needs it).
pub fn root_job(plan: &ReadyPlan) -> usize {
    plan.layout.iter().position(|l| l.key.total() == 0).expect("a checked plan has a root job")
}

/// Per job, its rank among the plan's distinct priorities: 0 for the highest (the longest
/// predicted path to the end), 1 for the next, and so on. Ranks rather than the priorities
/// themselves, so that the numbers stay small for `--nice` and DAGMan's PRIORITY.
pub fn ranks(plan: &ReadyPlan) -> Vec<u32> {
    let mut distinct: Vec<u64> = plan.priority.clone();
    distinct.sort_unstable_by(|a, b| b.cmp(a));
    distinct.dedup();
    plan.priority.iter().map(|p| distinct.binary_search_by(|d| p.cmp(d)).expect("present") as u32).collect()
}

/// The jobs whose store files `root`'s value reads: the root and the jobs it needs.
pub fn value_needs(plan: &ReadyPlan) -> Vec<usize> {
    let root = root_job(plan);
    let mut out: Vec<usize> = plan.graph.needs(root).iter().map(|&k| k as usize).collect();
    out.push(root);
    out.sort_unstable();
    out
}

/// Writes a generated file, creating its folder.
pub fn write(path: &Path, text: &str) -> Result<(), ExportError> {
    crate::support::write_atomic(path, text.as_bytes())
        .map_err(|source| ExportError::Write { path: path.into(), source })
}

/// A path as one bash word in single quotes. Hand-made: one replacement is all POSIX single
/// quoting needs, and shlex's quote would leave plain paths bare, changing every script.
pub fn sh_quote(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', r"'\''"))
}
