//! The HTTP side of online play: accounts, games, the lobby, and the Board API for programs
//! (the shape of lichess's Board/Bot API: NDJSON streams of events and game states, and one
//! `POST` per action). Every action names its player by the session cookie or an
//! `Authorization: Bearer` token; rate limits keep one client from flooding sign-ups, log-ins,
//! seeks, moves and chat.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::Extension;
use axum::{Json, Router};
use damasi::Color;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use crate::error::{ApiError, ApiJson, ApiPath, ApiQuery, HttpError, OptionalJson};
use crate::streams::{Client, Viewer};
use crate::AppState;
use damasi_online::now_ms;

use super::accounts::{
    check_new_password, check_password, guests_casual_only, handle_of, Credential, Player,
    RevocationWatch, SESSION_LIFETIME,
};
use super::command::Command;
use super::db::SecretKind;
use super::log_ins::{LogInFailures, PasswordChecks};
use super::rating::{self, Speed};
use super::session::{session_clear_cookie, session_cookie, session_set_cookie, Identify};
use super::table::Status;
use super::{parse_color, NewGame, Online};
use damasi_online::messages::GameMessage;

/// Rate limits per client.
pub struct Limits {
    /// Sign-ups per address: a club's members signing up from one router on its first
    /// evening all get through ([`SIGN_UPS_AT_ONCE`]), a flood does not.
    sign_ups: DefaultKeyedRateLimiter<String>,
    /// Guest sessions per address, counted apart from sign-ups.
    guests: DefaultKeyedRateLimiter<String>,
    /// Log-in attempts per address.
    log_ins: DefaultKeyedRateLimiter<String>,
    /// Failed log-ins per (name, address) and per name, whether or not an account has it.
    failures: LogInFailures,
    /// Password checks under way, one an address at a time.
    password_checks: PasswordChecks,
    /// Seeks, challenges and pool joins per player.
    seeks: DefaultKeyedRateLimiter<i64>,
    /// The same per address, for all its players together (many guests from one place).
    seeks_by_address: DefaultKeyedRateLimiter<String>,
    /// Moves and other game actions per player.
    actions: DefaultKeyedRateLimiter<i64>,
    /// Chat lines per player.
    chat: DefaultKeyedRateLimiter<i64>,
    /// Look-ups of many players or tokens at once per address (lichess's
    /// `GET /api/users/status`, `POST /api/token/test`).
    look_ups: DefaultKeyedRateLimiter<String>,
}

/// Look-ups of many players or tokens at once one address may make a minute (each names up to
/// 100 players or 1,000 tokens).
pub const LOOK_UPS_PER_MINUTE: u32 = 60;

/// Sign-ups one address may make at once (a club of thirty behind one router); then one
/// every [`SIGN_UP_EVERY`] more.
pub const SIGN_UPS_AT_ONCE: u32 = 30;
/// How often one more sign-up is allowed to an address that used up [`SIGN_UPS_AT_ONCE`].
pub const SIGN_UP_EVERY: std::time::Duration = std::time::Duration::from_secs(120);

fn per_minute(n: u32) -> Quota {
    Quota::per_minute(NonZeroU32::new(n).expect("limits are positive"))
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            sign_ups: RateLimiter::keyed(
                Quota::with_period(SIGN_UP_EVERY)
                    .expect("a period")
                    .allow_burst(NonZeroU32::new(SIGN_UPS_AT_ONCE).expect("positive")),
            ),
            guests: RateLimiter::keyed(
                per_minute(5).allow_burst(NonZeroU32::new(SIGN_UPS_AT_ONCE).expect("positive")),
            ),
            log_ins: RateLimiter::keyed(per_minute(10)),
            failures: LogInFailures::default(),
            password_checks: PasswordChecks::default(),
            seeks: RateLimiter::keyed(per_minute(30)),
            seeks_by_address: RateLimiter::keyed(per_minute(60)),
            actions: RateLimiter::keyed(
                Quota::per_second(NonZeroU32::new(20).expect("positive"))
                    .allow_burst(NonZeroU32::new(40).expect("positive")),
            ),
            chat: RateLimiter::keyed(per_minute(20)),
            look_ups: RateLimiter::keyed(per_minute(LOOK_UPS_PER_MINUTE)),
        }
    }
}

