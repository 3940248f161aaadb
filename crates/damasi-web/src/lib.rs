//! # damasi-web: the damasi web app
//!
//! An axum server with a JSON API over the damasi rules library and engine, and an embedded
//! page (plain HTML, CSS and JavaScript, no build step) to play and study Turkish draughts.
//! [`router`] builds the whole app from an [`AppState`], so it can be tested without sockets;
//! [`serve`] binds it to an address.
//!
//! The server is the referee of every saved game ([`referee`]): it keeps the game in memory,
//! measures each move's time with its own clock, plays the engine's moves by itself, lets the
//! flag fall when a side's time is out (even with no page open), and allows each action only
//! to the side it belongs to. A page says what a person wants; it never reports times or
//! results.
//!
//! The API (JSON in and out; `GET /api` lists it, `docs/web-api.md` describes it whole):
//!
//! | endpoint | what it does |
//! |---|---|
//! | `GET /api/moves?fen=` | legal moves of a position, each with both notations, route and captures |
//! | `POST /api/move {fen, move}` | plays a move written in any notation the library reads |
//! | `POST /api/engine/move {fen, level}` | the engine's move and the position after it |
//! | `POST /api/analyze {fen, move_time_ms, multipv, searchmoves}` | score, depth and best line(s) |
//! | `GET /api/tablebase?fen=` | the endgame tables' win/draw/loss for the position and each legal move |
//! | `GET /api/tablebase/standard?fen=` | the same in the shape of lichess's tablebase server (also at `/standard`) |
//! | `GET /api/cloud-eval?fen=&multiPv=` | lichess's cloud evaluation: the server's own finished analyses of the position ([`cloud_eval`]) |
//! | `GET /api/explorer/{lichess,masters}?fen=` | the opening explorer: the moves played from the position, in lichess's shape ([`explorer`]) |
//! | `GET /api/learn/course`, `GET /api/learn/examples` | the rules course and the federation's worked examples ([`learn`]) |
//! | `GET /api/puzzles?rating=`, `GET /api/puzzles/{id}`, `POST /api/puzzles/{id}/attempt` | tactics puzzles and the player's puzzle rating |
//! | `GET/POST /api/games`, `GET/DELETE /api/games/{id}` | saved games (`?wait_version=N` waits for a change; `?from=PLY&limit=N` pages through the plies) |
//! | `POST /api/games/{id}/{move,engine,hint,takeback,resign,draw,draw/answer,flag}` | play a saved game |
//! | `GET /api/games/{id}/pdn`, `POST /api/pdn/import` | PDN export and import |
//! | `/api/account/...`, `/api/online/...`, `/api/lobby`, `/api/pool/...` | online play between people ([`online`], `docs/online.md`) |
//! | `/api/challenge/...`, `/api/stream/event`, `/api/board/...` | the Board API for programs, in lichess's shape |
//! | `/api/user/{name}/...`, `/api/rel/...`, `/api/player/top/{nb}/{perfType}` | profiles, follows and blocks, leaderboards (lichess's shape) |
//!
//! The stateless endpoints also take `moves`, the moves played from `fen` before, so that
//! repetitions count and the engine knows the game.
//!
//! Every error is JSON with a message and a stable `code`: malformed input is a 400
//! (`bad-request`); an illegal or ambiguous move a 422 listing the legal moves (or the
//! candidates); an action for the engine's side a 403 (`engine-side`); an unknown game or path
//! a 404; a change to a finished game a 409 (`game-over`, with the outcome code); a busy engine
//! a 503.
//!
//! ```
//! use damasi_web::{router, AppState};
//! let app = router(AppState::in_memory());
//! # let _ = app;
//! ```

use axum::extract::DefaultBodyLimit;
use axum::middleware;
use axum::routing::{any, get, post};
use axum::Router;
use tower_http::timeout::RequestBodyTimeoutLayer;

