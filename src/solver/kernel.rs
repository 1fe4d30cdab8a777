//! The retrograde kernel: computes the values of one partition from the partitions it reads.
//!
//! A partition is a matrix: one *row* per combination of the outer groups' configurations, one
//! column per configuration of the inner (last) group. A move in an outer group leaves the
//! inner configuration alone, so it reads a whole row of the successor partition at once,
//! contiguous (or through a rank map when the successor must be turned by a symmetry); a move
//! in the inner group reads the same row of the successor through a precomputed move table.
//! Everything is prepared in [`Kernel::new`]; [`Kernel::compute`] allocates nothing per position.
//!
//! Two paths compute the same bytes ([`KernelPath`]). The *row* path (the default) treats every
//! move as a pass over the whole row: per line, a byte of box bits per inner configuration, and
//! for inner and symmetry-mapped moves a `u16` index per configuration into a copy of the
//! successor row, so the passes have a fixed trip count, no chain from one move to the next
//! and byte lanes the compiler vectorises. The *scalar* path, one position at a time through a
//! list of its inner moves, is its twin. Both walk a partition's rows with one row cursor,
//! which holds the row's outer configurations and where the row reads each successor. The row
//! path is compiled twice, for the build's own target and for AVX2, and runs at the widest
//! [`Width`] the CPU reports (one check when the kernel is built, one branch per call).

use crate::game::Value;

use super::dwords;
use super::gather::{self, ByteIndex, offer, relax_row};
use super::key::{MAX_GROUPS, PartitionKey};
use super::runs::LineRuns;
use super::simd::Simd;
use super::space::{MAX_GROUP_LINES, Space, State};

/// A mask bit no configuration has (groups have at most 20 lines): the box cannot complete.
const NEVER: u32 = 1 << 31;

/// An inner-group move. Low 24 bits: the successor's rank. High 8 bits: the *box key*
/// `4 * line + inner_ok`, where bit k of `inner_ok` says the other sides of the line's box k
/// that lie in the inner group are drawn. Whether the box completes then depends on the row
/// only, through its outer sides: see [`Kernel::compute`]'s per-row box table.
#[derive(Clone, Copy)]
struct InnerMove(u32);

impl InnerMove {
    fn rank(self) -> usize {
        (self.0 & 0x00ff_ffff) as usize
    }

    fn box_key(self) -> usize {
        (self.0 >> 24) as usize
    }
}

/// A successor partition as the kernel reads it: whole rows, `len` values from `base` (a
/// multiple of `len`). A partition in one piece is a plain slice; a partition computed in
/// pieces (row ranges) is [`Pieces`].
pub trait Rows: Sync {
    /// The `len` values from value index `base` of the partition.
    fn row(&self, base: usize, len: usize) -> &[Value];

    /// The `reach` values from `base` (a row and what follows it), where they lie in one slice:
    /// the byte gathers read whole 256-slot blocks, up to 255 values past a row's end, and
    /// read a row in place where it is followed by that much (not the last rows of a piece),
    /// rather than copying it. `None`: copy the row.
    fn row_within(&self, base: usize, reach: usize) -> Option<&[Value]> {
        let _ = (base, reach);
        None
    }
}

impl Rows for &[Value] {
    #[inline]
    fn row(&self, base: usize, len: usize) -> &[Value] {
        &self[base..base + len]
    }

    #[inline]
    fn row_within(&self, base: usize, reach: usize) -> Option<&[Value]> {
        self.get(base..base + reach)
    }
}

/// A partition held as consecutive pieces: piece i holds values `starts[i]..starts[i+1]`. A
/// piece the reader does not need may be empty; reading it is a bug and panics.
pub struct Pieces<'a> {
    starts: Vec<usize>,
    parts: Vec<&'a [Value]>,
}

impl<'a> Pieces<'a> {
    /// `parts[i]` starts at value `starts[i]`; `starts` is increasing, from 0.
    pub fn new(starts: Vec<usize>, parts: Vec<&'a [Value]>) -> Pieces<'a> {
        debug_assert_eq!(starts.len(), parts.len());
        Pieces { starts, parts }
    }
}

impl Pieces<'_> {
    /// The piece that holds value `base`, and where in it: pieces are whole rows, so a row lies
    /// in the last piece starting at or before it.
    #[inline]
    fn locate(&self, base: usize) -> (&[Value], usize) {
        let i = self.starts.partition_point(|&s| s <= base) - 1;
        (self.parts[i], base - self.starts[i])
    }
}

impl Rows for Pieces<'_> {
    #[inline]
    fn row(&self, base: usize, len: usize) -> &[Value] {
        let (piece, at) = self.locate(base);
        &piece[at..at + len]
    }

    #[inline]
    fn row_within(&self, base: usize, reach: usize) -> Option<&[Value]> {
        let (piece, at) = self.locate(base);
        piece.get(at..at + reach)
    }
}

/// Box keys: 4 per inner line.
const BOX_KEYS: usize = 4 * MAX_GROUP_LINES;

/// The row path's index of a slot that holds [`Value::MAX`]: a move that does not exist reads
/// it, completes no box, and so offers `-MAX`, which no real move's value is below.
const ABSENT: u16 = u16::MAX;

/// Slots of the row path's copy of a successor row: every `u16` index is in bounds.
const ROW_SLOTS: usize = gather::SLOTS;

/// The row path's copy of a successor row: [`ROW_SLOTS`] and the [`dwords::PAD`] after them.
pub(super) type Slots = [Value; ROW_SLOTS + dwords::PAD];

/// A thread's scratch for the row path. Kept from job to job: allocated and zeroed for each
/// job, its 128 KiB would cost a small job more than its positions (page faults wherever the
/// heap had shrunk since), a cost of the heap's history that no model of the job can predict.
pub(super) struct RowScratch {
    /// A copy of the successor row being gathered from, slot [`ABSENT`] holding [`Value::MAX`],
    /// and the slots past it that a 32-bit gather at the last index reads.
    slots: Slots,
    /// The row's best values while its inner lines are relaxed: as wide as every `u16`
    /// configuration index, so that a lane's writes need no bounds check.
    best: [Value; ROW_SLOTS],
}

thread_local! {
    static ROW_COPY: std::cell::RefCell<Box<RowScratch>> = std::cell::RefCell::new({
        let mut scratch = Box::new(RowScratch { slots: [0; ROW_SLOTS + dwords::PAD], best: [0; ROW_SLOTS] });
        scratch.slots[ABSENT as usize] = Value::MAX;
        scratch
    });
}

crate::support::choice! {
    "kernel path",
    /// How [`Kernel::compute`] walks a partition. Both give the same bytes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum KernelPath {
        /// Every move a pass over the whole row (byte lanes, gathers through u16 indices).
        Rows = "rows",
        /// Inner moves one position at a time through a move list (the row path's twin).
        Scalar = "scalar",
    }
}

