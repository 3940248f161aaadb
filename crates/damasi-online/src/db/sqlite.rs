//! Online play's storage in SQLite: `online.sqlite3` beside the saved games, in WAL mode, every
//! change one transaction.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::error::ApiError;

use super::{
    games_page_sql, GameFilter, GameRecord, GameSummary, LeaderRow, OnlineGameRow, OutsideAccount,
    RatedResult, RatingPoint, RatingRow, Relation, SecretKind, SecretRow, ShownEvent, ShownGame,
    UserRow, CLOSE_ACCOUNT_SQL, LEADERBOARD_SQL, MAKE_BOT_SQL, RECORD_SQL, RETIRED_NAME_SQL,
};
use crate::rating;

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

/// The SQLite store; cheap to clone.
#[derive(Clone)]
pub struct SqliteDb {
    conn: Arc<Mutex<Connection>>,
    /// A second, read-only connection to the same file, for the opening explorer's queries:
    /// they read while games are written (WAL), and never wait behind a game's move nor make
    /// one wait. None for a database in memory (the explorer reads through `conn`).
    reader: Option<Arc<Mutex<Connection>>>,
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
        let reader = Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .and_then(|r| r.busy_timeout(Duration::from_secs(5)).map(|()| r))
        .map_err(|e| format!("cannot open database {} to read: {e}", path.display()))?;
        db.reader = Some(Arc::new(Mutex::new(reader)));
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
            reader: None,
        })
    }

    /// Runs `f` on the read-only connection (the writing one for a database in memory).
    pub(super) async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        run_blocking(self.reader.clone().unwrap_or_else(|| self.conn.clone()), f).await
    }

    pub(super) async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        run_blocking(self.conn.clone(), f).await
    }

    /// Creates an account; refused (409 `name-taken`) when the name is in use.
    pub async fn create_user(
        &self,
        name: &str,
        password: Option<String>,
        guest: bool,
        now_ms: i64,
    ) -> Result<UserRow, ApiError> {
        let name = name.to_string();
        self.with(move |c| {
            let taken: bool = c
                .query_row("SELECT 1 FROM users WHERE name = ?1", [&name], |_| Ok(()))
                .optional()?
                .is_some();
            if taken {
                return Err(ApiError::conflict(
                    "name-taken",
                    format!("the name '{name}' is taken"),
                ));
            }
            c.execute(
                "INSERT INTO users (name, password, guest, created_ms) VALUES (?1, ?2, ?3, ?4)",
                params![name, password, guest, now_ms],
            )?;
            Ok(UserRow {
                id: c.last_insert_rowid(),
                name,
                password,
                guest,
                bot: false,
                closed_ms: None,
            })
        })
        .await
    }

    /// The account called `name` (any case).
    pub async fn user_by_name(&self, name: &str) -> Result<Option<UserRow>, ApiError> {
        let name = name.to_string();
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT id, name, password, guest, bot, closed_ms FROM users WHERE name = ?1",
                [name],
                user_row,
            )
            .optional()?)
        })
        .await
    }

    /// The account with id `id`.
    pub async fn user(&self, id: i64) -> Result<Option<UserRow>, ApiError> {
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT id, name, password, guest, bot, closed_ms FROM users WHERE id = ?1",
                [id],
                user_row,
            )
            .optional()?)
        })
        .await
    }

    pub(super) async fn close_user(
        &self,
        user: i64,
        retired: String,
        new_name: String,
        now_ms: i64,
    ) -> Result<(), ApiError> {
        self.with(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            for sql in CLOSE_ACCOUNT_SQL {
                let all: [&dyn rusqlite::ToSql; 4] = [&user, &retired, &new_name, &now_ms];
                let (sql, params) = super::only_used(sql, all);
                tx.execute(&numbered(&sql), params.as_slice())?;
            }
            tx.commit()?;
            Ok(())
        })
        .await
    }

    pub(super) async fn name_retired(&self, hash: String) -> Result<bool, ApiError> {
        self.with(move |c| {
            Ok(c.query_row(&numbered(RETIRED_NAME_SQL), [hash], |_| Ok(()))
                .optional()?
                .is_some())
        })
        .await
    }

    pub(super) async fn make_bot(&self, user: i64) -> Result<bool, ApiError> {
        self.with(move |c| {
            c.execute(&numbered(MAKE_BOT_SQL), [user])?;
            let bot: Option<bool> = c
                .query_row("SELECT bot FROM users WHERE id = ?1", [user], |r| r.get(0))
                .optional()?;
            Ok(bot == Some(true))
        })
        .await
    }

    /// Keeps the hash of a new secret of `user`.
    pub async fn add_secret(
        &self,
        user: i64,
        kind: SecretKind,
        hash: String,
        now_ms: i64,
    ) -> Result<(), ApiError> {
        self.with(move |c| {
            c.execute(
                "INSERT INTO secrets (hash, user_id, kind, created_ms) VALUES (?1, ?2, ?3, ?4)",
                params![hash, user, kind.as_str(), now_ms],
            )?;
            Ok(())
        })
        .await
    }

    /// The account a secret of `kind` with this hash belongs to, if issued at `not_before_ms`
    /// or later.
    pub async fn user_by_secret(
        &self,
        hash: String,
        kind: SecretKind,
        not_before_ms: i64,
    ) -> Result<Option<UserRow>, ApiError> {
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT u.id, u.name, u.password, u.guest, u.bot, u.closed_ms FROM secrets s \
                 JOIN users u ON u.id = s.user_id \
                 WHERE s.hash = ?1 AND s.kind = ?2 AND s.created_ms >= ?3",
                params![hash, kind.as_str(), not_before_ms],
                user_row,
            )
            .optional()?)
        })
        .await
    }

    /// `user`'s tokens and sessions issued at `sessions_since_ms` or later, newest first.
    pub async fn secrets_of(
        &self,
        user: i64,
        sessions_since_ms: i64,
    ) -> Result<Vec<SecretRow>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT hash, kind, created_ms FROM secrets WHERE user_id = ?1 \
                 AND (kind <> 'session' OR created_ms >= ?2) ORDER BY created_ms DESC, hash",
            )?;
            let rows = stmt.query_map(params![user, sessions_since_ms], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get(2)?))
            })?;
            let mut out = Vec::new();
            for row in rows {
                let (hash, kind, created_ms) = row?;
                if let Some(kind) = SecretKind::parse(&kind) {
                    out.push(SecretRow {
                        hash,
                        kind,
                        created_ms,
                    });
                }
            }
            Ok(out)
        })
        .await
    }

    /// Forgets `user`'s secrets whose hash starts with `prefix` (all without one), but `keep`.
    pub async fn revoke_secrets(
        &self,
        user: i64,
        prefix: Option<String>,
        keep: Option<String>,
    ) -> Result<u64, ApiError> {
        self.with(move |c| Ok(revoke(c, user, prefix.as_deref(), keep.as_deref())?))
            .await
    }

    /// Sets `user`'s password hash and forgets every secret of theirs but `keep`.
    pub async fn set_password(
        &self,
        user: i64,
        hash: String,
        keep: Option<String>,
    ) -> Result<u64, ApiError> {
        self.with(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute(
                "UPDATE users SET password = ?2 WHERE id = ?1",
                params![user, hash],
            )?;
            let n = revoke(&tx, user, None, keep.as_deref())?;
            tx.commit()?;
            Ok(n)
        })
        .await
    }

    /// Forgets the sessions issued before `before_ms`.
    pub async fn delete_expired_sessions(&self, before_ms: i64) -> Result<u64, ApiError> {
        self.with(move |c| {
            Ok(c.execute(
                "DELETE FROM secrets WHERE kind = 'session' AND created_ms < ?1",
                [before_ms],
            )? as u64)
        })
        .await
    }

    /// Ends game `id` with `outcome` if it is still open; whether it was.
    pub async fn withdraw_open(&self, id: &str, outcome: String) -> Result<bool, ApiError> {
        let id = id.to_string();
        self.with(move |c| {
            Ok(c.execute(
                "UPDATE online_games SET status = 'over', outcome = ?2, turn_started_ms = NULL \
                 WHERE id = ?1 AND status = 'open'",
                params![id, outcome],
            )? == 1)
        })
        .await
    }

    /// Ids of the open games created before `before_ms`.
    pub async fn open_before(&self, before_ms: i64) -> Result<Vec<String>, ApiError> {
        self.with(move |c| {
            let mut stmt =
                c.prepare("SELECT id FROM online_games WHERE status = 'open' AND created_ms < ?1")?;
            let ids = stmt
                .query_map([before_ms], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(ids)
        })
        .await
    }

    /// The open games that are challenges to `user` (oldest first).
    pub async fn challenges_to(&self, user: i64) -> Result<Vec<String>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT id FROM online_games WHERE status = 'open' AND invited_id = ?1 \
                 ORDER BY created_ms LIMIT 50",
            )?;
            let ids = stmt
                .query_map([user], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(ids)
        })
        .await
    }

    /// Forgets a secret (log-out).
    pub async fn delete_secret(&self, hash: String) -> Result<(), ApiError> {
        self.with(move |c| {
            c.execute("DELETE FROM secrets WHERE hash = ?1", [hash])?;
            Ok(())
        })
        .await
    }

    /// `user`'s rating in `speed`, if it has played there.
    pub async fn rating(&self, user: i64, speed: &str) -> Result<Option<RatingRow>, ApiError> {
        let speed = speed.to_string();
        self.with(move |c| Ok(read_rating(c, user, &speed)?)).await
    }

    /// All of `user`'s ratings, by speed class name.
    pub async fn ratings(&self, user: i64) -> Result<Vec<(String, RatingRow)>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT speed, rating, deviation, volatility, games FROM ratings WHERE user_id = ?1 ORDER BY speed",
            )?;
            let rows = stmt.query_map([user], |r| {
                Ok((
                    r.get(0)?,
                    RatingRow {
                        rating: r.get(1)?,
                        deviation: r.get(2)?,
                        volatility: r.get(3)?,
                        games: r.get(4)?,
                    },
                ))
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }

    /// Stores a new game, or its changed row (seats, status); its moves stay.
    pub async fn save_game(&self, g: OnlineGameRow) -> Result<(), ApiError> {
        self.with(move |c| {
            c.execute(
                &format!(
                    "INSERT INTO online_games ({GAME_COLUMNS}) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) \
                     ON CONFLICT (id) DO UPDATE SET {}",
                    super::upsert_set(GAME_COLUMNS)
                ),
                params![
                    g.id,
                    g.created_ms,
                    g.players[0],
                    g.players[1],
                    g.initial_ms,
                    g.increment_ms,
                    g.rated,
                    g.chat,
                    g.status,
                    g.outcome,
                    g.turn_started_ms,
                    g.diffs[0],
                    g.diffs[1],
                    g.invited,
                    g.rules.name(),
                    g.event,
                ],
            )?;
            Ok(())
        })
        .await
    }

    /// Appends ply `ply` to game `id` and records when the next turn began, committed before
    /// it answers; moves of several games arriving together share a transaction
    /// (`move_writer.rs`).
    pub async fn add_move(
        &self,
        id: &str,
        ply: usize,
        token: String,
        elapsed_ms: i64,
        turn_started_ms: i64,
    ) -> Result<(), ApiError> {
        self.moves
            .write(super::move_writer::MoveWrite {
                id: id.to_string(),
                ply: ply as i64,
                token,
                elapsed_ms,
                turn_started_ms,
            })
            .await
    }

    /// Drops the plies of game `id` from `ply` on (a takeback) and records when the turn began.
    pub async fn truncate_moves(
        &self,
        id: &str,
        ply: usize,
        turn_started_ms: i64,
    ) -> Result<(), ApiError> {
        let id = id.to_string();
        self.with(move |c| {
            let tx = c.transaction()?;
            tx.execute(
                "DELETE FROM online_moves WHERE game_id = ?1 AND ply >= ?2",
                params![id, ply as i64],
            )?;
            tx.execute(
                "UPDATE online_games SET turn_started_ms = ?2 WHERE id = ?1",
                params![id, turn_started_ms],
            )?;
            tx.commit()?;
            Ok(())
        })
        .await
    }

    /// Ends game `id` and updates the ratings in one immediate transaction (see
    /// [`OnlineDb::finish`](super::OnlineDb::finish)).
    pub async fn finish(
        &self,
        id: &str,
        outcome: String,
        rated: Option<RatedResult>,
    ) -> Result<[Option<i64>; 2], ApiError> {
        let id = id.to_string();
        self.with(move |c| {
            // IMMEDIATE takes the write lock before the ratings are read, so another process
            // on the same file cannot slip a rating change in between.
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let ended = tx.execute(
                "UPDATE online_games SET status = 'over', outcome = ?2, turn_started_ms = NULL \
                 WHERE id = ?1 AND status <> 'over'",
                params![id, outcome],
            )?;
            let mut diffs = [None, None];
            if let (1, Some(rated)) = (ended, rated) {
                let read = |user| {
                    read_rating(&tx, user, &rated.speed).map(|r| r.unwrap_or_else(rating::initial))
                };
                let (white, black) = (read(rated.white)?, read(rated.black)?);
                if let Some((nw, nb, d)) = rated.apply(&white, &black) {
                    for (user, r) in [(rated.white, nw), (rated.black, nb)] {
                        tx.execute(
                            "INSERT OR REPLACE INTO ratings (user_id, speed, rating, deviation, volatility, games) \
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                            params![user, rated.speed, r.rating, r.deviation, r.volatility, r.games],
                        )?;
                        tx.execute(
                            "INSERT INTO rating_history (user_id, speed, at_ms, rating) VALUES (?1, ?2, ?3, ?4)",
                            params![user, rated.speed, rated.at_ms, r.rating],
                        )?;
                    }
                    tx.execute(
                        "UPDATE online_games SET white_diff = ?2, black_diff = ?3 WHERE id = ?1",
                        params![id, d[0], d[1]],
                    )?;
                    diffs = d;
                }
            }
            tx.commit()?;
            Ok(diffs)
        })
        .await
    }

    /// Game `id` and its moves (token, thinking time in ms), if it exists.
    pub async fn game(
        &self,
        id: &str,
    ) -> Result<Option<(OnlineGameRow, Vec<(String, i64)>)>, ApiError> {
        let id = id.to_string();
        self.with(move |c| {
            let Some(row) = c
                .query_row(
                    &format!("SELECT {GAME_COLUMNS} FROM online_games WHERE id = ?1"),
                    [&id],
                    game_row,
                )
                .optional()?
            else {
                return Ok(None);
            };
            let mut stmt = c.prepare(
                "SELECT token, elapsed_ms FROM online_moves WHERE game_id = ?1 ORDER BY ply",
            )?;
            let moves = stmt
                .query_map([&id], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            Ok(Some((row, moves)))
        })
        .await
    }

    /// Those of `ids` that are over, with their outcomes.
    pub async fn ended_among(
        &self,
        ids: &[String],
    ) -> Result<Vec<(String, Option<String>)>, ApiError> {
        let ids = ids.to_vec();
        self.with(move |c| {
            let mut ended = Vec::new();
            // SQLite takes at most 32,766 parameters in one statement.
            for chunk in ids.chunks(500) {
                let marks = vec!["?"; chunk.len()].join(",");
                let mut stmt = c.prepare(&format!(
                    "SELECT id, outcome FROM online_games WHERE status = 'over' AND id IN ({marks})"
                ))?;
                let rows = stmt
                    .query_map(rusqlite::params_from_iter(chunk), |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })?
                    .collect::<Result<Vec<_>, _>>()?;
                ended.extend(rows);
            }
            Ok(ended)
        })
        .await
    }

    /// Ids of the games not over (to look after again after a restart).
    pub async fn unfinished(&self) -> Result<Vec<String>, ApiError> {
        self.with(|c| {
            let mut stmt = c.prepare("SELECT id FROM online_games WHERE status != 'over'")?;
            let ids = stmt
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(ids)
        })
        .await
    }

    /// The ids of the games `user` is playing now, newest first, at most `limit`.
    pub async fn playing_of(&self, user: i64, limit: i64) -> Result<Vec<String>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT id FROM online_games WHERE status = 'playing' \
                 AND (white_id = ?1 OR black_id = ?1) ORDER BY created_ms DESC LIMIT ?2",
            )?;
            let ids = stmt
                .query_map(params![user, limit], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(ids)
        })
        .await
    }

    /// The ids the account `user` is reached by from `service` (a Telegram user linked to
    /// it).
    pub async fn outside_ids_of(&self, service: &str, user: i64) -> Result<Vec<String>, ApiError> {
        let service = service.to_string();
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT outside_id FROM outside_accounts WHERE service = ?1 AND user_id = ?2 \
                 ORDER BY outside_id",
            )?;
            let ids = stmt
                .query_map(params![service, user], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(ids)
        })
        .await
    }

    /// `user`'s newest games, at most `limit`.
    pub async fn games_of(&self, user: i64, limit: i64) -> Result<Vec<GameSummary>, ApiError> {
        self.with(move |c| {
            let cols = GAME_COLUMNS
                .split(", ")
                .map(|col| format!("g.{col}"))
                .collect::<Vec<_>>()
                .join(", ");
            let mut stmt = c.prepare(&format!(
                "SELECT {cols}, w.name, b.name, \
                 (SELECT COUNT(*) FROM online_moves m WHERE m.game_id = g.id) \
                 FROM online_games g LEFT JOIN users w ON w.id = g.white_id \
                 LEFT JOIN users b ON b.id = g.black_id \
                 WHERE g.white_id = ?1 OR g.black_id = ?1 ORDER BY g.created_ms DESC LIMIT ?2"
            ))?;
            let rows = stmt.query_map(params![user, limit], |r| {
                Ok(GameSummary {
                    row: game_row(r)?,
                    names: [r.get(16)?, r.get(17)?],
                    plies: r.get(18)?,
                })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }
}

/// Deletes `user`'s secrets whose hash starts with `prefix` (all without one), but `keep`.
fn revoke(
    c: &Connection,
    user: i64,
    prefix: Option<&str>,
    keep: Option<&str>,
) -> rusqlite::Result<u64> {
    Ok(c.execute(
        "DELETE FROM secrets WHERE user_id = ?1 \
         AND (?2 IS NULL OR substr(hash, 1, length(?2)) = ?2) \
         AND (?3 IS NULL OR hash <> ?3)",
        params![user, prefix, keep],
    )? as u64)
}

fn read_rating(c: &Connection, user: i64, speed: &str) -> rusqlite::Result<Option<RatingRow>> {
    c.query_row(
        "SELECT rating, deviation, volatility, games FROM ratings WHERE user_id = ?1 AND speed = ?2",
        params![user, speed],
        |r| {
            Ok(RatingRow {
                rating: r.get(0)?,
                deviation: r.get(1)?,
                volatility: r.get(2)?,
                games: r.get(3)?,
            })
        },
    )
    .optional()
}

impl SqliteDb {
    pub(super) async fn outside_account(
        &self,
        service: &str,
        outside_id: &str,
    ) -> Result<Option<OutsideAccount>, ApiError> {
        let (service, outside_id) = (service.to_string(), outside_id.to_string());
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT u.id, u.name, u.password, u.guest, o.settings, u.bot, u.closed_ms FROM outside_accounts o \
                 JOIN users u ON u.id = o.user_id WHERE o.service = ?1 AND o.outside_id = ?2",
                params![service, outside_id],
                |r| {
                    Ok(OutsideAccount {
                        user: user_row(r)?,
                        settings: r.get(4)?,
                    })
                },
            )
            .optional()?)
        })
        .await
    }

    pub(super) async fn set_outside_account(
        &self,
        service: &str,
        outside_id: &str,
        user: i64,
        settings: &str,
    ) -> Result<(), ApiError> {
        let (service, outside_id, settings) = (
            service.to_string(),
            outside_id.to_string(),
            settings.to_string(),
        );
        self.with(move |c| {
            c.execute(
                "INSERT INTO outside_accounts (service, outside_id, user_id, settings) \
                 VALUES (?1, ?2, ?3, ?4) ON CONFLICT (service, outside_id) \
                 DO UPDATE SET user_id = excluded.user_id, settings = excluded.settings",
                params![service, outside_id, user, settings],
            )?;
            Ok(())
        })
        .await
    }

    pub(super) async fn delete_outside_accounts(
        &self,
        service: &str,
        user: i64,
        outside_id: Option<&str>,
    ) -> Result<u64, ApiError> {
        let (service, outside_id) = (service.to_string(), outside_id.map(str::to_string));
        self.with(move |c| {
            Ok(c.execute(
                "DELETE FROM outside_accounts WHERE service = ?1 AND user_id = ?2 \
                 AND (?3 IS NULL OR outside_id = ?3)",
                params![service, user, outside_id],
            )? as u64)
        })
        .await
    }

    pub(super) async fn shown_game(&self, message: &str) -> Result<Option<ShownGame>, ApiError> {
        let message = message.to_string();
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT message, game_id, settings FROM shown_games WHERE message = ?1",
                [message],
                shown_row,
            )
            .optional()?)
        })
        .await
    }

    pub(super) async fn shown_event(&self, message: &str) -> Result<Option<ShownEvent>, ApiError> {
        let message = message.to_string();
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT message, tournament_id, settings FROM shown_events WHERE message = ?1",
                [message],
                event_row,
            )
            .optional()?)
        })
        .await
    }

    pub(super) async fn add_shown_event(&self, shown: ShownEvent) -> Result<(), ApiError> {
        self.with(move |c| {
            let n = c.execute(
                "INSERT INTO shown_events (message, tournament_id, settings) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (message) DO NOTHING",
                params![shown.message, shown.tournament_id, shown.settings],
            )?;
            if n == 0 {
                return Err(ApiError::conflict(
                    "message-taken",
                    "this message already shows a tournament",
                ));
            }
            Ok(())
        })
        .await
    }

    pub(super) async fn shown_events(&self, prefix: &str) -> Result<Vec<ShownEvent>, ApiError> {
        let pattern = like_prefix(prefix);
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT message, tournament_id, settings FROM shown_events \
                 WHERE message LIKE ?1 ESCAPE '\\'",
            )?;
            let rows = stmt
                .query_map([pattern], event_row)?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .await
    }

    pub(super) async fn add_shown_game(&self, shown: ShownGame) -> Result<(), ApiError> {
        self.with(move |c| {
            let n = c.execute(
                "INSERT INTO shown_games (message, game_id, settings) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (message) DO NOTHING",
                params![shown.message, shown.game_id, shown.settings],
            )?;
            if n == 0 {
                return Err(ApiError::conflict(
                    "message-taken",
                    "this message already shows a game",
                ));
            }
            Ok(())
        })
        .await
    }

    pub(super) async fn shown_unfinished(&self, prefix: &str) -> Result<Vec<ShownGame>, ApiError> {
        let pattern = like_prefix(prefix);
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT s.message, s.game_id, s.settings FROM shown_games s \
                 JOIN online_games g ON g.id = s.game_id \
                 WHERE g.status != 'over' AND s.message LIKE ?1 ESCAPE '\\'",
            )?;
            let rows = stmt
                .query_map([pattern], shown_row)?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .await
    }
}

