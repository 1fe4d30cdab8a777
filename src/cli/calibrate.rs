//! `dab calibrate`: time the kernel on this machine, fit the cost model, save it under sims/.

use std::path::PathBuf;

use clap::Args;
use dab::calibrate::{self, Case, DEFAULT_CASES, DEFAULT_HOLDOUT};

use super::CliResult;

#[derive(Args)]
pub struct CalibrateArgs {
    /// Boards to fit on, `MxN` or `MxN/G` (G groups), separated by commas.
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_CASES)]
    pub cases: Vec<Case>,
    /// Boards timed but not fitted on, to test the model.
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_HOLDOUT)]
    pub holdout: Vec<Case>,
    /// Threads for the all-threads timing (default: all cores).
    #[arg(long, value_name = "P")]
    pub threads: Option<usize>,
    /// Runs per case; each job's median time is fitted.
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
    /// Where to save the model.
    #[arg(long, short, default_value = "sims/cost-model.json")]
    pub output: PathBuf,
    /// Every timed job, as CSV.
    #[arg(long, default_value = "reports/calibration.csv")]
    pub samples: PathBuf,
}

pub fn run(args: CalibrateArgs) -> CliResult {
    let threads = super::threads(args.threads)?;
    let cal = calibrate::run(&args.cases, &args.holdout, threads, args.repeats, &mut |m| eprintln!("{m}"))?;
    let m = &cal.model;
    println!("machine: {}", m.machine);
    let terms: Vec<String> =
        m.coefficients().iter().filter(|(_, c)| *c > 0.0).map(|(name, c)| format!("{name} = {c:.4}")).collect();
    println!("model: {} (terms kept: {})", terms.join(", "), cal.fit.kept.join(", "));
    for (t, f) in &m.contention {
        println!("contention: jobs run {f:.3} times slower with {t} threads busy");
    }
    println!(
        "\n{:<8} {:>7} {:>6} {:>10} {:>10} {:>10}  fitted on",
        "board", "threads", "jobs", "median", "p90", "total"
    );
    for s in &cal.stats {
        println!(
            "{:<8} {:>7} {:>6} {:>9.1}% {:>9.1}% {:>9.1}%  {}",
            s.board,
            s.threads,
            s.jobs,
            100.0 * s.median,
            100.0 * s.p90,
            100.0 * s.total,
            if s.fitted_on { "yes" } else { "no" }
        );
    }
    m.save(&args.output)?;
    dab::files::write_csv(&cal.samples, &args.samples)
        .map_err(|e| format!("cannot write '{}': {e}", args.samples.display()))?;
    println!("\nsaved {} (samples in {})", args.output.display(), args.samples.display());
    Ok(())
}
