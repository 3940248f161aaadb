//! `GET /api/tablebase?fen=...`: what the endgame tables say about a position and about
//! every legal move in it (win, draw or loss, as lichess shows its tablebase), for the
//! Study view's tablebase panel.
//!
//! The server holds the tables as [`Tablebases`]: an [`EndgameOracle`] handed over
//! ([`crate::AppState::with_tablebase`]), or a directory it reads through a loader
//! ([`Tablebases::watching`]: `damasi serve` watches `tablebases/` in the data directory),
//! so this crate reads no table format. A watched directory is looked at again on each
//! request, and read again when its files changed: tables built while the server runs are
//! used at once. The values are for the default rules, which is what the tables solve.
//!
//! The same tables also answer in the shape of lichess's tablebase server (`GET
//! /api/tablebase/standard?fen=`, and `GET /standard?fen=` at the root, where lichess's
//! clients that join paths as URLs land): [`lichess_answer`], for programs written against
//! lichess's API. How damasi's values map onto lichess's fields is in `docs/web-api.md`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::extract::State;
use axum::Json;
use damasi::{position_outcome, DrawReason, MoveInfo, Outcome, Position, RuleSet, Wdl};
use damasi_engine::hub::TablebaseLoader;
use damasi_engine::oracle::{converts, EndgameOracle};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::api::{parse_fen, Client};
use crate::error::{ApiError, ApiQuery, HttpError};
use crate::AppState;

/// The server's endgame tables: none, a fixed set, or a directory read again whenever its
/// files change. Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct Tablebases(Option<Arc<Source>>);

enum Source {
    Fixed(Arc<dyn EndgameOracle>),
    Watched {
        dir: PathBuf,
        loader: TablebaseLoader,
        /// What was read, and the directory's files when it was read. Held only by
        /// tablebase requests (on blocking threads), while one of them reads the directory.
        seen: Mutex<Seen>,
    },
}

#[derive(Default)]
struct Seen {
    /// The directory's files (name, size, modification time) when last read; `None`
    /// before the first look.
    files: Option<Vec<(OsString, u64, Option<SystemTime>)>>,
    tables: Option<Arc<dyn EndgameOracle>>,
    description: Option<String>,
}

impl Tablebases {
    /// These tables, for good (`None`: no tables).
    pub fn fixed(oracle: Option<Arc<dyn EndgameOracle>>) -> Tablebases {
        Tablebases(oracle.map(|o| Arc::new(Source::Fixed(o))))
    }

    /// The tables `loader` finds in `dir`, read at the first request and again whenever the
    /// directory's files change (added, removed or rewritten), so that tables built into it
    /// while the server runs are used without a restart.
    pub fn watching(dir: PathBuf, loader: TablebaseLoader) -> Tablebases {
        Tablebases(Some(Arc::new(Source::Watched {
            dir,
            loader,
            seen: Mutex::new(Seen::default()),
        })))
    }

    /// The tables now: for a watched directory, lists it (a few file names and sizes) and
    /// reads it again if it changed. A directory that cannot be read keeps the tables read
    /// before, and its error is returned (the tables, if any, with it). Blocking: call it off
    /// the async threads.
    pub fn refresh(&self) -> (Option<Arc<dyn EndgameOracle>>, Option<String>) {
        let Some(source) = &self.0 else {
            return (None, None);
        };
        let (dir, loader, seen) = match &**source {
            Source::Fixed(o) => return (Some(o.clone()), None),
            Source::Watched { dir, loader, seen } => (dir, loader, seen),
        };
        let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
        let files = list_files(dir);
        if seen.files.as_ref() == Some(&files) {
            return (seen.tables.clone(), None);
        }
        seen.files = Some(files);
        match loader(dir) {
            Ok(found) => {
                seen.description = found.as_ref().map(|t| t.description.clone());
                seen.tables = found.map(|t| t.oracle);
                (seen.tables.clone(), None)
            }
            Err(e) => (seen.tables.clone(), Some(format!("{}: {e}", dir.display()))),
        }
    }

    /// For people, e.g. "endgame tables up to 5 pieces", as the loader described the tables
    /// read last (`None`: none read).
    pub fn description(&self) -> Option<String> {
        match self.0.as_deref()? {
            Source::Fixed(o) => Some(format!("endgame tables up to {} pieces", o.max_pieces())),
            Source::Watched { seen, .. } => seen
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .description
                .clone(),
        }
    }
}

