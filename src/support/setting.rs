//! What a user sets that a library error refuses, or that would answer it, named by type. Each
//! error that can blame a setting says which in an exhaustive match over its variants, so a
//! new variant must decide; the binary turns a setting into its flag (the library's messages
//! never name flags).

/// A setting a library error refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// How many groups the lines are split into.
    Groups,
    /// Wilson's last-move penalty.
    Penalty,
    /// The memory limit of a run or a simulation.
    MemLimit,
    /// The store's bandwidth in a simulation.
    Bandwidth,
    /// How partitions are split into pieces.
    Split,
    /// The graph's scheme.
    Scheme,
    /// The quadrants' symmetry.
    Symmetry,
    /// A thread count.
    Threads,
    /// How many times a measurement is repeated.
    Repeats,
    /// The search's transposition table size.
    TableSize,
}

impl Setting {
    /// Every setting, for a test that each has a flag.
    pub const ALL: [Setting; 10] = [
        Setting::Groups,
        Setting::Penalty,
        Setting::MemLimit,
        Setting::Bandwidth,
        Setting::Split,
        Setting::Scheme,
        Setting::Symmetry,
        Setting::Threads,
        Setting::Repeats,
        Setting::TableSize,
    ];
}

/// A setting that would answer what an error refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remedy {
    /// The search engine, which tries positions past the retrograde solver's reach.
    SearchEngine,
    /// The automatic engine choice, or the search engine.
    AutoOrSearchEngine,
    /// A store with a solve that holds the position.
    StoreHolding,
    /// A store, any.
    Store,
}
