//! A player's own data over HTTP: everything the site holds about them, downloaded; and the
//! account closed: its games stay for the opponent under a name that no longer identifies
//! it, its old name stays out of use, and its sessions, password, follows and blocks go.

#[path = "support/http.rs"]
mod http;

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_web::{router, AppState};
use http::{get, post, send, sign_up, PASSWORD};
use serde_json::{json, Value};
use tower::ServiceExt;

/// `white` challenges `black` (rated 5+3), who accepts; White plays c3-c4: the game's id.
async fn start(app: &Router, white: &str, black_name: &str, black: &str) -> String {
    let body = json!({"clock": {"limit": 300, "increment": 3}, "rated": true, "color": "white"});
    let (status, c) = post(app, &format!("/api/challenge/{black_name}"), white, body).await;
    assert_eq!(status, StatusCode::OK, "{c}");
    let id = c["id"].as_str().unwrap().to_string();
    post(
        app,
        &format!("/api/challenge/{id}/accept"),
        black,
        json!({}),
    )
    .await;
    let (status, v) = post(
        app,
        &format!("/api/board/game/{id}/move/c3-c4"),
        white,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    id
}

#[tokio::test]
async fn a_player_downloads_their_data_then_closes_the_account() {
    let app = router(AppState::in_memory());
    let (ayse, mehmet) = (sign_up(&app, "Ayse").await, sign_up(&app, "Mehmet").await);
    post(&app, "/api/rel/follow/mehmet", &ayse, json!({})).await;
    post(&app, "/api/rel/follow/ayse", &mehmet, json!({})).await;
    let first = start(&app, &ayse, "mehmet", &mehmet).await;
    post(
        &app,
        &format!("/api/board/game/{first}/resign"),
        &mehmet,
        json!({}),
    )
    .await;

    // The download: a file, with the account, its rating after the one rated game, the
    // record, the follow, the session and the game.
    let req = Request::builder()
        .uri("/api/account/export")
        .header(header::COOKIE, &ayse)
        .body(Body::empty())
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.headers()[header::CONTENT_DISPOSITION],
        "attachment; filename=\"damasi-Ayse.json\""
    );
    let data: Value =
        serde_json::from_slice(&to_bytes(res.into_body(), 1 << 20).await.unwrap()).unwrap();
    assert_eq!(data["account"]["name"], "Ayse");
    assert_eq!(data["account"]["hasPassword"], true);
    assert_eq!(data["ratings"]["blitz"]["games"], 1, "{data}");
    assert!(
        data["ratings"]["blitz"]["rating"].as_f64().unwrap() > 1500.0,
        "{data}"
    );
    assert_eq!(data["ratingHistory"].as_array().unwrap().len(), 1, "{data}");
    assert_eq!(
        data["record"],
        json!({"all": 1, "win": 1, "draw": 0, "loss": 0, "rated": 1})
    );
    assert_eq!(data["following"], json!(["Mehmet"]));
    assert_eq!(data["games"][0]["id"], first.as_str());
    assert_eq!(data["games"][0]["outcome"], "white:resignation");
    let kinds: Vec<&str> = data["sessionsAndTokens"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["session"], "{data}");
    assert!(
        !data.to_string().contains(ayse.split('=').nth(1).unwrap()),
        "no secret in it"
    );
    assert_eq!(data["gamesAsPdn"], "/api/games/user/Ayse");

    // Not while a game is being played.
    let second = start(&app, &ayse, "mehmet", &mehmet).await;
    let (status, v) = post(
        &app,
        "/api/account/close",
        &ayse,
        json!({"password": PASSWORD}),
    )
    .await;
    assert_eq!(
        (status, v["code"].as_str()),
        (StatusCode::CONFLICT, Some("playing")),
        "{v}"
    );
    post(
        &app,
        &format!("/api/board/game/{second}/resign"),
        &ayse,
        json!({}),
    )
    .await;
    // The password is asked, and must be right.
    let (status, _) = post(&app, "/api/account/close", &ayse, json!({})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, v) = post(
        &app,
        "/api/account/close",
        &ayse,
        json!({"password": "wrong one!"}),
    )
    .await;
    assert_eq!(
        (status, v["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("wrong-password"))
    );
    let (status, _) = get(&app, "/api/account", &ayse).await;
    assert_eq!(status, StatusCode::OK, "a wrong password closes nothing");

    let (status, v, cleared) = send(
        &app,
        Method::POST,
        "/api/account/close",
        Some(&ayse),
        Some(json!({"password": PASSWORD})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let new_name = v["name"].as_str().unwrap().to_string();
    assert!(
        new_name.starts_with("closed-") && !new_name.contains("Ayse"),
        "{new_name}"
    );
    assert!(cleared.is_some(), "the session cookie is cleared");

    // The account is gone for her: session, log-in, profile.
    assert_eq!(
        get(&app, "/api/account", &ayse).await.0,
        StatusCode::UNAUTHORIZED
    );
    let (status, _, _) = send(
        &app,
        Method::POST,
        "/api/account/login",
        None,
        Some(json!({"name": "Ayse", "password": PASSWORD})),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        get(&app, "/api/user/ayse", &mehmet).await.0,
        StatusCode::NOT_FOUND
    );
    // Her name stays out of use, in any case.
    let (status, v, _) = send(
        &app,
        Method::POST,
        "/api/account/signup",
        None,
        Some(json!({"name": "AYSE", "password": PASSWORD})),
    )
    .await;
    assert_eq!(
        (status, v["code"].as_str()),
        (StatusCode::CONFLICT, Some("name-taken")),
        "{v}"
    );
    // Mehmet keeps both games, under the new name, and no longer follows anybody.
    let (_, games) = get(&app, "/api/user/mehmet", &mehmet).await;
    let ids: Vec<&str> = games["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["id"].as_str())
        .collect();
    assert_eq!(ids.len(), 2, "{games}");
    assert!(ids.contains(&first.as_str()) && ids.contains(&second.as_str()));
    let (_, pdn) = get(&app, &format!("/game/export/{first}"), &mehmet).await;
    let pdn = pdn.as_str().unwrap_or_default();
    assert!(pdn.contains(&format!("[White \"{new_name}\"]")), "{pdn}");
    assert!(!pdn.contains("Ayse"), "{pdn}");
    let (_, following) = get(&app, "/api/rel/following", &mehmet).await;
    assert!(!following.to_string().contains("closed-"), "{following}");
    assert_eq!(following, json!(""), "Mehmet follows nobody now");
}
