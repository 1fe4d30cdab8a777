//! Two-level plans: the jobs of a plan packed into cluster tasks, each run on its own (as a
//! node runs it) against one shared store. Run in task order they give the store, byte for
//! byte, and the value of a local run; a task run again computes nothing; a task whose input
//! is missing names the file and leaves every other task's files alone.

use std::collections::BTreeMap;
use std::path::Path;

use dab::exec::{ExecError, ExecOptions, execute_task, execute_with, stored_root};
use dab::game::Position;
use dab::plan::{ClusterShape, Packing, ReadyPlan, pack};
use dab::sched::{Contention, CostSpec, PieceDeps, Policy, SimOptions, Split, orbits};
use dab::solver::Space;
use dab::store::{Store, StoreError, folder};

fn plan(board: &str, groups: usize, split: Option<Split>) -> ReadyPlan {
    let space = Space::new(Position::empty(board.parse().unwrap()), Some(groups)).unwrap();
    let graph = orbits(&space, &CostSpec::States, split.as_ref()).unwrap();
    ReadyPlan::from_graph(space, graph).unwrap()
}

/// A packing for three nodes with no dispatch delay and a fast store: as many tasks as the
/// simulation finds useful.
fn packing(p: &ReadyPlan) -> Packing {
    let shape =
        ClusterShape { nodes: 3, threads_per_node: 2, overhead_seconds: 0.0, store_bytes_per_second: 1e15, book: None };
    let node = SimOptions { policy: Policy::Cp, ..SimOptions::default() };
    pack(p, &Contention::default(), node, &shape, 1e9)
}

fn files(base: &Path, p: &ReadyPlan) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(folder(base, &p.space))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dab"))
        .map(|f| (f.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&f).unwrap()))
        .collect()
}

fn marks(p: &ReadyPlan, jobs: &[usize]) -> Vec<bool> {
    let mut m = vec![false; p.graph.len()];
    jobs.iter().for_each(|&j| m[j] = true);
    m
}

#[test]
fn tasks_run_one_by_one_give_the_store_and_the_value_of_a_local_run() {
    let split = Split { threshold: 2000, max_pieces: 3, deps: PieceDeps::Fine };
    for (what, p) in [("3x3", plan("3x3", 3, None)), ("3x3 split", plan("3x3", 2, Some(split)))] {
        let local = tempfile::tempdir().unwrap();
        let store = Store::open(local.path(), &p.space).unwrap();
        let run = execute_with(&p, &ExecOptions { threads: 2, store: Some(&store), ..Default::default() }).unwrap();
        drop(store);
        let packed = packing(&p);
        assert!(packed.tasks.len() >= 3, "{what}: {} tasks", packed.tasks.len());
        let shared = tempfile::tempdir().unwrap();
        let root = p.layout.iter().position(|l| l.key.total() == 0).unwrap();
        for task in &packed.tasks {
            let store = Store::open_shared(shared.path(), &p.space).unwrap();
            let opts = ExecOptions { threads: 2, store: Some(&store), ..Default::default() };
            let done = execute_task(&p, &opts, &marks(&p, &task.jobs)).unwrap();
            assert_eq!(done.trace.len(), task.jobs.len(), "{what} {}: every job of the task ran", task.name);
            assert_eq!(done.root.is_some(), task.jobs.contains(&root), "{what} {}", task.name);
            if let Some((value, moves)) = &done.root {
                assert_eq!((*value, moves), (run.value, &run.moves), "{what}");
            }
        }
        assert_eq!(files(shared.path(), &p), files(local.path(), &p), "{what}: the same files, byte for byte");
        let store = Store::open_shared(shared.path(), &p.space).unwrap();
        assert_eq!(stored_root(&p, &store).unwrap(), (run.value, run.moves.clone()), "{what}");
        // A task run again finds its jobs in the store and computes nothing.
        let again = execute_task(
            &p,
            &ExecOptions { threads: 2, store: Some(&store), ..Default::default() },
            &marks(&p, &packed.tasks[1].jobs),
        )
        .unwrap();
        assert_eq!((again.trace.len(), again.resumed), (0, packed.tasks[1].jobs.len()), "{what}");
    }
}

