//! A placement: the four piece sets of a position seen from the side to move, which is called
//! White. Tables store White to move only; a position with Black to move is turned into one
//! with White to move by the colour flip (colours exchanged, board turned upside down).

use damasi::{Color, Position};

use crate::signature::Signature;

/// The board turned upside down (rank 1 becomes rank 8): a byte swap.
#[inline(always)]
pub const fn flip_vertical(b: u64) -> u64 {
    b.swap_bytes()
}

/// The board mirrored left to right (file a becomes file h): reversing all 64 bits turns the
/// board by 180 degrees, and the byte swap turns the ranks back.
#[inline(always)]
pub const fn mirror(b: u64) -> u64 {
    b.reverse_bits().swap_bytes()
}

/// Piece sets of a position with White to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Placement {
    /// White men (never on rank 1 or 8).
    pub wm: u64,
    /// White kings.
    pub wk: u64,
    /// Black men (never on rank 1 or 8).
    pub bm: u64,
    /// Black kings.
    pub bk: u64,
}

impl Placement {
    /// The placement of `pos` from the side to move's point of view (flipped if Black is to
    /// move).
    pub fn of(pos: &Position) -> Placement {
        let p = Placement {
            wm: pos.men_of(Color::White),
            wk: pos.kings_of(Color::White),
            bm: pos.men_of(Color::Black),
            bk: pos.kings_of(Color::Black),
        };
        match pos.side_to_move() {
            Color::White => p,
            Color::Black => p.flip(),
        }
    }

    /// Colours exchanged and the board turned upside down: the same game with the other side
    /// to move.
    #[inline]
    pub fn flip(self) -> Placement {
        Placement {
            wm: flip_vertical(self.bm),
            wk: flip_vertical(self.bk),
            bm: flip_vertical(self.wm),
            bk: flip_vertical(self.wk),
        }
    }

    /// The placement mirrored left to right (the rules are symmetric under it).
    #[inline]
    pub fn mirror(self) -> Placement {
        Placement {
            wm: mirror(self.wm),
            wk: mirror(self.wk),
            bm: mirror(self.bm),
            bk: mirror(self.bk),
        }
    }

    /// Whether two placements one quiet move away from this one (reached by a move, or
    /// leading here by one) can be each other's mirror image, and so share a mirror-reduced
    /// entry. A move changes two squares, so that needs the placement and its own mirror
    /// image to differ in at most four squares; for nearly every placement they differ in
    /// more, and the neighbours' entries are all distinct.
    #[inline]
    pub fn neighbours_may_share_entries(&self) -> bool {
        let m = self.mirror();
        let differ = (self.wm ^ m.wm).count_ones()
            + (self.wk ^ m.wk).count_ones()
            + (self.bm ^ m.bm).count_ones()
            + (self.bk ^ m.bk).count_ones();
        differ <= 4
    }

    /// Its material.
    pub fn signature(&self) -> Signature {
        Signature::new(
            self.wm.count_ones() as u8,
            self.wk.count_ones() as u8,
            self.bm.count_ones() as u8,
            self.bk.count_ones() as u8,
        )
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> u64 {
        self.wm | self.wk | self.bm | self.bk
    }

    /// Whether no square holds two pieces.
    #[inline]
    pub fn is_disjoint(&self) -> bool {
        let n = self.wm.count_ones()
            + self.wk.count_ones()
            + self.bm.count_ones()
            + self.bk.count_ones();
        self.occupied().count_ones() == n
    }

    /// The position with White to move (`None` if two pieces share a square or a man stands
    /// on a rank it never reaches).
    pub fn to_position(&self) -> Option<Position> {
        Position::from_bitboards(self.wm, self.wk, self.bm, self.bk, Color::White).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_and_flip_move_squares_as_named() {
        let a2 = 1u64 << 8;
        let h2 = 1u64 << 15;
        let a7 = 1u64 << 48;
        assert_eq!(mirror(a2), h2);
        assert_eq!(flip_vertical(a2), a7);
        let pos = Position::from_fen("B:Wa2,Kc4:Bd6").unwrap();
        let p = Placement::of(&pos);
        // Black to move: Black's man d6 becomes White's man d3.
        assert_eq!(p.wm, 1u64 << 19);
        assert_eq!(p.flip().flip(), p);
        assert_eq!(p.mirror().mirror(), p);
    }
}
