//! The server as referee, through the router without sockets: who may do what (every forbidden
//! action is refused with a 4xx, a code and a message), clocks that survive a restart, the
//! engine resumed after a restart, a failed engine with its clock paused, partial PDN import,
//! and old databases migrated.

use std::path::PathBuf;
use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_online::brain::Brain;
use damasi_web::{router, AppState, Store};
use serde_json::{json, Value};
use tower::ServiceExt;

async fn send(app: &Router, method: Method, uri: &str, body: Option<Value>) -> (StatusCode, Value) {
    let mut req = Request::builder().method(method).uri(uri);
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let text = body.map(|b| b.to_string()).unwrap_or_default();
    let res = app
        .clone()
        .oneshot(req.body(Body::from(text)).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let bytes = to_bytes(res.into_body(), usize::MAX).await.unwrap();
    let v = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)))
    };
    (status, v)
}

async fn post(app: &Router, uri: &str, body: Value) -> (StatusCode, Value) {
    send(app, Method::POST, uri, Some(body)).await
}

async fn get(app: &Router, uri: &str) -> Value {
    let (status, v) = send(app, Method::GET, uri, None).await;
    assert_eq!(status, StatusCode::OK, "{uri}: {v}");
    v
}

async fn new_game(app: &Router, body: Value) -> i64 {
    let (status, v) = post(app, "/api/games", body).await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    v["id"].as_i64().unwrap()
}

