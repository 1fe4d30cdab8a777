//! `dab export condor`: a DAGMan input file (`dab.dag`) with one node per plan job and a last
//! node that records the value, and the two submit files its nodes use. A node's PRIORITY is
//! its critical-path rank (higher for a longer predicted path to the end), its memory comes
//! from the plan, and a failed node is retried before DAGMan gives up on its descendants.
//! Jobs whose store file exists when the export runs are marked DONE; after a failure,
//! DAGMan's rescue DAG resumes the rest. The generator only formats, so its output is the same
//! on every machine for the same paths.

use std::fmt::Write as _;
use std::path::Path;

use crate::plan::ReadyPlan;
use crate::store;

use super::{Paths, VALUE_JOB, memory_mb, ranks, value_memory_mb, value_needs};

/// Times DAGMan runs a failed node again before it fails for good.
pub const RETRY: u32 = 2;
/// File names written into the output folder.
pub const DAG: &str = "dab.dag";
const JOB_SUBMIT: &str = "dab-job.sub";
const VALUE_SUBMIT: &str = "dab-value.sub";

/// The files of the export: (file name, text).
pub struct Export {
    /// The DAG and its two submit files, as (name in the output folder, text).
    pub files: Vec<(&'static str, String)>,
    /// The command that submits the DAG.
    pub command: String,
}

/// The `condor_submit_dag` line: at most the plan's thread count of jobs at once.
pub fn command(plan_threads: u32) -> String {
    format!("condor_submit_dag -maxjobs {} {DAG}", plan_threads.max(1))
}

/// The DAG and submit files of `plan`; `done(name)` says whether a job's file is in the store.
pub fn export(plan: &ReadyPlan, threads: u32, paths: &Paths, done: &dyn Fn(&str) -> bool) -> Export {
    let g = &plan.graph;
    let rank = ranks(plan);
    let top = rank.iter().max().copied().unwrap_or(0);
    let mut dag = String::new();
    let _ = writeln!(
        dag,
        "# DAGMan input for the plan {} ({}, {} jobs). Written by `dab export condor`.\n\
         # Submit from this folder with: {}\n\
         # Every node must see the dab binary, the plan and the store at the paths of the submit files.",
        paths.plan.display(),
        plan.space.board(),
        g.len(),
        command(threads)
    );
    let order = g.topological_order().expect("a checked plan has no cycle");
    for &i in &order {
        let name = &g.jobs[i].name;
        let done = if done(name) { " DONE" } else { "" };
        let _ = writeln!(dag, "JOB {name} {JOB_SUBMIT}{done}");
        let _ = writeln!(dag, "VARS {name} job=\"{name}\" mem=\"{}\"", memory_mb(plan, i));
        let _ = writeln!(dag, "PRIORITY {name} {}", top - rank[i]);
        let _ = writeln!(dag, "RETRY {name} {RETRY}");
    }
    let value_done = if paths.out.join("value.json").exists() { " DONE" } else { "" };
    let _ = writeln!(dag, "JOB {VALUE_JOB} {VALUE_SUBMIT}{value_done}");
    let _ = writeln!(dag, "VARS {VALUE_JOB} mem=\"{}\"", value_memory_mb(plan));
    let _ = writeln!(dag, "RETRY {VALUE_JOB} {RETRY}");
    for &i in &order {
        let children: Vec<&str> = g.needed_by(i).iter().map(|&k| g.jobs[k as usize].name.as_str()).collect();
        if !children.is_empty() {
            let _ = writeln!(dag, "PARENT {} CHILD {}", g.jobs[i].name, children.join(" "));
        }
    }
    let parents: Vec<&str> = value_needs(plan).iter().map(|&k| g.jobs[k].name.as_str()).collect();
    let _ = writeln!(dag, "PARENT {} CHILD {VALUE_JOB}", parents.join(" "));
    let value = paths.out.join("value.json");
    let files = vec![
        (DAG, dag),
        (JOB_SUBMIT, submit(paths, "one plan job; DAGMan sets $(job) and $(mem) per node", "--job $(job)", "$(job)")),
        (
            VALUE_SUBMIT,
            submit(paths, "the root's value, once every job is done", &format!("--value {}", arg(&value)), "value"),
        ),
    ];
    Export { files, command: command(threads) }
}

/// A submit file running `dab job` with `what` after the plan and store.
fn submit(paths: &Paths, about: &str, what: &str, log: &str) -> String {
    format!(
        "# {about}. Written by `dab export condor`.\n\
         # The store is on a shared filesystem: nothing is transferred.\n\
         universe = vanilla\n\
         executable = {dab}\n\
         arguments = \"job --plan {plan} --store {store} {what}\"\n\
         request_cpus = 1\n\
         request_memory = $(mem)\n\
         should_transfer_files = NO\n\
         output = logs/{log}.out\n\
         error = logs/{log}.err\n\
         log = dab.log\n\
         queue\n",
        dab = paths.dab.display(),
        plan = arg(&paths.plan),
        store = arg(&paths.store),
    )
}

/// One argument in HTCondor's quoted `arguments` syntax: single quotes, inner ones doubled,
/// double quotes doubled.
fn arg(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', "''").replace('"', "\"\""))
}

/// Whether a job's file is in the store folder of `plan` under `base` (not checked).
pub fn in_store(plan: &ReadyPlan, base: &Path) -> impl Fn(&str) -> bool {
    let dir = store::folder(base, &plan.space);
    move |name: &str| dir.join(format!("{name}.dab")).exists()
}
