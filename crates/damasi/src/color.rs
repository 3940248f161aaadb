//! The two sides and the two kinds of piece.

use std::fmt;
use std::ops::{Index, IndexMut, Not};

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

    /// The side a person or a program names: `white` or `black`, or the letter `w` or `b`
    /// ([`Color::letter`]), in any case; `None` for anything else.
    ///
    /// ```
    /// use damasi::Color;
    ///
    /// assert_eq!(Color::from_name("black"), Some(Color::Black));
    /// assert_eq!(Color::from_name("W"), Some(Color::White));
    /// assert_eq!(Color::from_name("random"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Color> {
        Color::BOTH.into_iter().find(|c| {
            name.eq_ignore_ascii_case(c.name())
                || name.eq_ignore_ascii_case(c.letter().encode_utf8(&mut [0; 4]))
        })
    }

    /// 0 for White, 1 for Black: the place of this side in a table of two, White first.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
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

/// One value for each side, read and written by colour.
///
/// ```
/// use damasi::{ByColor, Color};
///
/// let mut offers = ByColor::new(0, 0);
/// offers[Color::Black] += 1;
/// assert_eq!(offers.get(Color::Black), &1);
/// assert_eq!(offers.map(|n| n * 2), ByColor { white: 0, black: 2 });
/// ```
///
/// With the `serde` feature it is the object `{"white": .., "black": ..}`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ByColor<T> {
    /// White's value.
    pub white: T,
    /// Black's value.
    pub black: T,
}

impl<T> ByColor<T> {
    /// White's value and Black's.
    pub const fn new(white: T, black: T) -> ByColor<T> {
        ByColor { white, black }
    }

    /// Each side's value from its colour.
    pub fn from_fn(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        ByColor {
            white: f(Color::White),
            black: f(Color::Black),
        }
    }

    /// `color`'s value.
    #[inline]
    pub fn get(&self, color: Color) -> &T {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// `color`'s value, to change.
    #[inline]
    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    /// Both values, White's first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        [&self.white, &self.black].into_iter()
    }

    /// Both values passed through `f`, White's first.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByColor<U> {
        ByColor {
            white: f(self.white),
            black: f(self.black),
        }
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;

    #[inline]
    fn index(&self, color: Color) -> &T {
        self.get(color)
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    #[inline]
    fn index_mut(&mut self, color: Color) -> &mut T {
        self.get_mut(color)
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
