//! The referee: the server's one owner of every saved game being played. It keeps each game in
//! memory once loaded (replayed from the database once, never per request), measures every
//! move's thinking time with the server's clock, plays the engine's moves by itself, lets a
//! flag fall when a side's time runs out even with no page open, and allows each action only
//! to the side it belongs to. Every change is saved before it is acknowledged.
//!
//! Each game sits behind its own async lock; a version number goes up with every change, so a
//! page can wait for the next one (long polling) instead of asking again and again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex, Weak};
use std::time::Duration;

use damasi::{ByColor, Color, DrawReason, Move, Outcome, Position, TimeControl, WinReason};
use damasi_engine::{Level, Limits, SearchRoot};
use tokio::sync::{watch, Mutex};
use tokio::task::AbortHandle;

use crate::api::parse_rules;
use crate::error::ApiError;
use crate::store::{self, GameRow, MoveRow, Player, Store};
use damasi_online::brain::{Brain, Thought};
use damasi_online::live::LiveGame;
use damasi_online::now_ms;
use damasi_online::record::Record;

type BoxFuture = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// Attempts at an engine move before the page is told it failed.
const ENGINE_ATTEMPTS: u32 = 3;

/// Pause between two attempts at an engine move.
const ENGINE_RETRY_PAUSE: Duration = Duration::from_millis(500);

/// Draw offers each side may make in one game.
pub const MAX_DRAW_OFFERS: u8 = 2;

/// The engine accepts a draw only from this full move on, unless the position is a dead draw.
pub const DRAW_EARLIEST_MOVE: usize = 20;

/// Highest score (hundredths of a man, for the engine) at which the engine accepts a draw.
const DRAW_ACCEPT_SCORE: i32 = 25;

/// What the engine is doing in a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineState {
    /// Nothing (a person is to move, or the game is over).
    Idle,
    /// Searching for the side to move.
    Thinking,
    /// Its last attempts failed; its clock is paused until a retry.
    Failed(String),
}

/// A game being refereed.
pub struct Live {
    /// The stored row: players, time control, outcome, offers; the turn's start and pause
    /// as last saved (the live ones are `core`'s).
    pub row: GameRow,
    /// The game with its clocks, the time charged for every ply, and when the turn began or
    /// what it had used when paused, in Unix ms (the live-game core the online table shares).
    pub core: LiveGame<i64>,
    /// What the engine is doing.
    pub engine: EngineState,
    /// Failed engine attempts at the current move.
    attempts: u32,
    /// The engine's search task, while it runs.
    engine_task: Option<AbortHandle>,
    /// The task that lets the flag fall, while the clock runs.
    timer: Option<AbortHandle>,
    /// Goes up with every change.
    pub version: u64,
}

impl Live {
    /// Who plays `side`.
    pub fn player(&self, side: Color) -> Player {
        match side {
            Color::White => self.row.white,
            Color::Black => self.row.black,
        }
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.core.side_to_move()
    }

    /// Thinking time spent on the current move as of `now` (ms); frozen while paused.
    pub fn elapsed_now(&self, now: i64) -> u64 {
        self.core.elapsed_now(now)
    }

    /// The side whose clock is running now, if any: a timed game in progress, after the first
    /// move, not paused.
    pub fn running_clock(&self) -> Option<Color> {
        let clock = self.core.game.clock()?;
        let runs = clock.is_running()
            && !self.core.game.is_over()
            && self.core.paused_ms.is_none()
            && self.core.turn_started.is_some();
        runs.then(|| self.side_to_move())
    }

    /// Both sides' time left as of `now`, White's first (timed games).
    pub fn clocks_now(&self, now: i64) -> Option<ByColor<u64>> {
        let clock = self.core.game.clock()?;
        // The side to move's current move counts, also while its clock is paused (the time
        // it had used when the engine failed), so a retry shows no jump.
        let thinking = clock.is_running() && !self.core.game.is_over();
        self.core.clocks_now(now, thinking)
    }

