//! Nimstring values (Berlekamp): the game of Dots-and-Boxes where completing a box obliges
//! another move and the player who cannot move loses, so whoever completes the last box
//! loses. The value of a position is a nimber, or *loony* where the player to move may take
//! some boxes or decline them (a win for that player, whatever else is on the board). Owns the
//! position's regions as strings and coins (`net.rs`), the calculator (`calc.rs`), and its
//! slow twins (`twin.rs`); [`nimstring`] answers a position and every move.

mod calc;
mod net;
mod twin;

use std::time::Instant;

use serde::{Serialize, Serializer};

use crate::game::{Line, Position};

pub use calc::{Calculator, OutOfTime};
pub(crate) use net::MAX_REGION_LINES;
pub(crate) use net::RegionTooLarge;
pub use twin::{RAW_MAX_LINES, RawGame};

use net::Net;

/// A Nimstring value: a nimber, or loony.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NimValue {
    /// A nimber: the player to move wins unless it is 0.
    Nimber(u8),
    /// The player to move may take or decline: a win for that player in any sum.
    Loony,
}

impl NimValue {
    /// The value of a sum: nimbers combined by XOR, loony if either is.
    pub fn plus(self, other: NimValue) -> NimValue {
        match (self, other) {
            (NimValue::Nimber(a), NimValue::Nimber(b)) => NimValue::Nimber(a ^ b),
            _ => NimValue::Loony,
        }
    }

    /// Whether the player to move wins.
    pub fn mover_wins(self) -> bool {
        self != NimValue::Nimber(0)
    }
}

/// As JSON: the nimber as an integer, or the string `"loony"`.
impl Serialize for NimValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            NimValue::Nimber(n) => s.serialize_u8(*n),
            NimValue::Loony => s.serialize_str("loony"),
        }
    }
}

/// As people write it: `*3` (Berlekamp's star), `0`, or `loony`.
impl std::fmt::Display for NimValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NimValue::Nimber(0) => write!(f, "0"),
            NimValue::Nimber(n) => write!(f, "*{n}"),
            NimValue::Loony => write!(f, "loony"),
        }
    }
}

/// One move's Nimstring value.
#[derive(Clone, Debug, Serialize)]
pub struct NimMove {
    /// `h(r,c)` or `v(r,c)`.
    pub line: String,
    /// Line number in the external order.
    pub index: u16,
    /// Boxes it completes (the player who draws it then moves again).
    pub boxes: u8,
    /// The value of the position it leaves, for whoever moves there: the opponent, or the
    /// same player when it completes a box.
    pub value: NimValue,
    /// Whether it wins for the player who draws it.
    pub wins: bool,
}

/// A position's Nimstring answer.
#[derive(Clone, Debug, Serialize)]
pub struct NimAnswer {
    /// The board size, as `MxN`.
    pub board: String,
    /// The position, as a line string.
    pub root: String,
    /// Its value.
    pub value: NimValue,
    /// Whether the player to move wins.
    pub wins: bool,
    /// The values of its regions (boxes joined by undrawn lines), in the order of their first
    /// line: the value is their sum.
    pub regions: Vec<NimValue>,
    /// Every undrawn line, in line order.
    pub moves: Vec<NimMove>,
    /// The names of the moves that win.
    pub winning: Vec<String>,
    /// Shapes the calculator valued (each once).
    pub shapes: u64,
    /// Wall seconds.
    pub seconds: f64,
}

/// Why a position has no Nimstring answer.
#[derive(Debug, thiserror::Error)]
pub enum NimstringError {
    /// A region holds more undrawn lines than the calculator takes.
    #[error(
        "a region of the position (boxes joined by undrawn lines) has {lines} undrawn lines; the Nimstring calculator takes regions of at most {MAX_REGION_LINES}: draw lines that cut it into smaller regions"
    )]
    RegionTooLarge {
        /// Its undrawn lines.
        lines: usize,
    },
    /// The calculator did not finish within the time allowed.
    #[error(
        "the Nimstring value was not found within {} s ({shapes} shapes valued); allow more time, or ask about a position split into smaller regions",
        crate::support::round4(*seconds)
    )]
    OutOfTime {
        /// The time allowed.
        seconds: f64,
        /// Shapes valued before it stopped.
        shapes: u64,
    },
}

