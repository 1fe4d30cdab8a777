//! `dab plan`: simulate candidate plans with the calibrated costs and pick one.

use std::path::{Path, PathBuf};

use clap::Args;

use dab::plan::{PlanOptions, short_seconds};
use dab::sched::{CostError, CostModel, model_name};
use dab::solver::Simd;
use dab::support::{human_bytes, thousands};

use super::{CliResult, PositionArgs};

#[derive(Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    #[command(flatten)]
    pub common: PlanCommon,
    /// Where to write the plan (default: <report folder>/plan.json); its charts go beside it
    /// unless --out names their folder.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Report folder (default: reports/runs/<board>).
    #[arg(long, value_name = "DIR", value_parser = super::out_dir)]
    pub out: Option<PathBuf>,
    /// Plan for a run with `--store`: every job's cost includes writing its file, and the
    /// store's peak size is predicted.
    #[arg(long)]
    pub with_store: bool,
    /// With `--with-store`: predict for a run that keeps only the partitions of at most K lines.
    /// With `--nodes`: the book the cluster run keeps (default 15): files of partitions of at
    /// most K lines stay, with the root's inputs, and every other file goes once every task
    /// that reads it is done.
    #[arg(long, value_name = "K")]
    pub keep_lines: Option<usize>,
    /// Plan for a cluster of N nodes: the jobs packed into cluster tasks, each run by one node
    /// on all its threads (`dab job --task`), chosen by simulation; `--overhead` is then the
    /// engine's delay before each task, not each job. Several counts (1,2,4,...,256) sweep
    /// them: the predicted time, store traffic and node memory of each, as cluster.csv and a
    /// chart in the report folder (default reports/runs/cluster/<board>), and no plan file.
    #[arg(long, value_name = "N,N", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
    pub nodes: Option<Vec<u32>>,
    /// With `--nodes`: the threads of one node, which the plan is made for (default: --threads,
    /// else this machine's).
    // Checked here, so that a count refused names this flag rather than --threads.
    #[arg(long, value_name = "C", requires = "nodes", conflicts_with = "threads",
          value_parser = clap::value_parser!(u32).range(1..=super::MAX_PLANNED_THREADS as i64))]
    pub threads_per_node: Option<u32>,
    /// With `--nodes`: the shared store's bandwidth in bytes a second, all nodes together (1GB,
    /// 500MB, ...; default: not limited). Tasks read the files other tasks wrote through it.
    #[arg(long, value_name = "BYTES", value_parser = super::bytes, requires = "nodes")]
    pub store_bandwidth: Option<u64>,
    /// Print the choice as one JSON object (a sweep of several --nodes: its rows) instead of
    /// the tables; the plan file and charts are written as without it.
    #[arg(long)]
    pub json: bool,
}

/// `dab plan --json`: the choice, every candidate, and where the plan went.
#[derive(serde::Serialize)]
struct PlanJson<'a> {
    board: &'a str,
    root: &'a str,
    threads: u32,
    plan_file: String,
    chosen: String,
    reason: &'a str,
    predicted_seconds: f64,
    predicted_peak_value_bytes: u64,
    candidates: Vec<CandidateJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<&'a dab::plan::PlanCluster>,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_count: Option<usize>,
    /// A cluster plan's predicted store peak (as in `cluster`).
    #[serde(skip_serializing_if = "Option::is_none")]
    store_peak_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    predicted_peak_disk_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thread_pick: Option<ThreadPickJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    store_fallback: Option<StoreFallbackJson>,
}

/// How the thread count was picked, in [`PlanJson`].
#[derive(serde::Serialize)]
struct ThreadPickJson {
    machine_threads: u32,
    fastest_threads: u32,
    fastest_seconds: f64,
    picked_threads: u32,
    why_fewer: Option<String>,
}

/// The plan that drops values to the store, in [`PlanJson`].
#[derive(serde::Serialize)]
struct StoreFallbackJson {
    mem_limit_bytes: u64,
    threads: u32,
    predicted_seconds: f64,
    store_peak_bytes: u64,
    written_bytes: u64,
    read_back_bytes: u64,
}

/// One candidate of [`PlanJson`].
#[derive(serde::Serialize)]
struct CandidateJson {
    label: String,
    groups: usize,
    split_states: Option<u64>,
    job_count: usize,
    /// Null where a memory limit cannot be met (past the machine's memory it is priced).
    predicted_seconds: Option<f64>,
    peak_value_bytes: u64,
    fits: bool,
    chosen: bool,
}

