//! `dab verify`: check every file of a store.

use std::path::PathBuf;

use clap::Args;

use super::CliResult;

#[derive(Args)]
pub struct VerifyArgs {
    /// The store folder.
    #[arg(long, value_name = "DIR")]
    pub store: PathBuf,
    /// Also recompute this many random files from the files they read, and compare.
    #[arg(long, value_name = "N")]
    pub recompute: Option<usize>,
    /// Seed of the random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: VerifyArgs) -> CliResult {
    if !args.store.is_dir() {
        return Err(format!("store '{}' is not a folder", args.store.display()).into());
    }
    let v = dab::store::verify(&args.store)?;
    let re = match args.recompute {
        Some(n) => dab::store::recompute(&args.store, n, args.seed)?,
        None => Vec::new(),
    };
    let wrong = re.iter().filter(|r| r.outcome.starts_with("different") || r.outcome.starts_with("damaged")).count();
    if args.json {
        println!("{}", serde_json::json!({ "verify": v, "recomputed": re }));
    } else {
        for (path, reason) in &v.damaged {
            println!("damaged: {}: {reason}", path.display());
        }
        for r in &re {
            println!("recomputed {}: {}", r.file.display(), r.outcome);
        }
        println!(
            "{} files, {} positions, {} damaged, {} recomputed ({wrong} wrong)",
            v.files,
            v.positions,
            v.damaged.len(),
            re.len()
        );
    }
    if v.damaged.is_empty() && wrong == 0 {
        Ok(())
    } else {
        Err(format!(
            "{} of {} store files are damaged, {wrong} disagree with a recomputation",
            v.damaged.len(),
            v.files
        )
        .into())
    }
}
