//! Accounts over HTTP: sign-up, log-in (a session cookie), guests, log-out, passwords,
//! sessions and API tokens, and the link to Telegram.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiJson, ApiPath, HttpError};
use crate::AppState;
use damasi_online::now_ms;

use super::{account_json, client_ip, limited, over_https, Me, MeWith};
use crate::online::session::{session_clear_cookie, session_cookie, session_set_cookie, Identify};
use damasi_online::accounts::{
    check_new_password, check_password, guests_casual_only, handle_of, Api, Player,
    SESSION_LIFETIME,
};
use damasi_online::db::SecretKind;

pub(super) fn with_cookie(body: Value, cookie: &str) -> Response {
    let mut res = Json(body).into_response();
    if let Ok(v) = HeaderValue::from_str(cookie) {
        res.headers_mut().insert(header::SET_COOKIE, v);
    }
    res
}

#[derive(Deserialize)]
pub(super) struct Credentials {
    name: String,
    password: String,
    /// The second factor's code (TOTP or recovery), when the account has it on.
    #[serde(default)]
    code: Option<String>,
}

pub(super) async fn start_session(
    state: &AppState,
    headers: &HeaderMap,
    p: Player,
) -> Result<Response, ApiError> {
    let secret = state
        .online
        .accounts()
        .issue(p.id, SecretKind::Session, now_ms())
        .await?;
    let mut body = account_json(&state.online, &p).await?;
    super::recovery::add_email_fields(state, &p, &mut body).await?;
    body["twoFactor"] = json!(state.online.accounts().two_factor_on(p.id).await?);
    Ok(with_cookie(
        body,
        &session_set_cookie(&secret, over_https(headers)),
    ))
}

pub(super) async fn sign_up(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiJson(c): ApiJson<Credentials>,
) -> Result<Response, HttpError> {
    let from = client_ip(conn.as_ref());
    limited(&state.limits.sign_ups, &from, "sign-ups")?;
    let _check = state.limits.password_checks.start(&from)?;
    let p = state
        .online
        .accounts()
        .sign_up(c.name.trim(), c.password, now_ms())
        .await?;
    start_session(&state, &headers, p).await.map_err(HttpError)
}

pub(super) async fn log_in(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiJson(c): ApiJson<Credentials>,
) -> Result<Response, HttpError> {
    let from = client_ip(conn.as_ref());
    limited(&state.limits.log_ins, &from, "log-in attempts")?;
    let name = c.name.trim();
    let _check = state.limits.password_checks.start(&from)?;
    state.limits.check_log_in(name, &from)?;
    let logged_in = state
        .online
        .accounts()
        .log_in_with_code(
            name,
            c.password,
            c.code.as_deref(),
            super::two_factor::unix_s(),
        )
        .await;
    match logged_in {
        Ok(p) => {
            state.limits.log_in_succeeded(name, &from);
            start_session(&state, &headers, p).await.map_err(HttpError)
        }
        // A wrong password, or a wrong second factor: a failure.
        Err(e @ ApiError::Unauthorized(_)) => Err(e.into()),
        Err(e) if e.code() == "two-factor-wrong" => Err(e.into()),
        Err(e) => {
            state.limits.log_in_not_tried(name, &from);
            Err(e.into())
        }
    }
}

pub(super) async fn guest(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    if let Some(p) = state.online.accounts().identify(&headers).await? {
        return Ok(Json(account_json(&state.online, &p).await?).into_response());
    }
    limited(
        &state.limits.guests,
        &client_ip(conn.as_ref()),
        "guest sessions",
    )?;
    let p = state.online.accounts().guest(now_ms()).await?;
    start_session(&state, &headers, p).await.map_err(HttpError)
}

pub(super) async fn log_out(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    if let Some(s) = session_cookie(&headers) {
        state.online.accounts().end_session(s).await?;
    }
    Ok(with_cookie(
        json!({"ok": true}),
        &session_clear_cookie(over_https(&headers)),
    ))
}

#[derive(Deserialize)]
pub(super) struct PasswordChange {
    old: String,
    new: String,
}

