//! `dab export condor`: a DAGMan input file (`dab.dag`) with one node per plan job and a last
//! node that records the value, and the two submit files its nodes use. A node's PRIORITY is
//! its critical-path rank (higher for a longer predicted path to the end), its memory comes
//! from the plan, and a failed node is retried before DAGMan gives up on its descendants.
//! Jobs whose store file exists when the export runs are marked DONE; after a failure,
//! DAGMan's rescue DAG resumes the rest. The generator only formats, so its output is the same
//! on every machine for the same paths.
//!
//! Paths go into the submit files as HTCondor reads them: its macros are expanded first, in
//! every value, so each `$` is written `$(DOLLAR)`, the predefined macro for a literal `$`
//! (else a path holding `$(touch x)` or `$ENV(HOME)` would be expanded); then `arguments` is
//! split by its "new syntax": the whole string in double quotes, a `"` doubled, each path in
//! single quotes, where spaces and tabs stay in the argument and a `'` is doubled. [`check`]
//! refuses the paths that no quoting carries.

use std::fmt::Write as _;
use std::path::Path;

use crate::plan::{ReadyPlan, Task, done_marker};
use crate::store;

use super::{ExportError, Paths, VALUE_JOB, memory_mb, ranks, task_memory_mb, value_memory_mb, value_tasks};

/// Times DAGMan runs a failed node again before it fails for good.
pub const RETRY: u32 = 2;
/// File names written into the output folder.
pub const DAG: &str = "dab.dag";
const JOB_SUBMIT: &str = "dab-job.sub";
const VALUE_SUBMIT: &str = "dab-value.sub";
const TASK_SUBMIT: &str = "dab-task.sub";

/// The files of the export: (file name, text).
pub struct Export {
    /// The DAG and its two submit files, as (name in the output folder, text).
    pub files: Vec<(&'static str, String)>,
    /// The command that submits the DAG.
    pub command: String,
}

/// [`Paths::check`], and what a submit file cannot carry: a control character other than a tab
/// (the file is read line by line, and quoting keeps only spaces and tabs in an argument), a
/// `$$` (after the submit file's macros, HTCondor fills `$$(...)` in from the machine a job is
/// matched to, where `$(DOLLAR)` does not reach), and, at the end of the dab binary's path,
/// which `executable =` takes unquoted, a space or tab (trimmed) or a backslash (which joins
/// the next line to it).
pub fn check(paths: &Paths) -> Result<(), ExportError> {
    paths.check()?;
    for (what, path) in paths.named() {
        let text = path.to_string_lossy();
        let why = if text.chars().any(|c| c.is_control() && c != '\t') {
            "holds a control character, which no quoting of an HTCondor submit file carries"
        } else if text.contains("$$") {
            "holds '$$', which HTCondor replaces, as $$(...), with what it reads from the machine a job runs on"
        } else if what == "dab" && text.ends_with([' ', '\t', '\\']) {
            "ends in a space, a tab or a backslash, which HTCondor drops after 'executable =' (or joins the next line to)"
        } else {
            continue;
        };
        return Err(ExportError::Unquotable { what, path: path.into(), why });
    }
    Ok(())
}

/// The `condor_submit_dag` line: at most the plan's thread count of jobs at once.
pub fn command(plan_threads: u32) -> String {
    format!("condor_submit_dag -maxjobs {} {DAG}", plan_threads.max(1))
}

/// The DAG and submit files of `plan`, for paths that passed [`check`]; `done(name)` says
/// whether a job's file is in the store.
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
    let parents: Vec<&str> = plan.value_reads().iter().map(|&k| g.jobs[k].name.as_str()).collect();
    let _ = writeln!(dag, "PARENT {} CHILD {VALUE_JOB}", parents.join(" "));
    let value = paths.out.join("value.json");
    let files = vec![
        (DAG, dag),
        (
            JOB_SUBMIT,
            submit(paths, "one plan job; DAGMan sets $(job) and $(mem) per node", "--job $(job)", "$(job)", 1),
        ),
        (
            VALUE_SUBMIT,
            submit(paths, "the root's value, once every job is done", &format!("--value {}", arg(&value)), "value", 1),
        ),
    ];
    Export { files, command: command(threads) }
}

