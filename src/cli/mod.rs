//! Argument parsing shared by the subcommands, and the dispatch. One module per subcommand.
//! Text tables are aligned with `format!` widths, by hand: each is one header line and one
//! row format, where a table crate (comfy-table, tabled) would need a builder per table and
//! buffer every row before printing, while long benchmarks print theirs as they go.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};

use dab::game::{Board, Penalty, Position};
use dab::support::{Choice, Remedy, Setting};

mod bench;
mod calibrate;
mod cluster_trace;
mod compare;
mod completions;
mod endgame;
mod export;
mod graph;
mod hint;
mod job;
mod man;
mod book;
mod nimstring;
mod partitions;
mod plan;
mod play;
mod query;
mod review;
mod run;
mod scale;
mod serve;
mod sim;
mod solve;
mod verify;

/// Exit status for bad input (as clap uses for usage errors).
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit status of a check that ran and found its input damaged or incomplete (`dab verify`,
/// `dab compare`), as [`Failed`] reports it.
pub const EXIT_FAILED_CHECK: i32 = 1;

/// A check that ran and failed: its one-line summary; the command exits with
/// [`EXIT_FAILED_CHECK`] rather than the usage status.
#[derive(Debug)]
pub struct Failed(pub String);

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failed {}

#[derive(Parser)]
#[command(name = "dab", version, about = "Complete solutions of Dots-and-Boxes by retrograde analysis")]
struct Cli {
    /// No progress lines, notes or "wrote" lines on standard error (errors are still printed).
    #[arg(long, short, global = true)]
    quiet: bool,
    /// Vector instructions the kernel may use: portable, avx2 or vbmi (AVX-512 VBMI byte
    /// gathers); default: DAB_SIMD where set, else the widest this CPU has. A narrower set times
    /// (and `dab calibrate` fits) what a CPU without the wider one runs; child processes inherit it.
    #[arg(long, global = true, value_name = "SET")]
    simd: Option<String>,
    #[command(subcommand)]
    command: Command,
}

/// Set once from `-q/--quiet` before the command runs.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether `-q/--quiet` was given: progress and notes stay off standard error.
pub fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether progress lines are drawn: on a terminal, unless `-q/--quiet`.
pub fn progress_shown() -> bool {
    use std::io::IsTerminal;
    !quiet() && std::io::stderr().is_terminal()
}

/// A note for the person at the terminal, on standard error, unless `-q/--quiet`.
macro_rules! note {
    ($($arg:tt)*) => {
        if !$crate::cli::quiet() {
            eprintln!($($arg)*);
        }
    };
}
pub(crate) use note;

/// A line of a command's text output on standard output, left out where `json` (the JSON
/// object is then all of standard output).
macro_rules! say {
    ($json:expr, $($arg:tt)*) => {
        if !$json {
            println!($($arg)*);
        }
    };
}
pub(crate) use say;

#[derive(Subcommand)]
enum Command {
    /// Value of a position (the empty 3x4 board by default) and of every move.
    Solve(solve::SolveArgs),
    /// List the partitions of a solve: key, stored positions, bytes, the keys each reads.
    Partitions(partitions::PartitionsArgs),
    /// Build a job dependency graph: the solver's partitions or the thesis's quadrants.
    Graph(graph::GraphArgs),
    /// Simulate graphs on P processors: sweep, bounds, speedup, busy and Gantt charts.
    Sim(sim::SimArgs),
    /// Plan, run and compare (the default board, 3x4, when none is named).
    Run(run::RunArgs),
    /// Pick a plan: candidate groupings and splits simulated with the calibrated costs.
    Plan(plan::PlanArgs),
    /// A plan's prediction against a run's trace.
    Compare(compare::CompareArgs),
    /// Run a board at several thread counts: measured speedup against the prediction (scale.csv and chart).
    Scale(scale::ScaleArgs),
    /// A position's value and every move's, from a store (solved on the spot beyond its book).
    Query(query::QueryArgs),
    /// Check every file of a store.
    Verify(verify::VerifyArgs),
    /// One job of a plan, from the store files of the jobs it needs (a cluster task).
    Job(job::JobArgs),
    /// Write the files that run a plan on Slurm or HTCondor DAGMan.
    Export(export::ExportArgs),
    /// A trace for dab compare from Slurm's record of a run, and the fitted dispatch overhead.
    ClusterTrace(cluster_trace::ClusterTraceArgs),
    /// Time the kernel on this machine and fit the cost model (saved under sims/).
    Calibrate(calibrate::CalibrateArgs),
    /// Benchmarks: the solver (row path, scalar twin, dense twin), the simulator, runs against
    /// predictions, endgames, memory and bandwidth; CSV in reports/.
    Bench(bench::BenchArgs),
    /// Loops-and-chains endgames (Allcock): values and best play from a component list or a position.
    Endgame(endgame::EndgameArgs),
    /// Every move's value and the best moves: from a store, a solve, or the endgame theorems.
    Hint(hint::HintArgs),
    /// Nimstring value (a nimber, or loony) of a position and of every move, and who wins.
    Nimstring(nimstring::NimstringArgs),
    /// An opening book of a board from a store or a solve: dab's best moves near the start of a
    /// game, which hint, play and the web board use within any budget.
    Book(book::BookArgs),
    /// Play a game in the terminal against a perfect opponent.
    Play(play::PlayArgs),
    /// A game's review: every move valued against best play, the boxes it gave up, proven or
    /// estimated, and the decisive mistakes.
    Review(review::ReviewArgs),
    /// The analysis board in a web browser: click lines, see every move's value, play dab.
    Serve(serve::ServeArgs),
    /// The shell completion script for dab (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Manual pages: dab.1 on standard output, or every page into a folder.
    Man(man::ManArgs),
}

/// The board every command takes when none is named.
pub const DEFAULT_BOARD: &str = "3x4";

/// A position named on the command line: a board (empty), a board with a line string, or an
/// ASCII-art file; with none of them, the empty [`DEFAULT_BOARD`].
#[derive(Args, Clone)]
pub struct PositionArgs {
    /// Board size MxN: M rows and N columns of boxes [default: 3x4].
    pub board: Option<String>,
    /// ASCII-art position file ('-' for stdin).
    #[arg(long, value_name = "FILE", conflicts_with = "lines")]
    pub position: Option<PathBuf>,
    /// Line string: one '0'/'1' per line in the external order, of BOARD.
    #[arg(long, value_name = "STRING")]
    pub lines: Option<String>,
}

/// Wilson's last-move penalty, as `solve`, `hint`, `query`, `run`, `play` and `serve` take it.
#[derive(Args, Clone, Copy)]
pub struct PenaltyArgs {
    /// Wilson's last-move penalty: the player who draws the last line loses N boxes, so every
    /// value is that game's (a whole number, 0 or more; 0: the plain game).
    #[arg(long, value_name = "N", default_value_t = Penalty::NONE, allow_hyphen_values = true, value_parser = penalty)]
    pub penalty: Penalty,
}

/// A last-move penalty: a whole number of boxes, 0 or more.
fn penalty(text: &str) -> Result<Penalty, String> {
    text.parse::<Penalty>().map_err(|e| e.to_string())
}

/// An error for the user: printed as one line, exit status 2.
pub type CliResult = Result<(), Box<dyn std::error::Error>>;

impl PositionArgs {
    /// Whether a position was named at all (a board, a position file, or lines of the default
    /// board).
    pub fn named(&self) -> bool {
        self.board.is_some() || self.position.is_some() || self.lines.is_some()
    }

    pub fn position(&self) -> Result<Position, Box<dyn std::error::Error>> {
        let board = self.board.as_deref().map(str::parse::<Board>).transpose()?;
        if let Some(path) = &self.position {
            let text = dab::support::read_text_at_most(path, MAX_POSITION_BYTES, POSITION_BOUND).map_err(|e| {
                if path.as_os_str() == "-" {
                    format!("cannot read the position from stdin: {e}")
                } else {
                    format!("cannot read position file '{}': {e}", path.display())
                }
            })?;
            let pos = Position::from_art(&text).map_err(|e| format!("position file '{}': {e}", path.display()))?;
            if let Some(b) = board.filter(|b| *b != pos.board) {
                return Err(format!("position file '{}' is a {} board, not {b}", path.display(), pos.board).into());
            }
            return Ok(pos);
        }
        let board = match board {
            Some(b) => b,
            None => DEFAULT_BOARD.parse()?,
        };
        match &self.lines {
            Some(s) => Ok(Position::from_line_string(board, s)?),
            None => Ok(Position::empty(board)),
        }
    }
}

/// `name` in the folder of a user's runs ([`dab::support::RUNS_DIR`]).
pub fn runs_path(name: &str) -> PathBuf {
    std::path::Path::new(dab::support::RUNS_DIR).join(name)
}

/// Says which files a command wrote: "wrote 3 files in DIR: a, b, c" (names within `dir`
/// relative to it), on standard error so that `--json` output stays clean. A file written twice
/// (`dab run` draws the speedup chart again after the run) is named once, where it came first.
pub fn wrote(dir: &std::path::Path, files: &[PathBuf]) {
    let mut names: Vec<String> = Vec::with_capacity(files.len());
    for f in files {
        let name = f.strip_prefix(dir).unwrap_or(f).display().to_string();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let count = dab::support::count_of(names.len() as u64, "file");
    note!("wrote {count} in {}: {}", dir.display(), names.join(", "));
}

/// The folder a file named on the command line is in: `.` for a bare name (whose parent is
/// the empty path).
pub fn folder_of(file: &std::path::Path) -> PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `--threads` on a command that sweeps counts: refused with a pointer to `--sweep`, since
/// `--threads` is one count in every command.
#[derive(Args)]
pub struct SweepNotThreads {
    /// One thread count elsewhere; here the counts swept are --sweep LIST.
    #[arg(long = "threads", hide = true, value_name = "P")]
    threads: Option<String>,
}

impl SweepNotThreads {
    /// Refuses `--threads` given to `dab <command>`.
    pub fn check(&self, command: &str) -> Result<(), String> {
        match &self.threads {
            None => Ok(()),
            Some(list) => Err(format!(
                "dab {command} sweeps its counts with --sweep (--sweep {}); --threads is one count, in every command",
                dab::support::one_line(list)
            )),
        }
    }
}

/// A folder for `--out`: a name ending in a file's extension (plan.json, sweep.csv, ...) is
/// refused, since `-o/--output` names a file and a folder named plan.json is never meant.
pub fn out_dir(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    // A file where the folder would go: creating the folder would fail with "File exists".
    if path.exists() && !path.is_dir() {
        return Err(format!(
            "'{}' is a file, not a folder: --out takes a folder for the reports (-o/--output names a file)",
            dab::support::one_line(text)
        ));
    }
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    if let Some(ext) = ext.filter(|e| FILE_EXTENSIONS.contains(&e.as_str())) {
        return Err(format!(
            "'{}' names a .{ext} file, but --out takes a folder for the reports (-o/--output names a file)",
            dab::support::one_line(text)
        ));
    }
    Ok(path)
}

/// Extensions of the files dab writes, which a report folder's name does not end in.
const FILE_EXTENSIONS: [&str; 6] = ["json", "csv", "svg", "png", "txt", "dab"];

/// A whole number in any form dab prints one: `100000`, `100_000`, `1e5` or `1.5e6`.
pub fn count(text: &str) -> Result<u64, String> {
    let t = text.trim().replace('_', "");
    if let Ok(n) = t.parse::<u64>() {
        return Ok(n);
    }
    let range = || format!("'{text}' is not a whole number from 0 to {} (e.g. 100000, 100_000, 1e5)", u64::MAX);
    match t.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 && x.fract() != 0.0 => Err(format!("'{text}' is not a whole number")),
        Ok(x) => dab::support::rounded_u64(x).ok_or_else(range),
        Err(_) => Err(range()),
    }
}

/// A size in bytes: `8G`, `500MB`, `2GiB`, `1.5 GB` or plain bytes (K, M, G are powers of 1000;
/// Ki, Mi, Gi of 1024).
pub fn bytes(text: &str) -> Result<u64, String> {
    // A lowercase b after a prefix (3Gb, 500Mb) is bits by the usual convention, which
    // parse-size would read as bytes: refused, not guessed.
    let unit = text.trim().trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ');
    if unit.len() >= 2 && unit.ends_with('b') && !unit.ends_with("ib") {
        return Err(format!(
            "'{text}': a lowercase b is bits; write the size in bytes with B ({}B) or without a unit letter ({})",
            text.trim().trim_end_matches('b'),
            text.trim().trim_end_matches('b')
        ));
    }
    parse_size::parse_size(text)
        .map_err(|e| format!("'{text}' is not a size in bytes ({e}); examples: 8G, 500MB, 2GiB"))
}

/// A number as a person reads it: plainly where it is of a usual size, else in exponent form
/// (`-1e308`, not three hundred digits).
fn number(x: f64) -> String {
    if x == 0.0 || (1e-4..1e15).contains(&x.abs()) { format!("{x}") } else { format!("{x:e}") }
}

/// Seconds given to `option` as whole nanoseconds: refuses what is not a finite number >= 0,
/// and more than `u64::MAX` ns (about 584 years), which a cast would silently cut down.
pub fn nanoseconds(option: &str, seconds: f64) -> Result<u64, String> {
    let limit = u64::MAX as f64 / 1e9;
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(format!("{option} {} is not a number of seconds >= 0", number(seconds)));
    }
    dab::support::rounded_u64(seconds * 1e9)
        .ok_or_else(|| format!("{option} {} s exceeds the limit of {limit:.0} s (u64 nanoseconds)", number(seconds)))
}

