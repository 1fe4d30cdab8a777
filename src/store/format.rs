//! The store's file format: magic, format version, a JSON header naming the board, root,
//! grouping, key, rows, positions, value encoding and last-move penalty (absent when none, as
//! in every file written before penalties), the values (one byte a position), a
//! table of CRC-32s (the header's, then one per [`CHUNK`] of values), and a CRC-32 of
//! everything before it. A reader that takes a few values from a large file checks the
//! header's CRC and then each chunk it touches, once, before the first value it uses from it;
//! a reader of the whole file checks everything in one pass. Format 1 (the same without the
//! table) is still read: such a file is checked whole before any value of it is used. No
//! value is ever returned from bytes that have not been checked.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock, RwLock};

use serde::{Deserialize, Serialize};

use crate::game::{Penalty, Value};

use super::error::{StoreError, penalty_words};

/// First bytes of every store file.
pub const MAGIC: &[u8; 8] = b"DABPART\n";
/// Store files this version writes: format 2, with a CRC-32 per chunk of values.
pub const STORE_FORMAT: u32 = 2;
/// The first format (one CRC-32 over the whole file, no table), still read.
pub(crate) const STORE_FORMAT_1: u32 = 1;
/// Values covered by one CRC-32 of a format-2 file's table: a reader that wants one value
/// checks 64 KiB (tens of microseconds), not the file.
pub const CHUNK: u64 = 1 << 16;
/// What a value byte means.
pub(crate) const ENCODING: &str = "i8: net future boxes for the player to move";

/// What a value byte means under `penalty`: [`ENCODING`] without one; with one, words that
/// a dab from before penalties refuses, so that it never reads such values as plain ones.
pub(crate) fn encoding(penalty: Penalty) -> String {
    if penalty.is_none() {
        ENCODING.into()
    } else {
        format!("{ENCODING}, the player who draws the last line losing {penalty}")
    }
}

/// File name extension of a job's values.
pub(crate) const EXT: &str = "dab";

/// A file's header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The board, `MxN`.
    pub board: String,
    /// The root position as a line string.
    pub root: String,
    /// Number of line groups.
    pub groups: usize,
    /// The partition key.
    pub key: String,
    /// First row of the partition in this file.
    pub first_row: u64,
    /// Rows in this file.
    pub rows: u64,
    /// Values in this file.
    pub positions: u64,
    /// What a value byte means ([`encoding`]).
    pub encoding: String,
    /// Wilson's last-move penalty the values are under; absent (none) in a plain solve's files.
    #[serde(default, skip_serializing_if = "Penalty::is_none")]
    pub penalty: Penalty,
}

/// Where the parts of a file lie, from its format, header length and positions. Sums
/// saturate: a hostile count gives a size no file has, never a wrapped one.
#[derive(Clone, Copy, Debug)]
struct Shape {
    format: u32,
    header_len: u64,
    positions: u64,
}

impl Shape {
    fn values_at(&self) -> u64 {
        16 + self.header_len
    }
    fn chunks(&self) -> u64 {
        self.positions.div_ceil(CHUNK)
    }
    /// Bytes of the CRC table (none in format 1).
    fn table_len(&self) -> u64 {
        if self.format == STORE_FORMAT_1 { 0 } else { self.chunks().saturating_add(1).saturating_mul(4) }
    }
    fn size(&self) -> u64 {
        self.values_at().saturating_add(self.positions).saturating_add(self.table_len()).saturating_add(4)
    }
    /// The values of chunk `i`, as a range of value indices.
    fn chunk(&self, i: u64) -> (u64, u64) {
        (i * CHUNK, ((i + 1) * CHUNK).min(self.positions))
    }
}

/// Why a file is not read: the system failed, or its bytes fail a check.
enum Bad {
    Io(std::io::Error),
    Damaged(String),
}

impl From<std::io::Error> for Bad {
    fn from(e: std::io::Error) -> Bad {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            Bad::Damaged("it ended early while being read (truncated?)".into())
        } else {
            Bad::Io(e)
        }
    }
}

