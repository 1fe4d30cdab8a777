//! Hostile stores: a file of another root or board under a partition's name, deleted files,
//! swapped pieces, an empty store, junk and symbolic link loops, unreadable headers, and bytes
//! of any kind. Every reader (`dab verify`, `query`, `hint`, a resume, a cluster task) refuses
//! a misplaced file by name, never answers from it and never panics; `dab verify` exits 0 only
//! for a sound, complete store, 1 with the list otherwise, and 2 for a usage error.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use predicates::prelude::*;
use proptest::prelude::*;

use dab::exec::{ExecOptions, execute_with};
use dab::game::Position;
use dab::plan::ReadyPlan;
use dab::sched::{CostSpec, PieceDeps, Split, orbits};
use dab::solver::Space;
use dab::store::{Header, MAGIC, Reader, STORE_FORMAT, Store, StoreError, folder};

use crate::common;

/// The plan of a root position's partitions (`lines`: None for the empty board), split or not.
fn plan(board: &str, lines: Option<&str>, groups: usize, split: Option<Split>) -> ReadyPlan {
    let b = board.parse().unwrap();
    let root = lines.map_or(Position::empty(b), |l| Position::from_line_string(b, l).unwrap());
    let space = Space::new(root, Some(groups)).unwrap();
    let graph = orbits(&space, &CostSpec::States, split.as_ref()).unwrap();
    ReadyPlan::from_graph(space, graph).unwrap()
}

/// Runs `plan` into the store `base` (a resume when it holds files), keeping a book of at most
/// `keep` lines when asked; returns the root's value and what the run reported.
fn run(plan: &ReadyPlan, base: &Path, keep: Option<usize>) -> (i8, Vec<String>) {
    let store = Store::open(base, &plan.space).unwrap();
    let reports = std::sync::Mutex::new(Vec::new());
    let report = |m: &str| reports.lock().unwrap().push(m.to_string());
    let opts =
        ExecOptions { threads: 2, store: Some(&store), report: Some(&report), keep_lines: keep, ..Default::default() };
    let value = execute_with(plan, &opts).unwrap().value;
    (value, reports.into_inner().unwrap())
}

/// A split that cuts 2x3's bigger partitions into pieces.
fn split() -> Split {
    Split { threshold: 200, max_pieces: 4, deps: PieceDeps::Fine }
}

/// `dab verify --store base` (and `extra`): exit status, stdout, stderr.
fn verify_cli(base: &Path, extra: &[&str]) -> (i32, String, String) {
    let out = common::dab().args(["verify", "--store", base.to_str().unwrap()]).args(extra).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn copy_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A whole 2x3 store, solved once; each test works on its own copy.
fn clean_2x3() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        run(&plan("2x3", None, 2, None), dir.path(), None);
        dir
    })
    .path()
}

fn copy_of_clean() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(clean_2x3(), dir.path());
    dir
}

/// The file of partition `key` in the empty 2x3 board's folder.
fn file_2x3(base: &Path, key: &str) -> PathBuf {
    base.join("2x3").join("g2").join(format!("{key}.dab"))
}