impl Limits {
    /// Forgets clients not seen lately (called now and then, so the maps stay small).
    pub fn shrink(&self) {
        self.sign_ups.retain_recent();
        self.guests.retain_recent();
        self.log_ins.retain_recent();
        self.failures.shrink();
        self.seeks.retain_recent();
        self.seeks_by_address.retain_recent();
        self.actions.retain_recent();
        self.chat.retain_recent();
        self.look_ups.retain_recent();
    }

    /// Lets a log-in attempt for `name` from `address` go ahead, or refuses it with a 429
    /// `too-many-failures` (see [`LogInFailures::check`]).
    pub fn check_log_in(&self, name: &str, address: &str) -> Result<(), ApiError> {
        self.failures.check(name, address)
    }

    /// A log-in for `name` from `address` succeeded: its failures there are forgotten.
    pub fn log_in_succeeded(&self, name: &str, address: &str) {
        self.failures.succeeded(name, address);
    }

    /// A log-in for `name` from `address` could not check the password (the server was
    /// busy): it does not count as a failure.
    pub fn log_in_not_tried(&self, name: &str, address: &str) {
        self.failures.not_tried(name, address);
    }

    /// Refuses a new game, seek, challenge or pool join beyond the player's rate or their
    /// address's (all its players together).
    fn check_seek(&self, player: i64, from: &str, what: &str) -> Result<(), ApiError> {
        limited(&self.seeks, &player, what)?;
        limited(&self.seeks_by_address, &from.to_string(), what)
    }

    /// Refuses a game action (move, offer, resignation) beyond the player's rate.
    pub fn check_action(&self, player: i64) -> Result<(), ApiError> {
        limited(&self.actions, &player, "actions")
    }

    /// Refuses a look-up of many players or tokens beyond the address's rate
    /// ([`LOOK_UPS_PER_MINUTE`]).
    pub fn check_look_up(&self, from: &str) -> Result<(), ApiError> {
        limited(&self.look_ups, &from.to_string(), "look-ups")
    }

    /// Refuses a chat line beyond the player's rate.
    pub fn check_chat(&self, player: i64) -> Result<(), ApiError> {
        limited(&self.chat, &player, "chat lines")
    }
}

/// Lets one more request of `key` through `limiter`, or refuses it with a 429
/// `rate-limited` whose `Retry-After` is when the limiter lets the next one through (whole
/// seconds, rounded up).
fn limited<K: std::hash::Hash + Eq + Clone>(
    limiter: &DefaultKeyedRateLimiter<K>,
    key: &K,
    what: &str,
) -> Result<(), ApiError> {
    use governor::clock::{Clock, DefaultClock};
    limiter.check_key(key).map_err(|not_until| {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        ApiError::Limited {
            code: "rate-limited",
            message: format!("too many {what}; wait {} s", secs.max(1)),
            retry_after: Some(secs.max(1)),
        }
    })
}

