//! A game in the terminal against a perfect opponent, from the empty board or any position. The
//! opponent's values come from an [`Oracle`]: one solve of the starting position kept in memory
//! (at most 31 undrawn lines), a store, or, for a larger position, whatever answers each
//! position as `dab hint` does (the endgame theorems on loops and long chains, the search
//! engine, solves in memory once few enough lines are left). The game
//! reads one command a line (a move, `hint`, `undo`, `quit`) so that a script can drive it, and
//! draws the board after every move with the owner's letter in each completed box. Under a
//! last-move penalty the opponent plays that game (the start solved on the fly, or a store's
//! solve under the same penalty), and the final score takes the penalty off the last mover.

use std::io::{BufRead, Write};
use std::path::Path;

use crate::exec::{SolveError, solve};
use crate::game::{Board, Line, LineCoord, Penalty, Position, Value, move_value};
use crate::solver::{MAX_FREE_LINES, Solution, SolveOptions};
use crate::store::{Reader, StoreError};
use crate::support::{Remedy, Setting, choice};

use super::advice::{Advice, RulesAnswer, advise};
use super::control::from_solution;
use super::endgame::{NotLoopsAndChains, analyse_position};
use super::estimate::{WalkValues, walk_budget};
use super::hint::{HintError, hint};
use super::query::{AUTO_SEARCH_FREE, Answer, Answerer, Asking, QueryError, answer};

/// Most undrawn lines of a starting position solved on the fly (the empty 3x4 has 31; 32, as
/// the empty 2x6, take too long to wait for).
pub const MAX_SOLVED_FREE: usize = 31;

/// Why a game could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// No store was given and the engine asked for cannot answer the starting position: more
    /// undrawn lines than it takes (and, for `auto`, not a position of loops and long chains).
    #[error("{}", too_large(*.free, *.engine, .reason.as_ref()))]
    TooLarge {
        /// Undrawn lines of the starting position.
        free: usize,
        /// The engine asked for.
        engine: Answerer,
        /// Why the endgame theorems do not apply (`auto` only).
        reason: Option<NotLoopsAndChains>,
    },
    /// A position of the game could not be answered without a store.
    #[error("dab cannot value this position of the game: {0}")]
    Hint(#[from] HintError),
    /// Solving the whole board failed.
    #[error("{0}")]
    Solve(#[from] SolveError),
    /// The store could not be opened.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The store could not give a position's moves: a read, or a solve beyond its book, failed.
    #[error("{0}")]
    Query(#[from] QueryError),
    /// The position has no exact values within the budget: one move instead, by the opening
    /// book, the search for a best move, or rules (what
    /// [`Oracle::advice`] gives; [`Oracle::moves`] answers only with exact values).
    #[error("no exact values of this position within the budget: {}", .0.why)]
    NotProven(Box<RulesAnswer>),
    /// Reading the player's commands or writing the game failed.
    #[error("cannot write the game: {0}")]
    Io(#[from] std::io::Error),
    /// A line of the player's input is longer than any command.
    #[error(
        "a line of input passes {MAX_COMMAND_BYTES} bytes, longer than any command (a line as h(r,c), v(r,c) or its number, or hint, undo, quit): the game stops unfinished"
    )]
    LongLine,
    /// The player's input went on with no command the game could use.
    #[error(
        "{MAX_IDLE_COMMANDS} lines of input refused in a row (or empty): the input is not a game's commands, and the game stops unfinished"
    )]
    Idle,
    /// Under a last-move penalty, no store was given and the start is too large to solve on
    /// the fly, or the search engine was asked for.
    #[error("{}", unpenalised(*.free, *.penalty, *.search))]
    Unpenalised {
        /// Undrawn lines of the starting position.
        free: usize,
        /// The penalty asked for.
        penalty: Penalty,
        /// Whether the search engine was asked for by name.
        search: bool,
    },
}

