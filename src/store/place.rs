//! Where a store file belongs, and whether it says so. A space folder's path names one space
//! (`<board>/g<N>`, or `<board>/root-<lines>-g<N>` for another root, the lines in hexadecimal
//! past 200; `-p<P>` after either for values under a last-move penalty of P), a file's name one
//! partition and piece (`<key>.dab`, or `<key>_<piece>.dab`), and a file is used only when its
//! header says the same board, root, grouping, key and penalty, with rows and positions that
//! the space allows and that its piece number allows beside its sibling pieces. Every reader that finds
//! files by looking in a folder (`Reader`, `dab verify` and its `--recompute`) surveys the
//! folder here, so that they all refuse the same files with the same words.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::game::{Board, Penalty, Position, Value};
use crate::solver::{PartitionKey, Space};

use super::error::StoreError;
use super::error::penalty_words;
use super::format::{Chunked, EXT, Header, encoding, open};

/// The lock file of a space folder.
pub(crate) const LOCK: &str = "LOCK";
/// The folder inside a space folder where cluster tasks leave their done markers.
pub const DONE_FOLDER: &str = "done";
/// Ending of a file being written (`<name>.dab.<pid>.tmp`).
pub(crate) const TMP: &str = ".tmp";

/// Longest line string a folder name holds as it is; longer ones (boards past 200 lines, where
/// the name would pass the 255 bytes a file name may have) are written in hexadecimal.
const LINE_STRING_NAME: usize = 200;

/// A space folder's name inside its board folder: `g<N>`, or `root-<lines>-g<N>` when the
/// root has lines drawn (`root-x<hex>-g<N>` on boards of more than 200 lines: the line string
/// four lines to a digit, the first line the high bit, padded with 0); then `-p<P>` where the
/// values are under a last-move penalty of P, so that they never share a folder with plain
/// ones (nor with another penalty's).
pub(crate) fn folder_name(space: &Space) -> String {
    let name = root_and_groups_name(space);
    if space.penalty.is_none() { name } else { format!("{name}-p{}", space.penalty) }
}

/// [`folder_name`] without the penalty.
fn root_and_groups_name(space: &Space) -> String {
    let root = space.root.to_line_string();
    let groups = space.groups.len();
    if !root.contains('1') {
        format!("g{groups}")
    } else if root.len() <= LINE_STRING_NAME {
        format!("root-{root}-g{groups}")
    } else {
        let hex: String = root
            .as_bytes()
            .chunks(4)
            .map(|c| {
                let v = (0..4).fold(0u32, |v, i| v << 1 | u32::from(c.get(i) == Some(&b'1')));
                char::from_digit(v, 16).expect("a hex digit")
            })
            .collect();
        format!("root-x{hex}-g{groups}")
    }
}

/// The line string of a hexadecimal root name (`x<hex>`), `lines` long; None for any other text.
fn line_string_of_hex(hex: &str, lines: usize) -> Option<String> {
    let bits: String = hex
        .strip_prefix('x')?
        .chars()
        .map(|c| c.to_digit(16).filter(|_| !c.is_ascii_uppercase()).map(|d| format!("{d:04b}")))
        .collect::<Option<_>>()?;
    (bits.len() == lines.div_ceil(4) * 4).then(|| bits[..lines].to_string())
}

/// Why `name` names no space folder.
fn not_space(name: &str) -> String {
    format!("'{name}' is not a space folder's name (g<N> or root-<lines>-g<N>, then -p<P> under a penalty)")
}

