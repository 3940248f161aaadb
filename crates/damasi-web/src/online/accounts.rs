//! Accounts: sign-up with a name and a password (argon2id), log-in sessions in an HttpOnly
//! cookie, guests (a name and a session, no password, casual games only), and API tokens for
//! programs (`Authorization: Bearer`). Secrets are random 128-bit values shown once; the
//! database keeps only their SHA-256 hashes, and nothing here logs a password or a secret.

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;
use axum::http::header::{self, HeaderMap};
use sha2::{Digest, Sha256};
use std::sync::OnceLock;
use std::time::Duration;
use tokio::sync::Semaphore;

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
    let ok_len = (2..=20).contains(&name.len());
    // ASCII only: names are unique case-insensitively, and only ASCII has one case folding
    // everybody agrees on (no Cyrillic 'а' passing for 'a', no full-width letters, no
    // Turkish dotted/dotless i pairs that fold differently by locale).
    let ok_chars = name
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_');
    let starts = name.bytes().next().is_some_and(|c| c.is_ascii_alphabetic());
    if !(ok_len && ok_chars && starts) {
        return Err(ApiError::BadRequest(
            "a name has 2 to 20 ASCII letters, digits, '-' or '_', and starts with a letter".into(),
        ));
    }
    let lower = name.to_ascii_lowercase();
    let reserved = RESERVED_NAMES.contains(&lower.as_str())
        || RESERVED_PREFIXES.iter().any(|p| lower.starts_with(p));
    if reserved {
        return Err(ApiError::conflict(
            "name-reserved",
            format!("the name '{name}' is reserved"),
        ));
    }
    Ok(())
}

/// Names nobody can sign up with: they would pass for the site, its staff or the engine.
const RESERVED_NAMES: &[&str] = &[
    "admin",
    "administrator",
    "root",
    "system",
    "damasi",
    "moderator",
    "mod",
    "staff",
    "support",
    "help",
    "official",
    "anonymous",
    "engine",
    "server",
    "null",
    "undefined",
];

/// Name beginnings that are the site's own (guests are `Guest-xxxxxx`).
const RESERVED_PREFIXES: &[&str] = &["guest-", "guest_", "damasi-", "damasi_", "admin-", "admin_"];

fn check_password(password: &str) -> Result<(), ApiError> {
    let n = password.chars().count();
    if n < MIN_PASSWORD || password.len() > MAX_PASSWORD {
        return Err(ApiError::BadRequest(format!(
            "a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters"
        )));
    }
    Ok(())
}

/// The commonest passwords (of 8 characters or more), which guessers try first, lower case,
/// one a line.
const COMMON_PASSWORDS: &str = include_str!("common_passwords.txt");

/// Refuses a new password that is one of the commonest (the list in `common_passwords.txt`,
/// whatever the case) or the account's name.
pub fn check_new_password(name: &str, password: &str) -> Result<(), ApiError> {
    let lower = password.trim().to_lowercase();
    if lower == name.trim().to_lowercase() {
        return Err(ApiError::BadRequest(
            "a password must not be the name: choose another".into(),
        ));
    }
    if COMMON_PASSWORDS
        .lines()
        .any(|common| common.trim() == lower)
    {
        return Err(ApiError::BadRequest(
            "this password is one of the commonest, which are guessed first: choose another".into(),
        ));
    }
    Ok(())
}

/// Password hashes computed at once, at most: argon2id takes 19 MiB and tens of ms of a
/// core each, so an unbounded number (one per log-in attempt) would take the machine's memory
/// and every other request's CPU.
fn hashing_slots() -> &'static Semaphore {
    static SLOTS: OnceLock<Semaphore> = OnceLock::new();
    SLOTS
        .get_or_init(|| Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get())))
}

/// Longest a log-in or sign-up waits for a hashing slot before it is told to try again.
const HASHING_WAIT: Duration = Duration::from_secs(2);

