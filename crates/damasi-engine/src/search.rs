//! The search: iterative deepening, principal-variation search with a transposition table,
//! aspiration windows, late-move reductions, ProbCut (null move is unsound in draughts:
//! zugzwang and blocking are common), killer and history move ordering, and Lazy SMP threads
//! that share the table.
//!
//! Captures are forced, so a position with a capture pending is never evaluated statically:
//! at the horizon the search goes on through the captures (quiescence). A node with a single
//! legal move is extended. The game's draw rules (one piece each, repetition, the optional
//! no-capture limit, king beats lone man, mutual block) are scores inside the search; a side
//! with no legal move loses.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::clock::Instant;

use damasi::bitboard::shift;
use damasi::{Move, MoveList, Position};

use crate::eval::{evaluate, is_threatened, Weights};
use crate::time::{Limits, TimeManager};
use crate::tt::{Bound, Table, TtMove};
use crate::{Info, Level, RuleSet, Score, SearchControl, SearchResult, SearchRoot};

/// Deepest ply the search goes to (quiescence and extensions included).
pub const MAX_PLY: usize = 128;
/// Deepest iteration.
pub const MAX_DEPTH: u32 = 100;

const MATE: i32 = Score::MATE;
const MATE_BOUND: i32 = Score::MATE_BOUND;
const INF: i32 = Score::INFINITE;

/// Moves ordered per node; later ones (only in positions with many kings) keep generation
/// order. Kept small because the score array is cleared at every node.
const SCORED: usize = 128;

/// How often (in nodes) a thread publishes its node count and checks the limits.
const CHECK_EVERY: u64 = 1024;

/// Per-thread state kept between searches: move-ordering history.
pub struct ThreadState {
    history: Box<[[[i32; 64]; 64]; 2]>,
}

impl ThreadState {
    /// Fresh state.
    pub fn new() -> ThreadState {
        ThreadState {
            history: Box::new([[[0; 64]; 64]; 2]),
        }
    }

    /// Forgets the history.
    pub fn clear(&mut self) {
        *self.history = [[[0; 64]; 64]; 2];
    }
}

impl Default for ThreadState {
    fn default() -> Self {
        ThreadState::new()
    }
}

/// Switches for the selective parts of the search, to measure each one in self-play
/// (`cargo run --release -p damasi-engine --example tune -- ab <part> [nodes]`). Measured at
/// fixed nodes against the same search without the part, 100 openings, both colours:
/// RFP +82 =51 -67; ProbCut +77 =48 -75 (3000 nodes) and +68 =53 -79 (8000 nodes);
/// LMR +87 =40 -73; LMP +72 =38 -90 (3000) and +68 =69 -63 (6000). None is significant at
/// this size; LMP is off by default. The threat answer at the horizon cost more nodes than
/// it found: the search without it won +91 =47 -62 at 3000 nodes, so it is off.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SearchParams {
    /// Reverse futility pruning near the horizon.
    pub rfp: bool,
    /// ProbCut.
    pub probcut: bool,
    /// Late-move pruning near the horizon.
    pub lmp: bool,
    /// Late-move reductions.
    pub lmr: bool,
    /// At the horizon, answer a threatened capture with one ply of quiet moves instead of
    /// evaluating.
    pub threat_qs: bool,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            rfp: true,
            probcut: true,
            // Off: in 400 self-play games (3000 and 6000 nodes a move) the search with it
            // scored 46.75% against the same search without it.
            lmp: false,
            lmr: true,
            threat_qs: false,
        }
    }
}

/// What all threads of one search share.
struct Shared<'a> {
    tt: &'a Table,
    params: SearchParams,
    control: &'a SearchControl,
    /// Set by the main thread when the search must end (limits or `control.stop`).
    abort: AtomicBool,
    /// Node counts published by each thread.
    nodes: Vec<AtomicU64>,
    node_limit: u64,
}

impl Shared<'_> {
    fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }
}

