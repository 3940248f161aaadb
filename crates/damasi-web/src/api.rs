//! The stateless part of the API: everything is sent with the request (a FEN, a move).

use std::time::Duration;

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts, OriginalUri, State};
use axum::http::request::Parts;
use axum::Json;
use damasi::{position_outcome, Color, Game, Move, MoveInfo, OutcomeInfo, Position, RuleSet};
use damasi_engine::{Limits, SearchRoot};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::cloud_eval::{CloudEval, Pv};
use crate::error::{ApiError, ApiJson, ApiQuery, HttpError};
use crate::AppState;
use damasi_online::brain::Thought;
use damasi_online::brain::MAX_MOVE_TIME;

/// Longest FEN accepted (32 pieces with names take about 130 characters).
const MAX_FEN: usize = 512;

/// Reads a FEN from a request, defaulting to the start position when absent.
pub fn parse_fen(fen: Option<&str>) -> Result<Position, ApiError> {
    match fen.map(str::trim) {
        None | Some("") => Ok(Position::start()),
        Some(f) if f.len() > MAX_FEN => Err(ApiError::BadRequest(format!(
            "bad FEN: longer than {MAX_FEN} characters"
        ))),
        Some(f) => Ok(Position::from_fen(f)?),
    }
}

/// Reads a rule-set name (`turkish; no-capture-limit 50`), defaulting to the plain rules.
pub fn parse_rules(name: Option<&str>) -> Result<RuleSet, ApiError> {
    match name.map(str::trim) {
        None | Some("") => Ok(RuleSet::default()),
        Some(n) => RuleSet::from_name(n).map_err(|e| ApiError::BadRequest(e.to_string())),
    }
}

/// A position with its legal moves, as `GET /api/moves` answers.
#[derive(Serialize)]
pub struct PositionView {
    /// The FEN, normalised.
    pub fen: String,
    /// `white` or `black`.
    pub side: &'static str,
    /// Whether the side to move must capture (then every legal move is a capture).
    pub forced_capture: bool,
    /// The legal moves with their routes.
    pub moves: Vec<MoveInfo>,
    /// Whether the position ends the game by itself (no moves, one piece each, ...).
    pub outcome: OutcomeInfo,
}

impl PositionView {
    /// Describes the current position of a game (its history counts for repetitions).
    pub fn of_game(game: &Game) -> PositionView {
        let pos = game.position();
        let outcome = OutcomeInfo::of(game);
        PositionView {
            fen: pos.to_fen(),
            side: pos.side_to_move().name(),
            forced_capture: !outcome.over && pos.has_capture(),
            moves: if outcome.over {
                Vec::new()
            } else {
                MoveInfo::legal(pos)
            },
            outcome,
        }
    }

    /// Describes `pos` under `rules`.
    pub fn new(pos: &Position, rules: &RuleSet) -> PositionView {
        let outcome = match position_outcome(pos, rules) {
            Some(o) => OutcomeInfo::from_outcome(&o),
            None => OutcomeInfo::ongoing(),
        };
        PositionView {
            fen: pos.to_fen(),
            side: pos.side_to_move().name(),
            forced_capture: pos.has_capture(),
            moves: if outcome.over {
                Vec::new()
            } else {
                MoveInfo::legal(pos)
            },
            outcome,
        }
    }
}

/// `GET /api/health`: up, its version, and whether it sends account mail (`mail`; without
/// it, the page says to ask the operator for a new password).
pub async fn health(State(state): State<AppState>) -> Json<Value> {
    Json(json!({
        "ok": true,
        "version": env!("CARGO_PKG_VERSION"),
        "mail": state.mailer.is_some(),
    }))
}

