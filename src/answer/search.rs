//! The search engine: alpha-beta over net future boxes, for positions the retrograde cannot
//! reach whole. A position is renumbered as the solver does (its undrawn lines, at most 64,
//! in a `u64`: bit i set = undrawn line i drawn) and searched depth first, with
//! - captures taken at once where no choice that can be best is lost: a box completed by a line
//!   whose other box does not get its third side, and the first box of a chain of at least 3
//!   (half open) or 5 (closed) capturable boxes, whose all-but-two (all-but-four) choice comes
//!   later;
//! - a transposition table of bounded size, shared by every thread, keyed on the canonical
//!   state (interchangeable border lines of a box normalised, then the least image under the
//!   symmetries that fix the root) and holding a lower and an upper bound;
//! - moves ordered: the table's best move, then captures, then moves that give no box, then
//!   the rest;
//! - the root's moves searched in parallel on rayon (root splitting), each to its exact value.
//!
//! Values follow the solver's convention: a move that completes n boxes is worth n plus the
//! value after it (the same player moves again), any other move minus the value after it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

use crate::game::{Line, Position, Value};
use crate::store::Book;

use super::endgame::{Component, Tally};
use crate::solver::{LineBoxes, MAX_FREE_LINES, Space, State, free_box_masks};

/// Why a position could not be searched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// More undrawn lines than a state holds.
    #[error("the position has {0} undrawn lines; the search engine takes at most {MAX_FREE_LINES}")]
    TooLarge(usize),
    /// The table was given less room than one bucket.
    #[error("--tt-size {0} bytes is too small: the transposition table needs at least {MIN_TT_BYTES} bytes")]
    TableTooSmall(u64),
    /// The system would not give the table its memory.
    #[error("--tt-size {} is more memory than this machine gives: the transposition table could not be allocated", crate::support::about_bytes(*.0 as f64))]
    TableTooLarge(u64),
    /// A file of the store given as leaves could not be read (the message names it).
    #[error("{0}")]
    Book(String),
}

/// A map of states bit by bit: `tables[byte][bits]` is the image of `bits` in byte `byte` of a
/// state, so that mapping a state is eight lookups (a symmetry's permutation, a renumbering).
struct BitMap(Box<[[u64; 256]; 8]>);

impl BitMap {
    /// The map sending bit i to `images[i]` (bits past the slice to nothing).
    fn new(images: &[u64]) -> BitMap {
        let mut t = Box::new([[0u64; 256]; 8]);
        for (byte, table) in t.iter_mut().enumerate() {
            for (bits, image) in table.iter_mut().enumerate() {
                *image = (0..8)
                    .filter(|b| bits >> b & 1 == 1)
                    .filter_map(|b| images.get(byte * 8 + b))
                    .fold(0, |m, i| m | i);
            }
        }
        BitMap(t)
    }

    /// The image of state `s`.
    fn apply(&self, s: u64) -> u64 {
        self.0.iter().enumerate().fold(0, |m, (byte, table)| m | table[(s >> (8 * byte)) as usize & 0xff])
    }
}

/// A store's solve as exact leaves of a search: which nodes it can hold, and each node
/// renumbered as the store's space numbers it.
struct BookLeaves<'b> {
    book: &'b Book<'b>,
    /// The search's bits of the lines the store's root has drawn and the search's root has
    /// not: a node the store can hold has drawn them all.
    need: u64,
    /// A node renumbered as the store's state (the store root's own lines give no bit).
    to_book: BitMap,
}

impl<'b> BookLeaves<'b> {
    /// The leaves of `book` for a search of `root` numbered by `space`; None when the store's
    /// root has not drawn every line of `root` (it holds no node of this search).
    fn new(book: &'b Book<'b>, root: Position, space: &Space) -> Option<BookLeaves<'b>> {
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
    fn value(&self, s: u64) -> Option<i32> {
        if s & self.need != self.need {
            return None;
        }
        self.book.value(State(self.to_book.apply(s))).map(i32::from)
    }
}

/// Bytes of one table entry: the canonical state and its packed bounds, two words.
pub const ENTRY_BYTES: u64 = 16;
/// Fewest bytes a table may have: one bucket of four entries (a cache line).
pub const MIN_TT_BYTES: u64 = WAYS as u64 * ENTRY_BYTES;
/// Default table size: 256 MiB.
pub const DEFAULT_TT_BYTES: u64 = 256 << 20;

/// What a search is asked.
#[derive(Clone, Copy)]
pub struct SearchOptions<'p> {
    /// Bytes of the transposition table (rounded down to a power of two entries).
    pub tt_bytes: u64,
    /// Worker threads (the root's moves are shared out among them).
    pub threads: usize,
    /// Called every `progress_seconds` while the search runs, from a thread of its own.
    pub progress: Option<&'p (dyn Fn(&SearchProgress) + Sync)>,
    /// Seconds between calls of `progress`.
    pub progress_seconds: f64,
    /// Whether every move's exact value is searched too (else only the position's value).
    pub move_values: bool,
    /// Whether positions made only of loops and long chains are valued by Allcock's theorems
    /// (off only to measure what they save).
    pub theorems: bool,
    /// Positions of at most this many undrawn lines (at most [`MAX_LEAF_LINES`]) are valued
    /// by a retrograde pass over their subsets instead of searched. 0 by default: on 3x4 and
    /// 5x5 positions 0 to 7 measured alike and 9 or more slower (the table already makes the
    /// last plies cheap).
    pub leaf_lines: usize,
    /// A store whose positions are exact leaves: a node it holds is not searched. Only a
    /// store solved from a root later than the searched position can hold a node (a store from
    /// an earlier root that does not hold the position holds none of the positions after it);
    /// a store of another root is not used.
    pub book: Option<&'p Book<'p>>,
}

