//! One thread's search: fail-soft alpha-beta over the shared table, MTD(f) on top of it, and
//! the root's null-window tests shared with the other threads. `Searcher::search` is the node:
//! a forced capture, else a leaf (retrograde, table, theorems, store), else the moves in order.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use super::book::BookLeaves;
use super::graph::Arms;
use super::rules::{Capture, Choice, Moves, Opening, Phase, Rules, Structure, to_parity};
use super::table::Table;
use super::{ARMS_LINES, FLUSH, INF};

/// Slots of the busy marks: 2^BUSY_BITS.
pub(super) const BUSY_BITS: u32 = 12;

/// Up to this many threads, the root's tests run one at a time, every thread on it (spread
/// below by the busy marks); with more, two tests at once. A second test beside the first
/// searches on a table the first has not filled: on game 5 of `5x5-44.csv` (2 threads), "at
/// least 3" took 11.0 M positions beside "at least 1" and 1.7 M after it, and one test at a
/// time took the fifteen games' median from 5.26-5.37 s to 4.91-4.92 s (docs/notes/search-notes.md).
/// Sixteen threads were measured with two tests (6.3x one thread's speed), not with one.
pub(super) const ONE_TEST_THREADS: usize = 2;

/// What every thread of one search shares.
pub(super) struct Shared<'a> {
    pub(super) rules: &'a Rules,
    pub(super) table: &'a Table,
    pub(super) counters: &'a Counters,
    pub(super) theorems: bool,
    pub(super) leaf_lines: u32,
    pub(super) etc_lines: u32,
    pub(super) threads: usize,
    pub(super) book: Option<&'a BookLeaves<'a>>,
    /// When the search gives up (None: never).
    pub(super) deadline: Option<std::time::Instant>,
    /// Set by another thread to stop the search.
    pub(super) stop: Option<&'a AtomicBool>,
    /// The busy marks, 2^[`BUSY_BITS`] slots.
    pub(super) busy: &'a [AtomicU64],
    /// Nodes of at least this many undrawn lines are marked busy while searched.
    pub(super) busy_lines: u32,
}

/// One thread's search: the shared rules, table and counters, its own counts not yet added.
/// `K`: how states are keyed ([`StateKeys`], [`GraphKeys`]): a search of each kind is compiled
/// apart, so that the state keys' search carries nothing of the graph's.
pub(super) struct Searcher<'a, K: Keys> {
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
    /// Positions of at least this many undrawn lines try [`Searcher::etc`].
    etc_lines: u32,
    /// Positions this thread has searched (never reset: subtree sizes are differences).
    total: u64,
    /// The store whose positions are leaves.
    book: Option<&'a BookLeaves<'a>>,
    /// Positions valued from the book, not yet added to the shared count.
    book_hits: u64,
    /// When the search gives up.
    deadline: Option<std::time::Instant>,
    /// Set by another thread to stop the search.
    stop: Option<&'a AtomicBool>,
    keys: std::marker::PhantomData<K>,
    /// The paths of the nodes on the current line of play that keep them ([`Keys::ARMS`]),
    /// the first `depth`; room for every node of a line of play is made once, not per node.
    arms: Vec<Arms>,
    depth: usize,
    /// The nodes the threads are searching (`Searcher::mark_busy`).
    busy: &'a [AtomicU64],
    /// Whether this thread's root test is shared with another thread: it then takes the root's
    /// moves in the first thread's order.
    joined: bool,
    /// Nodes of at least this many undrawn lines are marked busy, and their moves put off
    /// where another thread searches the child ([`super::BUSY_LINES`] by default).
    busy_lines: u32,
    /// The root's move that decided this thread's latest search of the root (`u8::MAX`: none):
    /// where the test failed high, a move proven worth at least its beta.
    root_move: u8,
}

/// The counters every thread adds to, read by the progress.
#[derive(Default)]
pub(super) struct Counters {
    pub(super) nodes: AtomicU64,
    pub(super) hits: AtomicU64,
    pub(super) book_hits: AtomicU64,
    pub(super) root_done: AtomicU64,
    /// The root's bounds proven so far, packed by [`pack_bounds`].
    pub(super) bounds: AtomicU64,
    /// The latest result of a test of the root (as i64 bits).
    pub(super) guess: AtomicU64,
    /// Set when a store file of the book failed a check, or the deadline passed: every thread
    /// stops, and the search refuses instead of answering without the leaves it was given or
    /// with bounds it did not finish.
    pub(super) stopped: AtomicBool,
    /// Set when the deadline passed.
    pub(super) out_of_time: AtomicBool,
    /// The best lower bound a root test proved with the move that proved it, packed by
    /// [`pack_root_move`] (0: none yet).
    pub(super) root_best: AtomicU64,
}