// By hand: `choice!` takes no attributes on a variant, so `#[default]` cannot be derived.
#[allow(clippy::derivable_impls)]
impl Default for KernelPath {
    fn default() -> KernelPath {
        KernelPath::Rows
    }
}

/// The vector width the row path's loops are compiled for, picked when a kernel is built from
/// what the CPU reports: the portable build's SSE2 (16 byte lanes, and no byte max, which it
/// emulates) or AVX2 (32 byte lanes, with one). Both give the same bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// The build's own target (x86-64's SSE2; any other architecture's baseline).
    Portable,
    /// AVX2 (x86-64 only).
    Avx2,
}

impl Width {
    /// The widest this CPU runs.
    pub fn detect() -> Width {
        Width::available().last().copied().unwrap_or(Width::Portable)
    }

    /// Every width this process runs ([`Simd::current`]), narrowest first.
    pub fn available() -> Vec<Width> {
        let mut out = vec![Width::Portable];
        // AVX2 where the process's set has it (not where a narrower set was chosen).
        if Simd::current() >= Simd::Avx2 {
            out.push(Width::Avx2);
        }
        out
    }
}

/// Tables for the kernel over one space.
pub struct Kernel<'a> {
    space: &'a Space,
    /// The row path's vector width; only ever a width [`Width::available`] lists.
    width: Width,
    inner: usize,
    /// Per internal line and box: the other sides' bits outside the inner group.
    box_outer: Vec<[u64; 2]>,
    /// Per internal line and box: the other sides' bits inside the inner group (local), or
    /// [`NEVER`] where the line has no such box.
    box_inner: Vec<[u32; 2]>,
    /// The scalar path's tables (empty on the row path).
    scalar: ScalarTables,
    /// The row path's tables; `None` on the scalar path, or where an inner count has too many
    /// configurations for a `u16` index (inner groups of more than 16 lines).
    rows: Option<RowTables>,
}

/// The scalar path: a list of moves per inner configuration.
#[derive(Default)]
struct ScalarTables {
    /// `move_start[c][i]..move_start[c][i+1]`: moves of inner configuration i of count c.
    move_start: Vec<Vec<u32>>,
    moves: Vec<Vec<InnerMove>>,
    /// `inner_sym[s][c][rank]`: rank of the inner configuration's image under symmetry s+1.
    inner_sym: Vec<Vec<Vec<u32>>>,
}

/// The row path: per line, one entry per inner configuration of a count, line-major
/// (`table[c][line * count(c) + rank]`).
struct RowTables {
    /// Per outer internal line l (`0..inner offset`): bit k set = the sides of the line's box
    /// k that lie in the inner group are drawn in this configuration (never, where the line has
    /// no box k).
    outer_bits: Vec<Vec<u8>>,
    /// Per inner count c: the moves of each inner line from each configuration to its
    /// successor (count c + 1, made canonical) with the line drawn, as [`InnerTable`] says.
    inner: Vec<InnerTable>,
    /// Per inner line j: as `outer_bits`, the box bits of j's boxes; 0 where j is no move.
    inner_bits: Vec<Vec<u8>>,
    /// `sym[s][c][rank]`: rank of the inner configuration's image under symmetry s+1.
    sym: Vec<Vec<Vec<u16>>>,
    /// `sym` as byte gathers, built only where the CPU gathers bytes 64 lanes at a time.
    sym8: Vec<Vec<Option<ByteIndex>>>,
    /// Whether the tables are byte gathers ([`gather::vbmi`]), not runs (read only by the
    /// x86-64 kernels: elsewhere it is always false).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    vbmi: bool,
}

impl<'a> Kernel<'a> {
    /// Bytes of the kernel's own tables (box masks, move tables, symmetry rank maps), as
    /// allocated; one kernel serves every thread of a run.
    pub fn table_bytes(&self) -> u64 {
        use super::space::nested_bytes;
        let s = &self.scalar;
        let mut bytes = (self.box_outer.capacity() * 16 + self.box_inner.capacity() * 8) as u64
            + nested_bytes(&s.move_start)
            + nested_bytes(&s.moves)
            + s.inner_sym.iter().map(|t| nested_bytes(t)).sum::<u64>();
        if let Some(r) = &self.rows {
            bytes += nested_bytes(&r.outer_bits)
                + r.inner.iter().map(InnerTable::bytes).sum::<u64>()
                + nested_bytes(&r.inner_bits)
                + r.sym.iter().map(|t| nested_bytes(t)).sum::<u64>()
                + r.sym8.iter().flatten().flatten().map(ByteIndex::bytes).sum::<u64>();
        }
        bytes
    }