impl<'a> PlanJson<'a> {
    fn new(planned: &'a dab::plan::PlanChoice, path: &Path, disk: Option<u64>) -> Self {
        let plan = &planned.plan;
        let candidates = (planned.candidates.iter().enumerate())
            .map(|(i, c)| CandidateJson {
                label: c.label(),
                groups: c.candidate.groups,
                split_states: c.candidate.split.map(|s| s.threshold),
                job_count: c.candidate.jobs,
                predicted_seconds: c.candidate.predicted_seconds.is_finite().then_some(c.candidate.predicted_seconds),
                peak_value_bytes: c.candidate.peak_memory,
                fits: c.candidate.fits,
                chosen: i == planned.chosen,
            })
            .collect();
        PlanJson {
            board: &plan.board,
            root: &plan.root,
            threads: plan.threads,
            plan_file: path.display().to_string(),
            chosen: planned.candidates[planned.chosen].label(),
            reason: &plan.reason,
            predicted_seconds: plan.predicted_seconds,
            predicted_peak_value_bytes: plan.predicted_peak_memory,
            candidates,
            cluster: plan.cluster.as_ref(),
            task_count: plan.cluster.as_ref().map(|_| plan.tasks.len()),
            store_peak_bytes: plan.cluster.as_ref().and_then(|c| c.store_peak_bytes),
            predicted_peak_disk_bytes: disk,
            thread_pick: planned.threads.as_ref().map(|t| ThreadPickJson {
                machine_threads: t.machine_threads,
                fastest_threads: t.fastest.0,
                fastest_seconds: t.fastest.1,
                picked_threads: t.picked,
                why_fewer: t.why_fewer.clone(),
            }),
            store_fallback: planned.store_fallback.as_deref().map(|f| StoreFallbackJson {
                mem_limit_bytes: f.mem_limit,
                threads: f.threads,
                predicted_seconds: f.seconds,
                store_peak_bytes: f.store_peak,
                written_bytes: f.written,
                read_back_bytes: f.read_back,
            }),
        }
    }
}

/// Options shared by `dab plan` and `dab run`.
#[derive(Args)]
pub struct PlanCommon {
    /// Threads to plan for (default: RAYON_NUM_THREADS, else all cores).
    #[arg(long, value_name = "P")]
    pub threads: Option<usize>,
    /// Most bytes the whole process holds (8G, 500MB, ...): the program, its tables and
    /// threads are counted first and the values get the rest; values still needed are dropped
    /// and read back from the store, so `dab run` needs `--store` with it.
    #[arg(long, value_name = "BYTES", value_parser = super::bytes)]
    pub mem_limit: Option<u64>,
    /// Cost model from `dab calibrate` (default: sims/cost-model.json, or
    /// sims/cost-model-vbmi.json where the kernel takes AVX-512 VBMI; the model built into dab
    /// for that kernel where there is none).
    #[arg(long, value_name = "FILE")]
    pub cost: Option<PathBuf>,
    /// Group counts to try (default: the solver's and its neighbours).
    #[arg(long, value_delimiter = ',', value_name = "G,G")]
    pub groups: Option<Vec<usize>>,
    /// Seconds added to every job: a cluster's dispatch latency (from dab cluster-trace).
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub overhead: f64,
    /// Split partitions of more than S states into pieces (100000, 1e5, ...; only this split is
    /// tried).
    #[arg(long, value_name = "S", value_parser = super::count)]
    pub split: Option<u64>,
    /// The memory a run may fill when no --mem-limit is given (4G, 128GB, ...; default: this
    /// machine's, or its cgroup's limit where one is set): candidates whose peak passes 90 % of
    /// it do not fit. Give a bigger machine's with --threads to plan for it.
    #[arg(long, value_name = "BYTES", value_parser = super::bytes, conflicts_with = "mem_limit")]
    pub machine_memory: Option<u64>,
    /// Use the cost model as it is: no probe of this machine (by default a short fixed
    /// workload, under 2 s, is timed here on one and on all threads, and the model scaled to it).
    #[arg(long)]
    pub no_probe: bool,
}