impl PlayError {
    /// The setting refused, if one was (a wrapped error says its own).
    pub fn setting(&self) -> Option<Setting> {
        match self {
            PlayError::Unpenalised { .. } => Some(Setting::Penalty),
            PlayError::TooLarge { .. }
            | PlayError::Hint(_)
            | PlayError::Solve(_)
            | PlayError::Store(_)
            | PlayError::Query(_)
            | PlayError::NotProven(_)
            | PlayError::LongLine
            | PlayError::Idle
            | PlayError::Io(_) => None,
        }
    }

    /// The settings that would answer it.
    pub fn remedies(&self) -> &'static [Remedy] {
        match self {
            PlayError::TooLarge { engine: Answerer::Partition, .. } => {
                &[Remedy::AutoOrSearchEngine, Remedy::StoreHolding]
            }
            PlayError::TooLarge { engine: Answerer::Auto, .. } => &[Remedy::SearchEngine, Remedy::StoreHolding],
            PlayError::TooLarge { engine: Answerer::Search, .. } => &[Remedy::StoreHolding],
            PlayError::Hint(_)
            | PlayError::Solve(_)
            | PlayError::Store(_)
            | PlayError::Query(_)
            | PlayError::NotProven(_)
            | PlayError::Io(_)
            | PlayError::LongLine
            | PlayError::Idle
            | PlayError::Unpenalised { .. } => &[],
        }
    }
}

/// Most bytes of a line of the player's input: the longest command, a line's name on the
/// largest board (`h(16,15)`) or a word, is a few bytes; a line past this is no command.
pub const MAX_COMMAND_BYTES: usize = 1024;

/// Lines of input refused or empty in a row after which the game stops: a player who types
/// makes a move, asks a hint or undoes long before, and endless input (`yes`) ends.
pub const MAX_IDLE_COMMANDS: usize = 1000;

/// Why a game from a position of `free` undrawn lines cannot be played with `engine`.
fn too_large(free: usize, engine: Answerer, reason: Option<&NotLoopsAndChains>) -> String {
    let what = match engine {
        Answerer::Partition => format!(
            "play solves positions of at most {MAX_SOLVED_FREE} undrawn lines on the fly (the empty 3x4); the auto and search engines go to {MAX_FREE_LINES}"
        ),
        Answerer::Search => format!("the search engine takes at most {MAX_FREE_LINES}"),
        Answerer::Auto => format!(
            "play solves or searches positions of at most {AUTO_SEARCH_FREE} (the search engine goes to {MAX_FREE_LINES}, which may take days), and values larger ones by the endgame theorems only when they are loops and long chains{}",
            reason.map_or(String::new(), |r| format!(", which this is not ({r})"))
        ),
    };
    format!("the position has {free} undrawn lines; {what}: a store with a solve that holds it can answer")
}

/// Why a game from a position of `free` undrawn lines cannot be played under `penalty`.
fn unpenalised(free: usize, penalty: Penalty, search: bool) -> String {
    if search {
        format!(
            "the search engine values the plain game only, so it cannot play under a last-move penalty of {penalty}; the partition and auto engines solve the start on the fly (at most {MAX_SOLVED_FREE} undrawn lines)"
        )
    } else {
        format!(
            "under a last-move penalty of {penalty}, play solves the starting position on the fly (at most {MAX_SOLVED_FREE} undrawn lines; this one has {free}) or reads a store's solve under the same penalty: the search engine and the endgame theorems value the plain game only"
        )
    }
}

/// Every undrawn line of a position with the value of playing it, in line order.
pub(crate) type MoveValues = Vec<(Line, Value)>;

/// An answer's moves as the game reads them.
fn move_values(a: &Answer) -> MoveValues {
    a.moves.iter().map(|m| (Line(m.index), m.value as Value)).collect()
}

/// Where the perfect opponent's values come from.
pub enum Oracle<'w> {
    /// Every position of the board, solved once.
    Solved(Box<Solution>),
    /// A store's book, with positions beyond it answered on the spot as `dab hint` answers
    /// them.
    Store {
        /// The open store.
        reader: Box<Reader>,
        /// How positions beyond the book are answered.
        ask: Asking<'w>,
    },
    /// Each position answered as `dab hint` answers it: the endgame theorems, a solve in
    /// memory, or the search engine (a game from a position too large to solve whole).
    Hinted {
        /// How each position is answered.
        ask: Asking<'w>,
    },
    /// Each position answered within a time budget, as `dab hint --seconds` answers it: exact
    /// where an exact source is priced to finish within it, else a move by rules (a board of
    /// any size).
    Advised {
        /// How each position is answered exactly.
        ask: Asking<'w>,
        /// The budget of each of dab's moves, in seconds.
        seconds: f64,
    },
}

