//! The memory suite: the process's peak resident set against a memory limit. Each board runs
//! unlimited on each thread count, then with a store under 1, 0.5 and 0.25 times that peak,
//! each run by a function the binary implements as a process of its own, so that every peak is
//! that run's alone.

use serde::Serialize;

/// Fractions of the unlimited peak tried as limits.
pub(crate) const FRACTIONS: [f64; 3] = [1.0, 0.5, 0.25];
/// Slack a limited run may take beyond its limit, as a ratio: the bound a run must keep is
/// 1.05 x limit + 150 MB (the allocator's and the system's share, which no count sees).
const SLACK_RATIO: f64 = 1.05;
/// Slack a limited run may take beyond its limit, in bytes.
const SLACK_BYTES: f64 = 150e6;

/// What one run gave: its figures, or its refusal of a limit below the least the planner can
/// keep (a result too).
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The run's figures.
    Ran(RunFigures),
    /// The limit was refused before the run: why.
    Refused(String),
}

/// The figures of one run that the rows report.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunFigures {
    /// The process's peak resident set.
    pub peak_rss_bytes: u64,
    /// Its prediction.
    pub predicted_peak_rss_bytes: Option<u64>,
    /// The peak of values held.
    pub peak_value_bytes: u64,
    /// Wall seconds of the run.
    pub seconds: f64,
}

/// One run of the suite.
#[derive(Clone, Debug, Serialize)]
pub struct MemoryRow {
    /// The board.
    pub board: String,
    /// Threads of the run.
    pub threads: usize,
    /// Limit as a fraction of the unlimited peak (empty for the unlimited run).
    pub fraction: Option<f64>,
    /// The limit (empty for the unlimited run).
    pub limit_bytes: Option<u64>,
    /// The process's peak resident set.
    pub peak_rss_bytes: u64,
    /// Its prediction.
    pub predicted_peak_rss_bytes: Option<u64>,
    /// The peak of values held.
    pub peak_value_bytes: u64,
    /// Peak RSS over the limit (empty for the unlimited run).
    pub rss_over_limit: Option<f64>,
    /// Whether the peak kept within 1.05 x limit + 150 MB.
    pub within_bound: Option<bool>,
    /// Wall seconds of the run.
    pub seconds: f64,
    /// Why a limit was refused (below the least the planner can keep), else empty.
    pub refused: String,
}

impl MemoryRow {
    /// The row of a run of `board` on `threads` threads under `limit` (a `fraction` of the
    /// unlimited peak; None: unlimited).
    pub fn new(board: &str, threads: usize, fraction: Option<f64>, limit: Option<u64>, outcome: &Outcome) -> MemoryRow {
        let (f, refused) = match outcome {
            Outcome::Ran(f) => (*f, String::new()),
            Outcome::Refused(why) => (RunFigures::default(), why.clone()),
        };
        let rss = f.peak_rss_bytes;
        let ran = refused.is_empty();
        MemoryRow {
            board: board.to_string(),
            threads,
            fraction,
            limit_bytes: limit,
            peak_rss_bytes: rss,
            predicted_peak_rss_bytes: f.predicted_peak_rss_bytes,
            peak_value_bytes: f.peak_value_bytes,
            rss_over_limit: limit.map(|l| rss as f64 / l as f64),
            within_bound: limit.filter(|_| ran).map(|l| rss as f64 <= SLACK_RATIO * l as f64 + SLACK_BYTES),
            seconds: f.seconds,
            refused,
        }
    }
}

/// How the suite runs a board: `run(board, threads, limit)` (None: unlimited).
pub(crate) type RunBoard<'a, E> = dyn FnMut(&str, usize, Option<u64>) -> Result<Outcome, E> + 'a;

/// Every board on every thread count, run by `run(board, threads, limit)`: unlimited, then at
/// each fraction of its peak. `each` hears each row.
pub fn rows<E>(
    boards: &[String],
    threads: &[usize],
    run: &mut RunBoard<E>,
    each: &mut dyn FnMut(&MemoryRow),
) -> Result<Vec<MemoryRow>, E> {
    let mut rows = Vec::new();
    for board in boards {
        for &p in threads {
            let unlimited = MemoryRow::new(board, p, None, None, &run(board, p, None)?);
            each(&unlimited);
            let peak = unlimited.peak_rss_bytes;
            rows.push(unlimited);
            for f in FRACTIONS {
                let limit = (peak as f64 * f) as u64;
                let r = MemoryRow::new(board, p, Some(f), Some(limit), &run(board, p, Some(limit))?);
                each(&r);
                rows.push(r);
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_board_runs_unlimited_then_at_each_fraction_of_its_peak() {
        let mut asked = Vec::new();
        let mut run = |board: &str, threads: usize, limit: Option<u64>| -> Result<Outcome, String> {
            asked.push((board.to_string(), threads, limit));
            Ok(match limit {
                None => Outcome::Ran(RunFigures { peak_rss_bytes: 1_000_000_000, seconds: 1.0, ..Default::default() }),
                // 100 MB over each limit, within 1.05 x limit + 150 MB; a quarter is refused.
                Some(l) if l >= 400_000_000 => {
                    Outcome::Ran(RunFigures { peak_rss_bytes: l + 100_000_000, ..Default::default() })
                }
                Some(_) => Outcome::Refused("no candidate fits".into()),
            })
        };
        let rows = rows(&["3x3".to_string()], &[2], &mut run, &mut |_| {}).unwrap();
        let limits: Vec<Option<u64>> = asked.iter().map(|a| a.2).collect();
        assert_eq!(limits, [None, Some(1_000_000_000), Some(500_000_000), Some(250_000_000)]);
        assert_eq!(rows.len(), 4);
        assert_eq!((rows[0].fraction, rows[0].within_bound, rows[0].rss_over_limit), (None, None, None));
        assert_eq!(rows[1].within_bound, Some(true));
        assert!((rows[2].rss_over_limit.unwrap() - 1.2).abs() < 1e-12);
        assert_eq!((rows[3].within_bound, rows[3].refused.as_str()), (None, "no candidate fits"));
        let mut csv = csv::Writer::from_writer(Vec::new());
        csv.serialize(&rows[0]).unwrap();
        let text = String::from_utf8(csv.into_inner().unwrap()).unwrap();
        assert_eq!(
            text.lines().next().unwrap(),
            "board,threads,fraction,limit_bytes,peak_rss_bytes,predicted_peak_rss_bytes,peak_value_bytes,\
             rss_over_limit,within_bound,seconds,refused"
        );
    }
}
