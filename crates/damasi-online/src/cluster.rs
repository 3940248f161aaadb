//! Several server processes ("nodes") behind one address, sharing one PostgreSQL database and
//! one Redis server (`damasi serve --database postgres://... --pubsub redis://...`).
//!
//! - **Ownership.** Each game has one owner node at a time: the one that holds its lease, a
//!   `game_owners` row (node id, expiry) taken with an upsert that only wins when the row is
//!   free, expired or already this node's (the row lock makes two nodes never both win). The
//!   owner keeps the game in memory, runs its clock and timers and applies its moves; it
//!   renews its leases every [`ClusterConfig::renew_every`]. A move, an end or a takeback is
//!   stored only while the lease is held (checked in the same transaction), so a node that
//!   lost its lease cannot write over the new owner. A node that dies loses its leases when
//!   they expire; the others look for such games on every renewal and one of them takes each
//!   over, loading it from the database with its clocks (the current turn timed from its
//!   saved start, so the time the owner was gone counts).
//! - **Forwarding.** A request for a game reaching another node takes the lease if it is
//!   free, else is sent to the owner on its Redis channel `damasi:n:{node}` and waits for the
//!   reply (an owner that does not answer in time is asked again, or replaced once its lease
//!   expires).
//! - **Events.** The owner publishes every event of a game on `damasi:g:{id}` and events for a
//!   player (`gameStart`, `gameFinish`) on `damasi:u:{id}`; every node relays them to its own
//!   WebSockets and streams.
//! - **The lobby** (seeks and pools) is one row of the database, changed under its row lock,
//!   so players on different nodes pair up and one node pairs at a time.
//! - **Roles** one node plays at a time (the Telegram bot's polling) are leases in that
//!   shared state too ([`Online::hold_role`]); correspondence games' turns go to every node
//!   on `damasi:turns`, so the bot hears the turns of games kept elsewhere, and every game's
//!   end goes to every node on `damasi:finished`, so the tournament director hears the end of
//!   a game of its round that another node kept (after a takeover, say).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex, Weak};
use std::time::Duration;

use damasi::Color;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::error::ApiError;
use crate::now_ms;

use super::accounts::Player;
use super::command::Command;
use super::db::PostgresDb;
use super::messages::{GameMessage, UserEvent};
use super::{lock, Inner, Online, Outgoing, Table, EVENT_BUFFER};
use tokio::time::Instant;

/// Timings of a cluster.
#[derive(Clone, Copy, Debug)]
pub struct ClusterConfig {
    /// How long a lease lasts without renewal: a dead node's games are taken over this long
    /// after its last renewal.
    pub lease: Duration,
    /// How often leases are renewed and orphaned games looked for.
    pub renew_every: Duration,
    /// How long a forwarded request waits for the owner's reply before asking again.
    pub reply_timeout: Duration,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            lease: Duration::from_secs(10),
            renew_every: Duration::from_secs(3),
            reply_timeout: Duration::from_secs(3),
        }
    }
}

/// Errors setting a cluster up.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The Redis server could not be reached.
    #[error("cannot connect to Redis at {url}: {source}")]
    Redis {
        /// The address given.
        url: String,
        /// Why.
        source: redis::RedisError,
    },
    /// Several processes need a shared database.
    #[error("several server processes need --database postgres://...: SQLite is one process's")]
    NeedsPostgres,
}

fn answer_wanted() -> bool {
    true
}

/// A request to a game's owner.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "k", rename_all = "camelCase")]
pub(super) enum Request {
    /// Run a command (see [`super::command`]) for `by` (none: the service).
    Run {
        /// Who sends it.
        by: Option<Player>,
        /// What.
        cmd: Command,
        /// Whether the sender wants the answer (else only a refusal comes back).
        #[serde(default = "answer_wanted")]
        reply: bool,
    },
    /// `gameFull` with `you` for this viewer.
    Full {
        /// Who looks.
        viewer: Option<Player>,
    },
    /// The current `gameState`.
    State,
}

