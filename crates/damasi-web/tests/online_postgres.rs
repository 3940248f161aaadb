//! Online play stored in a real PostgreSQL server (`damasi serve --database postgres://...`):
//! accounts and secrets, a rated game with its moves and ratings, a name taken in another case,
//! and a game that comes back in a second service over the same database (a restart, or
//! another server process); sessions and tokens listed, revoked and expired, a password
//! change, and open games withdrawn after a day; follows and blocks, rating histories, records,
//! filtered game lists and leaderboards; e-mail addresses and the mailed confirmation and
//! password-reset links.
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

use damasi_web::online::accounts::Player;
use damasi_web::online::command::Command;
use damasi_web::online::db::SecretKind;
use damasi_web::online::session::Identify;
use damasi_web::online::{NewGame, Online, OnlineConfig};
use damasi_web::OnlineDb;

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
        rules: damasi_web::online::variant::FEDERATION,
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
    use damasi_web::online::accounts::{handle_of, secret_hash};
    let Some(url) = url() else { return };
    let db = OnlineDb::connect(&url).await.unwrap();
    let online = Online::new(db.clone(), OnlineConfig::default());
    let accounts = online.accounts();
    let a = accounts
        .sign_up(&name("sa"), "a long password".into(), 0)
        .await
        .unwrap();
    let now = damasi_web::online::now_ms();
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
        rules: damasi_web::online::variant::FEDERATION,
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
        rules: damasi_web::online::variant::FEDERATION,
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

