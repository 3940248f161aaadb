//! `GET /api/tablebase`: the endgame tables' value of a position and of each legal move,
//! with three-piece tables built for the test.

use std::sync::{Arc, OnceLock};

use axum::body::{to_bytes, Body};
use axum::http::{Request, StatusCode};
use axum::Router;
use damasi_engine::oracle::EndgameOracle;
use damasi_tb::{build_all, TablebaseOracle};
use damasi_web::{router, AppState};
use serde_json::Value;
use tower::ServiceExt;

/// The three-piece tables, built once for this test binary (well under a second).
fn oracle() -> Arc<dyn EndgameOracle> {
    static ORACLE: OnceLock<Arc<TablebaseOracle>> = OnceLock::new();
    ORACLE
        .get_or_init(|| {
            // In cargo's directory for test files, where the next run builds them over again.
            let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-tables-to-3");
            let _ = std::fs::remove_dir_all(&dir);
            build_all(&dir, 3, |_| {}).expect("the tables build");
            let o = TablebaseOracle::open(&dir, 5).expect("readable");
            Arc::new(o.expect("three-piece tables"))
        })
        .clone()
}

fn app() -> Router {
    router(AppState::in_memory().with_tablebase(Some(oracle())))
}

async fn get(app: &Router, fen: &str) -> (StatusCode, Value) {
    let uri = format!(
        "/api/tablebase?fen={}",
        fen.replace(':', "%3A")
            .replace(',', "%2C")
            .replace(' ', "%20")
    );
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = to_bytes(res.into_body(), usize::MAX).await.unwrap();
    let json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    (status, json)
}

fn move_value<'a>(answer: &'a Value, landing: &str) -> &'a str {
    answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"]["landing"] == landing)
        .unwrap_or_else(|| panic!("no move {landing} in {answer}"))["value"]
        .as_str()
        .unwrap()
}

#[tokio::test]
async fn every_move_gets_its_value_best_first() {
    let app = app();
    // A lone king against two: a draw, unless the king steps next to c3 with the square
    // behind it empty (b1-b3: c3 takes it, landing on a3).
    let (status, a) = get(&app, "W:WKb1:BKc3,Kh8").await;
    assert_eq!(status, StatusCode::OK, "{a}");
    assert_eq!(a["value"], "draw");
    assert_eq!(a["side"], "white");
    assert_eq!(
        (a["pieces"].as_u64(), a["max_pieces"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(move_value(&a, "b1-b3"), "loss");
    assert_eq!(move_value(&a, "b1-a1"), "draw");
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 14, "every legal move");
    let rank = |v: &Value| ["win", "draw", "loss"].iter().position(|w| v == w).unwrap();
    let ranks: Vec<usize> = moves.iter().map(|m| rank(&m["value"])).collect();
    assert!(
        ranks.windows(2).all(|w| w[0] <= w[1]),
        "best first: {ranks:?}"
    );
    // Each move's value is the position after it, seen from the other side.
    let after = moves
        .iter()
        .find(|m| m["move"]["landing"] == "b1-b3")
        .unwrap();
    let (_, b) = get(&app, after["fen_after"].as_str().unwrap()).await;
    assert_eq!(b["value"], "win");
    assert_eq!(b["side"], "black");

    // Two kings against one are a draw; a king that can take the last piece wins.
    let (_, a) = get(&app, "W:WKa1,Kb2:BKh8").await;
    assert_eq!(a["value"], "draw");
    assert!(a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["value"] == "draw"));
    let (_, a) = get(&app, "W:WKd4,Ka1:BKd6").await;
    assert_eq!(a["value"], "win");
    assert_eq!(move_value(&a, "d4xd7"), "win");
}

#[tokio::test]
async fn distances_to_conversion_order_the_wins() {
    let app = app();
    // h1-h8 shuts the lone king in on a8 (it moves, the other king takes it): three plies to
    // the capture. Other winning moves, if any, take at least as long; the quickest is first.
    let (_, a) = get(&app, "W:WKa1,Kh1:BKa8").await;
    assert_eq!(a["value"], "win");
    assert_eq!(a["dtc"], 3, "{a}");
    let first = &a["moves"][0];
    assert_eq!(first["value"], "win");
    assert_eq!(first["dtc"], 3, "{a}");
    let wins: Vec<u64> = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["value"] == "win")
        .map(|m| m["dtc"].as_u64().expect("wins have a distance"))
        .collect();
    assert!(wins.windows(2).all(|w| w[0] <= w[1]), "{wins:?}");
    // A capture converts at once; draws have no distance.
    let (_, a) = get(&app, "W:WKd4,Ka1:BKd6").await;
    assert_eq!(a["dtc"], 1);
    let (_, a) = get(&app, "W:WKa1,Kb2:BKh8").await;
    assert!(a.get("dtc").is_none(), "{a}");
}

