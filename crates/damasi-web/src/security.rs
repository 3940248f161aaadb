//! What keeps other web sites and other machines from using the server on a player's behalf:
//!
//! - **Host check** (DNS rebinding): a request must name a host the server answers to (the
//!   localhost names, an IP address, and the `--allowed-host` names), or it is refused
//!   before any handler runs.
//! - **Cross-site requests** (CSRF): a request that changes anything (any method but `GET`,
//!   `HEAD`, `OPTIONS`) is refused when the browser says it comes from another site
//!   (`Sec-Fetch-Site`) or its `Origin` is not this server; a body must be JSON, which a
//!   page on another site cannot send without the browser asking first.
//! - **Access token**: when the server is open to a network, changes need the token printed at
//!   start (`Authorization: Bearer TOKEN`, or the cookie set by opening the printed link);
//!   viewing stays open.
//! - **The client's address** behind a reverse proxy: the proxy's `X-Forwarded-For` (or
//!   `Forwarded`) is believed only when the connection comes from a `--trusted-proxy`, so the
//!   rate limits count visitors, not the proxy, and nobody else can pick an address.
//! - **Security headers** on every answer: a Content-Security-Policy that allows only the
//!   server's own scripts and no framing, `nosniff`, no referrer.

use std::collections::HashSet;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// The policy of one server.
#[derive(Clone, Debug)]
pub struct Security {
    /// Host names (lower case, without port) the server answers to.
    allowed_hosts: HashSet<String>,
    /// The token changes need, when the server is open to a network.
    token: Option<String>,
}

/// The cookie that carries the access token for the page.
pub const TOKEN_COOKIE: &str = "damasi_token";

/// Where the page trades the server's token (sent as `Authorization: Bearer`) for its cookie.
pub const SERVER_TOKEN_PATH: &str = "/api/server-token";

impl Default for Security {
    fn default() -> Self {
        Security::local()
    }
}

impl Security {
    /// A server for this machine only: localhost names, no token.
    pub fn local() -> Security {
        let allowed_hosts = ["localhost", "127.0.0.1", "[::1]", "::1"]
            .into_iter()
            .map(String::from)
            .collect();
        Security {
            allowed_hosts,
            token: None,
        }
    }

    /// Also answers to `host` (a name or an address, with or without a port).
    pub fn allow_host(mut self, host: &str) -> Security {
        self.allowed_hosts.insert(host_name(host));
        self
    }

    /// Changes need `token`.
    pub fn with_token(mut self, token: impl Into<String>) -> Security {
        self.token = Some(token.into());
        self
    }

    /// The token changes need, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// Localhost names, the `--allowed-host` names, and any address written as an IP: DNS
    /// rebinding needs a name the attacker controls, so an address cannot be one.
    fn host_allowed(&self, host: &str) -> bool {
        let name = host_name(host);
        let literal = name.trim_start_matches('[').trim_end_matches(']');
        self.allowed_hosts.contains(&name) || literal.parse::<std::net::IpAddr>().is_ok()
    }
}

/// The host name of a `Host` header or an origin's authority: lower case, port removed
/// (`[::1]:8080` -> `[::1]`, `Example.org:80` -> `example.org`).
fn host_name(authority: &str) -> String {
    let a = authority.trim().to_ascii_lowercase();
    if a.starts_with('[') {
        return match a.find(']') {
            Some(end) => a[..=end].to_string(),
            None => a,
        };
    }
    match a.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && port.chars().all(|c| c.is_ascii_digit()) => {
            name.to_string()
        }
        _ => a,
    }
}

fn refuse(status: StatusCode, code: &str, message: &str) -> Response {
    (status, Json(json!({ "error": message, "code": code }))).into_response()
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Whether a request that changes something (or opens a WebSocket) comes from this server's
/// own pages (or from a program that is not a browser, which sends neither header).
pub(crate) fn same_site(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        if site != "same-origin" && site != "none" {
            return false;
        }
    }
    match header_str(headers, header::ORIGIN) {
        None => true,
        Some(origin) => {
            let authority = origin
                .split_once("://")
                .map_or(origin, |(_, rest)| rest)
                .trim_end_matches('/');
            match header_str(headers, header::HOST) {
                Some(host) => authority.eq_ignore_ascii_case(host.trim()),
                None => false,
            }
        }
    }
}

