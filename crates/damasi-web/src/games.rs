//! Saved games over HTTP: thin handlers that read the request, ask the [`Referee`](crate::Referee) to act, and
//! answer with the game as the page shows it. See `docs/web-api.md` for the whole contract.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use damasi::{ByColor, Color, MoveInfo, Notation, OutcomeInfo, TimeControl};
use damasi_engine::SearchRoot;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::{self, parse_fen, parse_rules, Analysis};
use crate::error::{ApiError, ApiJson, ApiPath, ApiQuery, HttpError};
use crate::pdn::ImportError;
use crate::referee::{EngineState, Live, Slot};
use crate::store::{self, GameRow, Player};
use crate::streams::Client;
use crate::AppState;
use damasi_online::now_ms;

/// One ply of a game: the move, the position after it, its thinking time and the clocks.
#[derive(Serialize)]
pub struct PlyView {
    /// The move, described in the position before it.
    #[serde(rename = "move")]
    pub mv: MoveInfo,
    /// The FEN after the move.
    pub fen: String,
    /// How long the player thought, as the server measured it (ms).
    pub elapsed_ms: u64,
    /// Both clocks after the move (timed games).
    pub clock: Option<ClockReading>,
}

/// Time left on both clocks, in ms.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockReading {
    /// White's time left.
    pub white_ms: u64,
    /// Black's time left.
    pub black_ms: u64,
}

/// The clocks of a timed game as of `now_ms`.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct ClockView {
    /// Time each side started with.
    pub initial_ms: u64,
    /// Time added after each timed move.
    pub increment_ms: u64,
    /// White's time left now, counting a move in progress.
    pub white_ms: u64,
    /// Black's time left now, counting a move in progress.
    pub black_ms: u64,
    /// The side whose clock runs: none before the first move, after the end, and while the
    /// engine's clock is paused after a failure.
    pub running: Option<&'static str>,
    /// The server's time of this reading (Unix ms).
    pub now_ms: i64,
}

/// What the engine is doing.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct EngineView {
    /// `idle`, `thinking` or `failed`.
    pub state: &'static str,
    /// Why it failed.
    pub error: Option<String>,
}

/// Draw offers in a game.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct DrawView {
    /// Offers made so far by each side.
    pub offers: ByColor<u8>,
    /// Offers each side may make in a game.
    pub max: u8,
    /// The side whose offer waits for the other person's answer.
    pub pending: Option<String>,
}

/// Plies a game's answer carries when the client does not say: the newest ones. A normal game
/// has far fewer, so its answer carries every ply.
pub const DEFAULT_PLY_LIMIT: usize = 500;

/// Most plies one answer carries: what one request costs stays bounded however long the game.
pub const MAX_PLY_LIMIT: usize = 1000;

/// Which plies of a game an answer carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlyWindow {
    /// The newest plies, at most this many (capped at [`MAX_PLY_LIMIT`]).
    Newest(usize),
    /// At most `limit` plies (capped at [`MAX_PLY_LIMIT`]) from ply index `from` (0 = the
    /// first move); none when `from` is past the end.
    From {
        /// Index of the first ply sent.
        from: usize,
        /// Most plies sent.
        limit: usize,
    },
}

impl Default for PlyWindow {
    fn default() -> Self {
        PlyWindow::Newest(DEFAULT_PLY_LIMIT)
    }
}

impl PlyWindow {
    /// The ply indices this window takes from a game of `total` plies.
    pub fn range(self, total: usize) -> std::ops::Range<usize> {
        match self {
            PlyWindow::Newest(limit) => total.saturating_sub(limit.min(MAX_PLY_LIMIT))..total,
            PlyWindow::From { from, limit } => {
                let from = from.min(total);
                from..from.saturating_add(limit.min(MAX_PLY_LIMIT)).min(total)
            }
        }
    }
}

/// Where the plies of an answer sit in the whole game.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct PliesPage {
    /// Index of the first ply sent (0 = the first move of the game).
    pub from: usize,
    /// Plies in the whole game.
    pub total: usize,
    /// Whether the game has plies before the ones sent.
    pub more_before: bool,
    /// Whether the game has plies after the ones sent.
    pub more_after: bool,
}