impl<'w> Oracle<'w> {
    /// The oracle of a game from `start` without a store: one solve kept whole when `start` has
    /// at most 31 undrawn lines (`auto` and `partition`), else the hint's sources position by
    /// position (`auto`: up to 44 undrawn lines, or loops and long chains of any size; `search`:
    /// up to 64); refused otherwise.
    pub fn new(start: Position, ask: Asking<'w>) -> Result<Oracle<'w>, PlayError> {
        Oracle::within(start, ask, None)
    }

    /// [`Oracle::new`], or with `seconds`, for `auto` past what one solve takes: each position
    /// answered within that budget (exact where it can be, else by rules), on any board.
    pub fn within(start: Position, ask: Asking<'w>, seconds: Option<f64>) -> Result<Oracle<'w>, PlayError> {
        let Asking { engine, threads, penalty, .. } = ask;
        let free = start.undrawn().len() as usize;
        let refused = |reason| Err(PlayError::TooLarge { free, engine, reason });
        if !penalty.check(start).map_err(QueryError::from)?.is_none()
            && (engine == Answerer::Search || free > MAX_SOLVED_FREE)
        {
            return Err(PlayError::Unpenalised { free, penalty, search: engine == Answerer::Search });
        }
        match engine {
            Answerer::Search if free <= MAX_FREE_LINES => return Ok(Oracle::Hinted { ask }),
            Answerer::Search => return refused(None),
            _ if free <= MAX_SOLVED_FREE => {}
            Answerer::Partition => return refused(None),
            Answerer::Auto if seconds.is_some() => {
                return Ok(Oracle::Advised { ask, seconds: seconds.expect("a budget") });
            }
            Answerer::Auto if free <= AUTO_SEARCH_FREE => return Ok(Oracle::Hinted { ask }),
            Answerer::Auto => {
                return match analyse_position(start) {
                    Ok(_) => Ok(Oracle::Hinted { ask }),
                    Err(reason) => refused(Some(reason)),
                };
            }
        }
        let s = solve(start, SolveOptions { threads, keep_all: true, penalty, ..Default::default() })?;
        Ok(Oracle::Solved(Box::new(s)))
    }

    /// Opens the solve under `base` that holds `start` (`groups`: which grouping, when it holds
    /// several); positions beyond its book are answered as `ask` says.
    pub fn store(
        base: &Path,
        start: Position,
        groups: Option<usize>,
        ask: Asking<'w>,
    ) -> Result<Oracle<'w>, PlayError> {
        let reader = Reader::open_under(base, start, groups, ask.penalty)?;
        Ok(Oracle::Store { reader: Box::new(reader), ask })
    }

    /// The last-move penalty the oracle's values are under.
    pub fn penalty(&self) -> Penalty {
        match self {
            Oracle::Solved(s) => s.space.penalty,
            Oracle::Store { ask, .. } | Oracle::Hinted { ask } | Oracle::Advised { ask, .. } => ask.penalty,
        }
    }

    /// Where this oracle's answers come from, for the game's first line.
    pub fn source(&self) -> &'static str {
        match self {
            Oracle::Solved(_) => "a solve of the starting position",
            Oracle::Store { .. } => "the store, positions beyond it answered on the spot",
            Oracle::Hinted { ask: Asking { engine: Answerer::Search, .. } } => {
                "the search engine, position by position"
            }
            Oracle::Hinted { .. } => {
                "position by position: the endgame theorems on loops and long chains, else the search engine, then solves"
            }
            Oracle::Advised { .. } => {
                "position by position within a time budget: exact where an engine is priced to finish in it, else by rules (endgame theorems, Nimstring, safe moves)"
            }
        }
    }

