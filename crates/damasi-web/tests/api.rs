//! The router without sockets: every endpoint, its errors and the embedded page.

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_web::{router, AppState};
use serde_json::{json, Value};
use tower::ServiceExt;

struct Reply {
    status: StatusCode,
    content_type: String,
    text: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }
}

async fn send(app: &Router, method: Method, uri: &str, body: Option<&str>) -> Reply {
    let mut req = Request::builder().method(method).uri(uri);
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let req = req
        .body(Body::from(body.unwrap_or("").to_string()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let content_type = res
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = to_bytes(res.into_body(), usize::MAX).await.unwrap();
    Reply {
        status,
        content_type,
        text: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

async fn get(app: &Router, uri: &str) -> Reply {
    send(app, Method::GET, uri, None).await
}

async fn post(app: &Router, uri: &str, body: Value) -> Reply {
    send(app, Method::POST, uri, Some(&body.to_string())).await
}

fn app() -> Router {
    router(AppState::in_memory())
}

fn enc(fen: &str) -> String {
    fen.replace(':', "%3A").replace(',', "%2C")
}

#[tokio::test]
async fn page_and_assets_are_embedded() {
    let app = app();
    for (path, mime, needle) in [
        ("/", "text/html", "<title>damasi"),
        ("/js/main.js", "text/javascript", "boot("),
        ("/js/api.js", "text/javascript", "api("),
        ("/i18n.js", "text/javascript", "tr:"),
        ("/js/plies.js", "text/javascript", "Plies"),
        ("/app.css", "text/css", ".board"),
        ("/favicon.svg", "image/svg+xml", "<svg"),
    ] {
        let r = get(&app, path).await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert!(
            r.content_type.starts_with(mime),
            "{path}: {}",
            r.content_type
        );
        assert!(r.text.contains(needle), "{path}");
    }
}

#[tokio::test]
async fn the_in_browser_engine_files_are_served_under_wasm() {
    let app = app();
    for name in ["engine.js", "worker.js"] {
        let r = get(&app, &format!("/wasm/{name}")).await;
        assert_eq!(r.status, StatusCode::OK, "{name}");
        assert!(r.content_type.starts_with("text/javascript"), "{name}");
    }
    assert!(get(&app, "/wasm/engine.js")
        .await
        .text
        .contains("class BrowserEngine"));
    // Nothing else, and no way out of the directory.
    for path in [
        "/wasm/app.js",
        "/wasm/..%2FCargo.toml",
        "/wasm/%2E%2E",
        "/wasm/",
    ] {
        let r = get(&app, path).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn unknown_paths_are_404() {
    let app = app();
    let r = get(&app, "/no/such/page").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = get(&app, "/api/no-such-endpoint").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("no-such-endpoint"));
    let r = get(&app, "/api/games/999").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    // Anything under /api is the API's: a JSON 404 naming the whole path, never the page.
    for path in [
        "/api/",
        "/api//",
        "/api/games/",
        "/api/games/1/x/y",
        "/api/no/such",
    ] {
        for method in [Method::GET, Method::POST] {
            let body = (method == Method::POST).then_some("{}");
            let r = send(&app, method.clone(), path, body).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{method} {path}");
            assert!(
                r.content_type.starts_with("application/json"),
                "{method} {path}: {}",
                r.content_type
            );
            let v = r.json();
            assert_eq!(v["code"], "not-found", "{method} {path}");
            assert_eq!(
                v["error"].as_str().unwrap(),
                format!("no such endpoint: {path}"),
                "{method} {path}"
            );
        }
    }
    // A huge unknown path is not echoed whole.
    let long = format!("/api/{}", "x".repeat(5000));
    let r = get(&app, &long).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(r.text.len() < 500, "{} bytes", r.text.len());
    let r = get(&app, "/api/games/not-a-number").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.json()["error"].is_string());
}

#[tokio::test]
async fn api_index_lists_the_endpoints() {
    let r = get(&app(), "/api").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.json()["endpoints"].as_array().unwrap().len() > 10);
}

#[tokio::test]
async fn health_answers() {
    let r = get(&app(), "/api/health").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["ok"], true);
}

#[tokio::test]
async fn moves_of_the_start_position() {
    let r = get(&app(), "/api/moves").await;
    assert_eq!(r.status, StatusCode::OK);
    let v = r.json();
    assert_eq!(v["side"], "white");
    assert_eq!(v["forced_capture"], false);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 8);
    let d = moves.iter().find(|m| m["from"] == "d3").unwrap();
    assert_eq!(d["landing"], "d3-d4");
    assert_eq!(d["route"], json!(["d4"]));
    assert_eq!(d["captures"], json!([]));
}

#[tokio::test]
async fn moves_show_the_route_of_a_multi_capture() {
    let fen = "W:Wb3:Bc3,d4,h7";
    let r = get(&app(), &format!("/api/moves?fen={}", enc(fen))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    assert_eq!(v["forced_capture"], true);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0]["route"], json!(["d3", "d5"]));
    assert_eq!(moves[0]["captures"], json!(["c3", "d4"]));
    assert_eq!(moves[0]["landing"], "b3xd3xd5");
}

