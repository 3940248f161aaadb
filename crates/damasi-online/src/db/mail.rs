//! Stored e-mail addresses and the one-time links mailed to them (confirming an address,
//! resetting a password), in both stores. The address is two columns of `users` (`email`,
//! unique whatever the case when set, and `email_confirmed_ms`); the links are rows of
//! `secrets` of their own kinds ([`SecretKind::ConfirmEmail`], [`SecretKind::PasswordReset`]),
//! kept as SHA-256 hashes like sessions. Kept apart from the rest of the schema so that the
//! columns can be added to any older database by name.

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use tokio_postgres::error::SqlState;

use async_trait::async_trait;

use crate::error::ApiError;

use super::postgres::{db_error, PostgresDb};
use super::sqlite::SqliteDb;
use super::{SecretKind, UserRow};

/// The SQLite columns and index (applied by column name to any older database).
pub(super) fn sqlite_migrate(conn: &Connection) -> rusqlite::Result<()> {
    super::sqlite::add_column(conn, "users", "email", "TEXT")?;
    super::sqlite::add_column(conn, "users", "email_confirmed_ms", "INTEGER")?;
    conn.execute_batch(
        "CREATE UNIQUE INDEX IF NOT EXISTS users_email ON users (lower(email)) \
         WHERE email IS NOT NULL;",
    )
}

/// The PostgreSQL columns and index.
pub(super) const POSTGRES_SCHEMA: &str = "
ALTER TABLE users ADD COLUMN IF NOT EXISTS email TEXT;
ALTER TABLE users ADD COLUMN IF NOT EXISTS email_confirmed_ms BIGINT;
CREATE UNIQUE INDEX IF NOT EXISTS users_email ON users (lower(email)) WHERE email IS NOT NULL;
";

/// An account's e-mail address as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmailRow {
    /// The address as its owner typed it (compared whatever the case).
    pub address: String,
    /// When a mailed link confirmed it (Unix ms); none while unconfirmed.
    pub confirmed_ms: Option<i64>,
}

/// The refusal of an address another account has.
fn email_taken() -> ApiError {
    ApiError::conflict(
        "email-taken",
        "this e-mail address belongs to another account",
    )
}

const USER_COLUMNS: &str =
    "u.id, u.name, u.password, u.guest, u.bot, u.email, u.email_confirmed_ms, u.closed_ms";

fn sqlite_user(r: &rusqlite::Row<'_>) -> rusqlite::Result<(UserRow, Option<EmailRow>)> {
    let address: Option<String> = r.get(5)?;
    Ok((
        UserRow {
            id: r.get(0)?,
            name: r.get(1)?,
            password: r.get(2)?,
            guest: r.get(3)?,
            bot: r.get(4)?,
            closed_ms: r.get(7)?,
        },
        address.map(|address| EmailRow {
            address,
            confirmed_ms: r.get(6).ok().flatten(),
        }),
    ))
}

fn postgres_user(r: &tokio_postgres::Row) -> (UserRow, Option<EmailRow>) {
    let address: Option<String> = r.get(5);
    (
        UserRow {
            id: r.get(0),
            name: r.get(1),
            password: r.get(2),
            guest: r.get(3),
            bot: r.get(4),
            closed_ms: r.get(7),
        },
        address.map(|address| EmailRow {
            address,
            confirmed_ms: r.get(6),
        }),
    )
}

/// SQL: forget `$1`'s secrets of the kinds a password reset voids (sessions, reset links, link
/// codes), keeping API tokens and e-mail confirmations.
const VOID_ON_RESET: &str = "DELETE FROM secrets WHERE user_id = $1 \
    AND kind IN ('session', 'password-reset', 'link')";

/// Accounts' e-mail addresses and mailed one-time links.
#[async_trait]
pub trait MailStore: Send + Sync {
    /// Account `id` with its e-mail address, if it has one.
    async fn user_and_email(
        &self,
        id: i64,
    ) -> Result<Option<(UserRow, Option<EmailRow>)>, ApiError>;

    /// The account whose e-mail address is `address` (whatever the case), with it.
    async fn user_by_email(
        &self,
        address: &str,
    ) -> Result<Option<(UserRow, Option<EmailRow>)>, ApiError>;

    /// Sets (or with `None` removes) `user`'s e-mail address, confirmed at `confirmed_ms` or
    /// not confirmed, and voids the confirmation links mailed before; 409 `email-taken` when
    /// another account has the address (whatever the case).
    async fn set_email(
        &self,
        user: i64,
        address: Option<String>,
        confirmed_ms: Option<i64>,
    ) -> Result<(), ApiError>;

