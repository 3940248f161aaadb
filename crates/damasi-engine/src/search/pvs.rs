//! The node function: principal-variation search with a transposition table, reverse
//! futility pruning and ProbCut (in place of null move, which is unsound in draughts:
//! zugzwang and blocking are common), internal iterative reduction, late-move reductions and
//! pruning, and a one-ply extension for a forced move.

use damasi::{Move, MoveList, Position};

use super::draw::no_move_score;
use super::history::push_killer;
use super::mate::{score_from_tt, score_to_tt};
use super::node::{NodeKind, NonPv, Pv};
use super::ordering::{pick, score_moves, Scores, SCORED};
use super::thread::Worker;
use super::{INF, MATE, MATE_BOUND, MAX_PLY};
use crate::tt::{Bound, TtMove};

/// Late-move reduction, by depth and move number.
pub(super) fn reduction(depth: i32, index: usize) -> i32 {
    let d = depth.min(63) as f64;
    let i = index.min(63) as f64;
    (0.5 + d.ln() * i.ln() / 2.5) as i32
}

impl Worker<'_, '_> {
    /// Searches `pos` at `ply` (whose stack frame the caller filled in) to `depth` with the
    /// window (alpha, beta). The root goes to [`Worker::root_node`].
    pub(super) fn search<N: NodeKind>(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
    ) -> i32 {
        debug_assert!(-INF <= alpha && alpha < beta && beta <= INF);
        debug_assert!(
            N::PV || alpha + 1 == beta,
            "null-window node with an open window"
        );
        debug_assert_eq!(N::ROOT, ply == 0);
        debug_assert!(ply <= MAX_PLY);
        debug_assert_eq!(self.stack[ply].key, pos.key());
        if N::ROOT {
            return self.root_node(pos, alpha, beta, depth);
        }
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply, self.params.threat_qs());
        }
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
        // Endgame tables: a quiet position they cover has a known value.
        if let Some(s) = self.tb_score(pos, ply) {
            return s;
        }
        // Mate-distance pruning: no line from here beats a win found closer to the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        let key = pos.key();
        let mut tt_move = TtMove::NONE;
        if let Some(hit) = self.shared.tt.probe(key) {
            tt_move = hit.mv;
            let s = score_from_tt(hit.score, ply);
            if !N::PV && hit.depth >= depth {
                let cut = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }

        // Internal iterative reduction: a node the table has no move for was never searched
        // (or its search failed low everywhere); a ply less costs little, and the next visit
        // finds a move to try first.
        if self.params.iir() && depth >= 4 && !tt_move.is_some() {
            depth -= 1;
        }

        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            return no_move_score(pos, ply, self.draw_score(ply));
        }
        // The table is keyed by the whole position, so its move is one of the legal moves.
        debug_assert!(!tt_move.is_some() || moves.iter().any(|m| tt_move.matches(m)));
        let capture_pending = moves[0].is_capture();

        // Reverse futility: near the horizon, a quiet position whose evaluation clears beta by
        // a margin per ply is taken as a fail high.
        if self.params.rfp() && !N::PV && depth <= 3 && !capture_pending && beta.abs() < MATE_BOUND
        {
            let bar = beta + 80 * depth;
            let window = self.params.lazy_eval().then_some((bar - 1, bar));
            let eval = self.evaluate(pos, ply, window);
            if eval >= bar {
                return eval;
            }
        }

        // ProbCut: if a shallow search clears beta by a margin, the deep one very likely
        // fails high too. Used instead of null move.
        if self.params.probcut()
            && !N::PV
            && depth >= 5
            && beta.abs() < MATE_BOUND
            && !capture_pending
        {
            let rbeta = beta + 100;
            let s = self.search::<NonPv>(pos, rbeta - 1, rbeta, depth - 4, ply);
            if self.stopped {
                return 0;
            }
            if s >= rbeta {
                return s;
            }
            self.pv.clear(ply);
        }

        let mut scores: Scores = [0; SCORED];
        score_moves(
            pos,
            &moves,
            tt_move,
            &self.stack[ply].killers,
            &self.state.history,
            &mut scores,
        );
        let side = pos.side_to_move();
        // A forced move costs nothing to look at more deeply.
        let extension = i32::from(moves.len() == 1 && ply < 2 * MAX_PLY / 3);

        let old_alpha = alpha;
        let mut best = -INF;
        let mut best_move: Option<Move> = None;
        for i in 0..moves.len() {
            pick(moves.as_mut_slice(), &mut scores, i);
            let m = &moves[i];
            let child = pos.play(m);
            let quiet = !m.is_capture() && !m.is_promotion();
            let offers_capture = quiet && child.has_capture();
            // Late-move pruning: near the horizon, quiet moves that offer nothing to take are
            // skipped once enough moves were tried.
            if self.params.lmp()
                && !N::PV
                && quiet
                && !offers_capture
                && depth <= 3
                && i >= (3 + 2 * depth * depth) as usize
                && best > -MATE_BOUND
            {
                continue;
            }
            self.stack.enter(ply, pos, m, &child);
            self.shared.tt.prefetch(child.key());
            let new_depth = depth - 1 + extension;
            let mut s;
            if i == 0 {
                s = -self.search::<N::FirstChild>(&child, -beta, -alpha, new_depth, ply + 1);
            } else {
                // Late-move reduction for quiet moves tried late.
                let mut r = 0;
                if self.params.lmr() && depth >= 3 && quiet && i >= 2 && !offers_capture {
                    r = reduction(depth, i) - i32::from(N::PV);
                    if self.stack[ply].killers.contains(&Some(*m)) {
                        r -= 1;
                    }
                    if self.params.history_lmr() {
                        // History is within +-16384: at most two plies either way.
                        r -= self.state.history.get(side, m) / 4096;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                s = -self.search::<NonPv>(&child, -alpha - 1, -alpha, new_depth - r, ply + 1);
                if s > alpha && r > 0 {
                    s = -self.search::<NonPv>(&child, -alpha - 1, -alpha, new_depth, ply + 1);
                }
                if N::PV && s > alpha && s < beta {
                    s = -self.search::<Pv>(&child, -beta, -alpha, new_depth, ply + 1);
                }
            }
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    let m = *m;
                    best_move = Some(m);
                    alpha = s;
                    if N::PV {
                        self.pv.update(ply, &m);
                    }
                    if s >= beta {
                        if quiet {
                            // The moves tried before the cut-off sit in front of it.
                            push_killer(&mut self.stack[ply].killers, &m);
                            self.state.history.reward(side, &m, &moves[..i], depth);
                        }
                        break;
                    }
                }
            }
        }
        debug_assert!(best > -INF && best.abs() <= MATE);

        let bound = if best >= beta {
            Bound::Lower
        } else if alpha > old_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let mv = best_move.map_or(TtMove::NONE, |m| TtMove::new(&m));
        self.shared
            .tt
            .store(key, score_to_tt(best, ply), mv, depth, bound);
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_grow_with_depth_and_move_number() {
        assert_eq!(reduction(1, 1), 0);
        assert!(reduction(10, 20) > reduction(4, 3));
    }
}