    /// A person's request for `side`: refused when the engine plays it.
    fn check_person(&self, side: Color, what: &str) -> Result<(), ApiError> {
        if self.player(side).is_engine() {
            return Err(ApiError::Forbidden {
                code: "engine-side",
                message: format!("the engine plays {side}: you cannot {what} for it"),
            });
        }
        Ok(())
    }

    fn check_ongoing(&self) -> Result<(), ApiError> {
        match self.core.game.outcome() {
            Some(o) => Err(ApiError::game_over(&o)),
            None => Ok(()),
        }
    }

    /// Puts the game's outcome and the turn's times into the row, to be saved.
    fn sync_row(&mut self) {
        self.row.turn_started_ms = self.core.turn_started;
        self.row.paused_ms = self.core.paused_ms.map(|p| p as i64);
        self.row.outcome = self.core.game.outcome().map(|o| o.code());
        self.row.plies = self.core.game.ply() as i64;
        if self.core.game.is_over() {
            self.row.pending_draw = None;
        }
    }

    fn stop_engine(&mut self) {
        if let Some(task) = self.engine_task.take() {
            // Dropping the search's future stops the search (see `Brain::think`).
            task.abort();
        }
        self.engine = EngineState::Idle;
        self.attempts = 0;
    }

    fn move_row(&self, ply: usize) -> MoveRow {
        let clock = self.core.game.clock_at(ply + 1);
        MoveRow {
            token: Record::token(&self.core.game.history()[ply]),
            elapsed_ms: self.core.elapsed[ply] as i64,
            white_ms: clock.map(|c| c.remaining(Color::White).as_millis() as i64),
            black_ms: clock.map(|c| c.remaining(Color::Black).as_millis() as i64),
        }
    }
}

/// A loaded game: its state behind a lock, and its version outside it for waiters.
pub struct Slot {
    /// The game.
    pub live: Mutex<Live>,
    version: watch::Sender<u64>,
}

impl Slot {
    /// Waits until the game's version is above `seen`, at most `timeout`.
    pub async fn wait_past(&self, seen: u64, timeout: Duration) {
        let mut rx = self.version.subscribe();
        let _ = tokio::time::timeout(timeout, rx.wait_for(|v| *v > seen)).await;
    }
}

/// The referee of all games; cheap to clone.
#[derive(Clone)]
pub struct Referee {
    inner: Arc<Inner>,
}

/// Games between two engines the server plays at once, at most: each takes a core on every
/// move, so more would slow every other visitor's analysis and engine games.
pub const MAX_ENGINE_GAMES: usize = 2;

struct Inner {
    store: Store,
    brain: Brain,
    games: StdMutex<HashMap<i64, Arc<Slot>>>,
    /// Held while an engine-against-engine game is counted and created, so two requests at
    /// once cannot both take the last place.
    engine_games: Mutex<()>,
}

impl Referee {
    /// A referee over `store`, playing with `brain`.
    pub fn new(store: Store, brain: Brain) -> Referee {
        Referee {
            inner: Arc::new(Inner {
                store,
                brain,
                games: StdMutex::new(HashMap::new()),
                engine_games: Mutex::new(()),
            }),
        }
    }

    /// The games database.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// Loads every unfinished game that needs looking after (timed games, engine to move), so
    /// flags fall and engines move after a restart even before any page asks.
    pub async fn resume_all(&self) -> Result<usize, ApiError> {
        let ids = self
            .inner
            .store
            .with(|conn| store::unfinished(conn))
            .await?;
        for &id in &ids {
            if let Err(e) = self.slot(id).await {
                eprintln!("damasi-web: cannot resume game {id}: {e:?}");
            }
        }
        Ok(ids.len())
    }

    /// The game `id`, loaded (and looked after) on first use.
    pub async fn slot(&self, id: i64) -> Result<Arc<Slot>, ApiError> {
        if let Some(slot) = self.cached(id) {
            return Ok(slot);
        }
        let (row, moves) = self
            .inner
            .store
            .with(move |conn| store::get(conn, id))
            .await?;
        let live = tokio::task::spawn_blocking(move || build_live(row, &moves)).await??;
        let version = live.version;
        let fresh = Arc::new(Slot {
            live: Mutex::new(live),
            version: watch::Sender::new(version),
        });
        let slot = {
            let mut games = self.inner.games.lock().unwrap_or_else(|p| p.into_inner());
            games.entry(id).or_insert(fresh).clone()
        };
        {
            let mut live = slot.live.lock().await;
            self.look_after(&slot, &mut live).await?;
        }
        Ok(slot)
    }

