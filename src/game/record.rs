//! A game's record: the moves played from a position, read in dab's notation (`h(0,0)
//! v(1,2) ...`, or line numbers in the external order) or littlegolem's (its forum's, 2004:
//! dots lettered a, b, ... from the left and numbered 1, 2, ... from the bottom, a line named
//! by its two dots, `a1-b1`; move numbers such as `1.` skipped), as the web board writes them;
//! and the game replayed: who moved, the turn, the score before each move. The first move that
//! is no undrawn line of the board stops the reading, named by its number and text.

use super::board::{Board, Line};
use super::position::Position;

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// No move at all.
    #[error("the record has no moves (give them as h(0,0) v(1,2) ... or as a littlegolem record: 1. a1-b1 2. c3-c4)")]
    Empty,
    /// A move in neither notation.
    #[error(
        "move {number}, '{text}': not a move in dab's notation (h(r,c), v(r,c) or a line number) nor littlegolem's (two neighbouring dots, a1-b1)"
    )]
    Unknown {
        /// The move's number in the record (from 1).
        number: usize,
        /// The move as written.
        text: String,
    },
    /// A move in a known notation that names no line of the board.
    #[error("move {number}, '{text}': no line of the {board} board")]
    NotOnBoard {
        /// The move's number in the record (from 1).
        number: usize,
        /// The move as written.
        text: String,
        /// The board.
        board: Board,
    },
    /// A move on a line drawn before it (in the start position or by an earlier move).
    #[error("move {number}, '{text}': the line {line} is drawn already")]
    Drawn {
        /// The move's number in the record (from 1).
        number: usize,
        /// The move as written.
        text: String,
        /// The line's name in dab's notation.
        line: String,
    },
}

/// The moves of a game from its start position, each an undrawn line when it is played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The position before the first move; the player to move there is A.
    pub start: Position,
    /// The lines drawn, in order.
    pub moves: Vec<Line>,
}

/// One move of a replayed game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The move's number (from 1).
    pub number: usize,
    /// The turn's number (from 1): a player who completes a box moves again in the same turn.
    pub turn: usize,
    /// The player: 0 for A (who moves first), 1 for B.
    pub player: u8,
    /// The line drawn.
    pub line: Line,
    /// Boxes the move completes.
    pub boxes: u8,
    /// The position before the move.
    pub before: Position,
    /// Boxes A and B had taken before the move (boxes complete in the start position count
    /// for neither).
    pub score: [u32; 2],
}

impl Record {
    /// Reads `text`, the moves from `start` in either notation (see the module's page).
    pub fn parse(start: Position, text: &str) -> Result<Record, RecordError> {
        let board = start.board;
        let mut drawn = start.drawn;
        let mut moves = Vec::new();
        for token in tokens(text) {
            let number = moves.len() + 1;
            let line = line_of(board, &token, number)?;
            if drawn.contains(line) {
                return Err(RecordError::Drawn { number, text: token, line: board.line_name(line) });
            }
            drawn = drawn.with(line);
            moves.push(line);
        }
        if moves.is_empty() {
            return Err(RecordError::Empty);
        }
        Ok(Record { start, moves })
    }

    /// The game move by move, and the position after the last move.
    pub fn replay(&self) -> (Vec<Played>, Position) {
        let board = self.start.board;
        let (mut pos, mut player, mut turn, mut score) = (self.start, 0u8, 1, [0u32; 2]);
        let mut played = Vec::with_capacity(self.moves.len());
        for (i, &line) in self.moves.iter().enumerate() {
            let boxes = board.completes(pos.drawn, line) as u8;
            played.push(Played { number: i + 1, turn, player, line, boxes, before: pos, score });
            score[player as usize] += u32::from(boxes);
            pos = Position { board, drawn: pos.drawn.with(line) };
            if boxes == 0 {
                player ^= 1;
                turn += 1;
            }
        }
        (played, pos)
    }
}

/// A player's letter: A moves first.
pub fn player_name(player: u8) -> &'static str {
    if player == 0 { "A" } else { "B" }
}

/// The line a move names: littlegolem's two dots, else dab's name or line number.
fn line_of(board: Board, token: &str, number: usize) -> Result<Line, RecordError> {
    let not_on_board = || RecordError::NotOnBoard { number, text: token.to_string(), board };
    if let Some((a, b)) = golem_dots(token) {
        return golem_line(board, a, b).ok_or_else(not_on_board);
    }
    if let Some(line) = board.parse_line(token) {
        return Ok(line);
    }
    // A name of dab's notation, or a number, out of this board's range.
    let dab_like = token.bytes().all(|b| b.is_ascii_digit())
        || (token.starts_with(['h', 'v']) && token[1..].starts_with('(') && token.ends_with(')'));
    if dab_like { Err(not_on_board()) } else { Err(RecordError::Unknown { number, text: token.to_string() }) }
}

/// A dot of littlegolem's notation: (column from the left, number from the bottom).
type Dot = (usize, usize);

/// The two dots of `a1-b1` or `a1b1`, or None where the token is not of that form.
fn golem_dots(token: &str) -> Option<(Dot, Dot)> {
    fn dot(s: &str) -> Option<(Dot, &str)> {
        let letter = s.bytes().next().filter(u8::is_ascii_lowercase)?;
        let digits = s[1..].bytes().take_while(u8::is_ascii_digit).count();
        let number = s[1..1 + digits].parse().ok()?;
        Some((((letter - b'a') as usize, number), &s[1 + digits..]))
    }
    let (a, rest) = dot(token)?;
    let (b, rest) = dot(rest.strip_prefix('-').unwrap_or(rest))?;
    rest.is_empty().then_some((a, b))
}

