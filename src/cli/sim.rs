//! `dab sim`: sweep processor counts over one or more graphs; `sweep.csv` and charts in a
//! report folder, a summary (or the sweep as JSON) on standard output.

use std::path::PathBuf;

use clap::Args;

use dab::report::sweep::{self, Input, ReportOptions};
use dab::sched::{CostModel, Graph, Policy, Procs, ProcsList, SimOptions};

use super::{CliResult, choice};

#[derive(Args)]
pub struct SimArgs {
    /// Graph files (CSV or the thesis's format; '-' for standard input); several are drawn on
    /// the same axes.
    #[arg(required = true, value_name = "GRAPH")]
    pub graphs: Vec<PathBuf>,
    /// Processor counts to sweep: N, A..B or unlimited, separated by commas.
    #[arg(long = "sweep", value_name = "LIST", default_value = "1..64")]
    pub procs: ProcsList,
    #[command(flatten)]
    pub not_threads: super::SweepNotThreads,
    /// Ready-queue policies, separated by commas.
    #[arg(long, value_parser = choice::<Policy>(), value_delimiter = ',', default_value = "fifo")]
    pub policy: Vec<Policy>,
    /// Dispatch latency added to every job, in the graph's unit (ticks; ns for a graph made
    /// with --cost).
    #[arg(long, value_name = "TICKS", default_value_t = 0, value_parser = super::count)]
    pub overhead: u64,
    /// Move each job's inputs to its processor at this many bytes per tick of the graph's unit
    /// (1000000, 1e6, ...).
    #[arg(long, value_name = "BYTES", value_parser = super::count)]
    pub bandwidth: Option<u64>,
    /// Most bytes of job values resident at once (8G, 500MB, ...): values still needed are
    /// dropped to the store and read back, and a job starts only when it fits.
    #[arg(long, value_name = "BYTES", value_parser = super::bytes)]
    pub mem_limit: Option<u64>,
    /// Processor counts for the busy-processors chart (default: 25 and the largest swept).
    #[arg(long, value_name = "LIST")]
    pub busy: Option<ProcsList>,
    /// Processor count for the Gantt chart (default: 25, or the largest swept if smaller).
    #[arg(long, value_name = "P")]
    pub gantt: Option<ProcsList>,
    /// Report folder (default: reports/runs/<graph names joined by '+'>).
    #[arg(long, value_name = "DIR", value_parser = super::out_dir)]
    pub out: Option<PathBuf>,
    /// Unit of the graph costs, for the chart axes (ns with --cost).
    #[arg(long, default_value = "ticks")]
    pub unit: String,
    /// The cost model the graphs were costed with (dab graph --cost): its contention curve
    /// slows jobs by the number running at each moment and its worker's time between jobs is
    /// added to each, carried to this machine by a probe.
    #[arg(long, value_name = "MODEL")]
    pub cost: Option<PathBuf>,
    /// With --cost: use the model's curve as it is, without probing this machine.
    #[arg(long, requires = "cost")]
    pub no_probe: bool,
    /// Print the sweep as JSON instead of the summary.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: SimArgs) -> CliResult {
    args.not_threads.check("sim")?;
    if args.graphs.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err("'-' (standard input) may be given as one graph only".into());
    }
    let inputs = args
        .graphs
        .iter()
        .map(|path| {
            let label = match path.file_stem() {
                _ if path.as_os_str() == "-" => "stdin".to_string(),
                Some(s) => s.to_string_lossy().into_owned(),
                None => "graph".into(),
            };
            Graph::read(path).map(|graph| Input { label, graph })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let largest = args.procs.0.iter().rev().find_map(|p| match p {
        Procs::Limited(p) => Some(*p),
        Procs::Unlimited => None,
    });
    let default_p = |p: u32| Procs::Limited(largest.map_or(p, |l| l.min(p)));
    let busy = match args.busy {
        Some(list) => list.0,
        None => {
            let mut v = vec![default_p(25), largest.map_or(Procs::Unlimited, Procs::Limited)];
            v.dedup();
            v
        }
    };
    let gantt = match args.gantt {
        Some(ProcsList(list)) if list.len() == 1 => list[0],
        Some(_) => return Err("--gantt takes one processor count".into()),
        None => default_p(25),
    };
    let model = args.cost.as_deref().map(|p| super::plan::load_model(Some(p))).transpose()?;
    let model = model.map(|m| if args.no_probe { m } else { super::plan::probed(&m) });
    let unit = if model.is_some() && args.unit == "ticks" { "ns".to_string() } else { args.unit };
    let opts = ReportOptions {
        procs: args.procs.0,
        policies: args.policy,
        // Graphs costed with a model are in its nanoseconds: its worker's time between jobs
        // is added to each, as `dab plan` does.
        sim: SimOptions {
            overhead: args.overhead,
            bandwidth: args.bandwidth,
            mem_limit: args.mem_limit,
            ..model.as_ref().map(CostModel::between_jobs).unwrap_or_default()
        },
        busy,
        gantt: Some(gantt),
        unit,
        contention: model.map(|m| m.contention).unwrap_or_default(),
    };
    let records = sweep::sweep(&inputs, &opts)?;
    let dir = args
        .out
        .unwrap_or_else(|| super::runs_path(&inputs.iter().map(|i| i.label.as_str()).collect::<Vec<_>>().join("+")));
    let written = sweep::write(&dir, &inputs, &records, &opts)?;
    if args.json {
        println!("{}", serde_json::to_string(&records)?);
    } else {
        print!("{}", sweep::summary(&records, &opts.unit));
    }
    super::wrote(&dir, &written);
    Ok(())
}
