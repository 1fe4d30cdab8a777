//! Advice within a time budget on any board (Blom's player): the exact answer where an exact
//! source finishes within the budget (a store's book, the endgame theorems, the retrograde or
//! the search, each priced by the cost model before it starts), else a move chosen by rules,
//! saying what is proven of it. The rules: free captures taken; in a loony position the player
//! keeps control (declines the last two boxes, or four of a loop) when the Nimstring calculator
//! shows that taking all would hand over control; in the middle game a move that wins
//! Nimstring (control of the endgame), handing out as few boxes as it can; in the opening,
//! where the calculator is out of reach, a safe move (one that hands out no box); and when no
//! safe move is left, the smallest handout, a hard-hearted one where it can.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::exec::{ExecError, SolveError};
use crate::game::{Line, LineSet, Position, is_loony, is_loony_position};
use crate::solver::MAX_FREE_LINES;
use crate::store::Reader;

use super::book::BookMove;
use super::estimate::{EngineCosts, table_bytes_here};
use super::hint::from_theorems;
use super::nimstring::{Calculator, NimValue, NimstringError, Regions};
use super::query::{
    AUTO_SEARCH_FREE, Answer, Answerer, Asking, QueryError, SoFarCell, best_by_search, from_book, on_the_spot_until,
    zeroable_cap,
};
use super::search::{KeptTable, SearchError, SoFar};
use super::{HintError, hint};

/// Share of the budget an exact engine may be priced at and still be started: the retrograde's
/// price is close, so half the budget leaves room for its error.
const RETROGRADE_SHARE: f64 = 0.5;

/// The search's price is within 2x of most searches (4.2x of every recorded one): a quarter
/// of the budget keeps a search that runs twice its price within half of it.
const SEARCH_SHARE: f64 = 0.25;

/// A search priced at up to this many budgets is tried all the same, with a deadline.
const SEARCH_TRY: f64 = 4.0;

/// How much cheaper a best move is than every move's value by the search (about 10 times on
/// 4x4 at 30 to 34 undrawn lines; taken low, as the price itself is rough).
const BEST_MOVE_SAVING: f64 = 5.0;

/// Share of the budget a search tried with a deadline may take, leaving the rules theirs.
const SEARCH_DEADLINE_SHARE: f64 = 0.6;

/// Share of the budget the search for a best move may take where nothing is capturable: out
/// of time, its best move so far (proven worth at least its lower bound) is played, and the
/// rules, which have only a safe move to offer there, need little. Not more: the search sees
/// its deadline every 2^16 positions a thread, 0.1-0.2 s late on a loaded machine (0.85 took
/// 31 of 309 moves past 1.1 s at 1 s a move; reports/bench-play-hybrid/).
const BEST_SO_FAR_SHARE: f64 = 0.7;

/// The table the searches of the advice keep from one move to the next ([`KeptTable`]): in a
/// game, each move's search finds what the last one proved of the positions both reach.
static PLAY_TABLE: KeptTable = KeptTable::new();

/// Most undrawn lines at which the search for a best move is tried whatever its price: a 5x5
/// middle game of 45 to 48 lines is out of reach of the value, but a move proven worth at
/// least some bound is often found within a second (its first test).
const BEST_SO_FAR_FREE: usize = 48;

/// Share of the budget a retrograde priced within [`RETROGRADE_SHARE`] may take before it
/// stops (between partitions), leaving the opening book and the rules theirs.
const RETROGRADE_DEADLINE_SHARE: f64 = 0.75;

/// Share of the budget the rules may use, leaving the rest for choosing among the moves.
const RULES_SHARE: f64 = 0.9;

/// A move chosen without every move's value (by the opening book, the search for a best move,
/// or rules): which source and rule chose it and what is proven of it.
#[derive(Clone, Debug, Serialize)]
pub struct RulesAnswer {
    /// The board size, as `MxN`.
    pub board: String,
    /// The position, as a line string.
    pub root: String,
    /// Whether the move is proven best: true from the opening book and the search, false by
    /// rules (no exact engine finished within the budget).
    pub proven: bool,
    /// `book`, `search` or `rules`.
    pub engine: &'static str,
    /// `book`, `search` or `rules`.
    pub source: &'static str,
    /// The move chosen (one name).
    pub best: Vec<String>,
    /// Its line number in the external order.
    pub index: u16,
    /// The rule that chose it: `opening book`, `best move` (the search), `best so far` (the
    /// search out of time: a move proven worth at least a bound), `capture`, `keep control`,
    /// `take all`, `nimstring`, `safe` or `smallest handout`.
    pub rule: &'static str,
    /// One line: what is proven of the move, and what was out of reach.
    pub why: String,
    /// The position's Nimstring value, where the calculator finished within the budget.
    pub nimstring: Option<NimValue>,
    /// Whether the chosen move is loony.
    pub loony: bool,
    /// The position's value where the move is proven best (the opening book, the search);
    /// absent by rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<i32>,
    /// Wall seconds.
    pub seconds: f64,
}

