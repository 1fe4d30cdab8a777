//! A store folder opened for reading only, without the lock, so that queries may run beside
//! a solve: the files' headers indexed by partition, and the value of any position whose
//! partition the store holds.

use std::path::{Path, PathBuf};

use crate::game::{Board, LineSet, Position, Value};
use crate::solver::Space;

use super::error::StoreError;
use super::format::{EXT, parse, read_header};

/// The files of one store folder by partition key: (first row, rows, file), by first row.
pub(crate) type Index = std::collections::HashMap<String, Vec<(u64, u64, PathBuf)>>;

/// Reads the headers of every file of one store folder (not its subfolders).
pub(crate) fn index(dir: &Path) -> Result<Index, StoreError> {
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
    space: Space,
    files: Index,
}

impl Reader {
    /// Opens the folder of the empty board's space with `groups` groups (None: the only
    /// grouping the store holds for that board).
    pub fn open(base: &Path, board: Board, groups: Option<usize>) -> Result<Reader, StoreError> {
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
        let space = Space::new(Position::empty(board), Some(groups)).map_err(|e| not_found(e.to_string()))?;
        let dir = board_dir.join(format!("g{groups}"));
        if !dir.is_dir() {
            return Err(not_found(format!("the store holds no {board} solve with {groups} groups")));
        }
        let files = index(&dir)?;
        Ok(Reader { dir, space, files })
    }

    /// The empty board's space the folder holds, with its grouping.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The folder read.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The value of a position of the board, if the store holds its partition. The full
    /// board is worth 0 whether or not its file was kept.
    pub fn value(&self, drawn: LineSet) -> Result<Option<Value>, StoreError> {
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
