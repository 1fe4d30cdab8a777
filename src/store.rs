//! The durable partition store: one file per job (a partition, or a row range of one), named
//! by the job, in a folder per board, root and grouping. A file is a header (magic, format
//! version, then JSON naming the board, root, grouping, key, rows, positions and value
//! encoding), the values (one byte a position), and a CRC-32 of everything before it. It is
//! written under a temporary name, flushed to disk, then renamed, so a file that exists under
//! its own name was complete when written; a file that fails any check is reported by name and
//! never used. One run at a time holds the folder's lock (released by the system if the run
//! dies).

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::kernel::Value;
use crate::plan::{Checked, Layout};

/// First bytes of every store file.
pub const MAGIC: &[u8; 8] = b"DABPART\n";
/// Store files this version reads and writes.
pub const STORE_FORMAT: u32 = 1;
/// What a value byte means.
pub const ENCODING: &str = "i8: net future boxes for the player to move";
/// File name extension of a job's values.
const EXT: &str = "dab";
const LOCK: &str = "LOCK";
/// Bytes written at a time.
const CHUNK: usize = 1 << 16;
/// Ending of a file being written.
const TMP: &str = ".tmp";

/// A file's header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub board: String,
    pub root: String,
    pub groups: usize,
    pub key: String,
    pub first_row: u64,
    pub rows: u64,
    pub positions: u64,
    pub encoding: String,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create store folder '{path}': {source}")]
    Folder { path: PathBuf, source: std::io::Error },
    #[error("store '{path}' is in use by another run (its lock is held)")]
    Locked { path: PathBuf },
    #[error("cannot lock store '{path}': {source}")]
    Lock { path: PathBuf, source: std::io::Error },
    #[error("cannot write '{path}': {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot read '{path}': {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("'{path}' is damaged: {reason}")]
    Damaged { path: PathBuf, reason: String },
}

/// The store folder of one plan's space, locked for this run.
pub struct Store {
    dir: PathBuf,
    /// Held for the life of the store; the lock goes with the file.
    _lock: File,
    /// What every file of this folder must say besides its job.
    board: String,
    root: String,
    groups: usize,
}

/// The folder of a space inside a store: board, then root (when not empty) and grouping.
pub fn folder(base: &Path, plan: &Checked) -> PathBuf {
    let space = &plan.space;
    let root = space.root.to_line_string();
    let grouping = if root.contains('1') {
        format!("root-{root}-g{}", space.groups.len())
    } else {
        format!("g{}", space.groups.len())
    };
    base.join(space.board().to_string()).join(grouping)
}