#[test]
fn a_task_whose_input_is_missing_names_the_file_and_removes_nothing() {
    let p = plan("3x3", 3, None);
    let g = &p.graph;
    let packed = packing(&p);
    // A task that reads another task's job, and that job.
    let (t, input) = packed
        .tasks
        .iter()
        .enumerate()
        .find_map(|(t, task)| {
            let outside = task.jobs.iter().flat_map(|&j| g.needs(j)).map(|&k| k as usize);
            outside.into_iter().find(|k| !task.jobs.contains(k)).map(|k| (t, k))
        })
        .unwrap();
    let shared = tempfile::tempdir().unwrap();
    let store = Store::open_shared(shared.path(), &p.space).unwrap();
    let opts = ExecOptions { threads: 2, store: Some(&store), ..Default::default() };
    for task in &packed.tasks[..t] {
        execute_task(&p, &opts, &marks(&p, &task.jobs)).unwrap();
    }
    let missing = store.path(&g.jobs[input].name);
    std::fs::remove_file(&missing).unwrap();
    let before = files(shared.path(), &p);
    match execute_task(&p, &opts, &marks(&p, &packed.tasks[t].jobs)) {
        Err(ExecError::Store(StoreError::Read { path, .. })) => assert_eq!(path, missing),
        other => panic!("{:?}", other.map(|r| r.trace.len())),
    }
    // Whatever the task finished before it stopped is new; nothing that was there is gone.
    let after = files(shared.path(), &p);
    assert!(before.iter().all(|(name, bytes)| after.get(name) == Some(bytes)));
    assert!(after.keys().all(|name| before.contains_key(name)
        || packed.tasks[t].jobs.iter().any(|&j| format!("{}.dab", g.jobs[j].name) == *name)));
}

fn dab() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("dab").unwrap()
}

