//! The statistics every report shares: medians of repeated timings, nearest-rank quantiles of
//! error distributions, and the rounding that keeps printed ratios stable text.

/// The median of repeated timings (the upper one of an even count); sorts them.
pub fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Quantile `q` (0..=1) of sorted values, nearest rank; 0 for no values. Hand-made: the
/// statistics crates interpolate between ranks, and the reports quote a value that occurred.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// `x` rounded to a whole `u64`, or None where it is not a number, negative, or beyond
/// `u64::MAX` (an `as` cast would silently saturate or give 0).
pub fn rounded_u64(x: f64) -> Option<u64> {
    // 2^64 is exact in f64; every f64 below it rounds to an integer below it.
    (0.0..18_446_744_073_709_551_616.0).contains(&x).then(|| x.round() as u64)
}

/// Four decimals: enough for every ratio reported, and stable text.
pub fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_an_even_count_is_the_upper_middle_value() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 3.0);
    }

    #[test]
    fn quantiles_take_the_nearest_rank() {
        let sorted = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(quantile(&sorted, 0.5), 5.0);
        assert_eq!(quantile(&sorted, 0.9), 9.0);
        assert_eq!(quantile(&sorted, 0.0), 1.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
        assert_eq!(round4(1.234_56), 1.2346);
    }
}
