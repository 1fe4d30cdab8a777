//! What each engine would take to answer a position, priced before it runs, and the cheapest:
//! what `auto` answers with. The retrograde in memory is priced by the cost model (the
//! solver's count of the positions, [`SolveEstimate`]); the search by a count of the positions
//! it visits, fitted on 3x4, 2x6, 4x4 and 5x5 positions from the undrawn lines and the *safe*
//! ones (lines that complete no box and give none a third side: the search's tree grows with
//! the moves before the chains), at a time per position scaled to the cost model's machine, plus
//! zeroing its table. A store's book and the endgame theorems answer at once where they apply,
//! so they are tried first. The fit's searches are recorded in
//! `tests/data/search/search-fit.csv` (a test checks the constants are their fit); the
//! measurements behind the table's size are in docs/notes/search-notes.md.
//!
//! The walk for who must make the next loony move, which an answer takes after its engine, is
//! priced too ([`walk_budget`]): a time a position, scaled to the cost model's machine like the
//! search's, turns the answer's budget for it into the positions it may visit.

use crate::game::Position;
use crate::plan::SolveEstimate;
use crate::sched::CostModel;
use crate::solver::MAX_FREE_LINES;

use super::analysis::MAX_FREE_IN_MEMORY;
use super::query::Answerer;

/// The search's positions visited, every move valued: exp(A + B * undrawn + C * safe), the
/// least-squares fit on the logs of the 35 searches of `tests/data/search/search-fit.csv`
/// (3x3, 3x4, 2x6, 4x4 and 5x5, 23 to 44 undrawn lines; recorded 2026-11-28), within 0.24x to
/// 3.7x of each count. (The fit before it, of 2026-11-24, had not kept its positions, and the
/// search's openings, canonical state and cutoffs had since cut its trees 1.4x to 29x.)
const SEARCH_FIT: (f64, f64, f64) = (-0.2685, 0.2317, 0.3299);

/// Nanoseconds a search spends on a position it visits, on one thread of the machine the
/// built-in cost model was measured on: the median over the searches of `search-fit.csv` that
/// visited a million positions or more (130-215 ns each), the table's zeroing taken out.
const SEARCH_NS_PER_POSITION: f64 = 162.0;

/// Nanoseconds to zero a byte of the search's table (on the built-in model's machine).
pub(crate) const TABLE_NS_PER_BYTE: f64 = 0.56;

/// How much cheaper than the retrograde the search must be priced to be chosen: 2 until the
/// search valued openings from the position after them; it then took 2x6 positions of 27 and
/// 24 undrawn lines in 0.27 and 0.024 s against the retrograde's 0.40 and 0.055 s, priced 1.6x
/// and more cheaper (`tests/data/answer/auto-cases.csv`).
pub(crate) const SEARCH_MARGIN: f64 = 1.5;

/// The search's speed-up on `threads` threads over one, at 1, 2, 4, 8 and 16 threads: the
/// median of four 5x5 positions of 40 and 44 undrawn lines on a 16-core machine (each between
/// 0.7x and 1.6x of it; docs/notes/search-notes.md, "Sixteen threads again"), with two threads at
/// what this project's 2-core machine gives (1.8-2.0x).
const SEARCH_SPEEDUP: [f64; 5] = [1.0, 1.8, 2.5, 3.75, 6.3];

/// The search's speed-up on `threads` threads over one: [`SEARCH_SPEEDUP`] between its points
/// (by the logarithm of the thread count), and past 16 threads as the square root of the
/// further factor, since nothing larger was measured.
fn search_speedup(threads: usize) -> f64 {
    let t = (threads.max(1) as f64).log2();
    let last = SEARCH_SPEEDUP.len() - 1;
    if t >= last as f64 {
        return SEARCH_SPEEDUP[last] * 2f64.powf((t - last as f64) / 2.0);
    }
    let i = t.floor() as usize;
    let f = t - i as f64;
    SEARCH_SPEEDUP[i] * (SEARCH_SPEEDUP[i + 1] / SEARCH_SPEEDUP[i]).powf(f)
}

/// Fewest bytes the default table gets: small searches need little, and zeroing is cheap.
const MIN_DEFAULT_TABLE: u64 = 4 << 20;

