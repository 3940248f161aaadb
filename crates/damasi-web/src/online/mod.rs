//! Online play: people (and programs) play each other in real time on one server.
//!
//! - [`accounts`]: sign-up, log-in, guests, API tokens.
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
pub mod db;
pub mod http;
pub mod lobby;
pub mod rating;
pub mod socket;
pub mod table;

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex, Weak};
use std::time::Duration;

use damasi::{Color, DrawReason, Outcome};
use serde_json::{json, Value};
use tokio::sync::{broadcast, Mutex};
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::error::ApiError;
use crate::referee::now_ms;

use accounts::{Accounts, Player};
use cluster::{Cluster, ClusterConfig, ClusterError, Command};
use db::{OnlineDb, OnlineGameRow, RatedResult, RatingRow};
use lobby::Lobby;
use table::{abandonment, side_index, Deadline, Status, TableState};

/// Settings of the online service.
#[derive(Clone, Copy, Debug)]
pub struct OnlineConfig {
    /// A game is aborted when a side has not made its first move this long after its turn
    /// began.
    pub abort_after: Duration,
    /// A player gone (no connection) this long may be claimed against by the opponent.
    pub claim_after: Duration,
}

impl Default for OnlineConfig {
    fn default() -> Self {
        OnlineConfig {
            abort_after: Duration::from_secs(30),
            claim_after: Duration::from_secs(60),
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

fn color_of(white: bool) -> Color {
    if white {
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

    /// `player`, who was challenged to game `id`, declines (the game is withdrawn and the
    /// challenger hears `challengeDeclined` with `reason`).
    pub async fn decline(&self, id: &str, player: &Player, reason: &str) -> Result<(), ApiError> {
        let cmd = || Command::Decline {
            player: player.clone(),
            reason: reason.to_string(),
        };
        if let Some(r) = self.forward(id, cmd).await {
            return r.map(|_| ());
        }
        self.decline_here(id, player, reason).await
    }

    async fn decline_here(&self, id: &str, player: &Player, reason: &str) -> Result<(), ApiError> {
        let table = self.table(id).await?;
        let mut state = table.state.lock().await;
        if state.row.invited != Some(player.id) || state.status != Status::Open {
            return Err(ApiError::conflict(
                "no-such-challenge",
                "there is no challenge to you waiting in this game",
            ));
        }
        let event = json!({
            "type": "challengeDeclined",
            "challenge": state.challenge_json(player, None, "declined"),
            "declineReason": reason,
        });
        self.end(&table, &mut state, Some(Outcome::Aborted)).await?;
        for p in state.seats.iter().flatten() {
            self.notify(p.id, event.clone());
        }
        Ok(())
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
        state.version += 1;
        drop(state);
        Ok(table)
    }

    /// Tells `to` that the challenge of game `id` was withdrawn (`challengeCanceled`).
    fn tell_canceled(&self, to: i64, id: &str) {
        self.notify(
            to,
            json!({"type": "challengeCanceled", "challenge": {"id": id, "status": "canceled"}}),
        );
    }

    /// Withdraws (aborts) the open games, whose seat nobody took, created more than
    /// [`OPEN_GAME_LIFETIME`] ago; the one a direct challenge was sent to hears of it
    /// (`challengeCanceled`). Done at start and now and then; returns how many.
    pub async fn expire_open(&self) -> Result<usize, ApiError> {
        let before = now_ms().saturating_sub(OPEN_GAME_LIFETIME.as_millis() as i64);
        let ids = self.inner.db.open_before(before).await?;
        let mut n = 0;
        for id in ids {
            let loaded = lock(&self.inner.tables).get(&id).cloned();
            let invited = match loaded {
                None if self.inner.cluster.is_none() => {
                    // Not in memory: ended in the database, without loading it, unless its
                    // seat was taken meanwhile.
                    let Some((row, _)) = self.inner.db.game(&id).await? else {
                        continue;
                    };
                    let aborted = Outcome::Aborted.code();
                    if !self.inner.db.withdraw_open(&id, aborted).await? {
                        continue;
                    }
                    // Loaded (as it was, open) while this went on: ended there too.
                    let loaded = lock(&self.inner.tables).get(&id).cloned();
                    if let Some(table) = loaded {
                        let mut state = table.state.lock().await;
                        if state.status == Status::Open {
                            self.end(&table, &mut state, Some(Outcome::Aborted)).await?;
                        }
                    }
                    row.invited
                }
                loaded => {
                    let table = match loaded {
                        Some(t) => t,
                        // Among several: through the game's owner, which may be this node.
                        None => match self.table(&id).await {
                            Ok(t) => t,
                            Err(_) => continue,
                        },
                    };
                    let mut state = table.state.lock().await;
                    if state.status != Status::Open {
                        continue;
                    }
                    let invited = state.row.invited;
                    self.end(&table, &mut state, Some(Outcome::Aborted)).await?;
                    invited
                }
            };
            if let Some(to) = invited {
                self.tell_canceled(to, &id);
            }
            n += 1;
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
        cmd: impl Fn() -> Command,
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
                Some(o) => match cluster.ask(&o, id, cmd()).await {
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

    /// Does `cmd` for game `id` on this node (a request forwarded by another node).
    async fn run_here(&self, id: &str, cmd: Command) -> Result<Value, ApiError> {
        match cmd {
            Command::Join { player, want } => {
                let side = self
                    .join_here(id, &player, parse_color(want.as_deref())?)
                    .await?;
                Ok(json!(table::side_name(side)))
            }
            Command::Play { player, text } => self.play_here(id, &player, &text).await,
            Command::Resign { player } => self.resign_here(id, &player).await,
            Command::Abort { player } => self.abort_here(id, &player).await,
            Command::Draw { player, yes } => self.draw_here(id, &player, yes).await,
            Command::Takeback { player, yes } => self.takeback_here(id, &player, yes).await,
            Command::Chat { player, text } => {
                self.chat_here(id, &player, &text).await?;
                Ok(Value::Null)
            }
            Command::Claim { player, win } => self.claim_here(id, &player, win).await,
            Command::Rematch { player } => self.rematch_here(id, &player).await,
            Command::Full { viewer } => self.full_here(id, viewer.as_ref()).await,
            Command::Decline { player, reason } => {
                self.decline_here(id, &player, &reason).await?;
                Ok(Value::Null)
            }
            Command::State => {
                let table = self.table(id).await?;
                let s = table.state.lock().await;
                Ok(s.state_json(Instant::now()))
            }
            Command::Presence { white, open } => {
                let table = self.table(id).await?;
                self.presence(&table, color_of(white), open).await;
                Ok(Value::Null)
            }
            Command::Lag { white, rtt_ms } => {
                let table = self.table(id).await?;
                self.observe_lag(&table, color_of(white), Duration::from_millis(rtt_ms))
                    .await;
                Ok(Value::Null)
            }
        }
    }

    /// `player` takes a free seat of game `id` (`want` picks the colour if both are free).
    /// When both seats are taken the game starts, and both players are told.
    pub async fn join(
        &self,
        id: &str,
        player: &Player,
        want: Option<Color>,
    ) -> Result<Color, ApiError> {
        let cmd = || Command::Join {
            player: player.clone(),
            want: want.map(|c| table::side_name(c).to_string()),
        };
        if let Some(r) = self.forward(id, cmd).await {
            return match r?.as_str() {
                Some("white") => Ok(Color::White),
                Some("black") => Ok(Color::Black),
                _ => Err(ApiError::Internal(
                    "the game's owner answered no colour".into(),
                )),
            };
        }
        self.join_here(id, player, want).await
    }

    /// `player` plays `text` in game `id`.
    pub async fn play(&self, id: &str, player: &Player, text: &str) -> Result<Value, ApiError> {
        let cmd = || Command::Play {
            player: player.clone(),
            text: text.to_string(),
        };
        if let Some(r) = self.forward(id, cmd).await {
            return r;
        }
        self.play_here(id, player, text).await
    }

    /// `player` resigns game `id`.
    pub async fn resign(&self, id: &str, player: &Player) -> Result<Value, ApiError> {
        let cmd = || Command::Resign {
            player: player.clone(),
        };
        if let Some(r) = self.forward(id, cmd).await {
            return r;
        }
        self.resign_here(id, player).await
    }

    /// `player` aborts game `id` (only before both sides have moved; an open game's creator
    /// may also withdraw it).
    pub async fn abort(&self, id: &str, player: &Player) -> Result<Value, ApiError> {
        let cmd = || Command::Abort {
            player: player.clone(),
        };
        if let Some(r) = self.forward(id, cmd).await {
            return r;
        }
        self.abort_here(id, player).await
    }

    /// `player` offers a draw (`yes`) or declines the opponent's offer (`no`); a `yes` while the
    /// opponent offers one accepts it.
    pub async fn draw(&self, id: &str, player: &Player, yes: bool) -> Result<Value, ApiError> {
        let cmd = || Command::Draw {
            player: player.clone(),
            yes,
        };
        if let Some(r) = self.forward(id, cmd).await {
            return r;
        }
        self.draw_here(id, player, yes).await
    }

    /// `player` proposes a takeback (`yes`) or declines the opponent's (`no`); `yes` to a
    /// standing proposal of the opponent accepts it.
    pub async fn takeback(&self, id: &str, player: &Player, yes: bool) -> Result<Value, ApiError> {
        let cmd = || Command::Takeback {
            player: player.clone(),
            yes,
        };
        if let Some(r) = self.forward(id, cmd).await {
            return r;
        }
        self.takeback_here(id, player, yes).await
    }

    /// `player` says `text` in game `id`'s chat.
    pub async fn chat(&self, id: &str, player: &Player, text: &str) -> Result<(), ApiError> {
        let cmd = || Command::Chat {
            player: player.clone(),
            text: text.to_string(),
        };
        if let Some(r) = self.forward(id, cmd).await {
            return r.map(|_| ());
        }
        self.chat_here(id, player, text).await
    }

    /// `player` claims the win (or a draw) because the opponent has been gone long enough.
    pub async fn claim(&self, id: &str, player: &Player, win: bool) -> Result<Value, ApiError> {
        let cmd = || Command::Claim {
            player: player.clone(),
            win,
        };
        if let Some(r) = self.forward(id, cmd).await {
            return r;
        }
        self.claim_here(id, player, win).await
    }

    /// `player` asks for a rematch of finished game `id`; when both have asked, a new game
    /// with the colours swapped starts and its id is announced.
    pub async fn rematch(&self, id: &str, player: &Player) -> Result<Value, ApiError> {
        let cmd = || Command::Rematch {
            player: player.clone(),
        };
        if let Some(r) = self.forward(id, cmd).await {
            return r;
        }
        self.rematch_here(id, player).await
    }

    /// Game `id` as `gameFull`, with `you`: the viewer's colour or null.
    pub async fn full(&self, id: &str, viewer: Option<&Player>) -> Result<Value, ApiError> {
        let cmd = || Command::Full {
            viewer: viewer.cloned(),
        };
        if let Some(r) = self.forward(id, cmd).await {
            return r;
        }
        self.full_here(id, viewer).await
    }

    async fn full_here(&self, id: &str, viewer: Option<&Player>) -> Result<Value, ApiError> {
        let table = self.table(id).await?;
        let s = table.state.lock().await;
        Ok(s.full_json(Instant::now(), viewer))
    }

    /// Game `id`'s current `gameState` (for a watcher that missed events).
    pub async fn snapshot(&self, id: &str) -> Result<Value, ApiError> {
        if let Some(r) = self.forward(id, || Command::State).await {
            return r;
        }
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
            let cmd = || Command::Full {
                viewer: viewer.cloned(),
            };
            if let Some(r) = self.forward(id, cmd).await {
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

    /// A connection of `side` to game `id` opened or closed (see [`Online::presence`]), told to
    /// the node owning the game.
    pub async fn connected(&self, id: &str, side: Color, open: bool) {
        let cmd = || Command::Presence {
            white: side == Color::White,
            open,
        };
        if self.forward(id, cmd).await.is_some() {
            return;
        }
        if let Ok(table) = self.table(id).await {
            self.presence(&table, side, open).await;
        }
    }

    /// A measured round trip of `side`'s connection to game `id`, told to the node owning it.
    pub async fn lag(&self, id: &str, side: Color, rtt: Duration) {
        let cmd = || Command::Lag {
            white: side == Color::White,
            rtt_ms: rtt.as_millis().min(60_000) as u64,
        };
        if self.forward(id, cmd).await.is_some() {
            return;
        }
        if let Ok(table) = self.table(id).await {
            self.observe_lag(&table, side, rtt).await;
        }
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

    /// `player` takes a free seat of game `id` (`want` picks the colour if both are free).
    /// When both seats are taken the game starts, and both players are told.
    async fn join_here(
        &self,
        id: &str,
        player: &Player,
        want: Option<Color>,
    ) -> Result<Color, ApiError> {
        let table = self.table(id).await?;
        let mut state = table.state.lock().await;
        let was_open = state.status == Status::Open;
        let side = state.sit(player, want)?;
        if !was_open {
            return Ok(side);
        }
        let now = Instant::now();
        state.start(now);
        if state.status == Status::Playing {
            if state.row.rated {
                let speed = state.speed().name();
                for i in 0..2 {
                    if let Some(uid) = state.row.players[i] {
                        state.ratings[i] = Some(self.rating_of(uid, speed).await?);
                    }
                }
            }
            state.row.turn_started_ms = Some(now_ms());
        }
        self.inner.db.save_game(state.row.clone()).await?;
        self.emit(&table, state.full_json(now, None));
        if state.status == Status::Playing {
            self.arm_timer(&table, &state);
            for (i, seat) in state.seats.iter().enumerate() {
                if let Some(p) = seat {
                    let side = table::side_of_index(i);
                    self.notify(p.id, state.game_event("gameStart", side));
                }
            }
        }
        Ok(side)
    }

    /// `player` plays `text` in game `id`.
    async fn play_here(&self, id: &str, player: &Player, text: &str) -> Result<Value, ApiError> {
        let table = self.table(id).await?;
        let mut state = table.state.lock().await;
        let now = Instant::now();
        let prepared = state.prepare_move(player, text, now)?;
        if prepared.flagged {
            let outcome = state.game.lose_on_time(prepared.side)?;
            self.end(&table, &mut state, None).await?;
            return Err(ApiError::game_over(&outcome));
        }
        let ply = state.game.ply();
        self.inner
            .db
            .add_move(
                &table.id,
                ply,
                prepared.token(),
                prepared.elapsed_ms as i64,
                now_ms(),
            )
            .await?;
        state.apply_move(&prepared, now)?;
        if state.game.is_over() {
            self.end(&table, &mut state, None).await?;
        } else {
            self.publish(&table, &state);
            self.arm_timer(&table, &state);
        }
        Ok(state.state_json(now))
    }

    /// Ends the game: saves the outcome and the rating changes, tells everyone.
    async fn end(
        &self,
        table: &Arc<Table>,
        state: &mut TableState,
        outcome: Option<Outcome>,
    ) -> Result<(), ApiError> {
        let final_outcome = outcome.or_else(|| state.game.outcome());
        let rated = match (
            state.row.rated,
            final_outcome,
            state.row.players[0],
            state.row.players[1],
        ) {
            (true, Some(outcome), Some(white), Some(black)) => Some(RatedResult {
                white,
                black,
                speed: state.speed().name().to_string(),
                outcome,
            }),
            _ => None,
        };
        state.finish(outcome);
        state.row.diffs = self
            .inner
            .db
            .finish(
                &table.id,
                state.row.outcome.clone().unwrap_or_default(),
                rated,
            )
            .await?;
        if let Some(t) = lock(&table.timer).take() {
            t.abort();
        }
        self.publish(table, state);
        for (i, seat) in state.seats.iter().enumerate() {
            if let Some(p) = seat {
                let side = table::side_of_index(i);
                self.notify(p.id, state.game_event("gameFinish", side));
            }
        }
        Ok(())
    }

    /// (Re)starts the game's timer for its next deadline (abort or flag), or stops it. When it
    /// fires it works the deadline out again from the state as it is then (a move, an offer or
    /// a lag measurement may have moved it), so a stale timer never ends a game early and a
    /// change that does not move the deadline never cancels it.
    fn arm_timer(&self, table: &Arc<Table>, state: &TableState) {
        let mut slot = lock(&table.timer);
        if let Some(t) = slot.take() {
            t.abort();
        }
        let Some((first, _)) = state.deadline(self.inner.config.abort_after) else {
            return;
        };
        let weak: Weak<Table> = Arc::downgrade(table);
        let online = self.clone();
        let abort_after = self.inner.config.abort_after;
        let task = tokio::spawn(async move {
            let mut at = first;
            loop {
                tokio::time::sleep_until(at).await;
                let Some(table) = weak.upgrade() else { return };
                let mut state = table.state.lock().await;
                let Some((due, what)) = state.deadline(abort_after) else {
                    return;
                };
                if due > Instant::now() {
                    at = due;
                    continue;
                }
                let outcome = match what {
                    Deadline::Abort => Some(Outcome::Aborted),
                    Deadline::Flag(side) => {
                        // This zeroes the clock and ends the game on time; `end` saves it.
                        let _ = state.game.lose_on_time(side);
                        None
                    }
                };
                if let Err(e) = online.end(&table, &mut state, outcome).await {
                    eprintln!("damasi-web: cannot end game {}: {e:?}", table.id);
                }
                return;
            }
        });
        *slot = Some(task.abort_handle());
    }

    /// `player` resigns game `id`.
    async fn resign_here(&self, id: &str, player: &Player) -> Result<Value, ApiError> {
        let table = self.table(id).await?;
        let mut state = table.state.lock().await;
        state.check_playing()?;
        let side = state.seat_of(player)?;
        let outcome = Outcome::Win {
            winner: !side,
            reason: damasi::WinReason::Resignation,
        };
        self.end(&table, &mut state, Some(outcome)).await?;
        Ok(state.state_json(Instant::now()))
    }

    /// `player` aborts game `id` (only before both sides have moved; an open game's creator
    /// may also withdraw it).
    async fn abort_here(&self, id: &str, player: &Player) -> Result<Value, ApiError> {
        let table = self.table(id).await?;
        let mut state = table.state.lock().await;
        state.seat_of(player)?;
        match state.status {
            Status::Over => state.check_playing()?,
            Status::Open => {}
            Status::Playing if state.game.can_abort() => {}
            Status::Playing => {
                return Err(ApiError::conflict(
                    "too-late-to-abort",
                    "both sides have moved: the game can no longer be aborted",
                ))
            }
        }
        let withdrawn = (state.status == Status::Open)
            .then_some(state.row.invited)
            .flatten();
        self.end(&table, &mut state, Some(Outcome::Aborted)).await?;
        if let Some(to) = withdrawn {
            // A direct challenge withdrawn by its sender (lichess's `challenge/{id}/cancel`).
            self.tell_canceled(to, id);
        }
        Ok(state.state_json(Instant::now()))
    }

    /// `player` offers a draw (`yes`) or declines the opponent's offer (`no`); a `yes` while the
    /// opponent offers one accepts it.
    async fn draw_here(&self, id: &str, player: &Player, yes: bool) -> Result<Value, ApiError> {
        let table = self.table(id).await?;
        let mut state = table.state.lock().await;
        state.check_playing()?;
        let side = state.seat_of(player)?;
        if yes {
            if state.draw_offer == Some(!side) {
                self.end(
                    &table,
                    &mut state,
                    Some(Outcome::Draw(DrawReason::Agreement)),
                )
                .await?;
                return Ok(state.state_json(Instant::now()));
            }
            if state.draw_offer == Some(side) {
                // Already offered: nothing changes, nobody is told again.
                return Ok(state.state_json(Instant::now()));
            }
            TableState::check_offer(&mut state.draw_offered, side, Instant::now(), "draw offer")?;
            state.draw_offer = Some(side);
        } else if state.draw_offer == Some(!side) {
            // The opponent answered: the proposer may offer again at once.
            state.draw_offer = None;
            state.draw_offered[side_index(!side)] = None;
        } else if state.draw_offer == Some(side) {
            // Withdrawn: offering again waits (see `table::OFFER_REPEAT`).
            state.draw_offer = None;
        } else {
            return Ok(state.state_json(Instant::now()));
        }
        state.version += 1;
        self.publish(&table, &state);
        self.arm_timer(&table, &state);
        Ok(state.state_json(Instant::now()))
    }

    /// `player` proposes a takeback (`yes`: their own last move, or the last two plies when the
    /// opponent has replied) or declines the opponent's (`no`); `yes` to a standing proposal of
    /// the opponent accepts it.
    async fn takeback_here(&self, id: &str, player: &Player, yes: bool) -> Result<Value, ApiError> {
        let table = self.table(id).await?;
        let mut state = table.state.lock().await;
        state.check_playing()?;
        let side = state.seat_of(player)?;
        if !yes {
            match state.takeback_offer {
                Some(proposer) if proposer == !side => {
                    // The opponent answered: the proposer may propose again at once.
                    state.takeback_offered[side_index(proposer)] = None;
                }
                Some(_) => {}
                None => return Ok(state.state_json(Instant::now())),
            }
            state.takeback_offer = None;
        } else if state.takeback_offer == Some(side) {
            // Already proposed: nothing changes, nobody is told again.
            return Ok(state.state_json(Instant::now()));
        } else if let Some(proposer) = state.takeback_offer.filter(|&p| p == !side) {
            // Undo the proposer's last move: one ply if the proposer moved last, two if the
            // accepting side has replied since.
            let to_move = state.game.position().side_to_move();
            let plies = if to_move == proposer { 2 } else { 1 };
            if state.game.ply() < plies {
                return Err(ApiError::conflict(
                    "nothing-to-take-back",
                    "there is no move to take back",
                ));
            }
            for _ in 0..plies {
                state.game.take_back()?;
                state.moves.pop();
                state.elapsed.pop();
            }
            let ply = state.game.ply();
            state.turn_started = Some(Instant::now());
            state.takeback_offer = None;
            state.takeback_offered[side_index(proposer)] = None;
            state.draw_offer = None;
            self.inner
                .db
                .truncate_moves(&table.id, ply, now_ms())
                .await?;
        } else {
            let mine = state.game.history().len().checked_sub(
                if state.game.position().side_to_move() == side {
                    2
                } else {
                    1
                },
            );
            if mine.is_none() {
                return Err(ApiError::conflict(
                    "nothing-to-take-back",
                    "you have no move to take back",
                ));
            }
            TableState::check_offer(
                &mut state.takeback_offered,
                side,
                Instant::now(),
                "takeback proposal",
            )?;
            state.takeback_offer = Some(side);
        }
        state.version += 1;
        self.publish(&table, &state);
        self.arm_timer(&table, &state);
        Ok(state.state_json(Instant::now()))
    }

    /// `player` says `text` in game `id`'s chat.
    async fn chat_here(&self, id: &str, player: &Player, text: &str) -> Result<(), ApiError> {
        let table = self.table(id).await?;
        let mut state = table.state.lock().await;
        let line = state.say(player, text)?;
        self.emit(
            &table,
            json!({"type": "chatLine", "room": "player", "username": line.name, "text": line.text}),
        );
        Ok(())
    }

    /// `player` claims the win (or a draw) because the opponent has been gone long enough.
    async fn claim_here(&self, id: &str, player: &Player, win: bool) -> Result<Value, ApiError> {
        let table = self.table(id).await?;
        let mut state = table.state.lock().await;
        state.check_playing()?;
        let side = state.seat_of(player)?;
        let gone = state.gone_since[side_index(!side)];
        let long_enough = gone.is_some_and(|g| g.elapsed() >= self.inner.config.claim_after);
        if !long_enough {
            return Err(ApiError::conflict(
                "opponent-present",
                format!(
                    "the opponent can be claimed against only after {} s away",
                    self.inner.config.claim_after.as_secs()
                ),
            ));
        }
        let outcome = if win {
            abandonment(!side)
        } else {
            Outcome::Draw(DrawReason::Agreement)
        };
        self.end(&table, &mut state, Some(outcome)).await?;
        Ok(state.state_json(Instant::now()))
    }

    /// `player` asks for a rematch of finished game `id`; when both have asked, a new game
    /// with the colours swapped starts and its id is announced.
    async fn rematch_here(&self, id: &str, player: &Player) -> Result<Value, ApiError> {
        let table = self.table(id).await?;
        let mut state = table.state.lock().await;
        let side = state.seat_of(player)?;
        if state.status != Status::Over {
            return Err(ApiError::conflict(
                "not-over",
                "a rematch can be asked for once the game is over",
            ));
        }
        if state.rematch_id.is_none() {
            state.rematch[side_index(side)] = true;
            if state.rematch == [true, true] {
                let (Some(w), Some(b)) = (state.seats[0].clone(), state.seats[1].clone()) else {
                    return Err(ApiError::conflict("seats-taken", "a seat is empty"));
                };
                let new = NewGame {
                    initial_ms: state.row.initial_ms,
                    increment_ms: state.row.increment_ms,
                    rated: state.row.rated,
                    chat: state.row.chat,
                };
                let next = self.create_paired(&b, &w, new).await?;
                state.rematch_id = Some(next.id.clone());
            }
            state.version += 1;
            self.publish(&table, &state);
        }
        Ok(state.state_json(Instant::now()))
    }

    /// A connection of `player` to game `id` opened (`true`) or closed: a player with no
    /// connection left is marked gone and the opponent is told when a claim becomes possible.
    pub async fn presence(&self, table: &Arc<Table>, side: Color, open: bool) {
        let mut state = table.state.lock().await;
        let i = side_index(side);
        if open {
            state.connections[i] += 1;
            if state.gone_since[i].take().is_none() {
                return;
            }
        } else {
            state.connections[i] = state.connections[i].saturating_sub(1);
            if state.connections[i] > 0 || state.status != Status::Playing {
                return;
            }
            state.gone_since[i] = Some(Instant::now());
        }
        state.version += 1;
        self.emit(
            table,
            json!({
                "type": "opponentGone",
                "side": table::side_name(side),
                "gone": !open,
                "claimWinInSeconds": (!open).then(|| self.inner.config.claim_after.as_secs()),
            }),
        );
        self.publish(table, &state);
    }

    /// Records a measured round trip of `side`'s connection (on the node owning the game).
    pub async fn observe_lag(&self, table: &Table, side: Color, rtt: Duration) {
        let mut state = table.state.lock().await;
        state.lag[side_index(side)].observe_round_trip(rtt);
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
