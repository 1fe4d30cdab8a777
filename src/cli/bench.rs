//! `dab bench`: the solver against the dense twin, single-threaded, CSV in `reports/`.

use std::path::PathBuf;

use clap::Args;
use dab::bench::{Case, DEFAULT_CASES, run, write_csv};

use super::CliResult;

#[derive(Args)]
pub struct BenchArgs {
    /// Cases: empty boards (MxN) or `chains-3x8` (32 undrawn lines on 3x8).
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_CASES.iter().map(|s| s.to_string()))]
    pub cases: Vec<String>,
    /// Where to write the CSV.
    #[arg(long, short, default_value = "reports/bench.csv")]
    pub output: PathBuf,
}

pub fn run_cmd(args: BenchArgs) -> CliResult {
    let cases = args.cases.iter().map(|c| Case::parse(c)).collect::<Result<Vec<_>, _>>()?;
    let exe = std::env::current_exe()?;
    println!(
        "{:<12} {:<9} {:>5} {:>6} {:>14} {:>9} {:>12} {:>10} {:>8}",
        "case", "engine", "lines", "value", "positions", "seconds", "space pos/s", "peak MB", "speedup"
    );
    let rows = run(&exe, &cases, |r| {
        println!(
            "{:<12} {:<9} {:>5} {:>6} {:>14} {:>9.3} {:>12.3e} {:>10.1} {:>8}",
            r.case,
            format!("{:?}", r.engine).to_lowercase(),
            r.free_lines,
            r.value,
            r.positions,
            r.seconds,
            r.space_positions_per_second,
            r.peak_rss_bytes.unwrap_or(0) as f64 / 1e6,
            r.speedup_vs_dense.map_or(String::new(), |s| format!("{s:.1}x")),
        )
    })?;
    write_csv(&rows, &args.output)?;
    println!("wrote {}", args.output.display());
    Ok(())
}
