//! Several server processes behind one address (`damasi serve --database postgres://...
//! --pubsub redis://...`): two nodes sharing one PostgreSQL and one Redis server, each with its
//! own runtime, database connection and Redis connections, as separate processes would have.
//!
//! Two players, each connected to a different node, play a game found through a seek made on
//! one node and taken on the other; spectators on both nodes must see every move; then the
//! node owning the game dies (its runtime is dropped: no goodbye, its lease just runs out) and
//! the other takes the game over from the database with the clocks going on; a third node
//! comes up, a player moves over to it, and the game is played to its end.
//!
//! Runs when `DAMASI_TEST_POSTGRES` and `DAMASI_TEST_REDIS` name servers (`scripts/with-postgres
//! scripts/with-redis CMD` starts both; the test script does); `DAMASI_REQUIRE_REDIS=1` makes
//! their absence a failure.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use damasi::{Notation, Position};
use damasi_online::cluster::ClusterConfig;
use damasi_online::db::OnlineDb;
use damasi_online::{Online, OnlineConfig};
use damasi_web::AppState;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

const LEASE: Duration = Duration::from_secs(2);

/// The tests here run one at a time: each starts several server processes' worth of threads,
/// and two at once on a small machine make the forwarding time out.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

fn servers() -> Option<(String, String)> {
    let get = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (get("DAMASI_TEST_POSTGRES"), get("DAMASI_TEST_REDIS")) {
        (Some(pg), Some(redis)) => Some((pg, redis)),
        _ => {
            assert!(
                std::env::var("DAMASI_REQUIRE_REDIS").as_deref() != Ok("1"),
                "DAMASI_REQUIRE_REDIS=1 but DAMASI_TEST_POSTGRES or DAMASI_TEST_REDIS is not set \
                 (run under scripts/with-postgres scripts/with-redis)"
            );
            eprintln!("skipped: no DAMASI_TEST_POSTGRES and DAMASI_TEST_REDIS");
            None
        }
    }
}

/// One server process: its own runtime, dropped to kill it.
struct Node {
    runtime: Option<tokio::runtime::Runtime>,
    addr: SocketAddr,
}

impl Node {
    fn start(pg: &str, redis: &str) -> Node {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let addr = runtime.block_on(async {
            let db = OnlineDb::connect(pg).await.expect("PostgreSQL");
            let online = Online::clustered(
                db,
                OnlineConfig::default(),
                redis,
                ClusterConfig {
                    lease: LEASE,
                    renew_every: Duration::from_millis(400),
                    reply_timeout: Duration::from_millis(800),
                },
            )
            .await
            .expect("Redis");
            let state = AppState::in_memory().with_online(online);
            let (tx, rx) = tokio::sync::oneshot::channel();
            tokio::spawn(damasi_web::serve(
                state,
                SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
                move |a| {
                    let _ = tx.send(a);
                },
            ));
            rx.await.unwrap()
        });
        Node {
            runtime: Some(runtime),
            addr,
        }
    }

