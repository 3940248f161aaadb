//! The engine as the web app uses it: searches run on blocking worker threads, never on the
//! async runtime, a few at a time, and always within a time limit.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use damasi::Move;
use damasi_engine::{
    Engine, EngineOptions, Level, Limits, SearchControl, SearchRequest, SearchRoot,
};
use tokio::sync::Semaphore;

use crate::error::ApiError;

/// Longest an engine request may think, whatever the client asks.
pub const MAX_MOVE_TIME: Duration = Duration::from_secs(30);

/// Most searches that run at once (the server shares its cores with everything else).
const MAX_SEARCHES: usize = 2;

/// Hash table of each engine, in MiB.
const HASH_MB: usize = 16;

/// Longest a request waits for a free search slot.
const QUEUE_WAIT: Duration = Duration::from_secs(20);

/// What the engine thinks of a position.
#[derive(Clone, Debug)]
pub struct Thought {
    /// The best move, or `None` when the side to move has no legal move.
    pub best: Option<Move>,
    /// Score for the side to move, in hundredths of a man.
    pub score: i32,
    /// Plies to a won (positive) or lost (negative) end, when the search found one.
    pub mate: Option<i32>,
    /// The expected line, starting with `best`.
    pub pv: Vec<Move>,
    /// Depth reached.
    pub depth: u32,
    /// Nodes searched (all threads).
    pub nodes: u64,
    /// The best lines of the last completed iteration, best first (one unless several were
    /// asked for with [`Brain::think_lines`]; none when the search completed no iteration).
    pub lines: Vec<ThoughtLine>,
}

/// One of the lines a search reports (multi-PV).
#[derive(Clone, Debug)]
pub struct ThoughtLine {
    /// Score for the side to move, in hundredths of a man.
    pub score: i32,
    /// Plies to a won (positive) or lost (negative) end, when the search found one.
    pub mate: Option<i32>,
    /// The line, starting with its root move.
    pub pv: Vec<Move>,
    /// Depth of the iteration that found it.
    pub depth: u32,
}

/// Most lines one analysis may ask for.
pub const MAX_LINES: usize = 5;

/// A handle to the engines, shared by all requests.
#[derive(Clone)]
pub struct Brain {
    permits: Arc<Semaphore>,
    engines: Arc<Vec<Mutex<Engine>>>,
    queue_wait: Duration,
    /// Searches under way per client.
    clients: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// Searches one client may have under way at once.
const SEARCHES_PER_CLIENT: usize = 1;

/// A client's search under way; gives its turn back when dropped.
struct ClientTurn {
    clients: Arc<Mutex<HashMap<IpAddr, usize>>>,
    ip: IpAddr,
}

impl ClientTurn {
    fn take(
        clients: &Arc<Mutex<HashMap<IpAddr, usize>>>,
        ip: IpAddr,
    ) -> Result<ClientTurn, ApiError> {
        let mut map = clients.lock().unwrap_or_else(|p| p.into_inner());
        let n = map.entry(ip).or_insert(0);
        if *n >= SEARCHES_PER_CLIENT {
            return Err(ApiError::Busy(
                "you already have an engine search under way; wait for it to finish".into(),
            ));
        }
        *n += 1;
        Ok(ClientTurn {
            clients: clients.clone(),
            ip,
        })
    }
}

impl Drop for ClientTurn {
    fn drop(&mut self) {
        let mut map = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = map.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.ip);
            }
        }
    }
}

impl Default for Brain {
    fn default() -> Self {
        Brain::new()
    }
}

impl Brain {
    /// Engines for two searches at once.
    pub fn new() -> Brain {
        Brain::with_capacity(MAX_SEARCHES, QUEUE_WAIT)
    }

