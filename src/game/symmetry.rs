//! The board's symmetry group, each element twice: as a permutation of lines (`perm`, applied
//! line by line: the slow twin) and as moves of whole rows and words of a [`LineSet`] (the fast
//! path, [`Symmetry::apply`]).
//!
//! In the external order the horizontal lines are `rows + 1` rows of `cols` bits and the
//! vertical lines `rows` rows of `cols + 1` bits, each row contiguous. Every symmetry is a
//! transposition or not (squares only), then a flip of x, of y, both or neither:
//!
//! - both flips (the half turn) reverse the horizontal block and the vertical block: one
//!   reversal of the nine words and two multiword shifts;
//! - the flip of y moves whole rows (a row of at most 64 bits is one field, a wider one a few);
//! - the flip of x is the two composed;
//! - the transposition (a square of at most 16 boxes a side: rows of at most 17 bits) turns the
//!   horizontal rows into the vertical ones and back, by a 32x32 bit-matrix transpose each way.
//!
//! A 16x16 set's image costs a few hundred word operations, where the permutation costs one
//! step for each of its up to 544 lines.

use super::board::{Board, Line, LineSet, WORDS};

/// Bits of a [`LineSet`].
const BITS: usize = WORDS * 64;

/// A symmetry of the board as a permutation of lines: `perm[i]` is the image of line i.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetry {
    /// Image of each line, indexed by line number; one entry per line of the board.
    pub perm: Vec<Line>,
    /// The same map on words: the board's rows and the element.
    map: WordMap,
}

/// A board's rows as a [`LineSet`] holds them, worked out once for its symmetries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    rows: usize,
    cols: usize,
    /// Horizontal lines: `(rows + 1) * cols`, the first block.
    horizontals: usize,
    /// Vertical lines: `rows * (cols + 1)`, the block after them.
    verticals: usize,
    /// Lines `[BITS - horizontals, BITS)`: the horizontal block once the words are reversed.
    reversed_h: LineSet,
    /// The vertical block once the words are reversed.
    reversed_v: LineSet,
}

/// One element of the group on words: bit 0 flips x, bit 1 flips y, bit 2 transposes first
/// (squares only), as [`Board::symmetries`] numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WordMap {
    layout: Layout,
    element: u8,
}

impl Layout {
    fn of(board: Board) -> Layout {
        let (rows, cols) = (board.rows(), board.cols());
        let horizontals = (rows + 1) * cols;
        let verticals = rows * (cols + 1);
        let reversed_h = LineSet::first(BITS).minus(LineSet::first(BITS - horizontals));
        let reversed_v = LineSet::first(BITS - horizontals).minus(LineSet::first(BITS - horizontals - verticals));
        Layout { rows, cols, horizontals, verticals, reversed_h, reversed_v }
    }

    /// The half turn: both flips. Line i of the horizontal block goes to `horizontals - 1 - i`
    /// and line j of the vertical block to `verticals - 1 - j` of that block.
    fn half_turn(&self, set: LineSet) -> LineSet {
        let words = set.words();
        let reversed = LineSet::from_words(std::array::from_fn(|i| words[WORDS - 1 - i].reverse_bits()));
        // Bit b went to BITS - 1 - b: the horizontal block to the top, the verticals below it.
        let h = shift_down(reversed.and(self.reversed_h), BITS - self.horizontals);
        let v_at = BITS - self.horizontals - self.verticals;
        let v = reversed.and(self.reversed_v);
        let v = if v_at >= self.horizontals {
            shift_down(v, v_at - self.horizontals)
        } else {
            shift_up(v, self.horizontals - v_at)
        };
        h.union(v)
    }

    /// The flip of y: horizontal row r to row `rows - r`, vertical row r to `rows - 1 - r`.
    fn flip_y(&self, set: LineSet) -> LineSet {
        let mut out = [0u64; WORDS];
        let (m, n) = (self.rows, self.cols);
        for r in 0..=m {
            move_row(set, &mut out, r * n, (m - r) * n, n);
        }
        for r in 0..m {
            move_row(set, &mut out, self.horizontals + r * (n + 1), self.horizontals + (m - 1 - r) * (n + 1), n + 1);
        }
        LineSet::from_words(out)
    }

