//! Games over HTTP: made, listed, shown and exported, joined, and every action of a player
//! in them (moves, resignation, draws, takebacks, chat, rematch, claims), for the page's
//! fallback and lichess's Board API alike.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::header::HeaderMap;
use axum::response::Response;
use axum::Extension;
use axum::Json;
use damasi::Color;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiJson, ApiPath, ApiQuery, HttpError, OptionalJson};
use crate::AppState;

use super::{client_ip, origin, Acting, Me};
use crate::online::session::Identify;
use damasi_online::accounts::Api;
use damasi_online::command::Command;
use damasi_online::messages::GameMessage;
use damasi_online::{parse_color, NewGame};

/// `GET /api/account/playing?nb=N` (lichess's): the games the player is playing now, those
/// waiting for their move first (`nowPlaying`, see `Online::now_playing`); `nb` 1 to 50,
/// default 9 as on lichess.
pub(super) async fn now_playing(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<PlayingQuery>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    let nb = match q.nb.as_deref().filter(|n| !n.is_empty()) {
        None => 9,
        Some(n) => n
            .parse::<i64>()
            .ok()
            .filter(|n| (1..=50).contains(n))
            .ok_or_else(|| {
                ApiError::BadRequest(format!("nb '{n}' is not a number from 1 to 50"))
            })?,
    };
    Ok(Json(
        json!({"nowPlaying": state.online.now_playing(&p, nb).await?}),
    ))
}

#[derive(Deserialize, Default)]
pub(super) struct PlayingQuery {
    #[serde(default)]
    nb: Option<String>,
}

/// A time control as clients send it: lichess's `clock.limit` / `clock.increment` in seconds,
/// or `minutes` and `increment` seconds, or lichess's `days` a move for a correspondence game.
#[derive(Deserialize, Default)]
pub(super) struct GameRequest {
    #[serde(default)]
    days: Option<i64>,
    #[serde(default)]
    clock: Option<ClockRequest>,
    #[serde(default)]
    minutes: Option<f64>,
    #[serde(default)]
    increment: Option<i64>,
    #[serde(default)]
    rated: bool,
    #[serde(default)]
    pub(super) color: Option<String>,
    #[serde(default = "yes")]
    chat: bool,
    #[serde(default, rename = "ratingRange")]
    rating_range: Option<String>,
    /// lichess's `variant`: `standard` (the default) or a rule-set name.
    #[serde(default)]
    variant: Option<String>,
}

pub(super) fn yes() -> bool {
    true
}

#[derive(Deserialize, Default)]
pub(super) struct ClockRequest {
    limit: i64,
    #[serde(default)]
    increment: i64,
}

impl GameRequest {
    pub(super) fn new_game(&self) -> Result<NewGame, ApiError> {
        if let Some(days) = self.days {
            if self.clock.is_some() || self.minutes.is_some() {
                return Err(ApiError::BadRequest(
                    "give either days (correspondence) or a clock, not both".into(),
                ));
            }
            return NewGame::correspondence(days, self.rated, self.chat);
        }
        let (initial_ms, increment_ms) = match (&self.clock, self.minutes) {
            (Some(c), _) => (c.limit.saturating_mul(1000), c.increment.saturating_mul(1000)),
            (None, Some(m)) if m.is_finite() && m >= 0.0 => (
                (m * 60_000.0).round() as i64,
                self.increment.unwrap_or(0).saturating_mul(1000),
            ),
            _ => {
                return Err(ApiError::BadRequest(
                    "give the time control: clock {limit, increment} in seconds, minutes and increment, or days"
                        .into(),
                ))
            }
        };
        let g = NewGame {
            initial_ms,
            increment_ms,
            rated: self.rated,
            chat: self.chat,
            rules: self.variant()?,
        };
        g.check()?;
        Ok(g)
    }

    /// The rules asked for (`variant`); an unknown one is a 400 naming the field.
    fn variant(&self) -> Result<damasi::RuleSet, ApiError> {
        damasi_online::variant::parse("variant", self.variant.as_deref())
    }

