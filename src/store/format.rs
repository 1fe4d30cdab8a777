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
    // The length the header promises, in u64 so that a hostile count cannot wrap round.
    let end = header.as_ref().map(|h| (16 + len).saturating_add(h.positions));
    if let Some(end) = end.filter(|&e| bytes.len() as u64 != e.saturating_add(4)) {
        return Err(format!(
            "{} bytes where {} were expected (truncated or extended)",
            bytes.len(),
            end.saturating_add(4)
        ));
    }
    // The checksum covers everything before it, header included: any changed byte shows.
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
        return Err("checksum mismatch (a byte has changed)".into());
    }
    if format != STORE_FORMAT {
        return Err(format!("store format {format}, this dab reads {STORE_FORMAT}"));
    }
    let header = header.ok_or("unreadable header")?;
    bytes.truncate(bytes.len() - 4);
    bytes.drain(..16 + len as usize);
    // In place: a map over a vector's own iterator into a same-sized type keeps the buffer.
    Ok((header, bytes.into_iter().map(|b| b as Value).collect()))
}

/// A whole file read and checked (magic, format, length, checksum), or why not, naming it.
pub(crate) fn read_file(path: &Path) -> Result<(Header, Vec<Value>), StoreError> {
    let bytes = std::fs::read(path).map_err(|source| StoreError::Read { path: path.to_path_buf(), source })?;
    parse(bytes).map_err(|reason| StoreError::Damaged { path: path.to_path_buf(), reason })
}

/// A file's header alone (the file is checked when its values are read). A header length
/// beyond the file's own is refused before anything is allocated for it.
pub(crate) fn read_header(path: &Path) -> Result<Header, StoreError> {
    open_header(path).map(|(h, _, _)| h)
}

/// A file's header, the file left open, and the offset of its first value: what reading
/// values one at a time needs (no checksum is then checked: that takes the whole file).
pub(crate) fn open_header(path: &Path) -> Result<(Header, File, u64), StoreError> {
    let damaged = |reason: String| StoreError::Damaged { path: path.to_path_buf(), reason };
    let mut f = File::open(path).map_err(|source| StoreError::Read { path: path.to_path_buf(), source })?;
    let size = f.metadata().map_err(|source| StoreError::Read { path: path.to_path_buf(), source })?.len();
    let mut head = [0u8; 16];
    if f.read_exact(&mut head).is_err() || &head[..8] != MAGIC {
        return Err(damaged("not a dab store file (no magic)".into()));
    }
    let format = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    if format != STORE_FORMAT {
        return Err(damaged(format!("store format {format}, this dab reads {STORE_FORMAT}")));
    }
    let len = u32::from_le_bytes([head[12], head[13], head[14], head[15]]) as u64;
    if 16 + len + 4 > size {
        return Err(damaged(format!("its header of {len} bytes does not fit in its {size} bytes (truncated?)")));
    }
    let mut json = vec![0u8; len as usize];
    f.read_exact(&mut json).map_err(|e| damaged(format!("unreadable header ({e})")))?;
    let header: Header = serde_json::from_slice(&json).map_err(|e| damaged(format!("unreadable header ({e})")))?;
    let want = (16 + len).saturating_add(header.positions).saturating_add(4);
    if want != size {
        return Err(damaged(format!("{size} bytes where {want} were expected (truncated or extended)")));
    }
    Ok((header, f, 16 + len))
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
    /// values, CRC-32 of all before it (u32 LE).
    fn by_hand(format: u32, header: &Header, values: &[Value]) -> Vec<u8> {
        let json = serde_json::to_vec(header).unwrap();
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&format.to_le_bytes());
        bytes.extend_from_slice(&(json.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&json);
        bytes.extend(values.iter().map(|&v| v as u8));
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
            assert_eq!(err, format!("store format {format}, this dab reads {STORE_FORMAT}"));
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
            for err in [read_header(&path).err(), read_file(&path).err()].into_iter().flatten() {
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
        let err = read_header(&path).unwrap_err().to_string();
        assert!(err.contains("its header of 4294967295 bytes does not fit in its"), "{err}");
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let err = read_header(&path).unwrap_err().to_string();
        assert!(err.contains("truncated or extended"), "{err}");
        std::fs::write(&path, &bytes).unwrap();
        assert!(read_header(&path).is_ok());
    }
}
