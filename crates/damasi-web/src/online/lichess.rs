//! Reading endpoints in lichess's shape, for programs written against lichess's API: players'
//! real-time statuses (`GET /api/users/status`), API tokens tested (`POST /api/token/test`),
//! one game exported (`GET /game/export/{id}`, JSON or PDN) and a player's games exported
//! (`GET /api/games/user/{name}`, NDJSON or PDN). Every exported game says lichess's `status`
//! and damasi's exact end (`outcome`), as its last state did.

use std::convert::Infallible;
use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use damasi::Notation;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use crate::error::{ApiError, ApiPath, ApiQuery, HttpError};
use crate::AppState;

use super::http::{client_ip, ndjson, origin};
use damasi_online::messages::GameExport;
use damasi_online::players::parse_speed;
use damasi_online::watch::ExportFilter;

/// Most players `GET /api/users/status` answers for (lichess's cap).
pub const MAX_STATUS_IDS: usize = 100;
/// Most tokens `POST /api/token/test` checks at once (lichess's cap).
pub const MAX_TESTED_TOKENS: usize = 1000;
/// The lichess scopes a damasi API token made without scopes stands for: it may do whatever
/// its account may.
pub const TOKEN_SCOPES: &str =
    "board:play,bot:play,challenge:read,challenge:write,follow:read,follow:write,tournament:write";

/// The routes outside `/api`, at lichess's paths: `GET /game/export/{id}`.
pub fn outside_api() -> Router<AppState> {
    Router::new().route("/game/export/{id}", get(export_game))
}

/// The routes under `/api`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/users/status", get(users_status))
        .route("/token/test", post(test_tokens))
        .route("/games/user/{name}", get(games_of_player))
}

/// The query of `GET /api/users/status`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatusQuery {
    #[serde(default)]
    ids: String,
    #[serde(default)]
    with_game_ids: Option<String>,
}

/// A query flag as lichess's clients send it (`true`, `false`, or nothing).
fn flag(name: &str, value: Option<&str>) -> Result<Option<bool>, ApiError> {
    match value {
        None | Some("") => Ok(None),
        Some("true" | "True" | "1") => Ok(Some(true)),
        Some("false" | "False" | "0") => Ok(Some(false)),
        Some(other) => Err(ApiError::BadRequest(format!(
            "{name} '{}' is not true or false",
            other.chars().take(20).collect::<String>()
        ))),
    }
}

/// `GET /api/users/status?ids=a,b&withGameIds=true` (lichess's): for each known player, in
/// the order asked, `{id, name}`, with `online: true` when they have an event stream or a
/// game socket open, `playing: true` when they play a game now, and with `withGameIds` the
/// game as `playingId`. Unknown names are left out; at most [`MAX_STATUS_IDS`] names, and
/// [`super::http::LOOK_UPS_PER_MINUTE`] look-ups (this or a token test) an address a minute.
async fn users_status(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    ApiQuery(q): ApiQuery<StatusQuery>,
) -> Result<Json<Value>, HttpError> {
    state.limits.check_look_up(&client_ip(conn.as_ref()))?;
    let with_game_ids = flag("withGameIds", q.with_game_ids.as_deref())?.unwrap_or(false);
    let names: Vec<&str> = q
        .ids
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    if names.len() > MAX_STATUS_IDS {
        return Err(ApiError::BadRequest(format!("at most {MAX_STATUS_IDS} ids")).into());
    }
    let online = &state.online;
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let user = match online.user_named(name).await {
            Ok(u) => u,
            Err(ApiError::NotFound(_)) => continue,
            Err(e) => return Err(e.into()),
        };
        let mut entry = Map::new();
        entry.insert("id".into(), json!(user.name.to_ascii_lowercase()));
        entry.insert("name".into(), json!(user.name));
        if user.bot {
            entry.insert("title".into(), json!(damasi_online::accounts::BOT_TITLE));
        }
        if online.is_online(user.id) {
            entry.insert("online".into(), json!(true));
        }
        if let Some(game) = online.db().playing_of(user.id, 1).await?.into_iter().next() {
            entry.insert("playing".into(), json!(true));
            if with_game_ids {
                entry.insert("playingId".into(), json!(game));
            }
        }
        out.push(Value::Object(entry));
    }
    Ok(Json(Value::Array(out)))
}

/// `POST /api/token/test` (lichess's): the body is up to [`MAX_TESTED_TOKENS`] API tokens,
/// comma separated (plain text, as lichess's clients send it); the answer maps each to
/// `{userId, scopes, expires}` (damasi's tokens do not expire: `expires` is null), or to null
/// when it opens no account (never was one, or revoked). Counted as a look-up, as
/// [`users_status`] is.
async fn test_tokens(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    body: Bytes,
) -> Result<Json<Value>, HttpError> {
    state.limits.check_look_up(&client_ip(conn.as_ref()))?;
    let text = std::str::from_utf8(&body)
        .map_err(|_| ApiError::BadRequest("the tokens are text, comma separated".into()))?;
    let tokens: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() > MAX_TESTED_TOKENS {
        return Err(ApiError::BadRequest(format!("at most {MAX_TESTED_TOKENS} tokens")).into());
    }
    let mut out = Map::new();
    for token in tokens {
        let found = match token.len() {
            // A secret is 32 hex digits; anything much longer is nobody's.
            1..=200 => state.online.accounts().token_owner(token).await?,
            _ => None,
        };
        let info = match found {
            None => Value::Null,
            Some(p) => {
                // A token given scopes has those (comma separated, as lichess writes them).
                let scopes = state
                    .online
                    .db()
                    .token_scopes(damasi_online::accounts::secret_hash(token))
                    .await?
                    .map_or_else(|| TOKEN_SCOPES.to_string(), |s| s.replace(' ', ","));
                json!({
                    "userId": p.name.to_ascii_lowercase(),
                    "scopes": scopes,
                    "expires": null,
                })
            }
        };
        out.insert(token.to_string(), info);
    }
    Ok(Json(Value::Object(out)))
}

