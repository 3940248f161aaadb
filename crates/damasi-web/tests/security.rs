//! Requests from other sites, other host names, other machines and slow or greedy clients:
//! through the router for the header checks, and through real sockets for the connection
//! limits and the engine's fair sharing.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_web::{router, serve_with, AppState, Security, ServeOptions};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tower::ServiceExt;

struct Reply {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    json: Value,
}

async fn send(app: &Router, req: Request<Body>) -> Reply {
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = to_bytes(res.into_body(), usize::MAX).await.unwrap();
    Reply {
        status,
        headers,
        json: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    }
}

fn request(method: Method, uri: &str) -> axum::http::request::Builder {
    Request::builder()
        .method(method)
        .uri(uri)
        .header(header::HOST, "127.0.0.1:8080")
}

async fn new_game(app: &Router) -> i64 {
    let r = send(
        app,
        request(Method::POST, "/api/games")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from("{}"))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    r.json["id"].as_i64().unwrap()
}

#[tokio::test]
async fn only_known_host_names_are_served() {
    let app =
        router(AppState::in_memory().with_security(Security::local().allow_host("dama.club")));
    for host in [
        "localhost:8080",
        "127.0.0.1",
        "[::1]:8080",
        "192.168.1.20:8080",
        "dama.club",
    ] {
        let r = send(
            &app,
            Request::builder()
                .uri("/api/games")
                .header(header::HOST, host)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{host}");
    }
    // A rebinding attacker's name is refused before anything is listed or deleted.
    for (method, uri) in [
        (Method::GET, "/api/games"),
        (Method::DELETE, "/api/games/1"),
        (Method::GET, "/"),
    ] {
        let r = send(
            &app,
            Request::builder()
                .method(method)
                .uri(uri)
                .header(header::HOST, "attacker.example")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(r.status, StatusCode::MISDIRECTED_REQUEST, "{uri}");
        assert_eq!(r.json["code"], "host-not-allowed");
    }
}

#[tokio::test]
async fn cross_site_requests_change_nothing() {
    let app = router(AppState::in_memory());
    let id = new_game(&app).await;
    let uri = format!("/api/games/{id}/takeback");
    // A "simple" cross-site form post: text/plain, no preflight.
    let r = send(
        &app,
        request(Method::POST, &uri)
            .header(header::CONTENT_TYPE, "text/plain")
            .body(Body::from("{\"side\":\"white\"}"))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{}", r.json);
    // Another origin, or a browser saying cross-site: refused whatever the body.
    for (name, value) in [
        ("origin", "http://evil.example"),
        ("sec-fetch-site", "cross-site"),
        ("sec-fetch-site", "same-site"),
    ] {
        let r = send(
            &app,
            request(Method::DELETE, &format!("/api/games/{id}"))
                .header(name, value)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{name}: {value}");
        assert_eq!(r.json["code"], "cross-site");
    }
    // The page itself (same origin) and programs that are not browsers may.
    let r = send(
        &app,
        request(Method::POST, &format!("/api/games/{id}/move"))
            .header(header::CONTENT_TYPE, "application/json")
            .header("origin", "http://127.0.0.1:8080")
            .header("sec-fetch-site", "same-origin")
            .body(Body::from("{\"move\":\"d3-d4\"}"))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let r = send(
        &app,
        request(Method::DELETE, &format!("/api/games/{id}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn a_server_open_to_the_network_needs_its_token_for_changes() {
    let app = router(AppState::in_memory().with_security(Security::local().with_token("s3cret")));
    // Viewing is open.
    let r = send(
        &app,
        request(Method::GET, "/api/games")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    // Changes are not.
    let r = send(
        &app,
        request(Method::POST, "/api/games")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from("{}"))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.json["code"], "token-required");
    let r = send(
        &app,
        request(Method::POST, "/api/games")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::AUTHORIZATION, "Bearer wrong")
            .body(Body::from("{}"))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = send(
        &app,
        request(Method::POST, "/api/games")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::AUTHORIZATION, "Bearer s3cret")
            .body(Body::from("{}"))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
    // The token in the query string (where proxies log it) does nothing any more.
    let r = send(
        &app,
        request(Method::GET, "/?token=s3cret")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.headers.get(header::SET_COOKIE).is_none());
    // The printed link `/#token=T` keeps it in the fragment; the page trades it, in a header,
    // for a cookie it then sends by itself. A wrong token gets none.
    let trade = |token: &str| {
        request(Method::POST, "/api/server-token")
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .body(Body::empty())
            .unwrap()
    };
    let r = send(&app, trade("wrong")).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.headers.get(header::SET_COOKIE).is_none());
    let r = send(&app, trade("s3cret")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let cookie = r.headers[header::SET_COOKIE].to_str().unwrap().to_string();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let pair = cookie.split(';').next().unwrap();
    let r = send(
        &app,
        request(Method::POST, "/api/games")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::COOKIE, pair)
            .body(Body::from("{}"))
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
}

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let app = router(AppState::in_memory());
    for uri in ["/", "/app.js", "/api/games", "/api/nothing"] {
        let r = send(&app, request(Method::GET, uri).body(Body::empty()).unwrap()).await;
        let csp = r.headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{uri}: {csp}");
        assert!(csp.contains("default-src 'self'"), "{uri}: {csp}");
        assert_eq!(r.headers[header::X_FRAME_OPTIONS], "DENY");
        assert_eq!(r.headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    }
}

/// Starts a real server on a free port with `options`.
async fn start(options: ServeOptions) -> SocketAddr {
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let _ = serve_with(
            AppState::in_memory(),
            "127.0.0.1:0".parse().unwrap(),
            options,
            move |addr| {
                let _ = tx.send(addr);
            },
        )
        .await;
    });
    rx.await.unwrap()
}

/// A whole request over a new connection; the status code of the answer.
async fn http_get(addr: SocketAddr, path: &str) -> u16 {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out);
    text.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

async fn post_json(addr: SocketAddr, path: &str, body: &Value) -> (u16, String) {
    post_json_with(addr, path, body, "").await
}

/// [`post_json`] with more header lines (each ending in `\r\n`).
async fn post_json_with(addr: SocketAddr, path: &str, body: &Value, more: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let body = body.to_string();
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{more}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out).into_owned();
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_requests_cannot_hold_the_server() {
    let addr = start(ServeOptions {
        max_connections: 16,
        header_timeout: Duration::from_millis(800),
        ..Default::default()
    })
    .await;
    // Three times as many clients as connection slots, each sending half a request line and
    // then nothing.
    let mut slow = Vec::new();
    for _ in 0..48 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"GET /api/health HTTP/1.1\r\nHost: 127")
            .await
            .unwrap();
        slow.push(s);
    }
    // A real client still gets its answer once the slow ones time out.
    let t = Instant::now();
    assert_eq!(http_get(addr, "/api/health").await, 200);
    assert!(t.elapsed() < Duration::from_secs(20));
    // The server closed the slow connections (a read sees the end, or an error).
    let mut s = slow.pop().unwrap();
    let mut buf = [0u8; 256];
    let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf))
        .await
        .expect("the server closes a half-sent request")
        .unwrap_or(0);
    let text = String::from_utf8_lossy(&buf[..n]);
    assert!(n == 0 || text.starts_with("HTTP/1.1 408"), "{text}");
}

/// Every per-address limit counts IPv6 by its /64 (the audit's item H: 40 addresses of one
/// /64 made 200 guests): guests from thirty addresses of one /64 use up its thirty at once,
/// and another /64 is not concerned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ipv6_visitors_are_counted_per_64() {
    let addr = start(ServeOptions {
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        ..Default::default()
    })
    .await;
    let guest = |ip: String| async move {
        let from = format!("X-Forwarded-For: {ip}\r\n");
        post_json_with(addr, "/api/account/guest", &json!({}), &from).await
    };
    for i in 1..=30 {
        let (code, text) = guest(format!("2001:db8:1:2::{i:x}")).await;
        assert_eq!(code, 200, "{text}");
    }
    let (code, text) = guest("2001:db8:1:2:ffff:1234:5678:9abc".into()).await;
    assert_eq!(code, 429, "{text}");
    let (code, text) = guest("2001:db8:1:3::1".into()).await;
    assert_eq!(code, 200, "another /64: {text}");
}

/// The audit's item A, as it was run: 30 addresses each hold the most spectators' streams of a
/// game they may (16, so 400 of 480 are taken and the rest refused), and then both seated
/// players still open their game stream and event stream, from an address of their own and
/// from one of the 30.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_addresses_of_spectators_leave_the_players_their_streams() {
    let state = AppState::in_memory();
    let online = state.online.clone();
    let a = online.accounts().add_bot("alpha", 0).await.unwrap();
    let b = online.accounts().add_bot("beta", 0).await.unwrap();
    let game = damasi_online::NewGame {
        initial_ms: 300_000,
        increment_ms: 3_000,
        rated: false,
        chat: false,
        rules: damasi_online::variant::FEDERATION,
    };
    let id = online.create_paired(&a, &b, game).await.unwrap().id.clone();
    let mut tokens = Vec::new();
    for name in ["alpha", "beta"] {
        tokens.push(online.accounts().token_for(name, 0).await.unwrap());
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(serve_with(
        state,
        "127.0.0.1:0".parse().unwrap(),
        ServeOptions::default(),
        move |addr| {
            let _ = tx.send(addr);
        },
    ));
    let addr = rx.await.unwrap();
    // Opens a stream from `from` (with `token`, if any): its status, and the connection kept.
    let open = |from: String, path: String, token: Option<String>| async move {
        let mut s = connect_from(&from, addr).await;
        let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut head = [0u8; 12];
        s.read_exact(&mut head).await.unwrap();
        let code: u16 = String::from_utf8_lossy(&head[9..12]).parse().unwrap();
        (code, s)
    };
    let game_stream = format!("/api/board/game/stream/{id}");
    let mut held = Vec::new();
    let mut codes = std::collections::BTreeMap::new();
    for i in 2..32 {
        for _ in 0..16 {
            let (code, s) = open(format!("127.0.0.{i}"), game_stream.clone(), None).await;
            *codes.entry(code).or_insert(0) += 1;
            held.push(s);
        }
    }
    assert_eq!(codes.get(&200), Some(&400), "{codes:?}");
    assert_eq!(codes.get(&429), Some(&80), "{codes:?}");
    for (token, from) in tokens.iter().zip(["127.0.1.1", "127.0.0.2"]) {
        for path in [game_stream.clone(), "/api/stream/event".to_string()] {
            let (code, s) = open(from.into(), path.clone(), Some(token.clone())).await;
            assert_eq!(code, 200, "{path} from {from}");
            held.push(s);
        }
    }
}

/// A connection from `from` (any address of 127/8 is this machine).
async fn connect_from(from: &str, addr: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(from.parse().unwrap(), 0))
        .unwrap();
    socket.connect(addr).await.unwrap()
}

