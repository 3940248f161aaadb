//! Mate scores in the transposition table. In the search a win is `MATE - ply` (plies from
//! the root); in the table it is stored relative to the node, so that it stays right when the
//! same position is reached at another ply. Wins the endgame tables know of (`TB_WIN - ply`)
//! are stored the same way.

use crate::oracle::TB_WIN_BOUND;

/// A search score at `ply` as stored in the table.
#[inline]
pub(super) fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= TB_WIN_BOUND {
        s + ply as i32
    } else if s <= -TB_WIN_BOUND {
        s - ply as i32
    } else {
        s
    }
}

/// A stored score read back at `ply`.
#[inline]
pub(super) fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= TB_WIN_BOUND {
        s - ply as i32
    } else if s <= -TB_WIN_BOUND {
        s + ply as i32
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::super::MATE;
    use super::*;

    #[test]
    fn tt_scores_keep_mate_distance() {
        let s = MATE - 10;
        assert_eq!(score_from_tt(score_to_tt(s, 4), 4), s);
        assert_eq!(score_from_tt(score_to_tt(-s, 4), 4), -s);
        assert_eq!(score_to_tt(55, 9), 55);
        // Stored at ply 4, a win in 6 from there reads as a win in 8 at ply 2.
        assert_eq!(score_from_tt(score_to_tt(s, 4), 2), MATE - 8);
        let tb = crate::oracle::TB_WIN - 10;
        assert_eq!(score_from_tt(score_to_tt(tb, 4), 2), tb + 2);
        assert_eq!(score_from_tt(score_to_tt(-tb, 4), 2), -tb - 2);
    }
}
