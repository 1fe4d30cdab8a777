//! `dab query`: a position's value and every move's, from a store.

use std::path::PathBuf;

use clap::Args;

use super::{CliResult, PositionArgs};

#[derive(Args)]
pub struct QueryArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// The store folder.
    #[arg(long, value_name = "DIR")]
    pub store: PathBuf,
    /// The grouping to read (needed when the store holds several for the board).
    #[arg(long, value_name = "G")]
    pub groups: Option<usize>,
    #[command(flatten)]
    pub engine: super::hint::EngineArgs,
    /// Threads for a position the store does not reach.
    #[arg(long, value_name = "P")]
    pub threads: Option<usize>,
    /// Print one JSON object (as dab solve --json, with `source`).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub penalty: super::PenaltyArgs,
}

pub fn run(args: QueryArgs) -> CliResult {
    let pos = args.position.position()?;
    let threads = super::threads(args.threads)?;
    let penalty = args.penalty.penalty;
    let reader = dab::store::Reader::open_under(&args.store, pos, args.groups, penalty)?;
    let line = super::solve::SearchLine::on_terminal();
    let a = dab::answer::query(&reader, pos, args.engine.asking(threads, &line).under(penalty))?;
    if args.json {
        println!("{}", serde_json::to_string(&a)?);
    } else {
        print!("{a}");
    }
    Ok(())
}
