//! Online play stored in a real PostgreSQL server (`damasi serve --database postgres://...`):
//! accounts and secrets, a rated game with its moves and ratings, a name taken in another case,
//! and a game that comes back in a second service over the same database (a restart, or
//! another server process); sessions and tokens listed, revoked and expired, a password
//! change, and open games withdrawn after a day; follows and blocks, rating histories, records,
//! filtered game lists and leaderboards. (The store checks run in both stores, SQLite and
//! PostgreSQL, with no web in them are `crates/damasi-online/tests/stores.rs`.)
//!
//! Runs when `DAMASI_TEST_POSTGRES` names a server (`scripts/with-postgres` starts one; the
//! test script does); `DAMASI_REQUIRE_POSTGRES=1` makes its absence a failure.

#[path = "support/commands.rs"]
mod commands;
#[path = "support/players.rs"]
mod players;
#[path = "support/ratings.rs"]
mod ratings;

use commands::play;

use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::db::OnlineDb;
use damasi_online::db::SecretKind;
use damasi_online::{NewGame, Online, OnlineConfig};
use damasi_web::online::session::Identify;

fn url() -> Option<String> {
    match std::env::var("DAMASI_TEST_POSTGRES") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            assert!(
                std::env::var("DAMASI_REQUIRE_POSTGRES").as_deref() != Ok("1"),
                "DAMASI_REQUIRE_POSTGRES=1 but DAMASI_TEST_POSTGRES is not set"
            );
            eprintln!("skipped: no DAMASI_TEST_POSTGRES");
            None
        }
    }
}

/// Names unique to this run, so the test needs no empty database.
fn name(base: &str) -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros()
        % 1_000_000_000;
    format!("{base}{t}")
}

#[tokio::test]
async fn accounts_games_and_ratings_live_in_postgres() {
    let Some(url) = url() else { return };
    let db = OnlineDb::connect(&url)
        .await
        .expect("connect and create the tables");
    // A second connection creates nothing twice.
    OnlineDb::connect(&url).await.expect("connect again");
    let online = Online::new(db.clone(), OnlineConfig::default());
    let (na, nb) = (name("pa"), name("pb"));
    let a = online
        .accounts()
        .sign_up(&na, "a long password".into(), 0)
        .await
        .unwrap();
    let b = online.accounts().add_bot(&nb, 0).await.unwrap();
    let taken = online
        .accounts()
        .add_bot(&na.to_uppercase(), 0)
        .await
        .unwrap_err();
    assert_eq!(taken.code(), "name-taken");
    assert_eq!(
        online
            .accounts()
            .log_in(&na, "a long password".into())
            .await
            .unwrap()
            .id,
        a.id
    );
    assert_eq!(
        online
            .accounts()
            .log_in(&na, "wrong password!".into())
            .await
            .unwrap_err()
            .code(),
        "unauthorized"
    );
    let token = online
        .accounts()
        .issue(b.id, SecretKind::Token, 0)
        .await
        .unwrap();
    let mut headers = axum::http::HeaderMap::new();
    headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
    assert_eq!(
        online
            .accounts()
            .identify(&headers)
            .await
            .unwrap()
            .unwrap()
            .id,
        b.id
    );

    let rated = NewGame {
        initial_ms: 600_000,
        increment_ms: 5_000,
        rated: true,
        chat: true,
        rules: damasi_online::variant::FEDERATION,
    };
    let t = online.create_paired(&a, &b, rated).await.unwrap();
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    play(&online, &t.id, &a, "d3-d4").await.unwrap();

    // After a restart, a new service over the same database finds the game as it is.
    let other = Online::new(
        OnlineDb::connect(&url).await.unwrap(),
        OnlineConfig::default(),
    );
    let mover = Player::from(db.user(b.id).await.unwrap().unwrap());
    let moved = play(&other, &t.id, &mover, "e6-e5").await.unwrap();
    assert_eq!(moved["moves"], "c3-c4 f6-f5 d3-d4 e6-e5");
    other.run(&t.id, &a, Command::Resign).await.unwrap();
    let (row, moves) = db.game(&t.id).await.unwrap().unwrap();
    assert_eq!(row.status, "over");
    assert_eq!(row.outcome.as_deref(), Some("black:resignation"));
    assert_eq!(moves.len(), 4);
    assert_eq!(row.diffs, [Some(-162), Some(162)]);
    let r = db.rating(b.id, "rapid").await.unwrap().unwrap();
    assert!((r.rating - 1662.3).abs() < 1.0 && r.games == 1);
    let listed = db.games_of(a.id, 10).await.unwrap();
    assert_eq!(listed[0].row.id, t.id);
    assert_eq!(listed[0].plies, 4);
    assert_eq!(listed[0].names[1].as_deref(), Some(nb.as_str()));
}

