//! A player's own data over HTTP: `GET /api/account/export` (everything the site holds about
//! the account, as a JSON file; the games themselves as PDN from `GET /api/games/user/{name}`)
//! and `POST /api/account/close {password}` (see [`damasi_online::your_data`]).

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::json;

use crate::error::{HttpError, OptionalJson};
use crate::AppState;

use super::account::with_cookie;
use super::{client_ip, limited, over_https, Me};
use crate::online::session::session_clear_cookie;
use damasi_online::accounts::guests_casual_only;

/// `GET /api/account/export`: the account's data as a JSON file to keep.
pub(super) async fn export(
    State(state): State<AppState>,
    Me(p): Me,
) -> Result<Response, HttpError> {
    let mut data = state.online.account_data(&p).await?;
    data["tournaments"] = json!(state.tournaments.played_by(p.id, 1000).await?);
    data["gamesAsPdn"] = json!(format!("/api/games/user/{}", p.name));
    let mut res = Json(data).into_response();
    let file = format!("attachment; filename=\"damasi-{}.json\"", p.name);
    if let Ok(v) = HeaderValue::from_str(&file) {
        res.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(res)
}

/// The body of `POST /api/account/close`.
#[derive(Deserialize, Default)]
pub(super) struct CloseRequest {
    #[serde(default)]
    password: Option<String>,
}

/// `POST /api/account/close {password}`: closes the account (the password as at log-in, under
/// the same limits); the session cookie is cleared. Answers the account's new name.
pub(super) async fn close(
    State(state): State<AppState>,
    conn: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    Me(p): Me,
    OptionalJson(req): OptionalJson<CloseRequest>,
) -> Result<Response, HttpError> {
    if p.guest {
        return Err(guests_casual_only("a guest has no account to close").into());
    }
    let from = client_ip(conn.as_ref());
    limited(&state.limits.log_ins, &from, "password attempts")?;
    let _check = state.limits.password_checks.start(&from)?;
    state.limits.check_log_in(&p.name, &from)?;
    match state.online.close_account(&p, req.password).await {
        Ok(name) => {
            state.limits.log_in_succeeded(&p.name, &from);
            Ok(with_cookie(
                json!({"ok": true, "name": name}),
                &session_clear_cookie(over_https(&headers)),
            ))
        }
        Err(e) => {
            if e.code() != "wrong-password" {
                state.limits.log_in_not_tried(&p.name, &from);
            }
            Err(e.into())
        }
    }
}