/// A whole `GET /api/health` from `from`; the status code, or 0 when no answer came in 10 s.
async fn health_from(from: &str, addr: SocketAddr) -> u16 {
    let ask = async {
        let mut s = connect_from(from, addr).await;
        s.write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out).await;
        let text = String::from_utf8_lossy(&out).into_owned();
        text.split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0)
    };
    tokio::time::timeout(Duration::from_secs(10), ask)
        .await
        .unwrap_or(0)
}

/// Half-sent requests from one address (the audit's item G, on a server opened directly) take
/// only that address's share of the connections: another address is answered at once, not
/// after the header timeout, and the address's extra connections get a 429.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_requests_from_one_address_leave_the_others_served() {
    let addr = start(ServeOptions {
        max_connections: 16,
        connections_per_address: 4,
        header_timeout: Duration::from_secs(60),
        ..Default::default()
    })
    .await;
    let mut slow = Vec::new();
    for _ in 0..20 {
        let mut s = connect_from("127.0.0.1", addr).await;
        s.write_all(b"GET /api/health HTTP/1.1\r\nHost: 127")
            .await
            .unwrap();
        slow.push(s);
    }
    assert_eq!(health_from("127.0.0.2", addr).await, 200);
    assert_eq!(health_from("127.0.0.3", addr).await, 200);
    // The address's connections beyond its four were answered 429 and closed.
    let mut s = slow.pop().unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out))
        .await
        .expect("closed at once")
        .unwrap();
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("HTTP/1.1 429"), "{text}");
    assert!(text.contains("too-many-connections"), "{text}");
    // Once its connections close, the address is served again.
    drop(slow);
    let mut code = 0;
    for _ in 0..50 {
        code = health_from("127.0.0.1", addr).await;
        if code == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(code, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_cannot_hold_every_engine() {
    let addr = start(ServeOptions::default()).await;
    // A long analysis is capped, and a second one from the same client is refused at once
    // instead of taking the other engine.
    let long = json!({"move_time_ms": 60_000});
    let first = tokio::spawn(async move { post_json(addr, "/api/analyze", &long).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let t = Instant::now();
    let (code, text) = post_json(addr, "/api/analyze", &json!({"move_time_ms": 100})).await;
    assert_eq!(code, 503, "{text}");
    assert!(text.contains("engine-busy"), "{text}");
    assert!(t.elapsed() < Duration::from_secs(5));
    // The first one ends within the cap (10 s), not after the minute it asked for.
    let (code, text) = tokio::time::timeout(Duration::from_secs(20), first)
        .await
        .expect("the analysis is capped")
        .unwrap();
    assert_eq!(code, 200, "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_socket_works_over_a_real_connection() {
    let addr = start(ServeOptions::default()).await;
    // A guest session, and an open game of that guest.
    let (cookie, id) = guest_with_game(addr).await;
    // The upgrade: 101, then the server's first message (gameFull) as a text frame.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "GET /api/online/games/{id}/socket HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nCookie: {cookie}\r\n\r\n"
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let read = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let n = s.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
            if String::from_utf8_lossy(&got).contains("gameFull") {
                break;
            }
        }
    })
    .await;
    let text = String::from_utf8_lossy(&got);
    assert!(read.is_ok(), "no first message in time: {text}");
    assert!(text.starts_with("HTTP/1.1 101"), "{text}");
    let frame_at = text.find("\r\n\r\n").expect("headers") + 4;
    assert_eq!(got[frame_at], 0x81, "a final text frame");
    assert!(text.contains("\"gameFull\""), "{text}");
    assert!(text.contains(&id), "{text}");
}

/// Behind a reverse proxy every connection comes from the proxy: its `X-Forwarded-For` names
/// the visitor when the proxy is trusted, so one visitor's failed log-ins do not lock out
/// another visitor (the audit saw a 429 there), and without `--trusted-proxy` the header is
/// not believed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_the_limits_count_visitors() {
    for trusted in [true, false] {
        let addr = start(ServeOptions {
            trusted_proxies: if trusted {
                vec!["127.0.0.1".parse().unwrap()]
            } else {
                vec![]
            },
            ..Default::default()
        })
        .await;
        let account = json!({"name": "ayse", "password": "a long password"});
        let (code, text) = post_json(addr, "/api/account/signup", &account).await;
        assert_eq!(code, 200, "{text}");
        // The guesses are for another name: a name's own limit (which would also hold up
        // ayse) is tested below.
        let wrong = json!({"name": "mehmet", "password": "a wrong guess"});
        let attacker = "X-Forwarded-For: 203.0.113.66\r\n";
        let mut refused = false;
        for _ in 0..12 {
            let (code, _) = post_json_with(addr, "/api/account/login", &wrong, attacker).await;
            assert!(code == 401 || code == 429, "{code}");
            refused |= code == 429;
        }
        assert!(refused, "the attacker's address is limited");
        let visitor = "X-Forwarded-For: 198.51.100.7\r\n";
        let (code, text) = post_json_with(addr, "/api/account/login", &account, visitor).await;
        if trusted {
            assert_eq!(code, 200, "another visitor logs in: {text}");
        } else {
            assert_eq!(code, 429, "an untrusted header changes nothing: {text}");
        }
    }
}

/// Sends `request` on a new connection and reads the answer's head (status line and headers);
/// the connection stays open (a stream goes on). Panics when no head comes within 10 s.
async fn open_with_head(addr: SocketAddr, request: &str) -> (TcpStream, u16, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let read = tokio::time::timeout(Duration::from_secs(10), async {
        while !String::from_utf8_lossy(&got).contains("\r\n\r\n") {
            let n = s.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
    })
    .await;
    let text = String::from_utf8_lossy(&got).into_owned();
    assert!(
        read.is_ok(),
        "no answer within 10 s to {request:?}: {text:?}"
    );
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (s, code, text)
}

/// A guest's session cookie and an open online game of that guest.
async fn guest_with_game(addr: SocketAddr) -> (String, String) {
    let (code, text) = post_json(addr, "/api/account/guest", &json!({})).await;
    assert_eq!(code, 200, "{text}");
    let cookie = text
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("set-cookie")
                .then(|| value.split(';').next().unwrap_or("").trim().to_string())
        })
        .expect("a session cookie");
    let more = format!("Cookie: {cookie}\r\n");
    let (code, text) = post_json_with(
        addr,
        "/api/online/games",
        &json!({"minutes": 5, "increment": 3}),
        &more,
    )
    .await;
    assert_eq!(code, 200, "{text}");
    let json_at = text.find("\r\n\r\n").expect("a body") + 4;
    let created: Value = serde_json::from_str(&text[json_at..]).expect("JSON");
    let id = created["id"].as_str().expect("a game id").to_string();
    (cookie, id)
}

