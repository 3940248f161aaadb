//! The opening explorer's routes, in lichess's shape (`explorer.lichess.ovh`):
//! `GET /api/explorer/lichess` (this server's games) and `GET /api/explorer/masters` (the
//! imported master games). The explorer itself, its index and its answers, is the online
//! core's ([`damasi_online::explorer`]); this module reads the query and routes it.
//!
//! lichess's clients take the explorer's address apart from the API's: berserk 0.14's
//! `Client(session, base_url=S, explorer_url=S + "/api/explorer")` asks for the absolute
//! paths `/lichess` and `/masters`, which `urljoin` puts at the server's root, so the same
//! routes are there too ([`outside_routes`]).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use damasi_online::explorer::query::{MAX_MOVES, MAX_RECENT_GAMES, MAX_TOP_GAMES};
use damasi_online::explorer::{explore, ExplorerAnswer, Filter, Request, Source};
use serde::Deserialize;

use crate::api::parse_fen;
use crate::error::{ApiError, ApiQuery, HttpError};
use crate::AppState;

/// The query of both routes: lichess's parameters, as text, so that each bad one is named.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ExplorerQuery {
    /// The position (damasi's FEN; default: the start).
    pub fen: Option<String>,
    /// Moves played from `fen` first, comma-separated.
    pub play: Option<String>,
    /// lichess's variant: only `standard` (the federation's rules) is kept.
    pub variant: Option<String>,
    /// Speed classes, comma-separated (the server's games only).
    pub speeds: Option<String>,
    /// Rating bands by their lower bounds, comma-separated (the server's games only).
    pub ratings: Option<String>,
    /// lichess's date filters: not kept here (refused when given).
    pub since: Option<String>,
    /// See `since`.
    pub until: Option<String>,
    /// Most moves listed (default 12).
    pub moves: Option<String>,
    /// Most best-rated games listed.
    #[serde(rename = "topGames")]
    pub top_games: Option<String>,
    /// Most recent games listed (the server's games only).
    #[serde(rename = "recentGames")]
    pub recent_games: Option<String>,
    /// lichess's month-by-month history: not kept here (`false` is accepted).
    pub history: Option<String>,
}

/// The explorer's routes under `/api`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/explorer/lichess", get(lichess))
        .route("/explorer/masters", get(masters))
}

/// The same routes where lichess's clients look for them with `explorer_url` set to
/// `<server>/api/explorer` (see the module's comment).
pub fn outside_routes() -> Router<AppState> {
    Router::new()
        .route("/lichess", get(lichess))
        .route("/masters", get(masters))
}

/// `GET /api/explorer/lichess`: the moves of this server's games from a position.
pub async fn lichess(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ExplorerQuery>,
) -> Result<Json<ExplorerAnswer>, HttpError> {
    answer(&state, Source::Server, q).await
}

/// `GET /api/explorer/masters`: the moves of the imported master games from a position.
pub async fn masters(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ExplorerQuery>,
) -> Result<Json<ExplorerAnswer>, HttpError> {
    answer(&state, Source::Masters, q).await
}

fn given(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|t| !t.is_empty())
}

/// The query read into a [`Request`]: every parameter that is wrong is named.
pub fn request(source: Source, q: &ExplorerQuery) -> Result<Request, ApiError> {
    let bad = |m: String| Err(ApiError::BadRequest(m));
    if let Some(v) = given(&q.variant).filter(|v| *v != "standard") {
        return bad(format!(
            "variant: '{v}': the explorer keeps games under the federation's rules only \
             ('standard')"
        ));
    }
    for (name, v) in [("since", &q.since), ("until", &q.until)] {
        if given(v).is_some() {
            return bad(format!(
                "{name}: this explorer keeps no dates to filter by: leave it out"
            ));
        }
    }
    if let Some(v) = given(&q.history).filter(|v| *v != "false") {
        return bad(format!(
            "history: '{v}': this explorer keeps no month-by-month history"
        ));
    }
    if source == Source::Masters {
        for (name, v) in [
            ("speeds", &q.speeds),
            ("ratings", &q.ratings),
            ("recentGames", &q.recent_games),
        ] {
            if given(v).is_some() {
                return bad(format!(
                    "{name}: the masters have no speeds, bands or recent games (lichess's \
                     masters have none either)"
                ));
            }
        }
    }
    let mut pos = parse_fen(q.fen.as_deref()).map_err(|e| e.prefixed("fen"))?;
    if let Some(play) = given(&q.play) {
        pos = Request::play(pos, play)?;
    }
    let mut req = Request::new(source, pos);
    req.filter = Filter::parse(given(&q.speeds), given(&q.ratings))?;
    req.moves = Request::count("moves", given(&q.moves), req.moves, MAX_MOVES)?;
    let top_max = MAX_TOP_GAMES[source as usize];
    req.top_games = Request::count("topGames", given(&q.top_games), req.top_games, top_max)?;
    req.recent_games = Request::count(
        "recentGames",
        given(&q.recent_games),
        req.recent_games,
        MAX_RECENT_GAMES,
    )?;
    Ok(req)
}

async fn answer(
    state: &AppState,
    source: Source,
    q: ExplorerQuery,
) -> Result<Json<ExplorerAnswer>, HttpError> {
    let req = request(source, &q)?;
    Ok(Json(explore(state.online.db(), &req).await?))
}