    /// Dies at once: every task stops, every connection drops, nothing is released.
    fn kill(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A minimal HTTP/1.1 request (the body is JSON); answers the status and the JSON body.
async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    cookie: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        req.push_str("Content-Type: application/json\r\n");
    }
    if !cookie.is_empty() {
        req.push_str(&format!("Cookie: {cookie}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut out))
        .await
        .expect("an answer in time")
        .unwrap();
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text[9..12].parse().unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .map(|c| c.split(';').next().unwrap_or("").to_string());
    let mut v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    if let (Some(c), Some(o)) = (cookie, v.as_object_mut()) {
        o.insert("_cookie".into(), json!(c));
    }
    (status, v)
}

/// Signs `name` up on `addr`; answers the session cookie.
async fn sign_up(addr: SocketAddr, name: &str) -> String {
    let (status, v) = http(
        addr,
        "POST",
        "/api/account/signup",
        "",
        Some(json!({"name": name, "password": "a good password"})),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    v["_cookie"].as_str().expect("a session cookie").to_string()
}

async fn socket(addr: SocketAddr, id: &str, cookie: &str) -> Ws {
    let mut req = format!("ws://{addr}/api/online/games/{id}/socket")
        .into_client_request()
        .unwrap();
    if !cookie.is_empty() {
        req.headers_mut().insert("cookie", cookie.parse().unwrap());
    }
    let (ws, _) = tokio_tungstenite::connect_async(req).await.expect("socket");
    ws
}

/// The next game state on `ws` (from `gameFull` or `gameState`), skipping other messages;
/// panics after 10 s.
async fn next_state(ws: &mut Ws, who: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let msg = tokio::time::timeout_at(deadline, ws.next())
            .await
            .unwrap_or_else(|_| panic!("{who}: no game state within 10 s"))
            .unwrap_or_else(|| panic!("{who}: the socket closed"))
            .unwrap_or_else(|e| panic!("{who}: {e}"));
        let Message::Text(text) = msg else { continue };
        let v: Value = serde_json::from_str(&text).unwrap();
        match v["type"].as_str() {
            Some("gameFull") => return v["state"].clone(),
            Some("gameState") => return v,
            Some("error") => panic!("{who}: refused: {v}"),
            _ => {}
        }
    }
}

/// Reads `ws` until a state with `ply` plies (and `status` if given); returns it.
async fn state_at(ws: &mut Ws, who: &str, ply: u64, status: Option<&str>) -> Value {
    loop {
        let s = next_state(ws, who).await;
        let p = s["ply"].as_u64().unwrap();
        assert!(p <= ply, "{who}: ply {p} beyond the expected {ply}: {s}");
        if p == ply && status.is_none_or(|st| s["status"] == st) {
            return s;
        }
    }
}

/// Sends a move for the side to move of `state` (the first legal one) over `ws`.
async fn move_from(ws: &mut Ws, state: &Value) -> String {
    let pos = Position::from_fen(state["fen"].as_str().unwrap()).unwrap();
    let m = *pos.legal_moves().iter().next().expect("a legal move");
    let text = pos.write_move(&m, Notation::Landing);
    ws.send(Message::Text(
        json!({"t": "move", "move": text}).to_string().into(),
    ))
    .await
    .unwrap();
    text
}

fn unique(base: &str) -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros()
        % 1_000_000_000;
    format!("{base}{t}")
}

/// Plays one ply: the mover sends the move, then every socket must see it.
async fn ply(mover: usize, sockets: &mut [(&str, Ws)], expected_ply: u64, last: &Value) -> Value {
    let name = sockets[mover].0.to_string();
    let text = move_from(&mut sockets[mover].1, last).await;
    let mut newest = Value::Null;
    for (name2, ws2) in sockets.iter_mut() {
        let s = state_at(ws2, name2, expected_ply, Some("started")).await;
        let moves = s["moves"].as_str().unwrap().to_string();
        assert!(
            moves.ends_with(&text),
            "{name2} sees '{moves}' after {name}'s {text}"
        );
        newest = s;
    }
    newest
}

#[test]
fn two_nodes_share_games_lobby_and_take_over_a_dead_owner() {
    let _serial = one_at_a_time();
    let Some((pg, redis)) = servers() else { return };
    let a = Node::start(&pg, &redis);
    let mut b = Node::start(&pg, &redis);
    let (a_addr, b_addr) = (a.addr, b.addr);
    let client = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (pg2, redis2) = (pg.clone(), redis.clone());
    client.block_on(async {
        let (an, bn) = (unique("ca"), unique("cb"));
        let alice = sign_up(a_addr, &an).await;
        let bob = sign_up(b_addr, &bn).await;
        // A session made on one node is good on the other.
        let (st, me) = http(b_addr, "GET", "/api/account", &alice, None).await;
        assert_eq!((st, me["name"].as_str()), (200, Some(an.as_str())));

        // Alice's event stream on A hears of the game Bob starts on B.
        let mut events = TcpStream::connect(a_addr).await.unwrap();
        events
            .write_all(
                format!(
                    "GET /api/stream/event HTTP/1.1\r\nHost: {a_addr}\r\nCookie: {alice}\r\n\r\n"
                )
                .as_bytes(),
            )
            .await
            .unwrap();

        // A seek made on A is listed on B and taken there.
        let (st, v) = http(
            a_addr,
            "POST",
            "/api/lobby/seeks",
            &alice,
            Some(json!({"minutes": 5, "increment": 3, "rated": true, "color": "white"})),
        )
        .await;
        assert_eq!(st, 200, "{v}");
        let seek = v["id"].as_u64().unwrap();
        let (_, lobby) = http(b_addr, "GET", "/api/lobby", "", None).await;
        assert!(
            lobby["seeks"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["id"] == seek && s["username"] == an.as_str()),
            "the seek made on A is not in B's lobby: {lobby}"
        );
        let (st, v) = http(
            b_addr,
            "POST",
            &format!("/api/lobby/seeks/{seek}/accept"),
            &bob,
            None,
        )
        .await;
        assert_eq!(st, 200, "{v}");
        let id = v["game"].as_str().unwrap().to_string();
        let (_, lobby) = http(a_addr, "GET", "/api/lobby", "", None).await;
        assert!(
            !lobby["seeks"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["id"] == seek),
            "a taken seek is still in A's lobby: {lobby}"
        );
        // The gameStart reached Alice's stream on the other node.
        let mut seen = Vec::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !String::from_utf8_lossy(&seen).contains(&format!("\"id\":\"{id}\"")) {
            let mut buf = [0u8; 4096];
            let n = tokio::time::timeout_at(deadline, events.read(&mut buf))
                .await
                .expect("gameStart on Alice's event stream on the other node")
                .unwrap();
            assert!(n > 0, "the event stream closed");
            seen.extend_from_slice(&buf[..n]);
        }
        assert!(String::from_utf8_lossy(&seen).contains("gameStart"));

        // Quick pairing: one waits in a pool on A, the other joins it on B.
        let (cn, dn) = (unique("cc"), unique("cd"));
        let carol = sign_up(a_addr, &cn).await;
        let dave = sign_up(b_addr, &dn).await;
        let (st, v) = http(a_addr, "POST", "/api/pool/5+3", &carol, None).await;
        assert_eq!((st, v["waiting"].as_bool()), (200, Some(true)), "{v}");
        let (_, lobby) = http(b_addr, "GET", "/api/lobby", "", None).await;
        let waiting = lobby["pools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == "5+3");
        assert!(
            waiting.is_some_and(|p| p["waiting"].as_u64() >= Some(1)),
            "{lobby}"
        );
        let (st, v) = http(b_addr, "POST", "/api/pool/5+3", &dave, None).await;
        assert_eq!(st, 200, "{v}");
        let pooled = v["game"]
            .as_str()
            .expect("paired with the player waiting on A")
            .to_string();
        let (st, full) = http(
            a_addr,
            "GET",
            &format!("/api/online/games/{pooled}"),
            &carol,
            None,
        )
        .await;
        assert_eq!(st, 200, "{full}");
        assert!(full["you"].is_string(), "{full}");
        // An action on the node that does not own the game is forwarded to the owner.
        let (st, v) = http(
            a_addr,
            "POST",
            &format!("/api/online/games/{pooled}/abort"),
            &carol,
            None,
        )
        .await;
        assert_eq!(st, 200, "{v}");
        let (_, full) = http(
            b_addr,
            "GET",
            &format!("/api/online/games/{pooled}"),
            "",
            None,
        )
        .await;
        assert_eq!(full["state"]["status"], "aborted", "{full}");

        // Alice (White) plays on A, Bob on B (which made the game, so owns it); a spectator
        // on each.
        let mut sockets = vec![
            ("alice@A", socket(a_addr, &id, &alice).await),
            ("bob@B", socket(b_addr, &id, &bob).await),
            ("spectator@A", socket(a_addr, &id, "").await),
            ("spectator@B", socket(b_addr, &id, "").await),
        ];
        let mut last = Value::Null;
        for (name, ws) in sockets.iter_mut() {
            last = next_state(ws, name).await;
            assert_eq!(last["status"], "started", "{name}: {last}");
            assert_eq!(last["ply"], 0);
        }
        let mut plies = 0;
        for _ in 0..6 {
            let mover = if plies % 2 == 0 { 0 } else { 1 };
            plies += 1;
            last = ply(mover, &mut sockets, plies, &last).await;
        }
        // Chat goes to both players across the nodes, and to no spectator.
        sockets[0]
            .1
            .send(Message::Text(
                json!({"t": "chat", "text": "iyi oyunlar"})
                    .to_string()
                    .into(),
            ))
            .await
            .unwrap();
        for (name, ws) in sockets[..2].iter_mut() {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
            loop {
                let m = tokio::time::timeout_at(deadline, ws.next())
                    .await
                    .unwrap_or_else(|_| panic!("{name}: no chat line"))
                    .unwrap()
                    .unwrap();
                if let Message::Text(t) = m {
                    let v: Value = serde_json::from_str(&t).unwrap();
                    if v["type"] == "chatLine" {
                        assert_eq!(v["text"], "iyi oyunlar");
                        break;
                    }
                }
            }
        }

        // Two more plies between the players; the spectators see them and no chat line.
        for mover in [0, 1] {
            plies += 1;
            last = ply(mover, &mut sockets[..2], plies, &last).await;
        }
        for (name, ws) in sockets[2..].iter_mut() {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            loop {
                let m = tokio::time::timeout_at(deadline, ws.next())
                    .await
                    .unwrap_or_else(|_| panic!("{name}: no game state"))
                    .unwrap()
                    .unwrap();
                let Message::Text(t) = m else { continue };
                let v: Value = serde_json::from_str(&t).unwrap();
                assert_ne!(v["type"], "chatLine", "{name} got the players' chat: {v}");
                if v["type"] == "gameState" && v["ply"] == plies {
                    break;
                }
            }
        }

        // B, the owner, dies with White to move.
        assert_eq!(last["turn"], "white");
        let wtime_before = last["wtime"].as_i64().unwrap();
        let btime_before = last["btime"].as_i64().unwrap();
        let turn_began = Instant::now();
        b.kill();
        sockets.retain(|(name, _)| name.ends_with("@A"));
        tokio::time::sleep(Duration::from_millis(700)).await;
        // Alice moves on A: forwarded to the dead owner, unanswered, until A takes the game
        // over when the lease runs out.
        plies += 1;
        last = ply(0, &mut sockets, plies, &last).await;
        let took = turn_began.elapsed();
        assert!(took >= Duration::from_millis(700));
        // White's clock ran the whole time (the dead owner's time included), less at most the
        // lag compensation; the increment was added. Black's did not move.
        let spent = wtime_before + 3_000 - last["wtime"].as_i64().unwrap();
        let took_ms = took.as_millis() as i64;
        assert!(
            spent > took_ms - 600 && spent <= took_ms + 300,
            "White spent {spent} ms of clock in {took_ms} ms"
        );
        assert!(
            (last["btime"].as_i64().unwrap() - btime_before).abs() <= 300,
            "Black's clock moved while White thought: {btime_before} -> {}",
            last["btime"]
        );

        // A third node comes up; Bob comes back there.
        let node_c = tokio::task::spawn_blocking(move || Node::start(&pg2, &redis2))
            .await
            .unwrap();
        let c_addr = node_c.addr;
        let mut bob_ws = socket(c_addr, &id, &bob).await;
        let s = next_state(&mut bob_ws, "bob@C").await;
        assert_eq!(s["ply"].as_u64(), Some(plies));
        sockets.insert(1, ("bob@C", bob_ws));
        sockets.push(("spectator@C", socket(c_addr, &id, "").await));
        let _ = next_state(&mut sockets[3].1, "spectator@C").await;
        for _ in 0..6 {
            let mover = if plies % 2 == 0 { 0 } else { 1 };
            plies += 1;
            last = ply(mover, &mut sockets, plies, &last).await;
        }
        // Both agree to a draw, each on their node: the end reaches everyone.
        for i in [0, 1] {
            sockets[i]
                .1
                .send(Message::Text(
                    json!({"t": "draw", "yes": true}).to_string().into(),
                ))
                .await
                .unwrap();
        }
        for (name, ws) in sockets.iter_mut() {
            // lichess's status for a draw agreed; damasi's reason in `outcome`.
            let end = state_at(ws, name, plies, Some("draw")).await;
            assert_eq!(end["outcome"], "draw:agreement", "{name}: {end}");
            assert_eq!(end["winner"], Value::Null, "{name}: {end}");
        }
        // The database has every move once, and the ratings counted the game once.
        let db = OnlineDb::connect(&pg).await.unwrap();
        let (row, moves) = db.game(&id).await.unwrap().unwrap();
        assert_eq!(row.status, "over");
        assert_eq!(row.outcome.as_deref(), Some("draw:agreement"));
        assert_eq!(moves.len() as u64, plies);
        let (_, profile) = http(a_addr, "GET", &format!("/api/user/{bn}"), "", None).await;
        assert_eq!(profile["perfs"]["blitz"]["games"], 1, "{profile}");
        drop(node_c);
    });
    drop(a);
}

/// A Redis server of this test's own (an outage must not disturb the other tests): started on
/// a free port, killed, and started again on the same port.
struct OwnRedis {
    port: u16,
    dir: std::path::PathBuf,
    child: Option<std::process::Child>,
}

impl OwnRedis {
    fn start() -> OwnRedis {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = std::env::temp_dir().join(format!("damasi-redis-outage-{port}"));
        std::fs::create_dir_all(&dir).unwrap();
        let mut r = OwnRedis {
            port,
            dir,
            child: None,
        };
        r.up();
        r
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    fn up(&mut self) {
        let child = std::process::Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--dir"])
            .arg(&self.dir)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server");
        self.child = Some(child);
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("redis-server did not start on port {}", self.port);
    }

    fn down(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.down();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Redis goes away for a few seconds while the game's owner takes a move: the player on the
/// other node must still hear of it (the owner keeps its events until Redis is back, and the
/// other node sends its watchers the whole state when it subscribes again), and the game goes
/// on through the other node. Before this, the event was lost and the player to move waited
/// until their flag fell.
#[test]
fn a_short_redis_outage_loses_no_move() {
    let _serial = one_at_a_time();
    let Some((pg, _)) = servers() else { return };
    let mut redis = OwnRedis::start();
    let a = Node::start(&pg, &redis.url());
    let b = Node::start(&pg, &redis.url());
    let client = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    client.block_on(async {
        let (an, bn) = (unique("ra"), unique("rb"));
        let alice = sign_up(a.addr, &an).await;
        let bob = sign_up(b.addr, &bn).await;
        // Alice's game is kept by A; Bob joins it through B.
        let (st, v) = http(
            a.addr,
            "POST",
            "/api/online/games",
            &alice,
            Some(json!({"minutes": 3, "increment": 2, "rated": false, "color": "white"})),
        )
        .await;
        assert_eq!(st, 200, "{v}");
        let id = v["id"].as_str().unwrap().to_string();
        let (st, v) = http(
            b.addr,
            "POST",
            &format!("/api/online/games/{id}/join"),
            &bob,
            None,
        )
        .await;
        assert_eq!(st, 200, "{v}");
        let mut wa = socket(a.addr, &id, &alice).await;
        let mut wb = socket(b.addr, &id, &bob).await;
        let first = state_at(&mut wa, "alice", 0, Some("started")).await;
        state_at(&mut wb, "bob", 0, Some("started")).await;
        let mut sockets = [("alice", wa), ("bob", wb)];
        let s1 = ply(0, &mut sockets, 1, &first).await;
        let s2 = ply(1, &mut sockets, 2, &s1).await;

        // Redis dies; Alice moves on A, which keeps the game.
        redis.down();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let text = move_from(&mut sockets[0].1, &s2).await;
        let s3 = state_at(&mut sockets[0].1, "alice", 3, Some("started")).await;
        tokio::time::sleep(Duration::from_secs(3)).await;
        redis.up();
        let back = std::time::Instant::now();

        // Bob, on B, hears of it once Redis is back (within next_state's 10 s).
        let seen = state_at(&mut sockets[1].1, "bob", 3, Some("started")).await;
        eprintln!(
            "TIMING bob heard {:?} after redis came back",
            back.elapsed()
        );
        assert!(
            seen["moves"].as_str().unwrap().ends_with(&text),
            "bob sees {seen} after alice's {text}"
        );
        // And the game goes on through B.
        ply(1, &mut sockets, 4, &s3).await;
    });
    drop(client);
    drop((a, b));
}

/// A node of the test's own runtime (not behind HTTP), with the test's cluster timings.
async fn clustered(pg: &str, redis: &str) -> Online {
    let db = OnlineDb::connect(pg).await.expect("PostgreSQL");
    Online::clustered(
        db,
        OnlineConfig::default(),
        redis,
        ClusterConfig {
            lease: LEASE,
            renew_every: Duration::from_millis(400),
            reply_timeout: Duration::from_millis(800),
        },
    )
    .await
    .expect("Redis")
}

/// The next turn `turns` hears (within 5 s).
async fn next_turn(
    turns: &mut tokio::sync::broadcast::Receiver<damasi_online::messages::YourTurn>,
    who: &str,
) -> damasi_online::messages::YourTurn {
    tokio::time::timeout(Duration::from_secs(5), turns.recv())
        .await
        .unwrap_or_else(|_| panic!("{who} heard no turn within 5 s"))
        .unwrap()
}

/// A role (the Telegram bot's polling) is one node's at a time, renewed by it, and taken over
/// by another once its lease ran out unrenewed; a correspondence game's turns, from the node
/// that runs the game, are heard on every node (the bot's process tells them).
#[test]
fn a_role_is_one_nodes_and_every_node_hears_the_turns() {
    let Some((pg, redis)) = servers() else {
        return;
    };
    let _one = one_at_a_time();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (a, b) = (clustered(&pg, &redis).await, clustered(&pg, &redis).await);
        let role = unique("role");
        assert!(a.hold_role(&role).await.unwrap(), "a free role is taken");
        assert!(!b.hold_role(&role).await.unwrap(), "held by the other node");
        tokio::time::sleep(LEASE / 2).await;
        assert!(a.hold_role(&role).await.unwrap(), "its holder renews it");
        tokio::time::sleep(LEASE / 2 + Duration::from_millis(300)).await;
        assert!(
            !b.hold_role(&role).await.unwrap(),
            "renewed: still the first node's after the first lease would have ended"
        );
        tokio::time::sleep(LEASE + Duration::from_millis(300)).await;
        assert!(b.hold_role(&role).await.unwrap(), "unrenewed: taken over");
        assert!(!a.hold_role(&role).await.unwrap(), "and not taken back");

        // A correspondence game made and played on node a: node b hears both turns.
        let mut heard_b = b.your_turns();
        let mut heard_a = a.your_turns();
        let white = a.accounts().add_bot(&unique("TurnW"), 0).await.unwrap();
        let black = a.accounts().add_bot(&unique("TurnB"), 0).await.unwrap();
        let new = damasi_online::NewGame::correspondence(3, false, true).unwrap();
        let game = a
            .create_paired(&white, &black, new)
            .await
            .unwrap()
            .id
            .clone();
        for (turns, node) in [(&mut heard_a, "a"), (&mut heard_b, "b")] {
            let t = next_turn(turns, node).await;
            assert_eq!(
                (
                    t.id.as_str(),
                    t.player,
                    t.side,
                    t.last_move.as_deref(),
                    t.days_per_turn
                ),
                (game.as_str(), white.id, damasi::Color::White, None, 3),
                "node {node}: White's first turn"
            );
        }
        let pos = Position::start();
        let m = *pos.legal_moves().iter().next().expect("a legal move");
        let text = pos.write_move(&m, Notation::Landing);
        a.act(
            &game,
            &white,
            damasi_online::command::Command::Move { text: text.clone() },
        )
        .await
        .unwrap();
        for (turns, node) in [(&mut heard_a, "a"), (&mut heard_b, "b")] {
            let t = next_turn(turns, node).await;
            assert_eq!(
                (t.id.as_str(), t.player, t.side, t.last_move.as_deref()),
                (
                    game.as_str(),
                    black.id,
                    damasi::Color::Black,
                    Some(text.as_str())
                ),
                "node {node}: Black's turn after White's move"
            );
        }
        // Each turn once: node a's own is not heard again from Redis.
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(heard_a.try_recv().is_err(), "node a heard a turn twice");
        assert!(heard_b.try_recv().is_err(), "node b heard a turn twice");
    });
}

/// One process of a cluster without its web side: its own runtime (dropped to kill it), its
/// online service and, for the process that runs them, the tournament director.
struct Process {
    runtime: Option<tokio::runtime::Runtime>,
    online: Online,
    director: Option<damasi_tournaments::Tournaments>,
}

impl Process {
    fn start(pg: &str, redis: &str, directs: bool) -> Process {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (online, director) = runtime.block_on(async {
            let online = clustered(pg, redis).await;
            let director = if directs {
                let d = damasi_tournaments::Tournaments::new(online.clone());
                d.run().await.expect("the director resumes");
                Some(d)
            } else {
                None
            };
            (online, director)
        });
        Process {
            runtime: Some(runtime),
            online,
            director,
        }
    }

    fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.as_ref().expect("alive").block_on(f)
    }

    /// Runs `f` as a task of this process and waits for it from outside (the process goes on
    /// by its own threads afterwards, as a process does, not by the caller's).
    fn spawn_wait<F>(&self, f: F) -> F::Output
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::channel();
        self.runtime.as_ref().expect("alive").spawn(async move {
            let _ = tx.send(f.await);
        });
        rx.recv_timeout(Duration::from_secs(20))
            .expect("an answer from the process")
    }

    fn director(&self) -> &damasi_tournaments::Tournaments {
        self.director.as_ref().expect("the director's process")
    }

    /// Dies at once, as `kill -9`: its leases are left to run out.
    fn kill(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A Swiss of two rounds for three bots, made by `p`'s director and its first round paired:
/// the tournament's id, its game, and White and Black of that game.
fn swiss_with_a_round(
    p: &Process,
) -> (
    String,
    String,
    damasi_online::accounts::Player,
    damasi_online::accounts::Player,
) {
    use damasi_tournaments::swiss::{Entry, SwissSettings};
    p.block_on(async {
        let accounts = p.online.accounts();
        let now = damasi_online::now_ms();
        let organiser = accounts.add_bot(&unique("org"), now).await.unwrap();
        let one = accounts.add_bot(&unique("sw"), now).await.unwrap();
        let two = accounts.add_bot(&unique("sb"), now).await.unwrap();
        // A third player: round 1 is one game and a bye, and round 2 can be paired.
        let three = accounts.add_bot(&unique("sc"), now).await.unwrap();
        let settings = SwissSettings {
            name: "Küme turnuvası".into(),
            rounds: 2,
            initial_ms: 180_000,
            increment_ms: 2000,
            rated: false,
            starts_ms: None,
            round_pause_ms: 0,
            entry: Entry::Anyone,
            tiebreaks: damasi_tournaments::tiebreak::Tiebreak::FEDERATION.to_vec(),
            system: damasi_tournaments::swiss::System::Swiss,
            rules: damasi::RuleSet::default(),
            allow_bots: false,
        };
        let d = p.director();
        let created = d
            .create(
                &organiser,
                damasi_tournaments::NewSwiss {
                    settings,
                    password: None,
                },
            )
            .await
            .unwrap();
        let id = created["id"].as_str().unwrap().to_string();
        d.join(&id, &one, None).await.unwrap();
        d.join(&id, &two, None).await.unwrap();
        d.join(&id, &three, None).await.unwrap();
        d.next_round_now(&id, &organiser).await.unwrap();
        let s = d.get(&id).await.unwrap();
        let board = &s.rounds[0].boards[0];
        let game = board.game.clone().expect("the round's game is made");
        let white = s.entrants[board.white as usize - 1].user;
        let black = s.entrants[board.black as usize - 1].user;
        let by_id = |u: i64| {
            [&one, &two, &three]
                .into_iter()
                .find(|p| p.id == u)
                .cloned()
                .expect("a player of the tournament")
        };
        let (white, black) = (by_id(white), by_id(black));
        (id, game, white, black)
    })
}

/// Waits (20 s at most) until `p`'s director has the result of the first round and has paired
/// the second; answers the tournament's view.
fn second_round_paired(p: &Process, id: &str) -> Value {
    p.block_on(async {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let view = p.director().show(id).await.unwrap();
            let rounds = view["rounds"].as_array().map_or(0, Vec::len);
            if rounds == 2 {
                return view;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the round never finished: {} game(s) ongoing after 20 s: {view}",
                view["nbOngoing"]
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
}

/// The scene of both tests below: the tournament director's process is killed (`kill -9`)
/// with a Swiss round in play, the other process takes the round's game over and White
/// moves there, the director is started again (on `director_redis`), and the game ends on
/// the other process (Black resigns). Answers the director's process, the tournament's id,
/// the game's id, and what the director's process heard of games ending from its start.
fn a_round_ends_elsewhere_after_a_kill(
    pg: &str,
    redis: &str,
    director_redis: &str,
) -> (
    Process,
    String,
    String,
    tokio::sync::broadcast::Receiver<damasi_online::messages::GameFinished>,
) {
    let mut director = Process::start(pg, redis, true);
    let other = Process::start(pg, redis, false);
    let (id, game, white, black) = swiss_with_a_round(&director);

    // kill -9 of the director; the other process takes its game over once the lease is out.
    director.kill();
    std::thread::sleep(LEASE + Duration::from_millis(600));
    let first = Position::start();
    let m = *first.legal_moves().iter().next().expect("a legal move");
    let text = first.write_move(&m, Notation::Landing);
    let (online, id_) = (other.online.clone(), game.clone());
    other
        .spawn_wait(async move {
            let move_ = damasi_online::command::Command::Move { text };
            online.run(&id_, &white, move_).await
        })
        .expect("White's move, on the process that took the game over");

    // The director comes back (it finds the round in play, its game not over); the game ends
    // on the other process.
    let director = Process::start(pg, director_redis, true);
    let heard = director.online.finished_games();
    let (online, id_) = (other.online.clone(), game.clone());
    other
        .spawn_wait(async move {
            let resign = damasi_online::command::Command::Resign;
            online.run(&id_, &black, resign).await
        })
        .expect("Black resigns");
    (director, id, game, heard)
}

/// The round's game ends on a process that is not the director's (after a `kill -9` of the
/// director and its restart): the director must count it (it hears every process's endings
/// over Redis, and reads the round's games from the store on each tick) and pair the next
/// round, with no restart. Before, it heard only its own process's endings and the
/// round showed "1 game ongoing" until the director was restarted again.
#[test]
fn a_swiss_round_ended_on_another_process_finishes_after_the_director_died() {
    let _serial = one_at_a_time();
    let Some((pg, redis)) = servers() else { return };
    let (director, id, game, mut heard) = a_round_ends_elsewhere_after_a_kill(&pg, &redis, &redis);
    let view = second_round_paired(&director, &id);
    assert_eq!(view["rounds"][0]["games"][0]["result"], "1-0", "{view}");
    assert_eq!(view["nbOngoing"], 1, "round 2's game is in play: {view}");
    // The end is heard over Redis too (the store is the director's safety net); told once.
    if let Ok(ended) = heard.try_recv() {
        assert_eq!(ended.id, game);
        assert_eq!(
            ended.outcome.map(|o| o.code()).as_deref(),
            Some("white:resignation")
        );
    }
}

/// The same, but the director's process cannot hear of the end (it listens on another Redis
/// server, as if the message were lost): the game is over in the database, so it counts all
/// the same, read from the store on the director's next tick.
#[test]
fn a_swiss_round_ended_unheard_is_caught_up_from_the_store() {
    let _serial = one_at_a_time();
    let Some((pg, redis)) = servers() else { return };
    let deaf = OwnRedis::start();
    let (director, id, _game, mut heard) =
        a_round_ends_elsewhere_after_a_kill(&pg, &redis, &deaf.url());
    let view = second_round_paired(&director, &id);
    assert_eq!(view["rounds"][0]["games"][0]["result"], "1-0", "{view}");
    assert!(
        heard.try_recv().is_err(),
        "nothing was heard: the store told"
    );
}