impl Bad {
    fn named(self, path: &Path) -> StoreError {
        match self {
            Bad::Io(source) => StoreError::Read { path: path.to_path_buf(), source },
            Bad::Damaged(reason) => StoreError::Damaged { path: path.to_path_buf(), reason },
        }
    }
}

const MISMATCH: &str = "checksum mismatch (a byte has changed)";

/// Reads and checks what follows a file's header (`head`: its bytes up to the values): the
/// values, chunk by chunk, into `dest` when given (all the values) or else through one chunk
/// of scratch, then the table and the trailing CRC. One pass: the whole file's CRC is combined
/// from the chunks' own.
fn check_body(head: &[u8], shape: Shape, src: &mut impl Read, mut dest: Option<&mut [u8]>) -> Result<(), Bad> {
    let mut whole = crc32fast::Hasher::new();
    whole.update(head);
    let mut chunk_crcs = Vec::with_capacity(if shape.format == STORE_FORMAT_1 { 0 } else { shape.chunks() as usize });
    let mut scratch = if dest.is_some() { Vec::new() } else { vec![0u8; CHUNK.min(shape.positions) as usize] };
    for i in 0..shape.chunks() {
        let (a, b) = shape.chunk(i);
        let part = match dest.as_deref_mut() {
            Some(d) => &mut d[a as usize..b as usize],
            None => &mut scratch[..(b - a) as usize],
        };
        src.read_exact(part)?;
        let mut h = crc32fast::Hasher::new();
        h.update(part);
        if shape.format != STORE_FORMAT_1 {
            chunk_crcs.push(h.clone().finalize());
        }
        whole.combine(&h);
    }
    let mut table = vec![0u8; shape.table_len() as usize];
    src.read_exact(&mut table)?;
    whole.update(&table);
    let mut trailer = [0u8; 4];
    src.read_exact(&mut trailer)?;
    if whole.finalize() != u32::from_le_bytes(trailer) {
        return Err(Bad::Damaged(MISMATCH.into()));
    }
    // The whole file is as written; a table that disagrees with its values was written wrong.
    if shape.format != STORE_FORMAT_1 {
        let table = crc_table(&table);
        if table[0] != crc32fast::hash(head) {
            return Err(Bad::Damaged("its table's CRC of the header does not match the header".into()));
        }
        if let Some(i) = (0..chunk_crcs.len()).find(|&i| table[i + 1] != chunk_crcs[i]) {
            let (a, b) = shape.chunk(i as u64);
            return Err(Bad::Damaged(format!("its table's CRC of values {a}..{b} does not match them")));
        }
    }
    Ok(())
}

fn crc_table(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn unknown_format(format: u32) -> String {
    format!("store format {format}, this dab reads formats {STORE_FORMAT_1} and {STORE_FORMAT}")
}

/// Splits a file into its header and values, checking magic, format, length and checksums.
/// The values reuse the file's buffer: reading a partition never holds it twice. Any bytes at
/// all give a header or a reason, never a panic: lengths are checked, never trusted.
pub fn parse(mut bytes: Vec<u8>) -> Result<(Header, Vec<Value>), String> {
    if bytes.len() < 20 || &bytes[..8] != MAGIC {
        return Err("not a dab store file (no magic)".into());
    }
    let format = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    let len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as u64;
    let header: Option<Header> = 16usize
        .checked_add(len as usize)
        .and_then(|end| bytes.get(16..end))
        .and_then(|h| serde_json::from_slice(h).ok());
    let known = format == STORE_FORMAT || format == STORE_FORMAT_1;
    let shape = header.as_ref().map(|h| Shape { format, header_len: len, positions: h.positions });
    if let Some(want) = shape.filter(|_| known).map(|s| s.size()).filter(|&w| w != bytes.len() as u64) {
        return Err(format!("{} bytes where {want} were expected (truncated or extended)", bytes.len()));
    }
    // The trailing CRC covers everything before it, header included: any changed byte shows,
    // whatever the format field says.
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
        return Err(MISMATCH.into());
    }
    if !known {
        return Err(unknown_format(format));
    }
    let (header, shape) = header.zip(shape).ok_or("unreadable header")?;
    let at = shape.values_at() as usize;
    check_body(&bytes[..at], shape, &mut &bytes[at..], None).map_err(|e| match e {
        Bad::Damaged(reason) => reason,
        Bad::Io(e) => e.to_string(),
    })?;
    bytes.truncate(at + shape.positions as usize);
    bytes.drain(..at);
    // In place: a map over a vector's own iterator into a same-sized type keeps the buffer.
    Ok((header, bytes.into_iter().map(|b| b as Value).collect()))
}