    /// Every undrawn line of `pos` with the value of playing it (net future boxes for the
    /// mover), in line order.
    pub fn moves(&self, pos: Position) -> Result<MoveValues, PlayError> {
        match self {
            Oracle::Solved(s) => Ok(pos
                .undrawn()
                .iter()
                .map(|l| {
                    let after = pos.drawn.with(l);
                    let v = if after == pos.board.full() {
                        s.space.penalty.full_board_value()
                    } else {
                        s.value_of(s.space.state_of(after)).expect("the solve keeps every partition")
                    };
                    (l, move_value(pos.board.completes(pos.drawn, l) as i8, v))
                })
                .collect()),
            _ => Ok(self.answered(pos)?.0),
        }
    }

    /// [`Oracle::moves`], with which source answered where that changes from one position to
    /// the next (`store`, `endgame`, `solved` or `search`; None for one solve of the start).
    pub fn answered(&self, pos: Position) -> Result<(MoveValues, Option<String>), PlayError> {
        if let Oracle::Solved(_) = self {
            return Ok((self.moves(pos)?, None));
        }
        match self.advice(pos)? {
            Advice::Proven(a) => Ok((move_values(&a), Some(a.source))),
            Advice::Rules(r) => Err(PlayError::NotProven(Box::new(r))),
        }
    }

    /// What `dab hint` answers for `pos` with this oracle's values: every move's value (loony
    /// moves marked) and who must make the next loony move, or for a position past the
    /// budget a move by rules. One solve of the start answers as a solve in memory does.
    pub fn advice(&self, pos: Position) -> Result<Advice, PlayError> {
        Ok(match self {
            Oracle::Solved(s) => {
                let start = std::time::Instant::now();
                let moves: Vec<(Line, u8, i32)> = self
                    .moves(pos)?
                    .into_iter()
                    .map(|(l, v)| (l, pos.board.completes(pos.drawn, l) as u8, i32::from(v)))
                    .collect();
                let value = moves.iter().map(|m| m.2).max().unwrap_or(0);
                let model = crate::plan::model_or_built_in();
                let budget = walk_budget(pos, 0.0, None, WalkValues::Memory, model);
                let (next_loony, next_loony_left_out) = from_solution(pos, s, budget).fields();
                let a = answer(pos, s.space.penalty, value, &moves, "solved", start);
                Advice::Proven(Answer { next_loony, next_loony_left_out, ..a })
            }
            Oracle::Store { reader, ask } => Advice::Proven(hint(pos, Some(reader), *ask)?),
            Oracle::Hinted { ask } => Advice::Proven(hint(pos, None, *ask)?),
            Oracle::Advised { ask, seconds } => advise(pos, None, *ask, *seconds)?,
        })
    }
}

choice! {
    "player",
    /// Who plays a move: you at the terminal, or dab, the perfect opponent.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Player {
        You = "you",
        Dab = "dab",
    }
}

impl Player {
    fn other(self) -> Player {
        match self {
            Player::You => Player::Dab,
            Player::Dab => Player::You,
        }
    }

    fn letter(self) -> char {
        match self {
            Player::You => 'Y',
            Player::Dab => 'D',
        }
    }
}

/// The state of a game: the position, who owns each completed box, whose turn it is.
#[derive(Clone, Debug)]
pub struct Game {
    /// The lines drawn so far.
    pub pos: Position,
    /// Who completed each box, by box index (`None` while it is open).
    pub owners: Vec<Option<Player>>,
    /// Whose turn it is.
    pub to_move: Player,
}

impl Game {
    /// A game on the empty `board` with `first` to move.
    pub fn new(board: Board, first: Player) -> Game {
        Game::from(Position::empty(board), first)
    }

    /// A game from `start` with `first` to move; boxes already complete belong to no one.
    pub fn from(start: Position, first: Player) -> Game {
        Game { pos: start, owners: vec![None; start.board.boxes()], to_move: first }
    }

    /// Boxes owned by (you, dab).
    pub fn score(&self) -> (usize, usize) {
        let count = |p| self.owners.iter().filter(|o| **o == Some(p)).count();
        (count(Player::You), count(Player::Dab))
    }

