//! The director's side of arenas: stored like Swiss tournaments (kind `arena`), paired on
//! the director's clock (every tick, the free players), scored as their games end.

use std::sync::Arc;

use damasi_online::accounts::Player;
use damasi_online::error::ApiError;
use damasi_online::{new_game_id, now_ms, NewGame};
use serde_json::{json, Value};
use tokio::sync::broadcast;

use crate::arena::{Arena, ArenaSettings};
use crate::swiss::{BoardResult, Entry, Status, SwissError};
use crate::{api, entry, lock, Event, Tournaments};

/// What an organiser asks for.
#[derive(Clone, Debug)]
pub struct NewArena {
    /// The settings.
    pub settings: ArenaSettings,
    /// The entry password, if any.
    pub password: Option<String>,
}

impl crate::Stored for Arena {
    fn row(&self) -> Result<damasi_online::db::TournamentRow, ApiError> {
        row_of(self)
    }

    fn view(&self) -> Value {
        arena_view(self)
    }

    fn entry(&self) -> (bool, &Entry) {
        (self.settings.rated, &self.settings.entry)
    }

    fn control(&self) -> (i64, i64) {
        (self.settings.initial_ms, self.settings.increment_ms)
    }

    fn returning(&self, user: i64) -> bool {
        self.players.iter().any(|p| p.user == user)
    }

    fn allows_bots(&self) -> bool {
        self.settings.allow_bots
    }

    fn enter(&mut self, player: &Player, rating: u32) -> Result<(), SwissError> {
        self.join(player.id, &player.name, rating)?;
        if let Some(i) = self.index_of(player.id) {
            self.players[i].bot = player.bot;
        }
        Ok(())
    }
}

fn row_of(a: &Arena) -> Result<damasi_online::db::TournamentRow, ApiError> {
    Ok(damasi_online::db::TournamentRow {
        id: a.id.clone(),
        kind: "arena".into(),
        status: a.status.as_str().into(),
        name: a.settings.name.clone(),
        created_ms: a.created_ms,
        starts_ms: a.settings.starts_ms,
        data: serde_json::to_string(a)
            .map_err(|e| ApiError::Internal(format!("cannot write tournament: {e}")))?,
        players: a.players.iter().map(|p| p.user).collect(),
    })
}

impl Tournaments {
    pub(crate) async fn arena_event(&self, id: &str) -> Result<Arc<Event<Arena>>, ApiError> {
        self.listen()?;
        if let Some(e) = lock(&self.inner.arenas).get(id) {
            return Ok(e.clone());
        }
        let row = self
            .online()
            .db()
            .tournament(id)
            .await?
            .filter(|r| r.kind == "arena")
            .ok_or_else(|| ApiError::NotFound(format!("no arena {id}")))?;
        let arena: Arena = serde_json::from_str(&row.data)
            .map_err(|e| ApiError::Internal(format!("arena {id} is unreadable: {e}")))?;
        let event = {
            let mut arenas = lock(&self.inner.arenas);
            if let Some(e) = arenas.get(id) {
                return Ok(e.clone());
            }
            let mut games = lock(&self.inner.games);
            for g in &arena.games {
                games.insert(g.id.clone(), id.to_string());
            }
            let e = {
                let v = arena_view(&arena);
                let by = arena.created_by;
                Event::new(arena, v, by)
            };
            arenas.insert(id.to_string(), e.clone());
            e
        };
        // Results of games that ended while nobody was looking.
        let mut a = event.state.lock().await;
        let ids: Vec<String> = a.games.iter().map(|g| g.id.clone()).collect();
        for g in ids {
            if let Ok(Some((row, moves))) = self.online().db().game(&g).await {
                if row.status == "over" {
                    let outcome = row.outcome.as_deref().and_then(|o| o.parse().ok());
                    let result = crate::board_result(outcome, moves.len());
                    a.record(&g, result);
                    lock(&self.inner.games).remove(&g);
                }
            }
        }
        self.save(&event, &a).await?;
        drop(a);
        Ok(event)
    }

    /// Creates an arena organised by `by`.
    pub async fn create_arena(&self, by: &Player, new: NewArena) -> Result<Value, ApiError> {
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
        if damasi_online::days_per_turn(settings.initial_ms, settings.increment_ms).is_some() {
            // An arena lasts minutes: its games are live.
            return Err(ApiError::BadRequest(
                "an arena's games have a clock, not days a move".into(),
            ));
        }
        self.listen()?;
        self.count_new(by)?;
        let arena = Arena::new(new_game_id()?, (by.id, by.name.clone()), now_ms(), settings)
            .map_err(api)?;
        let id = arena.id.clone();
        let event = {
            let v = arena_view(&arena);
            Event::new(arena, v, by.id)
        };
        let a = event.state.lock().await;
        self.save(&event, &a).await?;
        lock(&self.inner.arenas).insert(id, event.clone());
        Ok(arena_view(&a))
    }

