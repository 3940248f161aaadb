//! The HTTP side of tournaments (`damasi-tournaments`): lichess's Swiss API where it has one,
//! the tournament pages, and the live standings over a WebSocket.
//!
//! - `GET /api/swiss` lists tournaments (`?status=created|started|finished`).
//! - `POST /api/swiss/new` (also `/api/swiss/new/{team}`, lichess's path) creates one; the
//!   body is JSON or a form with lichess's fields: `name`, `clock.limit`, `clock.increment`
//!   (seconds), `nbRounds`, `startsAt` (Unix ms), `roundInterval` (seconds), `rated`,
//!   `password`, `conditions.allowList` (names, by commas or lines), `conditions.bots`
//!   (BOT accounts may join; they may not unless it says so), and damasi's
//!   `tiebreaks` (`buchholzCut1,buchholz,sonnebornBerger,wins`, the default; also
//!   `directEncounter`, `koya`), `system` (`swiss`, the default, or `roundRobin`: FIDE's
//!   Berger tables, 3 to 24 players, `nbRounds` not used) and `double` (a double round robin).
//! - `GET /api/swiss/{id}`: the tournament with its standings and every round's games.
//! - `POST /api/swiss/{id}/join` (`password`), `POST /api/swiss/{id}/withdraw`.
//! - `POST /api/swiss/{id}/start` (the organiser: start now, or pair the next round now),
//!   `POST /api/swiss/{id}/schedule-next-round` (`date`, Unix ms) and
//!   `POST /api/swiss/{id}/terminate` (end it).
//! - `GET /api/swiss/{id}/results`: the standings as NDJSON, one player a line.
//! - `GET /swiss/{id}.trf` (and `/api/swiss/{id}.trf`): FIDE's tournament report file.
//! - `GET /api/swiss/{id}/games`: every game as PDN.
//! - `GET /api/swiss/{id}/socket`: the tournament's view, then each change.
//! - `GET /swiss/{id}/print` (and `/tournament/{id}/print`): the pairings and standings
//!   for the wall, a page to print.
//!
//! Arenas, as lichess's arena API: `GET /api/tournament` (`created`, `started`, `finished`),
//! `POST /api/tournament` (`name`, `clockTime` minutes, `clockIncrement` seconds, `minutes`
//! the duration, `startDate` Unix ms or `waitMinutes`, none: the organiser starts it, `rated`,
//! `password`, `conditions.allowList`, `conditions.bots`), `GET /api/tournament/{id}`, `POST
//! /api/tournament/{id}/join` (`password`), `.../withdraw` (a pause), `.../start` and
//! `.../terminate` (the organiser), `GET .../results` (NDJSON) and `GET .../socket`; the page
//! is `/tournament/{id}`.

use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::header::{self, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use damasi_online::db::TournamentFilter;
use damasi_online::error::ApiError;
use damasi_tournaments::swiss::{Entry, SwissSettings, System};
use damasi_tournaments::tiebreak::Tiebreak;
use damasi_tournaments::NewSwiss;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ApiJson, ApiPath, ApiQuery, HttpError, OptionalJson};
use crate::online::http::Me;
use crate::streams::{Client, StreamPermit};
use crate::AppState;

/// The API routes (under `/api`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/swiss", get(list))
        .route("/swiss/new", post(create))
        .route("/swiss/new/{team}", post(create_for_team))
        .route("/swiss/{id}", get(show))
        .route("/swiss/{id}/join", post(join::<SWISS>))
        .route("/swiss/{id}/withdraw", post(withdraw::<SWISS>))
        .route("/swiss/{id}/start", post(start::<SWISS>))
        .route("/swiss/{id}/terminate", post(terminate::<SWISS>))
        .route("/swiss/{id}/schedule-next-round", post(schedule))
        .route("/swiss/{id}/results", get(results::<SWISS>))
        .route("/swiss/{id}/games", get(games))
        .route("/swiss/{id}/socket", get(socket::<SWISS>))
        .route("/tournament", get(arena_list).post(arena_create))
        .route("/tournament/{id}", get(arena_show))
        .route("/tournament/{id}/join", post(join::<ARENA>))
        .route("/tournament/{id}/withdraw", post(withdraw::<ARENA>))
        .route("/tournament/{id}/start", post(start::<ARENA>))
        .route("/tournament/{id}/terminate", post(terminate::<ARENA>))
        .route("/tournament/{id}/results", get(results::<ARENA>))
        .route("/tournament/{id}/socket", get(socket::<ARENA>))
}

