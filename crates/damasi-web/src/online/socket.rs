//! The WebSocket the page plays through: `GET /api/online/games/{id}/socket`. The server sends
//! `gameFull` first, then every change (`gameState`, `chatLine`, `opponentGone`), and pings
//! every few seconds to measure the connection's lag (for the move-time compensation). The
//! page sends JSON messages: `{"t":"move","move":"c3-c4"}`, `{"t":"chat","text":"..."}`,
//! `{"t":"draw","yes":true}`, `{"t":"takeback","yes":true}`, `{"t":"resign"}`,
//! `{"t":"abort"}`, `{"t":"claim","win":true}`, `{"t":"rematch"}`; a refused action is
//! answered with `{"type":"error","code":...,"error":...}` on the same socket.
//!
//! The upgrade is refused unless the browser's `Origin` is this server (a page on another
//! site must not play for the player whose cookie it would carry), and beyond the caps on
//! long-lived requests ([`crate::streams`]) with a 429 `too-many-streams`. A socket whose
//! client has not answered a ping for [`PONG_TIMEOUT`], or does not take a message within it,
//! is closed, and its place is given back.
//!
//! A player's socket stands only as long as the session or token it was opened with: every
//! action is checked against it first, and once it is revoked (log-out, a password change,
//! `DELETE /api/account/sessions/{id}`, log-out everywhere) the socket says so with an error
//! `unauthorized` and closes.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::header::HeaderMap;
use axum::response::Response;
use damasi_online::messages::GameMessage;
use tokio::sync::broadcast;
use tokio::time::Instant;

use crate::error::{ApiError, ApiPath, HttpError};
use crate::streams::{Client, StreamPermit, Viewer};
use crate::AppState;

use super::session::Identify;
use damasi_online::accounts::{Api, Checked, Credential, Player, RevocationWatch};
use damasi_online::command::Command;
use damasi_online::{Online, Watch};

/// Largest message a client may send.
pub const MAX_MESSAGE: usize = 4 * 1024;

/// Bytes a socket reads at a time. tungstenite's default, 128 KiB, is zeroed again before
/// every read and kept per socket: at 2,000 players that zeroing alone was 8% of the server's
/// time (docs/performance.md), and 10,000 sockets held 1.3 GB of it. Clients send small
/// messages (at most [`MAX_MESSAGE`]), so a page is plenty; a longer one takes two reads.
pub const READ_BUFFER: usize = 8 * 1024;

/// How often the server pings to measure lag.
pub const PING_EVERY: Duration = Duration::from_secs(3);

/// A socket whose ping has had no pong this long, or that takes this long to accept a
/// message, is dropped (its client is gone or stopped reading).
pub const PONG_TIMEOUT: Duration = Duration::from_secs(10);

/// Upgrades to the game's WebSocket: a long-lived request (see [`crate::streams`]), counted
/// as a seated player's or as a spectator's (players come first); beyond the caps a 429
/// before the upgrade.
pub async fn upgrade(
    State(state): State<AppState>,
    client: Client,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
    ws: WebSocketUpgrade,
) -> Result<Response, HttpError> {
    if !crate::security::same_site(&headers) {
        return Err(ApiError::Forbidden {
            code: "cross-site",
            message: "web sockets from other web sites are refused".into(),
        }
        .into());
    }
    let who = state.online.accounts().identify_with(&headers).await?;
    let watch = state
        .online
        .watch(&id, who.as_ref().map(|(p, _)| p))
        .await?;
    // Counted once it is known whether the viewer is seated: players come before spectators.
    let viewer = Viewer::of_game(who.as_ref().map(|(p, _)| p.id), watch.1.is_some());
    let permit = state.streams.open(client.address, viewer)?;
    let online = state.online.clone();
    let limits = state.limits.clone();
    Ok(ws
        .max_message_size(MAX_MESSAGE)
        .max_frame_size(MAX_MESSAGE)
        .read_buffer_size(READ_BUFFER)
        .on_upgrade(move |socket| async move {
            run(socket, online, id, watch, who, limits, permit).await;
        }))
}

/// Sends `msg`; false when the socket is closed or its client has not taken it within
/// [`PONG_TIMEOUT`].
async fn send(socket: &mut WebSocket, msg: Message) -> bool {
    matches!(
        tokio::time::timeout(PONG_TIMEOUT, socket.send(msg)).await,
        Ok(Ok(()))
    )
}

