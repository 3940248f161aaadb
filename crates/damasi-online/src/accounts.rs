//! Accounts: sign-up with a name and a password (argon2id), log-in sessions in an HttpOnly
//! cookie, guests (a name and a session, no password, casual games only), and API tokens for
//! programs (`Authorization: Bearer`). Secrets are random 128-bit values shown once; the
//! database keeps only their SHA-256 hashes, and nothing here logs a password or a secret.

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::broadcast;

use crate::error::ApiError;
use crate::hashing::Hashers;

use crate::now_ms;

use super::db::{OnlineDb, SecretKind, SecretRow, UserRow};

/// How long a log-in session lasts: the cookie's `Max-Age`, and the server refuses a session
/// older than this even if a browser kept it.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(30 * 24 * 60 * 60);

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
    /// Whether it is a BOT account (lichess's title): it plays through the Bot API only, is
    /// challenged directly, and stays out of the lobby and the pools.
    #[serde(default)]
    pub bot: bool,
}

/// The way a request to play reached the server: lichess's two APIs for programs. The site's
/// own pages, sockets and chat front ends are people's, as the Board API is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// The Board API, the pages and the chat front ends: people only.
    Board,
    /// The Bot API: BOT accounts only.
    Bot,
}

/// lichess's title of a BOT account, shown beside its name wherever a name is shown.
pub const BOT_TITLE: &str = "BOT";

impl Player {
    /// The title shown beside the name: [`BOT_TITLE`] for a BOT.
    pub fn title(&self) -> Option<&'static str> {
        self.bot.then_some(BOT_TITLE)
    }

    /// Refuses a BOT on the Board API (and the pages), and a person on the Bot API, as
    /// lichess does (403 `bot-account` or `not-a-bot`).
    pub fn check_api(&self, api: Api) -> Result<(), ApiError> {
        match (api, self.bot) {
            (Api::Board, true) => Err(ApiError::Forbidden {
                code: "bot-account",
                message: format!(
                    "{} is a BOT account: it plays through the Bot API (/api/bot/...) only",
                    self.name
                ),
            }),
            (Api::Bot, false) => Err(ApiError::Forbidden {
                code: "not-a-bot",
                message: format!(
                    "the Bot API is for BOT accounts only: upgrade {} with POST \
                     /api/bot/account/upgrade (an account that has played no game), or use \
                     the Board API (/api/board/...)",
                    self.name
                ),
            }),
            _ => Ok(()),
        }
    }

    /// Refuses a BOT in the lobby and the pools, which are for people (403 `bot-account`): a
    /// BOT is challenged directly.
    pub fn check_lobby(&self) -> Result<(), ApiError> {
        if self.bot {
            Err(ApiError::Forbidden {
                code: "bot-account",
                message: format!(
                    "{} is a BOT account: BOTs do not take seeks or pools with people; \
                     challenge one directly",
                    self.name
                ),
            })
        } else {
            Ok(())
        }
    }

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
            bot: u.bot,
        }
    }
}

/// A new random secret: 32 hexadecimal digits (128 bits from the operating system).
pub fn new_secret() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::Internal(format!("no random numbers: {e}")))?;
    Ok(crate::hex(&bytes))
}

/// The hash kept for a secret.
pub fn secret_hash(secret: &str) -> String {
    crate::hex(&Sha256::digest(secret.as_bytes()))
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

/// Name beginnings that are the site's own (guests are `Guest-xxxxxx`, Telegram's players
/// `tg-name`, the engine's seats `damasi-level-N`).
const RESERVED_PREFIXES: &[&str] = &[
    "guest-", "guest_", "damasi-", "damasi_", "admin-", "admin_", "tg-", "tg_", "closed-",
    "closed_",
];

/// Checks a password's length: [`MIN_PASSWORD`] to [`MAX_PASSWORD`].
pub fn check_password(password: &str) -> Result<(), ApiError> {
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

/// The threads that hash and check passwords (see [`crate::hashing`]): one a core, at most
/// [`MAX_WAITING_LOG_INS`] waiting for them, each for at most [`HASHING_WAIT`].
fn hashers() -> &'static Hashers {
    static HASHERS: OnceLock<Hashers> = OnceLock::new();
    HASHERS.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        Hashers::start(threads, MAX_WAITING_LOG_INS, HASHING_WAIT)
    })
}

