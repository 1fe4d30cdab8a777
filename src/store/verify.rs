//! Checking a store: every file's magic, format, length, checksum and place (`dab verify`),
//! and recomputing files picked at random from the files they read (`--recompute N`).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::game::{Position, Value};
use crate::solver::{Kernel, PartitionKey, Pieces, Space};
use crate::support::SplitMix64;

use super::error::StoreError;
use super::format::{EXT, Header, parse};
use super::reader::{Index, index};

/// What `dab verify` found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Verification {
    /// Store files checked.
    pub files: usize,
    /// Positions in the files that passed every check.
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
    /// The file recomputed.
    pub file: PathBuf,
    /// `same`, `different`, or why it could not be recomputed.
    pub outcome: String,
}

/// Recomputes `n` files picked at random (seeded) from the files they read in the same
/// folder, and compares the values.
pub fn recompute(base: &Path, n: usize, seed: u64) -> Result<Vec<Recomputed>, StoreError> {
    let files = store_files(base)?;
    let mut rng = SplitMix64(seed);
    let mut picked: Vec<usize> = Vec::new();
    while picked.len() < n.min(files.len()) {
        let i = rng.below(files.len());
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
        .and_then(|b| Position::from_line_string(b, &h.root).ok())
        .and_then(|root| Space::new(root, Some(h.groups)).ok())
    else {
        return outcome(format!(
            "its header names no valid space ({} root {} with {} groups)",
            h.board, h.root, h.groups
        ));
    };
    let Ok(key) = h.key.parse::<PartitionKey>() else { return outcome(format!("bad key {}", h.key)) };
    let kernel = Kernel::new(&space);
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
    let views: Vec<Pieces> = loaded
        .iter()
        .map(|(starts, data)| Pieces::new(starts.clone(), data.iter().map(|d| d.as_slice()).collect()))
        .collect();
    let mut out = vec![0 as Value; values.len()];
    kernel.compute(&key, &views, &mut out, h.first_row as usize);
    outcome(if out == values { "same".into() } else { "different: the values disagree with a recomputation".into() })
}