/// A root move and the value it is proven to reach, in one word whose order is the value's
/// (so that `fetch_max` keeps the best): 0 is none.
pub(super) fn pack_root_move(value: i32, line: u8) -> u64 {
    debug_assert!(value.abs() <= INF);
    ((value + INF + 1) as u64) << 8 | line as u64
}

/// The move and value of [`pack_root_move`], None for 0.
pub(super) fn unpack_root_move(p: u64) -> Option<(i32, u8)> {
    (p != 0).then(|| ((p >> 8) as i32 - INF - 1, p as u8))
}

/// The root's proven bounds (lower, upper) in one word, each as 16 bits: every bound a
/// search holds, [`INF`] included (an `i8` each, a root worth 128 read back as -128 and the
/// search never ended).
pub(super) fn pack_bounds(lower: i32, upper: i32) -> u64 {
    debug_assert!(lower.abs() <= INF && upper.abs() <= INF, "bounds within INF: {lower} {upper}");
    (lower as i16 as u16 as u64) | (upper as i16 as u16 as u64) << 16
}

pub(super) fn unpack_bounds(b: u64) -> (i32, i32) {
    (b as u16 as i16 as i32, (b >> 16) as u16 as i16 as i32)
}

impl<'a, K: Keys> Searcher<'a, K> {
    pub(super) fn new(shared: &Shared<'a>, shift: usize) -> Searcher<'a, K> {
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
            etc_lines: shared.etc_lines,
            threads: shared.threads,
            book: shared.book,
            book_hits: 0,
            deadline: shared.deadline,
            stop: shared.stop,
            keys: std::marker::PhantomData,
            arms: if K::ARMS { vec![Arms::EMPTY; 64] } else { Vec::new() },
            depth: 0,
            busy: shared.busy,
            joined: false,
            busy_lines: shared.busy_lines,
            root_move: u8::MAX,
        }
    }

    /// Adds this thread's counts to the shared ones, and sees whether to stop.
    pub(super) fn flush(&mut self) {
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
        if self.stop.is_some_and(|s| s.load(Relaxed)) {
            self.counters.stopped.store(true, Relaxed);
        }
        if self.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            self.counters.out_of_time.store(true, Relaxed);
            self.counters.stopped.store(true, Relaxed);
        }
        self.aborted |= self.counters.stopped.load(Relaxed);
    }
}

