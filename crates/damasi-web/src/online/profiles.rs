//! The HTTP side of players finding each other (the rules and storage are
//! `damasi_online::players`): profiles with their records, games (filtered, by pages) and
//! rating histories; follows and blocks in lichess's shape (`/api/rel/...`); the leaderboards
//! (`/api/player/top/{nb}/{perfType}`).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use crate::error::{ApiError, ApiPath, ApiQuery, HttpError};
use crate::AppState;

use super::http::{account_json, ndjson, player, Me};
use super::session::Identify;
use damasi_online::accounts::Player;
use damasi_online::db::{GameFilter, GameResult, GameSummary, UserRow};
use damasi_online::players::parse_speed;
use damasi_online::rating::Speed;
use damasi_online::Online;

/// Most games on one page of a player's list.
pub const MAX_PAGE: i64 = 50;

/// The routes of profiles, relations and leaderboards, to be nested under `/api`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/user/{name}", get(profile))
        .route("/user/{name}/games", get(games))
        .route("/user/{name}/rating-history", get(rating_history))
        .route("/rel/follow/{name}", post(follow))
        .route("/rel/unfollow/{name}", post(unfollow))
        .route("/rel/block/{name}", post(block))
        .route("/rel/unblock/{name}", post(unblock))
        .route("/rel/following", get(following))
        .route("/rel/following/online", get(following_online))
        .route("/rel/blocking", get(blocking))
        .route("/player/top/{nb}/{perf}", get(leaderboard))
}

/// A game of a player's list.
fn game_json(g: &GameSummary) -> Value {
    json!({
        "id": g.row.id,
        "createdAt": g.row.created_ms,
        "white": g.names[0],
        "black": g.names[1],
        "rated": g.row.rated,
        "variant": damasi_online::variant::json(&g.row.rules),
        "speed": Speed::of(g.row.initial_ms, g.row.increment_ms).name(),
        "clock": {"initial": g.row.initial_ms, "increment": g.row.increment_ms},
        "status": g.row.status,
        "outcome": g.row.outcome,
        "plies": g.plies,
        "ratingDiff": {"white": g.row.diffs[0], "black": g.row.diffs[1]},
    })
}

/// `GET /api/user/{name}`: the account's ratings, its record (`count`), whether it is online,
/// what the viewer (if any) is to it (`following`, `blocking`), its last 50 games and the
/// last 50 tournaments it entered (`tournaments`: Swiss, round robins and arenas, as
/// `GET /api/swiss` lists them, each with the player's place as `player`: `rank`, `points` or
/// an arena's `score`).
async fn profile(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let online = &state.online;
    let p = Player::from(online.user_named(&name).await?);
    let mut body = account_json(online, &p).await?;
    let record = online.db().record(p.id).await?;
    body["count"] = json!({
        "all": record.all,
        "win": record.wins,
        "draw": record.draws,
        "loss": record.losses,
        "rated": record.rated,
    });
    body["online"] = json!(online.is_online(p.id));
    if let Some(viewer) = online.accounts().identify(&headers).await? {
        let relation = online.db().relation(viewer.id, p.id).await?;
        body["following"] = json!(relation == Some(damasi_online::db::Relation::Follow));
        body["blocking"] = json!(relation == Some(damasi_online::db::Relation::Block));
    }
    let games = online.db().games_of(p.id, 50).await?;
    body["games"] = games.iter().map(game_json).collect();
    body["tournaments"] = json!(state.tournaments.played_by(p.id, 50).await?);
    Ok(Json(body))
}

/// The filters and page of `GET /api/user/{name}/games`, as given.
#[derive(Deserialize, Default)]
struct GamesQuery {
    #[serde(default)]
    rated: Option<String>,
    #[serde(default)]
    speed: Option<String>,
    #[serde(default)]
    result: Option<String>,
    #[serde(default)]
    page: Option<i64>,
    #[serde(default)]
    nb: Option<i64>,
}

