//! Challenges over HTTP, as lichess's API has them: open ones, to a player, accepted,
//! declined and withdrawn.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::header::HeaderMap;
use axum::Extension;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiJson, ApiPath, HttpError, OptionalJson};
use crate::AppState;

use super::games::{game_links, GameRequest};
use super::{client_ip, Me};
use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::parse_color;
use damasi_online::rating::Speed;

pub(super) async fn open_challenge(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    Me(p): Me,
    ApiJson(req): ApiJson<GameRequest>,
) -> Result<Json<Value>, HttpError> {
    state
        .limits
        .check_seek(p.id, &client_ip(conn.as_ref()), "challenges")?;
    let new = req.new_game()?;
    let table = state.online.create(None, new, None).await?;
    let mut body = game_links(&headers, &table.id);
    body["id"] = json!(table.id);
    let time_control = table.state.lock().await.time_control();
    body["challenge"] = json!({
        "id": table.id,
        "status": "created",
        "rated": new.rated,
        "speed": Speed::of(new.initial_ms, new.increment_ms).name(),
        "timeControl": time_control,
        "variant": damasi_online::variant::json(&new.rules),
        "challenger": {"name": p.name},
    });
    Ok(Json(body))
}

/// `POST /api/challenge/{username}` (lichess's direct challenge): `clock.limit`,
/// `clock.increment`, `rated`, and `color`, the sender's colour.
pub(super) async fn challenge_player(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    ApiPath(username): ApiPath<String>,
    Me(p): Me,
    OptionalJson(req): OptionalJson<GameRequest>,
) -> Result<Json<Value>, HttpError> {
    state
        .limits
        .check_seek(p.id, &client_ip(conn.as_ref()), "challenges")?;
    let to: Player = state
        .online
        .db()
        .user_by_name(&username)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no account called '{username}'")))?
        .into();
    let new = req.new_game()?;
    let color = parse_color(req.color.as_deref())?;
    let table = state.online.challenge(&p, &to, new, color).await?;
    let s = table.state.lock().await;
    Ok(Json(
        serde_json::to_value(s.challenge(&to, color, "created")).expect("a challenge serializes"),
    ))
}

#[derive(Deserialize, Default)]
pub(super) struct DeclineRequest {
    #[serde(default)]
    reason: Option<String>,
}

/// `POST /api/challenge/{id}/decline`: the challenged player says no (`reason`, as lichess's
/// reason keys: `generic`, `later`, `tooFast`, ...).
pub(super) async fn decline_challenge(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Me(p): Me,
    OptionalJson(req): OptionalJson<DeclineRequest>,
) -> Result<Json<Value>, HttpError> {
    let reason: String = req
        .reason
        .unwrap_or_else(|| "generic".into())
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(20)
        .collect();
    state
        .online
        .run(&id, &p, Command::Decline { reason })
        .await?;
    Ok(Json(json!({"ok": true})))
}

/// `POST /api/challenge/{id}/cancel`: the sender withdraws a challenge not yet accepted.
pub(super) async fn cancel_challenge(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    state.online.run(&id, &p, Command::Abort).await?;
    Ok(Json(json!({"ok": true})))
}

#[derive(Deserialize, Default)]
pub(super) struct AcceptRequest {
    #[serde(default)]
    color: Option<String>,
}

pub(super) async fn accept_challenge(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Me(p): Me,
    OptionalJson(req): OptionalJson<AcceptRequest>,
) -> Result<Json<Value>, HttpError> {
    let side = state
        .online
        .join(&id, &p, parse_color(req.color.as_deref())?)
        .await?;
    Ok(Json(json!({"ok": true, "id": id, "color": side.name()})))
}