/// The bytes of a store file with `header` and `values` in the current format.
pub fn encode(header: &Header, values: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    write_to(&mut out, header, values).expect("writing to memory cannot fail");
    out
}

/// Writes a store file with `header` and `values` in the current format to `out`, in chunks
/// (writing a partition never holds a second copy of it).
pub(crate) fn write_to(out: &mut impl std::io::Write, header: &Header, values: &[Value]) -> std::io::Result<()> {
    let json = serde_json::to_vec(header).expect("a header serialises");
    let mut head = Vec::with_capacity(16 + json.len());
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&STORE_FORMAT.to_le_bytes());
    head.extend_from_slice(&(json.len() as u32).to_le_bytes());
    head.extend_from_slice(&json);
    let mut whole = crc32fast::Hasher::new();
    whole.update(&head);
    out.write_all(&head)?;
    let mut table = crc32fast::hash(&head).to_le_bytes().to_vec();
    let mut chunk = Vec::with_capacity(CHUNK.min(values.len() as u64) as usize);
    for part in values.chunks(CHUNK as usize) {
        chunk.clear();
        chunk.extend(part.iter().map(|&v| v as u8));
        let mut h = crc32fast::Hasher::new();
        h.update(&chunk);
        table.extend_from_slice(&h.clone().finalize().to_le_bytes());
        whole.combine(&h);
        out.write_all(&chunk)?;
    }
    whole.update(&table);
    out.write_all(&table)?;
    out.write_all(&whole.finalize().to_le_bytes())
}

/// Opens `path` for reading only if it is a regular file (a symbolic link followed): a named
/// pipe, socket or device in a store's place would block a reader or never end. Opened
/// without blocking, so a pipe is refused, not waited on; the type is read from the opened
/// file itself, so nothing can be swapped in between.
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), StoreError> {
    let read_err = |source| StoreError::Read { path: path.to_path_buf(), source };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    if !meta.is_file() {
        return Err(StoreError::Damaged {
            path: path.to_path_buf(),
            reason: format!("{}, not a regular file: dab reads store files only from regular files", kind_of(&meta)),
        });
    }
    Ok((file, meta.len()))
}

/// What a file that is not a regular file is, in words.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        } else if t.is_socket() {
            return "a socket";
        } else if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if meta.is_dir() { "a folder" } else { "a special file" }
}

/// A store file opened and its header read and checked against the file's size: what every
/// reader starts from. Its values are read only through [`Opened::values`],
/// [`Opened::check`] or a [`Chunked`] reader, each of which checks what it reads.
pub(crate) struct Opened {
    file: File,
    path: PathBuf,
    shape: Shape,
    /// The file's bytes before the values (magic, format, header length, header).
    head: Vec<u8>,
    /// The header.
    pub header: Header,
}

