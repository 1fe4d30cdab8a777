//! The web analysis board: `dab serve`'s HTTP server on 127.0.0.1, the page it
//! serves (HTML, CSS and JavaScript embedded in the binary), its JSON API (a position's
//! answer, the same object as `dab hint --json`; a game's review, as `dab review --json`; a
//! position's Nimstring value, as `dab nimstring --json`; and a position in both text formats
//! with its long chains). Every
//! answer comes from `answer::hint`; the server only reads: a store is opened read-only, and
//! nothing is written anywhere. Only the benchmarks (`bench::serve`) use it.

mod analyses;
mod api;
mod conn;
mod http;
mod nimstrings;
mod page;

pub use api::MAX_SECONDS;
pub use http::{Counts, HEAD_SECONDS, ServeError, ServeOptions, Server, Stopper};
pub use page::{ASSETS, Asset};