/// `sql` written for PostgreSQL's numbered parameters (`$1`) in SQLite's (`?1`).
fn numbered(sql: &str) -> String {
    sql.replace('$', "?")
}

impl SqliteDb {
    pub(super) async fn set_relation(
        &self,
        from: i64,
        to: i64,
        relation: Relation,
        now_ms: i64,
    ) -> Result<(), ApiError> {
        self.with(move |c| {
            c.execute(
                "INSERT INTO relations (from_id, to_id, kind, created_ms) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (from_id, to_id) DO UPDATE SET kind = excluded.kind, \
                 created_ms = excluded.created_ms",
                params![from, to, relation.as_str(), now_ms],
            )?;
            Ok(())
        })
        .await
    }

    pub(super) async fn clear_relation(
        &self,
        from: i64,
        to: i64,
        relation: Relation,
    ) -> Result<(), ApiError> {
        self.with(move |c| {
            c.execute(
                "DELETE FROM relations WHERE from_id = ?1 AND to_id = ?2 AND kind = ?3",
                params![from, to, relation.as_str()],
            )?;
            Ok(())
        })
        .await
    }

    pub(super) async fn relation(&self, from: i64, to: i64) -> Result<Option<Relation>, ApiError> {
        self.with(move |c| {
            let kind: Option<String> = c
                .query_row(
                    "SELECT kind FROM relations WHERE from_id = ?1 AND to_id = ?2",
                    params![from, to],
                    |r| r.get(0),
                )
                .optional()?;
            Ok(kind.as_deref().and_then(Relation::parse))
        })
        .await
    }

