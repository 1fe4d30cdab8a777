//! Positions and their two text formats: ASCII art (2M+1 rows of dots, `-` and `|`) and the
//! line string (one `0`/`1` per line in the external order). Parsing errors name the row and
//! column, or the character position, that is wrong.

use super::board::{Board, BoardError, Line, LineSet};

/// A board with some lines drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The board the position is on.
    pub board: Board,
    /// The lines drawn so far, in the external order.
    pub drawn: LineSet,
}

/// Why a position could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The art has no rows once comments and trailing blank rows are dropped.
    #[error("the position has no rows (only comments or blank lines)")]
    NoRows,
    /// The art has an even number of rows, or fewer than 3; holds the number of rows.
    #[error("the position has {0} rows; ASCII art needs an odd number, at least 3 (2M+1 for M rows of boxes)")]
    EvenRows(usize),
    /// The first row of the art is even in width, or narrower than 3 characters.
    #[error(
        "row {row}: the first row is {width} characters wide; it must be odd and at least 3 (2N+1 for N columns of boxes)"
    )]
    BadWidth {
        /// Row of the text (from 1, comments counted).
        row: usize,
        /// Its width in characters.
        width: usize,
    },
    /// A row of the art is longer than the first row.
    #[error("row {row}: {len} characters, wider than the first row ({width})")]
    TooWide {
        /// Row of the text (from 1, comments counted).
        row: usize,
        /// Its length in characters.
        len: usize,
        /// Width of the first row in characters.
        width: usize,
    },
    /// A dot row of the art has something other than a dot where a dot belongs (or ends early).
    #[error("row {row}, column {col}: expected a dot ('+', '.', 'o' or '*'), found {found}")]
    ExpectedDot {
        /// Row of the text (from 1, comments counted).
        row: usize,
        /// Column (from 1).
        col: usize,
        /// What was there, quoted, or `the end of the row`.
        found: String,
    },
    /// A dot row of the art has something other than `-` or a space between two dots.
    #[error("row {row}, column {col}: expected '-' (line drawn) or ' ' (not drawn), found {found}")]
    ExpectedDash {
        /// Row of the text (from 1, comments counted).
        row: usize,
        /// Column (from 1).
        col: usize,
        /// What was there, quoted.
        found: String,
    },
    /// A row between dot rows has something other than `|` or a space where a vertical line belongs.
    #[error("row {row}, column {col}: expected '|' (line drawn) or ' ' (not drawn), found {found}")]
    ExpectedBar {
        /// Row of the text (from 1, comments counted).
        row: usize,
        /// Column (from 1).
        col: usize,
        /// What was there, quoted.
        found: String,
    },
    /// The art's size is not a supported board (more lines than a position holds).
    #[error("the art describes a {rows}x{cols} board: {source}")]
    Board {
        /// Rows of boxes the art describes.
        rows: usize,
        /// Columns of boxes the art describes.
        cols: usize,
        /// Why that size was refused.
        source: BoardError,
    },
    /// The line string has only `0`/`1` but not one per line of the board.
    #[error("the line string has {len} characters; board {board} has {lines} lines")]
    LineStringLength {
        /// Characters in the string.
        len: usize,
        /// The board it was read for.
        board: Board,
        /// Lines that board has.
        lines: usize,
    },
    /// The line string has a character other than `0` or `1`.
    #[error("the line string has {found} at position {pos} (1-based); only '0' and '1' are allowed")]
    LineStringChar {
        /// Position of the character (from 1).
        pos: usize,
        /// The character, quoted.
        found: String,
    },
}

fn shown(c: Option<char>) -> String {
    match c {
        None => "the end of the row".to_string(),
        Some(c) => format!("{c:?}"),
    }
}

/// `text` without a leading byte-order mark (U+FEFF), which some editors write at the start of a
/// UTF-8 file: no part of a position, it would otherwise be read as the first row's first
/// character.
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

impl Position {
    /// The start of the game on `board`: no lines drawn.
    pub fn empty(board: Board) -> Position {
        Position { board, drawn: LineSet::EMPTY }
    }

    /// The lines still to be drawn: the legal moves.
    pub fn undrawn(self) -> LineSet {
        self.board.full().minus(self.drawn)
    }

    /// Reads a line string: `board.lines()` characters `0`/`1` in the external order (a leading
    /// byte-order mark and surrounding whitespace ignored).
    pub fn from_line_string(board: Board, text: &str) -> Result<Position, FormatError> {
        let text = without_bom(text).trim();
        let len = text.chars().count();
        for (i, ch) in text.chars().enumerate() {
            if ch != '0' && ch != '1' {
                return Err(FormatError::LineStringChar { pos: i + 1, found: format!("{ch:?}") });
            }
        }
        if len != board.lines() {
            return Err(FormatError::LineStringLength { len, board, lines: board.lines() });
        }
        let drawn = text.bytes().enumerate().filter(|&(_, b)| b == b'1').map(|(i, _)| Line(i as u16)).collect();
        Ok(Position { board, drawn })
    }

    /// The position as a line string: one `0`/`1` per line in the external order.
    pub fn to_line_string(self) -> String {
        (0..self.board.lines()).map(|i| if self.drawn.contains(Line(i as u16)) { '1' } else { '0' }).collect()
    }

