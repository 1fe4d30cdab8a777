//! The state space of one solve: the undrawn lines of a root position, their internal
//! numbering, the grouping into partitions, and every table the kernel reads (ranks,
//! symmetry images, canonical forms), all built once here and never in the hot loop.
//!
//! Internal numbering: the k undrawn lines get bits 0..k, group by group (group 0 lowest), so a
//! group's configuration is a contiguous bit field. A [`State`] has bit i set when internal
//! line i is drawn. Two reductions shrink what is stored:
//! - interchangeable lines: undrawn lines that border exactly the same boxes (the border lines
//!   of one box, e.g. a corner pair) form a *class*; only states whose drawn lines are a prefix
//!   of each class are stored (*normalised*), and only the class's next line is a move;
//! - symmetry (Wilson's way): groups are unions of orbits of the symmetries that fix the root,
//!   and a state is stored only when its group-0 configuration is the least of its orbit.
//!
//! A partition (a [`PartitionKey`]) holds its states row-major over the groups' ranks, group 0
//! most significant; the last group (the *inner* group) is contiguous, which the kernel uses.

use crate::game::{Board, Line, LineSet, Penalty, PenaltyError, Position};
use crate::support::Setting;

use super::key::{MAX_GROUPS, PartitionKey};

/// Most lines in one group: group tables have 2^size entries.
pub(super) const MAX_GROUP_LINES: usize = 20;

/// Most undrawn lines a root may have: a [`State`] is one `u64`, whatever the board's size.
pub const MAX_FREE_LINES: usize = 64;

/// Rank of a configuration that is not stored.
const NOT_STORED: u32 = u32::MAX;

/// Why a space could not be built with the number of groups asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpaceError {
    /// Zero groups were asked for a root with undrawn lines.
    #[error("the group count must be at least 1")]
    ZeroGroups,
    /// More groups were asked for than there are blocks (orbits and classes) to put in them.
    #[error(
        "{asked} groups are too many: this position's {lines} undrawn lines form only {blocks} blocks (orbits of symmetric or interchangeable lines) that can be split into groups"
    )]
    TooManyGroups {
        /// Groups asked for.
        asked: usize,
        /// Blocks the root's undrawn lines form: the most groups possible.
        blocks: usize,
        /// Undrawn lines of the root.
        lines: usize,
    },
    /// More than 16 groups were asked for.
    #[error("{asked} groups are too many: at most {MAX_GROUPS}")]
    AboveMax {
        /// Groups asked for.
        asked: usize,
    },
    /// Some group would have more than 20 lines, too many for its 2^size tables.
    #[error(
        "{asked} groups put {size} lines in one group; at most {MAX_GROUP_LINES} are allowed, so use at least {suggest} groups"
    )]
    GroupTooLarge {
        /// Groups asked for (or chosen).
        asked: usize,
        /// Lines in the largest group.
        size: usize,
        /// Fewest groups, from `asked` up, whose largest has at most 20 lines (else the number of blocks).
        suggest: usize,
    },
    /// The root has more undrawn lines than a state holds.
    #[error(
        "the position has {lines} undrawn lines; the retrograde solver handles at most {MAX_FREE_LINES} (a state is one 64-bit word)"
    )]
    TooManyLines {
        /// Undrawn lines of the root.
        lines: usize,
    },
    /// The root has no undrawn line: nothing to group, plan or run (its value is 0).
    #[error("the position is full: no lines left to draw, its value is 0")]
    Full,
    /// The last-move penalty does not fit the values of the root's positions.
    #[error("{0}")]
    Penalty(#[from] PenaltyError),
}

impl SpaceError {
    /// The setting that made the space impossible, if one did (the board's own size is not).
    pub fn setting(&self) -> Option<Setting> {
        match self {
            SpaceError::ZeroGroups
            | SpaceError::TooManyGroups { .. }
            | SpaceError::AboveMax { .. }
            | SpaceError::GroupTooLarge { .. } => Some(Setting::Groups),
            SpaceError::TooManyLines { .. } | SpaceError::Full => None,
            SpaceError::Penalty(_) => Some(Setting::Penalty),
        }
    }
}

