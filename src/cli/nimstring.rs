//! `dab nimstring`: a position's Nimstring value (a nimber, or loony) and every move's.

use clap::Args;

use super::{CliResult, PositionArgs};

#[derive(Args)]
pub struct NimstringArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Give up after S seconds (the calculator's time grows quickly with the undrawn lines of a
    /// region; regions cut apart by drawn lines are valued apart).
    #[arg(long, value_name = "S", default_value_t = 60.0, value_parser = super::seconds)]
    pub seconds: f64,
    /// Print one JSON object: the value, whether the player to move wins, every move's value.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: NimstringArgs) -> CliResult {
    let pos = args.position.position()?;
    let a = dab::answer::nimstring::nimstring(pos, Some(args.seconds))?;
    if args.json {
        println!("{}", serde_json::to_string(&a)?);
    } else {
        print!("{a}");
    }
    Ok(())
}
