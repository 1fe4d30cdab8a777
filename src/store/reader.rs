//! A store folder opened for reading only, without the lock, so that queries may run beside
//! a solve: the folder surveyed (every store file's header checked against its place, a store
//! with a refused file refused by name), and the value of any position whose partition the
//! store holds. No value is returned from bytes whose checksum has not been checked: small
//! files are read whole, larger ones a chunk at a time, each chunk checked when first used.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex, RwLock};

use crate::game::{Board, LineSet, Penalty, Position, Value};
use crate::solver::{PartitionKey, Space, State};

use super::error::StoreError;
use super::error::penalty_words;
use super::format::Chunked;
use super::place::{Piece, Survey, load, open_chunked, root_of, shape, space_of, survey};

/// A store folder opened for reading only: no lock, so queries may run beside a solve.
pub struct Reader {
    survey: Survey,
    /// Files opened for reading a value at a time, by partition and first row: each chunk's
    /// checksum is checked once per process.
    chunked: RwLock<HashMap<(PartitionKey, u64), Arc<Chunked>>>,
}

impl Reader {
    /// Opens the folder of the empty board's space with `groups` groups (None: the only
    /// grouping the store holds for that board). Every store file's header is checked against
    /// the folder and its name; a file that fails refuses the whole store, by name, rather
    /// than be skipped and its positions solved again at length.
    pub fn open(base: &Path, board: Board, groups: Option<usize>) -> Result<Reader, StoreError> {
        Reader::open_for(base, Position::empty(board), groups)
    }

    /// Opens the solve that holds `pos`: the empty board's, or a solve from a root whose lines
    /// `pos` has drawn (`dab run --lines` on a board too large to solve whole), the one from
    /// the latest root where several are stored. Where none holds it, a solve from a later
    /// root (one that has drawn every line of `pos`), the earliest of them: it holds no
    /// answer to `pos` itself, but a search of `pos` can take its positions as exact leaves
    /// ([`Book`]). `groups` as for [`Reader::open`].
    pub fn open_for(base: &Path, pos: Position, groups: Option<usize>) -> Result<Reader, StoreError> {
        Reader::open_under(base, pos, groups, Penalty::NONE)
    }

    /// [`Reader::open_for`] among the solves under the last-move `penalty` only: a solve under
    /// another penalty (none included) holds other values, and is refused by name where it is
    /// all the store holds.
    pub fn open_under(
        base: &Path,
        pos: Position,
        groups: Option<usize>,
        penalty: Penalty,
    ) -> Result<Reader, StoreError> {
        let board = pos.board;
        let board_dir = base.join(board.to_string());
        let not_found = |what: String| StoreError::Read {
            path: board_dir.clone(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, what),
        };
        check_base(base)?;
        let solves = if pos.drawn.is_empty() {
            format!("no solve of the empty {board} board")
        } else {
            format!(
                "no {board} solve that holds this position (of the empty board, or from a root it has drawn) or \
                 any later position"
            )
        };
        if !board_dir.is_dir() {
            return Err(not_found(format!("the store holds {solves}")));
        }
        let related = related_solves(&board_dir, pos)?;
        let name = choose_solve(related, pos, groups, penalty, &solves).map_err(not_found)?;
        let dir = board_dir.join(&name);
        let space = space_of(&board.to_string(), &name).map_err(not_found)?;
        let survey = survey(&dir, space, false)?;
        refuse_unsound(&survey, base)?;
        Ok(Reader { survey, chunked: RwLock::default() })
    }

    /// The space the folder holds (the empty board's, or a root's), with its grouping.
    pub fn space(&self) -> &Space {
        &self.survey.space
    }

    /// The folder read.
    pub fn dir(&self) -> &Path {
        &self.survey.dir
    }

