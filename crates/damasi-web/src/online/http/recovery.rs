//! An account's e-mail address and the mailed links over HTTP: setting the address (the
//! password asked again), confirming it by its link, asking for a password reset (one answer,
//! in about one time, whether or not the address has an account) and setting the new password
//! with the reset link, which logs the person in.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{ConnectInfo, State};
use axum::http::header::HeaderMap;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiJson, ApiPath, HttpError};
use crate::AppState;
use damasi_online::now_ms;
use damasi_online::recovery::check_email;

use super::account::start_session;
use super::{client_ip, limited, origin, Me};
use crate::online::mail::{self, Lang};
use damasi_online::accounts::{guests_casual_only, Player};

/// How long a password-reset request takes to be answered at least, found or not: the work
/// for a known address (a link stored, a mail handed to its task) hides under it.
pub const RESET_ANSWER_TIME: Duration = Duration::from_millis(300);

/// The site's address for links in mail: `--public-url`, else the address the request reached
/// (its host is one the security policy accepts: a local name or `--allowed-host`).
fn site_url(state: &AppState, headers: &HeaderMap) -> String {
    match &state.public_url {
        Some(url) => url.to_string(),
        None => origin(headers),
    }
}

/// The refusal of what needs mail on a server that sends none (409 `no-mail`).
fn no_mail() -> ApiError {
    ApiError::conflict(
        "no-mail",
        "this server sends no mail: ask its operator (damasi user set-email, damasi user \
         reset-password)",
    )
}

/// The owner's e-mail fields of `GET /api/account`: `email` (null when none) and
/// `emailConfirmed`.
pub(super) async fn add_email_fields(
    state: &AppState,
    p: &Player,
    body: &mut Value,
) -> Result<(), ApiError> {
    let email = if p.guest {
        None
    } else {
        state.online.accounts().email_of(p).await?
    };
    body["email"] = json!(email.as_ref().map(|e| e.address.clone()));
    body["emailConfirmed"] = json!(email.is_some_and(|e| e.confirmed_ms.is_some()));
    Ok(())
}

#[derive(Deserialize)]
pub(super) struct EmailChange {
    email: String,
    password: String,
}

/// `POST /api/account/email {email, password}`: the account's new address, kept unconfirmed,
/// and a confirmation link mailed to it. The password is checked as at log-in (the same limits
/// per address and per name; 403 `wrong-password`).
pub(super) async fn set_email(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    Me(p): Me,
    ApiJson(req): ApiJson<EmailChange>,
) -> Result<Json<Value>, HttpError> {
    if p.guest {
        return Err(guests_casual_only("guests have no e-mail address: sign up first").into());
    }
    let Some(mailer) = state.mailer.clone() else {
        return Err(no_mail().into());
    };
    let address = check_email(&req.email)?;
    limited(&state.limits.email_changes, &p.id, "e-mail changes")?;
    let from = client_ip(conn.as_ref());
    limited(&state.limits.log_ins, &from, "password attempts")?;
    let _check = state.limits.password_checks.start(&from)?;
    state.limits.check_log_in(&p.name, &from)?;
    let changed = state
        .online
        .accounts()
        .change_email(&p, req.password, &address, now_ms())
        .await;
    let secret = match changed {
        Ok(secret) => {
            state.limits.log_in_succeeded(&p.name, &from);
            secret
        }
        Err(e) => {
            if e.code() != "wrong-password" {
                state.limits.log_in_not_tried(&p.name, &from);
            }
            return Err(e.into());
        }
    };
    let link = format!(
        "{}/account/confirm-email/{secret}",
        site_url(&state, &headers)
    );
    mailer.send(
        &address,
        &p.name,
        mail::confirmation(Lang::of(&headers), &p.name, &link),
    );
    Ok(Json(
        json!({"ok": true, "email": address, "emailConfirmed": false}),
    ))
}

