//! The store's one error type: every failure names the folder or file it is about.

use std::path::PathBuf;

/// Why a store operation failed; every variant names the folder or file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store folder of a space could not be created.
    #[error("cannot create store folder '{path}': {source}")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// Another run holds the folder's lock (alone, or shared by cluster tasks when this run wants it alone).
    #[error("store '{path}' is in use by another run (its lock is held)")]
    Locked {
        /// The folder.
        path: PathBuf,
    },
    /// The folder's path names another folder than the one this run locked (moved or
    /// replaced while it ran): nothing is removed from it.
    #[error("store folder '{path}' was moved or replaced while this run held it: nothing removed from it")]
    Replaced {
        /// The folder.
        path: PathBuf,
    },
    /// The lock file could not be opened or locked for a reason other than another run holding it.
    #[error("cannot lock store '{path}': {source}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A file could not be written, flushed to disk, renamed into place or removed.
    #[error("cannot write '{path}': {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A file or folder could not be read, or (opening a reader) the store holds no such solve.
    #[error("cannot read '{path}': {source}")]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A file failed a check: magic, format, length, checksum, or a header other than expected.
    #[error("'{path}' is damaged: {reason}")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// Which check failed, and how.
        reason: String,
    },
    /// A file holds values under another last-move penalty than its folder's: another game's
    /// values, sound but out of place (a folder renamed, a file moved), so never overwritten.
    #[error(
        "'{}' holds values under {}, but lies in the folder of values under {}: left as it is (it belongs in the folder of its own penalty)",
        path.display(),
        penalty_words(*held),
        penalty_words(*folder)
    )]
    OtherPenalty {
        /// The file.
        path: PathBuf,
        /// The penalty its header says.
        held: crate::game::Penalty,
        /// The penalty of the folder it lies in.
        folder: crate::game::Penalty,
    },
}

impl StoreError {
    /// Whether the store holds no solve of what was asked (its folder, or the solve's, is
    /// missing): an answer may then come from elsewhere, where a damaged file may not.
    pub fn is_not_held(&self) -> bool {
        matches!(self, StoreError::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// A penalty as an error names it.
pub(crate) fn penalty_words(penalty: crate::game::Penalty) -> String {
    if penalty.is_none() { "no last-move penalty".into() } else { format!("a last-move penalty of {penalty}") }
}
