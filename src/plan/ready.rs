//! The checked plan: a plan's jobs checked against their space (every job a row range of a
//! partition, every partition covered) with a priority per job, ready for the executor, a
//! cluster task or the store. [`ReadyPlan::whole`] is the plan `dab solve` runs.

use crate::sched::{CostSpec, Graph, orbits};
use crate::solver::{Layout, Space, layout};

use super::file::PlanError;

/// A plan checked against its space: ready to run.
pub struct ReadyPlan {
    /// The space the plan solves.
    pub space: Space,
    /// The jobs and their dependencies.
    pub graph: Graph,
    /// Per job, the rows it computes.
    pub layout: Vec<Layout>,
    /// Per job, higher first.
    pub priority: Vec<u64>,
}

/// Key and row range of every job of an orbits graph, read from its names and sizes.
pub(crate) fn job_layout(space: &Space, graph: &Graph) -> Result<Vec<Layout>, PlanError> {
    Ok(layout(space, graph.jobs.iter().map(|j| (j.name.as_str(), j.states)))?)
}

/// Each job's priority: the longest cost path from it to the end of the graph.
pub(crate) fn priorities(graph: &Graph) -> Vec<u64> {
    graph.bottom_levels(|i| graph.jobs[i].cost)
}

impl ReadyPlan {
    /// Whether job `job`'s file stays in a store whose book keeps partitions of at most
    /// `keep_lines` lines (every file stays without a book).
    pub fn in_book(&self, job: usize, keep_lines: Option<usize>) -> bool {
        keep_lines.is_none_or(|most| self.layout[job].key.total() <= most)
    }

    /// The space's own partitions, unsplit, one tick a position: the plan `dab solve` runs.
    pub fn whole(space: Space) -> ReadyPlan {
        let graph = orbits(&space, &CostSpec::States, None).expect("no split to refuse");
        ReadyPlan::from_graph(space, graph).expect("a space's own graph is a valid plan")
    }

    /// An orbits graph of `space` ready to run, priorities by longest remaining cost.
    pub fn from_graph(space: Space, graph: Graph) -> Result<ReadyPlan, PlanError> {
        let layout = job_layout(&space, &graph)?;
        let priority = priorities(&graph);
        Ok(ReadyPlan { space, graph, layout, priority })
    }
}