impl Default for SearchOptions<'_> {
    fn default() -> Self {
        SearchOptions {
            tt_bytes: DEFAULT_TT_BYTES,
            threads: 1,
            progress: None,
            progress_seconds: 1.0,
            move_values: true,
            theorems: true,
            leaf_lines: 0,
            book: None,
        }
    }
}

/// How far a search has come.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchProgress {
    /// Positions searched so far (counted in batches of [`FLUSH`]).
    pub nodes: u64,
    /// Table probes that answered or narrowed the window so far.
    pub table_hits: u64,
    /// The root's value is proven at least this (-127: nothing proven yet).
    pub lower: i32,
    /// The root's value is proven at most this (127: nothing proven yet).
    pub upper: i32,
    /// The root's moves searched to their values.
    pub root_moves_done: usize,
    /// The root's moves.
    pub root_moves: usize,
    /// Wall seconds since the search began.
    pub seconds: f64,
}

/// Nodes a thread counts before adding them to the shared counters the progress reads.
pub const FLUSH: u64 = 1 << 16;

/// What a search found and what it took.
#[derive(Clone, Debug)]
pub struct SearchOutcome {
    /// The position's value: net future boxes for the player to move.
    pub value: Value,
    /// Every undrawn line, in line order: (line, boxes it completes, value of playing it).
    pub moves: Vec<(Line, u8, Value)>,
    /// Positions searched (table hits included).
    pub nodes: u64,
    /// Table probes that answered or narrowed the window.
    pub table_hits: u64,
    /// Positions valued from the store's book instead of searched.
    pub book_hits: u64,
    /// Bytes of the table.
    pub table_bytes: u64,
    /// Wall seconds.
    pub seconds: f64,
}

/// Per undrawn line: the boxes it borders, as the other undrawn sides of each.
struct Rules {
    /// `boxes[i]`: for each box line i borders, its other undrawn sides (bits of the state).
    boxes: Vec<LineBoxes>,
    /// `sides[i]`: each box line i borders as all its sides undrawn at the root, line i
    /// included (0 where the line has one box): what names a box when a chain is walked.
    sides: Vec<[u64; 2]>,
    /// Every line drawn.
    full: u64,
    /// Classes of interchangeable lines (border lines of one box), as (mask, prefix masks by
    /// lines drawn): a state keeps a class's drawn lines as its prefix.
    classes: Vec<(u64, Vec<u64>)>,
    /// For each symmetry fixing the root (identity excluded): the image
    /// of `bits` in byte `byte` of a state, so that a state's image is eight lookups.
    sym: Vec<BitMap>,
    /// Order in which moves are tried among equals: from the middle of the board outwards.
    order: Vec<u8>,
    /// Each box with an undrawn side at the root: its undrawn sides (bits of the state).
    box_sides: Vec<u64>,
    /// For each line, the boxes (indices into `box_sides`) it borders; `NO_BOX` past the count.
    line_boxes: Vec<[u8; 2]>,
    /// Lines on the edge of the live boxes (one box each).
    border: u64,
    /// Whether the theorems' leaf can be used: at most 64 live boxes (one word of them).
    theorems: bool,
}

/// What the chain rules allow at a capture that leaves another box capturable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ChainRule {
    /// The capture is made at once: nothing that can be best is lost.
    TakeNow,
    /// Only these two lines can be best: the capture, and the line that declines the last two
    /// boxes (half open) or four (closed) as hard-hearted handouts (`u8::MAX`: no such line
    /// found; every move is searched).
    Either(u8, u8),
}

/// Most undrawn lines a position valued by the retrograde leaf may have.
pub const MAX_LEAF_LINES: usize = 12;

/// No box: the second box of a border line.
const NO_BOX: u8 = u8::MAX;

