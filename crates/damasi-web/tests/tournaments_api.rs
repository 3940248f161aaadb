//! Tournaments over HTTP, and who directs them: a process that leaves tournaments to another
//! process of its cluster refuses every way into one (503 `not-here`), resumes none, and
//! still lists the stored ones; a process that directs them serves the same requests.

#[path = "support/http.rs"]
mod http;

use axum::http::{Method, StatusCode};
use axum::Router;
use damasi_web::{router, AppState};
use http::send;
use serde_json::{json, Value};

/// A Swiss of 3 rounds of 3+2, as lichess's `POST /api/swiss/new` takes it.
fn new_swiss() -> Value {
    json!({"name": "Club night", "clock": {"limit": 180, "increment": 2}, "nbRounds": 3})
}

/// Signs up on `app` and answers the session cookie.
async fn sign_up(app: &Router, name: &str) -> String {
    let body = json!({"name": name, "password": "a good password"});
    let (status, _, cookie) =
        send(app, Method::POST, "/api/account/signup", None, Some(body)).await;
    assert_eq!(status, StatusCode::OK);
    cookie.expect("a session cookie")
}

#[tokio::test]
async fn a_process_that_leaves_tournaments_elsewhere_refuses_them() {
    // The director stores a Swiss and an arena in the database the two processes share.
    let director = AppState::in_memory();
    let online = director.online.clone();
    let director = router(director);
    let cookie = sign_up(&director, "Organiser").await;
    let (status, swiss, _) = send(
        &director,
        Method::POST,
        "/api/swiss/new",
        Some(&cookie),
        Some(new_swiss()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{swiss}");
    let id = swiss["id"].as_str().expect("an id").to_string();
    let (status, shown, _) = send(
        &director,
        Method::GET,
        &format!("/api/swiss/{id}"),
        None,
        None,
    )
    .await;
    assert_eq!(
        (status, shown["name"].as_str()),
        (StatusCode::OK, Some("Club night"))
    );

    // Another process over the same store, not directing tournaments.
    let other = AppState::in_memory()
        .with_online(online)
        .with_tournaments_elsewhere();
    other
        .tournaments
        .run()
        .await
        .expect("nothing to resume here");
    let other = router(other);
    let refused = [
        (
            Method::POST,
            "/api/swiss/new".to_string(),
            Some(new_swiss()),
        ),
        (Method::GET, format!("/api/swiss/{id}"), None),
        (
            Method::POST,
            format!("/api/swiss/{id}/join"),
            Some(json!({})),
        ),
        (Method::POST, format!("/api/swiss/{id}/terminate"), None),
        (Method::GET, format!("/swiss/{id}.trf"), None),
        (
            Method::POST,
            "/api/tournament".to_string(),
            Some(json!({"name": "Blitz", "clockTime": 3, "clockIncrement": 2, "minutes": 30})),
        ),
    ];
    for (method, uri, body) in refused {
        let (status, answer, _) = send(&other, method, &uri, Some(&cookie), body).await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (StatusCode::SERVICE_UNAVAILABLE, Some("not-here")),
            "{uri}: {answer}"
        );
    }
    // The stored list is read from the database, wherever it is asked for.
    let (status, list, _) = send(&other, Method::GET, "/api/swiss", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(list.to_string().contains(&id), "{list}");
}
