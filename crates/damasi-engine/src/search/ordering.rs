//! Move ordering: the TT move, then captures (more pieces and kings first), promotions,
//! killers, and quiet moves by history; picked lazily, since cut-offs usually come early.

use damasi::{Move, Position};

use super::history::History;
use crate::tt::TtMove;

/// Moves ordered per node; later ones (only in positions with many kings) keep generation
/// order. Kept small because the score array is cleared at every node.
pub(super) const SCORED: usize = 128;

/// Ordering scores of a node's moves.
pub(super) type Scores = [i32; SCORED];

/// Scores `moves` for ordering: TT move, captures (more and kings first), promotions,
/// killers, then history. Lists longer than `scores` keep generation order.
#[inline]
pub(super) fn score_moves(
    pos: &Position,
    moves: &[Move],
    tt_move: TtMove,
    killers: &[Option<Move>; 2],
    history: &History,
    scores: &mut Scores,
) {
    let side = pos.side_to_move();
    let kings = pos.kings();
    for (m, out) in moves.iter().zip(scores.iter_mut()) {
        *out = if tt_move.matches(m) {
            1 << 30
        } else if m.is_capture() {
            (1 << 28)
                + 1000 * m.capture_count() as i32
                + 100 * (m.captured_bits() & kings).count_ones() as i32
                + if m.is_promotion() { 50 } else { 0 }
        } else if m.is_promotion() {
            1 << 27
        } else if killers[0] == Some(*m) {
            1 << 26
        } else if killers[1] == Some(*m) {
            (1 << 26) - 1
        } else {
            history.get(side, m)
        };
    }
}

/// Lazy selection sort: moves the best-scored of `moves[i..]` to `i` (cut-offs usually come
/// early, so most lists are never fully sorted).
#[inline]
pub(super) fn pick(moves: &mut [Move], scores: &mut Scores, i: usize) {
    let n = moves.len().min(SCORED);
    if i >= n {
        return;
    }
    // Past the first few moves a cut-off is unlikely: sort the rest once (insertion sort,
    // stable) instead of selecting again and again.
    if i == 3 {
        for j in i + 1..n {
            let (m, s) = (moves[j], scores[j]);
            let mut k = j;
            while k > i && scores[k - 1] < s {
                moves[k] = moves[k - 1];
                scores[k] = scores[k - 1];
                k -= 1;
            }
            moves[k] = m;
            scores[k] = s;
        }
        return;
    }
    if i > 3 {
        return;
    }
    let mut best = i;
    for j in i + 1..n {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    if best != i {
        moves.swap(i, best);
        scores.swap(i, best);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_moves_in_score_order() {
        let mut moves: Vec<Move> = Position::start().legal_moves().iter().copied().collect();
        let original = moves.clone();
        let mut scores = [0; SCORED];
        for (i, s) in [5, 1, 9, 1, 7, 1, 1, 3].iter().enumerate() {
            scores[i] = *s;
        }
        for i in 0..moves.len() {
            pick(&mut moves, &mut scores, i);
        }
        assert_eq!(scores[..8], [9, 7, 5, 3, 1, 1, 1, 1]);
        let at = |k: usize| original[k];
        // Ties are deterministic: the insertion sort after the third pick is stable.
        assert_eq!(
            moves,
            [at(2), at(4), at(0), at(7), at(3), at(1), at(5), at(6)]
        );
    }

    #[test]
    fn the_tt_move_comes_first_then_killers_before_history() {
        let pos = Position::start();
        let moves = pos.legal_moves();
        let mut history = History::new();
        history.reward(pos.side_to_move(), &moves[5], &[], 10);
        let mut scores = [0; SCORED];
        let killers = [Some(moves[3]), None];
        score_moves(
            &pos,
            &moves,
            TtMove::new(&moves[7]),
            &killers,
            &history,
            &mut scores,
        );
        assert_eq!(scores[7], 1 << 30);
        assert_eq!(scores[3], 1 << 26);
        assert_eq!(scores[5], 100);
        assert_eq!(scores[0], 0);
    }
}
