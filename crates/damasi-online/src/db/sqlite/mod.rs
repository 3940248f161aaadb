//! Online play's storage in SQLite: `online.sqlite3` beside the saved games, in WAL mode, every
//! change one transaction. The store's accounts are in `accounts.rs`, its games in
//! `games.rs`, its other areas in the area files beside this folder (`db/events.rs`, ...).

mod accounts;
mod games;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::time::Duration;

use rusqlite::Connection;

use crate::error::ApiError;

use super::{OnlineGameRow, UserRow};

/// The schema version this code writes (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 9;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password TEXT,
    guest INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL,
    bot INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS secrets (
    hash TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    created_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ratings (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    speed TEXT NOT NULL,
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (user_id, speed)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS online_games (
    id TEXT PRIMARY KEY,
    created_ms INTEGER NOT NULL,
    white_id INTEGER REFERENCES users(id),
    black_id INTEGER REFERENCES users(id),
    initial_ms INTEGER NOT NULL,
    increment_ms INTEGER NOT NULL,
    rated INTEGER NOT NULL,
    chat INTEGER NOT NULL,
    status TEXT NOT NULL,
    outcome TEXT,
    turn_started_ms INTEGER,
    white_diff INTEGER,
    black_diff INTEGER,
    invited_id INTEGER REFERENCES users(id),
    rules TEXT NOT NULL DEFAULT 'turkish',
    event TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS secrets_user ON secrets(user_id);
CREATE INDEX IF NOT EXISTS online_games_status ON online_games(status);
CREATE INDEX IF NOT EXISTS online_games_white ON online_games(white_id);
CREATE INDEX IF NOT EXISTS online_games_black ON online_games(black_id);
CREATE TABLE IF NOT EXISTS online_moves (
    game_id TEXT NOT NULL REFERENCES online_games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    token TEXT NOT NULL,
    elapsed_ms INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outside_accounts (
    service TEXT NOT NULL,
    outside_id TEXT NOT NULL,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    settings TEXT NOT NULL,
    PRIMARY KEY (service, outside_id)
);
CREATE TABLE IF NOT EXISTS shown_games (
    message TEXT PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES online_games(id) ON DELETE CASCADE,
    settings TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS shown_events (
    message TEXT PRIMARY KEY,
    tournament_id TEXT NOT NULL,
    settings TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rating_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    speed TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    rating REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS rating_history_user ON rating_history(user_id, speed, at_ms);
CREATE TABLE IF NOT EXISTS relations (
    from_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    to_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (from_id, to_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS relations_to ON relations(to_id);
CREATE TABLE IF NOT EXISTS retired_names (
    hash TEXT PRIMARY KEY
) WITHOUT ROWID;
";

/// How many read-only connections a database on disk keeps: a few, so that one long read
/// (an explorer query over many games) does not hold up the lookups of sessions behind it.
pub const READERS: usize = 4;

/// The SQLite store; cheap to clone.
#[derive(Clone)]
pub struct SqliteDb {
    conn: Arc<Mutex<Connection>>,
    /// Read-only connections to the same file ([`READERS`]), for the opening explorer's
    /// queries and the lookup of a session's owner: they read while games are written (WAL),
    /// never wait behind a game's move nor make one wait, and a long read holds up only its
    /// own connection. Empty for a database in memory (reads go through `conn`).
    readers: Arc<[Mutex<Connection>]>,
    /// Where the next read starts looking for a free reader.
    next_reader: Arc<AtomicUsize>,
    /// The writer of moves, many games' together (group commit).
    moves: super::move_writer::MoveWriter,
}

const GAME_COLUMNS: &str = "id, created_ms, white_id, black_id, initial_ms, increment_ms, rated, \
    chat, status, outcome, turn_started_ms, white_diff, black_diff, invited_id, rules, event";

fn game_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<OnlineGameRow> {
    Ok(OnlineGameRow {
        id: r.get(0)?,
        created_ms: r.get(1)?,
        players: [r.get(2)?, r.get(3)?],
        initial_ms: r.get(4)?,
        increment_ms: r.get(5)?,
        rated: r.get(6)?,
        chat: r.get(7)?,
        status: r.get(8)?,
        outcome: r.get(9)?,
        turn_started_ms: r.get(10)?,
        diffs: [r.get(11)?, r.get(12)?],
        invited: r.get(13)?,
        rules: {
            let id: String = r.get(0)?;
            let name: String = r.get(14)?;
            super::stored_rules(&id, &name).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(14, rusqlite::types::Type::Text, e.into())
            })?
        },
        event: r.get(15)?,
    })
}

/// Adds column `name` (`definition`) to `table` unless it is there already.
pub(super) fn add_column(
    conn: &Connection,
    table: &str,
    name: &str,
    definition: &str,
) -> rusqlite::Result<()> {
    let there: i64 = conn.query_row(
        "SELECT COUNT(*) FROM pragma_table_info(?1) WHERE name = ?2",
        [table, name],
        |r| r.get(0),
    )?;
    if there == 0 {
        conn.execute_batch(&format!(
            "ALTER TABLE {table} ADD COLUMN {name} {definition}"
        ))?;
    }
    Ok(())
}

fn user_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<UserRow> {
    Ok(UserRow {
        id: r.get(0)?,
        name: r.get(1)?,
        password: r.get(2)?,
        guest: r.get(3)?,
        bot: r.get("bot")?,
        closed_ms: r.get("closed_ms")?,
    })
}

impl SqliteDb {
    /// Opens (creating if needed) `online.sqlite3` in `dir`.
    pub fn open(dir: &Path) -> Result<SqliteDb, String> {
        let (conn, path) = open_in(dir, "online.sqlite3")?;
        let mut db = SqliteDb::init(conn)
            .map_err(|e| format!("cannot set up database {}: {e}", path.display()))?;
        let readers = (0..READERS)
            .map(|_| {
                Connection::open_with_flags(
                    &path,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                        | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .and_then(|r| {
                    r.busy_timeout(Duration::from_secs(5))
                        .map(|()| Mutex::new(r))
                })
                .map_err(|e| format!("cannot open database {} to read: {e}", path.display()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        db.readers = readers.into();
        Ok(db)
    }

    /// A database in memory, for tests.
    pub fn in_memory() -> SqliteDb {
        SqliteDb::init(Connection::open_in_memory().expect("an in-memory database opens"))
            .expect("the schema applies to an empty database")
    }

    fn init(conn: Connection) -> Result<SqliteDb, String> {
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
        conn.execute_batch(SCHEMA).map_err(e)?;
        conn.execute_batch(super::events::SQLITE_SCHEMA)
            .map_err(e)?;
        conn.execute_batch(super::explorer::SQLITE_SCHEMA)
            .map_err(e)?;
        conn.execute_batch(super::moderation::SQLITE_SCHEMA)
            .map_err(e)?;
        if version == 1 {
            // Schema 2: the account a direct challenge was sent to.
            conn.execute_batch(
                "ALTER TABLE online_games ADD COLUMN invited_id INTEGER REFERENCES users(id)",
            )
            .map_err(e)?;
        }
        // Schema 4: the rules each game is played under; the games stored before are the
        // federation's (looked up by column, so any older schema gets it once).
        add_column(
            &conn,
            "online_games",
            "rules",
            "TEXT NOT NULL DEFAULT 'turkish'",
        )
        .map_err(e)?;
        // Schema 5: the tournament that paired a game.
        add_column(&conn, "online_games", "event", "TEXT").map_err(e)?;
        // Schema 6: BOT accounts (lichess's Bot API).
        add_column(&conn, "users", "bot", "INTEGER NOT NULL DEFAULT 0").map_err(e)?;
        // Schema 7: closed accounts (the names they had are kept out of use), and accounts'
        // e-mail addresses (`db/mail.rs`).
        add_column(&conn, "users", "closed_ms", "INTEGER").map_err(e)?;
        super::mail::sqlite_migrate(&conn).map_err(e)?;
        // Schema 8: second factors and API tokens' scopes (`db/two_factor.rs`).
        super::two_factor::sqlite_migrate(&conn).map_err(e)?;
        // Schema 9: reports from the fair-play screen (no reporter), and its scores
        // (`db/fair_play.rs`).
        super::moderation::sqlite_migrate(&conn).map_err(e)?;
        super::fair_play::sqlite_migrate(&conn).map_err(e)?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(e)?;
        let conn = Arc::new(Mutex::new(conn));
        Ok(SqliteDb {
            moves: super::move_writer::MoveWriter::new(conn.clone()),
            conn,
            readers: Arc::new([]),
            next_reader: Arc::default(),
        })
    }

    /// Runs `f` on a free read-only connection, or waits for one in turn when all are busy
    /// (on the writing one for a database in memory).
    pub(super) async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        if self.readers.is_empty() {
            return run_blocking(self.conn.clone(), f).await;
        }
        let readers = self.readers.clone();
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        tokio::task::spawn_blocking(move || {
            let n = readers.len();
            // As in `run_blocking`, a poisoned lock is safe to reuse.
            let free = (0..n).find_map(|i| match readers[(start + i) % n].try_lock() {
                Ok(guard) => Some(guard),
                Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
                Err(TryLockError::WouldBlock) => None,
            });
            let mut guard = free
                .unwrap_or_else(|| readers[start % n].lock().unwrap_or_else(|p| p.into_inner()));
            f(&mut guard)
        })
        .await?
    }

    pub(super) async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        run_blocking(self.conn.clone(), f).await
    }
}

/// `sql` written for PostgreSQL's numbered parameters (`$1`) in SQLite's (`?1`).
fn numbered(sql: &str) -> String {
    sql.replace('$', "?")
}

/// Opens (creating the directory and the file if needed) the SQLite database `name` in
/// `dir`; answers it and its path, or an error that names the path.
pub fn open_in(dir: &Path, name: &str) -> Result<(Connection, PathBuf), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create data directory {}: {e}", dir.display()))?;
    let path = dir.join(name);
    let conn = Connection::open(&path)
        .map_err(|e| format!("cannot open database {}: {e}", path.display()))?;
    Ok((conn, path))
}

/// Runs `f` with the connection behind `conn` on a blocking thread.
pub async fn run_blocking<T: Send + 'static>(
    conn: Arc<Mutex<Connection>>,
    f: impl FnOnce(&mut Connection) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(move || {
        // A panic in an earlier request cannot leave a half-done change behind (every change
        // is a transaction, rolled back when dropped), so a poisoned lock is safe to reuse.
        let mut guard = conn.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    })
    .await?
}

/// Sets the pragmas every damasi database uses: WAL (readers never block the writer and a
/// crash mid-write leaves the last committed state; synchronous=NORMAL is durable across
/// application crashes in WAL mode), foreign keys, and a busy timeout.
pub fn set_pragmas(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(Duration::from_secs(5))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{AccountStore, GameStore, SecretKind, ShownGame};

    fn count_users(c: &mut Connection) -> Result<i64, ApiError> {
        Ok(c.query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))?)
    }

    /// A long read holds up only its own connection: while all readers but one are busy,
    /// reads (the lookup of a session's owner among them) go on through the free one; once
    /// every reader is busy, a read waits its turn and answers when one is given back.
    #[tokio::test]
    async fn a_long_read_holds_up_only_its_own_connection() {
        let dir = std::env::temp_dir().join(format!("damasi-readers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let db = SqliteDb::open(&dir).unwrap();
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = Arc::new(Mutex::new(wait));
        let (started, mut began) = tokio::sync::mpsc::channel::<()>(READERS);
        // A long read, until it is told to end.
        let long_read = |db: &SqliteDb| {
            let (db, wait, started) = (db.clone(), wait.clone(), started.clone());
            tokio::spawn(async move {
                db.read(move |c| {
                    started.blocking_send(()).unwrap();
                    wait.lock().unwrap().recv().unwrap();
                    count_users(c)
                })
                .await
            })
        };
        let mut long: Vec<_> = (0..READERS - 1).map(|_| long_read(&db)).collect();
        for _ in 0..READERS - 1 {
            began.recv().await.unwrap();
        }
        for _ in 0..3 * READERS {
            let n = tokio::time::timeout(Duration::from_secs(10), db.read(count_users))
                .await
                .expect("a read with a reader free does not wait for the long ones")
                .unwrap();
            assert_eq!(n, 0);
            let owner = tokio::time::timeout(
                Duration::from_secs(10),
                db.user_by_secret("no such hash".into(), SecretKind::Session, 0),
            )
            .await
            .expect("a session's lookup does not wait for the long reads")
            .unwrap();
            assert!(owner.is_none());
        }
        // Every reader busy: a read waits, then answers.
        long.push(long_read(&db));
        began.recv().await.unwrap();
        let waiting = tokio::spawn({
            let db = db.clone();
            async move { db.read(count_users).await }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!waiting.is_finished(), "no reader was free");
        for _ in 0..READERS {
            release.send(()).unwrap();
        }
        assert_eq!(waiting.await.unwrap().unwrap(), 0);
        for l in long {
            assert_eq!(l.await.unwrap().unwrap(), 0);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Saving a game's row again (a seat taken, the game started) keeps what refers to it:
    /// its moves and the message showing it. (SQLite's `INSERT OR REPLACE` deleted the row
    /// first, and the foreign keys' cascade took the moves with it.)
    #[tokio::test]
    async fn saving_a_game_again_keeps_its_moves_and_messages() {
        let conn = Connection::open_in_memory().unwrap();
        set_pragmas(&conn).unwrap();
        let db = SqliteDb::init(conn).unwrap();
        let mut row = OnlineGameRow {
            id: "keptgame".into(),
            created_ms: 1,
            players: [None, None],
            initial_ms: 300_000,
            increment_ms: 2_000,
            rated: false,
            chat: true,
            status: "open".into(),
            outcome: None,
            turn_started_ms: None,
            diffs: [None, None],
            invited: None,
            rules: damasi::RuleSet::default(),
            event: None,
        };
        db.save_game(row.clone()).await.unwrap();
        db.add_shown_game(ShownGame {
            message: "tg:inline1".into(),
            game_id: "keptgame".into(),
            settings: "{}".into(),
        })
        .await
        .unwrap();
        db.add_move("keptgame", 0, "c3-c4".into(), 0, 10)
            .await
            .unwrap();
        db.add_move("keptgame", 1, "f6-f5".into(), 0, 20)
            .await
            .unwrap();
        row.status = "playing".into();
        row.turn_started_ms = Some(20);
        db.save_game(row.clone()).await.unwrap();
        let (stored, moves) = db.game("keptgame").await.unwrap().unwrap();
        assert_eq!(stored, row);
        assert_eq!(moves.len(), 2, "the moves survive a second save");
        let shown = db.shown_game("tg:inline1").await.unwrap();
        assert_eq!(shown.map(|s| s.game_id).as_deref(), Some("keptgame"));
    }

    /// A database of schema 3, before games had rules: opened by this code, it gets the
    /// column, and the games stored before are the federation's.
    #[tokio::test]
    async fn games_stored_before_the_rules_column_read_as_the_default() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT,
                 name TEXT NOT NULL UNIQUE COLLATE NOCASE, password TEXT,
                 guest INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL);
             CREATE TABLE online_games (id TEXT PRIMARY KEY, created_ms INTEGER NOT NULL,
                 white_id INTEGER REFERENCES users(id), black_id INTEGER REFERENCES users(id),
                 initial_ms INTEGER NOT NULL, increment_ms INTEGER NOT NULL,
                 rated INTEGER NOT NULL, chat INTEGER NOT NULL, status TEXT NOT NULL,
                 outcome TEXT, turn_started_ms INTEGER, white_diff INTEGER,
                 black_diff INTEGER, invited_id INTEGER REFERENCES users(id)) WITHOUT ROWID;
             INSERT INTO online_games (id, created_ms, initial_ms, increment_ms, rated, chat, status)
                 VALUES ('oldgame1', 1, 300000, 2000, 1, 1, 'open');
             PRAGMA user_version = 3;",
        )
        .unwrap();
        let db = SqliteDb::init(conn).unwrap();
        let (row, moves) = db.game("oldgame1").await.unwrap().unwrap();
        assert_eq!(row.rules, damasi::RuleSet::default());
        assert!(moves.is_empty());
        // A game saved now keeps its rules; a damaged name is an error, not the default.
        let mut kept = row.clone();
        kept.id = "newgame1".into();
        kept.rules = damasi::RuleSet::from_name("turkish; king-beats-lone-man").unwrap();
        db.save_game(kept.clone()).await.unwrap();
        assert_eq!(db.game("newgame1").await.unwrap().unwrap().0, kept);
        db.with(|c| {
            c.execute(
                "UPDATE online_games SET rules = 'chess' WHERE id = 'oldgame1'",
                [],
            )?;
            Ok(())
        })
        .await
        .unwrap();
        assert!(db.game("oldgame1").await.is_err());
    }

    /// A database of schema 8, whose reports all had a reporter: opened by this code, its
    /// reports are kept as they were, and a report with none (the fair-play screen's) is
    /// stored beside them.
    #[tokio::test]
    async fn reports_of_schema_8_are_kept_and_may_then_have_no_reporter() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        conn.execute_batch(
            "CREATE TABLE reports (id INTEGER PRIMARY KEY AUTOINCREMENT,
                 created_ms INTEGER NOT NULL,
                 reporter_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                 reported_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                 game_id TEXT, reason TEXT NOT NULL, note TEXT NOT NULL,
                 evidence TEXT NOT NULL, closed_ms INTEGER);
             INSERT INTO users (name, created_ms) VALUES ('ayse', 1), ('bora', 1);
             INSERT INTO reports (created_ms, reporter_id, reported_id, reason, note, evidence)
                 VALUES (5, 1, 2, 'insults', 'rude', '{}');
             PRAGMA user_version = 8;",
        )
        .unwrap();
        let db = super::super::OnlineDb::from(SqliteDb::init(conn).unwrap());
        let old = db.reports(true, Some(2), 10).await.unwrap();
        assert_eq!(old.len(), 1);
        assert_eq!(
            (
                old[0].id,
                old[0].reporter,
                old[0].reason.as_str(),
                old[0].note.as_str()
            ),
            (1, Some(1), "insults", "rude")
        );
        let mut screen = old[0].clone();
        screen.reporter = None;
        screen.reason = "cheating".into();
        let id = db.add_report(screen).await.unwrap();
        assert_eq!(id, 2);
        let now = db.reports(true, Some(2), 10).await.unwrap();
        assert_eq!(
            now.iter().map(|r| r.reporter).collect::<Vec<_>>(),
            [Some(1), None]
        );
    }
}
