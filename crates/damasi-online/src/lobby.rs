//! The lobby: open seeks anyone may take (time control, rated or casual, an optional rating
//! range), and quick-pairing pools (3+2, 5+3, 10+5, 15+10, 45+0) that pair the first two
//! players who join the same pool. A game starts for both the moment a seek is taken or a
//! pair is found; each player hears of it on their event stream (`gameStart`).
//!
//! Seeks and pool places live as long as their owner listens: they go a moment
//! ([`OnlineConfig::lobby_reconnect`](super::OnlineConfig), enough for a reload) after the
//! owner's last event stream (`GET /api/stream/event`, which the lobby page keeps open)
//! closes, and one made with no stream open goes after `lobby_grace` unless one opens
//! meanwhile (as on lichess, where a seek is tied to the lobby socket or the request that
//! made it). So a guest who left is never paired, and the lobby holds no
//! more than the players connected can keep open: there is no global cap a stranger could
//! fill, only a per-player one and a large safety bound.
//! Among several processes a place goes with its owner's last stream on the process that
//! held it; the grace applies to one process only (the others do not see its streams).

use std::collections::HashMap;

use damasi::Color;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::now_ms;

use super::accounts::Player;
use super::{NewGame, Online};

/// The pools: (minutes, increment seconds).
pub const POOLS: [(i64, i64); 5] = [(3, 2), (5, 3), (10, 5), (15, 10), (45, 0)];

/// Most seeks one player may have open.
pub const MAX_SEEKS_PER_PLAYER: usize = 3;

/// Most seeks in the lobby: a bound on memory only, far above what the streams a stranger can
/// hold open (the web edge's `streams`) could keep there.
pub const MAX_SEEKS: usize = 20_000;

/// Most players waiting in the pools (the same kind of bound).
pub const MAX_WAITING: usize = 20_000;

/// A seek nobody took is withdrawn after this long.
pub const SEEK_LIFETIME: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// An open seek.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Seek {
    /// Its id.
    pub id: u64,
    /// Who seeks.
    pub player: Player,
    /// Their rating in the seek's speed class (rated seeks).
    pub rating: Option<i64>,
    /// The game they want.
    pub game: NewGame,
    /// The colour they want (none: random).
    #[serde(with = "crate::messages::side_serde")]
    pub color: Option<Color>,
    /// The opponent's rating range they accept (rated seeks).
    pub range: Option<(i64, i64)>,
    /// When it was opened (Unix ms).
    pub opened_ms: i64,
}

impl Seek {
    fn json(&self) -> Value {
        json!({
            "id": self.id,
            "username": self.player.name,
            "rating": self.rating,
            "rated": self.game.rated,
            "clock": { "initial": self.game.initial_ms, "increment": self.game.increment_ms },
            // A correspondence seek's days a move (lichess's `days`), null for a live one.
            "days": self.game.days_per_turn(),
            "speed": super::rating::Speed::of(self.game.initial_ms, self.game.increment_ms).name(),
            "color": self.color.map_or("random", Color::name),
            "ratingRange": self.range.map(|(a, b)| format!("{a}-{b}")),
            "variant": crate::variant::json(&self.game.rules),
        })
    }
}

/// One player waiting in a pool.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct PoolPlace {
    /// The pool: (minutes, increment seconds).
    pool: (i64, i64),
    /// Who waits.
    player: Player,
    /// Since when (Unix ms).
    since_ms: i64,
}

/// Seeks and pool queues (in a cluster, kept in the database as JSON).
#[derive(Default, Debug, Serialize, Deserialize)]
pub struct Lobby {
    seeks: Vec<Seek>,
    next_id: u64,
    /// Who waits in which pool, first come first.
    #[serde(default)]
    places: Vec<PoolPlace>,
}

impl Lobby {
    /// Drops the seeks and places that are no longer `held` (owner, made at).
    fn drop_unheld(&mut self, held: &dyn Fn(i64, i64) -> bool) {
        self.seeks.retain(|s| held(s.player.id, s.opened_ms));
        self.places.retain(|p| held(p.player.id, p.since_ms));
    }