/// `GET /api`: the endpoints, for people exploring the API.
pub async fn index() -> Json<Value> {
    Json(json!({
        "endpoints": [
            "GET /api/health",
            "GET /api/moves?fen=FEN[&rules=NAME]: legal moves with routes",
            "POST /api/move {fen, move[, moves, rules]}: play a move in any notation",
            "POST /api/engine/move {fen[, moves, level, move_time_ms, rules]}: the engine's move",
            "POST /api/analyze {fen[, moves, level, move_time_ms, multipv, searchmoves, rules]}: score and best line(s)",
            "GET /api/tablebase?fen=FEN: endgame tables' win/draw/loss for the position and each move",
            "GET /api/tablebase/standard?fen=FEN: the same in the shape of lichess's tablebase server (also GET /standard?fen=FEN)",
            "GET /api/cloud-eval?fen=FEN[&multiPv=N]: the server's own finished analysis of the position, lichess's shape (404 when none)",
            "GET /api/explorer/lichess?fen=FEN[&play=M,M&speeds=blitz,rapid&ratings=1600,1800&moves=N&topGames=N&recentGames=N]: the moves of this server's games from the position (lichess's explorer)",
            "GET /api/explorer/masters?fen=FEN[&play=M,M&moves=N&topGames=N]: the moves of the imported master games",
            "GET /api/learn/course: the rules course (lessons of interactive steps)",
            "GET /api/learn/examples: the federation's ten worked examples",
            "GET /api/puzzles[?rating=R&exclude=ID,ID]: a puzzle near rating R",
            "GET /api/puzzles/ID: a puzzle (without its solution)",
            "POST /api/puzzles/ID/attempt {moves[, player]}: check the solving side's moves",
            "GET /api/games[?limit=N&offset=K]: saved games, newest first",
            "POST /api/games {white, black[, fen, rules, clock]}: new game",
            "GET /api/games/ID[?wait_version=N&from=PLY&limit=N]: the game, a page of its plies (default the newest 500)",
            "DELETE /api/games/ID",
            "POST /api/games/ID/move {move}",
            "POST /api/games/ID/engine: start or retry the engine's move",
            "POST /api/games/ID/hint",
            "POST /api/games/ID/takeback {side}",
            "POST /api/games/ID/resign {side}",
            "POST /api/games/ID/draw {side}: offer a draw",
            "POST /api/games/ID/draw/answer {side, accept}",
            "POST /api/games/ID/flag: end the game if the side to move's time is out",
            "GET /api/games/ID/pdn[?notation=landing|captured]",
            "POST /api/pdn/import {pdn}",
        ]
    }))
}

/// Unknown API paths (any method): a JSON 404 naming the whole path (its first 100
/// characters), so a client never gets the page where it expected JSON.
pub async fn not_found(OriginalUri(uri): OriginalUri) -> HttpError {
    let path = uri.path();
    let shown: String = path.chars().take(100).collect();
    let more = if shown.len() < path.len() { "..." } else { "" };
    HttpError(ApiError::NotFound(format!(
        "no such endpoint: {shown}{more}"
    )))
}

/// Query of `GET /api/moves`.
#[derive(Deserialize)]
pub struct MovesQuery {
    /// The position (default: the start).
    pub fen: Option<String>,
    /// Rule-set name (default: plain Turkish rules).
    pub rules: Option<String>,
}

/// `GET /api/moves?fen=...`: the legal moves of a position, with routes.
pub async fn moves(ApiQuery(q): ApiQuery<MovesQuery>) -> Result<Json<PositionView>, HttpError> {
    let pos = parse_fen(q.fen.as_deref())?;
    let rules = parse_rules(q.rules.as_deref())?;
    Ok(Json(PositionView::new(&pos, &rules)))
}

/// Body of `POST /api/move`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    /// The position (default: the start).
    pub fen: Option<String>,
    /// The move in any notation the library reads: `d3-d4`, `b3xd3xd5`, `d4xc4xb3`, `b3xd5`.
    #[serde(rename = "move")]
    pub mv: String,
    /// Moves played from `fen` before this one, in any notation (for repetitions).
    #[serde(default)]
    pub moves: Vec<String>,
    /// Rule-set name.
    pub rules: Option<String>,
}

/// Most earlier moves a stateless request may carry.
const MAX_HISTORY: usize = 2000;