/// The files of `dir` with their sizes and modification times, sorted (empty when `dir`
/// is not there): what tells that tables were built, removed or rewritten.
fn list_files(dir: &std::path::Path) -> Vec<(OsString, u64, Option<SystemTime>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            let meta = e.metadata().ok()?;
            Some((e.file_name(), meta.len(), meta.modified().ok()))
        })
        .collect();
    files.sort();
    files
}

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
                      `damasi tb build --pieces 5` into its tables directory (the data \
                      directory's `tablebases/`); they are used as soon as they are there"
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
    let tables = state.tablebase.clone();
    // Looking at the directory and probing may read from disk: off the async threads.
    tokio::task::spawn_blocking(move || {
        let (oracle, error) = tables.refresh();
        if let Some(e) = error {
            eprintln!("damasi: cannot read the endgame tables in {e}");
        }
        tablebase_answer(oracle.as_deref(), &pos)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("tablebase probe: {e}")))?
    .map(Json)
    .map_err(HttpError)
}

/// Query of lichess's tablebase route (`GET /api/tablebase/standard`): other parameters
/// lichess's clients may send are ignored.
#[derive(Deserialize)]
pub struct LichessTablebaseQuery {
    /// The position (FEN; required).
    pub fen: Option<String>,
}

/// What is known of a position, in lichess's fields, from the point of view of its side to
/// move. Each legal move of [`LichessTablebase`] is described by the position after it.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct LichessValue {
    /// `win`, `draw`, `loss` for the side to move, or `unknown` (beyond the tables).
    pub category: &'static str,
    /// damasi's distance to conversion, signed as lichess signs its `dtz`: the plies with best
    /// play to the next capture, promotion or man's forward step, positive when the side to
    /// move wins, negative when it loses; 0 for a draw or a game already over; null when
    /// unknown (no distance tables, or an unknown position).
    pub dtz: Option<i64>,
    /// The same as `dtz`: damasi's distances are exact (no rounding as in Syzygy's files).
    pub precise_dtz: Option<i64>,
    /// The same distance in lichess's own field for distances to conversion; null for a
    /// draw or a game already over.
    pub dtc: Option<i64>,
    /// Always null: damasi's tables hold no distance to the end of the game.
    pub dtm: Option<i64>,
    /// Always null (lichess's distance to win, from other tables).
    pub dtw: Option<i64>,
    /// Always false: draughts has no check (a side that cannot move has lost: `variant_loss`).
    pub checkmate: bool,
    /// The game is over drawn because both sides are blocked (a mutual block).
    pub stalemate: bool,
    /// The game is over won by the side to move (the other side has no pieces; a set-up
    /// position only).
    pub variant_win: bool,
    /// The game is over lost by the side to move: it has no pieces, or no legal move.
    pub variant_loss: bool,
    /// The game is over drawn because each side has exactly one piece.
    pub insufficient_material: bool,
}

/// One legal move in lichess's shape: the move, and the value of the position after it seen
/// by the side to move THERE (so the mover's best moves are those whose category is `loss`).
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct LichessMove {
    /// The move in landing notation (`c3-c4`, `d4xd6xf6`), as the Board API takes moves.
    pub uci: String,
    /// The move in the federation's captured-square notation, as people write it in records
    /// (the same as `uci` for a move that captures nothing).
    pub san: String,
    /// A capture, a promotion or a man's forward step: the moves that can never be undone,
    /// which damasi's distances count to (lichess's zeroing moves).
    pub zeroing: bool,
    /// The same as `zeroing` (lichess's name for the moves its distances to conversion count to).
    pub conversion: bool,
    /// The position after the move, from its side to move's point of view.
    #[serde(flatten)]
    pub value: LichessValue,
}

/// Answer of `GET /api/tablebase/standard` (lichess's tablebase shape).
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct LichessTablebase {
    /// The position's value for its side to move.
    #[serde(flatten)]
    pub value: LichessValue,
    /// Every legal move (none when the game is over), best for the side to move first: its
    /// wins (category `loss` after it; the quickest first), draws, unknowns, then its losses
    /// (the slowest first); equals in generation order.
    pub moves: Vec<LichessMove>,
}

