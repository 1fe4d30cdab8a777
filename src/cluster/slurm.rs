//! `dab export slurm`: a bash script that submits a plan to Slurm. Each submission is one
//! `sbatch --parsable` call, in dependency order, with `--dependency=afterok:` on the jobs it
//! needs that this or an earlier submission left queued, and `--kill-on-invalid-dep=yes`, so a
//! failed job cancels everything after it instead of leaving it pending. The script decides
//! at run time what to submit: a job whose store file exists is skipped, and so is one still
//! queued from an earlier run of the script (found with `squeue` by name and working folder),
//! so running it again on a half-finished store submits only what is missing. The generator
//! only formats; the paths are taken as given, so its output is the same on every machine.
//!
//! Paths are written for the shell that reads them: in single quotes in the bash script, and,
//! in the command of `sbatch --wrap`, which Slurm runs with `/bin/sh` (dash on Debian), through
//! the script's `shq`, which quotes for POSIX sh as [`sh_quote`] does. Bash's `printf %q` does
//! not: its `$'...'` is no quoting to dash. [`check`] refuses the paths Slurm cannot take.

use std::fmt::Write as _;
use std::path::Path;

use crate::plan::ReadyPlan;
use crate::store;

use super::{
    ExportError, Paths, Unit, VALUE_JOB, memory_mb, ranks, sh_quote, task_memory_mb, units, value_memory_mb,
    value_tasks,
};
use crate::plan::{Task, done_marker};

/// The script's `shq WORD`: WORD as one POSIX sh word, as [`sh_quote`] writes it, for the
/// command of `sbatch --wrap`. At run time, since `DAB` may be set then; `LC_ALL=C` so that the
/// replacement goes byte by byte whatever the user's locale.
const SHQ: &str = r#"shq() {
  local LC_ALL=C s=$1 q="'\\''"
  s=${s//\'/$q}
  printf "'%s'" "$s"
}"#;

/// [`Paths::check`], and a backslash in the output folder: anywhere in an `--output` file name,
/// Slurm takes it as an escape, drops it and expands no `%` pattern, so the logs, named by `%x`
/// and `%a`, would all go to one file in another folder. (A `%` is written `%%` instead.)
pub fn check(paths: &Paths) -> Result<(), ExportError> {
    paths.check()?;
    if paths.out.to_string_lossy().contains('\\') {
        let why = "holds a backslash, which Slurm drops from the logs' --output names, expanding no %x or %a in them";
        return Err(ExportError::Unquotable { what: "output", path: paths.out.clone(), why });
    }
    Ok(())
}

/// The submit script of `plan`, for paths that passed [`check`].
pub fn script(plan: &ReadyPlan, paths: &Paths) -> String {
    let units = units(plan);
    let mut s = String::new();
    header(&mut s, plan, paths, &units);
    functions(&mut s);
    submissions(&mut s, plan, &units);
    value_step(&mut s, plan);
    s
}

/// The submit script of a two-level plan (`dab plan --nodes`): one submission a cluster task,
/// each `dab job --task` on all `threads` of its node, after the tasks whose files it reads;
/// then the value. `peak_bytes`: the plan's predicted peak of values on one node, the most a
/// task asks for. For paths that passed [`check`].
pub fn task_script(plan: &ReadyPlan, tasks: &[Task], threads: u32, peak_bytes: u64, paths: &Paths) -> String {
    let mut s = String::new();
    let units: Vec<Unit> =
        tasks.iter().map(|t| Unit { name: t.name.clone(), jobs: t.jobs.clone(), array: false }).collect();
    header(&mut s, plan, paths, &units);
    let _ = writeln!(
        s,
        "# A two-level plan: each submission is a cluster task, `dab job --task` on all {threads} threads
# of one node, which runs its jobs as a local run does and reads the files of other tasks' jobs
# from the store. A task leaves a done marker in the store's done/ folder when it ends, and
# removes the files no task still to run reads (the book of the plan stays); a task whose
# marker is there is skipped.
THREADS={threads}"
    );
    functions(&mut s);
    task_function(&mut s);
    let rank = ranks(plan);
    let _ = writeln!(s, "\n# name, MiB, nice, tasks it reads, its done marker");
    for task in tasks {
        let needs: Vec<&str> = task.deps.iter().map(|&d| tasks[d].name.as_str()).collect();
        let needs = if needs.is_empty() { "-".to_string() } else { needs.join(",") };
        let nice = task.jobs.iter().map(|&j| rank[j]).min().unwrap_or(0);
        let _ = writeln!(
            s,
            "submit_task {} {} {nice} {needs} {}",
            task.name,
            task_memory_mb(plan, &task.jobs, peak_bytes),
            done_marker(plan, task)
        );
    }
    // The value reads the root and its inputs: after the tasks that make them.
    let needs: Vec<&str> = value_tasks(plan, tasks).iter().map(|&d| tasks[d].name.as_str()).collect();
    let _ = writeln!(s, "submit {VALUE_JOB} {} 0 {}", value_memory_mb(plan), needs.join(","));
    s.push_str(
        "
echo \"submitted $submitted job(s); $skipped in the store or queued ($queued queued before); ids in $OUT/job-ids\"
",
    );
    s
}

