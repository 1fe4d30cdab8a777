//! Job dependency graphs: what the simulator replays and the executor runs. A graph is a list
//! of jobs, each with a name, a cost in integer ticks, its positions (states), the bytes of its
//! output and the names of the jobs it needs. This module owns the validated in-memory form
//! (with index adjacency for the simulator) and the two file formats:
//! - CSV with the columns `name,cost,states,bytes,deps` (deps separated by `:`);
//! - the thesis's text format (seed 003, Figs. 3 and 4): `name::w1:w2:...`, where the names
//!   after `::` are the jobs that need `name`. That format has no costs, so `dab` writes them
//!   in a trailing comment, `name::w1:w2 # cost=C states=S bytes=B`, which a plain reader of
//!   the thesis's format skips; `dab` needs all three.
//!
//! A valid graph's costs, states and bytes each add up to at most `u64::MAX`, so every sum and
//! path length over it (work, critical path, levels, resident or stored bytes) fits a `u64`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::support::{choice, one_line};

/// Most bytes of a graph file: 512 a job (a line of its name, its costs and the names of the
/// jobs it needs, about 100 in the thesis format) for the most jobs a graph may have.
const MAX_GRAPH_BYTES: u64 = super::MAX_JOBS * 512;
/// Why no graph needs more than [`MAX_GRAPH_BYTES`].
const GRAPH_BOUND: &str = "a graph has at most 2,000,000 jobs, 512 bytes each with the jobs it needs";

/// One job: a partition, or a piece of one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// Unique within the graph; the schemes name a job after its partition, and piece i of it
    /// `<name>_<i>`.
    pub name: String,
    /// Ticks (states for `--cost states`, nanoseconds for a cost model).
    pub cost: u64,
    /// Positions it computes.
    pub states: u64,
    /// Bytes of its output.
    pub bytes: u64,
    /// Names of the jobs it needs.
    pub deps: Vec<String>,
}