    /// Whether every line is drawn.
    pub fn is_over(&self) -> bool {
        self.pos.undrawn().is_empty()
    }

    /// Draws an undrawn line; returns the boxes it completed. The same player moves again after
    /// completing a box.
    pub fn play(&mut self, line: Line) -> usize {
        let board = self.pos.board;
        self.pos.drawn = self.pos.drawn.with(line);
        let mut taken = 0;
        for b in board.line_boxes(line) {
            let mask = board.box_mask(b);
            if self.pos.drawn.contains_all(mask) {
                self.owners[b] = Some(self.to_move);
                taken += 1;
            }
        }
        if taken == 0 {
            self.to_move = self.to_move.other();
        }
        taken
    }

    /// The board as ASCII art (readable back as a position) with `Y` or `D` in completed boxes.
    pub fn art(&self) -> String {
        let cols = self.pos.board.cols();
        let mut rows: Vec<Vec<char>> = self.pos.to_art().lines().map(|l| l.chars().collect()).collect();
        for (b, owner) in self.owners.iter().enumerate() {
            if let Some(p) = owner {
                let row = &mut rows[2 * (b / cols) + 1];
                row.resize(row.len().max(2 * cols + 1), ' ');
                row[2 * (b % cols) + 1] = p.letter();
            }
        }
        rows.iter().map(|r| r.iter().collect::<String>().trim_end().to_string() + "\n").collect()
    }
}

/// [`Game::art`] with the coordinates a move is typed in: `h row r` before each row of dots
/// (the `r` of `h(r,c)`) and `v row r` before each row of boxes (the `r` of `v(r,c)`); above,
/// `h col` numbers the gaps between dots (the `c` of `h(r,c)`) and `v col` the dots (the `c`
/// of `v(r,c)`), the last digit of each past 9. The board itself starts at the same column on
/// every line, as in `art`.
pub(crate) fn labelled_art(game: &Game) -> String {
    let board = game.pos.board;
    let art = game.art();
    let width = format!("h row {}", board.rows()).len() + 1;
    let digit = |c: usize| char::from(b'0' + (c % 10) as u8);
    let gaps: String = (0..board.cols()).flat_map(|c| [' ', digit(c)]).collect();
    let dots: String = (0..=board.cols()).map(|c| digit(c).to_string()).collect::<Vec<_>>().join(" ");
    let mut out = format!("{:<width$}{gaps}\n{:<width$}{dots}\n", "h col", "v col");
    for (i, line) in art.lines().enumerate() {
        let label = if i % 2 == 0 { format!("h row {}", i / 2) } else { format!("v row {}", i / 2) };
        out += format!("{label:<width$}{line}").trim_end();
        out.push('\n');
    }
    out
}

/// What the player typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Draw this undrawn line.
    Move(Line),
    /// Show the value of the position and of every move.
    Hint,
    /// Take back the player's last move (and dab's replies to it).
    Undo,
    /// Stop the game.
    Quit,
    /// An empty line: do nothing.
    Nothing,
    /// Refused, with the reason.
    Bad(String),
}