async fn wait_for(app: &Router, id: i64, done: impl Fn(&Value) -> bool) -> Value {
    let mut v = get(app, &format!("/api/games/{id}")).await;
    for _ in 0..40 {
        if done(&v) {
            return v;
        }
        v = get(
            app,
            &format!("/api/games/{id}?wait_version={}", v["version"]),
        )
        .await;
    }
    panic!("game {id} never got there: {v}");
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damasi-referee-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Asserts a refusal: its status, its code, and a message that is not empty.
fn refused(reply: (StatusCode, Value), status: StatusCode, code: &str) {
    let (s, v) = reply;
    assert_eq!(s, status, "{v}");
    assert_eq!(v["code"], code, "{v}");
    assert!(v["error"].as_str().is_some_and(|m| m.len() > 10), "{v}");
}

#[tokio::test]
async fn forbidden_actions_are_refused_with_a_code() {
    let app = router(AppState::in_memory());
    // The engine plays White; a person Black.
    let id = new_game(
        &app,
        json!({"white": {"kind": "engine", "level": 1}, "black": {"kind": "human"}}),
    )
    .await;
    let g = format!("/api/games/{id}");
    // Before the engine has moved, Black has nothing to take back.
    let v = wait_for(&app, id, |v| v["side"] == "black").await;
    assert_eq!(v["plies"].as_array().unwrap().len(), 1);
    refused(
        post(&app, &format!("{g}/takeback"), json!({"side": "black"})).await,
        StatusCode::CONFLICT,
        "nothing-to-take-back",
    );
    // Actions for the engine's side.
    for (path, body) in [
        ("resign", json!({"side": "white"})),
        ("takeback", json!({"side": "white"})),
        ("draw", json!({"side": "white"})),
        ("draw/answer", json!({"side": "white", "accept": true})),
    ] {
        refused(
            post(&app, &format!("{g}/{path}"), body).await,
            StatusCode::FORBIDDEN,
            "engine-side",
        );
    }
    // The engine is not asked to move for a person, nor a person for the engine.
    refused(
        send(&app, Method::POST, &format!("{g}/engine"), None).await,
        StatusCode::CONFLICT,
        "not-your-turn",
    );
    // No draw offer to answer.
    let id2 = new_game(&app, json!({})).await;
    refused(
        post(
            &app,
            &format!("/api/games/{id2}/draw/answer"),
            json!({"side": "black", "accept": true}),
        )
        .await,
        StatusCode::CONFLICT,
        "no-draw-offer",
    );
    // A bad side.
    refused(
        post(&app, &format!("{g}/resign"), json!({"side": "purple"})).await,
        StatusCode::BAD_REQUEST,
        "bad-request",
    );
    // Black plays, then resigns; after that every change is refused as game-over.
    let (s, v) = post(&app, &format!("{g}/move"), json!({"move": "a6-a5"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, v) = post(&app, &format!("{g}/resign"), json!({"side": "black"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["outcome"]["code"], "white:resignation");
    for (path, body) in [
        ("move", json!({"move": "a5-a4"})),
        ("takeback", json!({"side": "black"})),
        ("resign", json!({"side": "black"})),
        ("draw", json!({"side": "black"})),
    ] {
        let reply = post(&app, &format!("{g}/{path}"), body).await;
        assert_eq!(reply.1["params"]["outcome"], "white:resignation");
        refused(reply, StatusCode::CONFLICT, "game-over");
    }
    refused(
        send(&app, Method::POST, &format!("{g}/hint"), None).await,
        StatusCode::CONFLICT,
        "game-over",
    );
}

#[tokio::test]
async fn take_back_against_the_engine_takes_back_its_reply_too() {
    let app = router(AppState::in_memory());
    let id = new_game(
        &app,
        json!({"white": {"kind": "human"}, "black": {"kind": "engine", "level": 1}}),
    )
    .await;
    let g = format!("/api/games/{id}");
    post(&app, &format!("{g}/move"), json!({"move": "d3-d4"})).await;
    wait_for(&app, id, |v| v["plies"].as_array().unwrap().len() == 2).await;
    let (s, v) = post(&app, &format!("{g}/takeback"), json!({"side": "white"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["plies"].as_array().unwrap().len(), 0);
    assert_eq!(v["side"], "white");
    assert_eq!(v["engine"]["state"], "idle");
}

#[tokio::test]
async fn partial_pdn_import_keeps_the_good_games() {
    let app = router(AppState::in_memory());
    let pdn = "[GameType \"30\"]\n\n1. d3-d4 e6-e5 *\n\n\
               [GameType \"30\"]\n\n1. d3-d7 *\n\n\
               [GameType \"30\"]\n[Result \"0-1\"]\n[Termination \"time\"]\n\n1. c3-c4 0-1\n";
    let (s, v) = post(&app, "/api/pdn/import", json!({ "pdn": pdn })).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["ids"].as_array().unwrap().len(), 2);
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["game"], 2);
    assert_eq!(errors[0]["line"], 7);
    assert!(errors[0]["message"].as_str().unwrap().contains("d3-d7"));
    // The loss on time came through the Termination tag.
    let third = get(&app, &format!("/api/games/{}", v["ids"][1])).await;
    assert_eq!(third["outcome"]["code"], "black:time");
    // Nothing readable at all is a 400.
    let (s, v) = post(
        &app,
        "/api/pdn/import",
        json!({"pdn": "[GameType \"30\"]\n\n1. d3-d7 *\n"}),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["error"].as_str().unwrap().contains("line 3"), "{v}");
}

#[tokio::test]
async fn export_writes_the_termination() {
    let app = router(AppState::in_memory());
    let id = new_game(&app, json!({"clock": {"minutes": 5, "increment_s": 3}})).await;
    post(
        &app,
        &format!("/api/games/{id}/move"),
        json!({"move": "d3-d4"}),
    )
    .await;
    post(
        &app,
        &format!("/api/games/{id}/resign"),
        json!({"side": "black"}),
    )
    .await;
    let req = Request::builder()
        .uri(format!("/api/games/{id}/pdn"))
        .body(Body::empty())
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let text = String::from_utf8(
        to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap()
            .to_vec(),
    )
    .unwrap();
    assert!(text.contains("[Termination \"resignation\"]"), "{text}");
    assert!(text.contains("[TimeControl \"300+3\"]"), "{text}");
    assert!(text.contains("[Result \"1-0\"]"), "{text}");
}

#[tokio::test]
async fn the_clock_keeps_running_across_a_restart() {
    let dir = temp_dir("clock");
    let (id, before) = {
        let app = router(AppState::open(&dir).unwrap());
        let id = new_game(&app, json!({"clock": {"minutes": 1}})).await;
        post(
            &app,
            &format!("/api/games/{id}/move"),
            json!({"move": "d3-d4"}),
        )
        .await;
        let v = get(&app, &format!("/api/games/{id}")).await;
        (id, v["clock"]["black_ms"].as_u64().unwrap())
    };
    tokio::time::sleep(Duration::from_millis(400)).await;
    let app = router(AppState::open(&dir).unwrap());
    let v = get(&app, &format!("/api/games/{id}")).await;
    assert_eq!(v["clock"]["running"], "black");
    let after = v["clock"]["black_ms"].as_u64().unwrap();
    assert!(
        after + 300 <= before,
        "before {before}, after the restart {after}"
    );
    assert_eq!(v["clock"]["white_ms"], 60_000);
    // Black's move is charged the time across the restart.
    let (_, v) = post(
        &app,
        &format!("/api/games/{id}/move"),
        json!({"move": "e6-e5"}),
    )
    .await;
    assert!(v["plies"][1]["elapsed_ms"].as_u64().unwrap() >= 400, "{v}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_engine_resumes_after_a_restart() {
    let dir = temp_dir("resume");
    // The first server accepts the person's move but its engine can never search.
    let id = {
        let store = Store::open(&dir).unwrap();
        let app = router(AppState::with_parts(
            store,
            Brain::with_capacity(0, Duration::from_millis(10)),
        ));
        let id = new_game(
            &app,
            json!({"white": {"kind": "human"}, "black": {"kind": "engine", "level": 1}}),
        )
        .await;
        let (s, v) = post(
            &app,
            &format!("/api/games/{id}/move"),
            json!({"move": "d3-d4"}),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        id
    };
    // A new server with a working engine: the engine's move comes without anyone asking.
    let state = AppState::open(&dir).unwrap();
    let app = router(state.clone());
    state.referee.resume_all().await.unwrap();
    let v = wait_for(&app, id, |v| v["plies"].as_array().unwrap().len() == 2).await;
    assert_eq!(v["side"], "white");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_failed_engine_pauses_its_clock_until_a_retry() {
    let app = router(AppState::with_parts(
        Store::in_memory(),
        Brain::with_capacity(0, Duration::from_millis(10)),
    ));
    let id = new_game(
        &app,
        json!({"white": {"kind": "human"}, "black": {"kind": "engine", "level": 1},
               "clock": {"minutes": 1}}),
    )
    .await;
    let g = format!("/api/games/{id}");
    post(&app, &format!("{g}/move"), json!({"move": "d3-d4"})).await;
    let v = wait_for(&app, id, |v| v["engine"]["state"] == "failed").await;
    assert!(
        v["engine"]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{v}"
    );
    assert_eq!(v["clock"]["running"], Value::Null, "paused: {v}");
    let paused = v["clock"]["black_ms"].as_u64().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let v = get(&app, &g).await;
    assert_eq!(v["clock"]["black_ms"].as_u64().unwrap(), paused);
    assert_eq!(
        v["side"], "black",
        "nobody's status says it is White's move"
    );
    // A retry starts it again (and, with no engine, it fails again).
    let (s, v) = send(&app, Method::POST, &format!("{g}/engine"), None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["engine"]["state"], "thinking");
    wait_for(&app, id, |v| v["engine"]["state"] == "failed").await;
}

#[tokio::test]
async fn an_old_database_is_migrated() {
    let dir = temp_dir("migrate");
    std::fs::create_dir_all(&dir).unwrap();
    {
        let conn = rusqlite::Connection::open(dir.join("games.sqlite3")).unwrap();
        conn.execute_batch(
            "CREATE TABLE games (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                created TEXT NOT NULL DEFAULT (datetime('now')),
                updated TEXT NOT NULL DEFAULT (datetime('now')),
                white TEXT NOT NULL, black TEXT NOT NULL, start_fen TEXT NOT NULL,
                moves TEXT NOT NULL DEFAULT '', result TEXT NOT NULL DEFAULT '*',
                reason TEXT NOT NULL DEFAULT '', clock TEXT,
                tags TEXT NOT NULL DEFAULT '{}', rules TEXT NOT NULL DEFAULT 'turkish');
             INSERT INTO games (white, black, start_fen, moves, result, reason, clock) VALUES
               ('human', 'engine:3', 'W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7',
                'd3.d4.0 e6.e5.0', '0-1', 'White ran out of time: Black wins',
                '{\"initial_ms\":60000,\"increment_ms\":2000,\"white_ms\":0,\"black_ms\":50000}'),
               ('human', 'human', 'W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7',
                'c3.c4.0', '*', '', NULL);",
        )
        .unwrap();
    }
    let app = router(AppState::open(&dir).unwrap());
    let list = get(&app, "/api/games").await;
    assert_eq!(list.as_array().unwrap().len(), 2);
    let first = get(&app, "/api/games/1").await;
    assert_eq!(first["outcome"]["code"], "black:time");
    assert_eq!(first["plies"].as_array().unwrap().len(), 2);
    assert_eq!(first["clock"]["increment_ms"], 2000);
    let second = get(&app, "/api/games/2").await;
    assert_eq!(second["outcome"]["over"], false);
    assert_eq!(second["plies"][0]["move"]["landing"], "c3-c4");
    // And it goes on being used.
    let (s, v) = post(&app, "/api/games/2/move", json!({"move": "e6-e5"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    std::fs::remove_dir_all(&dir).unwrap();
}
