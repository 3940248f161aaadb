//! Saved games in an embedded SQLite database: a `games` row per game (players, start
//! position, rules, time control, outcome code, the running clock's start) and a `moves` row
//! per ply (the move, its thinking time, the clocks after it). Playing a move appends one row,
//! so a move costs the same however long the game. The file is opened in WAL mode and every
//! change is one transaction, so a crash or a kill at any moment leaves a consistent file and
//! loses no acknowledged move.
//!
//! Databases written by earlier versions (one row per game with its moves as text and the
//! outcome as an English sentence) are migrated when opened.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use damasi::{ByColor, Outcome, Position, RuleSet, TimeControl};
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use damasi_online::db::{open_in, run_blocking, set_pragmas};
use damasi_online::record::Record;

/// Who plays one side.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Player {
    /// A person at the screen.
    Human,
    /// The engine at a level 1..=10.
    Engine {
        /// Strength, 1 (weakest) to 10.
        level: u8,
    },
}

impl Player {
    fn to_db(self) -> String {
        match self {
            Player::Human => "human".into(),
            Player::Engine { level } => format!("engine:{level}"),
        }
    }

    fn from_db(s: &str) -> Player {
        match s.strip_prefix("engine:").and_then(|l| l.parse().ok()) {
            Some(level) => Player::Engine { level },
            None => Player::Human,
        }
    }

    /// Whether the engine plays this side.
    pub fn is_engine(self) -> bool {
        matches!(self, Player::Engine { .. })
    }
}

/// One saved game as stored, without its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// Database id.
    pub id: i64,
    /// When it was created (UTC, `YYYY-MM-DD HH:MM:SS`).
    pub created: String,
    /// When it last changed.
    pub updated: String,
    /// Who plays White.
    pub white: Player,
    /// Who plays Black.
    pub black: Player,
    /// Start position (FEN).
    pub start_fen: String,
    /// The rule set's name (`turkish`, `turkish; no-capture-limit 50`).
    pub rules: String,
    /// The time control, if the game is timed.
    pub time_control: Option<TimeControl>,
    /// The outcome code ([`Outcome::code`]) once the game is over.
    pub outcome: Option<String>,
    /// Plies played.
    pub plies: i64,
    /// When the side to move's clock started (Unix ms), while it runs.
    pub turn_started_ms: Option<i64>,
    /// Thinking time already used on the current move while the clock is paused (a failed
    /// engine), in ms.
    pub paused_ms: Option<i64>,
    /// Draw offers made so far by White and Black.
    pub draw_offers: ByColor<u8>,
    /// A draw offer waiting for the other person's answer: the side that made it.
    pub pending_draw: Option<String>,
    /// PDN tags kept from an imported record (JSON object of strings), for export.
    pub tags: String,
}

/// One ply as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRow {
    /// The move as [`Record::token`] writes it: `from.to.captured` (captured as hex bits).
    pub token: String,
    /// How long the player thought, in ms (as the server measured it).
    pub elapsed_ms: i64,
    /// White's time left after the move (timed games).
    pub white_ms: Option<i64>,
    /// Black's time left after the move (timed games).
    pub black_ms: Option<i64>,
}

/// The database of saved games; cheap to clone.
#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
}

/// The schema version this code writes (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 2;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL DEFAULT (datetime('now')),
    updated TEXT NOT NULL DEFAULT (datetime('now')),
    white TEXT NOT NULL,
    black TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    rules TEXT NOT NULL DEFAULT 'turkish',
    initial_ms INTEGER,
    increment_ms INTEGER,
    outcome TEXT,
    plies INTEGER NOT NULL DEFAULT 0,
    turn_started_ms INTEGER,
    paused_ms INTEGER,
    draw_offers TEXT NOT NULL DEFAULT '0,0',
    pending_draw TEXT,
    tags TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS games_updated ON games(updated);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    token TEXT NOT NULL,
    elapsed_ms INTEGER NOT NULL DEFAULT 0,
    white_ms INTEGER,
    black_ms INTEGER,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;
