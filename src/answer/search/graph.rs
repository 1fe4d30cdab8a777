//! Keys by the strings-and-coins graph: a position's value depends only on its graph up to
//! isomorphism, and the boxes of two undrawn sides only make paths, whose route on the board
//! does not matter. So a state is keyed by its *paths*: each maximal run of undrawn lines
//! through boxes of two undrawn sides, named by its two ends (a box of another count of
//! undrawn sides, kept where it is, or the border) and the boxes it runs through, or a loop by
//! its length. The key is the sum of the paths' codes, so that a move changes it by the
//! codes of the few paths through the line's one or two boxes ([`Rules::graph_cut`]), kept
//! along the search rather than found again ([`Rules::graph_key`], its slow twin).
//!
//! Positions of one key have one value but may differ in their lines, so a graph-keyed entry's
//! best move is only a hint (read as a line of the state that finds it; the move order checks
//! it is undrawn). Two graphs share a key only where their sums of 64-bit codes meet, and a
//! probe mistakes another graph's entry for its own only where the bits the table keeps of
//! the key (its bucket and 41 more) meet: a search of 1e8 positions (3e8 probes with its
//! cutoffs) has about one chance in 2,000 of one such false hit, against none for the state
//! keys (`SearchOptions::graph_keys` off).
//!
//! Where a node keys every child (from [`super::ARMS_LINES`] undrawn lines, nothing
//! capturable), it keeps every line's path ([`Arms`]), found from those of the node above that
//! kept them, so that a child's key is a few codes summed rather than two or three walks.
//! On by default: on 5x5 positions of 44 undrawn lines it visits 1.4-1.9x fewer positions in
//! 1.0-1.4x less time (docs/notes/search-notes.md, ninth session).

use super::rules::{LOOP_HAND_BACK, NO_BOX, Opening, Rules, Structure, two_bits};

/// The end of a path on the border.
const GROUND: u64 = 0xff;
/// Both "ends" of a loop.
const LOOP: u64 = 0xfe;