/// `dab plan --nodes` writes the tasks and the cluster's prediction into the plan; `dab job
/// --task` runs each, in order, to the store of a local `dab run`, byte for byte.
#[test]
fn a_plan_packed_for_nodes_runs_task_by_task_with_dab_job() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = d.join("plan.json");
    let out = dab()
        .current_dir(d)
        .args(["plan", "3x3", "--nodes", "3", "--threads-per-node", "2", "--no-probe", "-o", "plan.json"])
        .args(["--out", "r", "--store-bandwidth", "1TB"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("cluster: 3 nodes of 2 threads packed into"), "{said}");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&plan).unwrap()).unwrap();
    let tasks: Vec<String> =
        json["tasks"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect();
    assert_eq!(json["cluster"]["nodes"], 3);
    assert!(json["cluster"]["predicted_seconds"].as_f64().unwrap() > 0.0);
    // The default book, and a peak below everything written: files go as their readers end.
    assert_eq!(json["cluster"]["keep_lines"], 15);
    let peak = json["cluster"]["store_peak_bytes"].as_u64().unwrap();
    let written = json["cluster"]["store_write_bytes"].as_u64().unwrap();
    assert!(peak > 0 && peak < written, "{peak} of {written}");
    assert!(said.contains(&format!("store peak {}", dab::support::human_bytes(peak))), "{said}");
    for t in &tasks {
        dab().current_dir(d).args(["job", "--plan", "plan.json", "--store", "shared", "--task", t]).assert().success();
    }
    // A local run keeping the same book leaves the same files, byte for byte: the book's.
    dab()
        .current_dir(d)
        .args(["run", "--plan", "plan.json", "--store", "local", "--keep-lines", "15", "--out", "r2"])
        .assert()
        .success();
    let shared = files_under(&d.join("shared"));
    assert_eq!(shared, files_under(&d.join("local")));
    let lines = |name: &str| -> usize {
        name.split(['_', '.']).next().unwrap().split('-').map(|c| c.parse::<usize>().unwrap()).sum()
    };
    let book = json["jobs"].as_array().unwrap().iter().filter(|j| lines(j["name"].as_str().unwrap()) <= 15).count();
    assert!(book < json["jobs"].as_array().unwrap().len());
    assert_eq!(shared.len(), book, "{:?}", shared.keys());
    dab().current_dir(d).args(["verify", "--store", "shared"]).assert().success();
    // A done task is not run again: its inputs may be gone.
    let again = dab()
        .current_dir(d)
        .args(["job", "--plan", "plan.json", "--store", "shared", "--task", "t0"])
        .assert()
        .success();
    let said = String::from_utf8_lossy(&again.get_output().stdout).into_owned();
    assert!(said.starts_with("task t0: already done (its marker '") && said.contains("nothing run"), "{said}");
    // A task the plan has not, and a plan without tasks, are refused by name.
    let e = dab()
        .current_dir(d)
        .args(["job", "--plan", "plan.json", "--store", "shared", "--task", "t9999"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&e.get_output().stderr).into_owned();
    assert!(err.contains("has no task 't9999'"), "{err}");
}

/// A task killed (SIGKILL, no chance to clean up) at moments spread over its run, several
/// times over, leaves only files a reader may trust: every job file present is the clean
/// run's byte for byte and `verify` finds nothing damaged; run again, the task ends with the
/// clean run's files.
#[test]
fn a_task_killed_while_it_writes_leaves_no_file_a_reader_takes_as_sound() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    plan_3x4_one_node(d, &["--keep-lines", "31"]);
    let task = |store: &str| task_t0(d, store);
    assert!(task("clean").status().unwrap().success());
    let clean = files_under(&d.join("clean"));
    let kills = kill_part_way(
        || task("killed"),
        &[30, 90, 160, 240, 330, 450],
        |ms| {
            if !d.join("killed").exists() {
                return;
            }
            for (name, bytes) in files_under(&d.join("killed")) {
                assert!(
                    clean.get(&name) == Some(&bytes),
                    "after a kill at {ms} ms, {name} differs from the clean run's"
                );
            }
            let v = dab::store::verify(&d.join("killed")).unwrap();
            assert!(v.damaged.is_empty() && v.unreadable.is_empty(), "after a kill at {ms} ms: {:?}", v.damaged);
        },
    );
    assert!(kills >= 3, "only {kills} of the task's runs were still going when killed");
    assert!(task("killed").status().unwrap().success());
    assert_eq!(files_under(&d.join("killed")), clean);
    assert!(dab::store::verify(&d.join("killed")).unwrap().sound());
}

/// `dab plan 3x4 --nodes 1` (nodes of 2 threads, so one task, `t0`) into `d/plan.json`, with
/// `extra` arguments.
fn plan_3x4_one_node(d: &Path, extra: &[&str]) {
    dab()
        .current_dir(d)
        .args(["plan", "3x4", "--nodes", "1", "--threads-per-node", "2", "--no-probe", "-q", "-o", "plan.json"])
        .args(["--out", "r"])
        .args(extra)
        .assert()
        .success();
}

/// `dab job --task t0` of `d/plan.json` against `store`, its output dropped but for errors.
fn task_t0(d: &Path, store: &str) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("dab"));
    c.current_dir(d).args(["job", "--plan", "plan.json", "--store", store, "--task", "t0"]);
    c.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    c
}

/// Starts `task` once per time in `ms`, SIGKILLs it that many milliseconds later if it is still
/// running, and calls `after` with the time once it is gone; returns how many were killed.
fn kill_part_way(task: impl Fn() -> std::process::Command, ms: &[u64], mut after: impl FnMut(u64)) -> usize {
    let mut kills = 0;
    for &ms in ms {
        let mut child = task().spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(ms));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
        after(ms);
    }
    kills
}

