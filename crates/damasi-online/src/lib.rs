//! damasi's online play, with no HTTP in it: people (and programs) play each other in real
//! time. The web app (`damasi-web`) and the Telegram bot (`damasi-telegram`) are edges that
//! turn what their clients send into [`command::Command`]s and what comes back into pages and
//! messages.
//!
//! - [`accounts`]: sign-up, log-in, guests, API tokens.
//! - [`init_data`]: a Telegram Mini App's signed `initData`, for a log-in through Telegram.
//! - [`command`]: the only way into a game: a typed [`command::Command`] and the pure
//!   [`command::apply`] that says what it does.
//! - [`runner`]: the one runner every command goes through (forward or run here, lock, store,
//!   announce, re-arm the timer).
//! - [`table`]: one game's state: seats, clocks with lag compensation, offers, chat.
//! - [`tables`]: the games kept in memory: made, loaded with their clocks, withdrawn, evicted.
//! - [`watch`]: what watchers get (`gameFull`, `gameState`, the event channel).
//! - [`rating`]: Glicko-2 per speed class.
//! - [`lobby`]: open seeks and quick-pairing pools.
//! - [`players`]: follows and blocks, who is online, leaderboards.
//! - [`db`]: storage (SQLite or PostgreSQL).
//! - [`explorer`]: the opening explorer: the moves played from each position and their
//!   results, from the server's games and imported master games.
//! - [`cluster`]: several server processes sharing one PostgreSQL database and one Redis
//!   server (game ownership by lease, requests forwarded to a game's owner, events relayed).
//! - [`brain`]: the server's engines, shared by every game and request that needs one.
//! - [`frontend`]: what a front end elsewhere (a chat app) uses: one process of a cluster
//!   runs it ([`Online::lead`]), and the engine's seat in a game.
//! - [`record`]: a game as it is described and stored (moves for the page, the outcome).
//! - [`error`]: the one error of the service, with stable machine codes.
//! - [`hashing`]: the few threads that hash and check passwords, and their queue.
//! - [`variant`]: the rules a game is played under, as the API names them (lichess's
//!   `variant`).
//!
//! [`Online`] is the service: it keeps each game being played in memory behind its own lock,
//! saves every change before it is acknowledged, tells every watcher (players, spectators,
//! streams) about it, and runs the timers that abort a game nobody started and let a flag
//! fall with nobody there.

pub mod accounts;
pub mod addresses;
pub mod brain;
pub mod chat_filter;
pub mod cluster;
pub mod command;
pub mod db;
pub mod error;
pub mod explorer;
pub mod fair_play;
pub mod frontend;
pub mod hashing;
pub mod init_data;
pub mod live;
pub mod lobby;
pub mod messages;
pub mod moderation;
pub mod players;
pub mod rating;
pub mod record;
pub mod recovery;
pub mod runner;
pub mod table;
pub mod tables;
pub mod two_factor;
pub mod variant;
pub mod watch;
pub mod your_data;

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use damasi::{Color, RuleSet};
use tokio::sync::{broadcast, Mutex};
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::error::ApiError;

/// `bytes` as lower-case hexadecimal digits, two a byte: the form of the service's secrets,
/// their hashes, node ids, explorer keys and the schema's digest.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The server's time, in Unix milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

use accounts::Accounts;
use cluster::{Cluster, ClusterConfig, ClusterError};
use command::Command;
use db::OnlineDb;
use lobby::Lobby;
use messages::GameFinished;
use messages::{GameFull, GameMessage, UserEvent};
use table::TableState;

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
    /// A seek or pool place is withdrawn this long after its owner's last event stream closed,
    /// unless one opens again (a reload of the lobby).
    pub lobby_reconnect: Duration,
}

impl Default for OnlineConfig {
    fn default() -> Self {
        OnlineConfig {
            abort_after: Duration::from_secs(30),
            claim_after: Duration::from_secs(60),
            lobby_grace: Duration::from_secs(20),
            lobby_reconnect: Duration::from_secs(3),
        }
    }
}