/// The online routes, to be nested under `/api`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/account", get(me))
        .route("/account/signup", post(sign_up))
        .route("/account/login", post(log_in))
        .route("/account/guest", post(guest))
        .route("/account/logout", post(log_out))
        .route("/account/token", post(new_token))
        .route("/account/link-code", post(link_code))
        .route(
            "/account/telegram",
            post(telegram_log_in).delete(telegram_unlink),
        )
        .route("/account/playing", get(now_playing))
        .route("/account/password", post(change_password))
        .route("/account/sessions", get(list_sessions))
        .route("/account/sessions/{handle}", delete(revoke_session))
        .route("/account/logout-everywhere", post(log_out_everywhere))
        .route("/token", delete(revoke_token))
        .route("/online/games", get(live).post(create))
        .route("/online/games/{id}", get(show))
        .route("/online/games/{id}/pdn", get(export_pdn))
        .route("/online/games/{id}/join", post(join))
        .route("/online/games/{id}/socket", get(super::socket::upgrade))
        .route("/online/games/{id}/move", post(play_json))
        .route("/online/games/{id}/chat", post(chat))
        .route("/online/games/{id}/rematch", post(rematch))
        .route("/online/games/{id}/claim", post(claim))
        .route("/lobby", get(lobby))
        .route("/lobby/seeks", post(seek))
        .route("/lobby/seeks/{id}", delete(cancel_seek))
        .route("/lobby/seeks/{id}/accept", post(accept_seek))
        .route("/pool/{tc}", post(join_pool))
        .route("/pool", delete(leave_pool))
        .route("/challenge/open", post(open_challenge))
        .route("/challenge/{username}", post(challenge_player))
        .route("/challenge/{id}/accept", post(accept_challenge))
        .route("/challenge/{id}/decline", post(decline_challenge))
        .route("/challenge/{id}/cancel", post(cancel_challenge))
        .route("/stream/event", get(event_stream))
        .route("/board/game/stream/{id}", get(game_stream))
        .route("/board/game/{id}/move/{mv}", post(play_path))
        .route("/board/game/{id}/resign", post(resign))
        .route("/board/game/{id}/abort", post(abort))
        .route("/board/game/{id}/draw/{answer}", post(draw))
        .route("/board/game/{id}/takeback/{answer}", post(takeback))
        .route("/board/game/{id}/chat", post(chat))
        .route("/board/game/{id}/claim-victory", post(claim_victory))
        .route("/board/game/{id}/claim-victory/", post(claim_victory))
        .route("/online/games/{id}/resign", post(resign))
        .route("/online/games/{id}/abort", post(abort))
        .route("/online/games/{id}/draw/{answer}", post(draw))
        .route("/online/games/{id}/takeback/{answer}", post(takeback))
        .merge(super::profiles::routes())
        .merge(super::lichess::routes())
}

/// Path prefixes (under `/api`) whose requests are authenticated per player (session or
/// token) and so need no server-wide access token.
pub const PLAYER_AUTHENTICATED: [&str; 13] = [
    "/api/account",
    "/api/swiss",
    "/api/tournament",
    "/api/token",
    "/api/user/",
    "/api/rel/",
    "/api/player/",
    "/api/online/",
    "/api/lobby",
    "/api/pool",
    "/api/challenge/",
    "/api/stream/",
    "/api/board/",
];

/// The player who sent the request, or a 401.
pub async fn player(online: &Online, headers: &HeaderMap) -> Result<Player, ApiError> {
    online.accounts().identify(headers).await?.ok_or_else(|| {
        ApiError::Unauthorized(
            "sign up, log in or continue as a guest first (or send Authorization: Bearer TOKEN)"
                .into(),
        )
    })
}

/// The player who sent the request and the session or token they sent, or a 401.
pub async fn player_with(
    online: &Online,
    headers: &HeaderMap,
) -> Result<(Player, Credential), ApiError> {
    online
        .accounts()
        .identify_with(headers)
        .await?
        .ok_or_else(|| {
            ApiError::Unauthorized(
                "sign up, log in or continue as a guest first (or send Authorization: Bearer TOKEN)"
                    .into(),
            )
        })
}

/// The client's address as every rate limit counts it: IPv4 per address, IPv6 per /64 (see
/// [`crate::security::address_key`]).
pub(super) fn client_ip(conn: Option<&Extension<ConnectInfo<SocketAddr>>>) -> String {
    conn.map_or_else(
        || "unknown".into(),
        |c| crate::security::address_key(c.0 .0.ip()).to_string(),
    )
}

/// Whether the page was reached over HTTPS (a reverse proxy says so).
fn over_https(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|p| p.eq_ignore_ascii_case("https"))
}

fn with_cookie(body: Value, cookie: &str) -> Response {
    let mut res = Json(body).into_response();
    if let Ok(v) = HeaderValue::from_str(cookie) {
        res.headers_mut().insert(header::SET_COOKIE, v);
    }
    res
}