impl Rules {
    fn new(root: Position, space: &Space) -> Rules {
        let free = &space.lines;
        let k = free.len();
        let boxes = free_box_masks(root, free);
        let sides = boxes
            .iter()
            .enumerate()
            .map(|(i, lb)| std::array::from_fn(|b| if b < lb.count as usize { lb.others[b] | 1 << i } else { 0 }))
            .collect();
        let full = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
        // Classes: consecutive internal lines linked by `class_prev`.
        let mut classes: Vec<(u64, Vec<u64>)> = Vec::new();
        for i in 0..k {
            if space.class_prev[i] == 0 {
                if i + 1 < k && space.class_prev[i + 1] == 1 << i {
                    classes.push((1 << i, vec![0, 1 << i]));
                }
            } else if let Some((mask, prefixes)) = classes.last_mut() {
                *mask |= 1 << i;
                let last = *prefixes.last().expect("a class has a prefix");
                prefixes.push(last | 1 << i);
            }
        }
        let sym =
            space.syms.iter().map(|perm| BitMap::new(&(0..k).map(|i| 1u64 << perm[i]).collect::<Vec<_>>())).collect();
        let board = root.board;
        let (cy, cx) = (board.rows() as i32, board.cols() as i32);
        let mut order: Vec<u8> = (0..k as u8).collect();
        // Distance of a line's midpoint (doubled coordinates) from the board's centre.
        let dist = |i: u8| {
            let (y, x) = board.midpoint(free[i as usize]);
            (y - cy).abs() + (x - cx).abs()
        };
        order.sort_by_key(|&i| (dist(i), i));
        let mut live: Vec<usize> = free.iter().flat_map(|&l| board.line_boxes(l)).collect();
        live.sort_unstable();
        live.dedup();
        let index_of = |b: usize| live.binary_search(&b).expect("a live box") as u8;
        let line_boxes: Vec<[u8; 2]> = free
            .iter()
            .map(|&l| {
                let bs = board.line_boxes(l);
                [index_of(bs[0]), bs.get(1).map_or(NO_BOX, |&b| index_of(b))]
            })
            .collect();
        let mut box_sides = vec![0u64; live.len()];
        for (i, lb) in line_boxes.iter().enumerate() {
            for &b in lb.iter().filter(|&&b| b != NO_BOX) {
                box_sides[b as usize] |= 1 << i;
            }
        }
        let border = (0..k).filter(|&i| line_boxes[i][1] == NO_BOX).fold(0u64, |m, i| m | 1 << i);
        let theorems = live.len() <= 64;
        Rules { boxes, sides, full, classes, sym, order, box_sides, line_boxes, border, theorems }
    }

    /// The value of `s` by Allcock's Theorem 4.1 when it is made only of loops and chains of 3
    /// or more boxes (every live box has two undrawn sides), else `None`: every move there
    /// opens a component, and the value for the player to move is minus the controller's
    /// margin v(G).
    fn theorem_value(&self, s: u64) -> Option<i32> {
        let open = self.full & !s;
        let mut live = 0u64;
        for (b, &m) in self.box_sides.iter().enumerate() {
            match (m & open).count_ones() {
                0 => {}
                2 => live |= 1 << b,
                _ => return None,
            }
        }
        // The box beyond `line` from `b` (`NO_BOX` past the border).
        let beyond = |line: usize, b: u8| {
            let [x, y] = self.line_boxes[line];
            if x == b { y } else { x }
        };
        let mut tally = Tally::default();
        let mut seen = 0u64;
        let mut ends = open & self.border;
        while ends != 0 {
            let start = ends.trailing_zeros() as usize;
            ends &= ends - 1;
            let (mut b, mut came, mut k) = (self.line_boxes[start][0], start, 0u32);
            loop {
                seen |= 1 << b;
                k += 1;
                let out = (self.box_sides[b as usize] & open & !(1u64 << came)).trailing_zeros() as usize;
                match beyond(out, b) {
                    NO_BOX => {
                        ends &= !(1u64 << out);
                        break;
                    }
                    next => (b, came) = (next, out),
                }
            }
            if k < 3 {
                return None;
            }
            tally = tally.with(Component::Chain(k));
        }
        let mut rest = live & !seen;
        while rest != 0 {
            let first = rest.trailing_zeros() as u8;
            let (mut b, mut came, mut k) =
                (first, (self.box_sides[first as usize] & open).trailing_zeros() as usize, 0);
            loop {
                seen |= 1 << b;
                k += 1;
                let out = (self.box_sides[b as usize] & open & !(1u64 << came)).trailing_zeros() as usize;
                (b, came) = (beyond(out, b), out);
                if b == first {
                    break;
                }
            }
            tally = tally.with(Component::Loop(k));
            rest = live & !seen;
        }
        Some(-(tally.value().0 as i32))
    }

    /// Boxes completed by drawing line `i` in state `s`.
    #[inline]
    fn completes(&self, s: u64, i: usize) -> i32 {
        let lb = &self.boxes[i];
        lb.others[..lb.count as usize].iter().filter(|&&m| s & m == m).count() as i32
    }

    /// Boxes that get their third side when line `i` is drawn in `s` (boxes left capturable).
    #[inline]
    fn gives(&self, s: u64, i: usize) -> i32 {
        let lb = &self.boxes[i];
        lb.others[..lb.count as usize].iter().filter(|&&m| (m & !s).count_ones() == 1).count() as i32
    }

