//! What Slurm recorded of a run, as a trace `dab compare` reads. Two sources: the
//! `jobcomp/filetxt` log (one line a finished job, `Key=Value` fields: `JobId=.. Name=dab-<key>
//! JobState=COMPLETED .. StartTime=.. EndTime=.. NodeList=.. SubmitTime=.. ArrayJobId=..
//! ArrayTaskId=..`) and `sacct --parsable2` output with a header naming at least JobID,
//! JobName, Start, End and State (Submit and NodeList when there). Times are whole seconds of
//! local time, counted from the earliest submission (or start) of the run. Slurm has no thread
//! numbers, so each node's jobs are laid on the fewest lanes that do not overlap, and the lanes
//! of all nodes numbered in turn. The same records give the per-job dispatch overhead: how long
//! a job that had a free slot waited after it became ready. For a two-level plan the records
//! are its cluster tasks (`dab-t<i>`), one at a time a node, and the trace is one of tasks.
//!
//! A record that makes no sense is refused with its line: a date that is not one (Slurm's
//! `Unknown` and `None` are no date, and such a record is skipped), an end before its start, a
//! submission after its start, the same run of a job twice, a job that started before a job it
//! needs ended, or more jobs at once on a node than `--slots`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::exec::TraceRow;
use crate::plan::{Plan, TASK_TICKS_PER_SECOND, run_tasks};
use crate::sched::Graph;
use crate::support::{one_line, quantile};

/// A finished Slurm job (or array task), as logged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Slurm's job id (`JobId=`, or sacct's `JobID`, `<array>_<task>` for a task).
    pub id: String,
    /// The line of the record in its file, from 1.
    pub line: usize,
    /// The Slurm job name: `dab-<job>`, or `dab-<key>` for an array task.
    pub name: String,
    /// The array task, for a task of a job array.
    pub task: Option<u32>,
    /// Slurm's state (`COMPLETED`, `FAILED`, ...); only completed records count.
    pub state: String,
    /// Seconds (local time, from 1970).
    pub submit: Option<i64>,
    /// Seconds (local time, from 1970) it started.
    pub start: i64,
    /// Seconds (local time, from 1970) it ended.
    pub end: i64,
    /// The node it ran on (`NodeList`); empty when not recorded.
    pub node: String,
}

/// Why Slurm's record could not be turned into a trace; names the file.
#[derive(Debug, thiserror::Error)]
pub enum ClusterTraceError {
    /// The file could not be read.
    #[error("cannot read '{path}': {source}")]
    Read {
        /// The log or `sacct` file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A line is not a record: a word that is not `Key=Value`, a missing field or column, too
    /// few fields, or an array task that is not a number.
    #[error("'{path}' line {line}: {}", one_line(message))]
    Line {
        /// The log or `sacct` file.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The plan's jobs (or cluster tasks) are not a valid graph (the reason).
    #[error("the plan's jobs: {}", one_line(.0))]
    Plan(String),
    /// No record is a completed job of the plan.
    #[error(
        "'{path}' has no completed job of the plan (job names dab-<job>, dab-<key> with an array task, or dab-<task> for a plan of cluster tasks)"
    )]
    NoJobs {
        /// The log or `sacct` file.
        path: PathBuf,
    },
}

/// Seconds from 1970 of `YYYY-MM-DDTHH:MM:SS` (no zone: Slurm writes local time, and only
/// differences are used), for years 1970 to 9999. Ok(None) for Slurm's `Unknown` and `None`
/// (and an empty field): no date. Err says why any other text is not a date.
pub fn timestamp(s: &str) -> Result<Option<i64>, String> {
    if matches!(s.trim(), "Unknown" | "None" | "") {
        return Ok(None);
    }
    let not = || format!("'{s}' is not a date YYYY-MM-DDTHH:MM:SS");
    let (date, time) = s.split_once('T').ok_or_else(not)?;
    // Digits only, at most 4 of them: no sign, and nothing a later sum could overflow with.
    let num = |t: &str| {
        (!t.is_empty() && t.len() <= 4 && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse().ok()).flatten()
    };
    let d: Vec<i64> = date.split('-').map(num).collect::<Option<_>>().ok_or_else(not)?;
    let t: Vec<i64> = time.split(':').map(num).collect::<Option<_>>().ok_or_else(not)?;
    let (&[y, m, day], &[h, min, sec]) = (d.as_slice(), t.as_slice()) else { return Err(not()) };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1970..=9999).contains(&y) {
        return Err(format!("'{s}': the year must be 1970 to 9999"));
    }
    if !(1..=12).contains(&m) || !(1..=month_days[m as usize - 1]).contains(&day) || h > 23 || min > 59 || sec > 60 {
        return Err(format!("'{s}' is not a date: no such month, day or time of day"));
    }
    // Days from civil (Howard Hinnant's algorithm), March-based years.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Ok(Some(days * 86_400 + h * 3600 + min * 60 + sec))
}

