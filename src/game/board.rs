//! Board geometry: sizes, the external line order, line names, boxes and the board's symmetry
//! group's permutations (their word-level maps are in `symmetry.rs`). Everything outside the solver speaks in these terms; the solver keeps its own internal
//! numbering (see [`crate::solver::Space`]).

use std::fmt;
use std::str::FromStr;

/// Words of a [`LineSet`]: 9 x 64 = 576 bits, enough for 16x16 (544 lines).
pub(super) const WORDS: usize = 9;

/// Most lines a board may have: every line has a bit in a [`LineSet`].
pub(crate) const MAX_LINES: usize = WORDS * 64;

/// A line in the external order: all horizontal lines row by row (top to bottom, left to
/// right), then all vertical lines row by row. This is OpenSpiel's dots_and_boxes order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Line(pub u16);

/// A set of lines in the external order: bit i of word i / 64 (bit i % 64) set = line i drawn.
///
/// A fixed array, not a heap bit vector: positions stay `Copy` and allocation-free at any
/// board size. Only the edges of a solve (reading, canonical forms, answers) use it; the solver
/// renumbers a root's undrawn lines (at most 64) into a `u64` and works on that.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineSet([u64; WORDS]);

impl LineSet {
    /// No lines drawn.
    pub const EMPTY: LineSet = LineSet([0; WORDS]);

    /// Lines 0..n (n at most [`MAX_LINES`]).
    pub const fn first(n: usize) -> LineSet {
        let mut w = [0u64; WORDS];
        let mut i = 0;
        while i < WORDS {
            let lo = i * 64;
            w[i] = if n >= lo + 64 {
                u64::MAX
            } else if n > lo {
                (1u64 << (n - lo)) - 1
            } else {
                0
            };
            i += 1;
        }
        LineSet(w)
    }

    /// Whether `line` is in the set.
    pub const fn contains(self, line: Line) -> bool {
        let i = line.0 as usize;
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    /// The set with `line` added.
    pub const fn with(self, line: Line) -> LineSet {
        let i = line.0 as usize;
        let mut w = self.0;
        w[i / 64] |= 1 << (i % 64);
        LineSet(w)
    }

    /// The set with `line` removed.
    pub const fn without(self, line: Line) -> LineSet {
        let i = line.0 as usize;
        let mut w = self.0;
        w[i / 64] &= !(1 << (i % 64));
        LineSet(w)
    }

    /// The lines in either set.
    pub fn union(self, other: LineSet) -> LineSet {
        LineSet(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    /// The lines in both sets.
    pub fn and(self, other: LineSet) -> LineSet {
        LineSet(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }

    /// The set's words: bit i of word i / 64 is line i (the symmetries' word maps).
    pub(super) const fn words(self) -> [u64; WORDS] {
        self.0
    }

    /// The set of these words.
    pub(super) const fn from_words(words: [u64; WORDS]) -> LineSet {
        LineSet(words)
    }

    /// The lines of this set not in `other`.
    pub fn minus(self, other: LineSet) -> LineSet {
        LineSet(std::array::from_fn(|i| self.0[i] & !other.0[i]))
    }

    /// Whether every line of `other` is in this set.
    pub fn contains_all(self, other: LineSet) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & b == *b)
    }

    /// Number of lines in the set.
    pub const fn len(self) -> u32 {
        let mut n = 0;
        let mut i = 0;
        while i < WORDS {
            n += self.0[i].count_ones();
            i += 1;
        }
        n
    }

    /// Whether no line is in the set.
    pub fn is_empty(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The lines in the set, in increasing order.
    pub fn iter(self) -> impl Iterator<Item = Line> {
        self.0.into_iter().enumerate().flat_map(|(i, mut bits)| {
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(Line((i * 64 + b) as u16))
            })
        })
    }
}

impl FromIterator<Line> for LineSet {
    fn from_iter<I: IntoIterator<Item = Line>>(lines: I) -> LineSet {
        lines.into_iter().fold(LineSet::EMPTY, LineSet::with)
    }
}

/// Why a board size was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// The text is not two decimal numbers joined by `x` or `X`; holds the text.
    #[error("board '{0}' is not of the form MxN (M rows and N columns of boxes, e.g. 3x4)")]
    Syntax(String),
    /// Rows or columns is zero; holds the size as written.
    #[error("board '{0}' has no boxes: rows and columns must both be at least 1")]
    Empty(String),
    /// A board has more lines than a [`LineSet`] holds; the message names it as typed.
    #[error("board {board} has {}; at most {MAX_LINES} are supported (16x16 has 544)",
        .lines.map_or("more lines than can be counted".to_string(), |l| format!("{l} lines")))]
    TooLarge {
        /// The board as typed.
        board: String,
        /// Its lines, where they can be counted in 128 bits.
        lines: Option<u128>,
    },
}