/// Longest a log-in or sign-up waits for a password thread before it is told to try again.
/// The queue is first come, first served, and the web layer lets one log-in an address wait
/// at a time, so a visitor is answered after at most one hash per address waiting.
pub const HASHING_WAIT: Duration = Duration::from_secs(10);

/// Most log-ins and sign-ups waiting for a password thread; more are refused at once.
pub const MAX_WAITING_LOG_INS: usize = 1000;

/// Runs `f` (a password hash or check) on a password thread.
async fn with_hashing_slot<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    hashers().run(f).await
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
pub(crate) async fn decoy_hash() -> Result<String, ApiError> {
    static DECOY: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    DECOY
        .get_or_try_init(|| async { hash_password(new_secret()?).await })
        .await
        .cloned()
}

/// What a request proved who it is with: the hash of its session or token, never the secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credential {
    /// The SHA-256 hash of the secret, as stored.
    pub hash: String,
    /// A session cookie or an API token.
    pub kind: SecretKind,
}

impl Credential {
    /// The short handle that names it in the list of an account's sessions and tokens.
    pub fn handle(&self) -> &str {
        handle_of(&self.hash)
    }
}

/// Revocation notices a socket or stream may fall behind by before it checks its session
/// anyway.
const REVOCATIONS_KEPT: usize = 64;

/// Hexadecimal digits of a stored hash that name a session or token to its owner
/// (`GET /api/account/sessions`): short, and telling nothing of the secret.
pub const HANDLE_LEN: usize = 8;

/// The handle of a stored hash: its first [`HANDLE_LEN`] digits.
pub fn handle_of(hash: &str) -> &str {
    hash.get(..HANDLE_LEN).unwrap_or(hash)
}

/// The service name of Telegram accounts (`outside_accounts.service`).
pub const TELEGRAM: &str = "telegram";

/// The hash a closed account's name is kept out of use by, whatever its case.
pub fn retired_hash(name: &str) -> String {
    secret_hash(&format!("retired-name:{}", name.to_ascii_lowercase()))
}

/// Accounts over the online database.
#[derive(Clone)]
pub struct Accounts {
    pub(crate) db: OnlineDb,
    /// The account whose session or token was revoked in this process, so its sockets and
    /// streams check theirs again at once.
    revoked: broadcast::Sender<i64>,
    /// How many revocations this process has made: a socket whose last check is younger
    /// than every revocation need not ask the database again ([`Accounts::still_valid_since`]).
    revocations: Arc<AtomicU64>,
    /// Whether other server processes share the database (a cluster), whose revocations this
    /// one does not count: then every action is checked against the database.
    shared: bool,
}

impl Accounts {
    /// Accounts kept in `db`.
    pub fn new(db: OnlineDb) -> Accounts {
        Accounts {
            db,
            revoked: broadcast::channel(REVOCATIONS_KEPT).0,
            revocations: Arc::new(AtomicU64::new(0)),
            shared: false,
        }
    }

    /// The same accounts, for one process of a cluster.
    pub(crate) fn shared(self) -> Accounts {
        Accounts {
            shared: true,
            ..self
        }
    }

    /// The ids of the accounts whose sessions or tokens are revoked in this process, as they
    /// are.
    pub fn revocations(&self) -> broadcast::Receiver<i64> {
        self.revoked.subscribe()
    }

    pub(crate) fn revoked_now(&self, user: i64) {
        self.revocations.fetch_add(1, Ordering::SeqCst);
        let _ = self.revoked.send(user);
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
        self.check_not_retired(name).await?;
        let hash = hash_password(password).await?;
        Ok(self
            .db
            .create_user(name, Some(hash), false, now)
            .await?
            .into())
    }

