//! The SQLite store's accounts: users, secrets, accounts of other services, relations.

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::db::{
    AccountStore, OutsideAccount, Relation, SecretKind, SecretRow, UserRow, CLOSE_ACCOUNT_SQL,
    MAKE_BOT_SQL, RETIRED_NAME_SQL,
};
use crate::error::ApiError;

use super::{numbered, user_row, SqliteDb};

#[async_trait]
impl AccountStore for SqliteDb {
    async fn create_user(
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

    async fn user_by_name(&self, name: &str) -> Result<Option<UserRow>, ApiError> {
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

    async fn user(&self, id: i64) -> Result<Option<UserRow>, ApiError> {
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

    async fn close_user(
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
                let (sql, params) = crate::db::only_used(sql, all);
                tx.execute(&numbered(&sql), params.as_slice())?;
            }
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn name_retired(&self, hash: String) -> Result<bool, ApiError> {
        self.with(move |c| {
            Ok(c.query_row(&numbered(RETIRED_NAME_SQL), [hash], |_| Ok(()))
                .optional()?
                .is_some())
        })
        .await
    }

    async fn make_bot(&self, user: i64) -> Result<bool, ApiError> {
        self.with(move |c| {
            c.execute(&numbered(MAKE_BOT_SQL), [user])?;
            let bot: Option<bool> = c
                .query_row("SELECT bot FROM users WHERE id = ?1", [user], |r| r.get(0))
                .optional()?;
            Ok(bot == Some(true))
        })
        .await
    }

    async fn add_secret(
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

    async fn user_by_secret(
        &self,
        hash: String,
        kind: SecretKind,
        not_before_ms: i64,
    ) -> Result<Option<UserRow>, ApiError> {
        // On a read-only connection: every request and socket of a signed-in player asks
        // this, and on the writing one it queued behind the moves' commits (WAL: a secret
        // committed or deleted before is seen here).
        self.read(move |c| {
            Ok(c.prepare_cached(
                "SELECT u.id, u.name, u.password, u.guest, u.bot, u.closed_ms FROM secrets s \
                 JOIN users u ON u.id = s.user_id \
                 WHERE s.hash = ?1 AND s.kind = ?2 AND s.created_ms >= ?3",
            )?
            .query_row(params![hash, kind.as_str(), not_before_ms], user_row)
            .optional()?)
        })
        .await
    }

    async fn secrets_of(
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

    async fn revoke_secrets(
        &self,
        user: i64,
        prefix: Option<String>,
        keep: Option<String>,
    ) -> Result<u64, ApiError> {
        self.with(move |c| Ok(revoke(c, user, prefix.as_deref(), keep.as_deref())?))
            .await
    }

    async fn set_password(
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

    async fn delete_expired_sessions(&self, before_ms: i64) -> Result<u64, ApiError> {
        self.with(move |c| {
            Ok(c.execute(
                "DELETE FROM secrets WHERE kind = 'session' AND created_ms < ?1",
                [before_ms],
            )? as u64)
        })
        .await
    }

    async fn delete_secret(&self, hash: String) -> Result<(), ApiError> {
        self.with(move |c| {
            c.execute("DELETE FROM secrets WHERE hash = ?1", [hash])?;
            Ok(())
        })
        .await
    }

    async fn outside_ids_of(&self, service: &str, user: i64) -> Result<Vec<String>, ApiError> {
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

    async fn outside_account(
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

    async fn set_outside_account(
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

    async fn delete_outside_accounts(
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

    async fn set_relation(
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

    async fn clear_relation(&self, from: i64, to: i64, relation: Relation) -> Result<(), ApiError> {
        self.with(move |c| {
            c.execute(
                "DELETE FROM relations WHERE from_id = ?1 AND to_id = ?2 AND kind = ?3",
                params![from, to, relation.as_str()],
            )?;
            Ok(())
        })
        .await
    }

    async fn relation(&self, from: i64, to: i64) -> Result<Option<Relation>, ApiError> {
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

    async fn related(
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