#[test]
fn a_file_of_another_root_under_a_partitions_name_is_refused_by_every_reader() {
    let a = copy_of_clean();
    let b = tempfile::tempdir().unwrap();
    let rooted = plan("2x3", Some("11000000000000000"), 2, None);
    run(&rooted, b.path(), None);
    // A partition of the rooted solve whose name is also a partition of the empty board's.
    let empty = Space::new(Position::empty("2x3".parse().unwrap()), Some(2)).unwrap();
    let key = rooted.layout.iter().map(|l| l.key).find(|k| k.total() == 5 && empty.has_key(k)).unwrap();
    let stray = file_2x3(a.path(), &key.to_string());
    std::fs::copy(folder(b.path(), &rooted.space).join(format!("{key}.dab")), &stray).unwrap();
    let why = "it holds the solve from root 11000000000000000, but lies in the empty board's folder (g2)";
    for extra in [&[][..], &["--recompute", "1000"][..]] {
        let (code, out, err) = verify_cli(a.path(), extra);
        assert_eq!(code, 1, "{out}{err}");
        assert!(out.contains(&format!("damaged: {}: {why}", stray.display())), "{out}");
        assert!(err.contains("is not sound: 1 of"), "{err}");
    }
    let base = a.path().to_str().unwrap();
    for cmd in ["query", "hint", "play"] {
        common::dab()
            .args([cmd, "2x3", "--store", base])
            .write_stdin("")
            .assert()
            .code(2)
            .stderr(predicate::str::contains(stray.to_str().unwrap()).and(predicate::str::contains(why)));
    }
    match Reader::open(a.path(), "2x3".parse().unwrap(), None) {
        Err(StoreError::Damaged { path, reason }) => assert_eq!((path, reason.as_str()), (stray.clone(), why)),
        other => panic!("{:?}", other.map(|r| r.dir().to_path_buf())),
    }
    // A cluster task that reads the partition names the file; a resume computes it again.
    let whole = plan("2x3", None, 2, None);
    let reader_job = (0..whole.graph.len())
        .find(|&i| whole.graph.needs(i).iter().any(|&k| whole.layout[k as usize].key == key))
        .unwrap();
    std::fs::remove_file(folder(a.path(), &whole.space).join(format!("{}.dab", whole.graph.jobs[reader_job].name)))
        .unwrap();
    let store = Store::open_shared(a.path(), &whole.space).unwrap();
    match dab::exec::run_job(&whole, &store, reader_job) {
        Err(dab::exec::ExecError::Store(StoreError::Damaged { path, reason })) => {
            assert!(path == stray && reason.contains("root"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    drop(store);
    let (value, reports) = run(&whole, a.path(), None);
    assert_eq!(value, -2, "2x3's value");
    assert!(reports.iter().any(|r| r.contains(stray.to_str().unwrap()) && r.contains("root")), "{reports:?}");
    assert_eq!(verify_cli(a.path(), &[]).0, 0);
}

#[test]
fn a_file_of_another_board_is_an_error_naming_it_never_a_panic() {
    let a = copy_of_clean();
    let small = tempfile::tempdir().unwrap();
    let p = plan("2x2", None, 2, None);
    run(&p, small.path(), None);
    let stray = file_2x3(a.path(), "3-3");
    std::fs::copy(folder(small.path(), &p.space).join("3-3.dab"), &stray).unwrap();
    let mut rng = common::Rng(5);
    for free in [17, 12, 11, 10] {
        let pos = common::random_position("2x3".parse().unwrap(), free, &mut rng);
        common::dab()
            .args(["query", "2x3", "--lines", &pos.to_line_string(), "--store", a.path().to_str().unwrap()])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "'{}' is damaged: it holds board 2x2, but lies in the folder of board 2x3",
                stray.display()
            )));
    }
}

#[test]
fn verify_calls_a_store_with_a_partition_missing_incomplete() {
    let a = copy_of_clean();
    let gone = file_2x3(a.path(), "4-4");
    std::fs::remove_file(&gone).unwrap();
    let (code, out, err) = verify_cli(a.path(), &[]);
    assert_eq!(code, 1, "{out}{err}");
    let line = format!("missing: {}: no sound file holds partition 4-4, which a whole solve needs", gone.display());
    assert!(out.contains(&line), "{out}");
    assert!(err.contains("1 missing (incomplete)"), "{err}");
    // The files that read it cannot be recomputed: said unchecked, not failed (they are sound).
    let (code, out, err) = verify_cli(a.path(), &["--recompute", "1000"]);
    assert_eq!(code, 1);
    assert!(out.contains("not checked: rows 0..") && out.contains("of partition 4-4, which it reads"), "{out}");
    assert!(!out.contains(": different") && !out.contains("recomputed (0 failed, 0 unchecked)"), "{out}");
    assert!(out.contains("(0 failed, "), "{out}");
    assert!(!err.contains("recomputed files failed") && err.contains("could not be checked"), "{err}");
}

#[test]
fn verify_calls_an_empty_store_incomplete_and_a_missing_one_a_usage_error() {
    let empty = tempfile::tempdir().unwrap();
    let (code, out, _) = verify_cli(empty.path(), &[]);
    assert_eq!(code, 1);
    assert!(out.contains("no space folder (<board>/g<N>): the store holds no solve"), "{out}");
    // A run that died before its first write leaves its folder and lock only.
    drop(Store::open(empty.path(), &plan("2x3", None, 2, None).space).unwrap());
    let (code, out, _) = verify_cli(empty.path(), &[]);
    assert_eq!(code, 1);
    assert!(out.contains("g2: no store files in this space folder"), "{out}");
    let missing = empty.path().join("nowhere");
    let (code, _, err) = verify_cli(&missing, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a folder"), "{err}");
    common::dab().arg("verify").assert().code(2).stderr(predicate::str::contains("--store"));
    common::dab().args(["verify", "--store", "x", "--recompute", "many"]).assert().code(2);
}

#[test]
fn swapped_pieces_are_damaged_for_verify_as_for_a_resume() {
    let p = plan("2x3", None, 2, Some(split()));
    let dir = tempfile::tempdir().unwrap();
    let (value, _) = run(&p, dir.path(), None);
    assert_eq!(verify_cli(dir.path(), &[]).0, 0);
    let key = p.graph.jobs.iter().find(|j| j.name.ends_with("_2")).unwrap().name.split('_').next().unwrap().to_string();
    let piece = |i: usize| folder(dir.path(), &p.space).join(format!("{key}_{i}.dab"));
    for (a, b) in [(0, 1), (1, 2)] {
        let tmp = dir.path().join("swap");
        std::fs::rename(piece(a), &tmp).unwrap();
        std::fs::rename(piece(b), piece(a)).unwrap();
        std::fs::rename(&tmp, piece(b)).unwrap();
        let (code, out, _) = verify_cli(dir.path(), &[]);
        assert_eq!(code, 1, "{out}");
        for i in [a, b] {
            assert!(out.contains(&format!("damaged: {}: piece {i} of {key}", piece(i).display())), "{out}");
        }
        // The reader refuses the store too, naming a swapped piece.
        let err = Reader::open(dir.path(), "2x3".parse().unwrap(), None).err().unwrap().to_string();
        assert!(err.contains(&format!("{key}_{a}.dab")) || err.contains(&format!("{key}_{b}.dab")), "{err}");
        let (again, reports) = run(&p, dir.path(), None);
        assert_eq!(again, value);
        for i in [a, b] {
            assert!(reports.iter().any(|r| r.contains(&format!("{key}_{i}.dab")) && r.contains("computing it again")));
        }
        assert_eq!(verify_cli(dir.path(), &[]).0, 0);
    }
}

#[test]
fn a_book_is_sound_without_its_big_partitions_but_not_with_a_hole() {
    let p = plan("2x3", None, 2, None);
    let dir = tempfile::tempdir().unwrap();
    run(&p, dir.path(), Some(7));
    let (code, out, err) = verify_cli(dir.path(), &["--recompute", "1000"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("an opening book: the partitions of at most 7 of 17 lines"), "{out}");
    // Every file but the deepest layer's (their inputs are not kept) recomputed, all the same.
    let recomputable = p.layout.iter().filter(|l| l.key.total() < 7).count();
    assert!(out.contains(&format!("{recomputable} recomputed (0 failed, 0 unchecked)")), "{out}");
    let hole = p.layout.iter().find(|l| l.key.total() == 3).unwrap().key;
    std::fs::remove_file(file_2x3(dir.path(), &hole.to_string())).unwrap();
    let (code, out, _) = verify_cli(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(out.contains(&format!("partition {hole}, which the opening book of partitions of at most 7 lines needs")));
}

#[cfg(unix)]
#[test]
fn symbolic_link_loops_are_warnings_and_no_file_counts_twice() {
    let a = copy_of_clean();
    let files = std::fs::read_dir(a.path().join("2x3/g2"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "dab"))
        .count();
    std::os::unix::fs::symlink(".", a.path().join("2x3/g2/loop")).unwrap();
    std::os::unix::fs::symlink("..", a.path().join("2x3/up")).unwrap();
    std::os::unix::fs::symlink(".", a.path().join("self")).unwrap();
    let (code, out, _) = verify_cli(a.path(), &["--json"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verify"]["file_count"], files);
    let warned: Vec<String> =
        v["verify"]["warnings"].as_array().unwrap().iter().map(|w| w[0].as_str().unwrap().to_string()).collect();
    for link in ["2x3/g2/loop", "2x3/up", "self"] {
        assert!(warned.iter().any(|w| w.ends_with(link)), "{link}: {warned:?}");
    }
}

#[test]
fn junk_is_a_warning_and_a_resume_leaves_a_store_verify_calls_sound() {
    let a = copy_of_clean();
    let g2 = a.path().join("2x3/g2");
    std::fs::write(g2.join("4-4.dab.4242.tmp"), b"half a write").unwrap();
    std::fs::write(g2.join("notes.txt"), b"mine").unwrap();
    std::fs::write(g2.join("backup.dab"), b"not a partition's name").unwrap();
    std::fs::write(a.path().join("README"), b"mine").unwrap();
    let (code, out, _) = verify_cli(a.path(), &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("4-4.dab.4242.tmp: a temporary file of an unfinished write"), "{out}");
    assert!(out.contains("backup.dab: not a store file's name"), "{out}");
    assert!(out.contains("4 warnings"), "{out}");
    run(&plan("2x3", None, 2, None), a.path(), None);
    assert!(!g2.join("4-4.dab.4242.tmp").exists(), "a resume removes dead writes");
    let (code, out, _) = verify_cli(a.path(), &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("3 warnings"), "{out}");
}

#[test]
fn a_run_with_another_split_leaves_one_split_per_partition() {
    let dir = tempfile::tempdir().unwrap();
    let (value, _) = run(&plan("2x3", None, 2, Some(split())), dir.path(), None);
    let other = Split { threshold: 100, max_pieces: 3, deps: PieceDeps::Whole };
    for p in [plan("2x3", None, 2, Some(other)), plan("2x3", None, 2, None)] {
        let (again, reports) = run(&p, dir.path(), None);
        assert_eq!(again, value);
        assert!(reports.iter().any(|r| r.contains("a file of another split")), "{reports:?}");
        let (code, out, _) = verify_cli(dir.path(), &[]);
        assert_eq!(code, 0, "{out}");
        let names: Vec<String> = std::fs::read_dir(folder(dir.path(), &p.space))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".dab"))
            .collect();
        assert_eq!(names.len(), p.graph.len(), "only this plan's files stay");
    }
}

#[test]
fn a_file_whose_header_cannot_be_read_stops_a_query_by_name() {
    for (bytes, why) in [
        (b"garbage, not a store file".to_vec(), "not a dab store file (no magic)"),
        ([&MAGIC[..], &STORE_FORMAT.to_le_bytes(), &u32::MAX.to_le_bytes(), b"{}"].concat(), "does not fit"),
        ([&MAGIC[..], &STORE_FORMAT.to_le_bytes(), &2u32.to_le_bytes(), b"{}    "].concat(), "unreadable header"),
    ] {
        let a = copy_of_clean();
        let bad = file_2x3(a.path(), "2-2");
        std::fs::write(&bad, bytes).unwrap();
        common::dab()
            .args(["query", "2x3", "--store", a.path().to_str().unwrap()])
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(
                predicate::str::contains(format!("'{}' is damaged: ", bad.display()))
                    .and(predicate::str::contains(why)),
            );
    }
}

/// A 2x3 file laid out by hand with `header` and `values` (good checksums): magic, format,
/// header length, header, values, the CRC-32 of the bytes before the values and of each 64 KiB
/// of values, and the CRC-32 of all before it.
fn by_hand(header: &Header, values: &[u8]) -> Vec<u8> {
    let json = serde_json::to_vec(header).unwrap();
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&STORE_FORMAT.to_le_bytes());
    bytes.extend_from_slice(&(json.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&json);
    let table: Vec<u32> =
        std::iter::once(crc32fast::hash(&bytes)).chain(values.chunks(1 << 16).map(crc32fast::hash)).collect();
    bytes.extend_from_slice(values);
    bytes.extend(table.iter().flat_map(|c| c.to_le_bytes()));
    bytes.extend_from_slice(&crc32fast::hash(&bytes).to_le_bytes());
    bytes
}

/// Puts `bytes` at `2x3/g2/<name>` of a fresh store holding nothing else; checks that verify
/// and a reader refuse it by name (or, when `sound`, accept it) and that nothing panics.
fn refused_alone(name: &str, bytes: &[u8], sound: bool) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let g2 = dir.path().join("2x3/g2");
    std::fs::create_dir_all(&g2).unwrap();
    let path = g2.join(name);
    std::fs::write(&path, bytes).unwrap();
    let v = dab::store::verify(dir.path()).unwrap();
    let named = v.damaged.iter().any(|(p, _)| *p == path);
    prop_assert_eq!(named, !sound, "{:?}", v.damaged);
    let opened = Reader::open(dir.path(), "2x3".parse().unwrap(), None);
    match opened {
        Err(StoreError::Damaged { path: p, .. }) => prop_assert!(!sound && p == path),
        Err(e) => prop_assert!(false, "{e}"),
        Ok(_) => prop_assert!(sound),
    }
    dab::store::recompute(dir.path(), 3, 1).unwrap();
    Ok(())
}

/// The header and values of 2x3's partition 4-4, as written.
fn sample() -> &'static (Header, Vec<u8>) {
    static S: OnceLock<(Header, Vec<u8>)> = OnceLock::new();
    S.get_or_init(|| {
        let (h, v) = dab::store::parse(std::fs::read(file_2x3(clean_2x3(), "4-4")).unwrap()).unwrap();
        (h, v.iter().map(|&x| x as u8).collect())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_under_a_partitions_name_are_refused_by_name(bytes in prop::collection::vec(any::<u8>(), 0..400), magic in any::<bool>()) {
        let bytes = if magic { [&MAGIC[..], &bytes].concat() } else { bytes };
        refused_alone("4-4.dab", &bytes, false)?;
    }

    #[test]
    fn a_header_changed_in_any_field_is_refused_by_name(
        field in 0usize..8,
        text in "[0-9a-z_-]{0,30}",
        number in prop_oneof![Just(0u64), Just(1), Just(u64::MAX), any::<u64>(), 0u64..400],
    ) {
        let (good, values) = sample().clone();
        let mut h = good.clone();
        match field {
            0 => h.board = if text.is_empty() { "2x2".into() } else { text.clone() },
            1 => h.root = if text.is_empty() { "1".repeat(17) } else { text.clone() },
            2 => h.groups = number as usize,
            3 => h.key = text.clone(),
            4 => h.first_row = number,
            5 => h.rows = number,
            6 => h.positions = number,
            _ => h.encoding = text.clone(),
        }
        refused_alone("4-4.dab", &by_hand(&h, &values), h == good)?;
        // Under another partition's name or piece, even the true header is refused.
        refused_alone("4-3.dab", &by_hand(&good, &values), false)?;
        refused_alone("4-4_1.dab", &by_hand(&good, &values), false)?;
    }
}

/// Root of the store whose files the damage tests break: 3x3 with its first line drawn (23
/// undrawn lines: its largest files hold three checksum chunks).
const ROOT_3X3: &str = "100000000000000000000000";

/// What every reader of the clean 3x3 store answers, to hold the damaged copies to.
struct Clean3x3 {
    dir: tempfile::TempDir,
    plan: ReadyPlan,
    /// Every store file, by path relative to the store, with its bytes.
    files: Vec<(PathBuf, Vec<u8>)>,
    /// The search of the empty board with the store's positions as leaves: value and moves.
    searched: (i32, Vec<i32>),
    /// Positions of the store's space with their values.
    sample: Vec<(dab::game::LineSet, i8)>,
}

fn clean_3x3() -> &'static Clean3x3 {
    static S: OnceLock<Clean3x3> = OnceLock::new();
    S.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let p = plan("3x3", Some(ROOT_3X3), 2, None);
        run(&p, dir.path(), None);
        let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(folder(dir.path(), &p.space))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "dab"))
            .map(|p| (p.strip_prefix(dir.path()).unwrap().to_path_buf(), std::fs::read(&p).unwrap()))
            .collect();
        files.sort();
        assert!(files.iter().any(|(_, b)| b.len() as u64 > 2 * dab::store::CHUNK), "a file of several chunks");
        let reader = Reader::open_for(dir.path(), p.space.root, None).unwrap();
        let mut rng = common::Rng(38);
        let sample = (0..400)
            .map(|_| {
                let extra = common::random_position(p.space.board(), 1 + rng.below(20), &mut rng).drawn;
                let drawn = extra.union(p.space.root.drawn);
                (drawn, reader.value(drawn).unwrap().unwrap())
            })
            .collect();
        let searched = search_3x3(dir.path(), 0).unwrap();
        Clean3x3 { dir, plan: p, files, searched, sample }
    })
}

