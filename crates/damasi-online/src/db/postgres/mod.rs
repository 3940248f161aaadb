//! Online play's storage in PostgreSQL (`damasi serve --database postgres://...`): the same
//! tables as the SQLite store, created on first connection (under an advisory lock, so several
//! servers starting at once do not race). One connection, re-opened when it breaks; each
//! change is one transaction. The store's accounts are in `accounts.rs`, its games in
//! `games.rs`, its other areas in the area files beside this folder (`db/events.rs`, ...);
//! the leases of games shared by several processes are here.

mod accounts;
mod games;
mod moves;

use std::sync::Arc;

use tokio::sync::Mutex;
use tokio_postgres::{Client, NoTls, Row};

use crate::error::ApiError;

use super::UserRow;

const SCHEMA: &str = "
SELECT pg_advisory_xact_lock(72617301);
CREATE TABLE IF NOT EXISTS users (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    password TEXT,
    guest BOOLEAN NOT NULL DEFAULT FALSE,
    created_ms BIGINT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS users_name ON users (lower(name));
CREATE TABLE IF NOT EXISTS secrets (
    hash TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    speed TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    PRIMARY KEY (user_id, speed)
);
CREATE TABLE IF NOT EXISTS online_games (
    id TEXT PRIMARY KEY,
    created_ms BIGINT NOT NULL,
    white_id BIGINT REFERENCES users(id),
    black_id BIGINT REFERENCES users(id),
    initial_ms BIGINT NOT NULL,
    increment_ms BIGINT NOT NULL,
    rated BOOLEAN NOT NULL,
    chat BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    outcome TEXT,
    turn_started_ms BIGINT,
    white_diff BIGINT,
    black_diff BIGINT,
    invited_id BIGINT REFERENCES users(id),
    rules TEXT NOT NULL DEFAULT 'turkish'
);
ALTER TABLE online_games ADD COLUMN IF NOT EXISTS invited_id BIGINT REFERENCES users(id);
ALTER TABLE online_games ADD COLUMN IF NOT EXISTS rules TEXT NOT NULL DEFAULT 'turkish';
ALTER TABLE online_games ADD COLUMN IF NOT EXISTS event TEXT;
ALTER TABLE users ADD COLUMN IF NOT EXISTS bot BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN IF NOT EXISTS closed_ms BIGINT;
CREATE TABLE IF NOT EXISTS retired_names (
    hash TEXT PRIMARY KEY
);
CREATE INDEX IF NOT EXISTS secrets_user ON secrets(user_id);
CREATE INDEX IF NOT EXISTS online_games_status ON online_games(status);
CREATE INDEX IF NOT EXISTS online_games_white ON online_games(white_id);
CREATE INDEX IF NOT EXISTS online_games_black ON online_games(black_id);
CREATE TABLE IF NOT EXISTS online_moves (
    game_id TEXT NOT NULL REFERENCES online_games(id) ON DELETE CASCADE,
    ply BIGINT NOT NULL,
    token TEXT NOT NULL,
    elapsed_ms BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS game_owners (
    game_id TEXT PRIMARY KEY REFERENCES online_games(id) ON DELETE CASCADE,
    node TEXT NOT NULL,
    expires_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS game_owners_node ON game_owners(node);
CREATE TABLE IF NOT EXISTS shared_state (
    key TEXT PRIMARY KEY,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS outside_accounts (
    service TEXT NOT NULL,
    outside_id TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
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
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    speed TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    rating DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS rating_history_user ON rating_history(user_id, speed, at_ms);
CREATE TABLE IF NOT EXISTS relations (
    from_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    to_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (from_id, to_id)
);
CREATE INDEX IF NOT EXISTS relations_to ON relations(to_id);
";

const GAME_COLUMNS: &str = "id, created_ms, white_id, black_id, initial_ms, increment_ms, rated, \
    chat, status, outcome, turn_started_ms, white_diff, black_diff, invited_id, rules, event";

/// Every area's tables, in the order they are set up (later areas refer to earlier tables),
/// each with the words its setup error names it by.
const SCHEMAS: [(&str, &str); 7] = [
    ("of accounts and games", SCHEMA),
    ("of tournaments", super::events::POSTGRES_SCHEMA),
    ("of the explorer", super::explorer::POSTGRES_SCHEMA),
    ("of moderation", super::moderation::POSTGRES_SCHEMA),
    ("of e-mail", super::mail::POSTGRES_SCHEMA),
    ("of second factors", super::two_factor::POSTGRES_SCHEMA),
    ("of fair-play scores", super::fair_play::POSTGRES_SCHEMA),
];

/// The SHA-256 of the whole schema's text: a new release's change to any table shows as a
/// new digest, and the next process to start sets the tables up again.
fn schema_digest() -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for (_, schema) in SCHEMAS {
        h.update(schema.as_bytes());
        h.update([0]);
    }
    crate::hex(&h.finalize())
}

/// A store error with PostgreSQL's own words (its message and SQLSTATE code, as `deadlock
/// detected (40P01)`), not only the driver's "db error".
pub(super) fn db_error(e: tokio_postgres::Error) -> ApiError {
    match e.as_db_error() {
        Some(d) => ApiError::Internal(format!("postgres: {} ({})", d.message(), d.code().code())),
        None => ApiError::Internal(format!("postgres: {e}")),
    }
}

fn user_row(r: &Row) -> UserRow {
    UserRow {
        id: r.get(0),
        name: r.get(1),
        password: r.get(2),
        guest: r.get(3),
        bot: r.get("bot"),
        closed_ms: r.get("closed_ms"),
    }
}

/// The PostgreSQL store; cheap to clone.
#[derive(Clone)]
pub struct PostgresDb {
    url: Arc<String>,
    client: Arc<Mutex<Client>>,
    /// In a cluster: this node's id, and a move or an end is stored only while the node holds
    /// the game's lease (a node that lost it cannot write over the new owner).
    fence: Arc<std::sync::OnceLock<String>>,
    /// Moves waiting for their group commit (`moves.rs`).
    moves: super::move_writer::MoveQueue,
}

async fn open(url: &str) -> Result<Client, String> {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .map_err(|e| format!("cannot connect to PostgreSQL: {e}"))?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            eprintln!("damasi: PostgreSQL connection: {e}");
        }
    });
    Ok(client)
}

impl PostgresDb {
    /// Connects to `url` and creates the tables if needed.
    pub async fn connect(url: &str) -> Result<PostgresDb, String> {
        let mut client = open(url).await?;
        let tx = client.transaction().await.map_err(|e| e.to_string())?;
        // Processes (or tests) starting together on a new database would each create the
        // tables, and all but one fail on PostgreSQL's catalog: one at a time, by a lock
        // held until this transaction ends.
        tx.batch_execute("SELECT pg_advisory_xact_lock(7306583)")
            .await
            .map_err(|e| format!("cannot lock the PostgreSQL tables' setup: {e}"))?;
        // Even `ALTER TABLE ... ADD COLUMN IF NOT EXISTS` takes its table's exclusive lock, so
        // a process starting beside others that serve would stall their changes and could
        // deadlock with them. The setup runs only when the schema's text differs from the one
        // recorded by the last setup; a process starting on a current database takes no lock
        // on the tables at all.
        let digest = schema_digest();
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_setup (id INT PRIMARY KEY, digest TEXT NOT NULL)",
        )
        .await
        .map_err(|e| format!("cannot set up the PostgreSQL schema's record: {e}"))?;
        let recorded: Option<String> = tx
            .query_opt("SELECT digest FROM schema_setup WHERE id = 1", &[])
            .await
            .map_err(|e| format!("cannot read the PostgreSQL schema's record: {e}"))?
            .map(|r| r.get(0));
        if recorded.as_deref() != Some(digest.as_str()) {
            for (area, schema) in SCHEMAS {
                tx.batch_execute(schema)
                    .await
                    .map_err(|e| format!("cannot set up the PostgreSQL tables {area}: {e}"))?;
            }
            tx.execute(
                "INSERT INTO schema_setup (id, digest) VALUES (1, $1) \
                 ON CONFLICT (id) DO UPDATE SET digest = excluded.digest",
                &[&digest],
            )
            .await
            .map_err(|e| format!("cannot record the PostgreSQL schema: {e}"))?;
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        Ok(PostgresDb {
            url: Arc::new(url.to_string()),
            client: Arc::new(Mutex::new(client)),
            fence: Arc::new(std::sync::OnceLock::new()),
            moves: super::move_writer::MoveQueue::default(),
        })
    }

    /// From now on, moves and ends are stored only for games whose lease `node` holds.
    pub fn fence_with(&self, node: &str) {
        let _ = self.fence.set(node.to_string());
    }

    /// In a cluster, refuses the change of game `id` unless this node holds its lease.
    async fn check_fence(
        &self,
        tx: &tokio_postgres::Transaction<'_>,
        id: &str,
    ) -> Result<(), ApiError> {
        let Some(node) = self.fence.get() else {
            return Ok(());
        };
        let held = tx
            .query_opt(
                "SELECT 1 FROM game_owners WHERE game_id = $1 AND node = $2 FOR UPDATE",
                &[&id, node],
            )
            .await
            .map_err(db_error)?;
        if held.is_none() {
            return Err(moves::moved_away(id));
        }
        Ok(())
    }

    /// The connection, opened again if it broke (the server restarted).
    pub(super) async fn client(&self) -> Result<tokio::sync::MutexGuard<'_, Client>, ApiError> {
        let mut guard = self.client.lock().await;
        if guard.is_closed() {
            *guard = open(&self.url).await.map_err(ApiError::Internal)?;
        }
        Ok(guard)
    }

    /// Takes (or renews) the lease of game `id` for `node` until `until_ms` when it is free,
    /// expired (before `now_ms`) or already `node`'s; answers the owner after the attempt
    /// (none: no such game). The row is locked by the upsert, so two nodes never both win.
    pub async fn acquire(
        &self,
        id: &str,
        node: &str,
        until_ms: i64,
        now_ms: i64,
    ) -> Result<Option<String>, ApiError> {
        let c = self.client().await?;
        let won = c
            .query_opt(
                "INSERT INTO game_owners (game_id, node, expires_ms) \
                 SELECT id, $2, $3 FROM online_games WHERE id = $1 \
                 ON CONFLICT (game_id) DO UPDATE SET node = EXCLUDED.node, \
                 expires_ms = EXCLUDED.expires_ms \
                 WHERE game_owners.node = EXCLUDED.node OR game_owners.expires_ms < $4 \
                 RETURNING node",
                &[&id, &node, &until_ms, &now_ms],
            )
            .await
            .map_err(db_error)?;
        if let Some(r) = won {
            return Ok(Some(r.get(0)));
        }
        let row = c
            .query_opt("SELECT node FROM game_owners WHERE game_id = $1", &[&id])
            .await
            .map_err(db_error)?;
        Ok(row.map(|r| r.get(0)))
    }

    /// Extends every lease of `node` to `until_ms`; answers the games it still holds.
    pub async fn renew(&self, node: &str, until_ms: i64) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "UPDATE game_owners SET expires_ms = $2 WHERE node = $1 RETURNING game_id",
                &[&node, &until_ms],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Gives up `node`'s lease of game `id`.
    pub async fn release(&self, id: &str, node: &str) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute(
            "DELETE FROM game_owners WHERE game_id = $1 AND node = $2",
            &[&id, &node],
        )
        .await
        .map_err(db_error)?;
        Ok(())
    }

    /// Games being played whose owner is gone (no lease, or one expired before `now_ms`).
    pub async fn orphans(&self, now_ms: i64) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT g.id FROM online_games g LEFT JOIN game_owners o ON o.game_id = g.id \
                 WHERE g.status = 'playing' AND (o.node IS NULL OR o.expires_ms < $1)",
                &[&now_ms],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Ids of the games being played, newest first, at most `limit`.
    pub async fn playing(&self, limit: i64) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT id FROM online_games WHERE status = 'playing' \
                 ORDER BY created_ms DESC LIMIT $1",
                &[&limit],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// The shared text under `key` (empty when never written).
    pub async fn shared(&self, key: &str) -> Result<String, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt("SELECT data FROM shared_state WHERE key = $1", &[&key])
            .await
            .map_err(db_error)?;
        Ok(row.map(|r| r.get(0)).unwrap_or_default())
    }

    /// Changes the shared text under `key` with `change`, holding the row's lock meanwhile, so
    /// one node at a time changes it (e.g. pairs players).
    pub async fn update_shared<R>(
        &self,
        key: &str,
        change: impl FnOnce(&mut String) -> R,
    ) -> Result<R, ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        tx.execute(
            "INSERT INTO shared_state (key, data) VALUES ($1, '') ON CONFLICT (key) DO NOTHING",
            &[&key],
        )
        .await
        .map_err(db_error)?;
        let row = tx
            .query_one(
                "SELECT data FROM shared_state WHERE key = $1 FOR UPDATE",
                &[&key],
            )
            .await
            .map_err(db_error)?;
        let mut data: String = row.get(0);
        let before = data.clone();
        let out = change(&mut data);
        if data != before {
            tx.execute(
                "UPDATE shared_state SET data = $2 WHERE key = $1",
                &[&key, &data],
            )
            .await
            .map_err(db_error)?;
        }
        tx.commit().await.map_err(db_error)?;
        Ok(out)
    }
}
