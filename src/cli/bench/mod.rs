//! `dab bench`: the solver against the dense twin, single-threaded, with its memory traffic
//! against the measured bandwidth (`--suite solve`), the memory bandwidth alone (`--suite
//! bandwidth`), the simulator's speed and schedule quality (`--suite sim`), plans run against
//! their predictions (`--suite run`), the endgame theorems against the solver (`--suite
//! endgame`), the search engine on boards and positions (`--suite search`), planning for a
//! cluster (`--suite cluster`), or `dab solve` on wide boards (`--suite wide`); CSV in
//! `reports/`. The rows come from `dab::bench`; this
//! module parses the flags, runs the child processes (`child.rs`), prints and writes.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::CliResult;
use dab::bench::sim::{MAX_PROCS, QUALITY_CASES};
use dab::bench::solve::{Case, DEFAULT_CASES};
use dab::bench::{cluster, endgame, memory, search, sim};
use dab::calibrate::{Bandwidth, DEFAULT_REPEATS, bandwidth as dab_bandwidth, default_array_bytes};

mod child;
mod predict;
mod serve;

/// Runs of each plan, candidate or request in `--suite run` and `--suite serve` where
/// `--repeats` is not given.
const RUN_REPEATS: usize = 3;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Suite {
    Solve,
    Sim,
    Run,
    Endgame,
    Memory,
    Bandwidth,
    Search,
    Cluster,
    Serve,
    Play,
    Nimstring,
    Predict,
    Wide,
    Query,
}

#[derive(Args)]
pub struct BenchArgs {
    /// What to measure.
    #[arg(long, value_enum, default_value_t = Suite::Solve)]
    pub suite: Suite,
    /// Thread counts, separated by commas: of the partitioned solver in `--suite solve`, each
    /// on the row path and on the scalar twin, the dense twin on one (default: 1); of `--suite
    /// memory` and `--suite search` (default: 1,2).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub sweep: Option<Vec<usize>>,
    #[command(flatten)]
    pub not_threads: super::SweepNotThreads,
    /// Boards for `--suite run`, `--suite memory`, `--suite cluster` and `--suite predict`.
    #[arg(long, value_delimiter = ',', default_value = "3x4,2x6")]
    pub boards: Vec<String>,
    /// Node counts of `--suite cluster` (nodes of 32 threads and 256 GB, a store of 100 GB/s,
    /// 1 s of dispatch a task).
    #[arg(long, value_delimiter = ',', default_value = "64", value_name = "LIST",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub nodes: Vec<u32>,
    /// Cost model for `--suite run` (default: this kernel's in sims/, as `dab plan` takes it).
    #[arg(long, value_name = "FILE")]
    pub cost: Option<PathBuf>,
    /// Runs of each plan or candidate in `--suite run` and of each request in `--suite serve`
    /// (default 3), of each board's whole `dab run` in `--suite predict` (default 10), of each
    /// search in `--suite search` (default 1; rounds over every case), of each solve in `--suite
    /// wide` (default 1): the median is reported.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=super::MAX_REPEATS as i64))]
    pub repeats: Option<u32>,
    /// Solve cases: empty boards (MxN) or `chains-3x8` (32 undrawn lines on 3x8).
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_CASES.iter().map(|s| s.to_string()))]
    pub cases: Vec<String>,
    /// Loops-and-chains positions for `--suite endgame` (a folder of ASCII art files).
    #[arg(long, value_name = "DIR", default_value = "tests/data/endgame")]
    pub positions: PathBuf,
    /// MiB of each of the three arrays of the bandwidth measurement (`--suite bandwidth`, and
    /// the roof of `--suite solve`); default 256, less where three would exceed a quarter of
    /// the memory available.
    #[arg(long, value_name = "N")]
    pub bandwidth_mib: Option<u64>,
    /// Cases of `--suite search`: empty boards (MxN) or CSV files of positions
    /// (`board,lines,value`, the value optional).
    #[arg(long, value_delimiter = ',', default_value = "3x4,tests/data/search/5x5-safe.csv", value_name = "LIST")]
    pub search_cases: Vec<String>,
    /// Transposition table of `--suite search`: a size, or `auto` for each position's default
    /// (the table `dab solve` gives it, from its expected count and the memory available).
    #[arg(long, value_name = "BYTES", default_value = "256MiB", value_parser = table_size)]
    pub tt_size: TableSize,
    /// A store whose book values the positions of `--suite search` (the 4x4 book for
    /// `tests/data/search/4x4-book.csv`).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// `--suite search`: time the retrograde in memory too, on positions of at most 32 undrawn
    /// lines, and check the values agree.
    #[arg(long)]
    pub retrograde: bool,
    /// `--suite play`: boards where dab plays the random-safe player ('' for none).
    #[arg(long, value_delimiter = ',', default_value = "5x5,6x6", value_name = "LIST")]
    pub play_boards: Vec<String>,
    /// `--suite play`: boards where dab plays exact play (a solve of the board kept whole, at
    /// most 31 undrawn lines, or the book of --store).
    #[arg(long, value_delimiter = ',', default_value = "3x4", value_name = "LIST")]
    pub exact_boards: Vec<String>,
    /// `--suite play`: boards where dab plays the hybrid opponent: random-safe until 40
    /// undrawn lines, then a best move by the search ('' for none); dab's moves at 40 to 48
    /// undrawn lines that it did not prove best are reviewed exactly after each game.
    #[arg(long, value_delimiter = ',', default_value = "5x5,6x6", value_name = "LIST")]
    pub hybrid_boards: Vec<String>,
    /// `--suite play`: seconds each position of a reviewed move may take to be valued exactly
    /// (a move not valued within them is counted apart, not reviewed).
    #[arg(long, default_value_t = 60.0, value_name = "S", value_parser = super::seconds)]
    pub review_seconds: f64,
    /// `--suite play`: seeds the random-safe and hybrid opponents (runs of a few games each,
    /// one seed apiece, make one longer run).
    #[arg(long, default_value_t = 0x9e37_79b9, value_name = "N")]
    pub seed: u64,
    /// `--suite play`: games on each board, dab moving first in half of them.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub games: usize,
    /// `--suite play`: the budget of each of dab's moves, in seconds.
    #[arg(long, default_value_t = 1.0, value_name = "S", value_parser = super::seconds)]
    pub seconds: f64,
    /// `--suite nimstring`: positions to value (`group,board,lines`).
    #[arg(long, value_name = "FILE", default_value = "tests/data/nimstring/bench.csv")]
    pub nim_cases: PathBuf,
    /// `--suite query`: random positions queried beside the empty board and each first move.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub random: usize,
    /// `--suite query`: the `dab` binary whose queries are timed (default: this one), to set
    /// two versions side by side on the same positions.
    #[arg(long, value_name = "FILE")]
    pub exe: Option<PathBuf>,
    /// Where to write the CSV (default: reports/runs/bench.csv, reports/runs/bench-bandwidth.csv,
    /// ..., one per suite; reports/runs/bench-sim.csv with bench-sim-speed.csv beside it).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

