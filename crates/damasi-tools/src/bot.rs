//! `damasi bot`: connects a Hub engine to a damasi server as a player. By default it plays as a
//! BOT account through lichess's Bot API (it upgrades its account at start, as lichess-bot
//! does): it listens to its account's event stream, accepts the challenges sent to it, and
//! for every game that starts it runs the engine, follows the game's stream and sends the
//! engine's move whenever it is its turn. It can also challenge a player by name after each
//! game. As a person's account through the Board API (`--board`) it can also open a seek in
//! the lobby or join a quick-pairing pool, which are for people.
//!
//! ```text
//! damasi bot --engine "damasi hub --level 6" --server http://127.0.0.1:8080 --token T
//! damasi bot --board --server http://127.0.0.1:8080 --token T --pool 3+2
//! ```

use std::collections::HashSet;
use std::io::BufReader;
use std::sync::Mutex;
use std::time::Duration;

use damasi::hub::parse_hub_move;
use damasi::{Color, Move, Notation, Position, RuleSet};
use damasi_engine::line_reader::{read_line, LineRead, MAX_LINE};
use serde_json::{json, Value};

use crate::hub_client::HubProcess;
use crate::match_runner::{EngineSpec, MoveLimit};

/// Tries at sending one move when the server is busy or limits the rate.
const MOVE_ATTEMPTS: u32 = 5;

/// Pause before the next try (times the attempt number).
const MOVE_RETRY_PAUSE: Duration = Duration::from_millis(400);

/// Challenges of `--challenge` declined in a row before the bot gives up.
const MAX_DECLINES: u32 = 30;

/// How the bot finds games, besides games others start with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seeking {
    /// Waits for games started by others (a challenge it was given, a seek it did not open).
    Wait,
    /// Opens a seek in the lobby with this control (minutes, increment seconds), again after
    /// each game.
    Seek(i64, i64),
    /// Joins this quick-pairing pool, again after each game.
    Pool(i64, i64),
    /// Challenges this player with this control (minutes, increment seconds), again after
    /// each game.
    Challenge(String, i64, i64),
}

/// Which of lichess's APIs the bot plays through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BotApi {
    /// The Bot API, as a BOT account (upgraded at start if it is not one yet): it accepts
    /// the challenges sent to it and stays out of the lobby and the pools.
    Bot,
    /// The Board API, as a person's account: it may seek and join pools.
    Board,
}

impl BotApi {
    /// Where a game's stream and actions are (`/api/bot/game` or `/api/board/game`).
    fn game_path(self) -> &'static str {
        match self {
            BotApi::Bot => "/api/bot/game",
            BotApi::Board => "/api/board/game",
        }
    }
}

/// Everything the bot needs.
#[derive(Clone, Debug)]
pub struct BotConfig {
    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    pub server: String,
    /// The account's API token.
    pub token: String,
    /// The engine to run (one process per game).
    pub engine: EngineSpec,
    /// The API it plays through.
    pub api: BotApi,
    /// How many games it plays at once (challenges beyond are declined with `later`).
    pub concurrency: usize,
    /// How it looks for games.
    pub seeking: Seeking,
    /// Whether its seeks are rated.
    pub rated: bool,
    /// Open challenges (game ids) to take a seat in at start.
    pub accept: Vec<String>,
    /// Swiss tournaments (ids) to join at start; their games come as any game does.
    pub tournaments: Vec<String>,
    /// Stop after this many finished games.
    pub games: Option<u64>,
    /// Think this long per move instead of following the clock.
    pub move_time: Option<Duration>,
}

/// Why the bot stopped.
#[derive(Debug)]
pub struct BotError(pub String);

impl std::fmt::Display for BotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BotError {}

/// A client of one server with one token.
#[derive(Clone)]
struct Client {
    base: String,
    auth: String,
    agent: ureq::Agent,
}

/// The message of an error answer (`{"error": ...}`), or the status.
fn describe(e: ureq::Error) -> String {
    match e {
        ureq::Error::StatusCode(code) => format!("the server answered {code}"),
        other => other.to_string(),
    }
}