/// A hint within a budget: exact, or by rules.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Advice {
    /// An exact answer: every move's value (`proven` true).
    Proven(Answer),
    /// A move chosen by rules.
    Rules(RulesAnswer),
}

impl Advice {
    /// The move dab would play in `pos`, the position advised on: the opening book's move
    /// where the book has the position (so that dab's games stay within its book, where the
    /// next move is answered at once), else the lowest line among the best (None on a full
    /// board).
    pub fn chosen(&self, pos: Position) -> Option<Line> {
        match self {
            Advice::Proven(a) => {
                let booked = super::built_in_book(pos.board).and_then(|b| b.lookup(pos));
                // The book's move is best by construction; its value is checked all the same.
                let best = |l: Line| a.moves.iter().any(|m| m.index == l.0 && m.value == a.value);
                booked
                    .map(|m| m.line)
                    .filter(|&l| best(l))
                    .or_else(|| a.moves.iter().find(|m| m.value == a.value).map(|m| Line(m.index)))
            }
            Advice::Rules(r) => Some(Line(r.index)),
        }
    }
}

impl std::fmt::Display for Advice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Advice::Proven(a) => write!(f, "{a}"),
            Advice::Rules(r) if r.proven => {
                writeln!(f, "best {} ({}; proven best)", r.best.join(" "), proven_by(r))?;
                writeln!(f, "why: {}", r.why)?;
                writeln!(f, "source: {} ({:.3} s)", r.source, r.seconds)
            }
            Advice::Rules(r) => {
                writeln!(f, "suggested {} (by rules: {}; not proven best)", r.best.join(" "), r.rule)?;
                if let Some(v) = r.nimstring {
                    writeln!(f, "nimstring value {v}")?;
                }
                writeln!(f, "why: {}", r.why)?;
                writeln!(f, "source: rules ({:.3} s)", r.seconds)
            }
        }
    }
}

/// Where a proven move of a [`RulesAnswer`] came from, in words.
pub(super) fn proven_by(r: &RulesAnswer) -> &'static str {
    if r.engine == "book" { "from the opening book" } else { "by the search" }
}

