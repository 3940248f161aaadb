//! Squares of the 8x8 board, named algebraically (`a1` .. `h8`).

use std::fmt;
use std::str::FromStr;

/// One of the 64 squares. Index = rank * 8 + file, so `a1` = 0, `h1` = 7, `a2` = 8, `h8` = 63.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square(u8);

impl Square {
    /// Number of squares on the board.
    pub const COUNT: usize = 64;

    /// The square with the given index (0..64), or `None`.
    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square with the given index; the caller guarantees `index < 64`.
    #[inline]
    pub(crate) const fn new_unchecked(index: u8) -> Square {
        debug_assert!(index < 64);
        Square(index)
    }

    /// The square on `file` (0 = a .. 7 = h) and `rank` (0 = rank 1 .. 7 = rank 8).
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    /// Index 0..64 (a1 = 0).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 0..8 (a = 0).
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// Rank 0..8 (rank 1 = 0).
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The one-bit bitboard of this square.
    #[inline]
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// The number pydraughts and the Hub protocol's move strings use: a1 = 1, b1 = 2, .., h8 = 64.
    #[inline]
    pub const fn number(self) -> u8 {
        self.0 + 1
    }

    /// The square with pydraughts/Hub number `n` (1..=64).
    pub const fn from_number(n: u8) -> Option<Square> {
        if n >= 1 && n <= 64 {
            Some(Square(n - 1))
        } else {
            None
        }
    }

    /// The name's two characters: the file's letter and the rank's digit.
    #[inline]
    fn name_chars(self) -> [char; 2] {
        [(b'a' + self.file()) as char, (b'1' + self.rank()) as char]
    }

    /// Appends the square's name (`d3`) to `s`: what `to_string` writes, without the
    /// formatting machinery (a page's legal moves write some hundred squares a ply).
    #[inline]
    pub(crate) fn push_name(self, s: &mut String) {
        s.extend(self.name_chars());
    }

    /// The square's name (`d3`), as `to_string` writes it.
    #[inline]
    pub(crate) fn name(self) -> String {
        let mut s = String::with_capacity(2);
        self.push_name(&mut s);
        s
    }

    /// All squares from a1 to h8.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        let [file, rank] = self.name_chars();
        f.write_char(file)?;
        f.write_char(rank)
    }
}

/// Error for text that is not a square name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError(pub String);

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not a square (expected a1..h8)", self.0)
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(ParseSquareError(s.to_string()));
        }
        let file = b[0].to_ascii_lowercase().wrapping_sub(b'a');
        let rank = b[1].wrapping_sub(b'1');
        Square::from_coords(file, rank).ok_or_else(|| ParseSquareError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
        assert_eq!("a1".parse::<Square>().unwrap().index(), 0);
        assert_eq!("h8".parse::<Square>().unwrap().index(), 63);
        assert_eq!("d4".parse::<Square>().unwrap().number(), 28);
        assert!("i1".parse::<Square>().is_err());
        assert!("a9".parse::<Square>().is_err());
        assert!("a".parse::<Square>().is_err());
        assert!("ä1".parse::<Square>().is_err());
    }
}
