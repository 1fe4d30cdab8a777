//! Processor counts: one count or as many as a graph can use ([`Procs`]), and the lists a sweep
//! takes (`1..150`, `1,2,4,8`, `1..64,unlimited`), bounded so that a range cannot ask for more
//! simulations than a machine could hold.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// Processors: a number, or as many as the graph can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Procs {
    /// This many processors (at least 1).
    Limited(u32),
    /// As many as the graph can keep busy at once.
    Unlimited,
}

impl fmt::Display for Procs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Procs::Limited(p) => write!(f, "{p}"),
            Procs::Unlimited => f.write_str("unlimited"),
        }
    }
}

impl Serialize for Procs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Procs::Limited(p) => s.serialize_u32(*p),
            Procs::Unlimited => s.serialize_str("unlimited"),
        }
    }
}

/// A list of processor counts: items separated by commas, each `N`, `A..B` (inclusive) or
/// `unlimited`, e.g. `1..150`, `1,2,4,8`, `1..64,unlimited`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcsList(pub Vec<Procs>);

/// Most processor counts one list may hold: each is a whole simulation, and a range such as
/// `1..4000000000` would need more memory than any machine has before the first one ran.
pub(crate) const MAX_PROCS_COUNTS: usize = 10_000;

/// A processor list that is not valid; holds the text given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProcsError {
    /// An item that is not a count >= 1, `A..B` with A <= B, or `unlimited`.
    #[error(
        "processor list '{0}' is not valid: give counts >= 1 as N, A..B or 'unlimited', separated by commas (e.g. 1..150 or 1,2,4,8)"
    )]
    Invalid(String),
    /// More counts than [`MAX_PROCS_COUNTS`].
    #[error("processor list '{0}' asks for more than {MAX_PROCS_COUNTS} processor counts (one simulation each)")]
    TooMany(String),
}

impl FromStr for ProcsList {
    type Err = ProcsError;

    fn from_str(s: &str) -> Result<ProcsList, ProcsError> {
        let bad = || ProcsError::Invalid(s.to_string());
        let count = |t: &str| t.trim().parse::<u32>().ok().filter(|&p| p >= 1).ok_or_else(bad);
        let mut list = Vec::new();
        for item in s.split(',') {
            let item = item.trim();
            if item == "unlimited" {
                list.push(Procs::Unlimited);
            } else if let Some((a, b)) = item.split_once("..") {
                let (a, b) = (count(a)?, count(b)?);
                if a > b {
                    return Err(bad());
                }
                if (b - a) as usize >= MAX_PROCS_COUNTS.saturating_sub(list.len()) {
                    return Err(ProcsError::TooMany(s.to_string()));
                }
                list.extend((a..=b).map(Procs::Limited));
            } else {
                list.push(Procs::Limited(count(item)?));
            }
        }
        list.sort();
        list.dedup();
        Ok(ProcsList(list))
    }
}