/// The checks every record gets, whichever file it came from: its dates in order, and not the
/// same run of a job as an earlier record (`seen`: (job id, start) -> line).
fn check_record(r: &Record, seen: &mut HashMap<(String, i64), usize>, path: &Path) -> Result<(), ClusterTraceError> {
    let bad = |message: String| ClusterTraceError::Line { path: path.into(), line: r.line, message };
    if r.end < r.start {
        return Err(bad(format!("job {} '{}' ends {} s before it starts", r.id, r.name, r.start - r.end)));
    }
    if let Some(submit) = r.submit.filter(|&s| s > r.start) {
        return Err(bad(format!("job {} '{}' was submitted {} s after it started", r.id, r.name, submit - r.start)));
    }
    if let Some(first) = seen.insert((r.id.clone(), r.start), r.line) {
        return Err(bad(format!("job {} '{}' repeats the record of line {first} (the same run twice)", r.id, r.name)));
    }
    Ok(())
}

/// Bytes of a scheduler's log (jobcomp or sacct) that a trace of `plan` may read, and why: 1 KiB
/// a record (a jobcomp record is about 400 bytes, an sacct row less) for three records of each
/// of the plan's jobs (each tried at most three times), and 64 MiB of other jobs' records
/// besides.
pub fn log_bound(plan: &Plan) -> (u64, String) {
    let jobs = plan.jobs.len() as u64;
    let most = jobs * 3 * 1024 + (64 << 20);
    let why = format!(
        "a log of this plan's {jobs} jobs: 1 KiB for each of three records a job, and 64 MiB of other jobs' records"
    );
    (most, why)
}

/// Parses a `jobcomp/filetxt` log: every line with a start and an end.
pub fn parse_jobcomp(path: &Path, text: &str) -> Result<Vec<Record>, ClusterTraceError> {
    let mut out = Vec::new();
    let mut seen = HashMap::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let bad = |message: String| ClusterTraceError::Line { path: path.into(), line: n + 1, message };
        // A value may hold spaces (a working folder): words without '=' belong to the one before.
        let mut fields: Vec<(&str, String)> = Vec::new();
        for word in line.split_whitespace() {
            match (word.split_once('='), fields.last_mut()) {
                (Some((k, v)), _) => fields.push((k, v.to_string())),
                (None, Some((_, v))) => *v = format!("{v} {word}"),
                (None, None) => return Err(bad(format!("'{word}' is not Key=Value"))),
            }
        }
        let get = |k: &str| fields.iter().find(|(key, _)| *key == k).map(|(_, v)| v.as_str());
        let need = |k: &str| get(k).ok_or_else(|| bad(format!("no {k}= field (is this a jobcomp/filetxt log?)")));
        let date = |k: &str, v: &str| timestamp(v).map_err(|e| bad(format!("{k}={e}")));
        let (Some(start), Some(end)) = (date("StartTime", need("StartTime")?)?, date("EndTime", need("EndTime")?)?)
        else {
            continue; // Cancelled before it started.
        };
        let task = match get("ArrayTaskId") {
            Some(t) => Some(t.parse().map_err(|_| bad(format!("ArrayTaskId '{t}' is not a number")))?),
            None => None,
        };
        let record = Record {
            id: need("JobId")?.to_string(),
            line: n + 1,
            name: need("Name")?.to_string(),
            task,
            state: need("JobState")?.to_string(),
            submit: get("SubmitTime").map(|v| date("SubmitTime", v)).transpose()?.flatten(),
            start,
            end,
            node: get("NodeList").unwrap_or("").to_string(),
        };
        check_record(&record, &mut seen, path)?;
        out.push(record);
    }
    Ok(out)
}

