//! A seeded generator for the picks that must be reproducible: the files `dab verify
//! --recompute` checks, and the random positions of the tests.

/// SplitMix64 (Steele, Lea and Flood): small, seeded, reproducible, good enough to sample
/// with; not for anything that must be unpredictable. The state is the seed advanced once per
/// draw.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0; the modulo bias is negligible for the sizes used).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_sequence_and_the_reference_first_value() {
        let mut a = SplitMix64(0);
        let mut b = SplitMix64(0);
        // The first output of SplitMix64 seeded with 0 (the reference implementation's).
        assert_eq!(a.next_u64(), 0xe220_a839_7b1d_cdaf);
        b.next_u64();
        assert_eq!((0..5).map(|_| a.below(10)).collect::<Vec<_>>(), (0..5).map(|_| b.below(10)).collect::<Vec<_>>());
    }
}