/// The advice on `pos` within `seconds`: the store's book or the endgame theorems where they
/// answer (at once), else the exact engine `auto` prices cheapest if its price leaves room
/// within the budget, else the opening book's move, else a best move by the search within a
/// deadline, else the rules. `ask.engine` other than auto asks for that engine alone,
/// whatever it takes (an exact answer or an error, as `dab hint` gives); so does a last-move
/// penalty, which no rule honours.
pub fn advise(pos: Position, reader: Option<&Reader>, ask: Asking, seconds: f64) -> Result<Advice, HintError> {
    let start = Instant::now();
    // Under a last-move penalty only the retrograde is exact, and no rule honours it.
    if ask.engine != Answerer::Auto || pos.undrawn().is_empty() || !ask.penalty.is_none() {
        return Ok(Advice::Proven(hint(pos, reader, ask)?));
    }
    if let Some(reader) = reader
        && let Some(a) = from_book(
            reader,
            pos,
            ask.penalty,
            Some(start + Duration::from_secs_f64(seconds * RETROGRADE_DEADLINE_SHARE)),
        )?
    {
        return Ok(Advice::Proven(a));
    }
    if let Ok(a) = from_theorems(pos, start) {
        return Ok(Advice::Proven(a));
    }
    let free = pos.undrawn().len() as usize;
    let mut out_of_reach = not_proven(pos, ask.threads, seconds, None);
    // What a search out of time had proven: its best move so far.
    let so_far = SoFarCell::new(None);
    let found = |cell: &SoFarCell| *cell.lock().unwrap_or_else(|e| e.into_inner());
    let mut price = None;
    if free <= AUTO_SEARCH_FREE {
        let model = crate::plan::model_or_built_in();
        let costs = EngineCosts::of(pos, model, ask.threads, table_bytes_here(pos));
        let fits = |price: Option<f64>, share: f64| price.filter(|&p| p <= share * seconds);
        // Auto's own choice among the engines whose price leaves room in the budget.
        let within = EngineCosts {
            partition: fits(costs.partition, RETROGRADE_SHARE),
            search: fits(costs.search, SEARCH_SHARE),
            ..costs.clone()
        };
        let deadline = start + Duration::from_secs_f64(seconds * SEARCH_DEADLINE_SHARE);
        if let Some(engine) = within.cheapest() {
            // Neither price is exact (the search's can be several times off): each engine gets
            // a deadline, and the book and the rules their time after it.
            let until = match engine {
                Answerer::Search => deadline,
                _ => start + Duration::from_secs_f64(seconds * RETROGRADE_DEADLINE_SHARE),
            };
            let name = match on_the_spot_until(
                pos,
                Asking { engine, ..ask },
                reader,
                Some(until),
                Some(&so_far),
                Some(&PLAY_TABLE),
            ) {
                Ok(a) => return Ok(Advice::Proven(a)),
                Err(QueryError::Search(SearchError::OutOfTime(_))) => {
                    // The root's value may be proven with its move, or a move worth at least
                    // a bound: a second search would start again from nothing.
                    if let Some(f) = found(&so_far).filter(|f| f.best.is_some()) {
                        return Ok(Advice::Rules(from_search_so_far(pos, f, start)));
                    }
                    "search"
                }
                Err(QueryError::Solve(SolveError::Exec(ExecError::OutOfTime(_)))) => "retrograde",
                Err(e) => return Err(e.into()),
            };
            out_of_reach = not_proven(pos, ask.threads, seconds, Some(name));
        }
        // Every move's value is out of the budget: the opening book's move, where it has one.
        if let Some(book) = super::built_in_book(pos.board)
            && let Some(m) = book.lookup(pos)
        {
            return Ok(Advice::Rules(from_opening_book(pos, m, start)));
        }
        price = costs.search;
    }
    // Every move's value is out of reach, but a best move costs a fraction of it (the value,
    // then a null-window test a move): the search for one is tried with a deadline, all but
    // the rules' share of the budget where nothing is capturable (out of time, its best move
    // so far is played), else the deadline that leaves the rules their time to keep control.
    let capturable = pos.undrawn().iter().any(|l| pos.board.completes(pos.drawn, l) > 0);
    let share = if capturable { SEARCH_DEADLINE_SHARE } else { BEST_SO_FAR_SHARE };
    let deadline = start + Duration::from_secs_f64(seconds * share);
    let priced = |p: f64| p <= SEARCH_TRY * BEST_MOVE_SAVING * seconds;
    let tried = match price {
        Some(p) => priced(p) || (!capturable && free <= BEST_SO_FAR_FREE),
        None => !capturable && free <= BEST_SO_FAR_FREE,
    };
    if tried && free <= MAX_FREE_LINES && Instant::now() < deadline {
        *so_far.lock().unwrap_or_else(|e| e.into_inner()) = None;
        match best_by_search(pos, ask, reader, Some(deadline), Some(&so_far), Some(&PLAY_TABLE)) {
            Ok((line, value)) => {
                // Time left before the deadline goes to every move's value where that is
                // priced within reach (the web board's longer limits); else the best move.
                if price.is_some_and(|p| p <= SEARCH_TRY * seconds) {
                    // Its table, where not the kept one, zeroed within the time left.
                    let search =
                        Asking { engine: Answerer::Search, table_cap: zeroable_cap(ask, Some(deadline)), ..ask };
                    if let Ok(a) = on_the_spot_until(pos, search, reader, Some(deadline), None, Some(&PLAY_TABLE)) {
                        return Ok(Advice::Proven(a));
                    }
                }
                return Ok(Advice::Rules(from_best_move_search(pos, line, value, start)));
            }
            Err(QueryError::Search(SearchError::OutOfTime(_))) => {
                if let Some(f) = found(&so_far).filter(|f| f.best.is_some()) {
                    return Ok(Advice::Rules(from_search_so_far(pos, f, start)));
                }
                out_of_reach = not_proven(pos, ask.threads, seconds, Some("search for a best move"));
            }
            Err(e) => return Err(e.into()),
        }
    }
    let deadline = start + Duration::from_secs_f64(seconds * RULES_SHARE);
    Ok(Advice::Rules(by_rules(pos, deadline, start, &out_of_reach)))
}

