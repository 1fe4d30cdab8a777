//! Checking a store (`dab verify`): every store file's magic, format, length, checksum and
//! place (board folder, space folder, name and piece, rows and positions of its space), the
//! pieces of each partition against each other, and that the store is complete: every
//! partition of each space folder held in full rows, up to the most lines any file holds (an
//! opening book kept with `--keep-lines` holds only its small partitions, and that is no
//! hole). With `--recompute N`, files picked at random (seeded) are computed again from the
//! files they read. The walk has a fixed depth (board, space folder, file), so symbolic links
//! cannot make it loop. What dab never reads (other names, temporary files, folders under
//! other names) is a warning, never damage: no wrong answer can come from it, and a resume
//! (which removes only temporary files) must leave a store that verify calls sound.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::game::{Board, Value};
use crate::solver::{Kernel, PartitionKey, Pieces};
use crate::support::SplitMix64;

use super::error::StoreError;
use super::format::EXT;
use super::place::{Piece, Survey, load, shape, space_of, survey};

/// One space folder of a verified store.
#[derive(Clone, Debug, Serialize)]
pub struct Folder {
    /// The folder.
    pub dir: PathBuf,
    /// Its store files (`file_count` in JSON).
    #[serde(rename = "file_count")]
    pub files: usize,
    /// Partitions of at most this many lines must all be there: the whole space (its
    /// undrawn lines) for a full store, fewer for an opening book. None: no store file.
    pub lines: Option<usize>,
    /// Undrawn lines of its root: `lines` below this is an opening book.
    pub free: usize,
}

/// What `dab verify` found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Verification {
    /// Store files checked (`file_count` in JSON).
    #[serde(rename = "file_count")]
    pub files: usize,
    /// Positions in the files that passed every check.
    pub positions: u64,
    /// Files that failed a check, with the reason.
    pub damaged: Vec<(PathBuf, String)>,
    /// Store files the system would not let us read (a permission, an I/O error), with the
    /// system's error: not known to be damaged, but not checked either.
    pub unreadable: Vec<(PathBuf, String)>,
    /// What is missing: partitions or rows in no sound file (named by the file that would hold
    /// them), or a store or space folder without any store file.
    pub incomplete: Vec<(PathBuf, String)>,
    /// Entries that are no store file (dab never reads them), with what they are.
    pub warnings: Vec<(PathBuf, String)>,
    /// The space folders checked.
    pub folders: Vec<Folder>,
}

impl Verification {
    /// Whether the store is sound: nothing damaged, unreadable or missing.
    pub fn sound(&self) -> bool {
        self.damaged.is_empty() && self.unreadable.is_empty() && self.incomplete.is_empty()
    }
}

/// Checks every store file under `base` and whether the store is complete.
pub fn verify(base: &Path) -> Result<Verification, StoreError> {
    let (surveys, warnings) = surveys(base, true)?;
    let mut out = Verification { warnings, ..Default::default() };
    if surveys.is_empty() {
        out.incomplete.push((base.to_path_buf(), "no space folder (<board>/g<N>): the store holds no solve".into()));
    }
    for s in surveys {
        out.files += s.files;
        out.positions += s.positions;
        let depth = s.depth();
        match depth {
            None => out.incomplete.push((s.dir.clone(), "no store files in this space folder".into())),
            Some(most) => {
                let needs = if most >= s.space.free() {
                    "a whole solve needs".to_string()
                } else {
                    format!("the opening book of partitions of at most {most} lines needs")
                };
                for key in s.space.keys().into_iter().filter(|k| k.total() <= most) {
                    let file = s.dir.join(format!("{key}.{EXT}"));
                    let (rows, _) = shape(&s.space, &key);
                    for (a, b) in s.gaps(&key) {
                        let what = if (a, b) == (0, rows) {
                            format!("no sound file holds partition {key}, which {needs}")
                        } else {
                            format!(
                                "no sound file holds rows {a}..{b} of partition {key} (rows 0..{rows}), which {needs}"
                            )
                        };
                        out.incomplete.push((file.clone(), what));
                    }
                }
            }
        }
        out.folders.push(Folder { dir: s.dir, files: s.files, lines: depth, free: s.space.free() });
        out.damaged.extend(s.damaged);
        out.unreadable.extend(s.unreadable.into_iter().map(|(p, e)| (p, e.to_string())));
        out.warnings.extend(s.warnings);
    }
    out.damaged.sort();
    out.unreadable.sort();
    out.incomplete.sort();
    out.warnings.sort();
    Ok(out)
}

