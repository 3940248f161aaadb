//! The Mini App's `initData`: the signed query string Telegram gives a web page opened from a
//! bot's button, checked as Telegram documents it ("Validating data received via the Mini
//! App"): the fields but `hash`, sorted by key, as `key=value` lines; the key is
//! HMAC-SHA-256 of the bot token under the key `WebAppData`; `hash` is HMAC-SHA-256 of the
//! lines under that key, in hexadecimal. A log-in takes a string for [`MAX_AGE_S`] after
//! Telegram signed it, and once ([`UsedInitData`]).

use std::collections::HashMap;
use std::sync::Mutex;

use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;

use crate::accounts::{Player, TELEGRAM};
use crate::error::ApiError;
use crate::Online;

/// How long after Telegram signed an `initData` a log-in accepts it: the page sends it as soon
/// as it opens, so a few minutes leave room for a slow network and clocks apart, and a string
/// seen later (a copied address, a log) opens nothing.
pub const MAX_AGE_S: i64 = 5 * 60;

/// How far ahead of the server's clock an `initData`'s `auth_date` may be (clocks apart).
pub const MAX_AHEAD_S: i64 = 60;

/// Most `initData` strings remembered as used at once (each for [`MAX_AGE_S`]).
pub const USED_KEPT: usize = 100_000;

/// The Telegram user a checked `initData` names.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct WebAppUser {
    /// Telegram's user id.
    pub id: i64,
    /// First name.
    pub first_name: String,
    /// `@username`, without the `@`.
    #[serde(default)]
    pub username: Option<String>,
    /// The language of the user's Telegram app.
    #[serde(default)]
    pub language_code: Option<String>,
}

/// Why an `initData` is refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum InitDataError {
    /// No `hash` field, or not hexadecimal.
    #[error("initData has no valid hash")]
    NoHash,
    /// The signature does not match: changed, or signed for another bot.
    #[error("initData is not signed by this bot")]
    BadSignature,
    /// Signed longer ago than allowed, or dated ahead of the server's clock.
    #[error("initData is too old: open the Mini App again")]
    Expired,
    /// Used for a log-in already.
    #[error("initData was used already: open the Mini App again")]
    Replayed,
    /// Too many strings used within [`MAX_AGE_S`] to remember one more.
    #[error("too many Telegram log-ins at once: try again in a moment")]
    Busy,
    /// Signed, but without a readable `user` or `auth_date`.
    #[error("initData lacks {0}")]
    Missing(&'static str),
}

/// Checks `init_data` against `bot_token`, and that it was signed at most `max_age_s` seconds
/// before `now_s` (Unix seconds). Answers the user it names.
pub fn check_init_data(
    init_data: &str,
    bot_token: &str,
    now_s: i64,
    max_age_s: i64,
) -> Result<WebAppUser, InitDataError> {
    Ok(check_signed(init_data, bot_token, now_s, max_age_s)?.user)
}

/// A checked `initData`: the user, when it was signed, and its signature.
struct Signed {
    user: WebAppUser,
    auth_date: i64,
    hash: Vec<u8>,
}