/// Table entries the default table holds for each position [`SEARCH_FIT`] counts: far fewer
/// positions are stored than visited, and a table larger than needed is slower (zeroing it,
/// and probes missing the processor's caches and page tables). An eighth of an entry when the
/// search visited the fit's count; it now visits a fifth to a quarter of it: a 5x5 position of
/// 44 undrawn lines searched 93 M positions with a 512 MiB table and 94 M with 4 GiB, in 12.8 s
/// against 17.6 s (docs/notes/search-notes.md). A 64th since the loony-endgame leaf (2026-11-28): the
/// three 5x5 positions of 44 undrawn lines and the empty 4x4 visited as many positions with half
/// the tables a 32nd gave, and a fresh table's first touch costs 2.5 s of system time a GiB on a
/// virtual machine whose host takes free memory back ("The table's size, again"). A 128th since
/// the search's openings and captures with a choice were valued by one search (2026-11-28): the
/// same positions visited about as many positions with half those tables (rows 7 and 9 of
/// `5x5-safe.csv` 0.1-1.2 % more), their first touch on cold memory took half the system time,
/// and the empty 4x4 took 54-61 s against 68-69 s ("The table's size, a third time"). An entry
/// is one word since the same day's fifth session (it was two): the same entries in half the
/// bytes. A 16.5th since the refit of the same day, whose counts are 7x (the empty 4x4) to 9x
/// (5x5 at 44 undrawn lines) below the old fit's: the factor that keeps every size measured
/// above (rows 7 and 9 of `5x5-safe.csv` 128 MiB, row 8 256 MiB, the empty 4x4 1 GiB).
const ENTRIES_PER_POSITION: f64 = 1.0 / 16.5;

/// Share of the memory available that the default table may take.
const TABLE_SHARE_OF_MEMORY: u64 = 4;

/// The fitted count (every move valued) from which a search gets at least
/// [`LARGE_SEARCH_TABLE`]: one priced at a quarter of a minute or more on one thread.
const LARGE_SEARCH_POSITIONS: f64 = 1e8;

/// The least default table of a search of [`LARGE_SEARCH_POSITIONS`] or more. Among positions
/// of one undrawn count the fit's safe-lines term spreads its counts far wider than the
/// searches spread, and unrelated to them: fifteen 5x5 games of 44 undrawn lines
/// (`tests/data/search/5x5-44.csv`), 26 to 34 safe lines, fitted at 109 M to 1.5 G positions,
/// searched 31 M to 209 M (value only), and the three the fit put lowest among the largest
/// searches got 64 MiB and took 1.2-1.4x as long as with 128 MiB (1.3-1.7x against 256 MiB),
/// where a table twice too large costs a few percent (docs/notes/search-notes.md, "The table of a
/// large search").
const LARGE_SEARCH_TABLE: u64 = 128 << 20;

/// The undrawn lines of `pos` that complete no box and leave no box with three sides drawn.
pub fn safe_moves(pos: Position) -> impl Iterator<Item = crate::game::Line> {
    let board = pos.board;
    let sides = move |b: usize| board.box_sides(b).iter().filter(|&&l| pos.drawn.contains(l)).count();
    pos.undrawn().iter().filter(move |&l| board.line_boxes(l).into_iter().all(|b| sides(b) <= 1))
}

/// How many lines of `pos` are safe ([`safe_moves`]).
pub(crate) fn safe_lines(pos: Position) -> u32 {
    safe_moves(pos).count() as u32
}

/// The positions a search of `pos` is expected to visit (every move valued).
pub fn search_positions(pos: Position) -> f64 {
    let (a, b, c) = SEARCH_FIT;
    (a + b * pos.undrawn().len() as f64 + c * safe_lines(pos) as f64).exp()
}

