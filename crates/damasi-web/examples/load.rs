//! Load test of online play: a real server on loopback (SQLite in a temporary directory), N
//! players paired into N/2 rated games, each player a WebSocket client that plays random legal
//! moves (and now and then an illegal one, which must be refused). A tenth of the players drop
//! their connection mid-game and come back. At the end every game is checked from the database:
//! finished exactly once, every stored move legal when replayed by the rules library, and each
//! player's rating counted exactly one game. Prints the move round trip (send to the server's
//! new state) percentiles.
//!
//! ```text
//! cargo run --release -p damasi-web --example load -- 500
//! ```
//!
//! `--timeline` also prints the round trips by when their move was sent, half a second at a
//! time, to place a stall in the run.
//!
//! By default every player moves the moment its turn comes, so the server is saturated: each
//! game always has a move in flight, and a round trip is the players' number over the moves a
//! second the machine carries (docs/performance.md). `--think MS` has each player think
//! before each move, a random time averaging `MS` (0 to twice it), as people do: the same
//! crowd then asks for a set rate of moves, and the round trips say how fast each is served.
//!
//! Against servers already running on one PostgreSQL database (e.g. several `damasi serve
//! --database URL --pubsub redis://...` processes): the accounts and games are made in the
//! database, and each game's White plays on the first server, Black on the next one (round
//! robin), so with two servers every game has a player on each:
//!
//! ```text
//! cargo run --release -p damasi-web --example load -- 200 --postgres URL \
//!     --servers 127.0.0.1:8081,127.0.0.1:8082
//! ```

use std::borrow::Cow;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use damasi::{Game, Notation, Position};
use damasi_online::accounts::Player;
use damasi_online::db::OnlineDb;
use damasi_online::NewGame;
use damasi_web::AppState;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

/// The allocator of the `damasi` binary, so that the server here runs as it does there.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// At this ply both players offer a draw, so random games stay short.
const DRAW_AT_PLY: u64 = 160;

struct Tally {
    /// When the clients started: round trips are placed in time from it (`--timeline`).
    began: Instant,
    /// Each move's send time after `began`, and its round trip.
    round_trips: Mutex<Vec<(Duration, Duration)>>,
    illegal_sent: AtomicU64,
    illegal_refused: AtomicU64,
    reconnects: AtomicU64,
    rate_limited: AtomicU64,
}

/// A small deterministic random number generator per client (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// What a client reads of a server message: a `gameState`'s fields at the top, a
/// `gameFull`'s inside `state`, an error's `code`. The rest (the legal moves' routes, the
/// clocks, the moves so far) is skipped unparsed: a browser's `JSON.parse` is not the server's
/// cost either, and building a map of every field of every message was a sixth of the
/// machine's time at 10,000 players (docs/performance.md, step 4).
#[derive(serde::Deserialize)]
struct Seen<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    code: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    state: Option<Box<Seen<'a>>>,
    #[serde(default)]
    ply: u64,
    #[serde(borrow, default)]
    status: Cow<'a, str>,
    #[serde(borrow, default)]
    turn: Cow<'a, str>,
    #[serde(borrow, default)]
    fen: Cow<'a, str>,
}

/// One simulated player: where and as whom it plays, and how.
struct SimulatedPlayer {
    addr: SocketAddr,
    token: String,
    /// Its game.
    id: String,
    color: &'static str,
    /// Its random moves' seed.
    seed: u64,
    /// After this many moves it disconnects once and comes back.
    drop_after: Option<u32>,
    /// Its mean thinking time a move (`--think`).
    think: Duration,
}

