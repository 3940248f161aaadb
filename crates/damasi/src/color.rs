//! The two sides and the two kinds of piece.

use std::fmt;
use std::ops::Not;

use crate::bitboard::{Dir, RANK_1, RANK_8};

/// A side: White moves first, up the board (towards rank 8).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    /// The side that starts on ranks 2 and 3 and moves first.
    White = 0,
    /// The side that starts on ranks 6 and 7.
    Black = 1,
}

impl Color {
    /// Both sides, White first.
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    /// The direction this side's men move forward.
    #[inline(always)]
    pub const fn forward(self) -> Dir {
        match self {
            Color::White => Dir::North,
            Color::Black => Dir::South,
        }
    }

    /// The rank on which this side's men are promoted.
    #[inline(always)]
    pub const fn promotion_rank(self) -> u64 {
        match self {
            Color::White => RANK_8,
            Color::Black => RANK_1,
        }
    }

    /// The rank a man of this side can never stand on (its own back rank: men never move back).
    #[inline(always)]
    pub const fn back_rank(self) -> u64 {
        match self {
            Color::White => RANK_1,
            Color::Black => RANK_8,
        }
    }

    /// The letter used in FEN and PDN: `W` or `B`.
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }

    /// The lower-case English name.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl Not for Color {
    type Output = Color;

    #[inline(always)]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "White",
            Color::Black => "Black",
        })
    }
}

/// The kind of a piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Role {
    /// A man: one step forward or sideways, captures forward or sideways.
    Man = 0,
    /// A king (dama): slides along ranks and files, flying captures.
    King = 1,
}

/// A piece: a side and a kind.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// Man or king.
    pub role: Role,
}
