//! `dab partitions`: the partitions of a solve with their sizes and dependencies.

use clap::Args;

use dab::solver::Space;

use super::{CliResult, PositionArgs};

#[derive(Args)]
pub struct PartitionsArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Number of line groups.
    #[arg(long, value_name = "G")]
    pub groups: Option<usize>,
    /// One JSON object instead of CSV.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: PartitionsArgs) -> CliResult {
    let root = args.position.position()?;
    let space = Space::new(root, args.groups)?;
    let listing = dab::solver::list(&space);
    if args.json {
        println!("{}", serde_json::to_string(&listing)?);
    } else {
        dab::solver::write_csv(&listing, std::io::stdout().lock())?;
    }
    Ok(())
}
