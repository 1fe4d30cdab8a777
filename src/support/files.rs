//! Writing output files safely: every report, graph and chart goes through a temporary file
//! in the same folder and a rename, so a failed or interrupted write never leaves a
//! half-written file where a good one was.

use std::io::Write;
use std::path::Path;

/// Where commands write their reports unless told otherwise (`--out`, `--output`): a user's
/// runs, kept apart from the figures committed beside it in `reports/`, which are made by
/// commands that name their folder or file.
pub const RUNS_DIR: &str = "reports/runs";

/// Creates the parent folder of `path` if it is missing.
pub(super) fn create_parent(path: &Path) -> std::io::Result<()> {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir),
        None => Ok(()),
    }
}

/// A text input (graph, plan, trace, cost model, cluster log) parses into several times its
/// size: a file above this share of the memory available is refused before it is read.
const TEXT_SHARE_OF_MEMORY: u64 = 4;

/// Reads a text input whole: a format that never needs more than `most` bytes (`why` says
/// what it is and why no more is needed: "a position: a 16x16 board's art is about a
/// kilobyte"), and no more than the memory this machine has now could parse, refused past the
/// smaller bound as soon as that much is read (a file too big at once, by its size), with an
/// error naming the bound and why, rather than swapping or being killed. `-` is standard input
/// (read once: a second `-` of the same command reads nothing). A regular file or a pipe is
/// read, a named pipe without waiting for a writer to open it (one that none has opened is
/// refused); a device, socket or folder is refused by what it is (`/dev/zero` would never
/// end), and so is a NUL byte, which no text format of dab's holds.
pub fn read_text_at_most(path: &Path, most: u64, why: &str) -> std::io::Result<String> {
    read_text_within(path, Some(bound_of(most, why)), None)
}

/// [`read_text_at_most`] of a JSON object (a plan, a cost model): refused as soon as its first
/// byte other than white space is not `{` (endless input that is no JSON, `yes`, is refused at
/// its first byte rather than at the bound).
pub fn read_json_at_most(path: &Path, most: u64, why: &str) -> std::io::Result<String> {
    read_text_within(path, Some(bound_of(most, why)), Some(b'{'))
}

/// `most` and `why`, or the memory's bound where that is smaller.
fn bound_of(most: u64, why: &str) -> Bound {
    match text_bound() {
        Some(b) if b.most < most => b,
        _ => Bound { most, why: why.to_string() },
    }
}

/// The most bytes of a text input, and why.
struct Bound {
    most: u64,
    why: String,
}

/// What a text input may take: a quarter of the memory available now, and an eighth of the
/// address space left under `ulimit -v` (None: neither is known).
fn text_bound() -> Option<Bound> {
    let memory = super::process::available_memory_bytes().map(|free| Bound {
        most: free / TEXT_SHARE_OF_MEMORY,
        why: format!("a quarter of the {free} bytes of memory available now"),
    });
    let space = super::process::address_space_left().map(|left| Bound {
        most: left / 8,
        why: format!("an eighth of the {left} bytes of address space left under ulimit -v"),
    });
    [memory, space].into_iter().flatten().min_by_key(|b| b.most)
}

/// The text of `path` within `limit`; where `opens` is given, refused unless its first byte
/// other than white space is that one.
fn read_text_within(path: &Path, limit: Option<Bound>, opens: Option<u8>) -> std::io::Result<String> {
    if path.as_os_str() == "-" {
        return read_bounded(std::io::stdin().lock(), limit.as_ref(), opens);
    }
    // A named pipe is opened without waiting for a writer (a plain open waits for one,
    // forever where none comes); on a regular file the flag does nothing.
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    let meta = file.metadata()?;
    let t = meta.file_type();
    #[cfg(unix)]
    let pipe = std::os::unix::fs::FileTypeExt::is_fifo(&t);
    #[cfg(not(unix))]
    let pipe = false;
    if !t.is_file() && !pipe {
        let what = if t.is_dir() { "a folder" } else { "a device or special file" };
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{what}, not a text file")));
    }
    if let Some(b) = limit.as_ref().filter(|b| meta.len() > b.most) {
        let why = format!("{} bytes is too big to read: at most {} ({})", meta.len(), b.most, b.why);
        return Err(std::io::Error::new(std::io::ErrorKind::OutOfMemory, why));
    }
    if pipe {
        return read_pipe(file, limit.as_ref(), opens);
    }
    read_bounded(file, limit.as_ref(), opens)
}

/// A named pipe opened without waiting: refused where no writer has opened it (its end comes
/// at once), else read as any input, waiting in short sleeps while its writer sends nothing.
fn read_pipe(mut file: std::fs::File, limit: Option<&Bound>, opens: Option<u8>) -> std::io::Result<String> {
    let mut first = [0u8; 1];
    let n = loop {
        match std::io::Read::read(&mut file, &mut first) {
            Ok(n) => break n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(PIPE_WAIT),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    };
    if n == 0 {
        let why = "a named pipe that no program writes to: nothing to read (give a file, or '-' for standard input)";
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, why));
    }
    read_bounded(std::io::Read::chain(&first[..], file), limit, opens)
}