    fn cached(&self, id: i64) -> Option<Arc<Slot>> {
        let games = self.inner.games.lock().unwrap_or_else(|p| p.into_inner());
        games.get(&id).cloned()
    }

    /// Creates and saves a new game and starts looking after it.
    pub async fn create(
        &self,
        mut row: GameRow,
        control: Option<TimeControl>,
    ) -> Result<Arc<Slot>, ApiError> {
        let both_engines = row.white.is_engine() && row.black.is_engine();
        let _gate = match both_engines {
            true => Some(self.inner.engine_games.lock().await),
            false => None,
        };
        if both_engines && self.engine_games_playing().await >= MAX_ENGINE_GAMES {
            return Err(ApiError::TooMany(format!(
                "the server already plays {MAX_ENGINE_GAMES} games between two engines: \
                 wait for one to end (or delete one)"
            )));
        }
        row.time_control = control;
        row.turn_started_ms = Some(now_ms());
        let start = Position::from_fen(&row.start_fen)?;
        let rules = parse_rules(Some(&row.rules))?;
        let game = Record::new(start, rules, control).into_game();
        row.outcome = game.outcome().map(|o| o.code());
        let to_insert = row.clone();
        let id = self
            .inner
            .store
            .with(move |conn| {
                let tx = conn.transaction()?;
                let id = store::insert(&tx, &to_insert, &[])?;
                tx.commit()?;
                Ok(id)
            })
            .await?;
        self.slot(id).await
    }

    /// Games between two engines being played now.
    pub async fn engine_games_playing(&self) -> usize {
        let slots: Vec<Arc<Slot>> = {
            let games = self.inner.games.lock().unwrap_or_else(|p| p.into_inner());
            games.values().cloned().collect()
        };
        let mut n = 0;
        for slot in slots {
            let live = slot.live.lock().await;
            let engines =
                live.player(Color::White).is_engine() && live.player(Color::Black).is_engine();
            if engines && live.core.game.outcome().is_none() {
                n += 1;
            }
        }
        n
    }

    /// Forgets a game (after it was deleted): stops its engine and its timer.
    pub async fn forget(&self, id: i64) {
        let slot = {
            let mut games = self.inner.games.lock().unwrap_or_else(|p| p.into_inner());
            games.remove(&id)
        };
        if let Some(slot) = slot {
            let mut live = slot.live.lock().await;
            live.stop_engine();
            if let Some(t) = live.timer.take() {
                t.abort();
            }
        }
    }

    /// Saves `live` (moves from ply `keep` on rewritten), bumps its version, and starts what
    /// the new state needs (the engine's move, the flag's timer).
    async fn commit(&self, slot: &Arc<Slot>, live: &mut Live, keep: usize) -> Result<(), ApiError> {
        self.persist(slot, live, keep).await?;
        self.look_after(slot, live).await
    }

    /// Saves `live` (moves from ply `keep` on rewritten) and bumps its version.
    async fn persist(
        &self,
        slot: &Arc<Slot>,
        live: &mut Live,
        keep: usize,
    ) -> Result<(), ApiError> {
        live.sync_row();
        let row = live.row.clone();
        let new_moves: Vec<MoveRow> = (keep..live.core.game.ply())
            .map(|p| live.move_row(p))
            .collect();
        self.inner
            .store
            .with(move |conn| store::save(conn, &row, keep as i64, &new_moves))
            .await?;
        live.version += 1;
        slot.version.send_replace(live.version);
        Ok(())
    }