    /// Uses up the secret of `kind` with hash `hash`: it is forgotten (expired or not), and its
    /// owner is returned when it was issued at `not_before_ms` or later (else none).
    async fn take_secret(
        &self,
        hash: String,
        kind: SecretKind,
        not_before_ms: i64,
    ) -> Result<Option<i64>, ApiError>;

    /// Marks `user`'s e-mail address confirmed at `now_ms`; false when it has none.
    async fn confirm_email(&self, user: i64, now_ms: i64) -> Result<bool, ApiError>;

    /// In one transaction: if `hash` is a password-reset link issued at `not_before_ms` or
    /// later, sets its owner's password hash to `password` and forgets the owner's sessions,
    /// reset links (this one too) and link codes, keeping API tokens. Returns the owner and how
    /// many secrets were forgotten; none when the link is not (or no longer) valid.
    async fn reset_password(
        &self,
        hash: String,
        not_before_ms: i64,
        password: String,
    ) -> Result<Option<(i64, u64)>, ApiError>;

    /// Forgets the secrets of `kind` issued before `before_ms` (expired links); how many.
    async fn delete_expired_links(&self, kind: SecretKind, before_ms: i64)
        -> Result<u64, ApiError>;
}

#[async_trait]
impl MailStore for SqliteDb {
    async fn user_and_email(
        &self,
        id: i64,
    ) -> Result<Option<(UserRow, Option<EmailRow>)>, ApiError> {
        self.with(move |c| {
            Ok(c.query_row(
                &format!("SELECT {USER_COLUMNS} FROM users u WHERE u.id = ?1"),
                [id],
                sqlite_user,
            )
            .optional()?)
        })
        .await
    }

    async fn user_by_email(
        &self,
        address: &str,
    ) -> Result<Option<(UserRow, Option<EmailRow>)>, ApiError> {
        let address = address.to_string();
        self.with(move |c| {
            Ok(c.query_row(
                &format!("SELECT {USER_COLUMNS} FROM users u WHERE lower(u.email) = lower(?1)"),
                [address],
                sqlite_user,
            )
            .optional()?)
        })
        .await
    }