/// Runs `f` (a password hash or check) on a blocking thread when a hashing slot is free.
async fn with_hashing_slot<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    in_slot(hashing_slots(), HASHING_WAIT, f).await
}

/// Runs `f` on a blocking thread with a permit of `slots`, waiting at most `wait` for one.
async fn in_slot<T: Send + 'static>(
    slots: &Semaphore,
    wait: Duration,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let _slot = tokio::time::timeout(wait, slots.acquire())
        .await
        .map_err(|_| {
            ApiError::Overloaded("too many log-ins at once: try again in a moment".into())
        })?
        .map_err(|_| ApiError::Internal("the hashing slots are closed".into()))?;
    tokio::task::spawn_blocking(f).await?
}

/// The argon2id hash (PHC string) of `password`, on a blocking thread (it takes tens of ms).
pub async fn hash_password(password: String) -> Result<String, ApiError> {
    check_password(&password)?;
    with_hashing_slot(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| ApiError::Internal(format!("password hashing: {e}")))
    })
    .await
}

/// Whether `password` matches the stored hash, on a blocking thread.
pub async fn verify_password(password: String, hash: String) -> Result<bool, ApiError> {
    if password.len() > MAX_PASSWORD {
        return Ok(false);
    }
    with_hashing_slot(move || {
        let parsed = PasswordHash::new(&hash)
            .map_err(|e| ApiError::Internal(format!("stored password hash: {e}")))?;
        Ok(Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok())
    })
    .await
}

/// A hash no password matches, checked for names without a password so that a refusal takes
/// as long for an unknown name as for a wrong password (the time does not tell which names
/// exist).
async fn decoy_hash() -> Result<String, ApiError> {
    static DECOY: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    DECOY
        .get_or_try_init(|| async { hash_password(new_secret()?).await })
        .await
        .cloned()
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
        check_password(&password)?;
        check_new_password(name, &password)?;
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
        let hash = match user.as_ref().and_then(|u| u.password.clone()) {
            Some(hash) => hash,
            None => decoy_hash().await?,
        };
        let matches = verify_password(password, hash).await?;
        match user {
            Some(user) if matches && user.password.is_some() => Ok(user.into()),
            _ => Err(refused()),
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
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn password_work_runs_in_a_few_slots_and_a_long_queue_is_refused() {
        // Thirty log-ins at once through two slots: never more than two run.
        let slots = Arc::new(Semaphore::new(2));
        let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let tasks: Vec<_> = (0..30)
            .map(|_| {
                let (slots, now, most) = (slots.clone(), now.clone(), most.clone());
                tokio::spawn(async move {
                    in_slot(&slots, Duration::from_secs(60), move || {
                        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(5));
                        now.fetch_sub(1, Ordering::SeqCst);
                        Ok(())
                    })
                    .await
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 2);
        // Every slot taken for longer than the wait: a 503 to try again, not a queue.
        let _held = slots.acquire_many(2).await.unwrap();
        let e = in_slot(&slots, Duration::from_millis(50), || Ok(()))
            .await
            .unwrap_err();
        assert_eq!((e.status().as_u16(), e.code()), (503, "server-busy"));
    }

    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(check_name("ali").is_ok());
        assert!(check_name("Ayse_1").is_ok());
        // Only ASCII: look-alikes and letters whose case folds by locale are refused.
        assert!(check_name("Ayşe").is_err());
        assert!(check_name("\u{430}dmin").is_err()); // Cyrillic а
        assert!(check_name("ＡＤＭＩＮ").is_err()); // full-width
                                                    // The site's own names, in any case.
        assert_eq!(check_name("ADMIN").unwrap_err().code(), "name-reserved");
        assert_eq!(
            check_name("Guest-abc123").unwrap_err().code(),
            "name-reserved"
        );
        assert_eq!(check_name("damasi").unwrap_err().code(), "name-reserved");
        assert!(check_name("guestbook").is_ok());
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
