//! `GET /api/explorer/lichess` and `/api/explorer/masters`: lichess's explorer shape over the
//! online core's index, with games counted by hand; the same routes at `/lichess` and
//! `/masters`, where lichess's clients look with `explorer_url=<server>/api/explorer`; and
//! every bad parameter a 400 that names it.

#[path = "support/http.rs"]
mod http;

use axum::http::{Method, StatusCode};
use axum::Router;
use damasi::{DrawReason, Outcome, WinReason};
use damasi_online::explorer::sources::game_of;
use damasi_online::explorer::{ExploredGame, GameFacts, Source};
use damasi_online::rating::Speed;
use damasi_web::{router, AppState};
use serde_json::{json, Value};

fn counted(
    source: Source,
    key: &str,
    moves: &[&str],
    outcome: Outcome,
    speed: Speed,
    ratings: [i64; 2],
) -> ExploredGame {
    let facts = GameFacts {
        names: [Some(format!("{key}-w")), Some(format!("{key}-b"))],
        ratings: [Some(ratings[0]), Some(ratings[1])],
        speed: Some(speed),
        at_ms: 1_780_000_000_000,
        year: Some(2026),
        month: Some(5),
    };
    ExploredGame::new(
        source,
        key.into(),
        &game_of(moves).unwrap(),
        Some(outcome),
        facts,
    )
    .unwrap()
}

/// Three server games and one master game:
///
/// | game | moves | result | speed | average rating |
/// |---|---|---|---|---|
/// | g1 | c3-c4 f6-f5 | 1-0 | blitz | 1700 (band 1600) |
/// | g2 | c3-c4 f6-f5 | draw | rapid | 1900 (band 1800) |
/// | g3 | d3-d4 | 0-1 | blitz | 1300 (band 1200) |
/// | m1 | c3-c4 c6-c5 | 0-1 | (masters) | 2400 |
async fn app() -> Router {
    let state = AppState::in_memory();
    let white = Outcome::Win {
        winner: damasi::Color::White,
        reason: WinReason::Resignation,
    };
    let black = Outcome::Win {
        winner: damasi::Color::Black,
        reason: WinReason::Resignation,
    };
    let draw = Outcome::Draw(DrawReason::Agreement);
    let games = vec![
        counted(
            Source::Server,
            "g1",
            &["c3-c4", "f6-f5"],
            white,
            Speed::Blitz,
            [1600, 1800],
        ),
        counted(
            Source::Server,
            "g2",
            &["c3-c4", "f6-f5"],
            draw,
            Speed::Rapid,
            [1900, 1900],
        ),
        counted(
            Source::Server,
            "g3",
            &["d3-d4"],
            black,
            Speed::Blitz,
            [1200, 1400],
        ),
        counted(
            Source::Masters,
            "m1",
            &["c3-c4", "c6-c5"],
            black,
            Speed::Classical,
            [2500, 2300],
        ),
    ];
    assert_eq!(state.online.db().explore_games(games).await.unwrap(), 4);
    router(state)
}

async fn get(app: &Router, uri: &str) -> (StatusCode, Value) {
    let (status, body, _) = http::send(app, Method::GET, uri, None, None).await;
    (status, body)
}

