//! Stored moderation: who moderates (`roles`), what is held against an account now (`marks`:
//! an engine mark, a chat mute until a time), the players' reports with their evidence, the
//! log of every moderator's action, and the rating refunds made to the opponents of an
//! engine-marked account (one per game and player, so a mark given twice refunds once).

use rusqlite::{params, OptionalExtension};

use async_trait::async_trait;

use crate::error::ApiError;

use super::postgres::{db_error, PostgresDb};
use super::sqlite::SqliteDb;

pub(super) const SQLITE_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS roles (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    PRIMARY KEY (user_id, role)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS marks (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    until_ms INTEGER,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_ms INTEGER NOT NULL,
    reporter_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
    reported_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    game_id TEXT,
    reason TEXT NOT NULL,
    note TEXT NOT NULL,
    evidence TEXT NOT NULL,
    closed_ms INTEGER
);
CREATE INDEX IF NOT EXISTS reports_reported ON reports(reported_id);
CREATE TABLE IF NOT EXISTS mod_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    moderator TEXT NOT NULL,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    action TEXT NOT NULL,
    details TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mod_log_user ON mod_log(user_id);
CREATE TABLE IF NOT EXISTS refunds (
    game_id TEXT NOT NULL,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    points REAL NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (game_id, user_id)
) WITHOUT ROWID;
";

/// Schema 9 for a database of schema 8: reports may come from the fair-play screen, with no
/// reporter (SQLite changes a column's `NOT NULL` only by copying the table).
pub(super) fn sqlite_migrate(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    let not_null: bool = conn.query_row(
        "SELECT \"notnull\" FROM pragma_table_info('reports') WHERE name = 'reporter_id'",
        [],
        |r| r.get(0),
    )?;
    if !not_null {
        return Ok(());
    }
    conn.execute_batch(
        "BEGIN;
         ALTER TABLE reports RENAME TO reports_8;
         DROP INDEX IF EXISTS reports_reported;
         CREATE TABLE reports (
             id INTEGER PRIMARY KEY AUTOINCREMENT,
             created_ms INTEGER NOT NULL,
             reporter_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
             reported_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
             game_id TEXT,
             reason TEXT NOT NULL,
             note TEXT NOT NULL,
             evidence TEXT NOT NULL,
             closed_ms INTEGER
         );
         INSERT INTO reports SELECT * FROM reports_8;
         DROP TABLE reports_8;
         CREATE INDEX reports_reported ON reports(reported_id);
         COMMIT;",
    )
}

pub(super) const POSTGRES_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS roles (
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    PRIMARY KEY (user_id, role)
);
CREATE TABLE IF NOT EXISTS marks (
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    until_ms BIGINT,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (user_id, kind)
);
CREATE TABLE IF NOT EXISTS reports (
    id BIGSERIAL PRIMARY KEY,
    created_ms BIGINT NOT NULL,
    reporter_id BIGINT REFERENCES users(id) ON DELETE CASCADE,
    reported_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    game_id TEXT,
    reason TEXT NOT NULL,
    note TEXT NOT NULL,
    evidence TEXT NOT NULL,
    closed_ms BIGINT
);
CREATE INDEX IF NOT EXISTS reports_reported ON reports(reported_id);
ALTER TABLE reports ALTER COLUMN reporter_id DROP NOT NULL;
CREATE TABLE IF NOT EXISTS mod_log (
    id BIGSERIAL PRIMARY KEY,
    at_ms BIGINT NOT NULL,
    moderator TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    action TEXT NOT NULL,
    details TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mod_log_user ON mod_log(user_id);
CREATE TABLE IF NOT EXISTS refunds (
    game_id TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    points DOUBLE PRECISION NOT NULL,
    at_ms BIGINT NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
";

/// What is held against an account now (see [`ModerationStore::marks_of`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkRow {
    /// `engine` or `chat-mute`.
    pub kind: String,
    /// Until when (Unix ms); none: for good.
    pub until_ms: Option<i64>,
    /// When it was given (Unix ms).
    pub created_ms: i64,
}

/// A player's report of another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportRow {
    /// Its number (0 before it is stored).
    pub id: i64,
    /// When it was made (Unix ms).
    pub created_ms: i64,
    /// Who reported; none for the fair-play screen ([`crate::fair_play`]).
    pub reporter: Option<i64>,
    /// Who is reported.
    pub reported: i64,
    /// The game it is about, if any.
    pub game_id: Option<String>,
    /// `cheating`, `insults`, `sandbagging` or `other`.
    pub reason: String,
    /// The reporter's words.
    pub note: String,
    /// What the server saw when it was made (JSON: the game's chat lines, its result).
    pub evidence: String,
    /// When a moderator closed it (Unix ms).
    pub closed_ms: Option<i64>,
}

/// One line of the moderation log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRow {
    /// When (Unix ms).
    pub at_ms: i64,
    /// The moderator's name (`operator` from the command line).
    pub moderator: String,
    /// The account acted on.
    pub user: i64,
    /// `warn`, `mute`, `unmute`, `engine`, `unengine`, `close`, `dismiss`, `moderator`, ...
    pub action: String,
    /// What was done, in words (the message shown to the player, the refunds, ...).
    pub details: String,
}