/// The DAG and submit files of a two-level plan (`dab plan --nodes`): one DAG node a cluster
/// task, `dab job --task` on all `threads` of a machine, after the tasks whose files it reads;
/// then the value. At most `nodes` tasks at once. `done(marker)` says whether a task's done
/// marker ([`done_marker`]) is in the store: such a task is DONE (a task removes the files no
/// task still to run reads when it ends, so its own may be gone). `peak_bytes`: the plan's predicted
/// peak of values on one node, the most a task asks for.
pub fn task_export(
    plan: &ReadyPlan,
    tasks: &[Task],
    threads: u32,
    nodes: u32,
    peak_bytes: u64,
    paths: &Paths,
    done: &dyn Fn(&str) -> bool,
) -> Export {
    let g = &plan.graph;
    let mut dag = String::new();
    let _ = writeln!(
        dag,
        "# DAGMan input for the two-level plan {} ({}, {} jobs in {} tasks). Written by `dab export condor`.\n\
         # Submit from this folder with: {}\n\
         # Each task runs its jobs on all {threads} threads of one machine, reading other tasks' files from the\n\
         # store, which every machine must see at the paths of the submit files.",
        paths.plan.display(),
        plan.space.board(),
        g.len(),
        tasks.len(),
        command(nodes)
    );
    for task in tasks {
        let name = &task.name;
        let finished = if done(&done_marker(plan, task)) { " DONE" } else { "" };
        let _ = writeln!(dag, "JOB {name} {TASK_SUBMIT}{finished}");
        let _ = writeln!(dag, "VARS {name} task=\"{name}\" mem=\"{}\"", task_memory_mb(plan, &task.jobs, peak_bytes));
        let _ = writeln!(dag, "RETRY {name} {RETRY}");
    }
    let value_done = if paths.out.join("value.json").exists() { " DONE" } else { "" };
    let _ = writeln!(dag, "JOB {VALUE_JOB} {VALUE_SUBMIT}{value_done}");
    let _ = writeln!(dag, "VARS {VALUE_JOB} mem=\"{}\"", value_memory_mb(plan));
    let _ = writeln!(dag, "RETRY {VALUE_JOB} {RETRY}");
    let names = |deps: &[usize]| deps.iter().map(|&d| tasks[d].name.as_str()).collect::<Vec<_>>().join(" ");
    for task in tasks.iter().filter(|t| !t.deps.is_empty()) {
        let _ = writeln!(dag, "PARENT {} CHILD {}", names(&task.deps), task.name);
    }
    let _ = writeln!(dag, "PARENT {} CHILD {VALUE_JOB}", names(&value_tasks(plan, tasks)));
    let value = paths.out.join("value.json");
    let what = format!("--task $(task) --threads {threads}");
    let files = vec![
        (DAG, dag),
        (
            TASK_SUBMIT,
            submit(paths, "one cluster task; DAGMan sets $(task) and $(mem) per node", &what, "$(task)", threads),
        ),
        (
            VALUE_SUBMIT,
            submit(paths, "the root's value, once every task is done", &format!("--value {}", arg(&value)), "value", 1),
        ),
    ];
    Export { files, command: command(nodes) }
}

/// A submit file running `dab job` with `what` after the plan and store, on `cpus` CPUs.
fn submit(paths: &Paths, about: &str, what: &str, log: &str, cpus: u32) -> String {
    format!(
        "# {about}. Written by `dab export condor`.\n\
         # The store is on a shared filesystem: nothing is transferred.\n\
         universe = vanilla\n\
         executable = {dab}\n\
         arguments = \"job --plan {plan} --store {store} {what}\"\n\
         request_cpus = {cpus}\n\
         request_memory = $(mem)\n\
         should_transfer_files = NO\n\
         output = logs/{log}.out\n\
         error = logs/{log}.err\n\
         log = dab.log\n\
         queue\n",
        dab = literal(&paths.dab.to_string_lossy()),
        plan = arg(&paths.plan),
        store = arg(&paths.store),
    )
}

/// `text` with every `$` written `$(DOLLAR)`, so that HTCondor's macro expansion gives it back.
fn literal(text: &str) -> String {
    text.replace('$', "$(DOLLAR)")
}

/// A path as one argument of `arguments = "..."` (HTCondor's new syntax): in single quotes, a
/// `'` doubled inside them, a `"` doubled for the string around it, a `$` as a literal.
fn arg(path: &Path) -> String {
    format!("'{}'", literal(&path.to_string_lossy()).replace('\'', "''").replace('"', "\"\""))
}

/// Whether a task's done marker is in the store folder of `plan` under `base`.
pub fn done_in_store(plan: &ReadyPlan, base: &Path) -> impl Fn(&str) -> bool {
    let dir = store::folder(base, &plan.space).join(store::DONE_FOLDER);
    move |marker: &str| dir.join(marker).is_file()
}