/// A time budget in seconds: a finite number above 0, at most a year (a budget is a wait a
/// person chose, and a deadline past that is a mistyped one).
pub fn seconds(text: &str) -> Result<f64, String> {
    const YEAR: f64 = 365.0 * 86400.0;
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= YEAR => Ok(s),
        _ => Err(format!("'{text}' is not a number of seconds above 0 and at most {YEAR} (a year)")),
    }
}

/// The parser of a library's named choice (policy, engine, scheme, ...): its names, each with
/// its help, parsed back by name; clap's own messages for a name that is none of them.
pub fn choice<T: Choice>() -> impl TypedValueParser<Value = T> {
    let values = T::ALL.iter().map(|&c| match c.about() {
        "" => PossibleValue::new(c.name()),
        about => PossibleValue::new(c.name()).help(about),
    });
    PossibleValuesParser::new(values)
        .map(|name| *T::ALL.iter().find(|c| c.name() == name).expect("clap accepts only the possible values"))
}

/// `--threads` of a command that runs them here: at least 1, at most
/// [`dab::support::max_threads`]; all cores when not given.
pub fn threads(arg: Option<usize>) -> Result<usize, Box<dyn std::error::Error>> {
    let p = planned_threads(arg)?;
    run_threads(p)?;
    Ok(p)
}

