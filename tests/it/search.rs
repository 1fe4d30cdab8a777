//! The search engine against the retrograde solver: every position of the boards up to 2x3 and
//! random positions of 3x3, 2x5 and 3x4, the value, every move's value and a best move.

use crate::common;

use common::{Rng, board, json_out, random_position};

use dab::answer::search::{SearchOptions, search};
use dab::answer::{Control, WalkBudget, next_loony};
use dab::exec::solve;
use dab::game::{Position, move_value};
use dab::solver::{Solution, SolveOptions, State};

/// The whole board solved, every partition kept.
fn solved(b: &str) -> Solution {
    solve(Position::empty(board(b)), SolveOptions { threads: 2, keep_all: true, ..Default::default() }).unwrap()
}

/// The search's value and moves of `pos` against the solution of its board.
fn check(sol: &Solution, pos: Position, opts: SearchOptions) {
    let sp = &sol.space;
    let value = |drawn| if drawn == pos.board.full() { 0 } else { sol.value_of(sp.state_of(drawn)).unwrap() };
    let move_value = |n: u32, after| move_value(n as i8, after) as i32;
    let s = search(pos, opts).unwrap();
    assert_eq!(s.value, value(pos.drawn) as i32, "{}", pos.to_line_string());
    if !opts.move_values {
        assert!(s.moves.is_empty());
        // A best move where one was asked for: its value is the position's.
        assert_eq!(s.best.is_some(), opts.best_move && !pos.undrawn().is_empty());
        if let Some(line) = s.best {
            let n = pos.board.completes(pos.drawn, line);
            let v = move_value(n, value(pos.drawn.with(line)));
            assert_eq!(v, s.value, "{} best move {line:?}", pos.to_line_string());
        }
        return;
    }
    assert_eq!(s.moves.len(), pos.undrawn().len() as usize);
    for &(line, boxes, v) in &s.moves {
        let n = pos.board.completes(pos.drawn, line);
        assert_eq!(boxes as u32, n);
        assert_eq!(v, move_value(n, value(pos.drawn.with(line))), "{} move {line:?}", pos.to_line_string());
    }
}

#[test]
fn every_position_of_the_boards_up_to_2x3_matches_the_retrograde() {
    let opts = SearchOptions { tt_bytes: 4096, threads: 1, ..Default::default() };
    for b in ["1x1", "1x2", "1x3", "2x2", "2x3"] {
        let sol = solved(b);
        let sp = &sol.space;
        for state in (0..1u64 << sp.free()).map(State) {
            check(&sol, sp.position_of(state), opts);
            check(&sol, sp.position_of(state), SearchOptions { move_values: false, best_move: true, ..opts });
        }
    }
}

#[test]
fn random_positions_of_3x3_2x5_and_3x4_match_the_retrograde() {
    let mut rng = Rng(19);
    for (b, frees) in [("3x3", &[10, 16, 22, 24][..]), ("2x5", &[12, 20, 26][..]), ("3x4", &[14, 20, 24][..])] {
        let sol = solved(b);
        for &free in frees {
            for threads in [1, 2] {
                let pos = random_position(board(b), free, &mut rng);
                check(&sol, pos, SearchOptions { tt_bytes: 16 << 20, threads, ..Default::default() });
                // The value alone, with the retrograde's leaves, every position looking its
                // children up first (enhanced transposition cutoffs).
                let alone = SearchOptions {
                    tt_bytes: 16 << 20,
                    threads,
                    move_values: false,
                    leaf_lines: 10,
                    etc_lines: 0,
                    ..Default::default()
                };
                check(&sol, pos, alone);
                // The value and a best move, each move tested against the value.
                check(&sol, pos, SearchOptions { leaf_lines: 0, best_move: true, ..alone });
            }
        }
    }
}

#[test]
fn the_search_s_next_loony_move_is_the_retrograde_s() {
    // The walk over the search's own table against the same walk over the retrograde's values.
    let mut rng = Rng(81);
    let mut seen = std::collections::HashSet::new();
    let budget = |_| WalkBudget { seconds: 60.0, ..WalkBudget::WHOLE };
    for (b, frees) in [("3x3", &[8, 12, 16, 20, 24][..]), ("2x5", &[12, 18, 24][..]), ("3x4", &[12, 16, 20][..])] {
        let sol = solved(b);
        let sp = &sol.space;
        for &free in frees {
            for threads in [1, 2] {
                let pos = random_position(board(b), free, &mut rng);
                let mut value = |d| {
                    Ok::<_, ()>(Some(if d == pos.board.full() { 0 } else { sol.value_of(sp.state_of(d)).unwrap() }))
                };
                let want = next_loony(pos, &mut value).unwrap().expect("the retrograde's walk settles");
                let opts = SearchOptions { tt_bytes: 16 << 20, threads, control: Some(&budget), ..Default::default() };
                let got = search(pos, opts).unwrap().next_loony;
                assert_eq!(got, Control::Known(want), "{} on {threads} threads", pos.to_line_string());
                seen.insert(want);
            }
        }
    }
    // The cases reach more than one answer.
    assert!(seen.len() >= 2, "{seen:?}");
}