pub fn run_cmd(args: BenchArgs) -> CliResult {
    check_threads(&args)?;
    match args.suite {
        Suite::Solve => solve(args),
        Suite::Sim => sim(args),
        Suite::Run => run_suite(args),
        Suite::Endgame => endgame(args),
        Suite::Memory => memory(args),
        Suite::Bandwidth => bandwidth(args),
        Suite::Search => search_suite(args),
        Suite::Cluster => cluster_suite(args),
        Suite::Serve => serve::run(args),
        Suite::Play => play_suite(args),
        Suite::Nimstring => nimstring_suite(args),
        Suite::Predict => predict::run(args),
        Suite::Wide => wide_suite(args),
        Suite::Query => query_suite(args),
    }
}

impl BenchArgs {
    /// `--repeats`, or the suite's default.
    pub fn repeats_or(&self, default: usize) -> usize {
        self.repeats.map_or(default, |k| k as usize)
    }

    /// The thread counts of `--sweep`, or the suite's default.
    fn thread_counts(&self) -> Vec<usize> {
        self.sweep.clone().unwrap_or_else(|| match self.suite {
            Suite::Solve => vec![1],
            _ => vec![1, 2],
        })
    }
}

/// Every count of `--sweep`, whichever suite reads them, refused before any work when it is 0
/// or more than this machine runs at once: a usage error, never one found minutes into a suite.
fn check_threads(args: &BenchArgs) -> Result<(), String> {
    args.not_threads.check("bench")?;
    for &p in args.sweep.iter().flatten() {
        if p == 0 {
            return Err("--sweep: thread counts must be at least 1".into());
        }
        super::run_threads(p)?;
    }
    Ok(())
}

/// `--tt-size` of `--suite search`: bytes, or None for `auto` (each position's default).
#[derive(Clone, Copy, Debug)]
pub struct TableSize(pub Option<u64>);