/// Parses `sacct --parsable2` output (with its header); job steps (`<id>.batch`) are skipped.
pub fn parse_sacct(path: &Path, text: &str) -> Result<Vec<Record>, ClusterTraceError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let bad = |line: usize, message: String| ClusterTraceError::Line { path: path.into(), line, message };
    let Some((header_at, header)) = lines.next() else { return Ok(Vec::new()) };
    let columns: Vec<&str> = header.split('|').collect();
    let column = |name: &str| columns.iter().position(|c| *c == name);
    let need = |name: &str| {
        column(name).ok_or_else(|| {
            bad(
                header_at + 1,
                format!(
                    "no {name} column: use sacct --parsable2 --format=JobID,JobName,Submit,Start,End,State,NodeList"
                ),
            )
        })
    };
    let (id, name, start, end, state) =
        (need("JobID")?, need("JobName")?, need("Start")?, need("End")?, need("State")?);
    let (submit, node) = (column("Submit"), column("NodeList"));
    let mut out = Vec::new();
    let mut seen = HashMap::new();
    for (n, line) in lines {
        let cells: Vec<&str> = line.split('|').collect();
        if cells.len() < columns.len() {
            return Err(bad(n + 1, format!("{} fields where the header has {}", cells.len(), columns.len())));
        }
        if cells[id].contains('.') {
            continue;
        }
        let date = |c: usize| timestamp(cells[c]).map_err(|e| bad(n + 1, format!("{}: {e}", columns[c])));
        let (Some(s), Some(e)) = (date(start)?, date(end)?) else { continue };
        let task = match cells[id].split_once('_') {
            Some((_, t)) => {
                Some(t.parse().map_err(|_| bad(n + 1, format!("JobID '{}' has no task number", cells[id])))?)
            }
            None => None,
        };
        let record = Record {
            id: cells[id].to_string(),
            line: n + 1,
            name: cells[name].to_string(),
            task,
            // `CANCELLED by 0`: the state is the first word.
            state: cells[state].split_whitespace().next().unwrap_or("").to_string(),
            submit: submit.map(date).transpose()?.flatten(),
            start: s,
            end: e,
            node: node.map_or("", |c| cells[c]).to_string(),
        };
        check_record(&record, &mut seen, path)?;
        out.push(record);
    }
    Ok(out)
}

/// A run's trace and what was left out.
#[derive(Clone, Debug)]
pub struct Converted {
    /// True when the records are the plan's cluster tasks (the plan has tasks), not its jobs.
    pub tasks: bool,
    /// One row per plan job (or task) with a completed record, seconds from the run's first
    /// submission (or start), by start.
    pub rows: Vec<TraceRow>,
    /// Lanes used: the trace's thread count.
    pub threads: u32,
    /// Records that are not a completed job of this plan (other jobs, failed or cancelled
    /// ones, earlier runs of the same job).
    pub ignored: usize,
    /// Plan jobs (or tasks) without a completed record (in the store before the run, or not
    /// run).
    pub missing: Vec<String>,
    /// The dispatch overhead measured on the records and fitted to the makespan.
    pub overhead: Overhead,
}

/// The per-job (or per-task) dispatch overhead, measured and fitted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Overhead {
    /// Jobs the wait is measured on: those with a free lane when they became ready.
    #[serde(rename = "job_count")]
    pub jobs: usize,
    /// Median seconds from ready (its inputs done, and it submitted) to start.
    #[serde(rename = "median_wait_seconds")]
    pub median_wait: f64,
    /// The per-job overhead with which the simulator, replaying the plan on the run's lanes,
    /// predicts the run's makespan (None unless the costs are in ns). The simulator keeps a
    /// processor busy during the overhead, while Slurm's wait is spent pending, so this is
    /// the number to give `dab plan --overhead` and `dab compare --overhead`. For tasks: the
    /// seconds a task, in place of the plan's, with which the task graph on the run's nodes
    /// ends when the run did.
    #[serde(rename = "overhead_seconds")]
    pub seconds: Option<f64>,
    /// The same in the plan's ticks, for `dab sim --overhead` (None for tasks: `dab sim`
    /// simulates jobs).
    #[serde(rename = "overhead_ticks")]
    pub ticks: Option<u64>,
}

