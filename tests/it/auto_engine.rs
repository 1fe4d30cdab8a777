//! The `auto` engine answers with the engine the cost model prices cheapest, and on the
//! positions of `tests/data/answer/auto-cases.csv` that is the engine measured fastest there
//! (3x4 and 2x6 by the retrograde from 26 undrawn lines up and by the search below, 4x4 and
//! 5x5 positions of 24 to 30 undrawn lines by the search) wherever the two engines' measured
//! times are more than [`NEAR_TIE`] apart; `dab bench --suite search --retrograde
//! --search-cases tests/data/answer/auto-cases.csv --sweep 2` measures them (its `as a hint`
//! times are the file's seconds).

use crate::common;

use dab::answer::Answerer;
use dab::answer::estimate::{EngineCosts, table_bytes_here};
use dab::solver::Simd;
use dab::{CostModel, Position};

/// Measured times this close are a tie either engine may win: the search's count of positions,
/// which its price is made of, is good to about 2x either way.
const NEAR_TIE: f64 = 2.0;

/// Each case: the position, the engine measured fastest, and the two engines' measured seconds
/// (the retrograde's None where it does not take the position).
fn cases() -> Vec<(Position, Answerer, Option<f64>, f64)> {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/answer/auto-cases.csv");
    let mut out = Vec::new();
    for row in std::fs::read_to_string(file).unwrap().lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let pos = Position::from_line_string(f[0].parse().unwrap(), f[1]).unwrap();
        let fastest: Answerer = f[2].parse().unwrap();
        let (partition, search) = (f[3].parse::<f64>().ok(), f[4].parse::<f64>().unwrap());
        // The file's engine is the faster of its two times.
        let measured = match partition {
            Some(p) if p < search => Answerer::Partition,
            _ => Answerer::Search,
        };
        assert_eq!(fastest, measured, "{row}");
        out.push((pos, fastest, partition, search));
    }
    out
}

#[test]
fn auto_picks_the_engine_the_model_prices_cheapest_and_that_is_the_measured_fastest() {
    let cases = cases();
    assert!(cases.len() >= 12, "{} cases", cases.len());
    let mut decided = 0;
    for (pos, fastest, partition, search) in cases {
        let table = table_bytes_here(pos);
        for threads in [1, 2] {
            let model = dab::plan::model_or_built_in();
            let cheapest = EngineCosts::of(pos, model, threads, table).cheapest().unwrap();
            assert_eq!(dab::answer::auto_engine(pos, threads, table), cheapest, "{}", pos.to_line_string());
        }
        // Measured on the 2 threads of the machine the built-in models come from, with the
        // kernel's byte gathers (AVX-512 VBMI): priced by that kernel's model, whatever this
        // CPU has.
        if apart(partition, search) > NEAR_TIE {
            decided += 1;
            let built_in = EngineCosts::of(pos, &CostModel::built_in_for(Simd::Vbmi), 2, table);
            assert_eq!(built_in.cheapest(), Some(fastest), "{} {}: {built_in:?}", pos.board, pos.to_line_string());
        }
    }
    assert!(decided >= 12, "{decided} cases decided");
}

/// How many times faster the faster engine was (infinite where only the search takes it).
fn apart(partition: Option<f64>, search: f64) -> f64 {
    partition.map_or(f64::INFINITY, |p| p.max(search) / p.min(search))
}

#[test]
fn a_hint_answers_with_the_cheapest_engine() {
    let cases = cases();
    // The quickest of each kind, of those decided by far more than a tie (so that the kernel
    // this CPU runs, with byte gathers or without, does not change the answer): a 3x4
    // position the retrograde takes, a 5x5 one the search takes.
    for (board, engine, want) in [("3x4", Answerer::Partition, "solved"), ("5x5", Answerer::Search, "search")] {
        let (pos, ..) = cases
            .iter()
            .filter(|&&(p, fastest, partition, search)| {
                p.board.to_string() == board && fastest == engine && apart(partition, search) > 4.0
            })
            .min_by_key(|(p, ..)| p.undrawn().len())
            .unwrap();
        let a = common::json_out(&["hint", board, "--lines", &pos.to_line_string(), "--json"], None);
        assert_eq!(a["source"], want, "{a}");
    }
}
