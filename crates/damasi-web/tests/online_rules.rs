//! Online games under a rule set other than the federation's (lichess's `variant`), through
//! the HTTP API: the option changes which moves the server accepts, the rules survive a
//! restart of the service, seeks under different rules stay apart, and bad input is a 400
//! naming the field.
//!
//! The rule used is the no-capture limit of docs/rules.md ("Rule-set options", seed 000 9.4):
//! under `no-capture-limit N` the game is a draw once N plies in a row have captured nothing,
//! so a further move is refused; under the federation's rules (no such limit) it is played.
//! The four plies `a3-a4 h6-h5 b3-b4 g6-g5` from the start capture nothing (no man stands
//! next to an enemy man after any of them).

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_web::{router, AppState};
use serde_json::{json, Value};
use tower::ServiceExt;

/// Four quiet plies from the start: White, Black, White, Black.
const QUIET: [&str; 4] = ["a3-a4", "h6-h5", "b3-b4", "g6-g5"];

/// The rule set of the test: a draw after four plies without a capture.
const LIMIT_4: &str = "turkish; no-capture-limit 4";

struct Reply {
    status: StatusCode,
    body: Value,
    text: String,
}

async fn send(
    app: &Router,
    method: Method,
    uri: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> Reply {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(t) = token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let req = req
        .body(Body::from(body.map(|b| b.to_string()).unwrap_or_default()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
    let text = String::from_utf8_lossy(&bytes).to_string();
    Reply {
        status,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        text,
    }
}

async fn post(app: &Router, uri: &str, token: &str, body: Value) -> Reply {
    send(app, Method::POST, uri, Some(token), Some(body)).await
}

async fn get(app: &Router, uri: &str) -> Reply {
    send(app, Method::GET, uri, None, None).await
}

/// A new account's API token.
async fn account(app: &Router, name: &str) -> String {
    let r = send(
        app,
        Method::POST,
        "/api/account/signup",
        None,
        Some(json!({"name": name, "password": "a good password"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    token_of(app, name).await
}

/// An API token of an existing account, after logging in.
async fn token_of(app: &Router, name: &str) -> String {
    let req = Request::builder()
        .method(Method::POST)
        .uri("/api/account/login")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            json!({"name": name, "password": "a good password"}).to_string(),
        ))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let cookie = res.headers()[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let req = Request::builder()
        .method(Method::POST)
        .uri("/api/account/token")
        .header(header::COOKIE, cookie)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from("{}"))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    v["token"].as_str().unwrap().to_string()
}

/// `white` challenges `black` (by name) with White under `variant` (none: not given); `black`
/// accepts. Answers the game's id.
async fn game(app: &Router, white: &str, black: (&str, &str), variant: Option<&str>) -> String {
    let mut body = json!({"clock": {"limit": 300, "increment": 2}, "color": "white"});
    if let Some(v) = variant {
        body["variant"] = json!(v);
    }
    let r = post(app, &format!("/api/challenge/{}", black.0), white, body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        r.body["variant"]["key"],
        variant.unwrap_or("standard"),
        "{}",
        r.body
    );
    let id = r.body["id"].as_str().unwrap().to_string();
    let r = post(
        app,
        &format!("/api/challenge/{id}/accept"),
        black.1,
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    id
}

/// A move through the Board API.
async fn board_move(app: &Router, id: &str, token: &str, mv: &str) -> Reply {
    post(
        app,
        &format!("/api/board/game/{id}/move/{mv}"),
        token,
        json!({}),
    )
    .await
}

#[tokio::test]
async fn a_no_capture_limit_changes_what_the_server_accepts_and_survives_a_restart() {
    let dir = std::env::temp_dir().join(format!("damasi-online-rules-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (limited, standard) = {
        let app = router(AppState::open(&dir).unwrap());
        let a = account(&app, "kural").await;
        let b = account(&app, "sinir").await;
        let limited = game(&app, &a, ("sinir", &b), Some(LIMIT_4)).await;
        let standard = game(&app, &a, ("sinir", &b), None).await;
        // The game says its rules: lichess's variant, with the rule set's name and options.
        let full = get(&app, &format!("/api/online/games/{limited}"))
            .await
            .body;
        assert_eq!(full["variant"]["key"], LIMIT_4, "{full}");
        assert_eq!(full["variant"]["rules"], LIMIT_4);
        assert_eq!(full["variant"]["noCaptureLimit"], 4);
        assert_eq!(full["variant"]["kingBeatsLoneMan"], false);
        let plain = get(&app, &format!("/api/online/games/{standard}"))
            .await
            .body;
        assert_eq!(plain["variant"]["key"], "standard", "{plain}");
        assert_eq!(plain["variant"]["name"], "Standard");
        assert_eq!(plain["variant"]["noCaptureLimit"], Value::Null);
        // Three quiet plies in each game, then the service goes away.
        for id in [&limited, &standard] {
            for (i, mv) in QUIET[..3].iter().enumerate() {
                let who = if i % 2 == 0 { &a } else { &b };
                let r = board_move(&app, id, who, mv).await;
                assert_eq!(r.status, StatusCode::OK, "{mv}: {}", r.body);
            }
        }
        let s = get(&app, &format!("/api/online/games/{limited}"))
            .await
            .body;
        assert_eq!(
            s["state"]["status"], "started",
            "three plies are under the limit"
        );
        (limited, standard)
    };

    // A new service over the same files: the games come back from the store with their rules.
    let app = router(AppState::open(&dir).unwrap());
    let a = token_of(&app, "kural").await;
    let b = token_of(&app, "sinir").await;
    let full = get(&app, &format!("/api/online/games/{limited}"))
        .await
        .body;
    assert_eq!(full["variant"]["key"], LIMIT_4, "{full}");
    assert_eq!(full["state"]["moves"], QUIET[..3].join(" "));
    // The fourth quiet ply reaches the limit: a draw under the option, nothing under the
    // federation's rules.
    let r = board_move(&app, &limited, &b, QUIET[3]).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let s = get(&app, &format!("/api/online/games/{limited}"))
        .await
        .body["state"]
        .clone();
    assert_eq!(s["status"], "draw", "{s}");
    assert_eq!(s["outcome"], "draw:no-capture-limit");
    assert_eq!(
        s["legal"],
        Value::Null,
        "nothing is legal in a finished game"
    );
    let r = board_move(&app, &standard, &b, QUIET[3]).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let s = get(&app, &format!("/api/online/games/{standard}"))
        .await
        .body["state"]
        .clone();
    assert_eq!(s["status"], "started", "{s}");
    // White's fifth ply: refused under the limit (the game is drawn), played otherwise.
    let r = board_move(&app, &limited, &a, "c3-c4").await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);
    assert_eq!(r.body["code"], "game-over", "{}", r.body);
    let r = board_move(&app, &standard, &a, "c3-c4").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let s = get(&app, &format!("/api/online/games/{standard}"))
        .await
        .body["state"]
        .clone();
    assert_eq!(s["moves"], "a3-a4 h6-h5 b3-b4 g6-g5 c3-c4", "{s}");
    // The record names the rules (docs/rules.md: "Name the rule set a game used in its
    // record"); the default is not named.
    let pdn = get(&app, &format!("/api/online/games/{limited}/pdn"))
        .await
        .text;
    let read = damasi::pdn::read_game(&pdn).expect("the library reads it back");
    assert_eq!(read.tag("Rules"), Some(LIMIT_4), "{pdn}");
    assert_eq!(read.tag("Result"), Some("1/2-1/2"), "{pdn}");
    assert_eq!(read.game.rules().no_capture_limit, Some(4));
    let r = post(
        &app,
        &format!("/api/online/games/{standard}/resign"),
        &b,
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let pdn = get(&app, &format!("/api/online/games/{standard}/pdn"))
        .await
        .text;
    assert!(!pdn.contains("[Rules"), "{pdn}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn seeks_under_different_rules_stay_apart_and_a_taken_seek_keeps_its_rules() {
    let app = router(AppState::in_memory());
    let a = account(&app, "federe").await;
    let b = account(&app, "secenek").await;
    let c = account(&app, "alici").await;
    let kings = "turkish; king-beats-lone-man";
    let r = post(
        &app,
        "/api/lobby/seeks",
        &a,
        json!({"minutes": 5, "increment": 3}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = post(
        &app,
        "/api/lobby/seeks",
        &b,
        json!({"minutes": 5, "increment": 3, "variant": kings}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let kings_seek = r.body["id"].as_u64().unwrap();
    // Same control, different rules: both stay open, each with its rules.
    let seeks = get(&app, "/api/lobby").await.body["seeks"].clone();
    let by = |name: &str| {
        seeks
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["username"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no seek of {name}: {seeks}"))
    };
    assert_eq!(by("federe")["variant"]["key"], "standard");
    assert_eq!(by("secenek")["variant"]["key"], kings);
    assert_eq!(by("secenek")["variant"]["kingBeatsLoneMan"], true);
    // Taking a seek plays under the seek's rules.
    let r = post(
        &app,
        &format!("/api/lobby/seeks/{kings_seek}/accept"),
        &c,
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let id = r.body["game"].as_str().unwrap();
    let full = get(&app, &format!("/api/online/games/{id}")).await.body;
    assert_eq!(full["variant"]["key"], kings, "{full}");
    assert_eq!(full["rated"], false);
    // The federation's seek is still there, alone.
    let seeks = get(&app, "/api/lobby").await.body["seeks"].clone();
    assert_eq!(seeks.as_array().unwrap().len(), 1, "{seeks}");
    assert_eq!(seeks[0]["username"], "federe");
}

#[tokio::test]
async fn an_unknown_variant_or_a_rated_game_under_other_rules_is_a_400_naming_the_field() {
    let app = router(AppState::in_memory());
    let a = account(&app, "yanlis").await;
    let _b = account(&app, "hedef").await;
    for (uri, body) in [
        (
            "/api/lobby/seeks",
            json!({"minutes": 5, "variant": "atomic"}),
        ),
        (
            "/api/online/games",
            json!({"minutes": 5, "variant": "turkish; flying-men"}),
        ),
        (
            "/api/challenge/open",
            json!({"clock": {"limit": 300}, "variant": "crazyhouse"}),
        ),
        (
            "/api/challenge/hedef",
            json!({"clock": {"limit": 300}, "variant": "turkish; no-capture-limit 0"}),
        ),
        (
            "/api/challenge/hedef",
            json!({"clock": {"limit": 300}, "variant": LIMIT_4, "rated": true}),
        ),
        (
            "/api/lobby/seeks",
            json!({"minutes": 5, "variant": LIMIT_4, "rated": true}),
        ),
    ] {
        let r = post(&app, uri, &a, body.clone()).await;
        assert_eq!(
            r.status,
            StatusCode::BAD_REQUEST,
            "{uri} {body}: {}",
            r.body
        );
        let error = r.body["error"].as_str().unwrap_or_default();
        assert!(error.starts_with("variant: "), "{uri} {body}: {}", r.body);
    }
    // lichess's word and the rules crate's name of the default are both the default.
    for v in ["standard", "turkish", "Standard"] {
        let r = post(
            &app,
            "/api/online/games",
            &a,
            json!({"minutes": 5, "variant": v, "rated": true}),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{v}: {}", r.body);
        let id = r.body["id"].as_str().unwrap();
        let full = get(&app, &format!("/api/online/games/{id}")).await.body;
        assert_eq!(full["variant"]["key"], "standard", "{full}");
    }
    // An open challenge says its rules.
    let r = post(
        &app,
        "/api/challenge/open",
        &a,
        json!({"clock": {"limit": 300}, "variant": LIMIT_4}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["challenge"]["variant"]["key"], LIMIT_4, "{}", r.body);
}