#[tokio::test]
async fn bad_input_and_uncovered_positions_are_clear_errors() {
    let app = app();
    let (status, e) = get(&app, "not a fen").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{e}");
    assert_eq!(e["code"], "bad-request");
    assert!(e["error"].as_str().unwrap().starts_with("bad FEN"), "{e}");
    let (status, e) = get(&app, "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"].as_str().unwrap().contains("fen"), "{e}");
    // Four pieces: beyond three-piece tables.
    let (status, e) = get(&app, "W:WKa1,Kb2:BKh8,Kg8").await;
    assert_eq!(status, StatusCode::CONFLICT, "{e}");
    assert_eq!(e["code"], "not-in-tablebase");
    assert_eq!(e["params"]["pieces"], 4);
    assert_eq!(e["params"]["max_pieces"], 3);
    // The start position is far beyond any table.
    let (status, e) = get(&app, "W:Wa2,b2,c2,d2,e2,f2,g2,h2:Ba7,b7").await;
    assert_eq!(status, StatusCode::CONFLICT, "{e}");
    // A server without tables says so.
    let bare = router(AppState::in_memory());
    let (status, e) = get(&bare, "W:WKa1,Kb2:BKh8").await;
    assert_eq!(status, StatusCode::CONFLICT, "{e}");
    assert_eq!(e["code"], "no-tablebase");
}

#[tokio::test]
async fn tables_built_while_the_server_runs_are_used_without_a_restart() {
    // The server watches an empty directory, as `damasi serve` does its data directory's
    // `tablebases/` before `damasi tb build`.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-tables-watched");
    let _ = std::fs::remove_dir_all(&dir);
    let loader: damasi_engine::hub::TablebaseLoader = Arc::new(|dir: &std::path::Path| {
        let o = TablebaseOracle::open(dir, 5).map_err(|e| e.to_string())?;
        Ok(o.map(|o| damasi_engine::hub::LoadedTables {
            description: format!("tables up to {}", o.max_pieces()),
            oracle: Arc::new(o),
        }))
    });
    let tables = damasi_web::Tablebases::watching(dir.clone(), loader);
    let app = router(AppState::in_memory().with_tablebases(tables.clone()));
    let (status, e) = get(&app, "W:WKa1,Kh1:BKa8").await;
    assert_eq!(status, StatusCode::CONFLICT, "{e}");
    assert_eq!(e["code"], "no-tablebase");
    assert!(
        e["error"].as_str().unwrap().contains("as soon as"),
        "no restart is asked for: {e}"
    );

    // Built while the server runs: the next request uses them, distances included.
    build_all(&dir, 3, |_| {}).expect("the tables build");
    let (status, a) = get(&app, "W:WKa1,Kh1:BKa8").await;
    assert_eq!(status, StatusCode::OK, "{a}");
    assert_eq!(
        (a["value"].as_str(), a["dtc"].as_u64()),
        (Some("win"), Some(3))
    );
    assert_eq!(tables.description().as_deref(), Some("tables up to 3"));

    // Tables taken away are no longer used.
    std::fs::remove_dir_all(&dir).unwrap();
    let (status, e) = get(&app, "W:WKa1,Kh1:BKa8").await;
    assert_eq!(status, StatusCode::CONFLICT, "{e}");
    assert_eq!(e["code"], "no-tablebase");
}
