//! Opening books: for the positions near the start of a game that dab can meet against an
//! exact opponent, a best move and the position's value, taken from a complete solve. Early in
//! a game no engine finishes within a move's budget and the rules cannot see that most quiet
//! moves already lose the fight for control (on 4x4, after the first line, 8 to 37 of the 39
//! replies lose 2 boxes); the book carries that knowledge. `dab book` builds one from a store
//! or a solve in memory; the books under `src/answer/books/` are compiled in and answer
//! `hint`, `play` and the web board within any budget.
//!
//! The book's tree: from the empty board, with dab moving first or second; where dab moves,
//! the best move that leaves the opponent the fewest best replies (up to symmetry), so that
//! the tree stays small; where the opponent moves, every best reply. Positions are stored in
//! the canonical form of the board's symmetry group.
//!
//! File: one text line `dab-book 1 BOARD DRAWN COUNT CRC\n` (DRAWN: the most lines drawn in
//! a position of the book; CRC: the CRC-32 of what follows, 8 hex digits), then COUNT
//! entries sorted by key: the canonical position's lines as ceil(lines/8) bytes (bit i of
//! byte i/8 set: line i drawn, dab's external order), its best line (one byte) and its value
//! for the player to move (one signed byte).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::OnceLock;

use thiserror::Error;

use crate::game::{Board, Line, LineSet, Position, Symmetry, Value};

use super::play::{MoveValues, Oracle, PlayError};

/// The books compiled in: (board, file).
const BUILT_IN: &[(&str, &[u8])] =
    &[("3x4", include_bytes!("books/3x4.book")), ("4x4", include_bytes!("books/4x4.book"))];

/// The most lines a book's board may have: a move is one byte.
pub const MAX_BOOK_LINES: usize = 255;

/// What can be wrong with a book's bytes or its making.
#[derive(Debug, Error)]
pub enum BookError {
    /// The header line is missing or not a book's.
    #[error("not a dab opening book: {0}")]
    Header(String),
    /// The entries do not match the header's count or checksum, or are out of order.
    #[error("the opening book of {board} is damaged: {what}")]
    Damaged {
        /// The book's board.
        board: Board,
        /// What does not match.
        what: String,
    },
    /// A board with more lines than a book's move byte can name.
    #[error("{board} has {lines} lines; an opening book holds boards of at most {MAX_BOOK_LINES}")]
    TooLarge {
        /// The board asked for.
        board: Board,
        /// Its lines.
        lines: usize,
    },
    /// The values the book is built from could not be had.
    #[error(transparent)]
    Values(#[from] Box<PlayError>),
}

/// A move from the book: a best line of the position and the position's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// A best line, in the position's own frame.
    pub line: Line,
    /// The position's value for the player to move (net future boxes with best play).
    pub value: Value,
}

/// An opening book of one board (see the module's page).
pub struct Book {
    board: Board,
    /// The most lines drawn in a position of the book.
    drawn: u32,
    /// Bytes of a key: ceil(lines / 8).
    key_bytes: usize,
    /// The entries, sorted by key, each `key_bytes + 2` bytes.
    entries: Vec<u8>,
    /// The board's symmetries and, for each, the inverse permutation.
    symmetries: Vec<(Symmetry, Vec<Line>)>,
}

impl Book {
    fn empty(board: Board, drawn: u32) -> Result<Book, BookError> {
        let lines = board.lines();
        if lines > MAX_BOOK_LINES {
            return Err(BookError::TooLarge { board, lines });
        }
        let symmetries = board
            .symmetries()
            .into_iter()
            .map(|g| {
                let mut inverse = vec![Line(0); lines];
                for (i, &image) in g.perm.iter().enumerate() {
                    inverse[image.0 as usize] = Line(i as u16);
                }
                (g, inverse)
            })
            .collect();
        Ok(Book { board, drawn, key_bytes: lines.div_ceil(8), entries: Vec::new(), symmetries })
    }

    /// The book's board.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The most lines drawn in a position of the book.
    pub fn drawn(&self) -> u32 {
        self.drawn
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.entries.len() / (self.key_bytes + 2)
    }

