//! Saved games: create, play, take back, let the engine move, resign, offer a draw, lose on
//! time, list, delete, and PDN import and export. Every change is saved at once.

use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use damasi::{Color, Notation, Position};
use damasi_engine::SearchRoot;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::{self, parse_fen, parse_rules, Analysis};
use crate::error::{ApiError, ApiJson, ApiPath, ApiQuery, OptionalJson};
use crate::record::{legal_infos, MoveInfo, OutcomeInfo, Record};
use crate::store::{self, Clock, GameRow, Player};
use crate::AppState;

/// One ply of a game: the move and the position after it.
#[derive(Serialize)]
pub struct PlyView {
    /// The move, described in the position before it.
    #[serde(rename = "move")]
    pub mv: MoveInfo,
    /// The FEN after the move.
    pub fen: String,
}

/// A saved game as the page shows it.
#[derive(Serialize)]
pub struct GameView {
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
    /// Rule-set name.
    pub rules: String,
    /// The start FEN.
    pub start_fen: String,
    /// The moves played.
    pub plies: Vec<PlyView>,
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
    pub clock: Option<Clock>,
    /// PDN tags kept from an import.
    pub tags: Value,
}

/// A game loaded from the database and replayed.
struct Loaded {
    row: GameRow,
    record: Record,
}

impl Loaded {
    fn load(conn: &Connection, id: i64) -> Result<Loaded, ApiError> {
        let row = store::get(conn, id)?;
        let start = Position::from_fen(&row.start_fen)
            .map_err(|e| ApiError::Internal(format!("game {id}: stored FEN: {e}")))?;
        let rules = parse_rules(Some(&row.rules))
            .map_err(|e| ApiError::Internal(format!("game {id}: stored rules: {e:?}")))?;
        let record = Record::from_tokens(start, rules, &row.moves)?;
        Ok(Loaded { row, record })
    }

    /// The outcome: a declared one (resignation, agreement, time) or the rules' verdict.
    fn outcome(&self) -> OutcomeInfo {
        if self.row.result != "*" && !self.row.reason.is_empty() {
            let winner = match self.row.result.as_str() {
                "1-0" => Some("white".to_string()),
                "0-1" => Some("black".to_string()),
                _ => None,
            };
            return OutcomeInfo {
                over: true,
                result: self.row.result.clone(),
                winner,
                reason: self.row.reason.clone(),
            };
        }
        self.record.outcome()
    }

    /// Writes moves and result back, in one transaction.
    fn save(&mut self, conn: &mut Connection) -> Result<(), ApiError> {
        self.row.moves = self.record.to_tokens();
        store::update(conn, &self.row)?;
        *self = Loaded::load(conn, self.row.id)?;
        Ok(())
    }

    /// Clears a declared result (after a take-back) unless the rules still end the game.
    fn clear_declared(&mut self) {
        self.row.result = "*".into();
        self.row.reason.clear();
    }

    /// Stores the rules' verdict after a move, so listings show it.
    fn settle(&mut self) {
        let o = self.record.outcome();
        if o.over {
            self.row.result = o.result;
            self.row.reason = o.reason;
        }
    }

    fn declare(&mut self, o: OutcomeInfo) {
        self.row.result = o.result;
        self.row.reason = o.reason;
    }

    fn player(&self, c: Color) -> Player {
        match c {
            Color::White => self.row.white,
            Color::Black => self.row.black,
        }
    }

    fn view(&self) -> GameView {
        let positions = self.record.positions();
        let plies = self
            .record
            .moves()
            .iter()
            .zip(positions.windows(2))
            .map(|(m, w)| PlyView {
                mv: MoveInfo::new(&w[0], m),
                fen: w[1].to_fen(),
            })
            .collect();
        let pos = self.record.current();
        let outcome = self.outcome();
        GameView {
            id: self.row.id,
            created: self.row.created.clone(),
            updated: self.row.updated.clone(),
            white: self.row.white,
            black: self.row.black,
            rules: self.row.rules.clone(),
            start_fen: self.row.start_fen.clone(),
            plies,
            fen: pos.to_fen(),
            side: pos.side_to_move().name(),
            forced_capture: !outcome.over && pos.has_capture(),
            legal: if outcome.over {
                Vec::new()
            } else {
                legal_infos(pos)
            },
            outcome,
            clock: self.row.clock,
            tags: serde_json::from_str(&self.row.tags).unwrap_or(Value::Null),
        }
    }

    fn root(&self) -> SearchRoot {
        SearchRoot::from_game(self.record.game())
    }

    fn ensure_ongoing(&self) -> Result<(), ApiError> {
        let o = self.outcome();
        if o.over {
            return Err(ApiError::Conflict(format!(
                "the game is over: {}",
                o.reason
            )));
        }
        Ok(())
    }
}