fn has_body(headers: &HeaderMap) -> bool {
    let length = header_str(headers, header::CONTENT_LENGTH)
        .and_then(|l| l.trim().parse::<u64>().ok())
        .unwrap_or(0);
    length > 0 || headers.contains_key(header::TRANSFER_ENCODING)
}

/// Whether the body's media type (parameters such as `charset` aside) is `mime`.
fn content_type_is(headers: &HeaderMap, mime: &str) -> bool {
    header_str(headers, header::CONTENT_TYPE).is_some_and(|t| {
        let given = t.split(';').next().unwrap_or("").trim();
        given.eq_ignore_ascii_case(mime)
    })
}

fn is_json(headers: &HeaderMap) -> bool {
    content_type_is(headers, "application/json")
}

/// Whether the body is a form (`application/x-www-form-urlencoded`).
pub(crate) fn is_form(headers: &HeaderMap) -> bool {
    content_type_is(headers, "application/x-www-form-urlencoded")
}

fn token_given(headers: &HeaderMap, token: &str) -> bool {
    let bearer = header_str(headers, header::AUTHORIZATION)
        .and_then(|a| a.strip_prefix("Bearer "))
        .is_some_and(|t| constant_time_eq(t.trim().as_bytes(), token.as_bytes()));
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|c| c.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .any(|(k, v)| k == TOKEN_COOKIE && constant_time_eq(v.as_bytes(), token.as_bytes()));
    bearer || cookie
}

/// Compares without stopping at the first difference, so the time taken does not tell how
/// much of a guessed token was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub use damasi_online::addresses::address_key;

/// The address a request comes from: the connection's peer, or, when the peer is one of the
/// `trusted` proxies, the address the proxies say they were connected from. `X-Forwarded-For`
/// is read from right to left past the trusted proxies (each appends the address it saw, so
/// the entries further left are the client's to write and prove nothing); `Forwarded`'s
/// `for=` is read the same way when there is no `X-Forwarded-For`. The port is the peer's.
pub fn client_address(peer: SocketAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> SocketAddr {
    if !trusted.contains(&peer.ip()) {
        return peer;
    }
    let xff: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect();
    let listed: Vec<&str> = if !xff.is_empty() {
        xff
    } else {
        headers
            .get_all("forwarded")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|element| {
                element.split(';').find_map(|pair| {
                    let (k, v) = pair.trim().split_once('=')?;
                    k.trim().eq_ignore_ascii_case("for").then_some(v)
                })
            })
            .collect()
    };
    // From the right: the nearest trusted proxy's entry first. What cannot be read ends the
    // walk (an unknown hop, e.g. `for=unknown`); then the last trusted hop is the client.
    let mut client = None;
    for entry in listed.iter().rev() {
        match parse_node(entry) {
            Some(ip) if trusted.contains(&ip) => client = Some(ip),
            Some(ip) => {
                client = Some(ip);
                break;
            }
            None => break,
        }
    }
    SocketAddr::new(client.unwrap_or(peer.ip()), peer.port())
}

/// An address as a proxy writes it: `203.0.113.7`, `2001:db8::1`, `"[2001:db8::1]:4711"`,
/// `198.51.100.2:8080`.
fn parse_node(text: &str) -> Option<IpAddr> {
    let t = text.trim().trim_matches('"');
    if let Ok(ip) = t.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(sa) = t.parse::<SocketAddr>() {
        return Some(sa.ip());
    }
    t.strip_prefix('[')
        .and_then(|r| r.split(']').next())
        .and_then(|a| a.parse().ok())
}

