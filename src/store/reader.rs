//! A store folder opened for reading only, without the lock, so that queries may run beside
//! a solve: the folder surveyed (every store file's header checked against its place, a store
//! with a refused file refused by name), and the value of any position whose partition the
//! store holds.

use std::path::Path;

use crate::game::{Board, LineSet, Position, Value};
use crate::solver::Space;

use super::error::StoreError;
use super::place::{Survey, load, root_of, shape, space_of, survey};

/// A store folder opened for reading only: no lock, so queries may run beside a solve.
pub struct Reader {
    survey: Survey,
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
    /// the latest root where several are stored; `groups` as for [`Reader::open`].
    pub fn open_for(base: &Path, pos: Position, groups: Option<usize>) -> Result<Reader, StoreError> {
        let board = pos.board;
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
        let solves = if pos.drawn.is_empty() {
            format!("no solve of the empty {board} board")
        } else {
            format!("no {board} solve that holds this position (of the empty board, or from a root it has drawn)")
        };
        if !board_dir.is_dir() {
            return Err(not_found(format!("the store holds {solves}")));
        }
        // Every folder whose root this position has drawn, with its grouping.
        let mut found: Vec<(Position, usize, String)> = std::fs::read_dir(&board_dir)
            .map_err(|source| StoreError::Read { path: board_dir.clone(), source })?
            .filter_map(|e| {
                let e = e.ok()?;
                let name = e.file_name().into_string().ok()?;
                let (root, g) = root_of(board, &name).ok()?;
                (e.file_type().ok()?.is_dir() && pos.drawn.contains_all(root.drawn)).then_some((root, g, name))
            })
            .collect();
        if found.is_empty() {
            return Err(not_found(format!("the store holds {solves}")));
        }
        if let Some(g) = groups {
            found.retain(|(_, h, _)| *h == g);
            if found.is_empty() {
                let which = if pos.drawn.is_empty() { "" } else { " that holds this position" };
                return Err(not_found(format!("the store holds no {board} solve with {g} groups{which}")));
            }
        }
        let latest = found.iter().map(|(r, _, _)| r.drawn.len()).max().expect("a solve was found");
        found.retain(|(r, _, _)| r.drawn.len() == latest);
        // Two roots as late as each other that the position both holds: the first by name.
        found.sort_by(|a, b| (a.1, &a.2).cmp(&(b.1, &b.2)));
        let mut counts: Vec<usize> = found.iter().map(|(_, g, _)| *g).collect();
        counts.dedup();
        if counts.len() > 1 {
            return Err(not_found(format!("several groupings ({counts:?}): choose one with --groups")));
        }
        let name = found.swap_remove(0).2;
        let dir = board_dir.join(&name);
        let space = space_of(&board.to_string(), &name).map_err(not_found)?;
        let survey = survey(&dir, space, false)?;
        if let Some((path, reason)) = survey.damaged.first() {
            let more = match survey.damaged.len() - 1 {
                0 => String::new(),
                n => format!(" (and {n} more files; dab verify --store {} lists them)", base.display()),
            };
            return Err(StoreError::Damaged { path: path.clone(), reason: format!("{reason}{more}") });
        }
        Ok(Reader { survey })
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
    /// board is worth 0 whether or not its file was kept. A file that changed since the store
    /// was opened, or fails its checksum, is an error naming it.
    pub fn value(&self, drawn: LineSet) -> Result<Option<Value>, StoreError> {
        let space = &self.survey.space;
        if drawn.len() as usize == space.board().lines() {
            return Ok(Some(0));
        }
        if !drawn.contains_all(space.root.drawn) {
            return Ok(None);
        }
        let (key, index) = space.locate(space.state_of(drawn));
        let Some(parts) = self.survey.cover.get(&key) else { return Ok(None) };
        let (_, row_len) = shape(space, &key);
        let row = index as u64 / row_len;
        let Some(piece) = parts.iter().find(|p| (p.first..p.first + p.rows).contains(&row)) else { return Ok(None) };
        let values = load(space, &key, piece)?;
        let at = index as u64 - piece.first * row_len;
        let damaged = || StoreError::Damaged { path: piece.path.clone(), reason: format!("it has no position {at}") };
        values.get(at as usize).map(|&v| Some(v)).ok_or_else(damaged)
    }
}