/// The game a stateless request describes: `fen`, then `moves` played from it.
pub fn game_of(fen: Option<&str>, moves: &[String], rules: RuleSet) -> Result<Game, ApiError> {
    if moves.len() > MAX_HISTORY {
        return Err(ApiError::BadRequest(format!(
            "moves: more than {MAX_HISTORY} earlier moves"
        )));
    }
    let mut game = Game::from_position(parse_fen(fen)?, rules);
    for (i, text) in moves.iter().enumerate() {
        let step = |game: &mut Game| -> Result<(), ApiError> {
            let m = game.position().parse_move(check_move_text(text)?)?;
            Ok(game.play(&m)?)
        };
        step(&mut game).map_err(|e| e.prefixed(&format!("moves[{i}]")))?;
    }
    Ok(game)
}

/// Refuses move texts too long to be a move, before any parsing.
pub(crate) fn check_move_text(text: &str) -> Result<&str, ApiError> {
    if text.len() > 200 {
        return Err(ApiError::BadRequest(
            "move text longer than 200 characters".into(),
        ));
    }
    Ok(text)
}

/// Answer of `POST /api/move`.
#[derive(Serialize)]
pub struct MoveAnswer {
    /// The move played, described.
    #[serde(rename = "move")]
    pub mv: MoveInfo,
    /// The position after it, with its legal moves and outcome.
    pub position: PositionView,
}

/// `POST /api/move {"fen": ..., "move": "d3-d4"}`: plays a move.
pub async fn play_move(ApiJson(req): ApiJson<MoveRequest>) -> Result<Json<MoveAnswer>, HttpError> {
    let rules = parse_rules(req.rules.as_deref())?;
    let mut game = game_of(req.fen.as_deref(), &req.moves, rules)?;
    if let Some(o) = game.outcome() {
        return Err(ApiError::game_over(&o).into());
    }
    let before = *game.position();
    let m = before.parse_move(check_move_text(&req.mv)?)?;
    game.play(&m)?;
    Ok(Json(MoveAnswer {
        mv: MoveInfo::new(&before, &m),
        position: PositionView::of_game(&game),
    }))
}

/// Body of `POST /api/engine/move` and `POST /api/analyze`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineRequest {
    /// The position (default: the start).
    pub fen: Option<String>,
    /// Strength 1..=10 (default 10 for analysis, 5 for a move).
    pub level: Option<u8>,
    /// Thinking time in milliseconds (default 1000, at most 30000).
    pub move_time_ms: Option<u64>,
    /// Moves played from `fen` before the position to search (for repetitions).
    #[serde(default)]
    pub moves: Vec<String>,
    /// Rule-set name.
    pub rules: Option<String>,
}

/// Body of `POST /api/analyze`: an engine request that may ask for several lines.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeRequest {
    /// The position (default: the start).
    pub fen: Option<String>,
    /// Strength 1..=10 (default 10).
    pub level: Option<u8>,
    /// Thinking time in milliseconds (default 1000, at most 10000).
    pub move_time_ms: Option<u64>,
    /// Moves played from `fen` before the position to search (for repetitions).
    #[serde(default)]
    pub moves: Vec<String>,
    /// Rule-set name.
    pub rules: Option<String>,
    /// How many best lines to search and report, 1..=5 (default 1).
    pub multipv: Option<u32>,
    /// Only these moves of the position are searched (UCI's `searchmoves`): each a legal
    /// move, written as in `moves`; empty: every move. With `multipv` as many as these, every one
    /// gets a line from the same search, so that their scores compare.
    #[serde(default)]
    pub searchmoves: Vec<String>,
}

/// One of the best lines of an analysis (`lines` of [`Analysis`]).
#[derive(Serialize)]
pub struct AnalysisLine {
    /// The line's first move, described (its squares, for an arrow).
    #[serde(rename = "move")]
    pub mv: MoveInfo,
    /// Score for the side to move in hundredths of a man.
    pub score: i32,
    /// Score from White's point of view, same units.
    pub white_score: i32,
    /// A won or lost position found: plies to the end, signed like `score`.
    pub mate: Option<i32>,
    /// The line in landing notation, starting with `move`.
    pub pv: Vec<String>,
    /// Depth of the search that found it.
    pub depth: u32,
}

