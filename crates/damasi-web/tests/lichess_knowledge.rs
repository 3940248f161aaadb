//! What the server knows of a position, in lichess's shapes: the tablebase
//! (`GET /api/tablebase/standard`, lichess's tablebase server) with three-piece tables built
//! for the test, and the cloud evaluations (`GET /api/cloud-eval`) made of the analyses the
//! server has already run. The expected values are worked out by hand from the rules
//! (docs/rules.md): a side to move with no move loses, one piece each is a draw, captures are
//! forced, a king flies along ranks and files and lands anywhere past the piece it takes.

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_engine::oracle::EndgameOracle;
use damasi_tb::{build_all, TablebaseOracle};
use damasi_web::cloud_eval::{CloudEval, Pv};
use damasi_web::{router, AppState};
use serde_json::{json, Value};
use tower::ServiceExt;

/// The three-piece tables, built once for this test binary (well under a second).
fn oracle() -> Arc<dyn EndgameOracle> {
    static ORACLE: OnceLock<Arc<TablebaseOracle>> = OnceLock::new();
    ORACLE
        .get_or_init(|| {
            let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("knowledge-to-3");
            let _ = std::fs::remove_dir_all(&dir);
            build_all(&dir, 3, |_| {}).expect("the tables build");
            let o = TablebaseOracle::open(&dir, 5).expect("readable");
            Arc::new(o.expect("three-piece tables"))
        })
        .clone()
}

struct Reply {
    status: StatusCode,
    retry_after: Option<String>,
    json: Value,
}

