//! The `dab` command line: parses arguments, converts them and calls the library.

mod cli;

fn main() {
    std::process::exit(cli::run());
}