impl PlanCommon {
    /// The planner's options; `store`: the run writes a store.
    pub fn options(&self, store: bool) -> Result<PlanOptions, Box<dyn std::error::Error>> {
        let overhead = super::nanoseconds("--overhead", self.overhead)?;
        if self.split == Some(0) {
            return Err("--split must be at least 1 state".into());
        }
        let threads = super::planned_threads(self.threads)? as u32;
        // Without --threads (or RAYON_NUM_THREADS), the planner picks the count that pays.
        let pick_threads = self.threads.is_none() && std::env::var("RAYON_NUM_THREADS").is_err();
        let machine_threads = dab::support::hardware_threads() as u32;
        let model = load_model(self.cost.as_deref())?;
        let (model, range) = match self.no_probe {
            true => (model, dab::plan::PredictedRange::MODEL),
            false => probed_with_range(&model),
        };
        if threads > model.hardware_threads {
            super::note!(
                "note: planning for {threads} threads on a machine of {} hardware threads: contention past them is \
                 taken as at {} (a bigger machine or a cluster, not this one oversubscribed)",
                model.hardware_threads,
                model.hardware_threads
            );
        }
        Ok(PlanOptions {
            threads,
            mem_limit: self.mem_limit,
            model,
            groups: self.groups.clone(),
            store,
            overhead,
            split: self.split,
            at_threads_only: false,
            memory: self.machine_memory.or_else(dab::support::machine_memory_bytes),
            pick_threads,
            machine_threads,
            range: Some(range),
        })
    }
}

/// The cost model named by `--cost`; without one, this kernel's model file in the current folder
/// if there is one, else the model built into dab (with a note: it was measured elsewhere).
pub fn load_model(path: Option<&Path>) -> Result<CostModel, String> {
    match dab::plan::load_model(path) {
        Ok((model, dab::plan::ModelSource::BuiltIn)) => {
            super::note!(
                "note: no {} here; using the cost model built into dab, measured on {} \
                 (run dab calibrate to measure this machine)",
                model_name(Simd::current()),
                model.machine
            );
            Ok(model)
        }
        Ok((model, dab::plan::ModelSource::File)) => Ok(model),
        // Its message already says so.
        Err(e @ (CostError::Format { .. } | CostError::NoCost { .. })) => Err(e.to_string()),
        Err(e) => Err(format!("{e} (run dab calibrate to make one)")),
    }
}

/// `model` carried to this machine by a probe, with a note on standard error of what it did.
pub fn probed(model: &CostModel) -> CostModel {
    probed_with_range(model).0
}

/// [`probed`], with the range a run should fall in around a prediction, given what the probe
/// saw of the machine.
pub fn probed_with_range(model: &CostModel) -> (CostModel, dab::plan::PredictedRange) {
    let (probed, steady) = dab::calibrate::probe_model_steady(model);
    for line in dab::calibrate::describe(model, &probed, &steady) {
        super::note!("{line}");
    }
    let range = dab::calibrate::predicted_range(model, probed.same_machine, &steady);
    (probed.model, range)
}

/// Prints the candidates and the choice.
pub fn print_choice(planned: &dab::plan::PlanChoice) {
    println!("{:<32} {:>7} {:>12} {:>12} {:>5}", "candidate", "jobs", "predicted s", "peak memory", "fits");
    for (i, c) in planned.candidates.iter().enumerate() {
        // Known where the simulation ran: a candidate past the machine's memory has both.
        let known = c.candidate.predicted_seconds.is_finite();
        let peak = if known { human_bytes(c.candidate.peak_memory) } else { "-".into() };
        let predicted = if known { format!("{:.3}", c.candidate.predicted_seconds) } else { "-".into() };
        println!(
            "{:<32} {:>7} {:>12} {:>12} {:>5}{}",
            c.label(),
            thousands(c.candidate.jobs as u64),
            predicted,
            peak,
            if c.candidate.fits { "yes" } else { "no" },
            if i == planned.chosen { "  <- chosen" } else { "" }
        );
    }
    println!("chose {}", planned.plan.reason);
    print_threads(planned);
}