/// The engine's view of a position.
#[derive(Serialize)]
pub struct Analysis {
    /// The best move, if there is a legal move.
    pub best: Option<MoveInfo>,
    /// Score for the side to move in hundredths of a man (positive: better for it).
    pub score: i32,
    /// Score from White's point of view, same units.
    pub white_score: i32,
    /// A won or lost position found: plies to the end, signed like `score`.
    pub mate: Option<i32>,
    /// The expected line in landing notation.
    pub pv: Vec<String>,
    /// Depth reached.
    pub depth: u32,
    /// The best lines, best first (`multipv` of them, fewer when the position has fewer legal
    /// moves, none when it has none); the first is the line above.
    pub lines: Vec<AnalysisLine>,
}

/// Answer of `POST /api/engine/move`.
#[derive(Serialize)]
pub struct EngineMoveAnswer {
    /// What the engine found.
    pub analysis: Analysis,
    /// The position after its move (the same position when it has none).
    pub position: PositionView,
}

/// Longest a client's analysis or engine-move request may think: the engines are shared.
pub const MAX_ANALYSIS_TIME: Duration = Duration::from_secs(10);

/// Chooses a thinking time: the client's, capped at [`MAX_ANALYSIS_TIME`].
pub fn move_time(ms: Option<u64>, default_ms: u64) -> Duration {
    Duration::from_millis(
        ms.unwrap_or(default_ms)
            .clamp(10, MAX_ANALYSIS_TIME.min(MAX_MOVE_TIME).as_millis() as u64),
    )
}

/// The address of the client that sent a request as limits count it (IPv6 by its /64, see
/// [`crate::security::address_key`]), when the server knows it (not in tests that call the
/// router directly).
pub struct Client(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Client(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| crate::security::address_key(c.0.ip())),
        ))
    }
}

/// A line of moves from `pos` in landing notation, up to its first move that is not legal.
fn landing_line(pos: &Position, pv: &[damasi::Move]) -> Vec<String> {
    let mut line = Vec::new();
    let mut p = *pos;
    for m in pv {
        if !p.legal_moves().contains(m) {
            break;
        }
        line.push(p.write_move(m, damasi::Notation::Landing));
        p = p.play(m);
    }
    line
}

/// Runs the engine on `root` for `client`, for its `lines` best lines, and describes the
/// result. Every analysis of the web goes through here; one at full strength, under the
/// default rules and of every legal move is also kept for `GET /api/cloud-eval`
/// ([`crate::cloud_eval`]).
pub async fn think(
    state: &AppState,
    client: Option<IpAddr>,
    root: SearchRoot,
    level: u8,
    time: Duration,
    lines: usize,
    root_moves: Vec<Move>,
) -> Result<Analysis, ApiError> {
    let pos = root.position;
    // What lichess's cloud evaluations would hold: full strength, the default rules (all a
    // FEN stands for there), every legal move searched.
    let keep = level == 10
        && root.rules == RuleSet::default()
        && (root_moves.is_empty() || root_moves.len() >= pos.legal_moves().len());
    let t = state
        .brain
        .think_for(
            client,
            root,
            level,
            Limits::move_time(time),
            lines,
            root_moves,
        )
        .await?;
    let for_white = |score: i32| {
        if pos.side_to_move() == Color::White {
            score
        } else {
            -score
        }
    };
    let lines: Vec<AnalysisLine> = t
        .lines
        .iter()
        .filter_map(|l| {
            let first = l.pv.first().filter(|m| pos.legal_moves().contains(m))?;
            Some(AnalysisLine {
                mv: MoveInfo::new(&pos, first),
                score: l.score,
                white_score: for_white(l.score),
                mate: l.mate,
                pv: landing_line(&pos, &l.pv),
                depth: l.depth,
            })
        })
        .collect();
    if keep {
        remember(state, &pos, &t, &lines).await;
    }
    Ok(Analysis {
        best: t.best.map(|m| MoveInfo::new(&pos, &m)),
        score: t.score,
        white_score: for_white(t.score),
        mate: t.mate,
        pv: landing_line(&pos, &t.pv),
        depth: t.depth,
        lines,
    })
}

