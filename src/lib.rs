//! `dab`: complete solutions of Dots-and-Boxes by retrograde analysis over partitions of the
//! lines (Wilson's method), with the tools to plan and run them in parallel.
//!
//! This library is the back end of the `dab` binary: every subcommand parses its arguments and
//! calls one function here. Its deliberate API, the types a program using the library starts
//! from and which change only with care, are re-exported at the crate root: boards and
//! positions ([`Board`], [`Position`], [`Line`], [`LineSet`], [`Value`], [`MoveValue`]), a whole
//! solve ([`solve`], [`SolveOptions`], [`Solution`], [`Space`]), plans and their execution
//! ([`plan`](fn@plan), [`PlanOptions`], [`Plan`], [`ReadyPlan`], [`execute_with`],
//! [`ExecOptions`], [`Execution`]), the simulator ([`Graph`], [`CostModel`], [`Simulator`],
//! [`SimOptions`], [`Policy`]) and the store ([`Store`], [`Reader`]). The rest of what is
//! public serves the binary, the benchmarks and the integration tests; items used only inside
//! their own layer are `pub(crate)`.
//!
//! # A tour
//!
//! The modules below are layers, lowest first; each uses only the ones listed before it
//! (`tests/it/layers.rs` checks it). `ARCHITECTURE.md` at the top of the repository is the map.
//!
//! - [`support`]: atomic file writes, statistics, a seeded generator, named choices.
//! - [`game`]: boards, lines, positions and their formats, values of positions and moves.
//! - [`solver`]: partition keys, the grouped state space, the retrograde kernel, the slow twins.
//! - [`sched`]: job graphs, costs and the cost model, memory and disk counts, the simulator.
//! - [`plan`](mod@plan): plan files, checked (ready) plans, the planner, prediction by simulation.
//! - [`store`]: the durable partition store, its reader and its checks.
//! - [`exec`]: the rayon executor, cluster tasks, whole solves, traces.
//! - [`report`]: predicted against actual, simulation sweeps, charts.
//! - [`answer`]: analyses, queries, hints, endgame theorems, play.
//! - [`cluster`]: Slurm and HTCondor DAGMan export, cluster traces.
//! - [`calibrate`]: timing this machine and fitting the cost model.
//! - [`pipeline`]: plan, run and compare: the body of `dab run`.
//! - [`scale`]: a position run at several thread counts, measured against predicted speedup.
//! - [`serve`]: the web analysis board: the page and its JSON API.
//! - [`bench`]: the rows of `dab bench`'s suites.
//! - `python` (Cargo feature `python`): the Python extension, one function per command that
//!   answers a position.
//!
//! The value of a position is the best net number of future boxes for the player to move:
//!
//! ```
//! use dab::{Position, SolveOptions, solve};
//!
//! let solution = solve(Position::empty("2x2".parse().unwrap()), SolveOptions::default()).unwrap();
//! assert_eq!(solution.value, 2); // the first player wins 3-1
//! assert_eq!(solution.moves.len(), 12);
//! ```
#![warn(missing_docs, unreachable_pub)]

pub mod support;
pub mod game;
pub mod solver;
pub mod sched;
pub mod plan;
pub mod store;
pub mod exec;
pub mod report;
pub mod answer;
pub mod cluster;
pub mod calibrate;
pub mod pipeline;
pub mod scale;
pub mod serve;
pub mod bench;
#[cfg(feature = "python")]
pub mod python;

/// The unit tests allocate as the binary does (`main.rs` installs the same allocator).
#[cfg(test)]
#[global_allocator]
static ALLOCATOR: support::PageAlloc = support::PageAlloc;

pub use exec::{ExecOptions, Execution, execute_with, solve};
pub use game::{Board, Line, LineSet, MoveValue, Position, Value};
pub use plan::{Plan, PlanOptions, ReadyPlan, plan};
pub use sched::{CostModel, Graph, Policy, SimOptions, Simulator};
pub use solver::{Solution, SolveOptions, Space};
pub use store::{Reader, Store};
