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
    /// The `len` values from value index `base` of the partition.
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
    /// Bytes of the kernel's own tables (box masks, inner moves, symmetry rank maps), as
    /// allocated; one kernel serves every thread of a run.
    pub fn table_bytes(&self) -> u64 {
        use super::space::nested_bytes;
        let sym: u64 = self.inner_sym.iter().map(|t| nested_bytes(t)).sum();
        (self.box_outer.capacity() * 16 + self.box_inner.capacity() * 8) as u64
            + nested_bytes(&self.move_start)
            + nested_bytes(&self.moves)
            + sym
    }

    /// Builds the inner group's move tables, box masks and symmetry rank maps for `space`.
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
        self.space.shape(key)
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
        for space in spaces() {
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