    /// Refuses `name` if a closed account had it (409 `name-taken`, as for a name in use):
    /// nobody takes the name of a closed account and passes for its player.
    async fn check_not_retired(&self, name: &str) -> Result<(), ApiError> {
        if self.db.name_retired(retired_hash(name)).await? {
            return Err(ApiError::conflict(
                "name-taken",
                format!("the name '{name}' is taken"),
            ));
        }
        Ok(())
    }

    /// Makes `player`'s account a BOT, for good (lichess's `POST /api/bot/account/upgrade`):
    /// refused to a guest (403 `guests-casual-only`) and to an account that has played a game
    /// (409 `games-played`, as lichess refuses it). An account that is a BOT already is
    /// answered as it is.
    pub async fn upgrade_to_bot(&self, player: &Player) -> Result<Player, ApiError> {
        if player.guest {
            return Err(guests_casual_only(
                "a guest cannot become a BOT: make an account for the program \
                 (`damasi user add NAME` prints its token)",
            ));
        }
        if !self.db.make_bot(player.id).await? {
            return Err(ApiError::conflict(
                "games-played",
                format!(
                    "{} has played games: only an account that has played none can become a \
                     BOT (as on lichess); make a new account for the program",
                    player.name
                ),
            ));
        }
        Ok(Player {
            bot: true,
            ..player.clone()
        })
    }

    /// Creates an account without a password, for a program (`damasi user add`): a person's
    /// account, which the Board API plays for, until [`Accounts::upgrade_to_bot`] makes it a
    /// BOT.
    pub async fn add_bot(&self, name: &str, now: i64) -> Result<Player, ApiError> {
        check_name(name)?;
        self.check_not_retired(name).await?;
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
        let hash = secret_hash(secret);
        let owner = self
            .db
            .user_by_secret(hash.clone(), SecretKind::Session, i64::MIN)
            .await?;
        self.db.delete_secret(hash).await?;
        if let Some(user) = owner {
            self.revoked_now(user.id);
        }
        Ok(())
    }

    /// Who sent a request, from the API token it carries (checked first) or else its session
    /// secret, with the credential used (to check later that it still stands, or to keep it
    /// when the others are revoked). `Ok(None)` when it carries neither; a token that is not
    /// valid is an error (a program should know).
    pub async fn identify_by(
        &self,
        token: Option<&str>,
        session: Option<&str>,
    ) -> Result<Option<(Player, Credential)>, ApiError> {
        if let Some(token) = token {
            let cred = Credential {
                hash: secret_hash(token),
                kind: SecretKind::Token,
            };
            return match self.check(&cred).await? {
                Some(p) => Ok(Some((p, cred))),
                None => Err(ApiError::Unauthorized("the API token is not valid".into())),
            };
        }
        match session {
            Some(s) => {
                let cred = Credential {
                    hash: secret_hash(s),
                    kind: SecretKind::Session,
                };
                Ok(self.check(&cred).await?.map(|p| (p, cred)))
            }
            None => Ok(None),
        }
    }

    /// The account API token `token` opens, if it is one and has not been revoked (lichess's
    /// `POST /api/token/test`).
    pub async fn token_owner(&self, token: &str) -> Result<Option<Player>, ApiError> {
        self.check(&Credential {
            hash: secret_hash(token),
            kind: SecretKind::Token,
        })
        .await
    }

    /// The account `cred` opens, if it has not been revoked (nor expired, for a session).
    pub async fn check(&self, cred: &Credential) -> Result<Option<Player>, ApiError> {
        let not_before = match cred.kind {
            SecretKind::Session => now_ms().saturating_sub(SESSION_LIFETIME.as_millis() as i64),
            SecretKind::Token => i64::MIN,
            // A link code opens nothing: it only ties an account of another service; the
            // mailed links are used once, by their own routes (`recovery`).
            SecretKind::Link
            | SecretKind::ConfirmEmail
            | SecretKind::PasswordReset
            | SecretKind::RecoveryCode => return Ok(None),
        };
        Ok(self
            .db
            .user_by_secret(cred.hash.clone(), cred.kind, not_before)
            .await?
            .map(Player::from))
    }

