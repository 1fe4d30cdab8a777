//! Simulation reports: sweeps of one or more graphs under one or more policies, written as
//! `sweep.csv` and the charts (speedup, busy processors over time, Gantt) in one folder.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::sched::{Contention, Graph, Policy, Procs, SimError, SimOptions, Simulator, SweepRow};

use super::chart;
use super::chart::{BarScale, BusySeries, ChartError, GanttBar, SpeedupPoint, SpeedupSeries};

/// A graph and the label it has in tables and charts (its file name without extension).
pub struct Input {
    /// The graph's name in `sweep.csv`, the legends and the Gantt chart files.
    pub label: String,
    /// The job graph to simulate.
    pub graph: Graph,
}

/// What `dab sim` sweeps and charts.
pub struct ReportOptions {
    /// Processor counts of the sweep.
    pub procs: Vec<Procs>,
    /// Ready-queue policies of the sweep; the busy and Gantt charts use the first only.
    pub policies: Vec<Policy>,
    /// Overhead, transfers, memory limit (the policy is taken from `policies`).
    pub sim: SimOptions,
    /// Processor counts for the busy-processors chart.
    pub busy: Vec<Procs>,
    /// Processor count for the Gantt chart.
    pub gantt: Option<Procs>,
    /// Unit of the costs (`states`, `ns`), for the axes.
    pub unit: String,
    /// How much slower jobs run with more of them running at once (a cost model's curve;
    /// none for costs in states).
    pub contention: Contention,
}

/// One line of `sweep.csv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Record {
    /// The graph's label.
    pub graph: String,
    /// The policy simulated.
    pub policy: Policy,
    /// The simulation's numbers at one processor count.
    #[serde(flatten)]
    pub row: SweepRow,
}

const COLUMNS: [&str; 14] = [
    "graph",
    "policy",
    "threads",
    "makespan_ticks",
    "work_ticks",
    "critical_path_ticks",
    "lower_bound_ticks",
    "level_bound_ticks",
    "graham_bound_ticks",
    "speedup",
    "efficiency",
    "avg_busy",
    "max_busy",
    "peak_value_bytes",
];

impl Record {
    fn fields(&self) -> [String; 14] {
        let r = &self.row;
        [
            self.graph.clone(),
            self.policy.to_string(),
            r.procs.to_string(),
            r.makespan.to_string(),
            r.work.to_string(),
            r.critical_path.to_string(),
            r.lower_bound.to_string(),
            r.level_bound.to_string(),
            r.graham_bound.to_string(),
            r.speedup.to_string(),
            r.efficiency.to_string(),
            r.avg_busy.to_string(),
            r.max_busy.to_string(),
            r.peak_memory.to_string(),
        ]
    }
}

/// Why a sweep or its report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The simulator refused a graph under a policy: a bandwidth of 0, or a memory limit some
    /// job cannot fit under.
    #[error("graph '{graph}', policy {policy}: {source}")]
    Sim {
        /// The graph's label.
        graph: String,
        /// The policy simulated.
        policy: Policy,
        /// The simulator's error.
        source: SimError,
    },
    /// A chart could not be drawn or written.
    #[error("{0}")]
    Chart(#[from] ChartError),
    /// `sweep.csv` could not be written.
    #[error("cannot write '{path}': {source}")]
    Write {
        /// The CSV file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

fn simulator<'g>(input: &'g Input, policy: Policy, opts: &ReportOptions) -> Result<Simulator<'g>, ReportError> {
    Simulator::new(&input.graph, SimOptions { policy, ..opts.sim })
        .map(|sim| sim.with_contention(&opts.contention))
        .map_err(sim_error(input, policy))
}

fn sim_error(input: &Input, policy: Policy) -> impl FnOnce(SimError) -> ReportError + '_ {
    move |source| ReportError::Sim { graph: input.label.clone(), policy, source }
}

/// Every graph under every policy for every processor count.
pub fn sweep(inputs: &[Input], opts: &ReportOptions) -> Result<Vec<Record>, ReportError> {
    let mut records = Vec::new();
    for input in inputs {
        for &policy in &opts.policies {
            let sim = simulator(input, policy, opts)?;
            let rows = sim.sweep(&opts.procs).map_err(sim_error(input, policy))?;
            records.extend(rows.into_iter().map(|row| Record { graph: input.label.clone(), policy, row }));
        }
    }
    Ok(records)
}

/// The sweep as CSV text.
pub fn to_csv(records: &[Record]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(COLUMNS).expect("write to memory");
    for r in records {
        w.write_record(r.fields()).expect("write to memory");
    }
    String::from_utf8(w.into_inner().expect("write to memory")).expect("UTF-8")
}

/// Writes `sweep.csv` and the charts into `dir`; returns the files written.
pub fn write(
    dir: &Path,
    inputs: &[Input],
    records: &[Record],
    opts: &ReportOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    let csv_path = dir.join("sweep.csv");
    crate::support::write_atomic(&csv_path, to_csv(records).as_bytes())
        .map_err(|source| ReportError::Write { path: csv_path.clone(), source })?;
    let mut written = vec![csv_path];
    written.extend(write_speedup(dir, inputs, records, opts)?);
    written.extend(write_busy(dir, inputs, opts)?);
    written.extend(write_gantts(dir, inputs, opts)?);
    Ok(written)
}

