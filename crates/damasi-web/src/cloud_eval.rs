//! Cloud evaluations in the shape of lichess's `GET /api/cloud-eval?fen=&multiPv=`: the
//! evaluations this server has already made, never a new search.
//!
//! Every full-strength analysis the server finishes for the web (`POST /api/analyze`, which
//! the Study view and game review send, and the hints of saved games; see [`crate::api::think`])
//! is recorded here under its position, normalised as [`crate::api::parse_fen`] and
//! `to_fen` write it, with its depth, nodes and lines. They are kept in the saved games'
//! SQLite file (`games.sqlite3` in the data directory, table `cloud_evals`), so they survive
//! restarts: one row per position and number of lines, the deepest kept, at most
//! [`MAX_ROWS`] rows, the oldest dropped first.
//!
//! Only analyses lichess's cache would hold are recorded: at full strength (level 10), under
//! the default rules (the rules a FEN alone stands for here), of every legal move (not one
//! restricted to some moves with `searchmoves`).

use axum::extract::State;
use axum::Json;
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::api::{parse_fen, Client};
use crate::error::{ApiError, ApiQuery, HttpError};
use crate::{AppState, Store};

/// Most evaluations kept (positions times their numbers of lines); past it the oldest go.
pub const MAX_ROWS: usize = 100_000;

/// The table, created with the saved games' schema ([`crate::store`]).
pub(crate) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS cloud_evals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    fen TEXT NOT NULL,
    lines INTEGER NOT NULL,
    depth INTEGER NOT NULL,
    knodes INTEGER NOT NULL,
    pvs TEXT NOT NULL,
    UNIQUE (fen, lines)
);
";

/// One line of an evaluation as lichess writes it: the moves in landing notation, space
/// separated, and either `cp` (centi-men, from White's point of view) or `mate` (a won or
/// lost game found: moves of the winner to the end, positive when White wins).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Pv {
    /// The line, e.g. `c3-c4 f6-f5 b3-b4`.
    pub moves: String,
    /// The score in hundredths of a man, White's point of view (lichess's `cp`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    /// A forced end found: the winner's moves to it, positive when White wins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
}

impl Pv {
    /// A line of the engine: `score` (centi-men) and `plies_to_end` (plies to a won or lost
    /// end, positive for a win) are the side to move's, as the engine reports them.
    pub fn from_engine(
        moves: &[String],
        white_to_move: bool,
        score: i32,
        plies_to_end: Option<i32>,
    ) -> Pv {
        let sign = if white_to_move { 1 } else { -1 };
        // lichess counts a mate in the winner's moves: the winner plays the last ply, so a
        // win in p plies (p odd) is (p + 1) / 2 moves, a loss in p plies (p even) p / 2.
        let mate = plies_to_end.map(|p| sign * p.signum() * ((p.abs() + 1) / 2));
        Pv {
            moves: moves.join(" "),
            cp: if mate.is_some() {
                None
            } else {
                Some(sign * score)
            },
            mate,
        }
    }
}

/// An evaluation of one position, as recorded and as lichess answers it.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct CloudEval {
    /// The position (the FEN as asked, in an answer).
    pub fen: String,
    /// Thousands of nodes the search visited.
    pub knodes: u64,
    /// The depth it reached.
    pub depth: u32,
    /// The best lines, best first.
    pub pvs: Vec<Pv>,
}

/// The server's evaluations, in its saved games' database; cheap to clone.
#[derive(Clone)]
pub struct CloudEvals {
    store: Store,
    max_rows: usize,
}

impl CloudEvals {
    /// The evaluations kept in `store`, at most [`MAX_ROWS`] of them.
    pub fn new(store: Store) -> CloudEvals {
        CloudEvals {
            store,
            max_rows: MAX_ROWS,
        }
    }

    /// The same with another bound (tests).
    pub fn with_max_rows(mut self, max_rows: usize) -> CloudEvals {
        self.max_rows = max_rows.max(1);
        self
    }