/// Most runs of one measurement (`--repeats` of `scale` and `bench`): each may be a whole solve,
/// and the median settles in a few.
pub(crate) const MAX_REPEATS: usize = 1000;

/// Most threads (or nodes) a plan or simulation is made for: past any cluster, and a
/// simulation's processors fit in a few megabytes.
pub(crate) const MAX_PLANNED_THREADS: usize = 1 << 20;

/// Most bytes of a position file: a 16x16 board's art is about a kilobyte; comments may add.
const MAX_POSITION_BYTES: u64 = 1 << 20;
/// Why no position file needs more than [`MAX_POSITION_BYTES`].
const POSITION_BOUND: &str = "a position: a 16x16 board's art is about a kilobyte";

/// `--threads` of a plan, which may be for a bigger machine or a cluster: at least 1, at most
/// what a plan file holds; all cores when not given.
pub fn planned_threads(arg: Option<usize>) -> Result<usize, Box<dyn std::error::Error>> {
    match arg {
        Some(0) => Err("--threads must be at least 1".into()),
        Some(p) if p > MAX_PLANNED_THREADS => Err(format!(
            "--threads {p} is more than any machine or cluster dab plans for (at most {MAX_PLANNED_THREADS})"
        )
        .into()),
        Some(p) => Ok(p),
        None => Ok(default_threads()?),
    }
}