#[test]
fn late_positions_full_of_chains_and_captures_match_the_retrograde() {
    // Few undrawn lines: capturable boxes, chains and loops everywhere, where the capture rules act.
    let mut rng = Rng(1919);
    for b in ["3x4", "2x5", "3x3"] {
        let sol = solved(b);
        for i in 0..300 {
            let pos = random_position(board(b), 6 + i % 11, &mut rng);
            // By turns: as shipped, without the theorems' leaves, with retrograde leaves, with
            // every position looking its children up first.
            let (theorems, leaf_lines, etc_lines) = [(true, 0, 24), (false, 0, 24), (true, 8, 24), (true, 0, 0)][i % 4];
            let opts =
                SearchOptions { tt_bytes: 1 << 16, threads: 1, theorems, leaf_lines, etc_lines, ..Default::default() };
            check(&sol, pos, opts);
        }
    }
}

/// Two or three threads that mark every position they search and put off the moves to those
/// another searches (`SearchOptions::busy_lines` 0, where by default only the top plies of
/// large searches do): random positions of 3x3, 2x5 and 3x4 against the retrograde, both keys;
/// two threads share one root test at a time, three run two at once.
#[test]
fn threads_that_put_off_each_other_s_positions_match_the_retrograde() {
    let mut rng = Rng(777);
    for b in ["3x3", "2x5", "3x4"] {
        let sol = solved(b);
        for i in 0..40 {
            let pos = random_position(board(b), 4 + i % 17, &mut rng);
            let tt_bytes = [1 << 10, 1 << 16, 16 << 20][i % 3];
            let threads = 2 + i / 2 % 2;
            let opts = SearchOptions { tt_bytes, threads, busy_lines: 0, graph_keys: i % 2 == 0, ..Default::default() };
            check(&sol, pos, opts);
            check(&sol, pos, SearchOptions { move_values: false, best_move: true, ..opts });
        }
    }
}

/// With positions keyed by their exact canonical state (`SearchOptions::graph_keys` off; the
/// tests above search with the graph's keys, the default): random positions of 3x3, 2x5 and
/// 3x4, from early ones to late ones full of chains and captures, every move's value too, on
/// one, two and three threads, and small tables.
#[test]
fn positions_keyed_by_their_state_match_the_retrograde() {
    let mut rng = Rng(4242);
    for b in ["3x3", "2x5", "3x4"] {
        let sol = solved(b);
        for i in 0..60 {
            let pos = random_position(board(b), 6 + i % 19, &mut rng);
            let threads = 1 + i / 3 % 3;
            let tt_bytes = [1 << 10, 1 << 16, 16 << 20][i % 3];
            let opts = SearchOptions { tt_bytes, threads, graph_keys: false, ..Default::default() };
            check(&sol, pos, opts);
            check(&sol, pos, SearchOptions { move_values: false, best_move: true, etc_lines: 0, ..opts });
        }
    }
}

/// Positions the search once valued wrong (`tests/data/search/regressions.csv`): each against
/// its value in the file and the retrograde, every move too, on one and two threads.
#[test]
fn positions_once_searched_wrong_match_the_retrograde() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/search/regressions.csv");
    let text = std::fs::read_to_string(file).unwrap();
    for row in text.lines().skip(1) {
        let cols: Vec<&str> = row.split(',').collect();
        let sol = solved(cols[0]);
        let pos = Position::from_line_string(board(cols[0]), cols[1]).unwrap();
        let want: i64 = cols[2].parse().unwrap();
        assert_eq!(sol.value_of(sol.space.state_of(pos.drawn)).unwrap() as i64, want, "{row}: the file");
        for threads in [1, 2] {
            check(&sol, pos, SearchOptions { tt_bytes: 1 << 20, threads, ..Default::default() });
            check(&sol, pos, SearchOptions { tt_bytes: 1 << 20, threads, move_values: false, ..Default::default() });
        }
    }
}