/// Reads one command; moves must be undrawn lines of the board.
fn parse_command(text: &str, pos: Position) -> Command {
    let board = pos.board;
    let t = text.trim();
    match t.to_ascii_lowercase().as_str() {
        "" => return Command::Nothing,
        "hint" | "h" | "?" => return Command::Hint,
        "undo" | "u" => return Command::Undo,
        "quit" | "q" | "exit" => return Command::Quit,
        _ => {}
    }
    if let Some(line) = board.parse_line(t) {
        return if pos.drawn.contains(line) {
            Command::Bad(format!("{} (line {}) is already drawn", board.line_name(line), line.0))
        } else {
            Command::Move(line)
        };
    }
    let (m, n) = (board.rows(), board.cols());
    if t.bytes().all(|b| b.is_ascii_digit()) {
        return Command::Bad(format!("no such line: {t} (board {board} has lines 0 to {})", board.lines() - 1));
    }
    let looks_like_line = t.len() > 2
        && (t.starts_with("h(") || t.starts_with("v("))
        && t.ends_with(')')
        && t[2..t.len() - 1].split(',').count() == 2
        && t[2..t.len() - 1].split(',').all(|x| !x.trim().is_empty() && x.trim().bytes().all(|b| b.is_ascii_digit()));
    if looks_like_line {
        return Command::Bad(format!(
            "no such line: {t} (board {board} has h(r,c) for r 0..={m}, c 0..={} and v(r,c) for r 0..={}, c 0..={n})",
            n - 1,
            m - 1
        ));
    }
    Command::Bad(format!(
        "cannot read '{t}': type a line as h(r,c), v(r,c) or its number (0 to {}), or hint, undo, quit",
        board.lines() - 1
    ))
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every line was drawn.
    Finished,
    /// The player quit.
    Quit,
    /// The input ran out before the game ended.
    EndOfInput,
}

/// The best move for the player to move: the lowest line among those of the best value.
fn best_move(moves: &[(Line, Value)]) -> Option<(Line, Value)> {
    let best = moves.iter().map(|m| m.1).max()?;
    moves.iter().copied().find(|m| m.1 == best)
}

/// A line as the game announces it: its name, whether it is horizontal or vertical, its number.
fn describe(board: Board, line: Line) -> String {
    let kind = match board.coord(line) {
        LineCoord::H(..) => "horizontal",
        LineCoord::V(..) => "vertical",
    };
    format!("{} ({kind} line {})", board.line_name(line), line.0)
}

/// Plays one game: the opponent moves perfectly (the lowest line of best value), the player's
/// commands come from `input` one a line, everything is written to `out`. `echo` repeats each
/// command after the prompt, for input that is not typed on a terminal.
pub fn run(
    oracle: &Oracle,
    start: Position,
    first: Player,
    mut input: impl BufRead,
    out: &mut impl Write,
    echo: bool,
) -> Result<(Game, Ending), PlayError> {
    let board = start.board;
    let mut game = Game::from(start, first);
    // Snapshots taken before each of the player's moves, for `undo`.
    let mut history: Vec<Game> = Vec::new();
    // Lines refused or empty since the last command that did something.
    let mut idle = 0;
    let opponent = match oracle {
        Oracle::Advised { seconds, .. } => format!("dab (D), {seconds} s a move: exact where it can be, else by rules"),
        _ => "a perfect opponent (D)".to_string(),
    };
    writeln!(
        out,
        "board {board}: you (Y) against {opponent}. Type a line as h(r,c), v(r,c) or its number, or hint, undo, quit."
    )?;
    if !start.drawn.is_empty() {
        writeln!(
            out,
            "from a position with {} undrawn lines; dab's values: {}",
            start.undrawn().len(),
            oracle.source()
        )?;
    }
    // A game from a full board has no last move to take the penalty from.
    let penalty = if start.undrawn().is_empty() { Penalty::NONE } else { oracle.penalty() };
    if !penalty.is_none() {
        writeln!(out, "last-move penalty {penalty}: {}", penalty.words())?;
    }
    show(&game, out)?;
    loop {
        if game.is_over() {
            game_over(&game, penalty, out)?;
            return Ok((game, Ending::Finished));
        }
        if game.to_move == Player::Dab {
            dab_plays(oracle, &mut game, out)?;
            continue;
        }
        let Some(command) = read_command(&mut input, game.pos, out, echo)? else {
            let (you, dab) = game.score();
            writeln!(out, "\nend of input: the game stops unfinished at you {you}, dab {dab}")?;
            return Ok((game, Ending::EndOfInput));
        };
        idle = if matches!(command, Command::Bad(_) | Command::Nothing) { idle + 1 } else { 0 };
        if idle > MAX_IDLE_COMMANDS {
            return Err(PlayError::Idle);
        }
        if let Some(ending) = apply_command(command, oracle, &mut game, &mut history, out)? {
            return Ok((game, ending));
        }
    }
}