    /// Drops everything of `user`.
    fn drop_player(&mut self, user: i64) {
        self.seeks.retain(|s| s.player.id != user);
        self.places.retain(|p| p.player.id != user);
    }
}

/// What joining a pool found under the lobby's lock.
enum PoolPick {
    /// Players to ask about (blocks) before one can be chosen.
    Ask(Vec<i64>),
    /// The opponent, taken out of the pool.
    Paired(Player),
    /// Nobody to meet: the player waits.
    Waiting,
}

/// The database key of the shared lobby.
const LOBBY_KEY: &str = "lobby";

/// The lobby: open seeks and the quick-pairing pools, a view of the service
/// ([`Online::matchmaking`]). In a cluster the lobby is shared through the database.
#[derive(Clone, Copy)]
pub struct Matchmaking<'a> {
    online: &'a Online,
}

impl Online {
    /// The lobby: open seeks and the quick-pairing pools.
    pub fn matchmaking(&self) -> Matchmaking<'_> {
        Matchmaking { online: self }
    }
}

impl Matchmaking<'_> {
    /// Changes the lobby with `change`: this process's, or in a cluster the shared one, under
    /// its row lock (one process pairs at a time).
    async fn with_lobby<R>(&self, change: impl FnOnce(&mut Lobby) -> R) -> Result<R, ApiError> {
        let Some(cluster) = &self.online.inner.cluster else {
            let mut lobby = self.online.lobby();
            let now = now_ms();
            lobby.drop_unheld(&|user, since| self.online.held(user, since, now));
            return Ok(change(&mut lobby));
        };
        cluster
            .db
            .update_shared(LOBBY_KEY, |text| {
                let mut lobby: Lobby = serde_json::from_str(text).unwrap_or_default();
                let out = change(&mut lobby);
                *text = serde_json::to_string(&lobby).unwrap_or_default();
                out
            })
            .await
    }

    /// A copy of the lobby (read only).
    async fn lobby_now(&self) -> Result<Lobby, ApiError> {
        let Some(cluster) = &self.online.inner.cluster else {
            let mut l = self.online.lobby();
            let now = now_ms();
            l.drop_unheld(&|user, since| self.online.held(user, since, now));
            return Ok(Lobby {
                seeks: l.seeks.clone(),
                next_id: l.next_id,
                places: l.places.clone(),
            });
        };
        let text = cluster.db.shared(LOBBY_KEY).await?;
        Ok(serde_json::from_str(&text).unwrap_or_default())
    }

    /// The open seeks (old ones are withdrawn first).
    pub async fn seeks(&self) -> Result<Vec<Value>, ApiError> {
        self.seeks_for(None).await
    }

    /// The open seeks as `viewer` sees them: without those of the players `viewer` blocks
    /// (those who block `viewer` are refused when their seek is taken, see
    /// [`Matchmaking::accept_seek`]).
    pub async fn seeks_for(&self, viewer: Option<&Player>) -> Result<Vec<Value>, ApiError> {
        let now = now_ms();
        let fresh = |s: &Seek| now - s.opened_ms < SEEK_LIFETIME.as_millis() as i64;
        let lobby = self.lobby_now().await?;
        let seeks = if lobby.seeks.iter().all(fresh) {
            lobby.seeks
        } else {
            self.with_lobby(|lobby| {
                lobby.seeks.retain(fresh);
                lobby.seeks.clone()
            })
            .await?
        };
        let hidden: Vec<i64> = match viewer {
            Some(v) if !v.guest && !seeks.is_empty() => self
                .online
                .relations()
                .blocked(v)
                .await?
                .iter()
                .map(|u| u.id)
                .collect(),
            _ => Vec::new(),
        };
        Ok(seeks
            .iter()
            .filter(|s| !hidden.contains(&s.player.id))
            .map(Seek::json)
            .collect())
    }

    /// `player` opens a seek; returns its id.
    pub async fn seek(
        &self,
        player: &Player,
        game: NewGame,
        color: Option<Color>,
        range: Option<(i64, i64)>,
    ) -> Result<u64, ApiError> {
        game.check()?;
        player.check_may_play(game.rated)?;
        player.check_lobby()?;
        if game.rated {
            self.online
                .moderation()
                .check_may_play_rated(player)
                .await?;
        }
        let speed = super::rating::Speed::of(game.initial_ms, game.increment_ms);
        let rating = if game.rated {
            Some(
                self.online
                    .rating_of(player.id, speed.name())
                    .await?
                    .rating
                    .round() as i64,
            )
        } else {
            None
        };
        self.with_lobby(|lobby| {
            let mine = lobby
                .seeks
                .iter()
                .filter(|s| s.player.id == player.id)
                .count();
            if mine >= MAX_SEEKS_PER_PLAYER {
                return Err(ApiError::TooMany(format!(
                    "at most {MAX_SEEKS_PER_PLAYER} open seeks each"
                )));
            }
            if lobby.seeks.len() >= MAX_SEEKS {
                return Err(ApiError::Overloaded(
                    "the lobby is full: try again in a moment".into(),
                ));
            }
            lobby.next_id += 1;
            let id = lobby.next_id;
            lobby.seeks.push(Seek {
                id,
                player: player.clone(),
                rating,
                game,
                color,
                range: if game.rated { range } else { None },
                opened_ms: now_ms(),
            });
            Ok(id)
        })
        .await?
    }

    /// `player` withdraws seek `id` (their own).
    pub async fn cancel_seek(&self, player: &Player, id: u64) -> Result<(), ApiError> {
        self.with_lobby(|lobby| {
            let before = lobby.seeks.len();
            lobby
                .seeks
                .retain(|s| !(s.id == id && s.player.id == player.id));
            if lobby.seeks.len() == before {
                return Err(ApiError::NotFound(format!("you have no seek {id}")));
            }
            Ok(())
        })
        .await?
    }

    /// `player` takes seek `id`: the game starts for both. Returns the game id.
    pub async fn accept_seek(&self, player: &Player, id: u64) -> Result<String, ApiError> {
        player.check_lobby()?;
        // A seek's owner and game never change: they may be asked before taking it.
        let (owner, rated) = self
            .lobby_now()
            .await?
            .seeks
            .iter()
            .find(|s| s.id == id)
            .map_or((None, false), |s| (Some(s.player.clone()), s.game.rated));
        if rated {
            self.online
                .moderation()
                .check_may_play_rated(player)
                .await?;
        }
        if let Some(owner) = owner.filter(|o| o.id != player.id) {
            if self
                .online
                .relations()
                .either_blocks(owner.id, player.id)
                .await?
            {
                return Err(ApiError::Forbidden {
                    code: "blocked",
                    message: format!("you and {} cannot play: one blocks the other", owner.name),
                });
            }
        }
        let seek = self
            .with_lobby(|lobby| {
                let i = lobby.seeks.iter().position(|s| s.id == id).ok_or_else(|| {
                    ApiError::NotFound(format!("no seek {id}: it was taken or withdrawn"))
                })?;
                let s = &lobby.seeks[i];
                if s.player.id == player.id {
                    return Err(ApiError::conflict("own-seek", "this is your own seek"));
                }
                player.check_may_play(s.game.rated)?;
                Ok(lobby.seeks.remove(i))
            })
            .await??;
        if let Some((lo, hi)) = seek.range {
            let speed = super::rating::Speed::of(seek.game.initial_ms, seek.game.increment_ms);
            let mine = self
                .online
                .rating_of(player.id, speed.name())
                .await?
                .rating
                .round() as i64;
            if mine < lo || mine > hi {
                self.with_lobby(|lobby| lobby.seeks.push(seek)).await?;
                return Err(ApiError::Forbidden {
                    code: "rating-range",
                    message: format!("this seek wants a rating from {lo} to {hi}; yours is {mine}"),
                });
            }
        }
        // The seeker's colour wish decides; random otherwise.
        let seeker_white = match seek.color {
            Some(c) => c == Color::White,
            None => super::random_color() == Color::White,
        };
        let (w, b) = if seeker_white {
            (&seek.player, player)
        } else {
            (player, &seek.player)
        };
        let table = self.online.create_paired(w, b, seek.game).await?;
        // Both are playing now: their other seeks and pool places go.
        let (wid, bid) = (w.id, b.id);
        self.with_lobby(|lobby| {
            lobby
                .seeks
                .retain(|s| s.player.id != wid && s.player.id != bid);
            lobby
                .places
                .retain(|p| p.player.id != wid && p.player.id != bid);
        })
        .await?;
        Ok(table.id.clone())
    }

    /// `player` joins the pool `minutes`+`increment`: paired at once with whoever waits there
    /// (rated when both have accounts), else waits. Returns the game id if paired.
    pub async fn join_pool(
        &self,
        player: &Player,
        minutes: i64,
        increment: i64,
    ) -> Result<Option<String>, ApiError> {
        player.check_lobby()?;
        // The pools pair accounts for rated games.
        if !player.guest {
            self.online
                .moderation()
                .check_may_play_rated(player)
                .await?;
        }
        let pool = (minutes, increment);
        if !POOLS.contains(&pool) {
            return Err(ApiError::NotFound(format!(
                "no pool {minutes}+{increment}; the pools are {}",
                POOLS
                    .iter()
                    .map(|(m, i)| format!("{m}+{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        // Who waits there and may meet `player` (neither blocks the other), found out of the
        // lobby's lock; whoever came meanwhile is asked about on the next pass.
        let mut may_meet: HashMap<i64, bool> = HashMap::new();
        let mut passes = 0;
        let opponent = loop {
            passes += 1;
            let last_pass = passes > 3;
            let pick = self
                .with_lobby(|lobby| {
                    lobby.places.retain(|p| p.player.id != player.id);
                    let unknown: Vec<i64> = lobby
                        .places
                        .iter()
                        .filter(|p| p.pool == pool && !may_meet.contains_key(&p.player.id))
                        .map(|p| p.player.id)
                        .collect();
                    if !unknown.is_empty() && !last_pass {
                        return Ok(PoolPick::Ask(unknown));
                    }
                    let ok = |p: &PoolPlace| may_meet.get(&p.player.id) == Some(&true);
                    match lobby.places.iter().position(|p| p.pool == pool && ok(p)) {
                        Some(i) => Ok(PoolPick::Paired(lobby.places.remove(i).player)),
                        None if lobby.places.len() >= MAX_WAITING => Err(ApiError::Overloaded(
                            "the pools are full: try again in a moment".into(),
                        )),
                        None => {
                            lobby.places.push(PoolPlace {
                                pool,
                                player: player.clone(),
                                since_ms: now_ms(),
                            });
                            Ok(PoolPick::Waiting)
                        }
                    }
                })
                .await??;
            match pick {
                PoolPick::Ask(ids) => {
                    for id in ids {
                        let blocked = self.online.relations().either_blocks(player.id, id).await?;
                        may_meet.insert(id, !blocked);
                    }
                }
                PoolPick::Paired(opponent) => break opponent,
                PoolPick::Waiting => return Ok(None),
            }
        };
        let game = NewGame {
            initial_ms: minutes * 60_000,
            increment_ms: increment * 1000,
            rated: !player.guest && !opponent.guest,
            chat: true,
            // The pools play the federation's rules (one queue per control).
            rules: damasi::RuleSet::default(),
        };
        let (w, b) = if super::random_color() == Color::White {
            (&opponent, player)
        } else {
            (player, &opponent)
        };
        let table = self.online.create_paired(w, b, game).await?;
        Ok(Some(table.id.clone()))
    }

    /// `player` leaves every pool.
    pub async fn leave_pools(&self, player: &Player) -> Result<(), ApiError> {
        self.with_lobby(|lobby| lobby.places.retain(|p| p.player.id != player.id))
            .await
    }

    /// How many wait in each pool.
    pub async fn pools(&self) -> Result<Vec<Value>, ApiError> {
        let lobby = self.lobby_now().await?;
        Ok(POOLS
            .iter()
            .map(|&(m, i)| {
                let n = lobby.places.iter().filter(|p| p.pool == (m, i)).count();
                json!({"id": format!("{m}+{i}"), "minutes": m, "increment": i, "waiting": n})
            })
            .collect())
    }
}

impl Online {
    /// Whether `user` has an event stream open on this process.
    pub fn listening(&self, user: i64) -> bool {
        super::lock(&self.inner.listeners)
            .get(&user)
            .is_some_and(|l| l.open > 0)
    }

    /// Whether a seek or place of `user` made at `since_ms` still stands at `now`: while
    /// they listen; for `lobby_reconnect` after their last stream closed (a reload); for
    /// `lobby_grace` after it was made if no stream of theirs closed since.
    fn held(&self, user: i64, since_ms: i64, now: i64) -> bool {
        let config = self.inner.config;
        match super::lock(&self.inner.listeners).get(&user) {
            Some(l) if l.open > 0 => true,
            Some(l) if l.closed_ms >= since_ms => {
                now - l.closed_ms < config.lobby_reconnect.as_millis() as i64
            }
            _ => now - since_ms < config.lobby_grace.as_millis() as i64,
        }
    }

    /// Counts an event stream of `player` as open until the answer is dropped; a moment after
    /// their last one closes (unless one opens again), their seeks and pool places go.
    pub fn listen(&self, player: &Player) -> Listening {
        let mut listeners = super::lock(&self.inner.listeners);
        let l = listeners.entry(player.id).or_default();
        l.open += 1;
        l.bot = player.bot;
        Listening {
            online: self.clone(),
            user: player.id,
        }
    }

    /// The BOT accounts with an event stream open on this process (lichess's "online
    /// bots"), at most `limit`, by id.
    pub fn bots_listening(&self, limit: usize) -> Vec<i64> {
        let mut bots: Vec<i64> = super::lock(&self.inner.listeners)
            .iter()
            .filter(|(_, l)| l.open > 0 && l.bot)
            .map(|(&id, _)| id)
            .collect();
        bots.sort_unstable();
        bots.truncate(limit);
        bots
    }
}

/// One player's event streams on this process.
#[derive(Clone, Copy, Debug, Default)]
pub struct Listener {
    /// How many are open.
    open: usize,
    /// When the last one closed (Unix ms).
    closed_ms: i64,
    /// Whether the player is a BOT account.
    bot: bool,
}

/// An open event stream of one player (see [`Online::listen`]).
pub struct Listening {
    online: Online,
    user: i64,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let last = {
            let mut listeners = super::lock(&self.online.inner.listeners);
            let l = listeners.entry(self.user).or_default();
            l.open = l.open.saturating_sub(1);
            if l.open == 0 {
                l.closed_ms = now_ms();
            }
            l.open == 0
        };
        if !last {
            return;
        }
        let (online, user) = (self.online.clone(), self.user);
        let wait = online.inner.config.lobby_reconnect + std::time::Duration::from_millis(50);
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                tokio::time::sleep(wait).await;
                if online.listening(user) {
                    return; // back (a reload)
                }
                // Alone, reading the lobby drops what is no longer held; among several, this
                // process only knows its own streams, so it withdraws the player's.
                let clustered = online.inner.cluster.is_some();
                let cleared = online
                    .matchmaking()
                    .with_lobby(|lobby| {
                        if clustered {
                            lobby.drop_player(user);
                        }
                    })
                    .await;
                if let Err(e) = cleared {
                    eprintln!("damasi: cannot clear player {user}'s seeks: {e:?}");
                }
                let now = now_ms();
                super::lock(&online.inner.listeners)
                    .retain(|_, l| l.open > 0 || now - l.closed_ms < 60_000);
            });
        }
    }
}