impl Client {
    fn new(base: &str, token: &str) -> Client {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(10)))
            .build()
            .new_agent();
        Client {
            base: base.trim_end_matches('/').to_string(),
            auth: format!("Bearer {token}"),
            agent,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A JSON answer; an error answer becomes its `error` message.
    fn answer(res: ureq::http::Response<ureq::Body>) -> Result<Value, String> {
        let status = res.status();
        let body: Value = res
            .into_body()
            .with_config()
            .limit(1 << 20)
            .read_json()
            .unwrap_or(Value::Null);
        if status.is_success() {
            Ok(body)
        } else {
            Err(format!(
                "{} ({})",
                body["error"].as_str().unwrap_or("error"),
                status.as_u16()
            ))
        }
    }

    fn get(&self, path: &str) -> Result<Value, String> {
        let res = self
            .agent
            .get(&self.url(path))
            .header("Authorization", &self.auth)
            .call()
            .map_err(describe)?;
        Client::answer(res)
    }

    fn post(&self, path: &str, body: Value) -> Result<Value, String> {
        self.post_status(path, body).map_err(|(_, e)| e)
    }

    /// [`Client::post`], with the HTTP status of a failure (0 when no answer came).
    fn post_status(&self, path: &str, body: Value) -> Result<Value, (u16, String)> {
        let res = self
            .agent
            .post(&self.url(path))
            .header("Authorization", &self.auth)
            .send_json(body)
            .map_err(|e| (0, describe(e)))?;
        let status = res.status().as_u16();
        Client::answer(res).map_err(|e| (status, e))
    }

    /// Calls `each` with every JSON line of an NDJSON stream until it returns false or the
    /// stream ends.
    fn stream(&self, path: &str, mut each: impl FnMut(Value) -> bool) -> Result<(), String> {
        let res = self
            .agent
            .get(&self.url(path))
            .header("Authorization", &self.auth)
            .call()
            .map_err(describe)?;
        if !res.status().is_success() {
            return Client::answer(res).map(|_| ());
        }
        let reader = res.into_body().into_reader();
        let mut reader = BufReader::new(reader);
        let mut buf = Vec::new();
        loop {
            match read_line(&mut reader, &mut buf, MAX_LINE) {
                Ok(LineRead::Line) => {}
                Ok(_) | Err(_) => return Ok(()),
            }
            let text = String::from_utf8_lossy(&buf);
            let text = text.trim();
            if text.is_empty() {
                continue; // keep-alive
            }
            let Ok(v) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            if !each(v) {
                return Ok(());
            }
        }
    }
}

/// Percent-encodes the few characters of a move that a URL path cannot carry as they are.
fn path_segment(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '.' | '_' | '~' | '=' => c.to_string(),
            other => {
                let mut b = [0u8; 4];
                other
                    .encode_utf8(&mut b)
                    .bytes()
                    .map(|x| format!("%{x:02X}"))
                    .collect()
            }
        })
        .collect()
}

/// Replays a space-separated list of moves in landing notation from the start.
fn replay(moves: &str) -> Result<(Position, Vec<Move>), String> {
    let mut pos = Position::start();
    let mut played = Vec::new();
    for text in moves.split_whitespace() {
        let m = pos
            .parse_move(text)
            .map_err(|e| format!("the server's move '{text}': {e}"))?;
        played.push(m);
        pos = pos.play(&m);
    }
    Ok((pos, played))
}