impl GamesQuery {
    fn filter(&self) -> Result<GameFilter, ApiError> {
        let given = |v: &Option<String>| v.clone().filter(|s| !s.is_empty() && s != "all");
        let rated = match given(&self.rated).as_deref() {
            None => None,
            Some("true" | "rated") => Some(true),
            Some("false" | "casual") => Some(false),
            Some(other) => {
                return Err(ApiError::BadRequest(format!(
                    "rated '{other}' is not true (rated) or false (casual)"
                )))
            }
        };
        let speed = match given(&self.speed) {
            None => None,
            Some(s) => Some(parse_speed(&s).map_err(|_| {
                ApiError::BadRequest(format!(
                    "speed '{s}' is not bullet, blitz, rapid, classical or correspondence"
                ))
            })?),
        };
        let result = match given(&self.result).as_deref() {
            None => None,
            Some("win") => Some(GameResult::Win),
            Some("draw") => Some(GameResult::Draw),
            Some("loss") => Some(GameResult::Loss),
            Some(other) => {
                return Err(ApiError::BadRequest(format!(
                    "result '{other}' is not win, draw or loss"
                )))
            }
        };
        Ok(GameFilter {
            rated,
            speed,
            result,
        })
    }
}

/// `GET /api/user/{name}/games?rated=&speed=&result=&page=&nb=`: one page (from 1, `nb`
/// games, at most [`MAX_PAGE`]) of the player's games that pass the filters, newest first,
/// with the total that pass them.
async fn games(
    State(state): State<AppState>,
    ApiPath(name): ApiPath<String>,
    ApiQuery(q): ApiQuery<GamesQuery>,
) -> Result<Json<Value>, HttpError> {
    let filter = q.filter()?;
    let page = q.page.unwrap_or(1);
    let nb = q.nb.unwrap_or(20);
    if !(1..=10_000).contains(&page) || !(1..=MAX_PAGE).contains(&nb) {
        return Err(
            ApiError::BadRequest(format!("page is 1 to 10000 and nb 1 to {MAX_PAGE}")).into(),
        );
    }
    let user = state.online.user_named(&name).await?;
    let (games, total) = state
        .online
        .db()
        .games_page(user.id, filter, (page - 1) * nb, nb)
        .await?;
    Ok(Json(json!({
        "games": games.iter().map(game_json).collect::<Vec<_>>(),
        "page": page,
        "nb": nb,
        "total": total,
    })))
}

/// `GET /api/user/{name}/rating-history`: per speed class played, the rating after each rated
/// game: `[{name: "Blitz", speed: "blitz", points: [[at_ms, rating], ...]}]`, oldest first
/// (lichess's shape, with the time in ms instead of a date).
async fn rating_history(
    State(state): State<AppState>,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let user = state.online.user_named(&name).await?;
    let points = state.online.db().rating_history(user.id).await?;
    let mut out = Vec::new();
    for speed in Speed::ALL {
        let mine: Vec<Value> = points
            .iter()
            .filter(|p| p.speed == speed.name())
            .map(|p| json!([p.at_ms, p.rating.round() as i64]))
            .collect();
        if !mine.is_empty() {
            let title = speed.name()[..1].to_ascii_uppercase() + &speed.name()[1..];
            out.push(json!({"name": title, "speed": speed.name(), "points": mine}));
        }
    }
    Ok(Json(Value::Array(out)))
}

async fn relation_change<'a>(
    state: &'a AppState,
    headers: &HeaderMap,
) -> Result<(Player, &'a Online), ApiError> {
    let p = player(&state.online, headers).await?;
    state.limits.check_action(p.id)?;
    Ok((p, &state.online))
}

/// `POST /api/rel/follow/{name}`.
async fn follow(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let (p, online) = relation_change(&state, &headers).await?;
    online.relations().follow(&p, &name).await?;
    Ok(Json(json!({"ok": true})))
}

/// `POST /api/rel/unfollow/{name}`.
async fn unfollow(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let (p, online) = relation_change(&state, &headers).await?;
    online.relations().unfollow(&p, &name).await?;
    Ok(Json(json!({"ok": true})))
}

/// `POST /api/rel/block/{name}`.
async fn block(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let (p, online) = relation_change(&state, &headers).await?;
    online.relations().block(&p, &name).await?;
    Ok(Json(json!({"ok": true})))
}

/// `POST /api/rel/unblock/{name}`.
async fn unblock(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    let (p, online) = relation_change(&state, &headers).await?;
    online.relations().unblock(&p, &name).await?;
    Ok(Json(json!({"ok": true})))
}