/// Fifty rated games of one player ending at the same instant, stored in PostgreSQL: the
/// rating rows are locked from read to write, so no change is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn rated_games_ending_at_once_lose_no_rating_change() {
    let Some(url) = url() else { return };
    let db = OnlineDb::connect(&url).await.unwrap();
    let online = Online::new(db, OnlineConfig::default());
    ratings::end_rated_games_at_once(&online, &name("hero"), 50).await;
}

/// Sessions and tokens in PostgreSQL: listed, one revoked by its handle, the others by a
/// password change (the current one kept), expired ones refused and forgotten, and all of them
/// at once; an open game a day old withdrawn.
#[tokio::test]
async fn sessions_are_revoked_and_open_games_expire_in_postgres() {
    use damasi_online::accounts::{handle_of, secret_hash};
    let Some(url) = url() else { return };
    let db = OnlineDb::connect(&url).await.unwrap();
    let online = Online::new(db.clone(), OnlineConfig::default());
    let accounts = online.accounts();
    let a = accounts
        .sign_up(&name("sa"), "a long password".into(), 0)
        .await
        .unwrap();
    let now = damasi_online::now_ms();
    let day = 24 * 60 * 60 * 1000;
    let first = accounts
        .issue(a.id, SecretKind::Session, now)
        .await
        .unwrap();
    let second = accounts
        .issue(a.id, SecretKind::Session, now + 1)
        .await
        .unwrap();
    let token = accounts.issue(a.id, SecretKind::Token, 0).await.unwrap();
    let expired = "0123456789abcdef0123456789abcdef".to_string() + &name("");
    db.add_secret(
        a.id,
        SecretKind::Session,
        secret_hash(&expired),
        now - 31 * day,
    )
    .await
    .unwrap();
    let cookie = |s: &str| {
        let mut h = axum::http::HeaderMap::new();
        h.insert("cookie", format!("damasi_session={s}").parse().unwrap());
        h
    };
    let bearer = |s: &str| {
        let mut h = axum::http::HeaderMap::new();
        h.insert("authorization", format!("Bearer {s}").parse().unwrap());
        h
    };
    let (_, current) = accounts
        .identify_with(&cookie(&first))
        .await
        .unwrap()
        .unwrap();
    assert!(accounts
        .identify(&cookie(&expired))
        .await
        .unwrap()
        .is_none());
    // Listed newest first, the expired session left out.
    let listed = accounts.secrets_of(&a).await.unwrap();
    let hashes: Vec<&str> = listed.iter().map(|r| r.hash.as_str()).collect();
    assert_eq!(
        hashes,
        [
            secret_hash(&second),
            secret_hash(&first),
            secret_hash(&token)
        ]
    );
    // One revoked by its handle.
    let handle = handle_of(&secret_hash(&second)).to_string();
    assert_eq!(accounts.revoke(&a, Some(&handle), None).await.unwrap(), 1);
    assert!(accounts.identify(&cookie(&second)).await.unwrap().is_none());
    assert!(accounts.still_valid(&a, &current).await.unwrap());
    // A password change revokes the others (the token, the expired session), keeps this one.
    let wrong = accounts
        .change_password(
            &a,
            &current,
            "not it at all".into(),
            "another password".into(),
        )
        .await
        .unwrap_err();
    assert_eq!(wrong.code(), "wrong-password");
    let revoked = accounts
        .change_password(
            &a,
            &current,
            "a long password".into(),
            "another password".into(),
        )
        .await
        .unwrap();
    assert_eq!(revoked, 2);
    assert!(accounts.identify(&bearer(&token)).await.is_err());
    assert!(accounts.still_valid(&a, &current).await.unwrap());
    assert!(accounts
        .log_in(&a.name, "another password".into())
        .await
        .is_ok());
    // Expired sessions are forgotten; then every session at once.
    db.add_secret(
        a.id,
        SecretKind::Session,
        secret_hash(&expired),
        now - 31 * day,
    )
    .await
    .unwrap();
    assert!(accounts.forget_expired().await.unwrap() >= 1);
    assert_eq!(accounts.revoke(&a, None, None).await.unwrap(), 1);
    assert!(!accounts.still_valid(&a, &current).await.unwrap());
    // An open game a day old is withdrawn by another process at its start.
    let game = NewGame {
        initial_ms: 300_000,
        increment_ms: 3_000,
        rated: false,
        chat: true,
        rules: damasi_online::variant::FEDERATION,
    };
    let fresh = online
        .create(Some(&a), game, None)
        .await
        .unwrap()
        .id
        .clone();
    // Its copy made a day ago (a stored game's creation time is never changed).
    let (mut row, _) = db.game(&fresh).await.unwrap().unwrap();
    let id = name("old");
    row.id = id.clone();
    row.created_ms = now - 25 * 60 * 60 * 1000;
    db.save_game(row).await.unwrap();
    let other = Online::new(
        OnlineDb::connect(&url).await.unwrap(),
        OnlineConfig::default(),
    );
    other.resume_all().await.unwrap();
    let (row, _) = db.game(&id).await.unwrap().unwrap();
    assert_eq!(
        (row.status.as_str(), row.outcome.as_deref()),
        ("over", Some("aborted"))
    );
    assert!(!db.unfinished().await.unwrap().contains(&id));
    assert_eq!(db.game(&fresh).await.unwrap().unwrap().0.status, "open");
}