/// Why a graph is not valid, or could not be read or written. `line` is the line of the job
/// concerned in its file (numbered from 1; for a graph built in memory, the job's index + 1).
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// The graph has no jobs (or the file only blank lines and comments).
    #[error("the graph has no jobs")]
    Empty,
    /// Two jobs have the same name.
    #[error("line {line}: job '{name}' is defined twice (first on line {first})")]
    Duplicate {
        /// Where the second one is.
        line: usize,
        /// Where the first one is.
        first: usize,
        /// The name.
        name: String,
    },
    /// A job names a job the graph does not have (as a dependency, or in the thesis's format
    /// as a job that needs it).
    #[error("line {line}: job '{job}' names '{dep}', which is not a job of the graph")]
    Unknown {
        /// Where the job is.
        line: usize,
        /// The job that names it.
        job: String,
        /// The unknown name.
        dep: String,
    },
    /// A job needs itself.
    #[error("line {line}: job '{job}' needs itself")]
    SelfLoop {
        /// Where the job is.
        line: usize,
        /// The job.
        job: String,
    },
    /// The dependencies go round in a cycle.
    #[error("line {line}: the graph has a cycle: {}", cycle.join(" -> "))]
    Cycle {
        /// Where the cycle's first job is.
        line: usize,
        /// The jobs of the cycle, each needed by the next, the first repeated at the end.
        cycle: Vec<String>,
    },
    /// The CSV header lacks this column.
    #[error("missing column '{0}': the header must name the columns name,cost,states,bytes,deps")]
    MissingColumn(&'static str),
    /// A cost, states or bytes value is not a non-negative integer (or is missing).
    #[error("line {line}: {column} '{}' is not a non-negative integer", one_line(value))]
    BadNumber {
        /// Where it is.
        line: usize,
        /// Its column (or attribute, in the thesis's format).
        column: &'static str,
        /// The text found.
        value: String,
    },
    /// A cost, states or bytes value is an integer beyond `u64::MAX`.
    #[error("line {line}: {column} {value} exceeds the limit of {limit}", limit = u64::MAX)]
    TooLarge {
        /// Where it is.
        line: usize,
        /// Its column (or attribute, in the thesis's format).
        column: &'static str,
        /// The text found.
        value: String,
    },
    /// The jobs' costs, states or bytes add up to more than `u64::MAX`.
    #[error("line {line}: the total {column} of the jobs up to '{job}' exceeds the limit of {limit}", limit = u64::MAX)]
    Overflow {
        /// Where the job is at which the sum overflows.
        line: usize,
        /// `cost`, `states` or `bytes`.
        column: &'static str,
        /// The job.
        job: String,
    },
    /// A job names the same job twice among the jobs it needs.
    #[error("line {line}: job '{job}' names '{dep}' twice")]
    TwiceNamed {
        /// Where the job is.
        line: usize,
        /// The job.
        job: String,
        /// The name given twice.
        dep: String,
    },
    /// A line is malformed: a bad job name, a line without `::` in the thesis's format, an
    /// unknown attribute, a missing cost, or a CSV error.
    #[error("line {line}: {}", one_line(message))]
    Syntax {
        /// Where it is (0 where the CSV reader gives no position).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The graph file could not be read.
    #[error("cannot read graph file '{path}': {source}")]
    Read {
        /// The graph file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The graph file could not be written.
    #[error("cannot write graph file '{path}': {source}")]
    Write {
        /// The graph file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// An error in a graph file read with [`Graph::read`], with the file's name.
    #[error("graph file '{path}': {source}")]
    InFile {
        /// The graph file.
        path: PathBuf,
        /// The error in it.
        source: Box<GraphError>,
    },
}

choice! {
    "graph format",
    /// File formats of a graph.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Format {
        Csv = "csv",
        Thesis = "thesis",
    }
}

/// A validated graph: unique names, known dependencies, no cycle. Jobs keep their order (a
/// file's order); `needs`/`needed_by` are the same edges as indices, in compressed rows.
#[derive(Clone, Debug)]
pub struct Graph {
    /// The jobs, in file order; a job's index is its position here.
    pub jobs: Vec<Job>,
    needs_start: Vec<u32>,
    needs: Vec<u32>,
    needed_by_start: Vec<u32>,
    needed_by: Vec<u32>,
}

impl PartialEq for Graph {
    fn eq(&self, other: &Graph) -> bool {
        self.jobs == other.jobs
    }
}

impl Graph {
    /// Validates `jobs`: unique names, known dependencies, each named once, no cycle, and
    /// costs, states and bytes that add up within `u64`. `lines[i]` is where job i was read
    /// (for messages); `None` numbers them from 1.
    pub fn new(jobs: Vec<Job>, lines: Option<&[usize]>) -> Result<Graph, GraphError> {
        if jobs.is_empty() {
            return Err(GraphError::Empty);
        }
        let line = |i: usize| lines.map_or(i + 1, |l| l[i]);
        let mut totals = [0u64; 3];
        for (i, j) in jobs.iter().enumerate() {
            for (total, (column, value)) in
                totals.iter_mut().zip([("cost", j.cost), ("states", j.states), ("bytes", j.bytes)])
            {
                *total = total.checked_add(value).ok_or_else(|| GraphError::Overflow {
                    line: line(i),
                    column,
                    job: j.name.clone(),
                })?;
            }
        }
        let mut index: HashMap<&str, u32> = HashMap::with_capacity(jobs.len());
        for (i, j) in jobs.iter().enumerate() {
            if let Some(&first) = index.get(j.name.as_str()) {
                return Err(GraphError::Duplicate { line: line(i), first: line(first as usize), name: j.name.clone() });
            }
            index.insert(&j.name, i as u32);
        }
        let mut needs_start = Vec::with_capacity(jobs.len() + 1);
        let mut needs = Vec::new();
        needs_start.push(0);
        // named_by[k] = i + 1 once job i has named job k: a second naming is caught in O(1).
        let mut named_by = vec![0usize; jobs.len()];
        for (i, j) in jobs.iter().enumerate() {
            for d in &j.deps {
                let &k = index.get(d.as_str()).ok_or_else(|| GraphError::Unknown {
                    line: line(i),
                    job: j.name.clone(),
                    dep: d.clone(),
                })?;
                if k as usize == i {
                    return Err(GraphError::SelfLoop { line: line(i), job: j.name.clone() });
                }
                if std::mem::replace(&mut named_by[k as usize], i + 1) == i + 1 {
                    return Err(GraphError::TwiceNamed { line: line(i), job: j.name.clone(), dep: d.clone() });
                }
                needs.push(k);
            }
            needs_start.push(needs.len() as u32);
        }
        // Reverse edges by counting sort, so each job's dependents stay in job order.
        let mut counts = vec![0u32; jobs.len() + 1];
        for &k in &needs {
            counts[k as usize + 1] += 1;
        }
        for i in 0..jobs.len() {
            counts[i + 1] += counts[i];
        }
        let needed_by_start = counts.clone();
        let mut needed_by = vec![0u32; needs.len()];
        for i in 0..jobs.len() {
            for &k in &needs[needs_start[i] as usize..needs_start[i + 1] as usize] {
                needed_by[counts[k as usize] as usize] = i as u32;
                counts[k as usize] += 1;
            }
        }
        let g = Graph { jobs, needs_start, needs, needed_by_start, needed_by };
        if let Some(cycle) = g.find_cycle() {
            return Err(GraphError::Cycle {
                line: line(cycle[0]),
                cycle: cycle.iter().map(|&i| g.jobs[i].name.clone()).collect(),
            });
        }
        Ok(g)
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether it has no jobs (never, for a validated graph).
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Number of dependency edges.
    pub fn edges(&self) -> usize {
        self.needs.len()
    }

    /// Indices of the jobs job `i` needs.
    pub fn needs(&self, i: usize) -> &[u32] {
        &self.needs[self.needs_start[i] as usize..self.needs_start[i + 1] as usize]
    }

    /// Indices of the jobs that need job `i`.
    pub fn needed_by(&self, i: usize) -> &[u32] {
        &self.needed_by[self.needed_by_start[i] as usize..self.needed_by_start[i + 1] as usize]
    }

    /// Total cost (saturating: `jobs` is public, and a caller that raised costs after
    /// validation must not see a small number).
    pub fn work(&self) -> u64 {
        self.jobs.iter().fold(0u64, |sum, j| sum.saturating_add(j.cost))
    }

    /// Total states (saturating, as [`Graph::work`]).
    pub fn states(&self) -> u64 {
        self.jobs.iter().fold(0u64, |sum, j| sum.saturating_add(j.states))
    }

    /// Jobs in an order where every job comes after the jobs it needs (Kahn's, smallest index
    /// first among the ready), or the jobs left over when there is a cycle.
    pub fn topological_order(&self) -> Result<Vec<usize>, Vec<usize>> {
        let n = self.len();
        let mut missing: Vec<u32> = (0..n).map(|i| self.needs(i).len() as u32).collect();
        let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> =
            (0..n).filter(|&i| missing[i] == 0).map(std::cmp::Reverse).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(std::cmp::Reverse(i)) = ready.pop() {
            order.push(i);
            for &k in self.needed_by(i) {
                missing[k as usize] -= 1;
                if missing[k as usize] == 0 {
                    ready.push(std::cmp::Reverse(k as usize));
                }
            }
        }
        if order.len() == n { Ok(order) } else { Err((0..n).filter(|&i| missing[i] > 0).collect()) }
    }

    /// Each job's priority, as the executor runs a plan's jobs and the simulator's `cp` policy
    /// ranks them: the costliest path from it to the end of the graph, the job included.
    pub fn cost_priorities(&self) -> Vec<u64> {
        self.bottom_levels(|i| self.jobs[i].cost)
    }

    /// Longest path (sum of `weight`) from each job to the end of the graph, the job included.
    pub fn bottom_levels(&self, weight: impl Fn(usize) -> u64) -> Vec<u64> {
        let order = self.topological_order().expect("a validated graph has no cycle");
        let mut level = vec![0u64; self.len()];
        for &i in order.iter().rev() {
            let after = self.needed_by(i).iter().map(|&k| level[k as usize]).max().unwrap_or(0);
            level[i] = weight(i) + after;
        }
        level
    }

    /// Each job's depth: the jobs before it on the longest chain of inputs (for a solve's
    /// graph, its level counted from the full board), as the charts colour it.
    pub fn depths(&self) -> Vec<u32> {
        self.top_levels(|_| 1).into_iter().map(|d| u32::try_from(d).unwrap_or(u32::MAX)).collect()
    }

    /// Longest path (sum of `weight`) from the start of the graph to the start of each job.
    pub(crate) fn top_levels(&self, weight: impl Fn(usize) -> u64) -> Vec<u64> {
        let order = self.topological_order().expect("a validated graph has no cycle");
        let mut level = vec![0u64; self.len()];
        for &i in &order {
            level[i] = self.needs(i).iter().map(|&k| level[k as usize] + weight(k as usize)).max().unwrap_or(0);
        }
        level
    }

    /// Longest path of costs.
    pub fn critical_path(&self) -> u64 {
        self.bottom_levels(|i| self.jobs[i].cost).into_iter().max().unwrap_or(0)
    }

    /// A cycle as job indices (first repeated at the end), if there is one.
    fn find_cycle(&self) -> Option<Vec<usize>> {
        let left = self.topological_order().err()?;
        // Every leftover job needs another leftover job: walk needs until a job repeats.
        let in_left: std::collections::HashSet<usize> = left.iter().copied().collect();
        let mut seen = HashMap::new();
        let mut path = Vec::new();
        let mut i = left[0];
        while !seen.contains_key(&i) {
            seen.insert(i, path.len());
            path.push(i);
            i = self.needs(i).iter().map(|&k| k as usize).find(|k| in_left.contains(k)).expect("leftover job");
        }
        let mut cycle = path.split_off(seen[&i]);
        // Print it in the direction of the work (a job, then a job that needs it), from the
        // job that comes first in the file.
        cycle.reverse();
        let first = (0..cycle.len()).min_by_key(|&k| cycle[k]).expect("non-empty");
        cycle.rotate_left(first);
        cycle.push(cycle[0]);
        Some(cycle)
    }

    /// Reads a graph file in either format (the thesis's when the first line that is not blank
    /// or a comment holds `::`).
    pub fn read(path: &Path) -> Result<Graph, GraphError> {
        let text = crate::support::read_text_at_most(path, MAX_GRAPH_BYTES, GRAPH_BOUND)
            .map_err(|source| GraphError::Read { path: path.into(), source })?;
        Graph::parse(&text).map_err(|e| GraphError::InFile { path: path.into(), source: Box::new(e) })
    }

    /// Parses a graph in either format.
    pub fn parse(text: &str) -> Result<Graph, GraphError> {
        let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#'));
        match first {
            None => Err(GraphError::Empty),
            Some(l) if l.contains("::") => parse_thesis(text),
            Some(_) => parse_csv(text),
        }
    }

    /// Writes the graph in `format` to `path`, through a temporary file and a rename so that
    /// an existing file is never left half-written.
    pub fn write(&self, path: &Path, format: Format) -> Result<(), GraphError> {
        let text = self.to_text(format);
        crate::support::write_atomic(path, text.as_bytes())
            .map_err(|source| GraphError::Write { path: path.into(), source })
    }

    /// The graph as the text of a file in `format`.
    pub fn to_text(&self, format: Format) -> String {
        match format {
            Format::Csv => self.to_csv(),
            Format::Thesis => self.to_thesis(),
        }
    }

    fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["name", "cost", "states", "bytes", "deps"]).expect("write to memory");
        for j in &self.jobs {
            w.write_record([
                &j.name,
                &j.cost.to_string(),
                &j.states.to_string(),
                &j.bytes.to_string(),
                &j.deps.join(":"),
            ])
            .expect("write to memory");
        }
        String::from_utf8(w.into_inner().expect("write to memory")).expect("names are UTF-8")
    }

    fn to_thesis(&self) -> String {
        let mut s = String::from("# dab graph, thesis format: name::jobs that need name # cost states bytes\n");
        for (i, j) in self.jobs.iter().enumerate() {
            let users: Vec<&str> = self.needed_by(i).iter().map(|&k| self.jobs[k as usize].name.as_str()).collect();
            let _ =
                writeln!(s, "{}::{} # cost={} states={} bytes={}", j.name, users.join(":"), j.cost, j.states, j.bytes);
        }
        s
    }
}

fn parse_number(line: usize, column: &'static str, value: &str) -> Result<u64, GraphError> {
    let value = value.trim();
    value.parse::<u64>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => GraphError::TooLarge { line, column, value: value.to_string() },
        _ => GraphError::BadNumber { line, column, value: value.to_string() },
    })
}

