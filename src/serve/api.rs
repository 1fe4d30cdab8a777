//! The JSON API: `GET /api/analyse` (a position's answer: the object `dab hint --json` prints),
//! `GET /api/review` (a game's review: the object `dab review --json` prints, each position
//! answered as `/api/analyse` answers it), `GET /api/nimstring` (a position's Nimstring value
//! and its regions': the object `dab nimstring --json` prints, within `seconds`) and
//! `GET /api/position` (a position in both text formats, with its long chains and the parity of
//! them the player to move wants). A position is named by `board`
//! and `lines` (a line string), by `art` (ASCII art), or by `text` (either: a line string,
//! of `board`, or art). `/api/analyse` takes `penalty` (Wilson's last-move penalty; default:
//! the server's). Bad input is HTTP 400 with one line saying what is wrong.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::answer::{Answerer, Review, review_positions};
use crate::game::{Board, Penalty, Position, Record, is_golem_record, long_chains, wants_odd_long_chains};

use super::analyses::{Analyses, Failure, GRACE, RETRY_AFTER_SECONDS};

/// The time limit of an answer when the request names none, in seconds.
pub(super) const DEFAULT_SECONDS: f64 = 10.0;
/// The longest time limit a request may ask for, in seconds.
pub const MAX_SECONDS: f64 = 3600.0;

/// An HTTP answer: status, content type and body, and for a client turned away the seconds
/// it should wait before asking again.
pub(super) struct Reply {
    pub(super) status: u16,
    pub(super) content_type: &'static str,
    pub(super) body: String,
    pub(super) retry_after: Option<u64>,
}

impl Reply {
    /// A one-line plain-text message with `status` (control characters of what a request
    /// sent are escaped here, for every message).
    pub(super) fn error(status: u16, message: String) -> Reply {
        Reply {
            status,
            content_type: "text/plain; charset=utf-8",
            body: crate::support::one_line(&message),
            retry_after: None,
        }
    }

    /// A 503 for a client turned away: it may ask again after `seconds`.
    pub(super) fn busy(message: String, seconds: u64) -> Reply {
        Reply { retry_after: Some(seconds), ..Reply::error(503, message) }
    }

    fn json<T: Serialize>(value: &T) -> Reply {
        let body = serde_json::to_string(value).expect("plain data serialises");
        Reply { status: 200, content_type: "application/json", body, retry_after: None }
    }
}

/// A position in both text formats: what `GET /api/position` answers.
#[derive(Clone, Debug, Serialize)]
pub(super) struct PositionText {
    /// The board, `MxN`.
    pub board: String,
    /// The line string: one `0`/`1` per line in the external order.
    pub lines: String,
    /// The ASCII art (`+` dots, `-` and `|` lines), rows ending in a newline.
    pub art: String,
    /// Lines still undrawn.
    pub undrawn: usize,
    /// Chains of three boxes or more now on the board ([`long_chains`]).
    pub long_chains: usize,
    /// `odd` or `even`: the number of long chains at the end of the game that gives the player
    /// to move control, by the long chain rule ([`wants_odd_long_chains`]).
    pub long_chains_wanted: &'static str,
}

impl PositionText {
    /// The texts of `pos`.
    pub(super) fn of(pos: Position) -> PositionText {
        PositionText {
            board: pos.board.to_string(),
            lines: pos.to_line_string(),
            art: pos.to_art(),
            undrawn: pos.undrawn().len() as usize,
            long_chains: long_chains(pos),
            long_chains_wanted: if wants_odd_long_chains(pos) { "odd" } else { "even" },
        }
    }
}

/// A query string's parameters, percent-decoded; a name given twice is refused.
#[derive(Debug)]
struct Query(Vec<(String, String)>);

impl Query {
    fn parse(text: &str) -> Result<Query, String> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for part in text.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = part.split_once('=').unwrap_or((part, ""));
            let (name, value) = (decode(name)?, decode(value)?);
            if pairs.iter().any(|(n, _)| *n == name) {
                return Err(format!("parameter '{name}' is given twice"));
            }
            pairs.push((name, value));
        }
        Ok(Query(pairs))
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// Refuses a parameter not in `known`, so that a misspelt one is not silently ignored.
    fn only(&self, known: &[&str]) -> Result<(), String> {
        match self.0.iter().find(|(n, _)| !known.contains(&n.as_str())) {
            Some((n, _)) => Err(format!("unknown parameter '{n}' (known: {})", known.join(", "))),
            None => Ok(()),
        }
    }
}

/// `%XX` and `+` (a space) decoded; the result must be UTF-8.
fn decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex.and_then(|h| u8::from_str_radix(h, 16).ok());
                let Some(byte) = byte else {
                    return Err(format!("'{text}' has a '%' not followed by two hex digits"));
                };
                out.push(byte);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| "a parameter is not UTF-8 once decoded".to_string())
}

fn board(text: &str) -> Result<Board, String> {
    text.parse::<Board>().map_err(|e| format!("board: {e}"))
}