/// The search's default table for `pos`: [`ENTRIES_PER_POSITION`] of an entry per position it
/// is expected to visit, at least 4 MiB ([`LARGE_SEARCH_TABLE`] for a large search), and at
/// most a quarter of the memory available (`available`, bytes; None: not known, 256 MiB),
/// rounded down to a power of two as the table is.
pub(crate) fn default_table_bytes(pos: Position, available: Option<u64>) -> u64 {
    let count = search_positions(pos);
    let wanted = table_for_count(count);
    let least = if count >= LARGE_SEARCH_POSITIONS { LARGE_SEARCH_TABLE } else { MIN_DEFAULT_TABLE };
    let cap = available.map_or(super::search::DEFAULT_TT_BYTES, |a| a / TABLE_SHARE_OF_MEMORY);
    // Rounded down as the table rounds it, so the size named is the size zeroed.
    super::search::usable_bytes(wanted.max(least).min(cap.max(MIN_DEFAULT_TABLE)))
}

/// The bytes of [`ENTRIES_PER_POSITION`] of an entry for each of `count` fitted positions.
fn table_for_count(count: f64) -> u64 {
    (count * ENTRIES_PER_POSITION * super::search::ENTRY_BYTES as f64).min(u64::MAX as f64) as u64
}

/// [`default_table_bytes`] with the memory this machine has available now, or the address
/// space this process may still map under `ulimit -v` where that is less.
pub fn table_bytes_here(pos: Position) -> u64 {
    let room = [crate::support::available_memory_bytes(), crate::support::address_space_left()];
    default_table_bytes(pos, room.into_iter().flatten().min())
}

/// What each engine would take on a position, in seconds (None: the engine does not take it).
#[derive(Clone, Debug, PartialEq)]
pub struct EngineCosts {
    /// The retrograde in memory, by the cost model.
    pub partition: Option<f64>,
    /// The search with every move valued and its default table.
    pub search: Option<f64>,
    /// The positions the search is expected to visit.
    pub search_positions: f64,
}

impl EngineCosts {
    /// Prices `pos` on `threads` threads with `model`, the search's table `table_bytes`.
    pub fn of(pos: Position, model: &CostModel, threads: usize, table_bytes: u64) -> EngineCosts {
        let free = pos.undrawn().len() as usize;
        let partition = (free <= MAX_FREE_IN_MEMORY).then(|| SolveEstimate::of(pos, model, threads).seconds);
        let positions = search_positions(pos);
        let ns = positions * SEARCH_NS_PER_POSITION / search_speedup(threads) + table_bytes as f64 * TABLE_NS_PER_BYTE;
        let search = (free <= MAX_FREE_LINES).then(|| ns * machine_scale(model) / 1e9);
        EngineCosts { partition, search, search_positions: positions }
    }

    /// The engine of least cost, None when neither takes it. The search must be cheaper by
    /// [`SEARCH_MARGIN`]: its count is within 2x of most recorded counts (4.2x of every one),
    /// the retrograde's much closer, so near a tie the retrograde is the safer choice.
    pub fn cheapest(&self) -> Option<Answerer> {
        match (self.partition, self.search) {
            (Some(p), Some(s)) if s * SEARCH_MARGIN < p => Some(Answerer::Search),
            (Some(_), _) => Some(Answerer::Partition),
            (None, Some(_)) => Some(Answerer::Search),
            (None, None) => None,
        }
    }
}

/// Safe lines that a line drawn takes away, on average, as a game goes on: fifteen 5x5 games
/// of safe moves at 44 undrawn lines had 26 to 34 safe lines left of their 60
/// (`tests/data/search/5x5-44.csv`), about two for each line drawn.
const SAFE_LINES_PER_LINE: f64 = 2.0;

/// The most undrawn lines at which a game going on from `pos` is priced to be proven within
/// `seconds` on `threads` threads of `model`'s machine: the search's price
/// ([`search_positions`]) with the safe lines falling by [`SAFE_LINES_PER_LINE`] for each line
/// drawn, at most the undrawn lines `auto` searches. A person's "exact from about N undrawn
/// lines": rough, as the fit and the fall of the safe lines are.
pub fn exact_from(pos: Position, model: &CostModel, threads: usize, seconds: f64) -> usize {
    let free = pos.undrawn().len() as usize;
    let safe = safe_lines(pos) as f64;
    let (a, b, c) = SEARCH_FIT;
    let scale = machine_scale(model);
    let price = |u: usize| {
        let s = (safe - SAFE_LINES_PER_LINE * (free - u) as f64).max(0.0);
        let positions = (a + b * u as f64 + c * s).exp();
        let table = table_for_count(positions).clamp(MIN_DEFAULT_TABLE, super::search::DEFAULT_TT_BYTES);
        (positions * SEARCH_NS_PER_POSITION / search_speedup(threads) + table as f64 * TABLE_NS_PER_BYTE) * scale / 1e9
    };
    (0..=free.min(super::query::AUTO_SEARCH_FREE)).rev().find(|&u| price(u) <= seconds).unwrap_or(0)
}