/// Opens a store file and reads its header: a regular file, magic, a format this dab reads,
/// a header that fits in the file and parses, and a size that is the one the header and the
/// format give. A header length beyond the file's own is refused before anything is
/// allocated for it; the values (whose count the caller checks against the file's place
/// before reading them) are not read.
pub(crate) fn open(path: &Path) -> Result<Opened, StoreError> {
    let damaged = |reason: String| StoreError::Damaged { path: path.to_path_buf(), reason };
    let (mut f, size) = open_regular(path)?;
    let mut head = vec![0u8; 16];
    if f.read_exact(&mut head).is_err() || &head[..8] != MAGIC {
        return Err(damaged("not a dab store file (no magic)".into()));
    }
    let format = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    if format != STORE_FORMAT && format != STORE_FORMAT_1 {
        return Err(damaged(unknown_format(format)));
    }
    let len = u32::from_le_bytes([head[12], head[13], head[14], head[15]]) as u64;
    if 16 + len + 4 > size {
        return Err(damaged(format!("its header of {len} bytes does not fit in its {size} bytes (truncated?)")));
    }
    head.resize(16 + len as usize, 0);
    f.read_exact(&mut head[16..]).map_err(|e| damaged(format!("unreadable header ({e})")))?;
    let header: Header =
        serde_json::from_slice(&head[16..]).map_err(|e| damaged(format!("unreadable header ({e})")))?;
    let shape = Shape { format, header_len: len, positions: header.positions };
    if shape.size() != size {
        return Err(damaged(format!("{size} bytes where {} were expected (truncated or extended)", shape.size())));
    }
    Ok(Opened { file: f, path: path.to_path_buf(), shape, head, header })
}

impl Opened {
    /// Reads every value, checking every checksum in the same pass.
    pub(crate) fn values(mut self) -> Result<Vec<Value>, StoreError> {
        let mut out: Vec<u8> = crate::support::zeroed_bytes(self.shape.positions as usize);
        // Straight into the values (no buffer between): chunks are large reads already.
        check_body(&self.head, self.shape, &mut self.file, Some(&mut out)).map_err(|e| e.named(&self.path))?;
        Ok(out.into_iter().map(|b| b as Value).collect())
    }

    /// Checks every checksum, keeping nothing: memory stays at one chunk whatever the size.
    pub(crate) fn check(self) -> Result<Header, StoreError> {
        check_stream(&self.file, &self.head, self.shape, &self.path)?;
        Ok(self.header)
    }
}

/// Checks the rest of an opened file (read on from just past its header), keeping nothing.
fn check_stream(file: &File, head: &[u8], shape: Shape, path: &Path) -> Result<(), StoreError> {
    let mut src = std::io::BufReader::with_capacity(CHUNK as usize, file);
    check_body(head, shape, &mut src, None).map_err(|e| e.named(path))
}

/// A whole file read and checked (magic, format, length, checksums), or why not, naming it.
#[cfg(test)]
pub(crate) fn read_file(path: &Path) -> Result<(Header, Vec<Value>), StoreError> {
    let opened = open(path)?;
    let header = opened.header.clone();
    Ok((header, opened.values()?))
}

/// A store file read a value at a time, as a search reads its leaves or a query one position:
/// each chunk's CRC is checked the first time a value of it is asked for (a format-1 file,
/// which has no table, is checked whole when opened), so no value comes from bytes that were
/// not checked. Shared by threads: a chunk two threads check at once is checked twice.
pub(crate) struct Chunked {
    file: File,
    path: PathBuf,
    shape: Shape,
    /// Format 2: each chunk's CRC (the header's, first in the file, is checked on opening).
    table: Vec<u32>,
    /// Bit i of word i/64 set = chunk i checked.
    checked: Vec<AtomicU64>,
    /// Checked chunks kept in memory, by index, within [`cache_cap`] bytes for the whole
    /// process: a walk reads many values of the same chunks, and a read a value at a time
    /// costs a system call each.
    kept: RwLock<HashMap<u64, Arc<[u8]>>>,
}

/// Bytes of checked chunks kept in memory by every [`Chunked`] of the process.
static KEPT_BYTES: AtomicU64 = AtomicU64::new(0);

/// Most bytes of checked chunks the process keeps: a sixteenth of the machine's memory, at
/// most 1 GiB. Past it chunks are read a value at a time, as before any was kept.
fn cache_cap() -> u64 {
    static CAP: OnceLock<u64> = OnceLock::new();
    *CAP.get_or_init(|| crate::support::machine_memory_bytes().map_or(1 << 28, |m| m / 16).min(1 << 30))
}