/// Share of a budget within which a position counts as provable for a player: a best move by
/// the search, priced at [`BEST_MOVE_SAVING`] times less than every move's values, within its
/// deadline.
const PROVABLE_SHARE: f64 = SEARCH_DEADLINE_SHARE * BEST_MOVE_SAVING;

/// What a player needs of a position not proven within `seconds` on `threads` threads: that it
/// is not, and how far from proof it is ("too deep to prove within 5 s; exact from about 43
/// undrawn lines"); `engine`, the exact engine that ran out of time, where one did.
pub(super) fn not_proven(pos: Position, threads: usize, seconds: f64, engine: Option<&str>) -> String {
    let free = pos.undrawn().len() as usize;
    let from = super::estimate::exact_from(pos, crate::plan::model_or_built_in(), threads, seconds * PROVABLE_SHARE);
    match engine {
        // Priced within reach, yet not finished: at the edge of what proves in that time.
        Some(name) if from >= free => format!(
            "not proven: the {name} did not finish within {seconds} s; {free} undrawn lines are at the edge of what proves in that time"
        ),
        Some(name) => format!(
            "not proven: the {name} did not finish within {seconds} s; {free} undrawn lines are too deep, exact from about {from}"
        ),
        None => format!(
            "not proven: {free} undrawn lines are too deep to prove within {seconds} s; exact from about {from} undrawn lines"
        ),
    }
}

/// The opening book's move in `pos`: proven best, with the position's value, though the other
/// moves' values are not kept.
fn from_opening_book(pos: Position, m: BookMove, start: Instant) -> RulesAnswer {
    let why = format!(
        "a best move from dab's opening book of {} (built from a complete solve): the position's value is {}; \
         the other moves' values are not kept",
        pos.board,
        signed(m.value)
    );
    proven_move(pos, (m.line, i32::from(m.value)), "book", "opening book", why, start)
}

/// The search's best move in `pos`, of the position's `value`: proven best, though the other
/// moves' values were out of reach within the budget.
fn from_best_move_search(pos: Position, line: Line, value: i32, start: Instant) -> RulesAnswer {
    let why = format!(
        "a best move by the search: the position's value is {}; every move's value was out of reach within the budget",
        signed(value)
    );
    proven_move(pos, (line, value), "search", "best move", why, start)
}

/// The move a search out of time proved best so far (`found` has one): proven best where its
/// bounds met, else worth at least its lower bound, played as the best the budget allowed.
fn from_search_so_far(pos: Position, found: SoFar, start: Instant) -> RulesAnswer {
    if let Some(best) = found.proven_best() {
        return from_best_move_search(pos, best.0, best.1, start);
    }
    let line = found.best.expect("a move proven worth a bound");
    let upper = if found.upper > super::search::MAX_BOXES_LEFT {
        String::new()
    } else {
        format!(", the position at most {}", signed(found.upper))
    };
    let why = format!(
        "the search's best move when its time ran out: proven worth at least {}{upper}",
        signed(found.at_least)
    );
    RulesAnswer {
        proven: false,
        engine: "search",
        source: "search",
        rule: "best so far",
        why,
        value: None,
        ..proven_move(pos, (line, found.at_least), "search", "best so far", String::new(), start)
    }
}

/// A value with its sign where it is positive: `+2`, `0`, `-1`.
fn signed(v: impl Into<i32>) -> String {
    let v: i32 = v.into();
    if v > 0 { format!("+{v}") } else { v.to_string() }
}