#[derive(Serialize, Deserialize)]
struct Wire {
    /// `req` or `rep`.
    k: String,
    rid: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    game: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    req: Option<Request>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ok: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    err: Option<Value>,
}

/// An error as sent between nodes.
fn error_to_wire(e: &ApiError) -> Value {
    let kind = match e {
        ApiError::BadRequest(_) => "bad-request",
        ApiError::BadMove { .. } => "bad-move",
        ApiError::NotFound(_) => "not-found",
        ApiError::Forbidden { .. } => "forbidden",
        ApiError::Conflict { .. } => "conflict",
        // A log-in is answered by the process it reached: never sent between nodes.
        ApiError::Unauthorized(_) | ApiError::LogInRefused { .. } => "unauthorized",
        ApiError::TooMany(_) => "too-many",
        ApiError::Limited { .. } => "limited",
        ApiError::Busy(_) => "busy",
        ApiError::Overloaded(_) => "overloaded",
        ApiError::NotHere(_) => "not-here",
        ApiError::Internal(_) => "internal",
    };
    let mut v = json!({"kind": kind, "code": e.code(), "message": e.message()});
    match e {
        ApiError::BadMove {
            options, ambiguous, ..
        } => {
            v["options"] = json!(options);
            v["ambiguous"] = json!(ambiguous);
        }
        ApiError::Conflict { params, .. } => v["params"] = params.clone(),
        ApiError::Limited { retry_after, .. } => v["retryAfter"] = json!(retry_after),
        _ => {}
    }
    v
}

/// Error codes are `&'static str`: a code from another node is kept once (they are few, and
/// come only from this program's nodes).
fn intern(code: &str) -> &'static str {
    static CODES: StdMutex<Vec<&'static str>> = StdMutex::new(Vec::new());
    let mut codes = lock(&CODES);
    if let Some(c) = codes.iter().find(|c| **c == code) {
        return c;
    }
    let c: &'static str = Box::leak(code.to_string().into_boxed_str());
    codes.push(c);
    c
}

fn error_from_wire(v: &Value) -> ApiError {
    let text = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    let message = text("message");
    match v["kind"].as_str().unwrap_or_default() {
        "bad-request" => ApiError::BadRequest(message),
        "bad-move" => ApiError::BadMove {
            message,
            options: serde_json::from_value(v["options"].clone()).unwrap_or_default(),
            ambiguous: v["ambiguous"].as_bool().unwrap_or(false),
        },
        "not-found" => ApiError::NotFound(message),
        "forbidden" => ApiError::Forbidden {
            code: intern(&text("code")),
            message,
        },
        "conflict" => ApiError::Conflict {
            code: intern(&text("code")),
            message,
            params: v["params"].clone(),
        },
        "unauthorized" => ApiError::Unauthorized(message),
        "too-many" => ApiError::TooMany(message),
        // Its own code and wait, so the client hears what the owner said (`Retry-After`).
        "limited" => ApiError::Limited {
            code: intern(&text("code")),
            message,
            retry_after: v["retryAfter"].as_u64(),
        },
        "busy" => ApiError::Busy(message),
        "overloaded" => ApiError::Overloaded(message),
        "not-here" => ApiError::NotHere(message),
        _ => ApiError::Internal(format!("from the game's owner: {message}")),
    }
}

/// What a node needs to be one of several.
pub struct Cluster {
    /// This node's id (random, new at every start).
    pub node: String,
    pub(super) db: PostgresDb,
    pub(super) config: ClusterConfig,
    outbox: mpsc::UnboundedSender<(String, String)>,
    next_rid: AtomicU64,
    pending: StdMutex<HashMap<u64, oneshot::Sender<Result<Value, ApiError>>>>,
    /// Per game: the local channel every watcher on this node listens to.
    relays: StdMutex<HashMap<String, broadcast::Sender<Arc<Outgoing>>>>,
    /// Per game owned elsewhere: the owner last seen, so forwarding needs no database query.
    owners: StdMutex<HashMap<String, String>>,
    /// Whether this node's Redis subscriptions are live (see [`Online::hears_the_cluster`]).
    listening: tokio::sync::watch::Sender<bool>,
}