impl Store {
    /// Opens (creating it if needed) and locks the folder of `plan`'s space under `base` for
    /// this run alone, and clears temporary files that dead runs left behind.
    pub fn open(base: &Path, plan: &Checked) -> Result<Store, StoreError> {
        let store = Store::open_locked(base, plan, true)?;
        let stale =
            std::fs::read_dir(&store.dir).map_err(|source| StoreError::Read { path: store.dir.clone(), source })?;
        for entry in stale.flatten() {
            if entry.file_name().to_string_lossy().ends_with(TMP) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(store)
    }

    /// Opens the folder for one cluster task: tasks share the lock with each other (each
    /// writes only its own job's file) but not with a run that holds it alone.
    pub fn open_shared(base: &Path, plan: &Checked) -> Result<Store, StoreError> {
        Store::open_locked(base, plan, false)
    }

    fn open_locked(base: &Path, plan: &Checked, alone: bool) -> Result<Store, StoreError> {
        let dir = folder(base, plan);
        std::fs::create_dir_all(&dir).map_err(|source| StoreError::Folder { path: dir.clone(), source })?;
        let lock_path = dir.join(LOCK);
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|source| StoreError::Lock { path: lock_path.clone(), source })?;
        let locked = if alone { lock.try_lock() } else { lock.try_lock_shared() };
        match locked {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Err(StoreError::Locked { path: dir }),
            Err(std::fs::TryLockError::Error(source)) => return Err(StoreError::Lock { path: lock_path, source }),
        }
        Ok(Store {
            dir,
            _lock: lock,
            board: plan.space.board().to_string(),
            root: plan.space.root.to_line_string(),
            groups: plan.space.groups.len(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of job `name`.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.{EXT}"))
    }

    fn header(&self, layout: &Layout, positions: u64) -> Header {
        Header {
            board: self.board.clone(),
            root: self.root.clone(),
            groups: self.groups,
            key: layout.key.to_string(),
            first_row: layout.first_row as u64,
            rows: layout.rows as u64,
            positions,
            encoding: ENCODING.into(),
        }
    }

    /// Writes job `name`'s values durably: temporary file, flushed to disk, renamed.
    pub fn write(&self, name: &str, layout: &Layout, values: &[Value]) -> Result<(), StoreError> {
        let path = self.path(name);
        // Per process: two cluster tasks may write the same job at once (a requeue).
        let tmp = self.dir.join(format!("{name}.{EXT}.{}{TMP}", std::process::id()));
        let err = |source| StoreError::Write { path: path.clone(), source };
        let header = serde_json::to_vec(&self.header(layout, values.len() as u64)).expect("a header serialises");
        let mut head = Vec::with_capacity(16 + header.len());
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&STORE_FORMAT.to_le_bytes());
        head.extend_from_slice(&(header.len() as u32).to_le_bytes());
        head.extend_from_slice(&header);
        let written = File::create(&tmp).and_then(|f| {
            // In chunks, so that writing a partition never holds a second copy of it.
            let mut out = std::io::BufWriter::with_capacity(CHUNK, f);
            let mut crc = crc32fast::Hasher::new();
            crc.update(&head);
            out.write_all(&head)?;
            let mut chunk = Vec::with_capacity(CHUNK);
            for part in values.chunks(CHUNK) {
                chunk.clear();
                chunk.extend(part.iter().map(|&v| v as u8));
                crc.update(&chunk);
                out.write_all(&chunk)?;
            }
            out.write_all(&crc.finalize().to_le_bytes())?;
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        });
        if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, &path)) {
            let _ = std::fs::remove_file(&tmp);
            return Err(err(e));
        }
        // The rename itself must reach the disk too.
        File::open(&self.dir).and_then(|d| d.sync_all()).map_err(err)
    }

    /// Deletes job `name`'s file (the opening book keeps only the small partitions).
    pub fn remove(&self, name: &str) -> Result<(), StoreError> {
        let path = self.path(name);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(StoreError::Write { path, source: e }),
            _ => Ok(()),
        }
    }

    /// Whether job `name` has a file (checked or not).
    pub fn has(&self, name: &str) -> bool {
        self.path(name).exists()
    }

    /// Reads and checks job `name`'s values against what the plan says they are.
    pub fn read(&self, name: &str, layout: &Layout, positions: u64) -> Result<Vec<Value>, StoreError> {
        let path = self.path(name);
        let mut bytes = Vec::new();
        File::open(&path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|source| StoreError::Read { path: path.clone(), source })?;
        let damaged = |reason: String| StoreError::Damaged { path: path.clone(), reason };
        let (header, values) = parse(bytes).map_err(damaged)?;
        let want = self.header(layout, positions);
        if header != want {
            return Err(damaged(format!(
                "it holds {} rows {}+{} of board {} (root {}, {} groups), not {} rows {}+{} of board {} (root {}, {} groups)",
                header.key,
                header.first_row,
                header.rows,
                header.board,
                header.root,
                header.groups,
                want.key,
                want.first_row,
                want.rows,
                want.board,
                want.root,
                want.groups
            )));
        }
        Ok(values)
    }
}

