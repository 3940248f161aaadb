//! Saved games in an embedded SQLite database. The file is opened in WAL mode and every change
//! is one transaction, so a crash or a kill at any moment leaves a consistent file.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;

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
}

/// Clock settings and the time left on each side, in milliseconds.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time each side starts with.
    pub initial_ms: u64,
    /// Time added after each move.
    pub increment_ms: u64,
    /// White's time left.
    pub white_ms: u64,
    /// Black's time left.
    pub black_ms: u64,
}

/// One saved game as stored.
#[derive(Clone, Debug)]
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
    /// The moves, as [`crate::record::Record::to_tokens`] writes them.
    pub moves: String,
    /// PDN result when ended by resignation, agreement or time (`*` otherwise).
    pub result: String,
    /// Why it ended that way, e.g. "White resigns: Black wins".
    pub reason: String,
    /// The clocks, if the game is timed.
    pub clock: Option<Clock>,
    /// PDN tags kept from an imported record (JSON object of strings), for export.
    pub tags: String,
    /// The rule set's name (`turkish`, `turkish; no-capture-limit 50`).
    pub rules: String,
}

/// The database of saved games; cheap to clone.
#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL DEFAULT (datetime('now')),
    updated TEXT NOT NULL DEFAULT (datetime('now')),
    white TEXT NOT NULL,
    black TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    moves TEXT NOT NULL DEFAULT '',
    result TEXT NOT NULL DEFAULT '*',
    reason TEXT NOT NULL DEFAULT '',
    clock TEXT,
    tags TEXT NOT NULL DEFAULT '{}',
    rules TEXT NOT NULL DEFAULT 'turkish'
);
CREATE INDEX IF NOT EXISTS games_updated ON games(updated);
";

impl Store {
    /// Opens (creating if needed) `games.sqlite3` in `dir`.
    pub fn open(dir: &Path) -> Result<Store, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create data directory {}: {e}", dir.display()))?;
        let path = dir.join("games.sqlite3");
        let conn = Connection::open(&path)
            .map_err(|e| format!("cannot open database {}: {e}", path.display()))?;
        Store::init(conn).map_err(|e| format!("cannot set up database {}: {e}", path.display()))
    }

    /// A database in memory, for tests.
    pub fn in_memory() -> Store {
        Store::init(Connection::open_in_memory().expect("an in-memory database opens"))
            .expect("the schema applies to an empty database")
    }

    fn init(conn: Connection) -> rusqlite::Result<Store> {
        // WAL: readers never block the writer and a crash mid-write leaves the last committed
        // state; synchronous=NORMAL is durable across application crashes in WAL mode.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        Ok(Store {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// Runs `f` with the connection on a blocking thread.
    pub async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            // A panic in an earlier request cannot leave a half-done change behind (every change
            // is a transaction, rolled back when dropped), so a poisoned lock is safe to reuse.
            let mut guard = conn.lock().unwrap_or_else(|p| p.into_inner());
            f(&mut guard)
        })
        .await?
    }
}

/// Inserts a new game and returns its id.
pub fn insert(conn: &mut Connection, g: &GameRow) -> Result<i64, ApiError> {
    let tx = conn.transaction()?;
    let id = insert_in(&tx, g)?;
    tx.commit()?;
    Ok(id)
}

/// Inserts a new game inside the caller's transaction (an import saves all its games or none).
pub fn insert_in(tx: &rusqlite::Transaction<'_>, g: &GameRow) -> Result<i64, ApiError> {
    tx.execute(
        "INSERT INTO games (white, black, start_fen, moves, result, reason, clock, tags, rules)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            g.white.to_db(),
            g.black.to_db(),
            g.start_fen,
            g.moves,
            g.result,
            g.reason,
            clock_to_db(&g.clock),
            g.tags,
            g.rules
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

/// Saves the moves, result and clock of an existing game.
pub fn update(conn: &mut Connection, g: &GameRow) -> Result<(), ApiError> {
    let tx = conn.transaction()?;
    let n = tx.execute(
        "UPDATE games SET moves = ?2, result = ?3, reason = ?4, clock = ?5,
                updated = datetime('now') WHERE id = ?1",
        params![g.id, g.moves, g.result, g.reason, clock_to_db(&g.clock)],
    )?;
    tx.commit()?;
    if n == 0 {
        return Err(ApiError::NotFound(format!("no game {}", g.id)));
    }
    Ok(())
}

/// Loads a game.
pub fn get(conn: &Connection, id: i64) -> Result<GameRow, ApiError> {
    conn.query_row(
        "SELECT id, created, updated, white, black, start_fen, moves, result, reason, clock, tags, rules
         FROM games WHERE id = ?1",
        params![id],
        row_to_game,
    )
    .optional()?
    .ok_or_else(|| ApiError::NotFound(format!("no game {id}")))
}

/// All games, most recently changed first.
pub fn list(conn: &Connection) -> Result<Vec<GameRow>, ApiError> {
    let mut stmt = conn.prepare(
        "SELECT id, created, updated, white, black, start_fen, moves, result, reason, clock, tags, rules
         FROM games ORDER BY updated DESC, id DESC LIMIT 500",
    )?;
    let rows = stmt.query_map([], row_to_game)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Deletes a game.
pub fn delete(conn: &mut Connection, id: i64) -> Result<(), ApiError> {
    let n = conn.execute("DELETE FROM games WHERE id = ?1", params![id])?;
    if n == 0 {
        return Err(ApiError::NotFound(format!("no game {id}")));
    }
    Ok(())
}

fn clock_to_db(c: &Option<Clock>) -> Option<String> {
    c.as_ref().and_then(|c| serde_json::to_string(c).ok())
}

fn row_to_game(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
    let clock: Option<String> = r.get(9)?;
    Ok(GameRow {
        id: r.get(0)?,
        created: r.get(1)?,
        updated: r.get(2)?,
        white: Player::from_db(&r.get::<_, String>(3)?),
        black: Player::from_db(&r.get::<_, String>(4)?),
        start_fen: r.get(5)?,
        moves: r.get(6)?,
        result: r.get(7)?,
        reason: r.get(8)?,
        clock: clock.and_then(|c| serde_json::from_str(&c).ok()),
        tags: r.get(10)?,
        rules: r.get(11)?,
    })
}