/// One group of lines with its tables. Local bit j is internal line `offset + j`.
#[derive(Debug, Clone)]
pub struct Group {
    /// Internal line of the group's local bit 0.
    pub offset: u32,
    /// Lines in the group.
    pub size: u32,
    /// Stored configurations are the orbit-least ones (group 0 when the root has symmetries).
    pub canonical: bool,
    /// `configs[c][rank]`: the stored configurations with c lines drawn, increasing.
    pub configs: Vec<Vec<u32>>,
    /// `rank[bits]`: index of a stored configuration in `configs[popcount]`.
    pub rank: Vec<u32>,
    /// `sym[s][bits]`: the normalised image of a normalised configuration under symmetry s+1.
    pub sym: Vec<Vec<u32>>,
    /// `canon[bits]` (canonical group only): 0 if stored, else s+1 for a symmetry s+1 that
    /// maps the normalised configuration onto a stored one.
    pub canon: Vec<u8>,
    /// The local bits of each class of two lines or more (a run of consecutive lines): what
    /// [`Space::canonical`] normalises, by a popcount a class; empty where the group has none.
    pub classes: Vec<u32>,
}

impl Group {
    /// Stored configurations with `c` lines drawn.
    pub fn count(&self, c: usize) -> usize {
        self.configs[c].len()
    }

    fn mask(&self) -> u64 {
        ((1u64 << self.size) - 1) << self.offset
    }

    fn field(&self, state: u64) -> u32 {
        ((state >> self.offset) & ((1u64 << self.size) - 1)) as u32
    }
}

/// A position of a space in the internal numbering: bit i set = internal line i (the root's
/// undrawn line `Space::lines[i]`) drawn. The root itself is `State(0)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct State(pub u64);

/// Per internal line: for each box it borders, the other undrawn sides of that box.
#[derive(Debug, Clone, Copy, Default)]
pub struct LineBoxes {
    /// Boxes the line borders: 1 on the border, else 2.
    pub count: u8,
    /// For each, its other undrawn sides as a mask of lines (the box is completed by the line
    /// when they are all drawn).
    pub others: [u64; 2],
}

/// The state space of a root position, grouped into partitions.
#[derive(Debug, Clone)]
pub struct Space {
    /// The position the space starts from: `State(0)`.
    pub root: Position,
    /// `lines[i]`: the external line of internal line i.
    pub lines: Vec<Line>,
    /// The groups, in internal line order; a partition key has one count per group.
    pub groups: Vec<Group>,
    /// Symmetries that fix the root, identity excluded, as internal permutations.
    pub syms: Vec<Vec<u8>>,
    /// Per internal line, the boxes it borders, for counting the boxes a move completes.
    pub boxes: Vec<LineBoxes>,
    /// `class_prev[i]`: the bit of the line before i in its class (0 if i is first). Line i is a
    /// move in state s iff it is undrawn and `s & class_prev[i] == class_prev[i]`.
    pub class_prev: Vec<u64>,
    /// Group of each internal line.
    pub line_group: Vec<u8>,
    /// The last-move penalty the values are under: the full board is worth minus it. Part of
    /// the space so that every kernel built from it, and every store folder opened for it,
    /// takes it with the positions.
    pub penalty: Penalty,
}

/// For each of `free`'s lines (at most 64), the masks (over indexes into `free`) of the other undrawn sides
/// of each box it borders. Sides drawn in `pos` are always present and need no bit.
pub fn free_box_masks(pos: Position, free: &[Line]) -> Vec<LineBoxes> {
    let board = pos.board;
    let mut index = vec![u8::MAX; board.lines()];
    for (i, l) in free.iter().enumerate() {
        index[l.0 as usize] = i as u8;
    }
    free.iter()
        .map(|&l| {
            let mut lb = LineBoxes::default();
            for b in board.line_boxes(l) {
                let mask = board
                    .box_sides(b)
                    .iter()
                    .filter(|&&s| s != l && !pos.drawn.contains(s))
                    .fold(0u64, |m, s| m | 1 << index[s.0 as usize]);
                lb.others[lb.count as usize] = mask;
                lb.count += 1;
            }
            lb
        })
        .collect()
}

/// Classes of interchangeable undrawn lines: lines bordering the same single box.
pub(super) fn class_of(board: Board, line: Line) -> Option<usize> {
    let b = board.line_boxes(line);
    (b.len() == 1).then(|| b[0])
}

struct UnionFind(Vec<usize>);

impl UnionFind {
    fn find(&mut self, i: usize) -> usize {
        let p = self.0[i];
        if p == i {
            return i;
        }
        let r = self.find(p);
        self.0[i] = r;
        r
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0[ra.max(rb)] = ra.min(rb);
        }
    }
}

/// Heap bytes of a table of tables, by length: a table and its clone (which drops the spare
/// capacity) count the same, so that a plan's memory and its run's agree to the byte.
pub(crate) fn nested_bytes<T>(v: &[Vec<T>]) -> u64 {
    (std::mem::size_of_val(v) + v.iter().map(|x| x.len() * std::mem::size_of::<T>()).sum::<usize>()) as u64
}