/// Runs `f` on the game `id` in a blocking task and answers with the game as it is after.
async fn with_game(
    state: &AppState,
    id: i64,
    f: impl FnOnce(&mut Loaded) -> Result<(), ApiError> + Send + 'static,
) -> Result<Json<GameView>, ApiError> {
    let view = state
        .store
        .with(move |conn| {
            let mut g = Loaded::load(conn, id)?;
            f(&mut g)?;
            g.save(conn)?;
            Ok(g.view())
        })
        .await?;
    Ok(Json(view))
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
    /// Moves played.
    pub plies: usize,
    /// PDN result (`*` while in progress).
    pub result: String,
    /// Why it ended.
    pub reason: String,
    /// Event tag, if imported.
    pub event: Option<String>,
    /// White's name from an imported record.
    pub white_name: Option<String>,
    /// Black's name from an imported record.
    pub black_name: Option<String>,
}

/// `GET /api/games`: saved games, most recent first.
pub async fn list(State(state): State<AppState>) -> Result<Json<Vec<GameSummary>>, ApiError> {
    let rows = state.store.with(|conn| store::list(conn)).await?;
    Ok(Json(
        rows.into_iter()
            .map(|r| {
                let tags: Value = serde_json::from_str(&r.tags).unwrap_or(Value::Null);
                let tag = |k: &str| tags.get(k).and_then(Value::as_str).map(String::from);
                GameSummary {
                    white_name: tag("White"),
                    black_name: tag("Black"),
                    id: r.id,
                    plies: r.moves.split_whitespace().count(),
                    event: tag("Event"),
                    created: r.created,
                    updated: r.updated,
                    white: r.white,
                    black: r.black,
                    result: r.result,
                    reason: r.reason,
                }
            })
            .collect(),
    ))
}

/// Time control of a new game.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeControl {
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
    pub clock: Option<TimeControl>,
}

fn check_player(p: Player) -> Result<Player, ApiError> {
    if let Player::Engine { level } = p {
        api::check_level(level)?;
    }
    Ok(p)
}

/// `POST /api/games`: starts and saves a new game.
pub async fn create(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<NewGame>,
) -> Result<(StatusCode, Json<GameView>), ApiError> {
    let start = parse_fen(req.fen.as_deref())?;
    let rules = parse_rules(req.rules.as_deref())?;
    let clock = match req.clock {
        None => None,
        Some(tc) => {
            let ok = |v: f64, max: f64| v.is_finite() && (0.0..=max).contains(&v);
            if !ok(tc.minutes, 600.0) || tc.minutes <= 0.0 || !ok(tc.increment_s, 600.0) {
                return Err(ApiError::BadRequest(
                    "clock: minutes must be above 0 and at most 600, increment_s 0 to 600".into(),
                ));
            }
            let initial_ms = (tc.minutes * 60_000.0) as u64;
            Some(Clock {
                initial_ms,
                increment_ms: (tc.increment_s * 1000.0) as u64,
                white_ms: initial_ms,
                black_ms: initial_ms,
            })
        }
    };
    let row = GameRow {
        id: 0,
        created: String::new(),
        updated: String::new(),
        white: check_player(req.white.unwrap_or(Player::Human))?,
        black: check_player(req.black.unwrap_or(Player::Human))?,
        start_fen: start.to_fen(),
        moves: String::new(),
        result: "*".into(),
        reason: String::new(),
        clock,
        tags: "{}".into(),
        rules: rules.name(),
    };
    let view = state
        .store
        .with(move |conn| {
            let id = store::insert(conn, &row)?;
            let mut g = Loaded::load(conn, id)?;
            g.settle();
            g.save(conn)?;
            Ok(g.view())
        })
        .await?;
    Ok((StatusCode::CREATED, Json(view)))
}

/// `GET /api/games/{id}`.
pub async fn show(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<GameView>, ApiError> {
    let view = state
        .store
        .with(move |conn| Ok(Loaded::load(conn, id)?.view()))
        .await?;
    Ok(Json(view))
}

/// `DELETE /api/games/{id}`.
pub async fn remove(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
) -> Result<StatusCode, ApiError> {
    state
        .store
        .with(move |conn| store::delete(conn, id))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Time left on both clocks, as the page counts them.
#[derive(Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct ClockUpdate {
    /// White's time left.
    pub white_ms: u64,
    /// Black's time left.
    pub black_ms: u64,
}

fn apply_clock(g: &mut Loaded, update: Option<ClockUpdate>) {
    if let (Some(c), Some(u)) = (g.row.clock.as_mut(), update) {
        c.white_ms = u.white_ms.min(c.initial_ms.saturating_mul(100));
        c.black_ms = u.black_ms.min(c.initial_ms.saturating_mul(100));
    }
}

/// Body of `POST /api/games/{id}/move`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameMove {
    /// The move in any notation the library reads.
    #[serde(rename = "move")]
    pub mv: String,
    /// The clocks after the move, if timed.
    pub clock: Option<ClockUpdate>,
}

