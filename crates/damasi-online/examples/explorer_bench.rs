//! The opening explorer's speed (docs/performance.md, "The opening explorer"):
//!
//! ```sh
//! explorer_bench fill DIR 100000 [SEED]     # random legal games into DIR/online.sqlite3
//! damasi serve --data-dir DIR --port 8199 --tb-dir none &
//! explorer_bench query http://127.0.0.1:8199 2000   # GETs through the server, p50/p99
//! explorer_bench direct DIR 2000                    # the same queries in this process
//! ```
//!
//! Games of another seed are other games (their keys name the seed), so `fill DIR 20000 46`
//! beside a running `query` counts new games while the server answers.
//!
//! `fill` plays random legal games from the start position (a move is the first of the
//! position's legal moves, sorted by their stored form, with probability 1/2, the second with
//! 1/4, and so on, so that some lines are played often and others rarely, as in real play),
//! with random results, ratings and speed classes, and counts them through the explorer's own
//! writer (`ExplorerStore::explore_games`), a thousand games a transaction. It prints the positions
//! the queries ask: the start and the most played line after 1, 2, 4, 8 and 12 plies.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use damasi::{Color, DrawReason, Game, Outcome, Position, WinReason};
use damasi_online::db::OnlineDb;
use damasi_online::explorer::{explore, ExploredGame, Filter, GameFacts, Request, Source};
use damasi_online::rating::Speed;
use damasi_online::record::Record;

/// SplitMix64: reproducible random numbers with no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The legal moves of `pos` in their stored form's order: the popular line is the same in
/// every run.
fn sorted_moves(pos: &Position) -> Vec<damasi::Move> {
    let mut moves: Vec<_> = pos.legal_moves().iter().copied().collect();
    moves.sort_by_key(Record::token);
    moves
}

/// One random game: its first 50 plies (or fewer when it ends), a result, ratings, a speed.
fn random_game(rng: &mut Rng, seed: u64, i: usize) -> ExploredGame {
    let mut game = Game::new();
    while game.ply() < damasi_online::explorer::MAX_PLIES && !game.is_over() {
        let moves = sorted_moves(game.position());
        let mut k = 0;
        while k + 1 < moves.len() && rng.below(2) == 1 {
            k += 1;
        }
        game.play(&moves[k]).expect("a legal move");
    }
    let outcome = match rng.below(20) {
        0..=8 => Outcome::Win {
            winner: Color::White,
            reason: WinReason::Resignation,
        },
        9..=12 => Outcome::Draw(DrawReason::Agreement),
        _ => Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Resignation,
        },
    };
    // Roughly bell-shaped around 1500.
    let rating = |rng: &mut Rng| 900 + (0..4).map(|_| rng.below(301) as i64).sum::<i64>();
    let facts = GameFacts {
        names: [Some(format!("w{}", i % 997)), Some(format!("b{}", i % 991))],
        ratings: [Some(rating(rng)), Some(rating(rng))],
        speed: Some(Speed::ALL[rng.below(5) as usize]),
        at_ms: 1_700_000_000_000 + rng.below(31_536_000_000) as i64,
        year: Some(2026),
        month: Some(1 + rng.below(12) as i64),
    };
    ExploredGame::new(
        Source::Server,
        format!("s{seed}g{i:07}"),
        &game,
        Some(outcome),
        facts,
    )
    .expect("a game from the start under the default rules")
}

/// The positions asked: the start and the most played line (the first sorted move each ply)
/// after 1, 2, 4, 8 and 12 plies.
fn positions() -> Vec<(String, Position)> {
    let mut out = vec![("start".to_string(), Position::start())];
    let mut pos = Position::start();
    for ply in 1..=12 {
        let m = sorted_moves(&pos)[0];
        pos = pos.play(&m);
        if [1, 2, 4, 8, 12].contains(&ply) {
            out.push((format!("main line, ply {ply}"), pos));
        }
    }
    out
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Prints one line of the table: what was asked, the games below it, the percentiles.
fn line(name: &str, games: Option<i64>, mut times: Vec<Duration>) {
    times.sort();
    let games = games.map_or("".to_string(), |g| g.to_string());
    println!(
        "| {name} | {games} | {} | {} | {} | {} |",
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.9)),
        ms(percentile(&times, 0.99)),
        ms(*times.last().unwrap())
    );
}

/// The query strings asked of each position: everything, and a filtered one.
const FILTERS: [(&str, &str); 2] = [
    ("all", ""),
    (
        "blitz+rapid, 1600+1800",
        "&speeds=blitz,rapid&ratings=1600,1800",
    ),
];

