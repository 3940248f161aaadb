//! damasi's tournaments, beside the online core and with no HTTP in them: Swiss events paired
//! by the FIDE Dutch system as the federation runs them, round robins paired by FIDE's Berger
//! tables (a Swiss event of another [`swiss::System`]: the same director, storage and views),
//! and arenas.
//!
//! - [`swiss`]: a Swiss tournament's (or a round robin's) state and rules (entries, rounds,
//!   byes, forfeits), pure.
//! - [`tiebreak`]: standings with FIDE's tie-breaks.
//! - [`arena`]: an arena's state and rules (lichess's scoring, pairing the free players), pure.
//! - [`Tournaments`]: the director. It makes each round's games in the online service,
//!   listens to games finishing ([`damasi_online::Online::finished_games`]; it never reaches
//!   into the game code), stores every change before announcing it, pairs the next round when
//!   one is complete, and picks up where it was after a restart.
//!
//! The web app (`damasi-web`) is its edge: the pages, the lichess-shaped API
//! (`/api/swiss/...`) and the live standings over a WebSocket.

pub mod arena;
mod arenas;
mod entry;
pub mod limits;
pub mod swiss;
pub mod tiebreak;

pub use arenas::{arena_results, arena_view, NewArena};

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

use swiss::{BoardResult, Entry, Status, Swiss, SwissError, SwissSettings};

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

    /// The tournament `id` in memory, loaded from the database if needed.
    async fn event(&self, id: &str) -> Result<Arc<Event<Swiss>>, ApiError> {
        self.listen()?;
        if let Some(e) = lock(&self.inner.events).get(id) {
            return Ok(e.clone());
        }
        self.load(id).await
    }

    async fn load(&self, id: &str) -> Result<Arc<Event<Swiss>>, ApiError> {
        let row = self
            .online()
            .db()
            .tournament(id)
            .await?
            .filter(|r| r.kind == "swiss")
            .ok_or_else(|| ApiError::NotFound(format!("no tournament {id}")))?;
        let swiss: Swiss = serde_json::from_str(&row.data)
            .map_err(|e| ApiError::Internal(format!("tournament {id} is unreadable: {e}")))?;
        let event = {
            let mut events = lock(&self.inner.events);
            if let Some(e) = events.get(id) {
                return Ok(e.clone());
            }
            let mut games = lock(&self.inner.games);
            if let Some(r) = swiss.in_play() {
                for b in &r.boards {
                    if let (Some(g), None) = (&b.game, b.result) {
                        games.insert(g.clone(), id.to_string());
                    }
                }
            }
            let e = {
                let v = view(&swiss);
                let by = swiss.created_by;
                Event::new(swiss, v, by)
            };
            events.insert(id.to_string(), e.clone());
            e
        };
        // Games made before a restart, and results missed while away.
        let mut s = event.state.lock().await;
        self.make_games(&mut s).await;
        self.collect_results(&event, &mut s).await;
        Ok(event.clone())
    }

    /// Stores `s` and tells its watchers.
    async fn save<T: Stored>(&self, event: &Event<T>, s: &T) -> Result<(), ApiError> {
        self.online().db().save_tournament(s.row()?).await?;
        event.publish(s.view());
        Ok(())
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

    /// Creates a Swiss tournament organised by `by`.
    pub async fn create(&self, by: &Player, new: NewSwiss) -> Result<Value, ApiError> {
        let mut settings = new.settings;
        entry::check_new(
            by,
            settings.initial_ms,
            settings.increment_ms,
            settings.rated,
            settings.rules,
            new.password,
            &mut settings.entry,
        )?;
        self.listen()?;
        self.count_new(by)?;
        let first = if new_game_id()?.as_bytes()[0] % 2 == 0 {
            Colour::White
        } else {
            Colour::Black
        };
        let swiss = Swiss::new(
            new_game_id()?,
            (by.id, by.name.clone()),
            now_ms(),
            settings,
            first,
        )
        .map_err(api)?;
        let id = swiss.id.clone();
        let event = {
            let v = view(&swiss);
            Event::new(swiss, v, by.id)
        };
        let s = event.state.lock().await;
        self.save(&event, &s).await?;
        lock(&self.inner.events).insert(id, event.clone());
        Ok(view(&s))
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

    /// The tournament as the page and the API show it.
    pub async fn show(&self, id: &str) -> Result<Value, ApiError> {
        Ok((*self.event(id).await?.view()).clone())
    }

    /// A copy of the tournament's state.
    pub async fn get(&self, id: &str) -> Result<Swiss, ApiError> {
        let event = self.event(id).await?;
        let s = event.state.lock().await;
        Ok(s.clone())
    }

    /// The tournament's view now and its next ones (the live page).
    pub async fn watch(
        &self,
        id: &str,
    ) -> Result<(Value, broadcast::Receiver<Arc<Value>>), ApiError> {
        let event = self.event(id).await?;
        let rx = event.updates.subscribe();
        Ok(((*event.view()).clone(), rx))
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

    /// `player` joins tournament `id` (`password` if it needs one).
    pub async fn join(
        &self,
        id: &str,
        player: &Player,
        password: Option<&str>,
    ) -> Result<(), ApiError> {
        self.join_from(id, player, password, None).await
    }

    /// [`Tournaments::join`] from the address `from` (counted in the wrong-password limit per
    /// address, see [`limits`]).
    pub async fn join_from(
        &self,
        id: &str,
        player: &Player,
        password: Option<&str>,
        from: Option<IpAddr>,
    ) -> Result<(), ApiError> {
        let event = self.event(id).await?;
        let mut s = event.state.lock().await;
        self.check_entry(
            id,
            player,
            (s.settings.rated, &s.settings.entry),
            false,
            password,
            from,
        )?;
        let rating = entry::entry_rating(
            self.online(),
            player,
            s.settings.initial_ms,
            s.settings.increment_ms,
        )
        .await?;
        self.commit(&event, &mut s, |s| {
            s.join(player.id, &player.name, rating).map_err(api)
        })
        .await
    }

    /// `player` leaves tournament `id`.
    pub async fn withdraw(&self, id: &str, player: &Player) -> Result<(), ApiError> {
        let event = self.event(id).await?;
        let mut s = event.state.lock().await;
        self.commit(&event, &mut s, |s| s.withdraw(player.id).map_err(api))
            .await
    }

    /// The organiser's button: starts the tournament now, or pairs the next round now (the
    /// previous one complete).
    pub async fn next_round_now(&self, id: &str, by: &Player) -> Result<(), ApiError> {
        let event = self.event(id).await?;
        let mut s = event.state.lock().await;
        entry::check_organiser(s.created_by, by)?;
        self.advance(&event, &mut s, true).await
    }

    /// The organiser's button without waiting for the pairing: what
    /// [`Tournaments::next_round_now`] does, answered as soon as the round is being paired
    /// (the pairing of a large round takes seconds, on a blocking thread) with
    /// [`Begun::Pairing`]; its games are made once it is done, and the tournament's view says
    /// `"pairing": true` meanwhile. What is refused (not the organiser, a round in play, too
    /// few players) is refused here as there.
    pub async fn begin_next_round(&self, id: &str, by: &Player) -> Result<Begun, ApiError> {
        let event = self.event(id).await?;
        if event.pairing.load(Ordering::SeqCst) {
            entry::check_organiser(event.organiser, by)?;
            return Ok(Begun::Pairing);
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        let (t, by) = (self.clone(), by.clone());
        tokio::spawn(async move {
            let mut s = event.state.lock().await;
            let mut told = Some(tx);
            let done = match entry::check_organiser(s.created_by, &by) {
                Ok(()) => t.advance_told(&event, &mut s, true, &mut told).await,
                Err(e) => Err(e),
            };
            match (told.take(), done) {
                (Some(tx), done) => {
                    let _ = tx.send(done.map(|()| Begun::Done(s.status)));
                }
                (None, Err(e)) => eprintln!("damasi: tournament {}: {e:?}", s.id),
                (None, Ok(())) => {}
            }
        });
        rx.await
            .map_err(|_| ApiError::Internal("the organiser's button was dropped".into()))?
    }

    /// The organiser sets when the next round (or the first) is paired.
    pub async fn schedule(&self, id: &str, by: &Player, at: i64) -> Result<(), ApiError> {
        let event = self.event(id).await?;
        let mut s = event.state.lock().await;
        entry::check_organiser(s.created_by, by)?;
        self.commit(&event, &mut s, |s| s.schedule(at).map_err(api))
            .await
    }

    /// The organiser ends the tournament now: the round in play is dropped if not complete.
    pub async fn close(&self, id: &str, by: &Player) -> Result<(), ApiError> {
        let event = self.event(id).await?;
        let mut s = event.state.lock().await;
        entry::check_organiser(s.created_by, by)?;
        self.commit(&event, &mut s, |s| {
            s.close(now_ms());
            Ok(())
        })
        .await
    }

    /// Starts the tournament or pairs its next round when it is time (or `now_asked`).
    async fn advance(
        &self,
        event: &Event<Swiss>,
        s: &mut Swiss,
        now_asked: bool,
    ) -> Result<(), ApiError> {
        self.advance_told(event, s, now_asked, &mut None).await
    }

    /// [`Tournaments::advance`], sending [`Begun::Pairing`] on `told` (taken) when the pairing
    /// begins.
    async fn advance_told(
        &self,
        event: &Event<Swiss>,
        s: &mut Swiss,
        now_asked: bool,
        told: &mut Option<tokio::sync::oneshot::Sender<Result<Begun, ApiError>>>,
    ) -> Result<(), ApiError> {
        let now = now_ms();
        match s.status {
            Status::Finished => {
                return Err(ApiError::conflict(
                    "tournament-finished",
                    "the tournament is over",
                ))
            }
            Status::Created => {
                let due = s.settings.starts_ms.is_some_and(|t| t <= now);
                if !(now_asked || due) {
                    return Ok(());
                }
                if let Err(e) = s.start() {
                    if due && !now_asked && matches!(e, SwissError::Refused("too-few-players", _)) {
                        // Nobody to play: the tournament is called off.
                        s.close(now);
                        return self.save(event, s).await;
                    }
                    return Err(api(e));
                }
            }
            Status::Started => {
                let due = s.next_round_ms.is_some_and(|t| t <= now);
                if !(now_asked || due) {
                    return Ok(());
                }
            }
        }
        let before = s.clone();
        let view = match s.to_pair(now) {
            Ok(v) => v,
            Err(e) => {
                *s = before;
                return Err(api(e));
            }
        };
        if view.is_some() && s.settings.system.is_round_robin() {
            // A round robin's round is read from the Berger tables: nothing to wait for.
            let pairing = s.berger_pairing();
            if let Err(e) = s.paired(pairing, now) {
                *s = before;
                return Err(api(e));
            }
        } else if let Some(view) = view {
            // Pairing a large tournament takes seconds: not on the server's threads, and the
            // organiser's button is answered meanwhile.
            event.pairing.store(true, Ordering::SeqCst);
            let mut shown = self::view(s);
            shown["pairing"] = json!(true);
            event.publish(shown);
            if let Some(tx) = told.take() {
                let _ = tx.send(Ok(Begun::Pairing));
            }
            let pairing =
                tokio::task::spawn_blocking(move || damasi_swiss::pair_next_round(&view)).await;
            event.pairing.store(false, Ordering::SeqCst);
            let pairing = match pairing {
                Ok(p) => p,
                Err(e) => {
                    *s = before;
                    event.publish(self::view(s));
                    return Err(ApiError::Internal(format!("the pairing stopped: {e}")));
                }
            };
            if let Err(e) = s.paired(pairing, now) {
                *s = before;
                event.publish(self::view(s));
                return Err(api(e));
            }
        }
        // Store the pairing before making its games: after a crash, the games not made yet
        // are made when the tournament is loaded again.
        if let Err(e) = self.save(event, s).await {
            *s = before;
            return Err(e);
        }
        self.make_games(s).await;
        self.save(event, s).await
    }

    /// Makes the games of the round in play that have none yet.
    async fn make_games(&self, s: &mut Swiss) {
        let Some(round) = s.rounds.last() else { return };
        if round.boards.iter().all(|b| b.game.is_some()) {
            return;
        }
        let new = NewGame {
            initial_ms: s.settings.initial_ms,
            increment_ms: s.settings.increment_ms,
            rated: s.settings.rated,
            chat: true,
            rules: s.settings.rules,
        };
        let count = round.boards.len();
        for i in 0..count {
            let board = &s.rounds.last().expect("a round").boards[i];
            if board.game.is_some() || board.result.is_some() {
                continue;
            }
            let (w, b) = (board.white, board.black);
            let made = async {
                let white = self.player(s.entrants[w as usize - 1].user).await?;
                let black = self.player(s.entrants[b as usize - 1].user).await?;
                let event = format!("swiss/{}", s.id);
                self.online()
                    .create_paired_in(&white, &black, new, event)
                    .await
            }
            .await;
            match made {
                Ok(table) => {
                    lock(&self.inner.games).insert(table.id.clone(), s.id.clone());
                    s.rounds.last_mut().expect("a round").boards[i].game = Some(table.id.clone());
                }
                Err(e) => {
                    // An account gone or a store away: the game is not played; the player
                    // who could not be seated forfeits (White, when it is unknown).
                    eprintln!("damasi: tournament {}: cannot make a game: {e:?}", s.id);
                    s.record_board(i, BoardResult::WhiteForfeits, now_ms());
                }
            }
        }
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

    async fn count_result(
        &self,
        event: &Event<Swiss>,
        s: &mut Swiss,
        game: &str,
        outcome: Option<Outcome>,
    ) {
        let result = board_result(outcome, self.plies(game, outcome).await);
        let recorded = self
            .commit(event, s, |s| Ok(s.record(game, result, now_ms())))
            .await;
        let completed = match recorded {
            Ok(completed) => completed,
            Err(e) => {
                eprintln!("damasi: tournament {}: cannot store a result: {e:?}", s.id);
                return;
            }
        };
        lock(&self.inner.games).remove(game);
        if completed && s.settings.round_pause_ms == 0 && s.status == Status::Started {
            if let Err(e) = self.advance(event, s, true).await {
                eprintln!(
                    "damasi: tournament {}: cannot pair the next round: {e:?}",
                    s.id
                );
            }
        }
    }

    /// Reads from the store the games of the round in play that ended unnoticed (on another
    /// process, or while this one was away): a game over in the database counts, whoever
    /// ended it. One query for the whole round; done on every tick.
    async fn collect_results(&self, event: &Event<Swiss>, s: &mut Swiss) {
        let Some(round) = s.in_play() else { return };
        let games: Vec<String> = round
            .boards
            .iter()
            .filter(|b| b.result.is_none())
            .filter_map(|b| b.game.clone())
            .collect();
        let ended = match self.online().db().ended_among(&games).await {
            Ok(ended) => ended,
            Err(e) => {
                eprintln!("damasi: tournament {}: cannot read its games: {e:?}", s.id);
                return;
            }
        };
        for (g, outcome) in ended {
            let outcome = outcome.as_deref().and_then(|o| o.parse().ok());
            self.count_result(event, s, &g, outcome).await;
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

    /// The tournament as FIDE's tournament report file (TRF-16), with the standings' ranks.
    pub async fn trf(&self, id: &str) -> Result<String, ApiError> {
        let s = self.get(id).await?;
        Ok(export_trf(&s))
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
}

impl Stored for Swiss {
    fn row(&self) -> Result<TournamentRow, ApiError> {
        row_of(self)
    }

    fn view(&self) -> Value {
        view(self)
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

/// The stored Swiss tournament `id` (for tools that read the store without a server).
pub async fn stored_swiss(db: &OnlineDb, id: &str) -> Result<Swiss, ApiError> {
    let row = db
        .tournament(id)
        .await?
        .filter(|r| r.kind == "swiss")
        .ok_or_else(|| ApiError::NotFound(format!("no tournament {id}")))?;
    serde_json::from_str(&row.data)
        .map_err(|e| ApiError::Internal(format!("tournament {id} is unreadable: {e}")))
}

/// Stores a tournament read from a FIDE report file to go on with it (`damasi swiss
/// import`): each player's name must be an account's; `organiser` is an account's name.
/// Answers the new tournament's id. A running server picks it up when it is first asked for
/// it (its page, the API), and pairs the next round after the pause.
pub async fn import_swiss(
    db: &OnlineDb,
    organiser: &str,
    settings: SwissSettings,
    played: damasi_swiss::Tournament,
) -> Result<String, ApiError> {
    let by = db
        .user_by_name(organiser)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no account called '{organiser}'")))?;
    NewGame {
        initial_ms: settings.initial_ms,
        increment_ms: settings.increment_ms,
        rated: settings.rated,
        chat: true,
        rules: settings.rules,
    }
    .check()?;
    let mut users = Vec::new();
    let mut missing = Vec::new();
    for p in &played.players {
        match db.user_by_name(p.name.trim()).await? {
            Some(u) => users.push((u.id, u.name)),
            None => missing.push(p.name.trim().to_string()),
        }
    }
    if !missing.is_empty() {
        return Err(ApiError::BadRequest(format!(
            "these players have no account (create them with `damasi user add`): {}",
            missing.join(", ")
        )));
    }
    let swiss = Swiss::continue_from(
        new_game_id()?,
        (by.id, by.name),
        now_ms(),
        settings,
        played,
        users,
    )
    .map_err(api)?;
    db.save_tournament(row_of(&swiss)?).await?;
    Ok(swiss.id)
}

/// `s` as a TRF file: the rounds complete, each player's points and place, and TRF-16's
/// lines of the event: its dates (042 start, 052 end, 132 each round's), the number of
/// players (062), the organiser as the chief arbiter (102) and the time control (122).
pub fn export_trf(s: &Swiss) -> String {
    let mut t = s.played.clone();
    let standings = s.standings();
    for line in &standings {
        if let Some(p) = t.players.get_mut(line.number as usize - 1) {
            p.rank = Some(line.rank);
        }
    }
    let mut lines = event_lines(s);
    // A tournament read from a file keeps its own lines of these kinds only where damasi
    // knows nothing better.
    let ours: Vec<String> = lines.iter().map(|l| l[..3].to_string()).collect();
    lines.extend(
        t.other_lines
            .iter()
            .filter(|l| !ours.iter().any(|code| l.starts_with(code)))
            .cloned(),
    );
    t.other_lines = lines;
    t.to_trf()
}

/// TRF-16's lines 042, 052, 062, 102, 122 and 132 of `s` (the dates in UTC): 042 the first
/// round's day, 052 the day it finished.
fn event_lines(s: &Swiss) -> Vec<String> {
    // `YYYY/MM/DD`, and `YY/MM/DD` for line 132, from PDN's `YYYY.MM.DD`.
    let date = |ms: i64| damasi::pdn::pdn_date(ms.div_euclid(1000)).replace('.', "/");
    let mut lines = Vec::new();
    if let Some(first) = s.rounds.first() {
        lines.push(format!("042 {}", date(first.paired_ms)));
    }
    if s.status == Status::Finished {
        if let Some(last) = s.rounds.last() {
            // The day it ended (a correspondence round lasts days), or for one stored before
            // that was kept, the day of its last round.
            lines.push(format!(
                "052 {}",
                date(s.finished_ms.unwrap_or(last.paired_ms))
            ));
        }
    }
    lines.push(format!("062 {}", s.entrants.len()));
    lines.push(format!("102 {}", s.organiser));
    let control = match damasi_online::days_per_turn(s.settings.initial_ms, s.settings.increment_ms)
    {
        Some(days) => format!("{days} days a move (correspondence)"),
        None => format!(
            "{} min + {} s a move",
            s.settings.initial_ms as f64 / 60_000.0,
            s.settings.increment_ms / 1000
        ),
    };
    lines.push(format!("122 {control}"));
    if !s.rounds.is_empty() {
        // The first round's date in columns 92-99, each next one 10 columns further.
        let mut line = format!("132{}", " ".repeat(86));
        for r in &s.rounds {
            line.push_str(&format!("  {}", &date(r.paired_ms)[2..]));
        }
        lines.push(line);
    }
    lines
}

/// Points in half points as a number (`2.5`).
fn points(halves: u32) -> f64 {
    halves as f64 / 2.0
}

/// A tournament as lists show it (lichess's fields where it has them).
pub fn summary(s: &Swiss) -> Value {
    let mut v = json!({
        "id": s.id,
        "name": s.settings.name,
        "createdBy": s.organiser,
        "status": s.status.as_str(),
        "round": s.rounds.len(),
        "nbRounds": s.nb_rounds(),
        // damasi's: how the rounds are paired (`swiss`, `roundRobin`) and, for a round robin,
        // whether it is double.
        "system": s.settings.system.key(),
        "double": s.settings.system == swiss::System::DoubleRoundRobin,
        "nbPlayers": s.entrants.len(),
        "nbOngoing": s.in_play().map_or(0, |r| r.boards.iter().filter(|b| b.result.is_none()).count()),
        "clock": {"limit": s.settings.initial_ms / 1000, "increment": s.settings.increment_ms / 1000},
        // damasi's: the days a move of a correspondence Swiss (lichess's has none), else null.
        "days": damasi_online::days_per_turn(s.settings.initial_ms, s.settings.increment_ms),
        "rated": s.settings.rated,
        "variant": damasi_online::variant::key(&s.settings.rules),
        "rules": damasi_online::variant::json(&s.settings.rules),
        "password": matches!(s.settings.entry, Entry::Password { .. }),
        "nextRound": s.next_round_ms.map(|at| json!({"at": at, "in": ((at - now_ms()).max(0) / 1000)})),
    });
    // lichess always has a start; a tournament started by its organiser has none until then.
    if let Some(at) = s.settings.starts_ms {
        v["startsAt"] = json!(at);
    }
    v
}

/// The standings as the API gives them, one line per player (lichess's `results` lines).
pub fn results(s: &Swiss) -> Vec<Value> {
    s.standings()
        .into_iter()
        .map(|l| {
            let e = &s.entrants[l.number as usize - 1];
            json!({
                "rank": l.rank,
                "points": points(l.halves),
                "tieBreak": l.tiebreaks.first().map(|v| tiebreak_value(s.settings.tiebreaks[0], *v)),
                "tieBreaks": l.tiebreaks.iter().zip(&s.settings.tiebreaks).map(|(v, t)| tiebreak_value(*t, *v)).collect::<Vec<_>>(),
                "rating": e.rating,
                "username": e.name,
                "number": l.number,
                "withdrawn": e.withdrawn,
            })
        })
        .collect()
}

fn tiebreak_value(t: tiebreak::Tiebreak, v: u32) -> f64 {
    match t {
        tiebreak::Tiebreak::Wins => v as f64,
        tiebreak::Tiebreak::SonnebornBerger => v as f64 / 4.0,
        _ => v as f64 / 2.0,
    }
}

/// The whole tournament as its page shows it: the summary, the tie-breaks' names, the
/// standings and every round's games.
pub fn view(s: &Swiss) -> Value {
    let name = |n: u32| {
        s.entrants
            .get(n as usize - 1)
            .map(|e| e.name.clone())
            .unwrap_or_default()
    };
    let mut v = summary(s);
    v["tieBreaks"] = json!(s
        .settings
        .tiebreaks
        .iter()
        .map(|t| t.abbreviation())
        .collect::<Vec<_>>());
    v["roundPauseSeconds"] = json!(s.settings.round_pause_ms / 1000);
    v["entry"] = json!(match &s.settings.entry {
        Entry::Anyone => "anyone",
        Entry::Password { .. } => "password",
        Entry::List { .. } => "list",
    });
    v["standings"] = json!(results(s));
    v["rounds"] = s
        .rounds
        .iter()
        .map(|r| {
            json!({
                "number": r.number,
                "bye": r.bye.map(name),
                "games": r.boards.iter().map(|b| json!({
                    "id": b.game,
                    "white": name(b.white),
                    "black": name(b.black),
                    "result": b.result.map(|r| r.text()),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    v
}