/// A root move and what the last iterations found for it.
#[derive(Clone)]
struct RootMove {
    mv: Move,
    score: i32,
    prev_score: i32,
    pv: Vec<Move>,
    /// Whether `score` is exact in the current iteration.
    searched: bool,
}

/// One search thread.
struct Worker<'a, 'b> {
    shared: &'b Shared<'a>,
    id: usize,
    state: &'b mut ThreadState,
    weights: &'b Weights,
    params: SearchParams,
    rules: RuleSet,
    /// Keys of earlier game positions (sorted, for binary search) and the root's no-capture
    /// count.
    history: Vec<u64>,
    root_nocap: u32,
    /// Keys along the current path: `keys[ply]` is the position at `ply`.
    keys: [u64; MAX_PLY + 2],
    killers: [[Option<Move>; 2]; MAX_PLY + 2],
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 2],
    nodes: u64,
    seldepth: usize,
    /// Main thread only: time limits.
    tm: Option<TimeManager>,
    stopped: bool,
    infinite: bool,
    root_moves: Vec<RootMove>,
    /// Lines searched with a full window in multi-PV (`pv_idx` of them are fixed already).
    pv_idx: usize,
}

/// Late-move reduction table, by depth and move number.
fn reduction(depth: i32, index: usize) -> i32 {
    let d = depth.min(63) as f64;
    let i = index.min(63) as f64;
    (0.5 + d.ln() * i.ln() / 2.5) as i32
}

