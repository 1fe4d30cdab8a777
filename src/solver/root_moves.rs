//! The value of every move from the root, read from the partitions one line below it: the
//! last step of every solve, whether its values are whole tables (the slow twin), pieces in
//! memory (the executor) or files (a store).

use crate::game::{MoveValue, Value, move_value};

use super::key::PartitionKey;
use super::space::{Space, State};

/// Every undrawn line of the root with the value of playing it, in line order. `after(key,
/// index)` is the value of the position at `index` of partition `key` (one line drawn).
pub(crate) fn root_moves(space: &Space, after: impl Fn(&PartitionKey, usize) -> Value) -> Vec<MoveValue> {
    let mut by_line: Vec<MoveValue> = (0..space.free())
        .map(|i| {
            let (key, index) = space.locate(State(1 << i));
            let boxes = space.completes(State(0), i);
            MoveValue { line: space.lines[i], boxes: boxes as u8, value: move_value(boxes, after(&key, index)) }
        })
        .collect();
    by_line.sort_by_key(|m| m.line);
    by_line
}
