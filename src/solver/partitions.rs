//! The partition listing of a space: every partition with its stored positions, bytes and the
//! partitions it reads. The simulator and the planner read exactly this.

use serde::{Deserialize, Serialize};

use super::space::Space;

/// One group of a space as the listing shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupInfo {
    /// Lines in the group.
    pub size: u32,
    /// The group's lines, by name.
    pub lines: Vec<String>,
}

/// One partition: its size and the partitions it needs before it can be computed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionInfo {
    /// The partition key (`4-3-4-2`).
    pub key: String,
    /// Drawn lines (undrawn lines of the root that are drawn) in every position of it.
    pub lines: usize,
    /// Stored positions.
    pub positions: u64,
    /// Bytes of its values (one byte a position).
    pub bytes: u64,
    /// Keys of the partitions it reads (one more line in one group).
    pub deps: Vec<String>,
}

/// Every partition of a space, with its groups: what the simulator and the planner read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionList {
    /// The board size (`3x4`).
    pub board: String,
    /// The root position as a line string.
    pub root: String,
    /// The space's groups, group 0 first.
    pub groups: Vec<GroupInfo>,
    /// In the order a whole solve computes them (the full board first).
    pub partitions: Vec<PartitionInfo>,
}

/// The listing of a space; no partitions when the root has no undrawn lines.
pub fn list(space: &Space) -> PartitionList {
    let board = space.board();
    let groups = space
        .groups
        .iter()
        .map(|g| GroupInfo {
            size: g.size,
            lines: (g.offset..g.offset + g.size).map(|i| board.line_name(space.lines[i as usize])).collect(),
        })
        .collect();
    let partitions = if space.free() == 0 {
        Vec::new()
    } else {
        space
            .keys()
            .iter()
            .map(|k| {
                let positions = space.partition_len(k) as u64;
                PartitionInfo {
                    key: k.to_string(),
                    lines: k.total(),
                    positions,
                    bytes: positions,
                    deps: space.successors(k).iter().map(|s| s.to_string()).collect(),
                }
            })
            .collect()
    };
    PartitionList { board: board.to_string(), root: space.root.to_line_string(), groups, partitions }
}

/// CSV with columns `key,lines,positions,bytes,deps` (deps separated by `:`).
pub fn write_csv(list: &PartitionList, out: impl std::io::Write) -> Result<(), csv::Error> {
    #[derive(Serialize)]
    struct Row<'a> {
        key: &'a str,
        lines: usize,
        positions: u64,
        bytes: u64,
        deps: String,
    }
    let mut w = csv::Writer::from_writer(out);
    for p in &list.partitions {
        w.serialize(Row {
            key: &p.key,
            lines: p.lines,
            positions: p.positions,
            bytes: p.bytes,
            deps: p.deps.join(":"),
        })?;
    }
    w.flush()?;
    Ok(())
}