/// A saved game as the page shows it.
#[derive(Serialize)]
pub struct GameView {
    /// Database id.
    pub id: i64,
    /// Goes up with every change (see `wait_version`).
    pub version: u64,
    /// Created (UTC).
    pub created: String,
    /// Last changed (UTC).
    pub updated: String,
    /// Who plays White.
    pub white: Player,
    /// Who plays Black.
    pub black: Player,
    /// Rule-set name.
    pub rules: String,
    /// The start FEN.
    pub start_fen: String,
    /// The moves played: by default the newest [`DEFAULT_PLY_LIMIT`]; `plies_page` says which.
    pub plies: Vec<PlyView>,
    /// Where `plies` sits in the game, and how many plies the game has.
    pub plies_page: PliesPage,
    /// The FEN now.
    pub fen: String,
    /// `white` or `black`: whose move it is now.
    pub side: &'static str,
    /// Whether the side to move must capture.
    pub forced_capture: bool,
    /// The legal moves now (none when the game is over).
    pub legal: Vec<MoveInfo>,
    /// How the game stands.
    pub outcome: OutcomeInfo,
    /// The clocks, if timed.
    pub clock: Option<ClockView>,
    /// What the engine is doing.
    pub engine: EngineView,
    /// Draw offers.
    pub draw: DrawView,
    /// PDN tags kept from an import.
    pub tags: Value,
}

/// Describes a game as of now, with its newest plies ([`PlyWindow::default`]).
pub fn view(live: &Live) -> GameView {
    view_window(live, PlyWindow::default())
}

/// Describes a game as of now, with the plies of `window`: the work and the size of the
/// answer do not grow with the game's length.
pub fn view_window(live: &Live, window: PlyWindow) -> GameView {
    let game = &live.core.game;
    let now = now_ms();
    let total = game.ply();
    let range = window.range(total);
    let plies_page = PliesPage {
        from: range.start,
        total,
        more_before: range.start > 0,
        more_after: range.end < total,
    };
    let mut plies = Vec::with_capacity(range.len());
    for (i, m) in game.history()[range.clone()]
        .iter()
        .enumerate()
        .map(|(k, m)| (range.start + k, m))
    {
        let before = game.position_at(i).expect("a position before every move");
        let after = game
            .position_at(i + 1)
            .expect("a position after every move");
        plies.push(PlyView {
            mv: MoveInfo::new(&before, m),
            fen: after.to_fen(),
            elapsed_ms: live.core.elapsed.get(i).copied().unwrap_or(0),
            clock: game.clock_at(i + 1).map(|c| ClockReading {
                white_ms: c.remaining(Color::White).as_millis() as u64,
                black_ms: c.remaining(Color::Black).as_millis() as u64,
            }),
        });
    }
    let pos = game.position();
    let outcome = OutcomeInfo::of(game);
    let clock = game
        .clock()
        .zip(live.clocks_now(now))
        .map(|(c, left)| ClockView {
            initial_ms: c.control().initial.as_millis() as u64,
            increment_ms: c.control().increment.as_millis() as u64,
            white_ms: left.white,
            black_ms: left.black,
            running: live.running_clock().map(Color::name),
            now_ms: now,
        });
    let engine = match &live.engine {
        EngineState::Idle => EngineView {
            state: "idle",
            error: None,
        },
        EngineState::Thinking => EngineView {
            state: "thinking",
            error: None,
        },
        EngineState::Failed(e) => EngineView {
            state: "failed",
            error: Some(e.clone()),
        },
    };
    GameView {
        id: live.row.id,
        version: live.version,
        created: live.row.created.clone(),
        updated: live.row.updated.clone(),
        white: live.row.white,
        black: live.row.black,
        rules: live.row.rules.clone(),
        start_fen: live.row.start_fen.clone(),
        plies,
        plies_page,
        fen: pos.to_fen(),
        side: pos.side_to_move().name(),
        forced_capture: !outcome.over && pos.has_capture(),
        legal: if outcome.over {
            Vec::new()
        } else {
            MoveInfo::legal(pos)
        },
        outcome,
        clock,
        engine,
        draw: DrawView {
            offers: live.row.draw_offers,
            max: crate::referee::MAX_DRAW_OFFERS,
            pending: live.row.pending_draw.clone(),
        },
        tags: serde_json::from_str(&live.row.tags).unwrap_or(Value::Null),
    }
}

