//! The rules a search applies at a node: which captures are made at once (a box that leaves
//! nothing capturable, the first boxes of a long chain) and which two moves the chain rules
//! leave (Berlekamp; Barker and Korf), the order the other moves are tried in, and the
//! canonical state a node is stored under (interchangeable lines, then symmetry).

use crate::game::Position;
use crate::solver::{LineBoxes, Space, free_box_masks};

use super::INF;
use super::bitmap::BitMap;
use super::graph::Arms;

/// Per undrawn line: the boxes it borders, as the other undrawn sides of each.
pub(super) struct Rules {
    /// `boxes[i]`: for each box line i borders, its other undrawn sides (bits of the state).
    pub(super) boxes: Vec<LineBoxes>,
    /// `sides[i]`: each box line i borders as all its sides undrawn at the root, line i
    /// included (0 where the line has one box): what names a box when a chain is walked.
    pub(super) sides: Vec<[u64; 2]>,
    /// Every line drawn.
    pub(super) full: u64,
    /// Classes of interchangeable lines (border lines of one box), as (mask, prefix masks by
    /// lines drawn): a state keeps a class's drawn lines as its prefix.
    pub(super) classes: Vec<(u64, Vec<u64>)>,
    /// For each symmetry fixing the root (identity excluded), each class's lines sent in order
    /// onto its image's: the image of `bits` in byte `byte` of a state, so that a state's image
    /// is a lookup per byte.
    pub(super) sym: Vec<BitMap>,
    /// Per frame (0: the state itself, k: `sym[k - 1]`): the image of each line, and the line
    /// of each image.
    frames: Vec<[[u8; 64]; 2]>,
    /// Order in which moves are tried among equals: from the middle of the board outwards
    /// (`order[p]`: the line tried p-th).
    pub(super) order: Vec<u8>,
    /// Lines to their places in `order`: bit i of a state to bit p where `order[p] == i`.
    in_order: BitMap,
    /// Each box with an undrawn side at the root: its undrawn sides (bits of the state).
    pub(super) box_sides: Vec<u64>,
    /// For each line, the boxes (indices into `box_sides`) it borders; `NO_BOX` past the count.
    pub(super) line_boxes: Vec<[u8; 2]>,
    /// Lines on the edge of the live boxes (one box each).
    pub(super) border: u64,
    /// Whether the theorems' leaf can be used: at most 64 live boxes (one word of them).
    pub(super) theorems: bool,
    /// Whether states are keyed by their strings-and-coins graph (`graph.rs`) rather than by
    /// their canonical state: where no symmetry fixes the root (a graph's key keeps its boxes
    /// where they are, so it would lose what the symmetries merge).
    pub(super) graph: bool,
}

/// What the chain rules allow at a capture that leaves another box capturable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ChainRule {
    /// These lines' captures are made at once, completing this many boxes: nothing that can be
    /// best is lost. A half-open chain is taken up to its last two boxes in one step, which
    /// the search would otherwise reach a box at a time, walking the chain again at each.
    TakeNow(u64, i32),
    /// Only these two lines can be best: the capture, and the line that declines the last two
    /// boxes (half open) or four (closed) as hard-hearted handouts (None: no such line found;
    /// every move is searched).
    Either(Option<Choice>),
}

/// A capture with a choice ([`ChainRule::Either`]): take the chain's last `boxes` boxes (two,
/// half open; four, closed) and move in Q, the position with `lines` drawn, or decline them
/// with the hard-hearted handout, after which the opponent takes them and moves in Q. Either
/// way the same lines are drawn and the same boxes taken before the next move, so the capture
/// is worth boxes + v(Q) and the decline its negation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Choice {
    pub(super) take: u8,
    pub(super) decline: u8,
    pub(super) lines: u64,
    pub(super) boxes: i32,
}

/// No box: the second box of a border line.
pub(super) const NO_BOX: u8 = u8::MAX;
/// No line: any line of an opening class may stand for it.
pub(super) const NO_LINE: u8 = u8::MAX;

