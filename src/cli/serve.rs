//! `dab serve`: the web analysis board on 127.0.0.1.

use std::path::PathBuf;

use clap::Args;

use dab::serve::{ServeError, ServeOptions, Server};

use super::CliResult;

#[derive(Args)]
pub struct ServeArgs {
    /// A store whose book answers first (read only; positions it does not hold are answered
    /// by the theorems, a solve or the search).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// The port on 127.0.0.1 (0: a free port, printed on start).
    #[arg(long, value_name = "N", default_value_t = 8080)]
    pub port: u16,
    /// Worker threads of each solve or search (default: RAYON_NUM_THREADS, else all cores).
    #[arg(long, value_name = "P")]
    pub threads: Option<usize>,
    /// Open the board in the system's browser once the server listens.
    #[arg(long)]
    pub open: bool,
    /// Most bytes the analyses' search tables take in all (8G, 500MB, ...), shared among the
    /// analyses that may run at once (default: half the machine's memory).
    #[arg(long, value_name = "BYTES", value_parser = super::bytes)]
    pub mem_limit: Option<u64>,
    // The penalty of every analysis whose request names none (the API's `penalty` overrides it).
    #[command(flatten)]
    pub penalty: super::PenaltyArgs,
}

pub fn run(args: ServeArgs) -> CliResult {
    let threads = super::threads(args.threads)?;
    let penalty = args.penalty.penalty;
    let opts = ServeOptions { store: args.store, penalty, mem_limit: args.mem_limit, ..ServeOptions::new(threads) };
    let server = Server::bind(args.port, opts).map_err(|e| -> Box<dyn std::error::Error> {
        match e {
            ServeError::Busy { .. } => format!("{e}: choose another with --port N, or --port 0 for a free one").into(),
            // Kept whole, so that the flag of a setting it refuses is named.
            e => Box::new(e),
        }
    })?;
    println!("serving {}", server.url());
    // The line above is how a script (or a test) learns a port picked with --port 0.
    use std::io::Write;
    std::io::stdout().flush()?;
    super::note!("the analysis board is at {} (Ctrl-C stops the server)", server.url());
    if !penalty.is_none() {
        super::note!("every analysis is under a last-move penalty of {penalty} unless its request names another");
    }
    // A browser that cannot be started is no reason to stop serving: said, and the address
    // above is there to open by hand.
    if args.open
        && let Err(e) = opener::open_browser(server.url())
    {
        super::note!("could not open a browser ({e}); open {} by hand", server.url());
    }
    server.run()?;
    Ok(())
}