#[test]
fn a_tiny_table_gives_the_same_values() {
    let sol = solved("3x3");
    let mut rng = Rng(3);
    for _ in 0..3 {
        check(
            &sol,
            random_position(board("3x3"), 20, &mut rng),
            SearchOptions { tt_bytes: 64, threads: 2, ..Default::default() },
        );
    }
}

#[test]
fn a_long_search_reports_its_progress() {
    let calls = std::sync::Mutex::new(Vec::new());
    let progress = |p: &dab::answer::search::SearchProgress| calls.lock().unwrap().push(*p);
    let opts = SearchOptions { threads: 2, progress: Some(&progress), progress_seconds: 0.01, ..Default::default() };
    let s = search(Position::empty(board("2x5")), opts).unwrap();
    assert_eq!(s.value, -2);
    let calls = calls.into_inner().unwrap();
    assert!(!calls.is_empty());
    for w in calls.windows(2) {
        assert!(
            w[0].nodes <= w[1].nodes && w[0].root_moves_done <= w[1].root_moves_done && w[0].seconds < w[1].seconds
        );
        // The value's proven bounds only narrow.
        assert!(w[0].lower <= w[1].lower && w[1].upper <= w[0].upper, "{w:?}");
    }
    assert!(calls.iter().all(|p| p.lower <= -2 && -2 <= p.upper));
    let last = calls.last().unwrap();
    assert!(last.nodes <= s.nodes && last.table_hits <= s.table_hits && last.root_moves == 27, "{last:?}");
}

/// A watch that records what it hears: each progress report's positions, and "done".
#[derive(Default)]
struct Recorder(std::sync::Mutex<Vec<Option<u64>>>);

impl dab::answer::SearchWatch for Recorder {
    fn progress(&self, p: &dab::answer::search::SearchProgress) {
        self.0.lock().unwrap().push(Some(p.nodes));
    }

    // Every 10 ms: reports even where the search takes a small part of a second.
    fn every(&self) -> f64 {
        0.01
    }

    fn done(&self) {
        self.0.lock().unwrap().push(None);
    }
}

#[test]
fn a_hint_that_searches_reports_to_its_watch_and_says_when_it_is_done() {
    use dab::answer::{Answerer, Asking, hint};
    // A 4x4 position of 8 drawn lines: about a second of search on one thread here, and still
    // tens of reports on a machine ten times as fast.
    let pos = Position::from_line_string(board("4x4"), "0000000100010010001000001010000001100000").unwrap();
    let watch = Recorder::default();
    let a = hint(pos, None, Asking { watch: Some(&watch), ..Asking::new(Answerer::Search, 1) }).unwrap();
    assert_eq!((a.value, a.source.as_str()), (2, "search"));
    let heard = watch.0.into_inner().unwrap();
    // Reports at the watch's own pace (a second apart, there would be one at most), positions
    // growing, then done once, last.
    assert!(heard.len() >= 4 && heard.last() == Some(&None), "{heard:?}");
    let nodes: Vec<u64> = heard[..heard.len() - 1].iter().map(|n| n.expect("no report after done")).collect();
    assert!(nodes.windows(2).all(|w| w[0] <= w[1]), "{nodes:?}");
    // A hint solved in memory (auto, few lines) runs no search: nothing heard.
    let watch = Recorder::default();
    let solved = Position::from_line_string(board("2x2"), "101010101010").unwrap();
    hint(solved, None, Asking { watch: Some(&watch), ..Asking::new(Answerer::Auto, 1) }).unwrap();
    assert!(watch.0.into_inner().unwrap().is_empty());
}