impl Rules {
    pub(super) fn new(root: Position, space: &Space) -> Rules {
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
        let sym = space
            .syms
            .iter()
            .map(|perm| {
                let mut images: Vec<u64> = (0..k).map(|i| 1u64 << perm[i]).collect();
                // A class's lines sent in order onto its image's (the symmetry followed by a swap
                // of interchangeable lines, which keeps the value): the image of a normalised
                // state is then normalised.
                for (mask, _) in &classes {
                    let mut image = (0..k).filter(|&i| mask >> i & 1 == 1).fold(0u64, |m, i| m | images[i]);
                    for i in (0..k).filter(|&i| mask >> i & 1 == 1) {
                        images[i] = image & image.wrapping_neg();
                        image &= image - 1;
                    }
                }
                images
            })
            .collect::<Vec<_>>();
        // Each symmetry's image of every line, and back: a best move is stored in the frame of
        // the canonical state, so that a symmetric image that finds it reads its own line.
        let line_of = |bit: u64| bit.trailing_zeros() as u8;
        let identity: Vec<u64> = (0..k).map(|i| 1u64 << i).collect();
        let frames: Vec<[[u8; 64]; 2]> = std::iter::once(&identity)
            .chain(&sym)
            .map(|images| {
                let (mut to, mut from) = ([u8::MAX; 64], [u8::MAX; 64]);
                for (i, &bit) in images.iter().enumerate() {
                    to[i] = line_of(bit);
                    from[line_of(bit) as usize] = i as u8;
                }
                [to, from]
            })
            .collect();
        let sym: Vec<BitMap> = sym.iter().map(|images| BitMap::new(images)).collect();
        let board = root.board;
        let (cy, cx) = (board.rows() as i32, board.cols() as i32);
        let mut order: Vec<u8> = (0..k as u8).collect();
        // Distance of a line's midpoint (doubled coordinates) from the board's centre.
        let dist = |i: u8| {
            let (y, x) = board.midpoint(free[i as usize]);
            (y - cy).abs() + (x - cx).abs()
        };
        order.sort_by_key(|&i| (dist(i), i));
        let mut places = vec![0u64; k];
        for (p, &i) in order.iter().enumerate() {
            places[i as usize] = 1 << p;
        }
        let in_order = BitMap::new(&places);
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
        // (A graph's cut walks the boxes as bits of a word, as the theorems' leaf does.)
        let graph = sym.is_empty() && theorems;
        Rules {
            boxes,
            sides,
            full,
            classes,
            sym,
            frames,
            order,
            in_order,
            box_sides,
            line_boxes,
            border,
            theorems,
            graph,
        }
    }

    /// Boxes completed by drawing line `i` in state `s`.
    #[inline]
    pub(super) fn completes(&self, s: u64, i: usize) -> i32 {
        let lb = &self.boxes[i];
        lb.others[..lb.count as usize].iter().filter(|&&m| s & m == m).count() as i32
    }

    /// Whether drawing line `i` in `s` gives a box its third side (leaves it capturable): one of
    /// its boxes has one other side undrawn. The line's bit of [`Rules::giving_lines`].
    #[inline]
    pub(super) fn gives_box(&self, s: u64, i: usize) -> bool {
        let lb = &self.boxes[i];
        lb.others[..lb.count as usize].iter().any(|&m| last_side(m, s) != 0)
    }

    /// The undrawn lines of `s` that give a box (draw the third side of one): the undrawn sides
    /// of every box with exactly two, a pass over the boxes with no count of bits (this build
    /// has no population-count instruction) rather than a test of every line.
    #[inline]
    pub(super) fn giving_lines(&self, s: u64) -> u64 {
        self.box_sides.iter().fold(0, |bits, &sides| {
            let u = sides & !s;
            if two_bits(u) { bits | u } else { bits }
        })
    }

    /// What the chain rules say of the capture by line `i` in `s`, which completes one box and
    /// leaves the next box of a chain capturable (Berlekamp; Barker and Korf): of all the moves,
    /// only taking every box of the chain, or all but two (half open) or all but four (closed)
    /// and then declining the rest, can be best. So the capture is made at once while both
    /// choices stay open after it (half open with 3 boxes or more, closed with 5 or more; a
    /// closed chain of 3 has no second choice), and otherwise only the capture and the
    /// declining line are moves.
    pub(super) fn chain_rule(&self, s: u64, i: usize) -> ChainRule {
        let mut drawn = s | 1 << i;
        // The box line i leaves capturable.
        let Some(&(mut cur)) = self.sides[i].iter().find(|&&m| last_side(m, drawn) != 0) else {
            return ChainRule::Either(None);
        };
        let mut boxes = 2;
        let mut first_exit = u8::MAX;
        // The chain's lines drawn so far in the walk, and before its last one: taking a
        // half-open chain of `boxes` up to its last two draws `before`.
        let (mut run, mut before) = (1u64 << i, 1u64 << i);
        let half_open = |boxes: i32, before: u64, exit: usize| {
            if boxes >= 3 {
                ChainRule::TakeNow(before, boxes - 2)
            } else {
                ChainRule::Either(Some(Choice {
                    take: i as u8,
                    decline: exit as u8,
                    lines: 1 << i | 1 << exit,
                    boxes: 2,
                }))
            }
        };
        for _ in 0..64 {
            let exit = (cur & !drawn).trailing_zeros() as usize;
            if first_exit == u8::MAX {
                first_exit = exit as u8;
            }
            let Some(&next) = self.sides[exit].iter().find(|&&m| m != 0 && m != cur) else {
                // The chain ends on the border.
                return half_open(boxes, before, exit);
            };
            match (next & !drawn).count_ones() {
                // The far end is capturable through the same line: a closed chain.
                1 => {
                    return match boxes + 1 {
                        4 => ChainRule::Either(Some(Choice {
                            take: i as u8,
                            decline: first_exit,
                            lines: 1 << i | 1 << first_exit | 1 << exit,
                            boxes: 4,
                        })),
                        _ => ChainRule::TakeNow(1 << i, 1),
                    };
                }
                2 => {
                    drawn |= 1 << exit;
                    before = run;
                    run |= 1 << exit;
                    cur = next;
                    boxes += 1;
                }
                _ => return half_open(boxes, before, exit),
            }
        }
        ChainRule::Either(None)
    }