/// `dab plan 3x3 --nodes N` (nodes of 2 threads) into `d/plan.json`, read back.
fn plan_for_nodes(d: &Path, nodes: &str) -> serde_json::Value {
    dab()
        .current_dir(d)
        .args([
            "plan",
            "3x3",
            "--nodes",
            nodes,
            "--threads-per-node",
            "2",
            "--no-probe",
            "-o",
            "plan.json",
            "--out",
            "r",
        ])
        .assert()
        .success();
    serde_json::from_slice(&std::fs::read(d.join("plan.json")).unwrap()).unwrap()
}

/// Every `.dab` file under `base`, by name, with its bytes.
fn files_under(base: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for board in std::fs::read_dir(base).unwrap() {
        for space in std::fs::read_dir(board.unwrap().path()).unwrap() {
            for f in std::fs::read_dir(space.unwrap().path()).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|x| x == "dab") {
                    out.insert(f.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&f).unwrap());
                }
            }
        }
    }
    out
}

/// A plan whose tasks were edited: a job in two tasks or in none, a task that reads a later
/// one, a task misnamed: each refused by name before anything runs.
#[test]
fn a_plan_with_unsound_tasks_is_refused_naming_the_task() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = plan_for_nodes(d, "2");
    assert!(good["tasks"].as_array().unwrap().len() >= 2, "{}", good["tasks"]);
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 4] = [
        ("which task t0 lists too", |p| {
            let first = p["tasks"][0]["jobs"][0].clone();
            p["tasks"][1]["jobs"].as_array_mut().unwrap().push(first);
        }),
        ("is in no cluster task", |p| {
            // From the task of most jobs, so that it is left with some.
            let tasks = p["tasks"].as_array_mut().unwrap();
            let most = tasks.iter_mut().max_by_key(|t| t["jobs"].as_array().unwrap().len()).unwrap();
            most["jobs"].as_array_mut().unwrap().remove(0);
        }),
        ("must be named t1", |p| p["tasks"][1]["name"] = "x1".into()),
        ("which is listed after it", |p| {
            // The last task's jobs (the root's among them) moved into the first.
            let tasks = p["tasks"].as_array_mut().unwrap();
            let last = tasks.pop().unwrap();
            tasks[0]["jobs"].as_array_mut().unwrap().extend(last["jobs"].as_array().unwrap().iter().cloned());
        }),
    ];
    for (why, edit) in edits {
        let mut p = good.clone();
        edit(&mut p);
        std::fs::write(d.join("bad.json"), serde_json::to_vec(&p).unwrap()).unwrap();
        let out =
            dab().current_dir(d).args(["job", "--plan", "bad.json", "--store", "s", "--task", "t0"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{why}: {err}");
        assert!(err.contains(why) && err.contains("bad.json"), "{why}: {err}");
    }
}

/// The Slurm script of a two-level plan, run with an `sbatch` that runs each submission at
/// once (in submission order, which is the order of the tasks' dependencies): one submission
/// a task and one for the value, each task on the node's threads; the store is a local run's
/// with the same book, byte for byte. Run again, it submits nothing; after a task failed, only
/// what is not done.
#[test]
fn the_slurm_script_of_a_two_level_plan_submits_tasks_and_resumes_only_what_is_missing() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = plan_for_nodes(d, "3");
    let tasks = plan["tasks"].as_array().unwrap();
    dab()
        .current_dir(d)
        .args(["export", "slurm", "--plan", "plan.json", "--store", "shared", "--out", "out"])
        .assert()
        .success();
    let fake = d.join("fake");
    std::fs::create_dir_all(&fake).unwrap();
    let sbatch = fake.join("sbatch");
    std::fs::write(
        &sbatch,
        "#!/bin/bash\nn=$(($(cat \"$FAKE/count\" 2>/dev/null || echo 0) + 1)); echo $n >\"$FAKE/count\"\n\
         for a in \"$@\"; do case $a in --wrap=*) wrap=${a#--wrap=};; --chdir=*) dir=${a#--chdir=};; \
         --job-name=*) name=${a#--job-name=};; --cpus-per-task=*) cpus=${a#--cpus-per-task=};; esac; done\n\
         echo \"$name $cpus\" >>\"$FAKE/names\"\n\
         (cd \"$dir\" && /bin/sh -c \"$wrap\") >\"$FAKE/out.$n\" 2>&1 || { echo \"$name failed\" >&2; exit 1; }\n\
         echo \"$((100 + n));cluster\"\n",
    )
    .unwrap();
    std::fs::write(fake.join("squeue"), "#!/bin/sh\ntrue\n").unwrap();
    for f in ["sbatch", "squeue"] {
        std::fs::set_permissions(fake.join(f), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let submit = || {
        let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap());
        let out = std::process::Command::new("bash")
            .arg(d.join("out/submit-slurm.sh"))
            .env("PATH", path)
            .env("FAKE", &fake)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let names = || std::fs::read_to_string(fake.join("names")).unwrap_or_default();
    let said = submit();
    assert!(said.starts_with(&format!("submitted {} job(s)", tasks.len() + 1)), "{said}");
    let mut want: Vec<String> = tasks.iter().map(|t| format!("dab-{} 2", t["name"].as_str().unwrap())).collect();
    want.push("dab-value 1".into());
    assert_eq!(names().lines().collect::<Vec<_>>(), want);
    let value: serde_json::Value = serde_json::from_slice(&std::fs::read(d.join("out/value.json")).unwrap()).unwrap();
    assert_eq!(value["value"], -3, "3x3's value");
    local_run(d);
    assert_eq!(files_under(&d.join("shared")), files_under(&d.join("local")));
    // Again: nothing to do.
    std::fs::remove_file(fake.join("names")).unwrap();
    assert!(submit().starts_with("submitted 0 job(s)"));
    // A run in which a task in the middle fails: the script stops there, the tasks before it
    // are done and have removed what only they read, and run again with a sound dab, it
    // submits that task, the ones after it and the value, to the same files.
    let failing = tasks.len() / 2;
    let wrapper = d.join("dab-fails");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\ncase \" $* \" in *\" --task t{failing} \"*) exit 3 ;; esac\nexec '{}' \"$@\"\n",
            assert_cmd::cargo::cargo_bin("dab").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (shared, out) = (d.join("shared"), d.join("out"));
    std::fs::remove_dir_all(&shared).unwrap();
    std::fs::remove_file(out.join("value.json")).unwrap();
    let _ = std::fs::remove_file(fake.join("names"));
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap());
    let stopped = std::process::Command::new("bash")
        .arg(out.join("submit-slurm.sh"))
        .env("PATH", &path)
        .env("FAKE", &fake)
        .env("DAB", &wrapper)
        .output()
        .unwrap();
    assert!(!stopped.status.success(), "the failing task stops the script");
    assert_eq!(names().lines().count(), failing + 1, "{}", names());
    std::fs::remove_file(fake.join("names")).unwrap();
    let said = submit();
    assert!(said.starts_with(&format!("submitted {} job(s)", tasks.len() - failing + 1)), "{said}");
    assert_eq!(names().lines().next(), Some(format!("dab-t{failing} 2").as_str()));
    assert_eq!(files_under(&shared), files_under(&d.join("local")));
    let value: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("value.json")).unwrap()).unwrap();
    assert_eq!(value["value"], -3);
}

