//! Graph builders: the partition schemes a solve can be cut into, and their subpartitions.
//! - `orbits`: the solver's own partitions (symmetric groups, exact stored-position counts);
//!   the graph the executor runs.
//! - `quadrants`: the thesis's scheme for square boards of even side (seed 003): four
//!   quadrants of lines, the lines of the two middle lines shared out pinwheel fashion, so a
//!   quarter turn maps quadrant i onto quadrant i+1; optionally one job per class of
//!   partitions under rotations (exact) or rotations and reflections (an approximation).
//! - splitting: jobs of more than S states become k equal pieces `<name>_<i>`, either needing
//!   the whole of every predecessor, or (orbits only) just the predecessor pieces they read.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::game::{Board, LineSet};
use crate::solver::{
    BINOMIAL, InnerMoves, PartitionKey, Space, SpaceError, inner_moves_per_row, turned_moves_per_count,
};
use crate::support::{Setting, choice};

use super::cost::{CostSpec, JobFeatures};
use super::graph::{Graph, Job};

choice! {
    "scheme",
    /// How a solve is cut into jobs.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Scheme {
        Orbits = "orbits",
        Quadrants = "quadrants",
    }
}

choice! {
    "quadrant symmetry",
    /// Which quadrant partitions count as one job.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum QuadrantSymmetry {
        /// Every partition is a job.
        None = "none",
        /// Quarter turns: (a,b,c,d) ~ (b,c,d,a). Exact: a quarter turn maps the pinwheel onto itself.
        Rot4 = "rot4",
        /// Quarter turns and the reflection (a,b,c,d) ~ (a,d,c,b), as the thesis did. A reflection
        /// maps the pinwheel onto the opposite pinwheel, not onto itself, so this identifies
        /// partitions whose positions are not exact mirror images: an approximation (their state
        /// counts are equal, being products of the same binomials).
        Dih8 = "dih8",
        /// Every permutation of the four counts: the map that reproduces the thesis's Fig. 3 line
        /// for line (its names are all non-decreasing). Coarser still than dih8, and likewise an
        /// approximation.
        Sorted = "sorted",
    }
}

choice! {
    "piece dependency",
    /// What a piece of a split job needs.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum PieceDeps {
        /// Every piece needs the whole of every predecessor (the thesis's Fig. 4).
        Whole = "whole",
        /// A piece needs only the predecessor pieces it reads (orbits: pieces are ranges of rows,
        /// group 0 most significant, so a move outside group 0 stays in the same range).
        Fine = "fine",
    }
}

/// Subpartitioning: jobs of more than `threshold` states become
/// min(max_pieces, ceil(states / threshold)) pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Split {
    /// States above which a job is split (at least 1).
    pub threshold: u64,
    /// Most pieces a job is split into (at least 1).
    pub max_pieces: u32,
    /// What each piece needs.
    pub deps: PieceDeps,
}

/// A setting that applies to one scheme only, as [`SchemeError::Option`] names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemeSetting {
    /// The quadrants' symmetry.
    Symmetry,
    /// The orbits' group count.
    Groups,
}

impl SchemeSetting {
    /// The scheme the setting applies to.
    pub fn scheme(self) -> Scheme {
        match self {
            SchemeSetting::Symmetry => Scheme::Quadrants,
            SchemeSetting::Groups => Scheme::Orbits,
        }
    }
}

impl std::fmt::Display for SchemeSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SchemeSetting::Symmetry => "a symmetry",
            SchemeSetting::Groups => "a group count",
        })
    }
}