/// A board of `rows` x `cols` boxes, at most [`MAX_LINES`] lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    rows: u8,
    cols: u8,
}

/// Whether a line is horizontal or vertical, with its coordinates as in `h(r,c)` / `v(r,c)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineCoord {
    /// Horizontal line `h(r,c)`: dot row r (0..=rows), column c (0..cols).
    H(usize, usize),
    /// Vertical line `v(r,c)`: box row r (0..rows), dot column c (0..=cols).
    V(usize, usize),
}

impl Board {
    /// A board of `rows` x `cols` boxes; refused if either is zero or it has more than
    /// [`MAX_LINES`] lines.
    pub fn new(rows: usize, cols: usize) -> Result<Board, BoardError> {
        if rows == 0 || cols == 0 {
            return Err(BoardError::Empty(format!("{rows}x{cols}")));
        }
        let lines =
            rows.saturating_mul(cols.saturating_add(1)).saturating_add(rows.saturating_add(1).saturating_mul(cols));
        if lines > MAX_LINES {
            return Err(BoardError::TooLarge { board: format!("{rows}x{cols}"), lines: Some(lines as u128) });
        }
        Ok(Board { rows: rows as u8, cols: cols as u8 })
    }

    /// Rows of boxes.
    pub fn rows(self) -> usize {
        self.rows as usize
    }

    /// Columns of boxes.
    pub fn cols(self) -> usize {
        self.cols as usize
    }

    /// Whether rows equal columns, which doubles the symmetry group to 8.
    pub fn is_square(self) -> bool {
        self.rows == self.cols
    }

    /// Number of lines: `rows*(cols+1)` verticals plus `(rows+1)*cols` horizontals.
    pub fn lines(self) -> usize {
        self.rows() * (self.cols() + 1) + (self.rows() + 1) * self.cols()
    }

    /// Number of boxes, `rows*cols`.
    pub fn boxes(self) -> usize {
        self.rows() * self.cols()
    }

    /// Every line drawn.
    pub fn full(self) -> LineSet {
        LineSet::first(self.lines())
    }

    fn horizontals(self) -> usize {
        (self.rows() + 1) * self.cols()
    }

    /// `h(r,c)`: horizontal line in dot row r (0..=rows), column c (0..cols).
    pub fn h(self, r: usize, c: usize) -> Line {
        debug_assert!(r <= self.rows() && c < self.cols());
        Line((r * self.cols() + c) as u16)
    }

    /// `v(r,c)`: vertical line in box row r (0..rows), dot column c (0..=cols).
    pub fn v(self, r: usize, c: usize) -> Line {
        debug_assert!(r < self.rows() && c <= self.cols());
        Line((self.horizontals() + r * (self.cols() + 1) + c) as u16)
    }

    /// The orientation and coordinates of a line in the external order.
    pub fn coord(self, line: Line) -> LineCoord {
        let i = line.0 as usize;
        if i < self.horizontals() {
            LineCoord::H(i / self.cols(), i % self.cols())
        } else {
            let j = i - self.horizontals();
            LineCoord::V(j / (self.cols() + 1), j % (self.cols() + 1))
        }
    }

    /// The line's name, `h(r,c)` or `v(r,c)`, as [`Board::parse_line`] reads it.
    pub fn line_name(self, line: Line) -> String {
        match self.coord(line) {
            LineCoord::H(r, c) => format!("h({r},{c})"),
            LineCoord::V(r, c) => format!("v({r},{c})"),
        }
    }

