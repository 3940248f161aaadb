//! An arena played by programs through the online service, in one process, and checked: for
//! `MINUTES` minutes `PLAYERS` programs play random legal moves (each thinks 50 to 250 ms,
//! on a 1+1 clock); one pauses halfway and comes back. At the end every game is replayed
//! against the rules library and must be stored once; each player's score must be what
//! lichess's arena scoring gives for the results stored; nobody met the same opponent twice
//! in a row. Prints the move round trip (the time `Online::run` takes to take a move and
//! answer) p50/p99, and exits non-zero on any failure.
//!
//! ```sh
//! cargo run --release -p damasi-tournaments --example arena -- 40 10   # scripts/test
//! cargo run --release -p damasi-tournaments --example arena -- 500 3   # the load measurement
//! ```

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use damasi::{Game, Notation, Outcome};
use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::db::OnlineDb;
use damasi_online::{now_ms, Online, OnlineConfig};
use damasi_tournaments::arena::ArenaSettings;
use damasi_tournaments::swiss::{Entry, Status};
use damasi_tournaments::{NewArena, Tournaments};

/// A small seeded random number generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Plays game `id` for both sides with random legal moves until it ends; records each move's
/// round trip.
async fn play(
    online: Online,
    id: String,
    players: Arc<HashMap<i64, Player>>,
    seed: u64,
    trips: Arc<Mutex<Vec<u32>>>,
) {
    let mut rng = Rng(seed | 1);
    loop {
        tokio::time::sleep(Duration::from_millis(50 + rng.next(200))).await;
        let Ok(table) = online.table(&id).await else {
            return;
        };
        let (mover, text) = {
            let s = table.state.lock().await;
            if s.core.game.is_over() || s.row.status == "over" {
                return;
            }
            let side = s.core.game.position().side_to_move();
            let Some(p) = s.seats[side].clone() else {
                continue;
            };
            let moves = s.core.game.legal_moves();
            if moves.is_empty() {
                return;
            }
            let m = moves.as_slice()[rng.next(moves.len() as u64) as usize];
            (p, s.core.game.position().write_move(&m, Notation::Landing))
        };
        let start = Instant::now();
        let r = online
            .run(&id, &players[&mover.id], Command::Move { text })
            .await;
        if r.is_ok() {
            trips
                .lock()
                .unwrap()
                .push(start.elapsed().as_micros() as u32);
        }
    }
}