/// A related player as listed: lichess's light user with the ratings and whether they are
/// online.
pub(super) async fn user_json(online: &Online, u: &UserRow) -> Result<Value, ApiError> {
    let mut perfs = Map::new();
    for (speed, r) in online.db().ratings(u.id).await? {
        perfs.insert(
            speed,
            json!({
                "rating": r.rating.round() as i64,
                "rd": r.deviation.round() as i64,
                "games": r.games,
                "prov": damasi_online::rating::is_provisional(&r),
            }),
        );
    }
    let mut v = json!({
        "id": u.name.to_ascii_lowercase(),
        "username": u.name,
        "perfs": perfs,
        "online": online.is_online(u.id),
    });
    if u.bot {
        v["title"] = json!(damasi_online::accounts::BOT_TITLE);
    }
    Ok(v)
}

/// `GET /api/rel/following`: the players the requester follows, one JSON object a line
/// (NDJSON, as lichess).
async fn following(State(state): State<AppState>, Me(p): Me) -> Result<Response, HttpError> {
    let users = state.online.relations().following(&p).await?;
    let mut lines = Vec::with_capacity(users.len());
    for u in &users {
        let mut s = user_json(&state.online, u).await?.to_string();
        s.push('\n');
        lines.push(Bytes::from(s));
    }
    let (tx, rx) = mpsc::channel(lines.len().max(1));
    for l in lines {
        let _ = tx.try_send(Ok(l));
    }
    drop(tx);
    Ok(ndjson(rx))
}

/// `GET /api/rel/following/online`: the followed players who are online now (on this server
/// process), `{users: [{id, username}]}`.
async fn following_online(
    State(state): State<AppState>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    let users: Vec<Value> = state
        .online
        .relations()
        .following(&p)
        .await?
        .iter()
        .filter(|u| state.online.is_online(u.id))
        .map(|u| json!({"id": u.name.to_ascii_lowercase(), "username": u.name}))
        .collect();
    Ok(Json(json!({ "users": users })))
}

/// `GET /api/rel/blocking`: the players the requester blocks, `{users: [{id, username}]}`.
async fn blocking(State(state): State<AppState>, Me(p): Me) -> Result<Json<Value>, HttpError> {
    let users: Vec<Value> = state
        .online
        .relations()
        .blocked(&p)
        .await?
        .iter()
        .map(|u| json!({"id": u.name.to_ascii_lowercase(), "username": u.name}))
        .collect();
    Ok(Json(json!({ "users": users })))
}

/// What `GET /api/player/top/...` may ask besides lichess's path.
#[derive(Deserialize)]
struct LeaderQuery {
    /// damasi's: also list the active players whose rating is still provisional, after the
    /// others, each marked `"prov": true` (lichess's mark of a provisional rating).
    provisional: Option<bool>,
}

/// `GET /api/player/top/{nb}/{perfType}` (lichess's): the best `nb` (1 to 100) active players
/// of a speed class whose rating is not provisional: `{users: [{id, username, perfs:
/// {perfType: {rating, progress}}}]}`, `progress` being the change over their last
/// [`damasi_online::db::PROGRESS_GAMES`] rated games there. With `?provisional=true` (the page's),
/// the provisional ones follow while there is room, marked `"prov": true`.
async fn leaderboard(
    State(state): State<AppState>,
    ApiPath((nb, perf)): ApiPath<(String, String)>,
    ApiQuery(q): ApiQuery<LeaderQuery>,
) -> Result<Json<Value>, HttpError> {
    let nb: usize = nb
        .parse()
        .ok()
        .filter(|n| (1..=damasi_online::players::MAX_LEADERBOARD).contains(n))
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "nb '{nb}' is not a number from 1 to {}",
                damasi_online::players::MAX_LEADERBOARD
            ))
        })?;
    let speed = parse_speed(&perf)?;
    let rows = if q.provisional == Some(true) {
        state.online.leaderboard_with_provisional(speed, nb).await?
    } else {
        state.online.leaderboard(speed, nb).await?
    };
    let users: Vec<Value> = rows
        .iter()
        .map(|r| {
            let rating = r.rating.rating.round() as i64;
            let mut perf = json!({"rating": rating, "progress": rating - r.before.round() as i64});
            if damasi_online::rating::is_provisional(&r.rating) {
                perf["prov"] = json!(true);
            }
            let mut perfs = Map::new();
            perfs.insert(speed.name().to_string(), perf);
            json!({
                "id": r.user.name.to_ascii_lowercase(),
                "username": r.user.name,
                "perfs": perfs,
                "online": state.online.is_online(r.user.id),
            })
        })
        .collect();
    Ok(Json(json!({ "users": users })))
}