    pub(super) fn range(&self) -> Result<Option<(i64, i64)>, ApiError> {
        let Some(r) = self.rating_range.as_deref().filter(|r| !r.is_empty()) else {
            return Ok(None);
        };
        let bad = || ApiError::BadRequest(format!("rating range '{r}' is not like 1300-1700"));
        let (a, b) = r.split_once('-').ok_or_else(bad)?;
        let (a, b) = (
            a.trim().parse::<i64>().map_err(|_| bad())?,
            b.trim().parse::<i64>().map_err(|_| bad())?,
        );
        if a > b {
            return Err(bad());
        }
        Ok(Some((a, b)))
    }
}

pub(super) fn game_links(headers: &HeaderMap, id: &str) -> Value {
    let url = format!("{}/online/{id}", origin(headers));
    json!({
        "url": url,
        "urlWhite": format!("{url}?color=white"),
        "urlBlack": format!("{url}?color=black"),
    })
}

pub(super) async fn create(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    Me(p): Me,
    ApiJson(req): ApiJson<GameRequest>,
) -> Result<Json<Value>, HttpError> {
    state
        .limits
        .check_seek(p.id, &client_ip(conn.as_ref()), "new games")?;
    let new = req.new_game()?;
    let color = parse_color(req.color.as_deref())?;
    let table = state.online.create(Some(&p), new, color).await?;
    let side = table.state.lock().await.side_of(p.id);
    let mut body = game_links(&headers, &table.id);
    body["id"] = json!(table.id);
    body["color"] = json!(side.map(Color::name));
    Ok(Json(body))
}

pub(super) async fn live(State(state): State<AppState>) -> Json<Value> {
    let games: Vec<GameMessage> = state
        .online
        .live_games(50)
        .await
        .into_iter()
        .map(GameMessage::from)
        .collect();
    Json(json!({ "games": games }))
}

pub(super) async fn show(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let me = state
        .online
        .accounts()
        .identify(&headers)
        .await
        .ok()
        .flatten();
    let full = GameMessage::from(state.online.full(&id, me.as_ref()).await?);
    Ok(Json(
        serde_json::to_value(full).expect("a message serializes"),
    ))
}

/// `GET /api/online/games/{id}/pdn?notation=landing`: the game as a PDN file; a tournament's
/// game names its event (`Event`, `Round`, `EventURL`) as the tournament's export does.
pub(super) async fn export_pdn(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
    ApiQuery(q): ApiQuery<crate::games::PdnQuery>,
) -> Result<Response, HttpError> {
    let notation = q.notation()?;
    let origin = origin(&headers);
    let site = format!("{origin}/online/{id}");
    let text = state.online.pdn(&id, notation, &site).await?;
    let text = crate::tournaments::with_event(&state, &id, text, &origin).await?;
    Ok(crate::games::pdn_file(
        &format!("damasi-online-{id}.pdn"),
        text,
    ))
}

#[derive(Deserialize, Default)]
pub(super) struct JoinRequest {
    #[serde(default)]
    color: Option<String>,
}

pub(super) async fn join(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Me(p): Me,
    OptionalJson(req): OptionalJson<JoinRequest>,
) -> Result<Json<Value>, HttpError> {
    let want = parse_color(req.color.as_deref())?;
    let side = state.online.join(&id, &p, want).await?;
    Ok(Json(json!({"id": id, "color": side.name()})))
}

#[derive(Deserialize)]
pub(super) struct MoveRequest {
    #[serde(rename = "move")]
    mv: String,
}

pub(super) async fn play_json(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Acting(p): Acting,
    ApiJson(req): ApiJson<MoveRequest>,
) -> Result<Json<Value>, HttpError> {
    Ok(Json(
        state
            .online
            .run(&id, &p, Command::Move { text: req.mv })
            .await?,
    ))
}

pub(super) async fn play_path(
    State(state): State<AppState>,
    ApiPath((id, mv)): ApiPath<(String, String)>,
    Acting(p): Acting,
) -> Result<Json<Value>, HttpError> {
    state
        .online
        .run(&id, &p, Command::Move { text: mv })
        .await?;
    Ok(Json(json!({"ok": true})))
}

