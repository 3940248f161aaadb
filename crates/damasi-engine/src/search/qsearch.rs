//! Quiescence: captures are forced, so a position with a capture pending is never evaluated
//! statically; at the horizon the search goes on through the captures.

use damasi::bitboard::shift;
use damasi::{MoveList, Position};

use super::draw::no_move_score;
use super::ordering::{pick, score_moves, Scores, SCORED};
use super::thread::Worker;
use super::{INF, MATE, MAX_PLY};
use crate::eval::is_threatened;
use crate::tt::TtMove;

impl Worker<'_, '_> {
    /// Searches `pos` at `ply` (its frame filled in) through its captures, or evaluates it if
    /// none is pending. With `threat_ext`, a quiet position in which the opponent threatens a
    /// capture gets one ply of quiet moves instead ([`Worker::answer_threat`]).
    pub(super) fn qsearch(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        threat_ext: bool,
    ) -> i32 {
        debug_assert!(-INF <= alpha && alpha < beta && beta <= INF);
        debug_assert!(ply <= MAX_PLY);
        debug_assert_eq!(self.stack[ply].key, pos.key());
        self.count_node();
        self.pv.clear(ply);
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if let Some(s) = self.rule_outcome(pos, ply) {
            return s;
        }
        if ply >= MAX_PLY {
            return self.evaluate(pos, ply, None);
        }
        if !pos.has_capture() {
            if let Some(s) = self.tb_score(pos, ply) {
                return s;
            }
            // A man with an empty square in front can move: skip the full test then.
            let us = pos.side_to_move();
            let can_step = shift(pos.men_of(us), us.forward()) & pos.empty() != 0;
            if !can_step && !pos.has_legal_move() {
                return no_move_score(pos, ply, self.draw_score(ply));
            }
            if threat_ext && is_threatened(pos) {
                return self.answer_threat(pos, alpha, beta, ply);
            }
            let window = self.params.lazy_eval().then_some((alpha, beta));
            return self.evaluate(pos, ply, window);
        }
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        let mut scores: Scores = [0; SCORED];
        if moves.len() > 1 {
            let killers = &self.stack[ply].killers;
            score_moves(
                pos,
                &moves,
                TtMove::NONE,
                killers,
                &self.state.history,
                &mut scores,
            );
        }
        let mut best = -INF;
        for i in 0..moves.len() {
            pick(moves.as_mut_slice(), &mut scores, i);
            let m = &moves[i];
            debug_assert!(m.is_capture());
            let child = pos.play(m);
            self.stack.enter(ply, pos, m, &child);
            let s = -self.qsearch(&child, -beta, -alpha, ply + 1, threat_ext);
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    self.pv.update(ply, m);
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        debug_assert!(best.abs() <= MATE);
        best
    }

    /// At the horizon, a quiet position in which the opponent threatens a capture: the
    /// evaluation cannot see whether the threat can be met, so every quiet move is tried
    /// once (no stand-pat), each followed by the captures it allows.
    fn answer_threat(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        let mut scores: Scores = [0; SCORED];
        let killers = &self.stack[ply].killers;
        score_moves(
            pos,
            &moves,
            TtMove::NONE,
            killers,
            &self.state.history,
            &mut scores,
        );
        let mut best = -INF;
        for i in 0..moves.len() {
            pick(moves.as_mut_slice(), &mut scores, i);
            let m = &moves[i];
            let child = pos.play(m);
            self.stack.enter(ply, pos, m, &child);
            let s = -self.qsearch(&child, -beta, -alpha, ply + 1, false);
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    self.pv.update(ply, m);
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}