/// `POST /api/games/{id}/move {"move": "d3-d4"}`: plays a move for the side to move.
pub async fn play(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiJson(req): ApiJson<GameMove>,
) -> Result<Json<GameView>, ApiError> {
    api::check_move_text(&req.mv)?;
    with_game(&state, id, move |g| {
        g.ensure_ongoing()?;
        let m = g.record.current().parse_move(&req.mv)?;
        g.record.push(m)?;
        apply_clock(g, req.clock);
        g.settle();
        Ok(())
    })
    .await
}

/// Body of requests that may carry the clocks.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ClockOnly {
    /// The clocks now, if timed.
    pub clock: Option<ClockUpdate>,
}

/// How long the engine thinks at `level`, within the time it has left.
fn engine_time(level: u8, clock: Option<&Clock>, side: Color) -> Duration {
    let base: u64 = match level {
        1..=3 => 300,
        4..=6 => 700,
        7..=9 => 1500,
        _ => 3000,
    };
    let ms = match clock {
        Some(c) => {
            let left = if side == Color::White {
                c.white_ms
            } else {
                c.black_ms
            };
            base.min(left / 25 + c.increment_ms / 2).max(20)
        }
        None => base,
    };
    Duration::from_millis(ms)
}

/// Answer of `POST /api/games/{id}/engine`.
#[derive(Serialize)]
pub struct EngineAnswer {
    /// The game after the engine's move.
    pub game: GameView,
    /// What the engine found.
    pub analysis: Analysis,
}

/// `POST /api/games/{id}/engine`: the engine plays for the side to move, which must be an
/// engine side.
pub async fn engine(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    OptionalJson(body): OptionalJson<ClockOnly>,
) -> Result<Json<EngineAnswer>, ApiError> {
    let clock = body.clock;
    let g = state.store.with(move |conn| Loaded::load(conn, id)).await?;
    g.ensure_ongoing()?;
    let side = g.record.current().side_to_move();
    let Player::Engine { level } = g.player(side) else {
        return Err(ApiError::Conflict(format!(
            "it is {}'s move, and a person plays {}",
            side.name(),
            side.name()
        )));
    };
    let time = engine_time(level, g.row.clock.as_ref(), side);
    let analysis = api::think(&state, g.root(), level, time).await?;
    let best = analysis
        .best
        .as_ref()
        .map(|b| b.landing.clone())
        .ok_or_else(|| ApiError::Internal("the engine found no move in a live game".into()))?;
    // The same number of plies is not the same game (a take-back and another move).
    let searched = g.record.to_tokens();
    let Json(game) = with_game(&state, id, move |g| {
        if g.record.to_tokens() != searched {
            return Err(ApiError::Conflict(
                "the game changed while the engine thought".into(),
            ));
        }
        let m = g.record.current().parse_move(&best)?;
        g.record.push(m)?;
        apply_clock(g, clock);
        g.settle();
        Ok(())
    })
    .await?;
    Ok(Json(EngineAnswer { game, analysis }))
}

/// `POST /api/games/{id}/hint`: the engine's suggestion for the side to move; plays nothing.
pub async fn hint(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<Analysis>, ApiError> {
    let g = state.store.with(move |conn| Loaded::load(conn, id)).await?;
    g.ensure_ongoing()?;
    Ok(Json(
        api::think(&state, g.root(), 10, Duration::from_millis(800)).await?,
    ))
}

/// Body of `POST /api/games/{id}/takeback`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct TakeBack {
    /// How many plies to take back (default 1; the page sends 2 against the engine).
    pub plies: Option<usize>,
}

/// `POST /api/games/{id}/takeback {"plies": 2}`.
pub async fn take_back(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    OptionalJson(body): OptionalJson<TakeBack>,
) -> Result<Json<GameView>, ApiError> {
    let plies = body.plies.unwrap_or(1).min(10_000);
    with_game(&state, id, move |g| {
        if g.record.moves().is_empty() {
            return Err(ApiError::Conflict("no move to take back".into()));
        }
        g.record.take_back(plies);
        g.clear_declared();
        g.settle();
        Ok(())
    })
    .await
}

/// Body naming a side: who resigns, offers a draw, or lost on time.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideBody {
    /// `white` or `black`.
    pub side: String,
    /// The clocks now, if timed.
    pub clock: Option<ClockUpdate>,
}