/// One move proven best by `engine`, with the position's value, without the other moves'.
fn proven_move(
    pos: Position,
    (line, value): (Line, i32),
    engine: &'static str,
    rule: &'static str,
    why: String,
    start: Instant,
) -> RulesAnswer {
    let board = pos.board;
    RulesAnswer {
        board: board.to_string(),
        root: pos.to_line_string(),
        proven: true,
        engine,
        source: engine,
        best: vec![board.line_name(line)],
        index: line.0,
        rule,
        why,
        nimstring: None,
        loony: is_loony(pos, line),
        value: Some(value),
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// Boxes the player to move in `drawn` can take in a row (every box with one undrawn side,
/// again and again), and the lines after taking them all.
pub(super) fn take_all(board: crate::game::Board, mut drawn: LineSet) -> (u32, LineSet) {
    let mut taken = 0;
    loop {
        let capture = (0..board.boxes()).find_map(|b| {
            let sides = board.box_sides(b);
            let undrawn: Vec<Line> = sides.into_iter().filter(|&s| !drawn.contains(s)).collect();
            (undrawn.len() == 1).then(|| undrawn[0])
        });
        let Some(line) = capture else { return (taken, drawn) };
        taken += board.completes(drawn, line);
        drawn = drawn.with(line);
    }
}

/// The move chosen by the rules (see the module's page), before `deadline`.
fn by_rules(pos: Position, deadline: Instant, start: Instant, out_of_reach: &str) -> RulesAnswer {
    let board = pos.board;
    let mut calc = Calculator::new(Some(deadline));
    let (nim, nim_note) = nimstring_regions(pos, deadline, &mut calc);
    let rules = Chooser { pos, start, out_of_reach, nim: nim.as_ref(), nim_note: &nim_note };
    let captures: Vec<Line> = pos.undrawn().iter().filter(|&l| board.completes(pos.drawn, l) > 0).collect();
    if !captures.is_empty() {
        return by_capture(&rules, &captures, &mut calc);
    }
    // No capture: the middle game by Nimstring where the calculator reaches, else safe moves.
    if let Some(regions) = &nim
        && let Some(answer) = by_nimstring(&rules, regions, &mut calc)
    {
        return answer;
    }
    by_handout(&rules)
}

/// The position's Nimstring regions where the calculator reaches them before `deadline`, and
/// the note that says why not where it does not.
fn nimstring_regions(pos: Position, deadline: Instant, calc: &mut Calculator) -> (Option<Regions>, String) {
    // Priced first: a calculation expected to take ten times what is left is not started.
    let left = deadline.saturating_duration_since(Instant::now()).as_secs_f64();
    let expected = super::nimstring::expected_seconds(pos);
    if expected > 10.0 * left && expected.is_finite() {
        let note = "; the Nimstring value is out of reach: its regions are too large to value within the budget";
        return (None, note.into());
    }
    match Regions::of(pos, calc) {
        Ok(r) => (Some(r), String::new()),
        Err(NimstringError::RegionTooLarge { lines }) => {
            (None, format!("; the Nimstring calculator is out of reach (a region of {lines} undrawn lines)"))
        }
        Err(NimstringError::OutOfTime { .. }) => (None, "; the Nimstring calculator did not finish in time".into()),
    }
}

/// What every answer of the rules on one position says besides its move and rule: when the
/// clock started, why no exact engine answered, and what the Nimstring calculator found.
struct Chooser<'a> {
    pos: Position,
    start: Instant,
    out_of_reach: &'a str,
    nim: Option<&'a Regions>,
    nim_note: &'a str,
}

impl Chooser<'_> {
    /// The answer that plays `line` by `rule`, for the reason `why`.
    fn choose(&self, line: Line, rule: &'static str, why: String) -> RulesAnswer {
        let (pos, board) = (self.pos, self.pos.board);
        RulesAnswer {
            board: board.to_string(),
            root: pos.to_line_string(),
            proven: false,
            engine: "rules",
            source: "rules",
            best: vec![board.line_name(line)],
            index: line.0,
            rule,
            why: format!("{why}; {}{}", self.out_of_reach, self.nim_note),
            nimstring: self.nim.map(Regions::value),
            loony: is_loony(pos, line),
            value: None,
            seconds: self.start.elapsed().as_secs_f64(),
        }
    }
}