    /// The kernel of `space` on the row path.
    pub fn new(space: &'a Space) -> Kernel<'a> {
        Kernel::with_path(space, KernelPath::Rows)
    }

    /// The kernel of `space` on `path`: builds the box masks, and the move tables and symmetry
    /// rank maps of that path. The row path falls back to the scalar one where an inner count
    /// has more configurations than a `u16` index reaches.
    pub fn with_path(space: &'a Space, path: KernelPath) -> Kernel<'a> {
        let inner = space.groups.len().saturating_sub(1);
        let g = &space.groups[inner];
        let off = g.offset as usize;
        let inner_mask = space.group_mask(inner);
        let mut box_outer = Vec::with_capacity(space.free());
        let mut box_inner = Vec::with_capacity(space.free());
        for lb in &space.boxes {
            let mut o = [0u64; 2];
            let mut i = [NEVER; 2];
            for k in 0..lb.count as usize {
                o[k] = lb.others[k] & !inner_mask;
                i[k] = ((lb.others[k] & inner_mask) >> off) as u32;
            }
            box_outer.push(o);
            box_inner.push(i);
        }
        debug_assert!(g.size as usize <= MAX_GROUP_LINES);
        let rows = (path == KernelPath::Rows && rows_fit(space)).then(|| RowTables::new(space, inner, &box_inner));
        let scalar = if rows.is_some() { ScalarTables::default() } else { ScalarTables::new(space, inner, &box_inner) };
        Kernel { space, width: Width::detect(), inner, box_outer, box_inner, scalar, rows }
    }

    /// This kernel with its row path at `width`, where the CPU runs it (else unchanged): for
    /// the twin test of every width and for benchmarks.
    pub fn with_width(mut self, width: Width) -> Kernel<'a> {
        if Width::available().contains(&width) {
            self.width = width;
        }
        self
    }

    /// The row path's vector width.
    pub fn width(&self) -> Width {
        self.width
    }

    /// The path [`Kernel::compute`] takes.
    pub fn path(&self) -> KernelPath {
        if self.rows.is_some() { KernelPath::Rows } else { KernelPath::Scalar }
    }

    /// Number of rows of a partition, and the row length (inner configurations).
    pub fn shape(&self, key: &PartitionKey) -> (usize, usize) {
        self.space.shape(key)
    }

    /// Computes rows `first_row..` of partition `key` into `out` (a whole number of rows).
    /// `succ[g]` holds the partition `key.plus(g)` (empty where the group is full).
    pub fn compute<R: Rows>(&self, key: &PartitionKey, succ: &[R], out: &mut [Value], first_row: usize) {
        let full = key.counts().iter().zip(&self.space.groups).all(|(&c, g)| c as u32 == g.size);
        if full {
            // The player to move on the full board drew the last line: under a penalty, it
            // loses that many boxes.
            out.fill(self.space.penalty.full_board_value());
            return;
        }
        match &self.rows {
            Some(t) => ROW_COPY.with_borrow_mut(|scratch| match self.width {
                #[cfg(target_arch = "x86_64")]
                Width::Avx2 if t.vbmi => {
                    // SAFETY: `width` is Avx2 only where `Width::available` found AVX2 on this
                    // CPU (`with_path`, `with_width`).
                    unsafe { self.compute_rows_avx2::<R, false>(t, key, succ, out, first_row, scratch) }
                }
                #[cfg(target_arch = "x86_64")]
                Width::Avx2 => {
                    // SAFETY: as above.
                    unsafe { self.compute_rows_avx2::<R, true>(t, key, succ, out, first_row, scratch) }
                }
                _ => self.compute_rows::<R, false>(t, key, succ, out, first_row, scratch),
            }),
            None => self.compute_scalar(key, succ, out, first_row),
        }
    }

    /// [`Kernel::compute_rows`] compiled for AVX2: the row loops, all inlined into it, get 32
    /// byte lanes and a byte max. `GATHER8`: the runs' lanes and turned rows by AVX2 gathers
    /// (tables without byte gathers); the copy for byte gathers is compiled without them, so
    /// that its machine code does not change with theirs.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn compute_rows_avx2<R: Rows, const GATHER8: bool>(
        &self,
        t: &RowTables,
        key: &PartitionKey,
        succ: &[R],
        out: &mut [Value],
        first_row: usize,
        scratch: &mut RowScratch,
    ) {
        self.compute_rows::<R, GATHER8>(t, key, succ, out, first_row, scratch)
    }

    /// The row path: every move a pass over the row, outer moves reading a successor row
    /// (directly, or gathered through a symmetry rank map) and each inner line gathering from
    /// the same row of the inner successor.
    /// `scratch` is this thread's ([`ROW_COPY`]). Inlined whole into
    /// each width's caller, so that every loop below is compiled for that width.
    #[inline(always)]
    fn compute_rows<R: Rows, const GATHER8: bool>(
        &self,
        t: &RowTables,
        key: &PartitionKey,
        succ: &[R],
        out: &mut [Value],
        first_row: usize,
        scratch: &mut RowScratch,
    ) {
        let (_, row_len) = self.shape(key);
        let mut at = RowCursor::new(self.space, key, first_row, row_len);
        for best in out.chunks_exact_mut(row_len) {
            best.fill(Value::MIN);
            self.outer_rows(t, &at, succ, best, &mut scratch.slots, GATHER8);
            if at.inner_succ_len > 0 {
                self.inner_rows(t, &at, succ, best, scratch, GATHER8);
            }
            at.advance();
        }
    }

    /// The row path's outer moves of the cursor's row into `best`.
    #[inline(always)]
    fn outer_rows<R: Rows>(
        &self,
        t: &RowTables,
        at: &RowCursor,
        succ: &[R],
        best: &mut [Value],
        slots: &mut Slots,
        gather8: bool,
    ) {
        let (ci, row_len) = (at.inner_count, best.len());
        let outer_bits = &t.outer_bits[ci];
        for l in 0..at.inner_offset {
            if !at.is_move(l) {
                continue;
            }
            let mv = at.outer_move(l);
            let gate = gate(&self.box_outer[l], &self.box_inner[l], at.outer_state);
            let bits = &outer_bits[l * row_len..(l + 1) * row_len];
            let from = &succ[mv.group];
            if mv.turn == 0 {
                relax_row(best, from.row(mv.base, row_len), bits, gate);
                continue;
            }
            let s = mv.turn - 1;
            match &t.sym8[s][ci] {
                Some(index) => {
                    index.relax(0, best, in_place_or_copied(from, mv.base, row_len, index.reach(), slots), bits, gate)
                }
                None => {
                    slots[..row_len].copy_from_slice(from.row(mv.base, row_len));
                    relax_gathered(best, slots, &t.sym[s][ci], bits, gate, gather8)
                }
            }
        }
    }

    /// The row path's inner moves of the cursor's row into `best`: a pass per inner line over
    /// the inner successor's row (in place, or a copy).
    #[inline(always)]
    fn inner_rows<R: Rows>(
        &self,
        t: &RowTables,
        at: &RowCursor,
        succ: &[R],
        best: &mut [Value],
        scratch: &mut RowScratch,
        gather8: bool,
    ) {
        let (ci, row_len, ioff, len) = (at.inner_count, best.len(), at.inner_offset, at.inner_succ_len);
        let inner_bits = &t.inner_bits[ci];
        let RowScratch { slots, best: wide } = scratch;
        let lines = 0..self.space.groups[self.inner].size as usize;
        let gate = |j: usize| gate(&self.box_outer[ioff + j], &self.box_inner[ioff + j], at.outer_state);
        match &t.inner[ci] {
            InnerTable::Bytes(index) => {
                let from = in_place_or_copied(&succ[self.inner], at.inner_base(), len, index.reach(), slots);
                for j in lines {
                    index.relax(j, best, from, &inner_bits[j * row_len..(j + 1) * row_len], gate(j));
                }
            }
            InnerTable::Runs(runs) => {
                // Runs and lanes relax the row in the scratch, where a lane's index needs no check.
                slots[..len].copy_from_slice(succ[self.inner].row(at.inner_base(), len));
                wide[..row_len].copy_from_slice(best);
                for j in lines {
                    let bits = &inner_bits[j * row_len..(j + 1) * row_len];
                    runs.relax(j, wide, row_len, slots, bits, gate(j), gather8);
                }
                best.copy_from_slice(&wide[..row_len]);
            }
        }
    }

