//! lichess's Bot API over HTTP, and lichess's rules for BOT accounts: an account that has
//! played no game becomes a BOT for good; a BOT plays through `/api/bot/game/...` only and a
//! person through the Board API and the pages only; BOTs stay out of the lobby, the pools and
//! the leaderboards, enter only tournaments open to BOTs, are listed while online, and carry
//! lichess's `BOT` title wherever their name is shown.

#[path = "support/commands.rs"]
mod commands;
#[path = "support/http.rs"]
mod http;
#[path = "support/players.rs"]
#[allow(dead_code)]
mod players;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_web::{router, AppState};
use http::{get, post, send, sign_up};
use serde_json::{json, Value};
use tower::ServiceExt;

use damasi_online::accounts::Player;
use damasi_online::rating::is_provisional;

/// The status of a streaming answer (its body is left unread).
async fn stream_status(app: &Router, uri: &str, cookie: &str) -> StatusCode {
    let req = Request::builder()
        .uri(uri)
        .header(header::COOKIE, cookie)
        .body(Body::empty())
        .unwrap();
    app.clone().oneshot(req).await.unwrap().status()
}

/// `from` challenges `to` (a casual 5+3 with White), `to` accepts: the game's id.
async fn start_game(app: &Router, from: &str, to_name: &str, to: &str) -> String {
    let (status, c) = post(
        app,
        &format!("/api/challenge/{to_name}"),
        from,
        json!({"clock": {"limit": 300, "increment": 3}, "color": "white"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{c}");
    let id = c["id"].as_str().unwrap().to_string();
    let (status, v) = post(app, &format!("/api/challenge/{id}/accept"), to, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    id
}

/// The error code of a refusal.
fn code(v: &Value) -> &str {
    v["code"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn an_account_that_has_played_no_game_becomes_a_bot_for_good() {
    let app = router(AppState::in_memory());
    let robo = sign_up(&app, "Robo").await;
    let (_, me) = get(&app, "/api/account", &robo).await;
    assert!(me.get("title").is_none(), "{me}");
    let (status, v) = post(&app, "/api/bot/account/upgrade", &robo, json!({})).await;
    assert_eq!((status, &v), (StatusCode::OK, &json!({"ok": true})));
    let (_, me) = get(&app, "/api/account", &robo).await;
    assert_eq!(me["title"], "BOT", "{me}");
    // Asked again, it is a BOT already.
    let (status, _) = post(&app, "/api/bot/account/upgrade", &robo, json!({})).await;
    assert_eq!(status, StatusCode::OK);
    // Others see the title on the profile and in the statuses.
    let other = sign_up(&app, "Ayse").await;
    let (_, profile) = get(&app, "/api/user/robo", &other).await;
    assert_eq!(profile["title"], "BOT", "{profile}");
    let (_, statuses) = get(&app, "/api/users/status?ids=robo,ayse", &other).await;
    assert_eq!(statuses[0]["title"], "BOT", "{statuses}");
    assert!(statuses[1].get("title").is_none(), "{statuses}");

    // A guest cannot become one.
    let (_, _, guest) = send(&app, Method::POST, "/api/account/guest", None, None).await;
    let (status, v) = post(&app, "/api/bot/account/upgrade", &guest.unwrap(), json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{v}");

    // Nor an account that has played a game: Ayse plays one with Mehmet and resigns it.
    let mehmet = sign_up(&app, "Mehmet").await;
    let id = start_game(&app, &other, "mehmet", &mehmet).await;
    let (status, _) = post(
        &app,
        &format!("/api/board/game/{id}/move/c3-c4"),
        &other,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    post(
        &app,
        &format!("/api/board/game/{id}/resign"),
        &mehmet,
        json!({}),
    )
    .await;
    for who in [&other, &mehmet] {
        let (status, v) = post(&app, "/api/bot/account/upgrade", who, json!({})).await;
        assert_eq!(status, StatusCode::CONFLICT, "{v}");
        assert_eq!(code(&v), "games-played", "{v}");
        let (_, me) = get(&app, "/api/account", who).await;
        assert!(me.get("title").is_none(), "{me}");
    }
    // An aborted game is no game played (lichess counts none either).
    let (ali, veli) = (sign_up(&app, "Ali").await, sign_up(&app, "Veli").await);
    let id = start_game(&app, &ali, "veli", &veli).await;
    let (status, v) = post(
        &app,
        &format!("/api/board/game/{id}/abort"),
        &ali,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let (status, v) = post(&app, "/api/bot/account/upgrade", &veli, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{v}");
}

#[tokio::test]
async fn each_api_refuses_the_other_kind_of_account() {
    let app = router(AppState::in_memory());
    let (bot, person) = (sign_up(&app, "Robo").await, sign_up(&app, "Ayse").await);
    post(&app, "/api/bot/account/upgrade", &bot, json!({})).await;
    // A person challenges the BOT directly; the BOT accepts and plays Black.
    let id = start_game(&app, &person, "robo", &bot).await;
    let (_, game) = get(&app, &format!("/api/online/games/{id}"), &person).await;
    assert_eq!(game["black"]["title"], "BOT", "{game}");
    assert!(game["white"].get("title").is_none(), "{game}");

    // The person plays through the Board API; the Bot API refuses them.
    let (status, v) = post(
        &app,
        &format!("/api/bot/game/{id}/move/c3-c4"),
        &person,
        json!({}),
    )
    .await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::FORBIDDEN, "not-a-bot"),
        "{v}"
    );
    let (status, v) = post(
        &app,
        &format!("/api/board/game/{id}/move/c3-c4"),
        &person,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    // The BOT plays through the Bot API; the Board API and the page's routes refuse it.
    for path in [
        format!("/api/board/game/{id}/move/f6-f5"),
        format!("/api/online/games/{id}/move"),
    ] {
        let (status, v) = post(&app, &path, &bot, json!({"move": "f6-f5"})).await;
        assert_eq!(
            (status, code(&v)),
            (StatusCode::FORBIDDEN, "bot-account"),
            "{path}: {v}"
        );
    }
    let (status, v) = post(
        &app,
        &format!("/api/bot/game/{id}/move/f6-f5"),
        &bot,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    // Each one's game stream is on its own API.
    assert_eq!(
        stream_status(&app, &format!("/api/board/game/stream/{id}"), &bot).await,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        stream_status(&app, &format!("/api/bot/game/stream/{id}"), &person).await,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        stream_status(&app, &format!("/api/bot/game/stream/{id}"), &bot).await,
        StatusCode::OK
    );
    // Chat, written by lichess's clients as `{room, text}`, and read back by the players.
    let (status, v) = post(
        &app,
        &format!("/api/bot/game/{id}/chat"),
        &bot,
        json!({"room": "player", "text": "good luck"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    post(
        &app,
        &format!("/api/board/game/{id}/chat"),
        &person,
        json!({"room": "player", "text": "thanks"}),
    )
    .await;
    let (status, chat) = get(&app, &format!("/api/bot/game/{id}/chat"), &bot).await;
    assert_eq!(status, StatusCode::OK, "{chat}");
    assert_eq!(
        chat,
        json!([{"user": "Robo", "text": "good luck"}, {"user": "Ayse", "text": "thanks"}])
    );
    let (_, chat) = get(&app, &format!("/api/board/game/{id}/chat"), &person).await;
    assert_eq!(chat.as_array().map(Vec::len), Some(2), "{chat}");
    // A stranger cannot read the players' room.
    let stranger = sign_up(&app, "Merakli").await;
    let (status, v) = get(&app, &format!("/api/board/game/{id}/chat"), &stranger).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{v}");
    // The BOT resigns through the Bot API; lichess's status, and the BOT's title in the export.
    let (status, _) = post(&app, &format!("/api/bot/game/{id}/resign"), &bot, json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, game) = get(&app, &format!("/api/online/games/{id}"), &person).await;
    assert_eq!(game["state"]["status"], "resign", "{game}");
    assert_eq!(game["state"]["winner"], "white", "{game}");
    let (_, pdn) = get(&app, &format!("/game/export/{id}"), &person).await;
    let pdn = pdn.as_str().unwrap_or_default();
    assert!(pdn.contains("[BlackTitle \"BOT\"]"), "{pdn}");
    assert!(!pdn.contains("[WhiteTitle"), "{pdn}");
}

#[tokio::test]
async fn bots_stay_out_of_the_lobby_the_pools_and_the_leaderboards() {
    let state = AppState::in_memory();
    let online = state.online.clone();
    let app = router(state);
    let (bot, person) = (sign_up(&app, "Robo").await, sign_up(&app, "Ayse").await);
    post(&app, "/api/bot/account/upgrade", &bot, json!({})).await;
    let seek = json!({"minutes": 5, "increment": 3, "rated": false});
    let (status, v) = post(&app, "/api/lobby/seeks", &bot, seek.clone()).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::FORBIDDEN, "bot-account"),
        "{v}"
    );
    let (status, v) = post(&app, "/api/pool/3+2", &bot, json!({})).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::FORBIDDEN, "bot-account"),
        "{v}"
    );
    // A person's seek cannot be taken by a BOT either.
    let (status, v) = post(&app, "/api/lobby/seeks", &person, seek).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let seek_id = v["id"].as_u64().unwrap();
    let (status, v) = post(
        &app,
        &format!("/api/lobby/seeks/{seek_id}/accept"),
        &bot,
        json!({}),
    )
    .await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::FORBIDDEN, "bot-account"),
        "{v}"
    );

    // Rated games against people give the BOT a settled rating, but no place in the
    // leaderboard, where Fatma, with the same games, has hers.
    let db = online.db();
    sign_up(&app, "Fatma").await;
    let player = |name: &'static str| {
        let db = db.clone();
        async move { Player::from(db.user_by_name(name).await.unwrap().unwrap()) }
    };
    let (robo, ayse, fatma) = (
        player("robo").await,
        player("ayse").await,
        player("fatma").await,
    );
    let provisional = |id: i64| {
        let db = db.clone();
        async move { is_provisional(&db.rating(id, "blitz").await.unwrap().unwrap()) }
    };
    let mut games = 0;
    loop {
        // Ayse wins one game in four, so that no rating runs away.
        if games % 4 == 3 {
            players::rated_win(&online, &ayse, &robo).await;
            players::rated_win(&online, &ayse, &fatma).await;
        } else {
            players::rated_win(&online, &robo, &ayse).await;
            players::rated_win(&online, &fatma, &ayse).await;
        }
        games += 1;
        if !provisional(robo.id).await && !provisional(fatma.id).await {
            break;
        }
        assert!(games < 80, "the ratings settle within 80 games");
    }
    let (_, board) = get(&app, "/api/player/top/10/blitz", &person).await;
    let names: Vec<&str> = board["users"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|u| u["username"].as_str())
        .collect();
    assert!(names.contains(&"Fatma"), "{board}");
    assert!(!names.contains(&"Robo"), "{board}");
}

#[tokio::test]
async fn tournaments_take_bots_only_where_their_organiser_allows_them() {
    let app = router(AppState::in_memory());
    let (org, bot) = (
        sign_up(&app, "Organiser").await,
        sign_up(&app, "Robo").await,
    );
    post(&app, "/api/bot/account/upgrade", &bot, json!({})).await;
    let swiss = |bots: Option<bool>| {
        let mut v = json!({"name": "Club night", "clock": {"limit": 180, "increment": 2},
            "nbRounds": 3, "rated": false});
        if let Some(b) = bots {
            v["conditions"] = json!({"bots": b});
        }
        v
    };
    for (kind, new, join) in [
        ("swiss", "/api/swiss/new", "/api/swiss/{}/join"),
        ("arena", "/api/tournament", "/api/tournament/{}/join"),
    ] {
        let body = |bots| match kind {
            "swiss" => swiss(bots),
            _ => {
                let mut v = json!({"name": "Arena", "clockTime": 3, "clockIncrement": 2,
                    "minutes": 30, "rated": false});
                if let Some(b) = bots {
                    v["conditions"] = json!({"bots": b});
                }
                v
            }
        };
        for bots in [None, Some(false), Some(true)] {
            let (status, t) = post(&app, new, &org, body(bots)).await;
            assert_eq!(status, StatusCode::OK, "{kind}: {t}");
            assert_eq!(t["allowBots"], bots == Some(true), "{kind}: {t}");
            let id = t["id"].as_str().unwrap();
            let (status, v) = post(&app, &join.replace("{}", id), &bot, json!({})).await;
            if bots == Some(true) {
                assert_eq!(status, StatusCode::OK, "{kind}: {v}");
                let (_, t) = get(
                    &app,
                    &format!("{}/{id}", new.trim_end_matches("/new")),
                    &org,
                )
                .await;
                let line = match kind {
                    "swiss" => t["standings"][0].clone(),
                    _ => t["standing"]["players"][0].clone(),
                };
                assert_eq!(line["username"], "Robo", "{kind}: {t}");
                assert_eq!(line["title"], "BOT", "{kind}: {t}");
            } else {
                assert_eq!(
                    (status, code(&v)),
                    (StatusCode::FORBIDDEN, "bots-not-allowed"),
                    "{kind}: {v}"
                );
            }
        }
    }
}

#[tokio::test]
async fn online_bots_are_the_bots_with_an_event_stream_open() {
    let state = AppState::in_memory();
    let online = state.online.clone();
    let app = router(state);
    let (a, b, person) = (
        sign_up(&app, "RoboA").await,
        sign_up(&app, "RoboB").await,
        sign_up(&app, "Ayse").await,
    );
    post(&app, "/api/bot/account/upgrade", &a, json!({})).await;
    post(&app, "/api/bot/account/upgrade", &b, json!({})).await;
    let db = online.db();
    let player = |name: &'static str| {
        let db = db.clone();
        async move { Player::from(db.user_by_name(name).await.unwrap().unwrap()) }
    };
    let (robo_a, ayse) = (player("roboa").await, player("ayse").await);
    // RoboA and Ayse listen; RoboB does not.
    let _listening = (online.listen(&robo_a), online.listen(&ayse));
    let (status, v) = get(&app, "/api/bot/online", &person).await;
    assert_eq!(status, StatusCode::OK);
    // One line is read as JSON already, more as text.
    let text = match v {
        Value::String(text) => text,
        one => one.to_string(),
    };
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert_eq!(lines[0]["username"], "RoboA");
    assert_eq!(lines[0]["title"], "BOT");
    assert_eq!(lines[0]["online"], true);
    let (status, _) = get(&app, "/api/bot/online?nb=0", &person).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}