/// A position's regions, ready to value: each region's net and settled value.
pub(crate) struct Regions {
    nets: Vec<Net>,
    values: Vec<NimValue>,
}

impl Regions {
    /// The regions of `pos`, each valued by `calc`.
    pub(crate) fn of(pos: Position, calc: &mut Calculator) -> Result<Regions, NimstringError> {
        let nets = Net::regions(pos)
            .into_iter()
            .collect::<Result<Vec<Net>, RegionTooLarge>>()
            .map_err(|e| NimstringError::RegionTooLarge { lines: e.lines })?;
        let values = nets
            .iter()
            .map(|n| value_of(n, n.full(), calc))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|OutOfTime| NimstringError::OutOfTime { seconds: calc.budget(), shapes: calc.shapes() })?;
        Ok(Regions { nets, values })
    }

    /// The value of the position: its regions' sum.
    pub(crate) fn value(&self) -> NimValue {
        self.values.iter().fold(NimValue::Nimber(0), |a, &b| a.plus(b))
    }

    /// The regions' values, in the order of their first line.
    pub(crate) fn values(&self) -> &[NimValue] {
        &self.values
    }

    /// The value of the position left by drawing `line` (undrawn), for whoever moves there,
    /// and the boxes the line completes.
    pub(crate) fn after(&self, line: Line, calc: &mut Calculator) -> Result<(NimValue, u8), OutOfTime> {
        let (r, i) = self
            .nets
            .iter()
            .enumerate()
            .find_map(|(r, n)| n.string_of(line).map(|i| (r, i)))
            .expect("an undrawn line belongs to a region");
        let net = &self.nets[r];
        let boxes = net.completes(net.full(), i) as u8;
        let here = value_of(net, net.full() & !(1 << i), calc)?;
        let others =
            self.values.iter().enumerate().filter(|&(k, _)| k != r).fold(NimValue::Nimber(0), |a, (_, &b)| a.plus(b));
        Ok((here.plus(others), boxes))
    }

    /// Whether drawing `line` wins Nimstring for the player who draws it.
    pub(crate) fn wins(&self, line: Line, calc: &mut Calculator) -> Result<bool, OutOfTime> {
        let (v, boxes) = self.after(line, calc)?;
        Ok(if boxes > 0 { v.mover_wins() } else { !v.mover_wins() })
    }
}

/// Seconds the calculator is expected to take on `pos` (Blom predicts his calculator's time
/// from features of the position; here, from the undrawn lines of its largest region): 0.3 s
/// at 40 lines, ten times more every three lines more, which is the median of random 5x5
/// positions without a capturable box at 36, 40 and 44 lines on the reference machine (2 cores)
/// within a factor of ten either way (the spread of one count of lines is that wide). Infinite
/// past [`MAX_REGION_LINES`].
pub(crate) fn expected_seconds(pos: Position) -> f64 {
    let largest = largest_region(pos);
    if largest > MAX_REGION_LINES {
        return f64::INFINITY;
    }
    0.3 * 10f64.powf((largest as f64 - 40.0) / 3.0)
}

/// Undrawn lines of the largest region of `pos`.
fn largest_region(pos: Position) -> usize {
    Net::regions(pos).iter().map(|r| r.as_ref().map_or_else(|e| e.lines, |n| n.lines.len())).max().unwrap_or(0)
}

/// Why valuing `pos` within `seconds` is not worth starting, in a player's words: its price
/// ([`expected_seconds`]) is more than ten times the time (the price's own spread); None where
/// it may finish, or where a region is past the calculator (which says so at once).
pub(crate) fn out_of_reach(pos: Position, seconds: f64) -> Option<String> {
    let price = expected_seconds(pos);
    (price.is_finite() && price > 10.0 * seconds).then(|| {
        let reach = (40.0 + 3.0 * (seconds / 0.3).log10()).floor().max(0.0);
        format!(
            "the Nimstring value is out of reach within {seconds} s: its largest region has {} undrawn lines; the calculator values regions of about {reach} lines in that time",
            largest_region(pos)
        )
    })
}

