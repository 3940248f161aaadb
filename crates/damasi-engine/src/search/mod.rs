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
//!
//! The parts, one concept each: `iterative` (iterative deepening, aspiration windows, time
//! decisions), `thread` (Lazy SMP: per-thread state, what the threads share, limits), `node`
//! (node kinds as types: `Root`, `Pv`, `NonPv`), `root` (the root moves), `pvs` (the node
//! function, generic over its kind), `qsearch` (quiescence), `stack` (the per-ply stack:
//! keys, last irreversible move, capture count, killers), `pv` (the PV table), `ordering`
//! (move scores and lazy picking), `history` (history table and killers), `draw` (the rules'
//! endings as scores), `mate` (mate scores in the table), `tablebase` (the endgame oracle's
//! values inside the search), `handicap` (weaker levels' move choice) and [`SearchParams`]
//! (switches for the selective parts).

mod draw;
mod handicap;
mod history;
mod iterative;
mod mate;
mod node;
mod ordering;
mod params;
mod pv;
mod pvs;
mod qsearch;
mod root;
mod stack;
mod tablebase;
mod thread;

use crate::Score;

pub(crate) use iterative::{run, Knowledge};
pub use params::SearchParams;
pub use thread::ThreadState;

/// Deepest ply the search goes to (quiescence and extensions included).
pub const MAX_PLY: usize = 128;
/// Deepest iteration.
pub const MAX_DEPTH: u32 = 100;

const MATE: i32 = Score::MATE;
const MATE_BOUND: i32 = Score::MATE_BOUND;
const INF: i32 = Score::INFINITE;
