//! Online play: people (and programs) play each other in real time on one server.
//!
//! - [`accounts`]: sign-up, log-in, guests, API tokens.
//! - [`command`]: the only way into a game: a typed [`command::Command`] and the pure
//!   [`command::apply`] that says what it does.
//! - [`runner`]: the one runner every command goes through (forward or run here, lock, store,
//!   announce, re-arm the timer).
//! - [`table`]: one game's state: seats, clocks with lag compensation, offers, chat.
//! - [`rating`]: Glicko-2 per speed class.
//! - [`lobby`]: open seeks and quick-pairing pools.
//! - [`db`]: storage (SQLite or PostgreSQL).
//! - [`cluster`]: several server processes sharing one PostgreSQL database and one Redis
//!   server (game ownership by lease, requests forwarded to a game's owner, events relayed).
//! - [`http`] and [`socket`]: the JSON API, the lichess-shaped Board API with its NDJSON
//!   streams, and the WebSocket the page plays through.
//!
//! [`Online`] is the service: it keeps each game being played in memory behind its own lock,
//! saves every change before it is acknowledged, tells every watcher (players, spectators,
//! streams) about it, and runs the timers that abort a game nobody started and let a flag
//! fall with nobody there.

pub mod accounts;
pub mod cluster;
pub mod command;
pub mod db;
pub mod http;
pub mod lobby;
pub mod rating;
pub mod runner;
pub mod socket;
pub mod table;

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use damasi::{Color, Outcome};
use serde_json::{json, Value};
use tokio::sync::{broadcast, Mutex};
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::error::ApiError;
use crate::referee::now_ms;

use accounts::{Accounts, Player};
use cluster::{Cluster, ClusterConfig, ClusterError, Request};
use command::Command;
use db::{OnlineDb, OnlineGameRow, RatingRow};
use lobby::Lobby;
use runner::GameFinished;
use table::{Status, TableState};

/// Settings of the online service.
#[derive(Clone, Copy, Debug)]
pub struct OnlineConfig {
    /// A game is aborted when a side has not made its first move this long after its turn
    /// began.
    pub abort_after: Duration,
    /// A player gone (no connection) this long may be claimed against by the opponent.
    pub claim_after: Duration,
    /// A seek or pool place made with no event stream of its owner open is withdrawn this
    /// long after, unless one opens (see [`lobby`]).
    pub lobby_grace: Duration,
}

impl Default for OnlineConfig {
    fn default() -> Self {
        OnlineConfig {
            abort_after: Duration::from_secs(30),
            claim_after: Duration::from_secs(60),
            lobby_grace: Duration::from_secs(20),
        }
    }
}

/// An open game (a seat free: an open challenge, a game created for a friend, a direct
/// challenge) is withdrawn this long after it was created if nobody has taken the seat.
pub const OPEN_GAME_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

/// Events waiting per watcher before a slow one starts missing some (it then gets the whole
/// state again).
const EVENT_BUFFER: usize = 64;

/// One game being played, watched or just finished.
pub struct Table {
    /// The game's id.
    pub id: String,
    /// Its state.
    pub state: Mutex<TableState>,
    /// Every change, as the message watchers get.
    pub events: broadcast::Sender<Arc<Value>>,
    timer: StdMutex<Option<AbortHandle>>,
}

impl Drop for Table {
    fn drop(&mut self) {
        if let Some(t) = self.timer.lock().unwrap_or_else(|p| p.into_inner()).take() {
            t.abort();
        }
    }
}

/// A watcher's start: the game's `gameFull` (with `you`), the watcher's colour if they play
/// it, and the channel of its next events.
pub type Watch = (Value, Option<Color>, broadcast::Receiver<Arc<Value>>);

/// What a new game is to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NewGame {
    /// Time each side starts with (ms).
    pub initial_ms: i64,
    /// Increment per move (ms).
    pub increment_ms: i64,
    /// Whether the result changes ratings.
    pub rated: bool,
    /// Whether the players may chat.
    pub chat: bool,
}

