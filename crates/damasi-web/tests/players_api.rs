//! Players finding each other over HTTP: profiles with their records, rating histories and
//! filtered games, follows and blocks (`/api/rel/...`, a block refusing challenges and keeping
//! two apart in the lobby), who of the followed is online, and the leaderboards (`/api/player/top/{nb}/{perfType}`); and the
//! same rules on the service with SQLite (`online_postgres.rs` runs them with PostgreSQL).

#[path = "support/commands.rs"]
mod commands;
#[path = "support/players.rs"]
mod players;

use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_online::accounts::Player;
use damasi_online::rating::is_provisional;
use damasi_online::Online;
use damasi_web::{router, AppState};
use serde_json::{json, Value};
use tower::ServiceExt;

fn request(method: Method, uri: &str, cookie: Option<&str>, body: Option<Value>) -> Request<Body> {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(c) = cookie {
        req = req.header(header::COOKIE, c);
    }
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    req.body(Body::from(body.map(|b| b.to_string()).unwrap_or_default()))
        .unwrap()
}

/// The answer's status and body: JSON, or the text (NDJSON) as a string.
async fn send(
    app: &Router,
    method: Method,
    uri: &str,
    cookie: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let res = app
        .clone()
        .oneshot(request(method, uri, cookie, body))
        .await
        .unwrap();
    let status = res.status();
    let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, body)
}

async fn get(app: &Router, uri: &str, cookie: Option<&str>) -> (StatusCode, Value) {
    send(app, Method::GET, uri, cookie, None).await
}

async fn post(app: &Router, uri: &str, cookie: Option<&str>, body: Value) -> (StatusCode, Value) {
    send(app, Method::POST, uri, cookie, Some(body)).await
}