/// The plan job a Slurm job name stands for: `dab-<job>`, or `dab-<key>` and an array task.
fn plan_job(r: &Record) -> Option<String> {
    let name = r.name.strip_prefix("dab-")?;
    Some(match r.task {
        Some(t) => format!("{name}_{t}"),
        None => name.to_string(),
    })
}

/// The trace of `plan`'s jobs among `records` (the last completed record of each job), with
/// at most `slots` lanes a node when given (its CPUs: jobs take one each). A plan with cluster
/// tasks is traced by task, one task at a time a node unless `slots` says otherwise.
pub fn convert(
    plan: &Plan,
    records: &[Record],
    slots: Option<usize>,
    path: &Path,
) -> Result<Converted, ClusterTraceError> {
    let tasks = !plan.tasks.is_empty();
    let graph = if tasks { plan.task_graph(None) } else { plan.graph() };
    let graph = graph.map_err(|e| ClusterTraceError::Plan(e.to_string()))?;
    let slots = slots.or(tasks.then_some(1));
    let index: HashMap<&str, usize> = graph.jobs.iter().enumerate().map(|(i, j)| (j.name.as_str(), i)).collect();
    let mut chosen: Vec<Option<&Record>> = vec![None; graph.len()];
    for r in records.iter().filter(|r| r.state == "COMPLETED") {
        if let Some(&i) = plan_job(r).as_deref().and_then(|n| index.get(n))
            && chosen[i].is_none_or(|c| c.end <= r.end)
        {
            chosen[i] = Some(r);
        }
    }
    let used: Vec<(usize, &Record)> = chosen.iter().enumerate().filter_map(|(i, r)| r.map(|r| (i, r))).collect();
    if used.is_empty() {
        return Err(ClusterTraceError::NoJobs { path: path.into() });
    }
    for &(i, r) in &used {
        for &k in graph.needs(i) {
            if let Some(input) = chosen[k as usize].filter(|d| r.start < d.end) {
                return Err(ClusterTraceError::Line {
                    path: path.into(),
                    line: r.line,
                    message: format!(
                        "job {} '{}' started {} s before its input, job {} '{}' (line {}), ended",
                        r.id,
                        r.name,
                        input.end - r.start,
                        input.id,
                        input.name,
                        input.line
                    ),
                });
            }
        }
    }
    let t0 = used.iter().map(|(_, r)| r.submit.unwrap_or(r.start).min(r.start)).min().expect("not empty");
    let lane = lanes(&used, slots, path)?;
    let threads = lane.iter().max().map_or(1, |l| l + 1) as u32;
    let mut rows: Vec<TraceRow> = used
        .iter()
        .zip(&lane)
        .map(|(&(i, r), &l)| TraceRow {
            job: graph.jobs[i].name.clone(),
            thread: l,
            start: (r.start - t0) as f64,
            end: (r.end - t0) as f64,
            positions: graph.jobs[i].states,
        })
        .collect();
    rows.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.end.total_cmp(&b.end)));
    let makespan = rows.iter().map(|r| r.end).fold(0.0, f64::max);
    let waits = waits(&graph, &chosen, threads);
    let (seconds, ticks) = if tasks {
        (fit_task_seconds(plan, threads, makespan), None)
    } else {
        let ticks = (plan.unit == "ns").then(|| fit_ticks(plan, threads, makespan * 1e9)).flatten();
        (ticks.map(|t| t as f64 / 1e9), ticks)
    };
    let overhead = Overhead { jobs: waits.len(), median_wait: quantile(&waits, 0.5), seconds, ticks };
    Ok(Converted {
        tasks,
        rows,
        threads,
        ignored: records.len() - used.len(),
        missing: chosen.iter().zip(&graph.jobs).filter(|(c, _)| c.is_none()).map(|(_, j)| j.name.clone()).collect(),
        overhead,
    })
}

