//! The learning endpoints through the router: the course, the federation's examples, puzzles
//! near a rating, attempts and the player's puzzle rating, and their errors.

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi::{Notation, Position};
use damasi_web::learn::puzzles;
use damasi_web::{router, AppState};
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
    let v = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{uri}: not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    (status, v)
}

async fn get(app: &Router, uri: &str) -> (StatusCode, Value) {
    send(app, Method::GET, uri, None).await
}

async fn post(app: &Router, uri: &str, body: Value) -> (StatusCode, Value) {
    send(app, Method::POST, uri, Some(body)).await
}

fn app() -> Router {
    router(AppState::in_memory())
}

#[tokio::test]
async fn the_course_and_the_examples_are_served() {
    let app = app();
    let (s, v) = get(&app, "/api/learn/course").await;
    assert_eq!(s, StatusCode::OK);
    let lessons = v["lessons"].as_array().unwrap();
    assert!(lessons.len() >= 6);
    let first = &lessons[0]["steps"][0];
    for field in ["id", "fen", "goal", "accepted", "wrong"] {
        assert!(!first[field].is_null(), "{field}");
    }
    assert!(first["title"]["tr"].is_string() && first["text"]["en"].is_string());
    assert!(first["goal"]["type"].is_string());
    // A step's accepted text is what POST /api/move answers as `landing` for that move.
    let (s, m) = post(
        &app,
        "/api/move",
        json!({"fen": first["fen"], "move": first["accepted"][0]}),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(m["move"]["landing"], first["accepted"][0]);

    let (s, v) = get(&app, "/api/learn/examples").await;
    assert_eq!(s, StatusCode::OK);
    let ex = v["examples"].as_array().unwrap();
    assert_eq!(ex.len(), 10);
    assert_eq!(ex[8]["answer"], "d4xc4xb3");
    assert_eq!(ex[5]["setup"]["move"], "c2-c1");

    let (_, index) = get(&app, "/api").await;
    let lines = index["endpoints"].to_string();
    assert!(lines.contains("/api/learn/course") && lines.contains("/api/puzzles/ID/attempt"));
}

#[tokio::test]
async fn a_puzzle_near_the_rating_comes_without_its_solution() {
    let app = app();
    let (s, v) = get(&app, "/api/puzzles?rating=1500").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(v["solution"].is_null(), "the solution stays on the server");
    let rating = v["rating"].as_f64().unwrap();
    let mut distances: Vec<f64> = puzzles()
        .iter()
        .map(|p| (p.rating as f64 - 1500.0).abs())
        .collect();
    distances.sort_by(f64::total_cmp);
    assert!((rating - 1500.0).abs() <= distances[7]);
    let id = v["id"].as_str().unwrap().to_string();
    assert!(v["moves"].as_u64().unwrap() >= 1);
    assert!(Position::from_fen(v["fen"].as_str().unwrap()).is_ok());

    let (s, w) = get(&app, &format!("/api/puzzles/{id}")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        (w["id"].clone(), w["fen"].clone()),
        (v["id"].clone(), v["fen"].clone())
    );

    let (s, e) = get(&app, &format!("/api/puzzles?rating=1500&exclude={id}")).await;
    assert_eq!(s, StatusCode::OK);
    assert_ne!(e["id"], v["id"]);

    // The default rating is 1500; a rating that is not a number is a 400.
    let (s, _) = get(&app, "/api/puzzles").await;
    assert_eq!(s, StatusCode::OK);
    let (s, e) = get(&app, "/api/puzzles?rating=strong").await;
    assert_eq!(
        (s, e["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad-request"))
    );
    let (s, e) = get(&app, "/api/puzzles/nope").await;
    assert_eq!(
        (s, e["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("not-found"))
    );
}

#[tokio::test]
async fn attempts_are_checked_and_rate_the_player() {
    let app = app();
    let p = puzzles()
        .iter()
        .find(|p| p.solution.len() >= 3)
        .expect("a puzzle with a reply");
    let uri = format!("/api/puzzles/{}/attempt", p.id);
    let player = json!({"rating": 1500.0, "deviation": 350.0, "volatility": 0.06});

    // The first move: right, the reply comes back, no rating change yet.
    let (s, v) = post(
        &app,
        &uri,
        json!({"moves": [p.solution[0]], "player": player}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["correct"], true);
    assert_eq!(v["complete"], false);
    assert_eq!(v["reply"]["landing"], p.solution[1]);
    assert!(v["player"].is_null() && v["solution"].is_null());

    // The whole line: solved, the rating goes up, the solution is shown.
    let mine: Vec<&String> = p.solution.iter().step_by(2).collect();
    let (s, v) = post(&app, &uri, json!({"moves": mine, "player": player})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        (v["correct"].clone(), v["complete"].clone()),
        (json!(true), json!(true))
    );
    assert!(v["player"]["rating"].as_f64().unwrap() > 1500.0);
    assert_eq!(v["solution"], json!(p.solution));

    // A wrong legal move: not correct, the expected move, the rating goes down.
    let pos = Position::from_fen(&p.fen).unwrap();
    let first = pos.parse_move(&p.solution[0]).unwrap();
    let other = pos
        .legal_moves()
        .iter()
        .copied()
        .find(|m| *m != first)
        .unwrap();
    let wrong = pos.write_move(&other, Notation::Landing);
    let (s, v) = post(&app, &uri, json!({"moves": [wrong], "player": player})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["correct"], false);
    assert_eq!(v["expected"]["landing"], p.solution[0]);
    assert!(v["player"]["rating"].as_f64().unwrap() < 1500.0);
    assert_eq!(v["fen"], pos.to_fen());

    // Errors: an illegal move (422 with the legal moves), no moves, an unknown field, an
    // unknown puzzle.
    let (s, v) = post(&app, &uri, json!({"moves": ["a1-h8"]})).await;
    assert_eq!(
        (s, v["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("illegal-move"))
    );
    assert_eq!(
        v["legal"].as_array().unwrap().len(),
        pos.legal_moves().len()
    );
    let (s, v) = post(&app, &uri, json!({"moves": []})).await;
    assert_eq!(
        (s, v["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad-request"))
    );
    let (s, v) = post(&app, &uri, json!({"moves": [p.solution[0]], "hint": true})).await;
    assert_eq!(
        (s, v["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad-request"))
    );
    let (s, v) = post(
        &app,
        "/api/puzzles/nope/attempt",
        json!({"moves": ["a1-a2"]}),
    )
    .await;
    assert_eq!(
        (s, v["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("not-found"))
    );
}