impl Space {
    /// Bytes of the space's tables (configurations, ranks, symmetry maps, canonical flags), by
    /// length (see [`nested_bytes`]): what a run holds for the space besides the values.
    pub fn table_bytes(&self) -> u64 {
        let groups: u64 = self
            .groups
            .iter()
            .map(|g| {
                nested_bytes(&g.configs)
                    + nested_bytes(&g.sym)
                    + (g.rank.len() * 4 + g.canon.len() + g.classes.len() * 4) as u64
            })
            .sum();
        groups
            + nested_bytes(&self.syms)
            + (self.lines.len() * std::mem::size_of::<Line>()
                + self.boxes.len() * std::mem::size_of::<LineBoxes>()
                + self.class_prev.len() * 8
                + self.line_group.len()) as u64
    }

    /// Blocks of the root's undrawn lines (external lines), each a union of symmetry orbits
    /// and interchangeable classes: the units that groups are made of. Largest first.
    fn blocks(root: Position, syms: &[crate::game::Symmetry]) -> Vec<Vec<Line>> {
        let free: Vec<Line> = root.undrawn().iter().collect();
        let mut uf = UnionFind((0..root.board.lines()).collect());
        for &l in &free {
            for s in syms {
                uf.union(l.0 as usize, s.perm[l.0 as usize].0 as usize);
            }
            for &m in &free {
                if class_of(root.board, l).is_some() && class_of(root.board, l) == class_of(root.board, m) {
                    uf.union(l.0 as usize, m.0 as usize);
                }
            }
        }
        let mut blocks: Vec<Vec<Line>> = Vec::new();
        for &l in &free {
            let r = uf.find(l.0 as usize);
            match blocks.iter_mut().find(|b| uf.0[b[0].0 as usize] == r) {
                Some(b) => b.push(l),
                None => blocks.push(vec![l]),
            }
        }
        blocks.sort_by_key(|b| (std::cmp::Reverse(b.len()), b[0]));
        blocks
    }

    pub(super) fn stabilizer(root: Position) -> Vec<crate::game::Symmetry> {
        root.board.symmetries().into_iter().skip(1).filter(|s| s.apply(root.drawn) == root.drawn).collect()
    }

    /// Splits blocks into `g` groups, largest block first into the lightest group.
    fn pack(blocks: &[Vec<Line>], g: usize) -> Vec<Vec<Line>> {
        let mut bins: Vec<Vec<Line>> = vec![Vec::new(); g];
        for b in blocks {
            let lightest = (0..g).min_by_key(|&i| (bins[i].len(), i)).unwrap();
            bins[lightest].extend(b);
        }
        bins
    }

    /// The default number of groups for a root position.
    pub fn default_groups(root: Position) -> usize {
        Self::groups_for(root.undrawn().len() as usize, &Self::blocks(root, &Self::stabilizer(root)))
    }

    /// At most sixteen lines a group and at least two groups, fewer where there are few blocks,
    /// more where a group would pass the size limit. Wide inner groups pay since the row path
    /// (and its byte gathers most): on 2 threads, with the kernel's AVX2 and VBMI paths alike,
    /// two groups solved every board of 17 to 32 lines fastest, 2x5 in 0.03-0.09 s against
    /// 0.16-0.26 s in three and 3x4 in 0.43-0.77 s against 0.98-1.55 s, as the planner picks;
    /// one group leaves a level a single job (2x3: 0.03 s against 0.002 s).
    fn groups_for(k: usize, blocks: &[Vec<Line>]) -> usize {
        let most = blocks.len().min(MAX_GROUPS);
        Self::fitting(k.div_ceil(16).clamp(2.min(most), most), k, blocks)
    }

    /// The space of `root` in about ten lines a group (the default before 2026-11-27), or one
    /// group where it fits: the search's layout of a state's bits, with which its move order
    /// breaks ties. The default's fewer groups reorder the lines and sent a 5x5 position of 44
    /// undrawn lines from 46.9 M positions to 80.3 M (one thread).
    pub fn for_search(root: Position) -> Result<Space, SpaceError> {
        Space::new(root, Some(1)).or_else(|_| {
            let k = root.undrawn().len() as usize;
            let blocks = Self::blocks(root, &Self::stabilizer(root));
            let most = blocks.len().min(MAX_GROUPS);
            Space::new(root, Some(Self::fitting(((k + 5) / 10).clamp(1, most), k, &blocks)))
        })
    }