    /// Flags a side whose time is out, then starts the engine when it is to move and arms
    /// the timer that lets the flag fall.
    async fn look_after(&self, slot: &Arc<Slot>, live: &mut Live) -> Result<(), ApiError> {
        if self.flag_if_out(live) {
            let ply = live.core.game.ply();
            self.persist(slot, live, ply).await?;
        }
        if let Some(t) = live.timer.take() {
            t.abort();
        }
        if live.core.game.is_over() {
            live.stop_engine();
            return Ok(());
        }
        if let Some(side) = live.running_clock() {
            let clock = live.core.game.clock().expect("a running clock");
            let left = clock
                .remaining_after(side, Duration::from_millis(live.elapsed_now(now_ms())))
                .as_millis() as u64;
            let me = self.clone();
            let weak = Arc::downgrade(slot);
            let version = live.version;
            live.timer = Some(
                tokio::spawn(async move {
                    // A little after the deadline, so the check sees the time out.
                    tokio::time::sleep(Duration::from_millis(left + 5)).await;
                    me.on_timer(weak, version).await;
                })
                .abort_handle(),
            );
        }
        let side = live.side_to_move();
        if live.player(side).is_engine() && live.engine == EngineState::Idle {
            self.start_engine(slot, live);
        }
        Ok(())
    }

    /// Ends the game on time if the side to move's time is out. Returns whether it did.
    fn flag_if_out(&self, live: &mut Live) -> bool {
        let Some(side) = live.running_clock() else {
            return false;
        };
        let clock = live.core.game.clock().expect("a running clock");
        let elapsed = Duration::from_millis(live.elapsed_now(now_ms()));
        if !clock.is_flagged(side, elapsed) {
            return false;
        }
        live.stop_engine();
        live.core.game.lose_on_time(side).is_ok()
    }

    // Boxed with an explicit `Send`: the timer re-arms itself through `look_after`, and the
    // compiler cannot see through that cycle otherwise.
    fn on_timer(self, slot: Weak<Slot>, version: u64) -> BoxFuture {
        Box::pin(async move {
            let Some(slot) = slot.upgrade() else { return };
            let mut live = slot.live.lock().await;
            if live.version != version {
                return;
            }
            live.timer = None;
            if let Err(e) = self.look_after(&slot, &mut live).await {
                eprintln!("damasi-web: clock of game {}: {e:?}", live.row.id);
            }
        })
    }

    /// Starts the engine's search for the side to move.
    fn start_engine(&self, slot: &Arc<Slot>, live: &mut Live) {
        let side = live.side_to_move();
        let Player::Engine { level } = live.player(side) else {
            return;
        };
        let root = SearchRoot::from_game(&live.core.game);
        let mut limits = Limits::move_time(Level::new(level).move_time());
        if let Some(clock) = live.core.game.clock() {
            let left =
                clock.remaining_after(side, Duration::from_millis(live.elapsed_now(now_ms())));
            limits.clock = Some(damasi_engine::Clock {
                time: left,
                inc: clock.control().increment,
                moves_to_go: None,
            });
        }
        live.engine = EngineState::Thinking;
        let me = self.clone();
        let weak = Arc::downgrade(slot);
        let version = live.version;
        let brain = self.inner.brain.clone();
        live.engine_task = Some(
            tokio::spawn(async move {
                let result = brain.think(root, level, limits, true).await;
                me.on_engine_result(weak, version, result).await;
            })
            .abort_handle(),
        );
    }

    // Boxed with an explicit `Send` for the same reason as `on_timer`.
    fn on_engine_result(
        self,
        slot: Weak<Slot>,
        version: u64,
        result: Result<Thought, ApiError>,
    ) -> BoxFuture {
        Box::pin(async move { self.engine_result(slot, version, result).await })
    }