#[test]
fn dab_solve_runs_the_search_engine() {
    let v = json_out(&["solve", "3x3", "--engine", "search", "--tt-size", "1M", "--json"], None);
    assert_eq!((v["value"].as_i64(), v["engine"].as_str()), (Some(-3), Some("search")));
    let alone = json_out(&["solve", "3x3", "--engine", "search", "--value-only", "--leaf-lines", "6", "--json"], None);
    assert_eq!((alone["value"].as_i64(), alone["moves"].as_array().map(Vec::len)), (Some(-3), Some(0)));
    // The text names what the search counts and holds.
    let out = common::dab().args(["solve", "2x3", "--engine", "search", "--tt-size", "1M"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("positions searched") && text.contains("of transposition table"), "{text}");
    common::refused(&["solve", "3x3", "--engine", "search", "--leaf-lines", "13"], None, "13 is not in 0..=12");
    common::refused(&["solve", "3x3", "--value-only"], None, "work only with --engine search");
    common::refused(
        &["solve", "3x3", "--engine", "search", "--tt-size", "16"],
        None,
        "--tt-size: a transposition table of 16 bytes is too small: it needs at least 32 bytes",
    );
    // Past any machine's address space (2^47 bytes for a process on x86-64): an error, no abort.
    common::refused(
        &["solve", "3x3", "--engine", "search", "--tt-size", "1EiB"],
        None,
        "is more memory than this machine gives",
    );
}

/// The first 5x5 position of 36 undrawn lines in the benchmark's file, and its value there.
fn five_by_five_36() -> (String, i64) {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/search/5x5-safe.csv");
    let text = std::fs::read_to_string(file).unwrap();
    let row: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(row[1].matches('0').count(), 36);
    (row[1].to_string(), row[2].parse().unwrap())
}

#[test]
fn hint_query_and_play_use_the_search_and_say_so() {
    // Beyond what the retrograde takes in memory (32 undrawn lines): searched.
    let (lines, value) = five_by_five_36();
    let a = json_out(&["hint", "5x5", "--lines", &lines, "--json"], None);
    assert_eq!((a["source"].as_str(), a["value"].as_i64()), (Some("search"), Some(value)));
    assert_eq!(a["moves"].as_array().unwrap().len(), 36);
    // Asked for by name, on a position the retrograde also takes: the same answer.
    let mut rng = Rng(7);
    let pos = random_position(board("3x4"), 22, &mut rng).to_line_string();
    let by = |engine: &str| json_out(&["hint", "3x4", "--lines", &pos, "--engine", engine, "--json"], None);
    let (searched, solved) = (by("search"), by("partition"));
    assert_eq!((searched["source"].as_str(), solved["source"].as_str()), (Some("search"), Some("solved")));
    assert_eq!(
        (&searched["value"], &searched["moves"], &searched["best"]),
        (&solved["value"], &solved["moves"], &solved["best"])
    );
    // A store's book first, the search beyond it.
    let (dir, report) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let store = dir.path().to_str().unwrap();
    common::dab()
        .args(["run", "2x3", "--store", store, "--keep-lines", "3", "--threads", "1", "-q", "--out"])
        .arg(report.path())
        .assert()
        .success();
    let book = json_out(&["query", "2x3", "--store", store, "--json"], None);
    assert_eq!(book["source"], "store");
    let late = "10110110100000000";
    let beyond = json_out(&["query", "2x3", "--lines", late, "--store", store, "--engine", "search", "--json"], None);
    assert_eq!(beyond["source"], "search");
    let solved = json_out(&["solve", "2x3", "--lines", late, "--json"], None);
    assert_eq!((&beyond["value"], &beyond["moves"]), (&solved["value"], &solved["moves"]));
    // A game from the 5x5 position: dab's moves come from the search.
    let out = common::dab()
        .args(["play", "5x5", "--lines", &lines, "--first", "dab"])
        .write_stdin("quit\n")
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("(searched)"), "{text}");
}