/// How long a read of a named pipe whose writer has sent nothing yet waits before it tries again.
const PIPE_WAIT: std::time::Duration = std::time::Duration::from_millis(10);

/// Reads text from `r` until its end, refusing it past `limit` (most bytes, and the memory
/// the bound came from) or at a NUL byte, each as soon as it is read (`/dev/zero` on standard
/// input is refused at its first byte, not after gigabytes).
fn read_bounded(mut r: impl std::io::Read, limit: Option<&Bound>, opens: Option<u8>) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    // Whether the byte `opens` asks for is still to be seen.
    let mut opening = opens;
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // A named pipe opened without waiting: its writer has sent nothing yet.
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(PIPE_WAIT);
                continue;
            }
            Err(e) => return Err(e),
        };
        if let Some(at) = chunk[..n].iter().position(|&b| b == 0) {
            let why = format!("a NUL byte at byte {}: not a text file", bytes.len() + at);
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, why));
        }
        if let Some(want) = opening
            && let Some(at) = chunk[..n].iter().position(|b| !b.is_ascii_whitespace())
        {
            if chunk[at] != want {
                let why = format!(
                    "not JSON: the text begins with {:?} at byte {}, where a JSON object begins with {:?}",
                    chunk[at].escape_ascii().to_string(),
                    bytes.len() + at,
                    want as char
                );
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, why));
            }
            opening = None;
        }
        bytes.extend_from_slice(&chunk[..n]);
        if let Some(b) = limit.filter(|b| bytes.len() as u64 > b.most) {
            let why = format!("more than {} bytes is too big to read ({})", b.most, b.why);
            return Err(std::io::Error::new(std::io::ErrorKind::OutOfMemory, why));
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        let why = format!("not UTF-8 text (at byte {})", e.utf8_error().valid_up_to());
        std::io::Error::new(std::io::ErrorKind::InvalidData, why)
    })
}

/// Writes `bytes` to `path` atomically: into a temporary file of a unique name in the same
/// folder (tempfile), persisted by a rename; one that fails is removed when dropped. Created
/// readable as `File::create` makes files (0666 less the umask), not tempfile's private 0600.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    create_parent(path)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    tmp.persist(path).map(drop).map_err(|e| e.error)
}

/// Writes `rows` as CSV (a header from the first row's fields) to `path` atomically.
pub fn write_csv<T: serde::Serialize>(rows: &[T], path: &Path) -> std::io::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    write_atomic(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_the_file_whole_leaves_no_temporary_and_is_as_readable_as_any() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("a.txt");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let names: Vec<_> =
            std::fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.txt")]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let plain = dir.path().join("plain.txt");
            std::fs::File::create(&plain).unwrap();
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), mode(&plain));
        }
        // A write into a folder that cannot be made fails and leaves nothing behind.
        let blocked = dir.path().join("sub").join("a.txt").join("b.txt");
        assert!(write_atomic(&blocked, b"x").is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
    }

    #[test]
    fn a_text_input_is_bounded_and_never_a_device_a_folder_or_binary() {
        // An endless input stops at the bound, named.
        let bound = Bound { most: 1000, why: "a quarter of the 4000 bytes".into() };
        let err = read_bounded(std::io::repeat(b'a'), Some(&bound), None).unwrap_err().to_string();
        assert!(err.contains("more than 1000 bytes is too big to read") && err.contains("4000 bytes"), "{err}");
        assert_eq!(read_bounded(&b"a,b\n"[..], Some(&bound), None).unwrap(), "a,b\n");
        let err = read_bounded(&b"{\"a\":\0}"[..], None, None).unwrap_err().to_string();
        assert!(err.contains("a NUL byte at byte 5"), "{err}");
        let err = read_bounded(&b"ok\xff"[..], None, None).unwrap_err().to_string();
        assert!(err.contains("not UTF-8 text (at byte 2)"), "{err}");
        for (path, what) in [("/dev/zero", "a device or special file"), ("/", "a folder")] {
            let err = read_text_at_most(Path::new(path), 1000, "a test").unwrap_err().to_string();
            assert!(err.contains(what), "{path}: {err}");
        }
        // A format's own bound, named; memory's where that is smaller.
        let err = read_bounded(std::io::repeat(b'a'), Some(&bound_of(10, "no test needs more")), None);
        let err = err.unwrap_err().to_string();
        assert!(err.contains("more than 10 bytes is too big to read (no test needs more)"), "{err}");
    }

    #[test]
    fn json_that_does_not_open_with_its_brace_is_refused_at_its_first_byte() {
        // `yes` is endless: refused at its first byte, long before any bound.
        let err = read_bounded(std::io::repeat(b'y'), None, Some(b'{')).unwrap_err().to_string();
        assert!(err.contains("not JSON: the text begins with \"y\" at byte 0"), "{err}");
        let err = read_bounded(&b"  \n\t[1]"[..], None, Some(b'{')).unwrap_err().to_string();
        assert!(err.contains("at byte 4"), "{err}");
        assert_eq!(read_bounded(&b" {\"a\": 1}"[..], None, Some(b'{')).unwrap(), " {\"a\": 1}");
        // Empty text is left to the parser, which names it.
        assert_eq!(read_bounded(&b""[..], None, Some(b'{')).unwrap(), "");
    }
}