/// How much slower `model`'s machine is than the built-in models', by the time it and the
/// built-in model of its own kernel give one solve: the search's figures, measured on the
/// built-ins' machine, scale by it. The same kernel's, since the search runs no kernel: a model
/// of the kernel without byte gathers is slower than one with them on the same machine.
fn machine_scale(model: &CostModel) -> f64 {
    static BUILT_IN: [std::sync::OnceLock<f64>; 2] = [std::sync::OnceLock::new(), std::sync::OnceLock::new()];
    let reference = || Position::empty("3x3".parse().expect("a board"));
    let theirs = SolveEstimate::of(reference(), model, 1).seconds;
    let kind = model.simd.gathers();
    let ours = *BUILT_IN[kind as usize]
        .get_or_init(|| SolveEstimate::of(reference(), &CostModel::built_in_for(model.simd), 1).seconds);
    if ours > 0.0 && theirs.is_finite() && theirs > 0.0 { theirs / ours } else { 1.0 }
}

/// Seconds a slow twin takes on a position of `undrawn` lines on the built-in model's machine
/// (None for the other engines): the minimax twin about 2.64x a line from 0.69 s on 17, the
/// dense twin 2x a line from 93 s on 31 (docs/notes/search-notes.md).
pub fn twin_seconds(engine: super::Engine, undrawn: usize) -> Option<f64> {
    let n = undrawn as i32;
    match engine {
        super::Engine::Minimax => Some(0.69 * 2.64f64.powi(n - 17)),
        super::Engine::Dense => Some(93.0 * 2f64.powi(n - 31)),
        _ => None,
    }
}

/// Nanoseconds the walk for the next loony move ([`super::control`]) spends on a position it
/// visits, on one thread of the built-in model's machine: a * undrawn + b * quiet, the root's
/// undrawn lines (each a move whose value is looked up) and its *quiet* ones (that complete no
/// box: a best one is tested for loony, and a walk through quiet moves keeps more positions
/// apart). Fitted by `control::tests::measure_the_walk_price` on 23 walks (the empty 3x3 and
/// 2x4, random 3x4 and 4x4 positions, and 6x6 to 16x16 positions of 16 to 24 lines undrawn
/// apart or in worms through boxes) in four runs on this 2-core machine shared with two builds
/// (2026-11-29, load 4): (59, 50), (78, 100), (80, 82), (88, 79); taken near the dearest, so
/// that a walk priced within its budget keeps to it on a busy machine (the empty 3x3, 3.1-5.0
/// us a position, is priced at 4.1).
const WALK_NS: (f64, f64) = (80.0, 90.0);

/// Nanoseconds a walk spends on each value it reads from a store (its file found, the value's
/// chunk read and checked), on the built-in model's machine: the empty 3x3's walk from a store
/// of its whole solve, 2.2 M reads in 3.2 s before walks were priced (1.4 us each, the walk's
/// own 0.2 us taken out), and 9,727 positions of 24 reads in 0.22 s after (1.0 us).
const WALK_STORE_READ_NS: f64 = 1000.0;

/// The least budget of a walk: what an answer may spend on the next loony move past its
/// engine's own time, however quick that was. Half a second buys the empty 3x3's whole walk
/// (92,613 positions of 24 quiet lines, 0.38 s at [`WALK_NS`]), and keeps a 16x16 answer whose
/// walk is left out within a second.
pub const WALK_LEAST_SECONDS: f64 = 0.5;

/// The least a walk on a store's values gets: a query of a store answers within half a second
/// whatever the walk needs.
pub const STORE_WALK_LEAST_SECONDS: f64 = 0.25;