pub mod api;
pub mod assets;
pub mod cloud_eval;
pub mod error;
pub mod explorer;
pub mod games;
pub mod learn;
pub mod online;
pub mod pdn;
pub mod referee;
pub mod security;
mod server;
mod state;
pub mod store;
pub mod streams;
pub mod tablebase;
pub mod tournaments;

pub use damasi_tournaments::Tournaments;
pub use error::ApiError;
pub use referee::Referee;
pub use security::Security;
pub use server::{
    serve, serve_with, ServeOptions, BODY_TIMEOUT, CONNECTIONS_PER_ADDRESS, HEADER_TIMEOUT,
    MAX_CONNECTIONS,
};
pub use state::{AppState, BODY_LIMIT};
pub use store::Store;
pub use streams::{StreamLimits, Streams};
pub use tablebase::Tablebases;

/// The whole app: the page, its assets and the JSON API.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/", get(api::index))
        .route("/health", get(api::health))
        .route("/moves", get(api::moves))
        .route("/move", post(api::play_move))
        .route("/engine/move", post(api::engine_move))
        .route("/analyze", post(api::analyze))
        .route("/tablebase", get(tablebase::tablebase))
        .route("/tablebase/standard", get(tablebase::lichess_standard))
        .route("/cloud-eval", get(cloud_eval::cloud_eval))
        .merge(explorer::routes())
        .route("/learn/course", get(learn::course_json))
        .route("/learn/examples", get(learn::examples_json))
        .route("/puzzles", get(learn::next_puzzle))
        .route("/puzzles/{id}", get(learn::show_puzzle))
        .route("/puzzles/{id}/attempt", post(learn::attempt))
        .route("/pdn/import", post(games::import_pdn))
        .route("/games", get(games::list).post(games::create))
        .route("/games/{id}", get(games::show).delete(games::remove))
        .route("/games/{id}/move", post(games::play))
        .route("/games/{id}/engine", post(games::engine))
        .route("/games/{id}/hint", post(games::hint))
        .route("/games/{id}/takeback", post(games::take_back))
        .route("/games/{id}/resign", post(games::resign))
        .route("/games/{id}/draw", post(games::offer_draw))
        .route("/games/{id}/draw/answer", post(games::answer_draw))
        .route("/games/{id}/flag", post(games::flag))
        .route("/games/{id}/pdn", get(games::export_pdn))
        .merge(online::http::routes())
        .merge(tournaments::routes())
        .fallback(api::not_found);
    let security = state.security.clone();
    let scopes = state.clone();
    Router::new()
        .nest("/api", api)
        // `/api/` is not the nested router's `/` (that is `/api` alone): still the API's 404.
        .route("/api/", any(api::not_found))
        .merge(assets::routes())
        .route("/online", get(assets::online_page))
        .route("/online/{id}", get(assets::online_page))
        .merge(tournaments::pages())
        // A player's profile (lichess's path) and the leaderboards: the online page's views.
        .route("/@/{name}", get(assets::online_page))
        .merge(online::lichess::outside_api())
        .merge(explorer::outside_routes())
        // lichess's tablebase server answers at `/standard`; clients that join their base
        // URL and that path as URLs (berserk) land here whatever the base URL's path.
        .route("/standard", get(tablebase::lichess_standard))
        .route("/player", get(assets::online_page))
        .route("/mod", get(assets::online_page))
        // The links mailed to accounts' owners: confirming an address, resetting a password
        // (the online page in its reset mode).
        .route(
            "/account/confirm-email/{token}",
            get(online::http::confirm_email_page),
        )
        .route("/account/reset/{token}", get(assets::online_page))
        // A scoped API token is refused the routes outside its scopes.
        .layer(middleware::from_fn_with_state(
            scopes,
            online::http::scope_guard,
        ))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(RequestBodyTimeoutLayer::new(BODY_TIMEOUT))
        .layer(middleware::from_fn_with_state(security, security::guard))
        .with_state(state)
}