/// Plays game `id` as `me` until it is over.
fn play_game(
    client: &Client,
    config: &BotConfig,
    id: &str,
    me: i64,
    log: &(dyn Fn(&str) + Sync),
) -> Result<(), String> {
    // The engine starts with the game's rules, which its `gameFull` says.
    let mut engine: Option<HubProcess> = None;
    let mut my_color: Option<Color> = None;
    let mut answered: Option<u64> = None;
    let mut result: Result<(), String> = Ok(());
    let mut increment = Duration::ZERO;
    let games = config.api.game_path();
    client.stream(&format!("{games}/stream/{id}"), |v| {
        let state = match v["type"].as_str() {
            Some("gameFull") => {
                my_color = Color::BOTH
                    .into_iter()
                    .find(|c| v[c.name()]["id"].as_i64() == Some(me));
                increment = Duration::from_millis(v["clock"]["increment"].as_u64().unwrap_or(0));
                if engine.is_none() {
                    let rules = match v["variant"]["rules"].as_str() {
                        Some(name) => match RuleSet::from_name(name) {
                            Ok(r) => r,
                            Err(e) => {
                                result = Err(format!("the game's rules '{name}': {e}"));
                                return false;
                            }
                        },
                        None => RuleSet::default(),
                    };
                    match HubProcess::start(&config.engine, &rules) {
                        Ok(e) => engine = Some(e),
                        Err(e) => {
                            result = Err(format!("engine: {e}"));
                            return false;
                        }
                    }
                }
                v["state"].clone()
            }
            Some("gameState") => v,
            _ => return true,
        };
        let status = state["status"].as_str().unwrap_or("");
        if status != "started" && status != "created" {
            log(&format!(
                "game {id} is over: {}",
                state["description"].as_str().unwrap_or(status)
            ));
            return false;
        }
        let Some(color) = my_color else {
            return true;
        };
        let ply = state["ply"].as_u64().unwrap_or(0);
        let Some(turn) = state["turn"].as_str().and_then(Color::from_name) else {
            return true;
        };
        if status != "started" || turn != color || answered == Some(ply) {
            return true;
        }
        answered = Some(ply);
        let moves = state["moves"].as_str().unwrap_or("");
        let (pos, played) = match replay(moves) {
            Ok(x) => x,
            Err(e) => {
                result = Err(e);
                return false;
            }
        };
        let left = Duration::from_millis(
            state[if color == Color::White {
                "wtime"
            } else {
                "btime"
            }]
            .as_u64()
            .unwrap_or(0),
        );
        let limit = move_limit(config.move_time, &state, left, increment);
        let Some(engine) = engine.as_mut() else {
            return true; // no gameFull yet
        };
        let think = engine.think(
            &Position::start(),
            &played,
            &limit.level_line(left),
            left + Duration::from_secs(5),
        );
        let text = match think {
            Ok((Some(text), _)) => text,
            Ok((None, _)) => return true,
            Err(e) => {
                result = Err(format!("engine: {e}"));
                return false;
            }
        };
        let m = match parse_hub_move(&pos, &text) {
            Ok(m) => m,
            Err(e) => {
                result = Err(format!("the engine's move '{text}': {e}"));
                return false;
            }
        };
        let landing = pos.write_move(&m, Notation::Landing);
        let path = format!("{games}/{id}/move/{}", path_segment(&landing));
        // A rate limit or a busy server is waited out; a refusal is told and the game goes on
        // (the server decides what happens next).
        for attempt in 1..=MOVE_ATTEMPTS {
            match client.post_status(&path, json!({})) {
                Ok(_) => break,
                Err((status, e)) if status == 429 || status >= 500 || status == 0 => {
                    if attempt == MOVE_ATTEMPTS {
                        log(&format!("game {id}: move {landing} not accepted: {e}"));
                    }
                    std::thread::sleep(MOVE_RETRY_PAUSE * attempt);
                }
                Err((_, e)) => {
                    log(&format!("game {id}: move {landing} refused: {e}"));
                    break;
                }
            }
        }
        true
    })?;
    if let Some(engine) = engine {
        engine.quit();
    }
    result
}

/// Asks for the next game as `seeking` says.
fn look_for_game(client: &Client, config: &BotConfig) -> Result<(), String> {
    match config.seeking {
        Seeking::Wait => Ok(()),
        Seeking::Seek(m, i) => client
            .post(
                "/api/lobby/seeks",
                json!({"minutes": m, "increment": i, "rated": config.rated}),
            )
            .map(|_| ()),
        Seeking::Pool(m, i) => client
            .post(&format!("/api/pool/{m}+{i}"), json!({}))
            .map(|_| ()),
        Seeking::Challenge(ref name, m, i) => client
            .post(
                &format!("/api/challenge/{}", path_segment(name)),
                json!({"clock": {"limit": m * 60, "increment": i}, "rated": config.rated}),
            )
            .map(|_| ()),
    }
}