    /// Keeps `eval` (its `fen` the normalised key), unless as many lines of the position are
    /// kept from a deeper search. A kept evaluation becomes the newest; past the bound, the
    /// oldest are dropped.
    pub async fn record(&self, eval: CloudEval) -> Result<(), ApiError> {
        if eval.pvs.is_empty() {
            return Ok(());
        }
        let max_rows = self.max_rows;
        self.store
            .with(move |conn| {
                let tx = conn.transaction()?;
                let lines = eval.pvs.len() as i64;
                let kept: Option<(i64, i64)> = tx
                    .query_row(
                        "SELECT id, depth FROM cloud_evals WHERE fen = ?1 AND lines = ?2",
                        params![eval.fen, lines],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                if let Some((id, depth)) = kept {
                    if depth > i64::from(eval.depth) {
                        return Ok(());
                    }
                    tx.execute("DELETE FROM cloud_evals WHERE id = ?1", params![id])?;
                }
                let pvs = serde_json::to_string(&eval.pvs)
                    .map_err(|e| ApiError::Internal(format!("cloud evaluation: {e}")))?;
                tx.execute(
                    "INSERT INTO cloud_evals (fen, lines, depth, knodes, pvs)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![
                        eval.fen,
                        lines,
                        eval.depth,
                        i64::try_from(eval.knodes).unwrap_or(i64::MAX),
                        pvs
                    ],
                )?;
                // Ids only grow (AUTOINCREMENT): the rows past the newest `max_rows` are the
                // oldest.
                tx.execute(
                    "DELETE FROM cloud_evals WHERE id <= (SELECT id FROM cloud_evals
                       ORDER BY id DESC LIMIT 1 OFFSET ?1)",
                    params![max_rows as i64],
                )?;
                tx.commit()?;
                Ok(())
            })
            .await
    }

    /// The best evaluation kept of the position `fen` (normalised) for `multipv` lines, as
    /// lichess chooses: the deepest with at least `multipv` lines, cut to `multipv`; when
    /// none has as many, the one with the most lines (the deepest of those).
    pub async fn find(&self, fen: String, multipv: usize) -> Result<Option<CloudEval>, ApiError> {
        let want = multipv.max(1) as i64;
        self.store
            .with(move |conn| {
                let row: Option<(i64, i64, String)> = conn
                    .query_row(
                        "SELECT depth, knodes, pvs FROM cloud_evals WHERE fen = ?1
                         ORDER BY lines >= ?2 DESC,
                                  CASE WHEN lines >= ?2 THEN depth ELSE 0 END DESC,
                                  lines DESC, depth DESC
                         LIMIT 1",
                        params![fen, want],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                    )
                    .optional()?;
                let Some((depth, knodes, pvs)) = row else {
                    return Ok(None);
                };
                let mut pvs: Vec<Pv> = serde_json::from_str(&pvs).map_err(|e| {
                    ApiError::Internal(format!("a stored cloud evaluation of {fen}: {e}"))
                })?;
                pvs.truncate(want as usize);
                Ok(Some(CloudEval {
                    fen,
                    knodes: u64::try_from(knodes).unwrap_or(0),
                    depth: u32::try_from(depth).unwrap_or(0),
                    pvs,
                }))
            })
            .await
    }

    /// How many evaluations are kept (positions times their numbers of lines).
    pub async fn count(&self) -> Result<usize, ApiError> {
        self.store
            .with(|conn| {
                let n: i64 =
                    conn.query_row("SELECT count(*) FROM cloud_evals", [], |r| r.get(0))?;
                Ok(n as usize)
            })
            .await
    }
}

/// Query of `GET /api/cloud-eval` (lichess's names; other parameters are ignored).
#[derive(Deserialize)]
pub struct CloudEvalQuery {
    /// The position (required).
    pub fen: Option<String>,
    /// How many lines, at least 1 (default 1).
    #[serde(rename = "multiPv")]
    pub multi_pv: Option<String>,
    /// lichess's variant: nothing, `standard` or `turkish` (the default rules, the only ones
    /// evaluations are kept for).
    pub variant: Option<String>,
}

/// The answer lichess gives for a position it has no evaluation of.
const NOT_AVAILABLE: &str = "No cloud evaluation available for that position";

/// `GET /api/cloud-eval?fen=&multiPv=` (lichess's): the kept evaluation of the position, or
/// 404 `{"error": "No cloud evaluation available for that position"}`. Never searches.
pub async fn cloud_eval(
    State(state): State<AppState>,
    Client(client): Client,
    ApiQuery(q): ApiQuery<CloudEvalQuery>,
) -> Result<Json<CloudEval>, HttpError> {
    state.limits.check_knowledge(client)?;
    let fen = q.fen.as_deref().map(str::trim).unwrap_or("");
    if fen.is_empty() {
        return Err(ApiError::BadRequest("fen: a position is needed".into()).into());
    }
    let pos = parse_fen(Some(fen))?;
    let multipv = match q.multi_pv.as_deref().map(str::trim) {
        None | Some("") => 1,
        Some(text) => match text.parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(ApiError::BadRequest(format!(
                    "multiPv '{}': a number of lines, 1 or more",
                    text.chars().take(20).collect::<String>()
                ))
                .into())
            }
        },
    };
    match q.variant.as_deref().map(str::trim) {
        None | Some("" | "standard") => {}
        Some(name) => {
            let rules = damasi::RuleSet::from_name(name)
                .map_err(|e| ApiError::BadRequest(format!("variant: {e}")))?;
            // Other rules' evaluations are not kept: none is available.
            if rules != damasi::RuleSet::default() {
                return Err(ApiError::NotFound(NOT_AVAILABLE.into()).into());
            }
        }
    }
    match state.cloud_evals.find(pos.to_fen(), multipv).await? {
        // The FEN as asked, as lichess answers.
        Some(eval) => Ok(Json(CloudEval {
            fen: fen.to_string(),
            ..eval
        })),
        None => Err(ApiError::NotFound(NOT_AVAILABLE.into()).into()),
    }
}

#[cfg(test)]
mod tests {
    use super::Pv;

    fn line() -> Vec<String> {
        vec!["c3-c4".into(), "f6-f5".into()]
    }

    #[test]
    fn scores_are_whites_and_mates_count_the_winners_moves() {
        // Black to move, 35 centi-men better for Black: White's -35.
        assert_eq!(Pv::from_engine(&line(), false, 35, None).cp, Some(-35));
        assert_eq!(Pv::from_engine(&line(), true, 35, None).cp, Some(35));
        assert_eq!(
            Pv::from_engine(&line(), true, 35, None).moves,
            "c3-c4 f6-f5"
        );
        // White to move wins in 5 plies: its moves are plies 1, 3 and 5, three moves.
        let win = Pv::from_engine(&line(), true, 29_995, Some(5));
        assert_eq!((win.mate, win.cp), (Some(3), None));
        // Black to move loses in 4 plies: White's moves are plies 2 and 4, White mates in 2.
        assert_eq!(
            Pv::from_engine(&line(), false, -29_996, Some(-4)).mate,
            Some(2)
        );
        // White to move loses in 2 plies: Black's one move, -1.
        assert_eq!(
            Pv::from_engine(&line(), true, -29_998, Some(-2)).mate,
            Some(-1)
        );
    }
}