async fn view_of(slot: &Arc<Slot>) -> Json<GameView> {
    Json(view(&*slot.live.lock().await))
}

/// Summary of a saved game in the list.
#[derive(Serialize)]
pub struct GameSummary {
    /// Database id.
    pub id: i64,
    /// Created (UTC).
    pub created: String,
    /// Last changed (UTC).
    pub updated: String,
    /// Who plays White.
    pub white: Player,
    /// Who plays Black.
    pub black: Player,
    /// Plies played (a move of each side is two plies).
    pub plies: i64,
    /// Moves played as the move list numbers them: the number of the last move (0 for none).
    pub moves: i64,
    /// PDN result (`*` while in progress and for aborted games).
    pub result: String,
    /// The outcome code, once over.
    pub outcome: Option<String>,
    /// Why it ended, in English.
    pub reason: String,
    /// Whether the result came from an imported record that gave no reason (`reason` and
    /// the reason of `outcome` are then only the reader's guess).
    pub result_only: bool,
    /// Whether an imported record had variations or comments, kept as its own movetext
    /// (`tags._movetext`, written back by the export).
    pub annotated: bool,
    /// Event tag, if imported.
    pub event: Option<String>,
    /// White's name from an imported record.
    pub white_name: Option<String>,
    /// Black's name from an imported record.
    pub black_name: Option<String>,
}

/// Query of `GET /api/games`.
#[derive(Deserialize)]
pub struct ListQuery {
    /// Most games to list (default 500, at most 1000).
    pub limit: Option<i64>,
    /// Games to skip, newest first (default 0).
    pub offset: Option<i64>,
}

/// `GET /api/games?limit=&offset=`: saved games, most recently changed first.
pub async fn list(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<Vec<GameSummary>>, HttpError> {
    let limit = q.limit.unwrap_or(500).clamp(1, 1000);
    let offset = q.offset.unwrap_or(0).max(0);
    let rows = state
        .store
        .with(move |conn| store::list(conn, limit, offset))
        .await?;
    Ok(Json(
        rows.into_iter()
            .map(|r| {
                let tags: Value = serde_json::from_str(&r.tags).unwrap_or(Value::Null);
                let tag = |k: &str| tags.get(k).and_then(Value::as_str).map(String::from);
                let outcome: Option<damasi::Outcome> =
                    r.outcome.as_deref().and_then(|c| c.parse().ok());
                GameSummary {
                    result_only: crate::pdn::result_only(&r.tags),
                    annotated: tags.get(crate::pdn::MOVETEXT).is_some(),
                    white_name: tag("White"),
                    black_name: tag("Black"),
                    event: tag("Event"),
                    id: r.id,
                    moves: move_count(&r.start_fen, r.plies),
                    plies: r.plies,
                    created: r.created,
                    updated: r.updated,
                    white: r.white,
                    black: r.black,
                    result: outcome.map_or("*", |o| o.pdn_result()).to_string(),
                    reason: outcome.map(|o| o.describe()).unwrap_or_default(),
                    outcome: r.outcome,
                }
            })
            .collect(),
    ))
}

/// The number of the last move of a game of `plies` plies from `start_fen`, as the move list
/// numbers them from 1: a game that starts with Black's move has Black's half of move 1.
pub fn move_count(start_fen: &str, plies: i64) -> i64 {
    if plies <= 0 {
        return 0;
    }
    let black_first = start_fen
        .split(':')
        .next()
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("b"));
    (plies + i64::from(black_first) + 1) / 2
}

/// Time control of a new game.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeControlBody {
    /// Minutes each side starts with (the federation plays 45).
    pub minutes: f64,
    /// Seconds added after each move.
    #[serde(default)]
    pub increment_s: f64,
}