fn table_size(text: &str) -> Result<TableSize, String> {
    match text {
        "auto" => Ok(TableSize(None)),
        _ => super::bytes(text).map(|b| TableSize(Some(b))).map_err(|e| format!("{e} (or auto)")),
    }
}

fn search_suite(args: BenchArgs) -> CliResult {
    let output = args.output.clone().unwrap_or_else(|| super::runs_path("bench-search.csv"));
    let mut cases = Vec::new();
    for spec in &args.search_cases {
        cases.extend(search::cases(spec).map_err(|e| match e {
            search::CasesError::Unreadable { .. } => format!("--search-cases {e}"),
            search::CasesError::Row { .. } => e.to_string(),
        })?);
    }
    let threads = args.thread_counts();
    let repeats = args.repeats_or(1);
    let opts =
        search::Options { threads: &threads, store: args.store.as_deref(), retrograde: args.retrograde, repeats };
    if repeats > 1 {
        super::note!("each search {repeats} times, in rounds over every case: the rows come in the last round");
    }
    println!(
        "{:<16} {:<5} {:>7} {:>7} {:>5} {:>8} {:>6} {:>10} {:>10} {:>9} {:>10}",
        "case",
        "board",
        "undrawn",
        "threads",
        "value",
        "expected",
        "agree",
        "search s",
        "positions",
        "peak MB",
        "retro s"
    );
    let exe = std::env::current_exe()?;
    let mut solve = |pos, p, engine| child::solve_position(&exe, pos, p, engine, args.tt_size.0);
    let rows = search::rows(&cases, &opts, &mut solve, &mut |r| {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        println!(
            "{:<16} {:<5} {:>7} {:>7} {:>5} {:>8} {:>6} {:>10.3} {:>10.3e} {:>9} {:>10}",
            r.case,
            r.board,
            r.undrawn,
            r.threads,
            r.value,
            opt(r.expected.map(|v| format!("{v}"))),
            opt(r.agree.map(|a| a.to_string())),
            r.search_seconds,
            r.positions_searched as f64,
            opt(r.peak_rss_bytes.map(|b| format!("{:.0}", b as f64 / 1e6))),
            opt(r.retrograde_seconds.map(|s| format!("{s:.3}"))),
        );
        if let (Some(search), Some(engine), Some(auto), Some(ratio)) =
            (r.hint_search_seconds, &r.auto_engine, r.auto_seconds, r.auto_over_best)
        {
            let p = opt(r.hint_partition_seconds.map(|s| format!("{s:.3}")));
            println!(
                "  as a hint: partition {p} s, search {search:.3} s, auto ({engine}) {auto:.3} s: {ratio:.2}x the fastest"
            );
        }
    })?;
    for s in search::summary(&rows) {
        println!(
            "{} case(s) on {} thread(s): median {:.3} s, mean {:.3} s{}",
            s.cases,
            s.threads,
            s.median_seconds,
            s.mean_seconds,
            if repeats > 1 { format!(" (each case's median of {repeats} runs)") } else { String::new() }
        );
    }
    dab::support::write_csv(&rows, &output)?;
    println!("wrote {}", output.display());
    if rows.iter().any(|r| r.agree == Some(false)) {
        return Err("the search's value differs from the expected value on a row marked agree=false".into());
    }
    Ok(())
}

/// The machine's memory bandwidth on one thread and on all of them, at `--bandwidth-mib`.
fn measure_bandwidth(mib: Option<u64>) -> Result<[Bandwidth; 2], Box<dyn std::error::Error>> {
    let bytes = match mib {
        Some(0) => return Err("--bandwidth-mib must be at least 1".into()),
        Some(m) => m.checked_mul(1 << 20).ok_or_else(|| format!("--bandwidth-mib {m} is too large"))?,
        None => default_array_bytes(),
    };
    let all = super::threads(None)?;
    Ok([dab_bandwidth(bytes, 1, DEFAULT_REPEATS)?, dab_bandwidth(bytes, all, DEFAULT_REPEATS)?])
}

fn print_bandwidth(rates: &[Bandwidth]) {
    for b in rates {
        println!(
            "bandwidth on {} thread(s): copy {:.2} GB/s, triad {:.2} GB/s (3 arrays of {} MiB, best of {})",
            b.threads,
            b.copy_gigabytes_per_second,
            b.triad_gigabytes_per_second,
            b.array_bytes >> 20,
            b.repeats
        );
    }
}

fn bandwidth(args: BenchArgs) -> CliResult {
    let output = args.output.unwrap_or_else(|| super::runs_path("bench-bandwidth.csv"));
    let rates = measure_bandwidth(args.bandwidth_mib)?;
    print_bandwidth(&rates);
    write(&rates, &output)?;
    println!("wrote {}", output.display());
    Ok(())
}