/// Splits a file into its header and values, checking magic, format, length and checksum.
/// The values reuse the file's buffer: reading a partition never holds it twice.
pub fn parse(mut bytes: Vec<u8>) -> Result<(Header, Vec<Value>), String> {
    if bytes.len() < 20 || &bytes[..8] != MAGIC {
        return Err("not a dab store file (no magic)".into());
    }
    let format = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    let len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let header: Option<Header> = bytes.get(16..16 + len).and_then(|h| serde_json::from_slice(h).ok());
    let end = header.as_ref().map(|h| 16 + len + h.positions as usize);
    if let Some(end) = end.filter(|&e| bytes.len() != e + 4) {
        return Err(format!("{} bytes where {} were expected (truncated or extended)", bytes.len(), end + 4));
    }
    // The checksum covers everything before it, header included: any changed byte shows.
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
        return Err("checksum mismatch (a byte has changed)".into());
    }
    if format != STORE_FORMAT {
        return Err(format!("store format {format}, this dab reads {STORE_FORMAT}"));
    }
    let header = header.ok_or("unreadable header")?;
    bytes.truncate(bytes.len() - 4);
    bytes.drain(..16 + len);
    // In place: a map over a vector's own iterator into a same-sized type keeps the buffer.
    Ok((header, bytes.into_iter().map(|b| b as Value).collect()))
}

/// What `dab verify` found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Verification {
    pub files: usize,
    pub positions: u64,
    /// Files that failed a check, with the reason.
    pub damaged: Vec<(PathBuf, String)>,
}

/// Checks every store file under `base`: magic, format, length, checksum, and that its header
/// agrees with its place (board folder, file name).
pub fn verify(base: &Path) -> Result<Verification, StoreError> {
    let mut out = Verification::default();
    for path in store_files(base)? {
        out.files += 1;
        let bytes = std::fs::read(&path).map_err(|source| StoreError::Read { path: path.clone(), source })?;
        match parse(bytes).and_then(|(h, _)| placed(&path, base, &h).map(|()| h.positions)) {
            Ok(positions) => out.positions += positions,
            Err(reason) => out.damaged.push((path, reason)),
        }
    }
    out.damaged.sort();
    Ok(out)
}

/// Whether a file's header agrees with its name and folder.
fn placed(path: &Path, base: &Path, h: &Header) -> Result<(), String> {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let key = stem.split('_').next().unwrap_or("");
    if key != h.key {
        return Err(format!("it holds partition {} but is named {stem}", h.key));
    }
    let board = path.strip_prefix(base).ok().and_then(|p| p.components().next()).and_then(|c| c.as_os_str().to_str());
    match board {
        Some(b) if b != h.board => Err(format!("it holds board {} but lies in folder {b}", h.board)),
        _ => Ok(()),
    }
}

/// The files of one store folder by partition key: (first row, rows, file), by first row.
type Index = std::collections::HashMap<String, Vec<(u64, u64, PathBuf)>>;

/// Reads the headers of every file of one store folder (not its subfolders).
fn index(dir: &Path) -> Result<Index, StoreError> {
    let mut files = Index::new();
    for entry in std::fs::read_dir(dir).map_err(|source| StoreError::Read { path: dir.to_path_buf(), source })? {
        let path = entry.map_err(|source| StoreError::Read { path: dir.to_path_buf(), source })?.path();
        if path.extension().is_some_and(|e| e == EXT)
            && let Ok(h) = read_header(&path)
        {
            files.entry(h.key.clone()).or_default().push((h.first_row, h.rows, path));
        }
    }
    for parts in files.values_mut() {
        parts.sort();
    }
    Ok(files)
}

/// A store folder opened for reading only: no lock, so queries may run beside a solve.
pub struct Reader {
    dir: PathBuf,
    space: crate::space::Space,
    files: Index,
}