/// Whether the client asked for `mime` (`Accept`).
fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(',').any(|m| m.trim().starts_with(mime)))
}

/// The query of `GET /game/export/{id}`: lichess's options (`moves`, `tags`, `clocks`, ...)
/// are taken and ignored; `notation` is damasi's, for the PDN.
#[derive(Deserialize)]
struct ExportQuery {
    #[serde(default)]
    notation: Option<String>,
}

fn notation(q: Option<&str>) -> Result<Notation, ApiError> {
    crate::games::PdnQuery {
        notation: q.map(str::to_string),
    }
    .notation()
}

/// A game as PDN, with its tournament's tags when it has one.
async fn pdn_of(
    state: &AppState,
    id: &str,
    notation: Notation,
    origin: &str,
) -> Result<String, HttpError> {
    let site = format!("{origin}/online/{id}");
    let text = state.online.pdn(id, notation, &site).await?;
    crate::tournaments::with_event(state, id, text, origin).await
}

/// `GET /game/export/{id}` (lichess's): the game in JSON with `Accept: application/json`
/// ([`GameExport`]: lichess's fields, `status` lichess's word for the end and `outcome`
/// damasi's), else as a PDN file (whose `Termination` tag says the end).
async fn export_game(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
    ApiQuery(q): ApiQuery<ExportQuery>,
) -> Result<Response, HttpError> {
    if accepts(&headers, "application/json") {
        return Ok(Json(state.online.export(&id).await?).into_response());
    }
    let text = pdn_of(
        &state,
        &id,
        notation(q.notation.as_deref())?,
        &origin(&headers),
    )
    .await?;
    Ok(crate::games::pdn_file(
        &format!("damasi-online-{id}.pdn"),
        text,
    ))
}

/// The query of `GET /api/games/user/{name}`: lichess's filters that damasi's games have;
/// lichess's other options are taken and ignored.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GamesQuery {
    #[serde(default)]
    since: Option<i64>,
    #[serde(default)]
    until: Option<i64>,
    #[serde(default)]
    max: Option<u64>,
    #[serde(default)]
    rated: Option<String>,
    #[serde(default)]
    perf_type: Option<String>,
    #[serde(default)]
    notation: Option<String>,
}

impl GamesQuery {
    fn filter(&self) -> Result<ExportFilter, ApiError> {
        let mut speeds = Vec::new();
        for name in self.perf_type.as_deref().unwrap_or("").split(',') {
            let name = name.trim();
            if name.is_empty() {
                continue;
            }
            speeds.push(parse_speed(name).map_err(|_| {
                ApiError::BadRequest(format!(
                    "perfType '{}' is not bullet, blitz, rapid, classical or correspondence",
                    name.chars().take(20).collect::<String>()
                ))
            })?);
        }
        Ok(ExportFilter {
            since: self.since,
            until: self.until,
            max: self.max,
            rated: flag("rated", self.rated.as_deref())?,
            speeds,
        })
    }
}

/// `GET /api/games/user/{name}?max=&since=&until=&rated=&perfType=` (lichess's): the player's
/// finished games, newest first, streamed: one [`GameExport`] a line (NDJSON) when the client
/// accepts `application/x-ndjson` (or JSON), else PDN games one after the other. `since` and
/// `until` are Unix ms of the games' creation, `perfType` speed classes, comma separated.
async fn games_of_player(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(name): ApiPath<String>,
    ApiQuery(q): ApiQuery<GamesQuery>,
) -> Result<Response, HttpError> {
    let filter = q.filter()?;
    let pdn = !(accepts(&headers, "application/x-ndjson") || accepts(&headers, "application/json"));
    let notation = notation(q.notation.as_deref())?;
    let user = state.online.user_named(&name).await?;
    let (games_tx, mut games) = mpsc::channel::<GameExport>(8);
    let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(8);
    let online = state.online.clone();
    tokio::spawn(async move {
        if let Err(e) = online.export_games_of(user.id, &filter, &games_tx).await {
            eprintln!(
                "damasi: exporting the games of {}: {}",
                user.name,
                e.message()
            );
        }
    });
    let origin = origin(&headers);
    tokio::spawn(async move {
        while let Some(game) = games.recv().await {
            let text = if pdn {
                match pdn_of(&state, &game.id, notation, &origin).await {
                    Ok(mut text) => {
                        text.push('\n');
                        text
                    }
                    Err(HttpError(e)) => {
                        eprintln!("damasi-web: exporting game {}: {}", game.id, e.message());
                        break;
                    }
                }
            } else {
                let mut line = serde_json::to_string(&game).expect("a game serializes");
                line.push('\n');
                line
            };
            if tx.send(Ok(Bytes::from(text))).await.is_err() {
                break;
            }
        }
    });
    let mut res = ndjson(rx);
    if pdn {
        res.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-pdn; charset=utf-8"),
        );
    }
    Ok(res)
}