    /// The value of a position of the board, if the store holds its partition. The full
    /// board is worth minus the penalty (0 without one) whether or not its file was kept. A file that fails a check is an
    /// error naming it. A file removed or replaced by a run beside this reader since the store
    /// was opened is looked for again, once, in a fresh survey of the folder.
    pub fn value(&self, drawn: LineSet) -> Result<Option<Value>, StoreError> {
        let space = &self.survey.space;
        if drawn.len() as usize == space.board().lines() {
            return Ok(Some(space.penalty.full_board_value()));
        }
        if !drawn.contains_all(space.root.drawn) {
            return Ok(None);
        }
        let state = space.state_of(drawn);
        let Some((key, piece, at)) = find(&self.survey, state) else { return Ok(None) };
        match self.chunked(key, piece).and_then(|f| f.value(at)) {
            Ok(v) => Ok(Some(v)),
            Err(first) => {
                let fresh = survey(&self.survey.dir, space.clone(), false)?;
                if refuse_unsound(&fresh, &self.survey.dir).is_err() {
                    return Err(first);
                }
                self.chunked.write().unwrap_or_else(|e| e.into_inner()).clear();
                let Some((key, piece, at)) = find(&fresh, state) else { return Err(first) };
                open_chunked(space, &key, piece)?.value(at).map(Some)
            }
        }
    }

    /// A file of the survey opened for reading values one at a time (once per process).
    fn chunked(&self, key: PartitionKey, piece: &Piece) -> Result<Arc<Chunked>, StoreError> {
        if let Some(f) = self.chunked.read().unwrap_or_else(|e| e.into_inner()).get(&(key, piece.first)) {
            return Ok(f.clone());
        }
        let f = Arc::new(open_chunked(&self.survey.space, &key, piece)?);
        let mut map = self.chunked.write().unwrap_or_else(|e| e.into_inner());
        Ok(map.entry((key, piece.first)).or_insert(f).clone())
    }
}

/// A solve folder of a board's folder: its root, groups and penalty, and its name.
struct SolveDir {
    root: Position,
    groups: usize,
    penalty: Penalty,
    name: String,
}

/// `base` refused where it is no folder: a path that exists is named as what it is.
fn check_base(base: &Path) -> Result<(), StoreError> {
    if base.is_dir() {
        return Ok(());
    }
    let (kind, what) = match base.metadata() {
        Ok(_) => (std::io::ErrorKind::NotADirectory, "a file, not a store folder"),
        Err(_) => (std::io::ErrorKind::NotFound, "no such store folder"),
    };
    Err(StoreError::Read { path: base.to_path_buf(), source: std::io::Error::new(kind, what) })
}

/// Every solve folder in `board_dir` whose root `pos` has drawn, or that has drawn `pos`'s
/// lines, under any penalty.
fn related_solves(board_dir: &Path, pos: Position) -> Result<Vec<SolveDir>, StoreError> {
    let board = pos.board;
    Ok(std::fs::read_dir(board_dir)
        .map_err(|source| StoreError::Read { path: board_dir.to_path_buf(), source })?
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().into_string().ok()?;
            let (root, groups, penalty) = root_of(board, &name).ok()?;
            let related = pos.drawn.contains_all(root.drawn) || root.drawn.contains_all(pos.drawn);
            (e.file_type().ok()?.is_dir() && related).then_some(SolveDir { root, groups, penalty, name })
        })
        .collect())
}