/// An open game (a seat free: an open challenge, a game created for a friend, a direct
/// challenge) is withdrawn this long after it was created if nobody has taken the seat.
pub const OPEN_GAME_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

/// An open correspondence game (a challenge to a friend who looks in every few days) waits
/// this long instead.
pub const CORRESPONDENCE_OPEN_LIFETIME: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Whether an open game created at `created_ms` with the control (`initial_ms`,
/// `increment_ms`) has waited too long for its free seat at `now_ms`.
pub fn open_expired(created_ms: i64, initial_ms: i64, increment_ms: i64, now_ms: i64) -> bool {
    let lifetime = match days_per_turn(initial_ms, increment_ms) {
        Some(_) => CORRESPONDENCE_OPEN_LIFETIME,
        None => OPEN_GAME_LIFETIME,
    };
    now_ms - created_ms >= lifetime.as_millis() as i64
}

/// Events waiting per watcher before a slow one starts missing some (it then gets the whole
/// state again).
const EVENT_BUFFER: usize = 64;

/// Events of every account waiting for a front end that tells people (a tournament's round
/// pairs every entrant at once).
const EVERY_USER_BUFFER: usize = 4096;

/// One message of a game as every watcher gets it: the message, the side it is hidden from
/// (a chat line is not shown to a player who blocks its writer), and its text, made once (a
/// game with many watchers serializes each message once, not once per watcher).
#[derive(Debug)]
pub struct Outgoing {
    /// The message.
    pub message: GameMessage,
    /// The side that does not see it: the server's to know, never sent.
    pub hidden_from: Option<Color>,
    /// `message` as JSON text.
    pub text: String,
}

impl Outgoing {
    /// The outgoing `message`, hidden from `hidden_from`.
    pub fn new(message: GameMessage, hidden_from: Option<Color>) -> Arc<Outgoing> {
        let text = serde_json::to_string(&message).expect("a message serializes");
        Arc::new(Outgoing {
            message,
            hidden_from,
            text,
        })
    }

    /// Whether it may go to a viewer seated at `side` (None: a spectator): the players' chat
    /// lines go to the players only, and not to a player who blocks the writer.
    pub fn visible_to(&self, side: Option<Color>) -> bool {
        match side {
            None => !matches!(self.message, GameMessage::ChatLine { .. }),
            Some(side) => self.hidden_from != Some(side),
        }
    }
}

/// One game being played, watched or just finished.
pub struct Table {
    /// The game's id.
    pub id: String,
    /// Its state.
    pub state: Mutex<TableState>,
    /// Every change, as the message watchers get.
    pub events: broadcast::Sender<Arc<Outgoing>>,
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
pub type Watch = (GameFull, Option<Color>, broadcast::Receiver<Arc<Outgoing>>);

/// A day, in ms: a correspondence game's time a move is a whole number of them.
pub const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// The correspondence controls players can choose: days a move (lichess's set, but 10).
pub const CORRESPONDENCE_DAYS: [i64; 6] = [1, 2, 3, 5, 7, 14];

/// The days a move of the control (`initial_ms`, `increment_ms`) when it is a correspondence
/// one. A correspondence control is kept as its time a move in `initial_ms` (whole days) with
/// no increment: a live control is at most 180 minutes, so the two never meet.
pub fn days_per_turn(initial_ms: i64, increment_ms: i64) -> Option<i64> {
    (increment_ms == 0 && initial_ms >= DAY_MS && initial_ms % DAY_MS == 0)
        .then_some(initial_ms / DAY_MS)
}

/// What a new game is to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NewGame {
    /// Time each side starts with (ms); for a correspondence game, its time a move (whole
    /// days, see [`days_per_turn`]).
    pub initial_ms: i64,
    /// Increment per move (ms).
    pub increment_ms: i64,
    /// Whether the result changes ratings.
    pub rated: bool,
    /// Whether the players may chat.
    pub chat: bool,
    /// The rules it is played under (the API's `variant`; default: the federation's). A game
    /// under other rules is unrated (see [`NewGame::check`]).
    #[serde(default, with = "variant::serde_rules")]
    pub rules: RuleSet,
}

impl NewGame {
    /// A correspondence game of `days` a move (one of [`CORRESPONDENCE_DAYS`]; anything else
    /// is refused with a 400).
    pub fn correspondence(days: i64, rated: bool, chat: bool) -> Result<NewGame, ApiError> {
        if !CORRESPONDENCE_DAYS.contains(&days) {
            return Err(ApiError::BadRequest(format!(
                "a correspondence game has 1, 2, 3, 5, 7 or 14 days a move, not {days}"
            )));
        }
        Ok(NewGame {
            initial_ms: days * DAY_MS,
            increment_ms: 0,
            rated,
            chat,
            rules: RuleSet::default(),
        })
    }

    /// Its days a move, when it is a correspondence game.
    pub fn days_per_turn(&self) -> Option<i64> {
        days_per_turn(self.initial_ms, self.increment_ms)
    }

    /// Checks the control against the ones players can choose (lichess's set): a start of 0,
    /// 15, 30, 45 or 90 seconds or whole minutes up to 180, and an increment of whole seconds
    /// up to 60, not both zero; or a correspondence control of [`CORRESPONDENCE_DAYS`]. Anything
    /// else (a rated game of a few milliseconds) is refused. Ratings measure the federation's
    /// game: a rated game under other rules is refused too (docs/online.md, "Ratings").
    pub fn check(&self) -> Result<(), ApiError> {
        if self.rated && self.rules != RuleSet::default() {
            return Err(ApiError::BadRequest(format!(
                "variant: games under '{}' are casual only: ratings count the federation's \
                 rules ('{}'); ask for rated=false",
                self.rules.name(),
                variant::STANDARD
            )));
        }
        if let Some(days) = self.days_per_turn() {
            return NewGame::correspondence(days, self.rated, self.chat).map(|_| ());
        }
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
    users: StdMutex<HashMap<i64, broadcast::Sender<Arc<UserEvent>>>>,
    lobby: StdMutex<Lobby>,
    /// Open event streams per player on this process (see [`lobby::Listening`]).
    listeners: StdMutex<HashMap<i64, lobby::Listener>>,
    /// Open game WebSockets per player on this process (see [`players::Presence`]).
    present: StdMutex<HashMap<i64, usize>>,
    /// Every game that ends on this process, for the service's own listeners.
    finished: broadcast::Sender<GameFinished>,
    /// Every turn of a correspondence game that begins on this process (see
    /// [`messages::YourTurn`]).
    turns: broadcast::Sender<messages::YourTurn>,
    /// Every account's events on this node, for the front ends that tell people elsewhere.
    every_user: broadcast::Sender<(i64, Arc<UserEvent>)>,
    /// Set when this process is one of several (`--pubsub`).
    cluster: Option<Cluster>,
    /// The Mini App log-ins used on this process (see [`init_data::UsedInitData`]).
    used_init_data: init_data::UsedInitData,
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
    match text {
        None | Some("") => Ok(None),
        Some(t) if t.eq_ignore_ascii_case("random") => Ok(None),
        Some(t) => Color::from_name(t).map(Some).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "color '{}' is not white, black or random",
                t.to_ascii_lowercase()
            ))
        }),
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