/// The two files of the chart `<dir>/<name>`, as [`write`] lists them.
fn chart_files(dir: &Path, name: &str) -> [PathBuf; 2] {
    let stem = dir.join(name);
    [stem.with_extension("svg"), stem.with_extension("png")]
}

/// The speedup chart of every graph and policy swept on limited processor counts, if any was;
/// returns its files.
fn write_speedup(
    dir: &Path,
    inputs: &[Input],
    records: &[Record],
    opts: &ReportOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    let several = inputs.len() * opts.policies.len() > 1;
    let series: Vec<SpeedupSeries> = inputs
        .iter()
        .flat_map(|input| opts.policies.iter().map(move |&policy| (input, policy)))
        .filter_map(|(input, policy)| {
            let rows: Vec<&SweepRow> = records
                .iter()
                .filter(|r| r.graph == input.label && r.policy == policy && matches!(r.row.procs, Procs::Limited(_)))
                .map(|r| &r.row)
                .collect();
            let label = if several { format!("{} ({policy})", input.label) } else { input.label.clone() };
            // A graph's bounds are its own, whatever the policy: drawn once, with the first.
            speedup_series(label, &rows, policy == opts.policies[0])
        })
        .collect();
    if series.is_empty() {
        return Ok(Vec::new());
    }
    let graphs: Vec<&str> = inputs.iter().map(|i| i.label.as_str()).collect();
    let title = format!("{}: simulated speedup against processors", graphs.join(", "));
    chart::speedup(&dir.join("speedup"), &title, "processors", &series, None)?;
    Ok(chart_files(dir, "speedup").to_vec())
}

/// One graph and policy's speedup curve from its rows on limited processor counts, with its
/// bounds; none without rows.
fn speedup_series(label: String, rows: &[&SweepRow], bounds: bool) -> Option<SpeedupSeries> {
    let first = rows.first()?;
    let w = first.work as f64;
    Some(SpeedupSeries {
        label,
        ceiling: w / first.critical_path.max(1) as f64,
        bounds,
        chosen: false,
        points: rows
            .iter()
            .map(|r| SpeedupPoint {
                procs: match r.procs {
                    Procs::Limited(p) => p,
                    Procs::Unlimited => unreachable!("filtered"),
                },
                speedup: r.speedup,
                bound: w / r.lower_bound.max(1.0),
            })
            .collect(),
        measured: None,
    })
}

/// The busy-processors chart: every graph under every policy at each of `opts.busy`, if any;
/// returns its files.
fn write_busy(dir: &Path, inputs: &[Input], opts: &ReportOptions) -> Result<Vec<PathBuf>, ReportError> {
    let mut busy = Vec::new();
    let several = opts.policies.len() > 1;
    for input in inputs {
        // One dash pattern a policy: a graph's curves under two policies often coincide.
        for (dash, &policy) in opts.policies.iter().enumerate() {
            let sim = simulator(input, policy, opts)?;
            for &p in &opts.busy {
                let run = sim.run(p, true).map_err(sim_error(input, policy))?;
                let label = if several {
                    format!("{}, P = {p}, {policy}", input.label)
                } else {
                    format!("{}, P = {p}", input.label)
                };
                busy.push(BusySeries { label, steps: run.busy, dash });
            }
        }
    }
    if busy.is_empty() {
        return Ok(Vec::new());
    }
    let graphs: Vec<&str> = inputs.iter().map(|i| i.label.as_str()).collect();
    let policies: Vec<String> = opts.policies.iter().map(|p| p.to_string()).collect();
    let title = format!("{}: processors busy over time ({})", graphs.join(", "), policies.join(", "));
    chart::busy(&dir.join("busy"), &title, &opts.unit, &busy)?;
    Ok(chart_files(dir, "busy").to_vec())
}

/// A Gantt chart per graph and policy on `opts.gantt` processors (`gantt`, with a suffix
/// `-<graph>` for several graphs and `-<policy>` for several policies); returns their files.
fn write_gantts(dir: &Path, inputs: &[Input], opts: &ReportOptions) -> Result<Vec<PathBuf>, ReportError> {
    let Some(p) = opts.gantt else { return Ok(Vec::new()) };
    let mut written = Vec::new();
    for input in inputs {
        let depths = input.graph.depths();
        for &policy in &opts.policies {
            let mut name = "gantt".to_string();
            if inputs.len() > 1 {
                name += &format!("-{}", input.label);
            }
            if opts.policies.len() > 1 {
                name += &format!("-{policy}");
            }
            write_gantt(&dir.join(&name), input, &depths, policy, p, opts)?;
            written.extend(chart_files(dir, &name));
        }
    }
    Ok(written)
}

