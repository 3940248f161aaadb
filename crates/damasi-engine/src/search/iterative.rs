//! Iterative deepening with aspiration windows, multi-PV, the main thread's time decisions and
//! the launch of the helper threads: the body of [`crate::Engine::search`].

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use damasi::{Move, Position};

use crate::clock::Instant;

use super::draw::no_move_score;
use super::handicap::pick_handicapped;
use super::node::Root;
use super::root::RootMove;
use super::tablebase::reported;
use super::thread::{AbortOnDrop, Shared, ThreadState, Worker};
use super::{SearchParams, INF, MATE, MATE_BOUND, MAX_DEPTH};
use crate::eval::Weights;
use crate::oracle::{filter_root, EndgameOracle};
use crate::time::{Limits, TimeManager};
use crate::tt::Table;
use crate::{Info, RuleSet, Score, SearchControl, SearchRequest, SearchResult};

/// What the engine knows going into a search: its evaluation weights, search switches and
/// endgame oracle.
pub(crate) struct Knowledge<'a> {
    pub weights: &'a Weights,
    pub params: SearchParams,
    pub oracle: Option<&'a dyn EndgameOracle>,
}

/// Runs one search (the body of [`crate::Engine::search`]).
pub(crate) fn run(
    tt: &Table,
    states: &mut [ThreadState],
    knowledge: Knowledge<'_>,
    request: &SearchRequest,
    control: &SearchControl,
    on_info: &mut dyn FnMut(&Info),
) -> SearchResult {
    let start = Instant::now();
    let Knowledge {
        weights,
        params,
        oracle,
    } = knowledge;
    let SearchRequest {
        root,
        limits,
        level,
        multipv,
        book: _, // the engine has answered from the book before a search starts
        root_moves,
        contempt,
    } = request;
    let (level, multipv) = (*level, (*multipv).max(1));
    tt.new_search();
    let pos = root.position;
    let mut legal = pos.legal_moves();
    let restricted = legal.iter().any(|m| root_moves.contains(m));
    if restricted {
        legal.retain(|m| root_moves.contains(m));
    }
    // The tables know the default rules only. A restricted search keeps every candidate
    // (the tables still score them inside the tree).
    let oracle = oracle.filter(|_| root.rules == RuleSet::default());
    let tb_root = oracle
        .filter(|_| !restricted)
        .and_then(|o| filter_root(o, &pos, &mut legal));
    if legal.is_empty() {
        let score = no_move_score(&pos, 0, -*contempt);
        wait_while_analysing(limits, control);
        return SearchResult {
            best: None,
            ponder: None,
            score: Score(score),
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
        };
    }

    let mut max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    let mut node_limit = limits.nodes.unwrap_or(u64::MAX).max(1);
    let handicapped = !level.is_full();
    let lines = if handicapped {
        max_depth = max_depth.min(level.max_depth());
        node_limit = node_limit.min(level.max_nodes());
        multipv.max(4).min(legal.len())
    } else {
        multipv.min(legal.len())
    };
    let tm = TimeManager::new(limits);
    // One legal move in a game on a clock: play it at once.
    if legal.len() == 1 && limits.clock.is_some() && !control.is_pondering() {
        max_depth = 1;
    }

    let root_moves: Vec<RootMove> = legal.iter().map(|m| RootMove::new(*m)).collect();
    let mut game_keys: Vec<u64> = root.history.clone();
    game_keys.sort_unstable();
    game_keys.dedup();
    let n_threads = states.len().max(1);
    let shared = Shared {
        tt,
        oracle,
        tb_root,
        params,
        weights,
        control,
        root,
        game_keys,
        root_moves,
        infinite: limits.infinite,
        contempt: *contempt,
        abort: AtomicBool::new(false),
        nodes: (0..n_threads).map(|_| AtomicU64::new(0)).collect(),
        node_limit,
    };
    let (main_state, helpers) = states.split_first_mut().expect("at least one thread");
    let mut completed_depth = 0;
    let mut final_moves: Vec<RootMove> = shared.root_moves.clone();
    std::thread::scope(|scope| {
        for (i, state) in helpers.iter_mut().enumerate() {
            let mut w = Worker::new(&shared, i + 1, state);
            scope.spawn(move || w.run_helper(&pos, max_depth));
        }
        // If this thread unwinds (a panic here or in `on_info`), the helpers must stop too:
        // the scope waits for them before the panic reaches the caller.
        let _abort_helpers = AbortOnDrop(&shared.abort);
        let mut w = Worker::new(&shared, 0, main_state);
        w.tm = Some(tm);
        let mut best_changes = 0.0f64;
        let mut last_best: Option<Move> = None;
        for depth in 1..=max_depth {
            w.iterate(&pos, depth as i32, lines);
            // An interrupted iteration is not reported; the first one is, unless it was cut
            // short before any root move got a score (then all read -INF).
            if w.stopped && (depth > 1 || !w.root_moves[0].searched) {
                // Keep the moves of the interrupted iteration only if its best was searched.
                if w.root_moves[0].searched {
                    final_moves = w.root_moves.clone();
                }
                break;
            }
            completed_depth = depth;
            final_moves = w.root_moves.clone();
            let elapsed = start.elapsed();
            let nodes = shared.total_nodes().max(w.nodes);
            for (k, rm) in w
                .root_moves
                .iter()
                .take(multipv.min(w.root_moves.len()))
                .enumerate()
            {
                on_info(&Info {
                    depth,
                    seldepth: w.seldepth as u32,
                    score: Score(reported(rm.score, tb_root)),
                    nodes,
                    time: elapsed,
                    nps: nps(nodes, elapsed),
                    pv: rm.pv.clone(),
                    multipv: k + 1,
                });
            }
            if w.stopped {
                break;
            }
            // Time: stop early when the best move is stable, think longer when it changes.
            let best = w.root_moves[0].mv;
            if last_best != Some(best) && last_best.is_some() {
                best_changes += 1.0;
            }
            best_changes *= 0.5;
            last_best = Some(best);
            let stability = 0.7 + best_changes;
            let pondering = control.is_pondering() || limits.infinite;
            if let Some(tm) = &mut w.tm {
                if let Some(hit) = control.ponder_hit_time() {
                    tm.restart(hit);
                }
                if !pondering && !tm.may_start_iteration(stability) {
                    break;
                }
            }
            if !pondering
                && w.root_moves[0].score.abs() >= MATE_BOUND
                && depth as i32 > MATE - w.root_moves[0].score.abs() + 2
            {
                break; // a proven result does not change with depth
            }
        }
        w.publish_nodes();
        // In analysis or ponder mode the result waits for `stop` (or the ponder hit's clock).
        while !w.stopped && (limits.infinite || control.is_pondering()) && !control.is_stopped() {
            std::thread::sleep(Duration::from_millis(2));
        }
        shared.abort.store(true, Ordering::Relaxed);
    });

    let nodes = shared.total_nodes();
    let pick = if handicapped {
        pick_handicapped(&final_moves, lines, level, pos.key())
    } else {
        0
    };
    let chosen = &final_moves[pick];
    SearchResult {
        best: Some(chosen.mv),
        ponder: chosen.pv.get(1).copied(),
        score: Score(if chosen.score == -INF {
            reported(0, tb_root)
        } else {
            reported(chosen.score, tb_root)
        }),
        depth: completed_depth,
        nodes,
        pv: chosen.pv.clone(),
    }
}

