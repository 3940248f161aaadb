//! A player's own data: everything the site holds about them, to download, and closing the
//! account. A closed account's games stay for its opponents, under a new name that does not
//! identify it (`closed-` and random digits); its old name is kept out of use (only the
//! name's hash is kept, tied to no account), and its password, sessions, tokens, linked
//! accounts and follows and blocks are forgotten.

use serde_json::{json, Value};

use crate::accounts::{new_secret, retired_hash, wrong_password, Player};
use crate::error::ApiError;
use crate::{now_ms, Online};

/// The prefix of a closed account's new name (reserved: nobody signs up with it).
pub const CLOSED_PREFIX: &str = "closed-";

/// Most games listed in [`Online::account_data`] (the games themselves are downloaded as
/// PDN from `GET /api/games/user/{name}`).
pub const MAX_LISTED_GAMES: i64 = 10_000;

impl Online {
    /// Everything the site holds about `player`, as JSON: the account (with its e-mail address), its ratings and rating
    /// history, its record, its follows and blocks, its sessions and tokens (when issued,
    /// never the secrets), and its games (ids, dates, results; their moves are in the PDN
    /// download).
    pub async fn account_data(&self, player: &Player) -> Result<Value, ApiError> {
        let db = self.db();
        let (user, email) = db
            .user_and_email(player.id)
            .await?
            .ok_or_else(|| ApiError::NotFound("the account is gone".into()))?;
        let ratings: serde_json::Map<String, Value> = db
            .ratings(player.id)
            .await?
            .into_iter()
            .map(|(speed, r)| {
                let v = json!({"rating": r.rating, "deviation": r.deviation,
                    "volatility": r.volatility, "games": r.games});
                (speed, v)
            })
            .collect();
        let history: Vec<Value> = db
            .rating_history(player.id)
            .await?
            .into_iter()
            .map(|p| json!({"speed": p.speed, "at": p.at_ms, "rating": p.rating}))
            .collect();
        let record = db.record(player.id).await?;
        let names = |rows: Vec<crate::db::UserRow>| -> Vec<String> {
            rows.into_iter().map(|u| u.name).collect()
        };
        let following = names(self.relations().following(player).await?);
        let blocking = names(self.relations().blocked(player).await?);
        let credentials: Vec<Value> = self
            .accounts()
            .secrets_of(player)
            .await?
            .into_iter()
            .map(|s| json!({"kind": s.kind.as_str(), "issuedAt": s.created_ms}))
            .collect();
        let games: Vec<Value> = db
            .games_of(player.id, MAX_LISTED_GAMES)
            .await?
            .into_iter()
            .map(|g| {
                json!({"id": g.row.id, "createdAt": g.row.created_ms, "rated": g.row.rated,
                    "status": g.row.status, "outcome": g.row.outcome})
            })
            .collect();
        Ok(json!({
            "account": {"id": user.id, "name": user.name, "guest": user.guest,
                "bot": user.bot, "hasPassword": user.password.is_some(),
                "email": email.as_ref().map(|e| &e.address),
                "emailConfirmedAt": email.as_ref().and_then(|e| e.confirmed_ms)},
            "ratings": ratings,
            "ratingHistory": history,
            "record": {"all": record.all, "win": record.wins, "draw": record.draws,
                "loss": record.losses, "rated": record.rated},
            "following": following,
            "blocking": blocking,
            "sessionsAndTokens": credentials,
            "games": games,
            "exportedAt": now_ms(),
        }))
    }

    /// Closes `player`'s account, asking its password if it has one (a program's account,
    /// with none, closes by its token). Refused while the player is in a game (409
    /// `playing`: finish or resign it first). Answers the account's new name.
    pub async fn close_account(
        &self,
        player: &Player,
        password: Option<String>,
    ) -> Result<String, ApiError> {
        if player.guest {
            return Err(ApiError::BadRequest(
                "a guest has no account to close: it is forgotten when the session ends".into(),
            ));
        }
        let db = self.db();
        let user = db
            .user(player.id)
            .await?
            .ok_or_else(|| ApiError::NotFound("the account is gone".into()))?;
        if let Some(hash) = user.password {
            let given = password.filter(|p| !p.is_empty()).ok_or_else(|| {
                ApiError::BadRequest("password: give the account's password to close it".into())
            })?;
            if !crate::accounts::verify_password(given, hash).await? {
                return Err(wrong_password());
            }
        }
        self.close_now(player, &user.name).await
    }

    /// Closes `player`'s account for a moderator (no password asked; not while playing
    /// either). Answers the account's new name.
    pub(crate) async fn close_account_by_moderator(
        &self,
        player: &Player,
    ) -> Result<String, ApiError> {
        self.close_now(player, &player.name).await
    }

    /// Closes `player`'s account, called `old_name`, unless it is in a game.
    async fn close_now(&self, player: &Player, old_name: &str) -> Result<String, ApiError> {
        let db = self.db();
        if let Some(game) = db.playing_of(player.id, 1).await?.into_iter().next() {
            return Err(ApiError::conflict(
                "playing",
                format!(
                    "{} is playing game {game}: finish or resign it first",
                    player.name
                ),
            ));
        }
        let new_name = format!("{CLOSED_PREFIX}{}", &new_secret()?[..10]);
        db.close_user(
            player.id,
            retired_hash(old_name),
            new_name.clone(),
            now_ms(),
        )
        .await?;
        // Its second factor and recovery codes are forgotten with its password.
        db.disable_two_factor(player.id).await?;
        // Its sockets and streams end now.
        self.accounts().revoked_now(player.id);
        eprintln!("damasi: an account was closed (now {new_name})");
        Ok(new_name)
    }
}