/// The chosen plan's predicted time on each thread count up to this machine's, and on a few
/// more (a machine like this one with more cores), with the count planned for marked.
fn print_threads(planned: &dab::plan::PlanChoice) {
    let plan = &planned.plan;
    let machine = plan.machine_threads.unwrap_or(plan.threads);
    let one = plan.predicted(1).map(|p| p.makespan_seconds);
    let shown =
        plan.predictions.iter().filter(|p| p.procs <= machine || p.procs.is_power_of_two() || p.procs == plan.threads);
    println!("{:>7} {:>14} {:>23} {:>8}", "threads", "predicted", "a run between", "speedup");
    for p in shown {
        let speedup = one.map_or("-".into(), |o| format!("{:.2}", o / p.makespan_seconds));
        let range = plan.range.map_or("-".into(), |r| {
            let (low, high) = r.around(p.makespan_seconds);
            format!("{}-{}", short_seconds(low).trim_end_matches(" s"), short_seconds(high))
        });
        let mut marks = Vec::new();
        if p.procs == plan.threads {
            marks.push("planned".to_string());
        }
        if planned.threads.as_ref().is_some_and(|t| t.fastest.0 == p.procs && t.picked != p.procs) {
            marks.push("fastest".into());
        }
        if p.procs > machine {
            marks.push(format!("a machine like this one with {} threads", p.procs));
        }
        let marks = if marks.is_empty() { String::new() } else { format!("  <- {}", marks.join("; ")) };
        println!("{:>7} {:>14} {:>23} {:>8}{marks}", p.procs, short_seconds(p.makespan_seconds), range, speedup);
    }
    if let Some(pick) = &planned.threads {
        match &pick.why_fewer {
            Some(why) => println!("{why}"),
            None => println!(
                "planned on {}: fewer would be more than {:.0} % slower",
                dab::support::count_of(u64::from(pick.picked), "thread"),
                100.0 * dab::plan::THREADS_TIE
            ),
        }
    }
}

/// `bytes` rounded down, in a form `--mem-limit` reads (`21GB`, `36MB`).
pub fn mem_limit_text(bytes: u64) -> String {
    match bytes >= 1_000_000_000 {
        true => format!("{}GB", bytes / 1_000_000_000),
        false => format!("{}MB", (bytes / 1_000_000).max(1)),
    }
}

/// `dab::plan::plan`, with the commands that would work added where nothing fits this
/// machine's memory (`board` and `lines`: the position as the commands name it).
pub fn plan_or_say(
    root: dab::game::Position,
    opts: &PlanOptions,
) -> Result<dab::plan::PlanChoice, Box<dyn std::error::Error>> {
    match dab::plan::plan(root, opts) {
        Err(e @ dab::plan::PlannerError::NoFitInMemory { memory, .. }) => {
            let store = matches!(&e, dab::plan::PlannerError::NoFitInMemory { store: Some(_), .. });
            let position = match root.drawn.is_empty() {
                true => root.board.to_string(),
                false => format!("{} --lines {}", root.board, root.to_line_string()),
            };
            let limit = mem_limit_text(dab::plan::usable_memory(memory));
            let mut commands = Vec::new();
            if store {
                commands.push(format!("dab run {position} --store DIR --mem-limit {limit}"));
            }
            commands.push(format!("dab plan {position} --nodes 4,8,16 (a cluster's nodes, then dab export)"));
            Err(format!("{e}; what would work: {}", commands.join("; or ")).into())
        }
        r => Ok(r?),
    }
}

pub fn run(mut args: PlanArgs) -> CliResult {
    let root = args.position.position()?;
    let sweep = args.nodes.as_ref().is_some_and(|n| n.len() > 1);
    if args.keep_lines.is_some() && !args.with_store && args.nodes.is_none() {
        return Err("--keep-lines needs --with-store (a run's store) or --nodes (a cluster run's store)".into());
    }
    if sweep && args.output.is_some() {
        return Err("a sweep of several --nodes writes no plan: give one node count with -o/--output".into());
    }
    // On a cluster the dispatch delay is a task's, and the plan is made for a node's threads.
    let task_overhead = args.nodes.as_ref().map(|_| std::mem::take(&mut args.common.overhead));
    if args.nodes.is_some() {
        args.common.threads = args.threads_per_node.map(|n| n as usize).or(args.common.threads);
    }
    let mut opts = args.common.options(args.with_store)?;
    if args.nodes.is_some() {
        opts = opts.for_cluster();
    }
    let mut planned = plan_or_say(root, &opts)?;
    let board = planned.plan.board.clone();
    let beside = args.output.as_deref().map(super::folder_of);
    let dir = args.out.or(beside).unwrap_or_else(|| match sweep {
        true => Path::new(dab::support::RUNS_DIR).join("cluster").join(&board),
        false => dab::pipeline::default_dir(&board, root.drawn.is_empty()),
    });
    let path = args.output.unwrap_or_else(|| dir.join("plan.json"));
    if !args.json {
        print_choice(&planned);
    }
    let disk = match args.with_store {
        true => Some(say_store(&planned.plan, args.keep_lines, args.json)?),
        false => None,
    };
    if let (Some(nodes), Some(overhead)) = (&args.nodes, task_overhead) {
        let start = std::time::Instant::now();
        let book = Some(args.keep_lines.unwrap_or(dab::plan::DEFAULT_BOOK_LINES));
        let rows = planned.pack_for_nodes(&opts, nodes, overhead, args.store_bandwidth, book)?;
        let took = start.elapsed().as_secs_f64();
        if sweep {
            let bandwidth = args.store_bandwidth.map_or("unlimited".into(), |b| format!("{}/s", human_bytes(b)));
            let threads = planned.plan.threads;
            let title =
                format!("{board} on nodes of {threads} threads: store {bandwidth}, dispatch {overhead} s a task");
            return write_sweep(&rows, took, &title, &dir, args.json);
        }
        say_cluster(&planned.plan, &rows[0], took, args.json);
    }
    let files = dab::report::write_plan(&planned, &path, &dir)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&PlanJson::new(&planned, &path, disk))?);
    }
    super::wrote(&dir, &files);
    Ok(())
}

