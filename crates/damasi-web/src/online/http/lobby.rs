//! The lobby over HTTP: open seeks made, withdrawn and accepted, and the quick-pairing pools.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::header::HeaderMap;
use axum::Extension;
use axum::Json;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiJson, ApiPath, HttpError};
use crate::AppState;

use super::games::GameRequest;
use super::{client_ip, Me};
use crate::online::session::Identify;
use damasi_online::parse_color;

/// `GET /api/lobby`: the open seeks (without those of the players the asker blocks) and the
/// pools.
pub(super) async fn lobby(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Value>, HttpError> {
    let viewer = state.online.accounts().identify(&headers).await?;
    Ok(Json(json!({
        "seeks": state.online.matchmaking().seeks_for(viewer.as_ref()).await?,
        "pools": state.online.matchmaking().pools().await?,
    })))
}

pub(super) async fn seek(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    Me(p): Me,
    ApiJson(req): ApiJson<GameRequest>,
) -> Result<Json<Value>, HttpError> {
    state
        .limits
        .check_seek(p.id, &client_ip(conn.as_ref()), "seeks")?;
    let new = req.new_game()?;
    let id = state
        .online
        .matchmaking()
        .seek(&p, new, parse_color(req.color.as_deref())?, req.range()?)
        .await?;
    Ok(Json(json!({"id": id})))
}

pub(super) async fn cancel_seek(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<u64>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    state.online.matchmaking().cancel_seek(&p, id).await?;
    Ok(Json(json!({"ok": true})))
}

pub(super) async fn accept_seek(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    ApiPath(id): ApiPath<u64>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    state
        .limits
        .check_seek(p.id, &client_ip(conn.as_ref()), "seeks")?;
    let game = state.online.matchmaking().accept_seek(&p, id).await?;
    Ok(Json(json!({"game": game})))
}

pub(super) async fn join_pool(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    ApiPath(tc): ApiPath<String>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    state
        .limits
        .check_seek(p.id, &client_ip(conn.as_ref()), "pool joins")?;
    let bad = || ApiError::BadRequest(format!("pool '{tc}' is not like 5+3"));
    let (m, i) = tc.split_once('+').ok_or_else(bad)?;
    let (m, i) = (
        m.parse::<i64>().map_err(|_| bad())?,
        i.parse::<i64>().map_err(|_| bad())?,
    );
    let game = state.online.matchmaking().join_pool(&p, m, i).await?;
    Ok(Json(json!({"game": game, "waiting": game.is_none()})))
}

pub(super) async fn leave_pool(
    State(state): State<AppState>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    state.online.matchmaking().leave_pools(&p).await?;
    Ok(Json(json!({"ok": true})))
}