/// `GET /account/confirm-email/{token}`: the mailed link. Confirms the address and sends the
/// browser to the online page with a notice (`?notice=email-confirmed`, or
/// `?notice=link-not-valid` for a link used, expired or replaced).
pub async fn confirm_email_page(
    State(state): State<AppState>,
    ApiPath(token): ApiPath<String>,
) -> Response {
    if token.len() > 64 {
        return Redirect::to("/online?notice=link-not-valid").into_response();
    }
    match state
        .online
        .accounts()
        .confirm_email(&token, now_ms())
        .await
    {
        Ok(_) => Redirect::to("/online?notice=email-confirmed").into_response(),
        Err(ApiError::NotFound(_)) => Redirect::to("/online?notice=link-not-valid").into_response(),
        Err(e) => HttpError(e).into_response(),
    }
}

#[derive(Deserialize)]
pub(super) struct ResetRequest {
    email: String,
}

/// `POST /api/account/password-reset {email}`: mails a reset link when a confirmed address has
/// an account, and answers `{ok: true}` after at least [`RESET_ANSWER_TIME`] whatever the
/// address, on a server without mail too. Limited per client address and per e-mail address
/// (the limits count every request, found or not).
pub(super) async fn request_reset(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<ResetRequest>,
) -> Result<Json<Value>, HttpError> {
    let started = tokio::time::Instant::now();
    let from = client_ip(conn.as_ref());
    limited(&state.limits.resets_by_address, &from, "password resets")?;
    let key = req.email.trim().to_lowercase();
    limited(
        &state.limits.resets_by_email,
        &key,
        "password resets for this e-mail address",
    )?;
    if let Some(mailer) = &state.mailer {
        let found = state
            .online
            .accounts()
            .reset_request(&req.email, now_ms())
            .await?;
        if let Some(m) = found {
            let link = format!("{}/account/reset/{}", site_url(&state, &headers), m.secret);
            mailer.send(
                &m.address,
                &m.player.name,
                mail::reset(Lang::of(&headers), &m.player.name, &link),
            );
        }
    }
    tokio::time::sleep_until(started + RESET_ANSWER_TIME).await;
    Ok(Json(json!({"ok": true})))
}

/// `GET /api/account/password-reset/{token}`: whose a reset link is (`{name}`), for the page
/// to show above its form; 404 when the link is used, expired or replaced. The link is not
/// used up.
pub(super) async fn reset_target(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    ApiPath(token): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    limited(
        &state.limits.log_ins,
        &client_ip(conn.as_ref()),
        "password-reset look-ups",
    )?;
    let p = state
        .online
        .accounts()
        .reset_target(&token, now_ms())
        .await?;
    Ok(Json(json!({"name": p.name})))
}

#[derive(Deserialize)]
pub(super) struct NewPassword {
    password: String,
}

/// `POST /api/account/password-reset/{token} {password}`: sets the new password (checked as at
/// sign-up), uses the link up, revokes every session and reset link of the account (API
/// tokens are kept, so its programs keep running), and logs the person in with a new session:
/// the answer is `GET /api/account`'s.
pub(super) async fn reset_password(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ApiPath(token): ApiPath<String>,
    ApiJson(req): ApiJson<NewPassword>,
) -> Result<Response, HttpError> {
    let from = client_ip(conn.as_ref());
    limited(&state.limits.log_ins, &from, "password resets")?;
    let _check = state.limits.password_checks.start(&from)?;
    let (p, _) = state
        .online
        .accounts()
        .reset_password(&token, req.password, now_ms())
        .await?;
    // A mailed link is no second factor: with it on, the new password is set and the person
    // logs in with it and a code.
    if state.online.accounts().two_factor_on(p.id).await? {
        return Ok(Json(json!({"ok": true, "name": p.name, "twoFactor": true})).into_response());
    }
    start_session(&state, &headers, p).await.map_err(HttpError)
}