    /// What the chain rules say of the capture by line `i` in `s`, which completes one box and
    /// leaves the next box of a chain capturable (Berlekamp; Barker and Korf): of all the moves,
    /// only taking every box of the chain, or all but two (half open) or all but four (closed)
    /// and then declining the rest, can be best. So the capture is made at once while both
    /// choices stay open after it (half open with 3 boxes or more, closed with 5 or more; a
    /// closed chain of 3 has no second choice), and otherwise only the capture and the
    /// declining line are moves.
    fn chain_rule(&self, s: u64, i: usize) -> ChainRule {
        let mut drawn = s | 1 << i;
        // The box line i leaves capturable.
        let Some(&(mut cur)) = self.sides[i].iter().find(|&&m| m != 0 && (m & !drawn).count_ones() == 1) else {
            return ChainRule::Either(i as u8, u8::MAX);
        };
        let mut boxes = 2;
        let mut first_exit = u8::MAX;
        for _ in 0..64 {
            let exit = (cur & !drawn).trailing_zeros() as usize;
            if first_exit == u8::MAX {
                first_exit = exit as u8;
            }
            let Some(&next) = self.sides[exit].iter().find(|&&m| m != 0 && m != cur) else {
                // The chain ends on the border.
                return if boxes >= 3 { ChainRule::TakeNow } else { ChainRule::Either(i as u8, exit as u8) };
            };
            match (next & !drawn).count_ones() {
                // The far end is capturable through the same line: a closed chain.
                1 => {
                    return match boxes + 1 {
                        3 => ChainRule::TakeNow,
                        4 => ChainRule::Either(i as u8, first_exit),
                        _ => ChainRule::TakeNow,
                    };
                }
                2 => {
                    drawn |= 1 << exit;
                    cur = next;
                    boxes += 1;
                }
                _ => return if boxes >= 3 { ChainRule::TakeNow } else { ChainRule::Either(i as u8, exit as u8) },
            }
        }
        ChainRule::Either(i as u8, u8::MAX)
    }

    /// The exact value of `s`, which has at most [`MAX_LEAF_LINES`] undrawn lines, by a
    /// retrograde pass over every subset of them (from all drawn back to `s`).
    fn retrograde_value(&self, s: u64) -> i32 {
        let open = self.full & !s;
        let k = open.count_ones() as usize;
        debug_assert!(k <= MAX_LEAF_LINES);
        let mut local = [0u8; 64];
        let mut global = [0u8; MAX_LEAF_LINES];
        let mut bits = open;
        for (j, g) in global.iter_mut().enumerate().take(k) {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            *g = i as u8;
            local[i] = j as u8;
        }
        // Per local line, its boxes' other undrawn sides as local masks.
        let mut others = [[0u16; 2]; MAX_LEAF_LINES];
        let mut count = [0u8; MAX_LEAF_LINES];
        for j in 0..k {
            let lb = &self.boxes[global[j] as usize];
            count[j] = lb.count;
            for (b, &m) in lb.others[..lb.count as usize].iter().enumerate() {
                let (mut m, mut loc) = (m & open, 0u16);
                while m != 0 {
                    loc |= 1 << local[m.trailing_zeros() as usize];
                    m &= m - 1;
                }
                others[j][b] = loc;
            }
        }
        let full = (1usize << k) - 1;
        let mut v = [0i8; 1 << MAX_LEAF_LINES];
        for m in (0..full).rev() {
            let mut best = i8::MIN;
            let mut free = full & !m;
            while free != 0 {
                let j = free.trailing_zeros() as usize;
                free &= free - 1;
                let n = others[j][..count[j] as usize].iter().filter(|&&o| o as usize & !m == 0).count() as i8;
                let after = v[m | 1 << j];
                best = best.max(if n > 0 { n + after } else { -after });
            }
            v[m] = best;
        }
        v[0] as i32
    }

    /// The stored representative of `s`: classes normalised, then the least symmetric image.
    fn canonical(&self, s: u64) -> u64 {
        let mut s = s;
        for (mask, prefixes) in &self.classes {
            s = (s & !mask) | prefixes[(s & mask).count_ones() as usize];
        }
        let mut best = s;
        for t in &self.sym {
            let mut image = t.apply(s);
            for (mask, prefixes) in &self.classes {
                image = (image & !mask) | prefixes[(image & mask).count_ones() as usize];
            }
            best = best.min(image);
        }
        best
    }
}

/// The transposition table: buckets of [`WAYS`] entries of two words, one cache line each,
/// written and read without locks. An entry's first word is the canonical state XOR its
/// second, the packed bounds, so that a torn write (one word of one writer, one of another)
/// fails the check and is a miss. Replacement: a new state goes where the same state is, else
/// into an empty entry, else over the entry of the smallest subtree (by positions searched
/// under it, as a power of two), the first on a tie. Measured on 3x4 and 5x5 under table
/// pressure: this keeps a third fewer positions searched than two-entry buckets ranked by
/// undrawn lines.
struct Table {
    buckets: Vec<Bucket>,
    /// Buckets - 1: a bucket index is the state's hash masked.
    mask: u64,
}

/// Entries of a bucket.
const WAYS: usize = 4;

/// One bucket: `WAYS` entries of (check, data), on one cache line.
#[repr(align(64))]
struct Bucket([AtomicU64; 2 * WAYS]);