    /// The lines that complete a box in `s`: each box's last undrawn side. A pass over the
    /// boxes (one mask each, no branch) is cheaper than asking every undrawn line.
    #[inline]
    pub(super) fn capture_lines(&self, s: u64) -> u64 {
        self.box_sides.iter().fold(0, |bits, &sides| bits | last_side(sides, s))
    }

    /// [`Rules::capture_lines`] of `t`, the state after the lines `drawn` were drawn in a
    /// state whose lines that complete a box were `lines`: a box that borders none of them
    /// keeps its sides, and none of them is such a box's last side, so only their own boxes
    /// change.
    #[inline]
    pub(super) fn capture_lines_after(&self, lines: u64, t: u64, drawn: u64) -> u64 {
        let mut bits = lines & !drawn;
        let mut each = drawn;
        while each != 0 {
            let i = each.trailing_zeros() as usize;
            each &= each - 1;
            for &b in self.line_boxes[i].iter().filter(|&&b| b != NO_BOX) {
                bits |= last_side(self.box_sides[b as usize], t);
            }
        }
        bits
    }

    /// The capture at `s` that loses nothing taken at once (a box that leaves no new box
    /// capturable, or the first of a chain long enough to keep every choice that can be best),
    /// else the capture and decline a short chain leaves as the only moves, where nothing else
    /// is capturable; `lines` are `s`'s [`Rules::capture_lines`], taken in line order.
    #[inline]
    pub(super) fn forced_capture(&self, s: u64, lines: u64) -> Capture {
        let mut bits = lines;
        let mut either = None;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let n = self.completes(s, i);
            let rule = if !self.gives_box(s, i) {
                ChainRule::TakeNow(1 << i, n)
            } else if n == 1 {
                self.chain_rule(s, i)
            } else {
                ChainRule::Either(None)
            };
            match rule {
                ChainRule::TakeNow(lines, boxes) => return Capture::Take { first: i, lines, boxes },
                ChainRule::Either(c) => either = either.or(c),
            }
        }
        // The rule speaks of one chain: where a box outside it is capturable too, the best move
        // may be that box's capture (a 3x4 position of 14 undrawn lines was searched to +2, its
        // value +6, when the first such chain's two moves were the only ones), so every move
        // is searched there.
        Capture::Either(either.filter(|c: &Choice| lines & !c.lines == 0))
    }

    /// The moves of `s`, ranked (the table's move `hint`, captures (`lines`, those that
    /// complete a box), moves that give no box (not in `giving`, [`Rules::giving_lines`]),
    /// openings of short chains, of long chains and loops, the rest), each rank in the
    /// centre-out order;
    /// only the capture and decline of `either` where a chain leaves just those; of lines that
    /// lead to one canonical state or open one structure, one. Those of `phase` (ranks 0 to 2,
    /// 3 to 5, or all), written into `moves`, in rank order.
    // The list is filled in place (`moves`): a node's state, its captures and its hint are
    // what the order needs, and bundling them would only move the count into a struct.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn ordered_moves(
        &self,
        s: u64,
        lines: u64,
        giving: u64,
        either: Option<Choice>,
        hint: u8,
        prefetch: Option<&dyn Fn(&Structure) -> u64>,
        phase: Phase,
        arms: Option<&Arms>,
        moves: &mut Moves,
    ) {
        let allowed = match either {
            Some(c) => 1u64 << c.take | 1u64 << c.decline,
            // Of an interchangeable class only the first undrawn line: the others lead to the
            // same canonical state.
            None => self.classes.iter().fold(self.full & !s, |allowed, (mask, _)| {
                let open = mask & !s;
                allowed & !(open & open.wrapping_sub(1))
            }),
        };
        (moves.opens, moves.count, moves.opened_count) = (0, 0, 0);
        // Adds a move; where it stands for a structure the list keeps and `prefetch` is asked
        // for, with the canonical state after the structure, whose bucket is fetched at once so
        // that the fetch overlaps the rest of the move generation.
        let push = |moves: &mut Moves, i: usize, rank: u8, opens: Option<Structure>| {
            let key = match (opens, prefetch) {
                (Some(st), Some(f)) if moves.opened_count < KEPT => f(&st),
                _ => 0,
            };
            moves.push(i, rank, opens, key);
        };
        // Lines left out as equivalent to (or never better than) another move kept.
        let (mut skip, mut plain) = (0u64, 0u64);
        let classes = either.is_none() && lines == 0;
        // The rank of line `i`, which gives a box, and whether it stands for the structure it
        // opens (None: not kept); lines of the structure left out go into `skip`, and those
        // that open nothing of the kind into `plain`.
        let mut opening = |i: usize, skip: &mut u64| {
            if !classes || plain >> i & 1 == 1 {
                return Some((5, None));
            }
            match self.opening_of(s, i, arms) {
                Opening::Other(walked) => {
                    plain |= walked;
                    Some((5, None))
                }
                // A chain of one or two handed out before longer openings: 5-14 % fewer
                // positions on 3x4, 4x4 and 5x5 (docs/notes/search-notes.md).
                Opening::Class(st) if st.keep == NO_LINE || st.keep as usize == i => {
                    *skip |= st.lines & !(1u64 << i);
                    Some((if st.hand_back == 0 { 3 } else { 4 }, Some(st)))
                }
                Opening::Class(st) => {
                    *skip |= st.lines & !(1u64 << st.keep);
                    None
                }
            }
        };
        // The table's move first, so that it stands for its structure where it opens one.
        let mut ahead = allowed;
        if (hint as usize) < 64 && allowed >> hint & 1 == 1 {
            let i = hint as usize;
            ahead &= !(1u64 << i);
            // An opening's structure is walked in every phase, so that its other lines are left
            // out with it; the move itself is listed with the quiet ones.
            let kept =
                if lines >> i & 1 == 1 || giving >> i & 1 == 0 { Some((0, None)) } else { opening(i, &mut skip) };
            if let Some((_, opens)) = kept.filter(|_| phase != Phase::Rest) {
                push(moves, i, 0, opens);
            }
        }
        // Then by rank, each in the centre-out order: the lines as bits in that order, walked
        // bit by bit (no branch on every drawn line).
        if phase != Phase::Rest {
            for (mask, rank) in [(ahead & lines, 1), (ahead & !lines & !giving, 2)] {
                let mut m = self.in_order.apply(mask);
                while m != 0 {
                    push(moves, self.order[m.trailing_zeros() as usize] as usize, rank, None);
                    m &= m - 1;
                }
            }
        }
        if phase == Phase::Quiet {
            return;
        }
        let mut m = self.in_order.apply(ahead & !lines & giving);
        while m != 0 {
            let i = self.order[m.trailing_zeros() as usize] as usize;
            m &= m - 1;
            if skip >> i & 1 == 0
                && let Some((rank, opens)) = opening(i, &mut skip)
            {
                push(moves, i, rank, opens);
            }
        }
        moves.sort_by_rank();
    }

    /// The lines of `s` equivalent to the move `i` as an opening of a structure of boxes of
    /// two undrawn sides each, and the one of them worth searching (`NO_LINE`: any): a chain
    /// of k boxes whose ends are the border or boxes of three or more undrawn sides (four or
    /// more where both ends are the same box), or a loop. Where in a chain of 1 or of 3 or more
    /// boxes, or in a loop, the opener plays does not change what the opponent can do (take
    /// every box, or all but two (four in a loop) and hand the rest back), nor the position
    /// after either (Berlekamp; Allcock); in a chain of two, the line between the boxes (the
    /// hard-hearted handout) is never worse than an end (the half-hearted one), which adds the
    /// opponent's choice to decline both boxes. Asked only where nothing is capturable.
    #[inline]
    pub(super) fn opening_class(&self, s: u64, i: usize) -> Opening {
        debug_assert_eq!(self.capture_lines(s), 0, "openings are classed where nothing is capturable");
        let open = self.full & !s;
        let mut lines = 1u64 << i;
        let mut boxes = 0;
        let mut ends = [(NO_BOX, i); 2];
        for (end, start) in ends.iter_mut().zip(self.line_boxes[i]) {
            let (mut b, mut came) = (start, i);
            while b != NO_BOX {
                let u = self.box_sides[b as usize] & open;
                if !two_bits(u) {
                    break;
                }
                boxes += 1;
                let out = (u & !(1u64 << came)).trailing_zeros() as usize;
                if out == i {
                    // Back to the move's own line: a loop.
                    return Opening::Class(Structure::a_loop(lines, boxes));
                }
                lines |= 1 << out;
                let [p, q] = self.line_boxes[out];
                (b, came) = (if p == b { q } else { p }, out);
            }
            *end = (b, came);
        }
        let [(e0, l0), (e1, l1)] = ends;
        self.chain_opening(open, lines, boxes, [e0, e1], || {
            (lines & !(1u64 << l0) & !(1u64 << l1)).trailing_zeros() as u8
        })
    }

    /// What opening a path of `boxes` boxes (not a loop) is, its lines `lines` and its end boxes
    /// `ends` (`NO_BOX`: the border), in a state whose undrawn lines are `open`, where nothing is
    /// capturable; `middle` finds a chain of two's middle line. Shared by the walk
    /// ([`Rules::opening_class`]) and the paths kept (`Rules::opening_class_arms`).
    #[inline]
    pub(super) fn chain_opening(
        &self,
        open: u64,
        lines: u64,
        boxes: i32,
        ends: [u8; 2],
        middle: impl FnOnce() -> u8,
    ) -> Opening {
        let [e0, e1] = ends;
        // Nothing is capturable, so an end box (reached by an undrawn side, not of two) has three
        // or four undrawn sides; where both ends are one box it needs four (its three lowest
        // cleared, one left), or the chain and it are something else.
        let one_box_of_three = e0 == e1 && e0 != NO_BOX && {
            let u = self.box_sides[e0 as usize] & open;
            let u = u & u.wrapping_sub(1);
            let u = u & u.wrapping_sub(1);
            u & u.wrapping_sub(1) == 0
        };
        if boxes == 0 || one_box_of_three {
            return Opening::Other(lines);
        }
        let (keep, hand_back) = match boxes {
            1 => (NO_LINE, 0),
            2 => (middle(), 0),
            _ => (NO_LINE, CHAIN_HAND_BACK),
        };
        Opening::Class(Structure { lines, keep, boxes, hand_back, ends })
    }

    /// [`Rules::opening_class`] of line `i` in `s`, read from the paths kept for `s` where
    /// given.
    #[inline]
    pub(super) fn opening_of(&self, s: u64, i: usize, arms: Option<&Arms>) -> Opening {
        match arms {
            Some(a) => self.opening_class_arms(a, i),
            None => self.opening_class(s, i),
        }
    }

    /// Whether an odd number of boxes is left in `s`: the parity of every value of `s`, as the
    /// boxes left are split between the players (the plain game; no last-move penalty).
    #[inline]
    pub(super) fn odd(&self, s: u64) -> bool {
        self.box_sides.iter().fold(false, |odd, &m| odd ^ (m & !s != 0))
    }

    /// The stored representative of `s`: classes normalised, then the least symmetric image
    /// (each [`Rules::sym`] keeps a normalised state normalised).
    #[inline]
    pub(super) fn canonical(&self, s: u64) -> u64 {
        self.canonical_frame(s).0
    }

    /// [`Rules::canonical`] and the frame it was found in: 0 for `s` itself, k for `sym[k - 1]`.
    #[inline]
    pub(super) fn canonical_frame(&self, s: u64) -> (u64, u8) {
        let s = self.normalised(s);
        self.sym.iter().enumerate().fold((s, 0), |(best, f), (k, t)| {
            let image = t.apply(s);
            if image < best { (image, k as u8 + 1) } else { (best, f) }
        })
    }

    /// Line `i` of a state seen in `frame` ([`Rules::canonical_frame`]), or back (`back`);
    /// `u8::MAX` (no move) stays. A line of an interchangeable class may land on another line of
    /// it: the move order then passes it over.
    #[inline]
    pub(super) fn in_frame(&self, frame: u8, i: u8, back: bool) -> u8 {
        if i as usize >= 64 { i } else { self.frames[frame as usize][back as usize][i as usize] }
    }

    /// `s` with each class's drawn lines moved to its first lines.
    #[inline]
    fn normalised(&self, s: u64) -> u64 {
        let mut s = s;
        for (mask, prefixes) in &self.classes {
            let x = s & mask;
            // A corner pair (two lines) needs no count: one line drawn is its first.
            let y = match prefixes[..] {
                [_, first, _] => {
                    if x != 0 && x != *mask {
                        first
                    } else {
                        x
                    }
                }
                _ => prefixes[x.count_ones() as usize],
            };
            s = (s & !mask) | y;
        }
        s
    }
}

