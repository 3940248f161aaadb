//! Unmoves: the positions a quiet move could have come from (retrograde move generation).
//!
//! Only quiet moves that stay inside a signature are undone: king moves and men's steps that
//! do not promote. Captures and promotions lead into other tables, which are solved first, so
//! the builder looks those up forwards instead of undoing them. An unmove may produce a
//! position in which the move was not legal because a capture was forced there; such
//! positions are already solved from their captures, and the builder skips solved positions.

use damasi::bitboard::{fill, shift, Dir, RANK_8};

use crate::placement::{flip_vertical, Placement};

/// Calls `f` with every placement (White to move) whose side to move could have reached `p`
/// with one quiet move that stays inside the signature. In `p` White is to move, so Black made
/// the last move; the parent has Black to move and is handed over colour-flipped, so it has
/// White to move and belongs to the signature `p.signature().flip()`. With `sideways_only`,
/// men's forward steps are not undone: the parents stay in `p`'s slice (every man on the
/// same rank, see [`crate::slice`]).
#[cfg(test)] // the builder uses `for_each_parent_set`; the tests check parents whole
fn for_each_parent(p: &Placement, sideways_only: bool, mut f: impl FnMut(Placement)) {
    let flipped = p.flip();
    for_each_parent_set(p, sideways_only, |moved, set| {
        f(match moved {
            Moved::Kings => Placement { wk: set, ..flipped },
            Moved::Men => Placement { wm: set, ..flipped },
        })
    });
}

/// Which of the parent's sets a parent from [`for_each_parent_set`] differs in from
/// `p.flip()`: the side that moved is White in the parent.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Moved {
    /// The parent's white kings (a king moved).
    Kings,
    /// The parent's white men (a man stepped).
    Men,
}

impl Moved {
    /// The set's number in [`crate::slice::Around::canonical_with`] (0 white kings, 1 white
    /// men).
    #[inline]
    pub fn which(self) -> usize {
        match self {
            Moved::Kings => 0,
            Moved::Men => 1,
        }
    }
}

/// The parents of `p` (as the tests' `for_each_parent` lists them) told as changes: every
/// parent is `p.flip()` with one set replaced, and `f` gets which set and its new squares. The builder indexes parents incrementally
/// from this (one group ranked per parent, see [`crate::slice::Around`]).
#[inline]
pub fn for_each_parent_set(p: &Placement, sideways_only: bool, mut f: impl FnMut(Moved, u64)) {
    let empty = !p.occupied();
    let mut kings = p.bk;
    while kings != 0 {
        let to = kings & kings.wrapping_neg();
        kings &= kings - 1;
        for dir in Dir::ALL {
            // Every empty square on the ray: the king slid from there over empty squares.
            let mut from = fill(to, empty, dir) & !to;
            while from != 0 {
                let s = from & from.wrapping_neg();
                from &= from - 1;
                f(Moved::Kings, flip_vertical(p.bk ^ to ^ s));
            }
        }
    }
    let mut men = p.bm;
    while men != 0 {
        let to = men & men.wrapping_neg();
        men &= men - 1;
        // A black man steps south, east or west: it came from north, west or east. From the
        // north only if that square is not rank 8, where a black man never stands.
        let north = if sideways_only {
            0
        } else {
            shift(to, Dir::North) & !RANK_8
        };
        let from = north | shift(to, Dir::East) | shift(to, Dir::West);
        let mut from = from & empty;
        while from != 0 {
            let s = from & from.wrapping_neg();
            from &= from - 1;
            f(Moved::Men, flip_vertical(p.bm ^ to ^ s));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damasi::Position;

    /// Every parent found has a legal quiet move to the child, and every quiet non-promoting
    /// move of every position of a small set is found by undoing it.
    #[test]
    fn unmoves_invert_quiet_moves() {
        for fen in [
            "B:WKd4,e5:Bc6,Kh8",
            "B:Wb2,Kd4:Bd6,e7,Ka1",
            "B:WKa1:BKd4,Kd5",
            "B:Wh7:Bb2,c2",
        ] {
            let parent = Position::from_fen(fen).unwrap();
            for m in parent.legal_moves().iter() {
                if m.is_capture() || m.is_promotion() {
                    continue;
                }
                let child = Placement::of(&parent.play(m));
                let mut found = false;
                for_each_parent(&child, false, |q| found |= q == Placement::of(&parent));
                // Sideways only: found exactly when the move kept the man on its rank.
                let mut sideways = false;
                for_each_parent(&child, true, |q| sideways |= q == Placement::of(&parent));
                let keeps_ranks = crate::slice::SliceKey::of(&child).flip()
                    == crate::slice::SliceKey::of(&Placement::of(&parent));
                assert_eq!(sideways, keeps_ranks, "{fen}: {:?}", m);
                assert!(found, "{fen}: {:?} not undone", m);
            }
        }
    }
}