#[test]
fn the_search_benchmark_checks_its_values() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases.csv");
    std::fs::write(&cases, "board,lines,value\n2x3,10110000000000000,\n").unwrap();
    let out = dir.path().join("bench.csv");
    let spec = format!("2x2,{}", cases.display());
    common::dab()
        .args(["bench", "--suite", "search", "--search-cases", &spec, "--sweep", "1,2", "--retrograde"])
        .args(["--tt-size", "1M", "-o", out.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "case,board,undrawn,threads,value,checked_by,expected,agree,search_seconds,positions_searched,table_bytes,peak_rss_bytes,retrograde_seconds,retrograde_peak_rss_bytes,hint_partition_seconds,hint_search_seconds,auto_engine,auto_seconds,auto_over_best,repeats,search_seconds_min,search_seconds_max"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r[5] == "retrograde" && r[7] == "true"), "{text}");
    // With the retrograde, each engine and auto timed as a hint: auto's choice and its ratio.
    assert!(
        rows.iter().all(|r| ["partition", "search"].contains(&r[16]) && r[18].parse::<f64>().unwrap() > 0.0),
        "{text}"
    );
    // `auto`: each position's default table, as `dab solve` sizes it (the least, 4 MiB, here).
    common::dab()
        .args(["bench", "--suite", "search", "--search-cases", cases.to_str().unwrap(), "--sweep", "1"])
        .args(["--tt-size", "auto", "-o", out.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().nth(1).unwrap().split(',').nth(10), Some("4194304"), "{text}");
    // Searched three times: the median run's time, between the fastest and the slowest, and
    // the median of the cases printed.
    let printed = common::dab()
        .args(["bench", "--suite", "search", "--search-cases", cases.to_str().unwrap(), "--sweep", "1"])
        .args(["--tt-size", "1M", "--repeats", "3", "-o", out.to_str().unwrap()])
        .assert()
        .success();
    let stdout = String::from_utf8(printed.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("1 case(s) on 1 thread(s): median ") && stdout.contains("median of 3 runs"), "{stdout}");
    let text = std::fs::read_to_string(&out).unwrap();
    let row: Vec<f64> = text.lines().nth(1).unwrap().split(',').skip(19).map(|f| f.parse().unwrap()).collect();
    let seconds: f64 = text.lines().nth(1).unwrap().split(',').nth(8).unwrap().parse().unwrap();
    assert!(row[0] == 3.0 && row[1] <= seconds && seconds <= row[2], "{text}");
    common::refused(&["bench", "--suite", "search", "--repeats", "0"], None, "--repeats");
    common::refused(
        &["bench", "--suite", "search", "--search-cases", cases.to_str().unwrap(), "--tt-size", "lots"],
        None,
        "(or auto)",
    );
    // A wrong value in the file is reported and fails the run.
    std::fs::write(&cases, "board,lines,value\n2x3,10110000000000000,5\n").unwrap();
    let failed = common::dab()
        .args(["bench", "--suite", "search", "--search-cases", cases.to_str().unwrap(), "--sweep", "1"])
        .args(["--tt-size", "1M", "-o", out.to_str().unwrap()])
        .assert()
        .failure();
    let stderr = String::from_utf8(failed.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("differs from the expected value"), "{stderr}");
    assert!(std::fs::read_to_string(&out).unwrap().contains(",file,5,false,"), "the row is written all the same");
}

/// A 3x4 position `later` of 19 undrawn lines solved into a store, and `earlier`, the same
/// position with three of its lines not yet drawn.
fn later_store(dir: &std::path::Path) -> (Position, Position) {
    let mut rng = Rng(41);
    let later = random_position(board("3x4"), 19, &mut rng);
    let earlier = later.drawn.iter().take(3).fold(later, |p, l| Position { drawn: p.drawn.without(l), ..p });
    let (store, lines) = (dir.to_str().unwrap(), later.to_line_string());
    // The report in a folder of its own, not the project's `reports/runs`.
    let report = tempfile::tempdir().unwrap();
    common::dab()
        .args(["run", "3x4", "--lines", &lines, "--store", store, "--threads", "1", "-q", "--out"])
        .arg(report.path())
        .assert()
        .success();
    (later, earlier)
}

#[test]
fn a_store_from_a_later_root_gives_the_search_exact_leaves() {
    use dab::store::{Book, Reader};
    let dir = tempfile::tempdir().unwrap();
    let (later, earlier) = later_store(dir.path());
    // No solve holds the earlier position: the later root's is opened, and holds none of its
    // answer itself.
    let reader = Reader::open_for(dir.path(), earlier, None).unwrap();
    assert_eq!(reader.space().root, later);
    assert_eq!(reader.value(earlier.drawn).unwrap(), None);
    let sol = solve(earlier, SolveOptions { threads: 2, keep_all: true, ..Default::default() }).unwrap();
    for threads in [1, 2] {
        let book = Book::new(&reader);
        let opts = SearchOptions { tt_bytes: 1 << 20, threads, book: Some(&book), ..Default::default() };
        check(&sol, earlier, opts);
        let with = search(earlier, opts).unwrap();
        let without = search(earlier, SearchOptions { book: None, ..opts }).unwrap();
        assert!(with.book_hits > 0 && book.files_read() > 0, "{threads} threads: no position from the store");
        assert_eq!(without.book_hits, 0);
        // (On two threads the counts vary from run to run.)
        if threads == 1 {
            assert!(with.nodes < without.nodes, "{} positions with the store, {} without", with.nodes, without.nodes);
        }
    }
    // A book with no room reads every file a value at a time: the same values, nothing kept.
    let book = Book::with_budget(&reader, 0);
    let opts = SearchOptions { tt_bytes: 1 << 20, book: Some(&book), ..Default::default() };
    check(&sol, earlier, opts);
    assert!(search(earlier, opts).unwrap().book_hits > 0);
    assert_eq!(book.bytes_kept(), 0);
    assert!(book.files_read() > 0);
    // A store of an unrelated root gives nothing, and changes nothing.
    let mut rng = Rng(5);
    let unrelated = loop {
        let p = random_position(board("3x4"), 20, &mut rng);
        if !later.drawn.contains_all(p.drawn) {
            break p;
        }
    };
    let book = Book::new(&reader);
    let s = search(unrelated, SearchOptions { tt_bytes: 1 << 20, book: Some(&book), ..Default::default() }).unwrap();
    assert_eq!((s.book_hits, book.files_read()), (0, 0));
}