    /// `g` groups, or more where a group of `g` would pass the size limit (0 for no lines).
    fn fitting(mut g: usize, k: usize, blocks: &[Vec<Line>]) -> usize {
        if k == 0 {
            return 0;
        }
        let most = blocks.len().min(MAX_GROUPS);
        while g < most && Self::pack(blocks, g).iter().any(|b| b.len() > MAX_GROUP_LINES) {
            g += 1;
        }
        g
    }

    /// How many configurations each count of the inner (last) group of `root` in `groups`
    /// groups has, from its lines' classes alone (a class of m lines is one configuration for
    /// each of 0..=m drawn, a line of no class two), without the tables [`Space::new`] builds:
    /// for the planner to leave out a grouping before paying for it (the 4x4's two groups took
    /// a second to build). None where the grouping would be refused, or where the inner group is
    /// also the first of a root with symmetries, whose images only its tables can count.
    pub fn inner_config_counts(root: Position, groups: usize) -> Option<Vec<u64>> {
        let (stab, bins) = Self::checked_bins(root, Some(groups)).ok()?;
        if groups == 1 && !stab.is_empty() {
            return None;
        }
        let mut class_sizes = std::collections::BTreeMap::new();
        let mut counts = vec![1u64];
        for &l in bins.last()? {
            match class_of(root.board, l) {
                Some(c) => *class_sizes.entry(c).or_insert(0usize) += 1,
                None => times_class(&mut counts, 1),
            }
        }
        for &m in class_sizes.values() {
            times_class(&mut counts, m);
        }
        Some(counts)
    }

    /// The symmetries keeping `root` and its undrawn lines packed into `groups` groups (None:
    /// the default), or why that grouping is refused.
    fn checked_bins(
        root: Position,
        groups: Option<usize>,
    ) -> Result<(Vec<crate::game::Symmetry>, Vec<Vec<Line>>), SpaceError> {
        let k = root.undrawn().len() as usize;
        if k > MAX_FREE_LINES {
            return Err(SpaceError::TooManyLines { lines: k });
        }
        let stab = Self::stabilizer(root);
        let blocks = Self::blocks(root, &stab);
        let g = match groups {
            None => Self::groups_for(k, &blocks),
            Some(0) if k > 0 => return Err(SpaceError::ZeroGroups),
            Some(g) if g > MAX_GROUPS => return Err(SpaceError::AboveMax { asked: g }),
            Some(g) if g > blocks.len() && k > 0 => {
                return Err(SpaceError::TooManyGroups { asked: g, blocks: blocks.len(), lines: k });
            }
            Some(g) => g.min(k),
        };
        let bins = Self::pack(&blocks, g);
        if let Some(big) = bins.iter().map(|b| b.len()).max().filter(|&s| s > MAX_GROUP_LINES) {
            let suggest =
                (g..=blocks.len()).find(|&h| Self::pack(&blocks, h).iter().all(|b| b.len() <= MAX_GROUP_LINES));
            return Err(SpaceError::GroupTooLarge { asked: g, size: big, suggest: suggest.unwrap_or(blocks.len()) });
        }
        Ok((stab, bins))
    }

    /// Builds the space of `root` with `groups` groups (None: the default).
    pub fn new(root: Position, groups: Option<usize>) -> Result<Space, SpaceError> {
        let (stab, bins) = Self::checked_bins(root, groups)?;
        let k = root.undrawn().len() as usize;
        // Within a group, a class's lines are consecutive: their order is the prefix order.
        let mut lines = Vec::with_capacity(k);
        let mut line_group = Vec::with_capacity(k);
        let mut spans = Vec::new();
        for (gi, bin) in bins.iter().enumerate() {
            let start = lines.len();
            let mut sorted = bin.clone();
            sorted.sort_by_key(|&l| (class_of(root.board, l).unwrap_or(usize::MAX), l));
            lines.extend(sorted);
            line_group.extend(std::iter::repeat_n(gi as u8, bin.len()));
            spans.push((start, bin.len()));
        }
        let mut internal = vec![u8::MAX; root.board.lines()];
        for (i, l) in lines.iter().enumerate() {
            internal[l.0 as usize] = i as u8;
        }
        let syms: Vec<Vec<u8>> =
            stab.iter().map(|s| lines.iter().map(|l| internal[s.perm[l.0 as usize].0 as usize]).collect()).collect();
        let class_prev: Vec<u64> = (0..k)
            .map(|i| {
                let c = class_of(root.board, lines[i]);
                if i > 0 && c.is_some() && class_of(root.board, lines[i - 1]) == c && line_group[i - 1] == line_group[i]
                {
                    1u64 << (i - 1)
                } else {
                    0
                }
            })
            .collect();
        let boxes = free_box_masks(root, &lines);
        let groups = spans
            .iter()
            .enumerate()
            .map(|(gi, &(off, size))| {
                build_group(off as u32, size as u32, gi == 0 && !syms.is_empty(), &syms, &class_prev)
            })
            .collect();
        Ok(Space { root, lines, groups, syms, boxes, class_prev, line_group, penalty: Penalty::NONE })
    }