const REPORT_COLUMNS: &str =
    "id, created_ms, reporter_id, reported_id, game_id, reason, note, evidence, closed_ms";

fn sqlite_report(r: &rusqlite::Row<'_>) -> rusqlite::Result<ReportRow> {
    Ok(ReportRow {
        id: r.get(0)?,
        created_ms: r.get(1)?,
        reporter: r.get(2)?,
        reported: r.get(3)?,
        game_id: r.get(4)?,
        reason: r.get(5)?,
        note: r.get(6)?,
        evidence: r.get(7)?,
        closed_ms: r.get(8)?,
    })
}

fn postgres_report(r: &tokio_postgres::Row) -> ReportRow {
    ReportRow {
        id: r.get(0),
        created_ms: r.get(1),
        reporter: r.get(2),
        reported: r.get(3),
        game_id: r.get(4),
        reason: r.get(5),
        note: r.get(6),
        evidence: r.get(7),
        closed_ms: r.get(8),
    }
}

/// SQL: a refund's rating change and its point in the rating history (`$1` the account, `$2`
/// the speed, `$3` the points, `$4` when).
const REFUND_SQL: [&str; 2] = [
    "UPDATE ratings SET rating = rating + $3 WHERE user_id = $1 AND speed = $2",
    "INSERT INTO rating_history (user_id, speed, at_ms, rating) \
     SELECT user_id, speed, $4, rating FROM ratings WHERE user_id = $1 AND speed = $2",
];

/// Moderation: roles, marks, reports, the log and refunds.
#[async_trait]
pub trait ModerationStore: Send + Sync {
    /// Gives `user` the role `role` (`moderator`), or takes it away.
    async fn set_role(&self, user: i64, role: &str, on: bool) -> Result<(), ApiError>;

    /// Whether `user` has the role `role`.
    async fn has_role(&self, user: i64, role: &str) -> Result<bool, ApiError>;

    /// Gives `user` the mark `mark` (replacing one of its kind), or takes the mark of its
    /// kind away.
    async fn set_mark(&self, user: i64, mark: MarkRow, on: bool) -> Result<(), ApiError>;

    /// The marks of `user` (those past their time included: the caller compares).
    async fn marks_of(&self, user: i64) -> Result<Vec<MarkRow>, ApiError>;

    /// Stores a report; answers its number.
    async fn add_report(&self, r: ReportRow) -> Result<i64, ApiError>;

    /// The open (or closed) reports, of `reported` or of everybody, oldest first, at most
    /// `limit`.
    async fn reports(
        &self,
        open: bool,
        reported: Option<i64>,
        limit: i64,
    ) -> Result<Vec<ReportRow>, ApiError>;

    /// Closes every open report of `reported`; answers how many.
    async fn close_reports(&self, reported: i64, now_ms: i64) -> Result<u64, ApiError>;

    /// Writes a line of the moderation log.
    async fn add_log(&self, line: LogRow) -> Result<(), ApiError>;

    /// The moderation log, newest first, of `user` or of everybody, at most `limit` lines.
    async fn moderation_log(&self, user: Option<i64>, limit: i64) -> Result<Vec<LogRow>, ApiError>;

    /// Gives `user` back `points` of rating in `speed`, lost in `game` to an engine-marked
    /// account, with a point in the rating history: once per game and player (false when it
    /// was given already).
    async fn refund(
        &self,
        game: &str,
        user: i64,
        speed: &str,
        points: f64,
        now_ms: i64,
    ) -> Result<bool, ApiError>;
}

#[async_trait]
impl ModerationStore for SqliteDb {
    async fn set_role(&self, user: i64, role: &str, on: bool) -> Result<(), ApiError> {
        let role = role.to_string();
        self.with(move |c| {
            if on {
                c.execute(
                    "INSERT INTO roles (user_id, role) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                    params![user, role],
                )?;
            } else {
                c.execute(
                    "DELETE FROM roles WHERE user_id = ?1 AND role = ?2",
                    params![user, role],
                )?;
            }
            Ok(())
        })
        .await
    }

