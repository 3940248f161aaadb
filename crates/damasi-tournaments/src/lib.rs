//! damasi's tournaments, beside the online core and with no HTTP in them: Swiss events paired
//! by the FIDE Dutch system as the federation runs them, round robins paired by FIDE's Berger
//! tables (a Swiss event of another [`swiss::System`]: the same director, storage and views),
//! and arenas.
//!
//! - [`swiss`]: a Swiss tournament's (or a round robin's) state and rules (entries, rounds,
//!   byes, forfeits), pure; beside it in its folder, the director's side of it
//!   (`swiss/director.rs`) and its report (`swiss/report.rs`: views and TRF).
//! - [`tiebreak`]: standings with FIDE's tie-breaks.
//! - [`arena`]: an arena's state and rules (lichess's scoring, pairing the free players), pure;
//!   the director's side in `arena/director.rs`.
//! - [`Tournaments`]: the director (this file: what both kinds share). It makes each round's
//!   games in the online service, listens to games finishing
//!   ([`damasi_online::Online::finished_games`]; it never reaches into the game code), makes
//!   every change through one commit that stores it before announcing it (or leaves the
//!   tournament as it was), pairs the next round when one is complete, and picks up where it
//!   was after a restart.
//!
//! The web app (`damasi-web`) is its edge: the pages, the lichess-shaped API
//! (`/api/swiss/...`) and the live standings over a WebSocket.

pub mod arena;
mod entry;
pub mod limits;
pub mod swiss;
pub mod tiebreak;

pub use arena::{arena_results, arena_view, NewArena};
pub use swiss::{export_trf, import_swiss, results, stored_swiss, summary, view};

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use damasi::{Color, Outcome};
use damasi_online::accounts::Player;
use damasi_online::db::{OnlineDb, TournamentFilter, TournamentRow};
use damasi_online::error::ApiError;
use damasi_online::{new_game_id, now_ms, NewGame, Online};
use damasi_swiss::Colour;
use serde_json::{json, Value};
use tokio::sync::{broadcast, Mutex};

use swiss::{points, BoardResult, Entry, Status, Swiss, SwissError, SwissSettings};

/// How often the director looks for a tournament to start or a round to pair.
const TICK: Duration = Duration::from_millis(500);

/// How long [`Tournaments::run`] waits for a cluster's messages before it resumes all the same.
const LISTENING_WAIT: Duration = Duration::from_secs(5);

/// Updates kept per watcher of a tournament before a slow one misses some (it then gets the
/// whole state again).
const UPDATE_BUFFER: usize = 16;

/// [`SwissError`] as the service's error.
fn api(e: SwissError) -> ApiError {
    match e {
        SwissError::Invalid(m) => ApiError::BadRequest(m),
        SwissError::Refused(code, m) => ApiError::conflict(code, m),
        SwissError::Pairing(m) => ApiError::conflict("no-pairing", m),
    }
}

/// One tournament being run (a [`Swiss`] or an [`arena::Arena`]): its state behind a lock,
/// its watchers, and its view as last stored, which pages and the API read without waiting
/// for the lock (held while a large round is paired).
struct Event<T> {
    state: Mutex<T>,
    updates: broadcast::Sender<Arc<Value>>,
    view: StdMutex<Arc<Value>>,
    /// The organiser's account (counted in [`limits::OPEN_PER_ACCOUNT`]).
    organiser: i64,
    /// Whether a round is being paired (the organiser's button answered before it is done).
    pairing: AtomicBool,
}

impl<T> Event<T> {
    fn new(state: T, view: Value, organiser: i64) -> Arc<Event<T>> {
        Arc::new(Event {
            view: StdMutex::new(Arc::new(view)),
            state: Mutex::new(state),
            updates: broadcast::channel(UPDATE_BUFFER).0,
            organiser,
            pairing: AtomicBool::new(false),
        })
    }