/// The root, grouping and penalty a space folder's name gives (`g<N>` or `root-<lines>-g<N>`,
/// then `-p<P>` under a penalty), read without building the space; or why the name gives none.
pub(crate) fn root_of(board: Board, full_name: &str) -> Result<(Position, usize, Penalty), String> {
    let not_space = || not_space(full_name);
    // Neither a line string nor its hexadecimal holds a 'p': the suffix is found from the end.
    let (name, penalty) = match full_name.rsplit_once("-p") {
        Some((name, p)) if !p.is_empty() && p.len() <= 3 && p.bytes().all(|c| c.is_ascii_digit()) => {
            (name, p.parse::<Penalty>().map_err(|e| format!("{}: {e}", not_space()))?)
        }
        _ => (full_name, Penalty::NONE),
    };
    let (root, groups) = match name.strip_prefix("root-") {
        Some(rest) => {
            let (lines, groups) = rest.rsplit_once("-g").ok_or_else(not_space)?;
            let lines = match line_string_of_hex(lines, board.lines()) {
                Some(bits) => bits,
                None => lines.to_string(),
            };
            let root = Position::from_line_string(board, &lines).map_err(|e| format!("{}: {e}", not_space()))?;
            (root, groups)
        }
        None => (Position::empty(board), name.strip_prefix('g').ok_or_else(not_space)?),
    };
    if groups.is_empty() || !groups.bytes().all(|c| c.is_ascii_digit()) || groups.len() > 3 {
        return Err(not_space());
    }
    Ok((root, groups.parse().map_err(|_| not_space())?, penalty))
}

/// The space a folder holds, from its board folder's name and its own; or why they name none.
/// Only the names [`folder_name`] gives are accepted, so each space has one folder.
pub(crate) fn space_of(board: &str, name: &str) -> Result<Space, String> {
    let b: Board = board.parse().map_err(|e| format!("board folder '{board}' names no board ({e})"))?;
    if b.to_string() != board {
        return Err(format!("board folder '{board}' is not named as dab names the board ('{b}')"));
    }
    let (root, groups, penalty) = root_of(b, name)?;
    let space = Space::new(root, Some(groups))
        .and_then(|s| s.with_penalty(penalty))
        .map_err(|e| format!("{}: {e}", not_space(name)))?;
    let want = folder_name(&space);
    if want != name {
        return Err(format!("'{name}' is not named as dab names this space's folder ('{want}')"));
    }
    Ok(space)
}

/// The partition and piece a file name gives: `<key>.dab` (the whole partition) or
/// `<key>_<piece>.dab`, the key written as dab writes it. None for any other name.
pub(crate) fn parse_name(file: &str) -> Option<(PartitionKey, Option<u64>)> {
    let stem = file.strip_suffix(EXT)?.strip_suffix('.')?;
    let (key_text, piece) = match stem.split_once('_') {
        Some((k, p)) => (k, Some(p)),
        None => (stem, None),
    };
    let key: PartitionKey = key_text.parse().ok()?;
    if key.to_string() != key_text {
        return None;
    }
    let piece = match piece {
        None => None,
        Some(p) if p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()) || (p.len() > 1 && p.starts_with('0')) => {
            return None;
        }
        Some(p) => Some(p.parse().ok()?),
    };
    Some((key, piece))
}

/// Rows of a partition and the positions in a row (the inner group's configurations), as the
/// kernel lays them out.
pub(crate) fn shape(space: &Space, key: &PartitionKey) -> (u64, u64) {
    let (rows, row) = space.shape(key);
    (rows as u64, row as u64)
}