fn check_signed(
    init_data: &str,
    bot_token: &str,
    now_s: i64,
    max_age_s: i64,
) -> Result<Signed, InitDataError> {
    let mut fields: Vec<(String, String)> = form_urlencoded::parse(init_data.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let at = fields
        .iter()
        .position(|(k, _)| k == "hash")
        .ok_or(InitDataError::NoHash)?;
    let hash = fields.remove(at).1;
    let hash = decode_hex(&hash).ok_or(InitDataError::NoHash)?;
    fields.sort();
    let lines = fields
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut key = Hmac::<Sha256>::new_from_slice(b"WebAppData").expect("any key length");
    key.update(bot_token.as_bytes());
    let key = key.finalize().into_bytes();
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("any key length");
    mac.update(lines.as_bytes());
    // `verify_slice` compares in constant time.
    mac.verify_slice(&hash)
        .map_err(|_| InitDataError::BadSignature)?;
    let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    let auth_date: i64 = field("auth_date")
        .and_then(|d| d.parse().ok())
        .ok_or(InitDataError::Missing("auth_date"))?;
    if now_s - auth_date > max_age_s || auth_date - now_s > MAX_AHEAD_S {
        return Err(InitDataError::Expired);
    }
    let user = field("user").ok_or(InitDataError::Missing("user"))?;
    let user = serde_json::from_str(user).map_err(|_| InitDataError::Missing("user"))?;
    Ok(Signed {
        user,
        auth_date,
        hash,
    })
}

/// The `initData` strings used for a log-in, each by its signature until it is too old to be
/// taken anyway, so that each logs in once: at most `cap` (only correctly signed strings are
/// remembered, so nobody fills it without the bot's token). Kept by each process: in a
/// cluster, a string could be used once on each within its few minutes.
pub struct UsedInitData {
    /// Signature to the Unix second it expires.
    seen: Mutex<HashMap<Vec<u8>, i64>>,
    cap: usize,
}

impl UsedInitData {
    /// Remembers at most `cap` strings at once.
    pub fn new(cap: usize) -> UsedInitData {
        UsedInitData {
            seen: Mutex::new(HashMap::new()),
            cap,
        }
    }

    /// Marks the string signed `hash` at `auth_date` used at `now_s`: refused if it was.
    fn take(&self, hash: &[u8], auth_date: i64, now_s: i64) -> Result<(), InitDataError> {
        let mut seen = crate::lock(&self.seen);
        if seen.contains_key(hash) {
            return Err(InitDataError::Replayed);
        }
        if seen.len() >= self.cap {
            seen.retain(|_, until| *until >= now_s);
            if seen.len() >= self.cap {
                return Err(InitDataError::Busy);
            }
        }
        seen.insert(hash.to_vec(), auth_date + MAX_AGE_S);
        Ok(())
    }
}

impl Default for UsedInitData {
    fn default() -> UsedInitData {
        UsedInitData::new(USED_KEPT)
    }
}

/// The account of the Telegram user a Mini App's `initData` names, for a log-in on the web
/// page the bot's button opened: the account the bot plays them with (linked with `/link`,
/// or the `tg-` guest it made at their first press). A Telegram user the bot has never met has
/// none (403 `telegram-unknown`); a string not signed for `bot_token`, older than
/// [`MAX_AGE_S`], or used for a log-in already (on this process) is refused (401).
pub async fn player_of(
    online: &Online,
    init_data: &str,
    bot_token: &str,
    now_s: i64,
) -> Result<Player, ApiError> {
    let signed = check_signed(init_data, bot_token, now_s, MAX_AGE_S)
        .and_then(|s| {
            online
                .used_init_data()
                .take(&s.hash, s.auth_date, now_s)
                .map(|()| s)
        })
        .map_err(|e| match e {
            InitDataError::Busy => ApiError::Overloaded(e.to_string()),
            e => ApiError::Unauthorized(e.to_string()),
        })?;
    let user = signed.user;
    match online
        .db()
        .outside_account(TELEGRAM, &user.id.to_string())
        .await?
    {
        Some(a) => Ok(a.user.into()),
        None => Err(ApiError::Forbidden {
            code: "telegram-unknown",
            message: "play a game with the bot in Telegram first".into(),
        }),
    }
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Signed with Python's `hmac` module following Telegram's description, not with this code.
    const TOKEN: &str = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
    const SIGNED: &str = "auth_date=1764150000&query_id=AAHdF6IQAAAAAN0XohDhrOrc&user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Ay%C5%9Fe%22%2C%22username%22%3A%22ayse%22%2C%22language_code%22%3A%22tr%22%7D&hash=0410d13dac50c8169a62a02412c78e2f30ec2f9cc873c292374d6d5831e36e14";

    #[test]
    fn a_correctly_signed_string_is_accepted() {
        let user = check_init_data(SIGNED, TOKEN, 1_764_150_060, 86_400).unwrap();
        assert_eq!(user.id, 279_058_397);
        assert_eq!(user.first_name, "Ayşe");
        assert_eq!(user.language_code.as_deref(), Some("tr"));
    }

    #[test]
    fn a_changed_string_another_bot_or_an_old_one_is_refused() {
        let changed = SIGNED.replace("279058397", "279058398");
        assert_eq!(
            check_init_data(&changed, TOKEN, 1_764_150_060, 86_400),
            Err(InitDataError::BadSignature)
        );
        assert_eq!(
            check_init_data(SIGNED, "987654321:other", 1_764_150_060, 86_400),
            Err(InitDataError::BadSignature)
        );
        assert_eq!(
            check_init_data(SIGNED, TOKEN, 1_764_150_000 + 90_000, 86_400),
            Err(InitDataError::Expired)
        );
        let unsigned = SIGNED.split("&hash=").next().unwrap();
        assert_eq!(
            check_init_data(unsigned, TOKEN, 1_764_150_060, 86_400),
            Err(InitDataError::NoHash)
        );
        assert_eq!(
            check_init_data("hash=zz", TOKEN, 0, 86_400),
            Err(InitDataError::NoHash)
        );
        // Dated ahead of the server's clock by more than a minute.
        assert_eq!(
            check_init_data(SIGNED, TOKEN, 1_764_150_000 - 61, 86_400),
            Err(InitDataError::Expired)
        );
    }

    #[test]
    fn a_string_is_taken_once_and_forgotten_when_too_old() {
        let used = UsedInitData::new(2);
        assert_eq!(used.take(b"a", 1000, 1000), Ok(()));
        assert_eq!(used.take(b"a", 1000, 1001), Err(InitDataError::Replayed));
        assert_eq!(used.take(b"b", 1000, 1001), Ok(()));
        // Full of strings still young enough: refused; once they are too old, room again.
        assert_eq!(used.take(b"c", 1000, 1002), Err(InitDataError::Busy));
        assert_eq!(used.take(b"c", 1400, 1000 + MAX_AGE_S + 1), Ok(()));
    }
}