/// The value of a region's state: loony, or its settled state's nimber.
fn value_of(net: &Net, state: u64, calc: &mut Calculator) -> Result<NimValue, OutOfTime> {
    match net.settle(state) {
        None => Ok(NimValue::Loony),
        Some(s) => calc.settled(net, s).map(NimValue::Nimber),
    }
}

/// The Nimstring value of `pos` and of every move, giving up after `seconds` (none: never).
pub fn nimstring(pos: Position, seconds: Option<f64>) -> Result<NimAnswer, NimstringError> {
    nimstring_until(pos, seconds, None)
}

/// [`nimstring`], giving up also once `stop` is set (by another thread), with the error of a
/// budget spent.
pub fn nimstring_until(
    pos: Position,
    seconds: Option<f64>,
    stop: Option<&std::sync::atomic::AtomicBool>,
) -> Result<NimAnswer, NimstringError> {
    let start = Instant::now();
    let deadline = seconds.map(|s| start + std::time::Duration::from_secs_f64(s.min(1e9)));
    let mut calc = Calculator::new(deadline).stopped_by(stop);
    let late = |calc: &Calculator| NimstringError::OutOfTime { seconds: calc.budget(), shapes: calc.shapes() };
    let regions = Regions::of(pos, &mut calc)?;
    let mut moves = Vec::new();
    for line in pos.undrawn().iter() {
        let (value, boxes) = regions.after(line, &mut calc).map_err(|OutOfTime| late(&calc))?;
        let wins = if boxes > 0 { value.mover_wins() } else { !value.mover_wins() };
        moves.push(NimMove { line: pos.board.line_name(line), index: line.0, boxes, value, wins });
    }
    let value = regions.value();
    Ok(NimAnswer {
        board: pos.board.to_string(),
        root: pos.to_line_string(),
        value,
        wins: value.mover_wins(),
        regions: regions.values().to_vec(),
        winning: moves.iter().filter(|m| m.wins).map(|m| m.line.clone()).collect(),
        moves,
        shapes: calc.shapes(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// As `dab nimstring` prints it: the value and who wins, the winning moves, every move.
impl std::fmt::Display for NimAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let who = if self.wins { "the player to move wins" } else { "the player to move loses" };
        writeln!(f, "nimstring value {} ({who})", self.value)?;
        if self.regions.len() > 1 {
            let parts: Vec<String> = self.regions.iter().map(NimValue::to_string).collect();
            writeln!(f, "regions {} (the value is their sum)", parts.join(" + "))?;
        }
        let winning = if self.winning.is_empty() { "none".to_string() } else { self.winning.join(" ") };
        writeln!(f, "winning moves {winning}")?;
        writeln!(f, "moves (line: value of the position left, for whoever moves there)")?;
        for m in &self.moves {
            let boxes = if m.boxes > 0 { format!("  completes {} (moves again)", m.boxes) } else { String::new() };
            let wins = if m.wins { "wins" } else { "loses" };
            writeln!(f, "  {:<8} {:<6} {wins}{boxes}", m.line, m.value.to_string())?;
        }
        writeln!(f, "source: the Nimstring calculator, {} shapes ({:.3} s)", self.shapes, self.seconds)
    }
}

/// The value of `pos` by the slow twin that never splits it: one net of all its undrawn lines
/// (at most [`MAX_REGION_LINES`]), valued by the capture rules and the mex alone, every state
/// its own entry. The twin of the sum rule; small positions only.
pub fn whole_value(pos: Position) -> Result<NimValue, NimstringError> {
    let net = Net::whole(pos).map_err(|e| NimstringError::RegionTooLarge { lines: e.lines })?;
    let mut memo = std::collections::HashMap::new();
    Ok(twin::whole_nimber(&net, net.full(), &mut memo).map_or(NimValue::Loony, NimValue::Nimber))
}