fn memory(args: BenchArgs) -> CliResult {
    let output = args.output.clone().unwrap_or_else(|| super::runs_path("bench-memory.csv"));
    let exe = std::env::current_exe()?;
    println!(
        "{:<6} {:>7} {:>8} {:>10} {:>10} {:>14} {:>10} {:>10} {:>7} {:>8}",
        "board", "threads", "fraction", "limit", "peak RSS", "predicted", "values", "rss/limit", "within", "seconds"
    );
    let mut run = |board: &str, p, limit| child::run_board(&exe, board, p, limit);
    let rows = memory::rows(&args.boards, &args.thread_counts(), &mut run, &mut |r| {
        let mb = |b: Option<u64>| b.map_or("-".to_string(), dab::support::human_bytes);
        println!(
            "{:<6} {:>7} {:>8} {:>10} {:>10} {:>14} {:>10} {:>10} {:>7} {:>8.1}",
            r.board,
            r.threads,
            r.fraction.map_or("none".to_string(), |f| format!("{f}")),
            mb(r.limit_bytes),
            mb(Some(r.peak_rss_bytes)),
            mb(r.predicted_peak_rss_bytes),
            mb(Some(r.peak_value_bytes)),
            r.rss_over_limit.map_or("-".to_string(), |x| format!("{x:.3}")),
            r.within_bound.map_or("-".to_string(), |w| if w { "yes" } else { "NO" }.to_string()),
            r.seconds
        );
        if !r.refused.is_empty() {
            println!("       refused: {}", r.refused);
        }
    })?;
    dab::support::write_csv(&rows, &output)?;
    println!("wrote {}", output.display());
    Ok(())
}

fn nimstring_suite(args: BenchArgs) -> CliResult {
    let output = args.output.clone().unwrap_or_else(|| super::runs_path("bench-nimstring.csv"));
    // A position gets ten times the budget of a move: the figures are the calculator's own.
    let limit = 10.0 * args.seconds;
    println!("{:<11} {:>7} {:>7} {:>7} {:>9} {:>9}", "group", "undrawn", "value", "regions", "shapes", "seconds");
    let rows = dab::bench::nimstring::run(&args.nim_cases, limit, &mut |r| {
        let value = if r.finished { r.value.clone() } else { format!(">{limit} s") };
        println!("{:<11} {:>7} {:>7} {:>7} {:>9} {:>9.3}", r.group, r.undrawn, value, r.regions, r.shapes, r.seconds);
    })?;
    let mut groups: Vec<&str> = rows.iter().map(|r| r.group.as_str()).collect();
    groups.dedup();
    for g in groups {
        let mut times: Vec<f64> = rows.iter().filter(|r| r.group == g).map(|r| r.seconds).collect();
        let n = times.len();
        let median = dab::support::median(&mut times);
        let max = times.iter().copied().fold(0.0, f64::max);
        println!("{g}: median {median:.3} s, longest {max:.3} s over {n} positions");
    }
    dab::support::write_csv(&rows, &output)?;
    super::wrote(output.parent().unwrap_or(std::path::Path::new(".")), std::slice::from_ref(&output));
    Ok(())
}

fn wide_suite(args: BenchArgs) -> CliResult {
    use dab::bench::wide::{TARGET_SECONDS, cases, rows};
    let output = args.output.clone().unwrap_or_else(|| super::runs_path("bench-wide.csv"));
    let repeats = args.repeats_or(1);
    let exe = std::env::current_exe()?;
    println!(
        "{:<14} {:<6} {:>7} {:<9} {:>5} {:>6} {:>5} {:<10} {:>9} {:>9} {:>6}",
        "case", "board", "undrawn", "engine", "value", "search", "agree", "next loony", "engine s", "seconds", "<= 1 s"
    );
    let mut solve = |pos, engine| child::solve_as_typed(&exe, pos, engine);
    let rows = rows(&cases()?, repeats, &mut solve, &mut |r| {
        println!(
            "{:<14} {:<6} {:>7} {:<9} {:>5} {:>6} {:>5} {:<10} {:>9.3} {:>9.3} {:>6}",
            r.case,
            r.board,
            r.undrawn,
            r.engine,
            r.value,
            r.search_value,
            r.agree,
            if r.next_loony.is_empty() { "-" } else { r.next_loony.as_str() },
            r.engine_seconds,
            r.seconds,
            if r.within_target { "yes" } else { "NO" }
        )
    })?;
    let mut times: Vec<f64> = rows.iter().map(|r| r.seconds).collect();
    let longest = times.iter().copied().fold(0.0, f64::max);
    let median = dab::support::median(&mut times);
    let each = if repeats > 1 { format!(" (each case's median of {repeats} runs)") } else { String::new() };
    println!("{} cases: median {median:.3} s, longest {longest:.3} s{each}", rows.len());
    write(&rows, &output)?;
    println!("wrote {}", output.display());
    if rows.iter().any(|r| !r.agree) {
        return Err("a value differs from the search engine's on a row marked agree=false".into());
    }
    if rows.iter().any(|r| !r.within_target) {
        return Err(format!("a case took more than {TARGET_SECONDS} s (the rows marked NO)").into());
    }
    Ok(())
}

