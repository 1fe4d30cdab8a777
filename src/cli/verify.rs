//! `dab verify`: check every file of a store, and that the store is complete. Exit status 0:
//! sound; 1: damaged or incomplete, with the list; 2: a usage error.

use std::path::PathBuf;

use clap::Args;

use super::{CliResult, Failed};

#[derive(Args)]
pub struct VerifyArgs {
    /// The store folder.
    #[arg(long, value_name = "DIR")]
    pub store: PathBuf,
    /// Also recompute this many random files from the files they read, and compare (a file
    /// whose inputs are missing, damaged or wrong is said unchecked, not failed).
    #[arg(long, value_name = "N")]
    pub recompute: Option<usize>,
    /// Seed of the random choice of --recompute.
    #[arg(long, default_value_t = 1, requires = "recompute")]
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
    let failed = re.iter().filter(|r| r.failed()).count();
    let unchecked = re.iter().filter(|r| !r.failed() && !r.same()).count();
    if args.json {
        println!(
            "{}",
            serde_json::json!({ "verify": v, "recomputed": re, "sound": v.sound() && failed + unchecked == 0 })
        );
    } else {
        for f in &v.folders {
            let held = match f.lines {
                Some(k) if k < f.free => format!("an opening book: the partitions of at most {k} of {} lines", f.free),
                Some(_) => format!("a whole solve ({} lines)", f.free),
                None => "nothing".into(),
            };
            println!("{}: {} files, {held}", f.dir.display(), f.files);
        }
        let lists = [
            ("damaged", &v.damaged),
            ("unreadable", &v.unreadable),
            ("missing", &v.incomplete),
            ("warning", &v.warnings),
        ];
        for (label, list) in lists {
            for (path, reason) in list {
                println!("{label}: {}: {reason}", path.display());
            }
        }
        for r in &re {
            println!("recomputed {}: {}", r.file.display(), r.outcome);
        }
        println!(
            "{} files, {} positions, {} damaged, {} unreadable, {} missing, {} warnings, {} recomputed ({failed} failed, {unchecked} unchecked)",
            v.files,
            v.positions,
            v.damaged.len(),
            v.unreadable.len(),
            v.incomplete.len(),
            v.warnings.len(),
            re.len()
        );
    }
    if v.sound() && failed + unchecked == 0 {
        return Ok(());
    }
    let mut why = Vec::new();
    if !v.damaged.is_empty() {
        why.push(format!("{} of {} store files are damaged", v.damaged.len(), v.files));
    }
    if !v.unreadable.is_empty() {
        why.push(format!("{} of {} store files cannot be read", v.unreadable.len(), v.files));
    }
    if !v.incomplete.is_empty() {
        why.push(format!("{} missing (incomplete)", v.incomplete.len()));
    }
    if failed > 0 {
        why.push(format!("{failed} of {} recomputed files failed (different or damaged)", re.len()));
    }
    if unchecked > 0 {
        why.push(format!("{unchecked} could not be checked (an input missing, damaged or wrong)"));
    }
    Err(Failed(format!("store '{}' is not sound: {}", args.store.display(), why.join(", "))).into())
}