impl<K: Keys> Searcher<'_, K> {
    /// The exact value of `s` by MTD(f): null-window searches from `guess` until the bounds
    /// meet (no test here is dropped: only the root's tests, in [`Searcher::root_value`], are).
    pub(super) fn mtdf(&mut self, s: u64, guess: i32) -> i32 {
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

    /// The root's value, with the other threads: each runs a null-window test near the latest
    /// result (MTD(f)'s, and from [`ONE_TEST_THREADS`] threads up the one two above it too),
    /// and every result narrows the shared bounds, until they meet. A test whose beta the
    /// bounds have passed is dropped.
    pub(super) fn root_value(&mut self, thread: usize) -> i32 {
        // Tests two apart: the root's value has the parity of its boxes left, so a test of
        // `value >= b` for b of the other parity asks the same as `value >= b + 1`.
        const OFFSETS: [i32; 2] = [0, 2];
        let tests = if self.threads <= ONE_TEST_THREADS { 1 } else { OFFSETS.len() };
        let root = self.counters;
        let odd = self.rules.odd(0);
        loop {
            let (lower, upper) = unpack_bounds(root.bounds.load(Relaxed));
            if lower >= upper || root.stopped.load(Relaxed) {
                return lower;
            }
            // This thread's beta: its pick of the tests near the guess still open.
            let guess = to_parity(root.guess.load(Relaxed) as i32, odd, true);
            let open = || OFFSETS[..tests].iter().map(move |d| guess + d).filter(move |&b| lower < b && b <= upper);
            // A test shared with another thread: take its root moves in the first thread's order,
            // the threads spreading below by their busy marks.
            self.joined = open().count() < self.threads;
            let beta = match open().count() {
                0 => to_parity(guess.clamp(lower + 1, upper), odd, guess <= lower),
                n => open().nth(thread % n).expect("a test"),
            };
            self.beta = Some(beta);
            self.aborted = false;
            self.root_move = u8::MAX;
            let v = self.search(0, beta - 1, beta);
            if self.aborted {
                continue;
            }
            // A test that failed high on a move of its own proves that move worth v: kept, so
            // that a search out of time still has its best move so far.
            if v >= beta && self.root_move != u8::MAX {
                root.root_best.fetch_max(pack_root_move(v, self.root_move), Relaxed);
            }
            root.guess.store(v as i64 as u64, Relaxed);
            let _ = root.bounds.fetch_update(Relaxed, Relaxed, |b| {
                let (lo, hi) = unpack_bounds(b);
                Some(if v < beta { pack_bounds(lo, hi.min(v)) } else { pack_bounds(lo.max(v), hi) })
            });
        }
    }

    /// A root move worth the root's `value`, once that is known: the table's move first, then
    /// the others in the search's order, each settled by one null-window test (much cheaper
    /// than every move's exact value); None when the search was stopped.
    pub(super) fn best_root_move(&mut self, value: i32) -> Option<usize> {
        let r = self.rules;
        let lines = r.capture_lines(0);
        let either = match r.forced_capture(0, lines) {
            Capture::Take { first, .. } => return Some(first),
            Capture::Either(either) => either,
        };
        let (key, frame) = K::key_frame(r, 0, K::of(r, 0));
        let hint = self.table.get(key, r.odd(0)).map_or(u8::MAX, |(_, _, best)| r.in_frame(frame, best, true));
        let mut moves = Moves::new();
        r.ordered_moves(0, lines, r.giving_lines(0), either, hint, None, Phase::All, None, &mut moves);
        // In rank order, as the list is.
        for &i in &moves.lines[..moves.count] {
            let i = i as usize;
            let n = r.completes(0, i);
            // The move reaches `value` when its child fails on the right side of it.
            let reaches = if n > 0 {
                n + self.search(1 << i, value - n - 1, value - n) >= value
            } else {
                -self.search(1 << i, -value, -value + 1) >= value
            };
            if self.aborted {
                return None;
            }
            if reaches {
                return Some(i);
            }
        }
        None
    }

    /// Fail-soft alpha-beta: the value of `s` if it lies inside (alpha, beta), else a bound on
    /// the same side of the window.
    fn search(&mut self, s: u64, alpha: i32, beta: i32) -> i32 {
        let lines = self.rules.capture_lines(s);
        let g = K::of(self.rules, s);
        self.node(s, lines, self.rules.odd(s), g, alpha, beta)
    }

    /// [`Searcher::search`] of `s`, whose lines that complete a box are `lines`, with an odd
    /// number of boxes left where `odd` ([`Rules::odd`]; a move passes it on, flipped where it
    /// completes an odd number, rather than each node counting the boxes again).
    #[allow(clippy::too_many_arguments)]
    fn node(&mut self, s: u64, lines: u64, odd: bool, g: K::G, alpha: i32, beta: i32) -> i32 {
        debug_assert_eq!(odd, self.rules.odd(s), "the parity passed on is the state's");
        if self.count_node() {
            return 0;
        }
        let r = self.rules;
        if s == r.full {
            return 0;
        }
        let either = match r.forced_capture(s, lines) {
            Capture::Take { lines: taken, boxes: n, .. } => {
                let t = s | taken;
                let odd = odd ^ (n & 1 == 1);
                let after = r.capture_lines_after(lines, t, taken);
                return n + self.node(t, after, odd, K::after(r, g, s, taken, None), alpha - n, beta - n);
            }
            Capture::Either(either) => either,
        };
        if self.leaf_lines > 0 && (r.full & !s).count_ones() <= self.leaf_lines {
            return r.retrograde_value(s);
        }
        // The best move is stored in the canonical state's frame (a graph's key: the state's own).
        let (key, frame) = K::key_frame(r, s, g);
        let (alpha, beta, hint) = match self.probe(s, key, odd, alpha, beta) {
            Probe::Value(v) => return v,
            Probe::Window(alpha, beta, hint) => (alpha, beta, r.in_frame(frame, hint, true)),
        };
        // A capture with a choice: one search of Q, not one of each move. Past it, no capture
        // is left to choose.
        if let Some(c) = either {
            return self.choice(s, lines, odd, g, key, frame, c, beta);
        }
        let giving = r.giving_lines(s);
        // Enhanced transposition cutoffs, of the moves that give nothing and then of the
        // openings: where nothing is capturable, from `etc_lines` undrawn lines up (below that
        // the probes cost more than the subtrees they spare).
        let undrawn = (r.full & !s).count_ones();
        // Not at the root, whose cutoff must name the move that makes it (`root_move`).
        let etc = lines == 0 && undrawn >= self.etc_lines && s != 0;
        // Where every child is keyed, the node's paths are kept for it.
        let kept = K::ARMS && lines == 0 && undrawn >= ARMS_LINES;
        if kept {
            self.keep_arms(s);
        }
        let busy = self.threads > 1 && undrawn >= self.busy_lines;
        let tag = if busy { self.mark_busy(key) } else { 0 };
        let v = self.expand(s, lines, odd, g, key, frame, hint, giving, etc, alpha, beta);
        if busy {
            self.unmark_busy(key, tag);
        }
        if kept {
            self.depth -= 1;
        }
        v
    }

    /// The paths of `s` kept on the stack of [`Searcher::arms`], found from those of the nearest
    /// node above that kept them.
    fn keep_arms(&mut self, s: u64) {
        let d = self.depth;
        if self.arms.len() == d {
            self.arms.push(Arms::EMPTY);
        }
        let (above, here) = self.arms.split_at_mut(d);
        match above.last() {
            Some(base) => self.rules.arms_after(base, s, &mut here[0]),
            None => self.rules.arms_of(s, &mut here[0]),
        }
        self.depth += 1;
    }

    /// The busy slot of `key` and what this thread writes there.
    #[inline]
    fn busy_slot(&self, key: u64) -> (&AtomicU64, u64) {
        let z = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = &self.busy[(z >> (64 - BUSY_BITS)) as usize];
        (slot, (z & !0xff) | (self.shift as u64 + 1))
    }

    /// Marks `key` as searched by this thread; what was written.
    fn mark_busy(&self, key: u64) -> u64 {
        let (slot, tag) = self.busy_slot(key);
        slot.store(tag, Relaxed);
        tag
    }

    fn unmark_busy(&self, key: u64, tag: u64) {
        let (slot, _) = self.busy_slot(key);
        let _ = slot.compare_exchange(tag, 0, Relaxed, Relaxed);
    }

    /// Whether another thread is searching `key`.
    fn busy_other(&self, key: u64) -> bool {
        let (slot, tag) = self.busy_slot(key);
        let v = slot.load(Relaxed);
        v != 0 && v & !0xff == tag & !0xff && v != tag
    }

    /// The paths of `s` where this node kept them.
    #[inline]
    fn here(&self, s: u64) -> Option<&Arms> {
        self.depth.checked_sub(1).map(|d| &self.arms[d]).filter(|a| a.s == s)
    }

    /// The rest of [`Searcher::node`] where no leaf valued `s`: its moves, each searched or
    /// settled by the table, in the window (alpha, beta) the table left.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn expand(
        &mut self,
        s: u64,
        lines: u64,
        odd: bool,
        g: K::G,
        key: u64,
        frame: u8,
        hint: u8,
        giving: u64,
        etc: bool,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let r = self.rules;
        // The keys after the moves that give nothing, where the cutoffs look them up (by line;
        // 0: not found), handed on to the moves' searches.
        let mut quiet = [0u64; 64];
        if etc {
            self.etc_fetch(s, g, giving, &mut quiet);
            if let Some(v) = self.etc(s, odd, giving, &quiet, beta) {
                return self.cut(odd, key, v);
            }
        }
        let before = self.total;
        let table = self.table;
        let arms = self.here(s);
        let fetch = |st: &Structure| {
            let key = K::key_opened(r, g, s, st, arms);
            table.prefetch(key);
            key
        };
        let prefetch = etc.then_some(&fetch as &dyn Fn(&Structure) -> u64);
        let mut moves = Moves::new();
        // Below the cutoffs' threshold, where a move that gives nothing is left, the openings
        // are walked only once those moves failed to cut (row 5 of 5x5-safe.csv: a seventh fewer
        // walks, 3.7 % fewer instructions, the same positions). Above it the openings' cutoffs
        // come before any move, and the root keeps one list, for its helpers' order.
        let quiet_first = s != 0 && !etc && r.full & !s & !lines & !giving != 0;
        let (best, best_move) = if quiet_first {
            r.ordered_moves(s, lines, giving, None, hint, None, Phase::Quiet, self.here(s), &mut moves);
            let (best, best_move) = self.best_of(s, lines, odd, g, &moves, None, alpha, beta);
            if self.aborted {
                return 0;
            }
            if best >= beta {
                (best, best_move)
            } else {
                r.ordered_moves(s, lines, giving, None, hint, None, Phase::Rest, self.here(s), &mut moves);
                let (rest, rest_move) = self.best_of(s, lines, odd, g, &moves, None, alpha.max(best), beta);
                if rest > best { (rest, rest_move) } else { (best, best_move) }
            }
        } else {
            r.ordered_moves(s, lines, giving, None, hint, prefetch, Phase::All, arms, &mut moves);
            if etc && let Some(v) = self.etc_openings(&moves, odd, beta) {
                return self.cut(odd, key, v);
            }
            self.best_of(s, lines, odd, g, &moves, etc.then_some(&quiet), alpha, beta)
        };
        if self.aborted {
            return 0;
        }
        if s == 0 {
            self.root_move = best_move;
        }
        let size = self.size_since(before);
        // A bound tightened to the value's parity decides a test one above or below it too
        // (tightened, it stays on its side of the window).
        let (best, lower, upper) = if best <= alpha {
            let best = to_parity(best, odd, false);
            (best, -INF, best)
        } else if best >= beta {
            let best = to_parity(best, odd, true);
            (best, best, INF)
        } else {
            debug_assert_eq!(best & 1 == 1, odd, "a value has the parity of the boxes left");
            (best, best, best)
        };
        self.table.put(key, lower, upper, r.in_frame(frame, best_move, false), size);
        best
    }

    /// A node whose only moves are the capture and the decline of `c` ([`Choice`]), in the
    /// window (alpha, beta): worth |u| where u = boxes + v(Q), the better of the two being the
    /// capture where u >= 0 and the decline where u <= 0. So it is worth at least 0 before any
    /// search (where beta <= 0, a cutoff), and otherwise |u| is below beta iff v(Q) lies in
    /// (-beta - boxes, beta - boxes), where one search of Q finds it exactly, and at least
    /// beta outside, where that search's bound is a bound on |u| (the two moves' searches
    /// tested two windows of Q). Stored under `key`, its move in `frame`.
    #[allow(clippy::too_many_arguments)]
    fn choice(&mut self, s: u64, lines: u64, odd: bool, g: K::G, key: u64, frame: u8, c: Choice, beta: i32) -> i32 {
        if beta <= 0 {
            return self.cut(odd, key, 0);
        }
        let r = self.rules;
        let before = self.total;
        let q = s | c.lines;
        let after = r.capture_lines_after(lines, q, c.lines);
        let k = c.boxes;
        // Taking or handing over an even number of boxes keeps the parity.
        let (lo, hi) = (-beta - k, beta - k);
        let v = self.node(q, after, odd, K::after(r, g, s, c.lines, None), lo, hi);
        if self.aborted {
            return 0;
        }
        let u = k + v;
        let (best, lower, upper, line) = if v <= lo {
            // v(Q) at most v: the decline worth at least -u, at least beta.
            (-u, -u, INF, c.decline)
        } else if v >= hi {
            (u, u, INF, c.take)
        } else {
            (u.abs(), u.abs(), u.abs(), if u >= 0 { c.take } else { c.decline })
        };
        if s == 0 {
            self.root_move = line;
        }
        let size = self.size_since(before);
        self.table.put(key, to_parity(lower, odd, true), upper, r.in_frame(frame, line, false), size);
        best
    }

    /// The size of the subtree searched since the count stood at `before`, as a power of two:
    /// what decides which entry a full bucket gives up.
    fn size_since(&self, before: u64) -> u32 {
        64 - (self.total - before).leading_zeros()
    }

    /// A cutoff found before any move of a state (stored under `key`, with an odd number of
    /// boxes left where `odd`) was searched: `v`, a lower bound, tightened to the parity,
    /// stored and returned.
    fn cut(&mut self, odd: bool, key: u64, v: i32) -> i32 {
        let v = to_parity(v, odd, true);
        self.table.put(key, v, INF, u8::MAX, 0);
        v
    }

    /// Counts a node (adding the counts to the shared ones every [`FLUSH`]); true when the
    /// search is to unwind.
    #[inline]
    fn count_node(&mut self) -> bool {
        self.nodes += 1;
        self.total += 1;
        if self.nodes == FLUSH {
            self.flush();
        }
        self.aborted
    }

    /// The value of `s` where a leaf gives it (the table's entry, the theorems, the store),
    /// else the window narrowed by the table's bounds and the table's best move
    /// (`u8::MAX`: none).
    #[inline]
    fn probe(&mut self, s: u64, key: u64, odd: bool, alpha: i32, beta: i32) -> Probe {
        if let Some((lo, hi, best)) = self.bounds(key, odd) {
            self.hits += 1;
            if lo >= beta {
                return Probe::Value(lo);
            }
            if hi <= alpha {
                return Probe::Value(hi);
            }
            if lo == hi {
                return Probe::Value(lo);
            }
            return Probe::Window(alpha.max(lo), beta.min(hi), best);
        }
        if self.theorems
            && let Some(v) = self.rules.theorem_value(s)
        {
            self.table.put(key, v, v, u8::MAX, 0);
            return Probe::Value(v);
        }
        // After the table (a book probe costs more than a table probe) and the theorems.
        if let Some(v) = self.book.and_then(|b| b.value(s)) {
            self.book_hits += 1;
            self.table.put(key, v, v, u8::MAX, 0);
            return Probe::Value(v);
        }
        Probe::Window(alpha, beta, u8::MAX)
    }

    /// The table's bounds and best move for `key`, a state with an odd number of boxes left
    /// where `odd` (the table keeps half of each bound, and reads it back at that parity).
    #[inline]
    fn bounds(&self, key: u64, odd: bool) -> Option<(i32, i32, u8)> {
        self.table.get(key, odd)
    }

    /// Finds the key after each move of `s` that gives no box (those not in `giving`), by line,
    /// into `keys`, and asks for its bucket, for [`Searcher::etc`]: fetched together, their
    /// misses overlap.
    fn etc_fetch(&self, s: u64, g: K::G, giving: u64, keys: &mut [u64; 64]) {
        let r = self.rules;
        let arms = self.here(s);
        let mut each = r.full & !s & !giving;
        while each != 0 {
            let i = each.trailing_zeros() as usize;
            each &= each - 1;
            keys[i] = K::key_after(r, g, s, 1 << i, arms);
            self.table.prefetch(keys[i]);
        }
    }

    /// Enhanced transposition cutoff: a value of at least `beta` for `s` (nothing capturable)
    /// where the table already refutes the reply to one of its moves that give no box (those
    /// not in `giving`, whose keys [`Searcher::etc_fetch`] found), before any move is searched.
    /// [`Searcher::node`] asks only where `etc_lines` lines or more are undrawn
    /// ([`super::ETC_LINES`] by default).
    fn etc(&self, s: u64, odd: bool, giving: u64, keys: &[u64; 64], beta: i32) -> Option<i32> {
        let mut each = self.rules.full & !s & !giving;
        while each != 0 {
            let i = each.trailing_zeros() as usize;
            each &= each - 1;
            // A move that gives nothing keeps the boxes left, and so their parity.
            if let Some((_, hi, _)) = self.bounds(keys[i], odd)
                && -hi >= beta
            {
                return Some(-hi);
            }
        }
        None
    }

    /// [`Searcher::etc`] for the openings of `moves`: a value of at least `beta` for `s` where
    /// the table's bounds on the position after an opening (every line of it drawn) already
    /// make the opening worth that much.
    fn etc_openings(&mut self, moves: &Moves, odd: bool, beta: i32) -> Option<i32> {
        let n = moves.opened_count;
        moves.opened_key[..n].iter().zip(&moves.opened[..n]).find_map(|(&key, st)| {
            // Opening it completes its boxes, and no other.
            let (lo, hi, _) = self.bounds(key, odd ^ (st.boxes & 1 == 1))?;
            // The opener's worth is decreasing in v(Q) when taken whole, and the decline's
            // k - hand_back - v(Q) increasing: the least worth over v(Q) in [lo, hi].
            let least =
                if st.hand_back == 0 { st.worth(hi) } else { -(st.boxes + hi).max(st.boxes - st.hand_back - lo) };
            (least >= beta).then_some(least)
        })
    }

    /// The best of `moves` from `s` in the window (alpha, beta), searched rank by rank, and
    /// the line that gave it (`u8::MAX`: none better than -INF); stops at a cutoff. `lines`:
    /// those of `s` that complete a box (a child's are found from them and its move); `quiet`:
    /// the key after each move that gives nothing, by line, where [`Searcher::etc_fetch`]
    /// found them (0: not found).
    ///
    /// A helper thread alone on its test takes the root's moves from the other end (ranks and order reversed,
    /// the helpers after the first spread out): where every move must be refuted, the threads
    /// meet in the middle, each finding the other's results in the table. Below the root every
    /// thread keeps the one best-first order, which shares the table best.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn best_of(
        &mut self,
        s: u64,
        lines: u64,
        odd: bool,
        g: K::G,
        moves: &Moves,
        quiet: Option<&[u64; 64]>,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, u8) {
        let r = self.rules;
        let count = moves.count;
        let mut best = -INF;
        let mut best_move = u8::MAX;
        // The list is in rank order (`Moves::sort_by_rank`); a helper at the root takes it in
        // its own order.
        let helper = (s == 0 && self.shift > 0 && !self.joined).then(|| {
            let spread = (self.shift - 1) * count / self.threads.saturating_sub(1).max(1);
            moves.helper_order(spread)
        });
        // Where another thread may search the same nodes, a move (but the first) whose child
        // another thread is searching is put off until the others are searched.
        let share = self.threads > 1 && (r.full & !s).count_ones() >= self.busy_lines;
        let mut later = [0u8; 64];
        let mut put_off = 0;
        for pass in 0..1 + share as usize {
            let n_moves = if pass == 0 { count } else { put_off };
            for k in 0..n_moves {
                let j =
                    if pass == 1 { later[k] as usize } else { helper.as_ref().map_or(k, |order| order[k] as usize) };
                let i = moves.lines[j] as usize;
                let st = (moves.opens >> i & 1 == 1).then(|| match moves.structure_key(i) {
                    Some((st, key)) => (Opening::Class(st), key),
                    None => (r.opening_of(s, i, self.here(s)), 0),
                });
                // The child's key where already found (by the list for an opening, by the
                // cutoffs for a move that gives nothing; 0: not yet): found at most once, for
                // the busy check and the child's search alike.
                let mut known = match st {
                    Some((Opening::Class(_), key)) => key,
                    _ => quiet.map_or(0, |q| q[i]),
                };
                if share && pass == 0 && k > 0 {
                    if known == 0 {
                        known = match st {
                            Some((Opening::Class(st), _)) => K::key_opened(r, g, s, &st, self.here(s)),
                            _ => K::key_after(r, g, s, 1 << i, self.here(s)),
                        };
                    }
                    if self.busy_other(known) {
                        later[put_off] = j as u8;
                        put_off += 1;
                        continue;
                    }
                }
                let v = match st {
                    Some((Opening::Class(st), _)) => {
                        let after = K::kept(known).unwrap_or_else(|| K::opened(r, g, s, &st, self.here(s)));
                        self.opened(s, lines, odd, after, st, alpha, beta)
                    }
                    _ => {
                        let n = r.completes(s, i);
                        let t = s | 1 << i;
                        let after = r.capture_lines_after(lines, t, 1 << i);
                        let g = K::kept(known).unwrap_or_else(|| K::after(r, g, s, 1 << i, self.here(s)));
                        if n > 0 {
                            n + self.node(t, after, odd ^ (n & 1 == 1), g, alpha - n, beta - n)
                        } else {
                            -self.node(t, after, odd, g, -beta, -alpha)
                        }
                    }
                };
                if self.aborted {
                    return (best, best_move);
                }
                if v > best {
                    best = v;
                    best_move = i as u8;
                }
                alpha = alpha.max(v);
                if alpha >= beta {
                    return (best, best_move);
                }
            }
        }
        (best, best_move)
    }

    /// What opening `st` from `s` (whose lines that complete a box are `lines`) is worth in the
    /// window (alpha, beta), fail-soft: found from Q, the position after it with every line of
    /// it drawn (see [`Structure::worth`]), not from the opponent's captures a box at a time. A
    /// chain or loop the opponent may decline is worth at most hand_back / 2 - k (where v(Q) =
    /// -hand_back / 2), which settles it at once when that is no more than alpha; else it is
    /// worth more than alpha iff v(Q) lies in (lo, hi), and one search of Q in that window
    /// settles it.
    /// `g`: the graph's key of the position after it.
    #[allow(clippy::too_many_arguments)]
    fn opened(&mut self, s: u64, lines: u64, odd: bool, g: K::G, st: Structure, alpha: i32, beta: i32) -> i32 {
        let r = self.rules;
        let q = s | st.lines;
        let after = r.capture_lines_after(lines, q, st.lines);
        let (k, h) = (st.boxes, st.hand_back);
        // Opening it completes its k boxes, and no other.
        let odd_q = odd ^ (k & 1 == 1);
        if h == 0 {
            // Worth -(k + v(Q)): decreasing in v(Q), so a bound on it is a bound on the worth.
            return st.worth(self.node(q, after, odd_q, g, -beta - k, -alpha - k));
        }
        // Of the parity of the boxes left in `s`, as every value of it.
        let top = to_parity(h / 2 - k, odd, false);
        if top <= alpha {
            return top;
        }
        // One search of Q in (lo, hi), where two null-window tests (v(Q) < hi, then v(Q) > lo)
        // searched 8-10 % more positions (docs/notes/search-notes.md). Its fail-soft result settles
        // the worth: at or below lo an upper bound on v(Q), so v(Q) + h - k (at most alpha)
        // bounds the worth from above; at or above hi a lower bound, so -k - v(Q) (at most
        // alpha) does; between them v(Q) itself, and the worth exactly.
        let (lo, hi) = (alpha + k - h, -k - alpha);
        st.worth(self.node(q, after, odd_q, g, lo, hi))
    }
}