/// Whether a header agrees with the folder (`space`) and the name (`key`, `piece`) it was
/// found under: board, root, grouping, key, penalty and encoding the same, its rows inside the
/// partition (all of them for a whole file, from row 0 for piece 0, not from row 0 for any
/// other piece), and as many positions as its rows hold.
pub(crate) fn check_header(space: &Space, key: &PartitionKey, piece: Option<u64>, h: &Header) -> Result<(), String> {
    let board = space.board().to_string();
    let root = space.root.to_line_string();
    let groups = space.groups.len();
    if h.board != board {
        return Err(format!("it holds board {}, but lies in the folder of board {board}", h.board));
    }
    if h.root != root {
        return Err(if root.contains('1') {
            format!("it holds the solve from root {}, but lies in the folder of root {root}", h.root)
        } else {
            format!("it holds the solve from root {}, but lies in the empty board's folder (g{groups})", h.root)
        });
    }
    if h.groups != groups {
        return Err(format!("it holds a grouping of {} groups, but lies in the folder of {groups} groups", h.groups));
    }
    let name = match piece {
        Some(i) => format!("{key}_{i}"),
        None => key.to_string(),
    };
    if h.key != key.to_string() {
        return Err(format!("it holds partition {}, but is named {name}", h.key));
    }
    if h.penalty != space.penalty {
        return Err(format!(
            "it holds values under {}, but lies in the folder of values under {}",
            penalty_words(h.penalty),
            penalty_words(space.penalty)
        ));
    }
    if h.encoding != encoding(space.penalty) {
        return Err(format!("its values are encoded as '{}', not as this dab writes them", h.encoding));
    }
    let (rows, row_len) = shape(space, key);
    let end = h.first_row.checked_add(h.rows).filter(|&e| h.rows > 0 && e <= rows);
    let held = format!("rows {}..{}", h.first_row, h.first_row.saturating_add(h.rows));
    let Some(end) = end else {
        return Err(format!("it holds {held} of partition {key}, which has rows 0..{rows}"));
    };
    match piece {
        None if (h.first_row, end) != (0, rows) => {
            return Err(format!("it is named as the whole partition {key} (rows 0..{rows}) but holds {held}"));
        }
        Some(0) if h.first_row != 0 => {
            return Err(format!("piece 0 of {key} must start at row 0, but it holds {held}"));
        }
        Some(i) if i > 0 && h.first_row == 0 => {
            return Err(format!("piece {i} of {key} cannot start at row 0 (piece 0 does), but it holds {held}"));
        }
        _ => {}
    }
    if h.rows.checked_mul(row_len) != Some(h.positions) {
        return Err(format!("it holds {} positions, not {} rows of {row_len}", h.positions, h.rows));
    }
    Ok(())
}

/// One file of a partition, as its checked header says: rows `first..first + rows`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    /// First row.
    pub first: u64,
    /// Rows.
    pub rows: u64,
    /// Its piece number, None for the whole partition's file.
    pub piece: Option<u64>,
    /// The file.
    pub path: PathBuf,
}

/// The values of one file of a survey, read whole: its header checked again against its place
/// and what the survey found before any value is read (so what is read is bounded by the
/// partition), then every checksum as the values are read.
pub(crate) fn load(space: &Space, key: &PartitionKey, p: &Piece) -> Result<Vec<Value>, StoreError> {
    let opened = open(&p.path)?;
    check_piece(space, key, p, &opened.header)?;
    opened.values()
}

/// One file of a survey opened for reading its values one at a time: its header checked again
/// as [`load`] checks it; each chunk's checksum is checked when a value of it is first read.
pub(crate) fn open_chunked(space: &Space, key: &PartitionKey, p: &Piece) -> Result<Chunked, StoreError> {
    let opened = open(&p.path)?;
    check_piece(space, key, p, &opened.header)?;
    Chunked::new(opened)
}

/// A file's header against its place and against what the survey found of it.
fn check_piece(space: &Space, key: &PartitionKey, p: &Piece, h: &Header) -> Result<(), StoreError> {
    let damaged = |reason: String| StoreError::Damaged { path: p.path.clone(), reason };
    check_header(space, key, p.piece, h).map_err(damaged)?;
    if (h.first_row, h.rows) != (p.first, p.rows) {
        return Err(damaged(format!(
            "it changed while being read: it holds rows {}..{}, not {}..{}",
            h.first_row,
            h.first_row + h.rows,
            p.first,
            p.first + p.rows
        )));
    }
    Ok(())
}

