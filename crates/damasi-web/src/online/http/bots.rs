//! lichess's Bot API routes of the account: `POST /api/bot/account/upgrade` (an account that
//! has played no game becomes a BOT, for good) and `GET /api/bot/online` (the BOTs with an
//! event stream open, NDJSON). A BOT's games go through `/api/bot/game/...` (see
//! [`super::game_routes`]), its challenges and events through the routes people use.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::error::{ApiError, ApiQuery, HttpError};
use crate::AppState;

use super::{ndjson, Me};
use crate::online::profiles::user_json;

/// Most BOTs `GET /api/bot/online` lists (lichess's `nb` is at most 300).
pub const MAX_ONLINE_BOTS: usize = 300;

/// `POST /api/bot/account/upgrade` (lichess's): the token's account becomes a BOT, for good.
/// Refused to a guest and to an account that has played a game.
pub(super) async fn upgrade(
    State(state): State<AppState>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    let bot = state.online.accounts().upgrade_to_bot(&p).await?;
    eprintln!("damasi: {} is a BOT account now", bot.name);
    Ok(Json(json!({"ok": true})))
}

/// The query of `GET /api/bot/online`.
#[derive(Deserialize, Default)]
pub(super) struct OnlineQuery {
    #[serde(default)]
    nb: Option<usize>,
}

/// `GET /api/bot/online?nb=` (lichess's): the BOTs with an event stream open on this server
/// process, as lichess's users (`id`, `username`, `title`, `perfs`, `online`), one a line; at
/// most `nb` (default 50, at most [`MAX_ONLINE_BOTS`]).
pub(super) async fn online(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<OnlineQuery>,
) -> Result<Response, HttpError> {
    let nb = q.nb.unwrap_or(50);
    if !(1..=MAX_ONLINE_BOTS).contains(&nb) {
        return Err(ApiError::BadRequest(format!(
            "nb {nb}: at most {MAX_ONLINE_BOTS} BOTs are listed at once (and at least 1)"
        ))
        .into());
    }
    let mut lines = Vec::new();
    for id in state.online.bots_listening(nb) {
        // An account removed meanwhile is left out.
        if let Some(u) = state.online.db().user(id).await? {
            let mut line = user_json(&state.online, &u).await?.to_string();
            line.push('\n');
            lines.push(Ok(Bytes::from(line)));
        }
    }
    let (tx, rx) = mpsc::channel(lines.len().max(1));
    for line in lines {
        let _ = tx.try_send(line);
    }
    Ok(ndjson(rx))
}