/// The store a run of `plan` fills (`keep_lines`: keeping only the book of partitions of at
/// most that many lines), printed unless `json`; returns the peak of its files.
fn say_store(plan: &dab::plan::Plan, keep_lines: Option<usize>, json: bool) -> Result<u64, Box<dyn std::error::Error>> {
    let store = dab::plan::predict_store(plan, &plan.check()?, plan.threads, keep_lines)?;
    let book = keep_lines.map_or(String::new(), |k| format!(" (the book of at most {k} lines)"));
    super::say!(
        json,
        "store: values in files peak at {} on {}; {} left at the end{book}",
        human_bytes(store.peak),
        dab::support::count_of(u64::from(plan.threads), "thread"),
        human_bytes(store.left)
    );
    Ok(store.peak)
}

/// The two-level plan `plan`, packed as `row` says in `took` seconds, printed unless `json`.
fn say_cluster(plan: &dab::plan::Plan, row: &dab::plan::ClusterRow, took: f64, json: bool) {
    let c = plan.cluster.as_ref().expect("packed");
    super::say!(
        json,
        "cluster: {} of {} packed into {} ({took:.1} s to pack): predicted {:.3} s; store traffic {} read, {} \
         written; store peak {} ({}); a node holds at most {}; chose {}",
        dab::support::count_of(u64::from(row.nodes), "node"),
        dab::support::count_of(u64::from(plan.threads), "thread"),
        dab::support::count_of(plan.tasks.len() as u64, "task"),
        c.predicted_seconds,
        human_bytes(c.store_read_bytes),
        human_bytes(c.store_write_bytes),
        human_bytes(row.store_peak_bytes),
        c.keep_lines.map_or("every file kept".into(), |k| format!(
            "files go once every job that reads them has run; the book of at most {k} lines and the root's inputs stay"
        )),
        human_bytes(row.node_memory_bytes),
        row.candidate,
    );
}

/// A sweep of node counts: its rows printed (as JSON with `json`), and written with a chart
/// titled `title` into `dir`.
fn write_sweep(rows: &[dab::plan::ClusterRow], took: f64, title: &str, dir: &Path, json: bool) -> CliResult {
    match json {
        true => println!("{}", serde_json::to_string_pretty(rows)?),
        false => print_sweep(rows, took),
    }
    let files = dab::report::write_cluster_sweep(rows, title, dir)?;
    super::wrote(dir, &files);
    Ok(())
}

/// The sweep's table: one line a node count.
fn print_sweep(rows: &[dab::plan::ClusterRow], took: f64) {
    println!(
        "{:>6} {:>8} {:>14} {:>9} {:>12} {:>12} {:>12} {:>12}  candidate",
        "nodes", "tasks", "predicted s", "speedup", "store read", "written", "store peak", "node memory"
    );
    let first = rows.first().map_or(1.0, |r| r.predicted_seconds * f64::from(r.nodes));
    for r in rows {
        println!(
            "{:>6} {:>8} {:>14.1} {:>9.2} {:>12} {:>12} {:>12} {:>12}  {}",
            r.nodes,
            thousands(r.tasks as u64),
            r.predicted_seconds,
            first / r.predicted_seconds,
            human_bytes(r.store_read_bytes),
            human_bytes(r.store_write_bytes),
            human_bytes(r.store_peak_bytes),
            human_bytes(r.node_memory_bytes),
            r.candidate
        );
    }
    println!(
        "planned {} node counts in {took:.1} s; speedup: against the first count's time times its nodes",
        rows.len()
    );
}