/// Why a graph could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SchemeError {
    /// Quadrants were asked of a board that is not square with an even side.
    #[error("the quadrants scheme needs a square board with an even side (2x2, 4x4), not {0}")]
    NotEvenSquare(Board),
    /// Quadrants were asked from a position with lines drawn.
    #[error("the quadrants scheme starts from the empty board; give a board without a position")]
    QuadrantsFromPosition,
    /// Fine piece dependencies were asked of the quadrants scheme.
    #[error("fine piece dependencies need the orbits scheme (quadrant pieces are not laid out by rows)")]
    FineNeedsOrbits,
    /// A split with a threshold or a piece count of 0.
    #[error("a split needs a threshold of at least 1 state and at least 1 piece")]
    BadSplit,
    /// A setting was given to a scheme other than the one it applies to (named).
    #[error("{0} applies only to the {scheme} scheme", scheme = .0.scheme())]
    Option(SchemeSetting),
    /// A split that would make more jobs, or more dependencies, than a graph may hold.
    #[error(
        "the graph would have {jobs} jobs with up to {deps} dependencies; at most {MAX_JOBS} jobs and {MAX_DEPS} \
         dependencies fit in memory (fewer groups, a higher split threshold, or fewer pieces)"
    )]
    TooBig {
        /// Jobs the split would make.
        jobs: u64,
        /// Dependencies it could need (every piece of every partition read, at most).
        deps: u64,
    },
    /// The orbits scheme's space could not be built (e.g. a bad group count).
    #[error("{0}")]
    Space(#[from] SpaceError),
    /// A job's cost under the cost model does not fit `u64` nanoseconds.
    #[error("job '{job}': its cost under the cost model, {ns:e} ns, exceeds the limit of {limit} ns", limit = u64::MAX)]
    Cost {
        /// The job.
        job: String,
        /// The model's nanoseconds for it.
        ns: f64,
    },
    /// The jobs' costs (or states, or bytes) add up to more than `u64` holds.
    #[error("the graph: {0}")]
    Graph(#[from] super::graph::GraphError),
}

impl SchemeError {
    /// The setting refused, if one was (a wrapped error says its own).
    pub fn setting(&self) -> Option<Setting> {
        match self {
            SchemeError::BadSplit => Some(Setting::Split),
            SchemeError::FineNeedsOrbits => Some(Setting::Scheme),
            SchemeError::Option(SchemeSetting::Symmetry) => Some(Setting::Symmetry),
            SchemeError::Option(SchemeSetting::Groups) => Some(Setting::Groups),
            SchemeError::NotEvenSquare(_)
            | SchemeError::QuadrantsFromPosition
            | SchemeError::TooBig { .. }
            | SchemeError::Space(_)
            | SchemeError::Cost { .. }
            | SchemeError::Graph(_) => None,
        }
    }
}

/// A partition before splitting. Its states are `units` units of `unit_states` each (rows for
/// orbits, single states for quadrants); pieces are ranges of units.
struct Part {
    name: String,
    units: u64,
    unit_states: u64,
    /// Undrawn lines in each of its positions outside the kernel's inner group (all of them
    /// for quadrants, which have no rows).
    outer_undrawn: u64,
    /// Inner moves the kernel makes per row, gathered, in runs and lane by lane (see
    /// [`inner_moves_per_row`]; none for quadrants, which have no rows).
    inner_moves: InnerMoves,
    /// Outer moves gathered lane by lane from turned successor rows, summed over the part's
    /// rows, and its rows (a piece takes its share by rows).
    turned: (u64, u64),
    /// Whether units are kernel rows.
    rows: bool,
    /// Lines drawn in each of its positions: its level.
    level: u32,
    deps: Vec<usize>,
}

impl Part {
    fn states(&self) -> u64 {
        self.units * self.unit_states
    }

    /// The turned moves of units `lo..hi`: their share of the part's by rows, in u128 since a
    /// large part's count times its rows passes u64.
    fn turned_share(&self, lo: u64, hi: u64) -> u64 {
        let (moves, rows) = self.turned;
        if rows == 0 { 0 } else { (moves as u128 * (hi - lo) as u128 / rows as u128) as u64 }
    }

    /// Piece boundaries in units: pieces[i]..pieces[i+1].
    fn bounds(&self, split: Option<&Split>) -> Vec<u64> {
        let k = match split {
            Some(s) if self.states() > s.threshold => {
                (s.max_pieces as u64).min(self.states().div_ceil(s.threshold)).min(self.units).max(1)
            }
            _ => 1,
        };
        // In u128: units times a piece index can pass u64 for a large partition cut fine.
        (0..=k).map(|i| (self.units as u128 * i as u128 / k as u128) as u64).collect()
    }
}

/// Most jobs a split may make (a job with its name and costs takes about 200 bytes, its graph
/// and schedule a few times that).
pub(crate) const MAX_JOBS: u64 = 2_000_000;
/// Most dependencies a split may make (a dependency is a job name, about 40 bytes).
pub(crate) const MAX_DEPS: u64 = 50_000_000;

/// Refuses piece boundaries that would make a graph too big to hold, before any job is made.
fn check_size(parts: &[Part], bounds: &[Vec<u64>]) -> Result<(), SchemeError> {
    let pieces = |p: usize| bounds[p].len() as u64 - 1;
    let jobs: u64 = (0..parts.len()).map(pieces).sum();
    // Whole dependencies: every piece reads every piece of each partition it reads (fine
    // dependencies read fewer, so this is their upper bound too).
    let deps: u64 = (0..parts.len())
        .map(|p| pieces(p).saturating_mul(parts[p].deps.iter().map(|&d| pieces(d)).sum::<u64>()))
        .fold(0, u64::saturating_add);
    if jobs > MAX_JOBS || deps > MAX_DEPS {
        return Err(SchemeError::TooBig { jobs, deps });
    }
    Ok(())
}

/// Unit ranges of predecessor `dep` (an index into `parts`) that units `lo..hi` of `part` read.
type Reads<'a> = dyn Fn(usize, u64, u64, usize) -> Vec<(u64, u64)> + 'a;

/// Turns parts into jobs, splitting them, with costs from `cost`.
fn assemble(
    parts: &[Part],
    split: Option<&Split>,
    cost: &CostSpec,
    reads: Option<&Reads>,
) -> Result<(Graph, Vec<JobFeatures>), SchemeError> {
    let bounds: Vec<Vec<u64>> = parts.iter().map(|p| p.bounds(split)).collect();
    check_size(parts, &bounds)?;
    let piece_name = |p: usize, i: usize| {
        if bounds[p].len() == 2 { parts[p].name.clone() } else { format!("{}_{i}", parts[p].name) }
    };
    let piece_bytes = |p: usize, i: usize| (bounds[p][i + 1] - bounds[p][i]) * parts[p].unit_states;
    let cold = cold_shares(parts, cost.cache_bytes());
    let mut jobs = Vec::new();
    let mut all_features = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        for i in 0..bounds[p].len() - 1 {
            let (lo, hi) = (bounds[p][i], bounds[p][i + 1]);
            let mut deps: Vec<(usize, usize)> = Vec::new();
            for &d in &part.deps {
                let db = &bounds[d];
                match reads {
                    Some(reads) if db.len() > 2 => {
                        let mut pieces = BTreeSet::new();
                        for (a, b) in reads(p, lo, hi, d) {
                            // Pieces j with db[j] < b and db[j+1] > a.
                            let first = db.partition_point(|&x| x <= a) - 1;
                            let last = db.partition_point(|&x| x < b) - 1;
                            pieces.extend(first..=last);
                        }
                        deps.extend(pieces.into_iter().map(|j| (d, j)));
                    }
                    _ => deps.extend((0..db.len() - 1).map(|j| (d, j))),
                }
            }
            let states = (hi - lo) * part.unit_states;
            let features = JobFeatures {
                states,
                rows: if part.rows { hi - lo } else { 0 },
                outer_moves: states * part.outer_undrawn,
                inner_moves: (hi - lo) * part.inner_moves.gathered,
                run_inner_moves: (hi - lo) * part.inner_moves.runs,
                lane_inner_moves: (hi - lo) * part.inner_moves.lanes,
                input_bytes: deps.iter().map(|&(d, j)| piece_bytes(d, j)).sum(),
                cold_input_bytes: deps.iter().map(|&(d, j)| (piece_bytes(d, j) as f64 * cold[d]) as u64).sum(),
                outer_passes: if part.rows { (hi - lo) * part.outer_undrawn } else { 0 },
                inner_passes: (hi - lo) * part.inner_moves.passes,
                turned_moves: part.turned_share(lo, hi),
            };
            all_features.push(features);
            let name = piece_name(p, i);
            jobs.push(Job {
                cost: cost.cost(features).map_err(|ns| SchemeError::Cost { job: name.clone(), ns })?,
                name,
                states,
                bytes: states,
                deps: deps.iter().map(|&(d, j)| piece_name(d, j)).collect(),
            });
        }
    }
    // Valid by construction but for sums past u64, which Graph::new refuses.
    Ok((Graph::new(jobs, None)?, all_features))
}