/// Body of `POST /api/games`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// Who plays White (default: a person).
    pub white: Option<Player>,
    /// Who plays Black (default: a person).
    pub black: Option<Player>,
    /// Start position (default: the start).
    pub fen: Option<String>,
    /// Rule-set name (default `turkish`).
    pub rules: Option<String>,
    /// Clocks, if timed.
    pub clock: Option<TimeControlBody>,
}

fn check_player(p: Player) -> Result<Player, ApiError> {
    if let Player::Engine { level } = p {
        api::check_level(level)?;
    }
    Ok(p)
}

fn time_control(tc: &TimeControlBody) -> Result<TimeControl, ApiError> {
    let ok = |v: f64, max: f64| v.is_finite() && (0.0..=max).contains(&v);
    if !ok(tc.minutes, 600.0) || tc.minutes <= 0.0 || !ok(tc.increment_s, 600.0) {
        return Err(ApiError::BadRequest(
            "clock: minutes must be above 0 and at most 600, increment_s 0 to 600".into(),
        ));
    }
    Ok(TimeControl {
        initial: Duration::from_millis((tc.minutes * 60_000.0).round() as u64),
        increment: Duration::from_millis((tc.increment_s * 1000.0).round() as u64),
    })
}

/// `POST /api/games`: starts and saves a new game; the engine moves at once if it plays White.
pub async fn create(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<NewGame>,
) -> Result<(StatusCode, Json<GameView>), HttpError> {
    let start = parse_fen(req.fen.as_deref())?;
    let rules = parse_rules(req.rules.as_deref())?;
    let control = req.clock.as_ref().map(time_control).transpose()?;
    let row = GameRow {
        id: 0,
        created: String::new(),
        updated: String::new(),
        white: check_player(req.white.unwrap_or(Player::Human))?,
        black: check_player(req.black.unwrap_or(Player::Human))?,
        start_fen: start.to_fen(),
        rules: rules.name(),
        time_control: None,
        outcome: None,
        plies: 0,
        turn_started_ms: None,
        paused_ms: None,
        draw_offers: ByColor::default(),
        pending_draw: None,
        tags: "{}".into(),
    };
    let slot = state.referee.create(row, control).await?;
    Ok((StatusCode::CREATED, view_of(&slot).await))
}

/// Query of `GET /api/games/{id}`.
#[derive(Deserialize)]
pub struct ShowQuery {
    /// Wait (up to 25 s) until the game's version is above this one.
    pub wait_version: Option<u64>,
    /// Send plies from this index on (0 = the first move); without it, the newest plies.
    pub from: Option<usize>,
    /// Most plies to send (default [`DEFAULT_PLY_LIMIT`], at most [`MAX_PLY_LIMIT`]).
    pub limit: Option<usize>,
}

/// Longest a `wait_version` request waits.
const LONG_POLL: Duration = Duration::from_secs(25);

/// `GET /api/games/{id}[?wait_version=N][&from=PLY][&limit=N]`: the game with a page of its
/// plies (by default the newest [`DEFAULT_PLY_LIMIT`]).
///
/// A `wait_version` request is long-lived: it is counted per address with the streams
/// ([`crate::streams`]), and beyond their cap it is a 429 `too-many-streams`; while it waits
/// it holds none of the ordinary connection slots.
pub async fn show(
    State(state): State<AppState>,
    client: Client,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(q): ApiQuery<ShowQuery>,
) -> Result<Response, HttpError> {
    let Some(seen) = q.wait_version else {
        return Ok(show_now(&state, id, &q).await?.into_response());
    };
    let permit = state
        .streams
        .open(client.address, crate::streams::Viewer::Spectator)?;
    client.release_slot();
    let res = async {
        state
            .referee
            .slot(id)
            .await?
            .wait_past(seen, LONG_POLL)
            .await;
        show_now(&state, id, &q).await
    }
    .await
    .map_err(HttpError)
    .into_response();
    Ok(client.hold(res, permit))
}