/// The account as `GET /api/account` answers it: id, name, guest, and ratings per speed.
pub(super) async fn account_json(online: &Online, p: &Player) -> Result<Value, ApiError> {
    let ratings = online.db().ratings(p.id).await?;
    let perfs: serde_json::Map<String, Value> = ratings
        .into_iter()
        .map(|(speed, r)| {
            (
                speed,
                json!({
                    "rating": r.rating.round() as i64,
                    "rd": r.deviation.round() as i64,
                    "games": r.games,
                    "provisional": rating::is_provisional(&r),
                }),
            )
        })
        .collect();
    Ok(json!({"id": p.id, "name": p.name, "guest": p.guest, "perfs": perfs}))
}

#[derive(Deserialize)]
struct Credentials {
    name: String,
    password: String,
}

async fn start_session(
    state: &AppState,
    headers: &HeaderMap,
    p: Player,
) -> Result<Response, ApiError> {
    let secret = state
        .online
        .accounts()
        .issue(p.id, SecretKind::Session, now_ms())
        .await?;
    let body = account_json(&state.online, &p).await?;
    Ok(with_cookie(
        body,
        &session_set_cookie(&secret, over_https(headers)),
    ))
}

async fn sign_up(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiJson(c): ApiJson<Credentials>,
) -> Result<Response, HttpError> {
    let from = client_ip(conn.as_ref());
    limited(&state.limits.sign_ups, &from, "sign-ups")?;
    let _check = state.limits.password_checks.start(&from)?;
    let p = state
        .online
        .accounts()
        .sign_up(c.name.trim(), c.password, now_ms())
        .await?;
    start_session(&state, &headers, p).await.map_err(HttpError)
}

async fn log_in(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiJson(c): ApiJson<Credentials>,
) -> Result<Response, HttpError> {
    let from = client_ip(conn.as_ref());
    limited(&state.limits.log_ins, &from, "log-in attempts")?;
    let name = c.name.trim();
    let _check = state.limits.password_checks.start(&from)?;
    state.limits.check_log_in(name, &from)?;
    match state.online.accounts().log_in(name, c.password).await {
        Ok(p) => {
            state.limits.log_in_succeeded(name, &from);
            start_session(&state, &headers, p).await.map_err(HttpError)
        }
        Err(e @ ApiError::Unauthorized(_)) => Err(e.into()),
        Err(e) => {
            state.limits.log_in_not_tried(name, &from);
            Err(e.into())
        }
    }
}

async fn guest(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    if let Some(p) = state.online.accounts().identify(&headers).await? {
        return Ok(Json(account_json(&state.online, &p).await?).into_response());
    }
    limited(
        &state.limits.guests,
        &client_ip(conn.as_ref()),
        "guest sessions",
    )?;
    let p = state.online.accounts().guest(now_ms()).await?;
    start_session(&state, &headers, p).await.map_err(HttpError)
}

