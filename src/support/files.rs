//! Writing output files safely: every report, graph and chart goes through a temporary file
//! in the same folder and a rename, so a failed or interrupted write never leaves a
//! half-written file where a good one was.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Where commands write their reports unless told otherwise (`--out`, `--output`): a user's
/// runs, kept apart from the figures committed beside it in `reports/`, which are made by
/// commands that name their folder or file.
pub const RUNS_DIR: &str = "reports/runs";

/// The temporary name `path` is written under before the rename.
pub(super) fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

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

/// Writes `bytes` to `path` atomically (temporary file, then rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    create_parent(path)?;
    let tmp = temp_path(path);
    let result = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.flush()
    });
    if let Err(e) = result.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
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