/// A local run of `d/plan.json` into `d/local` keeping the book a cluster plan keeps by default.
fn local_run(d: &Path) {
    dab()
        .current_dir(d)
        .args(["run", "--plan", "plan.json", "--store", "local", "--keep-lines", "15", "--out", "r2"])
        .assert()
        .success();
}

/// The HTCondor DAG of a two-level plan: one node a task (`dab job --task` on the node's
/// threads) with the task's own dependencies, the value after the tasks that make the root's
/// inputs, at most `nodes` at once, and a task whose done marker is in the store DONE. Its
/// tasks run in an order its PARENT lines allow (the latest-named ready task first, so that a
/// missing edge would show) give the store of a local run.
#[test]
fn the_condor_dag_of_a_two_level_plan_has_one_node_a_task_and_its_order_suffices() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = plan_for_nodes(d, "3");
    let tasks: Vec<String> =
        plan["tasks"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().into()).collect();
    let export = || {
        dab()
            .current_dir(d)
            .args(["export", "condor", "--plan", "plan.json", "--store", "shared", "--out", "out"])
            .assert()
            .success()
    };
    let said = String::from_utf8_lossy(&export().get_output().stdout).into_owned();
    assert!(said.contains("condor_submit_dag -maxjobs 3 dab.dag"), "{said}");
    let sub = std::fs::read_to_string(d.join("out/dab-task.sub")).unwrap();
    assert!(sub.contains("request_cpus = 2") && sub.contains("--task $(task) --threads 2"), "{sub}");
    let dag = std::fs::read_to_string(d.join("out/dab.dag")).unwrap();
    let nodes: Vec<&str> =
        dag.lines().filter_map(|l| l.strip_prefix("JOB ")).map(|l| l.split(' ').next().unwrap()).collect();
    let mut want: Vec<&str> = tasks.iter().map(String::as_str).collect();
    want.push("value");
    assert_eq!(nodes, want);
    let mut parents: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for l in dag.lines().filter_map(|l| l.strip_prefix("PARENT ")) {
        let (ps, child) = l.split_once(" CHILD ").unwrap();
        parents.entry(child).or_default().extend(ps.split(' '));
    }
    for t in plan["tasks"].as_array().unwrap() {
        let deps: Vec<&str> = t["deps"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
        assert_eq!(parents.get(t["name"].as_str().unwrap()).cloned().unwrap_or_default(), deps);
    }
    // Kahn's order, the latest-named ready task first.
    let mut done: Vec<&str> = Vec::new();
    while done.len() < tasks.len() {
        let next = tasks
            .iter()
            .rev()
            .map(String::as_str)
            .find(|t| !done.contains(t) && parents.get(t).is_none_or(|ps| ps.iter().all(|p| done.contains(p))))
            .unwrap();
        dab()
            .current_dir(d)
            .args(["job", "--plan", "plan.json", "--store", "shared", "--task", next])
            .assert()
            .success();
        done.push(next);
    }
    local_run(d);
    assert_eq!(files_under(&d.join("shared")), files_under(&d.join("local")));
    // Exported again, every task is DONE.
    export();
    let dag = std::fs::read_to_string(d.join("out/dab.dag")).unwrap();
    for t in &tasks {
        assert!(dag.contains(&format!("JOB {t} dab-task.sub DONE\n")), "{t}");
    }
}