    /// The scalar path: outer moves a row at a time, inner moves one position at a time.
    fn compute_scalar<R: Rows>(&self, key: &PartitionKey, succ: &[R], out: &mut [Value], first_row: usize) {
        let (_, row_len) = self.shape(key);
        let mut at = RowCursor::new(self.space, key, first_row, row_len);
        // Boxes completed by an inner move, by box key, for the current row.
        let mut boxes_by_key = [0i8; BOX_KEYS];
        for best in out.chunks_exact_mut(row_len) {
            best.fill(Value::MIN);
            self.outer_scalar(&at, succ, best);
            if at.inner_succ_len > 0 {
                self.inner_scalar(&at, succ, best, &mut boxes_by_key);
            }
            at.advance();
        }
    }

    /// The scalar path's outer moves of the cursor's row into `best`: whole rows.
    #[inline]
    fn outer_scalar<R: Rows>(&self, at: &RowCursor, succ: &[R], best: &mut [Value]) {
        let (ci, row_len) = (at.inner_count, best.len());
        let inner_cfgs = &self.space.groups[self.inner].configs[ci];
        for l in 0..at.inner_offset {
            if !at.is_move(l) {
                continue;
            }
            let mv = at.outer_move(l);
            let (o, i) = (&self.box_outer[l], &self.box_inner[l]);
            let m0 = if at.outer_state & o[0] == o[0] { i[0] } else { NEVER };
            let m1 = if at.outer_state & o[1] == o[1] { i[1] } else { NEVER };
            let row = succ[mv.group].row(mv.base, row_len);
            match mv.turn {
                0 => apply_row(best, row, inner_cfgs, m0, m1),
                turn => apply_row_mapped(best, row, &self.scalar.inner_sym[turn - 1][ci], inner_cfgs, m0, m1),
            }
        }
    }

    /// The scalar path's inner moves of the cursor's row into `best`: the same row of the
    /// successor, through the move table, one position at a time.
    #[inline]
    fn inner_scalar<R: Rows>(&self, at: &RowCursor, succ: &[R], best: &mut [Value], boxes_by_key: &mut [i8; BOX_KEYS]) {
        let ci = at.inner_count;
        for j in 0..self.space.groups[self.inner].size as usize {
            let o = &self.box_outer[at.inner_offset + j];
            let ok0 = (at.outer_state & o[0] == o[0]) as i8;
            let ok1 = (at.outer_state & o[1] == o[1]) as i8;
            boxes_by_key[4 * j..4 * j + 4].copy_from_slice(&[0, ok0, ok1, ok0 + ok1]);
        }
        let srow = succ[self.inner].row(at.inner_base(), at.inner_succ_len);
        let (starts, imoves) = (&self.scalar.move_start[ci], &self.scalar.moves[ci]);
        for (i, b) in best.iter_mut().enumerate() {
            let mut v = *b;
            for &mv in &imoves[starts[i] as usize..starts[i + 1] as usize] {
                let n = boxes_by_key[mv.box_key()];
                let s = srow[mv.rank()];
                v = v.max(if n > 0 { s + n } else { -s });
            }
            *b = v;
        }
    }
}

/// Where a kernel call is in its partition: the row, its outer groups' configurations, and
/// where the rows it reads start in each successor. Both paths walk rows with it, from the
/// first row's ranks on like an odometer; it holds no heap memory.
struct RowCursor<'a> {
    space: &'a Space,
    /// The partition walked.
    key: PartitionKey,
    /// The inner group: its index, first line and lines drawn.
    inner: usize,
    inner_offset: usize,
    inner_count: usize,
    /// Values in a row of the inner successor (count + 1), 0 where the inner group is full.
    inner_succ_len: usize,
    /// Per group g, the strides of successor `key.plus(g)` (zeros where g is full).
    succ_strides: [[usize; MAX_GROUPS]; MAX_GROUPS],
    /// The row's rank in each outer group.
    ranks: [usize; MAX_GROUPS],
    /// The row's configuration of each outer group (the group's own bits).
    fields: [u32; MAX_GROUPS],
    /// The row's outer lines, as a state of the space.
    outer_state: u64,
    /// Per outer group g, the part of a successor row's base that the other groups' ranks give.
    others: [usize; MAX_GROUPS],
}

/// An outer move of a cursor's row: successor `group`'s row at value `base`, read as it is
/// (`turn` 0) or turned by symmetry `turn` (its tables at `turn - 1`, as `Group::canon`
/// numbers them).
struct OuterMove {
    group: usize,
    base: usize,
    turn: usize,
}

