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

/// Reads a text input whole, refusing at once a file too big to parse in the memory this
/// machine has now (an error naming both sizes) rather than swapping or being killed. `-` is
/// standard input (read once: a second `-` of the same command reads nothing).
pub fn read_text(path: &Path) -> std::io::Result<String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)?;
        return Ok(text);
    }
    let len = std::fs::metadata(path)?.len();
    if let Some(free) = super::process::available_memory_bytes()
        && len > free / TEXT_SHARE_OF_MEMORY
    {
        return Err(std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!(
                "{len} bytes is too big to read: at most {} (a quarter of the {free} bytes of memory available now)",
                free / TEXT_SHARE_OF_MEMORY
            ),
        ));
    }
    std::fs::read_to_string(path)
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
}