/// Where a walk's values come from, which sets its price.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkValues {
    /// A table in memory: the retrograde's partitions or the dense twin's.
    Memory,
    /// A store's files, read a value at a time.
    Store,
}

/// The walk's price of a position of `pos`'s walk, in seconds on `model`'s machine.
pub fn walk_seconds_per_position(pos: Position, values: WalkValues, model: &CostModel) -> f64 {
    let read = if values == WalkValues::Store { WALK_STORE_READ_NS } else { 0.0 };
    let undrawn = pos.undrawn().len() as f64;
    let ns = (WALK_NS.0 + read) * undrawn + WALK_NS.1 * quiet_lines(pos) as f64;
    ns * machine_scale(model) / 1e9
}

/// How many undrawn lines of `pos` complete no box: its *quiet* moves.
pub(crate) fn quiet_lines(pos: Position) -> u32 {
    pos.undrawn().iter().filter(|&l| pos.board.completes(pos.drawn, l) == 0).count() as u32
}

/// The budget of the walk for the next loony move of `pos` after an engine that answered in
/// `engine_seconds`: as long again, at least [`WALK_LEAST_SECONDS`], and no later than
/// `deadline` where the answer has one; in positions at the walk's price on `model`'s
/// machine.
pub fn walk_budget(
    pos: Position,
    engine_seconds: f64,
    deadline: Option<std::time::Instant>,
    values: WalkValues,
    model: &CostModel,
) -> super::control::WalkBudget {
    // A store's walk reads from disk, whose pace no price holds (a cold 44 GB store reads ten
    // times slower than a warm one): it gets less, and its clock stops it too.
    let least = match values {
        WalkValues::Memory => WALK_LEAST_SECONDS,
        WalkValues::Store => STORE_WALK_LEAST_SECONDS,
    };
    let mut seconds = engine_seconds.max(least);
    if let Some(d) = deadline {
        seconds = seconds.min(d.saturating_duration_since(std::time::Instant::now()).as_secs_f64());
    }
    let positions = match values {
        // Its clock stops it: a store's pages cached or not set its pace, not the price.
        WalkValues::Store if seconds > 0.0 => super::control::MAX_POSITIONS,
        _ => {
            let each = walk_seconds_per_position(pos, values, model);
            (seconds / each).min(super::control::MAX_POSITIONS as f64).max(0.0) as usize
        }
    };
    super::control::WalkBudget { seconds, positions, clocked: values == WalkValues::Store }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_empty_board_is_safe_and_a_three_sided_box_makes_two_unsafe() {
        let b = "2x2".parse().unwrap();
        assert_eq!(safe_lines(Position::empty(b)), 12);
        // Box (0,0)'s top and left drawn: its bottom and right give it a third side.
        let pos = Position::from_line_string(b, "100000100000").unwrap();
        assert_eq!(safe_lines(pos), 8);
    }

    #[test]
    fn a_game_is_proven_from_fewer_undrawn_lines_the_less_time_it_is_given() {
        let model = CostModel::built_in();
        let empty = Position::empty("5x5".parse().unwrap());
        let from: Vec<usize> = [0.01, 0.1, 1.0, 10.0, 100.0].iter().map(|&s| exact_from(empty, &model, 2, s)).collect();
        assert!(from.windows(2).all(|w| w[0] <= w[1]), "{from:?}");
        assert!(from.iter().all(|&n| n < 60) && from[0] < from[4], "{from:?}");
        // Never past what auto searches, however long; a small position is within reach.
        assert_eq!(exact_from(empty, &model, 2, 1e12), super::super::query::AUTO_SEARCH_FREE);
        let small = Position::empty("2x2".parse().unwrap());
        assert_eq!(exact_from(small, &model, 1, 1.0), 12);
    }

    #[test]
    fn the_search_speedup_meets_its_measured_points_and_only_grows_with_threads() {
        for (i, &x) in SEARCH_SPEEDUP.iter().enumerate() {
            assert!((search_speedup(1 << i) - x).abs() < 1e-9, "{} threads", 1 << i);
        }
        assert_eq!(search_speedup(0), 1.0);
        assert!((search_speedup(64) - 12.6).abs() < 1e-9, "twice 16's for four times the threads");
        let all: Vec<f64> = (1..=128).map(search_speedup).collect();
        assert!(all.windows(2).all(|w| w[0] < w[1]), "{all:?}");
    }

    /// The recorded searches the fit is made from (`tests/data/search/search-fit.csv`): each
    /// position, the positions a search of every move visited, its seconds on one thread and
    /// its table's bytes.
    fn recorded() -> Vec<(Position, f64, f64, f64)> {
        positions_in("search-fit.csv", "board,lines,positions,seconds,table_bytes")
            .into_iter()
            .map(|(pos, f)| {
                let num = |i: usize| f[i].parse::<f64>().unwrap();
                (pos, num(2), num(3), num(4))
            })
            .collect()
    }

    /// The positions of `tests/data/search/<name>` (columns `board,lines,...` under `header`),
    /// each with its row's fields.
    fn positions_in(name: &str, header: &str) -> Vec<(Position, csv::StringRecord)> {
        let file = format!("{}/tests/data/search/{name}", env!("CARGO_MANIFEST_DIR"));
        let mut reader = csv::Reader::from_path(&file).unwrap();
        assert_eq!(
            reader.headers().unwrap(),
            &csv::StringRecord::from(header.split(',').collect::<Vec<_>>()),
            "{file}"
        );
        reader
            .records()
            .map(|row| {
                let row = row.unwrap();
                (Position::from_line_string(row[0].parse().unwrap(), &row[1]).unwrap(), row)
            })
            .collect()
    }

    /// The least-squares fit of ln(positions) = a + b * undrawn + c * safe over `rows`.
    fn least_squares(rows: &[(Position, f64, f64, f64)]) -> (f64, f64, f64) {
        let mut m = [[0.0f64; 4]; 3];
        for &(pos, positions, _, _) in rows {
            let x = [1.0, pos.undrawn().len() as f64, safe_lines(pos) as f64];
            for i in 0..3 {
                for j in 0..3 {
                    m[i][j] += x[i] * x[j];
                }
                m[i][3] += x[i] * positions.ln();
            }
        }
        // Gauss-Jordan on the normal equations (positive definite: no pivoting needed).
        for k in 0..3 {
            let p = m[k][k];
            for v in m[k].iter_mut() {
                *v /= p;
            }
            let pivot = m[k];
            for (_, row) in m.iter_mut().enumerate().filter(|&(i, _)| i != k) {
                let f = row[k];
                for (v, p) in row.iter_mut().zip(pivot) {
                    *v -= f * p;
                }
            }
        }
        (m[0][3], m[1][3], m[2][3])
    }

    #[test]
    fn the_search_fit_is_the_least_squares_fit_of_the_recorded_searches() {
        let rows = recorded();
        assert!(rows.len() >= 30, "{} searches", rows.len());
        let (a, b, c) = least_squares(&rows);
        let (fa, fb, fc) = SEARCH_FIT;
        assert!((a - fa).abs() < 1e-3 && (b - fb).abs() < 1e-4 && (c - fc).abs() < 1e-4, "fit ({a}, {b}, {c})");
        // Within 5x of every count (0.24x to 3.7x when fitted), and about as often above as
        // below.
        let ratios: Vec<f64> = rows.iter().map(|&(pos, positions, _, _)| search_positions(pos) / positions).collect();
        assert!(ratios.iter().all(|r| (0.2..5.0).contains(r)), "{ratios:?}");
        let above = ratios.iter().filter(|&&r| r > 1.0).count();
        assert!((rows.len() / 3..=2 * rows.len() / 3).contains(&above), "{ratios:?}");
        // The time per position: the median over the searches of a million positions or more.
        let mut ns: Vec<f64> = rows
            .iter()
            .filter(|r| r.1 >= 1e6)
            .map(|&(_, positions, seconds, table)| (seconds - table * TABLE_NS_PER_BYTE / 1e9) * 1e9 / positions)
            .collect();
        ns.sort_by(f64::total_cmp);
        assert!((ns[ns.len() / 2] - SEARCH_NS_PER_POSITION).abs() < 1.0, "{ns:?}");
    }

    #[test]
    fn the_least_walk_budget_buys_the_empty_3x3_and_a_deadline_cuts_it() {
        let model = CostModel::built_in();
        let empty = Position::empty("3x3".parse().unwrap());
        let walk = walk_budget(empty, 0.01, None, WalkValues::Memory, &model);
        assert_eq!(walk.seconds, WALK_LEAST_SECONDS);
        assert!(walk.positions >= 92_613, "{walk:?}");
        // A slow engine's walk gets as long again; a store's reads cost more a position.
        let slow = walk_budget(empty, 2.0, None, WalkValues::Memory, &model);
        assert_eq!(slow.positions, super::super::control::MAX_POSITIONS.min(slow.positions));
        assert!(slow.positions > walk.positions);
        // A store's walk goes by its clock, for less time.
        let store = walk_budget(empty, 0.01, None, WalkValues::Store, &model);
        assert!(store.clocked && !walk.clocked, "{store:?}");
        assert_eq!((store.seconds, store.positions), (STORE_WALK_LEAST_SECONDS, super::super::control::MAX_POSITIONS));
        let past = walk_budget(empty, 1.0, Some(std::time::Instant::now()), WalkValues::Store, &model);
        assert_eq!(past.positions, 0);
        // A position whose every move is a capture is cheaper a position than a quiet one.
        let board: crate::game::Board = "16x16".parse().unwrap();
        let apart = Position { board, drawn: board.full().minus([board.h(1, 1), board.h(5, 5)].into_iter().collect()) };
        assert_eq!(quiet_lines(apart), 0);
        assert_eq!(quiet_lines(empty), 24);
        let per = |p| walk_seconds_per_position(p, WalkValues::Memory, &model) / p.undrawn().len() as f64;
        assert!(per(apart) < per(empty) / 2.0);
        // A deadline past: nothing to walk.
        let past = walk_budget(empty, 1.0, Some(std::time::Instant::now()), WalkValues::Memory, &model);
        assert_eq!(past.positions, 0);
    }

    #[test]
    fn the_default_table_grows_with_the_search_and_stays_within_memory() {
        let small = Position::empty("2x2".parse().unwrap());
        assert_eq!(default_table_bytes(small, Some(1 << 40)), MIN_DEFAULT_TABLE);
        let large = Position::empty("4x4".parse().unwrap());
        // The fitted size (a 16.5th of an entry per fitted position, one word an entry), under
        // the cap.
        assert_eq!(default_table_bytes(large, Some(8 << 30)), 1 << 30);
        assert_eq!(default_table_bytes(large, Some(2 << 30)), 512 << 20, "a quarter of the memory");
        assert_eq!(default_table_bytes(large, Some(1 << 20)), MIN_DEFAULT_TABLE);
        assert_eq!(default_table_bytes(large, None), super::super::search::DEFAULT_TT_BYTES);
    }

    /// Every 5x5 game of 44 undrawn lines in `5x5-44.csv` is a large search and gets at least
    /// [`LARGE_SEARCH_TABLE`], some of them more than the fit alone gives; the cap still bounds it.
    #[test]
    fn a_large_search_gets_the_large_searchs_table_within_the_cap() {
        let positions: Vec<Position> =
            positions_in("5x5-44.csv", "board,lines,value").into_iter().map(|(pos, _)| pos).collect();
        assert_eq!(positions.len(), 15);
        assert!(
            positions.iter().filter(|&&p| table_for_count(search_positions(p)) < LARGE_SEARCH_TABLE).count() >= 5,
            "the fit alone gives less"
        );
        for &pos in &positions {
            assert!(search_positions(pos) >= LARGE_SEARCH_POSITIONS);
            assert!(default_table_bytes(pos, Some(1 << 40)) >= LARGE_SEARCH_TABLE);
            assert_eq!(default_table_bytes(pos, Some(256 << 20)), 64 << 20, "a quarter of the memory");
        }
        // A search the fit prices below the threshold keeps the fit's table.
        let small = Position::empty("3x3".parse().unwrap());
        assert!(search_positions(small) < LARGE_SEARCH_POSITIONS);
        assert!(default_table_bytes(small, Some(1 << 40)) < LARGE_SEARCH_TABLE);
    }
}