/// `dab plan --nodes 1,2,4` sweeps the counts: one row each in cluster.csv (more nodes never
/// predicted slower than one, since one task is always a packing), a chart, and no plan file;
/// `-o` with several counts is refused.
#[test]
fn a_sweep_of_node_counts_writes_its_table_and_chart_and_no_plan() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = dab()
        .current_dir(d)
        .args(["plan", "3x3", "--nodes", "1,2,4", "--threads-per-node", "2", "--no-probe", "--overhead", "0"])
        .args(["--store-bandwidth", "1TB", "--out", "sweep"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("planned 3 node counts in"), "{said}");
    let mut table = csv::Reader::from_path(d.join("sweep/cluster.csv")).unwrap();
    let headers = table.headers().unwrap().clone();
    for column in ["nodes", "tasks", "predicted_seconds", "store_read_bytes", "store_write_bytes", "node_memory_bytes"]
    {
        assert!(headers.iter().any(|h| h == column), "no column {column}: {headers:?}");
    }
    let rows: Vec<csv::StringRecord> = table.records().map(Result::unwrap).collect();
    let field = |r: &csv::StringRecord, name: &str| -> f64 {
        r[headers.iter().position(|h| h == name).unwrap()].parse().unwrap()
    };
    assert_eq!(rows.iter().map(|r| field(r, "nodes")).collect::<Vec<_>>(), [1.0, 2.0, 4.0]);
    assert_eq!(field(&rows[0], "tasks"), 1.0, "one node: one task");
    let one = field(&rows[0], "predicted_seconds");
    assert!(rows.iter().all(|r| field(r, "predicted_seconds") <= one + 1e-9), "{rows:?}");
    assert!(rows.iter().all(|r| field(r, "node_memory_bytes") > 0.0));
    assert!(d.join("sweep/cluster.png").exists() && d.join("sweep/cluster.svg").exists());
    assert!(!d.join("sweep/plan.json").exists(), "a sweep writes no plan");
    let refused =
        dab().current_dir(d).args(["plan", "3x3", "--nodes", "1,2", "--no-probe", "-o", "p.json"]).output().unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("give one node count"));
    assert!(!d.join("p.json").exists());
}