/// The `submit_task` shell function every task line calls.
fn task_function(s: &mut String) {
    let _ = writeln!(
        s,
        "
# submit_task NAME MEM NICE NEEDS DONE: submits cluster task NAME unless its done marker DONE
# is in the store or it is queued, after the tasks NEEDS that are not done.
submit_task() {{
  local name=$1 mem=$2 nice=$3 needs=$4 n id deps=()
  if [[ -e $FILES/done/$5 ]] || [[ -n ${{ID[$name]:-}} ]]; then skipped=$((skipped + 1)); return 0; fi
  IFS=, read -ra needs <<<\"$needs\"
  for n in \"${{needs[@]}}\"; do
    if [[ -n ${{ID[$n]:-}} ]]; then deps+=(\"${{ID[$n]}}\"); fi
  done
  local args=(--parsable --job-name=\"dab-$name\" --mem=\"${{mem}}M\" --nice=\"$nice\" --ntasks=1
    --cpus-per-task=\"$THREADS\" --kill-on-invalid-dep=yes --chdir=\"$OUT\" --output=\"$LOGS/%x.out\")
  if ((${{#deps[@]}})); then args+=(--dependency=\"afterok:$(IFS=:; echo \"${{deps[*]}}\")\"); fi
  id=$(sbatch \"${{args[@]}}\" --wrap=\"exec $(shq \"$DAB\") job --plan $(shq \"$PLAN\") --store $(shq \"$STORE\") --task $name --threads $THREADS\")
  id=${{id%%;*}}
  ID[$name]=$id
  echo \"$name $id\" >>\"$OUT/job-ids\"
  submitted=$((submitted + 1))
}}"
    );
}

/// The queued jobs of an earlier run, `shq` and the `submit` function: what every script has.
fn functions(s: &mut String) {
    queued_ids(s);
    s.push_str(concat!(
        "\n# shq WORD: WORD as one POSIX sh word in single quotes ('\\'' for a '), for the command of\n",
        "# sbatch --wrap, which runs under /bin/sh: bash's printf %q writes $'...', which sh does not read.\n"
    ));
    s.push_str(SHQ);
    s.push('\n');
    submit_function(s);
}

/// A path as one word of the script.
fn quoted(path: &Path) -> String {
    sh_quote(&path.to_string_lossy())
}

/// The script's opening comment, `set -euo pipefail`, and the shell variables of the paths.
fn header(s: &mut String, plan: &ReadyPlan, paths: &Paths, units: &[Unit]) {
    let _ = writeln!(
        s,
        "#!/usr/bin/env bash
# Submits the plan {plan_path} ({board}, {jobs} jobs) to Slurm as {subs} submissions and a last
# one that records the value in {out}/value.json. Written by `dab export slurm`.
#
# Every node must see the dab binary, the plan and the store folder at these paths (a shared
# filesystem). Set DAB to run another dab binary. Each job runs `dab job`, which reads the
# files of the jobs it needs and writes its own file in the store.
#
# Run it again after a failure or on a half-finished store: a job whose file is in the store
# is skipped, and so is one still queued (or running) from an earlier run of this script, so
# only what is missing is submitted. Submitted ids are in {out}/job-ids.
#
# Pieces of a split partition that all need the same jobs go as one job array ({arrays} here;
# task i runs piece <key>_i); other pieces go one job each. --nice is the rank of the job's
# priority in the plan (0: the longest predicted path to the end). Memory: the job's inputs
# and its output, plus {margin} MiB.
set -euo pipefail

DAB=${{DAB:-{dab}}}
PLAN={plan}
STORE={store}
FILES={files}
OUT={outq}
# $OUT/logs as a Slurm file name pattern, for --output: a % in it doubled.
LOGS={logs}
mkdir -p \"$OUT/logs\"
: >\"$OUT/job-ids\"",
        plan_path = paths.plan.display(),
        board = plan.space.board(),
        jobs = plan.graph.len(),
        subs = units.len(),
        out = paths.out.display(),
        arrays = units.iter().filter(|u| u.array).count(),
        margin = super::MARGIN_MB,
        dab = quoted(&paths.dab),
        plan = quoted(&paths.plan),
        store = quoted(&paths.store),
        files = quoted(&store::folder(&paths.store, &plan.space)),
        outq = quoted(&paths.out),
        logs = sh_quote(&paths.out.join("logs").to_string_lossy().replace('%', "%%")),
    );
}

/// The Slurm ids of the jobs an earlier run of the script left queued, into `ID`, and the
/// counters of the closing line.
fn queued_ids(s: &mut String) {
    let _ = writeln!(
        s,
        "
# Slurm id of every job not in the store that is queued or was submitted now (array tasks as
# <id>_<task>), by plan job name. Whole lines: read would strip the spaces a folder may end with.
declare -A ID=()
while IFS= read -r line; do
  name=${{line%% *}} line=${{line#* }}
  base=${{line%% *}} line=${{line#* }}
  task=${{line%% *}} dir=${{line#* }}
  [[ $dir == \"$OUT\" && $name == dab-* ]] || continue
  if [[ $task == N/A ]]; then ID[${{name#dab-}}]=$base; else ID[${{name#dab-}}_$task]=${{base}}_$task; fi
done < <(squeue --noheader --me --array --format='%j %F %K %Z')
queued=${{#ID[@]}}
submitted=0
skipped=0"
    );
}

/// The `submit` shell function every submission line calls.
fn submit_function(s: &mut String) {
    let _ = writeln!(
        s,
        "
# submit NAME MEM NICE NEEDS [PIECES]: submits plan job NAME (or, with PIECES, the array of
# pieces NAME_0..NAME_<PIECES-1>) unless it is in the store or queued, after the jobs NEEDS
# (comma-separated) that are not in the store.
submit() {{
  local name=$1 mem=$2 nice=$3 needs=$4 pieces=${{5:-}} jobs=() todo=() deps=() i n id cmd
  if [[ -n $pieces ]]; then
    for ((i = 0; i < pieces; i++)); do jobs+=(\"${{name}}_$i\"); done
  else
    jobs=(\"$name\")
  fi
  for i in \"${{!jobs[@]}}\"; do
    n=${{jobs[$i]}}
    if [[ $n == {value} ]]; then [[ -e $OUT/value.json ]] && continue; else [[ -e $FILES/$n.dab ]] && continue; fi
    [[ -n ${{ID[$n]:-}} ]] && continue
    todo+=(\"$i\")
  done
  skipped=$((skipped + ${{#jobs[@]}} - ${{#todo[@]}}))
  ((${{#todo[@]}})) || return 0
  IFS=, read -ra needs <<<\"$needs\"
  for n in \"${{needs[@]}}\"; do
    if [[ -n ${{ID[$n]:-}} ]]; then deps+=(\"${{ID[$n]}}\"); fi
  done
  local args=(--parsable --job-name=\"dab-$name\" --mem=\"${{mem}}M\" --nice=\"$nice\" --ntasks=1 --cpus-per-task=1
    --kill-on-invalid-dep=yes --chdir=\"$OUT\")
  if ((${{#deps[@]}})); then args+=(--dependency=\"afterok:$(IFS=:; echo \"${{deps[*]}}\")\"); fi
  if [[ $name == {value} ]]; then
    cmd=\"--value $(shq \"$OUT/value.json\")\"
    args+=(--output=\"$LOGS/%x.out\")
  elif [[ -n $pieces ]]; then
    cmd=\"--job ${{name}}_\\$SLURM_ARRAY_TASK_ID\"
    args+=(--array=\"$(IFS=,; echo \"${{todo[*]}}\")\" --output=\"$LOGS/%x_%a.out\")
  else
    cmd=\"--job $name\"
    args+=(--output=\"$LOGS/%x.out\")
  fi
  id=$(sbatch \"${{args[@]}}\" --wrap=\"exec $(shq \"$DAB\") job --plan $(shq \"$PLAN\") --store $(shq \"$STORE\") $cmd\")
  id=${{id%%;*}}
  for i in \"${{todo[@]}}\"; do
    if [[ -n $pieces ]]; then ID[${{jobs[$i]}}]=${{id}}_$i; else ID[${{jobs[$i]}}]=$id; fi
    echo \"${{jobs[$i]}} ${{ID[${{jobs[$i]}}]}}\" >>\"$OUT/job-ids\"
    submitted=$((submitted + 1))
  done
}}",
        value = VALUE_JOB,
    );
}

/// One `submit` line per unit, in dependency order, under a comment naming the arguments.
fn submissions(s: &mut String, plan: &ReadyPlan, units: &[Unit]) {
    let rank = ranks(plan);
    let _ = writeln!(s, "\n# name, MiB, nice, needs[, pieces]");
    for u in units {
        let _ = writeln!(s, "{}", submit_line(plan, u, &rank));
    }
}

/// The last submission, which records the root's value once the root and its inputs are done,
/// and the closing summary line.
fn value_step(s: &mut String, plan: &ReadyPlan) {
    let g = &plan.graph;
    let needs: Vec<&str> = plan.value_reads().iter().map(|&k| g.jobs[k].name.as_str()).collect();
    let _ = writeln!(s, "submit {VALUE_JOB} {} 0 {}", value_memory_mb(plan), needs.join(","));
    s.push_str(
        "
echo \"submitted $submitted job(s); $skipped in the store or queued ($queued queued before); ids in $OUT/job-ids\"
",
    );
}

/// One `submit` call of the script.
fn submit_line(plan: &ReadyPlan, u: &Unit, rank: &[u32]) -> String {
    let g = &plan.graph;
    let mem = u.jobs.iter().map(|&j| memory_mb(plan, j)).max().unwrap_or(super::MARGIN_MB);
    let nice = u.jobs.iter().map(|&j| rank[j]).min().unwrap_or(0);
    let needs: Vec<&str> = g.needs(u.jobs[0]).iter().map(|&k| g.jobs[k as usize].name.as_str()).collect();
    let needs = if needs.is_empty() { "-".to_string() } else { needs.join(",") };
    if u.array {
        format!("submit {} {mem} {nice} {needs} {}", u.name, u.jobs.len())
    } else {
        format!("submit {} {mem} {nice} {needs}", u.name)
    }
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use proptest::prelude::*;

    use super::super::tests::{HOSTILE, printed, shells, words};
    use super::{Paths, SHQ, check, sh_quote};

    /// What the script's `shq` writes for `word`, run by bash as the script is.
    fn shq(word: &str) -> String {
        let out =
            Command::new("bash").arg("-c").arg(format!("{SHQ}\nshq \"$1\"")).arg("shq").arg(word).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn the_script_s_shq_quotes_hostile_words_for_sh() {
        for word in HOSTILE {
            let quoted = shq(word);
            assert_eq!(quoted, sh_quote(word), "{word:?}");
            for shell in shells() {
                assert_eq!(printed(shell, &quoted), word.as_bytes(), "{shell}: {word:?} as {quoted}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn the_script_s_shq_writes_what_sh_quote_writes(word in words()) {
            prop_assert_eq!(shq(&word), sh_quote(&word));
        }
    }

    #[test]
    fn an_output_folder_with_a_backslash_is_refused_and_a_percent_doubled() {
        let paths = |out: &str| Paths { dab: "/d".into(), plan: "/p".into(), store: "/s\\t".into(), out: out.into() };
        assert!(check(&paths("/run 100%x")).is_ok());
        let e = check(&paths("/r\\un")).unwrap_err().to_string();
        assert!(e.starts_with("output path '/r\\un' holds a backslash"), "{e}");
        let plan = crate::plan::Plan::load(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cluster/plan-2x3.json"),
        )
        .unwrap()
        .check()
        .unwrap();
        let script = super::script(&plan, &paths("/run 100%x"));
        assert!(script.contains("\nLOGS='/run 100%%x/logs'\n"), "{script}");
    }
}
