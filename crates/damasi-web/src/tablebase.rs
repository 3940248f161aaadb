//! `GET /api/tablebase?fen=...`: what the endgame tables say about a position and about
//! every legal move in it (win, draw or loss, as lichess shows its tablebase), for the
//! Study view's tablebase panel.
//!
//! The server holds the tables as an [`EndgameOracle`] ([`crate::AppState::with_tablebase`]:
//! `damasi serve` finds them in the data directory), so this crate reads no table format.
//! The values are for the default rules, which is what the tables solve.

use axum::extract::State;
use axum::Json;
use damasi::{MoveInfo, Position, Wdl};
use damasi_engine::oracle::{converts, EndgameOracle};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::api::parse_fen;
use crate::error::{ApiError, ApiQuery, HttpError};
use crate::AppState;

/// Query of `GET /api/tablebase`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TablebaseQuery {
    /// The position (FEN; required).
    pub fen: Option<String>,
}

/// One legal move and its value for the side that plays it.
#[derive(Serialize)]
pub struct MoveValue {
    /// The move, described as everywhere in the API.
    #[serde(rename = "move")]
    pub mv: MoveInfo,
    /// `win`, `draw` or `loss` for the side that plays the move.
    pub value: &'static str,
    /// For a winning or losing move, the plies from here to the next capture, promotion or
    /// forward step of a man with best play (1 when the move is one), if the server has the
    /// distance tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtc: Option<u32>,
    /// The position after the move.
    pub fen_after: String,
}

/// Answer of `GET /api/tablebase`.
#[derive(Serialize)]
pub struct TablebaseAnswer {
    /// The FEN, normalised.
    pub fen: String,
    /// `white` or `black`: the side to move.
    pub side: &'static str,
    /// Pieces on the board.
    pub pieces: u32,
    /// The most pieces the loaded tables cover.
    pub max_pieces: u32,
    /// `win`, `draw` or `loss` for the side to move.
    pub value: &'static str,
    /// For a won or lost position, the plies to the next capture, promotion or forward step
    /// of a man with best play (the winner hurrying, the loser delaying), if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtc: Option<u32>,
    /// Every legal move with its value, best first (wins, then draws, then losses; the
    /// quickest win and the slowest loss first where distances are known, otherwise in
    /// generation order).
    pub moves: Vec<MoveValue>,
}

/// The tables' answer for `pos`, or why there is none.
pub fn tablebase_answer(
    oracle: Option<&dyn EndgameOracle>,
    pos: &Position,
) -> Result<TablebaseAnswer, ApiError> {
    let Some(oracle) = oracle else {
        return Err(ApiError::Conflict {
            code: "no-tablebase",
            message: "this server has no endgame tables: build them with \
                      `damasi tb build --pieces 5` and restart it"
                .to_string(),
            params: json!({}),
        });
    };
    let pieces = pos.count(damasi::Color::White) + pos.count(damasi::Color::Black);
    let max_pieces = oracle.max_pieces();
    let not_in_tablebase = |message: String| ApiError::Conflict {
        code: "not-in-tablebase",
        message,
        params: json!({ "pieces": pieces, "max_pieces": max_pieces }),
    };
    if pieces > max_pieces {
        return Err(not_in_tablebase(format!(
            "the endgame tables cover positions with at most {max_pieces} pieces; \
             this one has {pieces}"
        )));
    }
    // Within the piece count, a position is unknown when its table is missing (a six-piece
    // build in progress) or could not be read.
    let unknown = || {
        not_in_tablebase(format!(
            "the endgame tables do not cover this {pieces}-piece position: its table is not \
             built (or could not be read)"
        ))
    };
    let value = oracle.probe_wdl(pos).ok_or_else(unknown)?;
    let legal = pos.legal_moves();
    let mut moves = Vec::new();
    for m in legal.iter() {
        let after = pos.play(m);
        let v = oracle.probe_wdl(&after).ok_or_else(unknown)?.negate();
        let dtc = if v == Wdl::Draw {
            None
        } else if converts(pos, &after) {
            Some(1)
        } else {
            oracle.probe_dtc(&after).map(|d| d + 1)
        };
        moves.push((v, dtc, m, after));
    }
    // Best first; a stable sort keeps the generation order among equals.
    moves.sort_by_key(|(v, dtc, _, _)| {
        let hurry = match (v, dtc) {
            (Wdl::Win, Some(d)) => *d as i64,
            (Wdl::Loss, Some(d)) => -(*d as i64),
            _ => 0,
        };
        (std::cmp::Reverse(*v), hurry)
    });
    Ok(TablebaseAnswer {
        fen: pos.to_fen(),
        side: pos.side_to_move().name(),
        pieces,
        max_pieces,
        value: value.name(),
        dtc: oracle.probe_dtc(pos),
        moves: moves
            .into_iter()
            .map(|(v, dtc, m, after): (Wdl, _, _, Position)| MoveValue {
                mv: MoveInfo::new(pos, m),
                value: v.name(),
                dtc,
                fen_after: after.to_fen(),
            })
            .collect(),
    })
}

/// `GET /api/tablebase?fen=...`: the value of the position and of every legal move.
pub async fn tablebase(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<TablebaseQuery>,
) -> Result<Json<TablebaseAnswer>, HttpError> {
    let fen = q.fen.as_deref().map(str::trim).unwrap_or("");
    if fen.is_empty() {
        return Err(ApiError::BadRequest("fen: a position is needed".into()).into());
    }
    let pos = parse_fen(Some(fen))?;
    let oracle = state.tablebase.clone();
    // Probing may read a table from disk the first time: off the async threads.
    tokio::task::spawn_blocking(move || tablebase_answer(oracle.as_deref(), &pos))
        .await
        .map_err(|e| ApiError::Internal(format!("tablebase probe: {e}")))?
        .map(Json)
        .map_err(HttpError)
}
