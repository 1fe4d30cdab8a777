//! Partition keys: the number of drawn lines in each group. A key's `Display` (`4-3-4-2`) is
//! its name in files, graphs, CSV and reports; `FromStr` reads it back.

use std::fmt;
use std::str::FromStr;

/// Most groups a grouping may have.
pub(super) const MAX_GROUPS: usize = 16;

/// Drawn-line count per group, group 0 first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PartitionKey {
    len: u8,
    counts: [u8; MAX_GROUPS],
}

/// Why a partition key's text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// A part between dashes is empty, not decimal digits, or over 255; holds the text.
    #[error("partition key '{0}' is not a list of line counts separated by '-' (e.g. 4-3-4-2)")]
    Syntax(String),
    /// The text has more than 16 dash-separated parts; holds the text.
    #[error("partition key '{0}' has more than {MAX_GROUPS} groups")]
    TooManyGroups(String),
}

impl PartitionKey {
    /// The key with these per-group counts, group 0 first; panics on more than 16 groups.
    pub fn new(counts: &[u8]) -> PartitionKey {
        assert!(counts.len() <= MAX_GROUPS, "at most {MAX_GROUPS} groups");
        let mut c = [0u8; MAX_GROUPS];
        c[..counts.len()].copy_from_slice(counts);
        PartitionKey { len: counts.len() as u8, counts: c }
    }

    /// Drawn lines in each group, group 0 first.
    pub fn counts(&self) -> &[u8] {
        &self.counts[..self.len as usize]
    }

    /// Number of groups.
    pub fn groups(&self) -> usize {
        self.len as usize
    }

    /// Total number of drawn lines.
    pub fn total(&self) -> usize {
        self.counts().iter().map(|&c| c as usize).sum()
    }

    /// The key with one more line in group `g`.
    pub fn plus(&self, g: usize) -> PartitionKey {
        let mut k = *self;
        k.counts[g] += 1;
        k
    }
}

impl fmt::Display for PartitionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.counts().iter().enumerate() {
            if i > 0 {
                f.write_str("-")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for PartitionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for PartitionKey {
    type Err = KeyError;

    fn from_str(s: &str) -> Result<PartitionKey, KeyError> {
        let parts: Vec<&str> = s.split('-').collect();
        if parts.len() > MAX_GROUPS {
            return Err(KeyError::TooManyGroups(s.to_string()));
        }
        let counts = parts
            .iter()
            .map(|p| if p.bytes().all(|b| b.is_ascii_digit()) { p.parse::<u8>().ok() } else { None })
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(|| KeyError::Syntax(s.to_string()))?;
        Ok(PartitionKey::new(&counts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn display_and_from_str_round_trip(counts in prop::collection::vec(0u8..=64, 1..=MAX_GROUPS)) {
            let k = PartitionKey::new(&counts);
            let text = k.to_string();
            prop_assert_eq!(text.parse::<PartitionKey>().unwrap(), k);
        }
    }

    #[test]
    fn bad_keys_are_refused() {
        assert_eq!("4-3-4-2".parse::<PartitionKey>().unwrap().counts(), &[4, 3, 4, 2]);
        for bad in ["", "4--2", "4-x", "+4", "4-300"] {
            assert!(bad.parse::<PartitionKey>().is_err(), "{bad}");
        }
    }
}