    /// The space with its values under the last-move `penalty`, refused where the root's boxes
    /// still to take plus the penalty could pass the largest value.
    pub fn with_penalty(mut self, penalty: Penalty) -> Result<Space, SpaceError> {
        self.penalty = penalty.check(self.root)?;
        Ok(self)
    }

    /// The root's board.
    pub fn board(&self) -> Board {
        self.root.board
    }

    /// Number of undrawn lines of the root.
    pub fn free(&self) -> usize {
        self.lines.len()
    }

    /// [`SpaceError::Full`] when the root has no undrawn line: such a space has no groups, so
    /// no partition, kernel, graph or plan can be made of it (its value, 0, needs none).
    pub fn require_lines(&self) -> Result<(), SpaceError> {
        if self.free() == 0 { Err(SpaceError::Full) } else { Ok(()) }
    }

    /// Every partition key, in the order a whole solve computes them: most lines first, then
    /// increasing counts (group 0's count never decreases within a level).
    pub fn keys(&self) -> Vec<PartitionKey> {
        let sizes: Vec<u8> = self.groups.iter().map(|g| g.size as u8).collect();
        let mut keys = Vec::new();
        let mut c = vec![0u8; sizes.len()];
        loop {
            keys.push(PartitionKey::new(&c));
            let mut i = c.len();
            loop {
                if i == 0 {
                    keys.sort_by_key(|k| (std::cmp::Reverse(k.total()), *k));
                    return keys;
                }
                i -= 1;
                if c[i] < sizes[i] {
                    c[i] += 1;
                    break;
                }
                c[i] = 0;
            }
        }
    }

    /// Dense index of a key among all keys (mixed radix over the group sizes).
    pub fn key_index(&self, key: &PartitionKey) -> usize {
        key.counts().iter().zip(&self.groups).fold(0, |acc, (&c, g)| acc * (g.size as usize + 1) + c as usize)
    }

    /// Number of partition keys, the range of [`Space::key_index`]: the product over groups of (lines + 1).
    pub fn key_count(&self) -> usize {
        self.groups.iter().map(|g| g.size as usize + 1).product()
    }

    /// Whether `key` names a partition of this space.
    pub fn has_key(&self, key: &PartitionKey) -> bool {
        key.groups() == self.groups.len() && key.counts().iter().zip(&self.groups).all(|(&c, g)| c as u32 <= g.size)
    }

    /// Stored positions of a partition.
    pub fn partition_len(&self, key: &PartitionKey) -> usize {
        key.counts().iter().zip(&self.groups).map(|(&c, g)| g.count(c as usize)).product()
    }

    /// Rows of a partition and the positions in a row (the last group's configurations: the
    /// kernel's inner group), as the kernel, the store and the planner lay them out.
    pub fn shape(&self, key: &PartitionKey) -> (usize, usize) {
        let row = self.groups.last().map_or(1, |g| g.count(key.counts()[key.groups() - 1] as usize)).max(1);
        (self.partition_len(key) / row, row)
    }

    /// The partitions `key` reads: one more line in one group.
    pub fn successors(&self, key: &PartitionKey) -> Vec<PartitionKey> {
        (0..key.groups()).filter(|&g| (key.counts()[g] as u32) < self.groups[g].size).map(|g| key.plus(g)).collect()
    }

    /// Group-0 ranks of the successors of group-0 configurations `configs` (ranks, with `c0`
    /// lines): one more line of group 0 drawn, made canonical. The rows a move in group 0
    /// reads, for the planner's fine piece dependencies and the plan check alike.
    pub fn group0_successor_ranks(
        &self,
        c0: usize,
        configs: std::ops::Range<usize>,
    ) -> std::collections::BTreeSet<usize> {
        let g0 = &self.groups[0];
        let mut ranks = std::collections::BTreeSet::new();
        for &x in &g0.configs[c0][configs] {
            for j in 0..g0.size as usize {
                let prev = (self.class_prev[g0.offset as usize + j] >> g0.offset) as u32;
                if x >> j & 1 == 1 || x & prev != prev {
                    continue;
                }
                let mut y = x | 1 << j;
                if g0.canonical && g0.canon[y as usize] > 0 {
                    y = g0.sym[g0.canon[y as usize] as usize - 1][y as usize];
                }
                ranks.insert(g0.rank[y as usize] as usize);
            }
        }
        ranks
    }

