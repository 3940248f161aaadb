//! Stored fair-play screening ([`crate::fair_play`]), in both stores: `screened_games` holds
//! each rated game the screen took (claimed by one process of a cluster, then done), and
//! `screens` one row per side with the side's scores, read back per player over their last
//! games.

use rusqlite::{params, Connection, TransactionBehavior};

use async_trait::async_trait;

use crate::error::ApiError;

use super::postgres::{db_error, PostgresDb};
use super::sqlite::SqliteDb;

/// The SQLite tables (applied to any older database).
pub(super) fn sqlite_migrate(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS screened_games (
            game_id TEXT PRIMARY KEY,
            claimed_ms INTEGER NOT NULL,
            done_ms INTEGER
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS screens (
            game_id TEXT NOT NULL,
            color INTEGER NOT NULL,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            at_ms INTEGER NOT NULL,
            moves INTEGER NOT NULL,
            agreed INTEGER NOT NULL,
            loss_cm INTEGER NOT NULL,
            think_mean_ms INTEGER NOT NULL,
            think_sd_ms INTEGER NOT NULL,
            PRIMARY KEY (game_id, color)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS screens_user ON screens(user_id, at_ms);",
    )
}

/// The PostgreSQL tables.
pub(super) const POSTGRES_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS screened_games (
    game_id TEXT PRIMARY KEY,
    claimed_ms BIGINT NOT NULL,
    done_ms BIGINT
);
CREATE TABLE IF NOT EXISTS screens (
    game_id TEXT NOT NULL,
    color BIGINT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    at_ms BIGINT NOT NULL,
    moves BIGINT NOT NULL,
    agreed BIGINT NOT NULL,
    loss_cm BIGINT NOT NULL,
    think_mean_ms BIGINT NOT NULL,
    think_sd_ms BIGINT NOT NULL,
    PRIMARY KEY (game_id, color)
);
CREATE INDEX IF NOT EXISTS screens_user ON screens(user_id, at_ms);
";

/// One side of one screened game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScreenRow {
    /// The game.
    pub game_id: String,
    /// The side: 0 White, 1 Black.
    pub color: i64,
    /// The account that played it.
    pub user_id: i64,
    /// When the game was screened (Unix ms).
    pub at_ms: i64,
    /// Moves scored (the opening, forced moves and decided positions are not).
    pub moves: i64,
    /// Of those, how many were the engine's first choice.
    pub agreed: i64,
    /// What the moves lost against the engine's choice, summed, in hundredths of a man.
    pub loss_cm: i64,
    /// Average thinking time of the scored moves (ms).
    pub think_mean_ms: i64,
    /// Its standard deviation (ms).
    pub think_sd_ms: i64,
}

const SCREEN_COLUMNS: &str =
    "game_id, color, user_id, at_ms, moves, agreed, loss_cm, think_mean_ms, think_sd_ms";

/// SQL: claims `$1` at `$2` unless claimed since `$3` or done.
const CLAIM: &str = "INSERT INTO screened_games (game_id, claimed_ms) VALUES ($1, $2) \
    ON CONFLICT (game_id) DO UPDATE SET claimed_ms = excluded.claimed_ms \
    WHERE screened_games.done_ms IS NULL AND screened_games.claimed_ms < $3";

/// SQL: rated, finished (not aborted) games under the federation's rules since `$1` that no
/// screen has done, and none claimed since `$2`, oldest first, at most `$3`.
const UNSCREENED: &str = "SELECT g.id FROM online_games g WHERE g.status = 'over' \
    AND g.rated AND g.outcome IS NOT NULL AND g.outcome <> 'aborted' AND g.rules = 'turkish' \
    AND g.created_ms >= $1 AND NOT EXISTS (SELECT 1 FROM screened_games s WHERE s.game_id = g.id \
    AND (s.done_ms IS NOT NULL OR s.claimed_ms >= $2)) ORDER BY g.created_ms LIMIT $3";

fn sqlite_screen(r: &rusqlite::Row<'_>) -> rusqlite::Result<ScreenRow> {
    Ok(ScreenRow {
        game_id: r.get(0)?,
        color: r.get(1)?,
        user_id: r.get(2)?,
        at_ms: r.get(3)?,
        moves: r.get(4)?,
        agreed: r.get(5)?,
        loss_cm: r.get(6)?,
        think_mean_ms: r.get(7)?,
        think_sd_ms: r.get(8)?,
    })
}

fn postgres_screen(r: &tokio_postgres::Row) -> ScreenRow {
    ScreenRow {
        game_id: r.get(0),
        color: r.get(1),
        user_id: r.get(2),
        at_ms: r.get(3),
        moves: r.get(4),
        agreed: r.get(5),
        loss_cm: r.get(6),
        think_mean_ms: r.get(7),
        think_sd_ms: r.get(8),
    }
}

/// The fair-play screen's claims and scores.
#[async_trait]
pub trait FairPlayStore: Send + Sync {
    /// Claims game `game` for screening at `now_ms`: true when this caller is to screen it
    /// (nobody has, and nobody claimed it since `stale_ms`, so a claim left by a process
    /// that died is taken over).
    async fn claim_screen(&self, game: &str, now_ms: i64, stale_ms: i64) -> Result<bool, ApiError>;

