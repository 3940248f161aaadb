//! # damasi-engine: a Turkish draughts (Dama) engine
//!
//! Iterative-deepening principal-variation search with a shared transposition table (Lazy SMP
//! threads), forced captures resolved before any static evaluation, the game's draw rules as
//! scores inside the search, a hand-written evaluation with weights that can be fitted
//! ([`eval::Weights`], by `damasi_tools::tune`) plus a small learned network ([`network`],
//! shipped and on by default), time management ([`time`]) and a fixed
//! [`bench`](mod@bench).
//!
//! ```
//! use std::sync::Arc;
//! use damasi::Position;
//! use damasi_engine::{Engine, EngineOptions, Limits, SearchControl, SearchRequest, SearchRoot};
//!
//! let mut engine = Engine::new(EngineOptions { hash_mb: 1, threads: 1 });
//! let request = SearchRequest::new(SearchRoot::new(Position::start()), Limits::depth(4));
//! let control = Arc::new(SearchControl::new());
//! let mut lines = 0;
//! let result = engine.search(&request, &control, &mut |info| {
//!     lines += 1;
//!     assert!(!info.pv.is_empty());
//! });
//! let best = result.best.expect("the start position has moves");
//! assert!(Position::start().legal_moves().contains(&best));
//! assert_eq!(result.depth, 4);
//! assert!(lines >= 4);
//! ```
//!
//! A [`SearchRequest`] names the root, the [`Limits`], the [`Level`] and the number of lines.
//! A game in progress goes in with [`SearchRoot::from_game`], so that repetitions of earlier
//! positions and the rule set's options count. Another thread may end a search with
//! [`SearchControl::stop`]; a ponder search ([`SearchControl::new_ponder`]) becomes a timed
//! one at [`SearchControl::ponder_hit`]. Scores are centi-men from the side to move's view,
//! wins and losses in a known number of plies near ±[`Score::MATE`].
//!
//! Modules: [`search`] (the search, [`search::SearchParams`] to switch its selective parts
//! off for measurement), [`tt`] (the shared transposition table), [`eval`] (the evaluation
//! and its features), [`patterns`] (the optional learned pattern tables and their file), [`network`] (the optional NNUE-style network), [`time`] (clocks and limits), [`Level`] (playing strength), [`Score`],
//! [`SearchControl`] (stop, ponder), [`bench`](mod@bench) (`damasi bench`), [`oracle`] (the
//! hook for endgame tablebases), and the Hub
//! protocol: [`hub`] (the engine loop) and [`protocol`] (its line parser). The Hub's square
//! numbering and move format are the rules library's ([`damasi::hub`]). Matches, SPRT,
//! opening sets and Texel tuning live in the `damasi-tools` crate.

pub mod bench;
pub mod book;
mod clock;
mod control;
pub mod eval;
pub mod hub;
mod level;
pub mod line_reader;
mod machine;
pub mod network;
pub mod oracle;
pub mod patterns;
pub mod protocol;
mod request;
mod score;
pub mod search;
pub mod time;
pub mod tt;

use std::sync::Arc;
use std::time::Duration;

use damasi::Move;

pub use control::SearchControl;
pub use damasi::RuleSet;
pub use level::Level;
pub use request::{SearchRequest, SearchRoot, PLAY_CONTEMPT};
pub use score::Score;
pub use time::{Clock, Limits};

/// Engine settings.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct EngineOptions {
    /// Transposition table size in MiB (at least 1).
    pub hash_mb: usize,
    /// Search threads (Lazy SMP; at least 1).
    pub threads: usize,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            hash_mb: 64,
            threads: 1,
        }
    }
}

/// Progress of a search, reported after each iteration (one per line with multi-PV).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Info {
    /// Depth of the iteration in plies.
    pub depth: u32,
    /// Deepest ply reached (selective depth).
    pub seldepth: u32,
    /// Score of this line from the side to move's view.
    pub score: Score,
    /// Nodes searched so far (all threads).
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Nodes per second.
    pub nps: u64,
    /// The principal variation, starting with the root move.
    pub pv: Vec<Move>,
    /// Which line this is, 1 = best (multi-PV).
    pub multipv: usize,
}

/// What a search found.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SearchResult {
    /// The move to play (`None` only when the side to move has no legal move).
    pub best: Option<Move>,
    /// The expected reply, for pondering.
    pub ponder: Option<Move>,
    /// Score of the best move from the side to move's view.
    pub score: Score,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Nodes searched (all threads).
    pub nodes: u64,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// The engine: a transposition table and per-thread search state kept between searches.
pub struct Engine {
    options: EngineOptions,
    weights: eval::Weights,
    params: search::SearchParams,
    tt: tt::Table,
    threads: Vec<search::ThreadState>,
    oracle: Option<Arc<dyn oracle::EndgameOracle>>,
    book: Option<Arc<book::Book>>,
}

