//! The integration tests, one module per topic, in one binary: the library and its
//! dependencies are linked once, not once per topic. `memory_cap.rs` is the one test of its own
//! binary, since its global allocator counts every allocation of the process (the system's, so it
//! also runs the executor where no pages move).
//!
//! Each module's `//!` says what it covers; `common` and `serve_common` are the shared helpers.

/// The allocator the binary installs, so that the executor's runs here move pages as its do.
#[global_allocator]
static ALLOCATOR: dab::support::PageAlloc = dab::support::PageAlloc;

mod common;
mod serve_common;

mod auto_engine;
mod book;
mod chart;
mod cli;
mod cli_limits;
mod cli_penalty;
mod cli_run;
mod cli_sim;
mod cli_ux;
mod cluster;
mod doc_links;
mod endgame;
mod exec;
mod graph;
mod hostile_plan;
mod json_schema;
mod layers;
mod loaders;
mod memory;
mod nimstring;
mod penalty;
mod plan_trust;
mod play;
mod properties;
mod review;
mod scale;
mod search;
mod serve_api;
mod serve_browser;
mod sim;
mod solver;
mod store;
mod store_hostile;
mod tasks;
mod value_format;
mod wide;
