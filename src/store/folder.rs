//! A store folder opened for a run: one file per job (a partition, or a row range of one),
//! named by the job, in a folder per board, root, grouping and last-move penalty. A file is written under a
//! temporary name, flushed to disk, then renamed, so a file that exists under its own name was
//! complete when written; a file that fails any check is reported by name and never used. One
//! run at a time holds the folder's lock, taken on the folder itself (flock on an open
//! descriptor: deleting a file cannot release it, and the system releases it if the run dies);
//! cluster tasks share it. Before removing anything a run checks that its path still names
//! the folder it locked.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::game::{Penalty, Value};
use crate::solver::{Layout, Space};

use super::error::StoreError;
use super::format::{CHUNK, EXT, Header, differs, encoding, open, write_to};
use super::place::{DONE_FOLDER, LOCK, TMP, folder_name, parse_name};

/// The store folder of one space, locked for this run.
pub struct Store {
    dir: PathBuf,
    /// The locked descriptor (the folder's own, or its LOCK file's where the filesystem cannot
    /// lock a folder), held for the life of the store; the lock goes with it.
    _lock: File,
    /// The folder the lock was taken on (device, inode), checked before anything is removed.
    id: Option<(u64, u64)>,
    /// What every file of this folder must say besides its job.
    board: String,
    root: String,
    groups: usize,
    penalty: Penalty,
    /// Lines per group: which keys name a partition of the space.
    sizes: Vec<u32>,
}

/// The folder of a space inside a store: board, then root (when not empty), grouping and
/// penalty (when any).
pub fn folder(base: &Path, space: &Space) -> PathBuf {
    base.join(space.board().to_string()).join(folder_name(space))
}

impl Store {
    /// Opens (creating it if needed) and locks the folder of `space` under `base` for
    /// this run alone, and clears temporary files that dead runs left behind.
    pub fn open(base: &Path, space: &Space) -> Result<Store, StoreError> {
        let store = Store::open_locked(base, space, true)?;
        store.check_held()?;
        store.remove_temps(|_| true).map_err(|source| StoreError::Read { path: store.dir.clone(), source })?;
        Ok(store)
    }

    /// Opens the folder for one cluster task: tasks share the lock with each other (each
    /// writes only its own job's file) but not with a run that holds it alone.
    pub fn open_shared(base: &Path, space: &Space) -> Result<Store, StoreError> {
        Store::open_locked(base, space, false)
    }

    fn open_locked(base: &Path, space: &Space, alone: bool) -> Result<Store, StoreError> {
        let dir = folder(base, space);
        std::fs::create_dir_all(&dir).map_err(|source| StoreError::Folder { path: dir.clone(), source })?;
        let folder_file = File::open(&dir).map_err(|source| StoreError::Lock { path: dir.clone(), source })?;
        let lock = match try_lock(&folder_file, alone) {
            Ok(true) => folder_file,
            Ok(false) => return Err(StoreError::Locked { path: dir }),
            // A filesystem that cannot lock a folder (NFS emulates flock with POSIX locks,
            // which want a file open for writing): the lock file, as every run there takes it.
            Err(_) => {
                let lock_path = dir.join(LOCK);
                let mut options = OpenOptions::new();
                options.create(true).truncate(false).write(true);
                #[cfg(unix)]
                std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
                let lock_err = |source| StoreError::Lock { path: lock_path.clone(), source };
                let file = options.open(&lock_path).map_err(lock_err)?;
                if !file.metadata().map_err(lock_err)?.is_file() {
                    let source = std::io::Error::other("not a regular file");
                    return Err(StoreError::Lock { path: lock_path, source });
                }
                match try_lock(&file, alone) {
                    Ok(true) => file,
                    Ok(false) => return Err(StoreError::Locked { path: dir }),
                    Err(source) => return Err(StoreError::Lock { path: lock_path, source }),
                }
            }
        };
        Ok(Store {
            id: identity(&dir),
            dir,
            _lock: lock,
            board: space.board().to_string(),
            root: space.root.to_line_string(),
            groups: space.groups.len(),
            penalty: space.penalty,
            sizes: space.groups.iter().map(|g| g.size).collect(),
        })
    }

    /// Whether the folder's path still names the folder this store locked: a folder moved
    /// away and another made in its place (by hand, or a second run) is not this run's to
    /// clean. Checked before anything is removed.
    fn check_held(&self) -> Result<(), StoreError> {
        match identity(&self.dir) {
            now if now == self.id => Ok(()),
            _ => Err(StoreError::Replaced { path: self.dir.clone() }),
        }
    }

