//! Reports and moderation over HTTP (see [`damasi_online::moderation`]):
//!
//! - `POST /api/report {username, reason, note?, gameId?}`: a player reports another
//!   (`cheating`, `insults`, `sandbagging`, `other`); at most [`super::REPORTS_PER_HOUR`] an
//!   hour per player.
//! - `GET /api/mod/reports`: the open reports with their evidence (moderators).
//! - `POST /api/mod/{username}/{action} {message?, minutes?}`: `warn`, `mute`, `unmute`,
//!   `engine`, `unengine`, `dismiss`, `close` (moderators).
//! - `GET /api/mod/log?username=`: the moderation log (moderators).
//! - `GET /api/account/moderation`: what was done to the account, as its player sees it.

use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ApiJson, ApiPath, ApiQuery, HttpError, OptionalJson};
use crate::AppState;

use super::Me;
use damasi_online::moderation::Action;

/// The body of `POST /api/report`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReportRequest {
    username: String,
    reason: String,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    game_id: Option<String>,
}

/// `POST /api/report`: answers `{ok, id}`.
pub(super) async fn report(
    State(state): State<AppState>,
    Me(p): Me,
    ApiJson(req): ApiJson<ReportRequest>,
) -> Result<Json<Value>, HttpError> {
    state.limits.check_report(p.id)?;
    let id = state
        .online
        .moderation()
        .report(
            &p,
            req.username.trim(),
            req.game_id
                .as_deref()
                .map(str::trim)
                .filter(|g| !g.is_empty()),
            req.reason.trim(),
            req.note.as_deref().unwrap_or(""),
        )
        .await?;
    Ok(Json(json!({"ok": true, "id": id})))
}

/// `GET /api/mod/reports`: `{reports: [...]}`.
pub(super) async fn queue(
    State(state): State<AppState>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    let reports = state.online.moderation().report_queue(&p).await?;
    Ok(Json(json!({ "reports": reports })))
}

/// The body of `POST /api/mod/{username}/{action}`.
#[derive(Deserialize, Default)]
pub(super) struct ActionRequest {
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    minutes: Option<i64>,
}

/// `POST /api/mod/{username}/{action}`: what was done.
pub(super) async fn act(
    State(state): State<AppState>,
    ApiPath((name, action)): ApiPath<(String, String)>,
    Me(p): Me,
    OptionalJson(req): OptionalJson<ActionRequest>,
) -> Result<Json<Value>, HttpError> {
    state.online.moderation().check_moderator(&p).await?;
    let action = Action::parse(&action, req.message.as_deref(), req.minutes)?;
    Ok(Json(
        state
            .online
            .moderation()
            .moderate(Some(&p), &name, action)
            .await?,
    ))
}

/// The query of `GET /api/mod/log`.
#[derive(Deserialize, Default)]
pub(super) struct LogQuery {
    #[serde(default)]
    username: Option<String>,
}

/// `GET /api/mod/log?username=`: `{log: [...]}`, newest first.
pub(super) async fn log(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<LogQuery>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    let name = q.username.as_deref().filter(|n| !n.is_empty());
    let log = state
        .online
        .moderation()
        .moderation_log(Some(&p), name, 500)
        .await?;
    Ok(Json(json!({ "log": log })))
}

/// `GET /api/account/moderation`: `{marks, actions, moderator}`.
pub(super) async fn mine(
    State(state): State<AppState>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    let mut v = state.online.moderation().moderation_of(&p).await?;
    v["moderator"] = json!(state.online.moderation().check_moderator(&p).await.is_ok());
    Ok(Json(v))
}
