//! A game's review: every move of a record valued against best play, within a time budget a
//! position, by the advice `dab hint` gives ([`advise`]: a store's book, the endgame theorems,
//! the retrograde or the search where they prove the position within the budget, else the
//! rules). For each move: the position's value before it, the move's value, the boxes it gave
//! up against best play from its player's side (`lost`, 0 for a best move), and whether that is
//! proven or an estimate, labelled with how far the position is from proof; then the decisive
//! mistakes: the moves that turned the game's result, and the largest losses. A move's value
//! is exact wherever the position after it is valued exactly, so a game is proven from about
//! where its positions come within the budget's reach. The web board builds the same review
//! from its own analyses ([`Review::of`]).

use std::time::Instant;

use serde::Serialize;

use crate::game::{Line, MoveReport, Played, Position, Record, golem_name, is_loony, move_value, player_name};
use crate::store::Reader;

use super::advice::{not_proven, take_all};
use super::{Advice, Asking, HintError, advise};

/// Most mistakes named beside those that turned the result: the largest losses.
const LARGEST_LOSSES: usize = 3;

/// A game's review (see the module's page).
#[derive(Clone, Debug, Serialize)]
pub struct Review {
    /// The board size, as `MxN`.
    pub board: String,
    /// The position before the first move, as a line string; A moves first there.
    pub root: String,
    /// Seconds each position was given.
    pub budget: f64,
    /// Every move of the record, in order.
    pub moves: Vec<ReviewedMove>,
    /// The decisive mistakes, in the order they were played.
    pub mistakes: Vec<Mistake>,
    /// The numbers of the moves whose `lost` is an estimate.
    pub unproven: Vec<usize>,
    /// Boxes A and B took in the record.
    pub score: [u32; 2],
    /// The game's result in words, or the score where the record ends before the game.
    pub result: String,
    /// Wall seconds the review took.
    pub seconds: f64,
}

/// One move of a review.
#[derive(Clone, Debug, Serialize)]
pub struct ReviewedMove {
    /// The move's number (from 1).
    pub number: usize,
    /// The turn's number (from 1): a player who completes a box moves again in the same turn.
    pub turn: usize,
    /// `A` (who moved first) or `B`.
    pub player: &'static str,
    /// The line drawn, `h(r,c)` or `v(r,c)`.
    pub line: String,
    /// Its number in the external order.
    pub index: u16,
    /// Its name in littlegolem's notation (`a1-b1`).
    pub golem: String,
    /// Boxes it completed.
    pub boxes: u8,
    /// Whether it was a loony move.
    pub loony: bool,
    /// Boxes A and B had taken before it.
    pub score: [u32; 2],
    /// Undrawn lines before it.
    pub undrawn: usize,
    /// The position's value before it, for its player (net future boxes with best play); null
    /// where not proven within the budget.
    pub value_before: Option<i32>,
    /// The move's value for its player (net future boxes after it with best play, counting the
    /// boxes it completed); null where not proven.
    pub value: Option<i32>,
    /// The best moves of the position before it, where every move's value was proven (else
    /// the one move proven best, or none).
    pub best: Vec<String>,
    /// Boxes the move gave up against best play, from its player's side (0: a best move):
    /// exact where `proven`, else an estimate.
    pub lost: i32,
    /// Whether `lost` is exact.
    pub proven: bool,
    /// Where `lost` is an estimate: how far the position is from proof and how the estimate
    /// was made (absent where proven).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<String>,
    /// What valued the position before it: `store`, `endgame`, `solved`, `search`, `book`,
    /// `rules`, or `none` where no analysis answered.
    pub source: String,
}

/// A decisive mistake.
#[derive(Clone, Debug, Serialize)]
pub struct Mistake {
    /// The move's number.
    pub number: usize,
    /// `A` or `B`.
    pub player: &'static str,
    /// The line drawn.
    pub line: String,
    /// Boxes it gave up (an estimate where not `proven`).
    pub lost: i32,
    /// Whether `lost` is exact.
    pub proven: bool,
    /// One line: what it turned, for its player.
    pub why: String,
}