/// The handlers below serve both kinds: `ARENA` for `/api/tournament/...`, `SWISS` for
/// `/api/swiss/...`.
const ARENA: bool = true;
const SWISS: bool = false;

/// The page routes: `/swiss` (the list and the form to create one), `/swiss/{id}` (one
/// tournament; `/swiss/{id}.trf` is its report file), `/tournament/{id}` (an arena), and
/// each one's pairings and standings for the wall, `/swiss/{id}/print` and
/// `/tournament/{id}/print`.
pub fn pages() -> Router<AppState> {
    Router::new()
        .route("/swiss", get(crate::assets::swiss_page))
        .route("/swiss/{id}", get(page_or_trf))
        .route("/swiss/{id}/print", get(crate::assets::print_page))
        .route("/tournament/{id}", get(crate::assets::swiss_page))
        .route("/tournament/{id}/print", get(crate::assets::print_page))
}

#[derive(Deserialize, Default)]
struct ListQuery {
    #[serde(default)]
    status: Option<String>,
}

async fn list(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<Value>, HttpError> {
    let filter = match q.status.as_deref() {
        None | Some("") => TournamentFilter::All,
        Some(s @ ("created" | "started" | "finished")) => TournamentFilter::Status(s),
        Some(s) => {
            return Err(ApiError::BadRequest(format!(
                "status '{s}' is not created, started or finished"
            ))
            .into())
        }
    };
    Ok(Json(
        json!({"tournaments": state.tournaments.list(filter, 100).await?}),
    ))
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct SwissRequest {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    clock: Option<ClockRequest>,
    /// damasi's: a correspondence Swiss, its games of `days` a move (instead of `clock`).
    #[serde(default)]
    days: Option<i64>,
    #[serde(default)]
    nb_rounds: Option<u32>,
    #[serde(default)]
    starts_at: Option<i64>,
    #[serde(default)]
    round_interval: Option<i64>,
    #[serde(default)]
    rated: Option<bool>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    conditions: Option<Conditions>,
    #[serde(default)]
    tiebreaks: Option<String>,
    /// lichess's `variant`: `standard` or a rule-set name (see `damasi_online::variant`).
    #[serde(default)]
    variant: Option<String>,
    /// damasi's: `swiss` (the default) or `roundRobin`.
    #[serde(default)]
    system: Option<String>,
    /// damasi's: with `system=roundRobin`, a double round robin.
    #[serde(default)]
    double: Option<bool>,
}

/// The pairing system asked for: `system` (`swiss` or `roundRobin`) and `double`.
fn system_of(system: Option<&str>, double: Option<bool>) -> Result<System, ApiError> {
    let double = double.unwrap_or(false);
    match system.map(str::trim).filter(|s| !s.is_empty()) {
        None | Some("swiss") if double => Err(ApiError::BadRequest(
            "double: only a round robin is played double (give system=roundRobin)".into(),
        )),
        None | Some("swiss") => Ok(System::Swiss),
        Some("roundRobin") if double => Ok(System::DoubleRoundRobin),
        Some("roundRobin") => Ok(System::RoundRobin),
        Some(other) => Err(ApiError::BadRequest(format!(
            "system: '{other}' is not swiss or roundRobin"
        ))),
    }
}

#[derive(Deserialize, Default)]
struct ClockRequest {
    limit: i64,
    #[serde(default)]
    increment: i64,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Conditions {
    #[serde(default)]
    allow_list: Option<String>,
    /// lichess's `conditions.bots`: BOT accounts may join.
    #[serde(default)]
    bots: Option<bool>,
}

/// Whether `conditions` let BOT accounts join (not unless they say so).
fn bots_of(conditions: Option<&Conditions>) -> bool {
    conditions.and_then(|c| c.bots).unwrap_or(false)
}

/// Who may join: the names of `conditions.allowList` (by commas, spaces or lines), or anyone.
fn entry_of(conditions: Option<Conditions>) -> Entry {
    match conditions
        .and_then(|c| c.allow_list)
        .filter(|l| !l.trim().is_empty())
    {
        Some(list) => Entry::List {
            names: list
                .split([',', '\n', ' '])
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(String::from)
                .collect(),
        },
        None => Entry::Anyone,
    }
}

/// Default pause between rounds (lichess's default interval is a few seconds too).
const DEFAULT_PAUSE_S: i64 = 10;

/// How far in the past a start time may be (a clock a little behind, a form sent slowly).
const START_SLACK_MS: i64 = 5 * 60_000;
/// How far ahead a start time may be.
const START_AHEAD_MS: i64 = 366 * 24 * 3_600_000;

/// Checks a start time (Unix ms) given as `field`: not in the past (beyond
/// [`START_SLACK_MS`]) and at most [`START_AHEAD_MS`] (a year) ahead.
fn check_start(field: &str, at: i64) -> Result<i64, ApiError> {
    let now = damasi_online::now_ms();
    if at < now - START_SLACK_MS {
        return Err(ApiError::BadRequest(format!(
            "{field}: {at} is in the past (it is now {now}, Unix time in ms)"
        )));
    }
    if at > now + START_AHEAD_MS {
        return Err(ApiError::BadRequest(format!(
            "{field}: {at} is more than a year ahead (it is now {now}, Unix time in ms)"
        )));
    }
    Ok(at)
}

impl SwissRequest {
    fn settings(self) -> Result<NewSwiss, ApiError> {
        let rules = damasi_online::variant::parse("variant", self.variant.as_deref())?;
        let (initial_ms, increment_ms, control) = match (self.days, &self.clock) {
            (Some(_), Some(_)) => {
                return Err(ApiError::BadRequest(
                    "give either days (correspondence) or a clock, not both".into(),
                ))
            }
            (Some(days), None) => {
                let game = damasi_online::NewGame::correspondence(days, true, true)?;
                (game.initial_ms, 0, format!("{days}d"))
            }
            (None, Some(clock)) => (
                clock.limit.saturating_mul(1000),
                clock.increment.saturating_mul(1000),
                format!("{}+{}", clock.limit as f64 / 60.0, clock.increment),
            ),
            (None, None) => {
                return Err(ApiError::BadRequest(
                    "give the clock: clock.limit and clock.increment in seconds (or days)".into(),
                ))
            }
        };
        let system = system_of(self.system.as_deref(), self.double)?;
        let tiebreaks = match self.tiebreaks.as_deref().filter(|t| !t.trim().is_empty()) {
            None if system.is_round_robin() => Tiebreak::ROUND_ROBIN.to_vec(),
            None => Tiebreak::FEDERATION.to_vec(),
            Some(list) => list
                .split(',')
                .map(|w| {
                    serde_json::from_value::<Tiebreak>(json!(w.trim())).map_err(|_| {
                        ApiError::BadRequest(format!(
                            "tiebreaks: '{}' is not buchholzCut1, buchholz, sonnebornBerger, \
                             wins, directEncounter or koya",
                            w.trim()
                        ))
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let allow_bots = bots_of(self.conditions.as_ref());
        let entry = entry_of(self.conditions);
        Ok(NewSwiss {
            settings: SwissSettings {
                // lichess names a tournament left without one.
                name: match self.name.as_deref().map(str::trim) {
                    Some(n) if !n.is_empty() => n.to_string(),
                    _ => match system {
                        System::Swiss => format!("Swiss {control}"),
                        System::RoundRobin => format!("Round robin {control}"),
                        System::DoubleRoundRobin => format!("Double round robin {control}"),
                    },
                },
                rounds: self.nb_rounds.unwrap_or(7),
                initial_ms,
                increment_ms,
                // Rated unless asked otherwise, but games under other rules are casual.
                rated: self.rated.unwrap_or(rules == damasi::RuleSet::default()),
                starts_ms: self
                    .starts_at
                    .map(|at| check_start("startsAt", at))
                    .transpose()?,
                round_pause_ms: self
                    .round_interval
                    .unwrap_or(DEFAULT_PAUSE_S)
                    .saturating_mul(1000),
                entry,
                tiebreaks,
                rules,
                system,
                allow_bots,
            },
            password: self.password,
        })
    }
}

async fn create(
    State(state): State<AppState>,
    Me(p): Me,
    ApiJson(req): ApiJson<SwissRequest>,
) -> Result<Json<Value>, HttpError> {
    Ok(Json(state.tournaments.create(&p, req.settings()?).await?))
}

async fn create_for_team(
    state: State<AppState>,
    _team: ApiPath<String>,
    me: Me,
    req: ApiJson<SwissRequest>,
) -> Result<Json<Value>, HttpError> {
    create(state, me, req).await
}

/// `/api/swiss/{id}`, or its report file when the id ends in `.trf`.
async fn show(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, HttpError> {
    if let Some(id) = id.strip_suffix(".trf") {
        return trf(&state, id).await;
    }
    Ok(Json(state.tournaments.show(&id).await?).into_response())
}

async fn trf(state: &AppState, id: &str) -> Result<Response, HttpError> {
    let text = state.tournaments.trf(id).await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"damasi-swiss-{id}.trf\""),
            ),
        ],
        text,
    )
        .into_response())
}

async fn page_or_trf(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, HttpError> {
    match id.strip_suffix(".trf") {
        Some(id) => trf(&state, id).await,
        None => Ok(crate::assets::swiss_page().await),
    }
}

#[derive(Deserialize, Default)]
struct JoinRequest {
    #[serde(default)]
    password: Option<String>,
}

#[derive(Deserialize, Default)]
struct ScheduleRequest {
    #[serde(default)]
    date: Option<i64>,
}

async fn schedule(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Me(p): Me,
    ApiJson(req): ApiJson<ScheduleRequest>,
) -> Result<Json<Value>, HttpError> {
    let at = req
        .date
        .ok_or_else(|| ApiError::BadRequest("give the date: Unix time in ms".into()))?;
    let at = check_start("date", at)?;
    state.tournaments.schedule(&id, &p, at).await?;
    Ok(Json(json!({"ok": true})))
}

#[derive(Deserialize, Default)]
struct ResultsQuery {
    #[serde(default)]
    nb: Option<usize>,
}

async fn games(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, HttpError> {
    let s = state.tournaments.get(&id).await?;
    let origin = crate::online::http::origin(&headers);
    let mut text = String::new();
    let event_url = format!("{origin}/swiss/{id}");
    for round in &s.rounds {
        for (i, board) in round.boards.iter().enumerate() {
            let Some(game) = &board.game else { continue };
            let site = format!("{origin}/online/{game}");
            let pdn = state
                .online
                .pdn(game, damasi::Notation::Landing, &site)
                .await?;
            let pdn = in_event(
                &pdn,
                &s.settings.name,
                &event_url,
                &damasi_tournaments::pdn_round(round, i),
            );
            text.push_str(&pdn);
            if !text.ends_with("\n\n") {
                text.push('\n');
            }
        }
    }
    Ok(crate::games::pdn_file(
        &format!("damasi-swiss-{id}.pdn"),
        text,
    ))
}

/// Game `game`'s PDN (`pdn`, as the online service writes it) as one of its event's
/// ([`in_event`]) when it was played in a tournament, else as it is; `origin` is the site's
/// address (`https://host`) for `EventURL`.
pub(crate) async fn with_event(
    state: &AppState,
    game: &str,
    pdn: String,
    origin: &str,
) -> Result<String, HttpError> {
    let Some(event) = damasi_tournaments::event_of_game(state.online.db(), game).await? else {
        return Ok(pdn);
    };
    let page = if event.kind == "arena" {
        "tournament"
    } else {
        "swiss"
    };
    let url = format!("{origin}/{page}/{}", event.id);
    Ok(in_event(&pdn, &event.name, &url, &event.round))
}

/// A game's PDN as one of an event's: `Event` the event's name (not "damasi rated blitz
/// game"), `Round` as arbiters write it (`round.board`), and `EventURL` the event's page (a
/// link back from a file that travels alone).
fn in_event(pdn: &str, name: &str, url: &str, round: &str) -> String {
    let quoted = |v: &str| v.replace('\\', "\\\\").replace('"', "\\\"");
    let mut out = String::with_capacity(pdn.len() + 96);
    for line in pdn.split_inclusive('\n') {
        if line.starts_with("[Event ") {
            out.push_str(&format!("[Event \"{}\"]\n", quoted(name)));
            out.push_str(&format!("[EventURL \"{}\"]\n", quoted(url)));
        } else if line.starts_with("[Date ") {
            out.push_str(line);
            out.push_str(&format!("[Round \"{}\"]\n", quoted(round)));
        } else if !line.starts_with("[Round ") {
            out.push_str(line);
        }
    }
    out
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ArenaRequest {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    clock_time: Option<f64>,
    #[serde(default)]
    clock_increment: Option<i64>,
    #[serde(default)]
    minutes: Option<u32>,
    #[serde(default)]
    start_date: Option<i64>,
    #[serde(default)]
    wait_minutes: Option<i64>,
    #[serde(default)]
    rated: Option<bool>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    conditions: Option<Conditions>,
    /// lichess's `variant`: `standard` or a rule-set name (see `damasi_online::variant`).
    #[serde(default)]
    variant: Option<String>,
}

async fn arena_create(
    State(state): State<AppState>,
    Me(p): Me,
    ApiJson(req): ApiJson<ArenaRequest>,
) -> Result<Json<Value>, HttpError> {
    let rules = damasi_online::variant::parse("variant", req.variant.as_deref())?;
    let clock_time = req
        .clock_time
        .filter(|c| c.is_finite() && *c >= 0.0)
        .ok_or_else(|| {
            ApiError::BadRequest("give clockTime (minutes) and clockIncrement (seconds)".into())
        })?;
    let increment = req.clock_increment.unwrap_or(0);
    let minutes = req
        .minutes
        .ok_or_else(|| ApiError::BadRequest("give minutes: how long the arena lasts".into()))?;
    let starts_ms = match req.start_date {
        Some(at) => Some(check_start("startDate", at)?),
        None => req
            .wait_minutes
            .map(|w| damasi_online::now_ms() + w.clamp(0, 24 * 60) * 60_000),
    };
    let allow_bots = bots_of(req.conditions.as_ref());
    let entry = entry_of(req.conditions);
    let settings = damasi_tournaments::arena::ArenaSettings {
        name: match req.name.as_deref().map(str::trim) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => format!("Arena {clock_time}+{increment}"),
        },
        minutes,
        initial_ms: (clock_time * 60_000.0).round() as i64,
        increment_ms: increment.saturating_mul(1000),
        // Rated unless asked otherwise, but games under other rules are casual.
        rated: req.rated.unwrap_or(rules == damasi::RuleSet::default()),
        starts_ms,
        entry,
        rules,
        allow_bots,
    };
    let new = damasi_tournaments::NewArena {
        settings,
        password: req.password,
    };
    Ok(Json(state.tournaments.create_arena(&p, new).await?))
}

async fn arena_list(State(state): State<AppState>) -> Result<Json<Value>, HttpError> {
    let rows = state
        .online
        .db()
        .tournaments(TournamentFilter::All, 100)
        .await?;
    let mut lists = json!({"created": [], "started": [], "finished": []});
    for r in rows.into_iter().filter(|r| r.kind == "arena") {
        let Ok(a) = serde_json::from_str::<damasi_tournaments::arena::Arena>(&r.data) else {
            continue;
        };
        let mut v = damasi_tournaments::arena_view(&a);
        if let Some(o) = v.as_object_mut() {
            o.remove("standing");
            o.remove("ongoing");
        }
        if let Some(list) = lists[r.status.as_str()].as_array_mut() {
            list.push(v);
        }
    }
    Ok(Json(lists))
}

async fn arena_show(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, HttpError> {
    Ok(Json(state.tournaments.show_arena(&id).await?))
}

/// Joins; wrong passwords are limited per account and tournament, and per address (429).
async fn join<const IS_ARENA: bool>(
    State(state): State<AppState>,
    client: Client,
    ApiPath(id): ApiPath<String>,
    Me(p): Me,
    OptionalJson(req): OptionalJson<JoinRequest>,
) -> Result<Json<Value>, HttpError> {
    let (t, password, from) = (&state.tournaments, req.password.as_deref(), client.address);
    if IS_ARENA {
        t.join_arena_from(&id, &p, password, from).await?;
    } else {
        t.join_from(&id, &p, password, from).await?;
    }
    Ok(Json(json!({"ok": true})))
}

/// Withdraws from a Swiss; pauses in an arena (before its start: leaves it).
async fn withdraw<const IS_ARENA: bool>(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    if IS_ARENA {
        state.tournaments.pause_arena(&id, &p).await?;
    } else {
        state.tournaments.withdraw(&id, &p).await?;
    }
    Ok(Json(json!({"ok": true})))
}

/// The organiser: starts an arena; starts a Swiss or pairs its next round now. A Swiss is
/// answered as soon as its round is being paired (`"state": "pairing"`, its games follow;
/// the pairing of a large round runs on a blocking thread), else with its status.
async fn start<const IS_ARENA: bool>(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    if IS_ARENA {
        state.tournaments.start_arena(&id, &p).await?;
        return Ok(Json(json!({"ok": true})));
    }
    let state = match state.tournaments.begin_next_round(&id, &p).await? {
        damasi_tournaments::Begun::Pairing => "pairing",
        damasi_tournaments::Begun::Done(status) => status.as_str(),
    };
    Ok(Json(json!({"ok": true, "state": state})))
}

async fn terminate<const IS_ARENA: bool>(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    Me(p): Me,
) -> Result<Json<Value>, HttpError> {
    if IS_ARENA {
        state.tournaments.close_arena(&id, &p).await?;
    } else {
        state.tournaments.close(&id, &p).await?;
    }
    Ok(Json(json!({"ok": true})))
}

/// The standings as NDJSON, one player a line (`?nb=` the first N).
async fn results<const IS_ARENA: bool>(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
    ApiQuery(q): ApiQuery<ResultsQuery>,
) -> Result<Response, HttpError> {
    let lines = if IS_ARENA {
        damasi_tournaments::arena_results(&state.tournaments.get_arena(&id).await?)
    } else {
        damasi_tournaments::results(&state.tournaments.get(&id).await?)
    };
    let mut body = String::new();
    for line in lines.iter().take(q.nb.unwrap_or(usize::MAX)) {
        body.push_str(&line.to_string());
        body.push('\n');
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response())
}

async fn socket<const IS_ARENA: bool>(
    State(state): State<AppState>,
    client: Client,
    ApiPath(id): ApiPath<String>,
    ws: WebSocketUpgrade,
) -> Result<Response, HttpError> {
    let permit = state
        .streams
        .open(client.address, crate::streams::Viewer::Spectator)?;
    let (first, updates) = if IS_ARENA {
        state.tournaments.watch_arena(&id).await?
    } else {
        state.tournaments.watch(&id).await?
    };
    let tournaments = state.tournaments.clone();
    Ok(ws
        .max_message_size(1024)
        .read_buffer_size(crate::online::socket::READ_BUFFER)
        .on_upgrade(move |socket| async move {
            live(socket, tournaments, id, first, updates, permit, IS_ARENA).await;
        }))
}

/// How often the socket pings (and drops a client that stopped answering).
const PING_EVERY: Duration = Duration::from_secs(10);

async fn live(
    mut socket: WebSocket,
    tournaments: damasi_tournaments::Tournaments,
    id: String,
    first: Value,
    mut updates: tokio::sync::broadcast::Receiver<std::sync::Arc<Value>>,
    _permit: StreamPermit,
    arena: bool,
) {
    use tokio::sync::broadcast::error::RecvError;
    let send = |v: &Value| Message::Text(v.to_string().into());
    if socket.send(send(&first)).await.is_err() {
        return;
    }
    let mut ping = tokio::time::interval(PING_EVERY);
    let mut waiting_pong = false;
    loop {
        tokio::select! {
            update = updates.recv() => {
                let v = match update {
                    Ok(v) => v,
                    // Too slow: the whole view again.
                    Err(RecvError::Lagged(_)) => match if arena {
                        tournaments.show_arena(&id).await
                    } else {
                        tournaments.show(&id).await
                    } {
                        Ok(v) => std::sync::Arc::new(v),
                        Err(_) => return,
                    },
                    Err(RecvError::Closed) => return,
                };
                let sent = tokio::time::timeout(PING_EVERY, socket.send(send(&v))).await;
                if !matches!(sent, Ok(Ok(()))) {
                    return;
                }
            }
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Pong(_))) => waiting_pong = false,
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            },
            _ = ping.tick() => {
                if waiting_pong {
                    return;
                }
                waiting_pong = true;
                if socket.send(Message::Ping(Vec::new().into())).await.is_err() {
                    return;
                }
            }
        }
    }
}