/// Whether a job's file is in the store folder of `plan` under `base` (not checked).
pub fn in_store(plan: &ReadyPlan, base: &Path) -> impl Fn(&str) -> bool {
    let dir = store::folder(base, &plan.space);
    move |name: &str| dir.join(format!("{name}.dab")).exists()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use super::super::tests::HOSTILE;
    use super::{Paths, arg, check, literal};

    /// The arguments HTCondor makes of an `arguments = ` value, by its manual: macros expanded
    /// first (`$(DOLLAR)` is a `$`; any other `$` here is a test failure, since it would be
    /// expanded), then the new syntax: the value in double quotes with `""` for a `"`, arguments
    /// split at spaces and tabs, single quotes around what keeps them, `''` in them for a `'`.
    fn documented_arguments(value: &str) -> Vec<String> {
        let mut expanded = String::new();
        let mut rest = value;
        while let Some(at) = rest.find('$') {
            expanded.push_str(&rest[..at]);
            rest = rest[at..].strip_prefix("$(DOLLAR)").unwrap_or_else(|| panic!("a macro in {value}"));
            expanded.push('$');
        }
        expanded.push_str(rest);
        let inner = expanded.strip_prefix('"').and_then(|v| v.strip_suffix('"')).expect("double quotes around");
        let mut raw = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '"' {
                assert_eq!(chars.next(), Some('"'), "a lone \" ends the value: {value}");
            }
            raw.push(c);
        }
        let (mut args, mut current) = (Vec::new(), None::<String>);
        let mut chars = raw.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                ' ' | '\t' => args.extend(current.take()),
                '\'' => {
                    let a = current.get_or_insert_default();
                    loop {
                        match chars.next() {
                            Some('\'') if chars.peek() == Some(&'\'') => {
                                chars.next();
                                a.push('\'');
                            }
                            Some('\'') => break,
                            Some(c) => a.push(c),
                            None => panic!("unclosed single quote: {value}"),
                        }
                    }
                }
                c => current.get_or_insert_default().push(c),
            }
        }
        args.extend(current);
        args
    }

    fn carried(word: &str) -> bool {
        !word.contains("$$") && !word.chars().any(|c| c.is_control() && c != '\t')
    }

    #[test]
    fn the_manual_s_examples_read_as_it_says() {
        assert_eq!(documented_arguments(r#""3 simple arguments""#), ["3", "simple", "arguments"]);
        assert_eq!(documented_arguments(r#""one 'two with spaces' 3""#), ["one", "two with spaces", "3"]);
        assert_eq!(
            documented_arguments(r#""one ""two"" 'spacey ''quoted'' argument'""#),
            ["one", "\"two\"", "spacey 'quoted' argument"]
        );
    }

    #[test]
    fn hostile_paths_are_one_argument_each() {
        assert_eq!(arg(Path::new("/a b/it's \"x\"/$(y)")), r#"'/a b/it''s ""x""/$(DOLLAR)(y)'"#);
        for word in HOSTILE.iter().filter(|w| carried(w)) {
            let value = format!("\"job {} --x {}\"", arg(Path::new(word)), arg(Path::new(word)));
            assert_eq!(documented_arguments(&value), ["job", word, "--x", word], "{value}");
        }
        assert_eq!(literal("/o$pt/$(x)"), "/o$(DOLLAR)pt/$(DOLLAR)(x)");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn any_carried_path_is_one_argument(word in super::super::tests::words()) {
            prop_assume!(carried(&word));
            let value = format!("\"{} {}\"", arg(Path::new(&word)), arg(Path::new("x")));
            prop_assert_eq!(documented_arguments(&value), [word.clone(), "x".to_string()]);
        }
    }

    #[test]
    fn what_a_submit_file_cannot_carry_is_refused_by_name() {
        let paths = |dab: &str, store: &str| Paths {
            dab: dab.into(),
            plan: "/p".into(),
            store: store.into(),
            out: "/o".into(),
        };
        assert!(check(&paths("/d i$r/'dab'", "/s\tt $x \"é\" \\")).is_ok());
        for (dab, store, what, why) in [
            ("/d", "/a$$b", "store", "holds '$$'"),
            ("/d", "/a\rb", "store", "holds a control character"),
            ("/d", "/a\u{85}b", "store", "holds a control character"),
            ("/dab ", "/s", "dab", "ends in a space"),
            ("/dab\t", "/s", "dab", "ends in a space"),
            ("/dab\\", "/s", "dab", "ends in a space"),
        ] {
            let e = check(&paths(dab, store)).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{what} path '")) && e.contains(why) && !e.contains(['\r', '\t']), "{e}");
        }
    }
}
