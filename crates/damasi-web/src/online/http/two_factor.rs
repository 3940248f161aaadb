//! Two factors over HTTP: setting a TOTP secret up (its QR code), turning it on (the recovery
//! codes, shown once) and off; and the guard that refuses a scoped API token the routes
//! outside its scopes.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiJson, HttpError};
use crate::online::session::bearer;
use crate::AppState;
use damasi_online::accounts::{secret_hash, Player};
use damasi_online::now_ms;
use damasi_online::two_factor::{check_scope, scope_for};

use super::{client_ip, limited, Me};

/// Now, in Unix seconds.
pub(super) fn unix_s() -> u64 {
    (now_ms() / 1000).max(0) as u64
}

#[derive(Deserialize)]
pub(super) struct PasswordOnly {
    password: String,
}

#[derive(Deserialize)]
pub(super) struct CodeOnly {
    code: String,
}

#[derive(Deserialize)]
pub(super) struct PasswordAndCode {
    password: String,
    code: String,
}

/// Runs `f`, a check of `p`'s password (and code), under the log-in limits: the attempts per
/// address, one password check an address at a time, and the failures per name.
async fn as_log_in<T>(
    state: &AppState,
    from: &str,
    p: &Player,
    f: impl std::future::Future<Output = Result<T, ApiError>>,
) -> Result<T, HttpError> {
    limited(
        &state.limits.log_ins,
        &from.to_string(),
        "password attempts",
    )?;
    let _check = state.limits.password_checks.start(from)?;
    state.limits.check_log_in(&p.name, from)?;
    match f.await {
        Ok(v) => {
            state.limits.log_in_succeeded(&p.name, from);
            Ok(v)
        }
        Err(e) => {
            if !matches!(e.code(), "wrong-password" | "two-factor-wrong") {
                state.limits.log_in_not_tried(&p.name, from);
            }
            Err(e.into())
        }
    }
}

/// `POST /api/account/two-factor/setup {password}`: a new TOTP secret, pending until a code of
/// it turns it on: `{secret, uri, qr}` (`qr` an SVG document).
pub(super) async fn setup(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    Me(p): Me,
    ApiJson(req): ApiJson<PasswordOnly>,
) -> Result<Json<Value>, HttpError> {
    let from = client_ip(conn.as_ref());
    let accounts = state.online.accounts();
    let s = as_log_in(
        &state,
        &from,
        &p,
        accounts.setup_two_factor(&p, req.password),
    )
    .await?;
    Ok(Json(
        json!({"secret": s.secret, "uri": s.uri, "qr": s.qr_svg}),
    ))
}

/// `POST /api/account/two-factor/enable {code}`: turns the secret set up on when the code fits
/// it, and answers the ten recovery codes, once: `{ok, recoveryCodes}`. A wrong code counts
/// as a failed log-in.
pub(super) async fn enable(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    Me(p): Me,
    ApiJson(req): ApiJson<CodeOnly>,
) -> Result<Json<Value>, HttpError> {
    let from = client_ip(conn.as_ref());
    let accounts = state.online.accounts();
    let codes = as_log_in(
        &state,
        &from,
        &p,
        accounts.enable_two_factor(&p, &req.code, unix_s()),
    )
    .await?;
    Ok(Json(json!({"ok": true, "recoveryCodes": codes})))
}

/// `POST /api/account/two-factor/disable {password, code}`: turns the second factor off.
pub(super) async fn disable(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    Me(p): Me,
    ApiJson(req): ApiJson<PasswordAndCode>,
) -> Result<Json<Value>, HttpError> {
    let from = client_ip(conn.as_ref());
    let accounts = state.online.accounts();
    as_log_in(
        &state,
        &from,
        &p,
        accounts.disable_two_factor(&p, req.password, &req.code, unix_s()),
    )
    .await?;
    Ok(Json(json!({"ok": true})))
}

/// Refuses a request sent with a scoped API token when its route needs a scope the token
/// lacks (403 `missing-scope`): the Board and Bot APIs and the page's game routes, challenges,
/// tournaments' writes, follows, moderation, and the account's own settings, which only a
/// log-in or a token that may do everything changes (`damasi_online::two_factor::scope_for`).
/// Tokens without scopes pass, as do sessions.
pub async fn scope_guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if let Some(scope) = scope_for(req.method().as_str(), req.uri().path()) {
        if let Some(token) = bearer(req.headers()) {
            let scopes = state.online.db().token_scopes(secret_hash(token)).await;
            let checked = scopes.and_then(|s| check_scope(s.as_deref(), scope));
            if let Err(e) = checked {
                return HttpError(e).into_response();
            }
        }
    }
    next.run(req).await
}
