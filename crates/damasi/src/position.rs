//! A position: where the pieces stand and who is to move. Only valid positions exist as values
//! of this type (see [`Position::from_pieces`]), so move generation never meets an impossible
//! board.

use std::fmt;

use crate::bitboard::{Squares, RANK_1, RANK_8};
use crate::color::{Color, Piece, Role};
use crate::moves::Move;
use crate::square::Square;
use crate::zobrist;

/// Most pieces a side can have.
pub const MAX_PIECES_PER_SIDE: u32 = 16;

/// A valid Turkish draughts position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub(crate) by_color: [u64; 2],
    pub(crate) kings: u64,
    pub(crate) side: Color,
    pub(crate) key: u64,
}

/// The lowest square of a non-empty set.
fn lowest_square(set: u64) -> Square {
    Square::new_unchecked(set.trailing_zeros() as u8)
}

/// Why a set of pieces is not a valid position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// Two pieces were placed on one square.
    SquareTwice(Square),
    /// A man stands on a rank it can never reach (its own back rank or, unpromoted, the far rank).
    ManOnImpossibleRank(Square, Color),
    /// A side has more than 16 pieces.
    TooManyPieces(Color, u32),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::SquareTwice(sq) => write!(f, "square {sq} is listed twice"),
            PositionError::ManOnImpossibleRank(sq, c) => write!(
                f,
                "a {} man cannot stand on {sq}: {} men never stand on rank {}",
                c.name(),
                c.name(),
                sq.rank() + 1
            ),
            PositionError::TooManyPieces(c, n) => {
                write!(
                    f,
                    "{} has {n} pieces, more than the 16 a side starts with",
                    c
                )
            }
        }
    }
}

impl std::error::Error for PositionError {}

impl Position {
    /// The start position: White men on ranks 2 and 3, Black men on ranks 6 and 7, White to move.
    pub fn start() -> Position {
        Position::from_bits(
            0x0000_0000_00FF_FF00,
            0x00FF_FF00_0000_0000,
            0,
            Color::White,
        )
    }

    /// Builds a position from bitboards that are already known to be valid.
    pub(crate) fn from_bits(white: u64, black: u64, kings: u64, side: Color) -> Position {
        let mut p = Position {
            by_color: [white, black],
            kings,
            side,
            key: 0,
        };
        p.key = p.compute_key();
        p
    }

    /// Builds a position from a list of pieces, checking that it can occur: no square used
    /// twice, no man on a rank it can never stand on, at most 16 pieces a side.
    pub fn from_pieces(
        pieces: impl IntoIterator<Item = (Square, Piece)>,
        side: Color,
    ) -> Result<Position, PositionError> {
        let mut by_color = [0u64; 2];
        let mut kings = 0u64;
        for (sq, piece) in pieces {
            let b = sq.bit();
            if (by_color[0] | by_color[1]) & b != 0 {
                return Err(PositionError::SquareTwice(sq));
            }
            if piece.role == Role::Man
                && (piece.color.back_rank() | piece.color.promotion_rank()) & b != 0
            {
                return Err(PositionError::ManOnImpossibleRank(sq, piece.color));
            }
            by_color[piece.color as usize] |= b;
            if piece.role == Role::King {
                kings |= b;
            }
        }
        for c in Color::BOTH {
            let n = by_color[c as usize].count_ones();
            if n > MAX_PIECES_PER_SIDE {
                return Err(PositionError::TooManyPieces(c, n));
            }
        }
        Ok(Position::from_bits(by_color[0], by_color[1], kings, side))
    }