impl Worker<'_, '_> {
    /// Counts a node and checks the limits now and then.
    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes % CHECK_EVERY == 0 {
            self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
            self.check_limits();
        }
    }

    fn check_limits(&mut self) {
        if self.shared.abort.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.id != 0 {
            return;
        }
        let c = self.shared.control;
        let mut stop = c.is_stopped();
        if !stop && self.shared.node_limit != u64::MAX {
            stop = self.shared.total_nodes() >= self.shared.node_limit;
        }
        if !stop && !self.infinite && !c.is_pondering() {
            if let Some(tm) = &mut self.tm {
                if let Some(hit) = c.ponder_hit_time() {
                    tm.restart(hit);
                }
                stop = tm.out_of_time();
            }
        }
        if stop {
            self.stopped = true;
            self.shared.abort.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the position at `ply` repeats an earlier one: on the path back to the last
    /// irreversible move (`irrev` = ply just after it), or, with no irreversible move since the
    /// root, in the game before the root.
    #[inline]
    fn is_repetition(&self, key: u64, ply: usize, irrev: usize) -> bool {
        let mut j = ply;
        while j >= irrev + 2 {
            j -= 2;
            if self.keys[j] == key {
                return true;
            }
        }
        irrev == 0 && self.history.binary_search(&key).is_ok()
    }

    /// The score of a position that the rules end (before looking at its moves), if any.
    #[inline]
    fn rule_outcome(&self, pos: &Position, ply: usize, irrev: usize, nocap: u32) -> Option<i32> {
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
            return Some(0);
        }
        if self.is_repetition(pos.key(), ply, irrev) {
            return Some(0);
        }
        if let Some(limit) = self.rules.no_capture_limit {
            // A side with no move has lost (or drawn by mutual block) before the limit
            // counts, as the game rules judge it.
            if nocap >= limit && pos.has_legal_move() {
                return Some(0);
            }
        }
        None
    }

    /// The score when the side to move has no legal move: a loss, unless the opponent would
    /// be blocked too (mutual block: a draw).
    fn no_move_score(pos: &Position, ply: usize) -> i32 {
        let them = pos.with_side_to_move(!pos.side_to_move());
        if pos.count(pos.side_to_move()) > 0 && !them.has_legal_move() {
            0
        } else {
            -MATE + ply as i32
        }
    }

    /// Scores `moves` for ordering: TT move, captures (more and kings first), promotions,
    /// killers, then history. Lists longer than `scores` keep generation order.
    fn score_moves(
        &self,
        pos: &Position,
        moves: &[Move],
        tt_move: TtMove,
        ply: usize,
        scores: &mut [i32; SCORED],
    ) {
        let side = pos.side_to_move() as usize;
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
            } else if self.killers[ply][0] == Some(*m) {
                1 << 26
            } else if self.killers[ply][1] == Some(*m) {
                (1 << 26) - 1
            } else {
                self.state.history[side][m.from().index()][m.to().index()]
            };
        }
    }

    fn update_quiet_stats(
        &mut self,
        pos: &Position,
        best: &Move,
        tried: &[Move],
        depth: i32,
        ply: usize,
    ) {
        if self.killers[ply][0] != Some(*best) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(*best);
        }
        let side = pos.side_to_move() as usize;
        let bonus = (depth * depth).min(400);
        let h = &mut self.state.history[side];
        let mut bump = |m: &Move, b: i32| {
            let e = &mut h[m.from().index()][m.to().index()];
            *e += b - *e * b.abs() / 16384;
        };
        bump(best, bonus);
        for m in tried {
            if !m.is_capture() && m != best {
                bump(m, -bonus);
            }
        }
    }

    /// Quiescence: at the horizon, a position with a capture pending is searched through its
    /// captures (they are forced); otherwise it is evaluated.
    #[allow(clippy::too_many_arguments)]
    fn qsearch(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        irrev: usize,
        nocap: u32,
        threat_ext: bool,
    ) -> i32 {
        self.count_node();
        self.pv_len[ply] = 0;
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if let Some(s) = self.rule_outcome(pos, ply, irrev, nocap) {
            return s;
        }
        if ply >= MAX_PLY {
            return evaluate(pos, self.weights);
        }
        if !pos.has_capture() {
            // A man with an empty square in front can move: skip the full test then.
            let us = pos.side_to_move();
            let can_step = shift(pos.men_of(us), us.forward()) & pos.empty() != 0;
            if !can_step && !pos.has_legal_move() {
                return Self::no_move_score(pos, ply);
            }
            if threat_ext && is_threatened(pos) {
                return self.answer_threat(pos, alpha, beta, ply, irrev, nocap);
            }
            return evaluate(pos, self.weights);
        }
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        let mut scores = [0i32; SCORED];
        if moves.len() > 1 {
            self.score_moves(pos, &moves, TtMove::NONE, ply, &mut scores);
        }
        let mut best = -INF;
        for i in 0..moves.len() {
            pick(moves.as_mut_slice(), &mut scores, i);
            let m = &moves[i];
            let child = pos.play(m);
            self.keys[ply + 1] = child.key();
            let s = -self.qsearch(&child, -beta, -alpha, ply + 1, ply + 1, 0, threat_ext);
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    self.update_pv(ply, m);
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// At the horizon, a quiet position in which the opponent threatens a capture: the
    /// evaluation cannot see whether the threat can be met, so every quiet move is tried
    /// once (no stand-pat), each followed by the captures it allows.
    fn answer_threat(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        irrev: usize,
        nocap: u32,
    ) -> i32 {
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        let mut scores = [0i32; SCORED];
        self.score_moves(pos, &moves, TtMove::NONE, ply, &mut scores);
        let mut best = -INF;
        for i in 0..moves.len() {
            pick(moves.as_mut_slice(), &mut scores, i);
            let m = &moves[i];
            let child = pos.play(m);
            self.keys[ply + 1] = child.key();
            let child_irrev = if pos.is_irreversible(m) {
                ply + 1
            } else {
                irrev
            };
            let s = -self.qsearch(
                &child,
                -beta,
                -alpha,
                ply + 1,
                child_irrev,
                nocap + 1,
                false,
            );
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    self.update_pv(ply, m);
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    #[inline]
    fn update_pv(&mut self, ply: usize, m: &Move) {
        let n = self.pv_len[ply + 1].min(MAX_PLY - ply - 1);
        self.pv[ply][0] = *m;
        for i in 0..n {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = n + 1;
    }

    /// Principal-variation search below the root.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        irrev: usize,
        nocap: u32,
        pv_node: bool,
    ) -> i32 {
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply, irrev, nocap, self.params.threat_qs);
        }
        self.count_node();
        self.pv_len[ply] = 0;
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if let Some(s) = self.rule_outcome(pos, ply, irrev, nocap) {
            return s;
        }
        if ply >= MAX_PLY {
            return evaluate(pos, self.weights);
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
            if !pv_node && hit.depth >= depth {
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

        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            return Self::no_move_score(pos, ply);
        }
        let capture_pending = moves[0].is_capture();

        // Reverse futility: near the horizon, a quiet position whose evaluation clears beta by
        // a margin per ply is taken as a fail high.
        if self.params.rfp && !pv_node && depth <= 3 && !capture_pending && beta.abs() < MATE_BOUND
        {
            let eval = evaluate(pos, self.weights);
            if eval - 80 * depth >= beta {
                return eval;
            }
        }

        // ProbCut: if a shallow search clears beta by a margin, the deep one very likely
        // fails high too. Used instead of null move.
        if self.params.probcut
            && !pv_node
            && depth >= 5
            && beta.abs() < MATE_BOUND
            && !capture_pending
        {
            let rbeta = beta + 100;
            let s = self.search(pos, rbeta - 1, rbeta, depth - 4, ply, irrev, nocap, false);
            if self.stopped {
                return 0;
            }
            if s >= rbeta {
                return s;
            }
            self.pv_len[ply] = 0;
        }

        let mut scores = [0i32; SCORED];
        self.score_moves(pos, &moves, tt_move, ply, &mut scores);
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
            if self.params.lmp
                && !pv_node
                && quiet
                && !offers_capture
                && depth <= 3
                && i >= (3 + 2 * depth * depth) as usize
                && best > -MATE_BOUND
            {
                continue;
            }
            self.keys[ply + 1] = child.key();
            self.shared.tt.prefetch(child.key());
            let child_irrev = if pos.is_irreversible(m) {
                ply + 1
            } else {
                irrev
            };
            let child_nocap = if m.is_capture() { 0 } else { nocap + 1 };
            let new_depth = depth - 1 + extension;
            let mut s;
            if i == 0 {
                s = -self.search(
                    &child,
                    -beta,
                    -alpha,
                    new_depth,
                    ply + 1,
                    child_irrev,
                    child_nocap,
                    pv_node,
                );
            } else {
                // Late-move reduction for quiet moves tried late.
                let mut r = 0;
                if self.params.lmr && depth >= 3 && quiet && i >= 2 && !offers_capture {
                    r = reduction(depth, i) - i32::from(pv_node);
                    if self.killers[ply].contains(&Some(*m)) {
                        r -= 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                s = -self.search(
                    &child,
                    -alpha - 1,
                    -alpha,
                    new_depth - r,
                    ply + 1,
                    child_irrev,
                    child_nocap,
                    false,
                );
                if s > alpha && r > 0 {
                    s = -self.search(
                        &child,
                        -alpha - 1,
                        -alpha,
                        new_depth,
                        ply + 1,
                        child_irrev,
                        child_nocap,
                        false,
                    );
                }
                if s > alpha && pv_node && s < beta {
                    s = -self.search(
                        &child,
                        -beta,
                        -alpha,
                        new_depth,
                        ply + 1,
                        child_irrev,
                        child_nocap,
                        true,
                    );
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
                    if pv_node {
                        self.update_pv(ply, &m);
                    }
                    if s >= beta {
                        if quiet {
                            // The moves tried before the cut-off sit in front of it.
                            self.update_quiet_stats(pos, &m, &moves[..i], depth, ply);
                        }
                        break;
                    }
                }
            }
        }

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

    /// Searches the root moves from `pv_idx` on with the window (alpha, beta); sorts them.
    fn root_search(&mut self, root: &Position, depth: i32, mut alpha: i32, beta: i32) -> i32 {
        self.count_node();
        self.pv_len[0] = 0;
        let nocap = self.root_nocap;
        let first = self.pv_idx;
        let extension = i32::from(self.root_moves.len() == 1);
        let mut best = -INF;
        for rm in &mut self.root_moves[first..] {
            rm.searched = false;
        }
        for i in first..self.root_moves.len() {
            let m = self.root_moves[i].mv;
            let child = root.play(&m);
            self.keys[1] = child.key();
            let irrev = if root.is_irreversible(&m) { 1 } else { 0 };
            let child_nocap = if m.is_capture() { 0 } else { nocap + 1 };
            let new_depth = depth - 1 + extension;
            let mut s;
            if i == first {
                s = -self.search(
                    &child,
                    -beta,
                    -alpha,
                    new_depth,
                    1,
                    irrev,
                    child_nocap,
                    true,
                );
            } else {
                s = -self.search(
                    &child,
                    -alpha - 1,
                    -alpha,
                    new_depth,
                    1,
                    irrev,
                    child_nocap,
                    false,
                );
                if s > alpha && s < beta {
                    s = -self.search(
                        &child,
                        -beta,
                        -alpha,
                        new_depth,
                        1,
                        irrev,
                        child_nocap,
                        true,
                    );
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
                let n = self.pv_len[1];
                rm.pv.extend_from_slice(&self.pv[1][..n]);
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

/// Lazy selection sort: moves the best-scored of `moves[i..]` to `i` (cut-offs usually come
/// early, so most lists are never fully sorted).
#[inline]
fn pick(moves: &mut [Move], scores: &mut [i32; SCORED], i: usize) {
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

#[inline]
fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s + ply as i32
    } else if s <= -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

#[inline]
fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// A small deterministic random number generator (xorshift*), for the level noise.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Runs one search (the body of [`crate::Engine::search`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    tt: &Table,
    states: &mut [ThreadState],
    weights: &Weights,
    params: SearchParams,
    root: &SearchRoot,
    limits: &Limits,
    level: Level,
    multipv: usize,
    control: &Arc<SearchControl>,
    on_info: &mut dyn FnMut(&Info),
) -> SearchResult {
    let start = Instant::now();
    tt.new_search();
    let pos = root.position;
    let legal = pos.legal_moves();
    if legal.is_empty() {
        let score = Worker::no_move_score(&pos, 0);
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

    let mut history: Vec<u64> = root.history.clone();
    history.sort_unstable();
    history.dedup();
    let n_threads = states.len().max(1);
    let shared = Shared {
        tt,
        params,
        control,
        abort: AtomicBool::new(false),
        nodes: (0..n_threads).map(|_| AtomicU64::new(0)).collect(),
        node_limit,
    };
    let root_moves: Vec<RootMove> = legal
        .iter()
        .map(|m| RootMove {
            mv: *m,
            score: -INF,
            prev_score: -INF,
            pv: vec![*m],
            searched: false,
        })
        .collect();

    let (main_state, helpers) = states.split_first_mut().expect("at least one thread");
    let mut completed_depth = 0;
    let mut final_moves: Vec<RootMove> = root_moves.clone();
    std::thread::scope(|scope| {
        for (i, state) in helpers.iter_mut().enumerate() {
            let mut w = new_worker(
                &shared,
                i + 1,
                state,
                weights,
                root,
                &history,
                &root_moves,
                limits.infinite,
            );
            scope.spawn(move || {
                // Helpers start at different depths so that threads spread over the tree.
                let skip = (i % 2) as u32;
                let mut depth = 1 + skip;
                while depth <= max_depth && !w.stopped {
                    w.iterate(&pos, depth as i32, 1);
                    depth += 1;
                }
                w.shared.nodes[w.id].store(w.nodes, Ordering::Relaxed);
            });
        }
        // If this thread unwinds (a panic here or in `on_info`), the helpers must stop too:
        // the scope waits for them before the panic reaches the caller.
        let _abort_helpers = AbortOnDrop(&shared.abort);
        let mut w = new_worker(
            &shared,
            0,
            main_state,
            weights,
            root,
            &history,
            &root_moves,
            limits.infinite,
        );
        w.tm = Some(tm);
        let mut best_changes = 0.0f64;
        let mut last_best: Option<Move> = None;
        for depth in 1..=max_depth {
            let score = w.iterate(&pos, depth as i32, lines);
            let _ = score;
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
                    score: Score(rm.score),
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
            let c = shared.control;
            let pondering = c.is_pondering() || limits.infinite;
            if let Some(tm) = &mut w.tm {
                if let Some(hit) = c.ponder_hit_time() {
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
        shared.nodes[0].store(w.nodes, Ordering::Relaxed);
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
            0
        } else {
            chosen.score
        }),
        depth: completed_depth,
        nodes,
        pv: chosen.pv.clone(),
    }
}

#[allow(clippy::too_many_arguments)]
fn new_worker<'a, 'b>(
    shared: &'b Shared<'a>,
    id: usize,
    state: &'b mut ThreadState,
    weights: &'b Weights,
    root: &SearchRoot,
    history: &[u64],
    root_moves: &[RootMove],
    infinite: bool,
) -> Box<Worker<'a, 'b>> {
    let pos = root.position;
    let mut keys = [0u64; MAX_PLY + 2];
    keys[0] = pos.key();
    Box::new(Worker {
        shared,
        id,
        state,
        weights,
        params: shared.params,
        rules: root.rules,
        history: history.to_vec(),
        root_nocap: root.plies_since_capture,
        keys,
        killers: [[None; 2]; MAX_PLY + 2],
        pv: Box::new([[root_moves[0].mv; MAX_PLY + 1]; MAX_PLY + 1]),
        pv_len: [0; MAX_PLY + 2],
        nodes: 0,
        seldepth: 0,
        tm: None,
        stopped: false,
        infinite,
        root_moves: root_moves.to_vec(),
        pv_idx: 0,
    })
}

/// Sets the search's abort flag when dropped, also during unwinding.
struct AbortOnDrop<'a>(&'a AtomicBool);

impl Drop for AbortOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
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

/// A weaker level's choice among the best `lines` root moves: noisy scores, and now and then
/// a deliberate pick of the second to fourth best.
fn pick_handicapped(moves: &[RootMove], lines: usize, level: Level, key: u64) -> usize {
    let seed = key
        ^ crate::clock::SystemTime::now()
            .duration_since(crate::clock::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
        | 1;
    let mut rng = Rng(seed);
    let n = lines.min(moves.len()).max(1);
    let noise = level.noise() as u64;
    let best_score = moves[0].score;
    let max_loss = 40 * (11 - level.get() as i32);
    if n > 1 && rng.below(100) < level.slip_percent() as u64 {
        let candidates: Vec<usize> = (1..n)
            .filter(|&i| moves[i].score > -INF && best_score - moves[i].score <= max_loss)
            .collect();
        if !candidates.is_empty() {
            return candidates[rng.below(candidates.len() as u64) as usize];
        }
    }
    let mut pick = 0;
    let mut pick_score = i32::MIN;
    for (i, rm) in moves.iter().take(n).enumerate() {
        if rm.score == -INF {
            continue;
        }
        let jitter = if noise == 0 {
            0
        } else {
            rng.below(2 * noise + 1) as i32 - noise as i32
        };
        let s = rm.score
            + if rm.score.abs() < MATE_BOUND {
                jitter
            } else {
                0
            };
        if s > pick_score {
            pick_score = s;
            pick = i;
        }
    }
    pick
}

impl Worker<'_, '_> {
    /// One iteration at `depth` for `lines` principal variations, with aspiration windows.
    fn iterate(&mut self, pos: &Position, depth: i32, lines: usize) -> i32 {
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
                let s = self.root_search(pos, depth, alpha, beta);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_grow_with_depth_and_move_number() {
        assert_eq!(reduction(1, 1), 0);
        assert!(reduction(10, 20) > reduction(4, 3));
    }

    #[test]
    fn tt_scores_keep_mate_distance() {
        let s = MATE - 10;
        assert_eq!(score_from_tt(score_to_tt(s, 4), 4), s);
        assert_eq!(score_from_tt(score_to_tt(-s, 4), 4), -s);
        assert_eq!(score_to_tt(55, 9), 55);
    }
}
