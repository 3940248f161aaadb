//! The game's rules as scores inside the search: a side without pieces or moves loses, one
//! piece each is a draw (or a win for a lone king against a lone man, if the rule set says
//! so), a repetition is a draw, and so is the rule set's no-capture limit. A draw is worth
//! the request's contempt less than nothing to the side to move at the root (and as much more
//! to its opponent), so that a player does not steer into a draw it need not take.

use damasi::Position;

use super::thread::Worker;
use super::MATE;

impl Worker<'_, '_> {
    /// What a draw is worth to the side to move at `ply`: `-contempt` for the side to move at
    /// the root (which moves at even plies), `+contempt` for its opponent.
    #[inline]
    pub(super) fn draw_score(&self, ply: usize) -> i32 {
        if ply % 2 == 0 {
            -self.contempt
        } else {
            self.contempt
        }
    }

    /// Whether the position at `ply` repeats an earlier one: on the path back to the last
    /// irreversible move, or, with no irreversible move since the root, in the game before
    /// the root.
    #[inline]
    fn is_repetition(&self, key: u64, ply: usize) -> bool {
        let irrev = self.stack[ply].irrev;
        debug_assert!(irrev <= ply);
        let mut j = ply;
        while j >= irrev + 2 {
            j -= 2;
            if self.stack[j].key == key {
                return true;
            }
        }
        irrev == 0 && self.game_keys.binary_search(&key).is_ok()
    }

    /// The score of the position at `ply` if the rules end the game there (before looking
    /// at its moves).
    #[inline]
    pub(super) fn rule_outcome(&self, pos: &Position, ply: usize) -> Option<i32> {
        let us = pos.side_to_move();
        let (n_us, n_them) = (pos.count(us), pos.count(!us));
        if n_us == 0 {
            return Some(-MATE + ply as i32);
        }
        if n_us == 1 && n_them == 1 {
            if self.rules.king_beats_lone_man {
                let k_us = pos.kings_of(us) != 0;
                let k_them = pos.kings_of(!us) != 0;
                if k_us && !k_them {
                    return Some(MATE - ply as i32);
                }
                if k_them && !k_us {
                    return Some(-MATE + ply as i32);
                }
            }
            return Some(self.draw_score(ply));
        }
        if self.is_repetition(pos.key(), ply) {
            return Some(self.draw_score(ply));
        }
        if let Some(limit) = self.rules.no_capture_limit {
            // A side with no move has lost (or drawn by mutual block) before the limit
            // counts, as the game rules judge it.
            if self.stack[ply].nocap >= limit && pos.has_legal_move() {
                return Some(self.draw_score(ply));
            }
        }
        None
    }
}

/// The score when the side to move at `ply` has no legal move: a loss, unless the opponent
/// would be blocked too (mutual block: a draw, worth `draw` to the side to move).
pub(super) fn no_move_score(pos: &Position, ply: usize, draw: i32) -> i32 {
    let them = pos.with_side_to_move(!pos.side_to_move());
    if pos.count(pos.side_to_move()) > 0 && !them.has_legal_move() {
        draw
    } else {
        -MATE + ply as i32
    }
}