    /// Engines for `searches` searches at once; a search waits at most `queue_wait` for a
    /// free one. With none, every search fails as busy (tests of the engine failing).
    pub fn with_capacity(searches: usize, queue_wait: Duration) -> Brain {
        let engines = (0..searches)
            .map(|_| {
                Mutex::new(Engine::new(EngineOptions {
                    hash_mb: HASH_MB,
                    threads: 1,
                }))
            })
            .collect();
        Brain {
            permits: Arc::new(Semaphore::new(searches)),
            engines: Arc::new(engines),
            queue_wait,
            clients: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Like [`Brain::think`] for a request from `client`: a client may have one search under
    /// way at a time (queued or running), so that no one holds every engine while others
    /// wait. The server's own searches (engine moves in games) pass `None`.
    pub async fn think_for(
        &self,
        client: Option<IpAddr>,
        root: SearchRoot,
        level: u8,
        limits: Limits,
        lines: usize,
        root_moves: Vec<Move>,
    ) -> Result<Thought, ApiError> {
        let _turn = match client {
            Some(ip) => Some(ClientTurn::take(&self.clients, ip)?),
            None => None,
        };
        self.think_lines(root, level, limits, false, lines, root_moves)
            .await
    }

    /// Searches `root` at `level` 1..=10 within `limits` (a move time, a clock, or both; never
    /// more than [`MAX_MOVE_TIME`]). The search is stopped if it overruns; a search
    /// still queued after 20 seconds is refused as busy. With `play` (the engine's own moves
    /// in games), a level-10 search near the start plays from the opening book instead (when
    /// the book is on by default) and a draw is worth [`damasi_engine::PLAY_CONTEMPT`] less
    /// than nothing to the engine; without it (analysis, hints) neither.
    pub async fn think(
        &self,
        root: SearchRoot,
        level: u8,
        limits: Limits,
        play: bool,
    ) -> Result<Thought, ApiError> {
        self.think_lines(root, level, limits, play, 1, Vec::new())
            .await
    }

    /// Like [`Brain::think`], with the `lines` best root moves (1..=[`MAX_LINES`]) searched
    /// each to the full depth and reported in [`Thought::lines`], best first; with
    /// `root_moves`, only those are searched (every legal move when empty).
    pub async fn think_lines(
        &self,
        root: SearchRoot,
        level: u8,
        limits: Limits,
        play: bool,
        lines: usize,
        root_moves: Vec<Move>,
    ) -> Result<Thought, ApiError> {
        let multipv = lines.clamp(1, MAX_LINES);
        let mut limits = limits;
        let cap = MAX_MOVE_TIME;
        limits.move_time = Some(limits.move_time.map_or(cap, |t| t.min(cap)));
        let move_time = limits.move_time.unwrap_or(cap);
        let _permit = tokio::time::timeout(self.queue_wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| ApiError::Busy("the engine is busy; try again in a moment".into()))?
            .map_err(|e| ApiError::Internal(format!("engine semaphore: {e}")))?;
        let control = Arc::new(SearchControl::new());
        // When the request is dropped (the client went away), the search stops too.
        let _stop = StopOnDrop(control.clone());
        let engines = self.engines.clone();
        let ctl = control.clone();
        let mut task = tokio::task::spawn_blocking(move || {
            // The semaphore guarantees a free engine; poisoned ones (a panicked search) are
            // still usable, their tables hold no invariants a search relies on.
            let slot = engines
                .iter()
                .find_map(|m| match m.try_lock() {
                    Ok(g) => Some(g),
                    Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
                    Err(std::sync::TryLockError::WouldBlock) => None,
                })
                .ok_or_else(|| ApiError::Busy("no engine free".into()));
            let mut engine = slot?;
            let request = SearchRequest::new(root, limits)
                .with_level(Level::new(level))
                .with_book(play && damasi_engine::book::USE_BY_DEFAULT)
                // The engine's own moves in games play for a win; analysis weighs a draw as 0.
                .with_contempt(if play {
                    damasi_engine::PLAY_CONTEMPT
                } else {
                    0
                })
                .with_multipv(multipv)
                .with_root_moves(root_moves);
            // Each iteration reports its lines in order, the best (1) first: the last set
            // reported is that of the last completed iteration.
            let mut lines: Vec<ThoughtLine> = Vec::new();
            let r = engine.search(&request, &ctl, &mut |info| {
                if info.multipv == 1 {
                    lines.clear();
                }
                lines.push(ThoughtLine {
                    score: info.score.0,
                    mate: info.score.plies_to_end(),
                    pv: info.pv.clone(),
                    depth: info.depth,
                });
            });
            let mut thought = Thought {
                best: r.best,
                score: r.score.0,
                mate: r.score.plies_to_end(),
                pv: r.pv,
                depth: r.depth,
                nodes: r.nodes,
                lines: Vec::new(),
            };
            if multipv == 1 || lines.is_empty() {
                // One line: the result itself (an interrupted last iteration may have found a
                // new best move, which the reported lines do not have yet).
                if thought.best.is_some() {
                    thought.lines = vec![ThoughtLine {
                        score: thought.score,
                        mate: thought.mate,
                        pv: thought.pv.clone(),
                        depth: thought.depth,
                    }];
                }
            } else {
                // Several lines: all of them from the last completed iteration, so that they
                // compare with each other; the best of them is the answer.
                let first = &lines[0];
                thought.best = first.pv.first().copied().or(thought.best);
                thought.score = first.score;
                thought.mate = first.mate;
                thought.pv = first.pv.clone();
                thought.depth = first.depth;
                thought.lines = lines;
            }
            Ok::<Thought, ApiError>(thought)
        });
        let grace = move_time + Duration::from_secs(2);
        match tokio::time::timeout(grace, &mut task).await {
            Ok(joined) => joined?,
            Err(_) => {
                control.stop();
                match tokio::time::timeout(Duration::from_secs(5), task).await {
                    Ok(joined) => joined?,
                    Err(_) => Err(ApiError::Busy("the engine took too long".into())),
                }
            }
        }
    }
}

/// Stops a search when dropped.
struct StopOnDrop(Arc<SearchControl>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Where the engine searches in an online game: the position after `moves` (the game's move
/// list as its `gameState` writes it, space separated) under `rules`, with the positions that
/// may repeat and the plies since the last capture, so that a seat played by the engine sees a
/// repetition or the no-capture limit coming as the game will judge them.
pub fn game_root(moves: &str, rules: damasi::RuleSet) -> Result<damasi_engine::SearchRoot, String> {
    let mut game = damasi::Game::with_rules(rules);
    for (i, m) in moves.split_whitespace().enumerate() {
        game.play_text(m)
            .map_err(|e| format!("move {} ({m}) of the game: {e}", i + 1))?;
    }
    Ok(damasi_engine::SearchRoot::from_game(&game))
}

#[cfg(test)]
mod root_tests {
    use super::game_root;
    use damasi::{Color, RuleSet};

    #[test]
    fn the_root_holds_the_game_s_rules_and_count_since_a_capture() {
        let rules = RuleSet::from_name("turkish; no-capture-limit 50").unwrap();
        // Three quiet moves: Black to move, three plies without a capture.
        let root = game_root("c3-c4 f6-f5 c4-c5", rules).unwrap();
        assert_eq!(root.rules, rules);
        assert_eq!(root.plies_since_capture, 3);
        assert_eq!(root.position.side_to_move(), Color::Black);
        // c6 takes c5 by jumping to c4: the count starts again, and one quiet move after it.
        let root = game_root("c3-c4 f6-f5 c4-c5 c6xc4 a3-a4", rules).unwrap();
        assert_eq!(root.plies_since_capture, 1);
        // A move that is not legal is named with its number.
        let err = game_root("c3-c4 c4-c5", RuleSet::default()).unwrap_err();
        assert!(err.contains("move 2 (c4-c5)"), "{err}");
    }
}