/// Writes the final score and who won; under a penalty, the last mover (the player to move at
/// the end: the last line completes a box) loses it.
fn game_over(game: &Game, penalty: Penalty, out: &mut impl Write) -> std::io::Result<()> {
    let (you, dab) = game.score();
    let (you, dab) = (you as i64, dab as i64);
    let (you, dab) = if penalty.is_none() {
        (you, dab)
    } else {
        let n = penalty.boxes() as i64;
        let (last, you, dab) = match game.to_move {
            Player::You => ("you", you - n, dab),
            Player::Dab => ("dab", you, dab - n),
        };
        let boxes = if n == 1 { "1 box".to_string() } else { format!("{n} boxes") };
        writeln!(out, "{last} drew the last line: the penalty takes {boxes} off {last}")?;
        (you, dab)
    };
    let verdict = match you.cmp(&dab) {
        std::cmp::Ordering::Greater => format!("you win by {}", you - dab),
        std::cmp::Ordering::Less => format!("dab wins by {}", dab - you),
        std::cmp::Ordering::Equal => "a draw".to_string(),
    };
    writeln!(out, "game over: you {you}, dab {dab}: {verdict}")
}

/// Plays the opponent's move (the lowest line of best value), says what it took and shows the
/// board.
fn dab_plays(oracle: &Oracle, game: &mut Game, out: &mut impl Write) -> Result<(), PlayError> {
    let (line, source) = match oracle.answered(game.pos) {
        Ok((moves, source)) => (best_move(&moves).expect("a game not over has a move").0, source),
        Err(PlayError::NotProven(r)) => {
            let line = Advice::Rules(*r.clone()).chosen(game.pos).expect("a move by rules");
            (line, Some(if r.proven { r.source.to_string() } else { format!("rules: {}", r.rule) }))
        }
        Err(e) => return Err(e),
    };
    let taken = game.play(line);
    let boxes = match taken {
        0 => String::new(),
        1 => " and takes a box".to_string(),
        n => format!(" and takes {n} boxes"),
    };
    let by = match source.as_deref() {
        Some("endgame") => " (by the endgame theorems)",
        Some("solved") => " (solved)",
        Some("search") => " (searched)",
        Some("book") => " (from the opening book)",
        Some(rule) if rule.starts_with("rules") => &format!(" (by {rule})"),
        _ => "",
    };
    writeln!(out, "dab draws {}{boxes}{by}", describe(game.pos.board, line))?;
    show(game, out)?;
    Ok(())
}

/// Prompts for the player's next line of input, echoes it when asked and reads it as a command
/// on `pos`; `None` at the end of the input.
fn read_command(
    input: &mut impl BufRead,
    pos: Position,
    out: &mut impl Write,
    echo: bool,
) -> Result<Option<Command>, PlayError> {
    write!(out, "your move> ")?;
    out.flush()?;
    // Lines as bytes: one that is not UTF-8 is a bad command to refuse, not the end of the
    // game. At most one byte past the longest a command may be is read.
    let mut bytes = Vec::new();
    let n = std::io::Read::take(&mut *input, MAX_COMMAND_BYTES as u64 + 1).read_until(b'\n', &mut bytes)?;
    if n == 0 {
        return Ok(None);
    }
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
    } else if bytes.len() > MAX_COMMAND_BYTES {
        return Err(PlayError::LongLine);
    }
    let text = String::from_utf8(bytes);
    if echo {
        let shown = match &text {
            Ok(text) => std::borrow::Cow::from(text.as_str()),
            Err(e) => String::from_utf8_lossy(e.as_bytes()),
        };
        writeln!(out, "{}", shown.trim())?;
    }
    Ok(Some(match text {
        Ok(text) => parse_command(&text, pos),
        Err(_) => Command::Bad(format!(
            "the line is not UTF-8 text: type a line as h(r,c), v(r,c) or its number (0 to {}), or hint, undo, quit",
            pos.board.lines() - 1
        )),
    }))
}