/// A TCP relay to the PostgreSQL server that the test can cut (every connection dropped, new
/// ones refused: the database is away) and restore.
struct Relay {
    addr: std::net::SocketAddr,
    up: std::sync::Arc<std::sync::atomic::AtomicBool>,
    links: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>>,
}

impl Relay {
    async fn start(target: String) -> Relay {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::{Arc, Mutex};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let up = Arc::new(AtomicBool::new(true));
        let links: Arc<Mutex<Vec<tokio::task::AbortHandle>>> = Arc::default();
        let (up2, links2) = (up.clone(), links.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !up2.load(Ordering::SeqCst) {
                    continue; // dropped: the connection is refused
                }
                let target = target.clone();
                let task = tokio::spawn(async move {
                    if let Ok(mut server) = tokio::net::TcpStream::connect(&target).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                links2.lock().unwrap().push(task.abort_handle());
            }
        });
        Relay { addr, up, links }
    }

    fn cut(&self) {
        self.up.store(false, std::sync::atomic::Ordering::SeqCst);
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }

    fn restore(&self) {
        self.up.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A flag that falls while PostgreSQL is away is stored once it is back (#32 item 7): the
/// service tries again every second instead of showing `time` while the database still says
/// `playing` (and no rating changed) until a restart.
#[tokio::test]
async fn a_flag_that_falls_while_the_database_is_away_is_stored_when_it_is_back() {
    let Some(url) = url() else { return };
    // postgres://USER@HOST:PORT/DB, with HOST:PORT replaced by the relay's.
    let (head, rest) = url.split_once('@').unwrap();
    let (target, db_name) = rest.split_once('/').unwrap();
    let relay = Relay::start(target.to_string()).await;
    let relayed = format!("{head}@{}/{db_name}", relay.addr);
    let direct = OnlineDb::connect(&url).await.unwrap();
    let online = Online::new(
        OnlineDb::connect(&relayed).await.unwrap(),
        OnlineConfig::default(),
    );
    let a = online.accounts().add_bot(&name("fa"), 0).await.unwrap();
    let b = online.accounts().add_bot(&name("fb"), 0).await.unwrap();
    // 15 seconds for the game, no increment, rated.
    let quick = NewGame {
        initial_ms: 15_000,
        increment_ms: 0,
        rated: true,
        chat: false,
        rules: damasi_online::variant::FEDERATION,
    };
    let t = online.create_paired(&a, &b, quick).await.unwrap();
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    // The database goes away; White's 15 s run out meanwhile.
    relay.cut();
    tokio::time::sleep(std::time::Duration::from_secs(17)).await;
    let (row, _) = direct.game(&t.id).await.unwrap().unwrap();
    assert_eq!(row.status, "playing", "nothing could be stored yet");
    relay.restore();
    // Stored within a few tries.
    let mut stored = None;
    for _ in 0..50 {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let (row, _) = direct.game(&t.id).await.unwrap().unwrap();
        if row.status == "over" {
            stored = Some(row);
            break;
        }
    }
    let row = stored.expect("the game's end is stored once the database is back");
    assert_eq!(row.outcome.as_deref(), Some("black:time"), "{row:?}");
    assert!(
        row.diffs[0].is_some_and(|d| d < 0),
        "White lost rating: {row:?}"
    );
    assert!(row.diffs[1].is_some_and(|d| d > 0), "Black gained: {row:?}");
}

#[tokio::test]
async fn follows_blocks_histories_and_leaderboards_in_postgres() {
    let Some(url) = url() else { return };
    let db = OnlineDb::connect(&url).await.expect("connect");
    let online = Online::new(db, OnlineConfig::default());
    players::follows_and_blocks(&online, &name("rf")).await;
    players::history_records_and_leaderboard(&online, &name("lb")).await;
}

/// The rules a game is played under are stored with it (`online_games.rules`) and come back
/// in a second service over the same database: a game under `no-capture-limit 4` reloaded
/// after three quiet plies is drawn by the fourth (docs/rules.md "Rule-set options"), while
/// the same plies go on under the federation's rules; the game lists carry the rules too.
#[tokio::test]
async fn a_games_rules_are_stored_in_postgres_and_survive_a_restart() {
    let Some(url) = url() else { return };
    let db = OnlineDb::connect(&url).await.unwrap();
    let online = Online::new(db.clone(), OnlineConfig::default());
    let a = online.accounts().add_bot(&name("ra"), 0).await.unwrap();
    let b = online.accounts().add_bot(&name("rb"), 0).await.unwrap();
    let limit = damasi::RuleSet::from_name("turkish; no-capture-limit 4").unwrap();
    let casual = |rules| NewGame {
        initial_ms: 300_000,
        increment_ms: 2_000,
        rated: false,
        chat: true,
        rules,
    };
    let limited = online.create_paired(&a, &b, casual(limit)).await.unwrap();
    let standard = online
        .create_paired(&a, &b, casual(damasi::RuleSet::default()))
        .await
        .unwrap();
    for id in [&limited.id, &standard.id] {
        play(&online, id, &a, "a3-a4").await.unwrap();
        play(&online, id, &b, "h6-h5").await.unwrap();
        play(&online, id, &a, "b3-b4").await.unwrap();
    }
    let (row, _) = db.game(&limited.id).await.unwrap().unwrap();
    assert_eq!(row.rules, limit);
    // Another service over the same database (a restart, or another process).
    let other = Online::new(
        OnlineDb::connect(&url).await.unwrap(),
        OnlineConfig::default(),
    );
    let drawn = play(&other, &limited.id, &b, "g6-g5").await.unwrap();
    assert_eq!(drawn["outcome"], "draw:no-capture-limit", "{drawn}");
    let goes_on = play(&other, &standard.id, &b, "g6-g5").await.unwrap();
    assert_eq!(goes_on["status"], "started", "{goes_on}");
    let refused = play(&other, &limited.id, &a, "c3-c4").await.unwrap_err();
    assert_eq!(refused.code(), "game-over");
    play(&other, &standard.id, &a, "c3-c4").await.unwrap();
    let full = other.full(&limited.id, None).await.unwrap();
    assert_eq!(full.variant.key, "turkish; no-capture-limit 4");
    let listed = db.games_of(a.id, 10).await.unwrap();
    let rules_of = |id: &str| listed.iter().find(|g| g.row.id == id).unwrap().row.rules;
    assert_eq!(rules_of(&limited.id), limit);
    assert_eq!(rules_of(&standard.id), damasi::RuleSet::default());
    assert_eq!(listed[0].names[0].as_deref(), Some(a.name.as_str()));
    let page = db
        .games_page(a.id, Default::default(), 0, 10)
        .await
        .unwrap();
    assert!(page.0.iter().any(|g| g.row.rules == limit && g.plies == 4));
}

/// A database made before games had rules: the column is added on connection, and the games
/// stored before are the federation's. Played in a schema of its own (`search_path`), so the
/// other tests' tables are untouched.
#[tokio::test]
async fn games_stored_before_the_rules_column_read_as_the_default() {
    let Some(url) = url() else { return };
    let schema = name("old_schema_");
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    // The tables of the time, as they were: online_games without `rules`.
    client
        .batch_execute(&format!(
            "CREATE SCHEMA {schema};
             SET search_path TO {schema};
             CREATE TABLE users (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, password TEXT,
                 guest BOOLEAN NOT NULL DEFAULT FALSE, created_ms BIGINT NOT NULL);
             CREATE UNIQUE INDEX users_name ON users (lower(name));
             CREATE TABLE online_games (id TEXT PRIMARY KEY, created_ms BIGINT NOT NULL,
                 white_id BIGINT REFERENCES users(id), black_id BIGINT REFERENCES users(id),
                 initial_ms BIGINT NOT NULL, increment_ms BIGINT NOT NULL, rated BOOLEAN NOT NULL,
                 chat BOOLEAN NOT NULL, status TEXT NOT NULL, outcome TEXT,
                 turn_started_ms BIGINT, white_diff BIGINT, black_diff BIGINT,
                 invited_id BIGINT REFERENCES users(id));
             INSERT INTO online_games (id, created_ms, initial_ms, increment_ms, rated, chat, status)
                 VALUES ('oldgame1', 1, 300000, 2000, TRUE, TRUE, 'open');"
        ))
        .await
        .unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    let scoped = format!("{url}{sep}options=-c%20search_path%3D{schema}");
    let db = OnlineDb::connect(&scoped)
        .await
        .expect("the old tables take the new column");
    let (row, moves) = db.game("oldgame1").await.unwrap().unwrap();
    assert_eq!(row.rules, damasi::RuleSet::default());
    assert!(moves.is_empty());
    let kind: String = client
        .query_one(
            "SELECT column_default FROM information_schema.columns \
             WHERE table_schema = $1 AND table_name = 'online_games' AND column_name = 'rules'",
            &[&schema],
        )
        .await
        .unwrap()
        .get(0);
    assert!(kind.contains("turkish"), "{kind}");
    client
        .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
        .await
        .unwrap();
}

/// A process starting beside others that serve (a cluster's second node, a restart) on a
/// database already set up takes no lock on the tables: its connection completes while
/// another client holds a change open on `users`, where running the tables' `ALTER TABLE`s
/// again would wait for that change (and could deadlock with it, as two tests connecting
/// beside each other did).
#[tokio::test]
async fn connecting_to_a_current_database_takes_no_lock_on_the_tables() {
    let Some(url) = url() else { return };
    OnlineDb::connect(&url).await.unwrap();
    let (mut client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let open = client.transaction().await.unwrap();
    open.batch_execute(
        "LOCK TABLE users IN ROW EXCLUSIVE MODE; LOCK TABLE online_games IN ROW EXCLUSIVE MODE; \
         LOCK TABLE secrets IN ROW EXCLUSIVE MODE",
    )
    .await
    .unwrap();
    let second =
        tokio::time::timeout(std::time::Duration::from_secs(10), OnlineDb::connect(&url)).await;
    assert!(
        matches!(second, Ok(Ok(_))),
        "a second connection waited on the tables or failed"
    );
    open.rollback().await.unwrap();
}

/// The opening explorer's store in PostgreSQL: games counted (by the differences they make,
/// the database being shared with other tests and runs), each once, the masters apart, the
/// filters, the best game's lookup, and the catch-up's query. (The same checks on SQLite, with
/// whole numbers, are `crates/damasi-online/tests/explorer.rs`.)
#[tokio::test]
async fn the_explorer_counts_games_once_in_postgres() {
    use damasi::{DrawReason, Outcome, Position, WinReason};
    use damasi_online::explorer::sources::game_of;
    use damasi_online::explorer::{
        explore, ExploredGame, ExplorerAnswer, Filter, GameFacts, Request, Source,
    };
    use damasi_online::rating::Speed;

    let Some(url) = url() else { return };
    let db = OnlineDb::connect(&url).await.unwrap();
    let game = |key: &str, moves: &[&str], outcome: Outcome, speed: Speed, ratings: [i64; 2]| {
        let facts = GameFacts {
            names: [Some("w".into()), Some("b".into())],
            ratings: [Some(ratings[0]), Some(ratings[1])],
            speed: Some(speed),
            at_ms: 1,
            year: None,
            month: None,
        };
        let g = game_of(moves).unwrap();
        ExploredGame::new(Source::Server, key.into(), &g, Some(outcome), facts).unwrap()
    };
    let ask = |source: Source, play: &'static str, filter: Filter| {
        let db = db.clone();
        async move {
            let mut req = Request::new(source, Request::play(Position::start(), play).unwrap());
            req.filter = filter;
            explore(&db, &req).await.unwrap()
        }
    };
    // A move's (white, draws, black), zeros when absent.
    let counts = |a: &ExplorerAnswer, uci: &str| {
        a.moves
            .iter()
            .find(|m| m.uci == uci)
            .map_or([0, 0, 0], |m| [m.white, m.draws, m.black])
    };
    let top_blitz = Filter::parse(Some("blitz"), Some("2500")).unwrap();
    let before = ask(Source::Server, "", Filter::default()).await;
    let before_c4 = ask(Source::Server, "c3-c4", Filter::default()).await;
    let before_blitz = ask(Source::Server, "", top_blitz).await;
    let before_masters = ask(Source::Masters, "", Filter::default()).await;

    let (k1, k2) = (name("xp1-"), name("xp2-"));
    let white = Outcome::Win {
        winner: damasi::Color::White,
        reason: WinReason::Resignation,
    };
    let draw = Outcome::Draw(DrawReason::Agreement);
    let games = vec![
        game(&k1, &["c3-c4", "f6-f5"], white, Speed::Blitz, [3000, 3000]),
        game(&k2, &["c3-c4"], draw, Speed::Rapid, [1500, 1500]),
    ];
    assert_eq!(db.explore_games(games.clone()).await.unwrap(), 2);
    // Offered again (another process heard them end too): nothing counted.
    assert_eq!(db.explore_games(games).await.unwrap(), 0);

    let after = ask(Source::Server, "", Filter::default()).await;
    let c4 = counts(&after, "c3-c4");
    let was = counts(&before, "c3-c4");
    assert_eq!([c4[0] - was[0], c4[1] - was[1], c4[2] - was[2]], [1, 1, 0]);
    assert_eq!(after.white - before.white, 1);
    assert_eq!(after.draws - before.draws, 1);
    // After c3-c4 only the first went on, with f6-f5.
    let after_c4 = ask(Source::Server, "c3-c4", Filter::default()).await;
    let (f5, was) = (counts(&after_c4, "f6-f5"), counts(&before_c4, "f6-f5"));
    assert_eq!([f5[0] - was[0], f5[1] - was[1], f5[2] - was[2]], [1, 0, 0]);
    // Blitz in the band 2500: the first game alone, and it is the best-rated game there (the
    // newest of equals), found by its number.
    let blitz = ask(Source::Server, "", top_blitz).await;
    assert_eq!(blitz.white - before_blitz.white, 1);
    assert_eq!(blitz.draws - before_blitz.draws, 0);
    assert_eq!(blitz.top_games[0].id, k1);
    assert_eq!(blitz.top_games[0].white.rating, Some(3000));
    // The masters are untouched.
    assert_eq!(
        ask(Source::Masters, "", Filter::default()).await,
        before_masters
    );
    // The catch-up's query runs here too (the games of other tests may or may not be there).
    db.unexplored_games(5).await.unwrap();
}

/// Two processes of a cluster counting the same games at once (each its own connection, the
/// games offered in opposite orders, sharing rows): every game is counted once, and neither
/// waits for the other in a circle (the rows are written in one order by every transaction).
#[tokio::test]
async fn two_processes_count_the_same_games_once_in_postgres() {
    use damasi::{DrawReason, Outcome, Position};
    use damasi_online::explorer::sources::game_of;
    use damasi_online::explorer::{explore, ExploredGame, GameFacts, Request, Source};
    use damasi_online::rating::Speed;

    let Some(url) = url() else { return };
    let (one, two) = (
        OnlineDb::connect(&url).await.unwrap(),
        OnlineDb::connect(&url).await.unwrap(),
    );
    let lines: [&[&str]; 4] = [
        &["c3-c4", "f6-f5"],
        &["c3-c4", "a6-a5"],
        &["e3-e4", "f6-f5"],
        &["f3-f4", "c6-c5"],
    ];
    let run = name("xc");
    let games: Vec<ExploredGame> = (0..40)
        .map(|i| {
            let facts = GameFacts {
                ratings: [Some(1500), Some(1500)],
                speed: Some(Speed::Blitz),
                ..GameFacts::default()
            };
            let g = game_of(lines[i % 4]).unwrap();
            let draw = Some(Outcome::Draw(DrawReason::Agreement));
            ExploredGame::new(Source::Server, format!("{run}-{i}"), &g, draw, facts).unwrap()
        })
        .collect();
    let draws = |db: OnlineDb| async move {
        explore(&db, &Request::new(Source::Server, Position::start()))
            .await
            .unwrap()
            .draws
    };
    let before = draws(one.clone()).await;
    let mut reversed = games.clone();
    reversed.reverse();
    let (a, b) = tokio::join!(
        async {
            let mut n = 0;
            for chunk in games.chunks(10) {
                n += one.explore_games(chunk.to_vec()).await.unwrap();
            }
            n
        },
        async {
            let mut n = 0;
            for chunk in reversed.chunks(10) {
                n += two.explore_games(chunk.to_vec()).await.unwrap();
            }
            n
        }
    );
    assert_eq!(a + b, 40, "{a} + {b}");
    assert_eq!(draws(two).await - before, 40);
}