/// The name of the solve to read among `related`: under `penalty`, with `groups` groups where
/// given, the latest root that holds `pos`, else the earliest later one; else what the store
/// holds instead (`solves`: the solves that would do, for the message where there are none).
fn choose_solve(
    related: Vec<SolveDir>,
    pos: Position,
    groups: Option<usize>,
    penalty: Penalty,
    solves: &str,
) -> Result<String, String> {
    let board = pos.board;
    let mut elsewhere: Vec<Penalty> = related.iter().map(|r| r.penalty).filter(|&p| p != penalty).collect();
    let all: Vec<SolveDir> = related.into_iter().filter(|r| r.penalty == penalty).collect();
    if all.is_empty() && !elsewhere.is_empty() {
        elsewhere.sort();
        elsewhere.dedup();
        let held: Vec<String> = elsewhere.into_iter().map(penalty_words).collect();
        return Err(format!(
            "the store holds {board} solves for this position only under {}, not under {}: their values are another game's",
            held.join(" or "),
            penalty_words(penalty)
        ));
    }
    let (mut found, later): (Vec<_>, Vec<_>) = all.into_iter().partition(|r| pos.drawn.contains_all(r.root.drawn));
    let holding = !found.is_empty();
    if !holding {
        found = later;
    }
    if found.is_empty() {
        return Err(format!("the store holds {solves}"));
    }
    if let Some(g) = groups {
        found.retain(|r| r.groups == g);
        if found.is_empty() {
            let which = if pos.drawn.is_empty() { "" } else { " that holds this position or a later one" };
            return Err(format!("the store holds no {board} solve with {g} groups{which}"));
        }
    }
    // The latest root that holds the position, else the earliest later one.
    let pick = |r: &Position| if holding { r.drawn.len() } else { u32::MAX - r.drawn.len() };
    let best = found.iter().map(|r| pick(&r.root)).max().expect("a solve was found");
    found.retain(|r| pick(&r.root) == best);
    // Two roots as late (or early) as each other: the first by name.
    found.sort_by(|a, b| (a.groups, &a.name).cmp(&(b.groups, &b.name)));
    let mut counts: Vec<usize> = found.iter().map(|r| r.groups).collect();
    counts.dedup();
    if counts.len() > 1 {
        return Err(format!("several groupings ({counts:?}): name the one to read"));
    }
    Ok(found.swap_remove(0).name)
}

/// The first file of a survey that cannot be used, as the error every reader gives: an
/// unreadable one (a permission) as such, else a damaged one, the count of the others named.
fn refuse_unsound(survey: &Survey, base: &Path) -> Result<(), StoreError> {
    let more = |n: usize| match n {
        0 => String::new(),
        n => format!(" (and {n} more files; dab verify on {} lists them)", base.display()),
    };
    let others = survey.damaged.len() + survey.unreadable.len();
    if let Some((path, e)) = survey.unreadable.first() {
        let source = std::io::Error::new(e.kind(), format!("{e}{}", more(others - 1)));
        return Err(StoreError::Read { path: path.clone(), source });
    }
    if let Some((path, reason)) = survey.damaged.first() {
        return Err(StoreError::Damaged { path: path.clone(), reason: format!("{reason}{}", more(others - 1)) });
    }
    Ok(())
}

/// The file of a survey that holds a state of its space, and the state's place in it.
fn find(survey: &Survey, state: State) -> Option<(PartitionKey, &Piece, u64)> {
    let space = &survey.space;
    let (key, index) = space.locate(state);
    let parts = survey.cover.get(&key)?;
    let (_, row_len) = shape(space, &key);
    let row = index as u64 / row_len;
    let piece = parts.iter().find(|p| (p.first..p.first + p.rows).contains(&row))?;
    Some((key, piece, index as u64 - piece.first * row_len))
}

/// The value at `at` of a file's values, or the error naming the file that is too short.
fn value_at(values: &[Value], piece: &Piece, at: u64) -> Result<Value, StoreError> {
    let damaged = || StoreError::Damaged { path: piece.path.clone(), reason: format!("it has no position {at}") };
    values.get(at as usize).copied().ok_or_else(damaged)
}

/// Bytes of store files a [`Book`] keeps in memory unless told otherwise.
pub const BOOK_BYTES: u64 = 1 << 30;

/// Largest file a [`Book`] reads whole (and checks whole); a larger one is read a value at a
/// time where the search asks, each chunk checked when first used: a search probes a few
/// thousand positions of files that may hold gigabytes.
pub const BOOK_WHOLE_BYTES: u64 = 1 << 20;

/// A file a [`Book`] has opened (cloned as its handles).
#[derive(Clone)]
enum Kept {
    /// Read whole and checked.
    Whole(Arc<Vec<Value>>),
    /// Its header checked, its values read one at a time, each chunk checked when first used.
    Open(Arc<Chunked>),
    /// Its reading failed (the error is kept once): not read again at every probe.
    Failed,
}

/// The files a [`Book`] has opened, by partition and first row.
type KeptFiles = HashMap<(PartitionKey, u64), Kept>;

