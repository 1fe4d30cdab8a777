//! The driver of a search: the table, rules and leaves built for the root, the threads that
//! find the root's value and then every move's, the progress reports, and the outcome.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::game::{Line, LineSet, Position, Value};
use crate::solver::{MAX_FREE_LINES, Space};

use super::super::control::{Control, MAX_POSITIONS, NextLoony, WalkBudget, next_loony_within};

use super::book::BookLeaves;
use super::rules::Rules;
use super::searcher::{
    BUSY_BITS, Counters, GraphKeys, Keys, Searcher, Shared, StateKeys, pack_bounds, unpack_bounds, unpack_root_move,
};
use super::table::Table;
use super::{INF, MAX_LEAF_LINES, SearchError, SearchOptions, SearchOutcome, SearchProgress, SoFar};

/// Searches `root` to its exact value and every move's, on `opts.threads` threads.
pub fn search(root: Position, opts: SearchOptions) -> Result<SearchOutcome, SearchError> {
    let start = Instant::now();
    let free = root.undrawn().len() as usize;
    if free > MAX_FREE_LINES {
        return Err(SearchError::TooLarge(free));
    }
    let threads = opts.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
    // Zeroed by the search's threads. A state has a bit per undrawn line of the root.
    let new_table = |hashed| pool.install(|| Table::new(opts.tt_bytes, free as u32, hashed));
    if free == 0 {
        let table = new_table(false)?;
        return Ok(SearchOutcome {
            value: 0,
            moves: Vec::new(),
            best: None,
            nodes: 1,
            table_hits: 0,
            book_hits: 0,
            table_bytes: table.bytes(),
            seconds: start.elapsed().as_secs_f64(),
            next_loony: if opts.control.is_some() { Control::Known(NextLoony::Neither) } else { Control::Unknown },
        });
    }
    // One group: the space is used only for its line numbering, classes and symmetries.
    let space = Space::for_search(root).map_err(|_| SearchError::TooLarge(free))?;
    let mut rules = Rules::new(root, &space);
    rules.graph &= opts.graph_keys;
    // A kept table where its keys are this root's: graph keys, the same boxes left.
    let kept = opts.kept.filter(|_| rules.graph).map(|k| (k, live_boxes(root)));
    let table = match kept.as_ref().and_then(|(k, live)| k.take(root.board, live)) {
        Some(t) => t,
        None => new_table(rules.graph)?,
    };
    let book = opts.book.and_then(|b| BookLeaves::new(b, root, &space));
    let counters = Counters::default();
    counters.bounds.store(pack_bounds(-INF, INF), Relaxed);
    counters.guess.store(opts.guess.clamp(-INF + 1, INF - 1) as i64 as u64, Relaxed);
    let busy: Vec<AtomicU64> = (0..1usize << BUSY_BITS).map(|_| AtomicU64::new(0)).collect();
    let shared = Shared {
        rules: &rules,
        table: &table,
        counters: &counters,
        theorems: rules.theorems && opts.theorems,
        leaf_lines: opts.leaf_lines.min(MAX_LEAF_LINES) as u32,
        etc_lines: opts.etc_lines,
        threads,
        book: book.as_ref(),
        deadline: opts.deadline,
        stop: opts.stop,
        busy: &busy,
        busy_lines: opts.busy_lines,
    };
    let done = AtomicBool::new(false);
    let (value, values, best) = std::thread::scope(|scope| {
        let reporter = opts.progress.map(|progress| {
            let root_moves = if opts.move_values { free } else { 0 };
            let (counters, done) = (&counters, &done);
            scope.spawn(move || report_progress(progress, opts.progress_seconds, counters, done, root_moves, start))
        });
        let (value, values, best) = if rules.graph {
            value_and_moves::<GraphKeys>(&pool, &shared, free, opts)
        } else {
            value_and_moves::<StateKeys>(&pool, &shared, free, opts)
        };
        done.store(true, Relaxed);
        // Woken at once, not at its next tick: the scope waits for it.
        if let Some(r) = &reporter {
            r.thread().unpark();
        }
        (value, values, best.flatten())
    });
    let table_bytes = table.bytes();
    let failed = if let Some(e) = opts.book.and_then(|b| b.take_error()) {
        Some(SearchError::Book(e.to_string()))
    } else if counters.out_of_time.load(Relaxed) {
        Some(SearchError::OutOfTime(start.elapsed().as_secs_f64()))
    } else if opts.stop.is_some_and(|s| s.load(Relaxed)) {
        Some(SearchError::Stopped)
    } else {
        None
    };
    let seconds = start.elapsed().as_secs_f64();
    // The walk for the next loony move reads the table before it is kept for the next search.
    let next_loony = match opts.control.filter(|_| failed.is_none()) {
        Some(budget) if rules.graph => control::<GraphKeys>(&shared, root, &space, budget(seconds)),
        Some(budget) => control::<StateKeys>(&shared, root, &space, budget(seconds)),
        None => Control::Unknown,
    };
    if let Some((k, live)) = kept {
        k.keep(root.board, live, table);
    }
    if let Some(so_far) = opts.so_far {
        let (lower, upper) = unpack_bounds(counters.bounds.load(Relaxed));
        let best = unpack_root_move(counters.root_best.load(Relaxed));
        *so_far.lock().unwrap_or_else(|e| e.into_inner()) = Some(SoFar {
            lower,
            upper,
            best: best.map(|(_, i)| space.lines[i as usize]),
            at_least: best.map_or(-INF, |(v, _)| v),
        });
    }
    if let Some(e) = failed {
        return Err(e);
    }
    let mut moves: Vec<(Line, u8, i32)> =
        values.iter().map(|&(i, v)| (space.lines[i], rules.completes(0, i) as u8, v)).collect();
    moves.sort_by_key(|m| m.0);
    if let Some(best) = moves.iter().map(|m| m.2).max() {
        debug_assert_eq!(best, value, "the best move's value is the position's");
    }
    // The best move from the moves' values where they were searched.
    let best = best.map(|i| space.lines[i]).or_else(|| moves.iter().find(|m| m.2 == value).map(|m| m.0));
    Ok(SearchOutcome {
        value,
        moves,
        best,
        nodes: counters.nodes.into_inner(),
        table_hits: counters.hits.into_inner(),
        book_hits: counters.book_hits.into_inner(),
        table_bytes,
        seconds,
        next_loony,
    })
}