/// Packed bounds: lower (i8), upper (i8), best move (u8), log2 of the subtree's positions
/// (u8), 1 (valid).
fn pack(lower: i32, upper: i32, best: u8, size: u32) -> u64 {
    (lower as i8 as u8 as u64) | (upper as i8 as u8 as u64) << 8 | (best as u64) << 16 | (size as u64) << 24 | 1 << 32
}

fn unpack(data: u64) -> (i32, i32, u8, u32) {
    (data as u8 as i8 as i32, (data >> 8) as u8 as i8 as i32, (data >> 16) as u8, (data >> 24) as u8 as u32)
}

impl Table {
    fn new(bytes: u64) -> Result<Table, SearchError> {
        if bytes < MIN_TT_BYTES {
            return Err(SearchError::TableTooSmall(bytes));
        }
        let count = 1u64 << (63 - (bytes / MIN_TT_BYTES).leading_zeros());
        // Zeroed by writing, in order: memory zeroed by the system on first touch (calloc) was
        // measured slower, 0.9 s of page faults against 0.15 s on a 4x4 position of 32 undrawn
        // lines, since the hashed first touches come in random order from every thread.
        let mut buckets = Vec::new();
        if !usize::try_from(count).is_ok_and(|n| buckets.try_reserve_exact(n).is_ok()) {
            return Err(SearchError::TableTooLarge(bytes));
        }
        buckets.extend((0..count).map(|_| Bucket(std::array::from_fn(|_| AtomicU64::new(0)))));
        Ok(Table { buckets, mask: count - 1 })
    }

    fn bytes(&self) -> u64 {
        self.buckets.len() as u64 * MIN_TT_BYTES
    }

    fn bucket(&self, key: u64) -> &[AtomicU64; 2 * WAYS] {
        // SplitMix64's finaliser: states differ in few bits.
        let mut z = key.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        &self.buckets[((z ^ (z >> 31)) & self.mask) as usize].0
    }

    fn get(&self, key: u64) -> Option<(i32, i32, u8)> {
        let b = self.bucket(key);
        (0..WAYS).find_map(|e| {
            let data = b[2 * e + 1].load(Relaxed);
            let check = b[2 * e].load(Relaxed);
            (data != 0 && check ^ data == key).then(|| {
                let (lo, hi, best, _) = unpack(data);
                (lo, hi, best)
            })
        })
    }

    fn put(&self, key: u64, lower: i32, upper: i32, best: u8, size: u32) {
        let b = self.bucket(key);
        let data = pack(lower, upper, best, size);
        let mut slot = 0;
        let mut smallest = u32::MAX;
        for e in 0..WAYS {
            let (check, old) = (b[2 * e].load(Relaxed), b[2 * e + 1].load(Relaxed));
            if old == 0 || check ^ old == key {
                slot = e;
                break;
            }
            let size = unpack(old).3;
            if size < smallest {
                (slot, smallest) = (e, size);
            }
        }
        b[2 * slot].store(key ^ data, Relaxed);
        b[2 * slot + 1].store(data, Relaxed);
    }
}

/// One thread's search: the shared rules, table and counters, its own counts not yet added.
struct Searcher<'a> {
    rules: &'a Rules,
    table: &'a Table,
    counters: &'a Counters,
    /// The root's test this thread runs (value >= beta?), dropped once the shared bounds
    /// decide it: the search then unwinds without writing the table.
    beta: Option<i32>,
    aborted: bool,
    nodes: u64,
    hits: u64,
    /// 0 for the first thread, k for helper k: helpers take the root's moves from the other
    /// end, each starting at its own point, so that they fill the shared table with other
    /// subtrees first.
    shift: usize,
    /// Whether loops-and-chains positions are valued by the theorems.
    theorems: bool,
    /// Threads of the search.
    threads: usize,
    /// Positions of at most this many undrawn lines are valued by the retrograde leaf.
    leaf_lines: u32,
    /// Positions this thread has searched (never reset: subtree sizes are differences).
    total: u64,
    /// The store whose positions are leaves.
    book: Option<&'a BookLeaves<'a>>,
    /// Positions valued from the book, not yet added to the shared count.
    book_hits: u64,
}

/// The counters every thread adds to, read by the progress.
#[derive(Default)]
struct Counters {
    nodes: AtomicU64,
    hits: AtomicU64,
    book_hits: AtomicU64,
    root_done: AtomicU64,
    /// The root's bounds proven so far, packed by [`pack_bounds`].
    bounds: AtomicU64,
    /// The latest result of a test of the root (as i64 bits).
    guess: AtomicU64,
    /// Set when a store file of the book failed a check: every thread stops, and the search
    /// refuses instead of answering without the leaves it was given.
    stopped: AtomicBool,
}

/// The root's proven bounds (lower, upper) in one word.
fn pack_bounds(lower: i32, upper: i32) -> u64 {
    (lower as i8 as u8 as u64) | (upper as i8 as u8 as u64) << 8
}

fn unpack_bounds(b: u64) -> (i32, i32) {
    (b as u8 as i8 as i32, (b >> 8) as u8 as i8 as i32)
}