/// Reviews `record` with `ask` (its engine taken as auto), `seconds` a position, reading
/// `reader` first where given; `progress` hears each position before it is valued (its index,
/// and how many there are).
pub fn review(
    record: &Record,
    reader: Option<&Reader>,
    ask: Asking,
    seconds: f64,
    progress: &dyn Fn(usize, usize),
) -> Result<Review, HintError> {
    let start = Instant::now();
    let ask = Asking { engine: super::Answerer::Auto, ..ask };
    let positions = positions(record);
    let mut advice = Vec::with_capacity(positions.len());
    for (i, &pos) in positions.iter().enumerate() {
        // A caller that no longer waits (Ctrl-C in Python) ends the review between positions:
        // each is bounded by its budget, the whole game is not.
        if ask.stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(super::QueryError::Search(super::search::SearchError::Stopped).into());
        }
        progress(i, positions.len());
        advice.push(Ok(advise(pos, reader, ask, seconds)?));
    }
    Ok(Review::of(record, &advice, seconds, ask.threads, start))
}

/// The positions a review of `record` values, in order: the position before each move, then
/// the last position where lines are left undrawn (the last move's value needs it).
pub fn positions(record: &Record) -> Vec<Position> {
    let (played, end) = record.replay();
    let mut out: Vec<Position> = played.iter().map(|p| p.before).collect();
    if !end.undrawn().is_empty() {
        out.push(end);
    }
    out
}

