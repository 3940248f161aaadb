//! The HTTP side of online play: accounts, games, the lobby, and the Board API for programs
//! (the shape of lichess's Board/Bot API: NDJSON streams of events and game states, and one
//! `POST` per action). Every action names its player by the session cookie or an
//! `Authorization: Bearer` token; rate limits keep one client from flooding sign-ups, log-ins,
//! seeks, moves and chat.
//!
//! This file holds the routes, the rate limits and what every area shares (who the player
//! is, the client's address, NDJSON answers); the handlers are by area in `http/`:
//! `account`, `games`, `lobby`, `challenges` and `board_api` (the event and game streams).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::num::NonZeroU32;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::Extension;
use axum::Router;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::error::{ApiError, HttpError};
use crate::AppState;

use super::log_ins::{LogInFailures, PasswordChecks};
use super::session::Identify;
use damasi_online::accounts::{Api, Credential, Player};
use damasi_online::rating;
use damasi_online::Online;

mod account;
mod board_api;
mod bots;
mod challenges;
mod games;
mod lobby;
mod moderation;
mod recovery;
mod two_factor;
mod your_data;

pub use recovery::{confirm_email_page, RESET_ANSWER_TIME};
pub use two_factor::scope_guard;

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
    /// Look-ups of what the server knows of a position per address: lichess's cloud
    /// evaluations (`GET /api/cloud-eval`) and tablebase (`GET /api/tablebase/standard`).
    knowledge: DefaultKeyedRateLimiter<String>,
    /// Reports of players per reporter.
    reports: DefaultKeyedRateLimiter<i64>,
    /// Password-reset requests per client address.
    resets_by_address: DefaultKeyedRateLimiter<String>,
    /// Password-reset requests per e-mail address asked about (whether or not an account has
    /// it), so that nobody's mailbox is flooded from many addresses.
    resets_by_email: DefaultKeyedRateLimiter<String>,
    /// Changes of address (each mails a link) per account.
    email_changes: DefaultKeyedRateLimiter<i64>,
}

/// Password-reset requests one client address may make at once; then one every
/// [`RESET_EVERY`].
pub const RESETS_AT_ONCE: u32 = 5;
/// How often one more password-reset request is allowed to a client address that used up
/// [`RESETS_AT_ONCE`] (five an hour).
pub const RESET_EVERY: std::time::Duration = std::time::Duration::from_secs(12 * 60);
/// Password-reset requests for one e-mail address at once; then one every
/// [`RESET_EMAIL_EVERY`].
pub const RESETS_PER_EMAIL_AT_ONCE: u32 = 3;
/// How often one more password-reset request for one e-mail address is allowed (three an
/// hour).
pub const RESET_EMAIL_EVERY: std::time::Duration = std::time::Duration::from_secs(20 * 60);
/// Changes of address one account may make at once, then one every [`RESET_EVERY`].
pub const EMAIL_CHANGES_AT_ONCE: u32 = 5;

/// A limit of `burst` at once, then one more every `every`.
fn burst_then(burst: u32, every: std::time::Duration) -> Quota {
    Quota::with_period(every)
        .expect("a period")
        .allow_burst(NonZeroU32::new(burst).expect("positive"))
}

/// Reports one player may file an hour.
pub const REPORTS_PER_HOUR: u32 = 10;

