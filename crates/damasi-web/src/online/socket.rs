//! The WebSocket the page plays through: `GET /api/online/games/{id}/socket`. The server sends
//! `gameFull` first, then every change (`gameState`, `chatLine`, `opponentGone`), and pings
//! every few seconds to measure the connection's lag (for the move-time compensation). The
//! page sends JSON messages: `{"t":"move","move":"c3-c4"}`, `{"t":"chat","text":"..."}`,
//! `{"t":"draw","yes":true}`, `{"t":"takeback","yes":true}`, `{"t":"resign"}`,
//! `{"t":"abort"}`, `{"t":"claim","win":true}`, `{"t":"rematch"}`; a refused action is
//! answered with `{"type":"error","code":...,"error":...}` on the same socket.
//!
//! The upgrade is refused unless the browser's `Origin` is this server (a page on another
//! site must not play for the player whose cookie it would carry).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::header::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use serde_json::json;
use tokio::time::Instant;

use crate::error::{ApiError, ApiPath};
use crate::AppState;

use super::accounts::Player;
use super::table::side_name;
use super::{Online, Table};

/// Largest message a client may send.
pub const MAX_MESSAGE: usize = 4 * 1024;

/// How often the server pings to measure lag.
pub const PING_EVERY: Duration = Duration::from_secs(3);

/// Upgrades to the game's WebSocket.
pub async fn upgrade(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    if !crate::security::same_site(&headers) {
        return Err(ApiError::Forbidden {
            code: "cross-site",
            message: "web sockets from other web sites are refused".into(),
        });
    }
    let me = state.online.accounts().identify(&headers).await?;
    let table = state.online.table(&id).await?;
    let online = state.online.clone();
    let limits = state.limits.clone();
    Ok(ws
        .max_message_size(MAX_MESSAGE)
        .max_frame_size(MAX_MESSAGE)
        .on_upgrade(move |socket| async move {
            run(socket, online, table, me, limits).await;
        }))
}

#[derive(Deserialize)]
struct ClientMessage {
    t: String,
    #[serde(default, rename = "move")]
    mv: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    yes: Option<bool>,
    #[serde(default)]
    win: Option<bool>,
}

async fn run(
    mut socket: WebSocket,
    online: Online,
    table: Arc<Table>,
    me: Option<Player>,
    limits: Arc<super::http::Limits>,
) {
    let (full, side, mut events) = {
        let s = table.state.lock().await;
        let side = me.as_ref().and_then(|p| s.side_of(p.id));
        let mut full = s.full_json(Instant::now());
        full["you"] = json!(side.map(side_name));
        (full, side, table.events.subscribe())
    };
    if socket
        .send(Message::Text(full.to_string().into()))
        .await
        .is_err()
    {
        return;
    }
    if let Some(side) = side {
        online.presence(&table, side, true).await;
    }
    let mut ping = tokio::time::interval(PING_EVERY);
    let mut ping_sent: Option<Instant> = None;
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let Some(Ok(msg)) = incoming else { break };
                match msg {
                    Message::Text(text) => {
                        let reply = handle(&online, &table, me.as_ref(), &limits, text.as_str()).await;
                        if let Err(e) = reply {
                            let v = json!({"type": "error", "code": e.code(), "error": e.message()});
                            if socket.send(Message::Text(v.to_string().into())).await.is_err() {
                                break;
                            }
                        }
                    }
                    Message::Pong(_) => {
                        if let (Some(sent), Some(side)) = (ping_sent.take(), side) {
                            online.observe_lag(&table, side, sent.elapsed()).await;
                        }
                    }
                    Message::Close(_) => break,
                    _ => {}
                }
            }
            event = events.recv() => {
                let v = match event {
                    Ok(v) => v.to_string(),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        table.state.lock().await.state_json(Instant::now()).to_string()
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                };
                if socket.send(Message::Text(v.into())).await.is_err() {
                    break;
                }
            }
            _ = ping.tick() => {
                ping_sent = Some(Instant::now());
                if socket.send(Message::Ping(Vec::new().into())).await.is_err() {
                    break;
                }
            }
        }
    }
    if let Some(side) = side {
        online.presence(&table, side, false).await;
    }
}

async fn handle(
    online: &Online,
    table: &Table,
    me: Option<&Player>,
    limits: &super::http::Limits,
    text: &str,
) -> Result<(), ApiError> {
    let msg: ClientMessage = serde_json::from_str(text)
        .map_err(|e| ApiError::BadRequest(format!("message is not understood: {e}")))?;
    let p = me.ok_or_else(|| {
        ApiError::Unauthorized("spectators can only watch: sign up or continue as a guest".into())
    })?;
    let id = table.id.as_str();
    if msg.t == "chat" {
        limits.check_chat(p.id)?;
        return online.chat(id, p, msg.text.as_deref().unwrap_or("")).await;
    }
    limits.check_action(p.id)?;
    match msg.t.as_str() {
        "move" => {
            let mv = msg
                .mv
                .ok_or_else(|| ApiError::BadRequest("a move message needs 'move'".into()))?;
            online.play(id, p, &mv).await?;
        }
        "draw" => {
            online.draw(id, p, msg.yes.unwrap_or(true)).await?;
        }
        "takeback" => {
            online.takeback(id, p, msg.yes.unwrap_or(true)).await?;
        }
        "resign" => {
            online.resign(id, p).await?;
        }
        "abort" => {
            online.abort(id, p).await?;
        }
        "claim" => {
            online.claim(id, p, msg.win.unwrap_or(true)).await?;
        }
        "rematch" => {
            online.rematch(id, p).await?;
        }
        other => {
            return Err(ApiError::BadRequest(format!(
                "unknown message type '{other}'"
            )))
        }
    }
    Ok(())
}