/// What is known of one position from its advice.
struct Known {
    /// The position's value for its player to move.
    value: Option<i32>,
    /// Every move's value.
    moves: Option<Vec<MoveReport>>,
    /// The move the advice chose (proven best or by rules), and the rule.
    chosen: Option<(Line, &'static str)>,
    best: Vec<String>,
    source: String,
}

impl Known {
    fn of(advice: Option<&Result<Advice, String>>) -> Known {
        match advice {
            Some(Ok(Advice::Proven(a))) => Known {
                value: Some(a.value),
                moves: Some(a.moves.clone()),
                chosen: None,
                best: a.best.clone(),
                source: a.source.clone(),
            },
            Some(Ok(Advice::Rules(r))) => Known {
                value: r.value.filter(|_| r.proven),
                moves: None,
                chosen: Some((Line(r.index), r.rule)),
                best: if r.proven { r.best.clone() } else { Vec::new() },
                source: r.source.into(),
            },
            Some(Err(_)) | None => {
                Known { value: None, moves: None, chosen: None, best: Vec::new(), source: "none".into() }
            }
        }
    }
}

impl Review {
    /// The review of `record` from the advice on each of its [`positions`] (or why none came,
    /// one line), each given `budget` seconds on `threads` threads; `start`: when the review
    /// began.
    pub fn of(
        record: &Record,
        advice: &[Result<Advice, String>],
        budget: f64,
        threads: usize,
        start: Instant,
    ) -> Review {
        let (played, end) = record.replay();
        let known: Vec<Known> = (0..=played.len()).map(|k| Known::of(advice.get(k))).collect();
        let mut moves = Vec::with_capacity(played.len());
        for (k, p) in played.iter().enumerate() {
            let after = Position { board: p.before.board, drawn: p.before.drawn.with(p.line) };
            // The value of the position after the move: 0 at the full board (the plain game).
            let value_after = if after.undrawn().is_empty() { Some(0) } else { known[k + 1].value };
            let failed = advice.get(k).and_then(|a| a.as_ref().err());
            moves.push(reviewed(p, &known[k], value_after, failed.map(String::as_str), budget, threads));
        }
        let mistakes = mistakes(&played, &moves);
        let unproven = moves.iter().filter(|m| !m.proven).map(|m| m.number).collect();
        let score = played.last().map_or([0, 0], |p| {
            let mut s = p.score;
            s[p.player as usize] += u32::from(p.boxes);
            s
        });
        Review {
            board: record.start.board.to_string(),
            root: record.start.to_line_string(),
            budget,
            moves,
            mistakes,
            unproven,
            score,
            result: result_words(score, end),
            seconds: start.elapsed().as_secs_f64(),
        }
    }
}

/// One move reviewed: `known`, what is known of the position before it; `value_after`, the
/// value of the position after it where proven; `failed`, why no analysis answered.
fn reviewed(
    p: &Played,
    known: &Known,
    value_after: Option<i32>,
    failed: Option<&str>,
    budget: f64,
    threads: usize,
) -> ReviewedMove {
    let pos = p.before;
    let board = pos.board;
    let from_moves = known.moves.as_ref().and_then(|ms| ms.iter().find(|m| m.index == p.line.0)).map(|m| m.value);
    let proven_best = known.value.is_some() && known.chosen.is_some_and(|(l, _)| l == p.line);
    let value = from_moves
        .or_else(|| value_after.map(|v| i32::from(move_value(p.boxes as i8, v as i8))))
        .or(if proven_best { known.value } else { None });
    let (lost, proven, estimate) = match (known.value, value) {
        (Some(before), Some(v)) => (before - v, true, None),
        _ => {
            let (lost, how) = estimated(p, known, failed);
            (lost, false, Some(format!("{}; estimated: {how}", not_proven(pos, threads, budget, None))))
        }
    };
    ReviewedMove {
        number: p.number,
        turn: p.turn,
        player: player_name(p.player),
        line: board.line_name(p.line),
        index: p.line.0,
        golem: golem_name(board, p.line),
        boxes: p.boxes,
        loony: is_loony(pos, p.line),
        score: p.score,
        undrawn: pos.undrawn().len() as usize,
        value_before: known.value,
        value,
        best: known.best.clone(),
        lost,
        proven,
        estimate,
        source: known.source.clone(),
    }
}

/// The boxes a move not proven gave up, estimated by the rules' move in its position: none
/// where it is that move; where neither completes a box, the boxes it hands out beyond those
/// the rules' move hands out; and why.
fn estimated(p: &Played, known: &Known, failed: Option<&str>) -> (i32, String) {
    let Some((chosen, rule)) = known.chosen else {
        let why = failed.unwrap_or("no analysis of the position");
        return (0, format!("0 ({why})"));
    };
    let (board, drawn) = (p.before.board, p.before.drawn);
    if chosen == p.line {
        return (0, format!("0, the move dab's rules choose here ({rule})"));
    }
    let name = board.line_name(chosen);
    if p.boxes == 0 && board.completes(drawn, chosen) == 0 {
        let handout = |l: Line| take_all(board, drawn.with(l)).0 as i32;
        let (mine, theirs) = (handout(p.line), handout(chosen));
        if mine > theirs {
            return (mine - theirs, format!("it hands out {mine} boxes where {name} ({rule}) hands out {theirs}"));
        }
        return (0, format!("0: it hands out no more boxes than {name}, the rules' move ({rule})"));
    }
    (0, format!("0: the rules chose {name} ({rule}); the boxes between them are not estimated"))
}

/// The decisive mistakes: every move that turned its player's result (a win into a draw or
/// a loss, a draw into a loss), and the largest losses besides, in the order played.
fn mistakes(played: &[Played], moves: &[ReviewedMove]) -> Vec<Mistake> {
    let margin = |p: &Played, v: i32| {
        let me = p.player as usize;
        p.score[me] as i32 - p.score[1 - me] as i32 + v
    };
    let turned = |k: usize| -> Option<(i32, i32)> {
        let m = &moves[k];
        let (before, after) = (margin(&played[k], m.value_before?), margin(&played[k], m.value?));
        (m.lost > 0 && before.signum() != after.signum()).then_some((before, after))
    };
    let mut named: Vec<usize> = (0..moves.len()).filter(|&k| turned(k).is_some()).collect();
    let mut losses: Vec<usize> = (0..moves.len()).filter(|&k| moves[k].lost > 0 && !named.contains(&k)).collect();
    // The largest first, proven before estimated, earlier on a tie.
    losses.sort_by_key(|&k| (std::cmp::Reverse(moves[k].lost), !moves[k].proven, k));
    named.extend(losses.into_iter().take(LARGEST_LOSSES));
    named.sort_unstable();
    named
        .into_iter()
        .map(|k| {
            let m = &moves[k];
            let lost = if m.lost == 1 { "1 box".to_string() } else { format!("{} boxes", m.lost) };
            let why = match turned(k) {
                Some((before, after)) => {
                    format!(
                        "lost {lost}: the game went from {} to {} for {}",
                        outcome(before),
                        outcome(after),
                        m.player
                    )
                }
                None if m.proven => format!("lost {lost} (the result stays as it was)"),
                None => format!("lost about {lost}, estimated (not proven within the budget)"),
            };
            Mistake { number: m.number, player: m.player, line: m.line.clone(), lost: m.lost, proven: m.proven, why }
        })
        .collect()
}

/// A final margin for a player, in words.
fn outcome(margin: i32) -> String {
    match margin {
        0 => "a draw".into(),
        m if m > 0 => format!("a win by {m}"),
        m => format!("a loss by {}", -m),
    }
}

/// The result of a record that ends at `end` with `score`.
fn result_words(score: [u32; 2], end: Position) -> String {
    let left = end.undrawn().len();
    let [a, b] = score;
    if left > 0 {
        return format!(
            "A {a}, B {b} when the record ends, {} left",
            crate::support::count_of(left as u64, "undrawn line")
        );
    }
    match a.cmp(&b) {
        std::cmp::Ordering::Equal => format!("A {a}, B {b}: a draw"),
        std::cmp::Ordering::Greater => format!("A {a}, B {b}: A wins by {}", a - b),
        std::cmp::Ordering::Less => format!("A {a}, B {b}: B wins by {}", b - a),
    }
}

/// The review as `dab review` prints it: a row a move, the mistakes, what is not proven, and
/// the result.
impl std::fmt::Display for Review {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = crate::support::count_of(self.moves.len() as u64, "move");
        writeln!(f, "review of {n} on {}, {} s a position (values for the player who moved)", self.board, self.budget)?;
        writeln!(
            f,
            "{:>4} {:>4}  {:<6} {:<8} {:<7} {:>6} {:>5} {:>5}  proven",
            "move", "turn", "player", "line", "score", "before", "value", "lost"
        )?;
        let v = |x: Option<i32>| x.map_or("?".to_string(), |x| format!("{x:+}"));
        for m in &self.moves {
            let score = format!("{}-{}", m.score[0], m.score[1]);
            let proven = if m.proven { "exact" } else { "estimate" };
            let marks = [(m.boxes > 0, "  completes"), (m.loony, "  loony")];
            let marks: String = marks.iter().filter(|(on, _)| *on).map(|(_, s)| *s).collect();
            writeln!(
                f,
                "{:>4} {:>4}  {:<6} {:<8} {:<7} {:>6} {:>5} {:>5}  {proven}{marks}",
                m.number,
                m.turn,
                m.player,
                m.line,
                score,
                v(m.value_before),
                v(m.value),
                m.lost
            )?;
        }
        if self.mistakes.is_empty() {
            writeln!(f, "mistakes: none")?;
        } else {
            writeln!(f, "mistakes:")?;
            for m in &self.mistakes {
                writeln!(f, "  move {} ({}, {}): {}", m.number, m.player, m.line, m.why)?;
            }
        }
        if let Some(first) = self.moves.iter().find(|m| !m.proven) {
            let numbers = ranges(&self.unproven);
            let why = first.estimate.as_deref().unwrap_or_default();
            let why = why.split("; estimated:").next().unwrap_or(why);
            let why = why.strip_prefix("not proven: ").unwrap_or(why);
            writeln!(
                f,
                "not proven: {} (move {numbers}); the first: {why}",
                crate::support::count_of(self.unproven.len() as u64, "move")
            )?;
        } else {
            writeln!(f, "every move proven")?;
        }
        writeln!(f, "result: {}", self.result)?;
        writeln!(f, "time {:.1} s", self.seconds)
    }
}

