//! 64-bit boards (bit i = square i, a1 = bit 0) and the orthogonal shifts that move men and
//! slide kings. All 64 squares are used, so north/south are shifts by 8 and east/west are
//! shifts by 1 with a file mask that stops pieces wrapping round the board edge.

use crate::square::Square;

/// File a (leftmost column seen from White).
pub const FILE_A: u64 = 0x0101_0101_0101_0101;
/// File h (rightmost column seen from White).
pub const FILE_H: u64 = FILE_A << 7;
/// Rank 1 (White's back rank, Black's promotion rank).
pub const RANK_1: u64 = 0xFF;
/// Rank 8 (Black's back rank, White's promotion rank).
pub const RANK_8: u64 = 0xFF << 56;

/// One of the four orthogonal directions, seen from White.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
#[repr(u8)]
pub enum Dir {
    /// Towards rank 8.
    North = 0,
    /// Towards file h.
    East = 1,
    /// Towards rank 1.
    South = 2,
    /// Towards file a.
    West = 3,
}

impl Dir {
    /// All four directions.
    pub const ALL: [Dir; 4] = [Dir::North, Dir::East, Dir::South, Dir::West];

    /// The direction turned 180 degrees.
    #[inline]
    pub const fn opposite(self) -> Dir {
        match self {
            Dir::North => Dir::South,
            Dir::East => Dir::West,
            Dir::South => Dir::North,
            Dir::West => Dir::East,
        }
    }
}

/// Every piece of `b` moved one square in `dir`; pieces that would leave the board vanish.
#[inline(always)]
pub const fn shift(b: u64, dir: Dir) -> u64 {
    match dir {
        Dir::North => b << 8,
        Dir::South => b >> 8,
        Dir::East => (b & !FILE_H) << 1,
        Dir::West => (b & !FILE_A) >> 1,
    }
}

/// Occluded fill (Kogge-Stone): the squares of `from` plus every square reachable from them in
/// `dir` over squares of `empty`, stopping before the first non-empty square.
#[inline(always)]
pub const fn fill(from: u64, empty: u64, dir: Dir) -> u64 {
    let mut gen = from;
    match dir {
        Dir::North => {
            let mut prop = empty;
            gen |= prop & (gen << 8);
            prop &= prop << 8;
            gen |= prop & (gen << 16);
            prop &= prop << 16;
            gen |= prop & (gen << 32);
        }
        Dir::South => {
            let mut prop = empty;
            gen |= prop & (gen >> 8);
            prop &= prop >> 8;
            gen |= prop & (gen >> 16);
            prop &= prop >> 16;
            gen |= prop & (gen >> 32);
        }
        Dir::East => {
            let mut prop = empty & !FILE_A;
            gen |= prop & (gen << 1);
            prop &= prop << 1;
            gen |= prop & (gen << 2);
            prop &= prop << 2;
            gen |= prop & (gen << 4);
        }
        Dir::West => {
            let mut prop = empty & !FILE_H;
            gen |= prop & (gen >> 1);
            prop &= prop >> 1;
            gen |= prop & (gen >> 2);
            prop &= prop >> 2;
            gen |= prop & (gen >> 4);
        }
    }
    gen
}

/// The lowest square of a non-empty bitboard.
#[inline(always)]
pub(crate) fn lowest(b: u64) -> Square {
    debug_assert!(b != 0);
    Square::new_unchecked(b.trailing_zeros() as u8)
}

/// Iterator over the squares of a bitboard, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct Squares(pub u64);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = lowest(self.0);
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_do_not_wrap() {
        assert_eq!(shift(FILE_H, Dir::East), 0);
        assert_eq!(shift(FILE_A, Dir::West), 0);
        assert_eq!(shift(RANK_8, Dir::North), 0);
        assert_eq!(shift(RANK_1, Dir::South), 0);
        assert_eq!(shift(1, Dir::East), 2);
        assert_eq!(shift(1, Dir::North), 256);
    }

    #[test]
    fn fill_stops_at_blockers() {
        // From a1 east along an empty first rank except d1.
        let empty: u64 = !(1 << 3) & !1;
        assert_eq!(fill(1, empty, Dir::East), 0b111);
        // From a1 north on an empty board reaches a8.
        assert_eq!(fill(1, !1, Dir::North), FILE_A);
        // From h1 west on an empty board reaches a1, and nothing on rank 2.
        assert_eq!(fill(1 << 7, !(1 << 7), Dir::West), RANK_1);
    }
}