    async fn engine_result(
        &self,
        slot: Weak<Slot>,
        version: u64,
        result: Result<Thought, ApiError>,
    ) {
        let Some(slot) = slot.upgrade() else { return };
        let mut live = slot.live.lock().await;
        if live.version != version || live.engine != EngineState::Thinking {
            return; // the game changed meanwhile: this search is for another position
        }
        live.engine_task = None;
        let outcome = match result {
            Ok(Thought { best: Some(m), .. }) => self.engine_plays(&slot, &mut live, m).await,
            Ok(Thought { best: None, .. }) => Err(ApiError::Internal(
                "the engine found no move in a live game".into(),
            )),
            Err(e) => Err(e),
        };
        if let Err(e) = outcome {
            live.attempts += 1;
            let message = match &e {
                ApiError::Internal(_) => "the engine failed".to_string(),
                other => format!("{other:?}"),
            };
            eprintln!(
                "damasi-web: engine move in game {} failed (attempt {}): {e:?}",
                live.row.id, live.attempts
            );
            if live.attempts < ENGINE_ATTEMPTS {
                live.engine = EngineState::Idle;
                drop(live);
                tokio::time::sleep(ENGINE_RETRY_PAUSE).await;
                let mut live = slot.live.lock().await;
                if live.version == version && live.engine == EngineState::Idle {
                    self.start_engine(&slot, &mut live);
                }
            } else {
                // Pause the engine's clock until someone asks for a retry.
                live.core.pause(now_ms());
                live.engine = EngineState::Failed(message);
                live.engine_task = None;
                let ply = live.core.game.ply();
                if let Err(e) = self.commit(&slot, &mut live, ply).await {
                    eprintln!("damasi-web: saving game {}: {e:?}", live.row.id);
                }
            }
        }
    }

    async fn engine_plays(
        &self,
        slot: &Arc<Slot>,
        live: &mut Live,
        m: Move,
    ) -> Result<(), ApiError> {
        live.engine = EngineState::Idle;
        live.attempts = 0;
        self.play_now(slot, live, m).await
    }