pub(super) async fn resign(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Acting(p): Acting,
) -> Result<Json<Value>, HttpError> {
    state.online.run(&id, &p, Command::Resign).await?;
    Ok(Json(json!({"ok": true})))
}

pub(super) async fn abort(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Acting(p): Acting,
) -> Result<Json<Value>, HttpError> {
    state.online.run(&id, &p, Command::Abort).await?;
    Ok(Json(json!({"ok": true})))
}

pub(super) fn yes_no(answer: &str) -> Result<bool, ApiError> {
    match answer {
        "yes" | "true" | "accept" => Ok(true),
        "no" | "false" | "decline" => Ok(false),
        other => Err(ApiError::BadRequest(format!(
            "answer '{other}' is not yes or no"
        ))),
    }
}

pub(super) async fn draw(
    State(state): State<AppState>,
    ApiPath((id, answer)): ApiPath<(String, String)>,
    Acting(p): Acting,
) -> Result<Json<Value>, HttpError> {
    let yes = yes_no(&answer)?;
    state.online.run(&id, &p, Command::Draw { yes }).await?;
    Ok(Json(json!({"ok": true})))
}

pub(super) async fn takeback(
    State(state): State<AppState>,
    ApiPath((id, answer)): ApiPath<(String, String)>,
    Acting(p): Acting,
) -> Result<Json<Value>, HttpError> {
    let yes = yes_no(&answer)?;
    state.online.run(&id, &p, Command::Takeback { yes }).await?;
    Ok(Json(json!({"ok": true})))
}

#[derive(Deserialize)]
pub(super) struct ChatRequest {
    text: String,
}

pub(super) async fn chat(
    State(state): State<AppState>,
    Extension(api): Extension<Api>,
    ApiPath(id): ApiPath<String>,
    Me(p): Me,
    ApiJson(req): ApiJson<ChatRequest>,
) -> Result<Json<Value>, HttpError> {
    p.check_api(api)?;
    state.limits.check_chat(p.id)?;
    let text = req.text;
    state.online.run(&id, &p, Command::Chat { text }).await?;
    Ok(Json(json!({"ok": true})))
}

/// `GET /api/{board,bot}/game/{id}/chat` (lichess's): the players' chat of the game, oldest
/// first, as `[{user, text}]`; for its players only, as the room is theirs.
pub(super) async fn chat_lines(
    State(state): State<AppState>,
    Extension(api): Extension<Api>,
    ApiPath(id): ApiPath<String>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    p.check_api(api)?;
    let full = state.online.full(&id, Some(&p)).await?;
    if full.you.is_none() {
        return Err(ApiError::Forbidden {
            code: "not-your-game",
            message: format!(
                "{} does not play game {id}: its chat is its players'",
                p.name
            ),
        }
        .into());
    }
    let lines: Vec<Value> = full
        .chat
        .iter()
        .map(|l| json!({"user": l.username, "text": l.text}))
        .collect();
    Ok(Json(Value::Array(lines)))
}

pub(super) async fn rematch(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Acting(p): Acting,
) -> Result<Json<Value>, HttpError> {
    Ok(Json(state.online.run(&id, &p, Command::Rematch).await?))
}

#[derive(Deserialize, Default)]
pub(super) struct ClaimRequest {
    #[serde(default = "yes")]
    win: bool,
}

pub(super) async fn claim(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Acting(p): Acting,
    OptionalJson(req): OptionalJson<ClaimRequest>,
) -> Result<Json<Value>, HttpError> {
    let win = req.win;
    Ok(Json(
        state.online.run(&id, &p, Command::Claim { win }).await?,
    ))
}

pub(super) async fn claim_victory(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Acting(p): Acting,
) -> Result<Json<Value>, HttpError> {
    let win = true;
    state.online.run(&id, &p, Command::Claim { win }).await?;
    Ok(Json(json!({"ok": true})))
}