/// Streams that never end (the audit held 600 game streams) are capped per address, and they
/// do not take the connection slots: with 8 slots and 40 streams from one client, the extra
/// streams are refused with 429 `too-many-streams` and the lobby still answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_streams_are_capped_and_do_not_hold_connections() {
    let addr = start(ServeOptions {
        max_connections: 8,
        ..Default::default()
    })
    .await;
    let (_, id) = guest_with_game(addr).await;
    // `Connection: close`: a refusal ends its connection at once.
    let stream = format!(
        "GET /api/board/game/stream/{id} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    );
    let mut open = Vec::new();
    let mut refused = 0;
    for _ in 0..40 {
        let (s, code, head) = open_with_head(addr, &stream).await;
        match code {
            200 => open.push(s),
            429 => {
                refused += 1;
                let mut s = s;
                let mut rest = Vec::new();
                tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut rest))
                    .await
                    .expect("a refusal ends")
                    .unwrap();
                let all = format!("{head}{}", String::from_utf8_lossy(&rest));
                assert!(all.contains("too-many-streams"), "{all}");
            }
            _ => panic!("{head}"),
        }
    }
    assert_eq!(open.len(), damasi_web::streams::STREAMS_PER_ADDRESS);
    assert_eq!(refused, 40 - damasi_web::streams::STREAMS_PER_ADDRESS);
    // Ordinary requests still have their slots.
    for path in ["/api/lobby", "/api/health"] {
        let code = tokio::time::timeout(Duration::from_secs(10), http_get(addr, path))
            .await
            .unwrap_or_else(|_| panic!("{path} got no answer within 10 s"));
        assert_eq!(code, 200, "{path}");
    }
    // Closed streams give their places back (the server sees it at its next keep-alive line).
    drop(open);
    let mut again = None;
    for _ in 0..120 {
        let (s, code, head) = open_with_head(addr, &stream).await;
        match code {
            200 => {
                again = Some(s);
                break;
            }
            429 => tokio::time::sleep(Duration::from_millis(500)).await,
            _ => panic!("{head}"),
        }
    }
    assert!(again.is_some(), "a closed stream's place comes back");
}