fn query_suite(args: BenchArgs) -> CliResult {
    use dab::bench::query::{QuerySummary, TARGET_MEDIAN_SECONDS, TARGET_MOST_SECONDS, cases, rows};
    let Some(store) = args.store.clone() else {
        return Err("--suite query times queries of a store: name it with --store DIR".into());
    };
    let boards: Vec<&String> = args.boards.iter().filter(|b| store.join(b.as_str()).is_dir()).collect();
    if boards.is_empty() {
        return Err(format!(
            "the store '{}' holds none of the boards --boards names ({}): name its board with --boards",
            store.display(),
            args.boards.join(", ")
        )
        .into());
    }
    let output = args.output.clone().unwrap_or_else(|| super::runs_path("bench-query.csv"));
    let exe = match &args.exe {
        Some(e) => e.clone(),
        None => std::env::current_exe()?,
    };
    println!(
        "{:<14} {:>5} {:>6} {:<9} {:<8} {:>8} {:>6}",
        "case", "drawn", "value", "next", "source", "seconds", "<= 0.5"
    );
    let mut all = Vec::new();
    for b in boards {
        let board: dab::game::Board = b.parse()?;
        let mut query = |pos| child::query_as_typed(&exe, &store, pos);
        all.extend(rows(&cases(board, args.random, 0x85), &mut query, &mut |r| {
            println!(
                "{:<14} {:>5} {:>6} {:<9} {:<8} {:>8.3} {:>6}",
                r.case,
                r.drawn,
                r.value,
                if r.next_loony.is_empty() { "-" } else { r.next_loony.as_str() },
                r.source,
                r.seconds,
                if r.within_most { "yes" } else { "NO" }
            )
        })?);
    }
    let s = QuerySummary::of(&all);
    println!(
        "{} queries: median {:.3} s (target {TARGET_MEDIAN_SECONDS} s), longest {:.3} s (target {TARGET_MOST_SECONDS} s); {} gave the next loony move{}",
        s.queries,
        s.median,
        s.longest,
        s.with_next_loony,
        if s.meets_targets { "" } else { "  [below the targets]" }
    );
    write(&all, &output)?;
    println!("wrote {}", output.display());
    Ok(())
}