/// The channel of game `id`'s events.
fn game_channel(id: &str) -> String {
    format!("damasi:g:{id}")
}

/// The channel of a player's events.
fn user_channel(user: i64) -> String {
    format!("damasi:u:{user}")
}

/// The channel of requests and replies to `node`.
fn node_channel(node: &str) -> String {
    format!("damasi:n:{node}")
}

fn new_node_id() -> String {
    let mut b = [0u8; 8];
    let _ = getrandom::fill(&mut b);
    crate::hex(&b)
}

impl Cluster {
    /// Connects to Redis at `url` and gets ready to publish (the subscriptions start with
    /// [`start`]).
    pub(super) async fn connect(
        url: &str,
        db: PostgresDb,
        config: ClusterConfig,
    ) -> Result<
        (
            Cluster,
            redis::Client,
            mpsc::UnboundedReceiver<(String, String)>,
        ),
        ClusterError,
    > {
        let redis_error = |source| ClusterError::Redis {
            url: url.to_string(),
            source,
        };
        let client = redis::Client::open(url).map_err(redis_error)?;
        // Fail at start, not at the first move, when Redis is not there.
        client
            .get_multiplexed_async_connection()
            .await
            .map_err(redis_error)?;
        let node = new_node_id();
        db.fence_with(&node);
        let (outbox, rx) = mpsc::unbounded_channel();
        Ok((
            Cluster {
                node,
                db,
                config,
                outbox,
                next_rid: AtomicU64::new(1),
                pending: StdMutex::new(HashMap::new()),
                relays: StdMutex::new(HashMap::new()),
                owners: StdMutex::new(HashMap::new()),
                listening: tokio::sync::watch::channel(false).0,
            },
            client,
            rx,
        ))
    }

    /// The lease's expiry if taken now.
    fn until(&self) -> i64 {
        now_ms() + self.config.lease.as_millis() as i64
    }

    /// Takes or renews game `id`'s lease; answers its owner after the attempt (none: no such
    /// game).
    pub(super) async fn acquire(&self, id: &str) -> Result<Option<String>, ApiError> {
        self.db
            .acquire(id, &self.node, self.until(), now_ms())
            .await
    }

    /// Gives game `id`'s lease up.
    pub(super) async fn release(&self, id: &str) {
        if let Err(e) = self.db.release(id, &self.node).await {
            eprintln!("damasi: cannot release game {id}: {e:?}");
        }
    }

    /// The owner of game `id` last seen, if another node.
    pub(super) fn cached_owner(&self, id: &str) -> Option<String> {
        lock(&self.owners).get(id).cloned()
    }

    /// Remembers (`Some`) or forgets the owner of game `id`.
    pub(super) fn cache_owner(&self, id: &str, owner: Option<&str>) {
        let mut owners = lock(&self.owners);
        match owner {
            Some(o) => {
                if owners.len() >= 10_000 {
                    owners.clear();
                }
                owners.insert(id.to_string(), o.to_string());
            }
            None => {
                owners.remove(id);
            }
        }
    }

    /// The local channel of game `id` (made on first use).
    pub(super) fn channel(&self, id: &str) -> broadcast::Sender<Arc<Outgoing>> {
        lock(&self.relays)
            .entry(id.to_string())
            .or_insert_with(|| broadcast::channel(EVENT_BUFFER).0)
            .clone()
    }

    /// Forgets the channels nobody on this node listens to, but those of `keep`.
    pub(super) fn tidy(&self, keep: &dyn Fn(&str) -> bool) {
        lock(&self.relays).retain(|id, tx| tx.receiver_count() > 0 || keep(id));
    }