impl NewGame {
    /// Checks the control against the ones players can choose (lichess's set): a start of 0,
    /// 15, 30, 45 or 90 seconds or whole minutes up to 180, and an increment of whole seconds
    /// up to 60, not both zero. Anything else (a rated game of a few milliseconds) is refused.
    pub fn check(&self) -> Result<(), ApiError> {
        const SECONDS: [i64; 5] = [0, 15_000, 30_000, 45_000, 90_000];
        let initial_ok = SECONDS.contains(&self.initial_ms)
            || (self.initial_ms % 60_000 == 0 && (0..=180 * 60_000).contains(&self.initial_ms));
        let ok = initial_ok
            && self.increment_ms % 1000 == 0
            && (0..=60_000).contains(&self.increment_ms)
            && self.initial_ms + self.increment_ms > 0;
        if ok {
            Ok(())
        } else {
            Err(ApiError::BadRequest(
                "a time control starts with 0, 15, 30, 45 or 90 seconds or whole minutes up to 180, \
                 and adds whole seconds up to 60 a move, not both zero"
                    .into(),
            ))
        }
    }
}

struct Inner {
    db: OnlineDb,
    accounts: Accounts,
    config: OnlineConfig,
    tables: StdMutex<HashMap<String, Arc<Table>>>,
    users: StdMutex<HashMap<i64, broadcast::Sender<Arc<Value>>>>,
    lobby: StdMutex<Lobby>,
    /// Open event streams per player on this process (see [`lobby::Listening`]).
    listeners: StdMutex<HashMap<i64, usize>>,
    /// Every game that ends on this process, for the service's own listeners.
    finished: broadcast::Sender<GameFinished>,
    /// Set when this process is one of several (`--pubsub`).
    cluster: Option<Cluster>,
}

/// The online service; cheap to clone.
#[derive(Clone)]
pub struct Online {
    inner: Arc<Inner>,
}

