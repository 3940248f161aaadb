//! The PostgreSQL store's accounts: users, secrets, accounts of other services, relations.

use async_trait::async_trait;
use tokio_postgres::error::SqlState;

use crate::db::{
    AccountStore, OutsideAccount, Relation, SecretKind, SecretRow, UserRow, CLOSE_ACCOUNT_SQL,
    MAKE_BOT_SQL, RETIRED_NAME_SQL,
};
use crate::error::ApiError;

use super::{db_error, user_row, PostgresDb};

#[async_trait]
impl AccountStore for PostgresDb {
    async fn outside_account(
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

    async fn set_outside_account(
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

    async fn delete_outside_accounts(
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

    async fn set_relation(
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

    async fn clear_relation(&self, from: i64, to: i64, relation: Relation) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute(
            "DELETE FROM relations WHERE from_id = $1 AND to_id = $2 AND kind = $3",
            &[&from, &to, &relation.as_str()],
        )
        .await
        .map_err(db_error)?;
        Ok(())
    }

    async fn relation(&self, from: i64, to: i64) -> Result<Option<Relation>, ApiError> {
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

    async fn related(
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

    async fn create_user(
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

    async fn user_by_name(&self, name: &str) -> Result<Option<UserRow>, ApiError> {
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

    async fn user(&self, id: i64) -> Result<Option<UserRow>, ApiError> {
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

    async fn close_user(
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
            let (sql, params) = crate::db::only_used(sql, all);
            tx.execute(sql.as_str(), &params).await.map_err(db_error)?;
        }
        tx.commit().await.map_err(db_error)?;
        Ok(())
    }

    async fn name_retired(&self, hash: String) -> Result<bool, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(RETIRED_NAME_SQL, &[&hash])
            .await
            .map_err(db_error)?;
        Ok(row.is_some())
    }

    async fn make_bot(&self, user: i64) -> Result<bool, ApiError> {
        let c = self.client().await?;
        c.execute(MAKE_BOT_SQL, &[&user]).await.map_err(db_error)?;
        let row = c
            .query_opt("SELECT bot FROM users WHERE id = $1", &[&user])
            .await
            .map_err(db_error)?;
        Ok(row.is_some_and(|r| r.get::<_, bool>(0)))
    }

    async fn add_secret(
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

    async fn user_by_secret(
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

    async fn secrets_of(
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

    async fn revoke_secrets(
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

    async fn set_password(
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

    async fn delete_expired_sessions(&self, before_ms: i64) -> Result<u64, ApiError> {
        let c = self.client().await?;
        c.execute(
            "DELETE FROM secrets WHERE kind = 'session' AND created_ms < $1",
            &[&before_ms],
        )
        .await
        .map_err(db_error)
    }

    async fn delete_secret(&self, hash: String) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute("DELETE FROM secrets WHERE hash = $1", &[&hash])
            .await
            .map_err(db_error)?;
        Ok(())
    }

    async fn outside_ids_of(&self, service: &str, user: i64) -> Result<Vec<String>, ApiError> {
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
}

/// Deletes a user's secrets whose hash starts with `$2` (all when it is null), but `$3`.
const REVOKE: &str = "DELETE FROM secrets WHERE user_id = $1 \
    AND ($2::text IS NULL OR left(hash, length($2::text)) = $2::text) \
    AND ($3::text IS NULL OR hash <> $3::text)";