/// Whether `text` reads as a record in littlegolem's notation: at least one move, every move
/// two dots (`a1-b1`; move numbers skipped). Such a text is a game, not a position.
pub fn is_golem_record(text: &str) -> bool {
    let moves = tokens(text);
    !moves.is_empty() && moves.iter().all(|t| golem_dots(t).is_some())
}

/// The line between two littlegolem dots, either order, or None where they are not
/// neighbours on `board`.
fn golem_line(board: Board, a: Dot, b: Dot) -> Option<Line> {
    let (rows, cols) = (board.rows(), board.cols());
    // Dot numbers run from 1 at the bottom row of dots (dab's row `rows`) up.
    let dot = |(c, n): Dot| ((1..=rows + 1).contains(&n) && c <= cols).then(|| (rows + 1 - n, c));
    let ((ra, ca), (rb, cb)) = (dot(a)?, dot(b)?);
    if ra == rb && ca.abs_diff(cb) == 1 {
        Some(board.h(ra, ca.min(cb)))
    } else if ca == cb && ra.abs_diff(rb) == 1 {
        Some(board.v(ra.min(rb), ca))
    } else {
        None
    }
}

/// The line's name in littlegolem's notation, lower-left dot first: `a1-b1`.
pub fn golem_name(board: Board, line: Line) -> String {
    let rows = board.rows();
    let dot = |r: usize, c: usize| format!("{}{}", (b'a' + c as u8) as char, rows + 1 - r);
    match board.coord(line) {
        super::LineCoord::H(r, c) => format!("{}-{}", dot(r, c), dot(r, c + 1)),
        super::LineCoord::V(r, c) => format!("{}-{}", dot(r + 1, c), dot(r, c)),
    }
}

/// The moves of `text`, lower-cased and without spaces: a dab name (`h(0, 1)`, which holds a
/// comma of its own) whole, else anything between spaces, commas and semicolons; move numbers
/// (`12.`) dropped.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let separator = |c: char| c.is_whitespace() || c == ',' || c == ';';
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if separator(chars[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let named = matches!(chars[i].to_ascii_lowercase(), 'h' | 'v')
            && chars[i + 1..].iter().find(|c| !c.is_whitespace()) == Some(&'(');
        let close = named.then(|| chars[i..].iter().position(|&c| c == ')')).flatten();
        i = match close {
            Some(at) => start + at + 1,
            None => start + chars[start..].iter().position(|&c| separator(c)).unwrap_or(chars.len() - start),
        };
        let token: String = chars[start..i].iter().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase();
        // A move number: digits and a dot, alone or before the move ("1.a1-b1").
        let digits = token.bytes().take_while(u8::is_ascii_digit).count();
        let token =
            if digits > 0 && token[digits..].starts_with('.') { token[digits + 1..].to_string() } else { token };
        if !token.is_empty() {
            out.push(token);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(board: &str, text: &str) -> Result<Record, RecordError> {
        Record::parse(Position::empty(board.parse().unwrap()), text)
    }

    #[test]
    fn dab_s_names_line_numbers_and_littlegolem_s_dots_name_the_same_lines() {
        let board: Board = "2x3".parse().unwrap();
        let dab = record("2x3", "h(0,0) v( 1 , 2 ),h(2,2); 3").unwrap();
        // Littlegolem numbers dots from the bottom: h(0,0) on 2 rows joins a3 and b3.
        // Littlegolem numbers dots from the bottom: h(0,0) on 2 rows joins a3 and b3.
        let golem = record("2x3", "1. a3-b3 2. d1-d2, c1c2 3. B1-A1 ").unwrap();
        assert_eq!(dab.moves, [board.h(0, 0), board.v(1, 2), board.h(2, 2), Line(3)]);
        assert_eq!(golem.moves, [board.h(0, 0), board.v(1, 3), board.v(1, 2), board.h(2, 0)]);
        for l in 0..board.lines() as u16 {
            let name = golem_name(board, Line(l));
            assert_eq!(record("2x3", &name).unwrap().moves, [Line(l)], "{name}");
        }
        // A text of littlegolem moves alone is a game's record, not a position.
        assert!(is_golem_record("1. a3-b3 2. d1-d2, c1c2 3. B1-A1 "));
        for not in ["", "1.", "h(0,0) a3-b3", "+-+\n| |\n+-+", "0101"] {
            assert!(!is_golem_record(not), "{not}");
        }
    }

    #[test]
    fn a_move_that_is_no_undrawn_line_is_named_by_its_number() {
        assert_eq!(record("2x2", "  1. "), Err(RecordError::Empty));
        let drawn = record("2x2", "h(0,0) a3-b3").unwrap_err();
        assert!(drawn.to_string().starts_with("move 2, 'a3-b3': the line h(0,0) is drawn already"), "{drawn}");
        let unknown = record("2x2", "h(0,0) e4").unwrap_err();
        assert!(matches!(unknown, RecordError::Unknown { number: 2, .. }), "{unknown}");
        for off in ["h(3,0)", "12", "a1-c1", "a1-a9"] {
            let e = record("2x2", off).unwrap_err();
            assert!(e.to_string().contains("no line of the 2x2 board"), "{off}: {e}");
        }
    }

    #[test]
    fn a_replay_passes_the_turn_only_on_a_move_that_completes_nothing() {
        // 1x1: three sides by A, B, A; the fourth completes the box for B, who moves again.
        let r = record("1x1", "0 1 2 3").unwrap();
        let (played, end) = r.replay();
        let who: Vec<(usize, u8, u8)> = played.iter().map(|p| (p.turn, p.player, p.boxes)).collect();
        assert_eq!(who, [(1, 0, 0), (2, 1, 0), (3, 0, 0), (4, 1, 1)]);
        assert!(end.undrawn().is_empty());
        assert_eq!(played[3].score, [0, 0]);
    }
}