fn parse_side(s: &str) -> Result<Color, ApiError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "white" | "w" => Ok(Color::White),
        "black" | "b" => Ok(Color::Black),
        other => Err(ApiError::BadRequest(format!(
            "side '{other}': expected 'white' or 'black'"
        ))),
    }
}

/// `POST /api/games/{id}/resign {"side": "white"}`.
pub async fn resign(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiJson(req): ApiJson<SideBody>,
) -> Result<Json<GameView>, ApiError> {
    let loser = parse_side(&req.side)?;
    with_game(&state, id, move |g| {
        g.ensure_ongoing()?;
        apply_clock(g, req.clock);
        g.declare(OutcomeInfo::win(
            !loser,
            format!("{loser} resigns: {} wins", !loser),
        ));
        Ok(())
    })
    .await
}

/// `POST /api/games/{id}/flag {"side": "white"}`: that side's clock ran out.
pub async fn flag(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiJson(req): ApiJson<SideBody>,
) -> Result<Json<GameView>, ApiError> {
    let loser = parse_side(&req.side)?;
    with_game(&state, id, move |g| {
        g.ensure_ongoing()?;
        if g.row.clock.is_none() {
            return Err(ApiError::Conflict("this game has no clock".into()));
        }
        apply_clock(g, req.clock);
        g.declare(OutcomeInfo::win(
            !loser,
            format!("{loser} ran out of time: {} wins", !loser),
        ));
        Ok(())
    })
    .await
}

/// Answer of `POST /api/games/{id}/draw`.
#[derive(Serialize)]
pub struct DrawAnswer {
    /// Whether the draw was agreed.
    pub accepted: bool,
    /// The game after the offer.
    pub game: GameView,
}

/// Highest score (hundredths of a man, for the engine) at which the engine accepts a draw.
const DRAW_ACCEPT_SCORE: i32 = 25;

/// `POST /api/games/{id}/draw {"side": "white"}`: offers a draw. Against the engine, the
/// engine judges: it accepts when its score is near 0 or worse. Between two people at one
/// screen, the page has asked the other player, so the draw is agreed.
pub async fn offer_draw(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiJson(req): ApiJson<SideBody>,
) -> Result<Json<DrawAnswer>, ApiError> {
    let by = parse_side(&req.side)?;
    let g = state.store.with(move |conn| Loaded::load(conn, id)).await?;
    g.ensure_ongoing()?;
    let accepted = match g.player(!by) {
        Player::Human => true,
        Player::Engine { .. } => {
            let a = api::think(&state, g.root(), 10, Duration::from_millis(600)).await?;
            let engine_score = if g.record.current().side_to_move() == !by {
                a.score
            } else {
                -a.score
            };
            engine_score <= DRAW_ACCEPT_SCORE
        }
    };
    let clock = req.clock;
    let Json(game) = with_game(&state, id, move |g| {
        apply_clock(g, clock);
        if accepted {
            g.ensure_ongoing()?;
            g.declare(OutcomeInfo::draw("draw: agreed".into()));
        }
        Ok(())
    })
    .await?;
    Ok(Json(DrawAnswer { accepted, game }))
}

/// Query of `GET /api/games/{id}/pdn`.
#[derive(Deserialize)]
pub struct PdnQuery {
    /// `landing` (default) or `captured`.
    pub notation: Option<String>,
}

/// `GET /api/games/{id}/pdn?notation=landing`: the game as a PDN file.
pub async fn export_pdn(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(q): ApiQuery<PdnQuery>,
) -> Result<Response, ApiError> {
    let notation = match q.notation.as_deref() {
        None | Some("landing") => Notation::Landing,
        Some("captured") => Notation::Captured,
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "notation '{other}': expected 'landing' or 'captured'"
            )))
        }
    };
    let text = state
        .store
        .with(move |conn| {
            let g = Loaded::load(conn, id)?;
            Ok(crate::pdn::write(&g.row, &g.record, &g.outcome(), notation))
        })
        .await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "application/x-pdn; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"damasi-game-{id}.pdn\""),
            ),
        ],
        text,
    )
        .into_response())
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
}

/// `POST /api/pdn/import {"pdn": "..."}`: saves every game of a PDN text.
pub async fn import_pdn(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<ImportPdn>,
) -> Result<(StatusCode, Json<ImportAnswer>), ApiError> {
    // Reading a large file is CPU work: it runs on the blocking pool with the database write.
    let ids = state
        .store
        .with(move |conn| {
            let rows = crate::pdn::read(&req.pdn)?;
            let mut ids = Vec::new();
            let tx = conn.transaction()?;
            for row in &rows {
                ids.push(store::insert_in(&tx, row)?);
            }
            tx.commit()?;
            Ok(ids)
        })
        .await?;
    Ok((StatusCode::CREATED, Json(ImportAnswer { ids })))
}