pub(crate) fn lock<T>(m: &StdMutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The color named `white`/`black` (`random` or nothing: none).
pub fn parse_color(text: Option<&str>) -> Result<Option<Color>, ApiError> {
    match text.map(str::to_ascii_lowercase).as_deref() {
        None | Some("random") | Some("") => Ok(None),
        Some("white") => Ok(Some(Color::White)),
        Some("black") => Ok(Some(Color::Black)),
        Some(other) => Err(ApiError::BadRequest(format!(
            "color '{other}' is not white, black or random"
        ))),
    }
}

pub(crate) fn random_color() -> Color {
    let mut b = [0u8; 1];
    let _ = getrandom::fill(&mut b);
    if b[0] & 1 == 0 {
        Color::White
    } else {
        Color::Black
    }
}

/// A new game id: 8 random characters from letters and digits (about 47 bits).
fn new_game_id() -> Result<String, ApiError> {
    const ALPHABET: &[u8] = b"abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::Internal(format!("no random numbers: {e}")))?;
    Ok(bytes
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect())
}

impl Online {
    /// The service over `db`.
    pub fn new(db: OnlineDb, config: OnlineConfig) -> Online {
        Online {
            inner: Arc::new(Inner {
                accounts: Accounts::new(db.clone()),
                db,
                config,
                tables: StdMutex::new(HashMap::new()),
                users: StdMutex::new(HashMap::new()),
                lobby: StdMutex::new(Lobby::default()),
                listeners: StdMutex::new(HashMap::new()),
                finished: broadcast::channel(EVENT_BUFFER).0,
                cluster: None,
            }),
        }
    }

    /// The service as one of several processes sharing the PostgreSQL database `db` and the
    /// Redis server at `redis_url` (see [`cluster`]).
    pub async fn clustered(
        db: OnlineDb,
        config: OnlineConfig,
        redis_url: &str,
        cluster: ClusterConfig,
    ) -> Result<Online, ClusterError> {
        let OnlineDb::Postgres(pg) = &db else {
            return Err(ClusterError::NeedsPostgres);
        };
        let (cluster, client, outbox) = Cluster::connect(redis_url, pg.clone(), cluster).await?;
        let online = Online {
            inner: Arc::new(Inner {
                accounts: Accounts::new(db.clone()),
                db,
                config,
                tables: StdMutex::new(HashMap::new()),
                users: StdMutex::new(HashMap::new()),
                lobby: StdMutex::new(Lobby::default()),
                listeners: StdMutex::new(HashMap::new()),
                finished: broadcast::channel(EVENT_BUFFER).0,
                cluster: Some(cluster),
            }),
        };
        cluster::start(Arc::downgrade(&online.inner), client, outbox);
        Ok(online)
    }

    /// This process's id among several (none when it is alone).
    pub fn node(&self) -> Option<&str> {
        self.inner.cluster.as_ref().map(|c| c.node.as_str())
    }

    /// A new table's event channel: in a cluster, the one this node's watchers of the game
    /// listen to whoever owns it.
    fn new_channel(&self, id: &str) -> broadcast::Sender<Arc<Value>> {
        match &self.inner.cluster {
            Some(c) => c.channel(id),
            None => broadcast::channel(EVENT_BUFFER).0,
        }
    }

    /// Sends `event` to every watcher of `table`, on every node.
    fn emit(&self, table: &Table, event: Value) {
        if let Some(c) = &self.inner.cluster {
            c.publish_game(&table.id, &event);
        }
        let _ = table.events.send(Arc::new(event));
    }

    /// A service with its database in memory (tests).
    pub fn in_memory() -> Online {
        Online::new(OnlineDb::in_memory(), OnlineConfig::default())
    }

    /// Accounts.
    pub fn accounts(&self) -> &Accounts {
        &self.inner.accounts
    }

    /// The database.
    pub fn db(&self) -> &OnlineDb {
        &self.inner.db
    }

    /// The settings.
    pub fn config(&self) -> OnlineConfig {
        self.inner.config
    }

    fn lobby(&self) -> std::sync::MutexGuard<'_, Lobby> {
        lock(&self.inner.lobby)
    }

    /// The event channel of `user` (`gameStart`, `gameFinish`, `challenge`).
    pub fn user_events(&self, user: i64) -> broadcast::Receiver<Arc<Value>> {
        let mut users = lock(&self.inner.users);
        users
            .entry(user)
            .or_insert_with(|| broadcast::channel(EVENT_BUFFER).0)
            .subscribe()
    }

    /// Tells `user` about something (nothing happens if nobody listens), on every node.
    pub fn notify(&self, user: i64, event: Value) {
        match &self.inner.cluster {
            Some(c) => c.publish_user(user, &event),
            None => self.notify_here(user, event),
        }
    }

    /// Tells `user`'s listeners on this node.
    fn notify_here(&self, user: i64, event: Value) {
        let users = lock(&self.inner.users);
        if let Some(tx) = users.get(&user) {
            let _ = tx.send(Arc::new(event));
        }
    }

    /// Creates a game; `creator`, if given, takes a seat (`color`, or a random one).
    pub async fn create(
        &self,
        creator: Option<&Player>,
        new: NewGame,
        color: Option<Color>,
    ) -> Result<Arc<Table>, ApiError> {
        self.create_for(creator, new, color, None).await
    }

    /// Challenges `to` to a game (lichess's `POST /api/challenge/{username}`): a game with
    /// `from` seated (`color`, or a random one) whose other seat only `to` may take; `to`
    /// hears a `challenge` event, and accepts by joining or declines.
    pub async fn challenge(
        &self,
        from: &Player,
        to: &Player,
        new: NewGame,
        color: Option<Color>,
    ) -> Result<Arc<Table>, ApiError> {
        if from.id == to.id {
            return Err(ApiError::BadRequest("you cannot challenge yourself".into()));
        }
        to.check_may_play(new.rated)?;
        let table = self.create_for(Some(from), new, color, Some(to.id)).await?;
        let event = {
            let s = table.state.lock().await;
            json!({"type": "challenge", "challenge": s.challenge_json(to, color, "created")})
        };
        self.notify(to.id, event);
        Ok(table)
    }

    async fn create_for(
        &self,
        creator: Option<&Player>,
        new: NewGame,
        color: Option<Color>,
        invited: Option<i64>,
    ) -> Result<Arc<Table>, ApiError> {
        new.check()?;
        if let Some(p) = creator {
            p.check_may_play(new.rated)?;
        }
        let row = OnlineGameRow {
            id: new_game_id()?,
            created_ms: now_ms(),
            players: [None, None],
            initial_ms: new.initial_ms,
            increment_ms: new.increment_ms,
            rated: new.rated,
            chat: new.chat,
            status: Status::Open.as_str().into(),
            outcome: None,
            turn_started_ms: None,
            diffs: [None, None],
            invited,
        };
        let mut state = TableState::new(row);
        if let Some(p) = creator {
            state.sit(p, Some(color.unwrap_or_else(random_color)))?;
        }
        self.inner.db.save_game(state.row.clone()).await?;
        if let Some(c) = &self.inner.cluster {
            c.acquire(&state.row.id).await?;
        }
        let table = Arc::new(Table {
            id: state.row.id.clone(),
            events: self.new_channel(&state.row.id),
            state: Mutex::new(state),
            timer: StdMutex::new(None),
        });
        lock(&self.inner.tables).insert(table.id.clone(), table.clone());
        Ok(table)
    }

    /// Creates a game with both players seated and starts it (a taken seek, a pool pairing, a
    /// rematch).
    pub async fn create_paired(
        &self,
        white: &Player,
        black: &Player,
        new: NewGame,
    ) -> Result<Arc<Table>, ApiError> {
        let table = self.create(Some(white), new, Some(Color::White)).await?;
        self.join(&table.id, black, Some(Color::Black)).await?;
        Ok(table)
    }

    /// The game `id`, loaded from the database if it is not in memory.
    pub async fn table(&self, id: &str) -> Result<Arc<Table>, ApiError> {
        if let Some(t) = lock(&self.inner.tables).get(id) {
            return Ok(t.clone());
        }
        let valid =
            !id.is_empty() && id.len() <= 16 && id.chars().all(|c| c.is_ascii_alphanumeric());
        let not_found = || ApiError::NotFound(format!("no online game '{id}'"));
        if !valid {
            return Err(not_found());
        }
        if let Some(c) = &self.inner.cluster {
            match c.acquire(id).await? {
                None => return Err(not_found()),
                Some(owner) if owner != c.node => return Err(cluster::not_owner(id)),
                Some(_) => {}
            }
        }
        let (row, moves) = self.inner.db.game(id).await?.ok_or_else(not_found)?;
        let mut seats = [None, None];
        for (i, p) in row.players.iter().enumerate() {
            if let Some(uid) = p {
                seats[i] = self.inner.db.user(*uid).await?.map(Player::from);
            }
        }
        let turn_started = row.turn_started_ms.map(|t| {
            let ago = Duration::from_millis((now_ms() - t).max(0) as u64);
            Instant::now().checked_sub(ago).unwrap_or_else(Instant::now)
        });
        let speed = rating::Speed::of(row.initial_ms, row.increment_ms);
        let mut state = TableState::restore(row, seats, &moves, turn_started)?;
        if state.row.rated {
            for i in 0..2 {
                if let Some(uid) = state.row.players[i] {
                    state.ratings[i] = Some(self.rating_of(uid, speed.name()).await?);
                }
            }
        }
        let table = Arc::new(Table {
            id: id.to_string(),
            state: Mutex::new(state),
            events: self.new_channel(id),
            timer: StdMutex::new(None),
        });
        let table = {
            let mut tables = lock(&self.inner.tables);
            tables.entry(id.to_string()).or_insert(table).clone()
        };
        let mut state = table.state.lock().await;
        self.arm_timer(&table, &state);
        // Above every version an earlier owner (or this process before a restart) gave out.
        state.version = state.version.max(now_ms().max(0) as u64) + 1;
        drop(state);
        Ok(table)
    }

    /// Withdraws (aborts) the open games, whose seat nobody took, created more than
    /// [`OPEN_GAME_LIFETIME`] ago; the one a direct challenge was sent to hears of it
    /// (`challengeCanceled`). Done at start and now and then; returns how many.
    pub async fn expire_open(&self) -> Result<usize, ApiError> {
        let before = now_ms().saturating_sub(OPEN_GAME_LIFETIME.as_millis() as i64);
        let ids = self.inner.db.open_before(before).await?;
        let mut n = 0;
        for id in ids {
            let in_memory = lock(&self.inner.tables).contains_key(&id);
            if !in_memory && self.inner.cluster.is_none() {
                // Not in memory: ended in the database, without loading it, unless its seat
                // was taken meanwhile.
                let Some((row, _)) = self.inner.db.game(&id).await? else {
                    continue;
                };
                if !self
                    .inner
                    .db
                    .withdraw_open(&id, Outcome::Aborted.code())
                    .await?
                {
                    continue;
                }
                n += 1;
                // Loaded (as it was, open) while this went on: ended there too, which tells
                // the one challenged; else they are told here.
                if lock(&self.inner.tables).contains_key(&id) {
                    self.execute_here(&id, None, &Command::Expire).await?;
                } else if let Some(to) = row.invited {
                    self.notify(
                        to,
                        json!({"type": "challengeCanceled", "challenge": {"id": id, "status": "canceled"}}),
                    );
                }
                continue;
            }
            // In memory, or among several: through the game's owner, which may be this node.
            match self.execute(&id, None, Command::Expire).await {
                Ok(v) if !v.is_null() => n += 1,
                Ok(_) => {}
                Err(e) => eprintln!("damasi-web: cannot withdraw open game {id}: {e:?}"),
            }
        }
        Ok(n)
    }

    /// Loads every unfinished game so its timers run again (at start), after withdrawing the
    /// open games too old to be taken (see [`Online::expire_open`]).
    pub async fn resume_all(&self) -> Result<usize, ApiError> {
        if let Err(e) = self.expire_open().await {
            eprintln!("damasi-web: cannot withdraw old open games: {e:?}");
        }
        if self.inner.cluster.is_some() {
            // Among several: only the games nobody looks after.
            return self.take_orphans().await;
        }
        let ids = self.inner.db.unfinished().await?;
        for id in &ids {
            self.table(id).await?;
        }
        Ok(ids.len())
    }

    async fn rating_of(&self, user: i64, speed: &str) -> Result<RatingRow, ApiError> {
        Ok(self
            .inner
            .db
            .rating(user, speed)
            .await?
            .unwrap_or_else(rating::initial))
    }

    /// Sends the current state to every watcher of `table`.
    fn publish(&self, table: &Table, state: &TableState) {
        self.emit(table, state.state_json(Instant::now()));
    }

    /// In a cluster, sends `cmd` about game `id` to its owner when that is another node and
    /// answers its reply; `None` when this node owns the game (or has just taken it over, or
    /// the id is not a game's), so the caller does the work here.
    async fn forward(
        &self,
        id: &str,
        request: impl Fn() -> Request,
    ) -> Option<Result<Value, ApiError>> {
        let cluster = self.inner.cluster.as_ref()?;
        let valid =
            !id.is_empty() && id.len() <= 16 && id.chars().all(|c| c.is_ascii_alphanumeric());
        if !valid {
            return None;
        }
        // Long enough for a dead owner's lease to run out and this node to take over.
        let deadline = Instant::now() + cluster.config.lease + cluster.config.reply_timeout * 2;
        loop {
            if lock(&self.inner.tables).contains_key(id) {
                return None;
            }
            let owner = match cluster.cached_owner(id) {
                Some(o) => Some(o),
                None => match cluster.acquire(id).await {
                    Ok(o) => o,
                    Err(e) => return Some(Err(e)),
                },
            };
            match owner {
                None => return None,
                Some(o) if o == cluster.node => return None,
                Some(o) => match cluster.ask(&o, id, request()).await {
                    Some(Err(e)) if cluster::is_not_owner(&e) => cluster.cache_owner(id, None),
                    Some(r) => {
                        cluster.cache_owner(id, Some(&o));
                        return Some(r);
                    }
                    None => cluster.cache_owner(id, None),
                },
            }
            if Instant::now() >= deadline {
                return Some(Err(ApiError::Busy(
                    "the server process looking after this game does not answer: try again".into(),
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Game `id` as `gameFull`, with `you`: the viewer's colour or null.
    pub async fn full(&self, id: &str, viewer: Option<&Player>) -> Result<Value, ApiError> {
        let request = || Request::Full {
            viewer: viewer.cloned(),
        };
        if let Some(r) = self.forward(id, request).await {
            return r;
        }
        self.full_here(id, viewer).await
    }

    pub(super) async fn full_here(
        &self,
        id: &str,
        viewer: Option<&Player>,
    ) -> Result<Value, ApiError> {
        let table = self.table(id).await?;
        let s = table.state.lock().await;
        Ok(s.full_json(Instant::now(), viewer))
    }

    /// Game `id`'s current `gameState` (for a watcher that missed events).
    pub async fn snapshot(&self, id: &str) -> Result<Value, ApiError> {
        if let Some(r) = self.forward(id, || Request::State).await {
            return r;
        }
        self.state_here(id).await
    }

    pub(super) async fn state_here(&self, id: &str) -> Result<Value, ApiError> {
        let table = self.table(id).await?;
        let s = table.state.lock().await;
        Ok(s.state_json(Instant::now()))
    }

    /// Starts watching game `id`: its `gameFull` (with `you`), the viewer's colour, and the
    /// channel of its next events. In a cluster the events come from the owner through this
    /// node's relay, and those older than the `gameFull` are dropped.
    pub async fn watch(&self, id: &str, viewer: Option<&Player>) -> Result<Watch, ApiError> {
        let side_in = |full: &Value| match full["you"].as_str() {
            Some("white") => Some(Color::White),
            Some("black") => Some(Color::Black),
            _ => None,
        };
        if let Some(cluster) = &self.inner.cluster {
            let mut events = cluster.channel(id).subscribe();
            let request = || Request::Full {
                viewer: viewer.cloned(),
            };
            if let Some(r) = self.forward(id, request).await {
                let full = r?;
                // The owner sends events and replies in one ordered stream: what is waiting
                // now is older than the reply.
                while let Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) = events.try_recv()
                {
                }
                let side = side_in(&full);
                return Ok((full, side, events));
            }
        }
        let table = self.table(id).await?;
        let s = table.state.lock().await;
        let full = s.full_json(Instant::now(), viewer);
        let side = viewer.and_then(|p| s.side_of(p.id));
        Ok((full, side, table.events.subscribe()))
    }

    /// A connection of `side` to game `id` opened or closed: a player with no connection
    /// left is marked gone, and the opponent may claim after a while.
    pub async fn connected(&self, id: &str, side: Color, open: bool) {
        let _ = self
            .execute(id, None, Command::Presence { side, open })
            .await;
    }

    /// A measured round trip of `side`'s connection to game `id` (lag compensation).
    pub async fn lag(&self, id: &str, side: Color, rtt: Duration) {
        let rtt_ms = rtt.as_millis().min(60_000) as u64;
        let _ = self.execute(id, None, Command::Lag { side, rtt_ms }).await;
    }

    /// Renews this node's leases, forgets the games whose lease it lost, and takes over the
    /// games nobody looks after (cluster only).
    async fn renew_leases(&self) -> Result<(), ApiError> {
        let Some(cluster) = &self.inner.cluster else {
            return Ok(());
        };
        let before: Vec<String> = lock(&self.inner.tables).keys().cloned().collect();
        let held = cluster
            .db
            .renew(
                &cluster.node,
                now_ms() + cluster.config.lease.as_millis() as i64,
            )
            .await?;
        let lost: Vec<Arc<Table>> = {
            let mut tables = lock(&self.inner.tables);
            before
                .iter()
                .filter(|id| !held.contains(id))
                .filter_map(|id| tables.remove(id))
                .collect()
        };
        for t in lost {
            eprintln!(
                "damasi-web: game {} is now looked after by another process",
                t.id
            );
            if let Some(timer) = lock(&t.timer).take() {
                timer.abort();
            }
        }
        self.take_orphans().await?;
        Ok(())
    }

    /// Takes over the games being played whose owner is gone; answers how many.
    async fn take_orphans(&self) -> Result<usize, ApiError> {
        let Some(cluster) = &self.inner.cluster else {
            return Ok(0);
        };
        let mut taken = 0;
        for id in cluster.db.orphans(now_ms()).await? {
            match self.table(&id).await {
                Ok(_) => taken += 1,
                Err(e) if cluster::is_not_owner(&e) => {}
                Err(e) => eprintln!("damasi-web: cannot take game {id} over: {e:?}"),
            }
        }
        Ok(taken)
    }

    /// Ids, players and clocks of the games being played now (newest first, at most `limit`).
    pub async fn live_games(&self, limit: usize) -> Vec<Value> {
        if let Some(cluster) = &self.inner.cluster {
            // Every node's games: the ids from the database, each game from its owner.
            let ids = cluster.db.playing(limit as i64).await.unwrap_or_default();
            let mut out = Vec::new();
            for id in ids {
                if let Ok(full) = self.full(&id, None).await {
                    out.push(full);
                }
            }
            return out;
        }
        let tables: Vec<Arc<Table>> = lock(&self.inner.tables).values().cloned().collect();
        let now = Instant::now();
        let mut out = Vec::new();
        for t in tables {
            let s = t.state.lock().await;
            if s.status == Status::Playing {
                out.push((s.row.created_ms, s.full_json(now, None)));
            }
        }
        out.sort_by_key(|(created, _)| std::cmp::Reverse(*created));
        out.into_iter().take(limit).map(|(_, v)| v).collect()
    }

    /// Drops games nobody watches and no clock needs from memory: finished ones, and open
    /// ones waiting for a seat to be taken (they stay in the database and come back when asked
    /// for).
    pub fn evict_idle(&self) {
        let mut evicted = Vec::new();
        let mut tables = lock(&self.inner.tables);
        tables.retain(|id, t| {
            let keep = Arc::strong_count(t) > 1
                || t.events.receiver_count() > 0
                || t.state
                    .try_lock()
                    .map_or(true, |s| s.status == Status::Playing);
            if !keep {
                evicted.push(id.clone());
            }
            keep
        });
        if let Some(cluster) = &self.inner.cluster {
            cluster.tidy(&|id| tables.contains_key(id));
            drop(tables);
            // Another node may take these games when they are asked for.
            let online = self.clone();
            tokio::spawn(async move {
                if let Some(cluster) = &online.inner.cluster {
                    for id in evicted {
                        cluster.release(&id).await;
                    }
                }
            });
        }
    }
}