";

const GAME_COLUMNS: &str = "id, created, updated, white, black, start_fen, rules, initial_ms, \
     increment_ms, outcome, plies, turn_started_ms, paused_ms, draw_offers, pending_draw, tags";

impl Store {
    /// Opens (creating if needed) `games.sqlite3` in `dir`, migrating an older database.
    pub fn open(dir: &Path) -> Result<Store, String> {
        let (conn, path) = open_in(dir, "games.sqlite3")?;
        Store::init(conn).map_err(|e| format!("cannot set up database {}: {e}", path.display()))
    }

    /// A database in memory, for tests.
    pub fn in_memory() -> Store {
        Store::init(Connection::open_in_memory().expect("an in-memory database opens"))
            .expect("the schema applies to an empty database")
    }

    fn init(mut conn: Connection) -> Result<Store, String> {
        let e = |e: rusqlite::Error| e.to_string();
        set_pragmas(&conn).map_err(e)?;
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(e)?;
        if version > SCHEMA_VERSION {
            return Err(format!(
                "the database was written by a newer damasi (schema {version}, this one knows {SCHEMA_VERSION})"
            ));
        }
        let tx = conn.transaction().map_err(e)?;
        if version < 2 && has_column(&tx, "games", "moves").map_err(e)? {
            migrate_v1(&tx)?;
        }
        tx.execute_batch(SCHEMA).map_err(e)?;
        // The engine's evaluations kept for `GET /api/cloud-eval` share the file.
        tx.execute_batch(crate::cloud_eval::SCHEMA).map_err(e)?;
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(e)?;
        tx.commit().map_err(e)?;
        Ok(Store {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// Runs `f` with the connection on a blocking thread.
    pub async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        run_blocking(self.conn.clone(), f).await
    }
}

fn has_column(conn: &Connection, table: &str, column: &str) -> rusqlite::Result<bool> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})"))?;
    let names = stmt.query_map([], |r| r.get::<_, String>(1))?;
    for name in names {
        if name? == column {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Moves a version-1 database (moves as one text column, outcomes as English sentences, the
/// page's clock readings as JSON) to the current schema, replaying each game once to find its
/// outcome code.
fn migrate_v1(tx: &Transaction<'_>) -> Result<(), String> {
    let e = |e: rusqlite::Error| format!("migrating the games table: {e}");
    tx.execute_batch("ALTER TABLE games RENAME TO games_v1; DROP INDEX IF EXISTS games_updated;")
        .map_err(e)?;
    tx.execute_batch(SCHEMA).map_err(e)?;
    type OldRow = (
        i64,
        String,
        String,
        String,
        String,
        String,
        String,
        String,
        String,
        Option<String>,
        String,
        String,
    );
    let old: Vec<OldRow> = {
        let mut stmt = tx
            .prepare(
                "SELECT id, created, updated, white, black, start_fen, moves, result, reason, clock, tags, rules
                 FROM games_v1 ORDER BY id",
            )
            .map_err(e)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                    r.get(10)?,
                    r.get(11)?,
                ))
            })
            .map_err(e)?;
        rows.collect::<rusqlite::Result<_>>().map_err(e)?
    };
    for (id, created, updated, white, black, fen, moves, result, reason, clock, tags, rules) in old
    {
        let start = Position::from_fen(&fen).unwrap_or_else(|_| Position::start());
        let rule_set = RuleSet::from_name(&rules).unwrap_or_default();
        let record = Record::from_tokens(start, rule_set, None, &moves, |_| 0)
            .unwrap_or_else(|_| Record::new(start, rule_set, None));
        let outcome = record
            .game()
            .outcome()
            .or_else(|| old_declared(&result, &reason))
            .map(|o| o.code());
        let control = clock.and_then(|c| {
            let v: serde_json::Value = serde_json::from_str(&c).ok()?;
            Some(TimeControl {
                initial: Duration::from_millis(v.get("initial_ms")?.as_u64()?),
                increment: Duration::from_millis(v.get("increment_ms")?.as_u64()?),
            })
        });
        tx.execute(
            "INSERT INTO games (id, created, updated, white, black, start_fen, rules, initial_ms,
                                increment_ms, outcome, plies, tags)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                id,
                created,
                updated,
                white,
                black,
                fen,
                rules,
                control.map(|c| c.initial.as_millis() as i64),
                control.map(|c| c.increment.as_millis() as i64),
                outcome,
                record.game().ply() as i64,
                tags
            ],
        )
        .map_err(e)?;
        for (ply, m) in record.game().history().iter().enumerate() {
            tx.execute(
                "INSERT INTO moves (game_id, ply, token) VALUES (?1, ?2, ?3)",
                params![id, ply as i64, Record::token(m)],
            )
            .map_err(e)?;
        }
    }
    tx.execute_batch("DROP TABLE games_v1;").map_err(e)?;
    Ok(())
}