/// The empty 3x3 board searched with a store's later solve as leaves, read through a book of
/// `budget` bytes (0: every file a value at a time, chunk by chunk): value and moves, or why not.
fn search_3x3(base: &Path, budget: u64) -> Result<(i32, Vec<i32>), String> {
    use dab::answer::search::{SearchOptions, search};
    let empty = Position::empty("3x3".parse().unwrap());
    let reader = Reader::open_for(base, empty, None).map_err(|e| e.to_string())?;
    let book = dab::store::Book::with_budget(&reader, budget);
    let opts = SearchOptions { threads: 2, book: Some(&book), tt_bytes: 1 << 22, ..Default::default() };
    let out = search(empty, opts).map_err(|e| e.to_string())?;
    assert!(out.book_hits > 0, "the book was used");
    Ok((out.value, out.moves.iter().map(|m| m.2).collect()))
}

/// Damage kinds: zeroes, every bit flipped, the values negated (as i8), or bytes of a seed.
fn damage(bytes: &mut [u8], kind: u8, seed: u64) {
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = match kind {
            0 => 0,
            1 => !*b,
            2 => (*b as i8).wrapping_neg() as u8,
            _ => (seed.rotate_left(i as u32 % 64) ^ i as u64) as u8,
        };
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any byte range of any file of a store damaged (zeroed, flipped, negated, random): every
    /// reader answers as the clean store does or refuses: a query, a search through a book of
    /// whole files and one read chunk by chunk, and a resume, which computes the file again
    /// and leaves the store as it was.
    #[test]
    fn damage_to_any_byte_range_is_refused_or_changes_no_answer(
        pick in any::<prop::sample::Index>(),
        start in any::<prop::sample::Index>(),
        len in 1usize..150_000,
        kind in 0u8..4,
        seed in any::<u64>(),
    ) {
        let clean = clean_3x3();
        let copy = tempfile::tempdir().unwrap();
        copy_tree(clean.dir.path(), copy.path());
        // Larger files are picked more often: they are the ones read chunk by chunk.
        let big: Vec<&(PathBuf, Vec<u8>)> =
            clean.files.iter().filter(|(_, b)| b.len() as u64 > dab::store::CHUNK).collect();
        let (rel, good) = if seed % 2 == 0 { *pick.get(&big) } else { pick.get(&clean.files) };
        let mut bad = good.clone();
        let from = start.index(bad.len());
        let to = (from + len).min(bad.len());
        damage(&mut bad[from..to], kind, seed);
        prop_assume!(bad != *good);
        std::fs::write(copy.path().join(rel), &bad).unwrap();

        // A query of positions the store holds.
        if let Ok(reader) = Reader::open_for(copy.path(), clean.plan.space.root, None) {
            for (drawn, want) in &clean.sample {
                if let Ok(v) = reader.value(*drawn) {
                    prop_assert_eq!(v, Some(*want), "{}", rel.display());
                }
            }
        }
        // A search with the store's positions as leaves, files read whole or chunk by chunk.
        for budget in [dab::store::BOOK_BYTES, 0] {
            match search_3x3(copy.path(), budget) {
                Ok(answer) => prop_assert_eq!(&answer, &clean.searched, "{} (budget {})", rel.display(), budget),
                Err(e) => prop_assert!(e.contains(&*rel.file_name().unwrap().to_string_lossy()), "{}", e),
            }
        }
        // A cluster task that reads the file: its output as the clean store's, or an error
        // naming the file.
        let name = rel.file_stem().unwrap().to_str().unwrap();
        let job = clean.plan.graph.jobs.iter().position(|j| j.name == name).unwrap();
        if let Some(&reader_job) = clean.plan.graph.needed_by(job).first() {
            let reader_job = reader_job as usize;
            let out = format!("{}.dab", clean.plan.graph.jobs[reader_job].name);
            let out_rel = rel.with_file_name(&out);
            std::fs::remove_file(copy.path().join(&out_rel)).unwrap();
            let store = Store::open_shared(copy.path(), &clean.plan.space).unwrap();
            match dab::exec::run_job(&clean.plan, &store, reader_job) {
                Ok(_) => {
                    let want = &clean.files.iter().find(|(p, _)| *p == out_rel).unwrap().1;
                    prop_assert!(std::fs::read(copy.path().join(&out_rel)).unwrap() == *want, "{} from {}", out, name);
                }
                Err(e) => prop_assert!(e.to_string().contains(name), "{}", e),
            }
        }
        // dab verify names the file; a resume computes it again and the store is as it was.
        let v = dab::store::verify(copy.path()).unwrap();
        prop_assert!(v.damaged.iter().any(|(p, _)| p.ends_with(rel)), "{:?}", v.damaged);
        let (value, _) = run(&clean.plan, copy.path(), None);
        prop_assert_eq!(Some(value), Reader::open_for(clean.dir.path(), clean.plan.space.root, None).unwrap().value(clean.plan.space.root.drawn).unwrap());
        prop_assert!(std::fs::read(copy.path().join(rel)).unwrap() == *good, "{} computed again", rel.display());
        prop_assert!(dab::store::verify(copy.path()).unwrap().sound());
    }
}