/// The rules where some move completes a box (`captures`, not empty): a free capture, else
/// keep control or take all by what the Nimstring calculator says of the rest.
fn by_capture(rules: &Chooser, captures: &[Line], calc: &mut Calculator) -> RulesAnswer {
    let (pos, board) = (rules.pos, rules.pos.board);
    // A capture that leaves the position as loony as it was (or not loony) is free.
    let offered = is_loony_position(pos);
    let free_capture =
        captures.iter().copied().find(|&l| !offered || is_loony_position(Position { board, drawn: pos.drawn.with(l) }));
    if !offered {
        let l = free_capture.unwrap_or(captures[0]);
        return rules.choose(l, "capture", "takes a box: declining it gains nothing".into());
    }
    if let Some(l) = free_capture {
        return rules.choose(
            l,
            "capture",
            "takes a box of the boxes offered; the choice to decline the last of them stays open".into(),
        );
    }
    let (_, rest) = take_all(board, pos.drawn);
    let rest = Position { board, drawn: rest };
    let after_all = if rest.undrawn().is_empty() {
        Some(NimValue::Nimber(0))
    } else {
        Regions::of(rest, calc).ok().map(|r| r.value())
    };
    match (after_all, declining_move(pos)) {
        (Some(v), Some(d)) if !v.mover_wins() && !rest.undrawn().is_empty() => rules.choose(
            d,
            "keep control",
            format!(
                "declines the last boxes offered (a double-dealing move): taking them all would leave a Nimstring value of {v}, losing control"
            ),
        ),
        (Some(v), _) if v.mover_wins() => rules.choose(
            captures[0],
            "take all",
            format!("takes the boxes offered: the rest is worth {v} in Nimstring, a win for the taker"),
        ),
        (None, Some(d)) => rules.choose(
            d,
            "keep control",
            "declines the last boxes offered, keeping control (the rest is beyond the Nimstring calculator in time)"
                .into(),
        ),
        _ => rules.choose(captures[0], "take all", "takes the boxes offered".into()),
    }
}

/// The move that wins Nimstring handing out the fewest boxes, where every move could be
/// valued in time and one wins.
fn by_nimstring(rules: &Chooser, regions: &Regions, calc: &mut Calculator) -> Option<RulesAnswer> {
    let mut winning = Vec::new();
    for l in rules.pos.undrawn().iter() {
        match regions.wins(l, calc) {
            Ok(true) => winning.push(l),
            Ok(false) => {}
            Err(_) => return None,
        }
    }
    let (l, h) = fewest(rules.pos, &winning)?;
    let given = if h == 0 { "hands out no box".to_string() } else { format!("hands out {h}") };
    Some(rules.choose(
        l,
        "nimstring",
        format!(
            "wins Nimstring (control of the endgame: the position is {} in Nimstring) and {given}",
            regions.value()
        ),
    ))
}

/// A safe move where one is left, else the smallest handout.
fn by_handout(rules: &Chooser) -> RulesAnswer {
    let lines: Vec<Line> = rules.pos.undrawn().iter().collect();
    let (l, h) = fewest(rules.pos, &lines).expect("a position with an undrawn line");
    if h == 0 {
        let lost = if rules.nim.is_some_and(|r| !r.value().mover_wins()) {
            "no move wins Nimstring here (value 0); "
        } else {
            ""
        };
        rules.choose(l, "safe", format!("{lost}a safe move: it hands out no box"))
    } else {
        rules.choose(
            l,
            "smallest handout",
            format!("no safe move is left: it hands out {h}, the fewest any move hands out"),
        )
    }
}

/// Among `moves`, the one that hands out the fewest boxes, a non-loony one on a tie, with the
/// boxes it hands out.
fn fewest(pos: Position, moves: &[Line]) -> Option<(Line, u32)> {
    let handout = |l: Line| take_all(pos.board, pos.drawn.with(l)).0;
    moves
        .iter()
        .map(|&l| (l, handout(l), is_loony(pos, l)))
        .min_by_key(|&(l, h, loony)| (h, loony, spread(pos, l)))
        .map(|(l, h, _)| (l, h))
}

/// A tie-break among equally good moves that varies with the position: games against the
/// rules differ, yet the same position always gets the same move.
fn spread(pos: Position, line: Line) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(&(pos.drawn, line), &mut h);
    std::hash::Hasher::finish(&h)
}