async fn show_now(state: &AppState, id: i64, q: &ShowQuery) -> Result<Json<GameView>, ApiError> {
    let slot = state.referee.slot(id).await?;
    let limit = q.limit.unwrap_or(DEFAULT_PLY_LIMIT);
    let window = match q.from {
        Some(from) => PlyWindow::From { from, limit },
        None => PlyWindow::Newest(limit),
    };
    let live = slot.live.lock().await;
    Ok(Json(view_window(&live, window)))
}

/// `DELETE /api/games/{id}`.
pub async fn remove(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
) -> Result<StatusCode, HttpError> {
    state
        .store
        .with(move |conn| store::delete(conn, id))
        .await?;
    state.referee.forget(id).await;
    Ok(StatusCode::NO_CONTENT)
}

/// Body of `POST /api/games/{id}/move`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameMove {
    /// The move in any notation the library reads.
    #[serde(rename = "move")]
    pub mv: String,
}

/// `POST /api/games/{id}/move {"move": "d3-d4"}`: a person's move for the side to move.
pub async fn play(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiJson(req): ApiJson<GameMove>,
) -> Result<Json<GameView>, HttpError> {
    api::check_move_text(&req.mv)?;
    let slot = state.referee.play(id, &req.mv).await?;
    Ok(view_of(&slot).await)
}

/// `POST /api/games/{id}/engine`: starts the engine again for the side to move (after it
/// failed); the move itself arrives as a new version of the game.
pub async fn engine(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<GameView>, HttpError> {
    let slot = state.referee.retry_engine(id).await?;
    Ok(view_of(&slot).await)
}

/// `POST /api/games/{id}/hint`: the engine's suggestion for the person to move.
pub async fn hint(
    State(state): State<AppState>,
    api::Client(client): api::Client,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<Analysis>, HttpError> {
    let slot = state.referee.slot(id).await?;
    let root = {
        let live = slot.live.lock().await;
        if let Some(o) = live.core.game.outcome() {
            return Err(ApiError::game_over(&o).into());
        }
        let side = live.side_to_move();
        if live.player(side).is_engine() {
            return Err(ApiError::Forbidden {
                code: "engine-side",
                message: format!("the engine plays {side}: hints are for people"),
            }
            .into());
        }
        SearchRoot::from_game(&live.core.game)
    };
    Ok(Json(
        api::think(
            &state,
            client,
            root,
            10,
            Duration::from_millis(800),
            1,
            Vec::new(),
        )
        .await?,
    ))
}

/// Body naming the side a person acts for.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideBody {
    /// `white` or `black`.
    pub side: String,
}

fn parse_side(s: &str) -> Result<Color, ApiError> {
    Color::from_name(s.trim()).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "side '{}': expected 'white' or 'black'",
            s.trim()
                .to_ascii_lowercase()
                .chars()
                .take(20)
                .collect::<String>()
        ))
    })
}

/// `POST /api/games/{id}/takeback {"side": "white"}`: takes back that side's last move and
/// what was played after it.
pub async fn take_back(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiJson(req): ApiJson<SideBody>,
) -> Result<Json<GameView>, HttpError> {
    let side = parse_side(&req.side)?;
    let slot = state.referee.take_back(id, side).await?;
    Ok(view_of(&slot).await)
}

/// `POST /api/games/{id}/resign {"side": "white"}`.
pub async fn resign(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiJson(req): ApiJson<SideBody>,
) -> Result<Json<GameView>, HttpError> {
    let side = parse_side(&req.side)?;
    let slot = state.referee.resign(id, side).await?;
    Ok(view_of(&slot).await)
}