async fn run(
    mut socket: WebSocket,
    online: Online,
    id: String,
    watch: Watch,
    who: Option<(Player, Credential)>,
    limits: Arc<super::http::Limits>,
    _permit: StreamPermit,
) {
    let (full, side, mut events) = watch;
    // The player counts as online while the socket is open (followers see it).
    let _presence = who.as_ref().map(|(p, _)| online.present(p.id));
    let mut revocation = who
        .clone()
        .map(|(p, cred)| RevocationWatch::start(online.accounts(), p, cred));
    if !send(
        &mut socket,
        Message::Text(GameMessage::from(full).text().into()),
    )
    .await
    {
        return;
    }
    if let Some(side) = side {
        online.connected(&id, side, true).await;
    }
    let mut checked = None;
    let mut ping = tokio::time::interval(PING_EVERY);
    let mut ping_sent: Option<Instant> = None;
    // When the oldest ping without a pong was sent.
    let mut unanswered: Option<Instant> = None;
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let Some(Ok(msg)) = incoming else { break };
                match msg {
                    Message::Text(text) => {
                        let reply = handle(&online, &id, who.as_ref(), &limits, &mut checked, text.as_str()).await;
                        if let Ok(Handled::Revoked) = reply {
                            close_revoked(&mut socket).await;
                            break;
                        }
                        if let Err(e) = reply {
                            let text = GameMessage::from(&e).text();
                            if !send(&mut socket, Message::Text(text.into())).await {
                                break;
                            }
                        }
                    }
                    Message::Pong(_) => {
                        unanswered = None;
                        if let (Some(sent), Some(side)) = (ping_sent.take(), side) {
                            online.lag(&id, side, sent.elapsed()).await;
                        }
                    }
                    Message::Close(_) => break,
                    _ => {}
                }
            }
            event = events.recv() => {
                let v = match event {
                    Ok(m) if !m.visible_to(side) => continue,
                    Ok(m) => m.text.clone(),
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        match online.snapshot(&id).await {
                            Ok(v) => GameMessage::from(v).text(),
                            Err(_) => continue,
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                };
                if !send(&mut socket, Message::Text(v.into())).await {
                    break;
                }
            }
            _ = async {
                match revocation.as_mut() {
                    Some(r) => r.revoked().await,
                    None => std::future::pending().await,
                }
            } => {
                close_revoked(&mut socket).await;
                break;
            }
            _ = ping.tick() => {
                if unanswered.is_some_and(|t| t.elapsed() >= PONG_TIMEOUT) {
                    // The client stopped answering: its place goes to somebody else.
                    break;
                }
                let now = Instant::now();
                ping_sent = Some(now);
                unanswered.get_or_insert(now);
                if !send(&mut socket, Message::Ping(Vec::new().into())).await {
                    break;
                }
            }
        }
    }
    if let Some(side) = side {
        online.connected(&id, side, false).await;
    }
}

/// Tells the client its session or token was revoked, and closes the socket (code 4401, like
/// HTTP's 401).
async fn close_revoked(socket: &mut WebSocket) {
    let revoked = ApiError::Unauthorized(
        "the session or token this socket was opened with has been revoked: log in again".into(),
    );
    let text = GameMessage::from(&revoked).text();
    if send(socket, Message::Text(text.into())).await {
        let frame = axum::extract::ws::CloseFrame {
            code: 4401,
            reason: "revoked".into(),
        };
        if send(socket, Message::Close(Some(frame))).await {
            // The closing handshake: read what the client sent meanwhile until its Close, so
            // the connection ends cleanly (unread data would make the close a reset, and the
            // client could lose the error above).
            let _ = tokio::time::timeout(PONG_TIMEOUT, async {
                while let Some(Ok(m)) = socket.recv().await {
                    if matches!(m, Message::Close(_)) {
                        break;
                    }
                }
            })
            .await;
        }
    }
}

/// What became of a message that was not refused.
enum Handled {
    /// Done.
    Done,
    /// Not done: the session or token of the socket has been revoked.
    Revoked,
}

async fn handle(
    online: &Online,
    id: &str,
    who: Option<&(Player, Credential)>,
    limits: &super::http::Limits,
    checked: &mut Option<Checked>,
    text: &str,
) -> Result<Handled, ApiError> {
    // The page's messages are the game's commands (see `command::Command`).
    let cmd: Command = serde_json::from_str(text)
        .map_err(|e| ApiError::BadRequest(format!("message is not understood: {e}")))?;
    let (p, cred) = who.ok_or_else(|| {
        ApiError::Unauthorized("spectators can only watch: sign up or continue as a guest".into())
    })?;
    // The pages are people's: a BOT plays through the Bot API.
    p.check_api(Api::Board)?;
    if matches!(cmd, Command::Chat { .. }) {
        limits.check_chat(p.id)?;
    } else {
        limits.check_action(p.id)?;
    }
    // Checked before every action (within the rate limits): a message sent just after a
    // log-out must not act. Without a revocation in this process since the last check,
    // that check stands for a while (`Accounts::still_valid_since`).
    if !online
        .accounts()
        .still_valid_since(p, cred, checked)
        .await?
    {
        return Ok(Handled::Revoked);
    }
    online.act(id, p, cmd).await?;
    Ok(Handled::Done)
}
