//! Stored second factors and API tokens' scopes, in both stores. A table `two_factor` holds
//! an account's TOTP secret (base32, pending until a code turns it on at `enabled_ms`) and the
//! last time step a code was accepted at (`last_step`, so that no code is accepted twice); the
//! recovery codes are rows of `secrets` of kind [`super::SecretKind::RecoveryCode`], kept as SHA-256
//! hashes like sessions; a token's scopes and description are two columns of `secrets`. Kept
//! apart from the rest of the schema so that it applies to any older database by name.

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use async_trait::async_trait;

use crate::error::ApiError;

use super::postgres::{db_error, PostgresDb};
use super::sqlite::SqliteDb;

/// The SQLite table and columns (applied by name to any older database).
pub(super) fn sqlite_migrate(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS two_factor (
            user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            secret TEXT NOT NULL,
            enabled_ms INTEGER,
            last_step INTEGER
        );",
    )?;
    super::sqlite::add_column(conn, "secrets", "scopes", "TEXT")?;
    super::sqlite::add_column(conn, "secrets", "description", "TEXT")
}

/// The PostgreSQL table and columns.
pub(super) const POSTGRES_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS two_factor (
    user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    secret TEXT NOT NULL,
    enabled_ms BIGINT,
    last_step BIGINT
);
ALTER TABLE secrets ADD COLUMN IF NOT EXISTS scopes TEXT;
ALTER TABLE secrets ADD COLUMN IF NOT EXISTS description TEXT;
";

/// An account's TOTP secret as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TwoFactorRow {
    /// The shared secret, base32 (RFC 4648, no padding).
    pub secret: String,
    /// When a code turned it on (Unix ms); none while it is only set up.
    pub enabled_ms: Option<i64>,
    /// The last time step (Unix seconds / 30) a code was accepted at.
    pub last_step: Option<i64>,
}

/// An API token's scopes and description as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRow {
    /// The SHA-256 hash of the token (hexadecimal).
    pub hash: String,
    /// The scopes, space-separated; none for a token that may do everything.
    pub scopes: Option<String>,
    /// What its owner said it is for.
    pub description: Option<String>,
}

/// The stored kind of a recovery code ([`super::SecretKind::RecoveryCode`]).
const RECOVERY: &str = "recovery-code";

/// Second factors (TOTP and recovery codes) and API tokens' scopes.
#[async_trait]
pub trait TwoFactorStore: Send + Sync {
    /// `user`'s TOTP secret, set up or turned on, if any.
    async fn two_factor(&self, user: i64) -> Result<Option<TwoFactorRow>, ApiError>;

    /// Keeps `secret` as `user`'s TOTP secret, pending (replacing a pending one); false, and
    /// nothing changed, when a second factor is already on.
    async fn set_pending_two_factor(&self, user: i64, secret: String) -> Result<bool, ApiError>;

    /// In one transaction: turns `user`'s pending secret on at `now_ms`, with `step` as the
    /// last step used, and replaces the recovery codes with the hashes `codes`; false when
    /// nothing was pending.
    async fn enable_two_factor(
        &self,
        user: i64,
        step: i64,
        now_ms: i64,
        codes: Vec<String>,
    ) -> Result<bool, ApiError>;

    /// Uses time step `step` for `user`: true when it is later than the last one used (then it
    /// is the last one), false when a code of that step or a later one was accepted already.
    async fn use_two_factor_step(&self, user: i64, step: i64) -> Result<bool, ApiError>;

    /// Uses up `user`'s recovery code with hash `hash`: true when it was one of theirs.
    async fn use_recovery_code(&self, user: i64, hash: String) -> Result<bool, ApiError>;

    /// Forgets `user`'s TOTP secret and recovery codes; false when there was no secret.
    async fn disable_two_factor(&self, user: i64) -> Result<bool, ApiError>;

    /// How many recovery codes `user` has left.
    async fn recovery_codes_left(&self, user: i64) -> Result<i64, ApiError>;

    /// Stores the scopes (space-separated; none for all) and description of token `hash`.
    async fn set_token_scopes(
        &self,
        hash: String,
        scopes: Option<String>,
        description: Option<String>,
    ) -> Result<(), ApiError>;

    /// `user`'s API tokens with their scopes and descriptions.
    async fn tokens_of(&self, user: i64) -> Result<Vec<TokenRow>, ApiError>;

    /// The scopes stored with token `hash` (none: all, or no such token).
    async fn token_scopes(&self, hash: String) -> Result<Option<String>, ApiError>;
}