    /// The arena as the page and the API show it.
    pub async fn show_arena(&self, id: &str) -> Result<Value, ApiError> {
        let e = self.arena_event(id).await?;
        let v = e.view();
        Ok((*v).clone())
    }

    /// A copy of the arena's state.
    pub async fn get_arena(&self, id: &str) -> Result<Arena, ApiError> {
        let e = self.arena_event(id).await?;
        let a = e.state.lock().await;
        Ok(a.clone())
    }

    /// The arena's view now and its next ones (the live page).
    pub async fn watch_arena(
        &self,
        id: &str,
    ) -> Result<(Value, broadcast::Receiver<Arc<Value>>), ApiError> {
        let e = self.arena_event(id).await?;
        let rx = e.updates.subscribe();
        let v = e.view();
        Ok(((*v).clone(), rx))
    }

    /// `player` joins arena `id` (or comes back from a pause).
    pub async fn join_arena(
        &self,
        id: &str,
        player: &Player,
        password: Option<&str>,
    ) -> Result<(), ApiError> {
        self.join_arena_from(id, player, password, None).await
    }

    /// [`Tournaments::join_arena`] from the address `from` (counted in the wrong-password
    /// limit per address, see [`crate::limits`]).
    pub async fn join_arena_from(
        &self,
        id: &str,
        player: &Player,
        password: Option<&str>,
        from: Option<std::net::IpAddr>,
    ) -> Result<(), ApiError> {
        let e = self.arena_event(id).await?;
        self.enter((id, &e), player, password, from).await
    }

    /// `player` pauses in arena `id` (before the start: leaves it).
    pub async fn pause_arena(&self, id: &str, player: &Player) -> Result<(), ApiError> {
        let e = self.arena_event(id).await?;
        let mut a = e.state.lock().await;
        self.commit(&e, &mut a, |a| a.pause(player.id).map_err(api))
            .await
    }

    /// The organiser starts arena `id` now.
    pub async fn start_arena(&self, id: &str, by: &Player) -> Result<(), ApiError> {
        let e = self.arena_event(id).await?;
        let mut a = e.state.lock().await;
        entry::check_organiser(a.created_by, by)?;
        self.commit(&e, &mut a, |a| a.start(now_ms()).map_err(api))
            .await?;
        drop(a);
        self.arena_tick(&e).await;
        Ok(())
    }

    /// The organiser ends arena `id` now (games in play still count when they end).
    pub async fn close_arena(&self, id: &str, by: &Player) -> Result<(), ApiError> {
        let e = self.arena_event(id).await?;
        let mut a = e.state.lock().await;
        entry::check_organiser(a.created_by, by)?;
        self.commit(&e, &mut a, |a| {
            a.close();
            Ok(())
        })
        .await
    }

    /// A game of an arena ended.
    pub(crate) async fn arena_game_over(&self, tid: &str, game: &str, result: BoardResult) {
        let Ok(e) = self.arena_event(tid).await else {
            return;
        };
        let mut a = e.state.lock().await;
        if self.inner.stopped.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        match self
            .commit(&e, &mut a, |a| Ok(a.record(game, result)))
            .await
        {
            Ok(true) => {
                lock(&self.inner.games).remove(game);
            }
            Ok(false) => {}
            Err(err) => eprintln!("damasi: arena {tid}: cannot store a result: {err:?}"),
        }
    }

    /// Counts the games ended unnoticed (on another process: a game over in the database
    /// counts, whoever ended it), starts what is due, ends what is over, pairs the free
    /// players.
    pub(crate) async fn arena_tick(&self, e: &Event<Arena>) {
        let mut a = e.state.lock().await;
        let mut changed = self.arena_catch_up(&mut a).await;
        let now = now_ms();
        if a.status == Status::Created && a.settings.starts_ms.is_some_and(|t| t <= now) {
            changed |= a.start(now).is_ok();
        }
        changed |= a.finish_if_due(now);
        let new = NewGame {
            initial_ms: a.settings.initial_ms,
            increment_ms: a.settings.increment_ms,
            rated: a.settings.rated,
            chat: true,
            rules: a.settings.rules,
        };
        for (w, b) in a.pairs() {
            let made = async {
                let white = self.player(a.players[w].user).await?;
                let black = self.player(a.players[b].user).await?;
                let event = format!("tournament/{}", a.id);
                self.online()
                    .create_paired_in(&white, &black, new, event)
                    .await
            }
            .await;
            match made {
                Ok(table) => {
                    lock(&self.inner.games).insert(table.id.clone(), a.id.clone());
                    a.started(table.id.clone(), w, b);
                    changed = true;
                }
                Err(err) => {
                    eprintln!("damasi: arena {}: cannot make a game: {err:?}", a.id);
                    // Not paired again until they come back.
                    a.players[w].paused = true;
                    a.players[b].paused = true;
                    changed = true;
                }
            }
        }
        if changed {
            if let Err(err) = self.save(e, &a).await {
                eprintln!("damasi: arena {}: cannot store: {err:?}", a.id);
            }
        }
    }