    pub(super) async fn related(
        &self,
        from: i64,
        relation: Relation,
        limit: i64,
    ) -> Result<Vec<UserRow>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT u.id, u.name, u.password, u.guest, u.bot, u.closed_ms FROM relations r \
                 JOIN users u ON u.id = r.to_id WHERE r.from_id = ?1 AND r.kind = ?2 \
                 ORDER BY lower(u.name) LIMIT ?3",
            )?;
            let rows = stmt
                .query_map(params![from, relation.as_str(), limit], user_row)?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .await
    }

    pub(super) async fn rating_history(&self, user: i64) -> Result<Vec<RatingPoint>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT speed, at_ms, rating FROM rating_history WHERE user_id = ?1 ORDER BY id",
            )?;
            let rows = stmt
                .query_map([user], |r| {
                    Ok(RatingPoint {
                        speed: r.get(0)?,
                        at_ms: r.get(1)?,
                        rating: r.get(2)?,
                    })
                })?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .await
    }

    pub(super) async fn leaderboard(
        &self,
        speed: &str,
        max_deviation: f64,
        active_since_ms: i64,
        limit: i64,
    ) -> Result<Vec<LeaderRow>, ApiError> {
        let speed = speed.to_string();
        self.with(move |c| {
            let mut stmt = c.prepare(&numbered(LEADERBOARD_SQL))?;
            let rows = stmt
                .query_map(params![speed, max_deviation, active_since_ms, limit], |r| {
                    Ok(LeaderRow {
                        user: user_row(r)?,
                        rating: RatingRow {
                            rating: r.get(4)?,
                            deviation: r.get(5)?,
                            volatility: r.get(6)?,
                            games: r.get(7)?,
                        },
                        before: r.get(8)?,
                    })
                })?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .await
    }

    pub(super) async fn record(&self, user: i64) -> Result<GameRecord, ApiError> {
        self.with(move |c| {
            Ok(c.query_row(&numbered(RECORD_SQL), [user], |r| {
                Ok(GameRecord {
                    all: r.get(0)?,
                    wins: r.get(1)?,
                    draws: r.get(2)?,
                    losses: r.get(3)?,
                    rated: r.get(4)?,
                })
            })?)
        })
        .await
    }

    pub(super) async fn games_page(
        &self,
        user: i64,
        filter: GameFilter,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<GameSummary>, i64), ApiError> {
        self.with(move |c| {
            let (page, count) = games_page_sql(&filter);
            let mut stmt = c.prepare(&numbered(&page))?;
            let games = stmt
                .query_map(params![user, limit, offset], |r| {
                    Ok(GameSummary {
                        row: game_row(r)?,
                        names: [r.get(16)?, r.get(17)?],
                        plies: r.get(18)?,
                    })
                })?
                .collect::<Result<_, _>>()?;
            let total = c.query_row(&numbered(&count), [user], |r| r.get(0))?;
            Ok((games, total))
        })
        .await
    }
}

/// The LIKE pattern (for `ESCAPE` with a backslash) of the texts that begin with `prefix`:
/// its `%`, `_` and backslashes taken as themselves.
fn like_prefix(prefix: &str) -> String {
    let escaped = prefix
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("{escaped}%")
}

fn event_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ShownEvent> {
    Ok(ShownEvent {
        message: r.get(0)?,
        tournament_id: r.get(1)?,
        settings: r.get(2)?,
    })
}

fn shown_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ShownGame> {
    Ok(ShownGame {
        message: r.get(0)?,
        game_id: r.get(1)?,
        settings: r.get(2)?,
    })
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
        let db = super::super::OnlineDb::Sqlite(SqliteDb::init(conn).unwrap());
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