#[tokio::test]
async fn malformed_fen_is_400_and_says_why() {
    let app = app();
    for fen in ["X:Wa2:Bb7", "W:Wa2", "W:Wz9:Bb7", "W:Wa1:Bb7"] {
        let r = get(&app, &format!("/api/moves?fen={}", enc(fen))).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{fen}");
        assert!(
            r.json()["error"].as_str().unwrap().starts_with("bad FEN"),
            "{fen}"
        );
    }
    let long = "a".repeat(2000);
    let r = get(&app, &format!("/api/moves?fen={long}")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = get(&app, "/api/moves?rules=chess").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn play_a_move_by_fen() {
    let r = post(
        &app(),
        "/api/move",
        json!({"fen": "startpos", "move": "d3-d4"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    assert_eq!(v["move"]["landing"], "d3-d4");
    assert_eq!(v["position"]["side"], "black");
    assert!(v["position"]["fen"].as_str().unwrap().contains("d4"));
    assert_eq!(v["position"]["outcome"]["over"], false);
}

#[tokio::test]
async fn play_a_capture_in_either_notation() {
    let app = app();
    for text in ["b3xd3xd5", "b3xc3xd4", "b3xd5"] {
        let r = post(
            &app,
            "/api/move",
            json!({"fen": "W:Wb3:Bc3,d4,h7", "move": text}),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{text}: {}", r.text);
        let v = r.json();
        assert_eq!(v["position"]["fen"], "B:Wd5:Bh7", "{text}");
        assert_eq!(v["move"]["captured"], "b3xc3xd4");
    }
}

#[tokio::test]
async fn illegal_move_is_422_with_the_legal_moves() {
    let r = post(&app(), "/api/move", json!({"move": "d3-d5"})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    let v = r.json();
    assert_eq!(v["legal"].as_array().unwrap().len(), 8);
    assert!(v["error"].as_str().unwrap().contains("d3-d5"));
}

#[tokio::test]
async fn ambiguous_move_is_422_with_the_candidates() {
    // A black king on a8 takes a3 and may stop on a2 or a1: "a8xa3" names both.
    let r = post(
        &app(),
        "/api/move",
        json!({"fen": "B:Wa3,h2:BKa8,h7", "move": "a8xa3"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    let v = r.json();
    assert_eq!(v["legal"].as_array().unwrap().len(), 2, "{v}");
}

#[tokio::test]
async fn malformed_requests_are_400() {
    let app = app();
    let bad = [
        "{not json",
        "{}",
        r#"{"move": 5}"#,
        r#"{"move": "d3-d4", "extra": 1}"#,
        r#"{"fen": "nonsense", "move": "d3-d4"}"#,
        r#"[1, 2]"#,
    ];
    for body in bad {
        let r = send(&app, Method::POST, "/api/move", Some(body)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {}", r.text);
        assert!(r.json()["error"].is_string(), "{body}");
    }
    let r = send(&app, Method::POST, "/api/move", Some("zz")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let long = json!({"move": "d".repeat(500)});
    let r = post(&app, "/api/move", long).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn oversized_body_is_refused() {
    let big = json!({"pdn": "x".repeat(damasi_web::BODY_LIMIT + 10)});
    let r = post(&app(), "/api/pdn/import", big).await;
    assert!(r.status.is_client_error(), "{}", r.status);
}

#[tokio::test]
async fn move_in_a_finished_position_is_409() {
    // One piece each: the game is drawn before anything is played.
    let r = post(
        &app(),
        "/api/move",
        json!({"fen": "W:Wd4:Bd6", "move": "d4-d5"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    let r = get(&app(), &format!("/api/moves?fen={}", enc("W:Wd4:Bd6"))).await;
    let v = r.json();
    assert_eq!(v["outcome"]["over"], true);
    assert_eq!(v["outcome"]["reason"], "draw: one piece each");
    assert_eq!(v["moves"], json!([]));
}

#[tokio::test]
async fn engine_move_and_analysis() {
    let app = app();
    let r = post(
        &app,
        "/api/engine/move",
        json!({"level": 1, "move_time_ms": 100}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    assert!(v["analysis"]["best"]["landing"].is_string());
    assert_eq!(v["position"]["side"], "black");
    let r = post(
        &app,
        "/api/analyze",
        json!({"fen": "W:Wb3:Bc3,d4,h7", "move_time_ms": 100}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    assert_eq!(v["best"]["landing"], "b3xd3xd5");
    assert_eq!(v["pv"][0], "b3xd3xd5");
    let r = post(&app, "/api/engine/move", json!({"level": 11})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = post(&app, "/api/analyze", json!({"fen": "W:Wa2"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

/// The first moves of an analysis's lines.
fn first_moves(v: &Value) -> Vec<String> {
    v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["move"]["landing"].as_str().unwrap().to_string())
        .collect()
}

/// The scores of an analysis's lines, in order.
fn line_scores(v: &Value) -> Vec<i64> {
    v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["score"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn analysis_with_several_lines() {
    let app = app();
    // Three lines from the start: three different first moves, the best first and the same
    // as the single-line fields, scores from best to worst, each line starting with its move.
    let r = post(
        &app,
        "/api/analyze",
        json!({"multipv": 3, "move_time_ms": 300}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    let firsts = first_moves(&v);
    assert_eq!(firsts.len(), 3, "{}", r.text);
    let mut distinct = firsts.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "{firsts:?}");
    assert_eq!(v["best"]["landing"], v["lines"][0]["move"]["landing"]);
    assert_eq!(v["pv"][0], v["lines"][0]["pv"][0]);
    assert_eq!(v["score"], v["lines"][0]["score"]);
    let scores = line_scores(&v);
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    for l in v["lines"].as_array().unwrap() {
        assert_eq!(l["pv"][0], l["move"]["landing"]);
        assert!(l["depth"].as_u64().unwrap() >= 1);
        assert_eq!(l["white_score"], l["score"], "White to move");
        assert!(l["move"]["from"].is_string() && l["move"]["to"].is_string());
    }

    // A position with exactly two legal moves gives two lines when three are asked.
    let fen = "W:Wa3:Bg7,h7";
    let moves = get(&app, &format!("/api/moves?fen={}", enc(fen)))
        .await
        .json();
    assert_eq!(moves["moves"].as_array().unwrap().len(), 2);
    let r = post(
        &app,
        "/api/analyze",
        json!({"fen": fen, "multipv": 3, "move_time_ms": 100}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let mut firsts = first_moves(&r.json());
    firsts.sort();
    assert_eq!(firsts, ["a3-a4", "a3-b3"]);

    // Black to move: `white_score` is the opposite of `score`.
    let r = post(
        &app,
        "/api/analyze",
        json!({"fen": "B:Wa3:Bg7,h7", "multipv": 2, "move_time_ms": 100}),
    )
    .await;
    let v = r.json();
    assert_eq!(v["lines"].as_array().unwrap().len(), 2, "{}", r.text);
    for l in v["lines"].as_array().unwrap() {
        assert_eq!(l["white_score"].as_i64(), l["score"].as_i64().map(|s| -s));
    }

    // Without `multipv`: one line, the same as the single-line fields.
    let r = post(&app, "/api/analyze", json!({"move_time_ms": 100})).await;
    let v = r.json();
    assert_eq!(first_moves(&v), [v["best"]["landing"].as_str().unwrap()]);

    // Out of range or not a number: refused, naming the field.
    for bad in [json!(0), json!(6), json!(-1), json!("3")] {
        let r = post(&app, "/api/analyze", json!({"multipv": bad})).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}: {}", r.text);
        assert_eq!(r.json()["code"], "bad-request");
        assert!(
            r.json()["error"].as_str().unwrap().contains("multipv"),
            "{}",
            r.text
        );
    }
    // The engine's move takes no `multipv`.
    let r = post(&app, "/api/engine/move", json!({"multipv": 2})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn analysis_restricted_to_given_moves() {
    let app = app();
    // d4-d5 wins material (d6xd4 is forced, then d3xd5xb5xb7); with it left out, the engine
    // answers with one of the two quiet moves asked about, each with its own line.
    let fen = "W:Wd2,d3,d4,e5:Bb6,c5,d6,h7";
    let body =
        |moves: Value| json!({"fen": fen, "multipv": 2, "move_time_ms": 100, "searchmoves": moves});
    let r = post(&app, "/api/analyze", body(json!(["e5-f5", "d2-c2"]))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    let mut firsts = first_moves(&v);
    firsts.sort();
    assert_eq!(firsts, ["d2-c2", "e5-f5"], "{}", r.text);
    assert_ne!(v["best"]["landing"], "d4-d5");
    // With the shot among them, it is the best and scored clearly above the quiet move.
    let r = post(&app, "/api/analyze", body(json!(["e5-f5", "d4-d5"]))).await;
    let v = r.json();
    assert_eq!(v["best"]["landing"], "d4-d5", "{}", r.text);
    let scores = line_scores(&v);
    assert!(
        scores.len() == 2 && scores[0] >= scores[1] + 100,
        "{scores:?}"
    );
    // A move that is not legal there is refused, naming which one.
    let r = post(&app, "/api/analyze", body(json!(["e5-f5", "a3-a4"]))).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    let error = r.json()["error"].as_str().unwrap().to_string();
    assert!(error.starts_with("searchmoves[1]: "), "{error}");
    let r = post(&app, "/api/analyze", body(json!("e5-f5"))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
}

async fn new_game(app: &Router, body: Value) -> Value {
    let r = post(app, "/api/games", body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()
}

#[tokio::test]
async fn a_game_between_two_people() {
    let app = app();
    let g = new_game(&app, json!({})).await;
    let id = g["id"].as_i64().unwrap();
    assert_eq!(g["legal"].as_array().unwrap().len(), 8);
    let r = post(
        &app,
        &format!("/api/games/{id}/move"),
        json!({"move": "d3-d4"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = post(
        &app,
        &format!("/api/games/{id}/move"),
        json!({"move": "e6-e5"}),
    )
    .await;
    let v = r.json();
    assert_eq!(v["plies"].as_array().unwrap().len(), 2);
    assert_eq!(v["plies"][1]["move"]["landing"], "e6-e5");
    // Illegal: 422 with the legal moves; the game is unchanged.
    let r = post(
        &app,
        &format!("/api/games/{id}/move"),
        json!({"move": "a3-a5"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(!r.json()["legal"].as_array().unwrap().is_empty());
    // Black takes back its move.
    let r = post(
        &app,
        &format!("/api/games/{id}/takeback"),
        json!({"side": "black"}),
    )
    .await;
    assert_eq!(r.json()["plies"].as_array().unwrap().len(), 1);
    // The engine does not move for a person.
    let r = send(&app, Method::POST, &format!("/api/games/{id}/engine"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    // Hint plays nothing.
    let r = send(&app, Method::POST, &format!("/api/games/{id}/hint"), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert!(r.json()["best"]["landing"].is_string());
    // A draw offered between two people waits for the other's answer.
    let r = post(
        &app,
        &format!("/api/games/{id}/draw"),
        json!({"side": "black"}),
    )
    .await;
    let v = r.json();
    assert_eq!(v["accepted"], false);
    assert_eq!(v["pending"], true);
    assert_eq!(v["game"]["draw"]["pending"], "black");
    // Black cannot answer its own offer.
    let r = post(
        &app,
        &format!("/api/games/{id}/draw/answer"),
        json!({"side": "black", "accept": true}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.json()["code"], "no-draw-offer");
    let r = post(
        &app,
        &format!("/api/games/{id}/draw/answer"),
        json!({"side": "white", "accept": true}),
    )
    .await;
    let v = r.json();
    assert_eq!(v["outcome"]["code"], "draw:agreement");
    assert_eq!(v["outcome"]["reason"], "draw: agreed");
    assert_eq!(v["outcome"]["result"], "1/2-1/2");
    let r = post(
        &app,
        &format!("/api/games/{id}/move"),
        json!({"move": "e6-e5"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.json()["code"], "game-over");
    // A finished game stays finished: no take-back reopens it.
    let r = post(
        &app,
        &format!("/api/games/{id}/takeback"),
        json!({"side": "white"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.json()["code"], "game-over");
    assert_eq!(r.json()["params"]["outcome"], "draw:agreement");
}

/// Waits (long polling) until the game satisfies `done`.
async fn wait_for(app: &Router, id: i64, done: impl Fn(&Value) -> bool) -> Value {
    let mut v = get(app, &format!("/api/games/{id}")).await.json();
    for _ in 0..40 {
        if done(&v) {
            return v;
        }
        let uri = format!("/api/games/{id}?wait_version={}", v["version"]);
        v = get(app, &uri).await.json();
    }
    panic!("game {id} never got there: {v}");
}

#[tokio::test]
async fn a_game_against_the_engine() {
    let app = app();
    let g = new_game(
        &app,
        json!({"white": {"kind": "engine", "level": 1}, "black": {"kind": "human"}}),
    )
    .await;
    let id = g["id"].as_i64().unwrap();
    // The engine plays White's first move by itself.
    let v = wait_for(&app, id, |v| v["plies"].as_array().unwrap().len() == 1).await;
    assert_eq!(v["side"], "black");
    assert_eq!(v["engine"]["state"], "idle");
    // Not the engine's turn now.
    let r = send(&app, Method::POST, &format!("/api/games/{id}/engine"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.json()["code"], "not-your-turn");
    // Nobody resigns for the engine.
    let r = post(
        &app,
        &format!("/api/games/{id}/resign"),
        json!({"side": "white"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(r.json()["code"], "engine-side");
    let r = post(
        &app,
        &format!("/api/games/{id}/resign"),
        json!({"side": "black"}),
    )
    .await;
    let v = r.json();
    assert_eq!(v["outcome"]["result"], "1-0");
    assert_eq!(v["outcome"]["reason"], "Black resigns: White wins");
    let r = post(
        &app,
        &format!("/api/games/{id}/resign"),
        json!({"side": "purple"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn an_engine_move_for_a_game_that_changed_meanwhile_is_dropped() {
    let app = app();
    // A 12-second clock: the engine thinks about half a second a move.
    let g = new_game(
        &app,
        json!({"white": {"kind": "engine", "level": 10}, "black": {"kind": "human"},
               "clock": {"minutes": 0.2}}),
    )
    .await;
    let id = g["id"].as_i64().unwrap();
    let v = wait_for(&app, id, |v| v["side"] == "black").await;
    let first = v["plies"][0]["move"]["landing"].clone();
    let r = post(
        &app,
        &format!("/api/games/{id}/move"),
        json!({"move": "a6-a5"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["engine"]["state"], "thinking");
    // While the engine thinks, Black takes its move back and plays another: the search for
    // the old position must not land in the new one.
    let r = post(
        &app,
        &format!("/api/games/{id}/takeback"),
        json!({"side": "black"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["plies"].as_array().unwrap().len(), 1);
    let r = post(
        &app,
        &format!("/api/games/{id}/move"),
        json!({"move": "h6-h5"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = wait_for(&app, id, |v| v["plies"].as_array().unwrap().len() == 3).await;
    assert_eq!(v["plies"][0]["move"]["landing"], first);
    assert_eq!(v["plies"][1]["move"]["landing"], "h6-h5");
    assert_eq!(v["side"], "black");
}

#[tokio::test]
async fn game_creation_errors() {
    let app = app();
    for body in [
        json!({"white": {"kind": "engine", "level": 0}}),
        json!({"white": {"kind": "robot"}}),
        json!({"fen": "W:Wa1:Bb7"}),
        json!({"clock": {"minutes": -5}}),
        json!({"rules": "checkers"}),
    ] {
        let r = post(&app, "/api/games", body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {}", r.text);
    }
}

#[tokio::test]
async fn clocks_run_on_the_server_and_the_flag_falls_by_itself() {
    let app = app();
    // 1.2 seconds each.
    let g = new_game(&app, json!({"clock": {"minutes": 0.02, "increment_s": 0}})).await;
    let id = g["id"].as_i64().unwrap();
    assert_eq!(g["clock"]["white_ms"], 1200);
    assert_eq!(
        g["clock"]["running"],
        Value::Null,
        "the first move is not timed"
    );
    // A client cannot set the clocks.
    let r = post(
        &app,
        &format!("/api/games/{id}/move"),
        json!({"move": "d3-d4", "clock": {"white_ms": 99_000_000, "black_ms": 1}}),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = post(
        &app,
        &format!("/api/games/{id}/move"),
        json!({"move": "d3-d4"}),
    )
    .await;
    let v = r.json();
    assert_eq!(v["clock"]["white_ms"], 1200);
    assert_eq!(v["clock"]["running"], "black");
    // With time left, a flag claim is refused.
    let r = send(&app, Method::POST, &format!("/api/games/{id}/flag"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.json()["code"], "time-not-out");
    // Nobody moves: Black's flag falls on the server, with no request.
    let v = wait_for(&app, id, |v| v["outcome"]["over"] == true).await;
    assert_eq!(v["outcome"]["code"], "white:time");
    assert_eq!(v["outcome"]["reason"], "Black ran out of time: White wins");
    assert_eq!(v["clock"]["black_ms"], 0);
    assert_eq!(v["clock"]["running"], Value::Null);
    // A game without clocks cannot be lost on time.
    let g = new_game(&app, json!({})).await;
    let r = send(
        &app,
        Method::POST,
        &format!("/api/games/{}/flag", g["id"]),
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.json()["code"], "no-clock");
}

#[tokio::test]
async fn games_end_by_the_rules() {
    let app = app();
    // White takes the last black piece: Black has no pieces left.
    let g = new_game(&app, json!({"fen": "W:Wd4,a2:Bd5"})).await;
    let id = g["id"].as_i64().unwrap();
    assert_eq!(g["forced_capture"], true);
    let r = post(
        &app,
        &format!("/api/games/{id}/move"),
        json!({"move": "d4xd6"}),
    )
    .await;
    let v = r.json();
    assert_eq!(v["outcome"]["over"], true, "{v}");
    assert_eq!(v["outcome"]["winner"], "white");
    assert_eq!(v["legal"], json!([]));
    let list = get(&app, "/api/games").await.json();
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap()
        .clone();
    assert_eq!(row["result"], "1-0");
}

#[tokio::test]
async fn list_and_delete_games() {
    let app = app();
    let a = new_game(&app, json!({})).await["id"].as_i64().unwrap();
    let b = new_game(&app, json!({})).await["id"].as_i64().unwrap();
    // Games nobody moved in are not listed (#33 item 6).
    let list = get(&app, "/api/games").await.json();
    assert_eq!(list, json!([]));
    for (id, m) in [(a, "d3-d4"), (b, "c3-c4"), (b, "f6-f5"), (b, "b3-b4")] {
        let r = post(&app, &format!("/api/games/{id}/move"), json!({"move": m})).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    let list = get(&app, "/api/games").await.json();
    assert_eq!(list.as_array().unwrap().len(), 2);
    // Plies and moves as the move list numbers them: 3 plies are moves 1 and 2.
    assert_eq!(
        (list[0]["id"].as_i64(), &list[0]["plies"], &list[0]["moves"]),
        (Some(b), &json!(3), &json!(2))
    );
    assert_eq!(
        (&list[1]["plies"], &list[1]["moves"]),
        (&json!(1), &json!(1))
    );
    let r = send(&app, Method::DELETE, &format!("/api/games/{a}"), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = send(&app, Method::DELETE, &format!("/api/games/{a}"), None).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let list = get(&app, "/api/games").await.json();
    assert_eq!(list[0]["id"], b);
}

#[tokio::test]
async fn pdn_export_and_import_round_trip() {
    let app = app();
    let g = new_game(&app, json!({})).await;
    let id = g["id"].as_i64().unwrap();
    for m in ["d3-d4", "e6-e5", "a3-a4"] {
        let r = post(&app, &format!("/api/games/{id}/move"), json!({"move": m})).await;
        assert_eq!(r.status, StatusCode::OK, "{m}: {}", r.text);
    }
    let r = get(&app, &format!("/api/games/{id}/pdn")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.text.contains("[GameType \"30\"]"), "{}", r.text);
    assert!(r.text.contains("1. d3-d4 e6-e5"), "{}", r.text);
    let r = post(&app, "/api/pdn/import", json!({"pdn": r.text})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let new_id = r.json()["ids"][0].as_i64().unwrap();
    let copy = get(&app, &format!("/api/games/{new_id}")).await.json();
    let orig = get(&app, &format!("/api/games/{id}")).await.json();
    assert_eq!(copy["fen"], orig["fen"]);
    assert_eq!(copy["plies"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn bad_pdn_is_400() {
    let app = app();
    for pdn in [
        "",
        "[Event \"x\"]\n\n1. d3-d9 *",
        "[FEN \"W:Wz1:Bb7\"]\n\n*",
    ] {
        let r = post(&app, "/api/pdn/import", json!({"pdn": pdn})).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{pdn:?}: {}", r.text);
    }
}

#[tokio::test]
async fn saved_games_survive_a_restart() {
    let dir = std::env::temp_dir().join(format!("damasi-web-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let id = {
        let app = router(AppState::open(&dir).unwrap());
        let g = new_game(&app, json!({})).await;
        let id = g["id"].as_i64().unwrap();
        post(
            &app,
            &format!("/api/games/{id}/move"),
            json!({"move": "c3-c4"}),
        )
        .await;
        id
    };
    let app = router(AppState::open(&dir).unwrap());
    let g = get(&app, &format!("/api/games/{id}")).await.json();
    assert_eq!(g["plies"][0]["move"]["landing"], "c3-c4");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn imported_tags_and_results_are_kept() {
    let app = app();
    let pdn = "[Event \"Club final\"]\n[White \"Ayşe\"]\n[Black \"Mehmet\"]\n[GameType \"30\"]\n\n1. d3-d4 e6-e5 2. a3-a4 1-0\n\n[Event \"Second\"]\n\n1. c3-c4 *\n";
    let r = post(&app, "/api/pdn/import", json!({ "pdn": pdn })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let ids = r.json()["ids"].clone();
    assert_eq!(ids.as_array().unwrap().len(), 2);
    let g = get(&app, &format!("/api/games/{}", ids[0])).await.json();
    assert_eq!(g["outcome"]["result"], "1-0");
    assert_eq!(g["tags"]["Event"], "Club final");
    let text = get(&app, &format!("/api/games/{}/pdn", ids[0])).await.text;
    assert!(text.contains("[White \"Ayşe\"]"), "{text}");
    assert!(text.contains("1-0"), "{text}");
    let r = get(
        &app,
        &format!("/api/games/{}/pdn?notation=captured", ids[1]),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let r = get(&app, &format!("/api/games/{}/pdn?notation=bogus", ids[1])).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn an_imported_result_without_a_reason_gets_none_invented() {
    let app = app();
    // #33 item 8: a file that says only `0-1` (the board does not explain it), and one with
    // its Termination.
    let pdn = "[White \"Ayşe\"]\n[Black \"Mehmet\"]\n\n1. d3-d4 e6-e5 0-1\n\n\
               [Termination \"time\"]\n\n1. c3-c4 1-0\n";
    let r = post(&app, "/api/pdn/import", json!({ "pdn": pdn })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let ids = r.json()["ids"].clone();
    let bare = get(&app, &format!("/api/games/{}", ids[0])).await.json();
    assert_eq!(bare["outcome"]["result"], "0-1");
    assert_eq!(bare["tags"]["_result_only"], "1");
    assert_eq!(bare["tags"]["White"], "Ayşe");
    let text = get(&app, &format!("/api/games/{}/pdn", ids[0])).await.text;
    assert!(!text.contains("Termination"), "{text}");
    assert!(!text.contains("_result_only"), "{text}");
    assert!(
        text.contains("[Result \"0-1\"]") && text.contains("e6-e5 0-1"),
        "{text}"
    );
    // Its export, imported again, is the same record.
    let r = post(&app, "/api/pdn/import", json!({ "pdn": text })).await;
    let again = get(&app, &format!("/api/games/{}", r.json()["ids"][0]))
        .await
        .json();
    assert_eq!(again["tags"]["_result_only"], "1");
    // A record with its reason keeps it.
    let timed = get(&app, &format!("/api/games/{}", ids[1])).await.json();
    assert_eq!(timed["outcome"]["code"], "white:time");
    assert!(timed["tags"].get("_result_only").is_none(), "{timed}");
    let text = get(&app, &format!("/api/games/{}/pdn", ids[1])).await.text;
    assert!(text.contains("[Termination \"time\"]"), "{text}");
    let list = get(&app, "/api/games").await.json();
    let row = |id: &Value| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|g| &g["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(row(&ids[0])["result_only"], true);
    assert_eq!(row(&ids[1])["result_only"], false);
}

#[tokio::test]
async fn an_imported_games_variations_and_comments_are_kept() {
    let app = app();
    // #33 item 8: the saved game is the main line; its own movetext keeps the rest.
    let pdn = "[Event \"plain\"]\n\n1. a3-a4 h6-h5 *\n\n[Event \"annotated\"]\n\n\
               {A lesson} 1. d3-d4 {the centre} e6-e5 (1... f6-f5 2. c3-c4 ; quiet\n) 2. c3-c4 *\n";
    let r = post(&app, "/api/pdn/import", json!({ "pdn": pdn })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let ids = r.json()["ids"].clone();
    let plain = get(&app, &format!("/api/games/{}", ids[0])).await.json();
    assert!(plain["tags"].get("_movetext").is_none(), "{plain}");
    let g = get(&app, &format!("/api/games/{}", ids[1])).await.json();
    let landings: Vec<_> = g["plies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["move"]["landing"].clone())
        .collect();
    assert_eq!(landings, [json!("d3-d4"), json!("e6-e5"), json!("c3-c4")]);
    let own = g["tags"]["_movetext"].as_str().unwrap();
    assert!(
        own.starts_with("{A lesson} 1. d3-d4") && own.ends_with("2. c3-c4 *"),
        "{own}"
    );
    // The export writes it back, and reads in again as the same game.
    let text = get(&app, &format!("/api/games/{}/pdn", ids[1])).await.text;
    assert!(text.contains("[Event \"annotated\"]"), "{text}");
    assert!(
        text.contains("{the centre} e6-e5 (1... f6-f5 2. c3-c4 ; quiet\n) 2. c3-c4 *"),
        "{text}"
    );
    assert!(!text.contains("_movetext"), "{text}");
    let r = post(&app, "/api/pdn/import", json!({ "pdn": text })).await;
    let again = get(&app, &format!("/api/games/{}", r.json()["ids"][0]))
        .await
        .json();
    assert_eq!(again["fen"], g["fen"]);
    assert_eq!(again["tags"]["_movetext"], g["tags"]["_movetext"]);
    let list = get(&app, "/api/games").await.json();
    let row = |id: &Value| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|g| &g["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(row(&ids[0])["annotated"], false);
    assert_eq!(row(&ids[1])["annotated"], true);
}

#[tokio::test]
async fn the_engine_judges_a_draw_offer() {
    let app = app();
    let vs_engine = |fen: &str| json!({"fen": fen, "white": {"kind": "human"}, "black": {"kind": "engine", "level": 1}});
    // The engine (Black) is far behind, but it is move 1: it declines, and the game goes on.
    let g = new_game(&app, vs_engine("W:Wa2,b2,c2,d2,e2:Bh7")).await;
    let uri = format!("/api/games/{}/draw", g["id"]);
    let r = post(&app, &uri, json!({"side": "white"})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    assert_eq!(v["accepted"], false);
    assert_eq!(v["game"]["outcome"]["over"], false);
    assert_eq!(v["game"]["draw"]["offers"]["white"], 1);
    // Two offers a game, no more.
    assert_eq!(
        post(&app, &uri, json!({"side": "white"})).await.status,
        StatusCode::OK
    );
    let r = post(&app, &uri, json!({"side": "white"})).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.json()["code"], "draw-offers-used");
    // Nobody offers a draw for the engine.
    let r = post(&app, &uri, json!({"side": "black"})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // A dead draw (two kings against one): accepted at once.
    let g = new_game(&app, vs_engine("W:WKa1,Kb2:BKh8")).await;
    let r = post(
        &app,
        &format!("/api/games/{}/draw", g["id"]),
        json!({"side": "white"}),
    )
    .await;
    let v = r.json();
    assert_eq!(v["accepted"], true, "{v}");
    assert_eq!(v["game"]["outcome"]["code"], "draw:agreement");
}

#[tokio::test]
async fn earlier_moves_count_for_repetition() {
    let app = app();
    // Two kings shuffle: the third time the same position comes back, the game is drawn.
    let fen = "W:WKa1,c2:BKh8,g7";
    let shuffle = [
        "a1-b1", "h8-g8", "b1-a1", "g8-h8", "a1-b1", "h8-g8", "b1-a1",
    ];
    let r = post(
        &app,
        "/api/move",
        json!({"fen": fen, "moves": shuffle, "move": "g8-h8"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    assert_eq!(
        v["position"]["outcome"]["reason"],
        "draw: threefold repetition"
    );
    // The same move without the history is no draw.
    let r = post(
        &app,
        "/api/move",
        json!({"fen": "B:WKa1,c2:BKg8,g7", "move": "g8-h8"}),
    )
    .await;
    assert_eq!(r.json()["position"]["outcome"]["over"], false);
    // A bad earlier move is named by its index.
    let r = post(
        &app,
        "/api/move",
        json!({"fen": fen, "moves": ["a1-b1", "h8-g7"], "move": "b1-a1"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.json()["error"].as_str().unwrap().starts_with("moves[1]"));
    // The engine sees the history too.
    let r = post(
        &app,
        "/api/analyze",
        json!({"fen": fen, "moves": ["a1-b1"], "move_time_ms": 50}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

/// The server plays at most two engine-against-engine games at once (each takes a core on
/// every move); a third waits until one ends or is deleted.
#[tokio::test]
async fn engine_against_engine_games_are_capped() {
    let app = app();
    let both =
        json!({"white": {"kind": "engine", "level": 10}, "black": {"kind": "engine", "level": 10}});
    let mut ids = Vec::new();
    for _ in 0..2 {
        let r = post(&app, "/api/games", both.clone()).await;
        assert_eq!(r.status, StatusCode::CREATED);
        ids.push(r.json()["id"].as_i64().unwrap());
    }
    let r = post(&app, "/api/games", both.clone()).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.json());
    // A game against a person is not counted.
    let r = post(
        &app,
        "/api/games",
        json!({"white": {"kind": "engine", "level": 1}}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
    ids.push(r.json()["id"].as_i64().unwrap());
    // Deleting one frees its place.
    let r = send(
        &app,
        Method::DELETE,
        &format!("/api/games/{}", ids[0]),
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = post(&app, "/api/games", both).await;
    assert_eq!(r.status, StatusCode::CREATED);
    ids[0] = r.json()["id"].as_i64().unwrap();
    for id in ids {
        send(&app, Method::DELETE, &format!("/api/games/{id}"), None).await;
    }
}
