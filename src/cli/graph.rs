//! `dab graph`: build a job dependency graph (the solver's partitions, or the thesis's
//! quadrants) and write it as CSV or in the thesis's text format.

use std::path::PathBuf;

use clap::Args;

use dab::sched::{CostSpec, Format, GraphSpec, PieceDeps, QuadrantSymmetry, Scheme, Split};

use super::{CliResult, PositionArgs, choice};

#[derive(Args)]
pub struct GraphArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Orbits: the solver's partitions (executable). Quadrants: the thesis's 4-quadrant scheme.
    #[arg(long, value_parser = choice::<Scheme>(), default_value_t = Scheme::Orbits)]
    pub scheme: Scheme,
    /// Orbits: number of line groups (default: the solver's).
    #[arg(long, value_name = "G")]
    pub groups: Option<usize>,
    /// Quadrants: one job per class of partitions under none, quarter turns (exact; default)
    /// or quarter turns and reflections (the thesis's approximation).
    #[arg(long, value_parser = choice::<QuadrantSymmetry>())]
    pub symmetry: Option<QuadrantSymmetry>,
    /// Job costs: `states` (one tick per state) or a cost model file (nanoseconds).
    #[arg(long, value_name = "states|FILE", default_value = "states")]
    pub cost: String,
    /// Split every job of more than S states into pieces (100000, 1e5, ...).
    #[arg(long, value_name = "S", value_parser = super::count)]
    pub split: Option<u64>,
    /// Most pieces per job.
    #[arg(long, value_name = "K", default_value_t = 20, requires = "split")]
    pub max_pieces: u32,
    /// What a piece needs: the whole of each predecessor, or only the pieces it reads
    /// (default: fine for orbits, whole for quadrants).
    #[arg(long, value_parser = choice::<PieceDeps>(), requires = "split")]
    pub piece_deps: Option<PieceDeps>,
    /// File format.
    #[arg(long, value_parser = choice::<Format>(), default_value_t = Format::Csv)]
    pub format: Format,
    /// Output file (default: standard output).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(args: GraphArgs) -> CliResult {
    let root = args.position.position()?;
    let split = args.split.map(|threshold| Split {
        threshold,
        max_pieces: args.max_pieces,
        deps: args.piece_deps.unwrap_or(match args.scheme {
            Scheme::Orbits => PieceDeps::Fine,
            Scheme::Quadrants => PieceDeps::Whole,
        }),
    });
    let spec = GraphSpec {
        scheme: args.scheme,
        root,
        groups: args.groups,
        symmetry: args.symmetry,
        cost: CostSpec::parse(&args.cost)?,
        split,
    };
    let graph = spec.build()?;
    match &args.output {
        Some(path) => graph.write(path, args.format)?,
        None => print!("{}", graph.to_text(args.format)),
    }
    let (w, cp) = (graph.work(), graph.critical_path());
    super::note!(
        "{} jobs, {} dependencies, {} states, work {w} {}, critical path {cp} (W/CP = {:.2}){}",
        graph.len(),
        graph.edges(),
        graph.states(),
        spec.cost.unit(),
        w as f64 / cp.max(1) as f64,
        args.output.as_ref().map_or(String::new(), |p| format!("; wrote {}", p.display())),
    );
    Ok(())
}