/// Carries out one of the player's commands; returns the ending when the player quits, `None`
/// while the game goes on.
fn apply_command(
    command: Command,
    oracle: &Oracle,
    game: &mut Game,
    history: &mut Vec<Game>,
    out: &mut impl Write,
) -> Result<Option<Ending>, PlayError> {
    match command {
        Command::Nothing => {}
        Command::Bad(reason) => writeln!(out, "refused: {reason}")?,
        Command::Quit => {
            let (you, dab) = game.score();
            writeln!(out, "you quit at you {you}, dab {dab}")?;
            return Ok(Some(Ending::Quit));
        }
        Command::Undo => undo(game, history, out)?,
        Command::Hint => show_hint(oracle, game.pos, out)?,
        Command::Move(line) => {
            history.push(game.clone());
            let taken = game.play(line);
            let boxes = if taken > 0 { format!(" and take {taken}") } else { String::new() };
            writeln!(out, "you draw {}{boxes}", describe(game.pos.board, line))?;
            show(game, out)?;
        }
    }
    Ok(None)
}

/// Goes back to the snapshot taken before the player's last move, if there is one.
fn undo(game: &mut Game, history: &mut Vec<Game>, out: &mut impl Write) -> std::io::Result<()> {
    match history.pop() {
        Some(before) => {
            *game = before;
            writeln!(out, "undone: back to before your last move")?;
            show(game, out)
        }
        None => writeln!(out, "nothing to undo: you have not moved yet"),
    }
}

/// Writes what `dab hint` prints for `pos` (the same printer): the value and every move's,
/// loony moves marked, who must make the next loony move; or a move by rules.
fn show_hint(oracle: &Oracle, pos: Position, out: &mut impl Write) -> Result<(), PlayError> {
    writeln!(out, "hint for you, the player to move:")?;
    write!(out, "{}", oracle.advice(pos)?)?;
    Ok(())
}

/// Writes the board and the score, and whose move it is while the game goes on.
fn show(game: &Game, out: &mut impl Write) -> std::io::Result<()> {
    let (you, dab) = game.score();
    write!(out, "{}", labelled_art(game))?;
    if game.is_over() {
        writeln!(out, "you {you}, dab {dab}")
    } else {
        let turn = if game.to_move == Player::You { "your move" } else { "dab to move" };
        writeln!(out, "you {you}, dab {dab}; {turn}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_their_refusals() {
        let b: Board = "2x2".parse().unwrap();
        let mut g = Game::new(b, Player::You);
        g.play(b.h(0, 0));
        assert_eq!(parse_command(" v(1,2) ", g.pos), Command::Move(b.v(1, 2)));
        assert_eq!(parse_command("3", g.pos), Command::Move(Line(3)));
        assert_eq!(parse_command("UNDO", g.pos), Command::Undo);
        let bad = |t: &str| match parse_command(t, g.pos) {
            Command::Bad(r) => r,
            c => panic!("{t}: {c:?}"),
        };
        assert_eq!(bad("h(0,0)"), "h(0,0) (line 0) is already drawn");
        assert!(bad("12").starts_with("no such line: 12 (board 2x2 has lines 0 to 11)"), "{}", bad("12"));
        assert!(bad("h(3,0)").starts_with("no such line: h(3,0)"));
        assert!(bad("x(1,1)").starts_with("cannot read 'x(1,1)'"));
    }

    #[test]
    fn owners_are_drawn_inside_their_boxes() {
        let b: Board = "1x2".parse().unwrap();
        let mut g = Game::new(b, Player::You);
        for l in [b.h(0, 0), b.h(1, 0), b.v(0, 0)] {
            g.play(l);
        }
        assert_eq!(g.to_move, Player::Dab);
        assert_eq!(g.play(b.v(0, 1)), 1);
        assert_eq!(g.art(), "+-+ +\n|D|\n+-+ +\n");
        assert_eq!(Position::from_art(&g.art()).unwrap(), g.pos);
        // The labels name the rows and columns a move is typed with, and leave the art intact.
        let labelled = labelled_art(&g);
        assert_eq!(labelled, "h col    0 1\nv col   0 1 2\nh row 0 +-+ +\nv row 0 |D|\nh row 1 +-+ +\n");
        assert_eq!(g.score(), (0, 1));
    }
}