/// Per part, the share of its bytes read back from memory rather than the cache: its level's
/// bytes beyond the `cache` last written, `1 - cache / level bytes` (0 where the level fits).
fn cold_shares(parts: &[Part], cache: u64) -> Vec<f64> {
    let mut levels: std::collections::HashMap<u32, u64> = std::collections::HashMap::new();
    for p in parts {
        *levels.entry(p.level).or_default() += p.states();
    }
    parts.iter().map(|p| (1.0 - cache as f64 / levels[&p.level].max(1) as f64).max(0.0)).collect()
}

fn check_split(split: Option<&Split>) -> Result<(), SchemeError> {
    match split {
        Some(s) if s.threshold == 0 || s.max_pieces == 0 => Err(SchemeError::BadSplit),
        _ => Ok(()),
    }
}

/// The solver's partitions of `space` as a graph.
pub fn orbits(space: &Space, cost: &CostSpec, split: Option<&Split>) -> Result<Graph, SchemeError> {
    orbits_with_features(space, cost, split).map(|(g, _)| g)
}

/// [`orbits`], with what each job's cost was computed from.
pub fn orbits_with_features(
    space: &Space,
    cost: &CostSpec,
    split: Option<&Split>,
) -> Result<(Graph, Vec<JobFeatures>), SchemeError> {
    check_split(split)?;
    // A full root has no groups, hence no partition to make a job of.
    space.require_lines()?;
    let keys = space.keys();
    // The moves as the kernel the costs price makes them: with byte gathers or without.
    let vbmi = cost.simd().gathers();
    let inner_moves = inner_moves_per_row(space, vbmi);
    let turned = turned_moves_per_count(space);
    let ng = space.groups.len();
    // Rows of a partition: every group but the last (the kernel's inner group).
    let row_len = |k: &PartitionKey| space.shape(k).1 as u64;
    let parts: Vec<Part> = keys
        .iter()
        .map(|k| {
            let len = space.partition_len(k) as u64;
            let units = len / row_len(k);
            // Rows spread evenly over group 0's configurations, each row of the partition
            // taking the moves of its configuration: per row, the configurations' mean.
            let c0 = k.counts()[0] as usize;
            let turned = match turned.get(c0) {
                Some(&t) if !vbmi => {
                    let configs = space.groups[0].count(c0) as u128;
                    ((t as u128 * units as u128 * row_len(k) as u128 / configs) as u64, units)
                }
                _ => (0, 0),
            };
            Part {
                name: k.to_string(),
                units,
                unit_states: row_len(k),
                inner_moves: inner_moves[k.counts()[ng - 1] as usize],
                outer_undrawn: (space.free() - k.total()) as u64
                    - (space.groups[ng - 1].size - k.counts()[ng - 1] as u32) as u64,
                turned,
                rows: true,
                level: k.total() as u32,
                deps: {
                    // In job order, as every reader of the graph lists them.
                    let mut d: Vec<usize> = space.successors(k).iter().map(|s| key_position(&keys, s)).collect();
                    d.sort_unstable();
                    d
                },
            }
        })
        .collect();
    let fine = matches!(split, Some(Split { deps: PieceDeps::Fine, .. }));
    if !fine || ng < 2 {
        return assemble(&parts, split, cost, None);
    }
    // Rows per group-0 configuration: product of the counts of groups 1..ng-1.
    let rows_per_rank0 =
        |k: &PartitionKey| (1..ng - 1).map(|g| space.groups[g].count(k.counts()[g] as usize) as u64).product::<u64>();
    let reads = |p: usize, lo: u64, hi: u64, d: usize| -> Vec<(u64, u64)> {
        let (key, dep) = (&keys[p], &keys[d]);
        let (r, rd) = (rows_per_rank0(key), rows_per_rank0(dep));
        let (a, b) = (lo / r, (hi - 1) / r + 1);
        if dep.counts()[0] == key.counts()[0] {
            // A move outside group 0 keeps group 0's configuration, hence its rank.
            return vec![(a * rd, b * rd)];
        }
        // A move in group 0: the successor's group-0 configuration, made canonical.
        let c0 = key.counts()[0] as usize;
        let ranks = space.group0_successor_ranks(c0, a as usize..b as usize);
        ranks.into_iter().map(|q| (q as u64 * rd, (q as u64 + 1) * rd)).collect()
    };
    assemble(&parts, split, cost, Some(&reads))
}