/// Each record's lane: per node, the lowest lane free at its start (at most `slots` lanes a
/// node when given); nodes in name order. A record that starts while `slots` jobs of its node
/// have not ended is refused.
fn lanes(used: &[(usize, &Record)], slots: Option<usize>, path: &Path) -> Result<Vec<usize>, ClusterTraceError> {
    let mut nodes: Vec<&str> = used.iter().map(|(_, r)| r.node.as_str()).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let mut out = vec![0; used.len()];
    let mut offset = 0;
    for node in nodes {
        let mut order: Vec<usize> = (0..used.len()).filter(|&k| used[k].1.node == node).collect();
        order.sort_by_key(|&k| (used[k].1.start, used[k].1.end));
        // End of the last job on each lane.
        let mut busy: Vec<i64> = Vec::new();
        for k in order {
            let r = used[k].1;
            // Times are whole seconds: jobs of the same second may have run one after the
            // other, so with `slots` known a full node reuses the lane that ended first.
            let free = busy.iter().position(|&e| e < r.start);
            let full = slots.is_some_and(|n| busy.len() >= n);
            let earliest = || (0..busy.len()).min_by_key(|&l| busy[l]);
            let l = free.or_else(|| if full { earliest() } else { None }).unwrap_or(busy.len());
            if l < busy.len() && busy[l] > r.start {
                return Err(ClusterTraceError::Line {
                    path: path.into(),
                    line: r.line,
                    message: format!(
                        "job {} '{}' started while {} jobs were running on node '{node}': more than the {} slots given a node",
                        r.id,
                        r.name,
                        busy.len(),
                        busy.len()
                    ),
                });
            }
            if l == busy.len() {
                busy.push(r.end);
            } else {
                busy[l] = r.end;
            }
            out[k] = offset + l;
        }
        offset += busy.len();
    }
    Ok(out)
}

/// Sorted seconds from ready (inputs ended, and submitted) to start, of the records that had
/// a free lane when they became ready.
fn waits(graph: &Graph, chosen: &[Option<&Record>], threads: u32) -> Vec<f64> {
    let mut waits: Vec<f64> = Vec::new();
    for (i, r) in chosen.iter().enumerate().filter_map(|(i, r)| r.map(|r| (i, r))) {
        let inputs = graph.needs(i).iter().filter_map(|&k| chosen[k as usize]).map(|d| d.end).max();
        let Some(ready) = inputs.max(r.submit) else { continue };
        let running = chosen.iter().flatten().filter(|o| o.start <= ready && ready < o.end).count();
        if running < threads as usize {
            waits.push((r.start - ready).max(0) as f64);
        }
    }
    waits.sort_by(f64::total_cmp);
    waits
}

/// The least per-task overhead (seconds, to the millisecond) with which the plan's task graph
/// on `nodes` nodes ends at `target` seconds, by bisection (the makespan grows with it).
fn fit_task_seconds(plan: &Plan, nodes: u32, target: f64) -> Option<f64> {
    let makespan = |seconds: f64| {
        let graph = plan.task_graph(Some(seconds)).ok()?;
        Some(run_tasks(&graph, nodes, false).ok()?.row.makespan as f64 / TASK_TICKS_PER_SECOND)
    };
    if !target.is_finite() || makespan(0.0)? >= target {
        return Some(0.0);
    }
    // Every task alone on one node: an overhead of `target` a task ends after `target`.
    let (mut lo, mut hi) = (0.0f64, target);
    while hi - lo > 1e-3 {
        let mid = (lo + hi) / 2.0;
        if makespan(mid)? >= target { hi = mid } else { lo = mid }
    }
    Some((hi * 1e3).round() / 1e3)
}

/// The least per-job overhead (ticks) with which the simulated makespan on `threads`
/// processors reaches `target` ticks, by bisection (the makespan grows with the overhead).
fn fit_ticks(plan: &Plan, threads: u32, target: f64) -> Option<u64> {
    let graph = plan.graph().ok()?;
    let makespan = |overhead: u64| {
        crate::plan::simulate_with(plan, &graph, threads, overhead, false).ok().map(|r| r.row.makespan as f64)
    };
    // An overhead past u64 ns cannot be given: none to fit (a record spanning centuries).
    if !(..18_446_744_073_709_551_616.0).contains(&target) {
        return None;
    }
    if makespan(0)? >= target {
        return Some(0);
    }
    // Every job on one processor, each with overhead `target`, cannot finish before `target`.
    let (mut lo, mut hi) = (0u64, target.ceil() as u64);
    while hi - lo > 1.max(hi / 1000) {
        let mid = lo + (hi - lo) / 2;
        if makespan(mid)? >= target { hi = mid } else { lo = mid }
    }
    Some(hi)
}