#[async_trait]
impl TwoFactorStore for SqliteDb {
    async fn two_factor(&self, user: i64) -> Result<Option<TwoFactorRow>, ApiError> {
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT secret, enabled_ms, last_step FROM two_factor WHERE user_id = ?1",
                [user],
                |r| {
                    Ok(TwoFactorRow {
                        secret: r.get(0)?,
                        enabled_ms: r.get(1)?,
                        last_step: r.get(2)?,
                    })
                },
            )
            .optional()?)
        })
        .await
    }

    async fn set_pending_two_factor(&self, user: i64, secret: String) -> Result<bool, ApiError> {
        self.with(move |c| {
            Ok(c.execute(
                "INSERT INTO two_factor (user_id, secret) VALUES (?1, ?2) \
                 ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, \
                 enabled_ms = NULL, last_step = NULL WHERE two_factor.enabled_ms IS NULL",
                params![user, secret],
            )? == 1)
        })
        .await
    }

    async fn enable_two_factor(
        &self,
        user: i64,
        step: i64,
        now_ms: i64,
        codes: Vec<String>,
    ) -> Result<bool, ApiError> {
        self.with(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let n = tx.execute(
                "UPDATE two_factor SET enabled_ms = ?2, last_step = ?3 \
                 WHERE user_id = ?1 AND enabled_ms IS NULL",
                params![user, now_ms, step],
            )?;
            if n != 1 {
                return Ok(false);
            }
            tx.execute(
                "DELETE FROM secrets WHERE user_id = ?1 AND kind = ?2",
                params![user, RECOVERY],
            )?;
            for hash in codes {
                tx.execute(
                    "INSERT INTO secrets (hash, user_id, kind, created_ms) VALUES (?1, ?2, ?3, ?4)",
                    params![hash, user, RECOVERY, now_ms],
                )?;
            }
            tx.commit()?;
            Ok(true)
        })
        .await
    }

    async fn use_two_factor_step(&self, user: i64, step: i64) -> Result<bool, ApiError> {
        self.with(move |c| {
            Ok(c.execute(
                "UPDATE two_factor SET last_step = ?2 WHERE user_id = ?1 \
                 AND enabled_ms IS NOT NULL AND (last_step IS NULL OR last_step < ?2)",
                params![user, step],
            )? == 1)
        })
        .await
    }

    async fn use_recovery_code(&self, user: i64, hash: String) -> Result<bool, ApiError> {
        self.with(move |c| {
            Ok(c.execute(
                "DELETE FROM secrets WHERE hash = ?1 AND user_id = ?2 AND kind = ?3",
                params![hash, user, RECOVERY],
            )? == 1)
        })
        .await
    }

    async fn disable_two_factor(&self, user: i64) -> Result<bool, ApiError> {
        self.with(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let n = tx.execute("DELETE FROM two_factor WHERE user_id = ?1", [user])?;
            tx.execute(
                "DELETE FROM secrets WHERE user_id = ?1 AND kind = ?2",
                params![user, RECOVERY],
            )?;
            tx.commit()?;
            Ok(n == 1)
        })
        .await
    }

    async fn recovery_codes_left(&self, user: i64) -> Result<i64, ApiError> {
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM secrets WHERE user_id = ?1 AND kind = ?2",
                params![user, RECOVERY],
                |r| r.get(0),
            )?)
        })
        .await
    }

    async fn set_token_scopes(
        &self,
        hash: String,
        scopes: Option<String>,
        description: Option<String>,
    ) -> Result<(), ApiError> {
        self.with(move |c| {
            c.execute(
                "UPDATE secrets SET scopes = ?2, description = ?3 WHERE hash = ?1 AND kind = 'token'",
                params![hash, scopes, description],
            )?;
            Ok(())
        })
        .await
    }

    async fn tokens_of(&self, user: i64) -> Result<Vec<TokenRow>, ApiError> {
        self.with(move |c| {
            let mut st = c.prepare(
                "SELECT hash, scopes, description FROM secrets WHERE user_id = ?1 AND kind = 'token'",
            )?;
            let rows = st
                .query_map([user], |r| {
                    Ok(TokenRow {
                        hash: r.get(0)?,
                        scopes: r.get(1)?,
                        description: r.get(2)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
        .await
    }

    async fn token_scopes(&self, hash: String) -> Result<Option<String>, ApiError> {
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT scopes FROM secrets WHERE hash = ?1 AND kind = 'token'",
                [hash],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()?
            .flatten())
        })
        .await
    }
}

#[async_trait]
impl TwoFactorStore for PostgresDb {
    async fn two_factor(&self, user: i64) -> Result<Option<TwoFactorRow>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT secret, enabled_ms, last_step FROM two_factor WHERE user_id = $1",
                &[&user],
            )
            .await
            .map_err(db_error)?;
        Ok(row.map(|r| TwoFactorRow {
            secret: r.get(0),
            enabled_ms: r.get(1),
            last_step: r.get(2),
        }))
    }

    async fn set_pending_two_factor(&self, user: i64, secret: String) -> Result<bool, ApiError> {
        let c = self.client().await?;
        let n = c
            .execute(
                "INSERT INTO two_factor (user_id, secret) VALUES ($1, $2) \
                 ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, \
                 enabled_ms = NULL, last_step = NULL WHERE two_factor.enabled_ms IS NULL",
                &[&user, &secret],
            )
            .await
            .map_err(db_error)?;
        Ok(n == 1)
    }

    async fn enable_two_factor(
        &self,
        user: i64,
        step: i64,
        now_ms: i64,
        codes: Vec<String>,
    ) -> Result<bool, ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        let n = tx
            .execute(
                "UPDATE two_factor SET enabled_ms = $2, last_step = $3 \
                 WHERE user_id = $1 AND enabled_ms IS NULL",
                &[&user, &now_ms, &step],
            )
            .await
            .map_err(db_error)?;
        if n != 1 {
            return Ok(false);
        }
        tx.execute(
            "DELETE FROM secrets WHERE user_id = $1 AND kind = $2",
            &[&user, &RECOVERY],
        )
        .await
        .map_err(db_error)?;
        for hash in &codes {
            tx.execute(
                "INSERT INTO secrets (hash, user_id, kind, created_ms) VALUES ($1, $2, $3, $4)",
                &[hash, &user, &RECOVERY, &now_ms],
            )
            .await
            .map_err(db_error)?;
        }
        tx.commit().await.map_err(db_error)?;
        Ok(true)
    }

    async fn use_two_factor_step(&self, user: i64, step: i64) -> Result<bool, ApiError> {
        let c = self.client().await?;
        let n = c
            .execute(
                "UPDATE two_factor SET last_step = $2 WHERE user_id = $1 \
                 AND enabled_ms IS NOT NULL AND (last_step IS NULL OR last_step < $2)",
                &[&user, &step],
            )
            .await
            .map_err(db_error)?;
        Ok(n == 1)
    }

    async fn use_recovery_code(&self, user: i64, hash: String) -> Result<bool, ApiError> {
        let c = self.client().await?;
        let n = c
            .execute(
                "DELETE FROM secrets WHERE hash = $1 AND user_id = $2 AND kind = $3",
                &[&hash, &user, &RECOVERY],
            )
            .await
            .map_err(db_error)?;
        Ok(n == 1)
    }

    async fn disable_two_factor(&self, user: i64) -> Result<bool, ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        let n = tx
            .execute("DELETE FROM two_factor WHERE user_id = $1", &[&user])
            .await
            .map_err(db_error)?;
        tx.execute(
            "DELETE FROM secrets WHERE user_id = $1 AND kind = $2",
            &[&user, &RECOVERY],
        )
        .await
        .map_err(db_error)?;
        tx.commit().await.map_err(db_error)?;
        Ok(n == 1)
    }

    async fn recovery_codes_left(&self, user: i64) -> Result<i64, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_one(
                "SELECT COUNT(*) FROM secrets WHERE user_id = $1 AND kind = $2",
                &[&user, &RECOVERY],
            )
            .await
            .map_err(db_error)?;
        Ok(row.get(0))
    }

    async fn set_token_scopes(
        &self,
        hash: String,
        scopes: Option<String>,
        description: Option<String>,
    ) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute(
            "UPDATE secrets SET scopes = $2, description = $3 WHERE hash = $1 AND kind = 'token'",
            &[&hash, &scopes, &description],
        )
        .await
        .map_err(db_error)?;
        Ok(())
    }

    async fn tokens_of(&self, user: i64) -> Result<Vec<TokenRow>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT hash, scopes, description FROM secrets WHERE user_id = $1 AND kind = 'token'",
                &[&user],
            )
            .await
            .map_err(db_error)?;
        Ok(rows
            .iter()
            .map(|r| TokenRow {
                hash: r.get(0),
                scopes: r.get(1),
                description: r.get(2),
            })
            .collect())
    }

    async fn token_scopes(&self, hash: String) -> Result<Option<String>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT scopes FROM secrets WHERE hash = $1 AND kind = 'token'",
                &[&hash],
            )
            .await
            .map_err(db_error)?;
        Ok(row.and_then(|r| r.get::<_, Option<String>>(0)))
    }
}