/// Whether `name` can name a job: non-empty, without spaces, control characters, ':', ',' or
/// '#' (the separators of the file formats).
pub fn is_job_name(name: &str) -> bool {
    !(name.is_empty() || name.contains([':', ',', '#']) || name.chars().any(|c| c.is_whitespace() || c.is_control()))
}

fn check_name(line: usize, name: &str) -> Result<(), GraphError> {
    if !is_job_name(name) {
        return Err(GraphError::Syntax {
            line,
            message: format!("'{name}' is not a job name (non-empty, no spaces, ':', ',' or '#')"),
        });
    }
    Ok(())
}

/// The names of a `:`-separated list on the line of job `job`, each a valid name given once.
fn split_names(line: usize, job: &str, list: &str) -> Result<Vec<String>, GraphError> {
    let list = list.trim();
    if list.is_empty() {
        return Ok(Vec::new());
    }
    let mut seen = std::collections::HashSet::new();
    let mut names = Vec::new();
    for n in list.split(':').map(str::trim) {
        check_name(line, n)?;
        if !seen.insert(n) {
            return Err(GraphError::TwiceNamed { line, job: job.to_string(), dep: n.to_string() });
        }
        names.push(n.to_string());
    }
    Ok(names)
}

fn parse_csv(text: &str) -> Result<Graph, GraphError> {
    let mut r = csv::ReaderBuilder::new().trim(csv::Trim::All).comment(Some(b'#')).from_reader(text.as_bytes());
    let header = r.headers().map_err(|e| GraphError::Syntax { line: 1, message: e.to_string() })?.clone();
    let column = |name: &'static str| header.iter().position(|h| h == name).ok_or(GraphError::MissingColumn(name));
    let (cn, cc, cs, cb, cd) = (column("name")?, column("cost")?, column("states")?, column("bytes")?, column("deps")?);
    let mut jobs = Vec::new();
    let mut lines = Vec::new();
    for record in r.records() {
        let record = record.map_err(|e| GraphError::Syntax {
            line: e.position().map_or(0, |p| p.line() as usize),
            message: e.to_string(),
        })?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        let field = |c: usize| record.get(c).unwrap_or("");
        check_name(line, field(cn))?;
        jobs.push(Job {
            name: field(cn).to_string(),
            cost: parse_number(line, "cost", field(cc))?,
            states: parse_number(line, "states", field(cs))?,
            bytes: parse_number(line, "bytes", field(cb))?,
            deps: split_names(line, field(cn), field(cd))?,
        });
        lines.push(line);
    }
    Graph::new(jobs, Some(&lines))
}

