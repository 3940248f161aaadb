//! Search threads (Lazy SMP): every thread searches the same root with its own stack and
//! history, sharing only the transposition table, the node counts and the abort flag. The main
//! thread (id 0) checks the limits and decides when the search ends; helpers start at
//! different depths so that they spread over the tree and fill the table for it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use damasi::Position;

use super::history::History;
use super::pv::PvTable;
use super::root::RootMove;
use super::stack::Stack;
use super::SearchParams;
use super::MAX_PLY;
use crate::eval::{evaluate_with, Weights};
use crate::network::Accumulator;
use crate::oracle::{EndgameOracle, RootValue};
use crate::time::TimeManager;
use crate::tt::Table;
use crate::{RuleSet, SearchControl, SearchRoot};

/// How often (in nodes) a thread publishes its node count and checks the limits.
const CHECK_EVERY: u64 = 1024;

/// Per-thread state kept between searches: move-ordering history.
pub struct ThreadState {
    pub(super) history: History,
}

impl ThreadState {
    /// Fresh state.
    pub fn new() -> ThreadState {
        ThreadState {
            history: History::new(),
        }
    }

    /// Forgets the history.
    pub fn clear(&mut self) {
        self.history.clear();
    }
}

impl Default for ThreadState {
    fn default() -> Self {
        ThreadState::new()
    }
}

/// What all threads of one search share.
pub(super) struct Shared<'a> {
    pub tt: &'a Table,
    /// Endgame tables, under the default rules only.
    pub oracle: Option<&'a dyn EndgameOracle>,
    /// What the oracle says about the root, if it knows it.
    pub tb_root: Option<RootValue>,
    pub params: SearchParams,
    pub weights: &'a Weights,
    pub control: &'a SearchControl,
    pub root: &'a SearchRoot,
    /// Keys of the game's positions before the root (sorted, for binary search).
    pub game_keys: Vec<u64>,
    /// The legal moves at the root, in generation order.
    pub root_moves: Vec<RootMove>,
    /// Analysis: the search goes on until stopped.
    pub infinite: bool,
    /// How much less than nothing a draw is worth to the root's side to move (centi-men).
    pub contempt: i32,
    /// Set by the main thread when the search must end (limits or `control.stop`).
    pub abort: AtomicBool,
    /// Node counts published by each thread.
    pub nodes: Vec<AtomicU64>,
    pub node_limit: u64,
}

impl Shared<'_> {
    /// Nodes searched by all threads, as last published.
    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }
}

/// Sets the search's abort flag when dropped, also during unwinding, so that a panic in the
/// main thread (or in its info callback) stops the helpers instead of hanging the search.
pub(super) struct AbortOnDrop<'a>(pub &'a AtomicBool);

impl Drop for AbortOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// One search thread's state during a search.
pub(super) struct Worker<'a, 'b> {
    pub shared: &'b Shared<'a>,
    pub id: usize,
    pub state: &'b mut ThreadState,
    pub weights: &'b Weights,
    pub params: SearchParams,
    pub rules: RuleSet,
    /// Keys of the game's positions before the root (sorted, for binary search).
    pub game_keys: &'b [u64],
    pub stack: Stack,
    pub pv: PvTable,
    pub nodes: u64,
    pub seldepth: usize,
    /// Main thread only: time limits.
    pub tm: Option<TimeManager>,
    pub stopped: bool,
    pub infinite: bool,
    /// The request's contempt ([`Worker::draw_score`]).
    pub contempt: i32,
    pub root_moves: Vec<RootMove>,
    /// Lines searched with a full window in multi-PV (`pv_idx` of them are fixed already).
    pub pv_idx: usize,
    /// The network's first-layer sums last computed at each ply (see [`Worker::evaluate`]).
    pub accs: Vec<Option<Accumulator>>,
}

impl<'a, 'b> Worker<'a, 'b> {
    /// Thread `id` of the search `shared` describes, with the thread's lasting `state`
    /// (boxed: the stack and PV table are large).
    pub fn new(
        shared: &'b Shared<'a>,
        id: usize,
        state: &'b mut ThreadState,
    ) -> Box<Worker<'a, 'b>> {
        let root = shared.root;
        Box::new(Worker {
            shared,
            id,
            state,
            weights: shared.weights,
            params: shared.params,
            rules: root.rules,
            game_keys: &shared.game_keys,
            stack: Stack::new(&root.position, root.plies_since_capture),
            pv: PvTable::new(shared.root_moves[0].mv),
            nodes: 0,
            seldepth: 0,
            tm: None,
            stopped: false,
            infinite: shared.infinite,
            contempt: shared.contempt,
            root_moves: shared.root_moves.clone(),
            pv_idx: 0,
            accs: vec![None; MAX_PLY + 2],
        })
    }

    /// The static evaluation of the quiet position `pos` at `ply` ([`crate::eval::evaluate`]),
    /// or with `window`, the lazy one within (alpha, beta) ([`evaluate_with`]). The network's
    /// first layer is brought from the nearest accumulator of the same side to move kept in
    /// the stack: the last one of this ply (a sibling, a move or two away) or the one two
    /// plies up. Summing afresh only when they differ by as many pieces as the position has.
    pub fn evaluate(&mut self, pos: &Position, ply: usize, window: Option<(i32, i32)>) -> i32 {
        let (alpha, beta) = window.unwrap_or((-i32::MAX, i32::MAX));
        let accs = &mut self.accs;
        evaluate_with(pos, self.weights, alpha, beta, |net, pos| {
            let pieces = (pos.pieces_of(damasi::Color::White)
                | pos.pieces_of(damasi::Color::Black))
            .count_ones();
            let near = |p: usize| -> Option<(usize, u32)> {
                let d = accs.get(p)?.as_ref()?.distance(pos)?;
                Some((p, d))
            };
            let from = match (near(ply), ply.checked_sub(2).and_then(near)) {
                (Some(a), Some(b)) => Some(if b.1 < a.1 { b } else { a }),
                (a, b) => a.or(b),
            };
            let acc = match from {
                Some((p, d)) if d < pieces => {
                    let mut acc = if p == ply {
                        accs[ply].take().expect("near found it")
                    } else {
                        accs[p].clone().expect("near found it")
                    };
                    net.update(&mut acc, pos);
                    acc
                }
                _ => net.refresh(pos),
            };
            debug_assert_eq!(acc, net.refresh(pos), "incremental first layer");
            let score = net.score_of(&acc);
            accs[ply] = Some(acc);
            score
        })
    }

    /// Counts a node and checks the limits now and then.
    #[inline]
    pub fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes % CHECK_EVERY == 0 {
            self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
            self.check_limits();
        }
    }

    /// Publishes this thread's node count.
    pub fn publish_nodes(&self) {
        self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
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

    /// A helper thread's whole search: iterations one after another until the main thread
    /// aborts or `max_depth` is done. Odd helpers skip the first depth.
    pub fn run_helper(&mut self, pos: &Position, max_depth: u32) {
        debug_assert!(self.id > 0);
        let skip = ((self.id - 1) % 2) as u32;
        let mut depth = 1 + skip;
        while depth <= max_depth && !self.stopped {
            self.iterate(pos, depth as i32, 1);
            depth += 1;
        }
        self.publish_nodes();
    }
}
