//! Game-theoretic values: win, draw or loss for the side to move.

use std::fmt;

/// The value of a position for the side to move with perfect play: what endgame tables store
/// and what the engine's endgame oracle answers. Ordered from the mover's point of view:
/// `Loss < Draw < Win`, so the best of several values is their maximum.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// The value for the other side: a win for one is a loss for the other.
    #[inline]
    pub const fn negate(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// `win`, `draw` or `loss` (the word `damasi tb probe` prints and the Python API answers).
    pub const fn name(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_negate_order_and_print() {
        assert_eq!(Wdl::Win.negate(), Wdl::Loss);
        assert_eq!(Wdl::Draw.negate(), Wdl::Draw);
        assert_eq!(Wdl::Loss.negate(), Wdl::Win);
        assert!(Wdl::Loss < Wdl::Draw && Wdl::Draw < Wdl::Win);
        assert_eq!(Wdl::Win.to_string(), "win");
        assert_eq!(Wdl::Loss.name(), "loss");
    }
}