    async fn set_email(
        &self,
        user: i64,
        address: Option<String>,
        confirmed_ms: Option<i64>,
    ) -> Result<(), ApiError> {
        self.with(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            if let Some(a) = &address {
                let other: Option<i64> = tx
                    .query_row(
                        "SELECT id FROM users WHERE lower(email) = lower(?1) AND id <> ?2",
                        params![a, user],
                        |r| r.get(0),
                    )
                    .optional()?;
                if other.is_some() {
                    return Err(email_taken());
                }
            }
            tx.execute(
                "UPDATE users SET email = ?2, email_confirmed_ms = ?3 WHERE id = ?1",
                params![user, address, confirmed_ms],
            )?;
            tx.execute(
                "DELETE FROM secrets WHERE user_id = ?1 AND kind = 'confirm-email'",
                [user],
            )?;
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn take_secret(
        &self,
        hash: String,
        kind: SecretKind,
        not_before_ms: i64,
    ) -> Result<Option<i64>, ApiError> {
        self.with(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let row: Option<(i64, i64)> = tx
                .query_row(
                    "SELECT user_id, created_ms FROM secrets WHERE hash = ?1 AND kind = ?2",
                    params![hash, kind.as_str()],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            tx.execute(
                "DELETE FROM secrets WHERE hash = ?1 AND kind = ?2",
                params![hash, kind.as_str()],
            )?;
            tx.commit()?;
            Ok(row.and_then(|(user, created)| (created >= not_before_ms).then_some(user)))
        })
        .await
    }

    async fn confirm_email(&self, user: i64, now_ms: i64) -> Result<bool, ApiError> {
        self.with(move |c| {
            Ok(c.execute(
                "UPDATE users SET email_confirmed_ms = ?2 WHERE id = ?1 AND email IS NOT NULL",
                params![user, now_ms],
            )? == 1)
        })
        .await
    }

    async fn reset_password(
        &self,
        hash: String,
        not_before_ms: i64,
        password: String,
    ) -> Result<Option<(i64, u64)>, ApiError> {
        self.with(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let user: Option<i64> = tx
                .query_row(
                    "SELECT user_id FROM secrets WHERE hash = ?1 AND kind = 'password-reset' \
                     AND created_ms >= ?2",
                    params![hash, not_before_ms],
                    |r| r.get(0),
                )
                .optional()?;
            let Some(user) = user else {
                return Ok(None);
            };
            tx.execute(
                "UPDATE users SET password = ?2 WHERE id = ?1",
                params![user, password],
            )?;
            let n = tx.execute(&VOID_ON_RESET.replace('$', "?"), [user])? as u64;
            tx.commit()?;
            Ok(Some((user, n)))
        })
        .await
    }

    async fn delete_expired_links(
        &self,
        kind: SecretKind,
        before_ms: i64,
    ) -> Result<u64, ApiError> {
        self.with(move |c| {
            Ok(c.execute(
                "DELETE FROM secrets WHERE kind = ?1 AND created_ms < ?2",
                params![kind.as_str(), before_ms],
            )? as u64)
        })
        .await
    }
}

#[async_trait]
impl MailStore for PostgresDb {
    async fn user_and_email(
        &self,
        id: i64,
    ) -> Result<Option<(UserRow, Option<EmailRow>)>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                &format!("SELECT {USER_COLUMNS} FROM users u WHERE u.id = $1"),
                &[&id],
            )
            .await
            .map_err(db_error)?;
        Ok(row.as_ref().map(postgres_user))
    }

    async fn user_by_email(
        &self,
        address: &str,
    ) -> Result<Option<(UserRow, Option<EmailRow>)>, ApiError> {
        let address = address.to_string();
        let c = self.client().await?;
        let row = c
            .query_opt(
                &format!("SELECT {USER_COLUMNS} FROM users u WHERE lower(u.email) = lower($1)"),
                &[&address],
            )
            .await
            .map_err(db_error)?;
        Ok(row.as_ref().map(postgres_user))
    }

    async fn set_email(
        &self,
        user: i64,
        address: Option<String>,
        confirmed_ms: Option<i64>,
    ) -> Result<(), ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        tx.execute(
            "UPDATE users SET email = $2, email_confirmed_ms = $3 WHERE id = $1",
            &[&user, &address, &confirmed_ms],
        )
        .await
        .map_err(|e| {
            if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
                email_taken()
            } else {
                db_error(e)
            }
        })?;
        tx.execute(
            "DELETE FROM secrets WHERE user_id = $1 AND kind = 'confirm-email'",
            &[&user],
        )
        .await
        .map_err(db_error)?;
        tx.commit().await.map_err(db_error)
    }

    async fn take_secret(
        &self,
        hash: String,
        kind: SecretKind,
        not_before_ms: i64,
    ) -> Result<Option<i64>, ApiError> {
        let c = self.client().await?;
        // The row deleted says whose it was: of two requests with one link, one wins.
        let row = c
            .query_opt(
                "DELETE FROM secrets WHERE hash = $1 AND kind = $2 RETURNING user_id, created_ms",
                &[&hash, &kind.as_str()],
            )
            .await
            .map_err(db_error)?;
        Ok(row.and_then(|r| {
            let created: i64 = r.get(1);
            (created >= not_before_ms).then(|| r.get(0))
        }))
    }

    async fn confirm_email(&self, user: i64, now_ms: i64) -> Result<bool, ApiError> {
        let c = self.client().await?;
        let n = c
            .execute(
                "UPDATE users SET email_confirmed_ms = $2 WHERE id = $1 AND email IS NOT NULL",
                &[&user, &now_ms],
            )
            .await
            .map_err(db_error)?;
        Ok(n == 1)
    }

    async fn reset_password(
        &self,
        hash: String,
        not_before_ms: i64,
        password: String,
    ) -> Result<Option<(i64, u64)>, ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        let row = tx
            .query_opt(
                "SELECT user_id FROM secrets WHERE hash = $1 AND kind = 'password-reset' \
                 AND created_ms >= $2 FOR UPDATE",
                &[&hash, &not_before_ms],
            )
            .await
            .map_err(db_error)?;
        let Some(row) = row else {
            return Ok(None);
        };
        let user: i64 = row.get(0);
        tx.execute(
            "UPDATE users SET password = $2 WHERE id = $1",
            &[&user, &password],
        )
        .await
        .map_err(db_error)?;
        let n = tx
            .execute(VOID_ON_RESET, &[&user])
            .await
            .map_err(db_error)?;
        tx.commit().await.map_err(db_error)?;
        Ok(Some((user, n)))
    }

    async fn delete_expired_links(
        &self,
        kind: SecretKind,
        before_ms: i64,
    ) -> Result<u64, ApiError> {
        let c = self.client().await?;
        c.execute(
            "DELETE FROM secrets WHERE kind = $1 AND created_ms < $2",
            &[&kind.as_str(), &before_ms],
        )
        .await
        .map_err(db_error)
    }
}
