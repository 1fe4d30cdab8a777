//! The solver: partition keys, the grouped state space with its rank tables and
//! symmetries, the counted size of a solve too large to build, the retrograde kernel, the row layout of a partition's jobs, the partition
//! listing, the kernel's memory traffic (bytes a solve reads and writes), the slow twins
//! (dense retrograde, memoised minimax) and the in-memory solve one partition at a time. Uses
//! `support` and `game`; knows nothing of graphs, plans, files or threads beyond a rayon pool
//! handed to it. The kernel's hot loop is infallible and allocates nothing per position.

mod dwords;
mod estimate;
mod gather;
mod in_order;
mod kernel;
mod key;
mod layout;
mod partitions;
mod root_moves;
mod runs;
mod simd;
mod solution;
mod space;
mod traffic;
mod twins;

pub use estimate::SizeEstimate;
pub use in_order::solve_in_order;
pub(crate) use kernel::{InnerMoves, counts_fit_rows, inner_moves_per_row, rows_fit, turned_moves_per_count};
pub use kernel::{Kernel, KernelPath, Pieces, Rows, Width};
pub use key::{KeyError, PartitionKey};
pub use layout::{Layout, LayoutError, layout};
pub use partitions::{PartitionList, list, write_csv};
pub(crate) use root_moves::root_moves;
pub use simd::{SIMD_VAR, Simd, SimdError};
pub use solution::{Solution, SolveOptions};
pub(crate) use space::BINOMIAL;
pub use space::{Group, LineBoxes, MAX_FREE_LINES, Space, SpaceError, State, free_box_masks};
pub use traffic::Traffic;
pub use twins::{Dense, TwinError, minimax, minimax_under};