/// Cloud evaluations and lichess-shaped tablebase look-ups one address may make a minute
/// (together): five a second for a program going through a game's positions.
pub const KNOWLEDGE_PER_MINUTE: u32 = 300;

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
            knowledge: RateLimiter::keyed(per_minute(KNOWLEDGE_PER_MINUTE)),
            reports: RateLimiter::keyed(Quota::per_hour(
                NonZeroU32::new(REPORTS_PER_HOUR).expect("positive"),
            )),
            resets_by_address: RateLimiter::keyed(burst_then(RESETS_AT_ONCE, RESET_EVERY)),
            resets_by_email: RateLimiter::keyed(burst_then(
                RESETS_PER_EMAIL_AT_ONCE,
                RESET_EMAIL_EVERY,
            )),
            email_changes: RateLimiter::keyed(burst_then(EMAIL_CHANGES_AT_ONCE, RESET_EVERY)),
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
        self.knowledge.retain_recent();
        self.reports.retain_recent();
        self.resets_by_address.retain_recent();
        self.resets_by_email.retain_recent();
        self.email_changes.retain_recent();
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

    /// Refuses a cloud evaluation or lichess-shaped tablebase look-up beyond the address's
    /// rate ([`KNOWLEDGE_PER_MINUTE`]); `client` as [`crate::api::Client`] reads it (requests
    /// without an address, in tests, share one count).
    pub fn check_knowledge(&self, client: Option<std::net::IpAddr>) -> Result<(), ApiError> {
        let key = client.map_or_else(|| "unknown".to_string(), |ip| ip.to_string());
        limited(&self.knowledge, &key, "position look-ups")
    }

    /// Refuses a report beyond the player's rate ([`REPORTS_PER_HOUR`]).
    pub fn check_report(&self, player: i64) -> Result<(), ApiError> {
        limited(&self.reports, &player, "reports")
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
        .route("/account", get(account::me))
        .route("/account/signup", post(account::sign_up))
        .route("/account/login", post(account::log_in))
        .route("/account/guest", post(account::guest))
        .route("/account/logout", post(account::log_out))
        .route("/account/token", post(account::new_token))
        .route("/account/link-code", post(account::link_code))
        .route(
            "/account/telegram",
            post(account::telegram_log_in).delete(account::telegram_unlink),
        )
        .route("/account/playing", get(games::now_playing))
        .route("/account/export", get(your_data::export))
        .route("/account/close", post(your_data::close))
        .route("/account/moderation", get(moderation::mine))
        .route("/report", post(moderation::report))
        .route("/mod/reports", get(moderation::queue))
        .route("/mod/log", get(moderation::log))
        .route("/mod/{username}/{action}", post(moderation::act))
        .route("/account/password", post(account::change_password))
        .route("/account/sessions", get(account::list_sessions))
        .route("/account/two-factor/setup", post(two_factor::setup))
        .route("/account/two-factor/enable", post(two_factor::enable))
        .route("/account/two-factor/disable", post(two_factor::disable))
        .route("/account/email", post(recovery::set_email))
        .route("/account/password-reset", post(recovery::request_reset))
        .route(
            "/account/password-reset/{token}",
            get(recovery::reset_target).post(recovery::reset_password),
        )
        .route(
            "/account/sessions/{handle}",
            delete(account::revoke_session),
        )
        .route(
            "/account/logout-everywhere",
            post(account::log_out_everywhere),
        )
        .route("/token", delete(account::revoke_token))
        .route("/online/games", get(games::live).post(games::create))
        .route("/online/games/{id}", get(games::show))
        .route("/online/games/{id}/pdn", get(games::export_pdn))
        .route("/online/games/{id}/join", post(games::join))
        .route("/online/games/{id}/socket", get(super::socket::upgrade))
        .route("/lobby", get(lobby::lobby))
        .route("/lobby/seeks", post(lobby::seek))
        .route("/lobby/seeks/{id}", delete(lobby::cancel_seek))
        .route("/lobby/seeks/{id}/accept", post(lobby::accept_seek))
        .route("/pool/{tc}", post(lobby::join_pool))
        .route("/pool", delete(lobby::leave_pool))
        .route("/challenge/open", post(challenges::open_challenge))
        .route("/challenge/{username}", post(challenges::challenge_player))
        .route("/challenge/{id}/accept", post(challenges::accept_challenge))
        .route(
            "/challenge/{id}/decline",
            post(challenges::decline_challenge),
        )
        .route("/challenge/{id}/cancel", post(challenges::cancel_challenge))
        .route("/stream/event", get(board_api::event_stream))
        .route("/bot/account/upgrade", post(bots::upgrade))
        .route("/bot/online", get(bots::online))
        .merge(game_routes("/board/game", Api::Board))
        .merge(game_routes("/bot/game", Api::Bot))
        .merge(site_game_routes())
        .merge(super::profiles::routes())
        .merge(super::lichess::routes())
}