    /// Builds a position from the four piece sets (bit `i` is square `i`: a1 = 0, b1 = 1, ...,
    /// h8 = 63), with the same checks as [`Position::from_pieces`], made set-wise: for
    /// callers that already hold bitboards (tablebase indexing, machine-learning planes).
    pub fn from_bitboards(
        white_men: u64,
        white_kings: u64,
        black_men: u64,
        black_kings: u64,
        side: Color,
    ) -> Result<Position, PositionError> {
        let sets = [white_men, white_kings, black_men, black_kings];
        let mut seen = 0u64;
        for set in sets {
            let twice = seen & set;
            if twice != 0 {
                return Err(PositionError::SquareTwice(lowest_square(twice)));
            }
            seen |= set;
        }
        for (men, color) in [(white_men, Color::White), (black_men, Color::Black)] {
            let wrong = men & (color.back_rank() | color.promotion_rank());
            if wrong != 0 {
                return Err(PositionError::ManOnImpossibleRank(
                    lowest_square(wrong),
                    color,
                ));
            }
        }
        let (white, black) = (white_men | white_kings, black_men | black_kings);
        for (set, color) in [(white, Color::White), (black, Color::Black)] {
            let n = set.count_ones();
            if n > MAX_PIECES_PER_SIDE {
                return Err(PositionError::TooManyPieces(color, n));
            }
        }
        Ok(Position::from_bits(
            white,
            black,
            white_kings | black_kings,
            side,
        ))
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The same placement with the other side to move.
    pub fn with_side_to_move(&self, side: Color) -> Position {
        Position::from_bits(self.by_color[0], self.by_color[1], self.kings, side)
    }

    /// The Zobrist key, kept up to date by [`Position::play`].
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The Zobrist key computed from scratch (equals [`Position::key`]).
    pub fn compute_key(&self) -> u64 {
        let mut key = if self.side == Color::Black {
            zobrist::BLACK_TO_MOVE
        } else {
            0
        };
        for (sq, p) in self.pieces() {
            key ^= zobrist::piece_key(p.color, p.role, sq);
        }
        key
    }

    /// Bitboard of one side's pieces.
    #[inline(always)]
    pub fn pieces_of(&self, c: Color) -> u64 {
        self.by_color[c as usize]
    }

    /// Bitboard of all kings, both sides.
    #[inline(always)]
    pub fn kings(&self) -> u64 {
        self.kings
    }

    /// Bitboard of one side's men.
    #[inline(always)]
    pub fn men_of(&self, c: Color) -> u64 {
        self.by_color[c as usize] & !self.kings
    }

    /// Bitboard of one side's kings.
    #[inline(always)]
    pub fn kings_of(&self, c: Color) -> u64 {
        self.by_color[c as usize] & self.kings
    }

    /// Bitboard of the empty squares.
    #[inline(always)]
    pub fn empty(&self) -> u64 {
        !(self.by_color[0] | self.by_color[1])
    }

    /// Number of pieces a side has.
    #[inline]
    pub fn count(&self, c: Color) -> u32 {
        self.by_color[c as usize].count_ones()
    }

    /// The piece on a square, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let b = sq.bit();
        let color = if self.by_color[0] & b != 0 {
            Color::White
        } else if self.by_color[1] & b != 0 {
            Color::Black
        } else {
            return None;
        };
        let role = if self.kings & b != 0 {
            Role::King
        } else {
            Role::Man
        };
        Some(Piece { color, role })
    }

    /// Every piece with its square, a1 first.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Squares(self.by_color[0] | self.by_color[1])
            .map(move |sq| (sq, self.piece_at(sq).expect("occupied square")))
    }

    /// The position after `m`, which must be legal here (copy-make: positions are 32 bytes).
    #[inline]
    pub fn play(&self, m: &Move) -> Position {
        self.make::<true>(m)
    }

    /// [`Position::play`] without the Zobrist key, which is left stale: only for walks that
    /// never read keys (perft), where the key's table lookups are a fifth of the work.
    #[inline]
    pub(crate) fn play_unkeyed(&self, m: &Move) -> Position {
        self.make::<false>(m)
    }

    #[inline(always)]
    fn make<const KEYED: bool>(&self, m: &Move) -> Position {
        let us = self.side;
        let them = !us;
        let from = m.from.bit();
        let to = m.to.bit();
        let mut p = *self;
        let was_king = self.kings & from != 0;
        let promoted = !was_king && m.promotes;

        if KEYED {
            let mut key = p.key ^ zobrist::BLACK_TO_MOVE;
            for sq in Squares(m.captured) {
                let role = if self.kings & sq.bit() != 0 {
                    Role::King
                } else {
                    Role::Man
                };
                key ^= zobrist::piece_key(them, role, sq);
            }
            let from_role = if was_king { Role::King } else { Role::Man };
            let to_role = if was_king || promoted {
                Role::King
            } else {
                Role::Man
            };
            key ^=
                zobrist::piece_key(us, from_role, m.from) ^ zobrist::piece_key(us, to_role, m.to);
            p.key = key;
        }
        // Captured pieces first: a capture may end on its own start square.
        p.by_color[them as usize] &= !m.captured;
        p.by_color[us as usize] = (p.by_color[us as usize] & !from) | to;
        // The mover's king bit travels with it (a promotion adds one); victims lose theirs.
        let moved_king = if was_king || promoted { to } else { 0 };
        p.kings = (p.kings & !m.captured & !from) | moved_king;
        p.side = them;
        debug_assert!(!KEYED || p.key == p.compute_key());
        debug_assert!(p.is_consistent());
        p
    }

    /// Whether `m` is irreversible: a capture, a man's forward step or a promotion.
    /// Sideways man moves and king moves can be undone, so repetitions reach back past them.
    pub fn is_irreversible(&self, m: &Move) -> bool {
        if m.is_capture() || m.promotes {
            return true;
        }
        let is_man = self.kings & m.from.bit() == 0;
        is_man && m.from.file() == m.to.file()
    }

    /// Whether the position has only men and kings that can legally stand where they are.
    /// Always true for values of this type; used by debug checks.
    pub(crate) fn is_consistent(&self) -> bool {
        let (w, b) = (self.by_color[0], self.by_color[1]);
        w & b == 0
            && self.kings & !(w | b) == 0
            && (w & !self.kings) & (RANK_1 | RANK_8) == 0
            && (b & !self.kings) & (RANK_1 | RANK_8) == 0
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}
