//! Online play's storage in PostgreSQL (`damasi serve --database postgres://...`): the same
//! tables as the SQLite store, created on first connection (under an advisory lock, so several
//! servers starting at once do not race). One connection, re-opened when it breaks; each
//! change is one transaction.

use std::sync::Arc;

use tokio::sync::Mutex;
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, NoTls, Row};

use crate::error::ApiError;

use super::{
    games_page_sql, GameFilter, GameRecord, GameSummary, LeaderRow, OnlineGameRow, OutsideAccount,
    RatedResult, RatingPoint, RatingRow, Relation, SecretKind, SecretRow, ShownEvent, ShownGame,
    UserRow, CLOSE_ACCOUNT_SQL, LEADERBOARD_SQL, MAKE_BOT_SQL, RECORD_SQL, RETIRED_NAME_SQL,
};
use crate::rating;

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

/// Deletes a user's secrets whose hash starts with `$2` (all when it is null), but `$3`.
const REVOKE: &str = "DELETE FROM secrets WHERE user_id = $1 \
    AND ($2::text IS NULL OR left(hash, length($2::text)) = $2::text) \
    AND ($3::text IS NULL OR hash <> $3::text)";

pub(super) fn db_error(e: tokio_postgres::Error) -> ApiError {
    ApiError::Internal(format!("postgres: {e}"))
}

fn game_row(r: &Row) -> Result<OnlineGameRow, ApiError> {
    Ok(OnlineGameRow {
        id: r.get(0),
        created_ms: r.get(1),
        players: [r.get(2), r.get(3)],
        initial_ms: r.get(4),
        increment_ms: r.get(5),
        rated: r.get(6),
        chat: r.get(7),
        status: r.get(8),
        outcome: r.get(9),
        turn_started_ms: r.get(10),
        diffs: [r.get(11), r.get(12)],
        invited: r.get(13),
        rules: super::stored_rules(r.get(0), r.get(14)).map_err(ApiError::Internal)?,
        event: r.get(15),
    })
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

impl PostgresDb {
    pub(super) async fn outside_account(
        &self,
        service: &str,
        outside_id: &str,
    ) -> Result<Option<OutsideAccount>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT u.id, u.name, u.password, u.guest, o.settings, u.bot, u.closed_ms FROM outside_accounts o \
                 JOIN users u ON u.id = o.user_id WHERE o.service = $1 AND o.outside_id = $2",
                &[&service, &outside_id],
            )
            .await
            .map_err(db_error)?;
        Ok(row.map(|r| OutsideAccount {
            user: user_row(&r),
            settings: r.get(4),
        }))
    }

    pub(super) async fn set_outside_account(
        &self,
        service: &str,
        outside_id: &str,
        user: i64,
        settings: &str,
    ) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute(
            "INSERT INTO outside_accounts (service, outside_id, user_id, settings) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (service, outside_id) \
             DO UPDATE SET user_id = excluded.user_id, settings = excluded.settings",
            &[&service, &outside_id, &user, &settings],
        )
        .await
        .map_err(db_error)?;
        Ok(())
    }

    pub(super) async fn delete_outside_accounts(
        &self,
        service: &str,
        user: i64,
        outside_id: Option<&str>,
    ) -> Result<u64, ApiError> {
        let c = self.client().await?;
        c.execute(
            "DELETE FROM outside_accounts WHERE service = $1 AND user_id = $2 \
             AND ($3::TEXT IS NULL OR outside_id = $3)",
            &[&service, &user, &outside_id],
        )
        .await
        .map_err(db_error)
    }

    pub(super) async fn shown_game(&self, message: &str) -> Result<Option<ShownGame>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT message, game_id, settings FROM shown_games WHERE message = $1",
                &[&message],
            )
            .await
            .map_err(db_error)?;
        Ok(row.as_ref().map(shown_row))
    }

    pub(super) async fn shown_event(&self, message: &str) -> Result<Option<ShownEvent>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT message, tournament_id, settings FROM shown_events WHERE message = $1",
                &[&message],
            )
            .await
            .map_err(db_error)?;
        Ok(row.as_ref().map(event_row))
    }

    pub(super) async fn add_shown_event(&self, shown: ShownEvent) -> Result<(), ApiError> {
        let c = self.client().await?;
        let n = c
            .execute(
                "INSERT INTO shown_events (message, tournament_id, settings) VALUES ($1, $2, $3) \
                 ON CONFLICT (message) DO NOTHING",
                &[&shown.message, &shown.tournament_id, &shown.settings],
            )
            .await
            .map_err(db_error)?;
        if n == 0 {
            return Err(ApiError::conflict(
                "message-taken",
                "this message already shows a tournament",
            ));
        }
        Ok(())
    }

    pub(super) async fn shown_events(&self, prefix: &str) -> Result<Vec<ShownEvent>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT message, tournament_id, settings FROM shown_events \
                 WHERE starts_with(message, $1)",
                &[&prefix],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(event_row).collect())
    }

    pub(super) async fn add_shown_game(&self, shown: ShownGame) -> Result<(), ApiError> {
        let c = self.client().await?;
        let n = c
            .execute(
                "INSERT INTO shown_games (message, game_id, settings) VALUES ($1, $2, $3) \
                 ON CONFLICT (message) DO NOTHING",
                &[&shown.message, &shown.game_id, &shown.settings],
            )
            .await
            .map_err(db_error)?;
        if n == 0 {
            return Err(ApiError::conflict(
                "message-taken",
                "this message already shows a game",
            ));
        }
        Ok(())
    }

    pub(super) async fn shown_unfinished(&self, prefix: &str) -> Result<Vec<ShownGame>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT s.message, s.game_id, s.settings FROM shown_games s \
                 JOIN online_games g ON g.id = s.game_id \
                 WHERE g.status != 'over' AND starts_with(s.message, $1)",
                &[&prefix],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(shown_row).collect())
    }
}