/// The position a query names (see the module's page).
fn position(q: &Query) -> Result<Position, String> {
    let board_given = q.get("board").map(board).transpose()?;
    let from_art = |text: &str, name: &str| {
        if is_golem_record(text) {
            return Err(format!(
                "{name}: this is a game's record in littlegolem's notation (a1-b1 ...), not a position: play its moves from the Moves box (or give them to /api/review as moves)"
            ));
        }
        let pos = Position::from_art(text).map_err(|e| format!("{name}: {e}"))?;
        match board_given {
            Some(b) if b != pos.board => Err(format!("{name}: the art is a {} board, not {b}", pos.board)),
            _ => Ok(pos),
        }
    };
    let from_lines = |text: &str, name: &str| {
        let b = board_given.ok_or_else(|| format!("{name}: a line string needs board=MxN beside it"))?;
        Position::from_line_string(b, text).map_err(|e| format!("{name}: {e}"))
    };
    match (q.get("lines"), q.get("art"), q.get("text")) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => {
            Err("give one of lines, art and text, not several".into())
        }
        (Some(lines), None, None) => from_lines(lines, "lines"),
        (None, Some(art), None) => from_art(art, "art"),
        (None, None, Some(text)) if !text.trim().is_empty() && text.trim().chars().all(|c| c == '0' || c == '1') => {
            from_lines(text, "text")
        }
        (None, None, Some(text)) => from_art(text, "text"),
        (None, None, None) => match board_given {
            Some(b) => Ok(Position::empty(b)),
            None => Err("no position: give board=MxN (with lines=... for drawn lines), or art=...".into()),
        },
    }
}

/// `GET /api/position`.
pub(super) fn position_reply(query: &str) -> Reply {
    let parsed = Query::parse(query).and_then(|q| {
        q.only(&["board", "lines", "art", "text"])?;
        position(&q)
    });
    match parsed {
        Ok(pos) => Reply::json(&PositionText::of(pos)),
        Err(e) => Reply::error(400, e),
    }
}

/// `GET /api/analyse`: 200 with the answer; 400 for bad input; 422 when no engine answers the
/// position; 503 when the time limit passed first; 500 when the store could not be read.
pub(super) async fn analyse(query: &str, analyses: &Arc<Analyses>) -> Reply {
    let parsed = Query::parse(query).and_then(|q| {
        q.only(&["board", "lines", "art", "text", "engine", "seconds", "penalty"])?;
        let pos = position(&q)?;
        let engine = match q.get("engine") {
            Some(e) => e.parse::<Answerer>().map_err(|e| format!("engine: {e}"))?,
            None => Answerer::Auto,
        };
        let seconds = seconds(&q, DEFAULT_SECONDS)?;
        let penalty = match q.get("penalty") {
            Some(p) => Some(p.parse::<Penalty>().and_then(|p| p.check(pos)).map_err(|e| format!("penalty: {e}"))?),
            None => None,
        };
        Ok((pos, engine, seconds, penalty))
    });
    let (pos, engine, seconds, penalty) = match parsed {
        Ok(p) => p,
        Err(e) => return Reply::error(400, e),
    };
    match analyses.answer(pos, engine, penalty, Duration::from_secs_f64(seconds)).await {
        Ok(answer) => Reply::json(&answer),
        Err(failure) => failed(failure),
    }
}

/// The reply to an analysis that gave no answer.
fn failed(failure: Failure) -> Reply {
    match failure {
        Failure::Refused { message, position: true } => Reply::error(422, message),
        Failure::Refused { message, position: false } => Reply::error(500, message),
        Failure::NotSolved { seconds, busy: false } => Reply::error(
            503,
            format!(
                "not solved within {seconds} s: the analysis goes on in the background, and stops unless it is asked again within {} s",
                GRACE.as_secs()
            ),
        ),
        Failure::NotSolved { seconds, busy: true } => Reply::busy(
            format!("not solved within {seconds} s: every slot for long analyses is busy with earlier positions"),
            RETRY_AFTER_SECONDS,
        ),
        Failure::Busy => Reply::busy(
            "the server is busy: every analysis worker is taken and the queue is full; ask again shortly".into(),
            RETRY_AFTER_SECONDS,
        ),
    }
}

/// `GET /api/nimstring`: 200 with the Nimstring answer (the position's value, its regions'
/// and every move's); 400 for bad input; 422 when a region is beyond the calculator; 503 when
/// it did not finish within `seconds` (default [`DEFAULT_SECONDS`]) or was priced past it.
pub(super) async fn nimstring(query: &str, analyses: &Arc<Analyses>) -> Reply {
    let parsed = Query::parse(query).and_then(|q| {
        q.only(&["board", "lines", "art", "text", "seconds"])?;
        Ok((position(&q)?, seconds(&q, DEFAULT_SECONDS)?))
    });
    let (pos, seconds) = match parsed {
        Ok(p) => p,
        Err(e) => return Reply::error(400, e),
    };
    match analyses.nimstrings().answer(pos, Duration::from_secs_f64(seconds)).await {
        Ok(answer) => Reply::json(&answer),
        Err(no) => Reply::error(no.status, no.message),
    }
}

