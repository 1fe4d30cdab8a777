//! `dab endgame`: Allcock's values and best play for a list of loops and long chains, or for a
//! position made only of them.

use std::path::PathBuf;

use clap::Args;

use dab::answer::endgame::{Endgame, Report, analyse_position, report};

use super::{CliResult, PositionArgs};

#[derive(Args)]
pub struct EndgameArgs {
    /// Components: `C<k>` a chain of k >= 3 boxes, `L<k>` a loop of even k >= 4 (e.g. "C3 C3 L4 L8").
    #[arg(conflicts_with = "position", required_unless_present = "position")]
    pub components: Option<String>,
    /// ASCII-art position file ('-' for stdin) made only of loops, long chains and completed boxes.
    #[arg(long, value_name = "FILE")]
    pub position: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: EndgameArgs) -> CliResult {
    if let Some(path) = args.position {
        let pos = PositionArgs { board: None, position: Some(path), lines: None }.position()?;
        let r = analyse_position(pos)?;
        if args.json {
            println!("{}", serde_json::to_string(&r)?);
            return Ok(());
        }
        println!("board {}, components:", r.board);
        for f in &r.components {
            println!("  {:<4} boxes {}  lines {}", f.component, f.boxes.join(" "), f.lines.join(" "));
        }
        // The value format's first line gives the value; the report does not repeat it.
        print_report(&r.endgame, false);
        print!("{}", dab::game::ValueLines { value: r.value, best: &r.best, moves: &r.moves, valued: true });
        if let Some(play) = &r.play {
            println!("play {play} (Theorem 1.1)");
        }
        return Ok(());
    }
    let text = args.components.expect("clap requires components or --position");
    let g = Endgame::parse(&text)?;
    let r = report(&g);
    if args.json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        print_report(&r, true);
    }
    Ok(())
}

/// Prints Allcock's analysis of `r`; `with_value`: also the value for the player to move (a
/// component list has no other line that gives it).
fn print_report(r: &Report, with_value: bool) {
    println!(
        "endgame {}: {} boxes; 3-chains {}, 4-loops {}, 6-loops {}",
        if r.components.is_empty() { "(empty)" } else { &r.components },
        r.size,
        r.three_chains,
        r.four_loops,
        r.six_loops
    );
    println!("controlled value c(G) = {} (terminal bonus {})", r.controlled_value, r.terminal_bonus);
    println!(
        "value v(G) = {} ({}; Theorem 4.2 gives {}): the controller beats the opener by {}",
        r.v, r.value_case, r.v_procedural, r.v
    );
    if with_value {
        println!("value for the player to move (the opener): {:+} net future boxes", r.value);
    }
    if let (Some(open), Some(rule)) = (&r.open, &r.open_rule) {
        println!("open {open} ({rule})");
    }
    if !r.opened.is_empty() {
        println!("once a component C is opened (Theorem 1.3 for the controller's reply):");
        for o in &r.opened {
            println!(
                "  {:<4} v(G-C) {:>3}  v(G;C) {:>3}  the controller {:<8}  opening it is worth {:+} to the opener",
                o.component,
                o.v_rest,
                o.v_opened,
                if o.controller == "keep" { "keeps" } else { "gives up" },
                o.move_value
            );
        }
    }
}