async fn log_out(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, HttpError> {
    if let Some(s) = session_cookie(&headers) {
        state.online.accounts().end_session(s).await?;
    }
    Ok(with_cookie(
        json!({"ok": true}),
        &session_clear_cookie(over_https(&headers)),
    ))
}

#[derive(Deserialize)]
struct PasswordChange {
    old: String,
    new: String,
}

/// `POST /api/account/password {old, new}`: the new password is checked as at sign-up, the old
/// one as at log-in (the same limits per address and per name); every other session and token
/// of the account is revoked, the one the request came with is kept.
async fn change_password(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<PasswordChange>,
) -> Result<Json<Value>, HttpError> {
    let (p, cred) = player_with(&state.online, &headers).await?;
    if p.guest {
        return Err(guests_casual_only("guests have no password: sign up to have one").into());
    }
    // A new password that would be refused anyway is no attempt at the old one.
    check_password(&req.new)?;
    check_new_password(&p.name, &req.new)?;
    let from = client_ip(conn.as_ref());
    limited(&state.limits.log_ins, &from, "password attempts")?;
    let _check = state.limits.password_checks.start(&from)?;
    state.limits.check_log_in(&p.name, &from)?;
    let changed = state
        .online
        .accounts()
        .change_password(&p, &cred, req.old, req.new)
        .await;
    match changed {
        Ok(revoked) => {
            state.limits.log_in_succeeded(&p.name, &from);
            Ok(Json(json!({"ok": true, "revoked": revoked})))
        }
        Err(e) => {
            if e.code() != "wrong-password" {
                state.limits.log_in_not_tried(&p.name, &from);
            }
            Err(e.into())
        }
    }
}

/// `GET /api/account/sessions`: the account's log-in sessions and API tokens, newest first,
/// each named by a short handle (never the secret).
async fn list_sessions(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Value>, HttpError> {
    let (p, cred) = player_with(&state.online, &headers).await?;
    let rows = state.online.accounts().secrets_of(&p).await?;
    let lifetime = SESSION_LIFETIME.as_millis() as i64;
    let list: Vec<Value> = rows
        .iter()
        .filter(|r| r.kind != SecretKind::Link)
        .map(|r| {
            json!({
                "id": handle_of(&r.hash),
                "kind": r.kind.as_str(),
                "createdAt": r.created_ms,
                "expiresAt": (r.kind == SecretKind::Session)
                    .then(|| r.created_ms.saturating_add(lifetime)),
                "current": r.hash == cred.hash,
            })
        })
        .collect();
    Ok(Json(json!({"sessions": list})))
}

/// `DELETE /api/account/sessions/{id}`: revokes one session or token of the account (the
/// current one too: the cookie is then cleared).
async fn revoke_session(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(handle): ApiPath<String>,
) -> Result<Response, HttpError> {
    let (p, cred) = player_with(&state.online, &headers).await?;
    let revoked = state
        .online
        .accounts()
        .revoke(&p, Some(&handle), None)
        .await?;
    if revoked == 0 {
        return Err(
            ApiError::NotFound(format!("no session or token '{handle}' of this account")).into(),
        );
    }
    let body = json!({"ok": true, "revoked": revoked});
    if cred.kind == SecretKind::Session && handle.eq_ignore_ascii_case(cred.handle()) {
        return Ok(with_cookie(
            body,
            &session_clear_cookie(over_https(&headers)),
        ));
    }
    Ok(Json(body).into_response())
}

/// `DELETE /api/token` (lichess's): revokes the API token the request is sent with; 204.
async fn revoke_token(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<axum::http::StatusCode, HttpError> {
    let (p, cred) = player_with(&state.online, &headers).await?;
    if cred.kind != SecretKind::Token {
        return Err(ApiError::BadRequest(
            "send the token to revoke as Authorization: Bearer TOKEN".into(),
        )
        .into());
    }
    state.online.accounts().revoke_credential(&p, &cred).await?;
    Ok(axum::http::StatusCode::NO_CONTENT)
}

/// `POST /api/account/logout-everywhere`: revokes every session and token of the account, the
/// current one included, and unties its linked Telegram users.
async fn log_out_everywhere(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    let (p, _) = player_with(&state.online, &headers).await?;
    let revoked = state.online.accounts().revoke(&p, None, None).await?;
    Ok(with_cookie(
        json!({"ok": true, "revoked": revoked}),
        &session_clear_cookie(over_https(&headers)),
    ))
}

async fn me(State(state): State<AppState>, headers: HeaderMap) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    Ok(Json(account_json(&state.online, &p).await?))
}

async fn new_token(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    if p.guest {
        return Err(guests_casual_only("guests cannot have API tokens: sign up first").into());
    }
    let token = state
        .online
        .accounts()
        .issue(p.id, SecretKind::Token, now_ms())
        .await?;
    Ok(Json(json!({"token": token, "name": p.name})))
}

/// `POST /api/account/link-code`: a one-time code that links a Telegram user to this account
/// (`/link CODE` to the bot, or its `start` link), valid for ten minutes.
async fn link_code(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    if p.guest {
        return Err(guests_casual_only("guests cannot link other accounts: sign up first").into());
    }
    let code = state
        .online
        .accounts()
        .issue(p.id, SecretKind::Link, now_ms())
        .await?;
    Ok(Json(
        json!({"code": code, "name": p.name, "expiresIn": 600}),
    ))
}

#[derive(Deserialize)]
struct TelegramLogIn {
    #[serde(rename = "initData")]
    init_data: String,
}

/// `POST /api/account/telegram {initData}`: the log-in of the page the bot's Mini App button
/// opened, with the `initData` Telegram signed for it: a session for the account the bot plays
/// that Telegram user with (404 when the server runs no bot).
async fn telegram_log_in(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<TelegramLogIn>,
) -> Result<Response, HttpError> {
    let Some(token) = state.telegram_token.clone() else {
        return Err(ApiError::NotFound("this server runs no Telegram bot".into()).into());
    };
    limited(
        &state.limits.log_ins,
        &client_ip(conn.as_ref()),
        "log-in attempts",
    )?;
    let now_s = now_ms() / 1000;
    let p =
        damasi_online::init_data::player_of(&state.online, &req.init_data, &token, now_s).await?;
    start_session(&state, &headers, p).await.map_err(HttpError)
}

/// `DELETE /api/account/telegram`: unties the Telegram users linked to the account (`/link`):
/// the bot plays them as guests again and the Mini App gives them no session of the account.
/// Answers how many were linked; guests have no link to undo.
async fn telegram_unlink(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    if p.guest {
        return Err(
            guests_casual_only("guests have no linked Telegram user: sign up first").into(),
        );
    }
    let unlinked = state.online.accounts().unlink(&p, None).await?;
    Ok(Json(json!({"ok": true, "unlinked": unlinked})))
}

/// `GET /api/account/playing?nb=N` (lichess's): the games the player is playing now, those
/// waiting for their move first (`nowPlaying`, see `Online::now_playing`); `nb` 1 to 50,
/// default 9 as on lichess.
async fn now_playing(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<PlayingQuery>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
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
struct PlayingQuery {
    #[serde(default)]
    nb: Option<String>,
}

/// A time control as clients send it: lichess's `clock.limit` / `clock.increment` in seconds,
/// or `minutes` and `increment` seconds, or lichess's `days` a move for a correspondence game.
#[derive(Deserialize, Default)]
struct GameRequest {
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
    color: Option<String>,
    #[serde(default = "yes")]
    chat: bool,
    #[serde(default, rename = "ratingRange")]
    rating_range: Option<String>,
    /// lichess's `variant`: `standard` (the default) or a rule-set name.
    #[serde(default)]
    variant: Option<String>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Default)]
struct ClockRequest {
    limit: i64,
    #[serde(default)]
    increment: i64,
}

impl GameRequest {
    fn new_game(&self) -> Result<NewGame, ApiError> {
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

    fn range(&self) -> Result<Option<(i64, i64)>, ApiError> {
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

/// The site's address as the request reached it (`https://host` behind a proxy that says
/// so), for links in what is sent back.
pub(crate) fn origin(headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let scheme = if over_https(headers) { "https" } else { "http" };
    format!("{scheme}://{host}")
}

fn game_links(headers: &HeaderMap, id: &str) -> Value {
    let url = format!("{}/online/{id}", origin(headers));
    json!({
        "url": url,
        "urlWhite": format!("{url}?color=white"),
        "urlBlack": format!("{url}?color=black"),
    })
}

async fn create(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<GameRequest>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
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

async fn live(State(state): State<AppState>) -> Json<Value> {
    let games: Vec<GameMessage> = state
        .online
        .live_games(50)
        .await
        .into_iter()
        .map(GameMessage::from)
        .collect();
    Json(json!({ "games": games }))
}

async fn show(
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
async fn export_pdn(
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
struct JoinRequest {
    #[serde(default)]
    color: Option<String>,
}

async fn join(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
    OptionalJson(req): OptionalJson<JoinRequest>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    let want = parse_color(req.color.as_deref())?;
    let side = state.online.join(&id, &p, want).await?;
    Ok(Json(json!({"id": id, "color": side.name()})))
}

#[derive(Deserialize)]
struct MoveRequest {
    #[serde(rename = "move")]
    mv: String,
}

async fn act(state: &AppState, headers: &HeaderMap) -> Result<Player, ApiError> {
    let p = player(&state.online, headers).await?;
    state.limits.check_action(p.id)?;
    Ok(p)
}

async fn play_json(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
    ApiJson(req): ApiJson<MoveRequest>,
) -> Result<Json<Value>, HttpError> {
    let p = act(&state, &headers).await?;
    Ok(Json(
        state
            .online
            .run(&id, &p, Command::Move { text: req.mv })
            .await?,
    ))
}

async fn play_path(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath((id, mv)): ApiPath<(String, String)>,
) -> Result<Json<Value>, HttpError> {
    let p = act(&state, &headers).await?;
    state
        .online
        .run(&id, &p, Command::Move { text: mv })
        .await?;
    Ok(Json(json!({"ok": true})))
}

async fn resign(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let p = act(&state, &headers).await?;
    state.online.run(&id, &p, Command::Resign).await?;
    Ok(Json(json!({"ok": true})))
}

async fn abort(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let p = act(&state, &headers).await?;
    state.online.run(&id, &p, Command::Abort).await?;
    Ok(Json(json!({"ok": true})))
}

fn yes_no(answer: &str) -> Result<bool, ApiError> {
    match answer {
        "yes" | "true" | "accept" => Ok(true),
        "no" | "false" | "decline" => Ok(false),
        other => Err(ApiError::BadRequest(format!(
            "answer '{other}' is not yes or no"
        ))),
    }
}

async fn draw(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath((id, answer)): ApiPath<(String, String)>,
) -> Result<Json<Value>, HttpError> {
    let yes = yes_no(&answer)?;
    let p = act(&state, &headers).await?;
    state.online.run(&id, &p, Command::Draw { yes }).await?;
    Ok(Json(json!({"ok": true})))
}

async fn takeback(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath((id, answer)): ApiPath<(String, String)>,
) -> Result<Json<Value>, HttpError> {
    let yes = yes_no(&answer)?;
    let p = act(&state, &headers).await?;
    state.online.run(&id, &p, Command::Takeback { yes }).await?;
    Ok(Json(json!({"ok": true})))
}

#[derive(Deserialize)]
struct ChatRequest {
    text: String,
}

async fn chat(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
    ApiJson(req): ApiJson<ChatRequest>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    state.limits.check_chat(p.id)?;
    let text = req.text;
    state.online.run(&id, &p, Command::Chat { text }).await?;
    Ok(Json(json!({"ok": true})))
}

async fn rematch(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let p = act(&state, &headers).await?;
    Ok(Json(state.online.run(&id, &p, Command::Rematch).await?))
}

#[derive(Deserialize, Default)]
struct ClaimRequest {
    #[serde(default = "yes")]
    win: bool,
}

async fn claim(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
    OptionalJson(req): OptionalJson<ClaimRequest>,
) -> Result<Json<Value>, HttpError> {
    let p = act(&state, &headers).await?;
    let win = req.win;
    Ok(Json(
        state.online.run(&id, &p, Command::Claim { win }).await?,
    ))
}

async fn claim_victory(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let p = act(&state, &headers).await?;
    let win = true;
    state.online.run(&id, &p, Command::Claim { win }).await?;
    Ok(Json(json!({"ok": true})))
}

/// `GET /api/lobby`: the open seeks (without those of the players the asker blocks) and the
/// pools.
async fn lobby(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Value>, HttpError> {
    let viewer = state.online.accounts().identify(&headers).await?;
    Ok(Json(json!({
        "seeks": state.online.seeks_for(viewer.as_ref()).await?,
        "pools": state.online.pools().await?,
    })))
}

async fn seek(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<GameRequest>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    state
        .limits
        .check_seek(p.id, &client_ip(conn.as_ref()), "seeks")?;
    let new = req.new_game()?;
    let id = state
        .online
        .seek(&p, new, parse_color(req.color.as_deref())?, req.range()?)
        .await?;
    Ok(Json(json!({"id": id})))
}

async fn cancel_seek(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<u64>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    state.online.cancel_seek(&p, id).await?;
    Ok(Json(json!({"ok": true})))
}

async fn accept_seek(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<u64>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    state
        .limits
        .check_seek(p.id, &client_ip(conn.as_ref()), "seeks")?;
    let game = state.online.accept_seek(&p, id).await?;
    Ok(Json(json!({"game": game})))
}

async fn join_pool(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiPath(tc): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    state
        .limits
        .check_seek(p.id, &client_ip(conn.as_ref()), "pool joins")?;
    let bad = || ApiError::BadRequest(format!("pool '{tc}' is not like 5+3"));
    let (m, i) = tc.split_once('+').ok_or_else(bad)?;
    let (m, i) = (
        m.parse::<i64>().map_err(|_| bad())?,
        i.parse::<i64>().map_err(|_| bad())?,
    );
    let game = state.online.join_pool(&p, m, i).await?;
    Ok(Json(json!({"game": game, "waiting": game.is_none()})))
}

async fn leave_pool(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    state.online.leave_pools(&p).await?;
    Ok(Json(json!({"ok": true})))
}

async fn open_challenge(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<GameRequest>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
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
async fn challenge_player(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiPath(username): ApiPath<String>,
    OptionalJson(req): OptionalJson<GameRequest>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
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
struct DeclineRequest {
    #[serde(default)]
    reason: Option<String>,
}

/// `POST /api/challenge/{id}/decline`: the challenged player says no (`reason`, as lichess's
/// reason keys: `generic`, `later`, `tooFast`, ...).
async fn decline_challenge(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
    OptionalJson(req): OptionalJson<DeclineRequest>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
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
async fn cancel_challenge(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    state.online.run(&id, &p, Command::Abort).await?;
    Ok(Json(json!({"ok": true})))
}

#[derive(Deserialize, Default)]
struct AcceptRequest {
    #[serde(default)]
    color: Option<String>,
}

async fn accept_challenge(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
    OptionalJson(req): OptionalJson<AcceptRequest>,
) -> Result<Json<Value>, HttpError> {
    let p = player(&state.online, &headers).await?;
    let side = state
        .online
        .join(&id, &p, parse_color(req.color.as_deref())?)
        .await?;
    Ok(Json(json!({"ok": true, "id": id, "color": side.name()})))
}

/// How often an idle stream sends an empty line, so proxies and clients know it is alive.
const KEEP_ALIVE: Duration = Duration::from_secs(7);

/// An NDJSON answer that streams what `rx` gets.
pub(super) fn ndjson(rx: mpsc::Receiver<Result<Bytes, Infallible>>) -> Response {
    let mut res = Body::from_stream(ReceiverStream::new(rx)).into_response();
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}

fn line(v: &Value) -> Result<Bytes, Infallible> {
    text_line(v.to_string())
}

/// `text` as one NDJSON line.
fn text_line(mut text: String) -> Result<Bytes, Infallible> {
    text.push('\n');
    Ok(Bytes::from(text))
}

async fn event_stream(
    State(state): State<AppState>,
    client: Client,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    let (p, cred) = player_with(&state.online, &headers).await?;
    let permit = state.streams.open(client.address, Viewer::Player(p.id))?;
    let mut events = state.online.user_events(p.id);
    // While it is open the player's seeks and pool places stand.
    let listening = state.online.listen(p.id);
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
async fn game_stream(
    State(state): State<AppState>,
    client: Client,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, HttpError> {
    let who = state.online.accounts().identify_with(&headers).await?;
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
async fn stream_game(
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
