//! One request to the router in a test, as a browser or a program sends it, and the few a
//! player's session makes most (sign up, post, get).

// Each test file uses what it needs of these.
#![allow(dead_code)]

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use serde_json::{json, Value};
use tower::ServiceExt;

/// Sends a request (JSON body when given) and answers its status, its JSON body (or its text
/// as a string: NDJSON) and the session cookie it sets, if any.
pub async fn send(
    app: &Router,
    method: Method,
    uri: &str,
    cookie: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value, Option<String>) {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(c) = cookie {
        req = req.header(header::COOKIE, c);
    }
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let req = req
        .body(Body::from(body.map(|b| b.to_string()).unwrap_or_default()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let cookie = res
        .headers()
        .get(header::SET_COOKIE)
        .map(|c| c.to_str().unwrap().split(';').next().unwrap().to_string());
    let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
    (
        status,
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into())),
        cookie,
    )
}

/// The password [`sign_up`] gives every account.
pub const PASSWORD: &str = "a good password";

/// Signs up `name` on `app` (with [`PASSWORD`]) and answers the session cookie, which names
/// the player as a token does.
pub async fn sign_up(app: &Router, name: &str) -> String {
    let body = json!({"name": name, "password": PASSWORD});
    let (status, v, cookie) =
        send(app, Method::POST, "/api/account/signup", None, Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    cookie.expect("a session cookie")
}

/// A JSON `POST` as the session `cookie`: its status and body.
pub async fn post(app: &Router, uri: &str, cookie: &str, body: Value) -> (StatusCode, Value) {
    let (status, v, _) = send(app, Method::POST, uri, Some(cookie), Some(body)).await;
    (status, v)
}

/// A `GET` as the session `cookie`: its status and body.
pub async fn get(app: &Router, uri: &str, cookie: &str) -> (StatusCode, Value) {
    let (status, v, _) = send(app, Method::GET, uri, Some(cookie), None).await;
    (status, v)
}