/// The `seconds` of a query: above 0 and at most [`MAX_SECONDS`]; `default` when not given.
fn seconds(q: &Query, default: f64) -> Result<f64, String> {
    match q.get("seconds") {
        Some(s) => match s.trim().parse::<f64>() {
            Ok(x) if x > 0.0 && x <= MAX_SECONDS => Ok(x),
            _ => Err(format!("seconds: '{s}' is not a time limit in seconds above 0 and at most {MAX_SECONDS}")),
        },
        None => Ok(default),
    }
}

/// Seconds a position of a review gets when the request names none: a 5x5 game of 60 moves
/// in about a minute or two, its late positions proven at once.
pub(super) const REVIEW_SECONDS: f64 = 2.0;

/// `GET /api/review`: the review of a game (`dab review --json`'s object), its moves from the
/// position named; each position answered as `/api/analyse` answers it within `seconds`, in
/// the plain game. 400 for bad input, a move that is no undrawn line named by its number.
pub(super) async fn review(query: &str, analyses: &Arc<Analyses>) -> Reply {
    let parsed = Query::parse(query).and_then(|q| {
        q.only(&["board", "lines", "art", "text", "moves", "seconds"])?;
        let start = position(&q)?;
        let Some(moves) = q.get("moves") else {
            return Err("moves: give the game's moves (h(0,0) v(1,2) ..., line numbers, or a littlegolem record)".into());
        };
        let record = Record::parse(start, moves).map_err(|e| format!("moves: {e}"))?;
        let seconds = match q.get("seconds") {
            Some(s) => match s.trim().parse::<f64>() {
                Ok(x) if x > 0.0 && x <= MAX_SECONDS => x,
                _ => return Err(format!("seconds: '{s}' is not a time a position in seconds above 0 and at most {MAX_SECONDS}")),
            },
            None => REVIEW_SECONDS,
        };
        let positions = review_positions(&record).len();
        if positions as f64 * seconds > MAX_SECONDS {
            return Err(format!(
                "seconds: {positions} positions at {seconds} s each pass the longest a request may take ({MAX_SECONDS} s); give at most {:.2}",
                MAX_SECONDS / positions as f64
            ));
        }
        Ok((record, seconds))
    });
    let (record, seconds) = match parsed {
        Ok(p) => p,
        Err(e) => return Reply::error(400, e),
    };
    let start = std::time::Instant::now();
    let mut advice = Vec::new();
    for pos in review_positions(&record) {
        let limit = Duration::from_secs_f64(seconds);
        let answer = analyses.answer(pos, Answerer::Auto, Some(Penalty::NONE), limit).await;
        advice.push(answer.map_err(|f| failed(f).body));
    }
    Reply::json(&Review::of(&record, &advice, seconds, analyses.threads(), start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_percent_decoded_and_a_bad_escape_or_repeated_name_is_refused() {
        let q = Query::parse("art=%2B-%2B%0A%7C+%7C&board=1x1").unwrap();
        assert_eq!(q.get("art"), Some("+-+\n| |"));
        assert_eq!(q.get("board"), Some("1x1"));
        assert!(Query::parse("a=%G1").unwrap_err().contains("two hex digits"));
        assert!(Query::parse("a=1&a=2").unwrap_err().contains("twice"));
    }

    #[test]
    fn a_position_is_read_from_lines_art_or_either_as_text_and_the_board_must_agree() {
        let q = |s: &str| position(&Query::parse(s).unwrap());
        let art = "+-+\n|\n+ +";
        let from_lines = q("board=1x1&lines=1010").unwrap();
        assert_eq!(from_lines.to_art(), "+-+\n|\n+ +\n");
        let enc = art.replace('+', "%2B").replace('\n', "%0A");
        assert_eq!(q(&format!("art={enc}")).unwrap(), from_lines);
        assert_eq!(q(&format!("text={enc}")).unwrap(), from_lines);
        assert_eq!(q("board=1x1&text=1010").unwrap(), from_lines);
        assert!(q(&format!("board=2x2&art={enc}")).unwrap_err().contains("not 2x2"));
        assert!(q("text=1010").unwrap_err().contains("needs board"));
        assert!(q("board=1x1&lines=10").unwrap_err().starts_with("lines: "));
        assert!(q("").unwrap_err().contains("no position"));
        assert_eq!(q("board=2x2").unwrap(), Position::empty("2x2".parse().unwrap()));
        // A game's record is no position: named so, and sent to the moves.
        let record = q("board=2x2&text=1.+a1-b1+2.+b1b2").unwrap_err();
        assert!(record.starts_with("text: this is a game's record in littlegolem's notation"), "{record}");
    }
}