    /// Reads `h(r,c)`, `v(r,c)` or a line number in the external order.
    pub fn parse_line(self, text: &str) -> Option<Line> {
        let t = text.trim();
        if let Ok(n) = t.parse::<usize>() {
            return (n < self.lines()).then_some(Line(n as u16));
        }
        let (kind, rest) = t.split_at_checked(1)?;
        let inner = rest.strip_prefix('(')?.strip_suffix(')')?;
        let (r, c) = inner.split_once(',')?;
        let (r, c): (usize, usize) = (r.trim().parse().ok()?, c.trim().parse().ok()?);
        match kind {
            "h" if r <= self.rows() && c < self.cols() => Some(self.h(r, c)),
            "v" if r < self.rows() && c <= self.cols() => Some(self.v(r, c)),
            _ => None,
        }
    }

    /// Index of box (r,c), row major.
    fn box_index(self, r: usize, c: usize) -> usize {
        r * self.cols() + c
    }

    /// The four sides of a box: h(r,c), h(r+1,c), v(r,c), v(r,c+1).
    pub fn box_sides(self, b: usize) -> [Line; 4] {
        let (r, c) = (b / self.cols(), b % self.cols());
        [self.h(r, c), self.h(r + 1, c), self.v(r, c), self.v(r, c + 1)]
    }

    /// The four sides of box `b` (row major) as a set.
    pub fn box_mask(self, b: usize) -> LineSet {
        self.box_sides(b).into_iter().collect()
    }

    /// The one or two boxes a line borders.
    pub fn line_boxes(self, line: Line) -> Vec<usize> {
        self.boxes_of(line).collect()
    }

    /// The one or two boxes a line borders, without a heap allocation (the walks' hot paths).
    pub fn boxes_of(self, line: Line) -> impl Iterator<Item = usize> {
        let (m, n) = (self.rows(), self.cols());
        let pair = match self.coord(line) {
            LineCoord::H(r, c) => {
                [r.checked_sub(1).map(|r| self.box_index(r, c)), (r < m).then(|| self.box_index(r, c))]
            }
            LineCoord::V(r, c) => {
                [c.checked_sub(1).map(|c| self.box_index(r, c)), (c < n).then(|| self.box_index(r, c))]
            }
        };
        pair.into_iter().flatten()
    }

    /// Number of boxes completed by drawing `line` in a position where it is undrawn.
    pub fn completes(self, drawn: LineSet, line: Line) -> u32 {
        let after = drawn.with(line);
        self.boxes_of(line).filter(|&b| self.box_sides(b).iter().all(|&s| after.contains(s))).count() as u32
    }

    /// A line's midpoint in doubled coordinates (y, x): dots at even coordinates, `h(r,c)` at
    /// (2r, 2c+1), `v(r,c)` at (2r+1, 2c).
    pub fn midpoint(self, line: Line) -> (i32, i32) {
        match self.coord(line) {
            LineCoord::H(r, c) => (2 * r as i32, 2 * c as i32 + 1),
            LineCoord::V(r, c) => (2 * r as i32 + 1, 2 * c as i32),
        }
    }