/// The thread count a command takes when `--threads` is not given: `RAYON_NUM_THREADS` where it
/// is set (as rayon itself reads it; 0 or empty means all), else every hardware thread.
pub fn default_threads() -> Result<usize, String> {
    match std::env::var("RAYON_NUM_THREADS") {
        Ok(text) => match text.trim().parse::<usize>() {
            Ok(0) => Ok(dab::support::hardware_threads()),
            Ok(p) => Ok(p),
            Err(_) if text.trim().is_empty() => Ok(dab::support::hardware_threads()),
            Err(_) => Err(format!(
                "RAYON_NUM_THREADS='{}' is not a thread count (a whole number; 0 or unset: all cores)",
                dab::support::one_line(&text)
            )),
        },
        Err(_) => Ok(dab::support::hardware_threads()),
    }
}

/// Refuses a thread count this machine should not start at once, naming the limit.
pub fn run_threads(p: usize) -> Result<(), String> {
    let (limit, hw) = (dab::support::max_threads(), dab::support::hardware_threads());
    if p > limit {
        return Err(format!(
            "{p} threads is more than this machine runs at once: at most {limit} ({hw} hardware threads); \
             dab plan --threads {p} plans for a bigger machine, dab export runs it on a cluster"
        ));
    }
    Ok(())
}

