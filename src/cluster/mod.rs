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

use crate::plan::{ReadyPlan, Task};
use crate::support::one_line;

/// Megabytes (MiB) every task asks for besides its values: the `dab` binary, its stack and
/// the allocator's slack.
pub(crate) const MARGIN_MB: u64 = 64;

/// Name of the pseudo-job that records the root's value once every job is done.
pub(crate) const VALUE_JOB: &str = "value";

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
    /// One of the [`Paths`] holds a character that an engine's files cannot carry.
    #[error("{what} path '{}' {why}", one_line(&.path.to_string_lossy()))]
    Unquotable {
        /// Which path: `dab`, `plan`, `store` or `output`.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// What is wrong with it, as the end of a sentence that starts with the path.
        why: &'static str,
    },
}

impl Paths {
    /// The paths with the names errors give them.
    pub fn named(&self) -> [(&'static str, &Path); 4] {
        [("dab", &self.dab), ("plan", &self.plan), ("store", &self.store), ("output", &self.out)]
    }

    /// Refuses what neither engine can run with: relative paths, paths that are not UTF-8 (the
    /// generated files are text, and a lossy conversion would name another path) and paths with
    /// a newline or a NUL (every generated file, and `squeue`'s answer, is read line by line).
    /// Each engine's `check` adds its own rules.
    pub fn check(&self) -> Result<(), ExportError> {
        for (what, path) in self.named() {
            if !path.is_absolute() {
                return Err(ExportError::Relative { what, path: path.into() });
            }
            let Some(text) = path.to_str() else {
                let why = "is not UTF-8: the generated files are text and cannot name it";
                return Err(ExportError::Unquotable { what, path: path.into(), why });
            };
            if text.contains(['\n', '\0']) {
                let why = "holds a newline or a NUL, which no line of the generated files can carry";
                return Err(ExportError::Unquotable { what, path: path.into(), why });
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
pub(crate) fn memory_mb(plan: &ReadyPlan, job: usize) -> u64 {
    let g = &plan.graph;
    let bytes = g.jobs[job].bytes + g.needs(job).iter().map(|&k| g.jobs[k as usize].bytes).sum::<u64>();
    bytes.div_ceil(1 << 20) + MARGIN_MB
}

/// MiB one cluster task asks for: [`crate::plan::task_memory_bytes`] and [`MARGIN_MB`], the
/// same under Slurm and HTCondor.
pub(crate) fn task_memory_mb(plan: &ReadyPlan, jobs: &[usize], peak_bytes: u64) -> u64 {
    crate::plan::task_memory_bytes(plan, jobs, peak_bytes).div_ceil(1 << 20) + MARGIN_MB
}

/// MiB of the value task: the root's inputs are read to value every move.
pub(crate) fn value_memory_mb(plan: &ReadyPlan) -> u64 {
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

/// The tasks of a two-level plan that make what the value reads (the root and its inputs).
pub(crate) fn value_tasks(plan: &ReadyPlan, tasks: &[Task]) -> Vec<usize> {
    let needs = plan.value_reads();
    (0..tasks.len()).filter(|&t| tasks[t].jobs.iter().any(|j| needs.contains(j))).collect()
}

/// Writes a generated file, creating its folder.
pub fn write(path: &Path, text: &str) -> Result<(), ExportError> {
    crate::support::write_atomic(path, text.as_bytes())
        .map_err(|source| ExportError::Write { path: path.into(), source })
}

/// `word` as one POSIX sh word: in single quotes, which keep every byte but NUL as it is, a
/// `'` written as `'\''` (close, an escaped quote, open again). Not bash's `printf %q`, whose
/// `$'...'` for non-ASCII and control characters is bash's own: dash, the `/bin/sh` that runs
/// `sbatch --wrap`, reads `$'a'` as `$` and `a`. Hand-made: one replacement is all it takes, and
/// shlex's quote would leave plain words bare, changing every script.
pub(crate) fn sh_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::PathBuf;
    use std::process::Command;

    use proptest::prelude::*;

    use super::{ExportError, Paths, sh_quote};

    /// The shells a quoted word must survive: `/bin/sh` (what `sbatch --wrap` runs), dash by
    /// name where it is installed (Debian's `/bin/sh`), and bash (which reads the script).
    pub(crate) fn shells() -> Vec<&'static str> {
        ["/bin/sh", "/bin/dash", "/bin/bash"].into_iter().filter(|s| std::path::Path::new(s).exists()).collect()
    }

    /// What `shell -c 'printf %s WORD'` prints, `WORD` as given (already quoted).
    pub(crate) fn printed(shell: &str, word: &str) -> Vec<u8> {
        let out = Command::new(shell).arg("-c").arg(format!("printf %s {word}")).output().unwrap();
        assert!(out.status.success(), "{shell} on {word}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }

    /// Words a shell would read otherwise if they were not quoted, or quoted as bash does.
    pub(crate) const HOSTILE: &[&str] = &[
        "",
        "'",
        "''",
        "a'b",
        "'$(touch pwned)'",
        "$(touch pwned)",
        "`touch pwned`",
        "$'x'",
        "$HOME ${HOME} $0 $$ $# $@ $*",
        "\\ \\\\ \\' \\\"",
        "\"double\" 'single'",
        "é ü 漢字 🦀",
        "tab\there\rcarriage \x01\x1b[31m\x7f",
        "; & | < > ( ) { } [ ] * ? ~ # ! % =",
        " leading and trailing ",
        "-n",
        "%s %d %%",
    ];

    #[test]
    fn hostile_words_come_back_from_every_shell() {
        assert!(!shells().is_empty());
        for shell in shells() {
            for word in HOSTILE {
                assert_eq!(printed(shell, &sh_quote(word)), word.as_bytes(), "{shell}: {word:?} as {}", sh_quote(word));
            }
        }
    }

    #[test]
    fn a_quote_is_closed_escaped_and_reopened() {
        assert_eq!(sh_quote("/a/b"), "'/a/b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote("$'é'"), r"'$'\''é'\'''");
    }

    /// Any text but NUL and newline, with shell syntax drawn often.
    pub(crate) fn words() -> impl Strategy<Value = String> {
        prop_oneof!["[^\\x00\\n]{0,24}", "([$'\"\\\\`(){};&|<>*?~#! \\t%=é]|[a-z]){0,24}"]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        #[test]
        fn a_quoted_word_comes_back_byte_for_byte(word in words()) {
            for shell in shells() {
                prop_assert_eq!(printed(shell, &sh_quote(&word)), word.as_bytes(), "{}", shell);
            }
        }
    }

    fn paths(out: &str) -> Paths {
        Paths { dab: "/bin/dab".into(), plan: "/p.json".into(), store: "/store".into(), out: out.into() }
    }

    #[test]
    fn relative_non_utf8_and_multi_line_paths_are_refused_by_name() {
        assert!(paths("/any 'thing' $(x) é \\ %").check().is_ok());
        let e = paths("run").check().unwrap_err();
        assert!(matches!(e, ExportError::Relative { what: "output", .. }), "{e}");
        let e = paths("/run\nrm -rf x").check().unwrap_err().to_string();
        assert_eq!(
            e,
            "output path '/run\\nrm -rf x' holds a newline or a NUL, which no line of the generated files can carry"
        );
        use std::os::unix::ffi::OsStrExt;
        let mut p = paths("/run");
        p.store = PathBuf::from(std::ffi::OsStr::from_bytes(b"/st\xffore"));
        let e = p.check().unwrap_err().to_string();
        assert!(e.starts_with("store path '/st\u{fffd}ore' is not UTF-8"), "{e}");
    }
}