impl<'a> RowCursor<'a> {
    /// At row `first_row` of partition `key`, rows of `row_len` values.
    fn new(space: &'a Space, key: &PartitionKey, first_row: usize, row_len: usize) -> RowCursor<'a> {
        let (groups, counts) = (&space.groups, key.counts());
        let inner = groups.len().saturating_sub(1);
        let ig = &groups[inner];
        let inner_count = counts[inner] as usize;
        let mut succ_strides = [[0usize; MAX_GROUPS]; MAX_GROUPS];
        for (g, s) in succ_strides.iter_mut().enumerate().take(key.groups()) {
            if (counts[g] as u32) < groups[g].size {
                *s = space.strides(&key.plus(g));
            }
        }
        let strides = space.strides(key);
        let mut ranks = [0usize; MAX_GROUPS];
        for h in 0..inner {
            ranks[h] = first_row * row_len / strides[h] % groups[h].count(counts[h] as usize);
        }
        let mut at = RowCursor {
            space,
            key: *key,
            inner,
            inner_offset: ig.offset as usize,
            inner_count,
            inner_succ_len: if (inner_count as u32) < ig.size { ig.count(inner_count + 1) } else { 0 },
            succ_strides,
            ranks,
            fields: [0; MAX_GROUPS],
            outer_state: 0,
            others: [0; MAX_GROUPS],
        };
        at.load();
        at
    }

    /// The current row's configurations, outer state and successor offsets, from its ranks.
    #[inline(always)]
    fn load(&mut self) {
        let (groups, counts, inner) = (&self.space.groups, self.key.counts(), self.inner);
        self.outer_state = 0;
        for h in 0..inner {
            self.fields[h] = groups[h].configs[counts[h] as usize][self.ranks[h]];
            self.outer_state |= (self.fields[h] as u64) << groups[h].offset;
        }
        for g in 0..inner {
            let ss = &self.succ_strides[g];
            let mut base = 0;
            for h in (0..inner).filter(|&h| h != g) {
                base += self.ranks[h] * ss[h];
            }
            self.others[g] = base;
        }
    }

    /// On to the next row.
    #[inline(always)]
    fn advance(&mut self) {
        let (groups, counts) = (&self.space.groups, self.key.counts());
        for h in (0..self.inner).rev() {
            self.ranks[h] += 1;
            if self.ranks[h] < groups[h].count(counts[h] as usize) {
                break;
            }
            self.ranks[h] = 0;
        }
        self.load();
    }

    /// Whether outer line `l` is a move in the row: undrawn, and the first undrawn of its class.
    #[inline(always)]
    fn is_move(&self, l: usize) -> bool {
        self.space.is_move(State(self.outer_state), l)
    }

    /// Outer line `l`, a move of the row, as the successor row it reads.
    // Always inlined, as are the other per-row steps: both paths call them, and the compiler
    // would leave a function called from two places as a call on every outer line of every row.
    #[inline(always)]
    fn outer_move(&self, l: usize) -> OuterMove {
        let sp = self.space;
        let group = sp.line_group[l] as usize;
        let grp = &sp.groups[group];
        let moved = self.fields[group] | 1 << (l - grp.offset as usize);
        let ss = &self.succ_strides[group];
        let turn = if grp.canonical { grp.canon[moved as usize] as usize } else { 0 };
        if turn == 0 {
            let base = self.others[group] + grp.rank[moved as usize] as usize * ss[group];
            return OuterMove { group, base, turn };
        }
        // The successor is stored as its image under the symmetry: every outer group's
        // configuration mapped, the inner row turned through the rank map.
        let s = turn - 1;
        let base = (0..self.inner)
            .map(|h| {
                let f = if h == group { moved } else { self.fields[h] };
                let grp = &sp.groups[h];
                grp.rank[grp.sym[s][f as usize] as usize] as usize * ss[h]
            })
            .sum();
        OuterMove { group, base, turn }
    }

    /// Where the row's inner moves read the inner successor: the same outer ranks.
    fn inner_base(&self) -> usize {
        let ss = &self.succ_strides[self.inner];
        (0..self.inner).map(|h| self.ranks[h] * ss[h]).sum()
    }
}

impl ScalarTables {
    /// Each inner configuration's moves, with the successor's rank and box key, and the
    /// inner group's symmetry rank maps.
    fn new(space: &Space, inner: usize, box_inner: &[[u32; 2]]) -> ScalarTables {
        let g = &space.groups[inner];
        let (off, size) = (g.offset as usize, g.size as usize);
        let mut move_start = Vec::new();
        let mut moves = Vec::new();
        for c in 0..=size {
            let mut starts = vec![0u32];
            let mut list = Vec::new();
            for &x in &g.configs[c] {
                for j in 0..size {
                    let Some(y) = inner_successor(space, inner, x, j) else { continue };
                    let inner_ok = (0..2)
                        .filter(|&k| x & box_inner[off + j][k] == box_inner[off + j][k])
                        .fold(0, |b, k| b | 1 << k);
                    list.push(InnerMove(g.rank[y as usize] | (4 * j as u32 + inner_ok) << 24));
                }
                starts.push(list.len() as u32);
            }
            move_start.push(starts);
            moves.push(list);
        }
        let inner_sym = symmetry_maps(g, |r| r);
        ScalarTables { move_start, moves, inner_sym }
    }
}

impl RowTables {
    /// Per line and inner configuration: box bits, and for inner lines the successor's rank.
    fn new(space: &Space, inner: usize, box_inner: &[[u32; 2]]) -> RowTables {
        let g = &space.groups[inner];
        let (off, size) = (g.offset as usize, g.size as usize);
        let bits_of = |x: u32, l: usize| -> u8 {
            let m = &box_inner[l];
            (0..2).filter(|&k| m[k] != NEVER && x & m[k] == m[k]).fold(0, |b, k| b | 1 << k)
        };
        let outer_bits = g
            .configs
            .iter()
            .map(|cs| (0..off).flat_map(|l| cs.iter().map(move |&x| bits_of(x, l))).collect())
            .collect();
        let inner_bits: Vec<Vec<u8>> = g
            .configs
            .iter()
            .map(|cs| {
                let bit = |j: usize, x: u32| inner_successor(space, inner, x, j).map_or(0, |_| bits_of(x, off + j));
                (0..size).flat_map(|j| cs.iter().map(move |&x| bit(j, x))).collect()
            })
            .collect();
        let sym = symmetry_maps(g, |r| r as u16);
        // Byte tables only pay with the vector gather; without it the runs serve alone.
        let vbmi = gather::vbmi();
        let inner_tables =
            (0..g.configs.len()).map(|c| InnerTable::new(space, inner, c, &inner_bits[c], vbmi)).collect();
        let sym8 = sym
            .iter()
            .map(|per| per.iter().map(|t| vbmi.then(|| ByteIndex::new(t, t.len(), ABSENT, t.len()))).collect())
            .collect();
        RowTables { outer_bits, inner: inner_tables, inner_bits, sym, sym8, vbmi }
    }
}

/// Whether the row path can take `space`: every inner count's configurations reachable
/// through a `u16` index.
pub(crate) fn rows_fit(space: &Space) -> bool {
    space.groups.last().is_some_and(|g| counts_fit_rows(g.configs.iter().map(|cs| cs.len() as u64)))
}

/// [`rows_fit`] from the inner group's configurations of each count
/// ([`Space::inner_config_counts`]).
pub(crate) fn counts_fit_rows(mut counts: impl Iterator<Item = u64>) -> bool {
    counts.all(|n| n < ABSENT as u64)
}

/// How the row path makes the inner moves over the rows of one inner count: byte gathers
/// where the CPU has AVX-512 VBMI, runs otherwise. The one choice the kernel's tables and the
/// cost model's counts share.
enum InnerTable {
    /// One pass per inner line j: the successor's rank (count c + 1) of each configuration with
    /// j drawn, as byte-gather steps; no step holds a lane where j is no move (drawn, or not
    /// first of its class).
    Bytes(ByteIndex),
    /// Per inner line: runs of consecutive ranks and single lanes (no move: in neither).
    Runs(LineRuns),
}

impl InnerTable {
    fn new(space: &Space, inner: usize, c: usize, bits: &[u8], vbmi: bool) -> InnerTable {
        let g = &space.groups[inner];
        let ranks = inner_ranks(space, inner, c);
        if vbmi {
            InnerTable::Bytes(ByteIndex::new(&ranks, g.count(c), ABSENT, g.configs.get(c + 1).map_or(0, Vec::len)))
        } else {
            InnerTable::Runs(LineRuns::new(&ranks, bits, g.size as usize, g.count(c), ABSENT))
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            InnerTable::Bytes(t) => t.bytes(),
            InnerTable::Runs(r) => r.bytes(),
        }
    }

