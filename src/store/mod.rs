//! The durable partition store. Owns the file format (the `format` module), the folder a run
//! writes with its lock ([`Store`]), the lock-free reader of an opening book ([`Reader`]) and
//! the checks of `dab verify`. May use `support`, `game` and `solver` (a folder is named by a
//! space, a file's rows by a [`crate::solver::Layout`]); knows nothing of plans, schedules or
//! the executor. Every I/O error is a [`StoreError`] naming its file.

mod error;
mod folder;
mod format;
mod place;
mod reader;
mod verify;

pub use error::StoreError;
pub use folder::{Store, folder};
pub use format::{CHUNK, Header, MAGIC, STORE_FORMAT, encode, parse};
pub use place::DONE_FOLDER;
pub use reader::{BOOK_BYTES, BOOK_WHOLE_BYTES, Book, Reader};
pub use verify::{Folder, Recomputed, Verdict, recompute, verify};