/// `v`, a bound on a value of parity `odd`, tightened to that parity: up for a lower bound
/// (`up`), down for an upper one; the infinite bounds are kept.
#[inline]
pub(super) fn to_parity(v: i32, odd: bool, up: bool) -> i32 {
    if v.abs() >= INF || (v & 1 == 1) == odd {
        v
    } else if up {
        v + 1
    } else {
        v - 1
    }
}

/// Whether `u` has exactly two bits set.
#[inline]
pub(super) fn two_bits(u: u64) -> bool {
    let v = u & u.wrapping_sub(1);
    v != 0 && v & v.wrapping_sub(1) == 0
}

/// A box's last undrawn side in `s`, of its undrawn `sides` at the root (0 where none or
/// more than one is left).
#[inline]
fn last_side(sides: u64, s: u64) -> u64 {
    let u = sides & !s;
    if u & u.wrapping_sub(1) == 0 { u } else { 0 }
}

/// Which of a node's moves [`Rules::ordered_moves`] lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Every move.
    All,
    /// The table's move, the captures and the moves that give nothing (ranks 0 to 2).
    Quiet,
    /// The others (ranks 3 to 5).
    Rest,
}

/// Ranks of moves (see [`Moves`]).
pub(super) const RANKS: u8 = 6;

/// What a move that gives a box opens (see [`Rules::opening_class`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Opening {
    /// A chain or a loop, every line of which opens it alike.
    Class(Structure),
    /// Something else: the lines of the boxes of two undrawn sides walked from the move, each
    /// of which opens the same thing.
    Other(u64),
}