#[test]
fn a_task_run_again_removes_what_a_killed_writer_of_its_jobs_left() {
    let p = plan("3x3", 3, None);
    let packed = packing(&p);
    let shared = tempfile::tempdir().unwrap();
    let store = Store::open_shared(shared.path(), &p.space).unwrap();
    let (mine, other) = (&packed.tasks[0], &packed.tasks[1]);
    // Temporary files as a writer killed mid-write leaves them, one of this task's job, one
    // of another task's.
    let dir = shared
        .path()
        .join("3x3")
        .join(std::fs::read_dir(shared.path().join("3x3")).unwrap().next().unwrap().unwrap().file_name());
    let left = |job: usize| dir.join(format!("{}.dab.99999.tmp", p.graph.jobs[job].name));
    std::fs::write(left(mine.jobs[0]), vec![7u8; 1000]).unwrap();
    std::fs::write(left(other.jobs[0]), vec![7u8; 1000]).unwrap();
    let opts = ExecOptions { threads: 2, store: Some(&store), ..Default::default() };
    execute_task(&p, &opts, &marks(&p, &mine.jobs)).unwrap();
    assert!(!left(mine.jobs[0]).exists(), "the task's own leftover is removed");
    assert!(left(other.jobs[0]).exists(), "another task's is not touched");
}

/// A plan written before files went (no `cluster.keep_lines`) keeps every file: its tasks
/// leave their markers and remove nothing, and `dab verify` reads the store with its `done`
/// folder as sound, without a warning.
#[test]
fn a_plan_from_before_files_went_keeps_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut plan = plan_for_nodes(d, "2");
    plan["cluster"].as_object_mut().unwrap().remove("keep_lines");
    plan["cluster"].as_object_mut().unwrap().remove("store_peak_bytes");
    std::fs::write(d.join("old.json"), serde_json::to_vec(&plan).unwrap()).unwrap();
    for t in plan["tasks"].as_array().unwrap() {
        let t = t["name"].as_str().unwrap();
        dab().current_dir(d).args(["job", "--plan", "old.json", "--store", "shared", "--task", t]).assert().success();
    }
    assert_eq!(files_under(&d.join("shared")).len(), plan["jobs"].as_array().unwrap().len());
    let space = std::fs::read_dir(d.join("shared/3x3")).unwrap().next().unwrap().unwrap().path();
    let markers = std::fs::read_dir(space.join("done")).unwrap().count();
    assert_eq!(markers, plan["tasks"].as_array().unwrap().len(), "one marker a task");
    let v = dab().current_dir(d).args(["verify", "--store", "shared"]).assert().success();
    let said =
        String::from_utf8_lossy(&v.get_output().stdout).into_owned() + &String::from_utf8_lossy(&v.get_output().stderr);
    assert!(said.contains(" 0 warnings") && !said.contains("folder inside"), "{said}");
}

