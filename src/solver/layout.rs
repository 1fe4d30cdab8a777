//! The row layout of a partition's jobs: which rows of which partition each job computes. A
//! partition is cut into pieces `<key>_<i>` that are consecutive row ranges in piece order, so
//! a job's name and size say where its rows are; the layout is read from them and checked to
//! cover every partition exactly.

use std::collections::HashMap;

use super::kernel::Kernel;
use super::key::PartitionKey;
use super::space::Space;

/// Where a job's rows are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The partition.
    pub key: PartitionKey,
    /// Its first row (kernel rows: all groups but the last).
    pub first_row: usize,
    /// How many rows.
    pub rows: usize,
}

/// Why a list of jobs is not a layout of a space.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// A job names no partition of the space, or its size is not whole rows within it.
    #[error("job '{job}': {message}")]
    Job {
        /// The job's name.
        job: String,
        /// What is wrong.
        message: String,
    },
    /// No job computes these rows.
    #[error("no job for rows {first}..{end} of partition {key}")]
    Missing {
        /// The partition.
        key: String,
        /// First row not covered.
        first: u64,
        /// End of the partition's rows.
        end: u64,
    },
}

/// Key and row range of every job, from its name (`<key>` or `<key>_<piece>`) and its number
/// of states, in the order given.
pub fn layout<'a>(space: &Space, jobs: impl IntoIterator<Item = (&'a str, u64)>) -> Result<Vec<Layout>, LayoutError> {
    let kernel = Kernel::new(space);
    let mut next_row: HashMap<PartitionKey, usize> = HashMap::new();
    let mut out = Vec::new();
    for (name, states) in jobs {
        let bad = |message: String| LayoutError::Job { job: name.to_string(), message };
        let key_text = name.split('_').next().unwrap_or("");
        let key: PartitionKey = key_text.parse().map_err(|e| bad(format!("{e}")))?;
        if key.groups() != space.groups.len() || !space.has_key(&key) {
            return Err(bad(format!("{key} is not a partition of this grouping")));
        }
        let (rows, row_len) = kernel.shape(&key);
        if states == 0 || states % row_len as u64 != 0 {
            return Err(bad(format!("{states} states is not a whole number of rows of {row_len}")));
        }
        let first_row = *next_row.get(&key).unwrap_or(&0);
        let n = (states / row_len as u64) as usize;
        if first_row + n > rows {
            return Err(bad(format!("rows {first_row}..{} pass the end of {key} ({rows} rows)", first_row + n)));
        }
        next_row.insert(key, first_row + n);
        out.push(Layout { key, first_row, rows: n });
    }
    for key in space.keys() {
        let (rows, _) = kernel.shape(&key);
        let done = *next_row.get(&key).unwrap_or(&0);
        if done < rows {
            return Err(LayoutError::Missing { key: key.to_string(), first: done as u64, end: rows as u64 });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Position;

    /// Every partition of 2x2 in one piece, as (name, states).
    fn whole(space: &Space) -> Vec<(String, u64)> {
        space.keys().iter().map(|k| (k.to_string(), space.partition_len(k) as u64)).collect()
    }

    #[test]
    fn whole_partitions_lay_out_from_row_zero_and_a_missing_one_is_named() {
        let space = Space::new(Position::empty("2x2".parse().unwrap()), None).unwrap();
        let jobs = whole(&space);
        let l = layout(&space, jobs.iter().map(|(n, s)| (n.as_str(), *s))).unwrap();
        assert!(l.iter().all(|l| l.first_row == 0));
        assert_eq!(l.len(), space.keys().len());
        let err = layout(&space, jobs[1..].iter().map(|(n, s)| (n.as_str(), *s))).unwrap_err();
        assert!(matches!(err, LayoutError::Missing { ref key, first: 0, .. } if *key == jobs[0].0), "{err}");
    }

    #[test]
    fn a_job_that_is_not_whole_rows_is_refused_by_name() {
        let space = Space::new(Position::empty("2x2".parse().unwrap()), None).unwrap();
        let mut jobs = whole(&space);
        let kernel = Kernel::new(&space);
        let i = jobs.iter().position(|(n, _)| kernel.shape(&n.parse().unwrap()).1 > 1).expect("a row longer than 1");
        jobs[i].1 += 1;
        let err = layout(&space, jobs.iter().map(|(n, s)| (n.as_str(), *s))).unwrap_err();
        assert!(matches!(err, LayoutError::Job { ref job, .. } if *job == jobs[i].0), "{err}");
    }
}
