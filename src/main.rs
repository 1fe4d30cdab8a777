//! The `dab` command line: parses arguments, converts them and calls the library.

mod cli;

/// Large blocks as mappings of their own, so that a finished partition's pages move into the
/// next job's output rather than the system zeroing fresh ones.
#[global_allocator]
static ALLOCATOR: dab::support::PageAlloc = dab::support::PageAlloc;

fn main() {
    // Output piped into `head` ends quietly, as for any Unix tool, instead of a panic on the
    // first write after the reader has gone (store files are renamed into place whole, so an
    // interrupted run leaves nothing half-written).
    sigpipe::reset();
    catch_file_size_limit();
    // Before any thread starts: a memory limit bounds the whole process only if freed values
    // leave it.
    dab::support::return_freed_memory();
    if let Err(e) = dab::support::check_address_space() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
    // A panic is a bug in dab: said on one line (the run that caught it reports its own error
    // after it), not as Rust's several.
    std::panic::set_hook(Box::new(|info| {
        let text = info.to_string().replace('\n', "; ");
        eprintln!("internal error (a bug in dab; please report it): {text}");
    }));
    std::process::exit(cli::run());
}

/// A file growing past `ulimit -f` is a write error like any other (EFBIG, "File too large",
/// reported with the file's name), not a silent kill by SIGXFSZ: with the signal caught the
/// kernel fails the write instead. The handler only sets a flag that nothing reads; should
/// registering it fail, the default (the kill) stands.
fn catch_file_size_limit() {
    #[cfg(unix)]
    {
        static CAUGHT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, &CAUGHT);
    }
}