    /// Row-major strides of a partition's group ranks.
    pub(crate) fn strides(&self, key: &PartitionKey) -> [usize; MAX_GROUPS] {
        let mut s = [0usize; MAX_GROUPS];
        let mut acc = 1;
        for g in (0..key.groups()).rev() {
            s[g] = acc;
            acc *= self.groups[g].count(key.counts()[g] as usize);
        }
        s
    }

    /// Internal state of a position of this space (its drawn lines must include the root's).
    pub fn state_of(&self, drawn: LineSet) -> State {
        State(self.lines.iter().enumerate().filter(|(_, l)| drawn.contains(**l)).fold(0, |m, (i, _)| m | 1 << i))
    }

    /// The position of an internal state.
    pub fn position_of(&self, State(state): State) -> Position {
        let drawn =
            (0..self.lines.len()).filter(|i| state >> i & 1 == 1).fold(self.root.drawn, |d, i| d.with(self.lines[i]));
        Position { board: self.root.board, drawn }
    }

    /// The stored representative of any state: normalised classes, canonical group 0.
    pub fn canonical(&self, state: State) -> State {
        // A fixed array, not a Vec: the search's book probes call this per position.
        let mut fields = [0u32; MAX_GROUPS];
        for (f, g) in fields.iter_mut().zip(&self.groups) {
            *f = normalise_classes(g, g.field(state.0));
        }
        let fields = &mut fields[..self.groups.len()];
        if let Some(g0) = self.groups.first().filter(|g| g.canonical) {
            let s = g0.canon[fields[0] as usize];
            if s > 0 {
                for (f, g) in fields.iter_mut().zip(&self.groups) {
                    *f = g.sym[s as usize - 1][*f as usize];
                }
            }
        }
        State(fields.iter().zip(&self.groups).fold(0, |m, (&f, g)| m | (f as u64) << g.offset))
    }

    /// Partition and index of the stored representative of `state`.
    pub fn locate(&self, state: State) -> (PartitionKey, usize) {
        let State(canon) = self.canonical(state);
        let mut counts = [0u8; MAX_GROUPS];
        for (c, g) in counts.iter_mut().zip(&self.groups) {
            *c = g.field(canon).count_ones() as u8;
        }
        let key = PartitionKey::new(&counts[..self.groups.len()]);
        let strides = self.strides(&key);
        let index = self
            .groups
            .iter()
            .enumerate()
            .map(|(g, grp)| grp.rank[grp.field(canon) as usize] as usize * strides[g])
            .sum();
        (key, index)
    }

    /// The state stored at `index` of partition `key` (the inverse of [`Space::locate`] on
    /// stored states).
    pub fn state_at(&self, key: &PartitionKey, index: usize) -> State {
        let strides = self.strides(key);
        State(self.groups.iter().enumerate().fold(0, |m, (g, grp)| {
            let c = key.counts()[g] as usize;
            let rank = index / strides[g] % grp.count(c);
            m | (grp.configs[c][rank] as u64) << grp.offset
        }))
    }

    /// Whether internal line `i` is a move in `state` (undrawn, and first undrawn of its class).
    pub fn is_move(&self, State(s): State, i: usize) -> bool {
        s >> i & 1 == 0 && s & self.class_prev[i] == self.class_prev[i]
    }

    /// Boxes completed by drawing internal line `i` in `state`.
    pub fn completes(&self, State(s): State, i: usize) -> i8 {
        let lb = &self.boxes[i];
        lb.others[..lb.count as usize].iter().filter(|&&m| s & m == m).count() as i8
    }

    /// Mask of all lines of group `g`.
    pub(crate) fn group_mask(&self, g: usize) -> u64 {
        self.groups[g].mask()
    }
}

/// [`normalise`] by the group's class masks: a popcount and a mask a class of two lines or
/// more, nothing for the others (the fast path; [`normalise`], line by line, is its twin).
fn normalise_classes(g: &Group, bits: u32) -> u32 {
    let mut out = bits;
    for &run in &g.classes {
        let drawn = (bits & run).count_ones();
        // The class's lowest `drawn` lines: the run's lowest bit shifted up by each.
        let low = run & run.wrapping_neg();
        let first = low.wrapping_mul((1u32 << drawn).wrapping_sub(1)) & run;
        out = out & !run | first;
    }
    out
}

