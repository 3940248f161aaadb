//! The games this process keeps in memory: made (a new game, a challenge, a pairing), loaded
//! from the database when asked for (with their clocks), withdrawn when nobody took their
//! seat in time, listed while played, and dropped from memory when idle.

use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use damasi::{ByColor, Color, Outcome};
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::error::ApiError;
use crate::now_ms;

use super::accounts::Player;
use super::command::{self, Command};
use super::db::{OnlineGameRow, RatingRow};
use super::messages::{GameFull, UserEvent};
use super::table::{Status, TableState};
use super::OPEN_GAME_LIFETIME;
use super::{cluster, lock, new_game_id, random_color, rating, NewGame, Online, Table};

impl Online {
    /// Creates a game; `creator`, if given, takes a seat (`color`, or a random one).
    pub async fn create(
        &self,
        creator: Option<&Player>,
        new: NewGame,
        color: Option<Color>,
    ) -> Result<Arc<Table>, ApiError> {
        self.create_for(creator, new, color, None, None).await
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
        if self.relations().blocks(to.id, from.id).await? {
            return Err(ApiError::Forbidden {
                code: "blocked",
                message: format!("{} does not accept challenges from you", to.name),
            });
        }
        let table = self
            .create_for(Some(from), new, color, Some(to.id), None)
            .await?;
        let event = {
            let s = table.state.lock().await;
            UserEvent::Challenge {
                challenge: Box::new(s.challenge(to, color, "created")),
            }
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
        event: Option<String>,
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
            rules: new.rules,
            event,
        };
        let mut state = TableState::new(row);
        state.first_move_time = self.inner.config.abort_after;
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

    /// [`Online::create_paired`] for a tournament's pairing: the game belongs to the event
    /// at page path `event` (`swiss/ID`, `tournament/ID`), which its messages name, and it
    /// has no rematch.
    pub async fn create_paired_in(
        &self,
        white: &Player,
        black: &Player,
        new: NewGame,
        event: String,
    ) -> Result<Arc<Table>, ApiError> {
        let table = self
            .create_for(Some(white), new, Some(Color::White), None, Some(event))
            .await?;
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
        let seats = self.seats_of(row.players).await?;
        let turn_started = row.turn_started_ms.map(|t| {
            let ago = Duration::from_millis((now_ms() - t).max(0) as u64);
            Instant::now().checked_sub(ago).unwrap_or_else(Instant::now)
        });
        let speed = rating::Speed::of(row.initial_ms, row.increment_ms);
        let mut state = TableState::restore(row, seats, &moves, turn_started)?;
        state.first_move_time = self.inner.config.abort_after;
        if state.row.rated {
            for side in Color::BOTH {
                if let Some(uid) = state.row.players[side.index()] {
                    state.ratings[side] = Some(self.rating_of(uid, speed.name()).await?);
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
    /// [`OPEN_GAME_LIFETIME`] ago ([`super::CORRESPONDENCE_OPEN_LIFETIME`] for a correspondence
    /// game); the one a direct challenge was sent to hears of it
    /// (`challengeCanceled`). Done at start and now and then; returns how many.
    pub async fn expire_open(&self) -> Result<usize, ApiError> {
        let before = now_ms().saturating_sub(OPEN_GAME_LIFETIME.as_millis() as i64);
        let ids = self.inner.db.open_before(before).await?;
        let mut n = 0;
        for id in ids {
            let Some((row, _)) = self.inner.db.game(&id).await? else {
                continue;
            };
            if !super::open_expired(row.created_ms, row.initial_ms, row.increment_ms, now_ms()) {
                // A correspondence game waits longer.
                continue;
            }
            let in_memory = lock(&self.inner.tables).contains_key(&id);
            if !in_memory && self.inner.cluster.is_none() {
                // Not in memory: ended in the database, without loading it, unless its seat
                // was taken meanwhile.
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
                    self.execute_here(&id, None, &Command::Expire, false)
                        .await?;
                } else if let Some(to) = row.invited {
                    self.notify(to, command::canceled_event(&id));
                }
                continue;
            }
            // In memory, or among several: through the game's owner, which may be this node.
            match self.execute(&id, None, Command::Expire, true).await {
                Ok(v) if !v.is_null() => n += 1,
                Ok(_) => {}
                Err(e) => eprintln!("damasi: cannot withdraw open game {id}: {e:?}"),
            }
        }
        Ok(n)
    }

    /// Loads every unfinished game so its timers run again (at start), after withdrawing the
    /// open games too old to be taken (see [`Online::expire_open`]).
    pub async fn resume_all(&self) -> Result<usize, ApiError> {
        if let Err(e) = self.expire_open().await {
            eprintln!("damasi: cannot withdraw old open games: {e:?}");
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

    pub(super) async fn rating_of(&self, user: i64, speed: &str) -> Result<RatingRow, ApiError> {
        Ok(self
            .inner
            .db
            .rating(user, speed)
            .await?
            .unwrap_or_else(rating::initial))
    }

    /// Ids, players and clocks of the games being played now (newest first, at most `limit`).
    pub async fn live_games(&self, limit: usize) -> Vec<GameFull> {
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
                out.push((s.row.created_ms, s.full(now, None)));
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

    /// The players of a stored game's seats (White's and Black's account ids).
    pub(super) async fn seats_of(
        &self,
        players: [Option<i64>; 2],
    ) -> Result<ByColor<Option<Player>>, ApiError> {
        let mut seats = ByColor::default();
        for side in Color::BOTH {
            if let Some(uid) = players[side.index()] {
                seats[side] = self.inner.db.user(uid).await?.map(Player::from);
            }
        }
        Ok(seats)
    }

    /// The challenges waiting for `to`, as lichess's `challenge` events (an event stream
    /// announces them when it opens, so a challenge sent before is not missed). Read from the
    /// database, so any process answers.
    pub async fn challenges_to(&self, to: &Player) -> Result<Vec<UserEvent>, ApiError> {
        let mut out = Vec::new();
        for id in self.inner.db.challenges_to(to.id).await? {
            let Some((row, _)) = self.inner.db.game(&id).await? else {
                continue;
            };
            let seats = self.seats_of(row.players).await?;
            let state = TableState::restore(row, seats, &[], None)?;
            out.push(UserEvent::Challenge {
                challenge: Box::new(state.challenge(to, None, "created")),
            });
        }
        Ok(out)
    }
}