    /// The moves it makes over one row, as the cost model counts them ([`InnerMoves`]).
    fn moves(&self) -> InnerMoves {
        match self {
            InnerTable::Bytes(t) => InnerMoves { gathered: t.lanes(), ..InnerMoves::default() },
            InnerTable::Runs(r) => {
                InnerMoves { runs: r.run_moves() as u64, lanes: r.lane_count() as u64, ..InnerMoves::default() }
            }
        }
    }
}

/// Per inner line j (line-major), per configuration of inner count `c`: the successor's rank
/// (count c + 1) of the configuration with j drawn, made canonical, or [`ABSENT`] where j is no
/// move (drawn, or not first of its class).
fn inner_ranks(space: &Space, inner: usize, c: usize) -> Vec<u16> {
    let g = &space.groups[inner];
    let rank = |j: usize, x: u32| inner_successor(space, inner, x, j).map_or(ABSENT, |y| g.rank[y as usize] as u16);
    (0..g.size as usize).flat_map(|j| g.configs[c].iter().map(move |&x| rank(j, x))).collect()
}

/// How the default kernel makes the inner moves over one row of a partition whose inner group
/// has `c` lines drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct InnerMoves {
    /// Lanes gathered through byte indices where the CPU has AVX-512 VBMI: 64 a step, once
    /// per 256-slot block the step reads (`ByteIndex::lanes`); moves that do not exist are in
    /// no step.
    pub(crate) gathered: u64,
    /// Moves in runs: contiguous passes over the row and its successor.
    pub(crate) runs: u64,
    /// Moves made one lane at a time: the runs' leftovers, and on the scalar path (inner groups
    /// too wide for the row path) every undrawn inner line.
    pub(crate) lanes: u64,
    /// Passes over the row, one per inner line (drawn ones too) where the group is not full,
    /// on the row path; none on the scalar path.
    pub(crate) passes: u64,
}

/// [`InnerMoves`] of one row, per inner count (index: lines drawn in the inner group), as a
/// kernel makes them with byte gathers (`vbmi`) or without; the cost model prices the three
/// apart.
pub(crate) fn inner_moves_per_row(space: &Space, vbmi: bool) -> Vec<InnerMoves> {
    let Some(g) = space.groups.last() else { return Vec::new() };
    let (inner, size, rows) = (space.groups.len() - 1, g.size as u64, rows_fit(space));
    (0..g.configs.len())
        .map(|c| match (c as u64 >= size, rows) {
            (true, _) => InnerMoves::default(),
            (_, false) => InnerMoves { lanes: (size - c as u64) * g.count(c) as u64, ..InnerMoves::default() },
            (_, true) => {
                // Box bits change no move's place, only its value: none are needed to count.
                let bits = vec![0; size as usize * g.count(c)];
                InnerMoves { passes: size, ..InnerTable::new(space, inner, c, &bits, vbmi).moves() }
            }
        })
        .collect()
}

/// Outer moves whose successor row is turned by a symmetry, per count of group 0 (index: lines
/// drawn there), summed over its stored configurations: a move in the canonical group 0 to a
/// configuration stored as its image copies the successor row and gathers it through the
/// symmetry's rank map. Lines whose class goes on into another group are counted as moves
/// (a cost estimate, not the kernel's list). Empty where group 0 is the inner group or not
/// canonical, or the kernel takes the scalar path.
pub(crate) fn turned_moves_per_count(space: &Space) -> Vec<u64> {
    let Some(g) = space.groups.first().filter(|g| g.canonical && space.groups.len() >= 2 && rows_fit(space)) else {
        return Vec::new();
    };
    let off = g.offset as usize;
    let local = |bits: u64| ((bits >> off) & ((1u64 << g.size) - 1)) as u32;
    g.configs
        .iter()
        .map(|cs| {
            cs.iter()
                .map(|&x| {
                    (0..g.size as usize)
                        .filter(|&j| {
                            let prev = local(space.class_prev[off + j]);
                            x >> j & 1 == 0 && x & prev == prev && g.canon[(x | 1 << j) as usize] > 0
                        })
                        .count() as u64
                })
                .sum()
        })
        .collect()
}

/// The inner group's configuration `x` with local line `j` drawn, made canonical where the
/// group is; `None` where `j` is no move (drawn, or not the first undrawn of its class).
fn inner_successor(space: &Space, inner: usize, x: u32, j: usize) -> Option<u32> {
    let g = &space.groups[inner];
    let off = g.offset as usize;
    let prev = (space.class_prev[off + j] >> off) as u32;
    if x >> j & 1 == 1 || x & prev != prev {
        return None;
    }
    let mut y = x | 1 << j;
    if g.canonical && g.canon[y as usize] > 0 {
        y = g.sym[g.canon[y as usize] as usize - 1][y as usize];
    }
    Some(y)
}

/// `maps[s][c][rank]`: the rank of the image of inner configuration `rank` of count c under
/// symmetry s+1 (none for a canonical group, which is never turned).
fn symmetry_maps<T>(g: &super::space::Group, index: impl Fn(u32) -> T + Copy) -> Vec<Vec<Vec<T>>> {
    if g.canonical {
        return Vec::new();
    }
    g.sym
        .iter()
        .map(|t| {
            g.configs.iter().map(|cs| cs.iter().map(|&x| index(g.rank[t[x as usize] as usize])).collect()).collect()
        })
        .collect()
}

/// Which of line `l`'s boxes have their sides outside the inner group drawn in `outer_state`:
/// bit k for box k, only where the line has a box k.
#[inline(always)]
fn gate(o: &[u64; 2], i: &[u32; 2], outer_state: u64) -> u8 {
    let g0 = (i[0] != NEVER && outer_state & o[0] == o[0]) as u8;
    let g1 = (i[1] != NEVER && outer_state & o[1] == o[1]) as u8;
    g0 | g1 << 1
}

/// The `len` values of `succ` from `base` with the `reach` after them that a byte gather reads:
/// in place where the successor holds them in one slice, else copied into `slots` (where
/// `reach` is `None`, always, with [`Value::MAX`] in the slot that names no move).
#[inline(always)]
fn in_place_or_copied<'s, R: Rows>(
    succ: &'s R,
    base: usize,
    len: usize,
    reach: Option<usize>,
    slots: &'s mut Slots,
) -> &'s [Value] {
    if let Some(row) = reach.and_then(|r| succ.row_within(base, r.max(len))) {
        return row;
    }
    slots[..len].copy_from_slice(succ.row(base, len));
    if reach.is_none() {
        // A row gathered whole is shorter than 255 values: the slot past it names no move.
        slots[gather::ABSENT8 as usize] = Value::MAX;
    }
    &slots[..]
}