fn play_suite(args: BenchArgs) -> CliResult {
    use dab::answer::play::Oracle;
    use dab::bench::play::{Match, Opponent, games};
    let output = args.output.clone().unwrap_or_else(|| super::runs_path("bench-play.csv"));
    let threads = super::threads(None)?;
    let ask = dab::answer::Asking::new(dab::answer::Answerer::Auto, threads);
    println!(
        "{:<5} {:<11} {:>5} {:>4} {:>5} {:>6} {:>8} {:>10} {:>8} {:>8} {:>5} {:>10}",
        "board",
        "opponent",
        "games",
        "wins",
        "draws",
        "losses",
        "win %",
        "lost/game",
        "mean s",
        "max s",
        "over",
        "mid lost"
    );
    let mut rows = Vec::new();
    let plan: Vec<(String, Opponent)> = args
        .play_boards
        .iter()
        .map(|b| (b.clone(), Opponent::RandomSafe))
        .chain(args.exact_boards.iter().map(|b| (b.clone(), Opponent::Exact)))
        .chain(args.hybrid_boards.iter().map(|b| (b.clone(), Opponent::Hybrid)))
        .filter(|(b, _)| !b.is_empty())
        .collect();
    for (b, opponent) in plan {
        let board: dab::game::Board = b.parse()?;
        let start = dab::game::Position::empty(board);
        let oracle = match (opponent, &args.store) {
            (Opponent::RandomSafe | Opponent::Hybrid, _) => None,
            (Opponent::Exact, Some(dir)) => Some(Oracle::store(dir, start, None, ask)?),
            (Opponent::Exact, None) => Some(Oracle::new(start, ask)?),
        };
        let m = Match {
            board,
            opponent,
            games: args.games,
            seconds: args.seconds,
            seed: args.seed,
            review_seconds: args.review_seconds,
        };
        let r = games(&m, oracle.as_ref(), ask)?;
        let middle = if opponent == Opponent::Hybrid { format!("{:.2}", r.middle_lost_per_game) } else { "-".into() };
        println!(
            "{:<5} {:<11} {:>5} {:>4} {:>5} {:>6} {:>7.1}% {:>10.2} {:>8.3} {:>8.3} {:>5} {:>10}",
            r.board,
            r.opponent,
            r.games,
            r.wins,
            r.draws,
            r.losses,
            100.0 * r.win_rate,
            r.boxes_lost_per_game,
            r.mean_move_seconds,
            r.max_move_seconds,
            r.over_budget_moves,
            middle
        );
        if opponent == Opponent::Hybrid {
            println!(
                "      middle game ({} to {} undrawn lines): {} moves by dab, {} not proven by it, {} of them not reviewed within {} s",
                dab::bench::play::REVIEWED_LINES.start(),
                dab::bench::play::REVIEWED_LINES.end(),
                r.middle_moves,
                r.middle_unproven,
                r.middle_unreviewed,
                args.review_seconds
            );
        }
        if r.max_move_seconds > 1.1 * r.budget_seconds {
            println!("      longest move: {:.3} s, at {}", r.max_move_seconds, r.longest_move_position);
        }
        rows.push(r);
    }
    dab::support::write_csv(&rows, &output)?;
    super::wrote(output.parent().unwrap_or(std::path::Path::new(".")), std::slice::from_ref(&output));
    Ok(())
}

fn endgame(args: BenchArgs) -> CliResult {
    let output = args.output.unwrap_or_else(|| super::runs_path("bench-endgame.csv"));
    println!(
        "{:<26} {:<5} {:>5} {:<12} {:>6} {:>12} {:>10} {:>10} {:>6}",
        "position", "board", "lines", "components", "value", "theorems us", "solve s", "speedup", "agree"
    );
    let rows = endgame::run(&args.positions, &mut |r| {
        println!(
            "{:<26} {:<5} {:>5} {:<12} {:>6} {:>12.2} {:>10.4} {:>10.0} {:>6}",
            r.position,
            r.board,
            r.free_lines,
            r.components,
            r.value,
            r.theorem_microseconds,
            r.solve_seconds,
            r.speedup,
            r.agree
        )
    })?;
    dab::support::write_csv(&rows, &output)?;
    println!("wrote {}", output.display());
    Ok(())
}

fn solve(args: BenchArgs) -> CliResult {
    let output = args.output.clone().unwrap_or_else(|| super::runs_path("bench.csv"));
    let cases = args.cases.iter().map(|c| Case::parse(c)).collect::<Result<Vec<_>, _>>()?;
    if args.cases.iter().any(|c| c == "chains-3x8") {
        // Its dense twin alone takes minutes (docs/notes/cost-model-history.md has the figures).
        crate::cli::note!(
            "note: the solve suite takes about 6 minutes on a 2-core machine (the 32-line case's dense twin 3)"
        );
    }
    let exe = std::env::current_exe()?;
    // Measured once, before the solves (in this process; each solve runs in its own). The
    // one-thread figure is the roof the rows are set against (the all-thread one is printed).
    let rates = measure_bandwidth(args.bandwidth_mib)?;
    print_bandwidth(&rates);
    let roof = rates[0].best();
    println!(
        "\n{:<12} {:<9} {:<7} {:>7} {:>5} {:>6} {:>14} {:>9} {:>12} {:>12} {:>10} {:>8} {:>8} {:>7} {:>8} {:>9}",
        "case",
        "engine",
        "kernel",
        "threads",
        "lines",
        "value",
        "positions",
        "seconds",
        "space pos/s",
        "pos/s/thread",
        "peak RSS",
        "B/pos",
        "GB/s",
        "of roof",
        "vs dense",
        "vs scalar"
    );
    let mut solve = |case: &Case, solver| child::solve_case(&exe, case, solver);
    let rows = dab::bench::solve::rows(&cases, &args.thread_counts(), roof, &mut solve, &mut |r| {
        let opt = |x: Option<f64>, f: fn(f64) -> String| x.map_or("-".to_string(), f);
        println!(
            "{:<12} {:<9} {:<7} {:>7} {:>5} {:>6} {:>14} {:>9.3} {:>12.3e} {:>12.3e} {:>10} {:>8} {:>8} {:>7} {:>8} {:>9}",
            r.case,
            r.engine.to_string(),
            r.kernel.map_or("-".to_string(), |k| k.to_string()),
            r.threads,
            r.free_lines,
            r.value,
            dab::support::thousands(r.positions),
            r.seconds,
            r.space_positions_per_second,
            r.positions_per_second_per_thread,
            r.peak_rss_bytes.map_or("-".to_string(), dab::support::human_bytes),
            opt(r.bytes_per_position, |x| format!("{x:.2}")),
            opt(r.gigabytes_per_second, |x| format!("{x:.3}")),
            opt(r.bandwidth_fraction, |x| format!("{:.1}%", 100.0 * x)),
            r.speedup_vs_dense.map_or(String::new(), |s| format!("{s:.1}x")),
            r.speedup_vs_scalar.map_or(String::new(), |s| format!("{s:.2}x")),
        )
    })?;
    write(&rows, &output)?;
    println!("wrote {}", output.display());
    Ok(())
}

