//! `dab bench --suite serve`: prints the rows of `dab::bench::serve` (the web board's answer
//! and page load times) and writes their CSV.

use super::BenchArgs;
use crate::cli::CliResult;

pub fn run(args: BenchArgs) -> CliResult {
    let output = args.output.clone().unwrap_or_else(|| crate::cli::runs_path("bench-serve.csv"));
    let threads = args.thread_counts().into_iter().max().unwrap_or(1);
    println!(
        "{:<13} {:<5} {:>7} {:<8} {:>7} {:>10} {:>10} {:>10} {:>8}",
        "case", "board", "undrawn", "source", "repeats", "median s", "min s", "engine s", "bytes"
    );
    let rows = dab::bench::serve::run(threads, args.repeats_or(super::RUN_REPEATS), &mut |r| {
        println!(
            "{:<13} {:<5} {:>7} {:<8} {:>7} {:>10.4} {:>10.4} {:>10} {:>8}",
            r.case,
            r.board,
            r.undrawn.map_or("-".into(), |u| u.to_string()),
            r.source,
            r.repeats,
            r.median_seconds,
            r.min_seconds,
            r.engine_seconds.map_or("-".into(), |s| format!("{s:.6}")),
            r.bytes
        )
    })?;
    super::write(&rows, &output)?;
    println!("wrote {} (the solves and the search on {threads} threads)", output.display());
    Ok(())
}