impl<'a> Searcher<'a> {
    fn new(shared: &Shared<'a>, shift: usize) -> Searcher<'a> {
        Searcher {
            rules: shared.rules,
            table: shared.table,
            counters: shared.counters,
            beta: None,
            aborted: false,
            nodes: 0,
            hits: 0,
            shift,
            theorems: shared.theorems,
            total: 0,
            leaf_lines: shared.leaf_lines,
            threads: shared.threads,
            book: shared.book,
            book_hits: 0,
        }
    }

    /// Adds this thread's counts to the shared ones, and sees whether to stop.
    fn flush(&mut self) {
        self.counters.nodes.fetch_add(std::mem::take(&mut self.nodes), Relaxed);
        self.counters.hits.fetch_add(std::mem::take(&mut self.hits), Relaxed);
        self.counters.book_hits.fetch_add(std::mem::take(&mut self.book_hits), Relaxed);
        if let Some(beta) = self.beta {
            let (lower, upper) = unpack_bounds(self.counters.bounds.load(Relaxed));
            self.aborted |= beta <= lower || beta > upper;
        }
        if self.book.is_some_and(|b| b.book.failed()) {
            self.counters.stopped.store(true, Relaxed);
        }
        self.aborted |= self.counters.stopped.load(Relaxed);
    }
}

/// Larger than any value (at most 64 boxes can be left).
const INF: i32 = 127;

impl Searcher<'_> {
    /// The exact value of `s` by MTD(f): null-window searches from `guess` until the bounds
    /// meet (no test here is dropped: only the root's tests, in [`Searcher::root_value`], are).
    fn mtdf(&mut self, s: u64, guess: i32) -> i32 {
        let (mut lower, mut upper, mut g) = (-INF, INF, guess);
        while lower < upper {
            let beta = if g == lower { g + 1 } else { g };
            g = self.search(s, beta - 1, beta);
            if g < beta {
                upper = g;
            } else {
                lower = g;
            }
        }
        g
    }

    /// The root's value, with the other threads: each runs null-window tests of its own beta
    /// near the latest result (the first thread MTD(f)'s, the others one above, one below,
    /// ...), and every result narrows the shared bounds, until they meet. A test whose beta
    /// the bounds have passed is dropped.
    fn root_value(&mut self, thread: usize) -> i32 {
        const OFFSETS: [i32; 2] = [0, 1];
        let root = self.counters;
        loop {
            let (lower, upper) = unpack_bounds(root.bounds.load(Relaxed));
            if lower >= upper || root.stopped.load(Relaxed) {
                return lower;
            }
            // This thread's beta: its pick of the tests near the guess still open.
            let guess = root.guess.load(Relaxed) as i32;
            let open = || OFFSETS.iter().map(move |d| guess + d).filter(move |&b| lower < b && b <= upper);
            let beta = match open().count() {
                0 => guess.clamp(lower + 1, upper),
                n => open().nth(thread % n).expect("a test"),
            };
            self.beta = Some(beta);
            self.aborted = false;
            let v = self.search(0, beta - 1, beta);
            if self.aborted {
                continue;
            }
            root.guess.store(v as i64 as u64, Relaxed);
            let _ = root.bounds.fetch_update(Relaxed, Relaxed, |b| {
                let (lo, hi) = unpack_bounds(b);
                Some(if v < beta { pack_bounds(lo, hi.min(v)) } else { pack_bounds(lo.max(v), hi) })
            });
        }
    }