/// Paths, each with what was found about it.
type Listed = Vec<(PathBuf, String)>;

/// The entries of a folder, sorted by name.
fn entries(dir: &Path) -> Result<Vec<std::fs::DirEntry>, StoreError> {
    let read_err = |source| StoreError::Read { path: dir.to_path_buf(), source };
    let mut out: Vec<std::fs::DirEntry> =
        std::fs::read_dir(dir).map_err(read_err)?.collect::<Result<_, _>>().map_err(read_err)?;
    out.sort_by_key(|e| e.file_name());
    Ok(out)
}

/// Every space folder under `base` surveyed (`whole`: every file read whole), and what lies
/// at the board and space folder level that is neither. Folders are looked for only at
/// `<base>/<board>/<space>`, under the names dab gives them, and links to folders are
/// followed there as a reader follows them: a fixed depth, so no link can make the walk loop,
/// and a folder linked under another space's name is checked as that space's (as a reader
/// opening that name would read it).
fn surveys(base: &Path, whole: bool) -> Result<(Vec<Survey>, Listed), StoreError> {
    let mut found = Vec::new();
    let mut warnings = Vec::new();
    for board in entries(base)? {
        let path = board.path();
        let name = board.file_name().to_string_lossy().into_owned();
        let is_board = name.parse::<Board>().is_ok_and(|b| b.to_string() == name);
        if !path.is_dir() || !is_board {
            warnings.push((path, "not a board folder (<rows>x<cols>, e.g. 3x4): dab never reads it".into()));
            continue;
        }
        for place in entries(&path)? {
            let dir = place.path();
            let space_name = place.file_name().to_string_lossy().into_owned();
            if !dir.is_dir() {
                warnings.push((
                    dir,
                    "not in a space folder (<board>/g<N> or <board>/root-<lines>-g<N>): dab never reads it".into(),
                ));
                continue;
            }
            match space_of(&name, &space_name) {
                Ok(space) => found.push(survey(&dir, space, whole)?),
                Err(why) => warnings.push((dir, format!("not a space folder: {why}; dab never reads it"))),
            }
        }
    }
    Ok((found, warnings))
}

/// What recomputing one file found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The recomputation agreed with the file.
    Same,
    /// The values disagree with a recomputation from sound inputs: a failure of this file.
    Different,
    /// The file itself cannot be read or fails its checks: a failure of this file.
    Damaged,
    /// Not checked: a file it reads is missing, damaged or itself failed its recomputation, so
    /// nothing is known of this one (the store is unsound all the same, for that input).
    Unchecked,
}

/// The outcome of recomputing one file.
#[derive(Clone, Debug, Serialize)]
pub struct Recomputed {
    /// The file recomputed.
    pub file: PathBuf,
    /// What was found.
    pub verdict: Verdict,
    /// `same`, or one line on what differed or why it was not checked.
    pub outcome: String,
}

impl Recomputed {
    /// Whether the recomputation agreed with the file.
    pub fn same(&self) -> bool {
        self.verdict == Verdict::Same
    }

    /// Whether the file itself is wrong (different or damaged); an unchecked file is not.
    pub fn failed(&self) -> bool {
        matches!(self.verdict, Verdict::Different | Verdict::Damaged)
    }
}