#[tokio::test]
async fn the_server_s_games_in_lichess_s_shape() {
    let app = app().await;
    let (status, a) = get(&app, "/api/explorer/lichess").await;
    assert_eq!(status, StatusCode::OK, "{a}");
    // The start: c3-c4 in g1 and g2 (1-0, draw; (1700 + 1900) / 2 = 1800), d3-d4 in g3.
    assert_eq!(
        (&a["white"], &a["draws"], &a["black"]),
        (&json!(1), &json!(1), &json!(1))
    );
    assert_eq!(a["opening"], Value::Null);
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2);
    assert_eq!(
        moves[0],
        json!({"uci": "c3-c4", "san": "c3-c4", "averageRating": 1800, "white": 1, "draws": 1,
               "black": 0, "game": null})
    );
    assert_eq!(moves[1]["uci"], "d3-d4");
    assert_eq!(moves[1]["averageRating"], 1300);
    // d3-d4 was played once: its game is shown whole, as lichess does.
    assert_eq!(
        moves[1]["game"],
        json!({"id": "g3", "winner": "black", "speed": "blitz",
               "white": {"name": "g3-w", "rating": 1200}, "black": {"name": "g3-b", "rating": 1400},
               "year": 2026, "month": "2026-05"})
    );
    // topGames: g2 (1900), g1 (1700), g3 (1300), each with the move it played here.
    let top: Vec<(&str, &str)> = a["topGames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["id"].as_str().unwrap(), g["uci"].as_str().unwrap()))
        .collect();
    assert_eq!(top, [("g2", "c3-c4"), ("g1", "c3-c4"), ("g3", "d3-d4")]);
    assert_eq!(a["recentGames"].as_array().unwrap().len(), 3);

    // Filters, `play` and limits, as lichess's parameters.
    let (_, a) = get(
        &app,
        "/api/explorer/lichess?speeds=blitz&ratings=1600&topGames=1&recentGames=0",
    )
    .await;
    assert_eq!(
        (&a["white"], &a["draws"], &a["black"]),
        (&json!(1), &json!(0), &json!(0))
    );
    assert_eq!(a["moves"][0]["averageRating"], 1700);
    assert_eq!(a["moves"][0]["game"]["id"], "g1");
    assert_eq!(a["topGames"].as_array().unwrap().len(), 1);
    assert_eq!(a["recentGames"], json!([]));
    let (_, a) = get(&app, "/api/explorer/lichess?play=c3-c4&moves=1").await;
    assert_eq!(a["moves"].as_array().unwrap().len(), 1);
    assert_eq!(a["moves"][0]["uci"], "f6-f5");
    assert_eq!(
        (&a["white"], &a["draws"], &a["black"]),
        (&json!(1), &json!(1), &json!(0))
    );
    // The same position by its FEN, and lichess's own variant name.
    let fen = damasi::Position::start()
        .play(&damasi::Position::start().parse_move("c3-c4").unwrap())
        .to_fen();
    let uri = format!(
        "/api/explorer/lichess?variant=standard&fen={}",
        fen.replace(':', "%3A").replace(',', "%2C")
    );
    let (status, b) = get(&app, &uri).await;
    assert_eq!(status, StatusCode::OK, "{b}");
    assert_eq!(b["moves"][0]["averageRating"], 1800);
    // Where berserk looks with explorer_url = <server>/api/explorer.
    let (status, c) = get(&app, "/lichess?play=c3-c4").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(c["moves"], b["moves"]);
}

#[tokio::test]
async fn the_masters_are_their_own_source() {
    let app = app().await;
    let (status, a) = get(&app, "/api/explorer/masters?play=c3-c4").await;
    assert_eq!(status, StatusCode::OK, "{a}");
    assert_eq!(
        (&a["white"], &a["draws"], &a["black"]),
        (&json!(0), &json!(0), &json!(1))
    );
    assert_eq!(a["moves"][0]["uci"], "c6-c5");
    assert_eq!(a["moves"][0]["averageRating"], 2400);
    assert_eq!(a["moves"][0]["game"]["id"], "m1");
    // No speed in a master game, and no recentGames in the masters' answer (lichess's shape).
    assert!(a["moves"][0]["game"].get("speed").is_none());
    assert!(a.get("recentGames").is_none());
    let (_, b) = get(&app, "/masters?play=c3-c4").await;
    assert_eq!(a, b);
    // f6-f5 after c3-c4 is a server game's move, not a master's.
    assert!(a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["uci"] != "f6-f5"));
}

#[tokio::test]
async fn bad_parameters_are_400s_that_name_them() {
    let app = app().await;
    for (uri, says) in [
        ("/api/explorer/lichess?fen=W:Wz9", "fen: bad FEN"),
        (
            "/api/explorer/lichess?play=c3-c4,c4-c7",
            "play: move 2 'c4-c7'",
        ),
        ("/api/explorer/lichess?speeds=blitz,slow", "speeds: 'slow'"),
        ("/api/explorer/lichess?ratings=1650", "ratings: '1650'"),
        ("/api/explorer/lichess?moves=-1", "moves: '-1'"),
        ("/api/explorer/lichess?topGames=x", "topGames: 'x'"),
        (
            "/api/explorer/lichess?variant=antichess",
            "variant: 'antichess'",
        ),
        ("/api/explorer/lichess?since=2020-01", "since: "),
        ("/api/explorer/lichess?history=true", "history: 'true'"),
        ("/api/explorer/masters?speeds=blitz", "speeds: the masters"),
        (
            "/api/explorer/lichess?colour=white",
            "unknown field `colour`",
        ),
    ] {
        let (status, body) = get(&app, uri).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}: {body}");
        let message = body["error"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{uri}: {body}");
    }
    // Counts beyond the caps are held to them, as lichess does.
    let (status, a) = get(
        &app,
        "/api/explorer/lichess?moves=100000&topGames=100&recentGames=100",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{a}");
    assert_eq!(a["topGames"].as_array().unwrap().len(), 3);
}
