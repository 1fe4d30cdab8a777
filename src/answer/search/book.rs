//! A store's solve as exact leaves of a search: which nodes of the search it can hold, and
//! each such node renumbered as the store's space numbers it.

use crate::game::{Line, Position};
use crate::solver::{Space, State};
use crate::store::Book;

use super::bitmap::BitMap;

/// A store's solve as exact leaves of a search: which nodes it can hold, and each node
/// renumbered as the store's space numbers it.
pub(super) struct BookLeaves<'b> {
    pub(super) book: &'b Book<'b>,
    /// The search's bits of the lines the store's root has drawn and the search's root has
    /// not: a node the store can hold has drawn them all.
    need: u64,
    /// A node renumbered as the store's state (the store root's own lines give no bit).
    to_book: BitMap,
}

impl<'b> BookLeaves<'b> {
    /// The leaves of `book` for a search of `root` numbered by `space`; None when the store's
    /// root has not drawn every line of `root` (it holds no node of this search).
    pub(super) fn new(book: &'b Book<'b>, root: Position, space: &Space) -> Option<BookLeaves<'b>> {
        let theirs = book.space();
        if theirs.board() != root.board || !theirs.root.drawn.contains_all(root.drawn) {
            return None;
        }
        let bit = |line: &Line| -> u64 {
            if theirs.root.drawn.contains(*line) {
                0
            } else {
                1 << theirs.lines.iter().position(|l| l == line).expect("an undrawn line of the later root")
            }
        };
        let need = space
            .lines
            .iter()
            .enumerate()
            .filter(|(_, l)| theirs.root.drawn.contains(**l))
            .fold(0, |m, (i, _)| m | 1 << i);
        let images: Vec<u64> = space.lines.iter().map(bit).collect();
        Some(BookLeaves { book, need, to_book: BitMap::new(&images) })
    }

    /// The store's value of node `s`, if it holds it.
    pub(super) fn value(&self, s: u64) -> Option<i32> {
        if s & self.need != self.need {
            return None;
        }
        self.book.value(State(self.to_book.apply(s))).map(i32::from)
    }
}