/// One space folder, surveyed: the sound files, the ones refused and why, and the entries
/// that are no store file at all.
pub(crate) struct Survey {
    /// The folder.
    pub dir: PathBuf,
    /// Its space.
    pub space: Space,
    /// Per partition, the sound files that hold it, in row order without overlap: the whole
    /// file where it is sound, else the pieces that agree with each other (possibly with gaps).
    pub cover: HashMap<PartitionKey, Vec<Piece>>,
    /// Every partition some file is named for, sound or not.
    pub named: Vec<PartitionKey>,
    /// Store files (named as a partition or piece of the space).
    pub files: usize,
    /// Positions in the sound files.
    pub positions: u64,
    /// Files refused, with the reason.
    pub damaged: Vec<(PathBuf, String)>,
    /// Store files the system would not let us read (permissions, I/O errors): not known to
    /// be damaged, but not usable either.
    pub unreadable: Vec<(PathBuf, std::io::Error)>,
    /// Entries that are no store file: dab never reads them, so they are not damage.
    pub warnings: Vec<(PathBuf, String)>,
}

impl Survey {
    /// Partitions of at most this many lines must all be held: the most lines of any
    /// partition a file is named for (the whole space for a full store, the depth of an
    /// opening book kept with `--keep-lines`). None when the folder holds no store file.
    pub(crate) fn depth(&self) -> Option<usize> {
        self.named.iter().map(|k| k.total()).max()
    }

    /// The rows of `key` that no sound file holds, as ranges.
    pub(crate) fn gaps(&self, key: &PartitionKey) -> Vec<(u64, u64)> {
        let (rows, _) = shape(&self.space, key);
        let mut out = Vec::new();
        let mut next = 0;
        for p in self.cover.get(key).map_or(&[][..], |c| c.as_slice()) {
            if p.first > next {
                out.push((next, p.first));
            }
            next = next.max(p.first + p.rows);
        }
        if next < rows {
            out.push((next, rows));
        }
        out
    }
}

/// What one entry of a folder is, symbolic links to files followed, to folders not.
enum Kind {
    File,
    Folder,
    LinkToFolder,
    Broken(std::io::Error),
}

fn kind(entry: &std::fs::DirEntry) -> Kind {
    match entry.file_type() {
        Ok(t) if t.is_dir() => Kind::Folder,
        Ok(t) if t.is_symlink() => match std::fs::metadata(entry.path()) {
            Ok(m) if m.is_dir() => Kind::LinkToFolder,
            Ok(_) => Kind::File,
            Err(e) => Kind::Broken(e),
        },
        Ok(_) => Kind::File,
        Err(e) => Kind::Broken(e),
    }
}

/// Surveys the space folder `dir` of `space`: every store file's header checked against its
/// place ([`check_header`]), and with `whole` its magic, format, length and checksum too (the
/// whole file read); then the pieces of each partition checked against each other: in piece
/// order their rows must follow on, each piece starting where the one before ends (further on
/// only where pieces between are missing), so two pieces swapped or a piece of another split
/// are refused. Only the folder's own entries are looked at (never its subfolders).
pub(crate) fn survey(dir: &Path, space: Space, whole: bool) -> Result<Survey, StoreError> {
    let read_err = |source| StoreError::Read { path: dir.to_path_buf(), source };
    let mut s = Survey {
        dir: dir.to_path_buf(),
        space,
        cover: HashMap::new(),
        named: Vec::new(),
        files: 0,
        positions: 0,
        damaged: Vec::new(),
        unreadable: Vec::new(),
        warnings: Vec::new(),
    };
    // Per partition: the whole file's checked header, and the pieces by number.
    let mut found: BTreeMap<PartitionKey, (Option<Piece>, BTreeMap<u64, Piece>)> = BTreeMap::new();
    let mut entries: Vec<std::fs::DirEntry> =
        std::fs::read_dir(dir).map_err(read_err)?.collect::<Result<_, _>>().map_err(read_err)?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Some((key, piece)) = s.store_file(&entry) else { continue };
        let path = entry.path();
        // The header against the place first, so that a whole check reads only as much as
        // the partition holds.
        let checked = open(&path).and_then(|o| match check_header(&s.space, &key, piece, &o.header) {
            Err(reason) => Err(StoreError::Damaged { path: path.clone(), reason }),
            Ok(()) if whole => o.check(),
            Ok(()) => Ok(o.header),
        });
        if let Err(StoreError::Read { source, .. }) = &checked
            && source.kind() == std::io::ErrorKind::NotFound
        {
            // Gone since the folder was listed: a run beside this reader removed it (a book).
            continue;
        }
        s.files += 1;
        s.named.push(key);
        match checked {
            Ok(h) => {
                let p = Piece { first: h.first_row, rows: h.rows, piece, path };
                let slot = found.entry(key).or_default();
                match piece {
                    None => slot.0 = Some(p),
                    Some(i) => {
                        slot.1.insert(i, p);
                    }
                }
            }
            Err(StoreError::Read { source, .. }) => s.unreadable.push((path, source)),
            Err(StoreError::Damaged { reason, .. }) => s.damaged.push((path, reason)),
            Err(e) => s.damaged.push((path, e.to_string())),
        }
    }
    for (key, (whole_file, pieces)) in found {
        s.cover_partition(key, whole_file, pieces);
    }
    s.named.sort();
    s.named.dedup();
    s.damaged.sort();
    s.unreadable.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(s)
}

