//! The kernel's memory traffic: the bytes a solve must read and write, per partition and in
//! all, for the roofline (`dab solve` and `dab bench --suite solve` set it against the
//! machine's measured bandwidth).
//!
//! The model counts compulsory traffic: a job computing a whole partition writes its values
//! once (one byte a position) and reads each successor partition once, whole (a test checks
//! that every value of every successor is touched by some move). A successor read by several
//! partitions counts once per reader, as each reader fetches it again. The kernel reads a
//! successor row once per move into it, so with caches too small to hold a row's successors it
//! moves more than this; the GB/s derived from it is therefore a lower bound on what the memory
//! system delivered.

use serde::{Deserialize, Serialize};

use super::key::PartitionKey;
use super::space::Space;

/// Bytes read and written by the kernel (one byte a value), and the positions computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Traffic {
    /// Positions computed (each written once).
    pub positions: u64,
    /// Bytes written: one a position.
    pub written: u64,
    /// Bytes read: every successor partition of every partition computed, whole.
    pub read: u64,
}

impl Traffic {
    /// The traffic of computing partition `key` whole: its values written, each successor
    /// (one more line in one group) read. The full board reads nothing.
    pub fn of_partition(space: &Space, key: &PartitionKey) -> Traffic {
        let positions = space.partition_len(key) as u64;
        let read = space.successors(key).iter().map(|s| space.partition_len(s) as u64).sum();
        Traffic { positions, written: positions, read }
    }

    /// The traffic of a whole solve of `space`: every partition computed once, whole (as
    /// `dab solve` runs it). Nothing for a full root.
    pub(crate) fn of_solve(space: &Space) -> Traffic {
        if space.free() == 0 {
            return Traffic::default();
        }
        space.keys().iter().map(|k| Traffic::of_partition(space, k)).sum()
    }

    /// Bytes read and written.
    pub fn bytes(&self) -> u64 {
        self.read + self.written
    }

    /// Bytes read and written per position computed (0 without positions).
    pub fn bytes_per_position(&self) -> f64 {
        if self.positions == 0 { 0.0 } else { self.bytes() as f64 / self.positions as f64 }
    }

    /// Bytes read and written per second over `seconds`, in GB/s (10^9 bytes, as STREAM
    /// counts them); 0 when no time was measured.
    pub fn gigabytes_per_second(&self, seconds: f64) -> f64 {
        if seconds > 0.0 { self.bytes() as f64 / seconds / 1e9 } else { 0.0 }
    }
}

impl std::ops::Add for Traffic {
    type Output = Traffic;

    fn add(self, o: Traffic) -> Traffic {
        Traffic { positions: self.positions + o.positions, written: self.written + o.written, read: self.read + o.read }
    }
}

impl std::iter::Sum for Traffic {
    fn sum<I: Iterator<Item = Traffic>>(iter: I) -> Traffic {
        iter.fold(Traffic::default(), |a, b| a + b)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::game::{Board, LineSet, Position};
    use crate::solver::list;

    fn space(board: &str, groups: Option<usize>) -> Space {
        Space::new(Position::empty(board.parse().unwrap()), groups).unwrap()
    }

    /// The values of other partitions that the moves of every position of `key` reach,
    /// found position by position: (successor partition, index) pairs.
    fn touched(space: &Space, key: &PartitionKey) -> HashSet<(PartitionKey, usize)> {
        let mut out = HashSet::new();
        for i in 0..space.partition_len(key) {
            let state = space.state_at(key, i);
            for l in 0..space.free() {
                if space.is_move(state, l) {
                    out.insert(space.locate(crate::solver::State(state.0 | 1 << l)));
                }
            }
        }
        out
    }

    #[test]
    fn a_one_group_1x1_solve_moves_what_its_partitions_hold_by_hand() {
        // 1x1: the four lines border the one box only, so they are one class of
        // interchangeable lines and each count of drawn lines is one stored position. Writes:
        // 5. Reads: partition c reads c+1 for c < 4, one byte each: 4.
        let s = space("1x1", Some(1));
        let sizes: Vec<usize> = (0..=4).map(|c| s.partition_len(&PartitionKey::new(&[c]))).collect();
        assert_eq!(sizes, [1, 1, 1, 1, 1]);
        let t = Traffic::of_solve(&s);
        assert_eq!(t, Traffic { positions: 5, written: 5, read: 4 });
        assert_eq!(t.bytes(), 9);
        assert!((t.bytes_per_position() - 9.0 / 5.0).abs() < 1e-12);
        assert!((t.gigabytes_per_second(1e-9) - 9.0).abs() < 1e-9);
        assert_eq!(t.gigabytes_per_second(0.0), 0.0);
    }

    #[test]
    fn the_traffic_adds_up_the_partition_listing_s_sizes_and_dependencies() {
        for (board, groups) in [("2x2", None), ("2x2", Some(2)), ("2x3", Some(3)), ("1x3", Some(2))] {
            let s = space(board, groups);
            let l = list(&s);
            let bytes: std::collections::HashMap<&str, u64> =
                l.partitions.iter().map(|p| (p.key.as_str(), p.bytes)).collect();
            let written: u64 = l.partitions.iter().map(|p| p.bytes).sum();
            let read: u64 = l.partitions.iter().flat_map(|p| &p.deps).map(|d| bytes[d.as_str()]).sum();
            let t = Traffic::of_solve(&s);
            assert_eq!((t.positions, t.written, t.read), (written, written, read), "{board} {groups:?}");
        }
    }

    #[test]
    fn every_value_of_every_successor_is_touched_so_the_read_count_is_exact() {
        // Brute force: the distinct successor values the moves of each partition reach, against
        // the model's whole successors, on groupings with symmetry, several groups and a root
        // with lines drawn.
        let b: Board = "2x3".parse().unwrap();
        let drawn = Position { board: b, drawn: LineSet::EMPTY.with(b.h(0, 1)).with(b.v(1, 0)) };
        let mut spaces = vec![space("2x2", None), space("2x2", Some(2)), space("2x3", Some(3)), space("1x3", Some(2))];
        spaces.push(Space::new(drawn, Some(2)).unwrap());
        for s in &spaces {
            for key in s.keys() {
                let brute = touched(s, &key).len() as u64;
                assert_eq!(brute, Traffic::of_partition(s, &key).read, "{} key {key}", s.board());
            }
        }
    }
}