/// Answers a `challenge` event sent to `me_lower` (the account's lowercased name): accepted
/// while fewer than `config.concurrency` games are being played, else declined with lichess's
/// reason `later`. A challenge the bot sent itself is left alone.
fn answer_challenge(
    client: &Client,
    config: &BotConfig,
    event: &Value,
    me_lower: &str,
    busy: usize,
    log: &(dyn Fn(&str) + Sync),
) {
    let c = &event["challenge"];
    let (Some(id), Some(to)) = (c["id"].as_str(), c["destUser"]["id"].as_str()) else {
        return;
    };
    if to != me_lower || c["status"].as_str().is_some_and(|s| s != "created") {
        return;
    }
    let from = c["challenger"]["name"].as_str().unwrap_or("?");
    let answer = if busy < config.concurrency {
        client.post(
            &format!("/api/challenge/{}/accept", path_segment(id)),
            json!({}),
        )
    } else {
        client.post(
            &format!("/api/challenge/{}/decline", path_segment(id)),
            json!({"reason": "later"}),
        )
    };
    match answer {
        Ok(_) if busy < config.concurrency => log(&format!("accepted {from}'s challenge {id}")),
        Ok(_) => log(&format!("declined {from}'s challenge {id}: busy")),
        Err(e) => log(&format!("cannot answer {from}'s challenge {id}: {e}")),
    }
}

/// Runs the bot until its game limit is reached or its event stream ends. `log` gets one line
/// per event worth telling.
pub fn run_bot(config: &BotConfig, log: &(dyn Fn(&str) + Sync)) -> Result<(), BotError> {
    let client = Client::new(&config.server, &config.token);
    let me = client
        .get("/api/account")
        .map_err(|e| BotError(format!("cannot log in to {}: {e}", config.server)))?;
    let my_id = me["id"]
        .as_i64()
        .ok_or_else(|| BotError("the server did not say who the token belongs to".into()))?;
    let my_name = me["name"].as_str().unwrap_or("?").to_string();
    log(&format!("logged in to {} as {my_name}", config.server));
    if config.api == BotApi::Bot && me["title"] != "BOT" {
        client
            .post("/api/bot/account/upgrade", json!({}))
            .map_err(|e| {
                BotError(format!(
                    "cannot make {my_name} a BOT account: {e} (play as a person's account \
                     through the Board API with --board)"
                ))
            })?;
        log(&format!("{my_name} is a BOT account now"));
    }
    let me_lower = my_name.to_ascii_lowercase();
    for id in &config.accept {
        client
            .post(&format!("/api/challenge/{id}/accept"), json!({}))
            .map_err(|e| BotError(format!("cannot accept challenge {id}: {e}")))?;
    }
    for id in &config.tournaments {
        client
            .post(&format!("/api/swiss/{id}/join"), json!({}))
            .map_err(|e| BotError(format!("cannot join tournament {id}: {e}")))?;
        log(&format!("joined tournament {id}"));
    }
    look_for_game(&client, config).map_err(|e| BotError(format!("cannot look for a game: {e}")))?;
    // Shared with the game threads, which the scope joins before these go.
    let (finished, playing, failure, declines) = (
        &Mutex::new(0u64),
        &Mutex::new(HashSet::<String>::new()),
        &Mutex::new(None::<String>),
        &Mutex::new(0u32),
    );
    std::thread::scope(|scope| {
        let outcome = client.stream("/api/stream/event", |event| {
            // A challenge of ours declined (the other side busy finishing its last game, say)
            // is sent again a moment later, a bounded number of times in a row.
            if event["type"] == "challengeDeclined"
                && matches!(config.seeking, Seeking::Challenge(..))
                && event["challenge"]["challenger"]["id"].as_str() == Some(me_lower.as_str())
            {
                let mut n = declines.lock().unwrap_or_else(|p| p.into_inner());
                *n += 1;
                if *n > MAX_DECLINES {
                    *failure.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some(format!("{MAX_DECLINES} challenges in a row were declined"));
                    return false;
                }
                log("challenge declined; sending it again in a moment");
                let client = client.clone();
                scope.spawn(move || {
                    std::thread::sleep(Duration::from_secs(1));
                    if let Err(e) = look_for_game(&client, config) {
                        log(&format!("cannot challenge again: {e}"));
                    }
                });
                return true;
            }
            if event["type"] == "challenge" && config.api == BotApi::Bot {
                let busy = playing.lock().unwrap_or_else(|p| p.into_inner()).len();
                answer_challenge(&client, config, &event, &me_lower, busy, log);
                return true;
            }
            if event["type"] != "gameStart" {
                return true;
            }
            let Some(id) = event["game"]["id"].as_str().map(str::to_string) else {
                return true;
            };
            if !playing
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(id.clone())
            {
                return true;
            }
            *declines.lock().unwrap_or_else(|p| p.into_inner()) = 0;
            log(&format!("game {id} starts"));
            let client = client.clone();
            scope.spawn(move || {
                if let Err(e) = play_game(&client, config, &id, my_id, log) {
                    log(&format!("game {id}: {e}"));
                    *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                }
                playing
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id);
                let mut n = finished.lock().unwrap_or_else(|p| p.into_inner());
                *n += 1;
                let more = config.games.is_none_or(|g| *n < g);
                if more {
                    if let Err(e) = look_for_game(&client, config) {
                        log(&format!("cannot look for the next game: {e}"));
                    }
                }
            });
            // Games already started count towards the limit; stop listening at it.
            let started = playing.lock().unwrap_or_else(|p| p.into_inner()).len() as u64
                + *finished.lock().unwrap_or_else(|p| p.into_inner());
            config.games.is_none_or(|g| started < g)
        });
        outcome.map_err(|e| BotError(format!("event stream: {e}")))
    })?;
    if let Some(e) = failure.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(BotError(e));
    }
    Ok(())
}

