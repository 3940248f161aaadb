//! What the search learns about quiet moves for move ordering: the history table (by side,
//! from and to square, kept between searches) and the killer moves (by ply, in the stack).

use damasi::{Color, Move};

/// Largest history bonus, and the scale of the decay toward it (gravity: an entry moves
/// toward ±`HISTORY_MAX` by a share of the distance, so it never overflows and old
/// knowledge fades).
const HISTORY_MAX: i32 = 16384;

/// The butterfly history table: how often a quiet move (side, from, to) caused a cut-off,
/// weighted by depth, minus how often it was tried before another move cut off.
pub(super) struct History {
    table: Box<[[[i32; 64]; 64]; 2]>,
}

impl History {
    /// An empty table.
    pub fn new() -> History {
        History {
            table: Box::new([[[0; 64]; 64]; 2]),
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        *self.table = [[[0; 64]; 64]; 2];
    }

    /// The ordering score of quiet move `m` for `side`.
    #[inline]
    pub fn get(&self, side: Color, m: &Move) -> i32 {
        self.table[side as usize][m.from().index()][m.to().index()]
    }

    /// After quiet move `best` caused a cut-off at `depth`: rewards it and punishes the quiet
    /// moves `tried` before it.
    pub fn reward(&mut self, side: Color, best: &Move, tried: &[Move], depth: i32) {
        let bonus = (depth * depth).min(400);
        let h = &mut self.table[side as usize];
        let mut bump = |m: &Move, b: i32| {
            let e = &mut h[m.from().index()][m.to().index()];
            *e += b - *e * b.abs() / HISTORY_MAX;
        };
        bump(best, bonus);
        for m in tried {
            if !m.is_capture() && m != best {
                bump(m, -bonus);
            }
        }
    }
}

/// Makes `m` the first killer of a ply (the old first becomes the second).
#[inline]
pub(super) fn push_killer(killers: &mut [Option<Move>; 2], m: &Move) {
    if killers[0] != Some(*m) {
        killers[1] = killers[0];
        killers[0] = Some(*m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damasi::Position;

    #[test]
    fn a_cut_off_rewards_the_move_and_punishes_the_ones_tried_before() {
        let pos = Position::start();
        let moves = pos.legal_moves();
        let (first, best) = (moves[0], moves[1]);
        let mut h = History::new();
        h.reward(Color::White, &best, &[first], 5);
        assert_eq!(h.get(Color::White, &best), 25);
        assert_eq!(h.get(Color::White, &first), -25);
        assert_eq!(h.get(Color::Black, &best), 0);
        // Gravity keeps entries bounded however often a move cuts off.
        for _ in 0..10_000 {
            h.reward(Color::White, &best, &[], 30);
        }
        assert!(h.get(Color::White, &best) <= HISTORY_MAX);
        h.clear();
        assert_eq!(h.get(Color::White, &best), 0);
    }

    #[test]
    fn killers_keep_the_two_latest_distinct_moves() {
        let moves = Position::start().legal_moves();
        let mut k = [None; 2];
        push_killer(&mut k, &moves[0]);
        push_killer(&mut k, &moves[0]);
        assert_eq!(k, [Some(moves[0]), None]);
        push_killer(&mut k, &moves[1]);
        assert_eq!(k, [Some(moves[1]), Some(moves[0])]);
    }
}