fn fail(what: String) -> ! {
    eprintln!("FAILED: {what}");
    std::process::exit(1);
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(40);
    let minutes: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let online = Online::new(OnlineDb::in_memory(), OnlineConfig::default());
    let director = Tournaments::new(online.clone());
    director.run().await.expect("the director runs");
    let now = now_ms();
    let org = online.accounts().add_bot("organiser", now).await.unwrap();
    let mut players = HashMap::new();
    for i in 0..n {
        let p = online
            .accounts()
            .add_bot(&format!("bot{i:03}"), now)
            .await
            .unwrap();
        players.insert(p.id, p);
    }
    let players = Arc::new(players);
    let created = director
        .create_arena(
            &org,
            NewArena {
                settings: ArenaSettings {
                    name: format!("{n} programs, {minutes} minutes"),
                    minutes,
                    initial_ms: 60_000,
                    increment_ms: 1000,
                    rated: true,
                    starts_ms: None,
                    entry: Entry::Anyone,
                    rules: damasi::RuleSet::default(),
                    allow_bots: false,
                },
                password: None,
            },
        )
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    for p in players.values() {
        director.join_arena(&id, p, None).await.unwrap();
    }
    director.start_arena(&id, &org).await.unwrap();
    println!("arena {id}: {n} players for {minutes} min");

    let trips = Arc::new(Mutex::new(Vec::new()));
    let mut seen_games = HashSet::new();
    let pauser = *players.keys().min().unwrap();
    let started = Instant::now();
    let half = Duration::from_secs(minutes as u64 * 30);
    let (mut paused, mut back) = (false, false);
    let mut seed = 1u64;
    loop {
        let a = director.get_arena(&id).await.unwrap();
        for g in &a.games {
            if seen_games.insert(g.id.clone()) {
                seed += 1;
                tokio::spawn(play(
                    online.clone(),
                    g.id.clone(),
                    players.clone(),
                    seed * 0x9E37_79B9,
                    trips.clone(),
                ));
            }
        }
        if a.status == Status::Finished && a.games.is_empty() {
            break;
        }
        if !paused && started.elapsed() > half {
            director.pause_arena(&id, &players[&pauser]).await.unwrap();
            paused = true;
        } else if paused && !back && started.elapsed() > half + Duration::from_secs(20) {
            director
                .join_arena(&id, &players[&pauser], None)
                .await
                .unwrap();
            back = true;
        }
        if started.elapsed() > Duration::from_secs(minutes as u64 * 60 + 300) {
            fail("the arena did not end".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Checks: every game stored once and legal; scores as lichess counts them; no opponent
    // twice in a row.
    let a = director.get_arena(&id).await.unwrap();
    let mut stored = HashSet::new();
    for p in players.values() {
        for g in online.db().games_of(p.id, 100_000).await.unwrap() {
            stored.insert(g.row.id);
        }
    }
    let sheet_games: HashSet<String> = a
        .players
        .iter()
        .flat_map(|p| p.sheet.iter().map(|s| s.game.clone()))
        .collect();
    if stored != sheet_games {
        fail(format!(
            "{} games stored, {} on the players' sheets",
            stored.len(),
            sheet_games.len()
        ));
    }
    for id in &stored {
        let (row, moves) = online.db().game(id).await.unwrap().unwrap();
        let mut game = Game::new();
        for (token, _) in &moves {
            let legal = game.legal_moves();
            let Some(m) = legal
                .iter()
                .find(|m| format!("{}.{}.{:x}", m.from(), m.to(), m.captured_bits()) == *token)
                .copied()
            else {
                fail(format!("game {id}: {token} is not legal"));
            };
            game.play(&m).unwrap();
        }
        if row.status != "over" {
            fail(format!("game {id} is not over"));
        }
        let _: Outcome = row
            .outcome
            .as_deref()
            .unwrap_or("")
            .parse()
            .unwrap_or_else(|_| fail(format!("game {id}: no outcome")));
    }
    for p in &a.players {
        let (mut score, mut streak) = (0u32, 0u32);
        for (k, s) in p.sheet.iter().enumerate() {
            let (row, moves) = online.db().game(&s.game).await.unwrap().unwrap();
            let outcome: Outcome = row.outcome.as_deref().unwrap().parse().unwrap();
            let white = row.players[0] == Some(p.user);
            let got = match outcome {
                Outcome::Win { winner, .. } => {
                    2 * u32::from((winner == damasi::Color::White) == white)
                }
                Outcome::Draw(_) => 1,
                // Aborted: the side that had to move forfeits.
                Outcome::Aborted => 2 * u32::from((moves.len() % 2 == 1) == white),
            };
            score += if streak >= 2 { 2 * got } else { got };
            streak = if got == 2 { streak + 1 } else { 0 };
            if k > 0 && p.sheet[k - 1].opponent == s.opponent {
                fail(format!("{} met {} twice in a row", p.name, s.opponent));
            }
        }
        if score != p.score {
            fail(format!(
                "{}: score {} but the results give {score}",
                p.name, p.score
            ));
        }
    }
    let mut t = trips.lock().unwrap().clone();
    t.sort_unstable();
    let q = |f: f64| {
        t.get(((t.len() as f64 * f) as usize).min(t.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0) as f64
            / 1000.0
    };
    let top: Vec<String> = a
        .ranking()
        .iter()
        .take(3)
        .map(|&i| format!("{} {}", a.players[i].name, a.players[i].score))
        .collect();
    println!(
        "arena ok: {} games, {} moves; move round trip p50 {:.2} ms, p99 {:.2} ms; podium: {}",
        stored.len(),
        t.len(),
        q(0.5),
        q(0.99),
        top.join(", ")
    );
}