    /// Whether `cred` still opens `player`'s account.
    pub async fn still_valid(&self, player: &Player, cred: &Credential) -> Result<bool, ApiError> {
        Ok(self.check(cred).await?.is_some_and(|p| p.id == player.id))
    }

    /// [`Accounts::still_valid`] for a connection that acts again and again (a game's
    /// WebSocket), `last` its last good check: the database is asked again only when this
    /// process revoked a session or token since, or the last check is [`TRUST_CHECK_FOR`]
    /// old, or other processes share the database. A move then costs no query, and a
    /// revocation made here still stops the very next action.
    pub async fn still_valid_since(
        &self,
        player: &Player,
        cred: &Credential,
        last: &mut Option<Checked>,
    ) -> Result<bool, ApiError> {
        // Read before the query: a revocation made during it is seen by the next action.
        let epoch = self.revocations.load(Ordering::SeqCst);
        let fresh = |c: &Checked| c.epoch == epoch && c.at.elapsed() < TRUST_CHECK_FOR;
        if !self.shared && last.as_ref().is_some_and(fresh) {
            return Ok(true);
        }
        let valid = self.still_valid(player, cred).await?;
        *last = valid.then(|| Checked {
            epoch,
            at: std::time::Instant::now(),
        });
        Ok(valid)
    }

    /// Forgets the sessions older than [`SESSION_LIFETIME`] (refused already; this keeps the
    /// table small). Returns how many.
    pub async fn forget_expired(&self) -> Result<u64, ApiError> {
        let before = now_ms().saturating_sub(SESSION_LIFETIME.as_millis() as i64);
        let links = self.forget_expired_links(now_ms()).await?;
        Ok(self.db.delete_expired_sessions(before).await? + links)
    }

    /// `player`'s sessions (not expired) and API tokens, newest first (not the one-time codes
    /// and links, which open no session).
    pub async fn secrets_of(&self, player: &Player) -> Result<Vec<SecretRow>, ApiError> {
        let since = now_ms().saturating_sub(SESSION_LIFETIME.as_millis() as i64);
        let mut rows = self.db.secrets_of(player.id, since).await?;
        rows.retain(|r| matches!(r.kind, SecretKind::Session | SecretKind::Token));
        Ok(rows)
    }

    /// Unties the Telegram users linked to `player`'s account (`/link`), or only Telegram user
    /// `outside_id`: the bot then plays them as a guest again and the Mini App gives them no
    /// session of the account, until they link again with a new code. A guest of the bot's own
    /// (`tg-`) is its Telegram user's only account and is left as it is. Returns how many.
    pub async fn unlink(&self, player: &Player, outside_id: Option<&str>) -> Result<u64, ApiError> {
        if player.guest {
            return Ok(0);
        }
        self.db
            .delete_outside_accounts(TELEGRAM, player.id, outside_id)
            .await
    }

