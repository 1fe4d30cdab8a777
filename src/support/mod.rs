//! The bottom layer: small utilities every other layer may use, and which use nothing of the
//! crate themselves. Atomic file writes, the shared statistics, the seeded generator, the
//! process's peak memory, thread counts, one-line text for messages, and named choices (the value enums a user picks by name).

mod alloc;
pub(crate) mod choice;
mod files;
mod pages;
mod process;
mod rng;
mod setting;
mod stats;
mod text;
mod threads;

pub use alloc::PageAlloc;
pub(crate) use alloc::{HUGE_PAGE, Pages};
pub use choice::Choice;
pub(crate) use choice::choice;
pub use files::{RUNS_DIR, read_json_at_most, read_text_at_most, write_atomic, write_csv};
pub(crate) use pages::{ZeroByte, advise_huge_pages, zeroed_bytes};
pub use process::{
    MIN_ADDRESS_SPACE, check_address_space, last_level_cache_bytes, machine_memory_bytes, peak_rss_bytes,
    return_freed_memory, trim_freed_memory,
};
pub(crate) use process::{address_space_left, available_memory_bytes, open_files_limit, total_memory_bytes};
pub use rng::SplitMix64;
pub use setting::{Remedy, Setting};
pub use stats::{median, quantile, round4, rounded_u64};
pub use text::{about_bytes, about_seconds, count_of, human_bytes, one_line, thousands};
pub use threads::{hardware_threads, max_threads, thread_counts};
