//! The retrograde kernel: computes the values of one partition from the partitions it reads.
//!
//! A partition is a matrix: one *row* per combination of the outer groups' configurations, one
//! column per configuration of the inner (last) group. A move in an outer group leaves the
//! inner configuration alone, so it reads a whole row of the successor partition at once,
//! contiguous (or through a rank map when the successor must be turned by a symmetry); a move
//! in the inner group reads the same row of the successor through a precomputed move table.
//! Everything is prepared in [`Kernel::new`]; [`Kernel::compute`] allocates nothing per position.

use crate::game::Value;

use super::key::{MAX_GROUPS, PartitionKey};
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
    fn row(&self, base: usize, len: usize) -> &[Value];
}

impl Rows for &[Value] {
    #[inline]
    fn row(&self, base: usize, len: usize) -> &[Value] {
        &self[base..base + len]
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

impl Rows for Pieces<'_> {
    #[inline]
    fn row(&self, base: usize, len: usize) -> &[Value] {
        // Pieces are whole rows, so a row lies in the last piece starting at or before it.
        let i = self.starts.partition_point(|&s| s <= base) - 1;
        let at = base - self.starts[i];
        &self.parts[i][at..at + len]
    }
}

/// Box keys: 4 per inner line.
const BOX_KEYS: usize = 4 * MAX_GROUP_LINES;

/// Tables for the kernel over one space.
pub struct Kernel<'a> {
    space: &'a Space,
    inner: usize,
    /// Per internal line and box: the other sides' bits outside the inner group.
    box_outer: Vec<[u64; 2]>,
    /// Per internal line and box: the other sides' bits inside the inner group (local), or
    /// [`NEVER`] where the line has no such box.
    box_inner: Vec<[u32; 2]>,
    /// `move_start[c][i]..move_start[c][i+1]`: moves of inner configuration i of count c.
    move_start: Vec<Vec<u32>>,
    moves: Vec<Vec<InnerMove>>,
    /// `inner_sym[s][c][rank]`: rank of the inner configuration's image under symmetry s+1.
    inner_sym: Vec<Vec<Vec<u32>>>,
}