fn sim(args: BenchArgs) -> CliResult {
    let output = args.output.unwrap_or_else(|| super::runs_path("bench-sim.csv"));
    let speed_path = output.with_file_name(format!(
        "{}-speed.csv",
        output.file_stem().map_or("bench-sim".into(), |s| s.to_string_lossy().into_owned())
    ));
    let speed = sim::speed()?;
    println!(
        "speed: {} ({} jobs, {} dependencies): sweep P = 1..{MAX_PROCS} with fifo and cp in {:.3} s on {} threads, {:.3} s on one (graph built in {:.3} s)",
        speed.case,
        speed.jobs,
        speed.edges,
        speed.sweep_seconds,
        speed.threads,
        speed.sweep_seconds_one_thread,
        speed.build_seconds
    );
    println!(
        "\n{:<26} {:<6} {:>6} {:>7} {:>8} {:>8} {:>5} {:>8} {:>5} {:>8} {:>8} {:>12} {:>12}",
        "case",
        "policy",
        "jobs",
        "edges",
        "W/CP",
        "worst",
        "at P",
        "vs level",
        "at P",
        "at P2",
        "at P64",
        "peak mem P2",
        "peak P150"
    );
    let mut rows = Vec::new();
    for case in QUALITY_CASES {
        for r in sim::quality(case)? {
            println!(
                "{:<26} {:<6} {:>6} {:>7} {:>8.2} {:>8.4} {:>5} {:>8.4} {:>5} {:>8.4} {:>8.4} {:>12.3e} {:>12.3e}",
                r.case,
                r.policy.to_string(),
                r.jobs,
                r.edges,
                r.w_over_cp,
                r.worst_ratio,
                r.worst_at,
                r.worst_level_ratio,
                r.worst_level_at,
                r.ratio_p2,
                r.ratio_p64,
                r.peak_memory_p2 as f64,
                r.peak_memory_p150 as f64
            );
            rows.push(r);
        }
    }
    write(&[speed], &speed_path)?;
    write(&rows, &output)?;
    println!("wrote {} and {}", output.display(), speed_path.display());
    Ok(())
}

fn cluster_suite(args: BenchArgs) -> CliResult {
    let output = args.output.unwrap_or_else(|| super::runs_path("bench-cluster.csv"));
    let model = super::plan::load_model(args.cost.as_deref())?;
    let nodes: Vec<usize> = args.nodes.iter().map(|&n| n as usize).collect();
    let boards = args.boards.iter().map(|b| b.parse()).collect::<Result<Vec<dab::game::Board>, _>>()?;
    println!(
        "{:<6} {:>6} {:>10} {:>10} {:>10} {:>8} {:>14} {:>10} {:>10}  candidate",
        "board", "nodes", "plan s", "pack s", "total s", "tasks", "predicted s", "written", "store peak"
    );
    let rows = cluster::rows(&boards, &nodes, &model, &mut |r| {
        println!(
            "{:<6} {:>6} {:>10.1} {:>10.1} {:>10.1} {:>8} {:>14.1} {:>10} {:>10}  {}",
            r.board,
            r.nodes,
            r.plan_seconds,
            r.pack_seconds,
            r.total_seconds,
            r.tasks,
            r.predicted_seconds,
            dab::support::human_bytes(r.store_write_bytes),
            dab::support::human_bytes(r.store_peak_bytes),
            r.candidate
        )
    })?;
    write(&rows, &output)?;
    println!("wrote {}", output.display());
    Ok(())
}