impl PostgresDb {
    pub(super) async fn set_relation(
        &self,
        from: i64,
        to: i64,
        relation: Relation,
        now_ms: i64,
    ) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute(
            "INSERT INTO relations (from_id, to_id, kind, created_ms) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (from_id, to_id) DO UPDATE SET kind = EXCLUDED.kind, \
             created_ms = EXCLUDED.created_ms",
            &[&from, &to, &relation.as_str(), &now_ms],
        )
        .await
        .map_err(db_error)?;
        Ok(())
    }

    pub(super) async fn clear_relation(
        &self,
        from: i64,
        to: i64,
        relation: Relation,
    ) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute(
            "DELETE FROM relations WHERE from_id = $1 AND to_id = $2 AND kind = $3",
            &[&from, &to, &relation.as_str()],
        )
        .await
        .map_err(db_error)?;
        Ok(())
    }

    pub(super) async fn relation(&self, from: i64, to: i64) -> Result<Option<Relation>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT kind FROM relations WHERE from_id = $1 AND to_id = $2",
                &[&from, &to],
            )
            .await
            .map_err(db_error)?;
        Ok(row.and_then(|r| Relation::parse(r.get::<_, &str>(0))))
    }

    pub(super) async fn related(
        &self,
        from: i64,
        relation: Relation,
        limit: i64,
    ) -> Result<Vec<UserRow>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT u.id, u.name, u.password, u.guest, u.bot, u.closed_ms FROM relations r \
                 JOIN users u ON u.id = r.to_id WHERE r.from_id = $1 AND r.kind = $2 \
                 ORDER BY lower(u.name) LIMIT $3",
                &[&from, &relation.as_str(), &limit],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(user_row).collect())
    }

    pub(super) async fn rating_history(&self, user: i64) -> Result<Vec<RatingPoint>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT speed, at_ms, rating FROM rating_history WHERE user_id = $1 ORDER BY id",
                &[&user],
            )
            .await
            .map_err(db_error)?;
        Ok(rows
            .iter()
            .map(|r| RatingPoint {
                speed: r.get(0),
                at_ms: r.get(1),
                rating: r.get(2),
            })
            .collect())
    }

    pub(super) async fn leaderboard(
        &self,
        speed: &str,
        max_deviation: f64,
        active_since_ms: i64,
        limit: i64,
    ) -> Result<Vec<LeaderRow>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                LEADERBOARD_SQL,
                &[&speed, &max_deviation, &active_since_ms, &limit],
            )
            .await
            .map_err(db_error)?;
        Ok(rows
            .iter()
            .map(|r| LeaderRow {
                user: user_row(r),
                rating: rating_row(r, 4),
                before: r.get(8),
            })
            .collect())
    }

    pub(super) async fn record(&self, user: i64) -> Result<GameRecord, ApiError> {
        let c = self.client().await?;
        let r = c.query_one(RECORD_SQL, &[&user]).await.map_err(db_error)?;
        Ok(GameRecord {
            all: r.get(0),
            wins: r.get(1),
            draws: r.get(2),
            losses: r.get(3),
            rated: r.get(4),
        })
    }

    pub(super) async fn games_page(
        &self,
        user: i64,
        filter: GameFilter,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<GameSummary>, i64), ApiError> {
        let c = self.client().await?;
        let (page, count) = games_page_sql(&filter);
        let rows = c
            .query(&page, &[&user, &limit, &offset])
            .await
            .map_err(db_error)?;
        let total: i64 = c
            .query_one(&count, &[&user])
            .await
            .map_err(db_error)?
            .get(0);
        Ok((
            rows.iter()
                .map(|r| {
                    Ok(GameSummary {
                        row: game_row(r)?,
                        names: [r.get(16), r.get(17)],
                        plies: r.get(18),
                    })
                })
                .collect::<Result<_, ApiError>>()?,
            total,
        ))
    }
}

