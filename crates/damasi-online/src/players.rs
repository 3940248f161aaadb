//! Players finding each other: following (and who of the followed is online now), blocking
//! (a blocked player's challenges are refused and their chat lines are not shown to the one
//! who blocked them), profiles' records and rating histories, and the leaderboards.
//!
//! "Online" is what this process sees: an open event stream (`GET /api/stream/event`, which
//! the lobby page keeps open) or a game WebSocket of the player. Among several processes
//! (`--pubsub`) each one knows only its own connections.

use std::time::Duration;

use crate::accounts::Player;
use crate::db::{LeaderRow, Relation, UserRow};
use crate::error::ApiError;
use crate::rating::{self, Speed};
use crate::{lock, now_ms, Online};

/// Most players one may follow (or block).
pub const MAX_RELATIONS: i64 = 1000;

/// Most lines of a leaderboard.
pub const MAX_LEADERBOARD: usize = 100;

/// A leaderboard lists the players who played a rated game of its speed this recently.
pub const ACTIVE_WITHIN: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// A connection (a game WebSocket) of a player, counted as them being online until dropped.
pub struct Presence {
    online: Online,
    user: i64,
}

impl Drop for Presence {
    fn drop(&mut self) {
        let mut present = lock(&self.online.inner.present);
        if let Some(n) = present.get_mut(&self.user) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                present.remove(&self.user);
            }
        }
    }
}

/// The speed class called `name` (`bullet`, `blitz`, `rapid`, `classical`,
/// `correspondence`).
pub fn parse_speed(name: &str) -> Result<Speed, ApiError> {
    Speed::ALL
        .into_iter()
        .find(|s| s.name().eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "no speed class '{name}': bullet, blitz, rapid, classical or correspondence"
            ))
        })
}

impl Online {
    /// Counts a connection of `user` (a game WebSocket) as them being online until the
    /// answer is dropped.
    pub fn present(&self, user: i64) -> Presence {
        *lock(&self.inner.present).entry(user).or_default() += 1;
        Presence {
            online: self.clone(),
            user,
        }
    }

    /// Whether `user` has an event stream or a game WebSocket open on this process.
    pub fn is_online(&self, user: i64) -> bool {
        self.listening(user) || lock(&self.inner.present).contains_key(&user)
    }

    /// The account called `name` (any case), or a 404 that says so.
    pub async fn user_named(&self, name: &str) -> Result<UserRow, ApiError> {
        let valid = !name.is_empty() && name.len() <= 40;
        let found = if valid {
            self.db().user_by_name(name).await?
        } else {
            None
        };
        found.ok_or_else(|| ApiError::NotFound(format!("no player called '{name}'")))
    }

    /// The leaderboard of `speed`, at most `nb` lines (at most [`MAX_LEADERBOARD`]): accounts
    /// whose rating there is not provisional and who played a rated game there within
    /// [`ACTIVE_WITHIN`], best first.
    pub async fn leaderboard(&self, speed: Speed, nb: usize) -> Result<Vec<LeaderRow>, ApiError> {
        self.leaders(
            speed,
            nb.min(MAX_LEADERBOARD),
            rating::PROVISIONAL_DEVIATION,
        )
        .await
    }

    /// [`Online::leaderboard`] followed, when there is room left in its `nb` lines, by the
    /// active players whose rating is still provisional (best first too): a new club's board
    /// is not empty after its first event. [`rating::is_provisional`] tells them apart.
    pub async fn leaderboard_with_provisional(
        &self,
        speed: Speed,
        nb: usize,
    ) -> Result<Vec<LeaderRow>, ApiError> {
        let mut rows = self.leaderboard(speed, nb).await?;
        let nb = nb.min(MAX_LEADERBOARD);
        if rows.len() < nb {
            // Everybody active, best first: the established ones are already listed.
            let all = self.leaders(speed, nb + rows.len(), f64::MAX).await?;
            let room = nb - rows.len();
            rows.extend(
                all.into_iter()
                    .filter(|r| rating::is_provisional(&r.rating))
                    .take(room),
            );
        }
        Ok(rows)
    }