    /// Records the results of `a`'s games in play that are over in the store (one query);
    /// answers whether any was.
    async fn arena_catch_up(&self, a: &mut Arena) -> bool {
        let ids: Vec<String> = a.games.iter().map(|g| g.id.clone()).collect();
        let ended = match self.online().db().ended_among(&ids).await {
            Ok(ended) => ended,
            Err(err) => {
                eprintln!("damasi: arena {}: cannot read its games: {err:?}", a.id);
                return false;
            }
        };
        let mut changed = false;
        for (g, outcome) in ended {
            let outcome = outcome.as_deref().and_then(|o| o.parse().ok());
            let plies = self.plies(&g, outcome).await;
            if a.record(&g, crate::board_result(outcome, plies)) {
                lock(&self.inner.games).remove(&g);
                changed = true;
            }
        }
        changed
    }

    /// Every arena in memory: ticked, and forgotten once over, with no game and no watcher.
    pub(crate) async fn arenas_tick(&self) {
        let arenas: Vec<(String, Arc<Event<Arena>>)> = lock(&self.inner.arenas)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (id, e) in arenas {
            self.arena_tick(&e).await;
            let done = {
                let a = e.state.lock().await;
                a.status == Status::Finished && a.games.is_empty()
            };
            if done && e.updates.receiver_count() == 0 {
                lock(&self.inner.arenas).remove(&id);
            }
        }
    }
}

/// The arena's standings as the API gives them (lichess's `results` lines).
pub fn arena_results(a: &Arena) -> Vec<Value> {
    a.ranking()
        .into_iter()
        .enumerate()
        .map(|(rank, i)| {
            let p = &a.players[i];
            json!({
                "rank": rank + 1,
                "score": p.score,
                "rating": p.rating,
                "username": p.name,
                "title": p.bot.then_some(damasi_online::accounts::BOT_TITLE),
                "games": p.sheet.len(),
                "fire": p.on_fire(),
                "paused": p.paused,
                "sheet": {"scores": p.sheet.iter().map(|s| s.points.to_string()).collect::<String>()},
            })
        })
        .collect()
}

/// The arena as its page shows it (lichess's fields where it has them).
pub fn arena_view(a: &Arena) -> Value {
    let now = now_ms();
    let name = |i: usize| a.players.get(i).map(|p| p.name.clone()).unwrap_or_default();
    let results = arena_results(a);
    let mut v = json!({
        "id": a.id,
        "kind": "arena",
        "fullName": a.settings.name,
        "name": a.settings.name,
        "createdBy": a.organiser,
        "status": a.status.as_str(),
        "isStarted": a.status == Status::Started,
        "isFinished": a.status == Status::Finished,
        "minutes": a.settings.minutes,
        "clock": {"limit": a.settings.initial_ms / 1000, "increment": a.settings.increment_ms / 1000},
        "rated": a.settings.rated,
        "variant": damasi_online::variant::key(&a.settings.rules),
        "rules": damasi_online::variant::json(&a.settings.rules),
        "nbPlayers": a.players.len(),
        "password": matches!(a.settings.entry, Entry::Password { .. }),
        "allowBots": a.settings.allow_bots,
        "finishesAt": a.ends_ms,
        "secondsToFinish": a.ends_ms.map(|e| ((e - now).max(0)) / 1000),
        "standing": {"players": results},
        "ongoing": a.games.iter().map(|g| json!({"id": g.id, "white": name(g.white), "black": name(g.black)})).collect::<Vec<_>>(),
    });
    if let Some(at) = a.settings.starts_ms {
        v["startsAt"] = json!(at);
    }
    if a.status == Status::Finished {
        v["podium"] = json!(results.iter().take(3).collect::<Vec<_>>());
    }
    v
}