fn event_row(r: &Row) -> ShownEvent {
    ShownEvent {
        message: r.get(0),
        tournament_id: r.get(1),
        settings: r.get(2),
    }
}

fn shown_row(r: &Row) -> ShownGame {
    ShownGame {
        message: r.get(0),
        game_id: r.get(1),
        settings: r.get(2),
    }
}

fn rating_row(r: &Row, from: usize) -> RatingRow {
    RatingRow {
        rating: r.get(from),
        deviation: r.get(from + 1),
        volatility: r.get(from + 2),
        games: r.get(from + 3),
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
        tx.batch_execute(SCHEMA)
            .await
            .map_err(|e| format!("cannot set up the PostgreSQL tables: {e}"))?;
        tx.batch_execute(super::events::POSTGRES_SCHEMA)
            .await
            .map_err(|e| format!("cannot set up the PostgreSQL tables of tournaments: {e}"))?;
        tx.batch_execute(super::explorer::POSTGRES_SCHEMA)
            .await
            .map_err(|e| format!("cannot set up the PostgreSQL tables of the explorer: {e}"))?;
        tx.batch_execute(super::moderation::POSTGRES_SCHEMA)
            .await
            .map_err(|e| format!("cannot set up the PostgreSQL tables of moderation: {e}"))?;
        tx.batch_execute(super::mail::POSTGRES_SCHEMA)
            .await
            .map_err(|e| format!("cannot set up the PostgreSQL e-mail columns: {e}"))?;
        tx.batch_execute(super::two_factor::POSTGRES_SCHEMA)
            .await
            .map_err(|e| format!("cannot set up the PostgreSQL second factors: {e}"))?;
        tx.batch_execute(super::fair_play::POSTGRES_SCHEMA)
            .await
            .map_err(|e| format!("cannot set up the PostgreSQL fair-play scores: {e}"))?;
        tx.commit().await.map_err(|e| e.to_string())?;
        Ok(PostgresDb {
            url: Arc::new(url.to_string()),
            client: Arc::new(Mutex::new(client)),
            fence: Arc::new(std::sync::OnceLock::new()),
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
            return Err(ApiError::Busy(format!(
                "game {id} moved to another server process: try again"
            )));
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

    pub(super) async fn create_user(
        &self,
        name: &str,
        password: Option<String>,
        guest: bool,
        now_ms: i64,
    ) -> Result<UserRow, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_one(
                "INSERT INTO users (name, password, guest, created_ms) VALUES ($1, $2, $3, $4) RETURNING id",
                &[&name, &password, &guest, &now_ms],
            )
            .await
            .map_err(|e| {
                if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
                    ApiError::conflict("name-taken", format!("the name '{name}' is taken"))
                } else {
                    db_error(e)
                }
            })?;
        Ok(UserRow {
            id: row.get(0),
            name: name.to_string(),
            password,
            guest,
            bot: false,
            closed_ms: None,
        })
    }

    pub(super) async fn user_by_name(&self, name: &str) -> Result<Option<UserRow>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT id, name, password, guest, bot, closed_ms FROM users WHERE lower(name) = lower($1)",
                &[&name],
            )
            .await
            .map_err(db_error)?;
        Ok(row.as_ref().map(user_row))
    }

    pub(super) async fn user(&self, id: i64) -> Result<Option<UserRow>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT id, name, password, guest, bot, closed_ms FROM users WHERE id = $1",
                &[&id],
            )
            .await
            .map_err(db_error)?;
        Ok(row.as_ref().map(user_row))
    }

    pub(super) async fn close_user(
        &self,
        user: i64,
        retired: String,
        new_name: String,
        now_ms: i64,
    ) -> Result<(), ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        for sql in CLOSE_ACCOUNT_SQL {
            let all: [&(dyn tokio_postgres::types::ToSql + Sync); 4] =
                [&user, &retired, &new_name, &now_ms];
            let (sql, params) = super::only_used(sql, all);
            tx.execute(sql.as_str(), &params).await.map_err(db_error)?;
        }
        tx.commit().await.map_err(db_error)?;
        Ok(())
    }

    pub(super) async fn name_retired(&self, hash: String) -> Result<bool, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(RETIRED_NAME_SQL, &[&hash])
            .await
            .map_err(db_error)?;
        Ok(row.is_some())
    }

    pub(super) async fn make_bot(&self, user: i64) -> Result<bool, ApiError> {
        let c = self.client().await?;
        c.execute(MAKE_BOT_SQL, &[&user]).await.map_err(db_error)?;
        let row = c
            .query_opt("SELECT bot FROM users WHERE id = $1", &[&user])
            .await
            .map_err(db_error)?;
        Ok(row.is_some_and(|r| r.get::<_, bool>(0)))
    }

    pub(super) async fn add_secret(
        &self,
        user: i64,
        kind: SecretKind,
        hash: String,
        now_ms: i64,
    ) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute(
            "INSERT INTO secrets (hash, user_id, kind, created_ms) VALUES ($1, $2, $3, $4)",
            &[&hash, &user, &kind.as_str(), &now_ms],
        )
        .await
        .map_err(db_error)?;
        Ok(())
    }

    pub(super) async fn user_by_secret(
        &self,
        hash: String,
        kind: SecretKind,
        not_before_ms: i64,
    ) -> Result<Option<UserRow>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT u.id, u.name, u.password, u.guest, u.bot, u.closed_ms FROM secrets s \
                 JOIN users u ON u.id = s.user_id \
                 WHERE s.hash = $1 AND s.kind = $2 AND s.created_ms >= $3",
                &[&hash, &kind.as_str(), &not_before_ms],
            )
            .await
            .map_err(db_error)?;
        Ok(row.as_ref().map(user_row))
    }

    pub(super) async fn secrets_of(
        &self,
        user: i64,
        sessions_since_ms: i64,
    ) -> Result<Vec<SecretRow>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT hash, kind, created_ms FROM secrets WHERE user_id = $1 \
                 AND (kind <> 'session' OR created_ms >= $2) ORDER BY created_ms DESC, hash",
                &[&user, &sessions_since_ms],
            )
            .await
            .map_err(db_error)?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                Some(SecretRow {
                    hash: r.get(0),
                    kind: SecretKind::parse(r.get(1))?,
                    created_ms: r.get(2),
                })
            })
            .collect())
    }

    pub(super) async fn revoke_secrets(
        &self,
        user: i64,
        prefix: Option<String>,
        keep: Option<String>,
    ) -> Result<u64, ApiError> {
        let c = self.client().await?;
        c.execute(REVOKE, &[&user, &prefix, &keep])
            .await
            .map_err(db_error)
    }

    pub(super) async fn set_password(
        &self,
        user: i64,
        hash: String,
        keep: Option<String>,
    ) -> Result<u64, ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        tx.execute(
            "UPDATE users SET password = $2 WHERE id = $1",
            &[&user, &hash],
        )
        .await
        .map_err(db_error)?;
        let n = tx
            .execute(REVOKE, &[&user, &None::<String>, &keep])
            .await
            .map_err(db_error)?;
        tx.commit().await.map_err(db_error)?;
        Ok(n)
    }

    pub(super) async fn delete_expired_sessions(&self, before_ms: i64) -> Result<u64, ApiError> {
        let c = self.client().await?;
        c.execute(
            "DELETE FROM secrets WHERE kind = 'session' AND created_ms < $1",
            &[&before_ms],
        )
        .await
        .map_err(db_error)
    }

    pub(super) async fn withdraw_open(&self, id: &str, outcome: String) -> Result<bool, ApiError> {
        let c = self.client().await?;
        let n = c
            .execute(
                "UPDATE online_games SET status = 'over', outcome = $2, turn_started_ms = NULL \
                 WHERE id = $1 AND status = 'open'",
                &[&id, &outcome],
            )
            .await
            .map_err(db_error)?;
        Ok(n == 1)
    }

    pub(super) async fn open_before(&self, before_ms: i64) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT id FROM online_games WHERE status = 'open' AND created_ms < $1",
                &[&before_ms],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub(super) async fn challenges_to(&self, user: i64) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT id FROM online_games WHERE status = 'open' AND invited_id = $1 \
                 ORDER BY created_ms LIMIT 50",
                &[&user],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub(super) async fn delete_secret(&self, hash: String) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute("DELETE FROM secrets WHERE hash = $1", &[&hash])
            .await
            .map_err(db_error)?;
        Ok(())
    }

    pub(super) async fn rating(
        &self,
        user: i64,
        speed: &str,
    ) -> Result<Option<RatingRow>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT rating, deviation, volatility, games FROM ratings WHERE user_id = $1 AND speed = $2",
                &[&user, &speed],
            )
            .await
            .map_err(db_error)?;
        Ok(row.map(|r| rating_row(&r, 0)))
    }

    pub(super) async fn ratings(&self, user: i64) -> Result<Vec<(String, RatingRow)>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT speed, rating, deviation, volatility, games FROM ratings WHERE user_id = $1 ORDER BY speed",
                &[&user],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| (r.get(0), rating_row(r, 1))).collect())
    }

    pub(super) async fn save_game(&self, g: OnlineGameRow) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute(
            &format!(
                "INSERT INTO online_games ({GAME_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) \
                 ON CONFLICT (id) DO UPDATE SET {}",
                super::upsert_set(GAME_COLUMNS)
            ),
            &[
                &g.id,
                &g.created_ms,
                &g.players[0],
                &g.players[1],
                &g.initial_ms,
                &g.increment_ms,
                &g.rated,
                &g.chat,
                &g.status,
                &g.outcome,
                &g.turn_started_ms,
                &g.diffs[0],
                &g.diffs[1],
                &g.invited,
                &g.rules.name(),
                &g.event,
            ],
        )
        .await
        .map_err(db_error)?;
        Ok(())
    }

    pub(super) async fn add_move(
        &self,
        id: &str,
        ply: usize,
        token: String,
        elapsed_ms: i64,
        turn_started_ms: i64,
    ) -> Result<(), ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        self.check_fence(&tx, id).await?;
        tx.execute(
            "INSERT INTO online_moves (game_id, ply, token, elapsed_ms) VALUES ($1, $2, $3, $4)",
            &[&id, &(ply as i64), &token, &elapsed_ms],
        )
        .await
        .map_err(db_error)?;
        tx.execute(
            "UPDATE online_games SET turn_started_ms = $2 WHERE id = $1",
            &[&id, &turn_started_ms],
        )
        .await
        .map_err(db_error)?;
        tx.commit().await.map_err(db_error)
    }

    pub(super) async fn truncate_moves(
        &self,
        id: &str,
        ply: usize,
        turn_started_ms: i64,
    ) -> Result<(), ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        self.check_fence(&tx, id).await?;
        tx.execute(
            "DELETE FROM online_moves WHERE game_id = $1 AND ply >= $2",
            &[&id, &(ply as i64)],
        )
        .await
        .map_err(db_error)?;
        tx.execute(
            "UPDATE online_games SET turn_started_ms = $2 WHERE id = $1",
            &[&id, &turn_started_ms],
        )
        .await
        .map_err(db_error)?;
        tx.commit().await.map_err(db_error)
    }

    pub(super) async fn finish(
        &self,
        id: &str,
        outcome: String,
        rated: Option<RatedResult>,
    ) -> Result<[Option<i64>; 2], ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        self.check_fence(&tx, id).await?;
        let ended = tx
            .execute(
                "UPDATE online_games SET status = 'over', outcome = $2, turn_started_ms = NULL \
                 WHERE id = $1 AND status <> 'over'",
                &[&id, &outcome],
            )
            .await
            .map_err(db_error)?;
        let mut diffs = [None, None];
        if let (1, Some(rated)) = (ended, rated) {
            // Both rating rows exist, then are locked in the order of their ids (two games of
            // the same pair ending at once must not deadlock) and held until the commit.
            let start = rating::initial();
            for user in [rated.white, rated.black] {
                tx.execute(
                    "INSERT INTO ratings (user_id, speed, rating, deviation, volatility, games) \
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (user_id, speed) DO NOTHING",
                    &[
                        &user,
                        &rated.speed,
                        &start.rating,
                        &start.deviation,
                        &start.volatility,
                        &start.games,
                    ],
                )
                .await
                .map_err(db_error)?;
            }
            let rows = tx
                .query(
                    "SELECT user_id, rating, deviation, volatility, games FROM ratings \
                     WHERE speed = $1 AND user_id IN ($2, $3) ORDER BY user_id FOR UPDATE",
                    &[&rated.speed, &rated.white, &rated.black],
                )
                .await
                .map_err(db_error)?;
            let of = |user: i64| {
                rows.iter()
                    .find(|r| r.get::<_, i64>(0) == user)
                    .map(|r| rating_row(r, 1))
                    .unwrap_or(start)
            };
            let (white, black) = (of(rated.white), of(rated.black));
            if let Some((nw, nb, d)) = rated.apply(&white, &black) {
                for (user, r) in [(rated.white, nw), (rated.black, nb)] {
                    tx.execute(
                        "UPDATE ratings SET rating = $3, deviation = $4, volatility = $5, games = $6 \
                         WHERE user_id = $1 AND speed = $2",
                        &[&user, &rated.speed, &r.rating, &r.deviation, &r.volatility, &r.games],
                    )
                    .await
                    .map_err(db_error)?;
                    tx.execute(
                        "INSERT INTO rating_history (user_id, speed, at_ms, rating) VALUES ($1, $2, $3, $4)",
                        &[&user, &rated.speed, &rated.at_ms, &r.rating],
                    )
                    .await
                    .map_err(db_error)?;
                }
                tx.execute(
                    "UPDATE online_games SET white_diff = $2, black_diff = $3 WHERE id = $1",
                    &[&id, &d[0], &d[1]],
                )
                .await
                .map_err(db_error)?;
                diffs = d;
            }
        }
        tx.commit().await.map_err(db_error)?;
        Ok(diffs)
    }

    pub(super) async fn game(
        &self,
        id: &str,
    ) -> Result<Option<(OnlineGameRow, Vec<(String, i64)>)>, ApiError> {
        let c = self.client().await?;
        let Some(row) = c
            .query_opt(
                &format!("SELECT {GAME_COLUMNS} FROM online_games WHERE id = $1"),
                &[&id],
            )
            .await
            .map_err(db_error)?
        else {
            return Ok(None);
        };
        let moves = c
            .query(
                "SELECT token, elapsed_ms FROM online_moves WHERE game_id = $1 ORDER BY ply",
                &[&id],
            )
            .await
            .map_err(db_error)?;
        Ok(Some((
            game_row(&row)?,
            moves.iter().map(|m| (m.get(0), m.get(1))).collect(),
        )))
    }

    pub(super) async fn ended_among(
        &self,
        ids: &[String],
    ) -> Result<Vec<(String, Option<String>)>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT id, outcome FROM online_games WHERE status = 'over' AND id = ANY($1)",
                &[&ids],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    pub(super) async fn unfinished(&self) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query("SELECT id FROM online_games WHERE status != 'over'", &[])
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub(super) async fn playing_of(&self, user: i64, limit: i64) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT id FROM online_games WHERE status = 'playing' \
                 AND (white_id = $1 OR black_id = $1) ORDER BY created_ms DESC LIMIT $2",
                &[&user, &limit],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub(super) async fn outside_ids_of(
        &self,
        service: &str,
        user: i64,
    ) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT outside_id FROM outside_accounts WHERE service = $1 AND user_id = $2 \
                 ORDER BY outside_id",
                &[&service, &user],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub(super) async fn games_of(
        &self,
        user: i64,
        limit: i64,
    ) -> Result<Vec<GameSummary>, ApiError> {
        let c = self.client().await?;
        let cols = GAME_COLUMNS
            .split(", ")
            .map(|col| format!("g.{col}"))
            .collect::<Vec<_>>()
            .join(", ");
        let rows = c
            .query(
                &format!(
                    "SELECT {cols}, w.name, b.name, \
                     (SELECT COUNT(*) FROM online_moves m WHERE m.game_id = g.id) \
                     FROM online_games g LEFT JOIN users w ON w.id = g.white_id \
                     LEFT JOIN users b ON b.id = g.black_id \
                     WHERE g.white_id = $1 OR g.black_id = $1 ORDER BY g.created_ms DESC LIMIT $2"
                ),
                &[&user, &limit],
            )
            .await
            .map_err(db_error)?;
        rows.iter()
            .map(|r| {
                Ok(GameSummary {
                    row: game_row(r)?,
                    names: [r.get(16), r.get(17)],
                    plies: r.get(18),
                })
            })
            .collect()
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