/// The outcome a version-1 row declared in words (resignation, agreement, time).
fn old_declared(result: &str, reason: &str) -> Option<Outcome> {
    use damasi::{Color, DrawReason, WinReason};
    let winner = match result {
        "1-0" => Color::White,
        "0-1" => Color::Black,
        "1/2-1/2" => return Some(Outcome::Draw(DrawReason::Agreement)),
        _ => return None,
    };
    let reason = if reason.contains("ran out of time") {
        WinReason::Time
    } else {
        WinReason::Resignation
    };
    Some(Outcome::Win { winner, reason })
}

fn row_to_game(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
    let initial: Option<i64> = r.get(7)?;
    let increment: Option<i64> = r.get(8)?;
    let offers: String = r.get(13)?;
    let mut counts = offers
        .split(',')
        .map(|n| n.trim().parse::<u8>().unwrap_or(0));
    Ok(GameRow {
        id: r.get(0)?,
        created: r.get(1)?,
        updated: r.get(2)?,
        white: Player::from_db(&r.get::<_, String>(3)?),
        black: Player::from_db(&r.get::<_, String>(4)?),
        start_fen: r.get(5)?,
        rules: r.get(6)?,
        time_control: initial.map(|i| TimeControl {
            initial: Duration::from_millis(i.max(0) as u64),
            increment: Duration::from_millis(increment.unwrap_or(0).max(0) as u64),
        }),
        outcome: r.get(9)?,
        plies: r.get(10)?,
        turn_started_ms: r.get(11)?,
        paused_ms: r.get(12)?,
        draw_offers: ByColor::new(counts.next().unwrap_or(0), counts.next().unwrap_or(0)),
        pending_draw: r.get(14)?,
        tags: r.get(15)?,
    })
}

/// Inserts a new game with its moves (an import, or a new game with none) and returns its id.
pub fn insert(tx: &Transaction<'_>, g: &GameRow, moves: &[MoveRow]) -> Result<i64, ApiError> {
    tx.execute(
        "INSERT INTO games (white, black, start_fen, rules, initial_ms, increment_ms, outcome,
                            plies, turn_started_ms, paused_ms, draw_offers, pending_draw, tags)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            g.white.to_db(),
            g.black.to_db(),
            g.start_fen,
            g.rules,
            g.time_control.map(|c| c.initial.as_millis() as i64),
            g.time_control.map(|c| c.increment.as_millis() as i64),
            g.outcome,
            moves.len() as i64,
            g.turn_started_ms,
            g.paused_ms,
            format!("{},{}", g.draw_offers.white, g.draw_offers.black),
            g.pending_draw,
            g.tags
        ],
    )?;
    let id = tx.last_insert_rowid();
    for (ply, m) in moves.iter().enumerate() {
        insert_move(tx, id, ply as i64, m)?;
    }
    Ok(id)
}