    /// Whether the book holds no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn key(&self, set: LineSet) -> Vec<u8> {
        let mut key = vec![0u8; self.key_bytes];
        for l in set.iter() {
            key[l.0 as usize / 8] |= 1 << (l.0 % 8);
        }
        key
    }

    /// The canonical form of `set`: its smallest key under the symmetries, and which symmetry
    /// gives it.
    fn canonical(&self, set: LineSet) -> (Vec<u8>, usize) {
        (0..self.symmetries.len())
            .map(|k| (self.key(self.symmetries[k].0.apply(set)), k))
            .min()
            .expect("the identity at least")
    }

    /// Adds the canonical form of `set` to `level`, keyed by its key.
    fn insert_canonical(&self, level: &mut HashMap<Vec<u8>, LineSet>, set: LineSet) {
        let (key, k) = self.canonical(set);
        level.entry(key).or_insert_with(|| self.symmetries[k].0.apply(set));
    }

    fn entry(&self, i: usize) -> (&[u8], u8, i8) {
        let e = &self.entries[i * (self.key_bytes + 2)..(i + 1) * (self.key_bytes + 2)];
        (&e[..self.key_bytes], e[self.key_bytes], e[self.key_bytes + 1] as i8)
    }

    /// The book's move in `pos`, where the book holds it.
    pub fn lookup(&self, pos: Position) -> Option<BookMove> {
        if pos.board != self.board || pos.drawn.len() > self.drawn {
            return None;
        }
        let (key, k) = self.canonical(pos.drawn);
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let (at, line, value) = self.entry(mid);
            match at.cmp(&key[..]) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    // The entry's line is in the canonical frame: back to the position's own.
                    let line = self.symmetries[k].1[line as usize];
                    return Some(BookMove { line, value: Value::from(value) });
                }
            }
        }
        None
    }

    /// The book as its file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let crc = crc32fast::hash(&self.entries);
        let mut out = format!("dab-book 1 {} {} {} {crc:08x}\n", self.board, self.drawn, self.len()).into_bytes();
        out.extend_from_slice(&self.entries);
        out
    }

    /// A book from its file's bytes, checked whole (header, count, checksum, order).
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        let end = bytes.iter().take(128).position(|&b| b == b'\n');
        let head = end.and_then(|e| std::str::from_utf8(&bytes[..e]).ok());
        let fields: Vec<&str> = head.map(|h| h.split(' ').collect()).unwrap_or_default();
        let header = || BookError::Header("the first line is not 'dab-book 1 BOARD DRAWN COUNT CRC'".to_string());
        let [magic, "1", board, drawn, count, crc] = fields[..] else { return Err(header()) };
        if magic != "dab-book" {
            return Err(header());
        }
        let board: Board = board.parse().map_err(|e| BookError::Header(format!("{e}")))?;
        let drawn: u32 = drawn.parse().map_err(|_| header())?;
        let count: usize = count.parse().map_err(|_| header())?;
        let crc = u32::from_str_radix(crc, 16).map_err(|_| header())?;
        let mut book = Book::empty(board, drawn)?;
        let body = &bytes[end.expect("a header line") + 1..];
        let damaged = |what: String| BookError::Damaged { board, what };
        if Some(body.len()) != count.checked_mul(book.key_bytes + 2) {
            return Err(damaged(format!("{} bytes of entries where {count} entries were named", body.len())));
        }
        if crc32fast::hash(body) != crc {
            return Err(damaged("checksum mismatch".into()));
        }
        book.entries = body.to_vec();
        for i in 1..book.len() {
            if book.entry(i - 1).0 >= book.entry(i).0 {
                return Err(damaged(format!("entry {i} is out of order")));
            }
        }
        for i in 0..book.len() {
            if book.entry(i).1 as usize >= board.lines() {
                return Err(damaged(format!("entry {i} names line {} of {}", book.entry(i).1, board.lines())));
            }
        }
        Ok(book)
    }

    /// Builds the book of `board` from `oracle`'s values (a store or a solve of the empty
    /// board), over positions of at most `drawn` lines; `progress` hears each level's drawn
    /// lines and positions as it is done.
    pub fn build(
        oracle: &Oracle,
        board: Board,
        drawn: u32,
        mut progress: impl FnMut(u32, usize),
    ) -> Result<Book, BookError> {
        let mut book = Book::empty(board, drawn)?;
        let mut builder = Builder { oracle, book: &book, values: HashMap::new() };
        let mut entries: BTreeMap<Vec<u8>, (u8, i8)> = BTreeMap::new();
        // dab's positions by lines drawn, canonical and deduplicated.
        let mut at: Vec<HashMap<Vec<u8>, LineSet>> = vec![HashMap::new(); drawn as usize + 2];
        let empty = LineSet::EMPTY;
        at[0].insert(book.key(empty), empty);
        // dab second: the opponent's best first lines.
        builder.replies(empty, drawn, &mut at)?;
        for d in 0..=drawn as usize {
            let mut level: Vec<(Vec<u8>, LineSet)> = at[d].drain().collect();
            level.sort();
            for (key, set) in &level {
                let (line, value, after) = builder.choose(*set, drawn)?;
                entries.insert(key.clone(), (line.0 as u8, value));
                let next = after.len() as usize;
                if board.completes(*set, line) > 0 {
                    // dab completed a box and moves again.
                    if next <= drawn as usize {
                        book.insert_canonical(&mut at[next], after);
                    }
                } else {
                    builder.replies(after, drawn, &mut at)?;
                }
            }
            progress(d as u32, level.len());
        }
        drop(builder);
        book.entries =
            entries.into_iter().flat_map(|(k, (line, value))| k.into_iter().chain([line, value as u8])).collect();
        Ok(book)
    }
}

