//! The slow twins the fast solver is checked against: a memoised minimax over positions, and a
//! dense retrograde over all 2^k subsets of the k undrawn lines (one byte per state, no
//! symmetry, no interchangeable lines). Both take the last-move penalty as the kernel does: the
//! full board is worth minus it.

use std::collections::HashMap;

use crate::game::{Line, LineSet, Penalty, PenaltyError, Position, Value, move_value};

use super::space::{LineBoxes, free_box_masks};

/// Most undrawn lines the dense twin takes (it needs 2^k bytes).
pub(super) const DENSE_MAX_FREE: usize = 32;
/// Most undrawn lines the minimax twin takes.
pub(super) const MINIMAX_MAX_FREE: usize = 24;

/// Why a twin refused a position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TwinError {
    #[error("the position has {free} undrawn lines; the {twin} twin takes at most {max}")]
    /// The position has more undrawn lines than the twin can afford (32 dense, 24 minimax).
    TooLarge {
        /// Which twin: `dense` or `minimax`.
        twin: &'static str,
        /// Undrawn lines of the position.
        free: usize,
        /// Most undrawn lines that twin takes.
        max: usize,
    },
    /// The last-move penalty does not fit the position's values.
    #[error("{0}")]
    Penalty(#[from] PenaltyError),
}

/// Values of every subset of a root's undrawn lines. State bit i = `free[i]` drawn, with the
/// undrawn lines in the external order.
pub struct Dense {
    /// The position solved.
    pub root: Position,
    /// The root's undrawn lines, increasing: state bit i is `free[i]`.
    pub free: Vec<Line>,
    /// Value of every state, indexed by state (2^k bytes).
    pub values: Vec<Value>,
}

impl Dense {
    /// Solves every subset of the root's undrawn lines, most lines first; refused above 32 undrawn lines.
    pub fn solve(root: Position) -> Result<Dense, TwinError> {
        Dense::solve_under(root, Penalty::NONE)
    }

    /// [`Dense::solve`] with the last mover losing `penalty` boxes.
    pub fn solve_under(root: Position, penalty: Penalty) -> Result<Dense, TwinError> {
        let free: Vec<Line> = root.undrawn().iter().collect();
        let k = free.len();
        if k > DENSE_MAX_FREE {
            return Err(TwinError::TooLarge { twin: "dense", free: k, max: DENSE_MAX_FREE });
        }
        let full_value = penalty.check(root)?.full_board_value();
        let boxes: Vec<LineBoxes> = free_box_masks(root, &free);
        let full = (1u64 << k) - 1;
        let mut values = vec![0 as Value; 1usize << k];
        values[full as usize] = full_value;
        for s in (0..full).rev() {
            let mut best = Value::MIN;
            let mut open = !s & full;
            while open != 0 {
                let i = open.trailing_zeros() as usize;
                open &= open - 1;
                let lb = &boxes[i];
                let n = lb.others[..lb.count as usize].iter().filter(|&&m| s & m == m).count() as i8;
                best = best.max(move_value(n, values[(s | 1 << i) as usize]));
            }
            values[s as usize] = best;
        }
        Ok(Dense { root, free, values })
    }

    /// Value of a position containing the root's lines.
    pub fn value(&self, drawn: LineSet) -> Value {
        let s = self.free.iter().enumerate().filter(|(_, l)| drawn.contains(**l)).fold(0usize, |m, (i, _)| m | 1 << i);
        self.values[s]
    }
}

/// Memoised minimax value of a position (small positions only).
pub fn minimax(pos: Position) -> Result<Value, TwinError> {
    minimax_under(pos, Penalty::NONE)
}

/// [`minimax`] with the last mover losing `penalty` boxes.
pub fn minimax_under(pos: Position, penalty: Penalty) -> Result<Value, TwinError> {
    let free = pos.undrawn().len() as usize;
    if free > MINIMAX_MAX_FREE {
        return Err(TwinError::TooLarge { twin: "minimax", free, max: MINIMAX_MAX_FREE });
    }
    let full_value = penalty.check(pos)?.full_board_value();
    fn go(pos: Position, full_value: Value, memo: &mut HashMap<LineSet, Value>) -> Value {
        if let Some(&v) = memo.get(&pos.drawn) {
            return v;
        }
        let mut best = if pos.undrawn().is_empty() { full_value } else { Value::MIN };
        for l in pos.undrawn().iter() {
            let n = pos.board.completes(pos.drawn, l) as i8;
            let after = go(Position { board: pos.board, drawn: pos.drawn.with(l) }, full_value, memo);
            best = best.max(move_value(n, after));
        }
        memo.insert(pos.drawn, best);
        best
    }
    Ok(go(pos, full_value, &mut HashMap::new()))
}
