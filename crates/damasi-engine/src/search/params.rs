//! Switches for the selective parts of the search.

/// Switches for the selective parts of the search, to measure each one in self-play
/// (`cargo run --release -p damasi-tools --example tune -- ab <part> [nodes]`). Measured at
/// fixed nodes against the same search without the part, 100 openings, both colours:
/// RFP +82 =51 -67; ProbCut +77 =48 -75 (3000 nodes) and +68 =53 -79 (8000 nodes);
/// LMR +87 =40 -73; LMP +72 =38 -90 (3000) and +68 =69 -63 (6000). None is significant at
/// this size; LMP is off by default. The threat answer at the horizon cost more nodes than
/// it found: the search without it won +91 =47 -62 at 3000 nodes, so it is off.
///
/// Later parts were measured with `damasi match --nodes 100000 --sprt 0,20` between two
/// engine processes, the 200 openings of `damasi-tools/data/openings-200.txt`: internal
/// iterative reduction +57 =68 -21 (+87.5 ± 43.6 Elo, H1, on); history-adjusted reductions on
/// top of it +9.6 ± 10.7 over 800 games (no decision, off); a counter-move in the move order
/// H0 (-1.6 ± 16.7, removed); IIR from depth 3 instead of 4 H0 (-3.2 ± 18.4).
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
    /// Internal iterative reduction: a node of depth 4 or more without a move from the
    /// transposition table searches one ply less.
    pub iir: bool,
    /// Late-move reductions lessened (or deepened) by the move's history.
    pub history_lmr: bool,
    /// Lazy evaluation at the horizon: with pattern tables or a network (the default), a
    /// position whose feature sum is far outside the window skips them
    /// ([`crate::eval::evaluate_within`]). No effect with the features alone.
    pub lazy_eval: bool,
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
            iir: true,
            history_lmr: false,
            lazy_eval: true,
        }
    }
}