impl Reader {
    /// Opens the folder of the empty board's space with `groups` groups (None: the only
    /// grouping the store holds for that board).
    pub fn open(base: &Path, board: crate::board::Board, groups: Option<usize>) -> Result<Reader, StoreError> {
        let board_dir = base.join(board.to_string());
        let not_found = |what: String| StoreError::Read {
            path: board_dir.clone(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, what),
        };
        if !base.is_dir() {
            return Err(StoreError::Read {
                path: base.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such store folder"),
            });
        }
        if !board_dir.is_dir() {
            return Err(not_found(format!("the store holds no solve of the empty {board} board")));
        }
        let groups = match groups {
            Some(g) => g,
            None => {
                let found: Vec<usize> = std::fs::read_dir(&board_dir)
                    .map_err(|source| StoreError::Read { path: board_dir.clone(), source })?
                    .filter_map(|e| e.ok()?.file_name().to_str()?.strip_prefix('g')?.parse().ok())
                    .collect();
                match found.as_slice() {
                    [g] => *g,
                    [] => return Err(not_found(format!("no grouping of the empty {board} board in this store"))),
                    _ => return Err(not_found(format!("several groupings ({found:?}): choose one with --groups"))),
                }
            }
        };
        let space = crate::space::Space::new(crate::position::Position::empty(board), Some(groups))
            .map_err(|e| not_found(e.to_string()))?;
        let dir = board_dir.join(format!("g{groups}"));
        if !dir.is_dir() {
            return Err(not_found(format!("the store holds no {board} solve with {groups} groups")));
        }
        let files = index(&dir)?;
        Ok(Reader { dir, space, files })
    }

