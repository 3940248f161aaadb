//! Game-theoretic values: win, draw or loss for the side to move.

use std::fmt;

/// The value of a position for the side to move, with perfect play and the default rules.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Wdl {
    /// The side to move loses.
    Loss = 0,
    /// Neither side can force a win.
    Draw = 1,
    /// The side to move wins.
    Win = 2,
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

    /// The 2-bit code stored in table files (0 loss, 1 draw, 2 win); 3 is never a value.
    #[inline]
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The value of a 2-bit code, `None` for 3.
    #[inline]
    pub const fn from_code(code: u8) -> Option<Wdl> {
        match code {
            0 => Some(Wdl::Loss),
            1 => Some(Wdl::Draw),
            2 => Some(Wdl::Win),
            _ => None,
        }
    }

    /// The word printed by `damasi tb probe`: `win`, `draw` or `loss`.
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