    /// Fail-soft alpha-beta: the value of `s` if it lies inside (alpha, beta), else a bound on
    /// the same side of the window.
    fn search(&mut self, s: u64, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        self.total += 1;
        if self.nodes == FLUSH {
            self.flush();
        }
        if self.aborted {
            return 0;
        }
        let r = self.rules;
        if s == r.full {
            return 0;
        }
        let open = r.full & !s;
        // A capture that leaves no new capturable box, or that starts a chain long enough to
        // keep every choice that can be best: taking it now loses nothing.
        // (Counting again below is cheaper than keeping the counts: measured, 3x4 on 2 threads.)
        let mut bits = open;
        let mut either = None;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let n = r.completes(s, i);
            if n == 0 {
                continue;
            }
            let rule = if r.gives(s, i) == 0 {
                ChainRule::TakeNow
            } else if n == 1 {
                r.chain_rule(s, i)
            } else {
                ChainRule::Either(i as u8, u8::MAX)
            };
            match rule {
                ChainRule::TakeNow => return n + self.search(s | 1 << i, alpha - n, beta - n),
                ChainRule::Either(take, decline) if either.is_none() && decline != u8::MAX => {
                    either = Some((take, decline));
                }
                ChainRule::Either(..) => {}
            }
        }
        let undrawn = open.count_ones();
        if undrawn <= self.leaf_lines {
            return r.retrograde_value(s);
        }
        let key = r.canonical(s);
        let mut hint = u8::MAX;
        if let Some((lo, hi, best)) = self.table.get(key) {
            self.hits += 1;
            if lo >= beta {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            if lo == hi {
                return lo;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
            hint = best;
        } else if self.theorems
            && let Some(v) = r.theorem_value(s)
        {
            self.table.put(key, v, v, u8::MAX, 0);
            return v;
        } else if let Some(v) = self.book.and_then(|b| b.value(s)) {
            // After the table (a book probe costs more than a table probe) and the theorems.
            self.book_hits += 1;
            self.table.put(key, v, v, u8::MAX, 0);
            return v;
        }
        let (alpha0, beta0) = (alpha, beta);
        let before = self.total;
        // Moves by class: the table's move, captures, moves giving no box, the rest; each in
        // the centre-out order. Every open line is a move (the table merges the lines of an
        // interchangeable class).
        let mut moves = [0u8; 64];
        let mut count = 0;
        let mut rank = [0u8; 64];
        // Where a chain leaves only its capture and its decline, those are the moves.
        let allowed = either.map_or(open, |(take, decline)| 1u64 << take | 1u64 << decline);
        for &i in &r.order {
            let i = i as usize;
            if allowed >> i & 1 == 0 {
                continue;
            }
            moves[count] = i as u8;
            rank[count] = if i as u8 == hint {
                0
            } else if r.completes(s, i) > 0 {
                1
            } else if r.gives(s, i) == 0 {
                2
            } else {
                3
            };
            count += 1;
        }
        let mut best = -INF;
        let mut best_move = u8::MAX;
        // A helper takes the root's moves from the other end (ranks and order reversed, the
        // helpers after the first spread out): where every move must be refuted, the threads
        // meet in the middle, each finding the other's results in the table. Measured 2.0-2.1x
        // over one thread on 5x5 positions of 40 and 42 undrawn lines where the shifted order
        // alone gave 0.9-1.25x. Below the root every thread keeps the one best-first order:
        // helpers that also rotated it there (as before) searched 3x5 with four lines drawn
        // in 1.12-1.17x of one thread's time, visiting 1.8x its positions; in the one order,
        // 1.73-1.95x, with 5x5 positions of 40 undrawn lines alike or better (1.8-2.1x), the
        // empty 3x4 down from 2.3-2.45x to 1.7-2.0x.
        let reverse = s == 0 && self.shift > 0;
        let spread = if reverse { (self.shift - 1) * count / self.threads.saturating_sub(1).max(1) } else { 0 };
        'ranks: for want in 0..4 {
            let want = if reverse { 3 - want } else { want };
            for j in 0..count {
                let j = if reverse { (2 * count - 1 - j - spread) % count } else { j };
                if rank[j] != want {
                    continue;
                }
                let i = moves[j] as usize;
                let n = r.completes(s, i);
                let v = if n > 0 {
                    n + self.search(s | 1 << i, alpha - n, beta - n)
                } else {
                    -self.search(s | 1 << i, -beta, -alpha)
                };
                if self.aborted {
                    return 0;
                }
                if v > best {
                    best = v;
                    best_move = i as u8;
                }
                alpha = alpha.max(v);
                if alpha >= beta {
                    break 'ranks;
                }
            }
        }
        let (lower, upper) = if best <= alpha0 {
            (-INF, best)
        } else if best >= beta0 {
            (best, INF)
        } else {
            (best, best)
        };
        // The subtree's size decides which entry a full bucket gives up.
        let size = 64 - (self.total - before).leading_zeros();
        self.table.put(key, lower, upper, best_move, size);
        best
    }
}

/// What every thread of one search shares.
struct Shared<'a> {
    rules: &'a Rules,
    table: &'a Table,
    counters: &'a Counters,
    theorems: bool,
    leaf_lines: u32,
    threads: usize,
    book: Option<&'a BookLeaves<'a>>,
}

