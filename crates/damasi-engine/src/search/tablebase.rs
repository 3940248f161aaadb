//! Endgame tables inside the search (see [`crate::oracle`]): a quiet position the oracle
//! covers scores as a known win, draw or loss, unless it has the root's number of pieces and
//! only confirms the root's known value (then the search goes on, to find the conversion or
//! the best resistance).

use damasi::Position;

use super::thread::Worker;
use crate::oracle::{pieces, score_of, RootValue, Wdl};

impl Worker<'_, '_> {
    /// The score of `pos` at `ply` from the endgame oracle, if it has one, the position is
    /// quiet (captures are forced: they are searched first) and the search should stop here.
    #[inline]
    pub(super) fn tb_score(&self, pos: &Position, ply: usize) -> Option<i32> {
        let oracle = self.shared.oracle?;
        let n = pieces(pos);
        if n > oracle.max_pieces() {
            return None;
        }
        if pos.has_capture() {
            return None;
        }
        let v = oracle.probe_wdl(pos)?;
        if let Some(RootValue { value, pieces }) = self.shared.tb_root {
            // The side to move at the root moves at even plies.
            let for_root = if ply % 2 == 0 { v } else { v.negate() };
            if n == pieces && for_root == value {
                return None;
            }
        }
        Some(match v {
            Wdl::Draw => self.draw_score(ply),
            _ => score_of(v, ply),
        })
    }
}

/// The score to report for a root whose value the oracle knows: a known win stays a win
/// (at least [`TB_WIN_BOUND`](crate::oracle::TB_WIN_BOUND)) while the search looks for the
/// conversion, a known draw is 0, a known loss stays a loss.
pub(super) fn reported(score: i32, root: Option<RootValue>) -> i32 {
    use crate::oracle::TB_WIN_BOUND;
    match root.map(|r| r.value) {
        None => score,
        Some(Wdl::Win) => score.max(TB_WIN_BOUND),
        Some(Wdl::Draw) => 0,
        Some(Wdl::Loss) => score.min(-TB_WIN_BOUND),
    }
}