/// The four quadrants of a square board of even side 2k, as line sets: quadrant 0 holds the
/// lines of the top-left k x k boxes that are not on a middle line, plus the left half of the
/// middle horizontal line; quadrant i+1 is the quarter turn of quadrant i.
pub fn quadrant_lines(board: Board) -> Result<[LineSet; 4], SchemeError> {
    let n = board.rows();
    if !board.is_square() || !n.is_multiple_of(2) {
        return Err(SchemeError::NotEvenSquare(board));
    }
    let k = n / 2;
    let mut q0 = LineSet::default();
    for r in 0..k {
        for c in 0..k {
            q0 = q0.with(board.h(r, c)).with(board.v(r, c));
        }
    }
    for c in 0..k {
        q0 = q0.with(board.h(k, c));
    }
    // A quarter turn: the symmetry of order 4.
    let syms = board.symmetries();
    let turn = syms
        .iter()
        .find(|s| {
            let twice = s.apply(s.apply(q0));
            twice != q0 && s.apply(s.apply(twice)) == q0 && s.apply(q0) != q0
        })
        .expect("a square board has a quarter turn");
    let mut q = [q0; 4];
    for i in 1..4 {
        q[i] = turn.apply(q[i - 1]);
    }
    Ok(q)
}

/// The representative of a quadrant partition's class: the least of its images.
fn representative(c: [u8; 4], symmetry: QuadrantSymmetry) -> [u8; 4] {
    let turns = (0..4).map(|t| [c[t], c[(t + 1) % 4], c[(t + 2) % 4], c[(t + 3) % 4]]);
    match symmetry {
        QuadrantSymmetry::None => c,
        QuadrantSymmetry::Rot4 => turns.min().expect("four turns"),
        QuadrantSymmetry::Dih8 => {
            let mirror = [c[0], c[3], c[2], c[1]];
            let mirrored = (0..4).map(|t| [mirror[t], mirror[(t + 1) % 4], mirror[(t + 2) % 4], mirror[(t + 3) % 4]]);
            turns.chain(mirrored).min().expect("eight images")
        }
        QuadrantSymmetry::Sorted => {
            let mut s = c;
            s.sort_unstable();
            s
        }
    }
}