impl<'a> Kernel<'a> {
    pub fn new(space: &'a Space) -> Kernel<'a> {
        let inner = space.groups.len().saturating_sub(1);
        let g = &space.groups[inner];
        let (off, size) = (g.offset as usize, g.size as usize);
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
        let mut move_start = Vec::new();
        let mut moves = Vec::new();
        for c in 0..=size {
            let mut starts = vec![0u32];
            let mut list = Vec::new();
            for &x in &g.configs[c] {
                for j in 0..size {
                    let prev = (space.class_prev[off + j] >> off) as u32;
                    if x >> j & 1 == 1 || x & prev != prev {
                        continue;
                    }
                    let mut y = x | 1 << j;
                    if g.canonical && g.canon[y as usize] > 0 {
                        y = g.sym[g.canon[y as usize] as usize - 1][y as usize];
                    }
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
        let inner_sym = if g.canonical {
            Vec::new()
        } else {
            g.sym
                .iter()
                .map(|t| {
                    g.configs.iter().map(|cs| cs.iter().map(|&x| g.rank[t[x as usize] as usize]).collect()).collect()
                })
                .collect()
        };
        debug_assert!(size <= MAX_GROUP_LINES);
        Kernel { space, inner, box_outer, box_inner, move_start, moves, inner_sym }
    }

    /// Number of rows of a partition, and the row length (inner configurations).
    pub fn shape(&self, key: &PartitionKey) -> (usize, usize) {
        let len = self.space.partition_len(key);
        let row = self.space.groups[self.inner].count(key.counts()[self.inner] as usize);
        (len / row, row)
    }

    /// Computes rows `first_row..` of partition `key` into `out` (a whole number of rows).
    /// `succ[g]` holds the partition `key.plus(g)` (empty where the group is full).
    pub fn compute<R: Rows>(&self, key: &PartitionKey, succ: &[R], out: &mut [Value], first_row: usize) {
        let sp = self.space;
        let groups = &sp.groups;
        let inner = self.inner;
        let ng = key.groups();
        let counts = key.counts();
        if counts.iter().zip(groups).all(|(&c, g)| c as u32 == g.size) {
            out.fill(0);
            return;
        }
        let (_, row_len) = self.shape(key);
        let ci = counts[inner] as usize;
        let ig = &groups[inner];
        let inner_cfgs = &ig.configs[ci];
        let ioff = ig.offset as usize;
        let inner_size = ig.size as usize;
        let strides = sp.strides(key);
        let mut succ_strides = [[0usize; MAX_GROUPS]; MAX_GROUPS];
        for (g, s) in succ_strides.iter_mut().enumerate().take(ng) {
            if (counts[g] as u32) < groups[g].size {
                *s = sp.strides(&key.plus(g));
            }
        }
        let inner_succ_len = if (ci as u32) < ig.size { ig.count(ci + 1) } else { 0 };
        let starts = &self.move_start[ci];
        let imoves = &self.moves[ci];

        // Outer ranks of the first row; rows then advance like an odometer.
        let mut ranks = [0usize; MAX_GROUPS];
        for h in 0..inner {
            ranks[h] = first_row * row_len / strides[h] % groups[h].count(counts[h] as usize);
        }
        // Boxes completed by an inner move, by box key, for the current row.
        let mut boxes_by_key = [0i8; BOX_KEYS];
        for best in out.chunks_exact_mut(row_len) {
            let mut fields = [0u32; MAX_GROUPS];
            let mut outer_state = 0u64;
            for h in 0..inner {
                fields[h] = groups[h].configs[counts[h] as usize][ranks[h]];
                outer_state |= (fields[h] as u64) << groups[h].offset;
            }
            let mask_pair = |l: usize| {
                let (o, i) = (&self.box_outer[l], &self.box_inner[l]);
                let m0 = if outer_state & o[0] == o[0] { i[0] } else { NEVER };
                let m1 = if outer_state & o[1] == o[1] { i[1] } else { NEVER };
                (m0, m1)
            };
            best.fill(Value::MIN);

            // Moves in outer groups: whole rows.
            for l in 0..ioff {
                if !sp.is_move(State(outer_state), l) {
                    continue;
                }
                let g = sp.line_group[l] as usize;
                let grp = &groups[g];
                let moved = fields[g] | 1 << (l - grp.offset as usize);
                let (m0, m1) = mask_pair(l);
                let ss = &succ_strides[g];
                let s = if grp.canonical { grp.canon[moved as usize] } else { 0 };
                if s == 0 {
                    let mut base = 0;
                    for h in 0..inner {
                        let r = if h == g { grp.rank[moved as usize] as usize } else { ranks[h] };
                        base += r * ss[h];
                    }
                    apply_row(best, succ[g].row(base, row_len), inner_cfgs, m0, m1);
                } else {
                    let s = s as usize - 1;
                    let mut base = 0;
                    for h in 0..inner {
                        let f = if h == g { moved } else { fields[h] };
                        base += groups[h].rank[groups[h].sym[s][f as usize] as usize] as usize * ss[h];
                    }
                    let map = &self.inner_sym[s][ci];
                    apply_row_mapped(best, succ[g].row(base, row_len), map, inner_cfgs, m0, m1);
                }
            }

            // Moves in the inner group: the same row of the successor, through the move table.
            if inner_succ_len > 0 {
                for j in 0..inner_size {
                    let o = &self.box_outer[ioff + j];
                    let ok0 = (outer_state & o[0] == o[0]) as i8;
                    let ok1 = (outer_state & o[1] == o[1]) as i8;
                    boxes_by_key[4 * j..4 * j + 4].copy_from_slice(&[0, ok0, ok1, ok0 + ok1]);
                }
                let ss = &succ_strides[inner];
                let base: usize = (0..inner).map(|h| ranks[h] * ss[h]).sum();
                let srow = succ[inner].row(base, inner_succ_len);
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

            for h in (0..inner).rev() {
                ranks[h] += 1;
                if ranks[h] < groups[h].count(counts[h] as usize) {
                    break;
                }
                ranks[h] = 0;
            }
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
