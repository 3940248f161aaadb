//! The lobby: open seeks anyone may take (time control, rated or casual, an optional rating
//! range), and quick-pairing pools (3+2, 5+3, 10+5, 15+10, 45+0) that pair the first two
//! players who join the same pool. A game starts for both the moment a seek is taken or a
//! pair is found; each player hears of it on their event stream (`gameStart`).

use damasi::Color;
use serde_json::{json, Value};

use crate::error::ApiError;

use super::accounts::Player;
use super::{NewGame, Online};

/// The pools: (minutes, increment seconds).
pub const POOLS: [(i64, i64); 5] = [(3, 2), (5, 3), (10, 5), (15, 10), (45, 0)];

/// Most seeks one player may have open.
pub const MAX_SEEKS_PER_PLAYER: usize = 3;

/// Most seeks in the lobby.
pub const MAX_SEEKS: usize = 1_000;

/// A seek nobody took is withdrawn after this long.
pub const SEEK_LIFETIME: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// An open seek.
#[derive(Clone, Debug)]
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
    pub color: Option<Color>,
    /// The opponent's rating range they accept (rated seeks).
    pub range: Option<(i64, i64)>,
    /// When it was opened.
    pub opened: tokio::time::Instant,
}

impl Seek {
    fn json(&self) -> Value {
        json!({
            "id": self.id,
            "username": self.player.name,
            "rating": self.rating,
            "rated": self.game.rated,
            "clock": { "initial": self.game.initial_ms, "increment": self.game.increment_ms },
            "speed": super::rating::Speed::of(self.game.initial_ms, self.game.increment_ms).name(),
            "color": match self.color { Some(Color::White) => "white", Some(Color::Black) => "black", None => "random" },
            "ratingRange": self.range.map(|(a, b)| format!("{a}-{b}")),
        })
    }
}

/// Seeks and pool queues.
#[derive(Default, Debug)]
pub struct Lobby {
    seeks: Vec<Seek>,
    next_id: u64,
    /// Per pool: who waits, with whether they want a rated game.
    waiting: Vec<((i64, i64), Player)>,
}

impl Online {
    /// The open seeks (old ones are withdrawn first).
    pub fn seeks(&self) -> Vec<Value> {
        let mut lobby = self.lobby();
        lobby.seeks.retain(|s| s.opened.elapsed() < SEEK_LIFETIME);
        lobby.seeks.iter().map(Seek::json).collect()
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
        let speed = super::rating::Speed::of(game.initial_ms, game.increment_ms);
        let rating = if game.rated {
            Some(
                self.rating_of(player.id, speed.name())
                    .await?
                    .rating
                    .round() as i64,
            )
        } else {
            None
        };
        let mut lobby = self.lobby();
        let mine = lobby
            .seeks
            .iter()
            .filter(|s| s.player.id == player.id)
            .count();
        if mine >= MAX_SEEKS_PER_PLAYER || lobby.seeks.len() >= MAX_SEEKS {
            return Err(ApiError::TooMany(format!(
                "at most {MAX_SEEKS_PER_PLAYER} open seeks each"
            )));
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
            opened: tokio::time::Instant::now(),
        });
        Ok(id)
    }

    /// `player` withdraws seek `id` (their own).
    pub fn cancel_seek(&self, player: &Player, id: u64) -> Result<(), ApiError> {
        let mut lobby = self.lobby();
        let before = lobby.seeks.len();
        lobby
            .seeks
            .retain(|s| !(s.id == id && s.player.id == player.id));
        if lobby.seeks.len() == before {
            return Err(ApiError::NotFound(format!("you have no seek {id}")));
        }
        Ok(())
    }

    /// `player` takes seek `id`: the game starts for both. Returns the game id.
    pub async fn accept_seek(&self, player: &Player, id: u64) -> Result<String, ApiError> {
        let seek = {
            let mut lobby = self.lobby();
            let i = lobby.seeks.iter().position(|s| s.id == id).ok_or_else(|| {
                ApiError::NotFound(format!("no seek {id}: it was taken or withdrawn"))
            })?;
            let s = &lobby.seeks[i];
            if s.player.id == player.id {
                return Err(ApiError::conflict("own-seek", "this is your own seek"));
            }
            player.check_may_play(s.game.rated)?;
            lobby.seeks.remove(i)
        };
        if let Some((lo, hi)) = seek.range {
            let speed = super::rating::Speed::of(seek.game.initial_ms, seek.game.increment_ms);
            let mine = self
                .rating_of(player.id, speed.name())
                .await?
                .rating
                .round() as i64;
            if mine < lo || mine > hi {
                self.lobby().seeks.push(seek);
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
        let table = self.create_paired(w, b, seek.game).await?;
        // Both are playing now: their other seeks and pool places go.
        let mut lobby = self.lobby();
        lobby
            .seeks
            .retain(|s| s.player.id != w.id && s.player.id != b.id);
        lobby.waiting.retain(|(_, p)| p.id != w.id && p.id != b.id);
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
        let opponent = {
            let mut lobby = self.lobby();
            lobby.waiting.retain(|(_, p)| p.id != player.id);
            match lobby.waiting.iter().position(|(q, _)| *q == pool) {
                Some(i) => Some(lobby.waiting.remove(i).1),
                None => {
                    lobby.waiting.push((pool, player.clone()));
                    None
                }
            }
        };
        let Some(opponent) = opponent else {
            return Ok(None);
        };
        let game = NewGame {
            initial_ms: minutes * 60_000,
            increment_ms: increment * 1000,
            rated: !player.guest && !opponent.guest,
            chat: true,
        };
        let (w, b) = if super::random_color() == Color::White {
            (&opponent, player)
        } else {
            (player, &opponent)
        };
        let table = self.create_paired(w, b, game).await?;
        Ok(Some(table.id.clone()))
    }

    /// `player` leaves every pool.
    pub fn leave_pools(&self, player: &Player) {
        self.lobby().waiting.retain(|(_, p)| p.id != player.id);
    }

    /// How many wait in each pool.
    pub fn pools(&self) -> Vec<Value> {
        let lobby = self.lobby();
        POOLS
            .iter()
            .map(|&(m, i)| {
                let n = lobby.waiting.iter().filter(|(q, _)| *q == (m, i)).count();
                json!({"id": format!("{m}+{i}"), "minutes": m, "increment": i, "waiting": n})
            })
            .collect()
    }
}