    async fn has_role(&self, user: i64, role: &str) -> Result<bool, ApiError> {
        let role = role.to_string();
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT 1 FROM roles WHERE user_id = ?1 AND role = ?2",
                params![user, role],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
        })
        .await
    }

    async fn set_mark(&self, user: i64, mark: MarkRow, on: bool) -> Result<(), ApiError> {
        self.with(move |c| {
            if on {
                c.execute(
                    "INSERT INTO marks (user_id, kind, until_ms, created_ms) VALUES (?1, ?2, ?3, ?4) \
                     ON CONFLICT (user_id, kind) DO UPDATE SET until_ms = excluded.until_ms, \
                     created_ms = excluded.created_ms",
                    params![user, mark.kind, mark.until_ms, mark.created_ms],
                )?;
            } else {
                c.execute(
                    "DELETE FROM marks WHERE user_id = ?1 AND kind = ?2",
                    params![user, mark.kind],
                )?;
            }
            Ok(())
        })
        .await
    }

    async fn marks_of(&self, user: i64) -> Result<Vec<MarkRow>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT kind, until_ms, created_ms FROM marks WHERE user_id = ?1 ORDER BY kind",
            )?;
            let rows = stmt.query_map([user], |r| {
                Ok(MarkRow {
                    kind: r.get(0)?,
                    until_ms: r.get(1)?,
                    created_ms: r.get(2)?,
                })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn add_report(&self, r: ReportRow) -> Result<i64, ApiError> {
        self.with(move |c| {
            c.execute(
                "INSERT INTO reports (created_ms, reporter_id, reported_id, game_id, reason, note, \
                 evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    r.created_ms,
                    r.reporter,
                    r.reported,
                    r.game_id,
                    r.reason,
                    r.note,
                    r.evidence
                ],
            )?;
            Ok(c.last_insert_rowid())
        })
        .await
    }

    async fn reports(
        &self,
        open: bool,
        reported: Option<i64>,
        limit: i64,
    ) -> Result<Vec<ReportRow>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {REPORT_COLUMNS} FROM reports WHERE (closed_ms IS NULL) = ?1 \
                 AND (?2 IS NULL OR reported_id = ?2) ORDER BY id LIMIT ?3"
            ))?;
            let rows = stmt.query_map(params![open, reported, limit], sqlite_report)?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn close_reports(&self, reported: i64, now_ms: i64) -> Result<u64, ApiError> {
        self.with(move |c| {
            Ok(c.execute(
                "UPDATE reports SET closed_ms = ?2 WHERE reported_id = ?1 AND closed_ms IS NULL",
                params![reported, now_ms],
            )? as u64)
        })
        .await
    }

    async fn add_log(&self, l: LogRow) -> Result<(), ApiError> {
        self.with(move |c| {
            c.execute(
                "INSERT INTO mod_log (at_ms, moderator, user_id, action, details) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![l.at_ms, l.moderator, l.user, l.action, l.details],
            )?;
            Ok(())
        })
        .await
    }

    async fn moderation_log(&self, user: Option<i64>, limit: i64) -> Result<Vec<LogRow>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT at_ms, moderator, user_id, action, details FROM mod_log \
                 WHERE (?1 IS NULL OR user_id = ?1) ORDER BY id DESC LIMIT ?2",
            )?;
            let rows = stmt.query_map(params![user, limit], |r| {
                Ok(LogRow {
                    at_ms: r.get(0)?,
                    moderator: r.get(1)?,
                    user: r.get(2)?,
                    action: r.get(3)?,
                    details: r.get(4)?,
                })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn refund(
        &self,
        game: &str,
        user: i64,
        speed: &str,
        points: f64,
        now_ms: i64,
    ) -> Result<bool, ApiError> {
        let (game, speed) = (game.to_string(), speed.to_string());
        self.with(move |c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let new = tx.execute(
                "INSERT INTO refunds (game_id, user_id, points, at_ms) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT DO NOTHING",
                params![game, user, points, now_ms],
            )?;
            if new == 1 {
                for sql in REFUND_SQL {
                    let all: [&dyn rusqlite::ToSql; 4] = [&user, &speed, &points, &now_ms];
                    let (sql, params) = super::only_used(sql, all);
                    tx.execute(&sql.replace('$', "?"), params.as_slice())?;
                }
            }
            tx.commit()?;
            Ok(new == 1)
        })
        .await
    }
}

#[async_trait]
impl ModerationStore for PostgresDb {
    async fn set_role(&self, user: i64, role: &str, on: bool) -> Result<(), ApiError> {
        let c = self.client().await?;
        let sql = if on {
            "INSERT INTO roles (user_id, role) VALUES ($1, $2) ON CONFLICT DO NOTHING"
        } else {
            "DELETE FROM roles WHERE user_id = $1 AND role = $2"
        };
        c.execute(sql, &[&user, &role]).await.map_err(db_error)?;
        Ok(())
    }