/// `POST /api/account/password {old, new}`: the new password is checked as at sign-up, the old
/// one as at log-in (the same limits per address and per name); every other session and token
/// of the account is revoked, the one the request came with is kept.
pub(super) async fn change_password(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    MeWith(p, cred): MeWith,
    ApiJson(req): ApiJson<PasswordChange>,
) -> Result<Json<Value>, HttpError> {
    if p.guest {
        return Err(guests_casual_only("guests have no password: sign up to have one").into());
    }
    // A new password that would be refused anyway is no attempt at the old one.
    check_password(&req.new)?;
    check_new_password(&p.name, &req.new)?;
    let from = client_ip(conn.as_ref());
    limited(&state.limits.log_ins, &from, "password attempts")?;
    let _check = state.limits.password_checks.start(&from)?;
    state.limits.check_log_in(&p.name, &from)?;
    let changed = state
        .online
        .accounts()
        .change_password(&p, &cred, req.old, req.new)
        .await;
    match changed {
        Ok(revoked) => {
            state.limits.log_in_succeeded(&p.name, &from);
            Ok(Json(json!({"ok": true, "revoked": revoked})))
        }
        Err(e) => {
            if e.code() != "wrong-password" {
                state.limits.log_in_not_tried(&p.name, &from);
            }
            Err(e.into())
        }
    }
}

/// `GET /api/account/sessions`: the account's log-in sessions and API tokens, newest first,
/// each named by a short handle (never the secret).
pub(super) async fn list_sessions(
    State(state): State<AppState>,
    MeWith(p, cred): MeWith,
) -> Result<Json<Value>, HttpError> {
    let rows = state.online.accounts().secrets_of(&p).await?;
    let tokens = state.online.db().tokens_of(p.id).await?;
    let lifetime = SESSION_LIFETIME.as_millis() as i64;
    let list: Vec<Value> = rows
        .iter()
        .filter(|r| r.kind != SecretKind::Link)
        .map(|r| {
            let mut v = json!({
                "id": handle_of(&r.hash),
                "kind": r.kind.as_str(),
                "createdAt": r.created_ms,
                "expiresAt": (r.kind == SecretKind::Session)
                    .then(|| r.created_ms.saturating_add(lifetime)),
                "current": r.hash == cred.hash,
            });
            if r.kind == SecretKind::Token {
                let t = tokens.iter().find(|t| t.hash == r.hash);
                v["scopes"] = token_scopes_json(t.and_then(|t| t.scopes.as_deref()));
                v["description"] = json!(t.and_then(|t| t.description.clone()));
            }
            v
        })
        .collect();
    Ok(Json(json!({"sessions": list})))
}

/// `DELETE /api/account/sessions/{id}`: revokes one session or token of the account (the
/// current one too: the cookie is then cleared).
pub(super) async fn revoke_session(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(handle): ApiPath<String>,
    MeWith(p, cred): MeWith,
) -> Result<Response, HttpError> {
    let revoked = state
        .online
        .accounts()
        .revoke(&p, Some(&handle), None)
        .await?;
    if revoked == 0 {
        return Err(
            ApiError::NotFound(format!("no session or token '{handle}' of this account")).into(),
        );
    }
    let body = json!({"ok": true, "revoked": revoked});
    if cred.kind == SecretKind::Session && handle.eq_ignore_ascii_case(cred.handle()) {
        return Ok(with_cookie(
            body,
            &session_clear_cookie(over_https(&headers)),
        ));
    }
    Ok(Json(body).into_response())
}

/// `DELETE /api/token` (lichess's): revokes the API token the request is sent with; 204.
pub(super) async fn revoke_token(
    State(state): State<AppState>,
    MeWith(p, cred): MeWith,
) -> Result<axum::http::StatusCode, HttpError> {
    if cred.kind != SecretKind::Token {
        return Err(ApiError::BadRequest(
            "send the token to revoke as Authorization: Bearer TOKEN".into(),
        )
        .into());
    }
    state.online.accounts().revoke_credential(&p, &cred).await?;
    Ok(axum::http::StatusCode::NO_CONTENT)
}

/// `POST /api/account/logout-everywhere`: revokes every session and token of the account, the
/// current one included, and unties its linked Telegram users.
pub(super) async fn log_out_everywhere(
    State(state): State<AppState>,
    headers: HeaderMap,
    MeWith(p, _): MeWith,
) -> Result<Response, HttpError> {
    let revoked = state.online.accounts().revoke(&p, None, None).await?;
    Ok(with_cookie(
        json!({"ok": true, "revoked": revoked}),
        &session_clear_cookie(over_https(&headers)),
    ))
}

pub(super) async fn me(State(state): State<AppState>, Me(p): Me) -> Result<Json<Value>, HttpError> {
    let mut body = account_json(&state.online, &p).await?;
    super::recovery::add_email_fields(&state, &p, &mut body).await?;
    body["twoFactor"] = json!(state.online.accounts().two_factor_on(p.id).await?);
    Ok(Json(body))
}

