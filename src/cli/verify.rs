//! `dab verify`: check every file of a store.

use std::path::PathBuf;

use clap::Args;

use super::CliResult;

#[derive(Args)]
pub struct VerifyArgs {
    /// The store folder.
    #[arg(long, value_name = "DIR")]
    pub store: PathBuf,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: VerifyArgs) -> CliResult {
    if !args.store.is_dir() {
        return Err(format!("store '{}' is not a folder", args.store.display()).into());
    }
    let v = dab::store::verify(&args.store)?;
    if args.json {
        println!("{}", serde_json::to_string(&v)?);
    } else {
        for (path, reason) in &v.damaged {
            println!("damaged: {}: {reason}", path.display());
        }
        println!("{} files, {} positions, {} damaged", v.files, v.positions, v.damaged.len());
    }
    if v.damaged.is_empty() {
        Ok(())
    } else {
        Err(format!("{} of {} store files are damaged", v.damaged.len(), v.files).into())
    }
}