    pub(super) fn at_midpoint(self, y: i32, x: i32) -> Line {
        if y % 2 == 0 {
            self.h(y as usize / 2, (x as usize - 1) / 2)
        } else {
            self.v((y as usize - 1) / 2, x as usize / 2)
        }
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

impl FromStr for Board {
    type Err = BoardError;

    fn from_str(s: &str) -> Result<Board, BoardError> {
        let syntax = || BoardError::Syntax(s.to_string());
        let (m, n) = s.trim().split_once(['x', 'X']).ok_or_else(syntax)?;
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(m) || !digits(n) {
            return Err(syntax());
        }
        // Counted in 128 bits so that the message names the board as typed; digit strings too
        // long even for that are far too large anyway.
        let (m, n): (Option<u128>, Option<u128>) = (m.parse().ok(), n.parse().ok());
        if m == Some(0) || n == Some(0) {
            return Err(BoardError::Empty(s.trim().to_string()));
        }
        let lines = m.zip(n).and_then(|(m, n)| m.checked_mul(n + 1)?.checked_add((m + 1).checked_mul(n)?));
        let too_large = || BoardError::TooLarge { board: s.trim().to_string(), lines };
        match (m, n) {
            (Some(m), Some(n)) if lines.is_some_and(|l| l <= MAX_LINES as u128) => Board::new(m as usize, n as usize),
            _ => Err(too_large()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_too_large_is_named_as_typed() {
        let err = |s: &str| s.parse::<Board>().unwrap_err().to_string();
        assert!(
            err("99999999999999999999x2").starts_with("board 99999999999999999999x2 has 499999999999999999997 lines")
        );
        assert!(err(" 20x20").starts_with("board 20x20 has 840 lines"));
        assert!(err(&format!("{}x1", "9".repeat(45))).contains("more lines than can be counted"));
        assert!(err("0x99999999999999999999").contains("no boxes"));
        assert_eq!("16x16".parse::<Board>().unwrap().rows(), 16);
    }

    #[test]
    fn line_sets_work_across_words() {
        let lines = [0u16, 63, 64, 127, 128, 300, 543, 575].map(Line);
        let set: LineSet = lines.into_iter().collect();
        assert_eq!(set.len(), 8);
        assert_eq!(set.iter().collect::<Vec<_>>(), lines);
        assert!(lines.iter().all(|&l| set.contains(l)) && !set.contains(Line(65)));
        assert_eq!(set.without(Line(300)).len(), 7);
        assert!(set.contains_all(set.without(Line(64))) && !set.without(Line(64)).contains_all(set));
        assert_eq!(LineSet::first(576).len(), 576);
        assert_eq!(LineSet::first(130).minus(LineSet::first(64)).iter().next(), Some(Line(64)));
        assert_eq!(LineSet::first(544).union(set).len(), 545);
        assert!(LineSet::EMPTY.is_empty() && !set.is_empty());
        let b: Board = "16x16".parse().unwrap();
        assert_eq!(b.full(), LineSet::first(544));
        assert_eq!(b.line_name(Line(543)), "v(15,16)");
        assert_eq!(b.parse_line("v(15,16)"), Some(Line(543)));
    }

    #[test]
    fn line_order_matches_openspiel() {
        let b: Board = "1x2".parse().unwrap();
        assert_eq!(b.lines(), 7);
        assert_eq!(b.h(0, 0), Line(0));
        assert_eq!(b.h(1, 1), Line(3));
        assert_eq!(b.v(0, 0), Line(4));
        assert_eq!(b.v(0, 2), Line(6));
        assert_eq!(b.line_name(Line(5)), "v(0,1)");
        assert_eq!(b.parse_line("v(0,1)"), Some(Line(5)));
        assert_eq!(b.parse_line("5"), Some(Line(5)));
        assert_eq!(b.parse_line("h(2,0)"), None);
    }

    #[test]
    fn symmetries_are_permutations_preserving_boxes() {
        for s in ["1x1", "1x3", "2x2", "3x4", "4x4", "5x5", "5x6", "8x8", "16x16", "3x17"] {
            let b: Board = s.parse().unwrap();
            let syms = b.symmetries();
            assert_eq!(syms.len(), if b.is_square() { 8 } else { 4 });
            for sym in &syms {
                let mut seen = vec![false; b.lines()];
                for l in &sym.perm {
                    assert!(!seen[l.0 as usize]);
                    seen[l.0 as usize] = true;
                }
                for bx in 0..b.boxes() {
                    let image = sym.apply(b.box_mask(bx));
                    assert!((0..b.boxes()).any(|c| b.box_mask(c) == image), "{s}");
                }
            }
        }
    }

    #[test]
    fn sizes_are_checked() {
        assert!(matches!("0x3".parse::<Board>(), Err(BoardError::Empty(_))));
        assert_eq!("6x6".parse::<Board>().unwrap().lines(), 84);
        assert_eq!("16x16".parse::<Board>().unwrap().lines(), 544);
        assert_eq!("1x191".parse::<Board>().unwrap().lines(), 574);
        let e = "17x16".parse::<Board>().unwrap_err();
        assert!(matches!(e, BoardError::TooLarge { lines: Some(577), .. }));
        assert_eq!(e.to_string(), "board 17x16 has 577 lines; at most 576 are supported (16x16 has 544)");
        assert!(matches!("1x192".parse::<Board>(), Err(BoardError::TooLarge { lines: Some(577), .. })));
        assert!(matches!("100000x100000".parse::<Board>(), Err(BoardError::TooLarge { .. })));
        assert!(matches!("3by4".parse::<Board>(), Err(BoardError::Syntax(_))));
        assert_eq!("5x5".parse::<Board>().unwrap().lines(), 60);
        assert_eq!("1x21".parse::<Board>().unwrap().lines(), 64);
    }
}
