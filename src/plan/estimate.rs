//! What a whole solve too large to plan would cost: the solver's count of its positions,
//! priced by the cost model as a notional solve (rows of 1,024 positions, two thirds of the
//! moves in the outer groups, a third in the inner group, made lane by lane or, by a model of
//! the kernel with byte gathers, gathered, three successor partitions read per position) on
//! the threads asked for. An order of magnitude, said as one: it is what
//! `dab solve`, `dab plan` and `dab run` answer for a root the retrograde cannot take, where a
//! plan would take longer to make than to refuse.

use std::fmt;

use crate::game::Position;
use crate::sched::{CostModel, PerTerm, Term};
use crate::solver::SizeEstimate;
use crate::support::{about_bytes, about_seconds};

/// Positions per kernel row assumed by the notional solve.
const ROW: f64 = 1024.0;
/// Successor partitions each position's partition reads, assumed.
const READS: f64 = 3.0;
/// Gathered lanes per inner move, for a model of the kernel with byte gathers: a step of 64
/// lanes holds about 32 moves (docs/notes/kernel-profile.md, "Byte gathers over wide rows").
const GATHERED_PER_MOVE: f64 = 2.0;

/// A whole solve's size and its time on some threads, about.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveEstimate {
    /// The counted size.
    pub size: SizeEstimate,
    /// Seconds on `threads` threads by the cost model, contention included.
    pub seconds: f64,
    /// The thread count priced.
    pub threads: usize,
}

impl SolveEstimate {
    /// Counts the solve of `root` and prices it with `model` on `threads` threads.
    pub fn of(root: Position, model: &CostModel, threads: usize) -> SolveEstimate {
        let size = SizeEstimate::of(root);
        let states = size.states();
        let moves = size.moves / states.max(1.0);
        // The terms of one position of the notional solve.
        let mut f = PerTerm::default();
        f[Term::State] = 1.0;
        f[Term::Row] = 1.0 / ROW;
        f[Term::OuterMove] = moves * 2.0 / 3.0;
        if model.simd.gathers() {
            f[Term::InnerMove] = moves / 3.0 * GATHERED_PER_MOVE;
        } else {
            f[Term::LaneInnerMove] = moves / 3.0;
        }
        f[Term::InputByte] = READS;
        f[Term::OuterPass] = moves * 2.0 / 3.0 / ROW;
        f[Term::InnerPass] = moves / 3.0 / ROW;
        let ns = model.coefficients.dot(&f);
        let threads = threads.max(1);
        let seconds = states * ns * model.contention(threads) / threads as f64 / 1e9;
        SolveEstimate { size, seconds, threads }
    }
}

impl fmt::Display for SolveEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let states = self.size.states();
        write!(
            f,
            "a whole solve would store about {states:.2e} positions ({} of values, about {} of them at once through a store) and take about {} on {} by the cost model",
            about_bytes(states),
            about_bytes(self.size.peak_states()),
            about_seconds(self.seconds),
            crate::support::count_of(self.threads as u64, "thread"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Simd;

    #[test]
    fn known_solves_are_priced_within_a_factor_of_two() {
        // Whole solves timed on the machines the shipped models come from, on 2 threads, by the
        // kernel with byte gathers (an Intel Xeon) and without (`dab --simd avx2`, an AMD EPYC).
        for (simd, times) in
            [(Simd::Vbmi, [("3x5", 46.5), ("4x4", 110.2)]), (Simd::Avx2, [("3x5", 36.41), ("4x4", 111.97)])]
        {
            let model = CostModel::built_in_for(simd);
            for (b, seconds) in times {
                let e = SolveEstimate::of(Position::empty(b.parse().unwrap()), &model, 2);
                assert!((seconds / 2.0..=seconds * 2.0).contains(&e.seconds), "{simd} {b}: {e}");
            }
        }
    }

    #[test]
    fn the_largest_boards_are_priced_without_overflow() {
        let model = CostModel::built_in();
        let e = SolveEstimate::of(Position::empty("16x16".parse().unwrap()), &model, 16);
        assert!(e.seconds.is_finite() && e.seconds > 1e100);
        let text = e.to_string();
        assert!(text.contains("years") && text.contains("16 threads"), "{text}");
    }
}