/// The Gantt chart `<stem>.svg`/`.png` of one graph's schedule under `policy` on `p`
/// processors (unlimited: as many lanes as were ever busy at once), each bar coloured by its
/// job's depth in `depths` ([`Graph::depths`](crate::sched::Graph::depths)).
fn write_gantt(
    stem: &Path,
    input: &Input,
    depths: &[u32],
    policy: Policy,
    p: Procs,
    opts: &ReportOptions,
) -> Result<(), ReportError> {
    let sim = simulator(input, policy, opts)?;
    let run = sim.run(p, true).map_err(sim_error(input, policy))?;
    let bars: Vec<GanttBar> = run
        .spans
        .iter()
        .map(|s| GanttBar {
            proc: s.proc,
            start: s.start,
            end: s.end,
            label: input.graph.jobs[s.job as usize].name.clone(),
            level: depths[s.job as usize],
        })
        .collect();
    // A schedule of n jobs never has more than n busy at once: more lanes would be empty.
    let jobs = u32::try_from(input.graph.len()).unwrap_or(u32::MAX).max(1);
    let lanes = match p {
        Procs::Limited(p) => p.min(jobs),
        Procs::Unlimited => run.row.max_busy.max(1),
    };
    let scale = BarScale { time_unit: &opts.unit, level: "depth (jobs before it on the longest chain)" };
    chart::gantt(stem, &format!("{}: P = {p} ({policy})", input.label), &scale, lanes, &bars)?;
    Ok(())
}

/// The worst makespan / bound of a sweep and where it happens: how far the schedule can be
/// from the best possible one.
pub fn worst_ratio<'a>(
    rows: impl IntoIterator<Item = &'a SweepRow>,
    bound: impl Fn(&SweepRow) -> f64,
) -> Option<(f64, Procs)> {
    rows.into_iter()
        .map(|r| (r.makespan as f64 / bound(r).max(1.0), r.procs))
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
}

/// One line per graph and policy: work, critical path, the best speedup and the worst
/// distance from the lower bound on the simulated makespan, each column header with its unit
/// (`unit`: the graph's cost unit, as the chart axes name it).
pub fn summary(records: &[Record], unit: &str) -> String {
    let (work, cp) = (format!("work ({unit})"), format!("cp ({unit})"));
    let mut out = format!(
        "{:<32} {:<7} {:>12} {:>12} {:>9} {:>18} {:>26} {:>19}\n",
        "graph", "policy", work, cp, "W/CP (x)", "best speedup (x)", "worst makespan/bound (x)", "peak values (bytes)"
    );
    let mut keys: Vec<(&str, Policy)> = Vec::new();
    for r in records {
        if !keys.contains(&(r.graph.as_str(), r.policy)) {
            keys.push((r.graph.as_str(), r.policy));
        }
    }
    for (graph, policy) in keys {
        let rows: Vec<&SweepRow> =
            records.iter().filter(|r| r.graph == graph && r.policy == policy).map(|r| &r.row).collect();
        let first = rows[0];
        let best =
            rows.iter().max_by(|a, b| a.speedup.total_cmp(&b.speedup).then(b.procs.cmp(&a.procs))).expect("rows");
        let (ratio, at) = worst_ratio(rows.iter().copied(), |r| r.lower_bound).expect("rows");
        let peak = rows.iter().map(|r| r.peak_memory).max().unwrap_or(0);
        out.push_str(&format!(
            "{:<32} {:<7} {:>12.3e} {:>12.3e} {:>9.2} {:>18} {:>26} {:>19.3e}\n",
            graph,
            policy.to_string(),
            first.work as f64,
            first.critical_path as f64,
            first.work as f64 / first.critical_path.max(1) as f64,
            format!("{:.2} at P = {}", best.speedup, best.procs),
            format!("{ratio:.3} at P = {at}"),
            peak as f64,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Input, ReportOptions, summary, sweep};
    use crate::sched::{Contention, Graph, Job, Policy, Procs, SimOptions};

    #[test]
    fn every_numeric_column_of_the_summary_names_its_unit() {
        let job = |name: &str, cost, deps: &[&str]| Job {
            name: name.into(),
            cost,
            states: cost,
            bytes: 8,
            deps: deps.iter().map(|d| d.to_string()).collect(),
        };
        let graph = Graph::new(vec![job("a", 4, &[]), job("b", 2, &["a"]), job("c", 2, &["a"])], None).unwrap();
        let opts = ReportOptions {
            procs: vec![Procs::Limited(1), Procs::Limited(2)],
            policies: vec![Policy::Cp],
            sim: SimOptions::default(),
            busy: Vec::new(),
            gantt: None,
            unit: "ns".into(),
            contention: Contention::default(),
        };
        let records = sweep(&[Input { label: "g".into(), graph }], &opts).unwrap();
        let text = summary(&records, "ns");
        let header = text.lines().next().unwrap();
        for column in
            ["work (ns)", "cp (ns)", "W/CP (x)", "best speedup (x)", "worst makespan/bound (x)", "peak values (bytes)"]
        {
            assert!(header.contains(column), "{header}");
        }
        // W = 8, CP = 6; the best speedup is 8/6 on 2 processors.
        let row = text.lines().nth(1).unwrap();
        assert!(row.contains("1.33 at P = 2") && row.contains("8.000e0") && row.contains("6.000e0"), "{row}");
    }
}