/// The middleware: checks the host, cross-site changes and the token, then adds the security
/// headers to the answer.
pub async fn guard(State(policy): State<Arc<Security>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    if let Some(host) = header_str(headers, header::HOST) {
        if !policy.host_allowed(host) {
            return with_headers(refuse(
                StatusCode::MISDIRECTED_REQUEST,
                "host-not-allowed",
                "this server does not answer to that host name (start it with --allowed-host NAME)",
            ));
        }
    }
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if changes {
        if !same_site(headers) {
            return with_headers(refuse(
                StatusCode::FORBIDDEN,
                "cross-site",
                "requests from other web sites may not change anything here",
            ));
        }
        let typed = headers.contains_key(header::CONTENT_TYPE);
        // A program sending its own `Authorization: Bearer` token is no cross-site risk (a
        // page on another site cannot add that header without the browser asking first), so
        // it may send the form bodies lichess's API documents; cookie sessions send JSON.
        let form_allowed = is_form(headers) && crate::online::session::bearer(headers).is_some();
        // lichess's token test takes its tokens as plain text, and changes nothing.
        let text_allowed = req.uri().path() == "/api/token/test";
        if (typed || has_body(headers)) && !is_json(headers) && !form_allowed && !text_allowed {
            return with_headers(refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "bad-request",
                "the request body must be JSON (Content-Type: application/json), or a form \
                 from a program that sends Authorization: Bearer TOKEN",
            ));
        }
        // Online play names its players by their own sessions and tokens.
        let per_player = crate::online::http::PLAYER_AUTHENTICATED
            .iter()
            .any(|prefix| req.uri().path().starts_with(prefix));
        if let Some(token) = policy.token().filter(|_| !per_player) {
            if !token_given(headers, token) {
                return with_headers(refuse(
                    StatusCode::UNAUTHORIZED,
                    "token-required",
                    "this server is open to the network: changes need its access token \
                     (open the link it printed at start, or send Authorization: Bearer TOKEN)",
                ));
            }
        }
    }
    // The printed link `/#token=T` keeps the token in the fragment, which browsers never send
    // (so no proxy logs it); the page hands it over here once, in a header, and gets the
    // cookie it sends by itself from then on (the check above has matched the header).
    if req.method() == Method::POST && req.uri().path() == SERVER_TOKEN_PATH {
        let mut res = StatusCode::NO_CONTENT.into_response();
        if let Some(token) = policy.token() {
            let cookie = format!("{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                res.headers_mut().insert(header::SET_COOKIE, v);
            }
        }
        return with_headers(res);
    }
    with_headers(next.run(req).await)
}

/// The page's policy: its own scripts (and WebAssembly), styles, images and connections only;
/// never inside a frame.
const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
    style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
    worker-src 'self'; manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; \
    form-action 'self'; object-src 'none'";

fn with_headers(mut res: Response) -> Response {
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_lose_their_port() {
        assert_eq!(host_name("LocalHost:8080"), "localhost");
        assert_eq!(host_name("[::1]:8080"), "[::1]");
        assert_eq!(host_name("192.168.1.5"), "192.168.1.5");
        assert_eq!(host_name("example.org:x"), "example.org:x");
    }

    #[test]
    fn the_client_address_comes_from_trusted_proxies_only() {
        let proxy: SocketAddr = "127.0.0.1:50000".parse().unwrap();
        let trusted = ["127.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap()];
        let with = |pairs: &[(&'static str, &'static str)]| {
            let mut h = HeaderMap::new();
            for (k, v) in pairs {
                h.append(*k, HeaderValue::from_static(v));
            }
            h
        };
        let ip = |peer, h: &HeaderMap, t: &[IpAddr]| client_address(peer, h, t).ip().to_string();
        let xff = with(&[("x-forwarded-for", "203.0.113.7")]);
        // Not from a trusted proxy: the header is anybody's to write.
        assert_eq!(ip(proxy, &xff, &[]), "127.0.0.1");
        assert_eq!(
            ip("198.51.100.1:1".parse().unwrap(), &xff, &trusted),
            "198.51.100.1"
        );
        // From one: the address it saw.
        assert_eq!(ip(proxy, &xff, &trusted), "203.0.113.7");
        assert_eq!(client_address(proxy, &xff, &trusted).port(), 50000);
        // A client's forged entries are on the left; the rightmost untrusted one counts.
        let forged = with(&[("x-forwarded-for", "1.2.3.4, 203.0.113.7, 10.0.0.2")]);
        assert_eq!(ip(proxy, &forged, &trusted), "203.0.113.7");
        let garbage = with(&[
            ("x-forwarded-for", "nonsense"),
            ("x-forwarded-for", "203.0.113.9"),
        ]);
        assert_eq!(ip(proxy, &garbage, &trusted), "203.0.113.9");
        // Forwarded (RFC 7239), with IPv6 and ports.
        let fwd = with(&[(
            "forwarded",
            "for=192.0.2.60;proto=http, for=\"[2001:db8::1]:4711\"",
        )]);
        assert_eq!(ip(proxy, &fwd, &trusted), "2001:db8::1");
        // Nothing said: the peer.
        assert_eq!(ip(proxy, &HeaderMap::new(), &trusted), "127.0.0.1");
        assert_eq!(
            ip(proxy, &with(&[("forwarded", "for=unknown")]), &trusted),
            "127.0.0.1"
        );
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