/// The tables the Telegram bot keeps: accounts reached from another service, and the
/// messages that show games; the same answers from PostgreSQL and SQLite.
#[tokio::test]
async fn outside_accounts_and_shown_games_in_both_stores() {
    let mut stores = vec![OnlineDb::in_memory()];
    if let Some(url) = url() {
        stores.push(OnlineDb::connect(&url).await.expect("connect"));
    }
    for db in stores {
        let online = Online::new(db.clone(), OnlineConfig::default());
        let a = online.accounts().add_bot(&name("oa"), 0).await.unwrap();
        let b = online.accounts().add_bot(&name("ob"), 0).await.unwrap();
        let outside = name("7");
        assert_eq!(
            db.outside_account("telegram", &outside).await.unwrap(),
            None
        );
        db.set_outside_account("telegram", &outside, a.id, r#"{"name":"Ali"}"#)
            .await
            .unwrap();
        let found = db
            .outside_account("telegram", &outside)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (found.user.id, found.settings.as_str()),
            (a.id, r#"{"name":"Ali"}"#)
        );
        // Linking moves it to another account; another service's id of the same text is
        // another person.
        db.set_outside_account("telegram", &outside, b.id, "{}")
            .await
            .unwrap();
        let found = db
            .outside_account("telegram", &outside)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(found.user.id, b.id);
        assert_eq!(db.outside_account("matrix", &outside).await.unwrap(), None);

        let new = NewGame {
            initial_ms: 60_000,
            increment_ms: 0,
            rated: false,
            chat: false,
            rules: damasi_web::online::variant::FEDERATION,
        };
        let game = online.create_paired(&a, &b, new).await.unwrap();
        let message = format!("tg:{}", name("IM"));
        let shown = damasi_web::online::db::ShownGame {
            message: message.clone(),
            game_id: game.id.clone(),
            settings: r#"{"level":0}"#.into(),
        };
        db.add_shown_game(shown.clone()).await.unwrap();
        let again = db.add_shown_game(shown.clone()).await.unwrap_err();
        assert_eq!(again.code(), "message-taken");
        assert_eq!(db.shown_game(&message).await.unwrap(), Some(shown.clone()));
        assert!(db.shown_unfinished("tg:").await.unwrap().contains(&shown));
        assert!(!db.shown_unfinished("xx:").await.unwrap().contains(&shown));
        online.run(&game.id, &a, Command::Abort).await.unwrap();
        assert!(!db.shown_unfinished("tg:").await.unwrap().contains(&shown));

        // A group's message about a tournament, and the bot's notes of what it posted.
        let group = name("tge:-100");
        let event = damasi_web::online::db::ShownEvent {
            message: format!("{group}:5"),
            tournament_id: name("T"),
            settings: r#"{"kind":"swiss"}"#.into(),
        };
        assert_eq!(db.shown_event(&event.message).await.unwrap(), None);
        db.add_shown_event(event.clone()).await.unwrap();
        let again = db.add_shown_event(event.clone()).await.unwrap_err();
        assert_eq!(again.code(), "message-taken");
        assert_eq!(
            db.shown_event(&event.message).await.unwrap(),
            Some(event.clone())
        );
        // By prefix, with LIKE's wildcards taken as themselves.
        assert_eq!(db.shown_events(&group).await.unwrap(), vec![event.clone()]);
        assert!(db.shown_events("tgf:").await.unwrap().is_empty());
        assert!(db
            .shown_events(&group.replace('-', "_"))
            .await
            .unwrap()
            .is_empty());
    }
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

/// The event a game was played in is found among its player's tournaments by the game's id
/// as the stored state quotes it (a PDN of the game names the event), in both stores: not a
/// tournament of others that names it, nor one that names a longer id.
#[tokio::test]
async fn a_players_tournament_is_found_by_a_game_of_it_in_both_stores() {
    use damasi_web::online::db::{TournamentFilter, TournamentRow};
    let mut stores = vec![OnlineDb::in_memory()];
    if let Some(url) = url() {
        stores.push(OnlineDb::connect(&url).await.expect("connect"));
    }
    for db in stores {
        let online = Online::new(db.clone(), OnlineConfig::default());
        let a = online.accounts().add_bot(&name("ta"), 0).await.unwrap();
        let b = online.accounts().add_bot(&name("tb"), 0).await.unwrap();
        let game = name("G");
        let row = |id: &str, data: String, players: Vec<i64>| TournamentRow {
            id: id.to_string(),
            kind: "swiss".into(),
            status: "started".into(),
            name: id.to_string(),
            created_ms: 0,
            starts_ms: None,
            data,
            players,
        };
        let (mine, others, longer) = (name("T1"), name("T2"), name("T3"));
        let names = |g: &str| format!(r#"{{"rounds":[{{"boards":[{{"game":"{g}"}}]}}]}}"#);
        db.save_tournament(row(&mine, names(&game), vec![a.id, b.id]))
            .await
            .unwrap();
        db.save_tournament(row(&others, names(&game), vec![b.id]))
            .await
            .unwrap();
        db.save_tournament(row(&longer, names(&format!("{game}x")), vec![a.id]))
            .await
            .unwrap();
        let ids = |rows: Vec<TournamentRow>| rows.into_iter().map(|r| r.id).collect::<Vec<_>>();
        let found = db
            .tournaments(
                TournamentFilter::PlayerGame {
                    player: a.id,
                    game: &game,
                },
                10,
            )
            .await
            .unwrap();
        assert_eq!(ids(found), std::slice::from_ref(&mine));
        let mut of_b = ids(db
            .tournaments(
                TournamentFilter::PlayerGame {
                    player: b.id,
                    game: &game,
                },
                10,
            )
            .await
            .unwrap());
        of_b.sort();
        let mut both = vec![mine.clone(), others.clone()];
        both.sort();
        assert_eq!(of_b, both);
        let mut of_a = ids(db
            .tournaments(TournamentFilter::Player(a.id), 10)
            .await
            .unwrap());
        of_a.sort();
        let mut expected = vec![mine, longer];
        expected.sort();
        assert_eq!(of_a, expected);
    }
}

/// The opening explorer's store in PostgreSQL: games counted (by the differences they make,
/// the database being shared with other tests and runs), each once, the masters apart, the
/// filters, the best game's lookup, and the catch-up's query. (The same checks on SQLite, with
/// whole numbers, are `crates/damasi-online/tests/explorer.rs`.)
#[tokio::test]
async fn the_explorer_counts_games_once_in_postgres() {
    use damasi::{DrawReason, Outcome, Position, WinReason};
    use damasi_web::online::explorer::sources::game_of;
    use damasi_web::online::explorer::{
        explore, ExploredGame, ExplorerAnswer, Filter, GameFacts, Request, Source,
    };
    use damasi_web::online::rating::Speed;

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
    use damasi_web::online::explorer::sources::game_of;
    use damasi_web::online::explorer::{explore, ExploredGame, GameFacts, Request, Source};
    use damasi_web::online::rating::Speed;

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

#[tokio::test]
async fn bots_and_closed_accounts_in_both_stores() {
    let mut stores = vec![OnlineDb::in_memory()];
    if let Some(url) = url() {
        stores.push(OnlineDb::connect(&url).await.expect("connect"));
    }
    for db in stores {
        let online = Online::new(db.clone(), OnlineConfig::default());
        let acc = online.accounts();
        let (a, b) = (
            acc.add_bot(&name("ca"), 0).await.unwrap(),
            acc.add_bot(&name("cb"), 0).await.unwrap(),
        );
        let bot = acc.add_bot(&name("cr"), 0).await.unwrap();
        // A BOT, read back as one; an account with a game played cannot become one.
        assert!(acc.upgrade_to_bot(&bot).await.unwrap().bot);
        assert!(db.user(bot.id).await.unwrap().unwrap().bot);
        players::rated_win(&online, &a, &b).await;
        assert_eq!(
            acc.upgrade_to_bot(&b).await.unwrap_err().code(),
            "games-played"
        );
        assert!(!db.user(b.id).await.unwrap().unwrap().bot);

        // Closing a: renamed, closed, its token and follows gone, its old name out of use.
        let token = acc.issue(a.id, SecretKind::Token, 0).await.unwrap();
        online.follow(&b, &a.name).await.unwrap();
        let new_name = online.close_account(&a, None).await.unwrap();
        let row = db.user(a.id).await.unwrap().unwrap();
        assert_eq!(row.name, new_name);
        assert!(row.closed_ms.is_some() && row.password.is_none());
        assert!(db.user_by_name(&a.name).await.unwrap().is_none());
        assert_eq!(
            acc.identify_by(Some(&token), None)
                .await
                .unwrap_err()
                .code(),
            "unauthorized"
        );
        assert!(online.following(&b).await.unwrap().is_empty());
        for upper in [a.name.clone(), a.name.to_uppercase()] {
            assert_eq!(
                acc.add_bot(&upper, 0).await.unwrap_err().code(),
                "name-taken"
            );
        }
        // Its game stays, under the new name.
        assert_eq!(db.games_of(b.id, 10).await.unwrap().len(), 1);
        assert_eq!(db.record(a.id).await.unwrap().all, 1);
    }
}

#[tokio::test]
async fn reports_marks_refunds_and_the_log_in_both_stores() {
    use damasi_web::online::moderation::Action;
    let mut stores = vec![OnlineDb::in_memory()];
    if let Some(url) = url() {
        stores.push(OnlineDb::connect(&url).await.expect("connect"));
    }
    for db in stores {
        let online = Online::new(db.clone(), OnlineConfig::default());
        let acc = online.accounts();
        let cheat = acc.add_bot(&name("mc"), 0).await.unwrap();
        let victim = acc.add_bot(&name("mv"), 0).await.unwrap();
        let moderator = acc.add_bot(&name("mm"), 0).await.unwrap();
        let game = players::rated_win(&online, &cheat, &victim).await;
        let lost = -db.game(&game).await.unwrap().unwrap().0.diffs[1].unwrap();
        let before = db.rating(victim.id, "blitz").await.unwrap().unwrap().rating;
        let id = online
            .report(&victim, &cheat.name, Some(&game), "cheating", "too good")
            .await
            .unwrap();
        assert!(id > 0);
        assert_eq!(
            online.report_queue(&moderator).await.unwrap_err().code(),
            "not-a-moderator"
        );
        online.set_moderator(&moderator.name, true).await.unwrap();
        let queue = online.report_queue(&moderator).await.unwrap();
        let mine: Vec<_> = queue.iter().filter(|r| r["id"] == id).collect();
        assert_eq!(mine.len(), 1);
        assert_eq!(mine[0]["evidence"]["rated"], true);
        let mute = Action::Mute { minutes: 5 };
        online
            .moderate(Some(&moderator), &cheat.name, mute)
            .await
            .unwrap();
        assert_eq!(
            online.check_may_chat(cheat.id).await.unwrap_err().code(),
            "muted"
        );
        let done = online
            .moderate(Some(&moderator), &cheat.name, Action::Engine)
            .await
            .unwrap();
        assert_eq!(done["refunds"][0]["points"], lost as f64);
        let again = online
            .moderate(Some(&moderator), &cheat.name, Action::Engine)
            .await
            .unwrap();
        assert_eq!(again["refunds"], serde_json::json!([]));
        let after = db.rating(victim.id, "blitz").await.unwrap().unwrap().rating;
        assert!((after - before - lost as f64).abs() < 1e-6);
        let history = db.rating_history(victim.id).await.unwrap();
        assert!((history.last().unwrap().rating - after).abs() < 1e-6);
        let log = online
            .moderation_log(None, Some(&cheat.name), 10)
            .await
            .unwrap();
        let actions: Vec<&str> = log.iter().filter_map(|l| l["action"].as_str()).collect();
        assert_eq!(actions, ["engine", "engine", "mute"]);
        assert!(online
            .report_queue(&moderator)
            .await
            .unwrap()
            .iter()
            .all(|r| r["id"] != id));
    }
}

/// The e-mail address and the mailed links (`recovery`), the same in both stores: an address
/// unique whatever the case, a confirmation link used once, a reset link valid for an hour and
/// used once, older reset links void after a reset, sessions revoked and API tokens kept.
async fn mail_links_in(db: OnlineDb) {
    let accounts = Online::new(db, OnlineConfig::default()).accounts().clone();
    let (na, nb) = (name("ma"), name("mb"));
    let a = accounts
        .sign_up(&na, "a long password".into(), 0)
        .await
        .unwrap();
    let b = accounts
        .sign_up(&nb, "a long password".into(), 0)
        .await
        .unwrap();
    let now = damasi_online::now_ms();
    let address = format!("{na}@Dama.example");
    let confirm = accounts
        .change_email(&a, "a long password".into(), &address, now)
        .await
        .unwrap();
    let taken = accounts
        .change_email(&b, "a long password".into(), &address.to_uppercase(), 1_000)
        .await
        .unwrap_err();
    assert_eq!(taken.code(), "email-taken");
    // An unconfirmed address gets no reset link.
    assert!(accounts
        .reset_request(&address, 2_000)
        .await
        .unwrap()
        .is_none());
    // A session presented as a confirmation link confirms nothing and stays.
    let session = accounts
        .issue(a.id, SecretKind::Session, now)
        .await
        .unwrap();
    assert!(accounts.confirm_email(&session, now).await.is_err());
    assert!(accounts
        .identify_by(None, Some(&session))
        .await
        .unwrap()
        .is_some());
    let token = accounts.issue(a.id, SecretKind::Token, now).await.unwrap();
    assert_eq!(
        accounts.confirm_email(&confirm, now).await.unwrap().id,
        a.id
    );
    assert!(accounts.confirm_email(&confirm, now).await.is_err());
    let stored = accounts.email_of(&a).await.unwrap().unwrap();
    assert_eq!(stored.address, address);
    assert_eq!(stored.confirmed_ms, Some(now));

    let hour = 60 * 60 * 1000;
    let expired = accounts
        .reset_request(&address.to_lowercase(), now - hour - 1)
        .await
        .unwrap()
        .unwrap();
    assert!(accounts.reset_target(&expired.secret, now).await.is_err());
    let older = accounts
        .reset_request(&address, now)
        .await
        .unwrap()
        .unwrap();
    let used = accounts
        .reset_request(&address, now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(used.player.id, a.id);
    let (who, revoked) = accounts
        .reset_password(&used.secret, "a new long password".into(), now + 1)
        .await
        .unwrap();
    assert_eq!(who.id, a.id);
    assert_eq!(revoked, 4, "the session and three reset links");
    assert!(accounts
        .identify_by(None, Some(&session))
        .await
        .unwrap()
        .is_none());
    assert!(accounts
        .identify_by(Some(&token), None)
        .await
        .unwrap()
        .is_some());
    for gone in [&older.secret, &used.secret] {
        let e = accounts
            .reset_password(gone, "another long one".into(), now + 2)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "not-found");
    }
    assert!(accounts
        .log_in(&na, "a new long password".into())
        .await
        .is_ok());
    // The operator's address, and its removal.
    accounts
        .set_email_of(&nb, Some(&format!("{nb}@dama.example")), now)
        .await
        .unwrap();
    assert!(accounts
        .reset_request(&format!("{nb}@DAMA.example"), now)
        .await
        .unwrap()
        .is_some());
    accounts.set_email_of(&nb, None, now).await.unwrap();
    assert_eq!(accounts.email_of(&b).await.unwrap(), None);
}

#[tokio::test]
async fn mail_links_in_both_stores() {
    mail_links_in(OnlineDb::in_memory()).await;
    let Some(url) = url() else { return };
    mail_links_in(OnlineDb::connect(&url).await.unwrap()).await;
}

/// The second factor and tokens' scopes, the same in both stores: a pending secret turned on
/// by a code, each code accepted once and none of an earlier step, recovery codes used once
/// and only by their account, and a token's scopes stored and listed. The codes are RFC
/// 6238's published ones (Appendix B, the SHA-1 secret "12345678901234567890"; six digits are
/// the last six of the eight), not computed by the code under test.
async fn two_factors_in(db: OnlineDb) {
    let accounts = Online::new(db.clone(), OnlineConfig::default())
        .accounts()
        .clone();
    let (na, nb) = (name("tfa"), name("tfb"));
    let a = accounts
        .sign_up(&na, "a long password".into(), 0)
        .await
        .unwrap();
    let b = accounts
        .sign_up(&nb, "a long password".into(), 0)
        .await
        .unwrap();
    let rfc_secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
    assert!(db
        .set_pending_two_factor(a.id, rfc_secret.into())
        .await
        .unwrap());
    let codes = accounts
        .enable_two_factor(&a, "050471", 1111111111)
        .await
        .unwrap();
    assert_eq!(codes.len(), 10);
    assert!(!db
        .set_pending_two_factor(a.id, "AAAA".into())
        .await
        .unwrap());
    let log_in = |code: Option<&'static str>, t: u64| {
        let (accounts, na) = (accounts.clone(), na.clone());
        async move {
            accounts
                .log_in_with_code(&na, "a long password".into(), code, t)
                .await
                .map(|p| p.id)
                .map_err(|e| e.code())
        }
    };
    assert_eq!(log_in(None, 1234567890).await, Err("two-factor-needed"));
    assert_eq!(log_in(Some("005924"), 1234567890).await, Ok(a.id));
    assert_eq!(
        log_in(Some("005924"), 1234567890).await,
        Err("two-factor-wrong")
    );
    assert_eq!(
        log_in(Some("050471"), 1111111111).await,
        Err("two-factor-wrong")
    );
    assert_eq!(log_in(Some("279037"), 2000000000).await, Ok(a.id));
    // A recovery code: not another account's, and once.
    assert!(!accounts
        .check_second_factor(b.id, &codes[0], 2000000000)
        .await
        .unwrap());
    assert!(accounts
        .check_second_factor(a.id, &codes[0], 2000000000)
        .await
        .unwrap());
    assert!(!accounts
        .check_second_factor(a.id, &codes[0], 2000000000)
        .await
        .unwrap());
    assert_eq!(db.recovery_codes_left(a.id).await.unwrap(), 9);
    accounts
        .disable_two_factor(&a, "a long password".into(), &codes[1], 2000000000)
        .await
        .unwrap();
    assert_eq!(db.two_factor(a.id).await.unwrap(), None);
    assert_eq!(db.recovery_codes_left(a.id).await.unwrap(), 0);
    assert_eq!(log_in(None, 2000000000).await, Ok(a.id));
    // Tokens' scopes.
    let token = accounts.issue(a.id, SecretKind::Token, 0).await.unwrap();
    let hash = damasi_web::online::accounts::secret_hash(&token);
    assert_eq!(db.token_scopes(hash.clone()).await.unwrap(), None);
    db.set_token_scopes(
        hash.clone(),
        Some("board:play challenge:read".into()),
        Some("my bot".into()),
    )
    .await
    .unwrap();
    assert_eq!(
        db.token_scopes(hash.clone()).await.unwrap().as_deref(),
        Some("board:play challenge:read")
    );
    let listed = db.tokens_of(a.id).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].hash, hash);
    assert_eq!(listed[0].description.as_deref(), Some("my bot"));
}

#[tokio::test]
async fn two_factors_and_token_scopes_in_both_stores() {
    two_factors_in(OnlineDb::in_memory()).await;
    let Some(url) = url() else { return };
    two_factors_in(OnlineDb::connect(&url).await.unwrap()).await;
}

/// The fair-play screen's storage: a rated game is found unscreened, claimed by one caller
/// (another is refused until the claim is stale), its sides kept once, read back newest
/// first; and a report with no reporter (the screen's) is kept and listed.
#[tokio::test]
async fn fair_play_screens_and_reports_in_both_stores() {
    use damasi_web::online::db::{ReportRow, ScreenRow};
    let mut stores = vec![OnlineDb::in_memory()];
    if let Some(url) = url() {
        stores.push(OnlineDb::connect(&url).await.expect("connect"));
    }
    for db in stores {
        let online = Online::new(db.clone(), OnlineConfig::default());
        let acc = online.accounts();
        let (a, b) = (
            acc.add_bot(&name("fa"), 0).await.unwrap(),
            acc.add_bot(&name("fb"), 0).await.unwrap(),
        );
        let game = players::rated_win(&online, &a, &b).await;
        let unscreened = db.unscreened_games(0, 0, 10_000).await.unwrap();
        assert!(unscreened.contains(&game));
        assert!(db.claim_screen(&game, 1_000, 0).await.unwrap());
        // Claimed at 1,000: refused to a second caller, not stale before 1,000.
        assert!(!db.claim_screen(&game, 2_000, 500).await.unwrap());
        assert!(!db
            .unscreened_games(0, 500, 10_000)
            .await
            .unwrap()
            .contains(&game));
        // A claim older than the stale mark is found again and taken over.
        assert!(db
            .unscreened_games(0, 1_500, 10_000)
            .await
            .unwrap()
            .contains(&game));
        assert!(db.claim_screen(&game, 3_000, 1_500).await.unwrap());
        let row = |color: i64, user: i64, at_ms: i64| ScreenRow {
            game_id: game.clone(),
            color,
            user_id: user,
            at_ms,
            moves: 20,
            agreed: 17 + color,
            loss_cm: 40,
            think_mean_ms: 1200,
            think_sd_ms: 300,
        };
        db.finish_screen(&game, vec![row(0, a.id, 4_000), row(1, b.id, 4_000)], 4_000)
            .await
            .unwrap();
        // Done: never claimed or listed again; a side kept twice stays one row.
        assert!(!db.claim_screen(&game, 9_000_000, 8_000_000).await.unwrap());
        assert!(!db
            .unscreened_games(0, i64::MAX, 10_000)
            .await
            .unwrap()
            .contains(&game));
        db.finish_screen(&game, vec![row(0, a.id, 5_000)], 5_000)
            .await
            .unwrap();
        assert_eq!(
            db.screens_of(a.id, 10).await.unwrap(),
            vec![row(0, a.id, 4_000)]
        );
        assert_eq!(
            db.screens_of(b.id, 10).await.unwrap(),
            vec![row(1, b.id, 4_000)]
        );

        let id = db
            .add_report(ReportRow {
                id: 0,
                created_ms: 6_000,
                reporter: None,
                reported: a.id,
                game_id: Some(game.clone()),
                reason: "cheating".into(),
                note: "fair-play screen".into(),
                evidence: "{}".into(),
                closed_ms: None,
            })
            .await
            .unwrap();
        let open = db.reports(true, Some(a.id), 10).await.unwrap();
        assert_eq!(open.len(), 1);
        assert_eq!((open[0].id, open[0].reporter), (id, None));
    }
}