/// Records a finished analysis of `pos` for `GET /api/cloud-eval` (a failure to store it
/// is logged: the analysis itself has succeeded).
async fn remember(state: &AppState, pos: &Position, t: &Thought, lines: &[AnalysisLine]) {
    if lines.is_empty() {
        return;
    }
    let white = pos.side_to_move() == Color::White;
    let eval = CloudEval {
        fen: pos.to_fen(),
        knodes: t.nodes / 1000,
        depth: t.depth,
        pvs: lines
            .iter()
            .map(|l| Pv::from_engine(&l.pv, white, l.score, l.mate))
            .collect(),
    };
    if let Err(e) = state.cloud_evals.record(eval).await {
        eprintln!("damasi-web: cannot keep an evaluation for the cloud: {e:?}");
    }
}

/// `POST /api/engine/move {"fen": ..., "level": 5}`: the engine's move and the position after.
pub async fn engine_move(
    State(state): State<AppState>,
    Client(client): Client,
    ApiJson(req): ApiJson<EngineRequest>,
) -> Result<Json<EngineMoveAnswer>, HttpError> {
    let rules = parse_rules(req.rules.as_deref())?;
    let mut game = game_of(req.fen.as_deref(), &req.moves, rules)?;
    let level = check_level(req.level.unwrap_or(5))?;
    let root = SearchRoot::from_game(&game);
    let analysis = think(
        &state,
        client,
        root,
        level,
        move_time(req.move_time_ms, 1000),
        1,
        Vec::new(),
    )
    .await?;
    if let Some(b) = analysis.best.as_ref() {
        let m = game.position().parse_move(&b.landing)?;
        game.play(&m)?;
    }
    Ok(Json(EngineMoveAnswer {
        analysis,
        position: PositionView::of_game(&game),
    }))
}

/// `POST /api/analyze {"fen": ..., "move_time_ms": 1000, "multipv": 3}`: score and best
/// line(s).
pub async fn analyze(
    State(state): State<AppState>,
    Client(client): Client,
    ApiJson(req): ApiJson<AnalyzeRequest>,
) -> Result<Json<Analysis>, HttpError> {
    let rules = parse_rules(req.rules.as_deref())?;
    let lines = check_multipv(req.multipv.unwrap_or(1))?;
    let game = game_of(req.fen.as_deref(), &req.moves, rules)?;
    let level = check_level(req.level.unwrap_or(10))?;
    let root_moves = searchmoves(game.position(), &req.searchmoves)?;
    let root = SearchRoot::from_game(&game);
    Ok(Json(
        think(
            &state,
            client,
            root,
            level,
            move_time(req.move_time_ms, 1000),
            lines,
            root_moves,
        )
        .await?,
    ))
}

/// Reads the moves an analysis is restricted to, each legal in `pos`.
fn searchmoves(pos: &Position, texts: &[String]) -> Result<Vec<Move>, ApiError> {
    if texts.len() > MAX_SEARCHMOVES {
        return Err(ApiError::BadRequest(format!(
            "searchmoves: more than {MAX_SEARCHMOVES} moves"
        )));
    }
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            check_move_text(text)
                .and_then(|t| Ok(pos.parse_move(t)?))
                .map_err(|e| e.prefixed(&format!("searchmoves[{i}]")))
        })
        .collect()
}

/// More moves than a position has (at most a few dozen) is a malformed request.
const MAX_SEARCHMOVES: usize = 200;

/// Checks how many lines an analysis asks for.
pub fn check_multipv(multipv: u32) -> Result<usize, ApiError> {
    let max = damasi_online::brain::MAX_LINES;
    if (1..=max as u32).contains(&multipv) {
        Ok(multipv as usize)
    } else {
        Err(ApiError::BadRequest(format!(
            "multipv {multipv} is out of range: choose 1 to {max}"
        )))
    }
}

/// Checks an engine level.
pub fn check_level(level: u8) -> Result<u8, ApiError> {
    if (1..=10).contains(&level) {
        Ok(level)
    } else {
        Err(ApiError::BadRequest(format!(
            "level {level} is out of range: choose 1 to 10"
        )))
    }
}