    /// Sends `out`, a message of game `id`, to the other nodes (in order).
    pub(super) fn publish_game(&self, id: &str, out: &Outgoing) {
        let envelope = Envelope {
            o: self.node.clone(),
            e: &out.message,
            h: out.hidden_from.map(|c| c.name().to_string()),
        };
        let payload = serde_json::to_string(&envelope).expect("a message serializes");
        let _ = self.outbox.send((game_channel(id), payload));
    }

    /// Sends `event` to `user`'s listeners on every node (this one included).
    pub(super) fn publish_user(&self, user: i64, event: &UserEvent) {
        let envelope = Envelope {
            o: self.node.clone(),
            e: event,
            h: None,
        };
        let payload = serde_json::to_string(&envelope).expect("an event serializes");
        let _ = self.outbox.send((user_channel(user), payload));
    }

    /// Sends a correspondence game's turn to the other nodes' listeners (see
    /// [`crate::messages::YourTurn`]).
    pub(super) fn publish_turn(&self, turn: &crate::messages::YourTurn) {
        let payload = json!({"o": self.node, "e": turn}).to_string();
        let _ = self.outbox.send((TURNS_CHANNEL.to_string(), payload));
    }

    /// Sends a game's end to the other nodes' listeners (see [`crate::messages::GameFinished`]).
    pub(super) fn publish_finished(&self, f: &crate::messages::GameFinished) {
        let event = json!({
            "id": f.id,
            "players": f.players,
            "outcome": f.outcome.map(|o| o.code()),
            "rated": f.rated,
        });
        let payload = json!({"o": self.node, "e": event}).to_string();
        let _ = self.outbox.send((FINISHED_CHANNEL.to_string(), payload));
    }

    /// Sends `cmd` about game `id` to `owner` and waits for its answer; `None` when no answer
    /// came in time.
    pub(super) async fn ask(
        &self,
        owner: &str,
        id: &str,
        request: Request,
    ) -> Option<Result<Value, ApiError>> {
        let rid = self.next_rid.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(rid, tx);
        let wire = Wire {
            k: "req".into(),
            rid,
            from: Some(self.node.clone()),
            game: Some(id.to_string()),
            req: Some(request),
            ok: None,
            err: None,
        };
        let payload = serde_json::to_string(&wire).unwrap_or_default();
        let _ = self.outbox.send((node_channel(owner), payload));
        let answer = tokio::time::timeout(self.config.reply_timeout, rx).await;
        lock(&self.pending).remove(&rid);
        match answer {
            Ok(Ok(r)) => Some(r),
            _ => None,
        }
    }

    fn reply(&self, to: &str, rid: u64, result: Result<Value, ApiError>) {
        let (ok, err) = match result {
            Ok(v) => (Some(v), None),
            Err(e) => (None, Some(error_to_wire(&e))),
        };
        let wire = Wire {
            k: "rep".into(),
            rid,
            from: None,
            game: None,
            req: None,
            ok,
            err,
        };
        let payload = serde_json::to_string(&wire).unwrap_or_default();
        let _ = self.outbox.send((node_channel(to), payload));
    }
}

/// Starts the node's background work: the publisher (one connection, messages in order),
/// the subscriber (events and requests), and the lease renewal with the takeover of orphaned
/// games.
pub(super) fn start(
    inner: Weak<Inner>,
    client: redis::Client,
    outbox: mpsc::UnboundedReceiver<(String, String)>,
) {
    tokio::spawn(publisher(client.clone(), outbox));
    tokio::spawn(subscriber(inner.clone(), client));
    tokio::spawn(renewer(inner));
}