/// Who must make the next loony move in `root` ([`super::super::control`]), walked on the
/// search's own table within `budget`'s seconds: each value the walk reads is a search of
/// that position, most of them answered at once by what the root's search left in the
/// table. Its clock stops it (a read costs a search, which no walk's price holds), and the
/// searches within it stop at the same time.
fn control<K: Keys>(shared: &Shared, root: Position, space: &Space, budget: WalkBudget) -> Control {
    let until = Instant::now() + Duration::from_secs_f64(budget.seconds.clamp(0.0, 1e6));
    let counters = Counters::default();
    let walk =
        Shared { counters: &counters, deadline: Some(shared.deadline.map_or(until, |d| d.min(until))), ..*shared };
    let mut searcher = Searcher::<K>::new(&walk, 0);
    // The state of a position after the root: a bit per undrawn line of the root, as the
    // search numbers them.
    let lines = &space.lines;
    let mut value = |drawn: LineSet| {
        let bits = lines.iter().enumerate().filter(|(_, l)| drawn.contains(**l)).fold(0u64, |b, (i, _)| b | 1 << i);
        let v = searcher.mtdf(bits, 0);
        searcher.flush();
        if counters.stopped.load(Relaxed) {
            return Err(());
        }
        // A value past a byte (a position of more than 127 boxes left) is not one a walk reads.
        Ok(Value::try_from(v).ok())
    };
    let budget = WalkBudget { positions: MAX_POSITIONS, clocked: true, ..budget };
    next_loony_within(root, budget, &mut value)
        .unwrap_or_else(|()| Control::LeftOut(format!("left out: too deep to settle within {:.2} s", budget.seconds)))
}