impl Chunked {
    /// Opens a file for reading values one at a time: format 2 reads its table and checks
    /// the header against it; format 1 is checked whole now.
    pub(crate) fn new(opened: Opened) -> Result<Chunked, StoreError> {
        let Opened { file, path, shape, head, .. } = opened;
        let words = shape.chunks().div_ceil(64) as usize;
        let fresh = |all: bool| (0..words).map(|_| AtomicU64::new(if all { u64::MAX } else { 0 })).collect();
        if shape.format == STORE_FORMAT_1 {
            check_stream(&file, &head, shape, &path)?;
            return Ok(Chunked { file, path, shape, table: Vec::new(), checked: fresh(true), kept: RwLock::default() });
        }
        let mut bytes = vec![0u8; shape.table_len() as usize];
        read_at(&file, &mut bytes, shape.values_at() + shape.positions).map_err(|e| Bad::from(e).named(&path))?;
        let table = crc_table(&bytes);
        if table[0] != crc32fast::hash(&head) {
            return Err(Bad::Damaged(MISMATCH.into()).named(&path));
        }
        Ok(Chunked { file, path, shape, table: table[1..].to_vec(), checked: fresh(false), kept: RwLock::default() })
    }

    /// The value at index `at` of the file's values, its chunk checked first (once).
    pub(crate) fn value(&self, at: u64) -> Result<Value, StoreError> {
        if at >= self.shape.positions {
            return Err(Bad::Damaged(format!("it has no position {at}")).named(&self.path));
        }
        let i = at / CHUNK;
        let (word, bit) = ((i / 64) as usize, 1u64 << (i % 64));
        let offset = self.shape.values_at();
        let read = |buf: &mut [u8], from: u64| {
            read_at(&self.file, buf, offset + from).map_err(|e| Bad::from(e).named(&self.path))
        };
        let (a, b) = self.shape.chunk(i);
        if let Some(chunk) = self.kept.read().unwrap_or_else(|e| e.into_inner()).get(&i) {
            return Ok(chunk[(at - a) as usize] as Value);
        }
        if self.checked[word].load(Relaxed) & bit != 0 {
            let mut byte = [0u8; 1];
            read(&mut byte, at)?;
            return Ok(byte[0] as Value);
        }
        let mut chunk = vec![0u8; (b - a) as usize];
        read(&mut chunk, a)?;
        if crc32fast::hash(&chunk) != self.table[i as usize] {
            return Err(
                Bad::Damaged(format!("checksum mismatch in values {a}..{b} (a byte has changed)")).named(&self.path)
            );
        }
        self.checked[word].fetch_or(bit, Relaxed);
        let value = chunk[(at - a) as usize] as Value;
        let len = chunk.len() as u64;
        if KEPT_BYTES.fetch_add(len, Relaxed) + len <= cache_cap() {
            // Two threads that checked the same chunk at once keep it once.
            if self.kept.write().unwrap_or_else(|e| e.into_inner()).insert(i, chunk.into()).is_some() {
                KEPT_BYTES.fetch_sub(len, Relaxed);
            }
        } else {
            KEPT_BYTES.fetch_sub(len, Relaxed);
        }
        Ok(value)
    }
}

