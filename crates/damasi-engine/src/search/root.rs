//! The root node: its moves are the legal moves of the search's position, kept with their
//! scores and lines across iterations, searched from `pv_idx` on (multi-PV fixes the lines
//! before it) and sorted best first after each search.

use damasi::{Move, Position};

use super::mate::score_to_tt;
use super::node::{NonPv, Pv};
use super::thread::Worker;
use super::INF;
use crate::tt::{Bound, TtMove};

/// A root move and what the last iterations found for it.
#[derive(Clone, Debug)]
pub(super) struct RootMove {
    pub mv: Move,
    /// Score in the current iteration (`-INF` until searched or when it failed low).
    pub score: i32,
    /// Score in the previous iteration (the centre of the aspiration window).
    pub prev_score: i32,
    /// The line starting with `mv`.
    pub pv: Vec<Move>,
    /// Whether `score` is exact in the current iteration.
    pub searched: bool,
}

impl RootMove {
    /// A move not searched yet.
    pub fn new(mv: Move) -> RootMove {
        RootMove {
            mv,
            score: -INF,
            prev_score: -INF,
            pv: vec![mv],
            searched: false,
        }
    }
}

impl Worker<'_, '_> {
    /// Searches the root moves from `pv_idx` on with the window (alpha, beta); sorts them.
    pub(super) fn root_node(
        &mut self,
        root: &Position,
        mut alpha: i32,
        beta: i32,
        depth: i32,
    ) -> i32 {
        debug_assert!(depth >= 1);
        debug_assert!(self.pv_idx < self.root_moves.len());
        self.count_node();
        self.pv.clear(0);
        let first = self.pv_idx;
        let extension = i32::from(self.root_moves.len() == 1);
        let mut best = -INF;
        for rm in &mut self.root_moves[first..] {
            rm.searched = false;
        }
        for i in first..self.root_moves.len() {
            let m = self.root_moves[i].mv;
            let child = root.play(&m);
            self.stack.enter(0, root, &m, &child);
            let new_depth = depth - 1 + extension;
            let mut s;
            if i == first {
                s = -self.search::<Pv>(&child, -beta, -alpha, new_depth, 1);
            } else {
                s = -self.search::<NonPv>(&child, -alpha - 1, -alpha, new_depth, 1);
                if s > alpha && s < beta {
                    s = -self.search::<Pv>(&child, -beta, -alpha, new_depth, 1);
                }
            }
            if self.stopped {
                break;
            }
            let rm = &mut self.root_moves[i];
            if i == first || s > alpha {
                rm.score = s;
                rm.searched = true;
                rm.pv.clear();
                rm.pv.push(m);
                rm.pv.extend_from_slice(self.pv.line(1));
            } else {
                rm.score = -INF;
            }
            if s > best {
                best = s;
            }
            if s > alpha {
                alpha = s;
                if s >= beta {
                    break;
                }
            }
        }
        // Best first; a stable sort keeps the previous order among equals.
        self.root_moves[first..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
        if !self.stopped {
            if let Some(rm) = self.root_moves.get(first) {
                self.shared.tt.store(
                    root.key(),
                    score_to_tt(rm.score, 0),
                    TtMove::new(&rm.mv),
                    depth,
                    Bound::Exact,
                );
            }
        }
        best
    }
}
