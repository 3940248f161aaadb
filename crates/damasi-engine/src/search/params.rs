//! Switches for the selective parts of the search.

/// Switches for the selective parts of the search, to measure each one in self-play
/// (`cargo run --release -p damasi-tools --example tune -- ab <part> [nodes]`). Measured at
/// fixed nodes against the same search without the part, 100 openings, both colours:
/// RFP +82 =51 -67; ProbCut +77 =48 -75 (3000 nodes) and +68 =53 -79 (8000 nodes);
/// LMR +87 =40 -73; LMP +72 =38 -90 (3000) and +68 =69 -63 (6000). None is significant at
/// this size; LMP is off by default. The threat answer at the horizon cost more nodes than
/// it found: the search without it won +91 =47 -62 at 3000 nodes, so it is off.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SearchParams {
    /// Reverse futility pruning near the horizon.
    pub rfp: bool,
    /// ProbCut.
    pub probcut: bool,
    /// Late-move pruning near the horizon.
    pub lmp: bool,
    /// Late-move reductions.
    pub lmr: bool,
    /// At the horizon, answer a threatened capture with one ply of quiet moves instead of
    /// evaluating.
    pub threat_qs: bool,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            rfp: true,
            probcut: true,
            // Off: in 400 self-play games (3000 and 6000 nodes a move) the search with it
            // scored 46.75% against the same search without it.
            lmp: false,
            lmr: true,
            threat_qs: false,
        }
    }
}