/// [`Structure::hand_back`] of a chain of 3 boxes or more: two boxes handed back, twice.
pub(super) const CHAIN_HAND_BACK: i32 = 4;
/// [`Structure::hand_back`] of a loop: four boxes handed back, twice.
pub(super) const LOOP_HAND_BACK: i32 = 8;

/// A chain or a loop of boxes of two undrawn sides each, opened by a move: once opened, the
/// opponent takes every box, or (a chain of 3 or more, a loop) all but two (four) and hands
/// those back, and then the same position follows, every line of it drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Structure {
    /// Its lines.
    pub(super) lines: u64,
    /// The one line worth drawing to open it (`NO_LINE`: any): a chain of two's middle line.
    pub(super) keep: u8,
    /// Its boxes.
    pub(super) boxes: i32,
    /// What declining costs the opponent: the boxes handed back, twice (0: the opponent takes
    /// every box, a chain of one or two; 4: a longer chain; 8: a loop).
    pub(super) hand_back: i32,
    /// A chain's end boxes (`NO_BOX`: the border; both `NO_BOX` for a loop).
    pub(super) ends: [u8; 2],
}

impl Structure {
    /// No structure: a move list's empty slot.
    pub(super) const NONE: Structure = Structure { lines: 0, keep: NO_LINE, boxes: 0, hand_back: 0, ends: [NO_BOX; 2] };