/// One task of a whole 3x4 plan removes its files as a local run with the book does, as soon
/// as the jobs reading them have run: killed again and again part-way, it runs again to the
/// files of a local run with the same book, and the value is read from them.
#[test]
fn a_task_that_removes_as_it_goes_resumes_after_kills_to_the_book() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    plan_3x4_one_node(d, &[]);
    let kills = kill_part_way(|| task_t0(d, "shared"), &[40, 120, 200, 300, 420, 560], |_| {});
    assert!(kills >= 3, "only {kills} of the task's runs were still going when killed");
    let out = task_t0(d, "shared").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    local_run(d);
    assert_eq!(files_under(&d.join("shared")), files_under(&d.join("local")));
    dab()
        .current_dir(d)
        .args(["job", "--plan", "plan.json", "--store", "shared", "--value", "value.json"])
        .assert()
        .success();
    let value: serde_json::Value = serde_json::from_slice(&std::fs::read(d.join("value.json")).unwrap()).unwrap();
    assert_eq!(value["value"], 0, "3x4's value");
}

/// The same task through the library: the store it leaves at its peak is well below every
/// file it writes (files go as their readers run), and a task of a plan from before files
/// went holds every file at once.
#[test]
fn a_task_holds_less_than_it_writes_where_files_go() {
    let p = plan("3x4", 3, None);
    let all: Vec<usize> = (0..p.graph.len()).collect();
    let tasks = vec![dab::plan::Task { name: "t0".into(), jobs: all.clone(), deps: Vec::new() }];
    let written: u64 = p.graph.jobs.iter().map(|j| j.bytes).sum();
    let peak = |book: Option<usize>| {
        let shared = tempfile::tempdir().unwrap();
        let store = Store::open_shared(shared.path(), &p.space).unwrap();
        let opts = ExecOptions { threads: 2, store: Some(&store), ..Default::default() };
        match dab::exec::run_task(&p, &tasks, 0, book, &opts).unwrap() {
            dab::exec::TaskOutcome::Ran { run, .. } => run.peak_disk_bytes,
            dab::exec::TaskOutcome::AlreadyDone { .. } => panic!("a fresh store"),
        }
    };
    assert_eq!(peak(None), written);
    let with_book = peak(Some(15));
    assert!(with_book * 5 < written * 3, "{with_book} of {written}");
}

/// The twin of the cluster store's prediction: on one node a plan is one task, which removes
/// its files as a local run keeping the same book does, so its predicted peak is the local
/// run's (`dab plan --with-store --keep-lines 15`), byte for byte.
#[test]
fn one_node_predicts_the_store_peak_of_a_local_run_with_the_same_book() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let json = |args: &[&str]| -> serde_json::Value {
        let out = dab().current_dir(d).args(args).args(["--no-probe", "--json", "--out", "r"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let cluster = json(&["plan", "3x4", "--nodes", "1", "--threads-per-node", "2", "-o", "c.json"]);
    let local = json(&["plan", "3x4", "--threads", "2", "--with-store", "--keep-lines", "15", "-o", "l.json"]);
    assert_eq!(cluster["chosen"], local["chosen"]);
    let peak = cluster["store_peak_bytes"].as_u64().unwrap();
    assert_eq!(peak, local["predicted_peak_disk_bytes"].as_u64().unwrap());
    assert!(peak < cluster["cluster"]["store_write_bytes"].as_u64().unwrap());
}
