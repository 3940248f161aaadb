//! Accounts: sign-up with a name and a password (argon2id), log-in sessions in an HttpOnly
//! cookie, guests (a name and a session, no password, casual games only), and API tokens for
//! programs (`Authorization: Bearer`). Secrets are random 128-bit values shown once; the
//! database keeps only their SHA-256 hashes, and nothing here logs a password or a secret.

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;
use axum::http::header::{self, HeaderMap};
use sha2::{Digest, Sha256};

use crate::error::ApiError;

use super::db::{OnlineDb, SecretKind, UserRow};

/// The cookie that carries a browser's session.
pub const SESSION_COOKIE: &str = "damasi_session";

/// Shortest password accepted.
pub const MIN_PASSWORD: usize = 8;

/// Longest password accepted (argon2 takes any length; this bounds the work per request).
pub const MAX_PASSWORD: usize = 256;

/// Who is asking: an account (or guest) found from the request's session cookie or token.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Player {
    /// Account id.
    pub id: i64,
    /// Name shown to others.
    pub name: String,
    /// Whether it is a guest.
    pub guest: bool,
}

impl Player {
    /// Refuses a rated game to a guest.
    pub fn check_may_play(&self, rated: bool) -> Result<(), ApiError> {
        if rated && self.guest {
            Err(guests_casual_only(
                "guests play casual games only: sign up to play rated games",
            ))
        } else {
            Ok(())
        }
    }
}

/// The refusal (403 `guests-casual-only`) of what only an account may have.
pub fn guests_casual_only(message: &str) -> ApiError {
    ApiError::Forbidden {
        code: "guests-casual-only",
        message: message.into(),
    }
}

impl From<UserRow> for Player {
    fn from(u: UserRow) -> Player {
        Player {
            id: u.id,
            name: u.name,
            guest: u.guest,
        }
    }
}

/// A new random secret: 32 hexadecimal digits (128 bits from the operating system).
pub fn new_secret() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::Internal(format!("no random numbers: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The hash kept for a secret.
pub fn secret_hash(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Checks a name for an account: 2 to 20 letters, digits, `-` or `_`, starting with a letter.
pub fn check_name(name: &str) -> Result<(), ApiError> {
    let ok_len = (2..=20).contains(&name.chars().count());
    let ok_chars = name
        .chars()
        .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    let starts = name.chars().next().is_some_and(char::is_alphabetic);
    if ok_len && ok_chars && starts {
        Ok(())
    } else {
        Err(ApiError::BadRequest(
            "a name has 2 to 20 letters, digits, '-' or '_', and starts with a letter".into(),
        ))
    }
}

fn check_password(password: &str) -> Result<(), ApiError> {
    let n = password.chars().count();
    if n < MIN_PASSWORD || password.len() > MAX_PASSWORD {
        return Err(ApiError::BadRequest(format!(
            "a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters"
        )));
    }
    Ok(())
}

/// The argon2id hash (PHC string) of `password`, on a blocking thread (it takes tens of ms).
pub async fn hash_password(password: String) -> Result<String, ApiError> {
    check_password(&password)?;
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| ApiError::Internal(format!("password hashing: {e}")))
    })
    .await?
}

/// Whether `password` matches the stored hash, on a blocking thread.
pub async fn verify_password(password: String, hash: String) -> Result<bool, ApiError> {
    if password.len() > MAX_PASSWORD {
        return Ok(false);
    }
    tokio::task::spawn_blocking(move || {
        let parsed = PasswordHash::new(&hash)
            .map_err(|e| ApiError::Internal(format!("stored password hash: {e}")))?;
        Ok(Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok())
    })
    .await?
}

/// Accounts over the online database.
#[derive(Clone)]
pub struct Accounts {
    db: OnlineDb,
}

impl Accounts {
    /// Accounts kept in `db`.
    pub fn new(db: OnlineDb) -> Accounts {
        Accounts { db }
    }

    /// Creates an account with a password.
    pub async fn sign_up(
        &self,
        name: &str,
        password: String,
        now: i64,
    ) -> Result<Player, ApiError> {
        check_name(name)?;
        let hash = hash_password(password).await?;
        Ok(self
            .db
            .create_user(name, Some(hash), false, now)
            .await?
            .into())
    }