/// The thesis's quadrant partitions of the empty board as a graph: job `a_b_c_d` holds
/// C(q,a)C(q,b)C(q,c)C(q,d) states for q lines a quadrant.
pub fn quadrants(
    board: Board,
    symmetry: QuadrantSymmetry,
    cost: &CostSpec,
    split: Option<&Split>,
) -> Result<Graph, SchemeError> {
    check_split(split)?;
    if matches!(split, Some(Split { deps: PieceDeps::Fine, .. })) {
        return Err(SchemeError::FineNeedsOrbits);
    }
    let q = quadrant_lines(board)?[0].len() as u8;
    let mut reps: Vec<[u8; 4]> = Vec::new();
    for a in 0..=q {
        for b in 0..=q {
            for c in 0..=q {
                for d in 0..=q {
                    let key = [a, b, c, d];
                    if representative(key, symmetry) == key {
                        reps.push(key);
                    }
                }
            }
        }
    }
    let total = |k: &[u8; 4]| k.iter().map(|&x| x as u32).sum::<u32>();
    reps.sort_by_key(|k| (std::cmp::Reverse(total(k)), *k));
    let index: std::collections::HashMap<[u8; 4], usize> = reps.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let parts: Vec<Part> = reps
        .iter()
        .map(|k| {
            let mut deps: Vec<usize> = (0..4)
                .filter(|&i| k[i] < q)
                .map(|i| {
                    let mut s = *k;
                    s[i] += 1;
                    index[&representative(s, symmetry)]
                })
                .collect();
            deps.sort_unstable();
            deps.dedup();
            Part {
                name: format!("{}_{}_{}_{}", k[0], k[1], k[2], k[3]),
                units: k.iter().map(|&x| BINOMIAL[q as usize][x as usize]).product(),
                unit_states: 1,
                outer_undrawn: 4 * q as u64 - total(k) as u64,
                inner_moves: InnerMoves::default(),
                turned: (0, 0),
                rows: false,
                level: total(k),
                deps,
            }
        })
        .collect();
    assemble(&parts, split, cost, None).map(|(g, _)| g)
}