/// Row path: a move whose successors are gathered from a copy of a successor row through
/// `u16` indices ([`ABSENT`] for a move that does not exist): sixteen lanes a step by AVX2
/// gathers (`gather8`, where the CPU has AVX2), the rest one at a time (all of them: the twin).
#[inline(always)]
pub(super) fn relax_gathered(best: &mut [Value], slots: &Slots, index: &[u16], bits: &[u8], gate: u8, gather8: bool) {
    #[cfg(target_arch = "x86_64")]
    let done = if gather8 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (asked just above).
        unsafe { dwords::relax_mapped(best, slots, index, bits, gate) }
    } else {
        0
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = {
        let _ = gather8;
        0
    };
    // `done` is at most each slice's length.
    let (best, index, bits) = (&mut best[done..], &index[done..], &bits[done..]);
    if gate == 0 {
        for (b, &r) in best.iter_mut().zip(index) {
            *b = (*b).max(-slots[r as usize]);
        }
    } else {
        for ((b, &r), &k) in best.iter_mut().zip(index).zip(bits) {
            *b = (*b).max(offer(slots[r as usize], k, gate));
        }
    }
}

fn apply_row(best: &mut [Value], succ: &[Value], cfgs: &[u32], m0: u32, m1: u32) {
    if m0 == NEVER && m1 == NEVER {
        for (b, &s) in best.iter_mut().zip(succ) {
            *b = (*b).max(-s);
        }
    } else {
        for ((b, &s), &cfg) in best.iter_mut().zip(succ).zip(cfgs) {
            let n = ((cfg & m0) == m0) as i8 + ((cfg & m1) == m1) as i8;
            *b = (*b).max(if n > 0 { s + n } else { -s });
        }
    }
}