/// A store read as leaves of a search: small files read whole once, checked, and kept in
/// memory (up to a budget of bytes), larger ones kept open and read a value at a time, each
/// chunk's checksum checked before its first value is used.
/// Lookups cannot fail, so that the search's loop stays infallible: the first read that fails
/// is kept for [`Book::take_error`], its position counts as not held, and [`Book::failed`]
/// tells the search to stop: an answer is given only from a store that read back sound.
pub struct Book<'r> {
    reader: &'r Reader,
    /// The files opened so far, by partition and first row, and the bytes of those read whole.
    files: RwLock<(KeptFiles, u64)>,
    /// Most bytes of files read whole.
    budget: u64,
    /// The first read that failed.
    failed: Mutex<Option<StoreError>>,
    /// Whether a read has failed (kept set after [`Book::take_error`]): a search stops.
    any_failed: AtomicBool,
}

impl<'r> Book<'r> {
    /// The book of an open store, nothing read yet, keeping up to [`BOOK_BYTES`].
    pub fn new(reader: &'r Reader) -> Book<'r> {
        Book::with_budget(reader, BOOK_BYTES)
    }

    /// The book of an open store keeping up to `budget` bytes of its files in memory (past
    /// it, every file is read a value at a time).
    pub fn with_budget(reader: &'r Reader, budget: u64) -> Book<'r> {
        Book { reader, files: RwLock::default(), budget, failed: Mutex::default(), any_failed: AtomicBool::new(false) }
    }

    /// The space of the store's solve: its root, and the numbering of [`Book::value`]'s states.
    pub fn space(&self) -> &Space {
        self.reader.space()
    }

    /// The value of a state of the store's space, if the store holds it (and its file could be
    /// read).
    pub fn value(&self, state: State) -> Option<Value> {
        let (key, piece, at) = find(&self.reader.survey, state)?;
        let (kept, used) = {
            let files = self.files.read().unwrap_or_else(|e| e.into_inner());
            (files.0.get(&(key, piece.first)).cloned(), files.1)
        };
        let read = match kept.unwrap_or_else(|| self.open(key, piece, used)) {
            Kept::Whole(values) => value_at(&values, piece, at),
            Kept::Open(file) => file.value(at),
            Kept::Failed => return None,
        };
        read.map_or_else(|e| self.fail(e), Some)
    }

    /// Opens a file not opened before: whole if small and within the budget, else for reading
    /// a value at a time; kept for the next lookup (a failure too, its error kept once).
    fn open(&self, key: PartitionKey, piece: &Piece, used: u64) -> Kept {
        let bytes = piece.rows * shape(self.space(), &key).1;
        let whole = bytes <= BOOK_WHOLE_BYTES && used + bytes <= self.budget;
        let opened = if whole {
            load(self.space(), &key, piece).map(|v| Kept::Whole(Arc::new(v)))
        } else {
            self.reader.chunked(key, piece).map(Kept::Open)
        };
        let kept = opened.unwrap_or_else(|e| {
            self.fail(e);
            Kept::Failed
        });
        let mut files = self.files.write().unwrap_or_else(|e| e.into_inner());
        let (map, used) = &mut *files;
        map.entry((key, piece.first))
            .or_insert_with(|| {
                if whole && !matches!(kept, Kept::Failed) {
                    *used += bytes;
                }
                kept
            })
            .clone()
    }

    /// Keeps the first error; the position is not held.
    fn fail(&self, e: StoreError) -> Option<Value> {
        self.any_failed.store(true, Relaxed);
        self.failed.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
        None
    }

    /// Whether any read has failed: the book no longer holds what it was opened with, and a
    /// search using it should stop and report [`Book::take_error`].
    pub fn failed(&self) -> bool {
        self.any_failed.load(Relaxed)
    }

    /// The first read that failed since the book was made, if one did.
    pub fn take_error(&self) -> Option<StoreError> {
        self.failed.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Files opened so far (read whole, kept open, or failed).
    pub fn files_read(&self) -> usize {
        self.files.read().unwrap_or_else(|e| e.into_inner()).0.len()
    }

    /// Bytes of files read whole and kept in memory.
    pub fn bytes_kept(&self) -> u64 {
        self.files.read().unwrap_or_else(|e| e.into_inner()).1
    }
}