    pub fn space(&self) -> &crate::space::Space {
        &self.space
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The value of a position of the board, if the store holds its partition. The full
    /// board is worth 0 whether or not its file was kept.
    pub fn value(&self, drawn: crate::board::LineSet) -> Result<Option<Value>, StoreError> {
        if drawn.len() as usize == self.space.board().lines() {
            return Ok(Some(0));
        }
        let (key, index) = self.space.locate(self.space.state_of(drawn));
        let Some(parts) = self.files.get(&key.to_string()) else { return Ok(None) };
        let row_len = self.space.groups.last().map_or(1, |g| g.count(key.counts()[key.groups() - 1] as usize));
        let row = (index / row_len) as u64;
        let Some((first, _, path)) = parts.iter().find(|(f, r, _)| (*f..f + r).contains(&row)) else { return Ok(None) };
        let bytes = std::fs::read(path).map_err(|source| StoreError::Read { path: path.clone(), source })?;
        let (_, values) = parse(bytes).map_err(|reason| StoreError::Damaged { path: path.clone(), reason })?;
        Ok(Some(values[index - *first as usize * row_len]))
    }
}

/// A file's header alone (the file is checked when its values are read).
fn read_header(path: &Path) -> Result<Header, StoreError> {
    let damaged = |reason: &str| StoreError::Damaged { path: path.to_path_buf(), reason: reason.into() };
    let mut f = File::open(path).map_err(|source| StoreError::Read { path: path.to_path_buf(), source })?;
    let mut head = [0u8; 16];
    f.read_exact(&mut head).map_err(|_| damaged("shorter than a header"))?;
    if &head[..8] != MAGIC {
        return Err(damaged("not a dab store file (no magic)"));
    }
    let len = u32::from_le_bytes(head[12..16].try_into().expect("4 bytes")) as usize;
    let mut json = vec![0u8; len];
    f.read_exact(&mut json).map_err(|_| damaged("unreadable header (truncated?)"))?;
    serde_json::from_slice(&json).map_err(|_| damaged("unreadable header"))
}

/// Every store file under `base`, sorted.
fn store_files(base: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let mut out = Vec::new();
    let mut stack = vec![base.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let read_err = |source| StoreError::Read { path: dir.clone(), source };
        for e in std::fs::read_dir(&dir).map_err(read_err)? {
            let path = e.map_err(read_err)?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == EXT) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The outcome of recomputing one file.
#[derive(Clone, Debug, Serialize)]
pub struct Recomputed {
    pub file: PathBuf,
    /// `same`, `different`, or why it could not be recomputed.
    pub outcome: String,
}

/// Recomputes `n` files picked at random (seeded) from the files they read in the same
/// folder, and compares the values.
pub fn recompute(base: &Path, n: usize, seed: u64) -> Result<Vec<Recomputed>, StoreError> {
    let files = store_files(base)?;
    let mut state = seed;
    let mut picked: Vec<usize> = Vec::new();
    while picked.len() < n.min(files.len()) {
        // SplitMix64 steps: reproducible without a dependency.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        let i = ((z ^ (z >> 31)) % files.len() as u64) as usize;
        if !picked.contains(&i) {
            picked.push(i);
        }
    }
    let mut indexes: std::collections::HashMap<PathBuf, Index> = Default::default();
    picked
        .iter()
        .map(|&i| {
            let dir = files[i].parent().unwrap_or(Path::new(".")).to_path_buf();
            if !indexes.contains_key(&dir) {
                indexes.insert(dir.clone(), index(&dir)?);
            }
            recompute_one(&files[i], &indexes[&dir])
        })
        .collect()
}

/// Recomputes one file from the files of its folder that it reads.
fn recompute_one(path: &Path, pieces: &Index) -> Result<Recomputed, StoreError> {
    let outcome = |o: String| Ok(Recomputed { file: path.to_path_buf(), outcome: o });
    let bytes = std::fs::read(path).map_err(|source| StoreError::Read { path: path.to_path_buf(), source })?;
    let (h, values) = match parse(bytes) {
        Ok(x) => x,
        Err(reason) => return outcome(format!("damaged: {reason}")),
    };
    let Some(space) = h
        .board
        .parse()
        .ok()
        .and_then(|b| crate::position::Position::from_line_string(b, &h.root).ok())
        .and_then(|root| crate::space::Space::new(root, Some(h.groups)).ok())
    else {
        return outcome(format!(
            "its header names no valid space ({} root {} with {} groups)",
            h.board, h.root, h.groups
        ));
    };
    let Ok(key) = h.key.parse::<crate::key::PartitionKey>() else { return outcome(format!("bad key {}", h.key)) };
    let kernel = crate::kernel::Kernel::new(&space);
    let mut loaded: Vec<(Vec<usize>, Vec<Vec<Value>>)> = Vec::new();
    for g in 0..key.groups() {
        if key.counts()[g] as u32 >= space.groups[g].size {
            loaded.push((Vec::new(), Vec::new()));
            continue;
        }
        let succ = key.plus(g);
        let (rows, row_len) = kernel.shape(&succ);
        let parts = pieces.get(&succ.to_string()).map_or(&[][..], |p| p.as_slice());
        let mut starts = Vec::new();
        let mut data = Vec::new();
        let mut next = 0u64;
        for &(first, _, ref f) in parts {
            let b = std::fs::read(f).map_err(|source| StoreError::Read { path: f.clone(), source })?;
            let Ok((_, v)) = parse(b) else { return outcome(format!("it reads {}, which is damaged", f.display())) };
            next = first + (v.len() / row_len) as u64;
            starts.push(first as usize * row_len);
            data.push(v);
        }
        if next != rows as u64 {
            return outcome(format!("cannot recompute: partition {succ}, which it reads, is not (all) in the store"));
        }
        loaded.push((starts, data));
    }
    let views: Vec<crate::kernel::Pieces> = loaded
        .iter()
        .map(|(starts, data)| crate::kernel::Pieces::new(starts.clone(), data.iter().map(|d| d.as_slice()).collect()))
        .collect();
    let mut out = vec![0 as Value; values.len()];
    kernel.compute(&key, &views, &mut out, h.first_row as usize);
    outcome(if out == values { "same".into() } else { "different: the values disagree with a recomputation".into() })
}