    /// In one transaction: keeps the screened sides `rows` of `game` (a side kept already is
    /// left as it is) and marks the game screened.
    async fn finish_screen(
        &self,
        game: &str,
        rows: Vec<ScreenRow>,
        now_ms: i64,
    ) -> Result<(), ApiError>;

    /// `user`'s last `limit` screened games, newest first.
    async fn screens_of(&self, user: i64, limit: i64) -> Result<Vec<ScreenRow>, ApiError>;

    /// Rated games ended since `since_ms` that were not screened, and not claimed since
    /// `stale_ms`: at most `limit`, oldest first.
    async fn unscreened_games(
        &self,
        since_ms: i64,
        stale_ms: i64,
        limit: i64,
    ) -> Result<Vec<String>, ApiError>;
}

#[async_trait]
impl FairPlayStore for SqliteDb {
    async fn claim_screen(&self, game: &str, now_ms: i64, stale_ms: i64) -> Result<bool, ApiError> {
        let game = game.to_string();
        self.with(move |c| {
            Ok(c.execute(&CLAIM.replace('$', "?"), params![game, now_ms, stale_ms])? == 1)
        })
        .await
    }

    async fn finish_screen(
        &self,
        game: &str,
        rows: Vec<ScreenRow>,
        now_ms: i64,
    ) -> Result<(), ApiError> {
        let game = game.to_string();
        self.with(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            for r in &rows {
                tx.execute(
                    &format!(
                        "INSERT INTO screens ({SCREEN_COLUMNS}) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT DO NOTHING"
                    ),
                    params![
                        r.game_id,
                        r.color,
                        r.user_id,
                        r.at_ms,
                        r.moves,
                        r.agreed,
                        r.loss_cm,
                        r.think_mean_ms,
                        r.think_sd_ms
                    ],
                )?;
            }
            tx.execute(
                "INSERT INTO screened_games (game_id, claimed_ms, done_ms) VALUES (?1, ?2, ?2) \
                 ON CONFLICT (game_id) DO UPDATE SET done_ms = excluded.done_ms",
                params![game, now_ms],
            )?;
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn screens_of(&self, user: i64, limit: i64) -> Result<Vec<ScreenRow>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare_cached(&format!(
                "SELECT {SCREEN_COLUMNS} FROM screens WHERE user_id = ?1 \
                 ORDER BY at_ms DESC, game_id DESC LIMIT ?2"
            ))?;
            let rows = stmt.query_map(params![user, limit], sqlite_screen)?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn unscreened_games(
        &self,
        since_ms: i64,
        stale_ms: i64,
        limit: i64,
    ) -> Result<Vec<String>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare_cached(&UNSCREENED.replace('$', "?"))?;
            let rows = stmt.query_map(params![since_ms, stale_ms, limit], |r| r.get(0))?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }
}

#[async_trait]
impl FairPlayStore for PostgresDb {
    async fn claim_screen(&self, game: &str, now_ms: i64, stale_ms: i64) -> Result<bool, ApiError> {
        let game = game.to_string();
        let c = self.client().await?;
        let n = c
            .execute(CLAIM, &[&game, &now_ms, &stale_ms])
            .await
            .map_err(db_error)?;
        Ok(n == 1)
    }

    async fn finish_screen(
        &self,
        game: &str,
        rows: Vec<ScreenRow>,
        now_ms: i64,
    ) -> Result<(), ApiError> {
        let game = game.to_string();
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        for r in &rows {
            tx.execute(
                &format!(
                    "INSERT INTO screens ({SCREEN_COLUMNS}) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING"
                ),
                &[
                    &r.game_id,
                    &r.color,
                    &r.user_id,
                    &r.at_ms,
                    &r.moves,
                    &r.agreed,
                    &r.loss_cm,
                    &r.think_mean_ms,
                    &r.think_sd_ms,
                ],
            )
            .await
            .map_err(db_error)?;
        }
        tx.execute(
            "INSERT INTO screened_games (game_id, claimed_ms, done_ms) VALUES ($1, $2, $2) \
             ON CONFLICT (game_id) DO UPDATE SET done_ms = excluded.done_ms",
            &[&game, &now_ms],
        )
        .await
        .map_err(db_error)?;
        tx.commit().await.map_err(db_error)
    }

    async fn screens_of(&self, user: i64, limit: i64) -> Result<Vec<ScreenRow>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                &format!(
                    "SELECT {SCREEN_COLUMNS} FROM screens WHERE user_id = $1 \
                     ORDER BY at_ms DESC, game_id DESC LIMIT $2"
                ),
                &[&user, &limit],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(postgres_screen).collect())
    }

    async fn unscreened_games(
        &self,
        since_ms: i64,
        stale_ms: i64,
        limit: i64,
    ) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(UNSCREENED, &[&since_ms, &stale_ms, &limit])
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }
}