/// The attributes of a line of the thesis's format, in the order `dab` writes them.
const ATTRIBUTES: [&str; 3] = ["cost", "states", "bytes"];

fn parse_thesis(text: &str) -> Result<Graph, GraphError> {
    let mut jobs = Vec::new();
    let mut lines = Vec::new();
    let mut users = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let (body, attrs) = raw.split_once('#').unwrap_or((raw, ""));
        let body = body.trim();
        if body.is_empty() {
            continue;
        }
        let (name, list) = body.split_once("::").ok_or_else(|| GraphError::Syntax {
            line,
            message: format!("'{body}' is not 'name::job:job:...' (the jobs after '::' need name)"),
        })?;
        let name = name.trim();
        check_name(line, name)?;
        // cost, states, bytes: each required once (a missing one is not a zero).
        let mut values: [Option<u64>; 3] = [None; 3];
        for a in attrs.split_whitespace() {
            let (k, v) = a.split_once('=').unwrap_or((a, ""));
            let Some(at) = ATTRIBUTES.iter().position(|&n| n == k) else {
                return Err(GraphError::Syntax {
                    line,
                    message: format!("unknown attribute '{a}' (expected cost=, states=, bytes=)"),
                });
            };
            if values[at].is_some() {
                return Err(GraphError::Syntax { line, message: format!("job '{name}' has {k}= twice") });
            }
            values[at] = Some(parse_number(line, ATTRIBUTES[at], v)?);
        }
        let [cost, states, bytes] = values;
        let (Some(cost), Some(states), Some(bytes)) = (cost, states, bytes) else {
            let missing = ATTRIBUTES.iter().zip(values).find(|(_, v)| v.is_none()).map_or("", |(n, _)| n);
            return Err(GraphError::Syntax {
                line,
                message: format!("job '{name}' has no {missing}: add '# cost=C states=S bytes=B' to the line"),
            });
        };
        jobs.push(Job { name: name.to_string(), cost, states, bytes, deps: Vec::new() });
        users.push(split_names(line, name, list)?);
        lines.push(line);
    }
    // Turn "jobs that need me" into each job's own needs, in file order.
    let index: HashMap<&str, usize> = jobs.iter().enumerate().map(|(i, j)| (j.name.as_str(), i)).collect();
    let mut deps: Vec<Vec<String>> = vec![Vec::new(); jobs.len()];
    for (i, us) in users.iter().enumerate() {
        for u in us {
            let &k = index.get(u.as_str()).ok_or_else(|| GraphError::Unknown {
                line: lines[i],
                job: jobs[i].name.clone(),
                dep: u.clone(),
            })?;
            deps[k].push(jobs[i].name.clone());
        }
    }
    for (j, d) in jobs.iter_mut().zip(deps) {
        j.deps = d;
    }
    Graph::new(jobs, Some(&lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, cost: u64, deps: &[&str]) -> Job {
        Job { name: name.into(), cost, states: cost, bytes: cost, deps: deps.iter().map(|d| d.to_string()).collect() }
    }

    #[test]
    fn adjacency_and_levels() {
        let g = Graph::new(
            vec![job("a", 3, &[]), job("b", 2, &["a"]), job("c", 5, &["a"]), job("d", 1, &["b", "c"])],
            None,
        )
        .unwrap();
        assert_eq!(g.needs(3), &[1, 2]);
        assert_eq!(g.needed_by(0), &[1, 2]);
        assert_eq!(g.critical_path(), 9);
        assert_eq!(g.work(), 11);
        assert_eq!(g.bottom_levels(|i| g.jobs[i].cost), vec![9, 3, 6, 1]);
    }

    #[test]
    fn cycles_are_printed() {
        let e = Graph::new(vec![job("a", 1, &["c"]), job("b", 1, &["a"]), job("c", 1, &["b"]), job("d", 1, &[])], None)
            .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("cycle"), "{text}");
        let GraphError::Cycle { cycle, .. } = e else { panic!() };
        assert_eq!(cycle.len(), 4);
        assert_eq!(cycle[0], cycle[3]);
    }
}