fn insert_move(tx: &Transaction<'_>, id: i64, ply: i64, m: &MoveRow) -> Result<(), ApiError> {
    tx.execute(
        "INSERT INTO moves (game_id, ply, token, elapsed_ms, white_ms, black_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![id, ply, m.token, m.elapsed_ms, m.white_ms, m.black_ms],
    )?;
    Ok(())
}

/// Saves a game's state after a change: the moves from ply `keep` on are replaced by
/// `new_moves` (a move appends one, a take-back removes some), and the row's outcome, clock and
/// offers are written, all in one transaction.
pub fn save(
    conn: &mut Connection,
    g: &GameRow,
    keep: i64,
    new_moves: &[MoveRow],
) -> Result<(), ApiError> {
    let tx = conn.transaction()?;
    tx.execute(
        "DELETE FROM moves WHERE game_id = ?1 AND ply >= ?2",
        params![g.id, keep],
    )?;
    for (i, m) in new_moves.iter().enumerate() {
        insert_move(&tx, g.id, keep + i as i64, m)?;
    }
    let n = tx.execute(
        "UPDATE games SET outcome = ?2, plies = ?3, turn_started_ms = ?4, paused_ms = ?5,
                draw_offers = ?6, pending_draw = ?7, updated = datetime('now')
         WHERE id = ?1",
        params![
            g.id,
            g.outcome,
            g.plies,
            g.turn_started_ms,
            g.paused_ms,
            format!("{},{}", g.draw_offers.white, g.draw_offers.black),
            g.pending_draw
        ],
    )?;
    if n == 0 {
        return Err(ApiError::NotFound(format!("no game {}", g.id)));
    }
    tx.commit()?;
    Ok(())
}

/// Loads a game and its moves.
pub fn get(conn: &Connection, id: i64) -> Result<(GameRow, Vec<MoveRow>), ApiError> {
    let row = conn
        .query_row(
            &format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?1"),
            params![id],
            row_to_game,
        )
        .optional()?
        .ok_or_else(|| ApiError::NotFound(format!("no game {id}")))?;
    let mut stmt = conn.prepare_cached(
        "SELECT token, elapsed_ms, white_ms, black_ms FROM moves WHERE game_id = ?1 ORDER BY ply",
    )?;
    let moves = stmt
        .query_map(params![id], |r| {
            Ok(MoveRow {
                token: r.get(0)?,
                elapsed_ms: r.get(1)?,
                white_ms: r.get(2)?,
                black_ms: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((row, moves))
}

/// Games that were played (a move made, or an outcome: an imported record without moves),
/// most recently changed first: `limit` of them after skipping `offset`. A game nobody moved
/// in is left out (a page opened and left, a new game not begun).
pub fn list(conn: &Connection, limit: i64, offset: i64) -> Result<Vec<GameRow>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {GAME_COLUMNS} FROM games WHERE plies > 0 OR outcome IS NOT NULL
         ORDER BY updated DESC, id DESC LIMIT ?1 OFFSET ?2"
    ))?;
    let rows = stmt.query_map(params![limit, offset], row_to_game)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Ids of the games still in progress that the server must look after: timed games (their
/// flag must fall) and games with the engine to move.
pub fn unfinished(conn: &Connection) -> Result<Vec<i64>, ApiError> {
    let mut stmt = conn.prepare(
        "SELECT id FROM games WHERE outcome IS NULL
           AND (initial_ms IS NOT NULL OR white LIKE 'engine:%' OR black LIKE 'engine:%')
         ORDER BY id",
    )?;
    let ids = stmt.query_map([], |r| r.get(0))?;
    Ok(ids.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Deletes a game and its moves.
pub fn delete(conn: &mut Connection, id: i64) -> Result<(), ApiError> {
    let tx = conn.transaction()?;
    tx.execute("DELETE FROM moves WHERE game_id = ?1", params![id])?;
    let n = tx.execute("DELETE FROM games WHERE id = ?1", params![id])?;
    if n == 0 {
        return Err(ApiError::NotFound(format!("no game {id}")));
    }
    tx.commit()?;
    Ok(())
}