fn run_suite(args: BenchArgs) -> CliResult {
    let repeats = args.repeats_or(RUN_REPEATS);
    let output = args.output.unwrap_or_else(|| super::runs_path("bench-run.csv"));
    let cand_path = output.with_file_name(format!(
        "{}-candidates.csv",
        output.file_stem().map_or("bench-run".into(), |s| s.to_string_lossy().into_owned())
    ));
    let dir = output.with_extension("");
    let all = super::threads(None)? as u32;
    let model = super::plan::probed(&super::plan::load_model(args.cost.as_deref())?);
    let opts = dab::plan::PlanOptions::new(all, model);
    println!(
        "{:<6} {:>7} {:<28} {:>6} {:>10} {:>10} {:>8} {:>10} {:>11} {:>8}",
        "board", "threads", "plan", "jobs", "predicted", "actual", "act/pred", "job median", "job p10-p90", "speedup"
    );
    let mut rows = Vec::new();
    let boards = args.boards.iter().map(|b| b.parse()).collect::<Result<Vec<dab::game::Board>, _>>()?;
    for &b in &boards {
        for r in dab::bench::run::runs(b, &[1, all], &opts, repeats, &dir)? {
            println!(
                "{:<6} {:>7} {:<28} {:>6} {:>9.3}s {:>9.3}s {:>7.2}x {:>9.2}x {:>11} {:>8}",
                r.comparison.board,
                r.comparison.threads,
                r.plan,
                r.comparison.job_count,
                r.comparison.predicted_seconds,
                r.comparison.actual_seconds,
                r.comparison.actual_over_predicted,
                r.comparison.job_ratio_median,
                format!("{:.2}-{:.2}x", r.comparison.job_ratio_p10, r.comparison.job_ratio_p90),
                r.speedup.map_or(String::new(), |s| format!("{s:.2}x"))
            );
            rows.push(r);
        }
    }
    println!("\nevery candidate run on {all} threads:");
    println!("{:<6} {:<28} {:>6} {:>10} {:>10}", "board", "candidate", "jobs", "predicted", "actual");
    let mut cands = Vec::new();
    for &b in &boards {
        let cs = dab::bench::run::candidates(b, all, &opts, repeats)?;
        let best = cs.iter().map(|c| c.actual_seconds).fold(f64::INFINITY, f64::min);
        for c in &cs {
            println!(
                "{:<6} {:<28} {:>6} {:>9.3}s {:>9.3}s{}",
                c.board,
                c.candidate,
                c.jobs,
                c.predicted_seconds,
                c.actual_seconds,
                if c.chosen {
                    format!("  <- chosen ({:.2}x the fastest run)", c.actual_seconds / best)
                } else {
                    String::new()
                }
            );
        }
        cands.extend(cs);
    }
    write(&rows, &output)?;
    write(&cands, &cand_path)?;
    println!("wrote {} and {}", output.display(), cand_path.display());
    Ok(())
}

/// Writes benchmark rows as CSV, naming the file on failure.
fn write<T: serde::Serialize>(rows: &[T], path: &std::path::Path) -> Result<(), String> {
    dab::support::write_csv(rows, path).map_err(|e| format!("cannot write '{}': {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Bench {
        #[command(flatten)]
        args: BenchArgs,
    }

    fn parse(args: &[&str]) -> Result<BenchArgs, clap::Error> {
        Bench::try_parse_from(std::iter::once("bench").chain(args.iter().copied())).map(|b| b.args)
    }

    #[test]
    fn one_sweep_flag_serves_every_suite_with_each_suite_s_default() {
        assert_eq!(parse(&[]).unwrap().thread_counts(), [1]);
        assert_eq!(parse(&["--suite", "search"]).unwrap().thread_counts(), [1, 2]);
        assert_eq!(parse(&["--suite", "memory"]).unwrap().thread_counts(), [1, 2]);
        assert_eq!(parse(&["--sweep", "1,2"]).unwrap().thread_counts(), [1, 2]);
        assert_eq!(parse(&["--suite", "search", "--sweep", "3"]).unwrap().thread_counts(), [3]);
        assert!(parse(&["--solve-threads", "1"]).is_err(), "one flag for thread counts");
        let zero = parse(&["--suite", "memory", "--sweep", "2,0"]).unwrap();
        assert_eq!(check_threads(&zero).unwrap_err(), "--sweep: thread counts must be at least 1");
        let list = parse(&["--threads", "1,2"]).unwrap();
        assert!(check_threads(&list).unwrap_err().contains("--sweep 1,2"));
    }
}