    /// Whether the tournament is not finished, as last stored.
    fn open(&self) -> bool {
        self.view()["status"] != "finished"
    }

    fn view(&self) -> Arc<Value> {
        lock(&self.view).clone()
    }

    /// Keeps `view` as the last one and sends it to the watchers.
    fn publish(&self, view: Value) {
        let v = Arc::new(view);
        *lock(&self.view) = v.clone();
        let _ = self.updates.send(v);
    }
}

struct Inner {
    online: Online,
    events: StdMutex<HashMap<String, Arc<Event<Swiss>>>>,
    /// The arenas in memory.
    arenas: StdMutex<HashMap<String, Arc<Event<arena::Arena>>>>,
    /// Which tournament each game in play belongs to.
    games: StdMutex<HashMap<String, String>>,
    /// Whether [`Tournaments::run`] has begun.
    running: AtomicBool,
    /// Set by [`Tournaments::stop`]: nothing more is done.
    stopped: AtomicBool,
    /// Whether this process directs tournaments (see [`Tournaments::elsewhere`]).
    here: bool,
    /// What one account or address may ask for in a while.
    limits: limits::Limits,
}

/// The tournament director; cheap to clone.
#[derive(Clone)]
pub struct Tournaments {
    inner: Arc<Inner>,
}

