//! What a whole solve is asked and what it gives back: the options (groups, threads, whether
//! to keep every partition, a store and its book, the last-move penalty) and the solution (the
//! root's value, every move's value, positions, peak memory, time, memory traffic, and the
//! tables when kept). Shared by the executor's solve and its slow twin, [`super::solve_in_order`].

use std::time::Instant;

use crate::game::{Line, MoveValue, Penalty, Value};

use super::kernel::KernelPath;
use super::space::{Space, State};
use super::traffic::Traffic;

/// How to run a solve.
#[derive(Clone, Copy)]
pub struct SolveOptions<'p> {
    /// Number of groups; None for the default.
    pub groups: Option<usize>,
    /// Worker threads.
    pub threads: usize,
    /// Keep every partition (for lookups of any position afterwards).
    pub keep_all: bool,
    /// Called after each partition with (positions done, positions in all).
    pub progress: Option<&'p (dyn Fn(u64, u64) + Sync)>,
    /// Durable store: every partition is written there, and a solve on an existing store
    /// resumes from the partitions it holds.
    pub store: Option<&'p std::path::Path>,
    /// With a store, keep only the partitions with at most this many lines (the opening book).
    pub keep_lines: Option<usize>,
    /// The kernel's path (the row path unless a benchmark or test asks for its twin).
    pub kernel: KernelPath,
    /// Wilson's last-move penalty: the full board is worth minus it (none: the plain game).
    pub penalty: Penalty,
    /// Set by another thread to stop the solve before its next partition.
    pub stop: Option<&'p std::sync::atomic::AtomicBool>,
    /// Stop the solve before its next partition once this instant has passed (advice within
    /// a budget: the retrograde's price is close, not exact).
    pub deadline: Option<std::time::Instant>,
    /// Hears about store files that failed their check (they are computed again).
    pub report: Option<&'p (dyn Fn(&str) + Sync)>,
}

impl Default for SolveOptions<'_> {
    fn default() -> Self {
        SolveOptions {
            groups: None,
            threads: 1,
            keep_all: false,
            progress: None,
            store: None,
            keep_lines: None,
            kernel: KernelPath::Rows,
            penalty: Penalty::NONE,
            stop: None,
            deadline: None,
            report: None,
        }
    }
}

/// What a solve found and what it cost.
pub struct Solution {
    /// The space solved.
    pub space: Space,
    /// The root's value.
    pub value: Value,
    /// Every undrawn line of the root, in the external order.
    pub moves: Vec<MoveValue>,
    /// Stored positions over all partitions.
    pub positions: u64,
    /// Partitions computed.
    pub partitions: usize,
    /// Most bytes of partition values resident at once.
    pub peak_bytes: u64,
    /// Wall seconds.
    pub seconds: f64,
    /// Bytes the kernel read and wrote for the partitions computed (not those resumed from a
    /// store).
    pub traffic: Traffic,
    /// All partitions when `keep_all` was asked, by [`Space::key_index`].
    pub tables: Option<Vec<Vec<Value>>>,
}

impl Solution {
    /// Best moves (external lines) of the root.
    pub fn best(&self) -> Vec<Line> {
        self.moves.iter().filter(|m| m.value == self.value).map(|m| m.line).collect()
    }

    /// Value of any position of the space (needs `keep_all`).
    pub fn value_of(&self, state: State) -> Option<Value> {
        let tables = self.tables.as_ref()?;
        let (key, index) = self.space.locate(state);
        Some(tables[self.space.key_index(&key)][index])
    }

    /// The solve of a position with no undrawn line: worth minus the space's penalty.
    pub(crate) fn trivial(space: Space, start: Instant) -> Solution {
        Solution {
            value: space.penalty.full_board_value(),
            space,
            moves: Vec::new(),
            positions: 1,
            partitions: 1,
            peak_bytes: 1,
            seconds: start.elapsed().as_secs_f64(),
            traffic: Traffic::default(),
            tables: None,
        }
    }
}