    /// A loop of `boxes` boxes through the lines `lines`.
    pub(super) fn a_loop(lines: u64, boxes: i32) -> Structure {
        Structure { lines, keep: NO_LINE, boxes, hand_back: LOOP_HAND_BACK, ends: [NO_BOX; 2] }
    }

    /// What opening it is worth to its opener, given `v`, the value of the position after it
    /// (every line drawn) for the player to move there: the opponent takes every box and
    /// moves there (k + v), or takes all but the handout and leaves the opener to move after
    /// taking it (k - hand_back - v).
    pub(super) fn worth(&self, v: i32) -> i32 {
        let take = self.boxes + v;
        if self.hand_back == 0 { -take } else { -take.max(self.boxes - self.hand_back - v) }
    }
}

/// What a node's captures say (see [`Rules::forced_capture`]).
pub(super) enum Capture {
    /// Take `lines` (`first` the first of them to draw), completing `boxes` boxes, at once.
    Take {
        /// The line drawn first.
        first: usize,
        /// Every line drawn.
        lines: u64,
        /// Boxes they complete.
        boxes: i32,
    },
    /// No capture is forced; where a chain leaves only its capture and its decline, those two.
    Either(Option<Choice>),
}

/// A node's moves in the order they are tried: each line with its rank (0 the table's move,
/// 1 captures, 2 moves that give no box, 3 openings of a chain of one or two, 4 of a longer
/// chain or a loop, 5 the rest), and which lines stand for the structure they open.
pub(super) struct Moves {
    pub(super) lines: [u8; 64],
    pub(super) rank: [u8; 64],
    /// The lines that stand for the structure they open.
    pub(super) opens: u64,
    pub(super) count: usize,
    /// The structures of the first [`KEPT`] lines of `opens` (by `opened_line`); the others
    /// are found again by [`Rules::opening_class`] when searched (a structure for each of the 64
    /// lines made the list 2 KiB, 4 % of the search's time spent copying it).
    pub(super) opened: [Structure; KEPT],
    opened_line: [u8; KEPT],
    /// The canonical state after each structure of `opened` (0 where not asked for).
    pub(super) opened_key: [u64; KEPT],
    pub(super) opened_count: usize,
}

/// Structures a move list keeps.
pub(super) const KEPT: usize = 8;

impl Moves {
    /// An empty list, for [`Rules::ordered_moves`] to fill (in place: returned by value, its
    /// 400 bytes were copied at every node).
    pub(super) fn new() -> Moves {
        Moves {
            lines: [0; 64],
            rank: [0; 64],
            opens: 0,
            count: 0,
            opened: [Structure::NONE; KEPT],
            opened_line: [NO_LINE; KEPT],
            opened_key: [0; KEPT],
            opened_count: 0,
        }
    }

    /// Adds line `i` of `rank`, standing for the structure it opens where `opens` has one
    /// (`key`: the canonical state after it, where asked for).
    fn push(&mut self, i: usize, rank: u8, opens: Option<Structure>, key: u64) {
        self.lines[self.count] = i as u8;
        self.rank[self.count] = rank;
        if let Some(st) = opens {
            self.opens |= 1u64 << i;
            if self.opened_count < KEPT {
                self.opened[self.opened_count] = st;
                self.opened_key[self.opened_count] = key;
                self.opened_line[self.opened_count] = i as u8;
                self.opened_count += 1;
            }
        }
        self.count += 1;
    }

    /// The moves in rank order, each rank in the order pushed (the openings of ranks 3 to 5
    /// are pushed in one centre-out walk), so that a node tries them in one pass rather than
    /// one pass over the list per rank. An insertion sort: the list is nearly in order.
    fn sort_by_rank(&mut self) {
        for j in 1..self.count {
            let (line, rank) = (self.lines[j], self.rank[j]);
            let mut k = j;
            while k > 0 && self.rank[k - 1] > rank {
                self.lines[k] = self.lines[k - 1];
                self.rank[k] = self.rank[k - 1];
                k -= 1;
            }
            self.lines[k] = line;
            self.rank[k] = rank;
        }
    }

    /// The order a helper thread takes the root's moves in (indices into the list): the ranks
    /// from the last, each rank's moves from the list's end, rotated by `spread` places, so that
    /// where every move must be refuted the threads meet in the middle.
    pub(super) fn helper_order(&self, spread: usize) -> [u8; 64] {
        let count = self.count;
        let mut order = [0u8; 64];
        let mut k = 0;
        for want in (0..RANKS).rev() {
            for j in (0..count).map(|j| (2 * count - 1 - j - spread) % count) {
                if self.rank[j] == want {
                    order[k] = j as u8;
                    k += 1;
                }
            }
        }
        order
    }