/// The book's tree as it grows: the oracle's values, kept for the positions met twice.
struct Builder<'a, 'w> {
    oracle: &'a Oracle<'w>,
    book: &'a Book,
    values: HashMap<LineSet, MoveValues>,
}

impl Builder<'_, '_> {
    fn values(&mut self, set: LineSet) -> Result<MoveValues, BookError> {
        if let Some(v) = self.values.get(&set) {
            return Ok(v.clone());
        }
        let pos = Position { board: self.book.board, drawn: set };
        let v = self.oracle.moves(pos).map_err(Box::new)?;
        self.values.insert(set, v.clone());
        Ok(v)
    }

    /// The best lines of `set` for the player to move, and the value.
    fn best(&mut self, set: LineSet) -> Result<(Vec<Line>, Value), BookError> {
        let v = self.values(set)?;
        let best = v.iter().map(|&(_, x)| x).max().expect("a position with an undrawn line");
        Ok((v.iter().filter(|&&(_, x)| x == best).map(|&(l, _)| l).collect(), best))
    }

    /// dab's move in `set`: a best line, the one leaving the opponent the fewest best replies
    /// up to symmetry where those replies are still in the book (a capture first); with the
    /// position's value and the lines after it.
    fn choose(&mut self, set: LineSet, drawn: u32) -> Result<(Line, Value, LineSet), BookError> {
        let board = self.book.board;
        let (best, value) = self.best(set)?;
        if let Some(&l) = best.iter().find(|&&l| board.completes(set, l) > 0) {
            return Ok((l, value, set.with(l)));
        }
        // The opponent's replies reach dab's next position at two lines more.
        if set.len() + 2 > drawn || best.len() == 1 {
            return Ok((best[0], value, set.with(best[0])));
        }
        let mut chosen = (usize::MAX, best[0]);
        for &l in &best {
            let after = set.with(l);
            let (replies, _) = self.best(after)?;
            let distinct: HashSet<Vec<u8>> = replies.iter().map(|&r| self.book.canonical(after.with(r)).0).collect();
            chosen = chosen.min((distinct.len(), l));
        }
        Ok((chosen.1, value, set.with(chosen.1)))
    }

    /// Every best reply of the opponent in `set` (again after a box it completes), into `at`:
    /// the positions where dab moves next, within `drawn` lines.
    fn replies(&mut self, set: LineSet, drawn: u32, at: &mut [HashMap<Vec<u8>, LineSet>]) -> Result<(), BookError> {
        if set.len() >= drawn || set == self.book.board.full() {
            return Ok(());
        }
        let (best, _) = self.best(set)?;
        for l in best {
            let after = set.with(l);
            if self.book.board.completes(set, l) > 0 {
                self.replies(after, drawn, at)?;
            } else if after != self.book.board.full() {
                self.book.insert_canonical(&mut at[after.len() as usize], after);
            }
        }
        Ok(())
    }
}

