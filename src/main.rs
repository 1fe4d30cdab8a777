//! The `dab` command line: parses arguments, converts them and calls the library.

mod cli;

fn main() {
    // Output piped into `head` ends quietly, as for any Unix tool, instead of a panic on the
    // first write after the reader has gone (store files are renamed into place whole, so an
    // interrupted run leaves nothing half-written).
    sigpipe::reset();
    // Before any thread starts: a memory limit bounds the whole process only if freed values
    // leave it.
    dab::support::return_freed_memory();
    std::process::exit(cli::run());
}