#[test]
fn a_store_file_damaged_under_a_search_is_named() {
    use dab::store::{Book, Reader};
    let dir = tempfile::tempdir().unwrap();
    let (_, earlier) = later_store(dir.path());
    let reader = Reader::open_for(dir.path(), earlier, None).unwrap();
    // Every store file's last byte flipped after the store was opened: its checksum fails.
    let files: Vec<_> = walk(dir.path()).into_iter().filter(|p| p.extension().is_some_and(|e| e == "dab")).collect();
    assert!(!files.is_empty());
    for f in &files {
        let mut bytes = std::fs::read(f).unwrap();
        *bytes.last_mut().unwrap() ^= 0x55;
        std::fs::write(f, bytes).unwrap();
    }
    let book = Book::new(&reader);
    let err =
        search(earlier, SearchOptions { tt_bytes: 1 << 20, book: Some(&book), ..Default::default() }).unwrap_err();
    let text = err.to_string();
    assert!(files.iter().any(|f| text.contains(f.to_str().unwrap())), "{text}");
    // Read a value at a time, a file cut short is named too.
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        std::fs::write(f, &bytes[..bytes.len() - 1]).unwrap();
    }
    let book = Book::with_budget(&reader, 0);
    let err =
        search(earlier, SearchOptions { tt_bytes: 1 << 20, book: Some(&book), ..Default::default() }).unwrap_err();
    let text = err.to_string();
    assert!(files.iter().any(|f| text.contains(f.to_str().unwrap())) && text.contains("truncated"), "{text}");
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flat_map(|e| {
            let p = e.unwrap().path();
            if p.is_dir() { walk(&p) } else { vec![p] }
        })
        .collect()
}

#[test]
fn hint_and_query_search_an_earlier_position_with_the_store_as_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let (_, earlier) = later_store(dir.path());
    let (store, lines) = (dir.path().to_str().unwrap(), earlier.to_line_string());
    let solved = json_out(&["solve", "3x4", "--lines", &lines, "--json"], None);
    for cmd in ["hint", "query"] {
        let a = json_out(&[cmd, "3x4", "--lines", &lines, "--store", store, "--engine", "search", "--json"], None);
        assert_eq!(a["source"], "search");
        assert!(a["store_leaves"].as_u64().unwrap() > 0, "{a}");
        assert_eq!((&a["value"], &a["moves"]), (&solved["value"], &solved["moves"]));
    }
    let out = common::dab()
        .args(["hint", "3x4", "--lines", &lines, "--store", store, "--engine", "search"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("searched now, ") && text.contains(" from the store's later solve"), "{text}");
}

#[test]
fn a_search_past_its_deadline_stops_and_says_so() {
    use dab::answer::search::{SearchError, SearchOptions, search};
    // The empty 4x4 takes the search minutes.
    let pos = dab::game::Position::empty("4x4".parse().unwrap());
    let start = std::time::Instant::now();
    let deadline = Some(start + std::time::Duration::from_millis(200));
    let so_far = std::sync::Mutex::new(None);
    let r = search(pos, SearchOptions { deadline, threads: 2, so_far: Some(&so_far), ..Default::default() });
    assert!(matches!(r, Err(SearchError::OutOfTime(s)) if s >= 0.2), "{r:?}");
    // What it proved before it stopped is left all the same.
    let f = so_far.lock().unwrap().expect("what the search proved");
    assert!(f.lower <= f.upper && f.at_least <= f.lower, "{f:?}");
    // Alone its test binary ends within a second; the other tests of this binary share the two
    // cores of this project's machine and took it past 1.5 s in two runs of four. The search
    // itself takes 90-100 s there: ten seconds still tells a stop from a finish.
    assert!(start.elapsed().as_secs_f64() < 10.0, "stopped after {:?}", start.elapsed());
}