/// The compiled-in book of `board`, if there is one (checked whole on its first use, so that a
/// hint on another board never reads it).
pub fn built_in(board: Board) -> Option<&'static Book> {
    static BOOKS: [OnceLock<Book>; BUILT_IN.len()] = [const { OnceLock::new() }; BUILT_IN.len()];
    let name = board.to_string();
    let i = BUILT_IN.iter().position(|(b, _)| *b == name)?;
    Some(BOOKS[i].get_or_init(|| Book::from_bytes(BUILT_IN[i].1).expect("a compiled-in book is sound (tested)")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::{Answerer, Asking};

    fn solved(board: Board) -> Oracle<'static> {
        Oracle::new(Position::empty(board), Asking::new(Answerer::Partition, 1)).unwrap()
    }

    fn book_of(board: &str, drawn: u32) -> (Oracle<'static>, Book) {
        let board: Board = board.parse().unwrap();
        let oracle = solved(board);
        let book = Book::build(&oracle, board, drawn, |_, _| {}).unwrap();
        (oracle, book)
    }

    /// Every position of the book, in its canonical frame.
    fn positions(book: &Book) -> Vec<Position> {
        (0..book.len())
            .map(|i| {
                let key = book.entry(i).0;
                let drawn = (0..book.board.lines())
                    .filter(|&l| key[l / 8] & (1 << (l % 8)) != 0)
                    .map(|l| Line(l as u16))
                    .collect();
                Position { board: book.board, drawn }
            })
            .collect()
    }

    #[test]
    fn every_move_of_the_book_is_a_best_move_in_every_symmetric_image_of_its_position() {
        let (oracle, book) = book_of("3x3", 6);
        assert!(book.len() > 100, "{}", book.len());
        for pos in positions(&book) {
            for (g, _) in &book.symmetries {
                let image = Position { board: pos.board, drawn: g.apply(pos.drawn) };
                let m = book.lookup(image).expect("every image of a book position is in it");
                let values = oracle.moves(image).unwrap();
                let best = values.iter().map(|&(_, v)| v).max().unwrap();
                assert_eq!(m.value, best, "{}", image.to_line_string());
                let played = values.iter().find(|&&(l, _)| l == m.line).expect("an undrawn line");
                assert_eq!(played.1, best, "{} plays {:?}", image.to_line_string(), m.line);
            }
        }
    }

    #[test]
    fn against_an_exact_opponent_every_position_dab_meets_within_the_depth_is_in_the_book() {
        let (oracle, book) = book_of("2x3", 9);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut below = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for game in 0..200 {
            let mut pos = Position::empty(book.board);
            let mut dab = game % 2 == 0;
            while !pos.undrawn().is_empty() {
                let line = if dab && pos.drawn.len() <= book.drawn {
                    book.lookup(pos)
                        .unwrap_or_else(|| panic!("game {game}: {} not in the book", pos.to_line_string()))
                        .line
                } else {
                    let values = oracle.moves(pos).unwrap();
                    let best = values.iter().map(|&(_, v)| v).max().unwrap();
                    let best: Vec<Line> = values.iter().filter(|&&(_, v)| v == best).map(|&(l, _)| l).collect();
                    best[below(best.len())]
                };
                let boxes = pos.board.completes(pos.drawn, line);
                pos.drawn = pos.drawn.with(line);
                if boxes == 0 {
                    dab = !dab;
                }
            }
        }
    }

    #[test]
    fn a_book_reads_back_byte_for_byte_and_damage_is_refused() {
        let (_, book) = book_of("2x2", 5);
        let bytes = book.to_bytes();
        let back = Book::from_bytes(&bytes).unwrap();
        assert_eq!(back.to_bytes(), bytes);
        assert_eq!((back.board(), back.drawn(), back.len()), (book.board(), 5, book.len()));
        let body = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        for at in [body, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            let e = Book::from_bytes(&bad).err().expect("damage refused").to_string();
            assert!(e.contains("2x2 is damaged"), "{e}");
        }
        let e = Book::from_bytes(&bytes[..bytes.len() - 1]).err().unwrap().to_string();
        assert!(e.contains("damaged") && e.contains("entries"), "{e}");
        let e = Book::from_bytes(b"PK\x03\x04 not a book").err().unwrap().to_string();
        assert!(e.starts_with("not a dab opening book"), "{e}");
        assert!(Book::from_bytes(&bytes[..body]).is_err());
    }

    #[test]
    fn a_book_answers_only_its_own_board_within_its_depth() {
        let (_, book) = book_of("2x2", 3);
        let other: Board = "1x3".parse().unwrap();
        assert_eq!(book.lookup(Position::empty(other)), None);
        let deep = Position { board: book.board, drawn: LineSet::first(4) };
        assert_eq!(book.lookup(deep), None);
        assert!(book.lookup(Position::empty(book.board)).is_some());
    }

    #[test]
    fn the_compiled_in_books_are_sound() {
        for (name, bytes) in BUILT_IN {
            let book = Book::from_bytes(bytes).unwrap();
            assert_eq!(book.board().to_string(), *name);
            assert!(built_in(book.board()).is_some());
            assert!(book.lookup(Position::empty(book.board())).is_some(), "{name}: the empty board");
        }
    }
}