async fn publisher(client: redis::Client, mut outbox: mpsc::UnboundedReceiver<(String, String)>) {
    let mut conn = None;
    let mut batch = Vec::new();
    while let Some(first) = outbox.recv().await {
        // Whatever has queued up meanwhile goes in one pipeline, in order.
        batch.clear();
        batch.push(first);
        while batch.len() < 256 {
            match outbox.try_recv() {
                Ok(m) => batch.push(m),
                Err(_) => break,
            }
        }
        let mut pipe = redis::pipe();
        for (channel, payload) in &batch {
            pipe.cmd("PUBLISH").arg(channel).arg(payload).ignore();
        }
        // Through a Redis outage the batch waits (and what comes meanwhile queues behind it),
        // so the other nodes get every event in order once it is back; an outage longer than
        // OUTAGE_KEPT drops the batch, and the other nodes resync when they reconnect.
        let since = tokio::time::Instant::now();
        // One line for the outage, not one per attempt (five a second).
        let mut said = false;
        loop {
            if conn.is_none() {
                match client.get_multiplexed_async_connection().await {
                    Ok(c) => conn = Some(c),
                    Err(e) if !said => {
                        eprintln!(
                            "damasi: Redis: {e}; events wait for it (at most {} s)",
                            OUTAGE_KEPT.as_secs()
                        );
                        said = true;
                    }
                    Err(_) => {}
                }
            }
            if let Some(c) = conn.as_mut() {
                let sent: redis::RedisResult<()> = pipe.query_async(c).await;
                match sent {
                    Ok(()) => {
                        if said {
                            eprintln!(
                                "damasi: Redis is back after {:.1} s",
                                since.elapsed().as_secs_f64()
                            );
                        }
                        break;
                    }
                    Err(e) => {
                        if !said {
                            eprintln!("damasi: Redis publish: {e}");
                            said = true;
                        }
                        conn = None;
                    }
                }
            }
            if since.elapsed() >= OUTAGE_KEPT {
                eprintln!(
                    "damasi: Redis away for {} s: {} events dropped",
                    OUTAGE_KEPT.as_secs(),
                    batch.len()
                );
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// How long events wait for Redis to come back before they are dropped.
const OUTAGE_KEPT: Duration = Duration::from_secs(30);

/// How soon a lost subscription is tried again: after an outage a node hears the others (and
/// its watchers get the games' states) within this of Redis coming back.
const RESUBSCRIBE_EVERY: Duration = Duration::from_millis(250);

async fn subscriber(inner: Weak<Inner>, client: redis::Client) {
    let mut resync = false;
    // One line for the outage, not one per attempt.
    let mut said = false;
    loop {
        let Some(node) = inner
            .upgrade()
            .and_then(|i| i.cluster.as_ref().map(|c| c.node.clone()))
        else {
            return;
        };
        match subscribe_once(&inner, &client, &node, resync, &mut said).await {
            Ok(()) => return,
            Err(e) => {
                if !said {
                    eprintln!("damasi: Redis subscription: {e}; trying again until it is back");
                    said = true;
                }
                tokio::time::sleep(RESUBSCRIBE_EVERY).await;
            }
        }
        // Events sent while this node was not listening are lost to it: once subscribed
        // again, its watchers get each game's whole state.
        resync = true;
    }
}

async fn subscribe_once(
    inner: &Weak<Inner>,
    client: &redis::Client,
    node: &str,
    resync: bool,
    said: &mut bool,
) -> redis::RedisResult<()> {
    let mut pubsub = client.get_async_pubsub().await?;
    pubsub.psubscribe("damasi:g:*").await?;
    pubsub.psubscribe("damasi:u:*").await?;
    pubsub.subscribe(TURNS_CHANNEL).await?;
    pubsub.subscribe(FINISHED_CHANNEL).await?;
    pubsub.subscribe(node_channel(node)).await?;
    if let Some(cluster) = inner.upgrade().as_ref().and_then(|i| i.cluster.as_ref()) {
        cluster.listening.send_replace(true);
    }
    if std::mem::take(said) {
        eprintln!("damasi: Redis subscription back");
    }
    if resync {
        if let Some(inner) = inner.upgrade() {
            tokio::spawn(resync_watchers(Online { inner }));
        }
    }
    let mut messages = pubsub.on_message();
    while let Some(msg) = messages.next().await {
        let Some(inner) = inner.upgrade() else {
            return Ok(());
        };
        let online = Online { inner };
        let Ok(payload) = msg.get_payload::<String>() else {
            continue;
        };
        let channel = msg.get_channel_name();
        if let Some(id) = channel.strip_prefix("damasi:g:") {
            relay_game(&online, id, &payload);
        } else if channel == TURNS_CHANNEL {
            relay_turn(&online, &payload);
        } else if channel == FINISHED_CHANNEL {
            relay_finished(&online, &payload);
        } else if let Some(user) = channel.strip_prefix("damasi:u:") {
            match (
                user.parse(),
                serde_json::from_str::<Envelope<UserEvent>>(&payload),
            ) {
                (Ok(user), Ok(envelope)) => online.notify_here(user, envelope.e),
                (_, Err(e)) => eprintln!("damasi: an unreadable user event from Redis: {e}"),
                (Err(_), _) => {}
            }
        } else if let Ok(wire) = serde_json::from_str::<Wire>(&payload) {
            handle_wire(online, wire);
        }
    }
    if let Some(cluster) = inner.upgrade().as_ref().and_then(|i| i.cluster.as_ref()) {
        cluster.listening.send_replace(false);
    }
    Err(redis::RedisError::from(std::io::Error::new(
        std::io::ErrorKind::ConnectionAborted,
        "the subscription ended",
    )))
}

/// Sends every game watched on this node but kept by another its current state (after this
/// node missed events): sockets and streams pass it on, and pages and programs catch up.
async fn resync_watchers(online: Online) {
    let Some(cluster) = online.inner.cluster.as_ref() else {
        return;
    };
    let watched: Vec<(String, broadcast::Sender<Arc<Outgoing>>)> = lock(&cluster.relays)
        .iter()
        .filter(|(_, tx)| tx.receiver_count() > 0)
        .map(|(id, tx)| (id.clone(), tx.clone()))
        .collect();
    for (id, tx) in watched {
        if lock(&online.inner.tables).contains_key(&id) {
            continue; // kept here: its watchers heard everything
        }
        match online.snapshot(&id).await {
            Ok(state) => {
                let _ = tx.send(Outgoing::new(GameMessage::GameState(Box::new(state)), None));
            }
            Err(e) => eprintln!("damasi: cannot resync game {id}: {e:?}"),
        }
    }
}

/// An event of game `id` from another node, for this node's watchers.
fn relay_game(online: &Online, id: &str, payload: &str) {
    let Some(cluster) = online.inner.cluster.as_ref() else {
        return;
    };
    let envelope = match serde_json::from_str::<Envelope<GameMessage>>(payload) {
        Ok(envelope) if envelope.o == cluster.node => return,
        Ok(envelope) => envelope,
        Err(e) => {
            eprintln!("damasi: an unreadable message of game {id} from Redis: {e}");
            return;
        }
    };
    let tx = lock(&cluster.relays).get(id).cloned();
    if let Some(tx) = tx {
        let hidden_from = envelope.h.as_deref().and_then(Color::from_name);
        let _ = tx.send(Outgoing::new(envelope.e, hidden_from));
    }
}

/// A message as a reply between nodes carries it.
fn to_wire(message: GameMessage) -> Value {
    serde_json::to_value(message).expect("a message serializes")
}

/// What goes between nodes on a Redis channel: the node that sent it (`o`), what it carries
/// (`e`), and for a game's message the side it is hidden from (`h`).
#[derive(Serialize, Deserialize)]
struct Envelope<T> {
    o: String,
    e: T,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    h: Option<String>,
}

/// The event (`e`) a payload `{o: node, e: event}` carries when another node sent it, with
/// this node's cluster; none for this node's own (already told here) or a payload unread.
fn from_elsewhere<'a>(online: &'a Online, payload: &str) -> Option<(&'a Cluster, Value)> {
    let cluster = online.inner.cluster.as_ref()?;
    let mut v = serde_json::from_str::<Value>(payload).ok()?;
    if v["o"].as_str() == Some(cluster.node.as_str()) {
        return None;
    }
    Some((cluster, v["e"].take()))
}

/// A correspondence game's turn on another node, for this node's listeners.
fn relay_turn(online: &Online, payload: &str) {
    let Some((_, turn)) = from_elsewhere(online, payload) else {
        return;
    };
    match serde_json::from_value(turn) {
        Ok(turn) => {
            let _ = online.inner.turns.send(turn);
        }
        Err(e) => eprintln!("damasi: an unreadable turn from another process: {e}"),
    }
}

/// The Redis channel of correspondence games' turns.
const TURNS_CHANNEL: &str = "damasi:turns";

/// The Redis channel of every game's end.
const FINISHED_CHANNEL: &str = "damasi:finished";

/// A game's end on another node, for this node's listeners (the tournament director).
fn relay_finished(online: &Online, payload: &str) {
    let Some((_, e)) = from_elsewhere(online, payload) else {
        return;
    };
    let (Some(id), Ok(players)) = (
        e["id"].as_str(),
        serde_json::from_value::<[Option<i64>; 2]>(e["players"].clone()),
    ) else {
        eprintln!("damasi: an unreadable game end from another process: {e}");
        return;
    };
    let _ = online.inner.finished.send(crate::messages::GameFinished {
        id: id.to_string(),
        players,
        outcome: e["outcome"].as_str().and_then(|o| o.parse().ok()),
        rated: e["rated"].as_bool().unwrap_or(false),
    });
}

/// Who plays a role (see [`Online::hold_role`]), as stored.
#[derive(Serialize, Deserialize)]
struct RoleHolder {
    node: String,
    until_ms: i64,
}

fn handle_wire(online: Online, wire: Wire) {
    let Some(cluster) = online.inner.cluster.as_ref() else {
        return;
    };
    if wire.k == "rep" {
        let waiting = lock(&cluster.pending).remove(&wire.rid);
        if let Some(tx) = waiting {
            let result = match (wire.ok, wire.err) {
                (_, Some(e)) => Err(error_from_wire(&e)),
                (ok, None) => Ok(ok.unwrap_or(Value::Null)),
            };
            let _ = tx.send(result);
        }
        return;
    }
    let (Some(from), Some(game), Some(request)) = (wire.from, wire.game, wire.req) else {
        return;
    };
    tokio::spawn(async move {
        let result = match request {
            Request::Run { by, cmd, reply } => {
                online.execute_here(&game, by.as_ref(), &cmd, reply).await
            }
            Request::Full { viewer } => online
                .full_here(&game, viewer.as_ref())
                .await
                .map(|full| to_wire(GameMessage::GameFull(Box::new(full)))),
            Request::State => online
                .state_here(&game)
                .await
                .map(|state| to_wire(GameMessage::GameState(Box::new(state)))),
        };
        if let Some(cluster) = online.inner.cluster.as_ref() {
            cluster.reply(&from, wire.rid, result);
        }
    });
}

async fn renewer(inner: Weak<Inner>) {
    let every = match inner
        .upgrade()
        .and_then(|i| i.cluster.as_ref().map(|c| c.config))
    {
        Some(c) => c.renew_every,
        None => return,
    };
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        let online = Online { inner };
        if let Err(e) = online.renew_leases().await {
            eprintln!("damasi: lease renewal: {e:?}");
        }
    }
}

/// Signals the caller to ask again (the owner changed or did not answer).
pub(super) const NOT_OWNER: &str = "not-owner";

/// The error a node answers when it does not own the game asked about.
pub(super) fn not_owner(id: &str) -> ApiError {
    ApiError::Busy(format!(
        "{NOT_OWNER}: game {id} is looked after by another process"
    ))
}

/// Whether `e` is [`not_owner`]'s.
pub(super) fn is_not_owner(e: &ApiError) -> bool {
    matches!(e, ApiError::Busy(m) if m.starts_with(NOT_OWNER))
}

/// Forwarding and leases: the parts of the service that only matter among several processes.
impl Online {
    /// Waits (at most `limit`) until this node hears the other nodes (its Redis subscriptions
    /// are live: they begin in the background when the node starts, and again after an
    /// outage); answers whether it does. A process alone hears everything at once. The
    /// tournament director waits for it before resuming, so that no game's end is missed
    /// between its start and its first tick.
    pub async fn hears_the_cluster(&self, limit: Duration) -> bool {
        let Some(cluster) = self.inner.cluster.as_ref() else {
            return true;
        };
        let mut live = cluster.listening.subscribe();
        tokio::time::timeout(limit, live.wait_for(|l| *l))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// In a cluster, sends `cmd` about game `id` to its owner when that is another node and
    /// answers its reply; `None` when this node owns the game (or has just taken it over, or
    /// the id is not a game's), so the caller does the work here.
    pub(super) async fn forward(
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
                    Some(Err(e)) if is_not_owner(&e) => cluster.cache_owner(id, None),
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

    /// Renews this node's leases, forgets the games whose lease it lost, and takes over the
    /// games nobody looks after (cluster only).
    pub(super) async fn renew_leases(&self) -> Result<(), ApiError> {
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
                "damasi: game {} is now looked after by another process",
                t.id
            );
            if let Some(timer) = lock(&t.timer).take() {
                timer.abort();
            }
        }
        self.take_orphans().await?;
        Ok(())
    }

    /// Takes or keeps the role `name` for one lease ([`ClusterConfig::lease`]) and answers
    /// whether this process plays it: a role only one process of a cluster plays at a time
    /// (the Telegram bot, which Telegram lets only one client poll). It is a row of the
    /// shared state taken under its lock when it is free, expired or already this process's,
    /// so two processes never both hold it; its holder calls again every
    /// [`Online::role_renew_every`], the others as often to take it over once the holder is
    /// gone. A process that is not part of a cluster plays every role.
    pub async fn hold_role(&self, name: &str) -> Result<bool, ApiError> {
        let Some(cluster) = &self.inner.cluster else {
            return Ok(true);
        };
        let now = now_ms();
        let mine = RoleHolder {
            node: cluster.node.clone(),
            until_ms: now + cluster.config.lease.as_millis() as i64,
        };
        cluster
            .db
            .update_shared(&format!("role:{name}"), |text| {
                match serde_json::from_str::<RoleHolder>(text) {
                    Ok(h) if h.node != mine.node && h.until_ms > now => false,
                    _ => {
                        *text = serde_json::to_string(&mine).unwrap_or_default();
                        true
                    }
                }
            })
            .await
    }

    /// How often a role is renewed, and tried by those waiting for it ([`Online::hold_role`]).
    pub fn role_renew_every(&self) -> Duration {
        self.inner
            .cluster
            .as_ref()
            .map_or(ClusterConfig::default().renew_every, |c| {
                c.config.renew_every
            })
    }

    /// Takes over the games being played whose owner is gone; answers how many.
    pub(super) async fn take_orphans(&self) -> Result<usize, ApiError> {
        let Some(cluster) = &self.inner.cluster else {
            return Ok(0);
        };
        let mut taken = 0;
        for id in cluster.db.orphans(now_ms()).await? {
            match self.table(&id).await {
                Ok(_) => taken += 1,
                Err(e) if is_not_owner(&e) => {}
                Err(e) => eprintln!("damasi: cannot take game {id} over: {e:?}"),
            }
        }
        Ok(taken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_cross_between_processes_with_their_codes_and_waits() {
        let limited = ApiError::Limited {
            code: "offer-too-soon",
            message: "a draw offer may be made again in 4 s".into(),
            retry_after: Some(4),
        };
        let back = error_from_wire(&error_to_wire(&limited));
        assert_eq!(
            (back.code(), back.message()),
            ("offer-too-soon", limited.message())
        );
        assert!(matches!(
            back,
            ApiError::Limited {
                retry_after: Some(4),
                ..
            }
        ));
        let too_many = ApiError::TooMany("at most 3 open seeks each".into());
        let back = error_from_wire(&error_to_wire(&too_many));
        assert_eq!(
            (back.code(), back.message()),
            ("rate-limited", "at most 3 open seeks each")
        );
    }
}