fn nps(nodes: u64, t: Duration) -> u64 {
    let ns = t.as_nanos().max(1);
    (nodes as u128 * 1_000_000_000 / ns) as u64
}

fn wait_while_analysing(limits: &Limits, control: &SearchControl) {
    while (limits.infinite || control.is_pondering()) && !control.is_stopped() {
        std::thread::sleep(Duration::from_millis(2));
    }
}

impl Worker<'_, '_> {
    /// One iteration at `depth` for `lines` principal variations, with aspiration windows.
    pub(super) fn iterate(&mut self, pos: &Position, depth: i32, lines: usize) -> i32 {
        self.seldepth = 0;
        for rm in &mut self.root_moves {
            rm.prev_score = rm.score;
        }
        let lines = lines.min(self.root_moves.len()).max(1);
        let mut result = 0;
        for idx in 0..lines {
            self.pv_idx = idx;
            let prev = self.root_moves[idx].prev_score;
            let mut delta = 30;
            let (mut alpha, mut beta) = if depth >= 4 && prev.abs() < MATE_BOUND && prev > -INF {
                (prev - delta, prev + delta)
            } else {
                (-INF, INF)
            };
            loop {
                let s = self.search::<Root>(pos, alpha, beta, depth, 0);
                if self.stopped {
                    break;
                }
                if s <= alpha && alpha > -INF {
                    alpha = (s - delta).max(-INF);
                    if delta > 500 {
                        alpha = -INF;
                    }
                } else if s >= beta && beta < INF {
                    beta = (s + delta).min(INF);
                    if delta > 500 {
                        beta = INF;
                    }
                } else {
                    result = s;
                    break;
                }
                delta *= 2;
            }
            if self.stopped {
                break;
            }
        }
        self.pv_idx = 0;
        // Lines found in this iteration first, in order of score.
        self.root_moves[..lines].sort_by_key(|rm| std::cmp::Reverse(rm.score));
        result
    }
}