/// A position of `board` whose every box left is capturable: lines taken away from the full
/// board in a random order, each only where none of its boxes has lost a side yet (so every
/// box left has one undrawn side), at most `most` of them; where `doubles`, only lines
/// between two boxes (each completes two).
fn capturable(board: dab::game::Board, seed: u64, most: usize, doubles: bool) -> Position {
    let mut rng = Rng(seed);
    let mut lines: Vec<dab::game::Line> = board.full().iter().collect();
    for i in (1..lines.len()).rev() {
        lines.swap(i, rng.below(i + 1));
    }
    let mut open = vec![false; board.boxes()];
    let mut drawn = board.full();
    for l in lines {
        if board.full().minus(drawn).len() as usize == most {
            break;
        }
        let boxes: Vec<usize> = board.boxes_of(l).collect();
        if (doubles && boxes.len() < 2) || boxes.iter().any(|&b| open[b]) {
            continue;
        }
        boxes.iter().for_each(|&b| open[b] = true);
        drawn = drawn.without(l);
    }
    Position { board, drawn }
}

/// Boxes of `pos` not yet completed.
fn boxes_left(pos: Position) -> i32 {
    (0..pos.board.boxes()).filter(|&b| !pos.drawn.contains_all(pos.board.box_mask(b))).count() as i32
}

/// The 16x16 position of the issue: the 64 odd vertical lines of every other row drawn away
/// from a full board, each completing two boxes: 128 boxes left, all the mover's.
fn sixteen_by_sixteen_of_128() -> Position {
    let b = board("16x16");
    let undrawn = (0..16).step_by(2).flat_map(|r| (1..16).step_by(2).map(move |c| b.v(r, c)));
    Position { board: b, drawn: undrawn.fold(b.full(), |d, l| d.without(l)) }
}

