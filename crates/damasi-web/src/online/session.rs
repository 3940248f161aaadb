//! Who sent an HTTP request: the `Authorization: Bearer` token or the session cookie, read from
//! the headers and checked by the online service's [`Accounts`]; and the cookie that carries a
//! browser's session.

use std::future::Future;

use axum::http::header::{self, HeaderMap};
use damasi_online::accounts::{Accounts, Credential, Player, SESSION_LIFETIME};
use damasi_online::error::ApiError;

/// The cookie that carries a browser's session over plain HTTP (`http://localhost`).
pub const SESSION_COOKIE: &str = "damasi_session";

/// The cookie that carries a browser's session over HTTPS: the `__Host-` prefix makes the
/// browser refuse it unless it is `Secure`, has `Path=/` and no `Domain`, so neither a
/// sibling sub-domain nor a plain-HTTP page can set or overwrite it.
pub const SECURE_SESSION_COOKIE: &str = "__Host-damasi_session";

/// The `Authorization: Bearer` token of a request.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|a| a.strip_prefix("Bearer "))
        .map(str::trim)
}

/// The session cookie of a request: the `__Host-` one if it has one, else the plain one.
pub fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    let cookie = |name: &str| {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|c| c.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(k, v)| *k == name && !v.is_empty())
            .map(|(_, v)| v)
    };
    cookie(SECURE_SESSION_COOKIE).or_else(|| cookie(SESSION_COOKIE))
}

/// The session cookie's name: [`SECURE_SESSION_COOKIE`] over HTTPS, else [`SESSION_COOKIE`].
fn cookie_name(secure: bool) -> &'static str {
    if secure {
        SECURE_SESSION_COOKIE
    } else {
        SESSION_COOKIE
    }
}

/// The `Set-Cookie` value for a session: HttpOnly, SameSite=Lax, for [`SESSION_LIFETIME`],
/// and when the page was reached over HTTPS (behind a reverse proxy that says so) Secure and
/// named with the `__Host-` prefix.
pub fn session_set_cookie(secret: &str, secure: bool) -> String {
    let name = cookie_name(secure);
    let max_age = SESSION_LIFETIME.as_secs();
    let secure = if secure { "; Secure" } else { "" };
    format!("{name}={secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}")
}

/// The `Set-Cookie` value that removes the session (the cookie of the same name and flags as
/// [`session_set_cookie`] set).
pub fn session_clear_cookie(secure: bool) -> String {
    let name = cookie_name(secure);
    let secure = if secure { "; Secure" } else { "" };
    format!("{name}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}")
}

/// Finding who sent a request from its headers.
pub trait Identify {
    /// Who sent the request: a `Bearer` token, else the session cookie. `Ok(None)` when it
    /// carries neither; a token that is not valid is an error (a program should know).
    fn identify(
        &self,
        headers: &HeaderMap,
    ) -> impl Future<Output = Result<Option<Player>, ApiError>> + Send;

    /// [`Identify::identify`], with the credential the request used (to check later that it
    /// still stands, or to keep it when the others are revoked).
    fn identify_with(
        &self,
        headers: &HeaderMap,
    ) -> impl Future<Output = Result<Option<(Player, Credential)>, ApiError>> + Send;
}

impl Identify for Accounts {
    async fn identify(&self, headers: &HeaderMap) -> Result<Option<Player>, ApiError> {
        Ok(self.identify_with(headers).await?.map(|(p, _)| p))
    }

    async fn identify_with(
        &self,
        headers: &HeaderMap,
    ) -> Result<Option<(Player, Credential)>, ApiError> {
        self.identify_by(bearer(headers), session_cookie(headers))
            .await
    }
}