/// What `POST /api/account/token` may be sent (an empty body too).
#[derive(Deserialize, Default)]
pub(super) struct NewToken {
    /// lichess's scope names; none: the token may do everything.
    #[serde(default)]
    scopes: Option<Vec<String>>,
    /// What the token is for, shown in the list of sessions and tokens.
    #[serde(default)]
    description: Option<String>,
}

/// Longest description of a token.
const MAX_TOKEN_DESCRIPTION: usize = 100;

/// A token's scopes as listed: lichess's names, all of them for a token without scopes.
pub(super) fn token_scopes_json(scopes: Option<&str>) -> Value {
    match scopes {
        Some(s) => json!(s.split(' ').collect::<Vec<_>>()),
        None => json!(damasi_online::two_factor::SCOPES),
    }
}

/// `POST /api/account/token {scopes?, description?}`: a new API token, limited to `scopes`
/// (lichess's names) when they are given.
pub(super) async fn new_token(
    State(state): State<AppState>,
    Me(p): Me,
    body: axum::body::Bytes,
) -> Result<Json<Value>, HttpError> {
    if p.guest {
        return Err(guests_casual_only("guests cannot have API tokens: sign up first").into());
    }
    let req: NewToken = if body.iter().all(u8::is_ascii_whitespace) {
        NewToken::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::BadRequest(format!("the token's request body: {e}")))?
    };
    let scopes = match &req.scopes {
        Some(list) => Some(damasi_online::two_factor::check_scopes(list)?),
        None => None,
    };
    let description = req
        .description
        .map(|d| d.trim().to_string())
        .filter(|d| !d.is_empty());
    if description.as_ref().is_some_and(|d| {
        d.chars().count() > MAX_TOKEN_DESCRIPTION || d.chars().any(char::is_control)
    }) {
        return Err(ApiError::BadRequest(format!(
            "description: at most {MAX_TOKEN_DESCRIPTION} characters, no control characters"
        ))
        .into());
    }
    let token = state
        .online
        .accounts()
        .issue(p.id, SecretKind::Token, now_ms())
        .await?;
    if scopes.is_some() || description.is_some() {
        state
            .online
            .db()
            .set_token_scopes(
                damasi_online::accounts::secret_hash(&token),
                scopes.clone(),
                description,
            )
            .await?;
    }
    Ok(Json(json!({
        "token": token,
        "name": p.name,
        "scopes": token_scopes_json(scopes.as_deref()),
    })))
}

/// `POST /api/account/link-code`: a one-time code that links a Telegram user to this account
/// (`/link CODE` to the bot, or its `start` link), valid for ten minutes.
pub(super) async fn link_code(
    State(state): State<AppState>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    if p.guest {
        return Err(guests_casual_only("guests cannot link other accounts: sign up first").into());
    }
    // Telegram's boards are played by people's presses: a BOT plays through the Bot API.
    p.check_api(Api::Board)?;
    let code = state
        .online
        .accounts()
        .issue(p.id, SecretKind::Link, now_ms())
        .await?;
    Ok(Json(
        json!({"code": code, "name": p.name, "expiresIn": 600}),
    ))
}

#[derive(Deserialize)]
pub(super) struct TelegramLogIn {
    #[serde(rename = "initData")]
    init_data: String,
}

/// `POST /api/account/telegram {initData}`: the log-in of the page the bot's Mini App button
/// opened, with the `initData` Telegram signed for it: a session for the account the bot plays
/// that Telegram user with (404 when the server runs no bot).
pub(super) async fn telegram_log_in(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<TelegramLogIn>,
) -> Result<Response, HttpError> {
    let Some(token) = state.telegram_token.clone() else {
        return Err(ApiError::NotFound("this server runs no Telegram bot".into()).into());
    };
    limited(
        &state.limits.log_ins,
        &client_ip(conn.as_ref()),
        "log-in attempts",
    )?;
    let now_s = now_ms() / 1000;
    let p =
        damasi_online::init_data::player_of(&state.online, &req.init_data, &token, now_s).await?;
    start_session(&state, &headers, p).await.map_err(HttpError)
}

/// `DELETE /api/account/telegram`: unties the Telegram users linked to the account (`/link`):
/// the bot plays them as guests again and the Mini App gives them no session of the account.
/// Answers how many were linked; guests have no link to undo.
pub(super) async fn telegram_unlink(
    State(state): State<AppState>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    if p.guest {
        return Err(
            guests_casual_only("guests have no linked Telegram user: sign up first").into(),
        );
    }
    let unlinked = state.online.accounts().unlink(&p, None).await?;
    Ok(Json(json!({"ok": true, "unlinked": unlinked})))
}