/// Recomputes `n` files picked at random (seeded) from the files they read in the same
/// folder, and compares the values. Only sound files whose inputs the store must hold are
/// picked: an opening book's deepest partitions read partitions it does not keep. Files are
/// recomputed inputs first, so that a reader of a file found wrong is called unchecked rather
/// than wrong itself (its recomputation read the wrong values).
pub fn recompute(base: &Path, n: usize, seed: u64) -> Result<Vec<Recomputed>, StoreError> {
    let (surveys, _) = surveys(base, false)?;
    // (survey, partition, file) of every file that can be recomputed, by path.
    let mut files: Vec<(usize, PartitionKey, &Piece)> = Vec::new();
    for (i, s) in surveys.iter().enumerate() {
        let most = s.depth().unwrap_or(0);
        for (key, pieces) in &s.cover {
            if s.space.successors(key).iter().all(|k| k.total() <= most) {
                files.extend(pieces.iter().map(|p| (i, *key, p)));
            }
        }
    }
    files.sort_by(|a, b| a.2.path.cmp(&b.2.path));
    let mut rng = SplitMix64(seed);
    let mut picked: Vec<usize> = Vec::new();
    while picked.len() < n.min(files.len()) {
        let i = rng.below(files.len());
        if !picked.contains(&i) {
            picked.push(i);
        }
    }
    // Inputs (more lines drawn) before their readers; the random order otherwise kept.
    let mut order: Vec<usize> = (0..picked.len()).collect();
    order.sort_by_key(|&j| std::cmp::Reverse(files[picked[j]].1.total()));
    let mut kernels: Vec<Option<Kernel>> = surveys.iter().map(|_| None).collect();
    let mut out: Vec<Option<Recomputed>> = vec![None; picked.len()];
    let mut doubt = Doubt::default();
    for j in order {
        let (si, key, piece) = files[picked[j]];
        let kernel = kernels[si].get_or_insert_with(|| Kernel::new(&surveys[si].space));
        let (verdict, outcome) = recompute_one(&surveys[si], kernel, &key, piece, &doubt);
        match verdict {
            Verdict::Same => {}
            Verdict::Unchecked => doubt.unchecked.push(&piece.path),
            Verdict::Different | Verdict::Damaged => doubt.failed.push(&piece.path),
        }
        out[j] = Some(Recomputed { file: piece.path.clone(), verdict, outcome });
    }
    Ok(out.into_iter().flatten().collect())
}

/// Files already recomputed and not found the same.
#[derive(Default)]
struct Doubt<'a> {
    /// Found different or damaged: a reader recomputed from them proves nothing.
    failed: Vec<&'a Path>,
    /// Not checked themselves: a reader that agrees with them is consistent with them, one that
    /// does not cannot say which of the two is wrong.
    unchecked: Vec<&'a Path>,
}

/// Recomputes one file from the files of its folder that it reads: `same`, or what failed.
fn recompute_one(s: &Survey, kernel: &Kernel, key: &PartitionKey, piece: &Piece, doubt: &Doubt) -> (Verdict, String) {
    let values = match load(&s.space, key, piece) {
        Ok(v) => v,
        Err(StoreError::Damaged { reason, .. }) => return (Verdict::Damaged, format!("damaged: {reason}")),
        Err(e) => return (Verdict::Damaged, format!("cannot be read: {e}")),
    };
    let unchecked = |why: String| (Verdict::Unchecked, format!("not checked: {why}"));
    let mut loaded: Vec<(Vec<usize>, Vec<Vec<Value>>)> = Vec::new();
    let mut unsure: Option<&PathBuf> = None;
    for g in 0..key.groups() {
        if key.counts()[g] as u32 >= s.space.groups[g].size {
            loaded.push((Vec::new(), Vec::new()));
            continue;
        }
        let succ = key.plus(g);
        if let Some(&(a, b)) = s.gaps(&succ).first() {
            return unchecked(format!("rows {a}..{b} of partition {succ}, which it reads, are in no sound file"));
        }
        let (_, row_len) = shape(&s.space, &succ);
        let mut starts = Vec::new();
        let mut data = Vec::new();
        for p in &s.cover[&succ] {
            if doubt.failed.contains(&p.path.as_path()) {
                return unchecked(format!("it reads {}, which failed", p.path.display()));
            }
            if doubt.unchecked.contains(&p.path.as_path()) {
                unsure.get_or_insert(&p.path);
            }
            match load(&s.space, &succ, p) {
                Ok(v) => data.push(v),
                Err(e) => return unchecked(format!("it reads {e}")),
            }
            starts.push((p.first * row_len) as usize);
        }
        loaded.push((starts, data));
    }
    let views: Vec<Pieces> = loaded
        .iter()
        .map(|(starts, data)| Pieces::new(starts.clone(), data.iter().map(|d| d.as_slice()).collect()))
        .collect();
    let mut out = vec![0 as Value; values.len()];
    kernel.compute(key, &views, &mut out, piece.first as usize);
    if out == values {
        (Verdict::Same, "same".into())
    } else if let Some(input) = unsure {
        unchecked(format!("it differs from a recomputation from {}, which was not checked", input.display()))
    } else {
        (Verdict::Different, "different: the values disagree with a recomputation from sound inputs".into())
    }
}
