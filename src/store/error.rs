//! The store's one error type: every failure names the folder or file it is about.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create store folder '{path}': {source}")]
    Folder { path: PathBuf, source: std::io::Error },
    #[error("store '{path}' is in use by another run (its lock is held)")]
    Locked { path: PathBuf },
    #[error("cannot lock store '{path}': {source}")]
    Lock { path: PathBuf, source: std::io::Error },
    #[error("cannot write '{path}': {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot read '{path}': {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("'{path}' is damaged: {reason}")]
    Damaged { path: PathBuf, reason: String },
}
