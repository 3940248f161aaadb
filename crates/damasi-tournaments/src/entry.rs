//! What Swiss tournaments and arenas check alike: who may organise, who may join, who may
//! press the organiser's buttons, and the rating a player enters with.

use damasi_online::accounts::{secret_hash, Player};
use damasi_online::error::ApiError;
use damasi_online::rating::Speed;
use damasi_online::{NewGame, Online};

use damasi::RuleSet;

use crate::swiss::Entry;

/// Rating of a player with none in the speed class.
const UNRATED: u32 = 1500;

/// Checks a new tournament's organiser, time control and rules (see [`NewGame::check`]), and puts the password (if any)
/// in its entry rule as a hash.
pub(crate) fn check_new(
    by: &Player,
    initial_ms: i64,
    increment_ms: i64,
    rated: bool,
    rules: RuleSet,
    password: Option<String>,
    entry: &mut Entry,
) -> Result<(), ApiError> {
    if by.guest {
        return Err(ApiError::Forbidden {
            code: "guests-cannot-organise",
            message: "sign up to organise a tournament".into(),
        });
    }
    NewGame {
        initial_ms,
        increment_ms,
        rated,
        chat: true,
        rules,
    }
    .check()?;
    if let Some(p) = password.filter(|p| !p.is_empty()) {
        *entry = Entry::Password {
            hash: secret_hash(&p),
        };
    }
    Ok(())
}

/// Checks that `player` may join: an account for a rated tournament, and the password
/// when the entry needs one (unless `known`: a player coming back).
pub(crate) fn check_join(
    player: &Player,
    rated: bool,
    entry: &Entry,
    known: bool,
    password: Option<&str>,
) -> Result<(), ApiError> {
    player.check_may_play(rated)?;
    if let Entry::Password { hash } = entry {
        if !known && password.map(secret_hash).as_ref() != Some(hash) {
            return Err(ApiError::Forbidden {
                code: "wrong-password",
                message: "this tournament needs its password to join".into(),
            });
        }
    }
    Ok(())
}

/// Refuses the organiser's buttons to anybody else.
pub(crate) fn check_organiser(created_by: i64, by: &Player) -> Result<(), ApiError> {
    if created_by == by.id {
        Ok(())
    } else {
        Err(ApiError::Forbidden {
            code: "not-organiser",
            message: "only the tournament's organiser may do this".into(),
        })
    }
}

/// `player`'s rating in the speed class of the control (1500 without one).
pub(crate) async fn entry_rating(
    online: &Online,
    player: &Player,
    initial_ms: i64,
    increment_ms: i64,
) -> Result<u32, ApiError> {
    let speed = Speed::of(initial_ms, increment_ms);
    Ok(online
        .db()
        .rating(player.id, speed.name())
        .await?
        .map_or(UNRATED, |r| r.rating.round().max(0.0) as u32))
}