/// The reproduction: a 3x4 solve from a root two lines in, then 64 KiB of each MiB of
/// values zeroed (or every value negated) in every file over 1 MiB, size, header and checksums
/// kept. A hint of the empty board, which searches with those files as leaves, must refuse
/// (it answered with 8 of 31 moves wrong, exit 0); so must a query of a position they hold.
#[test]
fn zeroed_or_negated_values_in_large_files_make_every_reader_refuse() {
    let base = tempfile::tempdir().unwrap();
    let sb = base.path().join("SB");
    let root = "1000000000000000000000000000001";
    common::dab()
        .args(["run", "3x4", "--lines", root, "--store", sb.to_str().unwrap(), "--out"])
        .arg(base.path().join("report"))
        .assert()
        .success();
    let dir = sb.join("3x4").join(format!("root-{root}-g2"));
    let large: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dab") && std::fs::metadata(p).unwrap().len() > 1 << 20)
        .collect();
    assert!(large.len() >= 50, "{} files over 1 MiB", large.len());
    let pristine: Vec<Vec<u8>> = large.iter().map(|p| std::fs::read(p).unwrap()).collect();
    for negate in [false, true] {
        for (path, good) in large.iter().zip(&pristine) {
            let (header, _) = dab::store::parse(good.clone()).unwrap();
            let start = 16 + u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
            let end = start + header.positions as usize;
            let mut bad = good.clone();
            if negate {
                damage(&mut bad[start..end], 2, 0);
            } else {
                for at in (start..end).step_by(1 << 20) {
                    bad[at..(at + (1 << 16)).min(end)].fill(0);
                }
            }
            std::fs::write(path, bad).unwrap();
        }
        let store = sb.to_str().unwrap();
        let out = common::dab()
            // The search, which takes the store's positions as leaves (auto solves the empty 3x4
            // in memory, reading nothing of the store).
            .args(["hint", "3x4", "--lines", &"0".repeat(31), "--store", store, "--engine", "search", "--json"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "negate {negate}: {err}");
        assert!(out.stdout.is_empty(), "nothing answered");
        assert!(err.contains("is damaged: checksum mismatch") && err.contains(dir.to_str().unwrap()), "{err}");
        // A query of the root's position reads its own (small) file; one in a large file refuses.
        let (header, _) = dab::store::parse(pristine[0].clone()).unwrap();
        let space = dab::solver::Space::new(Position::from_line_string("3x4".parse().unwrap(), root).unwrap(), Some(2))
            .unwrap();
        let key: dab::solver::PartitionKey = header.key.parse().unwrap();
        let pos = space.position_of(space.state_at(&key, 0));
        common::dab()
            .args(["query", "3x4", "--lines", &pos.to_line_string(), "--store", store])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is damaged: checksum mismatch"));
        assert_eq!(verify_cli(&sb, &[]).0, 1);
    }
    // A resume computes them again, byte for byte.
    common::dab()
        .args(["run", "3x4", "--lines", root, "--store", sb.to_str().unwrap(), "--out"])
        .arg(base.path().join("report"))
        .assert()
        .success();
    for (path, good) in large.iter().zip(&pristine) {
        assert!(std::fs::read(path).unwrap() == *good, "{} computed again", path.display());
    }
    assert_eq!(verify_cli(&sb, &[]).0, 0);
}

/// A named pipe, a link to /dev/zero or a sparse file of 8 GB in a partition file's place:
/// every reader refuses it by name at once (a pipe once made them all wait forever, and
/// /dev/zero read until memory ran out), and a resume computes the file again.
#[test]
fn a_pipe_a_device_or_a_huge_sparse_file_in_a_files_place_is_refused_at_once() {
    type Make = fn(&Path);
    let kinds: [(&str, Make); 3] = [
        ("a named pipe (FIFO), not a regular file", |p| {
            assert!(std::process::Command::new("mkfifo").arg(p).status().unwrap().success())
        }),
        ("a device, not a regular file", |p| std::os::unix::fs::symlink("/dev/zero", p).unwrap()),
        ("not a dab store file (no magic)", |p| std::fs::File::create(p).unwrap().set_len(8 << 30).unwrap()),
    ];
    for (why, make) in kinds {
        let a = copy_of_clean();
        let bad = file_2x3(a.path(), "4-4");
        std::fs::remove_file(&bad).unwrap();
        make(&bad);
        let base = a.path().to_str().unwrap();
        let named = predicate::str::contains(format!("'{}' is damaged: {why}", bad.display()));
        let limit = std::time::Duration::from_secs(30);
        for cmd in [&["query", "2x3"][..], &["hint", "2x3"][..]] {
            common::dab().args(cmd).args(["--store", base]).timeout(limit).assert().code(2).stderr(named.clone());
        }
        let (code, out, _) = verify_cli(a.path(), &[]);
        assert_eq!(code, 1);
        assert!(out.contains(&format!("damaged: {}: {why}", bad.display())), "{out}");
        let (value, reports) = run(&plan("2x3", None, 2, None), a.path(), None);
        assert_eq!(value, -2);
        assert!(reports.iter().any(|r| r.contains(why) && r.contains("computing it again")), "{reports:?}");
        assert_eq!(verify_cli(a.path(), &[]).0, 0, "{why}");
    }
}

/// A file the system will not let dab read is reported as unreadable, with the system's
/// reason, not as damaged (it may be sound). As root (who reads any file), dab is run as the
/// user nobody.
#[test]
fn a_file_that_cannot_be_read_is_unreadable_not_damaged() {
    use std::os::unix::fs::PermissionsExt;
    let a = copy_of_clean();
    std::fs::set_permissions(a.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let bad = file_2x3(a.path(), "4-4");
    std::fs::set_permissions(&bad, std::fs::Permissions::from_mode(0o000)).unwrap();
    let root = std::process::Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let dab = assert_cmd::cargo::cargo_bin("dab");
    let as_user = |args: &[&str]| {
        let mut c = if root {
            let mut c = std::process::Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(&dab);
            c
        } else {
            std::process::Command::new(&dab)
        };
        let out = c.args(args).output().unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let base = a.path().to_str().unwrap();
    let (code, _, err) = as_user(&["query", "2x3", "--store", base]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("cannot read '{}'", bad.display())) && !err.contains("damaged"), "{err}");
    let (code, out, err) = as_user(&["verify", "--store", base]);
    assert_eq!(code, Some(1), "{err}");
    assert!(out.contains(&format!("unreadable: {}: Permission denied", bad.display())), "{out}");
    assert!(err.contains("1 of 9 store files cannot be read") || err.contains("cannot be read"), "{err}");
}

/// A query that opened the store before a run beside it replaced its files (another split:
/// the pieces it surveyed are gone, the whole files in their place) looks again, once, and
/// answers from the new files.
#[test]
fn a_reader_whose_files_were_replaced_beside_it_looks_again_and_answers() {
    let dir = tempfile::tempdir().unwrap();
    let pieces = plan("2x3", None, 2, Some(split()));
    run(&pieces, dir.path(), None);
    let reader = Reader::open(dir.path(), "2x3".parse().unwrap(), None).unwrap();
    let clean = Reader::open(clean_2x3(), "2x3".parse().unwrap(), None).unwrap();
    // Positions of every partition that was split.
    let space = &pieces.space;
    let split_keys: Vec<_> = pieces.layout.iter().filter(|l| l.rows < space.shape(&l.key).0).map(|l| l.key).collect();
    assert!(!split_keys.is_empty());
    run(&plan("2x3", None, 2, None), dir.path(), None);
    for key in split_keys {
        let pos = space.position_of(space.state_at(&key, space.shape(&key).1 * (space.shape(&key).0 - 1)));
        assert_eq!(reader.value(pos.drawn).unwrap(), clean.value(pos.drawn).unwrap(), "{key}");
    }
}

/// A chunk damaged in a file that only the walk for the next loony move reads (the position
/// and every position after one move read clean): the query refuses, naming the file, or
/// answers as the clean store does; never a next loony move from damaged values.
#[test]
fn a_chunk_damaged_where_only_the_walk_reads_is_refused_by_name() {
    let clean = clean_3x3();
    let root = clean.plan.space.root;
    let penalty = dab::game::Penalty::NONE;
    let reader = Reader::open_for(clean.dir.path(), root, None).unwrap();
    // A position whose walk settles and reads partitions past its moves'.
    let mut rng = common::Rng(85);
    let (pos, want) = (0..200)
        .find_map(|_| {
            let extra = common::random_position(root.board, 13 + rng.below(3), &mut rng).drawn;
            let pos = Position { board: root.board, drawn: extra.union(root.drawn) };
            let a = dab::answer::from_store(&reader, pos, penalty).unwrap()?;
            a.next_loony.map(|_| (pos, a))
        })
        .expect("a position whose walk settles");
    let direct = |r: &Reader| -> Result<(), StoreError> {
        r.value(pos.drawn)?;
        pos.undrawn().iter().try_for_each(|l| r.value(pos.drawn.with(l)).map(|_| ()))
    };
    let mut refused_by_the_walk = 0;
    for (rel, good) in &clean.files {
        for at in (0..good.len()).step_by(dab::store::CHUNK as usize / 2).skip(1) {
            let copy = tempfile::tempdir().unwrap();
            copy_tree(clean.dir.path(), copy.path());
            let mut bad = good.clone();
            let to = (at + 4096).min(bad.len());
            damage(&mut bad[at..to], 0, 0);
            if bad == *good {
                continue;
            }
            std::fs::write(copy.path().join(rel), &bad).unwrap();
            let Ok(damaged) = Reader::open_for(copy.path(), root, None) else { continue };
            let walk_only = direct(&damaged).is_ok();
            match dab::answer::from_store(&damaged, pos, penalty) {
                Ok(Some(a)) => {
                    assert_eq!((a.value, &a.best), (want.value, &want.best), "{}", rel.display());
                    if let Some(n) = a.next_loony {
                        assert_eq!(Some(n), want.next_loony, "{} at byte {at}", rel.display());
                    }
                }
                Ok(None) => panic!("{}: the store still holds the position", rel.display()),
                Err(e) => {
                    let name = rel.file_name().unwrap().to_string_lossy();
                    assert!(e.to_string().contains(&*name), "{e}");
                    refused_by_the_walk += usize::from(walk_only);
                }
            }
        }
    }
    assert!(refused_by_the_walk > 0, "some damage lies where only the walk reads");
}