/// `wait_version` long-polls are long-lived too: 24 at once from one client with 8
/// connection slots: 16 wait (and end with 200), 8 are refused at once, and the lobby answers
/// meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_polls_are_capped_and_do_not_hold_connections() {
    let addr = start(ServeOptions {
        max_connections: 8,
        ..Default::default()
    })
    .await;
    let (code, text) = post_json(addr, "/api/games", &json!({})).await;
    assert_eq!(code, 201, "{text}");
    let json_at = text.find("\r\n\r\n").expect("a body") + 4;
    let game: Value = serde_json::from_str(&text[json_at..]).expect("JSON");
    let id = game["id"].as_i64().expect("an id");
    // Nothing changes in the game: every poll waits its whole time (25 s).
    let version = game["version"].as_u64().expect("a version");
    let polls: Vec<_> = (0..24)
        .map(|_| {
            tokio::spawn(async move {
                http_get(addr, &format!("/api/games/{id}?wait_version={version}")).await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let code = tokio::time::timeout(Duration::from_secs(10), http_get(addr, "/api/lobby"))
        .await
        .expect("the lobby answers within 10 s while long-polls wait");
    assert_eq!(code, 200);
    let mut codes = Vec::new();
    for p in polls {
        codes.push(p.await.unwrap());
    }
    let waited = codes.iter().filter(|&&c| c == 200).count();
    let refused = codes.iter().filter(|&&c| c == 429).count();
    assert_eq!(
        (waited, refused),
        (
            damasi_web::streams::STREAMS_PER_ADDRESS,
            24 - damasi_web::streams::STREAMS_PER_ADDRESS
        ),
        "{codes:?}"
    );
    // All places are back.
    assert_eq!(
        http_get(addr, &format!("/api/games/{id}?wait_version=0")).await,
        200
    );
}

/// Spectator WebSockets are capped per address before the upgrade, and a socket whose client
/// stops answering pings is closed, which gives its place back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectator_sockets_are_capped_and_silent_ones_dropped() {
    let addr = start(ServeOptions::default()).await;
    let (_, id) = guest_with_game(addr).await;
    let upgrade = format!(
        "GET /api/online/games/{id}/socket HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    let mut sockets = Vec::new();
    for _ in 0..damasi_web::streams::STREAMS_PER_ADDRESS {
        let (s, code, head) = open_with_head(addr, &upgrade).await;
        assert_eq!(code, 101, "{head}");
        sockets.push(s);
    }
    let (_, code, head) = open_with_head(addr, &upgrade).await;
    assert_eq!(code, 429, "{head}");
    // These clients read but never answer a ping: the server closes them.
    let mut s = sockets.pop().unwrap();
    let closed = tokio::time::timeout(Duration::from_secs(60), async {
        let mut buf = [0u8; 4096];
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "a socket that answers no ping is closed");
    // Its place (and the others', closed the same way) comes back.
    let mut upgraded = false;
    for _ in 0..120 {
        let (_, code, head) = open_with_head(addr, &upgrade).await;
        match code {
            101 => {
                upgraded = true;
                break;
            }
            429 => tokio::time::sleep(Duration::from_millis(500)).await,
            _ => panic!("{head}"),
        }
    }
    assert!(upgraded, "a dropped socket's place comes back");
}

/// Guesses for one account from many addresses (the audit ran 1,000 from 100 addresses): once
/// the name has had 20 failures, every address gets one free failure for it and then waits,
/// and an unknown name is treated the same, so the answers tell nothing. The guesses never
/// keep the owner out (the audit's item D: one request per 5 minutes refused the owner's right
/// password 22 times in 22): the owner, from an address that has not failed, logs in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guesses_from_many_addresses_are_limited_per_account() {
    let addr = start(ServeOptions {
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        ..Default::default()
    })
    .await;
    for name in ["ayse", "mehmet"] {
        let account = json!({"name": name, "password": "a long password"});
        let (code, text) = post_json(addr, "/api/account/signup", &account).await;
        assert_eq!(code, 200, "{text}");
    }
    let mut answers = Vec::new();
    for name in ["ayse", "nobody"] {
        let wrong = json!({"name": name, "password": "a wrong guess"});
        let mut codes = Vec::new();
        for i in 1..=20 {
            let from = format!("X-Forwarded-For: 203.0.113.{i}\r\n");
            for _ in 0..2 {
                let (code, text) = post_json_with(addr, "/api/account/login", &wrong, &from).await;
                if code == 429 {
                    assert!(text.contains("too-many-failures"), "{text}");
                    assert!(
                        text.to_ascii_lowercase().contains("retry-after: "),
                        "{text}"
                    );
                }
                codes.push(code);
            }
        }
        // Ten addresses spend the name's 20 failures; each of the next ten has one.
        assert_eq!(codes[..20], [401; 20], "{name}: {codes:?}");
        assert_eq!(codes[20..], [401, 429].repeat(10), "{name}: {codes:?}");
        answers.push(codes);
    }
    assert_eq!(
        answers[0], answers[1],
        "an unknown name is answered the same"
    );
    // The owner, from home, while the name is under attack: in.
    let ayse = json!({"name": "ayse", "password": "a long password"});
    let home = "X-Forwarded-For: 198.51.100.7\r\n";
    let (code, text) = post_json_with(addr, "/api/account/login", &ayse, home).await;
    assert_eq!(code, 200, "{text}");
    // Another account, from an address that guessed: in.
    let mehmet = json!({"name": "mehmet", "password": "a long password"});
    let from = "X-Forwarded-For: 203.0.113.1\r\n";
    let (code, text) = post_json_with(addr, "/api/account/login", &mehmet, from).await;
    assert_eq!(code, 200, "{text}");
}