/// The value of `pos` for its side to move: from the rules when the game is over there, else
/// from the tables when they cover it, else `unknown`.
fn lichess_value(oracle: Option<&dyn EndgameOracle>, pos: &Position) -> LichessValue {
    let mut v = LichessValue {
        category: "unknown",
        dtz: None,
        precise_dtz: None,
        dtc: None,
        dtm: None,
        dtw: None,
        checkmate: false,
        stalemate: false,
        variant_win: false,
        variant_loss: false,
        insufficient_material: false,
    };
    // The rules decide a finished game whatever its number of pieces; the tables know the
    // default rules, so those are the ones asked.
    if let Some(outcome) = position_outcome(pos, &RuleSet::default()) {
        v.dtz = Some(0);
        v.precise_dtz = Some(0);
        match outcome {
            Outcome::Win { winner, .. } if winner == pos.side_to_move() => {
                v.category = "win";
                v.variant_win = true;
            }
            Outcome::Win { .. } => {
                v.category = "loss";
                v.variant_loss = true;
            }
            Outcome::Draw(reason) => {
                v.category = "draw";
                v.insufficient_material = reason == DrawReason::OnePieceEach;
                v.stalemate = reason == DrawReason::MutualBlock;
            }
            Outcome::Aborted => {}
        }
        return v;
    }
    let Some(oracle) = oracle else { return v };
    let pieces = pos.count(damasi::Color::White) + pos.count(damasi::Color::Black);
    if pieces > oracle.max_pieces() {
        return v;
    }
    let Some(wdl) = oracle.probe_wdl(pos) else {
        return v;
    };
    v.category = wdl.name();
    let signed = match wdl {
        Wdl::Draw => {
            v.dtz = Some(0);
            v.precise_dtz = Some(0);
            return v;
        }
        Wdl::Win => 1,
        Wdl::Loss => -1,
    };
    v.dtc = oracle.probe_dtc(pos).map(|d| signed * i64::from(d));
    v.dtz = v.dtc;
    v.precise_dtz = v.dtc;
    v
}

/// The tables' answer for `pos` in the shape of lichess's tablebase server: never an error,
/// a position the tables do not cover is `unknown` (as lichess answers positions beyond its
/// tables), and without tables only finished games are known.
pub fn lichess_answer(oracle: Option<&dyn EndgameOracle>, pos: &Position) -> LichessTablebase {
    let value = lichess_value(oracle, pos);
    // A finished game has no moves to describe, as damasi's other answers say.
    let over = position_outcome(pos, &RuleSet::default()).is_some();
    let mut moves: Vec<LichessMove> = if over {
        Vec::new()
    } else {
        pos.legal_moves()
            .iter()
            .map(|m| {
                let after = pos.play(m);
                let info = MoveInfo::new(pos, m);
                let conversion = converts(pos, &after);
                LichessMove {
                    uci: info.landing,
                    san: info.captured,
                    zeroing: conversion,
                    conversion,
                    value: lichess_value(oracle, &after),
                }
            })
            .collect()
    };
    // Best for the mover first: the position after is lost for the opponent (quickest first),
    // drawn, unknown, won for the opponent (slowest first). A stable sort keeps the
    // generation order among equals.
    moves.sort_by_key(|m| {
        let d = m.value.dtz.map(i64::abs);
        match m.value.category {
            "loss" => (0, d.unwrap_or(i64::MAX)),
            "draw" => (1, 0),
            "unknown" => (2, 0),
            _ => (3, -d.unwrap_or(i64::MAX)),
        }
    });
    LichessTablebase { value, moves }
}

/// `GET /api/tablebase/standard?fen=...` (and `GET /standard?fen=...`): lichess's tablebase
/// answer, limited per address with the cloud evaluations
/// ([`crate::online::http::Limits::check_knowledge`]).
pub async fn lichess_standard(
    State(state): State<AppState>,
    Client(client): Client,
    ApiQuery(q): ApiQuery<LichessTablebaseQuery>,
) -> Result<Json<LichessTablebase>, HttpError> {
    state.limits.check_knowledge(client)?;
    let fen = q.fen.as_deref().map(str::trim).unwrap_or("");
    if fen.is_empty() {
        return Err(ApiError::BadRequest("fen: a position is needed".into()).into());
    }
    let pos = parse_fen(Some(fen))?;
    let tables = state.tablebase.clone();
    tokio::task::spawn_blocking(move || {
        let (oracle, error) = tables.refresh();
        if let Some(e) = error {
            eprintln!("damasi: cannot read the endgame tables in {e}");
        }
        lichess_answer(oracle.as_deref(), &pos)
    })
    .await
    .map(Json)
    .map_err(|e| ApiError::Internal(format!("tablebase probe: {e}")).into())
}
