//! lichess's Board and Bot API streams: the account's event stream and a game's stream of
//! states, as NDJSON with keep-alive lines.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::HeaderMap;
use axum::response::Response;
use axum::Extension;
use damasi::Color;
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};

use crate::error::{ApiError, ApiPath, HttpError};
use crate::streams::{Client, Viewer};
use crate::AppState;

use super::{ndjson, MeWith};
use crate::online::session::Identify;
use damasi_online::accounts::{Api, RevocationWatch};
use damasi_online::messages::GameMessage;
use damasi_online::table::Status;
use damasi_online::Online;

/// How often an idle stream sends an empty line, so proxies and clients know it is alive.
pub(super) const KEEP_ALIVE: Duration = Duration::from_secs(7);

pub(super) fn line(v: &Value) -> Result<Bytes, Infallible> {
    text_line(v.to_string())
}

/// `text` as one NDJSON line.
pub(super) fn text_line(mut text: String) -> Result<Bytes, Infallible> {
    text.push('\n');
    Ok(Bytes::from(text))
}

pub(super) async fn event_stream(
    State(state): State<AppState>,
    client: Client,
    MeWith(p, cred): MeWith,
) -> Result<Response, HttpError> {
    let permit = state.streams.open(client.address, Viewer::Player(p.id))?;
    let mut events = state.online.user_events(p.id);
    // While it is open the player's seeks and pool places stand.
    let listening = state.online.listen(&p);
    // The stream ends when its session or token is revoked.
    let mut revocation = RevocationWatch::start(state.online.accounts(), p.clone(), cred);
    // Games already being played are announced first, as lichess does.
    let mut first = Vec::new();
    for g in state.online.db().games_of(p.id, 20).await? {
        if g.row.status == Status::Playing.as_str() {
            // A game that cannot be read now (its process does not answer) is left out: the
            // stream opens all the same, and the game's own stream still follows it.
            match state.online.game_start(&g.row.id, &p).await {
                Ok(Some(event)) => first.push(event),
                Ok(None) | Err(ApiError::NotFound(_)) => {}
                Err(e) => eprintln!(
                    "damasi: event stream of {}: game {}: {e:?}",
                    p.name, g.row.id
                ),
            }
        }
    }
    // Then the challenges waiting for the player (sent before the stream opened); the same
    // challenge arriving live meanwhile is not told twice.
    let pending = state.online.challenges_to(&p).await?;
    let replayed: Vec<String> = pending
        .iter()
        .filter_map(|c| c.challenge_id().map(str::to_string))
        .collect();
    first.extend(pending);
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        let _listening = listening;
        for event in &first {
            if tx.send(text_line(event.text())).await.is_err() {
                return;
            }
        }
        loop {
            let next = tokio::select! {
                _ = revocation.revoked() => return,
                // The client went away: its seeks and pool places go now, not at the next
                // keep-alive.
                _ = tx.closed() => return,
                next = tokio::time::timeout(KEEP_ALIVE, events.recv()) => next,
            };
            let out = match next {
                Err(_) => Ok(Bytes::from_static(b"\n")),
                Ok(Ok(event))
                    if event
                        .challenge_id()
                        .is_some_and(|id| replayed.iter().any(|r| r == id)) =>
                {
                    continue
                }
                Ok(Ok(event)) => text_line(event.text()),
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
                Ok(Err(broadcast::error::RecvError::Closed)) => return,
            };
            if tx.send(out).await.is_err() {
                return;
            }
        }
    });
    Ok(client.hold(ndjson(rx), permit))
}

/// A game's stream: its players name themselves (session or token) and count as such, anybody
/// else counts as a spectator from their address.
pub(super) async fn game_stream(
    State(state): State<AppState>,
    client: Client,
    headers: HeaderMap,
    Extension(api): Extension<Api>,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, HttpError> {
    let who = state.online.accounts().identify_with(&headers).await?;
    // The Bot API's stream is a BOT's own; the Board API's refuses BOTs (and lets anybody
    // else watch).
    match &who {
        Some((p, _)) => p.check_api(api)?,
        None if api == Api::Bot => {
            return Err(ApiError::Unauthorized(
                "the Bot API needs the BOT's token (Authorization: Bearer TOKEN)".into(),
            )
            .into())
        }
        None => {}
    }
    let me = who.as_ref().map(|(p, _)| p.clone());
    let (full, side, mut events) = state.online.watch(&id, me.as_ref()).await?;
    // Counted once it is known whether the viewer is seated: players come before spectators.
    let viewer = Viewer::of_game(me.as_ref().map(|p| p.id), side.is_some());
    let permit = state.streams.open(client.address, viewer)?;
    // lichess's gameFull on a stream has no `you`.
    let mut full = serde_json::to_value(GameMessage::from(full)).expect("a message serializes");
    if let Some(o) = full.as_object_mut() {
        o.remove("you");
    }
    let online = state.online.clone();
    // A player's stream ends when its session or token is revoked.
    let mut revocation =
        who.map(|(p, cred)| RevocationWatch::start(state.online.accounts(), p, cred));
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        if let Some(side) = side {
            online.connected(&id, side, true).await;
        }
        let revoked = async {
            match revocation.as_mut() {
                Some(r) => r.revoked().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = revoked => {}
            _ = stream_game(&tx, &online, &id, full, side, &mut events) => {}
        }
        if let Some(side) = side {
            online.connected(&id, side, false).await;
        }
    });
    Ok(client.hold(ndjson(rx), permit))
}

/// Sends `full`, then every event of the table, until the client goes away or the game is
/// over and said so.
pub(super) async fn stream_game(
    tx: &mpsc::Sender<Result<Bytes, Infallible>>,
    online: &Online,
    id: &str,
    full: Value,
    side: Option<Color>,
    events: &mut broadcast::Receiver<Arc<damasi_online::Outgoing>>,
) {
    if tx.send(line(&full)).await.is_err() {
        return;
    }
    loop {
        let next = tokio::time::timeout(KEEP_ALIVE, events.recv()).await;
        let out = match next {
            Err(_) => {
                // Nothing new; a closed client shows up as a failed send.
                if tx.send(Ok(Bytes::from_static(b"\n"))).await.is_err() {
                    return;
                }
                continue;
            }
            Ok(Ok(m)) if !m.visible_to(side) => continue,
            Ok(Ok(m)) => Ok(Bytes::from(format!("{}\n", m.text))),
            Ok(Err(broadcast::error::RecvError::Lagged(_))) => {
                // Too slow: missed events are replaced by the whole state.
                match online.snapshot(id).await {
                    Ok(v) => text_line(GameMessage::from(v).text()),
                    Err(_) => continue,
                }
            }
            Ok(Err(broadcast::error::RecvError::Closed)) => return,
        };
        if tx.send(out).await.is_err() {
            return;
        }
    }
}