/// Index of `key` in `keys`, which are in the order of [`Space::keys`].
fn key_position(keys: &[PartitionKey], key: &PartitionKey) -> usize {
    let order = |k: &PartitionKey| (std::cmp::Reverse(k.total()), *k);
    keys.binary_search_by_key(&order(key), order).expect("a successor is a key of the space")
}

/// Everything `dab graph` needs to build a graph.
#[derive(Clone, Debug)]
pub struct GraphSpec {
    /// How the solve is cut into jobs.
    pub scheme: Scheme,
    /// The root position (quadrants: the empty board).
    pub root: crate::game::Position,
    /// Orbits: number of groups (None: the solver's default).
    pub groups: Option<usize>,
    /// Quadrants: which partitions are one job (None: rot4, the exact one).
    pub symmetry: Option<QuadrantSymmetry>,
    /// How each job is costed.
    pub cost: CostSpec,
    /// How large jobs are split into pieces (None: not at all).
    pub split: Option<Split>,
}

impl GraphSpec {
    /// Builds the graph. Refuses an option of the other scheme, and quadrants from a position
    /// with lines drawn.
    pub fn build(&self) -> Result<Graph, SchemeError> {
        match self.scheme {
            Scheme::Orbits => {
                if self.symmetry.is_some() {
                    return Err(SchemeError::Option(SchemeSetting::Symmetry));
                }
                orbits(&Space::new(self.root, self.groups)?, &self.cost, self.split.as_ref())
            }
            Scheme::Quadrants => {
                if self.groups.is_some() {
                    return Err(SchemeError::Option(SchemeSetting::Groups));
                }
                if !self.root.drawn.is_empty() {
                    return Err(SchemeError::QuadrantsFromPosition);
                }
                let symmetry = self.symmetry.unwrap_or(QuadrantSymmetry::Rot4);
                quadrants(self.root.board, symmetry, &self.cost, self.split.as_ref())
            }
        }
    }
}