/// A new id (of a game, a tournament): 8 random characters from letters and digits (about 47
/// bits), so that links cannot be guessed.
pub fn new_game_id() -> Result<String, ApiError> {
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
        Online::with_cluster(db, config, None)
    }

    fn with_cluster(db: OnlineDb, config: OnlineConfig, cluster: Option<Cluster>) -> Online {
        Online {
            inner: Arc::new(Inner {
                accounts: match cluster {
                    Some(_) => Accounts::new(db.clone()).shared(),
                    None => Accounts::new(db.clone()),
                },
                db,
                config,
                tables: StdMutex::new(HashMap::new()),
                users: StdMutex::new(HashMap::new()),
                lobby: StdMutex::new(Lobby::default()),
                listeners: StdMutex::new(HashMap::new()),
                present: StdMutex::new(HashMap::new()),
                finished: broadcast::channel(EVENT_BUFFER).0,
                turns: broadcast::channel(EVENT_BUFFER).0,
                every_user: broadcast::channel(EVERY_USER_BUFFER).0,
                cluster,
                used_init_data: init_data::UsedInitData::default(),
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
        let Some(pg) = db.postgres() else {
            return Err(ClusterError::NeedsPostgres);
        };
        let (cluster, client, outbox) = Cluster::connect(redis_url, pg.clone(), cluster).await?;
        let online = Online::with_cluster(db, config, Some(cluster));
        cluster::start(Arc::downgrade(&online.inner), client, outbox);
        Ok(online)
    }

    /// This process's id among several (none when it is alone).
    pub fn node(&self) -> Option<&str> {
        self.inner.cluster.as_ref().map(|c| c.node.as_str())
    }

    /// A new table's event channel: in a cluster, the one this node's watchers of the game
    /// listen to whoever owns it.
    fn new_channel(&self, id: &str) -> broadcast::Sender<Arc<Outgoing>> {
        match &self.inner.cluster {
            Some(c) => c.channel(id),
            None => broadcast::channel(EVENT_BUFFER).0,
        }
    }

    /// Sends `message` to every watcher of `table` but the side it is hidden from, on every
    /// node.
    fn emit(&self, table: &Table, message: GameMessage, hidden_from: Option<Color>) {
        let out = Outgoing::new(message, hidden_from);
        if let Some(c) = &self.inner.cluster {
            c.publish_game(&table.id, &out);
        }
        let _ = table.events.send(out);
    }

    /// A service with its database in memory (tests).
    pub fn in_memory() -> Online {
        Online::new(OnlineDb::in_memory(), OnlineConfig::default())
    }

    /// Accounts.
    pub fn accounts(&self) -> &Accounts {
        &self.inner.accounts
    }

    /// The Mini App log-ins used on this process, each taken once.
    pub fn used_init_data(&self) -> &init_data::UsedInitData {
        &self.inner.used_init_data
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
    pub fn user_events(&self, user: i64) -> broadcast::Receiver<Arc<UserEvent>> {
        let mut users = lock(&self.inner.users);
        users
            .entry(user)
            .or_insert_with(|| broadcast::channel(EVENT_BUFFER).0)
            .subscribe()
    }

    /// Tells `user` about something (nothing happens if nobody listens), on every node.
    pub fn notify(&self, user: i64, event: UserEvent) {
        match &self.inner.cluster {
            Some(c) => c.publish_user(user, &event),
            None => self.notify_here(user, event),
        }
    }

    /// Tells `user`'s listeners on this node.
    fn notify_here(&self, user: i64, event: UserEvent) {
        let event = Arc::new(event);
        let _ = self.inner.every_user.send((user, event.clone()));
        let users = lock(&self.inner.users);
        if let Some(tx) = users.get(&user) {
            let _ = tx.send(event);
        }
    }

    /// Every account's events from now on (a game started or ended, a challenge), with the
    /// account's id: a front end that reaches people elsewhere (the Telegram bot) tells its
    /// linked users from it. In a cluster every process hears every account's events.
    pub fn every_user_event(&self) -> broadcast::Receiver<(i64, Arc<UserEvent>)> {
        self.inner.every_user.subscribe()
    }

    /// Sends the current state to every watcher of `table`.
    fn publish(&self, table: &Table, state: &TableState) {
        let message = GameMessage::GameState(Box::new(state.state(Instant::now())));
        self.emit(table, message, None);
    }

    /// A connection of `side` to game `id` opened or closed: a player with no connection
    /// left is marked gone, and the opponent may claim after a while.
    pub async fn connected(&self, id: &str, side: Color, open: bool) {
        let _ = self
            .execute(id, None, Command::Presence { side, open }, false)
            .await;
    }

    /// A measured round trip of `side`'s connection to game `id` (lag compensation).
    pub async fn lag(&self, id: &str, side: Color, rtt: Duration) {
        let rtt_ms = rtt.as_millis().min(60_000) as u64;
        let _ = self
            .execute(id, None, Command::Lag { side, rtt_ms }, false)
            .await;
    }
}