/// Plays `player`'s side of its game until the game is over.
async fn client(player: SimulatedPlayer, tally: Arc<Tally>) -> Result<(), String> {
    let SimulatedPlayer {
        addr,
        token,
        id,
        color,
        seed,
        drop_after,
        think,
    } = player;
    let mut rng = Rng(seed | 1);
    let mut moves_made = 0u32;
    let mut dropped = false;
    'connect: loop {
        let mut req = format!("ws://{addr}/api/online/games/{id}/socket")
            .into_client_request()
            .map_err(|e| e.to_string())?;
        req.headers_mut().insert(
            "authorization",
            format!("Bearer {token}").parse().map_err(|_| "bad token")?,
        );
        // As a browser connects: no Nagle delay (Chromium and Firefox set TCP_NODELAY), and a
        // read buffer of the server's size rather than tungstenite's 128 KiB, which it zeroes
        // before every read; the clients share the server's cores here, and a real client's
        // costs are not the server's.
        let config =
            WebSocketConfig::default().read_buffer_size(damasi_web::online::socket::READ_BUFFER);
        let (mut ws, _) = tokio_tungstenite::connect_async_with_config(req, Some(config), true)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let mut pending: Option<(Instant, u64)> = None;
        let mut offered_draw = false;
        while let Some(msg) = ws.next().await {
            let text = match msg.map_err(|e| format!("socket: {e}"))? {
                Message::Text(t) => t,
                Message::Close(_) => break,
                _ => continue,
            };
            let v: Seen = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            let state = match &*v.kind {
                "gameFull" => *v.state.ok_or("gameFull without its state")?,
                "gameState" => v,
                "error" => {
                    match v.code.as_deref() {
                        Some("illegal-move") | Some("bad-request") => {
                            tally.illegal_refused.fetch_add(1, Ordering::Relaxed);
                        }
                        Some("rate-limited") => {
                            tally.rate_limited.fetch_add(1, Ordering::Relaxed);
                            tokio::time::sleep(Duration::from_millis(200)).await;
                            // Ask for the state again by reconnecting.
                            continue 'connect;
                        }
                        _ => {}
                    }
                    continue;
                }
                _ => continue,
            };
            let ply = state.ply;
            if let Some((sent, at_ply)) = pending {
                if ply > at_ply {
                    let sent_at = sent.duration_since(tally.began);
                    tally
                        .round_trips
                        .lock()
                        .unwrap()
                        .push((sent_at, sent.elapsed()));
                    pending = None;
                }
            }
            if state.status != "started" {
                if state.status == "created" {
                    continue;
                }
                return Ok(());
            }
            if ply >= DRAW_AT_PLY && !offered_draw {
                offered_draw = true;
                let m = json!({"t": "draw", "yes": true}).to_string();
                ws.send(Message::Text(m.into()))
                    .await
                    .map_err(|e| e.to_string())?;
            }
            if state.turn != color || pending.is_some() {
                continue;
            }
            if let (Some(n), false) = (drop_after, dropped) {
                if moves_made >= n {
                    dropped = true;
                    tally.reconnects.fetch_add(1, Ordering::Relaxed);
                    let _ = ws.close(None).await;
                    tokio::time::sleep(Duration::from_millis(300 + rng.below(1000) as u64)).await;
                    continue 'connect;
                }
            }
            if !think.is_zero() {
                let ms = rng.below(2 * think.as_millis() as usize + 1);
                tokio::time::sleep(Duration::from_millis(ms as u64)).await;
            }
            let pos = Position::from_fen(&state.fen).map_err(|e| format!("server FEN: {e}"))?;
            let legal = pos.legal_moves();
            // Now and then an illegal move first: the server must refuse it.
            if rng.below(50) == 0 {
                tally.illegal_sent.fetch_add(1, Ordering::Relaxed);
                let m = json!({"t": "move", "move": "a1-h8"}).to_string();
                ws.send(Message::Text(m.into()))
                    .await
                    .map_err(|e| e.to_string())?;
            }
            let m = legal.iter().nth(rng.below(legal.len())).copied();
            let Some(m) = m else { continue };
            let text = pos.write_move(&m, Notation::Landing);
            pending = Some((Instant::now(), ply));
            moves_made += 1;
            ws.send(Message::Text(
                json!({"t": "move", "move": text}).to_string().into(),
            ))
            .await
            .map_err(|e| e.to_string())?;
        }
        if !dropped {
            return Err(format!(
                "game {id}: the socket closed before the game ended"
            ));
        }
    }
}