/// Normalises a group configuration: in each class, the drawn lines become the first ones.
fn normalise(g: &Group, bits: u32, class_prev: &[u64]) -> u32 {
    let mut out = 0u32;
    let mut j = 0;
    while j < g.size as usize {
        // A class is a run of lines each linked to the one before.
        let mut end = j + 1;
        while end < g.size as usize && class_prev[g.offset as usize + end] != 0 {
            end += 1;
        }
        let run = ((1u32 << (end - j)) - 1) << j;
        let drawn = (bits & run).count_ones();
        out |= ((1u32 << drawn) - 1) << j;
        j = end;
    }
    out
}

/// The local masks of the classes of two lines or more of the group of `size` lines from
/// internal line `offset` (each class a run of lines, each linked to the one before).
fn class_runs(size: u32, offset: u32, class_prev: &[u64]) -> Vec<u32> {
    let mut runs = Vec::new();
    let mut j = 0;
    while j < size as usize {
        let mut end = j + 1;
        while end < size as usize && class_prev[offset as usize + end] != 0 {
            end += 1;
        }
        if end - j >= 2 {
            runs.push(((1u32 << (end - j)) - 1) << j);
        }
        j = end;
    }
    runs
}

/// `counts` (a polynomial in the lines drawn) times 1 + x + ... + x^m: a class of `m` lines
/// added, any number of them drawn being one configuration.
fn times_class(counts: &mut Vec<u64>, m: usize) {
    let mut out = vec![0u64; counts.len() + m];
    for (i, &c) in counts.iter().enumerate() {
        for o in &mut out[i..=i + m] {
            *o += c;
        }
    }
    *counts = out;
}

fn build_group(offset: u32, size: u32, canonical: bool, syms: &[Vec<u8>], class_prev: &[u64]) -> Group {
    let n = 1usize << size;
    let mut g = Group {
        offset,
        size,
        canonical,
        configs: vec![Vec::new(); size as usize + 1],
        rank: vec![],
        sym: vec![],
        canon: vec![],
        classes: vec![],
    };
    g.classes = class_runs(size, offset, class_prev);
    let normal: Vec<bool> = (0..n as u32).map(|x| normalise(&g, x, class_prev) == x).collect();
    // Symmetry images, local to the group, via 8-bit chunk tables.
    g.sym = syms
        .iter()
        .map(|perm| {
            let chunks: Vec<[u32; 256]> = (0..size.div_ceil(8))
                .map(|ch| {
                    let mut t = [0u32; 256];
                    for (v, slot) in t.iter_mut().enumerate() {
                        for b in 0..8 {
                            let j = ch * 8 + b;
                            if j < size && v >> b & 1 == 1 {
                                *slot |= 1 << (perm[(offset + j) as usize] as u32 - offset);
                            }
                        }
                    }
                    t
                })
                .collect();
            (0..n as u32)
                .map(|x| {
                    if !normal[x as usize] {
                        return 0;
                    }
                    let img = chunks.iter().enumerate().fold(0, |m, (ch, t)| m | t[(x >> (8 * ch) & 0xff) as usize]);
                    normalise(&g, img, class_prev)
                })
                .collect()
        })
        .collect();
    if canonical {
        g.canon = (0..n)
            .map(|x| {
                if !normal[x] {
                    return 0;
                }
                let (mut best, mut arg) = (x as u32, 0u8);
                for (s, t) in g.sym.iter().enumerate() {
                    if t[x] < best {
                        best = t[x];
                        arg = s as u8 + 1;
                    }
                }
                arg
            })
            .collect();
    }
    g.rank = vec![NOT_STORED; n];
    for (x, &is_normal) in normal.iter().enumerate() {
        if is_normal && (!canonical || g.canon[x] == 0) {
            let c = (x as u32).count_ones() as usize;
            g.rank[x] = g.configs[c].len() as u32;
            g.configs[c].push(x as u32);
        }
    }
    g
}

/// C(n, k) for n, k <= 64, by a `const fn` table: the combinatorial number system's weights.
pub(crate) static BINOMIAL: [[u64; 65]; 65] = {
    let mut t = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1].wrapping_add(if k < n { t[n - 1][k] } else { 0 });
            k += 1;
        }
        n += 1;
    }
    t
};