/// How long the engine thinks in a correspondence game unless `--move-time` says: its clock
/// is the turn's days, and a share of days would be hours.
pub const CORRESPONDENCE_MOVE_TIME: Duration = Duration::from_secs(10);

/// How the engine is told to think for the move `state` (a `gameState`) asks: `move_time` if
/// given; in a correspondence game (`daysPerTurn` set) [`CORRESPONDENCE_MOVE_TIME`]; else the
/// clock, `left` with `increment`.
fn move_limit(
    move_time: Option<Duration>,
    state: &Value,
    left: Duration,
    increment: Duration,
) -> MoveLimit {
    match (move_time, state["daysPerTurn"].as_u64()) {
        (Some(t), _) => MoveLimit::MoveTime(t),
        (None, Some(_)) => MoveLimit::MoveTime(CORRESPONDENCE_MOVE_TIME),
        (None, None) => MoveLimit::Clock {
            time: left,
            inc: increment,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A correspondence game's clock is days: the engine thinks a fixed time, not a share of
    /// them; a live game follows its clock; `--move-time` wins over both.
    #[test]
    fn the_engine_thinks_by_the_clock_but_not_for_days() {
        let day = Duration::from_secs(86_400);
        let corr = json!({"type": "gameState", "wtime": 3 * 86_400_000u64, "daysPerTurn": 3});
        assert_eq!(
            move_limit(None, &corr, 3 * day, Duration::ZERO),
            MoveLimit::MoveTime(CORRESPONDENCE_MOVE_TIME)
        );
        let live = json!({"type": "gameState", "wtime": 180_000, "daysPerTurn": null});
        let (left, inc) = (Duration::from_secs(180), Duration::from_secs(2));
        assert_eq!(
            move_limit(None, &live, left, inc),
            MoveLimit::Clock { time: left, inc }
        );
        let fixed = Duration::from_millis(20);
        assert_eq!(
            move_limit(Some(fixed), &corr, 3 * day, Duration::ZERO),
            MoveLimit::MoveTime(fixed)
        );
    }

    #[test]
    fn moves_go_into_paths_safely() {
        assert_eq!(path_segment("c3-c4"), "c3-c4");
        assert_eq!(path_segment("b3xd3xd5=K"), "b3xd3xd5=K");
        assert_eq!(path_segment("a b/c"), "a%20b%2Fc");
    }

    #[test]
    fn the_servers_moves_replay_from_the_start() {
        let (pos, played) = replay("d3-d4 d6-d5 d4xd6xd8").unwrap();
        assert_eq!(played.len(), 3);
        assert_eq!(pos.side_to_move(), Color::Black);
        assert!(replay("d3-d5").is_err());
    }
}