/// The move that declines the last boxes of a loony offer: where a box with one undrawn side
/// hangs on a box of two whose other side reaches the edge or a box that will not become
/// capturable (two boxes left), or, in an opened loop, where the last four form two pairs;
/// the line drawn is the far side of the pair, which completes nothing.
fn declining_move(pos: Position) -> Option<Line> {
    let board = pos.board;
    let undrawn =
        |b: usize| -> Vec<Line> { board.box_sides(b).into_iter().filter(|&s| !pos.drawn.contains(s)).collect() };
    let across = |l: Line, b: usize| board.line_boxes(l).into_iter().find(|&x| x != b);
    for c in 0..board.boxes() {
        let [s] = undrawn(c)[..] else { continue };
        let Some(x) = across(s, c) else { continue };
        let xs = undrawn(x);
        if xs.len() != 2 {
            continue;
        }
        let t = if xs[0] == s { xs[1] } else { xs[0] };
        match across(t, x) {
            None => return Some(t),
            Some(y) => {
                let ys = undrawn(y);
                if ys.len() >= 3 {
                    return Some(t);
                }
                // A loop's last four: y has two sides, its other one reaching a box of one.
                if ys.len() == 2 {
                    let u = if ys[0] == t { ys[1] } else { ys[0] };
                    if across(u, y).is_some_and(|z| z != c && undrawn(z).len() == 1) {
                        return Some(t);
                    }
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Board;

    /// 2x5 with every horizontal line drawn: two chains of five boxes, edge to edge.
    fn two_chains(verticals: &[(usize, usize)]) -> Position {
        let board: Board = "2x5".parse().unwrap();
        let mut drawn: LineSet = (0..=2).flat_map(|r| (0..5).map(move |c| board.h(r, c))).collect();
        for &(r, c) in verticals {
            drawn = drawn.with(board.v(r, c));
        }
        Position { board, drawn }
    }

    fn rules(pos: Position) -> RulesAnswer {
        let start = Instant::now();
        by_rules(pos, start + Duration::from_secs(5), start, "test")
    }

    #[test]
    fn offered_a_chain_with_another_left_the_rules_take_all_but_two_then_decline_them() {
        // Row 0 opened at its left end: take while the choice stays open...
        let opened = rules(two_chains(&[(0, 0)]));
        assert_eq!((opened.rule, opened.best[0].as_str()), ("capture", "v(0,1)"));
        // ...and with two boxes left, decline them: taking all would leave the other chain
        // for the taker to open (Nimstring 0, losing control).
        let two_left = rules(two_chains(&[(0, 0), (0, 1), (0, 2), (0, 3)]));
        assert_eq!((two_left.rule, two_left.best[0].as_str()), ("keep control", "v(0,5)"));
        assert_eq!(two_left.nimstring, Some(NimValue::Loony));
    }

    #[test]
    fn offered_the_last_chain_the_rules_take_it_all() {
        // Row 1 already taken: row 0 is the last chain, so nothing is gained by declining.
        let row1: Vec<(usize, usize)> = (0..=5).map(|c| (1, c)).collect();
        let mut lines = vec![(0, 0), (0, 1), (0, 2), (0, 3)];
        lines.extend(row1);
        let last = rules(two_chains(&lines));
        assert_eq!(last.rule, "take all");
    }

    #[test]
    fn a_retrograde_past_its_deadline_stops_between_partitions_with_the_time_it_ran() {
        let pos = Position::empty("3x3".parse().unwrap());
        let ask = Asking::new(Answerer::Partition, 1);
        let late = on_the_spot_until(pos, ask, None, Some(Instant::now()), None, None);
        assert!(matches!(late, Err(QueryError::Solve(SolveError::Exec(ExecError::OutOfTime(_))))), "{:?}", late.err());
        let far = Instant::now() + Duration::from_secs(600);
        assert_eq!(
            on_the_spot_until(pos, ask, None, Some(far), None, None).unwrap().value,
            hint(pos, None, ask).unwrap().value
        );
    }

    #[test]
    fn in_a_position_of_the_opening_book_dab_plays_the_book_s_move_among_the_best() {
        let pos = Position::empty("3x4".parse().unwrap());
        let proven = Advice::Proven(hint(pos, None, Asking::new(Answerer::Partition, 2)).unwrap());
        let booked = crate::answer::built_in_book(pos.board).unwrap().lookup(pos).unwrap();
        let Advice::Proven(a) = &proven else { unreachable!() };
        let lowest = a.moves.iter().find(|m| m.value == a.value).unwrap().index;
        // Not the lowest best line, so the choice is the book's doing.
        assert_ne!(booked.line.0, lowest);
        assert_eq!(proven.chosen(pos), Some(booked.line));
    }

    #[test]
    fn the_opening_of_a_large_board_gets_a_safe_move_at_once() {
        let pos = Position::empty("8x8".parse().unwrap());
        let r = rules(pos);
        assert_eq!(r.rule, "safe");
        assert!(!r.loony);
        let line = Line(r.index);
        assert_eq!(take_all(pos.board, pos.drawn.with(line)).0, 0);
    }
}