fn lock<T>(m: &StdMutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What [`Tournaments::begin_next_round`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Begun {
    /// The round is being paired; its games follow.
    Pairing,
    /// Nothing was left to pair: the tournament's status now.
    Done(Status),
}

/// What an organiser asks for (the API's fields, already read).
#[derive(Clone, Debug)]
pub struct NewSwiss {
    /// The settings, with the password in clear (hashed here) if the entry needs one.
    pub settings: SwissSettings,
    /// The entry password, if any.
    pub password: Option<String>,
}

impl Tournaments {
    /// The director of `online`'s tournaments. Its work begins with [`Tournaments::run`] (or,
    /// for the tournaments asked for, with the first request).
    pub fn new(online: Online) -> Tournaments {
        Tournaments::with_here(online, true)
    }

    /// For a process of a cluster whose tournaments another process directs: every request
    /// is refused (503 `not-here`) and nothing is resumed, so two directors never pair the
    /// same round. The site's proxy sends the tournament routes to the one process that
    /// runs them (`damasi serve --tournaments`; see `docs/tournaments.md`).
    pub fn elsewhere(online: Online) -> Tournaments {
        Tournaments::with_here(online, false)
    }

    fn with_here(online: Online, here: bool) -> Tournaments {
        Tournaments {
            inner: Arc::new(Inner {
                online,
                events: StdMutex::new(HashMap::new()),
                arenas: StdMutex::new(HashMap::new()),
                games: StdMutex::new(HashMap::new()),
                running: AtomicBool::new(false),
                stopped: AtomicBool::new(false),
                here,
                limits: limits::Limits::new(),
            }),
        }
    }

    /// Starts listening to games finishing and looking at the clock (starts, rounds to
    /// pair), until the director is dropped, and loads the tournaments not finished.
    pub async fn run(&self) -> Result<(), ApiError> {
        if !self.inner.here {
            return Ok(());
        }
        // In a cluster, the other processes' game endings are heard from here on (those
        // missed meanwhile are read from the store on the first tick).
        if !self.inner.online.hears_the_cluster(LISTENING_WAIT).await {
            eprintln!("damasi: the tournament director does not hear the other processes yet");
        }
        self.listen()?;
        let rows = self
            .inner
            .online
            .db()
            .tournaments(TournamentFilter::Unfinished, 10_000)
            .await?;
        for row in rows {
            let resumed = if row.kind == "arena" {
                self.arena_event(&row.id).await.map(|_| ())
            } else {
                self.event(&row.id).await.map(|_| ())
            };
            if let Err(e) = resumed {
                eprintln!("damasi: cannot resume tournament {}: {e:?}", row.id);
            }
        }
        Ok(())
    }

    /// Starts the director's two tasks (once): games finishing, and the clock. Every way into
    /// a tournament passes here, so a process that does not direct them refuses here.
    fn listen(&self) -> Result<(), ApiError> {
        if !self.inner.here {
            return Err(ApiError::NotHere(
                "tournaments are run by another process of this server".into(),
            ));
        }
        if self.inner.running.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let mut finished = self.inner.online.finished_games();
        let weak = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            loop {
                let f = finished.recv().await;
                let Some(inner) = weak.upgrade() else { return };
                if inner.stopped.load(Ordering::SeqCst) {
                    return;
                }
                let t = Tournaments { inner };
                match f {
                    Ok(f) => t.game_over(&f.id, f.outcome).await,
                    Err(broadcast::error::RecvError::Lagged(_)) => t.check_games().await,
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        let weak = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(TICK);
            loop {
                ticks.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                if inner.stopped.load(Ordering::SeqCst) {
                    return;
                }
                Tournaments { inner }.tick().await;
            }
        });
        Ok(())
    }

    fn online(&self) -> &Online {
        &self.inner.online
    }

    /// Stores `s` and tells its watchers.
    async fn save<T: Stored>(&self, event: &Event<T>, s: &T) -> Result<(), ApiError> {
        self.online().db().save_tournament(s.row()?).await?;
        event.publish(s.view());
        Ok(())
    }

    /// `player` joins the tournament `id` of `event` (from the address `from`, with
    /// `password` if it needs one), Swiss or arena alike: the entry checked under the
    /// wrong-password limits, the rating of its speed class, the change committed.
    async fn enter<T: Stored>(
        &self,
        (id, event): (&str, &Event<T>),
        player: &Player,
        password: Option<&str>,
        from: Option<IpAddr>,
    ) -> Result<(), ApiError> {
        let mut s = event.state.lock().await;
        if player.bot && !s.allows_bots() {
            return Err(ApiError::Forbidden {
                code: "bots-not-allowed",
                message: format!(
                    "{} is a BOT account, and this tournament's organiser did not allow BOTs",
                    player.name
                ),
            });
        }
        let returning = s.returning(player.id);
        self.check_entry(id, player, s.entry(), returning, password, from)?;
        let (initial_ms, increment_ms) = s.control();
        let rating = entry::entry_rating(self.online(), player, initial_ms, increment_ms).await?;
        self.commit(event, &mut s, |s| s.enter(player, rating).map_err(api))
            .await
    }

    /// Changes the tournament with `change` and stores it, the one way its state changes on
    /// a request: if the change is refused or cannot be stored, the tournament stays as it
    /// was, in memory as in the store.
    async fn commit<T: Stored, R>(
        &self,
        event: &Event<T>,
        s: &mut T,
        change: impl FnOnce(&mut T) -> Result<R, ApiError>,
    ) -> Result<R, ApiError> {
        let before = s.clone();
        let done = match change(s) {
            Ok(done) => done,
            Err(e) => {
                *s = before;
                return Err(e);
            }
        };
        if let Err(e) = self.save(event, s).await {
            *s = before;
            return Err(e);
        }
        Ok(done)
    }

    /// Refuses a new tournament of `by` over the limits (429, see [`limits`]), else counts it.
    fn count_new(&self, by: &Player) -> Result<(), ApiError> {
        let open = lock(&self.inner.events)
            .values()
            .filter(|e| e.organiser == by.id && e.open())
            .count()
            + lock(&self.inner.arenas)
                .values()
                .filter(|e| e.organiser == by.id && e.open())
                .count();
        self.inner.limits.create(by.id, open)
    }

    /// Checks `player`'s entry to tournament `id` (see [`entry::check_join`]) under the
    /// wrong-password limits: refused (429) after too many wrong ones from the account for
    /// this tournament or from the address `from`; a wrong one counts.
    fn check_entry(
        &self,
        id: &str,
        player: &Player,
        (rated, entry): (bool, &Entry),
        known: bool,
        password: Option<&str>,
        from: Option<IpAddr>,
    ) -> Result<(), ApiError> {
        let guarded = matches!(entry, Entry::Password { .. }) && !known;
        if guarded {
            self.inner.limits.password_allowed(player.id, id, from)?;
        }
        let checked = entry::check_join(player, rated, entry, known, password);
        if guarded && matches!(&checked, Err(e) if e.code() == "wrong-password") {
            self.inner.limits.wrong_password(player.id, id, from);
        }
        checked
    }

    /// The newest tournaments (`filter`), Swiss and arenas (`kind`), as lists show them.
    pub async fn list(
        &self,
        filter: TournamentFilter<'_>,
        limit: i64,
    ) -> Result<Vec<Value>, ApiError> {
        let rows = self.online().db().tournaments(filter, limit).await?;
        Ok(rows.iter().filter_map(|r| listed(r, None)).collect())
    }

    /// The newest tournaments `user` entered (Swiss, round robins and arenas), at most
    /// `limit`, as lists show them, each with the player's own line as `player`: `rank`,
    /// `points` (a Swiss) or `score` and `games` (an arena), and `withdrawn` (a Swiss) or
    /// `paused` (an arena); `player` is null where they left before the start.
    pub async fn played_by(&self, user: i64, limit: i64) -> Result<Vec<Value>, ApiError> {
        let rows = self
            .online()
            .db()
            .tournaments(TournamentFilter::Player(user), limit)
            .await?;
        Ok(rows.iter().filter_map(|r| listed(r, Some(user))).collect())
    }

    async fn player(&self, user: i64) -> Result<Player, ApiError> {
        self.online()
            .db()
            .user(user)
            .await?
            .map(Player::from)
            .ok_or_else(|| ApiError::NotFound(format!("no account {user}")))
    }

    /// A game ended: its result counts in its tournament.
    async fn game_over(&self, game: &str, outcome: Option<Outcome>) {
        let Some(tid) = lock(&self.inner.games).get(game).cloned() else {
            return;
        };
        if lock(&self.inner.arenas).contains_key(&tid) {
            let plies = self.plies(game, outcome).await;
            self.arena_game_over(&tid, game, board_result(outcome, plies))
                .await;
            return;
        }
        let Ok(event) = self.event(&tid).await else {
            return;
        };
        let mut s = event.state.lock().await;
        if self.inner.stopped.load(Ordering::SeqCst) {
            return;
        }
        self.count_result(&event, &mut s, game, outcome).await;
    }

    /// Stops the director (as a server that shuts down): it handles nothing more, and this
    /// waits for what it was doing. Another director over the same store picks up from there.
    pub async fn stop(&self) {
        self.inner.stopped.store(true, Ordering::SeqCst);
        let swiss: Vec<Arc<Event<Swiss>>> = lock(&self.inner.events).values().cloned().collect();
        for e in swiss {
            drop(e.state.lock().await);
        }
        let arenas: Vec<Arc<Event<arena::Arena>>> =
            lock(&self.inner.arenas).values().cloned().collect();
        for e in arenas {
            drop(e.state.lock().await);
        }
    }

    /// Plies played in `game` when that decides its result (an aborted game), else 0.
    async fn plies(&self, game: &str, outcome: Option<Outcome>) -> usize {
        match outcome {
            Some(Outcome::Aborted) | None => match self.online().db().game(game).await {
                Ok(Some((_, moves))) => moves.len(),
                _ => 0,
            },
            _ => 0,
        }
    }

    /// After missed events: looks at every game in play.
    async fn check_games(&self) {
        let events: Vec<Arc<Event<Swiss>>> = lock(&self.inner.events).values().cloned().collect();
        for e in events {
            let mut s = e.state.lock().await;
            self.collect_results(&e, &mut s).await;
        }
    }

    /// Counts the games ended unnoticed (see [`Tournaments::collect_results`]), starts what
    /// is due, pairs what is due, and forgets finished tournaments.
    async fn tick(&self) {
        self.arenas_tick().await;
        let events: Vec<(String, Arc<Event<Swiss>>)> = lock(&self.inner.events)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (id, e) in events {
            let mut s = e.state.lock().await;
            if s.status == Status::Finished {
                if e.updates.receiver_count() == 0 {
                    lock(&self.inner.events).remove(&id);
                }
                continue;
            }
            if self.inner.stopped.load(Ordering::SeqCst) {
                return;
            }
            self.collect_results(&e, &mut s).await;
            if let Err(err) = self.advance(&e, &mut s, false).await {
                eprintln!("damasi: tournament {id}: {err:?}");
            }
        }
    }
}

/// A game's result as a tournament counts it: an aborted game (not started in time) is a
/// forfeit of the side that had to move after `plies` plies.
fn board_result(outcome: Option<Outcome>, plies: usize) -> BoardResult {
    match outcome {
        Some(Outcome::Win {
            winner: Color::White,
            ..
        }) => BoardResult::WhiteWins,
        Some(Outcome::Win {
            winner: Color::Black,
            ..
        }) => BoardResult::BlackWins,
        Some(Outcome::Draw(_)) => BoardResult::Draw,
        Some(Outcome::Aborted) | None if plies % 2 == 1 => BoardResult::BlackForfeits,
        Some(Outcome::Aborted) | None => BoardResult::WhiteForfeits,
    }
}

/// A tournament the director keeps (a Swiss or an arena): how it is stored and shown.
trait Stored: Clone {
    /// Its row in the store.
    fn row(&self) -> Result<TournamentRow, ApiError>;
    /// Its view, as the page and the API show it.
    fn view(&self) -> Value;
    /// Whether it is rated, and who may join.
    fn entry(&self) -> (bool, &Entry);
    /// Its time control: each side's time and the increment (ms).
    fn control(&self) -> (i64, i64);
    /// Whether `user` is coming back (no password asked again).
    fn returning(&self, user: i64) -> bool;
    /// Whether BOT accounts may join.
    fn allows_bots(&self) -> bool;
    /// Adds `player` (rated `rating`) to the players.
    fn enter(&mut self, player: &Player, rating: u32) -> Result<(), SwissError>;
}

impl Stored for Swiss {
    fn row(&self) -> Result<TournamentRow, ApiError> {
        row_of(self)
    }

    fn view(&self) -> Value {
        view(self)
    }

    fn entry(&self) -> (bool, &Entry) {
        (self.settings.rated, &self.settings.entry)
    }

    fn control(&self) -> (i64, i64) {
        (self.settings.initial_ms, self.settings.increment_ms)
    }

    fn returning(&self, _user: i64) -> bool {
        false
    }

    fn allows_bots(&self) -> bool {
        self.settings.allow_bots
    }

    fn enter(&mut self, player: &Player, rating: u32) -> Result<(), SwissError> {
        self.join(player.id, &player.name, rating)?;
        if let Some(n) = self.number_of(player.id) {
            self.entrants[n as usize - 1].bot = player.bot;
        }
        Ok(())
    }
}

/// `s` as it is stored.
fn row_of(s: &Swiss) -> Result<TournamentRow, ApiError> {
    Ok(TournamentRow {
        id: s.id.clone(),
        kind: "swiss".into(),
        status: s.status.as_str().into(),
        name: s.settings.name.clone(),
        created_ms: s.created_ms,
        starts_ms: s.settings.starts_ms,
        data: serde_json::to_string(s)
            .map_err(|e| ApiError::Internal(format!("cannot write tournament: {e}")))?,
        players: s.entrants.iter().map(|e| e.user).collect(),
    })
}

/// A stored tournament as lists show it (`kind` `swiss` or `arena`); with `player`, that
/// account's line of its standings as `player` (see [`Tournaments::played_by`]).
fn listed(r: &TournamentRow, player: Option<i64>) -> Option<Value> {
    if r.kind == "arena" {
        let a: arena::Arena = serde_json::from_str(&r.data).ok()?;
        let mut v = arena_view(&a);
        let o = v.as_object_mut()?;
        o.remove("standing");
        o.remove("ongoing");
        if let Some(user) = player {
            let ranking = a.ranking();
            v["player"] = ranking
                .iter()
                .position(|&i| a.players[i].user == user)
                .map_or(Value::Null, |place| {
                    let p = &a.players[ranking[place]];
                    json!({"rank": place + 1, "score": p.score, "games": p.sheet.len(),
                        "paused": p.paused})
                });
        }
        return Some(v);
    }
    let s: Swiss = serde_json::from_str(&r.data).ok()?;
    let mut v = summary(&s);
    v["kind"] = json!("swiss");
    if let Some(user) = player {
        v["player"] = s
            .standings()
            .into_iter()
            .find_map(|l| {
                let e = s.entrants.get(l.number as usize - 1)?;
                (e.user == user).then(|| {
                    json!({"rank": l.rank, "points": points(l.halves),
                        "withdrawn": e.withdrawn})
                })
            })
            .unwrap_or(Value::Null);
    }
    Some(v)
}

/// The event a game was played in, as a PDN file of the game names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventGame {
    /// The tournament's id.
    pub id: String,
    /// `swiss` (a Swiss or a round robin: its page is `/swiss/{id}`) or `arena`
    /// (`/tournament/{id}`).
    pub kind: &'static str,
    /// The tournament's name.
    pub name: String,
    /// PDN's `Round`: `round.board` in a Swiss or a round robin ([`pdn_round`]), `-` in an
    /// arena (it has no rounds).
    pub round: String,
}

/// PDN's `Round` of the board at `index` (from 0) of `round`: `3.2`, as arbiters write it
/// (and `GET /api/swiss/{id}/games` does).
pub fn pdn_round(round: &swiss::Round, index: usize) -> String {
    format!("{}.{}", round.number, index + 1)
}

/// The tournament online game `game` was played in, if any, read from the store (so any
/// process of a cluster answers, for a finished tournament too): among the tournaments its
/// White (or its only seated player) entered, the one whose rounds or sheets hold it.
pub async fn event_of_game(db: &OnlineDb, game: &str) -> Result<Option<EventGame>, ApiError> {
    let Some((row, _)) = db.game(game).await? else {
        return Ok(None);
    };
    let Some(player) = row.players.iter().flatten().next().copied() else {
        return Ok(None);
    };
    let rows = db
        .tournaments(TournamentFilter::PlayerGame { player, game }, 16)
        .await?;
    for r in rows {
        if r.kind == "arena" {
            let Ok(a) = serde_json::from_str::<arena::Arena>(&r.data) else {
                continue;
            };
            let played = a.games.iter().any(|g| g.id == game)
                || a.players
                    .iter()
                    .any(|p| p.sheet.iter().any(|e| e.game == game));
            if played {
                return Ok(Some(EventGame {
                    id: a.id,
                    kind: "arena",
                    name: a.settings.name,
                    round: "-".into(),
                }));
            }
            continue;
        }
        let Ok(s) = serde_json::from_str::<Swiss>(&r.data) else {
            continue;
        };
        for round in &s.rounds {
            if let Some(i) = round
                .boards
                .iter()
                .position(|b| b.game.as_deref() == Some(game))
            {
                return Ok(Some(EventGame {
                    round: pdn_round(round, i),
                    id: s.id,
                    kind: "swiss",
                    name: s.settings.name,
                }));
            }
        }
    }
    Ok(None)
}