impl Survey {
    /// The partition and piece a folder entry is named for, where it is a file whose name is
    /// one of this space's; anything else is noted as a warning (or, where a store file's name
    /// cannot be read, as damage) and skipped.
    fn store_file(&mut self, entry: &std::fs::DirEntry) -> Option<(PartitionKey, Option<u64>)> {
        let path = entry.path();
        let os_name = entry.file_name();
        let Some(name) = os_name.to_str() else {
            self.warnings.push((path, "a name that is not UTF-8: not a store file, dab never reads it".into()));
            return None;
        };
        let parsed = parse_name(name).filter(|(k, _)| self.space.has_key(k));
        let why: String = match (kind(entry), parsed) {
            (Kind::File, Some(named)) => return Some(named),
            (Kind::Folder, _) if name == DONE_FOLDER => return None,
            (Kind::Folder, _) => "a folder inside a space folder: dab never reads it".into(),
            (Kind::LinkToFolder, _) => "a symbolic link to a folder: not followed, dab never reads it".into(),
            (Kind::Broken(e), Some((key, _))) => {
                self.files += 1;
                self.named.push(key);
                if e.kind() == std::io::ErrorKind::PermissionDenied {
                    self.unreadable.push((path, e));
                } else {
                    self.damaged.push((path, format!("cannot be read: {e}")));
                }
                return None;
            }
            (Kind::Broken(e), None) => format!("cannot be read ({e}), and is no store file: dab never reads it"),
            (Kind::File, None) if name == LOCK => return None,
            (Kind::File, None) if name.ends_with(TMP) => {
                "a temporary file of an unfinished write: a run still writing, or a dead run's, which the next run here removes".into()
            }
            (Kind::File, None) => {
                "not a store file's name (<key>.dab or <key>_<piece>.dab of this folder's partitions): dab never reads it".into()
            }
        };
        self.warnings.push((path, why));
        None
    }