    async fn has_role(&self, user: i64, role: &str) -> Result<bool, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT 1 FROM roles WHERE user_id = $1 AND role = $2",
                &[&user, &role],
            )
            .await
            .map_err(db_error)?;
        Ok(row.is_some())
    }

    async fn set_mark(&self, user: i64, mark: MarkRow, on: bool) -> Result<(), ApiError> {
        let c = self.client().await?;
        if on {
            c.execute(
                "INSERT INTO marks (user_id, kind, until_ms, created_ms) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (user_id, kind) DO UPDATE SET until_ms = excluded.until_ms, \
                 created_ms = excluded.created_ms",
                &[&user, &mark.kind, &mark.until_ms, &mark.created_ms],
            )
            .await
        } else {
            c.execute(
                "DELETE FROM marks WHERE user_id = $1 AND kind = $2",
                &[&user, &mark.kind],
            )
            .await
        }
        .map_err(db_error)?;
        Ok(())
    }

    async fn marks_of(&self, user: i64) -> Result<Vec<MarkRow>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT kind, until_ms, created_ms FROM marks WHERE user_id = $1 ORDER BY kind",
                &[&user],
            )
            .await
            .map_err(db_error)?;
        Ok(rows
            .iter()
            .map(|r| MarkRow {
                kind: r.get(0),
                until_ms: r.get(1),
                created_ms: r.get(2),
            })
            .collect())
    }

    async fn add_report(&self, r: ReportRow) -> Result<i64, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_one(
                "INSERT INTO reports (created_ms, reporter_id, reported_id, game_id, reason, note, \
                 evidence) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                &[
                    &r.created_ms,
                    &r.reporter,
                    &r.reported,
                    &r.game_id,
                    &r.reason,
                    &r.note,
                    &r.evidence,
                ],
            )
            .await
            .map_err(db_error)?;
        Ok(row.get(0))
    }

    async fn reports(
        &self,
        open: bool,
        reported: Option<i64>,
        limit: i64,
    ) -> Result<Vec<ReportRow>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                &format!(
                    "SELECT {REPORT_COLUMNS} FROM reports WHERE (closed_ms IS NULL) = $1 \
                     AND ($2::BIGINT IS NULL OR reported_id = $2) ORDER BY id LIMIT $3"
                ),
                &[&open, &reported, &limit],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(postgres_report).collect())
    }

    async fn close_reports(&self, reported: i64, now_ms: i64) -> Result<u64, ApiError> {
        let c = self.client().await?;
        c.execute(
            "UPDATE reports SET closed_ms = $2 WHERE reported_id = $1 AND closed_ms IS NULL",
            &[&reported, &now_ms],
        )
        .await
        .map_err(db_error)
    }

    async fn add_log(&self, l: LogRow) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute(
            "INSERT INTO mod_log (at_ms, moderator, user_id, action, details) \
             VALUES ($1, $2, $3, $4, $5)",
            &[&l.at_ms, &l.moderator, &l.user, &l.action, &l.details],
        )
        .await
        .map_err(db_error)?;
        Ok(())
    }

    async fn moderation_log(&self, user: Option<i64>, limit: i64) -> Result<Vec<LogRow>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT at_ms, moderator, user_id, action, details FROM mod_log \
                 WHERE ($1::BIGINT IS NULL OR user_id = $1) ORDER BY id DESC LIMIT $2",
                &[&user, &limit],
            )
            .await
            .map_err(db_error)?;
        Ok(rows
            .iter()
            .map(|r| LogRow {
                at_ms: r.get(0),
                moderator: r.get(1),
                user: r.get(2),
                action: r.get(3),
                details: r.get(4),
            })
            .collect())
    }

    async fn refund(
        &self,
        game: &str,
        user: i64,
        speed: &str,
        points: f64,
        now_ms: i64,
    ) -> Result<bool, ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        let new = tx
            .execute(
                "INSERT INTO refunds (game_id, user_id, points, at_ms) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT DO NOTHING",
                &[&game, &user, &points, &now_ms],
            )
            .await
            .map_err(db_error)?;
        if new == 1 {
            for sql in REFUND_SQL {
                let all: [&(dyn tokio_postgres::types::ToSql + Sync); 4] =
                    [&user, &speed, &points, &now_ms];
                let (sql, params) = super::only_used(sql, all);
                tx.execute(sql.as_str(), &params).await.map_err(db_error)?;
            }
        }
        tx.commit().await.map_err(db_error)?;
        Ok(new == 1)
    }
}