    /// Plays `m` for the side to move, timed by the server's clock.
    async fn play_now(&self, slot: &Arc<Slot>, live: &mut Live, m: Move) -> Result<(), ApiError> {
        let now = now_ms();
        let elapsed = live.elapsed_now(now);
        let keep = live.core.game.ply();
        match live.core.play(&m, elapsed, now) {
            Ok(()) => self.commit(slot, live, keep).await,
            Err(damasi::GameError::Over(o)) if live.core.game.is_over() => {
                // The mover's time ran out before the move arrived.
                live.stop_engine();
                self.commit(slot, live, keep).await?;
                Err(ApiError::game_over(&o))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// A person plays `text` (any notation) for the side to move.
    pub async fn play(&self, id: i64, text: &str) -> Result<Arc<Slot>, ApiError> {
        let slot = self.slot(id).await?;
        {
            let mut live = slot.live.lock().await;
            live.check_ongoing()?;
            let side = live.side_to_move();
            if live.player(side).is_engine() {
                return Err(ApiError::conflict(
                    "not-your-turn",
                    format!("it is {side}'s move, and the engine plays {side}"),
                ));
            }
            let m = live.core.game.position().parse_move(text)?;
            self.play_now(&slot, &mut live, m).await?;
        }
        Ok(slot)
    }

    /// Starts the engine again for the side to move (after it failed), its clock resumed.
    pub async fn retry_engine(&self, id: i64) -> Result<Arc<Slot>, ApiError> {
        let slot = self.slot(id).await?;
        {
            let mut live = slot.live.lock().await;
            live.check_ongoing()?;
            let side = live.side_to_move();
            if !live.player(side).is_engine() {
                return Err(ApiError::conflict(
                    "not-your-turn",
                    format!("it is {side}'s move, and a person plays {side}"),
                ));
            }
            if live.engine != EngineState::Thinking {
                if live.core.paused_ms.is_some() {
                    live.core.start_turn(now_ms());
                }
                live.engine = EngineState::Idle;
                live.attempts = 0;
                let ply = live.core.game.ply();
                self.commit(&slot, &mut live, ply).await?;
            }
        }
        Ok(slot)
    }

    /// Takes back `side`'s last move (and whatever was played after it).
    pub async fn take_back(&self, id: i64, side: Color) -> Result<Arc<Slot>, ApiError> {
        let slot = self.slot(id).await?;
        {
            let mut live = slot.live.lock().await;
            live.check_ongoing()?;
            live.check_person(side, "take back a move")?;
            let game = &live.core.game;
            let has_own = (0..game.ply()).any(|p| {
                game.position_at(p)
                    .is_some_and(|pos| pos.side_to_move() == side)
            });
            if !has_own {
                return Err(ApiError::conflict(
                    "nothing-to-take-back",
                    format!("{side} has no move to take back"),
                ));
            }
            live.stop_engine();
            let now = now_ms();
            while live.core.take_back(now)? != side {}
            live.row.pending_draw = None;
            let keep = live.core.game.ply();
            self.commit(&slot, &mut live, keep).await?;
        }
        Ok(slot)
    }

    /// `side` resigns.
    pub async fn resign(&self, id: i64, side: Color) -> Result<Arc<Slot>, ApiError> {
        self.declare(
            id,
            side,
            "resign",
            Outcome::Win {
                winner: !side,
                reason: WinReason::Resignation,
            },
        )
        .await
    }

    /// Ends the game with `outcome`, asked for by the person playing `side`.
    async fn declare(
        &self,
        id: i64,
        side: Color,
        what: &str,
        outcome: Outcome,
    ) -> Result<Arc<Slot>, ApiError> {
        let slot = self.slot(id).await?;
        {
            let mut live = slot.live.lock().await;
            live.check_ongoing()?;
            live.check_person(side, what)?;
            live.stop_engine();
            live.core.game.end(outcome)?;
            let ply = live.core.game.ply();
            self.commit(&slot, &mut live, ply).await?;
        }
        Ok(slot)
    }

    /// Checks the side to move's clock now and ends the game if its time is out; refused
    /// with `time-not-out` when time is left.
    pub async fn claim_flag(&self, id: i64) -> Result<Arc<Slot>, ApiError> {
        let slot = self.slot(id).await?;
        {
            let mut live = slot.live.lock().await;
            live.check_ongoing()?;
            if live.core.game.clock().is_none() {
                return Err(ApiError::conflict("no-clock", "this game has no clock"));
            }
            if self.flag_if_out(&mut live) {
                let ply = live.core.game.ply();
                self.commit(&slot, &mut live, ply).await?;
            } else {
                let side = live.side_to_move();
                let left = live.clocks_now(now_ms()).map_or(0, |c| c[side]);
                return Err(ApiError::Conflict {
                    code: "time-not-out",
                    message: format!("{side} still has {:.1} s", left as f64 / 1000.0),
                    params: serde_json::json!({ "side": side.name(), "ms": left }),
                });
            }
        }
        Ok(slot)
    }

    /// `side` offers a draw. Against the engine, the engine answers at once (see
    /// [`engine_accepts_draw`]); between people, the offer waits for the other's answer.
    /// Returns whether the draw was agreed.
    pub async fn offer_draw(&self, id: i64, side: Color) -> Result<(Arc<Slot>, bool), ApiError> {
        let slot = self.slot(id).await?;
        let (root, version, full_move) = {
            let mut live = slot.live.lock().await;
            live.check_ongoing()?;
            live.check_person(side, "offer a draw")?;
            if live.row.draw_offers[side] >= MAX_DRAW_OFFERS {
                return Err(ApiError::Conflict {
                    code: "draw-offers-used",
                    message: format!(
                        "{side} has already offered a draw {MAX_DRAW_OFFERS} times in this game"
                    ),
                    params: serde_json::json!({ "max": MAX_DRAW_OFFERS }),
                });
            }
            live.row.draw_offers[side] += 1;
            if !live.player(!side).is_engine() {
                live.row.pending_draw = Some(side.name().to_string());
                let ply = live.core.game.ply();
                self.commit(&slot, &mut live, ply).await?;
                return Ok((slot.clone(), false));
            }
            let ply = live.core.game.ply();
            self.commit(&slot, &mut live, ply).await?;
            let full_move = live.core.game.ply() / 2 + 1;
            (
                SearchRoot::from_game(&live.core.game),
                live.version,
                full_move,
            )
        };
        let dead = is_dead_draw(&root.position);
        // Only a live question needs the engine's opinion: dead draws are accepted and early
        // offers declined whatever it thinks.
        let engine_score = if !dead && full_move >= DRAW_EARLIEST_MOVE {
            let t = self
                .inner
                .brain
                .think(
                    root.clone(),
                    10,
                    Limits::move_time(Duration::from_millis(600)),
                    false,
                )
                .await?;
            if root.position.side_to_move() == !side {
                t.score
            } else {
                -t.score
            }
        } else {
            0
        };
        let accepted = engine_accepts_draw(engine_score, full_move, dead);
        if accepted {
            let mut live = slot.live.lock().await;
            if live.version != version {
                return Err(ApiError::conflict(
                    "game-changed",
                    "the game changed while the engine considered the draw",
                ));
            }
            live.check_ongoing()?;
            live.stop_engine();
            live.core.game.end(Outcome::Draw(DrawReason::Agreement))?;
            let ply = live.core.game.ply();
            self.commit(&slot, &mut live, ply).await?;
        }
        Ok((slot, accepted))
    }

    /// `side` answers the other person's draw offer.
    pub async fn answer_draw(
        &self,
        id: i64,
        side: Color,
        accept: bool,
    ) -> Result<Arc<Slot>, ApiError> {
        let slot = self.slot(id).await?;
        {
            let mut live = slot.live.lock().await;
            live.check_ongoing()?;
            live.check_person(side, "answer a draw offer")?;
            if live.row.pending_draw.as_deref() != Some((!side).name()) {
                return Err(ApiError::conflict(
                    "no-draw-offer",
                    format!("{} has not offered a draw", !side),
                ));
            }
            live.row.pending_draw = None;
            if accept {
                live.stop_engine();
                live.core.game.end(Outcome::Draw(DrawReason::Agreement))?;
            }
            let ply = live.core.game.ply();
            self.commit(&slot, &mut live, ply).await?;
        }
        Ok(slot)
    }
}

/// A position no side can win with correct play whatever happens: kings only, at most two a
/// side (two kings cannot force a win against one in Turkish draughts, nor against two).
pub fn is_dead_draw(pos: &Position) -> bool {
    let men = pos.men_of(Color::White) | pos.men_of(Color::Black);
    men == 0 && pos.count(Color::White) <= 2 && pos.count(Color::Black) <= 2
}

/// Whether the engine, scoring the position `engine_score` (hundredths of a man, its own
/// view) at full move `full_move`, accepts a draw: in a dead draw always; else not before
/// [`DRAW_EARLIEST_MOVE`], and then only when it is not better.
pub fn engine_accepts_draw(engine_score: i32, full_move: usize, dead_draw: bool) -> bool {
    dead_draw || (full_move >= DRAW_EARLIEST_MOVE && engine_score <= DRAW_ACCEPT_SCORE)
}

/// Rebuilds a game from its stored row and moves.
fn build_live(row: GameRow, moves: &[MoveRow]) -> Result<Live, ApiError> {
    let id = row.id;
    let start = Position::from_fen(&row.start_fen)
        .map_err(|e| ApiError::Internal(format!("game {id}: stored FEN: {e}")))?;
    let rules = parse_rules(Some(&row.rules))
        .map_err(|e| ApiError::Internal(format!("game {id}: stored rules: {e:?}")))?;
    let mut core = LiveGame::replay(
        start,
        rules,
        row.time_control,
        moves
            .iter()
            .map(|m| (m.token.as_str(), m.elapsed_ms.max(0) as u64)),
    )
    .map_err(|e| e.prefixed(&format!("game {id}")))?;
    if let Some(code) = &row.outcome {
        let o: Outcome = code
            .parse()
            .map_err(|e| ApiError::Internal(format!("game {id}: {e}")))?;
        if let Err(e) = core.restore_outcome(o) {
            eprintln!("damasi-web: game {id}: stored outcome {code}: {e}");
        }
    }
    core.turn_started = row.turn_started_ms;
    core.paused_ms = row.paused_ms.map(|p| p.max(0) as u64);
    let paused = row.paused_ms.is_some();
    Ok(Live {
        row,
        core,
        engine: if paused {
            EngineState::Failed("the engine failed before the server restarted".into())
        } else {
            EngineState::Idle
        },
        attempts: 0,
        engine_task: None,
        timer: None,
        // Versions start from the clock so that they only grow, across restarts too: a page
        // waiting for a version it saw before a restart is answered at once.
        version: now_ms().max(1) as u64,
    })
}
