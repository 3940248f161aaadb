//! Two factors over HTTP, with the codes of an independent TOTP implementation: Python's
//! pyotp (from PyPI), reading the `otpauth://` URI the server gave, as an authenticator app
//! reads its QR code. Skipped, saying so, when Python has no pyotp (`scripts/test` installs it
//! in target/py-venv); `DAMASI_REQUIRE_PYOTP=1` makes that a failure. Also API tokens' scopes.

#[path = "support/http.rs"]
mod http;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_web::{router, AppState};
use http::send;
use serde_json::{json, Value};
use tower::ServiceExt;

/// The Python that has pyotp: `DAMASI_PYTHON`, the repository's target/py-venv, or python3.
fn python_with_pyotp(test: &str) -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/py-venv/bin/python");
    let candidates = [
        std::env::var_os("DAMASI_PYTHON").map(PathBuf::from),
        Some(venv),
        Some(PathBuf::from("python3")),
    ];
    let found = candidates.into_iter().flatten().find(|py| {
        Command::new(py)
            .args(["-c", "import pyotp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if found.is_none() {
        let why = "no Python with pyotp (python3 -m venv target/py-venv && \
                   target/py-venv/bin/pip install pyotp==2.9.0)";
        if std::env::var_os("DAMASI_REQUIRE_PYOTP").is_some() {
            panic!("{test}: {why}");
        }
        eprintln!("SKIPPED {test}: {why}");
    }
    found
}

/// The code pyotp computes from the `otpauth://` URI `uri` at `offset` seconds from now.
fn pyotp_code(py: &Path, uri: &str, offset: i64) -> String {
    let out = Command::new(py)
        .args([
            "-c",
            "import sys, time, pyotp\n\
             t = pyotp.parse_uri(sys.argv[1])\n\
             assert t.issuer == 'damasi' and t.digits == 6 and t.interval == 30, t\n\
             print(t.at(int(time.time()) + int(sys.argv[2])))",
            uri,
            &offset.to_string(),
        ])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "pyotp: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

async fn post(
    app: &Router,
    uri: &str,
    cookie: Option<&str>,
    body: Value,
) -> (StatusCode, Value, Option<String>) {
    send(app, Method::POST, uri, cookie, Some(body)).await
}

/// A request sent with an API token; its status and JSON body.
async fn with_token(
    app: &Router,
    method: Method,
    uri: &str,
    token: &str,
    body: &str,
) -> (StatusCode, Value) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 20)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// Signs `name` up and turns the second factor on with pyotp's code: the session cookie, the
/// URI and the recovery codes.
async fn with_two_factor(app: &Router, py: &Path, name: &str) -> (String, String, Vec<String>) {
    let (s, _, cookie) = post(
        app,
        "/api/account/signup",
        None,
        json!({"name": name, "password": "kestane kebap"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let cookie = cookie.unwrap();
    let (s, me, _) = send(app, Method::GET, "/api/account", Some(&cookie), None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(me["twoFactor"], false);
    let (s, setup, _) = post(
        app,
        "/api/account/two-factor/setup",
        Some(&cookie),
        json!({"password": "kestane kebap"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{setup}");
    let uri = setup["uri"].as_str().unwrap().to_string();
    assert!(
        uri.starts_with(&format!("otpauth://totp/damasi:{name}?")),
        "{uri}"
    );
    assert!(uri.contains(setup["secret"].as_str().unwrap()));
    assert!(setup["qr"].as_str().unwrap().contains("<svg"));
    let (s, on, _) = post(
        app,
        "/api/account/two-factor/enable",
        Some(&cookie),
        json!({"code": pyotp_code(py, &uri, 0)}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{on}");
    let codes: Vec<String> = on["recoveryCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    assert_eq!(codes.len(), 10);
    let (_, me, _) = send(app, Method::GET, "/api/account", Some(&cookie), None).await;
    assert_eq!(me["twoFactor"], true);
    (cookie, uri, codes)
}

#[tokio::test]
async fn log_ins_ask_for_the_code_of_an_authenticator_app() {
    let Some(py) = python_with_pyotp("log_ins_ask_for_the_code_of_an_authenticator_app") else {
        return;
    };
    let app = router(AppState::in_memory());
    let (_, uri, codes) = with_two_factor(&app, &py, "ayse").await;
    let log_in = |code: Option<String>| {
        let app = app.clone();
        async move {
            let mut body = json!({"name": "ayse", "password": "kestane kebap"});
            if let Some(c) = code {
                body["code"] = json!(c);
            }
            post(&app, "/api/account/login", None, body).await
        }
    };
    let (s, body, cookie) = log_in(None).await;
    assert_eq!(
        (s, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("two-factor-needed"))
    );
    assert!(cookie.is_none());
    // (Ten log-in attempts a minute from one address: this test makes nine.)
    // The next step's code (the one that turned it on is used up), once.
    let next = pyotp_code(&py, &uri, 30);
    let (s, body, cookie) = log_in(Some(next.clone())).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(body["name"], "ayse");
    // The log-in's answer is `GET /api/account`'s, which the page draws the account box from.
    assert_eq!(body["twoFactor"], true);
    let cookie = cookie.unwrap();
    let (s, body, _) = log_in(Some(next)).await;
    assert_eq!(
        (s, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("two-factor-wrong"))
    );
    // A recovery code, once.
    let (s, _, _) = log_in(Some(codes[0].clone())).await;
    assert_eq!(s, StatusCode::OK);
    let (s, body, _) = log_in(Some(codes[0].clone())).await;
    assert_eq!(
        (s, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("two-factor-wrong"))
    );
    // Turned off with the password and a code (a recovery code here).
    let (s, body, _) = post(
        &app,
        "/api/account/two-factor/disable",
        Some(&cookie),
        json!({"password": "kestane kebap", "code": codes[1]}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let (s, _, _) = log_in(None).await;
    assert_eq!(s, StatusCode::OK);
}

#[tokio::test]
async fn wrong_codes_are_limited_like_wrong_passwords() {
    let Some(py) = python_with_pyotp("wrong_codes_are_limited_like_wrong_passwords") else {
        return;
    };
    let app = router(AppState::in_memory());
    let (_, uri, _) = with_two_factor(&app, &py, "mehmet").await;
    let body = |code: &str| json!({"name": "mehmet", "password": "kestane kebap", "code": code});
    for i in 0..5 {
        let (s, b, _) = post(&app, "/api/account/login", None, body("000000")).await;
        // (One chance in 10^5 per try that 000000 is the code of a step around now.)
        assert_eq!(
            (s, b["code"].as_str()),
            (StatusCode::UNAUTHORIZED, Some("two-factor-wrong")),
            "try {i}"
        );
    }
    // The sixth failure in a row waits, even with the right code.
    let req = Request::builder()
        .method(Method::POST)
        .uri("/api/account/login")
        .header(header::CONTENT_TYPE, "application/json")
        .body(axum::body::Body::from(
            body(&pyotp_code(&py, &uri, 30)).to_string(),
        ))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(res.headers().get(header::RETRY_AFTER).is_some());
}

#[tokio::test]
async fn tokens_are_listed_with_their_scopes_and_refused_outside_them() {
    let app = router(AppState::in_memory());
    let (_, _, cookie) = post(
        &app,
        "/api/account/signup",
        None,
        json!({"name": "zeynep", "password": "kestane kebap"}),
    )
    .await;
    let cookie = cookie.unwrap();
    let (s, body, _) = post(
        &app,
        "/api/account/token",
        Some(&cookie),
        json!({"scopes": ["challenge:read", "nope:all"]}),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        body["error"].as_str().unwrap().contains("scopes[1]"),
        "{body}"
    );
    let (s, scoped, _) = post(
        &app,
        "/api/account/token",
        Some(&cookie),
        json!({"scopes": ["challenge:read"], "description": "reader"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{scoped}");
    assert_eq!(scoped["scopes"], json!(["challenge:read"]));
    let scoped = scoped["token"].as_str().unwrap().to_string();
    // An empty body: a token that may do everything, as before.
    let (s, all, _) = send(
        &app,
        Method::POST,
        "/api/account/token",
        Some(&cookie),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{all}");
    let all = all["token"].as_str().unwrap().to_string();
    // The Board API needs board:play.
    let (s, body) = with_token(
        &app,
        Method::POST,
        "/api/board/game/nogame/resign",
        &scoped,
        "",
    )
    .await;
    assert_eq!(
        (s, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("missing-scope")),
        "{body}"
    );
    let (s, body) = with_token(
        &app,
        Method::POST,
        "/api/board/game/nogame/resign",
        &all,
        "",
    )
    .await;
    assert_ne!(body["code"].as_str(), Some("missing-scope"), "{s} {body}");
    // Reading the account needs no scope.
    let (s, _) = with_token(&app, Method::GET, "/api/account", &scoped, "").await;
    assert_eq!(s, StatusCode::OK);
    // lichess's token test says the stored scopes.
    let (s, tested) = with_token(
        &app,
        Method::POST,
        "/api/token/test",
        &all,
        &format!("{scoped},{all}"),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(tested[&scoped]["scopes"], "challenge:read");
    assert!(tested[&all]["scopes"]
        .as_str()
        .unwrap()
        .contains("board:play"));
    // The list: the tokens with their scopes and description.
    let (_, list, _) = send(
        &app,
        Method::GET,
        "/api/account/sessions",
        Some(&cookie),
        None,
    )
    .await;
    let tokens: Vec<&Value> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "token")
        .collect();
    assert_eq!(tokens.len(), 2);
    let reader = tokens
        .iter()
        .find(|t| t["description"] == "reader")
        .expect("the described token");
    assert_eq!(reader["scopes"], json!(["challenge:read"]));
    // The challenge reader follows nobody, changes no password, mints no token, closes
    // nothing and downloads no data; the token that may do everything passes those checks
    // (and meets the route's own: a wrong password is a 400 or 403 of another code).
    for (method, uri, body) in [
        (Method::POST, "/api/rel/follow/nobody_here", ""),
        (Method::GET, "/api/rel/following", ""),
        (
            Method::POST,
            "/api/account/password",
            r#"{"old":"x","new":"y"}"#,
        ),
        (Method::POST, "/api/account/token", ""),
        (Method::POST, "/api/account/close", r#"{"password":"x"}"#),
        (Method::GET, "/api/account/export", ""),
        (
            Method::POST,
            "/api/mod/nobody_here/warn",
            r#"{"message":"m"}"#,
        ),
    ] {
        let (s, body_got) = with_token(&app, method.clone(), uri, &scoped, body).await;
        assert_eq!(
            (s, body_got["code"].as_str()),
            (StatusCode::FORBIDDEN, Some("missing-scope")),
            "{method} {uri}: {body_got}"
        );
        let (_, body_got) = with_token(&app, method.clone(), uri, &all, body).await;
        assert_ne!(
            body_got["code"].as_str(),
            Some("missing-scope"),
            "{method} {uri}: {body_got}"
        );
    }
    let id = reader["id"].as_str().unwrap().to_string();
    let (s, _, _) = send(
        &app,
        Method::DELETE,
        &format!("/api/account/sessions/{id}"),
        Some(&cookie),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = with_token(&app, Method::GET, "/api/account", &scoped, "").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn api_tokens_keep_working_with_the_second_factor_on() {
    let Some(py) = python_with_pyotp("api_tokens_keep_working_with_the_second_factor_on") else {
        return;
    };
    let app = router(AppState::in_memory());
    let (cookie, _, _) = with_two_factor(&app, &py, "elif").await;
    let (_, token, _) = post(&app, "/api/account/token", Some(&cookie), json!({})).await;
    let (s, me) = with_token(
        &app,
        Method::GET,
        "/api/account",
        token["token"].as_str().unwrap(),
        "",
    )
    .await;
    assert_eq!((s, me["name"].as_str()), (StatusCode::OK, Some("elif")));
}

#[tokio::test]
async fn a_reset_link_sets_the_password_but_does_not_pass_the_second_factor() {
    let Some(py) =
        python_with_pyotp("a_reset_link_sets_the_password_but_does_not_pass_the_second_factor")
    else {
        return;
    };
    let state = AppState::in_memory();
    let app = router(state.clone());
    let (_, uri, _) = with_two_factor(&app, &py, "deniz").await;
    let link = state
        .online
        .accounts()
        .reset_link_for("deniz", damasi_online::now_ms())
        .await
        .unwrap();
    let (s, body, cookie) = post(
        &app,
        &format!("/api/account/password-reset/{link}"),
        None,
        json!({"password": "yeni bir parola"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(body["twoFactor"], true);
    assert!(cookie.is_none(), "no session without the code");
    let (s, body, _) = post(
        &app,
        "/api/account/login",
        None,
        json!({"name": "deniz", "password": "yeni bir parola"}),
    )
    .await;
    assert_eq!(
        (s, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("two-factor-needed"))
    );
    let (s, _, cookie) = post(
        &app,
        "/api/account/login",
        None,
        json!({"name": "deniz", "password": "yeni bir parola", "code": pyotp_code(&py, &uri, 30)}),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert!(cookie.is_some());
}
