//! Wilson's last-move penalty: the player who draws the last line loses N boxes. The last line
//! always completes a box, so its drawer is the player to move at the full board, and the
//! penalty is the full board's value: -N instead of 0; nothing else of the game changes. A value
//! is one byte, so a penalty is refused where the boxes still to take plus it could pass
//! [`Value::MAX`]. Whole numbers only: Wilson notes that consecutive penalties give values of
//! opposite parity that differ by one, so a fractional penalty adds nothing.

use std::str::FromStr;

use super::position::Position;
use super::value::Value;

/// Boxes the player who draws the last line loses (0: the plain game).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Penalty(u8);

/// Why a penalty is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PenaltyError {
    /// Not a whole number.
    #[error("'{0}' is not a penalty: give a whole number of boxes, 0 or more (a fractional penalty adds nothing)")]
    NotWhole(String),
    /// Below zero.
    #[error("the penalty {0} is negative: it is the boxes the player who draws the last line loses, 0 or more")]
    Negative(String),
    /// Above what any value holds.
    #[error("the penalty {0} is too large: values are one byte, so a penalty is at most {MAX}")]
    AboveMax(String),
    /// The boxes still to take plus the penalty could pass the largest value.
    #[error(
        "a penalty of {penalty} with {boxes} boxes still to take could pass the largest value a position holds ({}): the largest penalty here is {max}",
        Value::MAX
    )]
    TooLarge {
        /// The penalty asked for.
        penalty: u8,
        /// Boxes of the position not yet completed.
        boxes: usize,
        /// The largest penalty that fits.
        max: u8,
    },
}

/// The largest penalty of all: a value is an `i8`.
const MAX: u8 = Value::MAX as u8;

impl Penalty {
    /// No penalty: the plain game.
    pub const NONE: Penalty = Penalty(0);

    /// A penalty of `boxes` boxes (at most 127).
    pub fn new(boxes: u8) -> Result<Penalty, PenaltyError> {
        if boxes > MAX {
            return Err(PenaltyError::AboveMax(boxes.to_string()));
        }
        Ok(Penalty(boxes))
    }

    /// Boxes the last mover loses.
    pub fn boxes(self) -> u8 {
        self.0
    }

    /// Whether this is the plain game (no penalty).
    pub fn is_none(&self) -> bool {
        self.0 == 0
    }

    /// What the penalty does, for people: "the player who draws the last line loses 2 boxes".
    pub fn words(self) -> String {
        let boxes = if self.0 == 1 { "box" } else { "boxes" };
        format!("the player who draws the last line loses {} {boxes}", self.0)
    }

    /// What values under this penalty say of Nimstring, where it passes the boxes of `pos`
    /// still to take (one line; None otherwise). The player who draws the last line loses
    /// Nimstring, and a penalty above every box left outweighs them all, so a value's sign is
    /// Nimstring's verdict and the rest of it the boxes' margin.
    pub fn nimstring_words(self, pos: Position) -> Option<String> {
        let left = boxes_left(pos);
        let p = self.0;
        (p as usize > left).then(|| {
            format!(
                "for Nimstring: the penalty {p} is more than the {left} boxes still to take, so a positive value means the player to move wins Nimstring (the other player draws the last line) and a negative one that they lose it; the boxes' margin is the value less {p} (plus {p} where negative)"
            )
        })
    }

    /// The full board's value: the player to move there drew the last line.
    pub fn full_board_value(self) -> Value {
        -(self.0 as Value)
    }

    /// The penalty, if it fits the values of every position reachable from `pos`: its
    /// boxes still to take plus the penalty at most [`Value::MAX`]. No penalty always fits, as
    /// before penalties existed.
    pub fn check(self, pos: Position) -> Result<Penalty, PenaltyError> {
        if self.is_none() {
            return Ok(self);
        }
        let boxes = boxes_left(pos);
        if boxes + self.0 as usize > MAX as usize {
            let max = (MAX as usize).saturating_sub(boxes) as u8;
            return Err(PenaltyError::TooLarge { penalty: self.0, boxes, max });
        }
        Ok(self)
    }
}

/// Boxes of `pos` not yet completed.
fn boxes_left(pos: Position) -> usize {
    let board = pos.board;
    (0..board.boxes()).filter(|&b| !pos.drawn.contains_all(board.box_mask(b))).count()
}

impl std::fmt::Display for Penalty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Penalty {
    type Err = PenaltyError;

    /// A whole number of boxes, 0 to 127.
    fn from_str(text: &str) -> Result<Penalty, PenaltyError> {
        let t = text.trim();
        let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(PenaltyError::NotWhole(t.to_string()));
        }
        if t.starts_with('-') && digits.bytes().any(|b| b != b'0') {
            return Err(PenaltyError::Negative(t.to_string()));
        }
        match digits.parse::<u8>() {
            Ok(n) => Penalty::new(n),
            Err(_) => Err(PenaltyError::AboveMax(t.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_penalty_is_a_whole_number_of_boxes_from_0_to_127() {
        assert_eq!("0".parse::<Penalty>(), Ok(Penalty::NONE));
        assert_eq!(" 3 ".parse::<Penalty>().map(Penalty::boxes), Ok(3));
        assert_eq!("+127".parse::<Penalty>().map(Penalty::boxes), Ok(127));
        assert_eq!("-0".parse::<Penalty>(), Ok(Penalty::NONE));
        for (text, why) in [
            ("-1", "negative"),
            ("1.5", "whole number"),
            ("", "whole number"),
            ("x", "whole number"),
            ("1e2", "whole number"),
            ("128", "at most 127"),
            ("99999999999999999999", "at most 127"),
        ] {
            let err = text.parse::<Penalty>().unwrap_err().to_string();
            assert!(err.contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn the_full_boards_value_is_minus_the_penalty_and_a_large_one_names_the_largest_that_fits() {
        assert_eq!(Penalty::new(5).unwrap().full_board_value(), -5);
        assert_eq!(Penalty::NONE.full_board_value(), 0);
        let empty = Position::empty("3x3".parse().unwrap());
        assert_eq!(Penalty::new(118).unwrap().check(empty), Ok(Penalty(118)));
        let err = Penalty::new(119).unwrap().check(empty).unwrap_err();
        assert_eq!(err, PenaltyError::TooLarge { penalty: 119, boxes: 9, max: 118 });
        assert!(err.to_string().contains("the largest penalty here is 118"), "{err}");
        // A board of more boxes than a value holds takes no penalty, but still plays plainly.
        let big = Position::empty("12x12".parse().unwrap());
        assert_eq!(Penalty::NONE.check(big), Ok(Penalty::NONE));
        assert!(Penalty::new(1).unwrap().check(big).unwrap_err().to_string().contains("largest penalty here is 0"));
    }
}