impl Engine {
    /// An engine with the given options.
    pub fn new(options: EngineOptions) -> Engine {
        let options = EngineOptions {
            hash_mb: options.hash_mb.max(1),
            threads: options.threads.clamp(1, 256),
        };
        Engine {
            options,
            weights: eval::Weights::shipped(),
            // A unit struct without the `tune` feature, fields with it.
            #[allow(clippy::default_constructed_unit_structs)]
            params: search::SearchParams::default(),
            tt: tt::Table::new(options.hash_mb),
            threads: (0..options.threads)
                .map(|_| search::ThreadState::new())
                .collect(),
            oracle: None,
            book: None,
        }
    }

    /// The current options.
    pub fn options(&self) -> EngineOptions {
        self.options
    }

    /// Forgets everything learnt in earlier searches (hash table, move-ordering history).
    pub fn new_game(&mut self) {
        self.tt.new_game();
        for t in &mut self.threads {
            t.clear();
        }
    }

    /// Replaces the evaluation weights (for tuning and matches between weight sets).
    pub fn set_weights(&mut self, weights: eval::Weights) {
        self.weights = weights;
    }

    /// Turns selective parts of the search on or off (for measuring them in self-play; only
    /// with the `tune` feature: otherwise they are constants).
    #[cfg(feature = "tune")]
    pub fn set_search_params(&mut self, params: search::SearchParams) {
        self.params = params;
    }

    /// The evaluation weights in use.
    pub fn weights(&self) -> &eval::Weights {
        &self.weights
    }

    /// Changes the hash size or the number of threads (resizing the hash clears it).
    pub fn set_options(&mut self, options: EngineOptions) {
        let options = EngineOptions {
            hash_mb: options.hash_mb.max(1),
            threads: options.threads.clamp(1, 256),
        };
        if options.hash_mb != self.options.hash_mb {
            self.tt = tt::Table::new(options.hash_mb);
        }
        self.threads
            .resize_with(options.threads, search::ThreadState::new);
        self.options = options;
    }

    /// Runs the search `request` describes, reporting its lines through `on_info` after each
    /// iteration. Returns when a limit is reached or `control` is stopped; with
    /// [`Limits::infinite`] or a ponder control it does not return before `stop` (or, when
    /// pondering, before the time limit after `ponder_hit`).
    pub fn search(
        &mut self,
        request: &SearchRequest,
        control: &Arc<SearchControl>,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        if let Some(result) = self.book_move(request, on_info) {
            return result;
        }
        search::run(
            &self.tt,
            &mut self.threads,
            search::Knowledge {
                weights: &self.weights,
                params: self.params,
                oracle: self.oracle.as_deref(),
            },
            request,
            control,
            on_info,
        )
    }

    /// Uses `oracle` (endgame tablebases) in every search from now on, or none. The search
    /// asks it only under the default rules ([`crate::oracle`] says how it is used).
    pub fn set_endgame_oracle(&mut self, oracle: Option<Arc<dyn oracle::EndgameOracle>>) {
        self.oracle = oracle;
    }

    /// Uses `book` for the requests that ask for it ([`SearchRequest::with_book`]), or the
    /// shipped book ([`book::Book::builtin`]) when `None`.
    pub fn set_book(&mut self, book: Option<Arc<book::Book>>) {
        self.book = book;
    }

    /// A book move for `request`, reported as a one-move line, when the request allows the
    /// book (asked for, full strength, one line, every root move, not endless) and the
    /// position is in it.
    fn book_move(
        &self,
        request: &SearchRequest,
        on_info: &mut dyn FnMut(&Info),
    ) -> Option<SearchResult> {
        if !request.book
            || request.level != Level::MAX
            || request.multipv != 1
            || !request.root_moves.is_empty()
        {
            return None;
        }
        if request.limits.infinite {
            return None;
        }
        let book = self
            .book
            .as_deref()
            .unwrap_or_else(|| book::Book::builtin());
        let pick = book.pick(
            &request.root.position,
            book::DEFAULT_MARGIN,
            book::fresh_random(),
        )?;
        let info = Info {
            depth: pick.depth,
            seldepth: pick.depth,
            score: Score(pick.score),
            nodes: 0,
            time: Duration::ZERO,
            nps: 0,
            pv: vec![pick.mv],
            multipv: 1,
        };
        on_info(&info);
        Some(SearchResult {
            best: Some(pick.mv),
            ponder: None,
            score: info.score,
            depth: info.depth,
            nodes: 0,
            pv: info.pv,
        })
    }

    /// The endgame oracle in use, if any.
    pub fn endgame_oracle(&self) -> Option<&Arc<dyn oracle::EndgameOracle>> {
        self.oracle.as_ref()
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(EngineOptions::default())
    }
}