    /// Records what holds partition `key`: the whole file where there is one, else the pieces
    /// that follow on from each other in piece order (the others refused as damaged).
    fn cover_partition(&mut self, key: PartitionKey, whole_file: Option<Piece>, pieces: BTreeMap<u64, Piece>) {
        let (_, row_len) = shape(&self.space, &key);
        let mut chain: Vec<Piece> = Vec::new();
        let mut last: Option<(u64, u64)> = None;
        for (i, p) in pieces {
            let fits = match last {
                None => true,
                Some((j, end)) if i == j + 1 => p.first == end,
                Some((j, end)) => p.first >= end.saturating_add(i - j - 1),
            };
            if fits {
                last = Some((i, p.first + p.rows));
                chain.push(p);
                continue;
            }
            let (j, end) = last.expect("a piece before");
            let (first, past) = (p.first, p.first + p.rows);
            let why = if i == j + 1 {
                format!("piece {i} of {key} holds rows {first}..{past}, but piece {j} ends at row {end}")
            } else {
                format!(
                    "piece {i} of {key} holds rows {first}..{past}, which cannot follow piece {j}'s end at row {end}"
                )
            };
            self.damaged.push((p.path, why));
        }
        // Positions in every sound file, pieces beside a sound whole file included.
        self.positions += whole_file.iter().chain(&chain).map(|p| p.rows * row_len).sum::<u64>();
        let cover = match whole_file {
            Some(w) => vec![w],
            None => chain,
        };
        if !cover.is_empty() {
            self.cover.insert(key, cover);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::ENCODING;

    fn space(board: &str, groups: usize) -> Space {
        Space::new(Position::empty(board.parse().unwrap()), Some(groups)).unwrap()
    }

    #[test]
    fn only_the_names_dab_writes_are_store_file_names() {
        assert_eq!(parse_name("4-3.dab"), Some((PartitionKey::new(&[4, 3]), None)));
        assert_eq!(parse_name("4-3_12.dab"), Some((PartitionKey::new(&[4, 3]), Some(12))));
        for other in
            ["4-3", "4-3.dab.17.tmp", "04-3.dab", "4-3_.dab", "4-3_01.dab", "4-3_x.dab", "x.dab", ".dab", "4-3_1_2.dab"]
        {
            assert_eq!(parse_name(other), None, "{other}");
        }
    }

    #[test]
    fn a_folder_names_its_space_only_as_dab_names_it() {
        let s = space_of("2x3", "g2").unwrap();
        assert_eq!((s.board().to_string(), s.groups.len(), folder_name(&s)), ("2x3".into(), 2, "g2".into()));
        let root = format!("root-{}-g2", "1".to_string() + &"0".repeat(16));
        assert_eq!(folder_name(&space_of("2x3", &root).unwrap()), root);
        for (board, name, why) in [
            ("2X3", "g2", "not named as dab names the board"),
            ("3", "g2", "names no board"),
            ("2x3", "g02", "not named as dab names this space's folder ('g2')"),
            ("2x3", "g", "not a space folder's name"),
            ("2x3", "g99", "not a space folder's name"),
            ("2x3", &format!("root-{}-g2", "0".repeat(17)), "('g2')"),
            ("2x3", "root-101-g2", "not a space folder's name"),
            ("2x3", "h2", "not a space folder's name"),
        ] {
            let err = space_of(board, name).err().unwrap();
            assert!(err.contains(why), "{board}/{name}: {err}");
        }
    }

    #[test]
    fn a_solve_under_a_penalty_has_a_folder_of_its_own_and_its_files_say_so() {
        let two = Penalty::new(2).unwrap();
        let s = space("2x3", 2).with_penalty(two).unwrap();
        assert_eq!(folder_name(&s), "g2-p2");
        let back = space_of("2x3", "g2-p2").unwrap();
        assert_eq!((back.groups.len(), back.penalty), (2, two));
        let root = format!("root-{}-g2-p13", "1".to_string() + &"0".repeat(16));
        assert_eq!(space_of("2x3", &root).unwrap().penalty.boxes(), 13);
        for (name, why) in [
            ("g2-p0", "('g2')"),
            ("g2-p02", "('g2-p2')"),
            ("g2-p", "not a space folder's name"),
            ("g2-p200", "at most 127"),
        ] {
            let err = space_of("2x3", name).unwrap_err();
            assert!(err.contains(why), "{name}: {err}");
        }
        // A header without a penalty (every file written before penalties) is a plain one.
        let key = PartitionKey::new(&[4, 4]);
        let (rows, row_len) = shape(&s, &key);
        let old = format!(
            r#"{{"board":"2x3","root":"{}","groups":2,"key":"4-4","first_row":0,"rows":{rows},"positions":{},"encoding":"{ENCODING}"}}"#,
            "0".repeat(17),
            rows * row_len
        );
        let plain: Header = serde_json::from_str(&old).unwrap();
        assert_eq!(check_header(&space("2x3", 2), &key, None, &plain), Ok(()));
        let err = check_header(&s, &key, None, &plain).unwrap_err();
        assert!(
            err.contains("under no last-move penalty, but lies in the folder of values under a last-move penalty of 2"),
            "{err}"
        );
        let under = Header { penalty: two, encoding: encoding(two), ..plain.clone() };
        assert_eq!(check_header(&s, &key, None, &under), Ok(()));
        let err = check_header(&s, &key, None, &Header { encoding: ENCODING.into(), ..under }).unwrap_err();
        assert!(err.contains("encoded as"), "{err}");
    }

    #[test]
    fn a_wide_boards_root_is_named_in_hexadecimal_within_a_file_names_length() {
        let board: crate::game::Board = "16x16".parse().unwrap();
        // All but the last 20 lines drawn.
        let root = Position { board, drawn: crate::game::LineSet::first(board.lines() - 20) };
        let s = Space::new(root, Some(2)).unwrap();
        let name = folder_name(&s);
        assert!(name.starts_with("root-xfff") && name.ends_with("00-g2") && name.len() <= 255, "{name}");
        let back = space_of("16x16", &name).unwrap();
        assert_eq!((back.root, back.groups.len()), (root, 2));
        let binary = format!("root-{}-g2", root.to_line_string());
        assert!(space_of("16x16", &binary).unwrap_err().contains("not named as dab names"));
        for bad in [name.replace("-xfff", "-xFFF"), name.replace("-xfff", "-xff"), name.replace("-xfff", "-xffg")] {
            assert!(space_of("16x16", &bad).unwrap_err().contains("not a space folder's name"), "{bad}");
        }
    }

    #[test]
    fn a_header_must_agree_with_its_folder_name_and_piece() {
        let s = space("2x3", 2);
        let key = PartitionKey::new(&[4, 4]);
        let (rows, row_len) = shape(&s, &key);
        assert!(rows >= 2, "a partition of several rows");
        let good = Header {
            board: "2x3".into(),
            root: "0".repeat(17),
            groups: 2,
            key: "4-4".into(),
            first_row: 0,
            rows,
            positions: rows * row_len,
            encoding: ENCODING.into(),
            penalty: Penalty::NONE,
        };
        assert_eq!(check_header(&s, &key, None, &good), Ok(()));
        let piece = Header { rows: 1, positions: row_len, ..good.clone() };
        assert_eq!(check_header(&s, &key, Some(0), &piece), Ok(()));
        let second = Header { first_row: 1, ..piece.clone() };
        assert_eq!(check_header(&s, &key, Some(1), &second), Ok(()));
        let cases = [
            (
                None,
                Header { board: "2x2".into(), ..good.clone() },
                "it holds board 2x2, but lies in the folder of board 2x3",
            ),
            (None, Header { root: "1".repeat(17), ..good.clone() }, "but lies in the empty board's folder (g2)"),
            (None, Header { groups: 3, ..good.clone() }, "a grouping of 3 groups, but lies in the folder of 2 groups"),
            (None, Header { key: "4-3".into(), ..good.clone() }, "it holds partition 4-3, but is named 4-4"),
            (None, Header { encoding: "u8".into(), ..good.clone() }, "encoded as 'u8'"),
            (None, piece.clone(), "it is named as the whole partition 4-4"),
            (Some(0), second.clone(), "piece 0 of 4-4 must start at row 0"),
            (Some(1), piece.clone(), "piece 1 of 4-4 cannot start at row 0"),
            (None, Header { rows: u64::MAX, ..good.clone() }, "which has rows 0.."),
            (Some(3), Header { first_row: u64::MAX, ..piece.clone() }, "which has rows 0.."),
            (None, Header { positions: good.positions + 1, ..good.clone() }, "positions, not"),
        ];
        for (piece_no, h, why) in cases {
            let err = check_header(&s, &key, piece_no, &h).unwrap_err();
            assert!(err.contains(why), "{why}: {err}");
        }
    }
}
