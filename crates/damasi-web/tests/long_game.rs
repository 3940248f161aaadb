//! A very long game: what one request costs and sends stays bounded however long the game is
//! (pages of plies), and paging through the plies gives back the whole game.

mod support;

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_web::games::{DEFAULT_PLY_LIMIT, MAX_PLY_LIMIT};
use damasi_web::{router, AppState};
use serde_json::{json, Value};
use tower::ServiceExt;

use support::long_game::{long_game, long_game_pdn};

async fn send(
    app: &Router,
    method: Method,
    uri: &str,
    body: Option<Value>,
) -> (StatusCode, String) {
    let mut req = Request::builder().method(method).uri(uri);
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let req = req
        .body(Body::from(body.map(|b| b.to_string()).unwrap_or_default()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = to_bytes(res.into_body(), usize::MAX).await.unwrap();
    (status, String::from_utf8(bytes.to_vec()).unwrap())
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

async fn import(app: &Router, plies: usize) -> i64 {
    let (status, text) = send(
        app,
        Method::POST,
        "/api/pdn/import",
        Some(json!({"pdn": long_game_pdn(plies)})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{text}");
    let v = json(&text);
    assert_eq!(v["errors"], json!([]), "{v}");
    v["ids"][0].as_i64().unwrap()
}

/// The next move of the long game (one that keeps it going), as the page would send it.
fn next_move(plies: usize) -> String {
    let (moves, _) = long_game(plies + 1);
    moves[plies].clone()
}

#[test]
fn the_long_game_is_legal_and_goes_on() {
    let (moves, game) = long_game(6_000);
    assert_eq!(moves.len(), 6_000);
    assert_eq!(game.ply(), 6_000);
    assert!(game.outcome().is_none());
    // No capture, no promotion: every move is a king's quiet move.
    assert!(game.history().iter().all(|m| !m.is_capture()));
}

#[tokio::test]
async fn a_long_game_is_sent_in_bounded_pages() {
    let app = router(AppState::in_memory());
    let plies = 6_000;
    let id = import(&app, plies).await;

    // By default: the newest plies, and where they sit.
    let (status, text) = send(&app, Method::GET, &format!("/api/games/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    let v = json(&text);
    assert_eq!(v["plies"].as_array().unwrap().len(), DEFAULT_PLY_LIMIT);
    assert_eq!(v["plies_page"]["total"], plies);
    assert_eq!(v["plies_page"]["from"], plies - DEFAULT_PLY_LIMIT);
    assert_eq!(v["plies_page"]["more_before"], true);
    assert_eq!(v["plies_page"]["more_after"], false);
    let default_size = text.len();
    // A ply is a few hundred bytes: 500 of them, not 6,000.
    assert!(
        default_size < 400 * DEFAULT_PLY_LIMIT,
        "{default_size} bytes"
    );

    // Paging from the first move through the whole game gives back every move, in order,
    // and no page is over the maximum however much is asked.
    let (expected, _) = long_game(plies);
    let mut got = Vec::new();
    let mut from = 0;
    loop {
        let (status, text) = send(
            &app,
            Method::GET,
            &format!("/api/games/{id}?from={from}&limit=100000"),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        let v = json(&text);
        let page = v["plies"].as_array().unwrap();
        assert!(page.len() <= MAX_PLY_LIMIT);
        assert_eq!(v["plies_page"]["from"], from);
        assert_eq!(v["plies_page"]["more_before"], from > 0);
        got.extend(
            page.iter()
                .map(|p| p["move"]["landing"].as_str().unwrap().to_string()),
        );
        from += page.len();
        if v["plies_page"]["more_after"] == false {
            break;
        }
        assert_eq!(page.len(), MAX_PLY_LIMIT);
    }
    assert_eq!(got, expected);

    // A page past the end is empty; limit=0 sends the game without plies.
    let (_, text) = send(
        &app,
        Method::GET,
        &format!("/api/games/{id}?from=999999"),
        None,
    )
    .await;
    let v = json(&text);
    assert_eq!(v["plies"], json!([]));
    assert_eq!(v["plies_page"]["from"], plies);
    let (_, text) = send(&app, Method::GET, &format!("/api/games/{id}?limit=0"), None).await;
    assert_eq!(json(&text)["plies"], json!([]));
    // A bad query is a 400, not a panic.
    let (status, _) = send(&app, Method::GET, &format!("/api/games/{id}?from=-1"), None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_move_answer_does_not_grow_with_the_game() {
    let app = router(AppState::in_memory());
    let mut sizes = Vec::new();
    for plies in [1_000, 8_000] {
        let id = import(&app, plies).await;
        let (status, text) = send(
            &app,
            Method::POST,
            &format!("/api/games/{id}/move"),
            Some(json!({"move": next_move(plies)})),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{text}");
        let v = json(&text);
        assert_eq!(v["plies_page"]["total"], plies + 1);
        assert_eq!(v["plies"].as_array().unwrap().len(), DEFAULT_PLY_LIMIT);
        sizes.push(text.len());
    }
    // Eight times the moves, the same answer give or take the text of a few moves.
    let (short, long) = (sizes[0] as f64, sizes[1] as f64);
    assert!((long - short).abs() < 0.05 * short, "{sizes:?}");
}
