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

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::extract::State;
use axum::Json;
use damasi::{MoveInfo, Position, Wdl};
use damasi_engine::hub::TablebaseLoader;
use damasi_engine::oracle::{converts, EndgameOracle};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::api::parse_fen;
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