    /// Creates an account without a password, for a program (`damasi user add`).
    pub async fn add_bot(&self, name: &str, now: i64) -> Result<Player, ApiError> {
        check_name(name)?;
        Ok(self.db.create_user(name, None, false, now).await?.into())
    }

    /// Creates a guest: `Guest-` and a few random digits.
    pub async fn guest(&self, now: i64) -> Result<Player, ApiError> {
        for _ in 0..8 {
            let name = format!("Guest-{}", &new_secret()?[..6]);
            match self.db.create_user(&name, None, true, now).await {
                Ok(u) => return Ok(u.into()),
                Err(ApiError::Conflict { .. }) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(ApiError::Internal("no free guest name".into()))
    }

    /// The account if `name` and `password` match; the same answer for an unknown name and a
    /// wrong password, so names cannot be probed through it.
    pub async fn log_in(&self, name: &str, password: String) -> Result<Player, ApiError> {
        let refused = || ApiError::Unauthorized("wrong name or password".into());
        let user = self.db.user_by_name(name).await?;
        let Some(user) = user else {
            return Err(refused());
        };
        let Some(hash) = user.password.clone() else {
            return Err(refused());
        };
        if verify_password(password, hash).await? {
            Ok(user.into())
        } else {
            Err(refused())
        }
    }

    /// A new secret of `kind` for `player`, returned once.
    pub async fn issue(&self, player: i64, kind: SecretKind, now: i64) -> Result<String, ApiError> {
        let secret = new_secret()?;
        self.db
            .add_secret(player, kind, secret_hash(&secret), now)
            .await?;
        Ok(secret)
    }

    /// A new API token for the account called `name`.
    pub async fn token_for(&self, name: &str, now: i64) -> Result<String, ApiError> {
        let user = self
            .db
            .user_by_name(name)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("no account called '{name}'")))?;
        self.issue(user.id, SecretKind::Token, now).await
    }

    /// Forgets a session (log-out).
    pub async fn end_session(&self, secret: &str) -> Result<(), ApiError> {
        self.db.delete_secret(secret_hash(secret)).await
    }

    /// Who sent the request: a `Bearer` token, else the session cookie. `Ok(None)` when it
    /// carries neither; a token that is not valid is an error (a program should know).
    pub async fn identify(&self, headers: &HeaderMap) -> Result<Option<Player>, ApiError> {
        if let Some(token) = bearer(headers) {
            return match self
                .db
                .user_by_secret(secret_hash(token), SecretKind::Token)
                .await?
            {
                Some(u) => Ok(Some(u.into())),
                None => Err(ApiError::Unauthorized("the API token is not valid".into())),
            };
        }
        match session_cookie(headers) {
            Some(s) => Ok(self
                .db
                .user_by_secret(secret_hash(s), SecretKind::Session)
                .await?
                .map(Player::from)),
            None => Ok(None),
        }
    }
}

/// The `Authorization: Bearer` token of a request.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|a| a.strip_prefix("Bearer "))
        .map(str::trim)
}

/// The session cookie of a request.
pub fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|c| c.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == SESSION_COOKIE)
        .map(|(_, v)| v)
}

/// The `Set-Cookie` value for a session: HttpOnly, SameSite=Lax, and Secure when the page was
/// reached over HTTPS (behind a reverse proxy that says so).
pub fn session_set_cookie(secret: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{SESSION_COOKIE}={secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000{secure}")
}

/// The `Set-Cookie` value that removes the session.
pub fn session_clear_cookie() -> String {
    format!("{SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(check_name("ali").is_ok());
        assert!(check_name("Ayşe_1").is_ok());
        assert!(check_name("a").is_err());
        assert!(check_name("1abc").is_err());
        assert!(check_name("a b").is_err());
        assert!(check_name("abcdefghijklmnopqrstu").is_err());
    }

    #[test]
    fn secrets_are_random_and_hashed() {
        let a = new_secret().unwrap();
        let b = new_secret().unwrap();
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert_eq!(secret_hash(&a).len(), 64);
        assert_ne!(secret_hash(&a), a);
    }

    #[tokio::test]
    async fn passwords_verify_only_themselves() {
        let h = hash_password("correct horse".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify_password("correct horse".into(), h.clone())
            .await
            .unwrap());
        assert!(!verify_password("wrong horse!".into(), h).await.unwrap());
        assert!(hash_password("short".into()).await.is_err());
    }
}