/// Searches `root` to its exact value and every move's, on `opts.threads` threads.
pub fn search(root: Position, opts: SearchOptions) -> Result<SearchOutcome, SearchError> {
    let start = Instant::now();
    let free = root.undrawn().len() as usize;
    if free > MAX_FREE_LINES {
        return Err(SearchError::TooLarge(free));
    }
    let table = Table::new(opts.tt_bytes)?;
    if free == 0 {
        return Ok(SearchOutcome {
            value: 0,
            moves: Vec::new(),
            nodes: 1,
            table_hits: 0,
            book_hits: 0,
            table_bytes: table.bytes(),
            seconds: start.elapsed().as_secs_f64(),
        });
    }
    // One group: the space is used only for its line numbering, classes and symmetries.
    let space =
        Space::new(root, Some(1)).or_else(|_| Space::new(root, None)).map_err(|_| SearchError::TooLarge(free))?;
    let rules = Rules::new(root, &space);
    let book = opts.book.and_then(|b| BookLeaves::new(b, root, &space));
    let counters = Counters::default();
    counters.bounds.store(pack_bounds(-INF, INF), Relaxed);
    let shared = Shared {
        rules: &rules,
        table: &table,
        counters: &counters,
        theorems: rules.theorems && opts.theorems,
        leaf_lines: opts.leaf_lines.min(MAX_LEAF_LINES) as u32,
        threads: opts.threads.max(1),
        book: book.as_ref(),
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(shared.threads).build().expect("a thread pool");
    let done = AtomicBool::new(false);
    let (value, values) = std::thread::scope(|scope| {
        if let Some(progress) = opts.progress {
            let (counters, done) = (&counters, &done);
            scope.spawn(move || {
                let every = opts.progress_seconds.max(0.001);
                let tick = std::time::Duration::from_secs_f64(every.min(0.05));
                let mut last = Instant::now();
                while !done.load(Relaxed) {
                    std::thread::sleep(tick);
                    if last.elapsed().as_secs_f64() >= every {
                        last = Instant::now();
                        let (lower, upper) = unpack_bounds(counters.bounds.load(Relaxed));
                        progress(&SearchProgress {
                            nodes: counters.nodes.load(Relaxed),
                            table_hits: counters.hits.load(Relaxed),
                            lower,
                            upper,
                            root_moves_done: counters.root_done.load(Relaxed) as usize,
                            root_moves: if opts.move_values { free } else { 0 },
                            seconds: start.elapsed().as_secs_f64(),
                        });
                    }
                }
            });
        }
        // The value: every thread tests the root with a window of its own over the shared
        // table, all narrowing one pair of bounds.
        let value = pool
            .broadcast(|ctx| {
                let mut s = Searcher::new(&shared, ctx.index());
                let v = s.root_value(ctx.index());
                s.flush();
                v
            })
            .into_iter()
            .next()
            .expect("a thread");
        // Every move's value, the root's moves shared among the threads, each from a guess
        // made from the root's value.
        let values: Vec<(usize, i32)> = if opts.move_values {
            pool.install(|| {
                (0..free)
                    .into_par_iter()
                    .map(|i| {
                        let mut s = Searcher::new(&shared, 0);
                        let n = rules.completes(0, i);
                        let v = if n > 0 { n + s.mtdf(1 << i, value - n) } else { -s.mtdf(1 << i, -value) };
                        s.flush();
                        counters.root_done.fetch_add(1, Relaxed);
                        (i, v)
                    })
                    .collect()
            })
        } else {
            Vec::new()
        };
        done.store(true, Relaxed);
        (value, values)
    });
    let mut moves: Vec<(Line, u8, Value)> =
        values.iter().map(|&(i, v)| (space.lines[i], rules.completes(0, i) as u8, v as Value)).collect();
    moves.sort_by_key(|m| m.0);
    if let Some(best) = moves.iter().map(|m| m.2).max() {
        debug_assert_eq!(best as i32, value, "the best move's value is the position's");
    }
    if let Some(e) = opts.book.and_then(|b| b.take_error()) {
        return Err(SearchError::Book(e.to_string()));
    }
    Ok(SearchOutcome {
        value: value as Value,
        moves,
        nodes: counters.nodes.into_inner(),
        table_hits: counters.hits.into_inner(),
        book_hits: counters.book_hits.into_inner(),
        table_bytes: table.bytes(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_kept_whole_and_a_torn_entry_is_a_miss() {
        let t = Table::new(4 * MIN_TT_BYTES).unwrap();
        assert_eq!(t.bytes(), 4 * MIN_TT_BYTES);
        assert_eq!(t.get(42), None);
        t.put(42, -3, 5, 7, 20);
        assert_eq!(t.get(42), Some((-3, 5, 7)));
        t.put(42, 2, 2, 1, 20);
        assert_eq!(t.get(42), Some((2, 2, 1)), "the same state is replaced in place");
        assert_eq!(unpack(pack(-INF, INF, 255, 64)), (-INF, INF, 255, 64));
        // A torn write: the check word of another state.
        let b = t.bucket(42);
        let e = (0..WAYS).find(|&e| b[2 * e + 1].load(Relaxed) != 0).unwrap();
        b[2 * e].store(99 ^ b[2 * e + 1].load(Relaxed), Relaxed);
        assert_eq!(t.get(42), None);
        assert!(matches!(Table::new(MIN_TT_BYTES - 1), Err(SearchError::TableTooSmall(_))));
    }

    #[test]
    fn the_table_stays_within_its_size() {
        for bytes in [MIN_TT_BYTES, 1000, 1 << 20, 3 << 20, DEFAULT_TT_BYTES] {
            let t = Table::new(bytes).unwrap();
            assert!(t.bytes() <= bytes && 2 * t.bytes() > bytes, "{bytes}: {}", t.bytes());
            assert_eq!(t.buckets.capacity() as u64 * 64, t.bytes());
            assert_eq!(std::mem::size_of::<Bucket>() as u64, MIN_TT_BYTES, "a bucket is one cache line");
        }
    }

    #[test]
    fn a_full_bucket_keeps_the_larger_subtree() {
        let t = Table::new(MIN_TT_BYTES).unwrap();
        for (key, size) in [(1, 30), (2, 10), (3, 20), (4, 25)] {
            t.put(key, key as i32, key as i32, 0, size);
        }
        t.put(5, 5, 5, 0, 15);
        // One bucket: 5 replaced 2 (the smallest subtree); the rest stay.
        let kept: Vec<bool> = (1..=5).map(|k| t.get(k).is_some()).collect();
        assert_eq!(kept, [true, false, true, true, true]);
        assert_eq!(t.get(5), Some((5, 5, 0)));
    }
}
