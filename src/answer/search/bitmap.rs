//! Maps of search states bit by bit, by byte tables: a symmetry's permutation of the lines, or
//! a renumbering of them into another space.

/// A map of states bit by bit: `tables[byte][bits]` is the image of `bits` in byte `byte` of a
/// state, so that mapping a state is a lookup per byte its bits reach (a symmetry's
/// permutation, a renumbering): five for the 40 lines of 4x4, whose tables then stay nearer the
/// processor than eight would.
pub(super) struct BitMap(Box<[[u64; 256]]>);

impl BitMap {
    /// The map sending bit i to `images[i]` (bits past the slice to nothing; a state's bits
    /// past it must be clear).
    pub(super) fn new(images: &[u64]) -> BitMap {
        let mut t = vec![[0u64; 256]; images.len().div_ceil(8)].into_boxed_slice();
        for (byte, table) in t.iter_mut().enumerate() {
            for (bits, image) in table.iter_mut().enumerate() {
                *image = (0..8)
                    .filter(|b| bits >> b & 1 == 1)
                    .filter_map(|b| images.get(byte * 8 + b))
                    .fold(0, |m, i| m | i);
            }
        }
        BitMap(t)
    }

    /// The image of state `s`.
    pub(super) fn apply(&self, s: u64) -> u64 {
        self.0.iter().enumerate().fold(0, |m, (byte, table)| m | table[(s >> (8 * byte)) as usize & 0xff])
    }
}