/// How a search keys its states in the table, and what it hands down the search to do so.
/// `arms`: the paths of the state a key is found from, where its node kept them.
pub(super) trait Keys {
    /// What a node is given of its state's key: nothing for the state keys, the graph's key.
    type G: Copy;
    /// Whether nodes that key every child keep their paths ([`Arms`]) for it.
    const ARMS: bool;
    /// [`Keys::G`] of `s`, found afresh.
    fn of(r: &Rules, s: u64) -> Self::G;
    /// The table's key of `s` (of `g`) and the frame its best move is stored in.
    fn key_frame(r: &Rules, s: u64, g: Self::G) -> (u64, u8);
    /// [`Keys::G`] of `s` with the lines `drawn` drawn.
    fn after(r: &Rules, g: Self::G, s: u64, drawn: u64, arms: Option<&Arms>) -> Self::G;
    /// The table's key of `s` with the lines `drawn` drawn.
    fn key_after(r: &Rules, g: Self::G, s: u64, drawn: u64, arms: Option<&Arms>) -> u64;
    /// [`Keys::after`] of opening `st`.
    fn opened(r: &Rules, g: Self::G, s: u64, st: &Structure, arms: Option<&Arms>) -> Self::G;
    /// [`Keys::key_after`] of opening `st`.
    fn key_opened(r: &Rules, g: Self::G, s: u64, st: &Structure, arms: Option<&Arms>) -> u64;
    /// [`Keys::G`] from the key the move list found after an opening (0: none found).
    fn kept(key: u64) -> Option<Self::G>;
}

