//! Benchmarks (the top layer): the rows of `dab bench`'s suites, computed here and printed and
//! written by the binary. The solver against its twins with its memory traffic (`solve`), the
//! simulator's speed and schedule quality (`sim`), plans run against their predictions
//! (`run`), the endgame theorems against the solver (`endgame`), the process's peak memory
//! against a limit (`memory`), the search engine (`search`), planning for a cluster
//! (`cluster`), the web board's answers and page (`serve`), the strength of dab's play within a
//! time budget (`play`), whole `dab run`s against their predicted ranges (`predict`) and `dab solve`
//! on wide boards (`wide`). Where a row's figures must be a process's own (peak memory), the suite takes
//! the solve or run as a function that the binary implements with a child process of itself;
//! the rows, their checks and their columns are here. The positions it compiles in live in its
//! own `data/` folder, so that `dab bench` works wherever the binary is installed.
//!
//! Uses every layer below it; nothing in the library uses it.

pub mod cluster;
pub mod endgame;
pub mod memory;
pub mod nimstring;
pub mod play;
pub mod predict;
pub mod query;
pub mod run;
pub mod search;
pub mod serve;
pub mod sim;
pub mod solve;
pub mod wide;
