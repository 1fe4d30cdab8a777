//! The store's file format: magic, format version, a JSON header naming the board, root,
//! grouping, key, rows, positions and value encoding, the values (one byte a position), and a
//! CRC-32 of everything before it. Parsing checks every part; a file that fails is refused
//! with the reason.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::game::Value;

use super::error::StoreError;

/// First bytes of every store file.
pub const MAGIC: &[u8; 8] = b"DABPART\n";
/// Store files this version reads and writes.
pub const STORE_FORMAT: u32 = 1;
/// What a value byte means.
pub const ENCODING: &str = "i8: net future boxes for the player to move";
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
    /// What a value byte means ([`ENCODING`]).
    pub encoding: String,
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

/// A file's header alone (the file is checked when its values are read).
pub(crate) fn read_header(path: &Path) -> Result<Header, StoreError> {
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