/// States keyed by their canonical state ([`Rules::canonical_frame`]): nothing handed down.
pub(super) struct StateKeys;

impl Keys for StateKeys {
    type G = ();
    const ARMS: bool = false;
    #[inline(always)]
    fn of(_: &Rules, _: u64) {}
    #[inline(always)]
    fn key_frame(r: &Rules, s: u64, _: ()) -> (u64, u8) {
        r.canonical_frame(s)
    }
    #[inline(always)]
    fn after(_: &Rules, _: (), _: u64, _: u64, _: Option<&Arms>) {}
    #[inline(always)]
    fn key_after(r: &Rules, _: (), s: u64, drawn: u64, _: Option<&Arms>) -> u64 {
        r.canonical(s | drawn)
    }
    #[inline(always)]
    fn opened(_: &Rules, _: (), _: u64, _: &Structure, _: Option<&Arms>) {}
    #[inline(always)]
    fn key_opened(r: &Rules, _: (), s: u64, st: &Structure, _: Option<&Arms>) -> u64 {
        r.canonical(s | st.lines)
    }
    #[inline(always)]
    fn kept(_: u64) -> Option<()> {
        Some(())
    }
}

/// States keyed by their strings-and-coins graph (`graph.rs`), the key handed down the search
/// and kept move by move; a best move is stored as the state's own line.
pub(super) struct GraphKeys;