/// Numbers as runs: `1-22, 25, 30-31`.
fn ranges(numbers: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &n in numbers {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == n => *end = n,
            _ => runs.push((n, n)),
        }
    }
    let run = |&(a, b): &(usize, usize)| if a == b { a.to_string() } else { format!("{a}-{b}") };
    runs.iter().map(run).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_runs() {
        assert_eq!(ranges(&[1, 2, 3, 5, 7, 8]), "1-3, 5, 7-8");
        assert_eq!(ranges(&[]), "");
    }

    #[test]
    fn a_review_asked_to_stop_ends_before_its_next_position() {
        let start = Position::empty("3x3".parse().unwrap());
        let record = Record::parse(start, "0 1 2 3 4 5").unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let ask = Asking { stop: Some(&stop), ..Asking::new(super::super::Answerer::Auto, 1) };
        let seen = std::cell::Cell::new(0);
        let progress = |i: usize, _: usize| {
            seen.set(i + 1);
            if i == 2 {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        };
        let Err(e) = review(&record, None, ask, 0.05, &progress) else { panic!("the review did not stop") };
        assert!(e.to_string().contains("stopped"), "{e}");
        assert_eq!(seen.get(), 3);
        stop.store(false, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(review(&record, None, ask, 0.05, &|_, _| {}).unwrap().moves.len(), 6);
    }

    #[test]
    fn a_margin_is_a_win_a_draw_or_a_loss() {
        assert_eq!([outcome(3), outcome(0), outcome(-1)], ["a win by 3", "a draw", "a loss by 1"]);
    }
}