/// `POST /api/games/{id}/flag`: ends the game if the side to move's time is out.
pub async fn flag(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<GameView>, HttpError> {
    let slot = state.referee.claim_flag(id).await?;
    Ok(view_of(&slot).await)
}

/// Answer of `POST /api/games/{id}/draw`.
#[derive(Serialize)]
pub struct DrawAnswer {
    /// Whether the draw was agreed.
    pub accepted: bool,
    /// Whether the offer waits for the other person's answer.
    pub pending: bool,
    /// The game after the offer.
    pub game: GameView,
}

/// `POST /api/games/{id}/draw {"side": "white"}`: offers a draw.
pub async fn offer_draw(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiJson(req): ApiJson<SideBody>,
) -> Result<Json<DrawAnswer>, HttpError> {
    let side = parse_side(&req.side)?;
    let (slot, accepted) = state.referee.offer_draw(id, side).await?;
    let Json(game) = view_of(&slot).await;
    Ok(Json(DrawAnswer {
        accepted,
        pending: game.draw.pending.is_some(),
        game,
    }))
}

/// Body of `POST /api/games/{id}/draw/answer`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawReply {
    /// The side answering.
    pub side: String,
    /// Whether it accepts.
    pub accept: bool,
}

/// `POST /api/games/{id}/draw/answer {"side": "black", "accept": true}`.
pub async fn answer_draw(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiJson(req): ApiJson<DrawReply>,
) -> Result<Json<GameView>, HttpError> {
    let side = parse_side(&req.side)?;
    let slot = state.referee.answer_draw(id, side, req.accept).await?;
    Ok(view_of(&slot).await)
}

/// Query of `GET /api/games/{id}/pdn`.
#[derive(Deserialize)]
pub struct PdnQuery {
    /// `landing` (default) or `captured`.
    pub notation: Option<String>,
}

impl PdnQuery {
    /// The notation asked for.
    pub fn notation(&self) -> Result<Notation, ApiError> {
        match self.notation.as_deref() {
            None | Some("landing") => Ok(Notation::Landing),
            Some("captured") => Ok(Notation::Captured),
            Some(other) => Err(ApiError::BadRequest(format!(
                "notation '{}': expected 'landing' or 'captured'",
                other.chars().take(20).collect::<String>()
            ))),
        }
    }
}

/// A PDN file as an answer: its media type, and a download named `file`.
pub fn pdn_file(file: &str, text: String) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                "application/x-pdn; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file}\""),
            ),
        ],
        text,
    )
        .into_response()
}

/// `GET /api/games/{id}/pdn?notation=landing`: the game as a PDN file.
pub async fn export_pdn(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(q): ApiQuery<PdnQuery>,
) -> Result<Response, HttpError> {
    let notation = q.notation()?;
    let slot = state.referee.slot(id).await?;
    let text = {
        let live = slot.live.lock().await;
        crate::pdn::write(&live.row, &live.core.game, notation)
    };
    Ok(pdn_file(&format!("damasi-game-{id}.pdn"), text))
}

/// Body of `POST /api/pdn/import`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportPdn {
    /// One or more games in PDN.
    pub pdn: String,
}

/// Answer of `POST /api/pdn/import`.
#[derive(Serialize)]
pub struct ImportAnswer {
    /// Ids of the saved games, in file order.
    pub ids: Vec<i64>,
    /// The games that could not be read, each with its line.
    pub errors: Vec<ImportError>,
}

/// `POST /api/pdn/import {"pdn": "..."}`: saves every good game of a PDN text and reports each
/// broken one with its line. Refused (400) only when no game could be read.
pub async fn import_pdn(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<ImportPdn>,
) -> Result<(StatusCode, Json<ImportAnswer>), HttpError> {
    // Reading a large file is CPU work: it runs on the blocking pool with the database write.
    let answer = state
        .store
        .with(move |conn| {
            let read = crate::pdn::read(&req.pdn)?;
            let mut ids = Vec::new();
            let tx = conn.transaction()?;
            for (row, moves) in &read.games {
                ids.push(store::insert(&tx, row, moves)?);
            }
            tx.commit()?;
            Ok(ImportAnswer {
                ids,
                errors: read.errors,
            })
        })
        .await?;
    if answer.ids.is_empty() {
        let detail = answer
            .errors
            .iter()
            .take(5)
            .map(|e| format!("game {} line {}: {}", e.game, e.line, e.message))
            .collect::<Vec<_>>()
            .join("; ");
        return Err(ApiError::BadRequest(if detail.is_empty() {
            "PDN: no game found".into()
        } else {
            format!("PDN: no game could be read: {detail}")
        })
        .into());
    }
    Ok((StatusCode::CREATED, Json(answer)))
}