impl Keys for GraphKeys {
    type G = u64;
    const ARMS: bool = true;
    #[inline(always)]
    fn of(r: &Rules, s: u64) -> u64 {
        r.graph_key(s)
    }
    #[inline(always)]
    fn key_frame(_: &Rules, _: u64, g: u64) -> (u64, u8) {
        (g, 0)
    }
    #[inline(always)]
    fn after(r: &Rules, g: u64, s: u64, drawn: u64, arms: Option<&Arms>) -> u64 {
        match arms {
            Some(a) => r.graph_cut_arms(g, a, drawn),
            None => r.graph_cut(g, s, drawn),
        }
    }
    #[inline(always)]
    fn key_after(r: &Rules, g: u64, s: u64, drawn: u64, arms: Option<&Arms>) -> u64 {
        Self::after(r, g, s, drawn, arms)
    }
    #[inline(always)]
    fn opened(r: &Rules, g: u64, s: u64, st: &Structure, arms: Option<&Arms>) -> u64 {
        match arms {
            Some(a) => r.graph_open_arms(g, a, st),
            None => r.graph_open(g, s, st),
        }
    }
    #[inline(always)]
    fn key_opened(r: &Rules, g: u64, s: u64, st: &Structure, arms: Option<&Arms>) -> u64 {
        Self::opened(r, g, s, st, arms)
    }
    #[inline(always)]
    fn kept(key: u64) -> Option<u64> {
        (key != 0).then_some(key)
    }
}

/// What a node's leaves say: its value, or the window left to search with the table's move.
enum Probe {
    Value(i32),
    Window(i32, i32, u8),
}