/// A game's stream and actions under `prefix` for programs of `api`: lichess's Board API
/// (`/board/game`, people) and Bot API (`/bot/game`, BOT accounts) are the same routes, each
/// refusing the other kind of account.
fn game_routes(prefix: &str, api: Api) -> Router<AppState> {
    let at = |path: &str| format!("{prefix}{path}");
    Router::new()
        .route(&at("/stream/{id}"), get(board_api::game_stream))
        .route(&at("/{id}/move/{mv}"), post(games::play_path))
        .route(&at("/{id}/resign"), post(games::resign))
        .route(&at("/{id}/abort"), post(games::abort))
        .route(&at("/{id}/draw/{answer}"), post(games::draw))
        .route(&at("/{id}/takeback/{answer}"), post(games::takeback))
        .route(&at("/{id}/chat"), post(games::chat).get(games::chat_lines))
        .route(&at("/{id}/claim-victory"), post(games::claim_victory))
        .route(&at("/{id}/claim-victory/"), post(games::claim_victory))
        .layer(Extension(api))
}

/// The game actions of the site's own pages (people, as the Board API).
fn site_game_routes() -> Router<AppState> {
    Router::new()
        .route("/online/games/{id}/move", post(games::play_json))
        .route("/online/games/{id}/chat", post(games::chat))
        .route("/online/games/{id}/rematch", post(games::rematch))
        .route("/online/games/{id}/claim", post(games::claim))
        .route("/online/games/{id}/resign", post(games::resign))
        .route("/online/games/{id}/abort", post(games::abort))
        .route("/online/games/{id}/draw/{answer}", post(games::draw))
        .route(
            "/online/games/{id}/takeback/{answer}",
            post(games::takeback),
        )
        .layer(Extension(Api::Board))
}

/// Path prefixes (under `/api`) whose requests are authenticated per player (session or
/// token) and so need no server-wide access token.
pub const PLAYER_AUTHENTICATED: [&str; 16] = [
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
    "/api/bot/",
    "/api/report",
    "/api/mod/",
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

/// The player making the request (by their session cookie or API token), as a handler's
/// argument: a 401 when there is none.
pub struct Me(pub Player);

impl FromRequestParts<AppState> for Me {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Me, HttpError> {
        Ok(Me(player(&state.online, &parts.headers).await?))
    }
}

/// The player making the request and the session or token they sent: a 401 when there is
/// none.
pub struct MeWith(pub Player, pub Credential);

impl FromRequestParts<AppState> for MeWith {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<MeWith, HttpError> {
        let (p, cred) = player_with(&state.online, &parts.headers).await?;
        Ok(MeWith(p, cred))
    }
}

/// The player acting in a game through the route's API (a BOT through the Bot API only, a
/// person through the others: [`Player::check_api`]), within their rate of actions: a 401,
/// 403 or 429 otherwise.
pub struct Acting(pub Player);

impl FromRequestParts<AppState> for Acting {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Acting, HttpError> {
        // Every game route is mounted with its API (`game_routes`); the pages' are people's.
        let api = parts.extensions.get::<Api>().copied().unwrap_or(Api::Board);
        let p = player(&state.online, &parts.headers).await?;
        p.check_api(api)?;
        state.limits.check_action(p.id)?;
        Ok(Acting(p))
    }
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
    let mut v = json!({"id": p.id, "name": p.name, "guest": p.guest, "perfs": perfs});
    if let Some(title) = p.title() {
        v["title"] = json!(title);
    }
    Ok(v)
}

/// Whether the page was reached over HTTPS (a reverse proxy says so).
pub(super) fn over_https(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|p| p.eq_ignore_ascii_case("https"))
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