async fn send(app: &Router, method: Method, uri: &str, body: Option<Value>) -> Reply {
    let mut req = Request::builder().method(method).uri(uri);
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let res = app
        .clone()
        .oneshot(req.body(Body::from(body)).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let retry_after = res
        .headers()
        .get(header::RETRY_AFTER)
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = to_bytes(res.into_body(), usize::MAX).await.unwrap();
    let json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    Reply {
        status,
        retry_after,
        json,
    }
}

fn enc(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

async fn tablebase(app: &Router, fen: &str) -> Value {
    let r = send(
        app,
        Method::GET,
        &format!("/api/tablebase/standard?fen={}", enc(fen)),
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{fen}: {}", r.json);
    r.json
}

fn with_tables() -> Router {
    router(AppState::in_memory().with_tablebase(Some(oracle())))
}

fn moves(answer: &Value) -> &Vec<Value> {
    answer["moves"].as_array().expect("moves")
}

fn ucis(answer: &Value) -> BTreeSet<String> {
    moves(answer)
        .iter()
        .map(|m| m["uci"].as_str().unwrap().to_string())
        .collect()
}

fn find<'a>(answer: &'a Value, uci: &str) -> &'a Value {
    moves(answer)
        .iter()
        .find(|m| m["uci"] == uci)
        .unwrap_or_else(|| panic!("no move {uci} in {answer}"))
}

#[tokio::test]
async fn a_lone_king_shut_in_a_corner_loses_whatever_it_does() {
    let app = with_tables();
    // White kings a1 and h8, Black's lone king a8, Black to move. It takes nothing (a1 and
    // h8 have no square past them), and every move of it stays on the a-file or rank 8,
    // where the king at its end takes it: Black loses in two plies, the second a capture.
    let a = tablebase(&app, "B:WKa1,Kh8:BKa8").await;
    assert_eq!(a["category"], "loss", "{a}");
    assert_eq!(a["dtz"], -2, "{a}");
    assert_eq!(a["precise_dtz"], -2, "{a}");
    assert_eq!(a["dtc"], -2, "{a}");
    assert!(a["dtm"].is_null(), "no distance to the end: {a}");
    for flag in ["checkmate", "stalemate", "variant_win", "variant_loss"] {
        assert_eq!(a[flag], false, "{flag}: {a}");
    }
    assert_eq!(a["insufficient_material"], false);
    let expected: BTreeSet<String> = ["b8", "c8", "d8", "e8", "f8", "g8"]
        .iter()
        .chain(["a7", "a6", "a5", "a4", "a3", "a2"].iter())
        .map(|to| format!("a8-{to}"))
        .collect();
    assert_eq!(ucis(&a), expected, "every legal move, once: {a}");
    for m in moves(&a) {
        // Seen from White, to move after it: a capture of the last piece wins at once.
        assert_eq!(m["category"], "win", "{m}");
        assert_eq!(m["dtz"], 1, "{m}");
        assert_eq!(m["dtc"], 1, "{m}");
        assert_eq!(m["zeroing"], false, "a king's move: {m}");
        assert_eq!(m["conversion"], false, "{m}");
        assert_eq!(m["san"], m["uci"], "a quiet move is written the same: {m}");
    }
}

#[tokio::test]
async fn the_winning_move_comes_first_and_the_a_file_moves_draw() {
    let app = with_tables();
    // White to move shuts the lone king in with h1-h8 (the position above, lost for Black in
    // two plies): a win in three. Any move of the a1 king up the a-file stands next to or in
    // line with a8 with a square free behind it: Black must take it, and one piece each is a
    // draw.
    let a = tablebase(&app, "W:WKa1,Kh1:BKa8").await;
    assert_eq!(a["category"], "win", "{a}");
    assert_eq!(a["dtz"], 3, "{a}");
    let shut = find(&a, "h1-h8");
    assert_eq!(shut["category"], "loss", "{shut}");
    assert_eq!(shut["dtz"], -2, "{shut}");
    // No win is quicker: the first move is one as quick (h1-h8 or another as good).
    let first = &moves(&a)[0];
    assert_eq!(
        (first["category"].as_str(), first["dtz"].as_i64()),
        (Some("loss"), Some(-2))
    );
    for to in ["a2", "a3", "a4", "a5", "a6", "a7"] {
        let m = find(&a, &format!("a1-{to}"));
        assert_eq!(m["category"], "draw", "{m}");
        assert_eq!(m["dtz"], 0, "{m}");
        assert!(m["dtc"].is_null(), "{m}");
    }
    // Best first: the mover's wins (category loss after), then draws, then its losses.
    let rank = |c: &Value| match c.as_str().unwrap() {
        "loss" => 0,
        "draw" => 1,
        "unknown" => 2,
        _ => 3,
    };
    let ranks: Vec<i32> = moves(&a).iter().map(|m| rank(&m["category"])).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
    // The wins, quickest first.
    let wins: Vec<i64> = moves(&a)
        .iter()
        .filter(|m| m["category"] == "loss")
        .map(|m| m["dtz"].as_i64().unwrap().abs())
        .collect();
    assert!(wins.windows(2).all(|w| w[0] <= w[1]), "{wins:?}");
}

#[tokio::test]
async fn forced_captures_and_finished_games() {
    let app = with_tables();
    // White's d4 king must take d6 (d5 empty), landing on d7 or d8: Black has no piece left,
    // and a side to move without pieces has lost.
    let a = tablebase(&app, "W:WKd4,Ka1:BKd6").await;
    assert_eq!(
        (a["category"].as_str(), a["dtz"].as_i64()),
        (Some("win"), Some(1))
    );
    assert_eq!(
        ucis(&a),
        BTreeSet::from(["d4xd7".to_string(), "d4xd8".to_string()])
    );
    for m in moves(&a) {
        assert_eq!(m["category"], "loss", "{m}");
        assert_eq!(m["variant_loss"], true, "Black cannot move: {m}");
        assert_eq!(m["dtz"], 0, "the game is over: {m}");
        assert_eq!(
            (m["zeroing"].as_bool(), m["conversion"].as_bool()),
            (Some(true), Some(true))
        );
    }
    // The same with Black to move: its king must take d4, landing on d3, d2 or d1 (a1 has
    // no square past it), and one piece each is a draw whatever it chooses.
    let a = tablebase(&app, "B:WKd4,Ka1:BKd6").await;
    assert_eq!(
        (a["category"].as_str(), a["dtz"].as_i64()),
        (Some("draw"), Some(0))
    );
    assert_eq!(
        ucis(&a),
        BTreeSet::from(["d6xd3", "d6xd2", "d6xd1"].map(String::from))
    );
    for m in moves(&a) {
        assert_eq!(m["category"], "draw", "{m}");
        assert_eq!(m["insufficient_material"], true, "one piece each: {m}");
    }

    // Finished games answer from the rules, with no moves.
    let a = tablebase(&app, "W:WKa1:BKh8").await;
    assert_eq!(a["category"], "draw");
    assert_eq!(a["insufficient_material"], true, "{a}");
    assert_eq!(moves(&a).len(), 0);
    // White's man on a2 can neither step (a3 and b2 taken) nor jump (a4 and c2 taken), and
    // Black can still move (b2-b1): White, to move, has lost. Five pieces, beyond the tables.
    let a = tablebase(&app, "W:Wa2:Ba3,a4,b2,c2").await;
    assert_eq!(a["category"], "loss", "{a}");
    assert_eq!(a["variant_loss"], true, "{a}");
    assert_eq!(a["checkmate"], false, "{a}");
    assert_eq!(moves(&a).len(), 0);
}

#[tokio::test]
async fn positions_beyond_the_tables_are_unknown_and_bad_input_is_a_400() {
    let app = with_tables();
    // Four pieces, no capture: beyond three-piece tables, answered 200 as lichess does.
    let a = tablebase(&app, "W:WKa1,Kb2:BKh8,Kg8").await;
    assert_eq!(a["category"], "unknown", "{a}");
    assert!(a["dtz"].is_null() && a["dtc"].is_null(), "{a}");
    assert!(!moves(&a).is_empty());
    assert!(moves(&a).iter().all(|m| m["category"] == "unknown"), "{a}");
    // A server without tables knows only finished games.
    let bare = router(AppState::in_memory());
    assert_eq!(
        tablebase(&bare, "W:WKa1,Kh1:BKa8").await["category"],
        "unknown"
    );
    assert_eq!(tablebase(&bare, "W:WKa1:BKh8").await["category"], "draw");

    for (uri, says) in [
        ("/api/tablebase/standard", "fen"),
        ("/api/tablebase/standard?fen=", "fen"),
        ("/api/tablebase/standard?fen=nonsense", "bad FEN"),
    ] {
        let r = send(&app, Method::GET, uri, None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{uri}: {}", r.json);
        assert!(
            r.json["error"].as_str().unwrap().contains(says),
            "{uri}: {}",
            r.json
        );
    }
    // The page's own answer is unchanged beside it.
    let r = send(
        &app,
        Method::GET,
        &format!("/api/tablebase?fen={}", enc("W:WKa1,Kh1:BKa8")),
        None,
    )
    .await;
    assert_eq!(
        (r.json["value"].as_str(), r.json["dtc"].as_i64()),
        (Some("win"), Some(3))
    );
    // At the root, where berserk's URL joining sends `/standard` whatever its base's path.
    let r = send(
        &app,
        Method::GET,
        &format!("/standard?fen={}", enc("W:WKa1,Kh1:BKa8")),
        None,
    )
    .await;
    assert_eq!(r.json, tablebase(&app, "W:WKa1,Kh1:BKa8").await);
}

async fn analyze(app: &Router, body: Value) -> Value {
    let r = send(app, Method::POST, "/api/analyze", Some(body)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    r.json
}

async fn cloud(app: &Router, fen: &str, more: &str) -> Reply {
    send(
        app,
        Method::GET,
        &format!("/api/cloud-eval?fen={}{more}", enc(fen)),
        None,
    )
    .await
}

/// The FEN after `moves` from the start, as the server writes it.
async fn fen_after(app: &Router, moves: &[&str]) -> String {
    let (last, before) = moves.split_last().unwrap();
    let r = send(
        app,
        Method::POST,
        "/api/move",
        Some(json!({ "moves": before, "move": last })),
    )
    .await;
    r.json["position"]["fen"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn an_analysis_made_is_the_cloud_evaluation_and_nothing_else_is() {
    let app = router(AppState::in_memory());
    let fen = fen_after(&app, &["c3-c4"]).await;
    let unknown = cloud(&app, &fen, "").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(
        unknown.json["error"], "No cloud evaluation available for that position",
        "lichess's answer: {}",
        unknown.json
    );

    // Black to move: lichess's cp is White's, the opposite of the side to move's score.
    let a = analyze(&app, json!({"moves": ["c3-c4"], "move_time_ms": 300})).await;
    let r = cloud(&app, &fen, "").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let e = &r.json;
    assert_eq!(e["fen"], fen.as_str());
    assert_eq!(e["depth"], a["depth"], "{e} / {a}");
    assert!(e["knodes"].as_u64().is_some(), "{e}");
    let pvs = e["pvs"].as_array().unwrap();
    assert_eq!(pvs.len(), 1, "multiPv defaults to 1: {e}");
    let line: Vec<&str> = a["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(pvs[0]["moves"], line.join(" "), "{e} / {a}");
    assert_eq!(
        pvs[0]["moves"].as_str().unwrap().split(' ').next(),
        a["best"]["landing"].as_str()
    );
    assert_eq!(pvs[0]["cp"], a["white_score"], "{e} / {a}");
    assert_eq!(pvs[0]["cp"].as_i64(), a["score"].as_i64().map(|s| -s));
    assert!(pvs[0].get("mate").is_none(), "{e}");

    // The same position written otherwise is the same key (pieces in another order).
    let shuffled = reorder(&fen);
    assert_ne!(shuffled, fen);
    assert_eq!(cloud(&app, &shuffled, "").await.json["pvs"], e["pvs"]);

    // Weaker levels, rules with options and searches of chosen moves are not kept.
    let start = fen_after(&app, &["c3-c4", "f6-f5"]).await;
    analyze(&app, json!({"fen": start, "level": 5, "move_time_ms": 100})).await;
    analyze(
        &app,
        json!({"fen": start, "rules": "turkish; no-capture-limit 50", "move_time_ms": 100}),
    )
    .await;
    analyze(
        &app,
        json!({"fen": start, "searchmoves": ["d3-d4"], "move_time_ms": 100}),
    )
    .await;
    assert_eq!(cloud(&app, &start, "").await.status, StatusCode::NOT_FOUND);
    // A hint of a saved game is a full-strength analysis: kept.
    let made = send(
        &app,
        Method::POST,
        "/api/games",
        Some(json!({"white": {"kind": "human"}, "black": {"kind": "human"}})),
    )
    .await;
    let id = made.json["id"].as_i64().expect("a game");
    let hint = send(&app, Method::POST, &format!("/api/games/{id}/hint"), None).await;
    assert_eq!(hint.status, StatusCode::OK, "{}", hint.json);
    let start_fen = send(&app, Method::GET, "/api/moves", None).await.json["fen"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(cloud(&app, &start_fen, "").await.status, StatusCode::OK);
}

/// The same FEN with each side's squares written in reverse order.
fn reorder(fen: &str) -> String {
    let mut parts: Vec<String> = fen.split(':').map(String::from).collect();
    for p in parts.iter_mut().skip(1) {
        let (colour, squares) = p.split_at(1);
        let mut list: Vec<&str> = squares.split(',').collect();
        list.reverse();
        *p = format!("{colour}{}", list.join(","));
    }
    parts.join(":")
}

#[tokio::test]
async fn a_forced_win_is_a_mate_from_whites_side_in_the_winners_moves() {
    let app = router(AppState::in_memory());
    // Black to move in the shut corner loses in two plies: White's one move to the end.
    let a = analyze(&app, json!({"fen": "B:WKa1,Kh8:BKa8", "move_time_ms": 200})).await;
    assert_eq!(a["mate"], -2, "{a}");
    let e = cloud(&app, "B:WKa1,Kh8:BKa8", "").await.json;
    assert_eq!(e["pvs"][0]["mate"], 1, "{e}");
    assert!(e["pvs"][0].get("cp").is_none(), "{e}");
    // Black to move takes White's last piece at once (b3 past c3... a capture landing on a3).
    let a = analyze(&app, json!({"fen": "B:WKb3:BKc3,Kh8", "move_time_ms": 200})).await;
    assert_eq!(a["mate"], 1, "{a}");
    let e = cloud(&app, "B:WKb3:BKc3,Kh8", "").await.json;
    assert_eq!(e["pvs"][0]["mate"], -1, "Black wins in one: {e}");
}

#[tokio::test]
async fn multipv_gives_what_is_kept() {
    let app = router(AppState::in_memory());
    let fen = fen_after(&app, &["c3-c4", "f6-f5"]).await;
    let a = analyze(&app, json!({"fen": fen, "multipv": 3, "move_time_ms": 400})).await;
    let lines = a["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 3, "{a}");
    let two = cloud(&app, &fen, "&multiPv=2").await.json;
    let pvs = two["pvs"].as_array().unwrap();
    assert_eq!(pvs.len(), 2, "{two}");
    for (pv, line) in pvs.iter().zip(lines) {
        let moves: Vec<&str> = line["pv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(pv["moves"], moves.join(" "));
        assert_eq!(pv["cp"], line["white_score"]);
    }
    // More lines than kept: what is kept (lichess does the same); the default is one.
    assert_eq!(
        cloud(&app, &fen, "&multiPv=5").await.json["pvs"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        cloud(&app, &fen, "").await.json["pvs"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // lichess's clients send the variant: the default rules' names are read.
    for v in ["standard", "turkish"] {
        assert_eq!(
            cloud(&app, &fen, &format!("&variant={v}")).await.status,
            StatusCode::OK
        );
    }
    let other = cloud(
        &app,
        &fen,
        &format!("&variant={}", enc("turkish; king-beats-lone-man")),
    )
    .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND, "{}", other.json);
    for bad in ["&multiPv=0", "&multiPv=two", "&variant=atomic"] {
        let r = cloud(&app, &fen, bad).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}: {}", r.json);
    }
    let r = send(&app, Method::GET, "/api/cloud-eval", None).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        r.json["error"].as_str().unwrap().contains("fen"),
        "{}",
        r.json
    );
}

fn eval(fen: &str, depth: u32, lines: usize) -> CloudEval {
    CloudEval {
        fen: fen.to_string(),
        knodes: 10,
        depth,
        pvs: (0..lines)
            .map(|i| Pv {
                moves: format!("line{i}"),
                cp: Some(i as i32),
                mate: None,
            })
            .collect(),
    }
}

#[tokio::test]
async fn the_deepest_is_kept_and_the_oldest_dropped_past_the_bound() {
    let state = AppState::in_memory().with_cloud_eval_rows(3);
    let evals = state.cloud_evals.clone();
    evals.record(eval("p1", 20, 1)).await.unwrap();
    evals.record(eval("p1", 12, 1)).await.unwrap();
    assert_eq!(evals.find("p1".into(), 1).await.unwrap().unwrap().depth, 20);
    evals.record(eval("p1", 24, 1)).await.unwrap();
    assert_eq!(evals.find("p1".into(), 1).await.unwrap().unwrap().depth, 24);
    // More lines at a shallower depth: kept beside; one line asked gets the deepest, three
    // the one with three.
    evals.record(eval("p1", 15, 3)).await.unwrap();
    assert_eq!(evals.find("p1".into(), 1).await.unwrap().unwrap().depth, 24);
    let three = evals.find("p1".into(), 3).await.unwrap().unwrap();
    assert_eq!((three.depth, three.pvs.len()), (15, 3));
    assert_eq!(evals.count().await.unwrap(), 2);
    // Past three rows the oldest goes: p1's one-line row (recorded before its three lines).
    evals.record(eval("p2", 10, 1)).await.unwrap();
    evals.record(eval("p3", 10, 1)).await.unwrap();
    assert_eq!(evals.count().await.unwrap(), 3);
    let p1 = evals.find("p1".into(), 1).await.unwrap().unwrap();
    assert_eq!(
        (p1.depth, p1.pvs.len()),
        (15, 1),
        "the three-line row, cut to one"
    );
    assert!(evals.find("p2".into(), 1).await.unwrap().is_some());
}

#[tokio::test]
async fn evaluations_survive_a_restart() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cloud-eval-restart");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fen = "B:WKa1,Kh8:BKa8";
    {
        let app = router(AppState::open(&dir).unwrap());
        analyze(&app, json!({"fen": fen, "move_time_ms": 100})).await;
    }
    let app = router(AppState::open(&dir).unwrap());
    let e = cloud(&app, fen, "").await;
    assert_eq!(e.status, StatusCode::OK, "{}", e.json);
    assert_eq!(e.json["pvs"][0]["mate"], 1);
}

#[tokio::test]
async fn look_ups_are_limited_per_address_with_retry_after() {
    let app = with_tables();
    let limit = damasi_web::online::http::KNOWLEDGE_PER_MINUTE;
    // Requests without an address (the router called directly) share one count, the cloud
    // evaluations and the tablebase together. The limit refills one request every
    // 60 s / limit, so a few more than `limit` may pass while the loop runs.
    let mut passed = 0;
    let refused = loop {
        let uri = if passed % 2 == 0 {
            format!("/api/cloud-eval?fen={}", enc("W:WKa1:BKh8"))
        } else {
            format!("/api/tablebase/standard?fen={}", enc("W:WKa1:BKh8"))
        };
        let r = send(&app, Method::GET, &uri, None).await;
        if r.status == StatusCode::TOO_MANY_REQUESTS {
            break r;
        }
        passed += 1;
        assert!(passed < limit + 100, "never limited");
    };
    assert!(passed >= limit, "{passed} passed");
    let wait: u64 = refused.retry_after.expect("Retry-After").parse().unwrap();
    assert!(wait >= 1, "{wait}");
    assert_eq!(refused.json["code"], "rate-limited", "{}", refused.json);
    // The root's tablebase route counts too.
    let mut tries = 0;
    loop {
        let r = send(&app, Method::GET, "/standard?fen=W%3AWKa1%3ABKh8", None).await;
        if r.status == StatusCode::TOO_MANY_REQUESTS {
            assert!(r.retry_after.is_some());
            break;
        }
        tries += 1;
        assert!(tries < 20, "the root route is not limited");
    }
}