    /// The structure line `i` (of `opens`) stands for, where kept, and the key after it (0: not
    /// asked for).
    #[inline]
    pub(super) fn structure_key(&self, i: usize) -> Option<(Structure, u64)> {
        let at = self.opened_line[..self.opened_count].iter().position(|&l| l as usize == i)?;
        Some((self.opened[at], self.opened_key[at]))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::exec::solve;
    use crate::game::Board;
    use crate::solver::{Solution, SolveOptions, State};
    use crate::support::SplitMix64;

    /// The search's rules of the empty `board`, its space, and the board solved (None: not).
    pub(in crate::answer::search) fn empty(board: &str, solved: bool) -> (Board, Space, Rules, Option<Solution>) {
        let board: Board = board.parse().unwrap();
        let root = Position::empty(board);
        let space = Space::for_search(root).unwrap();
        let rules = Rules::new(root, &space);
        let sol =
            solved.then(|| solve(root, SolveOptions { threads: 2, keep_all: true, ..Default::default() }).unwrap());
        (board, space, rules, sol)
    }

    /// The retrograde's value of the search's state `s` (0 on the full board).
    pub(in crate::answer::search) fn value(board: Board, space: &Space, sol: &Solution, s: u64) -> i32 {
        let drawn = space.position_of(State(s)).drawn;
        if drawn == board.full() { 0 } else { sol.value_of(sol.space.state_of(drawn)).unwrap() as i32 }
    }

    /// The plain image of `s` under `perm`: each line to its image, no class normalised.
    fn plain_image(s: u64, perm: &[u8]) -> u64 {
        (0..64).filter(|&l| s >> l & 1 == 1).fold(0u64, |m, l| m | 1 << perm[l])
    }

    /// A best move stored from a state, in its canonical frame, and read back by a symmetric
    /// image of the state is a move of the image to the same canonical state as the move stored
    /// (the image of the line, or a line the canonical state's own symmetry makes equivalent):
    /// random states of the empty 3x4 and 4x4, lines outside the interchangeable classes.
    #[test]
    fn a_best_move_read_by_a_symmetric_image_is_the_same_move() {
        for b in ["3x4", "4x4"] {
            let (_, space, rules, _) = empty(b, false);
            let in_class = rules.classes.iter().fold(0, |m, (mask, _)| m | mask);
            let mut rng = SplitMix64(2);
            for _ in 0..5_000 {
                let s = rng.next_u64() & rng.next_u64() & rules.full;
                let (key, frame) = rules.canonical_frame(s);
                assert_eq!(key, rules.canonical(s));
                for i in (0..64).filter(|&i| (rules.full & !s & !in_class) >> i & 1 == 1) {
                    let stored = rules.in_frame(frame, i as u8, false);
                    assert_eq!(rules.in_frame(frame, stored, true), i as u8, "{b}: the frame's map is a bijection");
                    for perm in &space.syms {
                        let image = plain_image(s, perm);
                        let (image_key, image_frame) = rules.canonical_frame(image);
                        assert_eq!(image_key, key);
                        let read = rules.in_frame(image_frame, stored, true) as usize;
                        assert_eq!(image >> read & 1, 0, "{b}: state {s:#x}, line {i}: read {read} is drawn");
                        assert_eq!(
                            rules.canonical(image | 1 << read),
                            rules.canonical(s | 1 << i),
                            "{b}: state {s:#x}, line {i}, image {image:#x}: read {read}"
                        );
                    }
                }
            }
            assert_eq!(rules.in_frame(3, u8::MAX, true), u8::MAX, "no move stays no move");
        }
    }

    /// The canonical state of a state and of each of its symmetric images is one, and has the
    /// state's value: random states of the empty 3x4 and 4x4, each image by the plain permutation.
    #[test]
    fn a_state_and_its_images_share_one_canonical_state_of_their_value() {
        for b in ["3x4", "4x4"] {
            let (board, space, rules, sol) = empty(b, b == "3x4");
            assert_eq!(rules.sym.len(), if b == "4x4" { 7 } else { 3 });
            assert_eq!(rules.classes.len(), 4, "the corner boxes' border lines");
            let mut rng = SplitMix64(1);
            for _ in 0..20_000 {
                let s = rng.next_u64() & rules.full;
                let c = rules.canonical(s);
                for perm in &space.syms {
                    let image = plain_image(s, perm);
                    assert_eq!(rules.canonical(image), c, "{b}: state {s:#x}, image {image:#x}");
                }
                if let Some(sol) = &sol {
                    assert_eq!(
                        value(board, &space, sol, c),
                        value(board, &space, sol, s),
                        "{b}: state {s:#x}, canonical {c:#x}"
                    );
                }
            }
        }
    }

    /// Every value has the parity of the boxes left ([`Rules::odd`]), and a bound tightened
    /// to that parity still holds: random states of the 3x3 and of a 2x5 with lines drawn.
    #[test]
    fn every_value_has_the_parity_of_the_boxes_left() {
        for b in ["3x3", "2x5"] {
            let (board, space, rules, sol) = empty(b, true);
            let sol = sol.unwrap();
            let mut rng = SplitMix64(3);
            let mut seen = [0usize; 2];
            for _ in 0..20_000 {
                let s = rules.full & (rng.next_u64() | rng.next_u64());
                let v = value(board, &space, &sol, s);
                let odd = rules.odd(s);
                seen[odd as usize] += 1;
                assert_eq!(v & 1 == 1, odd, "{b}: state {s:#x} worth {v}");
                for d in 0..3 {
                    assert!(to_parity(v - d, odd, true) <= v && to_parity(v + d, odd, false) >= v);
                }
            }
            assert!(seen.iter().all(|&n| n > 1000), "{b}: both parities met: {seen:?}");
        }
        assert_eq!((to_parity(INF, false, true), to_parity(-INF, false, false)), (INF, -INF));
    }

    /// `rounds` states of `rules` drawn from `seed`: round r keeps the lines of `mixes[r % 3]`
    /// of three random words (the mixes set how many lines are drawn).
    fn random_states(
        rules: &Rules,
        seed: u64,
        rounds: usize,
        mixes: [fn(u64, u64, u64) -> u64; 3],
    ) -> impl Iterator<Item = u64> + '_ {
        let mut rng = SplitMix64(seed);
        (0..rounds).map(move |round| {
            let (a, b, c) = (rng.next_u64(), rng.next_u64(), rng.next_u64());
            rules.full & mixes[round % 3](a, b, c)
        })
    }