    /// Reads ASCII art. Rows starting with `#` are comments; trailing blank rows are ignored;
    /// trailing spaces may be left out of a row; a leading byte-order mark is ignored. Row
    /// numbers in errors count every row of the text, comments included, from 1.
    pub fn from_art(text: &str) -> Result<Position, FormatError> {
        let mut rows: Vec<(usize, Vec<char>)> = without_bom(text)
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.starts_with('#'))
            .map(|(i, l)| (i + 1, l.trim_end_matches('\r').chars().collect()))
            .collect();
        while rows.last().is_some_and(|(_, r)| r.iter().all(|c| *c == ' ')) {
            rows.pop();
        }
        let Some((first_row, first)) = rows.first() else {
            return Err(FormatError::NoRows);
        };
        if rows.len() < 3 || rows.len().is_multiple_of(2) {
            return Err(FormatError::EvenRows(rows.len()));
        }
        let width = first.len();
        if width < 3 || width.is_multiple_of(2) {
            return Err(FormatError::BadWidth { row: *first_row, width });
        }
        let (m, n) = ((rows.len() - 1) / 2, (width - 1) / 2);
        let board = Board::new(m, n).map_err(|source| FormatError::Board { rows: m, cols: n, source })?;
        let mut drawn = LineSet::EMPTY;
        for (k, (row, chars)) in rows.iter().enumerate() {
            if chars.len() > width {
                return Err(FormatError::TooWide { row: *row, len: chars.len(), width });
            }
            let at = |col: usize| chars.get(col).copied();
            for col in 0..width {
                let ch = at(col);
                let err_col = col + 1;
                if k % 2 == 0 {
                    if col % 2 == 0 {
                        if !matches!(ch, Some('+' | '.' | 'o' | '*')) {
                            return Err(FormatError::ExpectedDot { row: *row, col: err_col, found: shown(ch) });
                        }
                    } else {
                        match ch {
                            Some('-') => drawn = drawn.with(board.h(k / 2, col / 2)),
                            Some(' ') | None => {}
                            _ => return Err(FormatError::ExpectedDash { row: *row, col: err_col, found: shown(ch) }),
                        }
                    }
                } else if col % 2 == 0 {
                    match ch {
                        Some('|') => drawn = drawn.with(board.v(k / 2, col / 2)),
                        Some(' ') | None => {}
                        _ => return Err(FormatError::ExpectedBar { row: *row, col: err_col, found: shown(ch) }),
                    }
                }
            }
        }
        Ok(Position { board, drawn })
    }

    /// The position as ASCII art with `+` dots and no trailing spaces.
    pub fn to_art(self) -> String {
        let b = self.board;
        let mut out = String::new();
        for r in 0..=b.rows() {
            let mut line = String::from("+");
            for c in 0..b.cols() {
                line.push(if self.drawn.contains(b.h(r, c)) { '-' } else { ' ' });
                line.push('+');
            }
            out.push_str(&line);
            out.push('\n');
            if r < b.rows() {
                let mut line = String::new();
                for c in 0..=b.cols() {
                    line.push(if self.drawn.contains(b.v(r, c)) { '|' } else { ' ' });
                    if c < b.cols() {
                        line.push(' ');
                    }
                }
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_example_in_both_formats() {
        let art = "+-+ +\n|   |\n+ +-+\n";
        let p = Position::from_art(art).unwrap();
        assert_eq!(p.board.to_string(), "1x2");
        assert_eq!(p.to_line_string(), "1001101");
        assert_eq!(Position::from_line_string(p.board, "1001101").unwrap(), p);
        assert_eq!(p.to_art(), art);
    }

    #[test]
    fn comments_other_dots_owner_letters_and_short_rows() {
        let art = "# a comment\no-o o\n|A\n* *-*\n\n";
        let p = Position::from_art(art).unwrap();
        assert_eq!(p.to_line_string(), "1001100");
    }

    #[test]
    fn a_leading_byte_order_mark_is_no_part_of_the_position() {
        let b: Board = "1x2".parse().unwrap();
        let p = Position::from_line_string(b, "1001101").unwrap();
        assert_eq!(Position::from_art("\u{feff}+-+ +\n|   |\n+ +-+\n").unwrap(), p);
        assert_eq!(Position::from_art("\u{feff}# a comment\n+-+ +\n|   |\n+ +-+\n").unwrap(), p);
        assert_eq!(Position::from_line_string(b, "\u{feff}1001101\n").unwrap(), p);
        // Only at the start: anywhere else it is a character out of place.
        assert!(Position::from_art("+-+ +\n\u{feff}|   |\n+ +-+\n").is_err());
        assert!(Position::from_line_string(b, "1001\u{feff}101").is_err());
    }

    #[test]
    fn errors_name_row_and_column() {
        let e = Position::from_art("+-+ +\n|x  |\n+ +-+\n").unwrap();
        assert_eq!(e.to_line_string(), "1001101", "box interiors are ignored");
        let e = Position::from_art("+-+ +\n| x |\n+ +-+\n").unwrap_err();
        assert_eq!(e.to_string(), "row 2, column 3: expected '|' (line drawn) or ' ' (not drawn), found 'x'");
        let e = Position::from_art("# c\n+=+ +\n|   |\n+ +-+\n").unwrap_err();
        assert!(e.to_string().starts_with("row 2, column 2:"), "{e}");
        let e = Position::from_art("+-+ +\n|   |\n+ +\n").unwrap_err();
        assert!(matches!(e, FormatError::ExpectedDot { row: 3, col: 5, .. }), "{e}");
        assert!(matches!(Position::from_art("+-+\n|\n"), Err(FormatError::EvenRows(2))));
        let b: Board = "1x2".parse().unwrap();
        assert!(matches!(Position::from_line_string(b, "100110"), Err(FormatError::LineStringLength { len: 6, .. })));
        assert!(matches!(Position::from_line_string(b, "10011x1"), Err(FormatError::LineStringChar { pos: 6, .. })));
    }
}