/// The round trips by when their move was sent, half a second at a time (`--timeline`): a
/// stall shows as one window's p99 far above the others'.
fn print_timeline(timed: &[(Duration, Duration)]) {
    let window = Duration::from_millis(500);
    let mut windows: Vec<Vec<Duration>> = Vec::new();
    for &(sent_at, rt) in timed {
        let i = (sent_at.as_millis() / window.as_millis()) as usize;
        if windows.len() <= i {
            windows.resize(i + 1, Vec::new());
        }
        windows[i].push(rt);
    }
    for (i, w) in windows.iter_mut().enumerate() {
        w.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "load: sent {:5.1}-{:5.1} s: {:6} moves, p50 {:6.1} ms, p99 {:6.1} ms, max {:6.1} ms",
            (i as f64) * window.as_secs_f64(),
            (i as f64 + 1.0) * window.as_secs_f64(),
            w.len(),
            ms(percentile(w, 0.5)),
            ms(percentile(w, 0.99)),
            ms(w.last().copied().unwrap_or_default()),
        );
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let players: usize = args
        .first()
        .and_then(|a| a.parse().ok())
        .unwrap_or(500)
        .max(2)
        & !1;
    let servers: Vec<SocketAddr> = flag("--servers")
        .map(|list| {
            list.split(',')
                .map(|a| a.parse().expect("--servers HOST:PORT,HOST:PORT"))
                .collect()
        })
        .unwrap_or_default();
    let postgres = flag("--postgres");
    let think = Duration::from_millis(
        flag("--think")
            .map(|ms| {
                ms.parse()
                    .expect("--think MS: a whole number of milliseconds")
            })
            .unwrap_or(0),
    );
    assert!(
        servers.is_empty() || postgres.is_some(),
        "--servers needs --postgres URL: the servers' database"
    );
    let dir = std::env::temp_dir().join(format!("damasi-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let state = match &postgres {
        Some(url) => {
            let db = OnlineDb::connect(url).await.expect("PostgreSQL");
            AppState::open_with(&dir, db).expect("open the data directory")
        }
        None => AppState::open(&dir).expect("open the data directory"),
    };
    // Every simulated player connects from this machine's one address: the per-address and
    // total caps on long-lived connections are for a real crowd, which comes from many.
    let state = state.with_stream_limits(damasi_web::StreamLimits {
        players_per_address: 2 * players + 16,
        players: 2 * players + 64,
        spectators_per_address: 2 * players + 16,
        spectators: 2 * players + 64,
        ..Default::default()
    });
    let online = state.online.clone();
    let db: OnlineDb = online.db().clone();
    // Names of this run, so a database used before does not get in the way.
    let run = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() % 100_000);
    // Accounts and games are made directly; everything after goes through the sockets.
    let mut seats: Vec<(String, String, &'static str)> = Vec::new();
    let mut ids = Vec::new();
    let mut people: Vec<Player> = Vec::new();
    for i in 0..players {
        let p = online
            .accounts()
            .add_bot(&format!("load{run}x{i}"), 0)
            .await
            .expect("account");
        people.push(p);
    }
    let game = NewGame {
        initial_ms: 300_000,
        increment_ms: 3_000,
        rated: true,
        chat: false,
        rules: damasi_online::variant::FEDERATION,
    };
    for pair in people.chunks(2) {
        let t = online
            .create_paired(&pair[0], &pair[1], game)
            .await
            .expect("game");
        for (p, color) in [(&pair[0], "white"), (&pair[1], "black")] {
            let token = online
                .accounts()
                .token_for(&p.name, 0)
                .await
                .expect("token");
            seats.push((t.id.clone(), token, color));
        }
        ids.push(t.id.clone());
    }
    let (server, addrs) = if servers.is_empty() {
        let (tx, rx) = tokio::sync::oneshot::channel();
        // One address for every simulated player: its cap on connections is theirs together.
        let options = damasi_web::ServeOptions {
            connections_per_address: 2 * players + 16,
            ..Default::default()
        };
        let server = tokio::spawn(damasi_web::serve_with(
            state,
            SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            options,
            move |addr| {
                let _ = tx.send(addr);
            },
        ));
        (Some(server), vec![rx.await.expect("the server starts")])
    } else {
        (None, servers)
    };
    println!(
        "load: {players} players in {} games on {}",
        ids.len(),
        addrs
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(" and ")
    );
    let began = Instant::now();
    let tally = Arc::new(Tally {
        began,
        round_trips: Mutex::default(),
        illegal_sent: AtomicU64::default(),
        illegal_refused: AtomicU64::default(),
        reconnects: AtomicU64::default(),
        rate_limited: AtomicU64::default(),
    });
    let mut tasks = Vec::new();
    for (i, (id, token, color)) in seats.into_iter().enumerate() {
        let drop_after = (i % 10 == 3).then_some(5 + (i as u32 % 7));
        let tally = tally.clone();
        let player = SimulatedPlayer {
            addr: addrs[i % addrs.len()],
            token,
            id,
            color,
            seed: 0x9E37_79B9_7F4A_7C15 ^ i as u64,
            drop_after,
            think,
        };
        tasks.push(tokio::spawn(client(player, tally)));
    }
    let mut failures = 0;
    for t in tasks {
        match t.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                failures += 1;
                eprintln!("load: client failed: {e}");
            }
            Err(e) => {
                failures += 1;
                eprintln!("load: client panicked: {e}");
            }
        }
    }
    let wall = began.elapsed();
    // Check every game from the database.
    let mut unfinished = 0;
    let mut illegal_stored = 0;
    let mut plies = 0usize;
    for id in &ids {
        let (row, moves) = db
            .game(id)
            .await
            .expect("read")
            .expect("the game is stored");
        if row.status != "over" || row.outcome.is_none() {
            unfinished += 1;
        }
        let mut g = Game::new();
        for (token, _) in &moves {
            let mut parts = token.split('.');
            let (from, to, cap) = (parts.next(), parts.next(), parts.next());
            let found = g.legal_moves().iter().copied().find(|m| {
                Some(m.from().to_string().as_str()) == from
                    && Some(m.to().to_string().as_str()) == to
                    && Some(format!("{:x}", m.captured_bits()).as_str()) == cap
            });
            match found {
                Some(m) if g.play(&m).is_ok() => {}
                _ => {
                    illegal_stored += 1;
                    break;
                }
            }
        }
        plies += moves.len();
    }
    // Each player's rating counts their game once, unless it was aborted (no one moved in
    // time), which counts for no one.
    let speed = damasi_online::rating::Speed::of(game.initial_ms, game.increment_ms);
    let mut wrong_counts = 0;
    for (pair, id) in people.chunks(2).zip(&ids) {
        let (row, _) = db.game(id).await.expect("read").expect("stored");
        let expected = if row.outcome.as_deref() == Some("aborted") {
            0
        } else {
            1
        };
        for p in pair {
            let games = db
                .rating(p.id, speed.name())
                .await
                .expect("rating")
                .map_or(0, |r| r.games);
            if games != expected {
                wrong_counts += 1;
            }
        }
    }
    let timed = tally.round_trips.lock().unwrap().clone();
    if args.iter().any(|a| a == "--timeline") {
        print_timeline(&timed);
    }
    let mut rt: Vec<Duration> = timed.iter().map(|t| t.1).collect();
    rt.sort();
    println!(
        "load: {} games, {plies} moves in {:.1} s; {failures} client failures; {unfinished} unfinished; {illegal_stored} games with an illegal stored move; {wrong_counts} players whose rating did not count exactly one game",
        ids.len(),
        wall.as_secs_f64()
    );
    println!(
        "load: illegal moves sent: {}, refused: {}; reconnections: {}; rate-limited: {}",
        tally.illegal_sent.load(Ordering::Relaxed),
        tally.illegal_refused.load(Ordering::Relaxed),
        tally.reconnects.load(Ordering::Relaxed),
        tally.rate_limited.load(Ordering::Relaxed),
    );
    println!(
        "load: move round trip over {} moves: p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        rt.len(),
        percentile(&rt, 0.5).as_secs_f64() * 1000.0,
        percentile(&rt, 0.9).as_secs_f64() * 1000.0,
        percentile(&rt, 0.99).as_secs_f64() * 1000.0,
        rt.last().copied().unwrap_or_default().as_secs_f64() * 1000.0,
    );
    if let Some(server) = server {
        server.abort();
    }
    let _ = std::fs::remove_dir_all(&dir);
    let ok = failures == 0
        && unfinished == 0
        && illegal_stored == 0
        && wrong_counts == 0
        && tally.illegal_sent.load(Ordering::Relaxed)
            == tally.illegal_refused.load(Ordering::Relaxed);
    if !ok {
        eprintln!("load: FAILED");
        std::process::exit(1);
    }
    println!("load: ok");
}
