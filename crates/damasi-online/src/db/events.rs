//! Stored tournaments (Swiss events, arenas). The online core does not know what a tournament
//! is: each one is a row whose `data` is its director's own JSON (`damasi-tournaments`), with
//! its kind, status and name beside it for listing, and one row per player so that a player's
//! page can list the events they played.

use rusqlite::{params, OptionalExtension};

use async_trait::async_trait;

use crate::error::ApiError;

use super::postgres::{db_error, PostgresDb};
use super::sqlite::SqliteDb;

pub(super) const SQLITE_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    name TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    starts_ms INTEGER,
    data TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tournaments_status ON tournaments(status);
CREATE TABLE IF NOT EXISTS tournament_players (
    tournament_id TEXT NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (tournament_id, user_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tournament_players_user ON tournament_players(user_id);
";

pub(super) const POSTGRES_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    name TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    starts_ms BIGINT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tournaments_status ON tournaments(status);
CREATE TABLE IF NOT EXISTS tournament_players (
    tournament_id TEXT NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (tournament_id, user_id)
);
CREATE INDEX IF NOT EXISTS tournament_players_user ON tournament_players(user_id);
";

/// A tournament as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRow {
    /// Its id.
    pub id: String,
    /// `swiss` or `arena`.
    pub kind: String,
    /// `created`, `started` or `finished`.
    pub status: String,
    /// Its name.
    pub name: String,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// When it starts (or started), if set.
    pub starts_ms: Option<i64>,
    /// The director's JSON.
    pub data: String,
    /// The accounts taking part (for players' pages).
    pub players: Vec<i64>,
}

const COLUMNS: &str = "id, kind, status, name, created_ms, starts_ms, data";

fn sqlite_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TournamentRow> {
    Ok(TournamentRow {
        id: r.get(0)?,
        kind: r.get(1)?,
        status: r.get(2)?,
        name: r.get(3)?,
        created_ms: r.get(4)?,
        starts_ms: r.get(5)?,
        data: r.get(6)?,
        players: Vec::new(),
    })
}

fn postgres_row(r: &tokio_postgres::Row) -> TournamentRow {
    TournamentRow {
        id: r.get(0),
        kind: r.get(1),
        status: r.get(2),
        name: r.get(3),
        created_ms: r.get(4),
        starts_ms: r.get(5),
        data: r.get(6),
        players: Vec::new(),
    }
}

/// What [`EventStore::tournaments`] lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TournamentFilter<'a> {
    /// Every tournament.
    All,
    /// Those with this status.
    Status(&'a str),
    /// Those not finished.
    Unfinished,
    /// Those this account plays in.
    Player(i64),
    /// Those this account plays in whose stored state names this game id (quoted, as the
    /// directors' JSON writes it): the event a game was played in. The caller reads the
    /// state to be sure.
    PlayerGame {
        /// One of the game's players.
        player: i64,
        /// The game's id.
        game: &'a str,
    },
}

/// Stored tournaments.
#[async_trait]
pub trait EventStore: Send + Sync {
    /// Stores a tournament (replacing what was stored under its id); its players are added to
    /// those already listed (a player who withdrew still played in it).
    async fn save_tournament(&self, t: TournamentRow) -> Result<(), ApiError>;

    /// Tournament `id`, if it exists (its `players` left empty).
    async fn tournament(&self, id: &str) -> Result<Option<TournamentRow>, ApiError>;

    /// The newest tournaments that match `filter`, at most `limit` (their `players` left
    /// empty).
    async fn tournaments(
        &self,
        filter: TournamentFilter<'_>,
        limit: i64,
    ) -> Result<Vec<TournamentRow>, ApiError>;
}

#[async_trait]
impl EventStore for SqliteDb {
    async fn save_tournament(&self, t: TournamentRow) -> Result<(), ApiError> {
        self.with(move |c| {
            let tx = c.transaction()?;
            tx.execute(
                "INSERT INTO tournaments (id, kind, status, name, created_ms, starts_ms, data) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (id) DO UPDATE SET \
                 status = excluded.status, name = excluded.name, starts_ms = excluded.starts_ms, \
                 data = excluded.data",
                params![
                    t.id,
                    t.kind,
                    t.status,
                    t.name,
                    t.created_ms,
                    t.starts_ms,
                    t.data
                ],
            )?;
            for p in &t.players {
                tx.execute(
                    "INSERT INTO tournament_players (tournament_id, user_id) VALUES (?1, ?2) \
                     ON CONFLICT DO NOTHING",
                    params![t.id, p],
                )?;
            }
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn tournament(&self, id: &str) -> Result<Option<TournamentRow>, ApiError> {
        let id = id.to_string();
        self.with(move |c| {
            Ok(c.query_row(
                &format!("SELECT {COLUMNS} FROM tournaments WHERE id = ?1"),
                [id],
                sqlite_row,
            )
            .optional()?)
        })
        .await
    }

    async fn tournaments(
        &self,
        filter: TournamentFilter<'_>,
        limit: i64,
    ) -> Result<Vec<TournamentRow>, ApiError> {
        use rusqlite::types::Value as Sql;
        let (condition, mut values): (&str, Vec<Sql>) = match filter {
            TournamentFilter::All => ("1 = 1", vec![]),
            TournamentFilter::Status(s) => ("status = ?2", vec![s.to_string().into()]),
            TournamentFilter::Unfinished => ("status != 'finished'", vec![]),
            TournamentFilter::Player(u) => (
                "id IN (SELECT tournament_id FROM tournament_players WHERE user_id = ?2)",
                vec![u.into()],
            ),
            TournamentFilter::PlayerGame { player, game } => (
                "id IN (SELECT tournament_id FROM tournament_players WHERE user_id = ?2) \
                 AND instr(data, ?3) > 0",
                vec![player.into(), format!("\"{game}\"").into()],
            ),
        };
        values.insert(0, limit.into());
        let sql = format!(
            "SELECT {COLUMNS} FROM tournaments WHERE {condition} \
             ORDER BY created_ms DESC LIMIT ?1"
        );
        self.with(move |c| {
            let mut stmt = c.prepare(&sql)?;
            let rows = stmt.query_map(rusqlite::params_from_iter(values), sqlite_row)?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }
}

#[async_trait]
impl EventStore for PostgresDb {
    async fn save_tournament(&self, t: TournamentRow) -> Result<(), ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        tx.execute(
            "INSERT INTO tournaments (id, kind, status, name, created_ms, starts_ms, data) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO UPDATE SET \
             status = excluded.status, name = excluded.name, starts_ms = excluded.starts_ms, \
             data = excluded.data",
            &[
                &t.id,
                &t.kind,
                &t.status,
                &t.name,
                &t.created_ms,
                &t.starts_ms,
                &t.data,
            ],
        )
        .await
        .map_err(db_error)?;
        for p in &t.players {
            tx.execute(
                "INSERT INTO tournament_players (tournament_id, user_id) VALUES ($1, $2) \
                 ON CONFLICT DO NOTHING",
                &[&t.id, p],
            )
            .await
            .map_err(db_error)?;
        }
        tx.commit().await.map_err(db_error)
    }

    async fn tournament(&self, id: &str) -> Result<Option<TournamentRow>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                &format!("SELECT {COLUMNS} FROM tournaments WHERE id = $1"),
                &[&id],
            )
            .await
            .map_err(db_error)?;
        Ok(row.as_ref().map(postgres_row))
    }

    async fn tournaments(
        &self,
        filter: TournamentFilter<'_>,
        limit: i64,
    ) -> Result<Vec<TournamentRow>, ApiError> {
        let c = self.client().await?;
        let order = "ORDER BY created_ms DESC LIMIT $1";
        let rows = match filter {
            TournamentFilter::All => {
                c.query(
                    &format!("SELECT {COLUMNS} FROM tournaments {order}"),
                    &[&limit],
                )
                .await
            }
            TournamentFilter::Status(s) => {
                c.query(
                    &format!("SELECT {COLUMNS} FROM tournaments WHERE status = $2 {order}"),
                    &[&limit, &s],
                )
                .await
            }
            TournamentFilter::Unfinished => {
                c.query(
                    &format!(
                        "SELECT {COLUMNS} FROM tournaments WHERE status != 'finished' {order}"
                    ),
                    &[&limit],
                )
                .await
            }
            TournamentFilter::Player(u) => {
                c.query(
                    &format!(
                        "SELECT {COLUMNS} FROM tournaments WHERE id IN \
                         (SELECT tournament_id FROM tournament_players WHERE user_id = $2) {order}"
                    ),
                    &[&limit, &u],
                )
                .await
            }
            TournamentFilter::PlayerGame { player, game } => {
                c.query(
                    &format!(
                        "SELECT {COLUMNS} FROM tournaments WHERE id IN \
                         (SELECT tournament_id FROM tournament_players WHERE user_id = $2) \
                         AND strpos(data, $3) > 0 {order}"
                    ),
                    &[&limit, &player, &format!("\"{game}\"")],
                )
                .await
            }
        }
        .map_err(db_error)?;
        Ok(rows.iter().map(postgres_row).collect())
    }
}