impl Drop for Chunked {
    /// Gives the chunks it kept back to the process's allowance.
    fn drop(&mut self) {
        let kept = self.kept.get_mut().unwrap_or_else(|e| e.into_inner());
        KEPT_BYTES.fetch_sub(kept.values().map(|c| c.len() as u64).sum(), Relaxed);
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    match std::os::windows::fs::FileExt::seek_read(file, buf, at)? {
        n if n == buf.len() => Ok(()),
        _ => Err(std::io::ErrorKind::UnexpectedEof.into()),
    }
}

/// How a file's header differs from the one expected, naming the first field that does
/// (board, root, grouping, key, rows, positions, encoding); None when they agree.
pub(crate) fn differs(found: &Header, want: &Header) -> Option<String> {
    let rows = |h: &Header| format!("rows {}..{}", h.first_row, h.first_row.saturating_add(h.rows));
    if found.board != want.board {
        Some(format!("it holds board {}, not {}", found.board, want.board))
    } else if found.root != want.root {
        Some(format!("it holds the solve from root {}, not from root {}", found.root, want.root))
    } else if found.groups != want.groups {
        Some(format!("it holds a grouping of {} groups, not {}", found.groups, want.groups))
    } else if found.key != want.key {
        Some(format!("it holds partition {}, not {}", found.key, want.key))
    } else if (found.first_row, found.rows) != (want.first_row, want.rows) {
        Some(format!("it holds {} of partition {}, not {}", rows(found), found.key, rows(want)))
    } else if found.positions != want.positions {
        Some(format!("it holds {} positions, not {}", found.positions, want.positions))
    } else if found.penalty != want.penalty {
        Some(format!("it holds values under {}, not {}", penalty_words(found.penalty), penalty_words(want.penalty)))
    } else if found.encoding != want.encoding {
        Some(format!("its values are encoded as '{}', not as '{}'", found.encoding, want.encoding))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Position;
    use crate::solver::{Kernel, Layout, Space};
    use crate::store::Store;

    /// A file laid out by hand: magic, format (u32 LE), header length (u32 LE), JSON header,
    /// values, (but in format 1) the CRC-32 of the bytes before the values and of each 64 KiB
    /// of values (u32 LE each), CRC-32 of all before it (u32 LE).
    fn by_hand(format: u32, header: &Header, values: &[Value]) -> Vec<u8> {
        let json = serde_json::to_vec(header).unwrap();
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&format.to_le_bytes());
        bytes.extend_from_slice(&(json.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&json);
        let head_crc = crc32fast::hash(&bytes);
        bytes.extend(values.iter().map(|&v| v as u8));
        if format != 1 {
            bytes.extend_from_slice(&head_crc.to_le_bytes());
            for c in values.chunks(65536) {
                let raw: Vec<u8> = c.iter().map(|&v| v as u8).collect();
                bytes.extend_from_slice(&crc32fast::hash(&raw).to_le_bytes());
            }
        }
        let crc = crc32fast::hash(&bytes);
        bytes.extend_from_slice(&crc.to_le_bytes());
        bytes
    }

    /// A file written by [`Store::write`] under the layout of a 2x2 partition's second row
    /// (the values, at least 256, take every byte value, negative ones included), with the
    /// header it must carry and the values.
    fn written() -> (Vec<u8>, Header, Vec<Value>) {
        let dir = tempfile::tempdir().unwrap();
        let space = Space::new(Position::empty("2x2".parse().unwrap()), Some(2)).unwrap();
        let kernel = Kernel::new(&space);
        let key = *space.keys().iter().find(|k| kernel.shape(k).0 >= 2).expect("a partition of two rows");
        let (_, row_len) = kernel.shape(&key);
        let layout = Layout { key, first_row: 1, rows: 1 };
        let values: Vec<Value> = (0..row_len.max(256)).map(|i| (i * 37 % 256) as u8 as Value).collect();
        let store = Store::open(dir.path(), &space).unwrap();
        store.write("job", &layout, &values).unwrap();
        let bytes = std::fs::read(store.path("job")).unwrap();
        let header = Header {
            board: "2x2".into(),
            root: space.root.to_line_string(),
            groups: 2,
            key: key.to_string(),
            first_row: 1,
            rows: 1,
            positions: values.len() as u64,
            encoding: ENCODING.into(),
            penalty: Penalty::NONE,
        };
        (bytes, header, values)
    }

    #[test]
    fn a_written_file_parses_back_to_the_same_header_and_values() {
        let (bytes, header, values) = written();
        assert_eq!(bytes, by_hand(STORE_FORMAT, &header, &values), "the layout on disk");
        assert_eq!(parse(bytes).unwrap(), (header, values));
    }

    #[test]
    fn one_flipped_byte_anywhere_is_refused_by_the_checksum_or_in_the_magic() {
        let (bytes, _, _) = written();
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0xff;
            let err = parse(bad).unwrap_err();
            let want = if i < MAGIC.len() {
                "not a dab store file (no magic)"
            } else {
                "checksum mismatch (a byte has changed)"
            };
            assert_eq!(err, want, "byte {i}");
        }
    }

    #[test]
    fn a_truncated_or_extended_file_is_refused_with_its_length() {
        let (bytes, _, _) = written();
        let total = bytes.len();
        let header_end = 16 + u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        for cut in header_end..total {
            let err = parse(bytes[..cut].to_vec()).unwrap_err();
            assert_eq!(err, format!("{cut} bytes where {total} were expected (truncated or extended)"));
        }
        // Cut inside the header, nothing says how long the file should be, but it is refused.
        for cut in 0..header_end {
            assert!(parse(bytes[..cut].to_vec()).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        let err = parse(longer).unwrap_err();
        assert_eq!(err, format!("{} bytes where {total} were expected (truncated or extended)", total + 1));
    }

    #[test]
    fn a_wrong_format_number_is_refused_even_with_a_good_checksum() {
        let (_, header, values) = written();
        for format in [0, STORE_FORMAT + 1, u32::MAX] {
            let err = parse(by_hand(format, &header, &values)).unwrap_err();
            assert_eq!(err, format!("store format {format}, this dab reads formats 1 and 2"));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

        #[test]
        fn any_bytes_parse_to_a_header_or_a_reason_never_a_panic(
            tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
            magic in proptest::prelude::any::<bool>(),
        ) {
            let bytes = if magic { [&MAGIC[..], &tail].concat() } else { tail };
            let _ = parse(bytes.clone());
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("1-1.dab");
            std::fs::write(&path, &bytes).unwrap();
            for err in [open(&path).map(|o| o.header).err(), read_file(&path).err()].into_iter().flatten() {
                proptest::prop_assert!(err.to_string().contains(&*path.to_string_lossy()), "{}", err);
            }
        }

        #[test]
        fn a_header_promising_any_length_is_refused_without_wrapping(
            len in proptest::prelude::any::<u32>(),
            positions in proptest::prelude::any::<u64>(),
        ) {
            let (_, mut header, values) = written();
            header.positions = positions;
            let mut bytes = by_hand(STORE_FORMAT, &header, &values);
            if positions == values.len() as u64 {
                proptest::prop_assume!(len as usize != serde_json::to_vec(&header).unwrap().len());
                bytes[12..16].copy_from_slice(&len.to_le_bytes());
            }
            proptest::prop_assert!(parse(bytes).is_err());
        }
    }

    #[test]
    fn a_header_that_does_not_fit_in_its_file_is_refused_before_it_is_read() {
        let (bytes, _, _) = written();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1-1.dab");
        let mut bad = bytes.clone();
        bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        std::fs::write(&path, &bad).unwrap();
        let err = open(&path).map(|o| o.header).unwrap_err().to_string();
        assert!(err.contains("its header of 4294967295 bytes does not fit in its"), "{err}");
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let err = open(&path).map(|o| o.header).unwrap_err().to_string();
        assert!(err.contains("truncated or extended"), "{err}");
        std::fs::write(&path, &bytes).unwrap();
        assert!(open(&path).map(|o| o.header).is_ok());
    }

    /// A header and values of several chunks, the last one short.
    fn big() -> (Header, Vec<Value>) {
        let n = 3 * CHUNK as usize + 1234;
        let values: Vec<Value> = (0..n).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8 as Value).collect();
        let header = Header {
            board: "3x3".into(),
            root: "0".repeat(24),
            groups: 1,
            key: "7".into(),
            first_row: 0,
            rows: 1,
            positions: n as u64,
            encoding: ENCODING.into(),
            penalty: Penalty::NONE,
        };
        (header, values)
    }

    /// `bytes` as a file of a fresh folder.
    fn on_disk(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("7.dab");
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    #[test]
    fn the_encoder_writes_the_layout_by_hand_and_every_reader_of_either_format_reads_it_back() {
        let (h, v) = big();
        assert_eq!(encode(&h, &v), by_hand(STORE_FORMAT, &h, &v));
        for format in [STORE_FORMAT_1, STORE_FORMAT] {
            let bytes = by_hand(format, &h, &v);
            assert_eq!(parse(bytes.clone()).unwrap(), (h.clone(), v.clone()), "format {format}");
            let (_dir, path) = on_disk(&bytes);
            assert_eq!(open(&path).unwrap().values().unwrap(), v);
            assert_eq!(open(&path).unwrap().check().unwrap(), h);
            let c = Chunked::new(open(&path).unwrap()).unwrap();
            for at in (0..v.len()).step_by(997).chain([v.len() - 1]) {
                assert_eq!(c.value(at as u64).unwrap(), v[at], "format {format}, value {at}");
            }
            assert!(c.value(v.len() as u64).unwrap_err().to_string().contains("has no position"));
        }
    }

    #[test]
    fn a_chunk_read_alone_is_checked_before_its_first_value_is_used() {
        let (h, v) = big();
        let mut bytes = by_hand(STORE_FORMAT, &h, &v);
        let at = 16 + serde_json::to_vec(&h).unwrap().len() + CHUNK as usize + 5;
        bytes[at] ^= 1;
        let (_dir, path) = on_disk(&bytes);
        let c = Chunked::new(open(&path).unwrap()).unwrap();
        // The chunks around it read right; every value of the damaged one is refused by name.
        assert_eq!(c.value(0).unwrap(), v[0]);
        assert_eq!(c.value(2 * CHUNK).unwrap(), v[2 * CHUNK as usize]);
        for i in [CHUNK, CHUNK + 5, 2 * CHUNK - 1] {
            let err = c.value(i).unwrap_err().to_string();
            assert!(err.contains("7.dab") && err.contains("checksum mismatch in values 65536..131072"), "{err}");
        }
        // A format-1 file has no table: it is checked whole before any value is given.
        let mut old = by_hand(STORE_FORMAT_1, &h, &v);
        old[at] ^= 1;
        let (_dir, path) = on_disk(&old);
        assert!(Chunked::new(open(&path).unwrap()).err().unwrap().to_string().contains("checksum mismatch"));
    }

    #[test]
    fn a_named_pipe_or_a_device_is_refused_by_name_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("1-1.dab");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let link = dir.path().join("1-2.dab");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        for (path, what) in [(fifo, "a named pipe (FIFO), not a regular file"), (link, "a device, not a regular file")]
        {
            let err = open(&path).err().unwrap().to_string();
            assert!(err.contains(&*path.to_string_lossy()) && err.contains(what), "{err}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

        /// Zeroed, flipped or random bytes over any range of a file of several chunks, in
        /// either format: the whole readers refuse it, and the chunked reader gives every
        /// value right or refuses it.
        #[test]
        fn damage_anywhere_is_refused_or_leaves_every_answer_right(
            format in 1u32..=2,
            start in proptest::prelude::any::<usize>(),
            len in 1usize..100_000,
            kind in 0u8..3,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let (h, v) = big();
            let good = by_hand(format, &h, &v);
            let mut bad = good.clone();
            let start = start % bad.len();
            let end = (start + len).min(bad.len());
            for (i, b) in bad[start..end].iter_mut().enumerate() {
                *b = match kind {
                    0 => 0,
                    1 => !*b,
                    _ => (seed.rotate_left(i as u32 % 64) ^ i as u64) as u8,
                };
            }
            proptest::prop_assume!(bad != good);
            proptest::prop_assert!(parse(bad.clone()).is_err());
            let (_dir, path) = on_disk(&bad);
            proptest::prop_assert!(open(&path).and_then(|o| o.values()).is_err());
            proptest::prop_assert!(open(&path).and_then(|o| o.check()).is_err());
            if let Ok(c) = open(&path).and_then(Chunked::new) {
                let ends = (0..=3).flat_map(|k| [k * CHUNK as usize, (k * CHUNK as usize).saturating_sub(1)]);
                for at in (0..v.len()).step_by(61).chain(ends).filter(|&i| i < v.len()) {
                    if let Ok(x) = c.value(at as u64) {
                        proptest::prop_assert_eq!(x, v[at], "value {}", at);
                    }
                }
            }
        }
    }
}