#[test]
fn a_root_worth_128_is_searched_to_its_value_and_every_move_s() {
    let pos = sixteen_by_sixteen_of_128();
    assert_eq!((pos.undrawn().len(), boxes_left(pos)), (64, 128));
    // 63 such lines (126) were always answered; 64 (128) passed the search's bounds and never
    // returned.
    for (threads, move_values, best_move) in [(1, true, false), (2, false, true), (2, false, false)] {
        let opts = SearchOptions { threads, move_values, best_move, ..Default::default() };
        let s = search(pos, opts).unwrap();
        assert_eq!(s.value, 128, "{threads} threads");
        assert!(s.moves.iter().all(|&(_, boxes, v)| boxes == 2 && v == 128), "{:?}", s.moves);
        assert_eq!(s.moves.len(), if move_values { 64 } else { 0 });
        // A best move where one was asked for, or found among the moves' values.
        assert_eq!(s.best.is_some(), best_move || move_values);
    }
    // And by the command line, which printed nothing and ran at 100 % of a core.
    let lines = pos.to_line_string();
    let out = common::dab()
        .args(["solve", "16x16", "--lines", &lines, "--engine", "search", "--value-only", "--json"])
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"].as_i64(), Some(128));
    let hint = json_out(&["hint", "16x16", "--lines", &lines, "--engine", "search", "--json"], None);
    assert_eq!(hint["value"].as_i64(), Some(128), "{hint}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]

    /// Extreme positions: every box capturable (by lines that complete two boxes, or any), up
    /// to 48 undrawn lines on boards up to 16x16. The mover takes every box, so the search
    /// gives the boxes left for the position and every move (the theorem); under the largest
    /// penalty each accepts, the retrograde gives the boxes left less the penalty. With a few
    /// lines of any kind taken away besides, the search matches the retrograde, values past 31
    /// included.
    #[test]
    fn extreme_positions_hold_the_search_to_the_theorem_and_the_retrograde(
        rows in 1usize..=16, cols in 1usize..=16, seed in proptest::prelude::any::<u64>(),
        most in 0usize..=48, doubles in proptest::prelude::any::<bool>(), extra in 0usize..=4,
    ) {
        use dab::game::Penalty;
        use dab::solver::Dense;
        let b = dab::game::Board::new(rows, cols).unwrap();
        let pos = capturable(b, seed, most, doubles);
        let boxes = boxes_left(pos);
        let what = format!("{b} {}", pos.to_line_string());
        let opts = SearchOptions { tt_bytes: 1 << 16, threads: 1 + (seed & 1) as usize, ..Default::default() };
        let s = search(pos, opts).unwrap();
        proptest::prop_assert_eq!(s.value, boxes, "{}", what);
        proptest::prop_assert!(s.moves.iter().all(|m| m.2 == boxes), "{}: {:?}", what, s.moves);
        // The retrograde, under the largest penalty this position accepts (boxes + penalty
        // at most 127): the mover draws the last line too.
        if pos.undrawn().len() <= 20 {
            let largest = Penalty::new(127 - boxes as u8).unwrap().check(pos).unwrap();
            proptest::prop_assert!(Penalty::new(128 - boxes as u8).map_or(true, |p| p.check(pos).is_err()));
            let under = Dense::solve_under(pos, largest).unwrap();
            let value = if pos.undrawn().is_empty() { -(largest.boxes() as i32) } else { boxes - largest.boxes() as i32 };
            proptest::prop_assert_eq!(under.values[0] as i32, value, "{} penalty {}", what, largest);
            let plain = Dense::solve_under(pos, Penalty::NONE).unwrap();
            proptest::prop_assert_eq!(plain.values[0] as i32, boxes, "{}", what);
        }
        // A few lines of any kind taken away besides: not all capturable any more.
        let mut rng = Rng(seed ^ 0x5eed);
        let drawn: Vec<_> = pos.drawn.iter().collect();
        let mixed = (0..extra.min(drawn.len()))
            .fold(pos, |p, _| Position { board: b, drawn: p.drawn.without(drawn[rng.below(drawn.len())]) });
        if mixed.undrawn().len() <= 20 {
            let what = format!("{b} {}", mixed.to_line_string());
            let dense = Dense::solve_under(mixed, Penalty::NONE).unwrap();
            let s = search(mixed, opts).unwrap();
            proptest::prop_assert_eq!(s.value, dense.values[0] as i32, "{}", what);
            for &(line, boxes, v) in &s.moves {
                let after = dense.value(mixed.drawn.with(line));
                proptest::prop_assert_eq!(v, move_value(boxes as i8, after) as i32, "{} move {:?}", what, line);
            }
        }
    }
}

#[test]
fn a_search_leaves_its_bounds_and_a_move_proven_worth_its_lower_bound() {
    use dab::answer::search::SoFar;
    let sol = solved("3x3");
    let sp = &sol.space;
    let value = |drawn| if drawn == board("3x3").full() { 0 } else { sol.value_of(sp.state_of(drawn)).unwrap() as i32 };
    let mut rng = Rng(23);
    for (k, free) in [14, 18, 20, 22, 24].into_iter().enumerate() {
        let pos = random_position(board("3x3"), free, &mut rng);
        let cell = std::sync::Mutex::new(None::<SoFar>);
        let opts = SearchOptions { tt_bytes: 1 << 20, threads: 1 + k % 2, move_values: false, ..Default::default() };
        let s = search(pos, SearchOptions { so_far: Some(&cell), ..opts }).unwrap();
        let f = cell.lock().unwrap().expect("what the search proved");
        assert_eq!((f.lower, f.upper), (s.value, s.value), "{}", pos.to_line_string());
        if let Some(line) = f.best {
            let n = pos.board.completes(pos.drawn, line);
            let worth = move_value(n as i8, value(pos.drawn.with(line)) as i8) as i32;
            assert!(worth >= f.at_least && f.at_least <= f.lower, "{} {line:?}", pos.to_line_string());
        }
        if let Some((line, v)) = f.proven_best() {
            let n = pos.board.completes(pos.drawn, line);
            assert_eq!(move_value(n as i8, value(pos.drawn.with(line)) as i8) as i32, v);
        }
    }
}

#[test]
fn a_kept_table_carries_from_move_to_move_and_every_value_stays_the_retrograde_s() {
    use dab::answer::search::KeptTable;
    let sol = solved("3x3");
    let kept = KeptTable::new();
    let mut rng = Rng(29);
    let (mut with, mut without) = (0, 0);
    for _ in 0..4 {
        // A line of play from 20 undrawn lines, boxes completed on the way or not.
        let mut pos = random_position(board("3x3"), 20, &mut rng);
        while pos.undrawn().len() > 10 {
            let opts = SearchOptions { tt_bytes: 1 << 20, threads: 1, move_values: false, ..Default::default() };
            check(&sol, pos, SearchOptions { kept: Some(&kept), best_move: true, ..opts });
            with += search(pos, SearchOptions { kept: Some(&kept), ..opts }).unwrap().nodes;
            without += search(pos, opts).unwrap().nodes;
            let lines: Vec<_> = pos.undrawn().iter().collect();
            pos.drawn = pos.drawn.with(lines[rng.below(lines.len())]);
        }
    }
    assert!(with < without, "kept: {with} positions, fresh: {without}");
}
