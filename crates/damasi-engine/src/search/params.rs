//! Switches for the selective parts of the search: constants in a normal build, so that the
//! compiler drops the branches of the parts that are off; fields that a tuning or ablation
//! run can set with the `tune` cargo feature (`cargo build --release -p damasi-tools
//! --features tune`).
//!
//! Each part can be measured in self-play (`cargo run --release -p damasi-tools --features
//! tune --example tune -- ab <part> [nodes]`). Measured at fixed nodes against the same search without the part, 100 openings, both colours:
//! RFP +82 =51 -67; ProbCut +77 =48 -75 (3000 nodes) and +68 =53 -79 (8000 nodes);
//! LMR +87 =40 -73; LMP +72 =38 -90 (3000) and +68 =69 -63 (6000). None is significant at
//! this size; LMP is off by default. The threat answer at the horizon cost more nodes than
//! it found: the search without it won +91 =47 -62 at 3000 nodes, so it is off.
//!
//! Later parts were measured with `damasi match --nodes 100000 --sprt 0,20` between two
//! engine processes, the 200 openings of `damasi-tools/data/openings-200.txt`: internal
//! iterative reduction +57 =68 -21 (+87.5 ± 43.6 Elo, H1, on); history-adjusted reductions on
//! top of it +9.6 ± 10.7 over 800 games (no decision, off); a counter-move in the move order
//! H0 (-1.6 ± 16.7, removed); IIR from depth 3 instead of 4 H0 (-3.2 ± 18.4).

/// Declares [`SearchParams`]: without the `tune` feature a unit struct whose methods return
/// the constants; with it, a struct of `bool` fields (starting at the same values) whose
/// methods read them. The search calls the methods either way.
macro_rules! switches {
    ($( $(#[$doc:meta])* $name:ident = $on:expr; )*) => {
        /// The search's switches, settable (the `tune` feature).
        #[cfg(feature = "tune")]
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub struct SearchParams {
            $( $(#[$doc])* pub $name: bool, )*
        }

        #[cfg(feature = "tune")]
        impl SearchParams {
            $( $(#[$doc])* #[inline(always)] pub fn $name(&self) -> bool { self.$name } )*
        }

        #[cfg(feature = "tune")]
        impl Default for SearchParams {
            fn default() -> Self {
                SearchParams { $( $name: $on, )* }
            }
        }

        /// The search's switches, constants (build with the `tune` feature to set them).
        #[cfg(not(feature = "tune"))]
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
        pub struct SearchParams;

        #[cfg(not(feature = "tune"))]
        impl SearchParams {
            $( $(#[$doc])* #[inline(always)] pub const fn $name(&self) -> bool { $on } )*
        }
    };
}

switches! {
    /// Reverse futility pruning near the horizon.
    rfp = true;
    /// ProbCut.
    probcut = true;
    /// Late-move pruning near the horizon. Off: in 400 self-play games (3000 and 6000 nodes
    /// a move) the search with it scored 46.75% against the same search without it.
    lmp = false;
    /// Late-move reductions.
    lmr = true;
    /// At the horizon, answer a threatened capture with one ply of quiet moves instead of
    /// evaluating.
    threat_qs = false;
    /// Internal iterative reduction: a node of depth 4 or more without a move from the
    /// transposition table searches one ply less.
    iir = true;
    /// Late-move reductions lessened (or deepened) by the move's history.
    history_lmr = false;
    /// Lazy evaluation at the horizon: with pattern tables or a network (the default), a
    /// position whose feature sum is far outside the window skips them
    /// ([`crate::eval::evaluate_within`]). No effect with the features alone.
    lazy_eval = true;
}