    /// The active accounts of `speed` whose deviation is at most `max_deviation`, best first.
    async fn leaders(
        &self,
        speed: Speed,
        nb: usize,
        max_deviation: f64,
    ) -> Result<Vec<LeaderRow>, ApiError> {
        let since = now_ms().saturating_sub(ACTIVE_WITHIN.as_millis() as i64);
        self.db()
            .leaderboard(speed.name(), max_deviation, since, nb as i64)
            .await
    }
}

/// Follows and blocks between players, a view of the service ([`Online::relations`]).
#[derive(Clone, Copy)]
pub struct Relations<'a> {
    online: &'a Online,
}

impl Online {
    /// Follows and blocks between players.
    pub fn relations(&self) -> Relations<'_> {
        Relations { online: self }
    }
}

impl Relations<'_> {
    /// The other account of a follow or a block by `by`: an account (not `by`, not a
    /// guest's own action).
    async fn other(&self, by: &Player, name: &str) -> Result<UserRow, ApiError> {
        if by.guest {
            return Err(ApiError::Forbidden {
                code: "guest",
                message: "guests cannot follow or block players: sign up first".into(),
            });
        }
        let to = self.online.user_named(name).await?;
        if to.id == by.id {
            return Err(ApiError::BadRequest(
                "you cannot follow or block yourself".into(),
            ));
        }
        Ok(to)
    }

    /// `by` follows the player called `name` (which unblocks them if they were blocked).
    pub async fn follow(&self, by: &Player, name: &str) -> Result<UserRow, ApiError> {
        self.relate(by, name, Relation::Follow).await
    }

    /// `by` blocks the player called `name` (which stops following them).
    pub async fn block(&self, by: &Player, name: &str) -> Result<UserRow, ApiError> {
        self.relate(by, name, Relation::Block).await
    }

    async fn relate(
        &self,
        by: &Player,
        name: &str,
        relation: Relation,
    ) -> Result<UserRow, ApiError> {
        let to = self.other(by, name).await?;
        if self.online.db().relation(by.id, to.id).await? != Some(relation)
            && self
                .online
                .db()
                .related(by.id, relation, MAX_RELATIONS)
                .await?
                .len() as i64
                >= MAX_RELATIONS
        {
            return Err(ApiError::conflict(
                "too-many-relations",
                format!(
                    "you cannot {} more than {MAX_RELATIONS} players",
                    relation.as_str()
                ),
            ));
        }
        self.online
            .db()
            .set_relation(by.id, to.id, relation, now_ms())
            .await?;
        Ok(to)
    }

    /// `by` stops following the player called `name` (nothing if they did not).
    pub async fn unfollow(&self, by: &Player, name: &str) -> Result<UserRow, ApiError> {
        self.unrelate(by, name, Relation::Follow).await
    }

    /// `by` unblocks the player called `name` (nothing if they had not blocked them).
    pub async fn unblock(&self, by: &Player, name: &str) -> Result<UserRow, ApiError> {
        self.unrelate(by, name, Relation::Block).await
    }

    async fn unrelate(
        &self,
        by: &Player,
        name: &str,
        relation: Relation,
    ) -> Result<UserRow, ApiError> {
        let to = self.other(by, name).await?;
        self.online
            .db()
            .clear_relation(by.id, to.id, relation)
            .await?;
        Ok(to)
    }

    /// The players `by` follows, by name.
    pub async fn following(&self, by: &Player) -> Result<Vec<UserRow>, ApiError> {
        self.online
            .db()
            .related(by.id, Relation::Follow, MAX_RELATIONS)
            .await
    }

    /// The players `by` blocks, by name.
    pub async fn blocked(&self, by: &Player) -> Result<Vec<UserRow>, ApiError> {
        self.online
            .db()
            .related(by.id, Relation::Block, MAX_RELATIONS)
            .await
    }

    /// Whether `blocker` blocks `other`.
    pub async fn blocks(&self, blocker: i64, other: i64) -> Result<bool, ApiError> {
        Ok(self.online.db().relation(blocker, other).await? == Some(Relation::Block))
    }

    /// Whether `a` blocks `b` or `b` blocks `a`: such two are never paired by the lobby.
    pub async fn either_blocks(&self, a: i64, b: i64) -> Result<bool, ApiError> {
        Ok(self.blocks(a, b).await? || self.blocks(b, a).await?)
    }
}