    /// Revokes `player`'s sessions and tokens: the one named by `handle` (see [`handle_of`]),
    /// or all of them without one, but `keep`; all of them also unties the account's linked
    /// Telegram users ([`Accounts::unlink`]), whose Mini App would give a new session.
    /// Returns how many sessions and tokens were revoked.
    pub async fn revoke(
        &self,
        player: &Player,
        handle: Option<&str>,
        keep: Option<&Credential>,
    ) -> Result<u64, ApiError> {
        let prefix = match handle {
            Some(h) => {
                let h = h.to_ascii_lowercase();
                if h.len() != HANDLE_LEN || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(ApiError::BadRequest(format!(
                        "a session's id is {HANDLE_LEN} hexadecimal digits (see GET /api/account/sessions)"
                    )));
                }
                Some(h)
            }
            None => None,
        };
        if prefix.is_none() {
            self.unlink(player, None).await?;
        }
        let n = self
            .db
            .revoke_secrets(player.id, prefix, keep.map(|c| c.hash.clone()))
            .await?;
        if n > 0 {
            self.revoked_now(player.id);
        }
        Ok(n)
    }

    /// Revokes exactly `cred`, a session or token of `player`'s.
    pub async fn revoke_credential(
        &self,
        player: &Player,
        cred: &Credential,
    ) -> Result<(), ApiError> {
        self.db.delete_secret(cred.hash.clone()).await?;
        self.revoked_now(player.id);
        Ok(())
    }

    /// Changes `player`'s password from `old` to `new` (checked as at sign-up) and revokes
    /// every other session and token of theirs, keeping `keep` (the one the request came
    /// with), and unties the account's linked Telegram users ([`Accounts::unlink`]). A wrong `old` is a 403 `wrong-password`; an account without a password (a guest,
    /// a bot made from the command line) is a 409 `no-password`. Returns how many sessions and
    /// tokens were revoked.
    pub async fn change_password(
        &self,
        player: &Player,
        keep: &Credential,
        old: String,
        new: String,
    ) -> Result<u64, ApiError> {
        check_password(&new)?;
        check_new_password(&player.name, &new)?;
        let user = self
            .db
            .user(player.id)
            .await?
            .ok_or_else(|| ApiError::Unauthorized("the account is gone".into()))?;
        let Some(hash) = user.password else {
            return Err(ApiError::conflict(
                "no-password",
                "this account has no password to change",
            ));
        };
        if !verify_password(old, hash).await? {
            return Err(wrong_password());
        }
        let new_hash = hash_password(new).await?;
        self.unlink(player, None).await?;
        let n = self
            .db
            .set_password(player.id, new_hash, Some(keep.hash.clone()))
            .await?;
        self.revoked_now(player.id);
        Ok(n)
    }
}

/// How often a socket or stream checks that its session or token still stands even without a
/// notice (a revocation made by another server process sharing the database).
pub const RECHECK_EVERY: Duration = Duration::from_secs(30);

/// How long a connection's good check of its session or token stands when this process
/// revoked nothing since ([`Accounts::still_valid_since`]): the bound on noticing a revocation
/// made by another process on the same database file (the operator's command line).
pub const TRUST_CHECK_FOR: Duration = Duration::from_secs(10);

/// A connection's last good check of its session or token ([`Accounts::still_valid_since`]).
#[derive(Clone, Copy, Debug)]
pub struct Checked {
    epoch: u64,
    at: std::time::Instant,
}

/// Watches, for a WebSocket or a stream, that the session or token it was opened with still
/// stands: [`RevocationWatch::revoked`] returns once it has been revoked (at once when that
/// happened in this process, within [`RECHECK_EVERY`] otherwise). The watching stops when this
/// is dropped.
pub struct RevocationWatch {
    task: tokio::task::JoinHandle<()>,
    done: bool,
}

impl RevocationWatch {
    /// Starts watching `cred`, which opened `player`'s account.
    pub fn start(accounts: &Accounts, player: Player, cred: Credential) -> RevocationWatch {
        let accounts = accounts.clone();
        let mut notices = accounts.revocations();
        let task = tokio::spawn(async move {
            let mut every = tokio::time::interval(RECHECK_EVERY);
            every.tick().await;
            loop {
                tokio::select! {
                    notice = notices.recv() => match notice {
                        // Another account's: nothing to check.
                        Ok(user) if user != player.id => continue,
                        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                        Err(broadcast::error::RecvError::Closed) => {
                            every.tick().await;
                        }
                    },
                    _ = every.tick() => {}
                }
                // A database that does not answer is no proof of a revocation.
                if let Ok(false) = accounts.still_valid(&player, &cred).await {
                    return;
                }
            }
        });
        RevocationWatch { task, done: false }
    }

    /// Returns once the session or token has been revoked (never before). Cancel-safe.
    pub async fn revoked(&mut self) {
        if !self.done {
            let _ = (&mut self.task).await;
            self.done = true;
        }
    }
}

impl Drop for RevocationWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The refusal of a password change whose old password is wrong.
pub fn wrong_password() -> ApiError {
    ApiError::Forbidden {
        code: "wrong-password",
        message: "the old password is wrong".into(),
    }
}

#[cfg(test)]
mod tests {
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