/// Colex rank of a k-subset among all k-subsets (the combinatorial number system): the rank a
/// group with no symmetry and no interchangeable lines gives a configuration.
#[cfg(test)]
fn colex_rank(bits: u64) -> u64 {
    let mut r = 0;
    let mut b = bits;
    let mut i = 1;
    while b != 0 {
        r += BINOMIAL[b.trailing_zeros() as usize][i];
        b &= b - 1;
        i += 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space(board: &str, groups: Option<usize>) -> Space {
        Space::new(Position::empty(board.parse().unwrap()), groups).unwrap()
    }

    #[test]
    fn inner_counts_from_the_classes_are_those_the_tables_count() {
        let drawn = Position::from_line_string("2x3".parse().unwrap(), "10000000000000000").unwrap();
        let roots = ["1x1", "2x2", "2x3", "3x3", "2x5", "3x4", "4x4"]
            .map(|b| Position::empty(b.parse().unwrap()))
            .into_iter()
            .chain([drawn]);
        for root in roots {
            for g in 1..=4 {
                let Some(counts) = Space::inner_config_counts(root, g) else {
                    let refused = Space::new(root, Some(g)).is_err();
                    assert!(refused || (g == 1 && !Space::stabilizer(root).is_empty()), "{root:?} {g}");
                    continue;
                };
                let space = Space::new(root, Some(g)).unwrap();
                let tables: Vec<u64> = space.groups.last().unwrap().configs.iter().map(|c| c.len() as u64).collect();
                assert_eq!(counts, tables, "{} in {g} groups", root.board);
            }
        }
    }

    #[test]
    fn class_masks_normalise_as_the_line_by_line_twin_does() {
        // Corner pairs (3x3, 4x4), boxes with three border lines (1x4), and the 1x1 box's four:
        // every configuration of every group, in one to four groups.
        let mut classes = 0;
        for b in ["1x1", "1x4", "2x2", "3x3", "2x5", "4x4"] {
            for g in 1..=4 {
                let Ok(space) = Space::new(Position::empty(b.parse().unwrap()), Some(g)) else { continue };
                for group in &space.groups {
                    classes += group.classes.len();
                    for x in 0..1u32 << group.size {
                        assert_eq!(
                            normalise_classes(group, x),
                            normalise(group, x, &space.class_prev),
                            "{b} {g} {x:b}"
                        );
                    }
                }
            }
        }
        assert!(classes > 20, "{classes} classes: too few to test the twins on");
    }

    #[test]
    fn corner_pairs_share_a_group_and_counts_shrink() {
        let s = space("3x4", Some(3));
        assert_eq!(s.free(), 31);
        let total: usize = s.keys().iter().map(|k| s.partition_len(k)).sum();
        // 2^31 positions, 81/256 of them normalised, about a quarter kept by symmetry.
        assert!(total < (1usize << 31) * 81 / 256 / 3, "{total}");
        assert!(total > (1usize << 31) * 81 / 256 / 4, "{total}");
    }

    #[test]
    fn groups_are_unions_of_orbits() {
        for (b, g) in [("3x4", 3), ("4x4", 4), ("2x5", 2), ("1x7", 2), ("3x3", 2)] {
            let s = space(b, Some(g));
            for perm in &s.syms {
                for (i, &j) in perm.iter().enumerate() {
                    assert_eq!(s.line_group[i], s.line_group[j as usize], "{b}");
                }
            }
        }
    }

    #[test]
    fn keys_come_in_dependency_order() {
        let s = space("2x3", Some(2));
        let keys = s.keys();
        assert_eq!(keys.len(), s.key_count());
        for (i, k) in keys.iter().enumerate() {
            for succ in s.successors(k) {
                assert!(keys[..i].contains(&succ));
            }
        }
    }

    #[test]
    fn ranks_follow_the_combinatorial_number_system_without_reductions() {
        // A 2x2 position with no symmetry and no two free border lines on one box.
        let board: Board = "2x2".parse().unwrap();
        let drawn = [board.h(0, 0), board.h(0, 1), board.h(2, 0), board.h(2, 1), board.v(0, 0)];
        let root = Position { board, drawn: drawn.iter().fold(LineSet::EMPTY, |d, &l| d.with(l)) };
        let s = Space::new(root, Some(1)).unwrap();
        let g = &s.groups[0];
        for (c, configs) in g.configs.iter().enumerate() {
            assert_eq!(configs.len() as u64, BINOMIAL[g.size as usize][c]);
            for (r, &x) in configs.iter().enumerate() {
                assert_eq!(colex_rank(x as u64), r as u64);
            }
        }
    }

    #[test]
    fn bad_group_counts_are_refused() {
        let root = Position::empty("3x4".parse().unwrap());
        assert!(matches!(Space::new(root, Some(1)), Err(SpaceError::GroupTooLarge { size: 31, .. })));
        assert!(matches!(Space::new(root, Some(0)), Err(SpaceError::ZeroGroups)));
        assert!(matches!(Space::new(root, Some(15)), Err(SpaceError::TooManyGroups { .. })));
    }
}