/// A path's code: its ends (box indices, [`GROUND`] or [`LOOP`]), in either order, and the
/// boxes it runs through, mixed so that sums of codes of different multisets of paths differ
/// as random words do (SplitMix64's finaliser).
#[inline]
fn path_code(a: u64, b: u64, len: u64) -> u64 {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    let mut z = (a << 16 | b << 8 | len).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A path found by a walk ([`Rules::graph_path`]).
pub(super) struct Path {
    /// Its lines.
    lines: u64,
    /// Its ends (box indices or [`GROUND`]), the walk's two ways from its first line.
    ends: [u8; 2],
    /// The boxes it runs through.
    len: u8,
    /// Whether it is a loop (no ends).
    is_loop: bool,
}

impl Path {
    fn code(&self) -> u64 {
        let len = self.len as u64;
        if self.is_loop { path_code(LOOP, LOOP, len) } else { path_code(self.ends[0] as u64, self.ends[1] as u64, len) }
    }

    /// Its end other than box `w` (one of its ends).
    fn far(&self, w: u8) -> u64 {
        (if self.ends[0] == w { self.ends[1] } else { self.ends[0] }) as u64
    }
}

/// Whether a box of undrawn sides `u` has two or three of them (no bit count: this portable
/// build has none).
#[inline]
fn two_or_three(u: u64) -> bool {
    let v = u & u.wrapping_sub(1);
    let w = v & v.wrapping_sub(1);
    v != 0 && w & w.wrapping_sub(1) == 0
}

impl Rules {
    /// The path of undrawn line `e` in `s`.
    #[inline]
    pub(super) fn graph_path(&self, s: u64, e: usize) -> Path {
        let open = self.full & !s;
        let mut lines = 1u64 << e;
        let mut len = 0u8;
        let mut ends = [GROUND as u8; 2];
        for (end, &start) in ends.iter_mut().zip(&self.line_boxes[e]) {
            let (mut b, mut came) = (start, e);
            while b != NO_BOX {
                let u = self.box_sides[b as usize] & open;
                if !two_bits(u) {
                    *end = b;
                    break;
                }
                len += 1;
                let out = (u & !(1u64 << came)).trailing_zeros() as usize;
                if out == e {
                    return Path { lines, ends, len, is_loop: true };
                }
                lines |= 1 << out;
                let [p, q] = self.line_boxes[out];
                (b, came) = (if p == b { q } else { p }, out);
            }
        }
        Path { lines, ends, len, is_loop: false }
    }

    /// The graph's key of `s`, path by path (the slow twin of [`Rules::graph_cut`]).
    pub(super) fn graph_key(&self, s: u64) -> u64 {
        self.paths_code(s, self.full & !s)
    }

    /// The sum of the codes of the paths of `s` through the undrawn lines `lines`, each once.
    fn paths_code(&self, s: u64, mut lines: u64) -> u64 {
        let mut sum = 0u64;
        while lines != 0 {
            let path = self.graph_path(s, lines.trailing_zeros() as usize);
            sum = sum.wrapping_add(path.code());
            lines &= !path.lines;
        }
        sum
    }

    /// The graph's key of `s` with the lines `drawn` drawn, from `key`, that of `s`. A path
    /// changes only where it holds a line drawn or meets a box that runs a path through it
    /// (two undrawn sides) before or after and not both: those paths go, and the paths through
    /// such boxes after come; a box of other counts before and after ends the same paths.
    /// One line between boxes that end paths before and after, or where one of them joins two
    /// paths, is the common case and is found without walking the paths after.
    #[inline]
    pub(super) fn graph_cut(&self, key: u64, s: u64, drawn: u64) -> u64 {
        if drawn == 0 {
            return key;
        }
        if drawn & (drawn - 1) == 0
            && let Some(key) = self.graph_cut_line(key, s, drawn.trailing_zeros() as usize)
        {
            return key;
        }
        self.graph_cut_walked(key, s, drawn)
    }

    /// [`Rules::graph_cut`] by walking every path that changes.
    fn graph_cut_walked(&self, key: u64, s: u64, drawn: u64) -> u64 {
        let t = s | drawn;
        let (open_s, open_t) = (self.full & !s, self.full & !t);
        let (mut old, mut new) = (drawn, 0u64);
        let mut each = drawn;
        while each != 0 {
            let e = each.trailing_zeros() as usize;
            each &= each - 1;
            for &b in &self.line_boxes[e] {
                if b != NO_BOX {
                    let sides = self.box_sides[b as usize];
                    let (before, after) = (sides & open_s, sides & open_t);
                    if two_bits(before) || two_bits(after) {
                        old |= before;
                        new |= after;
                    }
                }
            }
        }
        key.wrapping_sub(self.paths_code(s, old)).wrapping_add(self.paths_code(t, new))
    }

    /// [`Rules::graph_cut`] of the one line `e` where neither of its boxes runs a path through
    /// it before or after (the line is a path of its own: it goes), or one box has three
    /// undrawn sides and the other end neither two nor three (its two other paths join through
    /// it); None otherwise.
    #[inline]
    fn graph_cut_line(&self, key: u64, s: u64, e: usize) -> Option<u64> {
        let open = self.full & !s;
        let [a, b] = self.line_boxes[e];
        let sides = |x: u8| if x == NO_BOX { 0 } else { self.box_sides[x as usize] & open };
        let end = |x: u8| if x == NO_BOX { GROUND } else { x as u64 };
        let (ua, ub) = (sides(a), sides(b));
        // The line's own path: from one end to the other, through no box.
        let key = key.wrapping_sub(path_code(end(a), end(b), 0));
        let (w, uw) = match (two_or_three(ua), two_or_three(ub)) {
            (false, false) => return Some(key),
            (true, false) => (a, ua),
            (false, true) => (b, ub),
            (true, true) => return None,
        };
        if two_bits(uw) {
            return None;
        }
        Some(self.graph_join(key, s, w, uw & !(1u64 << e)))
    }

    /// [`Rules::graph_cut`] of opening `st` in `s` (nothing capturable): its own path goes, and
    /// where an end box is left with two undrawn sides, its two other paths join through it.
    #[inline]
    pub(super) fn graph_open(&self, key: u64, s: u64, st: &Structure) -> u64 {
        if st.hand_back == LOOP_HAND_BACK {
            return key.wrapping_sub(path_code(LOOP, LOOP, st.boxes as u64));
        }
        let [x, y] = st.ends;
        let end = |w: u8| if w == NO_BOX { GROUND } else { w as u64 };
        let open = self.full & !s;
        let after = |w: u8| if w == NO_BOX { 0 } else { self.box_sides[w as usize] & open & !st.lines };
        let own = key.wrapping_sub(path_code(end(x), end(y), st.boxes as u64));
        match (two_bits(after(x)), x != y && two_bits(after(y))) {
            (false, false) => own,
            (true, false) => self.graph_join(own, s, x, after(x)),
            (false, true) => self.graph_join(own, s, y, after(y)),
            (true, true) => self.graph_cut(key, s, st.lines),
        }
    }

    /// `key` with the two paths of `s` through box `w`'s undrawn sides `rest` (two of them: w
    /// ends paths in `s`, and runs one through it once its other sides are drawn) joined into
    /// one through w.
    #[inline]
    fn graph_join(&self, key: u64, s: u64, w: u8, rest: u64) -> u64 {
        let (r1, r2) = (rest.trailing_zeros() as usize, (rest & rest.wrapping_sub(1)).trailing_zeros() as usize);
        let p1 = self.graph_path(s, r1);
        let key = key.wrapping_sub(p1.code());
        if p1.lines >> r2 & 1 == 1 {
            // A path from w back to w: a loop through it after.
            return key.wrapping_add(path_code(LOOP, LOOP, p1.len as u64 + 1));
        }
        let p2 = self.graph_path(s, r2);
        let len = p1.len as u64 + p2.len as u64 + 1;
        key.wrapping_sub(p2.code()).wrapping_add(path_code(p1.far(w), p2.far(w), len))
    }
}

/// A node's paths, line by line ([`Rules::arms_of`], [`Rules::arms_after`]): for each undrawn
/// line of `s`, the path it lies on, packed by [`pack`]. With them a move's key is a few codes
/// summed ([`Rules::graph_cut_arms`]) where it was two or three walks: they are kept where the
/// enhanced transposition cutoffs key every child of a node, and found there from the nearest
/// node above that kept them, by walking only the paths through the boxes of the lines drawn
/// since.
#[derive(Clone)]
pub(super) struct Arms {
    /// The state they are of.
    pub(super) s: u64,
    /// Bits 0-7 and 8-15: the path's ends (box indices or [`GROUND`]); 16-23: the boxes it runs
    /// through; bit 24: a loop; for a line of a path, 25-30: the boxes between it and the first
    /// end, and bit 31: which of its boxes (`line_boxes`) lies toward that end.
    path: [u32; 64],
    /// The code of each line's path, found once a path.
    code: [u64; 64],
    /// The lines of each line's path (bit i set = line i on it).
    lines: [u64; 64],
}

impl Arms {
    pub(super) const EMPTY: Arms = Arms { s: 0, path: [0; 64], code: [0; 64], lines: [0; 64] };
}

/// A path as an [`Arms`] word.
#[inline]
fn pack(p: &Path) -> u32 {
    p.ends[0] as u32 | (p.ends[1] as u32) << 8 | (p.len as u32) << 16 | (p.is_loop as u32) << 24
}

/// The code of a path packed by [`pack`] (what [`Arms`] keeps beside it; the tests check the two).
#[cfg(test)]
fn packed_code(w: u32) -> u64 {
    let len = (w >> 16 & 0xff) as u64;
    if w >> 24 & 1 != 0 {
        path_code(LOOP, LOOP, len)
    } else {
        path_code((w & 0xff) as u64, (w >> 8 & 0xff) as u64, len)
    }
}

/// A packed path's boxes run through.
#[inline]
fn packed_len(w: u32) -> u64 {
    (w >> 16 & 0xff) as u64
}

/// Whether a packed path (not a loop) has `b` for an end.
#[inline]
fn packed_ends_at(w: u32, b: u8) -> bool {
    w & 0xff == b as u32 || w >> 8 & 0xff == b as u32
}

/// A packed path's end other than `w` (one of its ends).
#[inline]
fn packed_far(p: u32, w: u8) -> u64 {
    (if p & 0xff == w as u32 { p >> 8 & 0xff } else { p & 0xff }) as u64
}

impl Rules {
    /// The paths of `s`, every one walked.
    pub(super) fn arms_of(&self, s: u64, out: &mut Arms) {
        out.s = s;
        self.arms_walk(s, self.full & !s, out);
    }

    /// The paths of `t` from those of `base`, a state before it: only a path that ends at or
    /// runs through a box of a line drawn since can have changed, and each such path holds an
    /// undrawn side of that box, so the paths of those sides are walked again.
    pub(super) fn arms_after(&self, base: &Arms, t: u64, out: &mut Arms) {
        out.path = base.path;
        out.code = base.code;
        out.lines = base.lines;
        out.s = t;
        let open = self.full & !t;
        let mut drawn = t & !base.s;
        let mut redo = 0u64;
        while drawn != 0 {
            let e = drawn.trailing_zeros() as usize;
            drawn &= drawn - 1;
            for &b in &self.line_boxes[e] {
                if b != NO_BOX {
                    redo |= self.box_sides[b as usize] & open;
                }
            }
        }
        self.arms_walk(t, redo, out);
    }

    /// Writes the path of every line of `lines` (undrawn in `s`) into `out`, each line with its
    /// place on it: from a line, one walk each way to the path's ends.
    #[inline]
    fn arms_walk(&self, s: u64, mut lines: u64, out: &mut Arms) {
        let open = self.full & !s;
        while lines != 0 {
            let e = lines.trailing_zeros() as usize;
            // Each line met is written at once with its place from `e` (the boxes passed, in
            // bits 25-30) and the index of its box toward the first end (bit 31), and finished
            // once the path's first end and length are known; `first`: the lines met on the
            // first way.
            let mut boxes = [0u32; 2];
            let mut ends = [GROUND as u8; 2];
            let (mut all, mut first) = (1u64 << e, 0u64);
            let mut is_loop = false;
            'ways: for way in 0..2 {
                let (mut b, mut came) = (self.line_boxes[e][way], e);
                while b != NO_BOX {
                    let u = self.box_sides[b as usize] & open;
                    if !two_bits(u) {
                        ends[way] = b;
                        break;
                    }
                    boxes[way] += 1;
                    let next = (u & !(1u64 << came)).trailing_zeros() as usize;
                    if next == e {
                        is_loop = true;
                        break 'ways;
                    }
                    all |= 1 << next;
                    first |= ((way == 0) as u64) << next;
                    let [p, q] = self.line_boxes[next];
                    // Toward the first end: the box ahead on the first way, the box behind on
                    // the second.
                    let ahead = (p == b) as u32;
                    let toward = if way == 0 { ahead } else { 1 - ahead };
                    out.path[next] = boxes[way] << 25 | toward << 31;
                    (b, came) = (if p == b { q } else { p }, next);
                }
            }
            let len = if is_loop { boxes[0] } else { boxes[0] + boxes[1] };
            let path = Path { lines: all, ends, len: len as u8, is_loop };
            let (w, code) = (pack(&path), path.code());
            let d0 = boxes[0];
            let mut each = all;
            while each != 0 {
                let l = each.trailing_zeros() as usize;
                each &= each - 1;
                let place = out.path[l];
                out.path[l] = if is_loop {
                    w
                } else if l == e {
                    w | d0 << 25
                } else {
                    let k = place >> 25 & 0x3f;
                    let off = if first >> l & 1 == 1 { d0 - k } else { d0 + k };
                    w | off << 25 | place & 1 << 31
                };
                out.code[l] = code;
                out.lines[l] = all;
            }
            lines &= !all;
        }
    }

    /// [`Rules::graph_cut`] of the state of `arms` with the lines `drawn` drawn, from its key:
    /// one line between two boxes that end paths, or an opening-sized set walked as before.
    #[inline]
    pub(super) fn graph_cut_arms(&self, key: u64, arms: &Arms, drawn: u64) -> u64 {
        if drawn & drawn.wrapping_sub(1) == 0
            && drawn != 0
            && let Some(key) = self.graph_cut_line_arms(key, arms, drawn.trailing_zeros() as usize)
        {
            return key;
        }
        self.graph_cut(key, arms.s, drawn)
    }

    /// [`Rules::graph_cut_line`] from the paths kept: the line `e`, a path of its own between
    /// two boxes (or a box and the border) that end paths, goes, and each of those boxes left
    /// with two undrawn sides joins its two other paths; None where `e` runs through a box of
    /// two undrawn sides, or where both boxes join and a path runs between them or loops back
    /// to one (the walk finds those).
    #[inline]
    fn graph_cut_line_arms(&self, key: u64, arms: &Arms, e: usize) -> Option<u64> {
        let p = arms.path[e];
        let open = self.full & !arms.s;
        let sides = |x: u8| if x == NO_BOX { 0 } else { self.box_sides[x as usize] & open };
        if p >> 24 & 1 != 0 {
            // A loop opened at `e`: a path between its two boxes, through the rest.
            let [a, b] = self.line_boxes[e];
            return Some(key.wrapping_sub(arms.code[e]).wrapping_add(path_code(a as u64, b as u64, packed_len(p) - 2)));
        }
        if packed_len(p) != 0 {
            return self.split_arms(key, arms, e);
        }
        let [a, b] = self.line_boxes[e];
        let (ua, ub) = (sides(a), sides(b));
        let key = key.wrapping_sub(arms.code[e]);
        // (Neither box has two undrawn sides: the line would run through it.)
        match (three_bits(ua), three_bits(ub)) {
            (false, false) => Some(key),
            (true, false) => Some(self.join_arms(key, arms, a, ua & !(1u64 << e))),
            (false, true) => Some(self.join_arms(key, arms, b, ub & !(1u64 << e))),
            (true, true) => Some(self.join_both(key, arms, a, ua & !(1u64 << e), b, ub & !(1u64 << e))),
        }
    }

    /// [`Rules::graph_cut_line_arms`] of a line inside a path (boxes of two undrawn sides on at
    /// least one side of it): the path splits in two at it, each part ending at the box next to
    /// the line (left with one undrawn side), or, where the line is the path's first or last,
    /// the end box beyond loses a side (and joins its two other paths where it is left with
    /// two). None where that end box is the path's other end too (the walk finds it).
    #[inline]
    fn split_arms(&self, key: u64, arms: &Arms, e: usize) -> Option<u64> {
        let p = arms.path[e];
        let (len, j) = (packed_len(p), (p >> 25 & 0x3f) as u64);
        let d = (p >> 31) as usize;
        let (toward, away) = (self.line_boxes[e][d], self.line_boxes[e][1 - d]);
        let (e0, e1) = ((p & 0xff) as u8, (p >> 8 & 0xff) as u8);
        let end = |w: u8| if w == NO_BOX { GROUND } else { w as u64 };
        let mut key = key.wrapping_sub(arms.code[e]);
        let open = self.full & !arms.s;
        // The end box `w` beyond the line loses it: joins where left with two undrawn sides.
        let lose = |key: u64, w: u8| -> Option<u64> {
            if w == NO_BOX {
                return Some(key);
            }
            let u = self.box_sides[w as usize] & open;
            if !three_bits(u) {
                return Some(key);
            }
            (e0 != e1).then(|| self.join_arms(key, arms, w, u & !(1u64 << e)))
        };
        key = if j >= 1 { key.wrapping_add(path_code(end(e0), toward as u64, j - 1)) } else { lose(key, e0)? };
        key = if j < len { key.wrapping_add(path_code(away as u64, end(e1), len - j - 1)) } else { lose(key, e1)? };
        Some(key)
    }

    /// `key` with boxes `a` and `b` (each left with the two undrawn sides `ra`, `rb`, once what
    /// linked them directly is drawn) both running their paths through: each joins its two
    /// paths where no path runs between them; one path between them makes one path of the
    /// three through both, and two make a loop.
    #[inline]
    fn join_both(&self, key: u64, arms: &Arms, a: u8, ra: u64, b: u8, rb: u64) -> u64 {
        let between = |rest: u64| {
            let (r1, r2) = (rest.trailing_zeros() as usize, (rest & rest.wrapping_sub(1)).trailing_zeros() as usize);
            let links = |r: usize| packed_ends_at(arms.path[r], a) && packed_ends_at(arms.path[r], b);
            (r1, r2, links(r1), links(r2))
        };
        let (a1, a2, l1, l2) = between(ra);
        match (l1, l2) {
            (false, false) => self.join_arms(self.join_arms(key, arms, a, ra), arms, b, rb),
            (true, true) => {
                // Two paths from a to b: a loop through both.
                let len = packed_len(arms.path[a1]) + packed_len(arms.path[a2]) + 2;
                key.wrapping_sub(arms.code[a1]).wrapping_sub(arms.code[a2]).wrapping_add(path_code(LOOP, LOOP, len))
            }
            _ => {
                // One path p from a to b: a's other path, a, p, b and b's other path, one path.
                let (p, pa) = if l1 { (a1, a2) } else { (a2, a1) };
                // b's other side than p's.
                let (b1, b2, m1, _) = between(rb);
                let pb = if m1 { b2 } else { b1 };
                let len = packed_len(arms.path[pa]) + packed_len(arms.path[p]) + packed_len(arms.path[pb]) + 2;
                key.wrapping_sub(arms.code[pa])
                    .wrapping_sub(arms.code[p])
                    .wrapping_sub(arms.code[pb])
                    .wrapping_add(path_code(packed_far(arms.path[pa], a), packed_far(arms.path[pb], b), len))
            }
        }
    }

    /// [`Rules::graph_join`] from the paths kept.
    #[inline]
    fn join_arms(&self, key: u64, arms: &Arms, w: u8, rest: u64) -> u64 {
        let (r1, r2) = (rest.trailing_zeros() as usize, (rest & rest.wrapping_sub(1)).trailing_zeros() as usize);
        let p1 = arms.path[r1];
        let key = key.wrapping_sub(arms.code[r1]);
        if p1 & 0xff == w as u32 && p1 >> 8 & 0xff == w as u32 {
            // From w back to w (by its other side): a loop through it after.
            return key.wrapping_add(path_code(LOOP, LOOP, packed_len(p1) + 1));
        }
        let p2 = arms.path[r2];
        let len = packed_len(p1) + packed_len(p2) + 1;
        key.wrapping_sub(arms.code[r2]).wrapping_add(path_code(packed_far(p1, w), packed_far(p2, w), len))
    }

    /// [`Rules::graph_open`] from the paths kept.
    #[inline]
    pub(super) fn graph_open_arms(&self, key: u64, arms: &Arms, st: &Structure) -> u64 {
        if st.hand_back == LOOP_HAND_BACK {
            return key.wrapping_sub(path_code(LOOP, LOOP, st.boxes as u64));
        }
        let s = arms.s;
        let [x, y] = st.ends;
        let end = |w: u8| if w == NO_BOX { GROUND } else { w as u64 };
        let open = self.full & !s;
        let after = |w: u8| if w == NO_BOX { 0 } else { self.box_sides[w as usize] & open & !st.lines };
        let own = key.wrapping_sub(path_code(end(x), end(y), st.boxes as u64));
        let (ax, ay) = (after(x), after(y));
        match (two_bits(ax), x != y && two_bits(ay)) {
            (false, false) => own,
            (true, false) => self.join_arms(own, arms, x, ax),
            (false, true) => self.join_arms(own, arms, y, ay),
            (true, true) => self.join_both(own, arms, x, ax, y, ay),
        }
    }

    /// [`Rules::opening_class`] of line `i` in the state of `arms` (nothing capturable), read
    /// from the path kept for `i` rather than walked: its lines, boxes, ends (the end toward
    /// `i`'s first box first, as the walk has them) and, in a chain of two, its middle line
    /// (the one with one box between it and an end).
    #[inline]
    pub(super) fn opening_class_arms(&self, arms: &Arms, i: usize) -> Opening {
        let (p, lines) = (arms.path[i], arms.lines[i]);
        let boxes = packed_len(p) as i32;
        if p >> 24 & 1 != 0 {
            return Opening::Class(Structure::a_loop(lines, boxes));
        }
        let (e0, e1) = ((p & 0xff) as u8, (p >> 8 & 0xff) as u8);
        // The first end lies toward `i`'s box of bit 31 (GROUND is NO_BOX).
        let ends = if p >> 31 == 0 { [e0, e1] } else { [e1, e0] };
        let middle = || {
            let mut each = lines;
            while arms.path[each.trailing_zeros() as usize] >> 25 & 0x3f != 1 {
                each &= each - 1;
            }
            each.trailing_zeros() as u8
        };
        self.chain_opening(self.full & !arms.s, lines, boxes, ends, middle)
    }
}