/// Signs `name` up: the session cookie and the account.
async fn sign_up(app: &Router, online: &Online, name: &str) -> (String, Player) {
    let res = app
        .clone()
        .oneshot(request(
            Method::POST,
            "/api/account/signup",
            None,
            Some(json!({"name": name, "password": "a good password"})),
        ))
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let cookie = res.headers()[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let user = online.db().user_by_name(name).await.unwrap().unwrap();
    (cookie, Player::from(user))
}

fn app() -> (Router, Online) {
    let state = AppState::in_memory();
    let online = state.online.clone();
    (router(state), online)
}

#[tokio::test]
async fn follows_and_blocks_on_the_service_with_sqlite() {
    let online = Online::in_memory();
    players::follows_and_blocks(&online, "rel").await;
}

#[tokio::test]
async fn histories_records_and_leaderboards_on_the_service_with_sqlite() {
    let online = Online::in_memory();
    players::history_records_and_leaderboard(&online, "top").await;
}

#[tokio::test]
async fn a_game_socket_or_an_event_stream_counts_as_online() {
    let online = Online::in_memory();
    let p = online.accounts().add_bot("Sockets", 0).await.unwrap();
    assert!(!online.is_online(p.id));
    let first = online.present(p.id);
    let second = online.present(p.id);
    assert!(online.is_online(p.id));
    drop(first);
    assert!(online.is_online(p.id), "one socket is still open");
    drop(second);
    assert!(!online.is_online(p.id));
    let stream = online.listen(&p);
    assert!(online.is_online(p.id));
    drop(stream);
    assert!(!online.is_online(p.id));
}

#[tokio::test]
async fn follow_unfollow_block_and_unblock_over_http() {
    let (app, online) = app();
    let (ca, _) = sign_up(&app, &online, "Ayse").await;
    let (cb, _) = sign_up(&app, &online, "Bora").await;
    let (a, b) = (Some(ca.as_str()), Some(cb.as_str()));

    // Nobody logged in: 401; an unknown name: 404 that names it.
    let (s, _) = post(&app, "/api/rel/follow/Bora", None, json!({})).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, body) = post(&app, "/api/rel/follow/Nobody", a, json!({})).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(body["error"].as_str().unwrap().contains("Nobody"), "{body}");
    let (s, _) = post(&app, "/api/rel/block/ayse", a, json!({})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);

    // Follow: listed (NDJSON, lichess's shape), and the profile says so to the follower only.
    let (s, body) = post(&app, "/api/rel/follow/bora", a, json!({})).await;
    assert_eq!((s, body), (StatusCode::OK, json!({"ok": true})));
    let (s, body) = get(&app, "/api/rel/following", a).await;
    assert_eq!(s, StatusCode::OK);
    let lines: Vec<Value> = body
        .as_str()
        .map(|t| {
            t.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        })
        .unwrap_or_else(|| vec![body.clone()]);
    assert_eq!(lines.len(), 1);
    assert_eq!(
        (lines[0]["id"].as_str(), lines[0]["username"].as_str()),
        (Some("bora"), Some("Bora"))
    );
    assert_eq!(lines[0]["online"], false);
    let (_, profile) = get(&app, "/api/user/Bora", a).await;
    assert_eq!(
        (profile["following"].clone(), profile["blocking"].clone()),
        (json!(true), json!(false))
    );
    let (_, profile) = get(&app, "/api/user/Ayse", b).await;
    assert_eq!(profile["following"], false);
    let (_, profile) = get(&app, "/api/user/Bora", None).await;
    assert!(profile.get("following").is_none());

    // Online: while Bora's event stream is open (the lobby page keeps one).
    let (_, body) = get(&app, "/api/rel/following/online", a).await;
    assert_eq!(body, json!({"users": []}));
    let stream = app
        .clone()
        .oneshot(request(Method::GET, "/api/stream/event", b, None))
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let (_, body) = get(&app, "/api/rel/following/online", a).await;
    assert_eq!(body, json!({"users": [{"id": "bora", "username": "Bora"}]}));
    let (_, profile) = get(&app, "/api/user/Bora", None).await;
    assert_eq!(profile["online"], true);
    drop(stream);
    let mut gone = false;
    for _ in 0..50 {
        let (_, body) = get(&app, "/api/rel/following/online", a).await;
        if body == json!({"users": []}) {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "a closed stream is no longer online");

    // Unfollow.
    let (s, _) = post(&app, "/api/rel/unfollow/Bora", a, json!({})).await;
    assert_eq!(s, StatusCode::OK);
    let (_, body) = get(&app, "/api/rel/following", a).await;
    assert_eq!(body, json!(""));

    // Block: Bora's challenges to Ayse are refused with a clear error; Ayse's are not.
    let challenge = json!({"clock": {"limit": 300, "increment": 3}, "rated": false});
    let (s, body) = post(&app, "/api/rel/block/Bora", a, json!({})).await;
    assert_eq!((s, body), (StatusCode::OK, json!({"ok": true})));
    let (_, body) = get(&app, "/api/rel/blocking", a).await;
    assert_eq!(body, json!({"users": [{"id": "bora", "username": "Bora"}]}));
    let (_, profile) = get(&app, "/api/user/Bora", a).await;
    assert_eq!(profile["blocking"], true);
    let (s, body) = post(&app, "/api/challenge/Ayse", b, challenge.clone()).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(body["code"], "blocked");
    assert_eq!(body["error"], "Ayse does not accept challenges from you");
    let (s, _) = post(&app, "/api/challenge/Bora", a, challenge.clone()).await;
    assert_eq!(s, StatusCode::OK);
    // Unblocked: Bora may challenge again.
    let (s, _) = post(&app, "/api/rel/unblock/Bora", a, json!({})).await;
    assert_eq!(s, StatusCode::OK);
    let (s, body) = post(&app, "/api/challenge/Ayse", b, challenge).await;
    assert_eq!(s, StatusCode::OK, "{body}");
}

/// The players of a game (white, black) by name.
async fn players_of(app: &Router, game: &str) -> (String, String) {
    let (s, body) = get(app, &format!("/api/online/games/{game}"), None).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let name = |c: &str| body[c]["name"].as_str().unwrap_or_default().to_string();
    (name("white"), name("black"))
}

#[tokio::test]
async fn a_block_keeps_two_players_apart_in_the_lobby() {
    let (app, online) = app();
    let (ca, _) = sign_up(&app, &online, "Ayse").await;
    let (cb, _) = sign_up(&app, &online, "Bora").await;
    let (cc, _) = sign_up(&app, &online, "Cem").await;
    let (a, b, c) = (Some(ca.as_str()), Some(cb.as_str()), Some(cc.as_str()));
    let (s, _) = post(&app, "/api/rel/block/Bora", a, json!({})).await;
    assert_eq!(s, StatusCode::OK);
    let seek = json!({"clock": {"limit": 300, "increment": 3}, "rated": false});

    // Bora's seek: hidden from Ayse, who blocks him; shown to Cem and to visitors.
    let (s, body) = post(&app, "/api/lobby/seeks", b, seek.clone()).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let boras = body["id"].as_u64().unwrap();
    let seekers = |lobby: &Value| -> Vec<String> {
        lobby["seeks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["username"].as_str().unwrap().to_string())
            .collect()
    };
    let (_, lobby) = get(&app, "/api/lobby", a).await;
    assert_eq!(seekers(&lobby), Vec::<String>::new());
    let (_, lobby) = get(&app, "/api/lobby", c).await;
    assert_eq!(seekers(&lobby), ["Bora"]);
    let (_, lobby) = get(&app, "/api/lobby", None).await;
    assert_eq!(seekers(&lobby), ["Bora"]);

    // Taking it anyway, and Bora taking Ayse's seek: 403 blocked, both ways; the seeks stay.
    let uri = format!("/api/lobby/seeks/{boras}/accept");
    let (s, body) = post(&app, &uri, a, json!({})).await;
    assert_eq!(
        (s, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("blocked"))
    );
    let (s, body) = post(&app, "/api/lobby/seeks", a, seek.clone()).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let ayses = body["id"].as_u64().unwrap();
    let uri = format!("/api/lobby/seeks/{ayses}/accept");
    let (s, body) = post(&app, &uri, b, json!({})).await;
    assert_eq!(
        (s, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("blocked"))
    );
    assert_eq!(
        body["error"],
        "you and Ayse cannot play: one blocks the other"
    );
    let (_, lobby) = get(&app, "/api/lobby", c).await;
    assert_eq!(seekers(&lobby), ["Bora", "Ayse"]);
    // Cem may take Ayse's.
    let (s, body) = post(&app, &uri, c, json!({})).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let (w, bl) = players_of(&app, body["game"].as_str().unwrap()).await;
    let mut pair = [w, bl];
    pair.sort();
    assert_eq!(pair, ["Ayse", "Cem"]);

    // A pool passes over the pair: Ayse waits, Bora joins and waits too; Dora (new) meets
    // Ayse, who came first; Bora still waits.
    let (cd, _) = sign_up(&app, &online, "Dora").await;
    let d = Some(cd.as_str());
    let (s, body) = post(&app, "/api/pool/10+5", a, json!({})).await;
    assert_eq!((s, body["waiting"].as_bool()), (StatusCode::OK, Some(true)));
    let (s, body) = post(&app, "/api/pool/10+5", b, json!({})).await;
    assert_eq!(
        (s, body["waiting"].as_bool()),
        (StatusCode::OK, Some(true)),
        "{body}"
    );
    let (s, body) = post(&app, "/api/pool/10+5", d, json!({})).await;
    assert_eq!(
        (s, body["waiting"].as_bool()),
        (StatusCode::OK, Some(false)),
        "{body}"
    );
    let (w, bl) = players_of(&app, body["game"].as_str().unwrap()).await;
    let mut pair = [w, bl];
    pair.sort();
    assert_eq!(pair, ["Ayse", "Dora"]);
    let (_, pools) = get(&app, "/api/lobby", None).await;
    let waiting: i64 = pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["waiting"].as_i64().unwrap_or(0))
        .sum();
    assert_eq!(waiting, 1, "Bora still waits: {pools}");
}

#[tokio::test]
async fn profiles_histories_games_and_leaderboards_over_http() {
    let (app, online) = app();
    let (_, strong) = sign_up(&app, &online, "Strong").await;
    let (_, weak) = sign_up(&app, &online, "Weak").await;
    let (_, newcomer) = sign_up(&app, &online, "Newcomer").await;

    // Unknown names and bad filters.
    for uri in [
        "/api/user/Nobody",
        "/api/user/Nobody/games",
        "/api/user/Nobody/rating-history",
    ] {
        let (s, body) = get(&app, uri, None).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{uri}");
        assert_eq!(body["error"], "no player called 'Nobody'");
    }
    for uri in [
        "/api/user/Strong/games?result=maybe",
        "/api/user/Strong/games?speed=slow",
        "/api/user/Strong/games?rated=perhaps",
        "/api/user/Strong/games?page=0",
        "/api/user/Strong/games?nb=500",
        "/api/user/Strong/games?page=x",
        "/api/player/top/0/blitz",
        "/api/player/top/101/blitz",
        "/api/player/top/ten/blitz",
    ] {
        let (s, _) = get(&app, uri, None).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{uri}");
    }
    let (s, body) = get(&app, "/api/player/top/10/chess", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(body["error"].as_str().unwrap().contains("chess"));

    // No games yet: an empty history and record.
    let (_, body) = get(&app, "/api/user/Strong/rating-history", None).await;
    assert_eq!(body, json!([]));
    let (_, body) = get(&app, "/api/user/Strong", None).await;
    assert_eq!(
        body["count"],
        json!({"all": 0, "win": 0, "draw": 0, "loss": 0, "rated": 0})
    );

    // The history grows by one point per rated game.
    players::rated_win(&online, &strong, &weak).await;
    let (_, body) = get(&app, "/api/user/Strong/rating-history", None).await;
    assert_eq!(body[0]["name"], "Blitz");
    assert_eq!(body[0]["points"].as_array().unwrap().len(), 1);
    players::rated_win(&online, &weak, &strong).await;
    let (_, body) = get(&app, "/api/user/Strong/rating-history", None).await;
    let points = body[0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    let (_, profile) = get(&app, "/api/user/Strong", None).await;
    assert_eq!(points[1][1], profile["perfs"]["blitz"]["rating"]);
    assert!(points[0][1].as_i64().unwrap() > points[1][1].as_i64().unwrap());

    // Until both are settled; the strong one wins 3 of 4.
    let (mut games, mut losses) = (2, 1);
    while is_provisional(
        &online
            .db()
            .rating(strong.id, "blitz")
            .await
            .unwrap()
            .unwrap(),
    ) || is_provisional(&online.db().rating(weak.id, "blitz").await.unwrap().unwrap())
    {
        if games % 4 == 3 {
            players::rated_win(&online, &weak, &strong).await;
            losses += 1;
        } else {
            players::rated_win(&online, &strong, &weak).await;
        }
        games += 1;
        assert!(games < 80);
    }
    players::rated_win(&online, &strong, &newcomer).await;
    games += 1;
    let wins = games - losses;

    let (_, profile) = get(&app, "/api/user/Strong", None).await;
    assert_eq!(
        profile["count"],
        json!({"all": games, "win": wins, "draw": 0, "loss": losses, "rated": games})
    );
    let (_, body) = get(&app, "/api/user/Strong/games?result=loss", None).await;
    assert_eq!(body["total"], losses);
    assert!(body["games"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["white"] == "Weak" && g["outcome"] == "white:resignation"));
    let (_, body) = get(
        &app,
        "/api/user/Strong/games?rated=true&speed=blitz&result=win&nb=5&page=2",
        None,
    )
    .await;
    assert_eq!(
        (body["total"].as_i64(), body["page"].as_i64()),
        (Some(wins), Some(2))
    );
    assert_eq!(
        body["games"].as_array().unwrap().len(),
        5.min(wins as usize - 5)
    );
    assert_eq!(body["games"][0]["speed"], "blitz");
    let (_, body) = get(&app, "/api/user/Strong/games?rated=false", None).await;
    assert_eq!(body["total"], 0);

    // The leaderboard: lichess's shape, best first, the provisional newcomer left out.
    let (s, body) = get(&app, "/api/player/top/10/blitz", None).await;
    assert_eq!(s, StatusCode::OK);
    let users = body["users"].as_array().unwrap();
    let names: Vec<&str> = users
        .iter()
        .map(|u| u["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Strong", "Weak"]);
    assert_eq!(users[0]["id"], "strong");
    let top = &users[0]["perfs"]["blitz"];
    assert_eq!(top["rating"], profile["perfs"]["blitz"]["rating"]);
    assert!(top["progress"].as_i64().unwrap() > 0, "{top}");
    assert!(users[1]["perfs"]["blitz"]["progress"].as_i64().unwrap() < 0);
    let (_, body) = get(&app, "/api/player/top/1/blitz", None).await;
    assert_eq!(body["users"].as_array().unwrap().len(), 1);
    // The page's board (damasi's ?provisional=true): the newcomer, one rated game, follows
    // the settled players, marked as lichess marks a provisional rating.
    let (s, body) = get(&app, "/api/player/top/10/blitz?provisional=true", None).await;
    assert_eq!(s, StatusCode::OK);
    let users = body["users"].as_array().unwrap();
    let names: Vec<&str> = users
        .iter()
        .map(|u| u["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Strong", "Weak", "Newcomer"]);
    assert_eq!(users[2]["perfs"]["blitz"]["prov"], true, "{body}");
    assert!(users[0]["perfs"]["blitz"].get("prov").is_none(), "{body}");
    let (_, body) = get(&app, "/api/player/top/2/blitz?provisional=true", None).await;
    let names: Vec<&str> = body["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Strong", "Weak"], "no room left for the newcomer");
    let (_, body) = get(&app, "/api/player/top/10/bullet", None).await;
    assert_eq!(body, json!({"users": []}));
    // The pages.
    for path in ["/@/Strong", "/player"] {
        let res = app
            .clone()
            .oneshot(request(Method::GET, path, None, None))
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
        assert!(String::from_utf8_lossy(&bytes).contains("profile-view"));
    }
}