/// An error and what it wraps, outermost first (a wrapper's `source` is the error it wraps).
fn causes<'a>(e: &'a (dyn std::error::Error + 'static)) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(e), |&e| e.source())
}

/// The flag that set what a library error refuses: the library says what is wrong in words
/// and which setting it refuses, and the command line names the flag (`error: --groups: 9
/// groups are too many: ...`). The first error along the chain of causes that blames a setting
/// wins.
fn flag_of(e: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    causes(e).find_map(setting_of).map(flag)
}

/// The setting an error of the library refuses, by its type; each type decides by variant.
fn setting_of(e: &(dyn std::error::Error + 'static)) -> Option<Setting> {
    use dab::answer::{AnalysisError, QueryError, play::PlayError, search::SearchError};
    macro_rules! setting_of {
        ($($t:ty),*) => {
            $(if let Some(e) = e.downcast_ref::<$t>() { return e.setting(); })*
        };
    }
    // Every penalty refused is the penalty's.
    if e.downcast_ref::<dab::game::PenaltyError>().is_some() {
        return Some(Setting::Penalty);
    }
    setting_of!(
        dab::solver::SpaceError,
        AnalysisError,
        QueryError,
        PlayError,
        dab::sched::SimError,
        dab::sched::SchemeError,
        dab::exec::ExecError,
        dab::plan::PlannerError,
        dab::pipeline::RunError,
        dab::scale::ScaleError,
        dab::serve::ServeError,
        SearchError
    );
    None
}

/// The flag of a setting.
fn flag(setting: Setting) -> &'static str {
    match setting {
        Setting::Groups => "--groups",
        Setting::Penalty => "--penalty",
        Setting::MemLimit => "--mem-limit",
        Setting::Bandwidth => "--bandwidth",
        Setting::Split => "--split",
        Setting::Scheme => "--scheme",
        Setting::Symmetry => "--symmetry",
        Setting::Threads => "--threads",
        Setting::Repeats => "--repeats",
        Setting::TableSize => "--tt-size",
    }
}