/// Whether a box of undrawn sides `u` has exactly three of them.
#[inline]
fn three_bits(u: u64) -> bool {
    let v = u & u.wrapping_sub(1);
    let w = v & v.wrapping_sub(1);
    w != 0 && w & w.wrapping_sub(1) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::search::rules::tests::{empty, value};
    use crate::support::SplitMix64;

    /// The key kept move by move is the key found path by path: random states of the empty
    /// 3x4, 4x4 and 5x5, every undrawn line cut, and random sets of lines cut at once.
    #[test]
    fn a_graph_key_kept_move_by_move_is_the_key_found_again() {
        for b in ["3x4", "4x4", "5x5"] {
            let (_, _, rules, _) = empty(b, false);
            let mut rng = SplitMix64(11);
            for round in 0..3_000 {
                let s = match round % 3 {
                    0 => rng.next_u64(),
                    1 => rng.next_u64() | rng.next_u64(),
                    _ => rng.next_u64() & rng.next_u64(),
                } & rules.full;
                let key = rules.graph_key(s);
                let mut open = rules.full & !s;
                while open != 0 {
                    let e = open.trailing_zeros() as usize;
                    open &= open - 1;
                    let t = s | 1 << e;
                    assert_eq!(rules.graph_cut(key, s, 1 << e), rules.graph_key(t), "{b}: state {s:#x}, line {e}");
                }
                let drawn = rng.next_u64() & rng.next_u64() & rules.full & !s;
                assert_eq!(rules.graph_cut(key, s, drawn), rules.graph_key(s | drawn), "{b}: {s:#x} + {drawn:#x}");
            }
        }
    }

    /// An opening's key found from its chain's ends is the key found again: every opening of
    /// random states of the 4x4 and 5x5 where nothing is capturable.
    #[test]
    fn an_opening_s_key_is_the_key_found_again() {
        for b in ["4x4", "5x5"] {
            let (_, _, rules, _) = empty(b, false);
            let mut rng = SplitMix64(13);
            let mut met = [0usize; 2];
            for round in 0..20_000 {
                let mut s = match round % 2 {
                    0 => rng.next_u64() | rng.next_u64(),
                    _ => rng.next_u64() | rng.next_u64() | rng.next_u64(),
                } & rules.full;
                // Nothing capturable: a side of each box of one undrawn side undrawn again (which
                // leaves no box with fewer undrawn sides than before).
                while rules.capture_lines(s) != 0 {
                    let b = rules.box_sides.iter().position(|&m| (m & !s).count_ones() == 1).expect("a box");
                    let drawn = rules.box_sides[b] & s;
                    s &= !(drawn & drawn.wrapping_neg());
                }
                let key = rules.graph_key(s);
                let mut open = rules.full & !s;
                while open != 0 {
                    let i = open.trailing_zeros() as usize;
                    open &= open - 1;
                    if let Opening::Class(st) = rules.opening_class(s, i) {
                        met[(st.hand_back == LOOP_HAND_BACK) as usize] += 1;
                        assert_eq!(rules.graph_open(key, s, &st), rules.graph_key(s | st.lines), "{b}: {s:#x}, {st:?}");
                    }
                }
            }
            assert!(met.iter().all(|&n| n > 100), "{b}: chains and loops met: {met:?}");
        }
    }

    /// Random states with nothing capturable (a side of each box of one undrawn side undrawn
    /// again, which leaves no box with fewer undrawn sides than before).
    fn uncapturable(rules: &Rules, rng: &mut SplitMix64, round: usize) -> u64 {
        let mut s = match round % 2 {
            0 => rng.next_u64() | rng.next_u64(),
            _ => rng.next_u64() | rng.next_u64() | rng.next_u64(),
        } & rules.full;
        while rules.capture_lines(s) != 0 {
            let b = rules.box_sides.iter().position(|&m| (m & !s).count_ones() == 1).expect("a box");
            let drawn = rules.box_sides[b] & s;
            s &= !(drawn & drawn.wrapping_neg());
        }
        s
    }

    /// The paths kept: found from an earlier state's (random lines drawn since) they are the
    /// paths walked afresh, each with its code; every key found from them (each line drawn,
    /// each opening) is the key found again, and every line's opening read from them is the
    /// one walked.
    #[test]
    fn keys_from_the_paths_kept_are_the_keys_found_again() {
        for b in ["3x4", "4x4", "5x5"] {
            let (_, _, rules, _) = empty(b, false);
            let mut rng = SplitMix64(17);
            let (mut fast, mut openings) = (0usize, 0usize);
            for round in 0..4_000 {
                let t = uncapturable(&rules, &mut rng, round);
                let s = t & rng.next_u64() & rng.next_u64();
                let (mut base, mut arms, mut fresh) = (Arms::EMPTY, Arms::EMPTY, Arms::EMPTY);
                rules.arms_of(s, &mut base);
                rules.arms_after(&base, t, &mut arms);
                rules.arms_of(t, &mut fresh);
                let mut open = rules.full & !t;
                while open != 0 {
                    let e = open.trailing_zeros() as usize;
                    open &= open - 1;
                    // (A path's ends in either order: the walk's first line decides it.)
                    let unordered = |w: u32| {
                        let (x, y) = (w & 0xff, w >> 8 & 0xff);
                        (x.min(y), x.max(y), w >> 16 & 0x1ff)
                    };
                    assert_eq!(unordered(arms.path[e]), unordered(fresh.path[e]), "{b}: {s:#x} to {t:#x}, line {e}");
                    assert_eq!(arms.code[e], fresh.code[e]);
                    assert_eq!(arms.code[e], packed_code(arms.path[e]));
                }
                let key = rules.graph_key(t);
                let mut open = rules.full & !t;
                while open != 0 {
                    let e = open.trailing_zeros() as usize;
                    open &= open - 1;
                    fast += rules.graph_cut_line_arms(key, &arms, e).is_some() as usize;
                    assert_eq!(
                        rules.graph_cut_arms(key, &arms, 1 << e),
                        rules.graph_key(t | 1 << e),
                        "{b}: {t:#x}, {e}"
                    );
                    assert_eq!(rules.opening_class_arms(&arms, e), rules.opening_class(t, e), "{b}: {t:#x}, {e}");
                    if let Opening::Class(st) = rules.opening_class(t, e) {
                        openings += 1;
                        assert_eq!(
                            rules.graph_open_arms(key, &arms, &st),
                            rules.graph_key(t | st.lines),
                            "{b}: {t:#x}, {st:?}"
                        );
                    }
                }
            }
            assert!(
                fast > 1_000 && openings > 1_000,
                "{b}: lines cut from the paths kept alone {fast}, openings {openings}"
            );
        }
    }

    /// States of one graph key have one value: random 3x4 states grouped by key, each against
    /// the retrograde, with many groups of states that differ.
    #[test]
    fn states_of_one_graph_key_have_one_value() {
        let (board, space, rules, sol) = empty("3x4", true);
        let sol = sol.unwrap();
        let mut seen = std::collections::HashMap::new();
        let mut merged = 0;
        let mut rng = SplitMix64(5);
        for round in 0..200_000 {
            let s = match round % 2 {
                0 => rng.next_u64() | rng.next_u64(),
                _ => rng.next_u64() | (rng.next_u64() & rng.next_u64()),
            } & rules.full;
            let v = value(board, &space, &sol, s);
            let (first, fv) = *seen.entry(rules.graph_key(s)).or_insert((s, v));
            if first != s {
                merged += 1;
                assert_eq!(v, fv, "states {first:#x} and {s:#x} share a graph key");
            }
        }
        assert!(merged > 2_000, "states of one key met: {merged}");
    }
}