/// One GET on a kept-alive connection: the status and the body.
fn get(conn: &mut BufReader<TcpStream>, path: &str) -> (u16, String) {
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n");
    conn.get_mut().write_all(req.as_bytes()).expect("send");
    let mut status = String::new();
    conn.read_line(&mut status).expect("status line");
    let code: u16 = status
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status");
    let mut length = 0;
    loop {
        let mut h = String::new();
        conn.read_line(&mut h).expect("a header");
        if h == "\r\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().expect("a length");
            }
        }
    }
    let mut body = vec![0; length];
    conn.read_exact(&mut body).expect("the body");
    (code, String::from_utf8(body).expect("utf-8"))
}

fn games_of(body: &str) -> i64 {
    let v: serde_json::Value = serde_json::from_str(body).expect("JSON");
    ["white", "draws", "black"]
        .iter()
        .map(|k| v[k].as_i64().expect("a count"))
        .sum()
}

fn query(server: &str, rounds: usize) {
    let host = server.trim_start_matches("http://").trim_end_matches('/');
    let mut conn = BufReader::new(TcpStream::connect(host).expect("connect to the server"));
    conn.get_mut().set_nodelay(true).unwrap();
    println!("| position | games below | p50 | p90 | p99 | max |");
    println!("|---|---|---|---|---|---|");
    let mut all = Vec::new();
    for (name, pos) in positions() {
        for (fname, filter) in FILTERS {
            let path = format!(
                "/api/explorer/lichess?fen={}{filter}",
                pos.to_fen().replace(':', "%3A").replace(',', "%2C")
            );
            let (code, body) = get(&mut conn, &path);
            assert_eq!(code, 200, "{body}");
            let games = games_of(&body);
            let mut times = Vec::with_capacity(rounds);
            for _ in 0..rounds {
                let t = Instant::now();
                let (code, _) = get(&mut conn, &path);
                times.push(t.elapsed());
                assert_eq!(code, 200);
            }
            all.extend(&times);
            line(&format!("{name} ({fname})"), Some(games), times);
        }
    }
    line("every query", None, all);
}

async fn direct(dir: &str, rounds: usize) {
    let db = OnlineDb::open(std::path::Path::new(dir)).expect("the database");
    println!("| position | games below | p50 | p90 | p99 | max |");
    println!("|---|---|---|---|---|---|");
    for (name, pos) in positions() {
        for (fname, filter) in FILTERS {
            let mut req = Request::new(Source::Server, pos);
            if !filter.is_empty() {
                req.filter = Filter::parse(Some("blitz,rapid"), Some("1600,1800")).unwrap();
            }
            let a = explore(&db, &req).await.unwrap();
            let mut times = Vec::with_capacity(rounds);
            for _ in 0..rounds {
                let t = Instant::now();
                explore(&db, &req).await.unwrap();
                times.push(t.elapsed());
            }
            line(
                &format!("{name} ({fname})"),
                Some(a.white + a.draws + a.black),
                times,
            );
        }
    }
}

async fn fill(dir: &str, games: usize, seed: u64) {
    let db = OnlineDb::open(std::path::Path::new(dir)).expect("the database");
    let mut rng = Rng(seed);
    let started = Instant::now();
    let mut batch = Vec::new();
    let (mut plies, mut counted) = (0, 0);
    for i in 0..games {
        let g = random_game(&mut rng, seed, i);
        plies += g.plies.len();
        batch.push(g);
        if batch.len() == 1000 || i + 1 == games {
            counted += db
                .explore_games(std::mem::take(&mut batch))
                .await
                .expect("counted");
            eprint!("\r{} games", i + 1);
        }
    }
    eprintln!();
    println!(
        "filled {dir}: {counted} of {games} games counted ({plies} plies), in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    for (name, pos) in positions() {
        println!("{name}: {}", pos.to_fen());
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    match (arg(1), arg(2), arg(3)) {
        (Some("fill"), Some(dir), Some(n)) => {
            let seed = arg(4).and_then(|s| s.parse().ok()).unwrap_or(45);
            fill(dir, n.parse().expect("a number of games"), seed).await
        }
        (Some("query"), Some(server), Some(n)) => query(server, n.parse().expect("rounds")),
        (Some("direct"), Some(dir), Some(n)) => direct(dir, n.parse().expect("rounds")).await,
        _ => eprintln!(
            "usage: explorer_bench fill DIR GAMES [SEED] | query URL ROUNDS | direct DIR ROUNDS"
        ),
    }
}