/// The flags that answer what a library error refuses, which the library names in words only
/// ("the search engine tries anyway": `--engine search`).
fn pointer_of(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    use dab::answer::{HintError, QueryError, play::PlayError};
    let remedies = |e: &(dyn std::error::Error + 'static)| -> &'static [Remedy] {
        if let Some(e) = e.downcast_ref::<QueryError>() {
            e.remedies()
        } else if let Some(e) = e.downcast_ref::<HintError>() {
            e.remedies()
        } else if let Some(e) = e.downcast_ref::<PlayError>() {
            e.remedies()
        } else {
            &[]
        }
    };
    let found = causes(e).map(remedies).find(|r| !r.is_empty())?;
    Some(found.iter().map(|&r| remedy(r)).collect::<Vec<_>>().join("; "))
}

/// The flags of a remedy.
fn remedy(r: Remedy) -> &'static str {
    match r {
        Remedy::SearchEngine => "--engine search",
        Remedy::AutoOrSearchEngine => "--engine auto or search",
        Remedy::StoreHolding => "--store DIR with a solve that holds it",
        Remedy::Store => "--store DIR",
    }
}

/// Lines of a message as one: blank lines dropped, a line that ends in ':' followed by the
/// next after a space (it introduces it), the others separated by "; ".
fn joined<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    let mut line = String::new();
    for part in lines.map(str::trim).filter(|l| !l.is_empty()) {
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(part);
    }
    line
}

/// clap's error as one line: the message with its possible values and tip, then where to
/// find the usage (clap's own layout spreads it over five).
fn clap_line(e: &clap::Error) -> String {
    use clap::CommandFactory;
    let text = e.to_string();
    let parts = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("Usage: ") && !l.starts_with("For more information"))
        .map(|l| l.strip_prefix("error: ").unwrap_or(l));
    // The subcommand named on the command line, for the pointer to its help.
    let cli = Cli::command();
    let sub = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .filter(|a| cli.get_subcommands().any(|c| c.get_name() == a));
    let command = sub.map_or("dab".to_string(), |s| format!("dab {s}"));
    format!("{}; see '{command} --help'", joined(parts))
}

/// Fixes the kernel's vector instructions for this process before any kernel is built:
/// `--simd` where given, else `DAB_SIMD` where set (each checked against this CPU), else the
/// widest this CPU has.
fn choose_simd(flag: Option<&str>) -> Result<(), String> {
    use dab::solver::{SIMD_VAR, Simd};
    // `choose` checks the set against this CPU.
    let (source, chosen) = match flag {
        Some(text) => ("--simd", text.parse::<Simd>().map(Some)),
        None => (SIMD_VAR, Simd::from_env()),
    };
    chosen.and_then(|s| s.map_or(Ok(()), Simd::choose)).map_err(|e| format!("{source}: {e}"))
}

pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            match e.kind() {
                // Help and version are answers, not errors: clap prints them as it likes.
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
                _ => {
                    eprintln!("error: {}", clap_line(&e));
                    return EXIT_BAD_INPUT;
                }
            }
        }
    };
    QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
    if let Err(e) = choose_simd(cli.simd.as_deref()) {
        eprintln!("error: {e}");
        return EXIT_BAD_INPUT;
    }
    let result = match cli.command {
        Command::Solve(a) => solve::run(a),
        Command::Partitions(a) => partitions::run(a),
        Command::Graph(a) => graph::run(a),
        Command::Sim(a) => sim::run(a),
        Command::Bench(a) => bench::run_cmd(a),
        Command::Calibrate(a) => calibrate::run(a),
        Command::Run(a) => run::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Scale(a) => scale::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Query(a) => query::run(a),
        Command::Endgame(a) => endgame::run(a),
        Command::Hint(a) => hint::run(a),
        Command::Nimstring(a) => nimstring::run(a),
        Command::Book(a) => book::run(a),
        Command::Play(a) => play::run(a),
        Command::Review(a) => review::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Job(a) => job::run(a),
        Command::Export(a) => export::run(a),
        Command::ClusterTrace(a) => cluster_trace::run(a),
        Command::Completions(a) => completions::run(a),
        Command::Man(a) => man::run(a),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            let flag = flag_of(&*e).map_or(String::new(), |f| format!("{f}: "));
            let pointer = pointer_of(&*e).map_or(String::new(), |p| format!(" ({p})"));
            eprintln!("error: {flag}{}{pointer}", joined(e.to_string().lines()));
            if e.is::<Failed>() { EXIT_FAILED_CHECK } else { EXIT_BAD_INPUT }
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// Every subcommand, nested ones included, with its path (`dab export`).
    fn commands() -> Vec<(String, clap::Command)> {
        fn walk(path: String, cmd: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
            for sub in cmd.get_subcommands() {
                walk(format!("{path} {}", sub.get_name()), sub, out);
            }
            out.push((path, cmd.clone()));
        }
        let mut out = Vec::new();
        let mut cli = Cli::command();
        cli.build();
        walk("dab".into(), &cli, &mut out);
        out
    }

    #[test]
    fn every_setting_and_remedy_a_library_error_names_is_a_flag_of_some_command() {
        let longs: Vec<String> = commands()
            .iter()
            .flat_map(|(_, c)| {
                c.get_arguments().filter_map(|a| a.get_long()).map(|l| format!("--{l}")).collect::<Vec<_>>()
            })
            .collect();
        let remedies = [Remedy::SearchEngine, Remedy::AutoOrSearchEngine, Remedy::StoreHolding, Remedy::Store];
        let flags = Setting::ALL.iter().map(|&s| flag(s)).chain(remedies.iter().map(|&r| remedy(r)));
        for text in flags {
            let name = text.split_whitespace().next().unwrap();
            assert!(longs.iter().any(|l| l == name), "{name} is no command's flag");
        }
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_command_and_flag_has_help() {
        let mut missing = Vec::new();
        for (path, cmd) in commands() {
            if cmd.get_about().is_none() && path != "dab" {
                missing.push(path.clone());
            }
            for arg in cmd.get_arguments().filter(|a| !["help", "version"].contains(&a.get_id().as_str())) {
                if arg.get_help().is_none() {
                    missing.push(format!("{path} {}", arg.get_id()));
                }
            }
        }
        assert!(missing.is_empty(), "no help: {}", missing.join(", "));
    }

    #[test]
    fn one_count_is_threads_a_list_is_sweep_and_a_folder_is_out_everywhere() {
        for (path, cmd) in commands() {
            for arg in cmd.get_arguments() {
                let long = arg.get_long().unwrap_or_default();
                assert_ne!(long, "procs", "{path}: a processor count is --threads, not --procs");
                let name = arg.get_value_names().and_then(|v| v.first()).map(|s| s.to_string()).unwrap_or_default();
                if long == "threads" {
                    assert_ne!(name, "LIST", "{path} --threads takes a list: counts to sweep are --sweep");
                }
                if long == "sweep" {
                    assert_eq!(name, "LIST", "{path} --sweep takes a list of counts");
                }
                if long == "output" {
                    assert_ne!(name, "DIR", "{path} --output names a folder: that is --out");
                }
                if long == "out" {
                    assert_eq!(name, "DIR", "{path} --out names a file: that is -o/--output");
                }
            }
        }
    }

    #[test]
    fn numbers_are_read_in_the_forms_dab_prints_them() {
        for (text, n) in [("100000", 100_000), ("100_000", 100_000), ("1e5", 100_000), ("1.5e6", 1_500_000), ("0", 0)] {
            assert_eq!(count(text), Ok(n), "{text}");
        }
        assert_eq!(count("18446744073709551615"), Ok(u64::MAX));
        for (text, message) in [
            ("1.5", "not a whole number"),
            ("-3", "not a whole number"),
            ("1e30", "from 0 to"),
            ("lots", "e.g. 100000"),
        ] {
            let e = count(text).unwrap_err();
            assert!(e.contains(message) && e.contains(text), "{text}: {e}");
        }
    }
}