    /// Every move of an opening class is worth what the move kept is worth (in a chain of two,
    /// no more), by the retrograde's values of 3x4 positions drawn at random.
    #[test]
    fn every_move_of_an_opening_class_is_worth_no_more_than_the_one_kept() {
        let (board, space, rules, sol) = empty("3x4", true);
        let sol = sol.unwrap();
        let value = |s: u64| value(board, &space, &sol, s);
        // Classes met: [one box, two boxes, a longer chain, a loop].
        let mut met = [0usize; 4];
        // Half, five eighths or three quarters of the lines drawn.
        for s in random_states(&rules, 2, 240_000, [|a, _, _| a, |a, b, c| (a & b) | c, |a, b, _| a | b]) {
            // The classes stand only where nothing is capturable.
            if rules.capture_lines(s) != 0 {
                continue;
            }
            for i in (0..64).filter(|&i| (rules.full & !s) >> i & 1 == 1) {
                if rules.completes(s, i) > 0 || !rules.gives_box(s, i) {
                    continue;
                }
                let Opening::Class(st) = rules.opening_class(s, i) else { continue };
                let (class, keep) = (st.lines, st.keep);
                if keep == NO_LINE || keep as usize == i {
                    assert_eq!(-value(s | 1 << i), st.worth(value(s | class)), "state {s:#x}: {st:?} opened by {i}");
                }
                let worth = |j: usize| -value(s | 1 << j);
                let members = (0..64).filter(|&j| class >> j & 1 == 1);
                if keep == NO_LINE {
                    let two_sided = |b: u8| b != NO_BOX && (rules.box_sides[b as usize] & !s).count_ones() == 2;
                    let is_loop = members.clone().all(|j| rules.line_boxes[j].iter().all(|&b| two_sided(b)));
                    let kind = match class.count_ones() {
                        _ if is_loop => 3,
                        2 => 0,
                        _ => 2,
                    };
                    met[kind] += 1;
                    for j in members {
                        assert_eq!(
                            worth(j),
                            worth(i),
                            "state {s:#x} ({}): line {j} against {i} of class {class:#x}",
                            space.position_of(State(s)).to_line_string()
                        );
                    }
                } else {
                    met[1] += 1;
                    for j in members {
                        assert!(worth(j) <= worth(keep as usize), "state {s:#x}: line {j} against the middle {keep}");
                    }
                }
            }
        }
        assert!(met.iter().all(|&n| n >= 20), "every kind of class met: {met:?}");
    }

    /// Where the chain rules leave a capture and its decline ([`Choice`]), the capture is worth
    /// boxes + v(Q) and the decline its negation, Q the position with the choice's lines drawn,
    /// so the position is worth |boxes + v(Q)| (what `Searcher::choice` searches): against the
    /// retrograde on random 3x4 positions, half-open and closed chains both met.
    #[test]
    fn a_capture_with_a_choice_is_worth_its_two_moves_through_one_position() {
        let (board, space, rules, sol) = empty("3x4", true);
        let sol = sol.unwrap();
        let value = |s: u64| value(board, &space, &sol, s);
        // Met: [half open, closed].
        let mut met = [0usize; 2];
        for s in random_states(&rules, 7, 200_000, [|a, b, _| a | b, |a, b, c| (a & b) | c, |a, b, c| a | b | c]) {
            let lines = rules.capture_lines(s);
            let Capture::Either(Some(ch)) = rules.forced_capture(s, lines) else { continue };
            let q = value(s | ch.lines);
            let (take, decline) = (1u64 << ch.take, 1u64 << ch.decline);
            assert_eq!(rules.completes(s, ch.take as usize), 1, "state {s:#x}: the capture completes one box");
            assert_eq!(rules.completes(s, ch.decline as usize), 0, "state {s:#x}: the decline completes none");
            assert_eq!(1 + value(s | take), ch.boxes + q, "state {s:#x}: the capture of {ch:?}");
            assert_eq!(-value(s | decline), -(ch.boxes + q), "state {s:#x}: the decline of {ch:?}");
            assert_eq!(value(s), (ch.boxes + q).abs(), "state {s:#x}: {ch:?}");
            met[(ch.boxes == 4) as usize] += 1;
        }
        assert!(met.iter().all(|&n| n >= 20), "both kinds of choice met: {met:?}");
    }
}