    /// The space's folder inside the store.
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
            encoding: encoding(self.penalty),
            penalty: self.penalty,
        }
    }

    /// Writes job `name`'s values durably: temporary file, flushed to disk, renamed.
    pub fn write(&self, name: &str, layout: &Layout, values: &[Value]) -> Result<(), StoreError> {
        let path = self.path(name);
        // Per process: two cluster tasks may write the same job at once (a requeue).
        let tmp = self.dir.join(format!("{name}.{EXT}.{}{TMP}", std::process::id()));
        let err = |source| StoreError::Write { path: path.clone(), source };
        let header = self.header(layout, values.len() as u64);
        let written = File::create(&tmp).and_then(|f| {
            let mut out = std::io::BufWriter::with_capacity(CHUNK as usize, f);
            write_to(&mut out, &header, values)?;
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        });
        if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, &path)) {
            let _ = std::fs::remove_file(&tmp);
            return Err(err(e));
        }

        // The rename itself must reach the disk too.
        File::open(&self.dir).and_then(|d| d.sync_all()).map_err(err)
    }

    /// Removes the temporary files (`NAME.dab.PID.tmp`) that earlier writers of the jobs
    /// `names` left when they were killed mid-write: a cluster task re-run sweeps its own jobs'
    /// (the folder is shared, so [`Store::open`]'s sweep of every one does not run). A
    /// duplicate of the task writing at this moment would lose its temporary file and fail
    /// its write, and be run again by the cluster engine.
    pub fn remove_temps_of(&self, names: &std::collections::HashSet<&str>) {
        // Best effort: a folder that cannot be listed keeps its leftovers for a later run.
        let _ = self.remove_temps(|job| job.is_some_and(|j| names.contains(j)));
    }

    /// Removes, in one listing of the folder, every temporary file that `of` accepts, given
    /// its job's name where the file's name holds one (a file already gone is no error).
    fn remove_temps(&self, of: impl Fn(Option<&str>) -> bool) -> std::io::Result<()> {
        let ext = format!(".{EXT}");
        for entry in std::fs::read_dir(&self.dir)?.flatten() {
            let file = entry.file_name();
            let file = file.to_string_lossy();
            let Some(stem) = file.strip_suffix(TMP) else { continue };
            // NAME.dab.PID.tmp: the job's name before the extension.
            let job = stem.rsplit_once('.').and_then(|(f, _pid)| f.strip_suffix(&ext));
            if of(job) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(())
    }

    /// Deletes job `name`'s file (the opening book keeps only the small partitions); a file
    /// whose header says another last-move penalty is another game's values, out of place, and
    /// is left as it is ([`StoreError::OtherPenalty`]).
    pub fn remove(&self, name: &str) -> Result<(), StoreError> {
        self.check_held()?;
        let path = self.path(name);
        if let Ok(opened) = open(&path)
            && opened.header.penalty != self.penalty
        {
            return Err(StoreError::OtherPenalty { path, held: opened.header.penalty, folder: self.penalty });
        }
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(StoreError::Write { path, source: e }),
            _ => Ok(()),
        }
    }

    /// The job names of the store files in the folder (`<key>` or `<key>_<piece>` of a
    /// partition of the space), sorted; other entries are not the store's and are left out.
    pub fn job_files(&self) -> Result<Vec<String>, StoreError> {
        let read_err = |source| StoreError::Read { path: self.dir.clone(), source };
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&self.dir).map_err(read_err)? {
            let name = entry.map_err(read_err)?.file_name();
            let Some(name) = name.to_str() else { continue };
            let ours = parse_name(name).is_some_and(|(k, _)| {
                k.groups() == self.sizes.len() && k.counts().iter().zip(&self.sizes).all(|(&c, &s)| c as u32 <= s)
            });
            if ours {
                out.push(name[..name.len() - EXT.len() - 1].to_string());
            }
        }
        out.sort();
        Ok(out)
    }

    /// Records that the cluster task of done marker `marker` ([`crate::plan::done_marker`]) is
    /// done: the file `done/<marker>` in the space folder, on disk (flushed, with its folder)
    /// before this returns, since other tasks remove files on its word.
    pub fn mark_done(&self, marker: &str) -> Result<(), StoreError> {
        let dir = self.dir.join(DONE_FOLDER);
        let path = dir.join(marker);
        let err = |source| StoreError::Write { path: path.clone(), source };
        crate::support::write_atomic(&path, b"").map_err(err)?;
        File::open(&path).and_then(|f| f.sync_all()).map_err(err)?;
        File::open(&dir).and_then(|d| d.sync_all()).map_err(err)
    }

    /// Whether the cluster task of done marker `marker` is done ([`Store::mark_done`]).
    pub fn is_done(&self, marker: &str) -> bool {
        self.dir.join(DONE_FOLDER).join(marker).is_file()
    }

    /// Whether job `name` has a file (checked or not).
    pub fn has(&self, name: &str) -> bool {
        self.path(name).exists()
    }

    /// Reads and checks job `name`'s values against what the plan says they are: the header
    /// first (so a file is never read past what the plan allows; one under another penalty is
    /// [`StoreError::OtherPenalty`]), then every checksum.
    pub fn read(&self, name: &str, layout: &Layout, positions: u64) -> Result<Vec<Value>, StoreError> {
        let path = self.path(name);
        let opened = open(&path)?;
        if opened.header.penalty != self.penalty {
            return Err(StoreError::OtherPenalty { path, held: opened.header.penalty, folder: self.penalty });
        }
        match differs(&opened.header, &self.header(layout, positions)) {
            Some(reason) => Err(StoreError::Damaged { path, reason }),
            None => opened.values(),
        }
    }
}

/// Takes the lock on an open file or folder: Ok(false) when another holds it.
fn try_lock(file: &File, alone: bool) -> std::io::Result<bool> {
    match if alone { file.try_lock() } else { file.try_lock_shared() } {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// The device and inode a path names now (None where it names nothing, or off unix).
fn identity(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