    /// The transposition of a square board: `h(r,c)` to `v(c,r)` and `v(r,c)` to `h(c,r)`.
    fn transpose(&self, set: LineSet) -> LineSet {
        let n = self.cols;
        debug_assert!(self.rows == n && n < 32, "only squares of at most 16 boxes have a transposition");
        let words = set.words();
        let mut out = [0u64; WORDS];
        // Horizontal row r (n bits) is bit r of vertical rows 0..n (n + 1 bits each).
        let mut a = [0u32; 32];
        for (r, row) in a.iter_mut().enumerate().take(n + 1) {
            *row = field(&words, r * n, n) as u32;
        }
        transpose32(&mut a);
        for (c, &row) in a.iter().enumerate().take(n) {
            put(&mut out, self.horizontals + c * (n + 1), n + 1, row.into());
        }
        // Vertical row r (n + 1 bits) is bit r of horizontal rows 0..=n (n bits each).
        let mut b = [0u32; 32];
        for (r, row) in b.iter_mut().enumerate().take(n) {
            *row = field(&words, self.horizontals + r * (n + 1), n + 1) as u32;
        }
        transpose32(&mut b);
        for (c, &row) in b.iter().enumerate().take(n + 1) {
            put(&mut out, c * n, n, row.into());
        }
        LineSet::from_words(out)
    }
}

impl WordMap {
    fn apply(&self, set: LineSet) -> LineSet {
        let l = &self.layout;
        let t = if self.element & 4 != 0 { l.transpose(set) } else { set };
        match self.element & 3 {
            0 => t,
            1 => l.half_turn(l.flip_y(t)),
            2 => l.flip_y(t),
            _ => l.half_turn(t),
        }
    }
}

impl Symmetry {
    /// The element numbered `element` of `board`'s group with its permutation `perm`.
    pub(super) fn new(board: Board, element: u8, perm: Vec<Line>) -> Symmetry {
        Symmetry { perm, map: WordMap { layout: Layout::of(board), element } }
    }

    /// The image of a set of lines under this symmetry, by whole rows and words.
    pub fn apply(&self, set: LineSet) -> LineSet {
        self.map.apply(set)
    }

    /// The image of a set of lines line by line through `perm`: the slow twin of
    /// [`Symmetry::apply`].
    pub fn apply_by_lines(&self, set: LineSet) -> LineSet {
        set.iter().map(|l| self.perm[l.0 as usize]).collect()
    }
}

/// The `len` bits of `words` from bit `start` (at most 64).
fn field(words: &[u64; WORDS], start: usize, len: usize) -> u64 {
    debug_assert!(len <= 64 && start + len <= BITS);
    let (i, o) = (start / 64, start % 64);
    let mut bits = words[i] >> o;
    if o + len > 64 {
        bits |= words[i + 1] << (64 - o);
    }
    if len < 64 { bits & ((1 << len) - 1) } else { bits }
}

/// `bits` (of `len` bits at most 64, nothing above them) or'ed into `words` from bit `start`.
fn put(words: &mut [u64; WORDS], start: usize, len: usize, bits: u64) {
    let (i, o) = (start / 64, start % 64);
    words[i] |= bits << o;
    if o + len > 64 {
        words[i + 1] |= bits >> (64 - o);
    }
}

/// The row of `len` bits of `set` from `from` or'ed into `out` from `to`, 64 bits at a time.
fn move_row(set: LineSet, out: &mut [u64; WORDS], from: usize, to: usize, len: usize) {
    let words = set.words();
    let mut done = 0;
    while done < len {
        let step = (len - done).min(64);
        put(out, to + done, step, field(&words, from + done, step));
        done += step;
    }
}

/// Every bit moved down by `d` (bit b to b - d; the lowest `d` dropped).
fn shift_down(set: LineSet, d: usize) -> LineSet {
    let w = set.words();
    let (q, r) = (d / 64, d % 64);
    LineSet::from_words(std::array::from_fn(|i| {
        let lo = w.get(i + q).copied().unwrap_or(0);
        let hi = w.get(i + q + 1).copied().unwrap_or(0);
        if r == 0 { lo } else { lo >> r | hi << (64 - r) }
    }))
}