/// The boxes of `pos` with an undrawn side, in order: what a graph's key numbers its boxes by.
fn live_boxes(pos: Position) -> Vec<usize> {
    let mut live: Vec<usize> = pos.undrawn().iter().flat_map(|l| pos.board.line_boxes(l)).collect();
    live.sort_unstable();
    live.dedup();
    live
}

/// The root's value, then every move's or a best move where `opts` asks, by a search whose
/// states are keyed by `K`.
fn value_and_moves<K: Keys>(
    pool: &rayon::ThreadPool,
    shared: &Shared,
    free: usize,
    opts: SearchOptions,
) -> (i32, Vec<(usize, i32)>, Option<Option<usize>>) {
    let value = root_value::<K>(pool, shared);
    let values = if opts.move_values { move_values::<K>(pool, shared, free, value) } else { Vec::new() };
    let best = (opts.best_move && !opts.move_values).then(|| {
        let mut s = Searcher::<K>::new(shared, 0);
        let best = s.best_root_move(value);
        s.flush();
        best
    });
    (value, values, best)
}

/// The root's value: every thread tests the root with a window of its own over the shared
/// table, all narrowing one pair of bounds.
fn root_value<K: Keys>(pool: &rayon::ThreadPool, shared: &Shared) -> i32 {
    pool.broadcast(|ctx| {
        let mut s = Searcher::<K>::new(shared, ctx.index());
        let v = s.root_value(ctx.index());
        s.flush();
        v
    })
    .into_iter()
    .next()
    .expect("a thread")
}

/// Every root move's value (by its index among the undrawn lines), the moves shared among
/// the threads, each from a guess made from the root's `value`.
fn move_values<K: Keys>(pool: &rayon::ThreadPool, shared: &Shared, free: usize, value: i32) -> Vec<(usize, i32)> {
    pool.install(|| {
        (0..free)
            .into_par_iter()
            .map(|i| {
                let mut s = Searcher::<K>::new(shared, 0);
                let n = shared.rules.completes(0, i);
                let v = if n > 0 { n + s.mtdf(1 << i, value - n) } else { -s.mtdf(1 << i, -value) };
                s.flush();
                shared.counters.root_done.fetch_add(1, Relaxed);
                (i, v)
            })
            .collect()
    })
}

/// Calls `progress` every `every` seconds with the shared counts until `done`.
fn report_progress(
    progress: &(dyn Fn(&SearchProgress) + Sync),
    every: f64,
    counters: &Counters,
    done: &AtomicBool,
    root_moves: usize,
    start: Instant,
) {
    let every = every.max(0.001);
    let tick = std::time::Duration::from_secs_f64(every.min(0.05));
    let mut last = Instant::now();
    // When the root's value was first seen proven: the moves' valuing starts then.
    let mut value_at = None;
    while !done.load(Relaxed) {
        // Parked rather than asleep, so that the search's end wakes it (an unpark before the
        // park is kept, so none is lost): a search of a few milliseconds took 50 ms more.
        std::thread::park_timeout(tick);
        if last.elapsed().as_secs_f64() >= every {
            last = Instant::now();
            let (lower, upper) = unpack_bounds(counters.bounds.load(Relaxed));
            let seconds = start.elapsed().as_secs_f64();
            if lower >= upper {
                value_at.get_or_insert(seconds);
            }
            let moves_done = counters.root_done.load(Relaxed) as usize;
            let moves_left_seconds = value_at
                .filter(|_| moves_done > 0)
                .map(|at| (seconds - at) / moves_done as f64 * root_moves.saturating_sub(moves_done) as f64);
            progress(&SearchProgress {
                nodes: counters.nodes.load(Relaxed),
                table_hits: counters.hits.load(Relaxed),
                lower,
                upper,
                root_moves_done: moves_done,
                root_moves,
                seconds,
                moves_left_seconds,
            });
        }
    }
}