fn apply_row_mapped(best: &mut [Value], succ: &[Value], map: &[u32], cfgs: &[u32], m0: u32, m1: u32) {
    for ((b, &r), &cfg) in best.iter_mut().zip(map).zip(cfgs) {
        let n = ((cfg & m0) == m0) as i8 + ((cfg & m1) == m1) as i8;
        let s = succ[r as usize];
        *b = (*b).max(if n > 0 { s + n } else { -s });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Board, LineSet, Position};
    use crate::solver::{Dense, SolveOptions, minimax, solve_in_order};

    /// Small spaces with every kind of grouping: one group (the inner group canonical), two or
    /// three (outer moves through symmetry rank maps), and a root with lines drawn (a smaller
    /// symmetry group, no interchangeable pair on a finished side).
    fn spaces() -> Vec<Space> {
        let mut roots: Vec<Position> =
            ["2x2", "1x3", "2x3"].iter().map(|b| Position::empty(b.parse().unwrap())).collect();
        let b: Board = "2x3".parse().unwrap();
        roots.push(Position { board: b, drawn: LineSet::EMPTY.with(b.h(0, 1)).with(b.v(1, 0)) });
        let mut out = Vec::new();
        for root in roots {
            for groups in [None, Some(1), Some(2), Some(3)] {
                if let Ok(space) = Space::new(root, groups) {
                    out.push(space);
                }
            }
        }
        out
    }

    /// The small spaces and one with an inner group of 12 lines, rows of up to 924
    /// configurations, whose successors span up to four 256-slot blocks of byte gathers where
    /// the CPU has AVX-512 VBMI (too large for the dense twin).
    fn spaces_and_a_wide_one() -> Vec<Space> {
        let wide = Space::new(Position::empty("3x3".parse().unwrap()), Some(2)).unwrap();
        let lens: Vec<usize> = wide.groups.last().unwrap().configs.iter().map(Vec::len).collect();
        assert!(lens.iter().any(|&n| n > 256 * 3), "3x3 in 2 groups: rows of four blocks ({lens:?})");
        spaces().into_iter().chain([wide]).collect()
    }

    /// Every partition of `space`, computed whole by the in-order solve, by [`Space::key_index`].
    fn tables(space: &Space) -> Vec<Vec<Value>> {
        let opts = SolveOptions { groups: Some(space.groups.len()), keep_all: true, ..Default::default() };
        solve_in_order(space.root, opts).unwrap().tables.unwrap()
    }

    /// The successors of `key` as the kernel reads them (empty where a group is full).
    fn successors<'t>(space: &Space, key: &PartitionKey, tables: &'t [Vec<Value>]) -> Vec<&'t [Value]> {
        (0..key.groups())
            .map(|g| {
                if (key.counts()[g] as u32) < space.groups[g].size {
                    tables[space.key_index(&key.plus(g))].as_slice()
                } else {
                    &[][..]
                }
            })
            .collect()
    }

    fn what(space: &Space, key: &PartitionKey) -> String {
        format!("{} root {} groups {} key {key}", space.board(), space.root.to_line_string(), space.groups.len())
    }

    #[test]
    fn every_stored_value_of_a_small_board_equals_the_dense_twin() {
        for space in spaces() {
            let dense = Dense::solve(space.root).unwrap();
            let tables = tables(&space);
            for key in space.keys() {
                for (i, &v) in tables[space.key_index(&key)].iter().enumerate() {
                    let pos = space.position_of(space.state_at(&key, i));
                    assert_eq!(v, dense.value(pos.drawn), "{} index {i}", what(&space, &key));
                }
            }
        }
    }

    #[test]
    fn each_partition_computed_from_the_dense_twin_s_successors_equals_the_dense_twin() {
        // The kernel alone: its inputs are exact, so no error can come from another partition.
        for space in spaces() {
            let dense = Dense::solve(space.root).unwrap();
            let mut exact: Vec<Vec<Value>> = vec![Vec::new(); space.key_count()];
            for key in space.keys() {
                exact[space.key_index(&key)] = (0..space.partition_len(&key))
                    .map(|i| dense.value(space.position_of(space.state_at(&key, i)).drawn))
                    .collect();
            }
            let kernel = Kernel::new(&space);
            for key in space.keys() {
                let mut out = vec![Value::MIN; space.partition_len(&key)];
                kernel.compute(&key, &successors(&space, &key, &exact), &mut out, 0);
                assert_eq!(out, exact[space.key_index(&key)], "{}", what(&space, &key));
            }
        }
    }

    #[test]
    fn minimax_agrees_with_every_stored_value_of_1x3() {
        let space = Space::new(Position::empty("1x3".parse().unwrap()), Some(2)).unwrap();
        let tables = tables(&space);
        for key in space.keys() {
            for (i, &v) in tables[space.key_index(&key)].iter().enumerate() {
                let pos = space.position_of(space.state_at(&key, i));
                assert_eq!(v, minimax(pos).unwrap(), "{} index {i}", what(&space, &key));
            }
        }
    }

    #[test]
    fn a_partition_computed_in_two_row_ranges_equals_the_partition_computed_whole() {
        for space in spaces() {
            let tables = tables(&space);
            let kernel = Kernel::new(&space);
            for key in space.keys() {
                let (rows, row_len) = kernel.shape(&key);
                assert_eq!(rows * row_len, space.partition_len(&key), "{}", what(&space, &key));
                let succ = successors(&space, &key, &tables);
                let mut whole = vec![0 as Value; rows * row_len];
                kernel.compute(&key, &succ, &mut whole, 0);
                assert_eq!(whole, tables[space.key_index(&key)], "{}", what(&space, &key));
                for cut in 1..rows {
                    let mut parts = vec![Value::MIN; rows * row_len];
                    let (low, high) = parts.split_at_mut(cut * row_len);
                    kernel.compute(&key, &succ, low, 0);
                    kernel.compute(&key, &succ, high, cut);
                    assert_eq!(parts, whole, "{} cut at row {cut}", what(&space, &key));
                }
            }
        }
    }

    #[test]
    fn successors_read_in_pieces_give_the_same_values_as_whole_successors() {
        for space in spaces_and_a_wide_one() {
            let tables = tables(&space);
            let kernel = Kernel::new(&space);
            for key in space.keys() {
                let succ = successors(&space, &key, &tables);
                // Each successor cut at its middle row into two pieces.
                let pieces: Vec<Pieces> = (0..key.groups())
                    .map(|g| {
                        if succ[g].is_empty() {
                            return Pieces::new(Vec::new(), Vec::new());
                        }
                        let (rows, row_len) = kernel.shape(&key.plus(g));
                        let at = rows / 2 * row_len;
                        Pieces::new(vec![0, at], vec![&succ[g][..at], &succ[g][at..]])
                    })
                    .collect();
                let (rows, row_len) = kernel.shape(&key);
                let mut from_slices = vec![0 as Value; rows * row_len];
                let mut from_pieces = vec![Value::MIN; rows * row_len];
                kernel.compute(&key, &succ, &mut from_slices, 0);
                kernel.compute(&key, &pieces, &mut from_pieces, 0);
                assert_eq!(from_pieces, from_slices, "{}", what(&space, &key));
            }
        }
    }

    #[test]
    fn the_row_path_at_every_width_the_cpu_has_and_the_scalar_path_give_the_same_bytes() {
        let widths = Width::available();
        eprintln!("row path compared with the scalar twin at widths {widths:?} (those this CPU runs)");
        for (space, width) in
            spaces_and_a_wide_one().into_iter().flat_map(|s| widths.iter().map(move |&w| (s.clone(), w)))
        {
            let tables = tables(&space);
            let rows = Kernel::with_path(&space, KernelPath::Rows).with_width(width);
            let scalar = Kernel::with_path(&space, KernelPath::Scalar);
            assert_eq!((rows.path(), scalar.path(), rows.width()), (KernelPath::Rows, KernelPath::Scalar, width));
            for key in space.keys() {
                let succ = successors(&space, &key, &tables);
                let (n, row_len) = rows.shape(&key);
                let mut a = vec![0 as Value; n * row_len];
                let mut b = vec![Value::MIN; n * row_len];
                rows.compute(&key, &succ, &mut a, 0);
                scalar.compute(&key, &succ, &mut b, 0);
                assert_eq!(a, b, "{}", what(&space, &key));
                // From a row other than the first, as a piece of a split partition is computed.
                if n > 1 {
                    let (mut c, mut d) = (vec![0 as Value; (n - 1) * row_len], vec![1 as Value; (n - 1) * row_len]);
                    rows.compute(&key, &succ, &mut c, 1);
                    scalar.compute(&key, &succ, &mut d, 1);
                    assert_eq!(c, d, "{} from row 1", what(&space, &key));
                }
            }
        }
    }

    #[test]
    fn the_inner_moves_priced_are_those_the_scalar_path_lists() {
        for space in spaces() {
            let scalar = Kernel::with_path(&space, KernelPath::Scalar);
            let g = space.groups.last().unwrap();
            // As a kernel with byte gathers makes them, and one without: a cost model prices
            // one or the other, whatever this CPU has.
            for (vbmi, c, m) in [false, true].into_iter().flat_map(|vbmi| {
                inner_moves_per_row(&space, vbmi).into_iter().enumerate().map(move |(c, m)| (vbmi, c, m))
            }) {
                let listed = scalar.scalar.moves[c].len() as u64;
                assert!(vbmi || m.gathered == 0, "{} inner count {c}: gathered without VBMI", space.board());
                if m.gathered > 0 {
                    // Every lane of the row gathered whole, or steps of 64 lanes: each move in one.
                    let whole = g.size as u64 * g.count(c) as u64;
                    assert!(m.gathered == whole || m.gathered % 64 == 0, "{} inner count {c}", space.board());
                    assert_eq!(m.runs + m.lanes, 0, "{} inner count {c}", space.board());
                    assert!(m.gathered >= listed, "{} inner count {c}", space.board());
                } else {
                    assert_eq!(m.runs + m.lanes, listed, "{} inner count {c}", space.board());
                }
                // The row path passes over the row once per inner line while a line is left.
                let passes = if (c as u32) < g.size && rows_fit(&space) { g.size as u64 } else { 0 };
                assert_eq!(m.passes, passes, "{} inner count {c}", space.board());
            }
        }
    }

    #[test]
    fn the_turned_moves_priced_are_those_of_the_stored_states() {
        // Over every stored state: the moves in group 0 whose successor's canonical form turns
        // it, against the per-count sums spread evenly over the rows.
        for space in spaces() {
            let per_count = turned_moves_per_count(&space);
            if per_count.is_empty() {
                continue;
            }
            let g = &space.groups[0];
            let lines = g.offset as usize..(g.offset + g.size) as usize;
            for key in space.keys() {
                let c0 = key.counts()[0] as usize;
                let states = space.partition_len(&key);
                let listed: usize = (0..states)
                    .map(|i| {
                        let s = space.state_at(&key, i);
                        let turned = |l: &usize| {
                            let t = State(s.0 | 1 << l);
                            space.is_move(s, *l) && space.canonical(t) != t
                        };
                        lines.clone().filter(turned).count()
                    })
                    .sum();
                let priced = per_count[c0] as usize * states / g.count(c0);
                assert_eq!(priced, listed, "{} {key}", space.board());
            }
        }
    }

    #[test]
    fn the_full_board_partition_is_worth_zero_everywhere() {
        for space in spaces() {
            let kernel = Kernel::new(&space);
            let full = space.keys()[0];
            assert_eq!(full.total(), space.free());
            let mut out = vec![Value::MIN; space.partition_len(&full)];
            let none: Vec<&[Value]> = vec![&[][..]; full.groups()];
            kernel.compute(&full, &none, &mut out, 0);
            assert!(out.iter().all(|&v| v == 0), "{}", what(&space, &full));
        }
    }
}