/// Every bit moved up by `d` (bit b to b + d; those past the last word dropped).
fn shift_up(set: LineSet, d: usize) -> LineSet {
    let w = set.words();
    let (q, r) = (d / 64, d % 64);
    LineSet::from_words(std::array::from_fn(|i| {
        let lo = i.checked_sub(q).map_or(0, |j| w[j]);
        let below = i.checked_sub(q + 1).map_or(0, |j| w[j]);
        if r == 0 { lo } else { lo << r | below >> (64 - r) }
    }))
}

/// Transposes a 32x32 bit matrix: row i's bit j becomes row j's bit i (Hacker's Delight
/// 7-3, blocks swapped at halving sizes, least significant bit as column 0).
fn transpose32(a: &mut [u32; 32]) {
    let mut j = 16;
    let mut m: u32 = 0x0000_ffff;
    while j != 0 {
        let mut k = 0;
        while k < 32 {
            // Row k's upper block of each 2j-bit pair swaps with row k + j's lower block.
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

impl Board {
    /// The board's symmetry group, identity first: 4 elements for a rectangle, 8 for a square,
    /// each as a line permutation and as its word-level map (`symmetry.rs`). Built once per
    /// solve or walk, never per position.
    pub fn symmetries(self) -> Vec<Symmetry> {
        let (m2, n2) = (2 * self.rows() as i32, 2 * self.cols() as i32);
        // A line is named by its midpoint in doubled coordinates (y, x); a symmetry maps
        // midpoints to midpoints.
        let count = if self.is_square() { 8 } else { 4 };
        // Element k: bit 0 flips x, bit 1 flips y, bit 2 transposes first (squares only).
        let transform = move |k: usize, y: i32, x: i32| {
            let (y, x) = if k & 4 != 0 { (x, y) } else { (y, x) };
            let x = if k & 1 != 0 { n2 - x } else { x };
            let y = if k & 2 != 0 { m2 - y } else { y };
            (y, x)
        };
        (0..count)
            .map(|k| {
                let perm = (0..self.lines())
                    .map(|i| {
                        let (y, x) = self.midpoint(Line(i as u16));
                        let (y2, x2) = transform(k, y, x);
                        self.at_midpoint(y2, x2)
                    })
                    .collect();
                Symmetry::new(self, k as u8, perm)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// SplitMix64's step (`game` uses nothing of the crate, not even in tests).
    fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Boards of every shape the word maps handle: squares up to 16x16 (transposed), wide and
    /// tall rectangles, rows of more than 64 bits and the longest board.
    const BOARDS: [&str; 16] = [
        "1x1", "1x2", "2x1", "2x2", "3x4", "4x3", "4x4", "5x6", "7x7", "8x8", "10x10", "12x12", "16x16", "3x17",
        "2x100", "1x191",
    ];

    #[test]
    fn the_32x32_transpose_moves_each_bit_to_its_mirror() {
        let mut rng = 7;
        let a: [u32; 32] = std::array::from_fn(|_| next(&mut rng) as u32);
        let mut t = a;
        transpose32(&mut t);
        for (i, row) in a.iter().enumerate() {
            for (j, column) in t.iter().enumerate() {
                assert_eq!(column >> i & 1, row >> j & 1, "({i},{j})");
            }
        }
    }

    #[test]
    fn the_word_shifts_move_every_bit() {
        let all = LineSet::first(BITS);
        for d in [0, 1, 63, 64, 65, 200, 575] {
            assert_eq!(shift_down(all, d), LineSet::first(BITS - d), "{d}");
            assert_eq!(shift_up(LineSet::first(BITS - d), d), all.minus(LineSet::first(d)), "{d}");
        }
    }

    proptest! {
        /// The fast path against its twin: every element of every board's group, on random
        /// sets of every density (sparse, half, nearly full).
        #[test]
        fn word_maps_match_the_permutations(
            board in 0..BOARDS.len(),
            seed in any::<u64>(),
            per_mille in prop_oneof![Just(20usize), Just(500), Just(970)],
        ) {
            let board: Board = BOARDS[board].parse().unwrap();
            let mut rng = seed;
            let set: LineSet = (0..board.lines())
                .filter(|_| next(&mut rng) % 1000 < per_mille as u64)
                .map(|i| Line(i as u16))
                .collect();
            let syms = board.symmetries();
            for (k, s) in syms.iter().enumerate() {
                prop_assert_eq!(s.apply(set), s.apply_by_lines(set), "{} element {}", board, k);
            }
        }
    }
}
