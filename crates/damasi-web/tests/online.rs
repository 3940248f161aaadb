//! The online game service with the clock paused: seats, clocks and increments, the flag and
//! the abort falling with nobody there, lag compensation, reconnection and claims, offers,
//! rematch, ratings, and a game that survives a restart.

use std::time::Duration;

#[path = "support/commands.rs"]
mod commands;
#[path = "support/ratings.rs"]
mod ratings;

use commands::play;

use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::db::OnlineDb;
use damasi_online::{NewGame, Online, OnlineConfig};
use damasi_web::ApiError;
use serde_json::Value;

fn service() -> Online {
    Online::new(OnlineDb::in_memory(), OnlineConfig::default())
}

async fn two_players(online: &Online) -> (Player, Player) {
    let a = online.accounts().add_bot("ayse", 0).await.unwrap();
    let b = online.accounts().add_bot("mehmet", 0).await.unwrap();
    (a, b)
}

const BLITZ: NewGame = NewGame {
    initial_ms: 180_000,
    increment_ms: 2_000,
    rated: false,
    chat: true,
    rules: damasi_online::variant::FEDERATION,
};

async fn state(online: &Online, id: &str) -> Value {
    let t = online.table(id).await.unwrap();
    let s = t.state.lock().await;
    let state = s.state(tokio::time::Instant::now());
    wire(&damasi_online::messages::GameMessage::from(state))
}

/// A typed message or event as the wire writes it.
fn wire<T: serde::Serialize>(m: &T) -> Value {
    serde_json::to_value(m).unwrap()
}

async fn wait() {
    // Let spawned timer tasks run.
    for _ in 0..5 {
        tokio::task::yield_now().await;
    }
}

fn retry_after(e: &ApiError) -> Option<u64> {
    match e {
        ApiError::Limited { retry_after, .. } => *retry_after,
        _ => None,
    }
}

fn code(e: ApiError) -> &'static str {
    e.code()
}

#[tokio::test(start_paused = true)]
async fn a_friend_takes_the_free_seat_and_both_hear_the_game_start() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let mut a_events = online.user_events(a.id);
    let mut b_events = online.user_events(b.id);
    let t = online
        .create(Some(&a), BLITZ, Some(damasi::Color::White))
        .await
        .unwrap();
    assert_eq!(state(&online, &t.id).await["status"], "created");
    // Nobody can move before the seat is taken.
    assert_eq!(
        code(play(&online, &t.id, &a, "c3-c4").await.unwrap_err()),
        "not-started"
    );
    let side = online.join(&t.id, &b, None).await.unwrap();
    assert_eq!(side, damasi::Color::Black);
    for rx in [&mut a_events, &mut b_events] {
        let e = wire(&*rx.recv().await.unwrap());
        assert_eq!(e["type"], "gameStart");
        assert_eq!(e["game"]["id"], t.id.as_str());
    }
    // A third person cannot sit; the players keep their seats.
    let c = online.accounts().add_bot("zeynep", 0).await.unwrap();
    assert_eq!(
        code(online.join(&t.id, &c, None).await.unwrap_err()),
        "seats-taken"
    );
    assert_eq!(
        online.join(&t.id, &a, None).await.unwrap(),
        damasi::Color::White
    );
    assert_eq!(state(&online, &t.id).await["status"], "started");
}

#[tokio::test(start_paused = true)]
async fn moves_are_charged_with_the_increment_and_only_the_mover_may_move() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let t = online.create_paired(&a, &b, BLITZ).await.unwrap();
    let mut events = t.events.subscribe();
    assert_eq!(
        code(play(&online, &t.id, &b, "c6-c5").await.unwrap_err()),
        "not-your-turn"
    );
    let stranger = online.accounts().add_bot("zeynep", 0).await.unwrap();
    assert_eq!(
        code(play(&online, &t.id, &stranger, "c3-c4").await.unwrap_err()),
        "not-a-player"
    );
    assert_eq!(
        code(play(&online, &t.id, &a, "c3-c5").await.unwrap_err()),
        "illegal-move"
    );

    tokio::time::advance(Duration::from_secs(5)).await;
    play(&online, &t.id, &a, "c3-c4").await.unwrap(); // the first move is free
    let e = wire(&events.recv().await.unwrap().message);
    assert_eq!(e["type"], "gameState");
    assert_eq!(e["moves"], "c3-c4");
    tokio::time::advance(Duration::from_secs(7)).await;
    let s = state(&online, &t.id).await;
    // Neither first move is timed (lichess's convention): Black has 30 s to make it.
    assert_eq!(
        s["btime"], 180_000,
        "Black's clock does not run for its first move"
    );
    assert_eq!(s["wtime"], 180_000);
    assert_eq!(s["firstMoveMs"], 23_000, "30 s to make it, 7 s gone");
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    let s = state(&online, &t.id).await;
    assert_eq!(
        s["btime"], 180_000,
        "a first move earns no increment either"
    );
    assert_eq!(s["firstMoveMs"], Value::Null);
    tokio::time::advance(Duration::from_millis(2_500)).await;
    play(&online, &t.id, &a, "d3-d4").await.unwrap();
    let s = state(&online, &t.id).await;
    assert_eq!(s["wtime"], 179_500, "180 - 2.5 + 2");
    assert_eq!(s["moves"], "c3-c4 f6-f5 d3-d4");
}

#[tokio::test(start_paused = true)]
async fn the_flag_falls_on_the_server_with_nobody_connected() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let fast = NewGame {
        initial_ms: 60_000,
        increment_ms: 0,
        ..BLITZ
    };
    let t = online.create_paired(&a, &b, fast).await.unwrap();
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    // White thinks and thinks: 60 s later the flag falls by itself.
    tokio::time::advance(Duration::from_millis(59_900)).await;
    wait().await;
    assert_eq!(state(&online, &t.id).await["status"], "started");
    tokio::time::advance(Duration::from_millis(200)).await;
    wait().await;
    let s = state(&online, &t.id).await;
    assert_eq!(s["status"], "outoftime");
    assert_eq!(s["outcome"], "black:time");
    assert_eq!(s["winner"], "black");
    assert_eq!(s["wtime"], 0);
    // A move after the flag is refused.
    assert_eq!(
        code(play(&online, &t.id, &a, "d3-d4").await.unwrap_err()),
        "game-over"
    );
}

#[tokio::test(start_paused = true)]
async fn a_game_without_a_first_move_in_30_seconds_is_aborted() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let t = online.create_paired(&a, &b, BLITZ).await.unwrap();
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    tokio::time::advance(Duration::from_secs(29)).await;
    wait().await;
    assert_eq!(state(&online, &t.id).await["status"], "started");
    tokio::time::advance(Duration::from_secs(2)).await;
    wait().await;
    let s = state(&online, &t.id).await;
    assert_eq!(s["status"], "aborted");
    assert_eq!(s["winner"], Value::Null);
    assert_eq!(
        s["description"], "Aborted: Black did not move within 30 s.",
        "the page says why"
    );
}

#[tokio::test(start_paused = true)]
async fn comings_and_goings_and_chat_do_not_stop_the_clock() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let t = online.create_paired(&a, &b, BLITZ).await.unwrap();
    // Changes that do not move the abort deadline: it still falls 30 s after the start.
    online.connected(&t.id, damasi::Color::White, true).await;
    online
        .run(
            &t.id,
            &a,
            Command::Chat {
                text: "iyi oyunlar".into(),
            },
        )
        .await
        .unwrap();
    online.connected(&t.id, damasi::Color::White, false).await;
    tokio::time::advance(Duration::from_secs(31)).await;
    wait().await;
    assert_eq!(state(&online, &t.id).await["status"], "aborted");
    // The same for the flag.
    let fast = NewGame {
        initial_ms: 15_000,
        increment_ms: 0,
        ..BLITZ
    };
    let t = online.create_paired(&a, &b, fast).await.unwrap();
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    online
        .run(&t.id, &b, Command::Chat { text: "!".into() })
        .await
        .unwrap();
    online.connected(&t.id, damasi::Color::Black, true).await;
    tokio::time::advance(Duration::from_millis(15_100)).await;
    wait().await;
    let s = state(&online, &t.id).await;
    assert_eq!(s["status"], "outoftime");
    assert_eq!(s["outcome"], "black:time");
    assert_eq!(s["winner"], "black");
}

#[tokio::test(start_paused = true)]
async fn abort_is_refused_once_both_sides_have_moved() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let t = online.create_paired(&a, &b, BLITZ).await.unwrap();
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    assert_eq!(
        code(online.run(&t.id, &a, Command::Abort).await.unwrap_err()),
        "too-late-to-abort"
    );
    let t2 = online.create_paired(&a, &b, BLITZ).await.unwrap();
    online.run(&t2.id, &b, Command::Abort).await.unwrap();
    assert_eq!(state(&online, &t2.id).await["status"], "aborted");
}

#[tokio::test(start_paused = true)]
async fn lag_compensation_comes_out_of_a_quota() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let t = online.create_paired(&a, &b, BLITZ).await.unwrap();
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    // White's line has a 600 ms round trip: 300 ms one way.
    online
        .lag(&t.id, damasi::Color::White, Duration::from_millis(600))
        .await;
    tokio::time::advance(Duration::from_millis(2_000)).await;
    play(&online, &t.id, &a, "d3-d4").await.unwrap();
    let s = state(&online, &t.id).await;
    // 2.0 s by the server's clock, 0.3 s of it the network's: charged 1.7 s.
    assert_eq!(s["wtime"], 180_000 - 1_700 + 2_000);
    let quota = t.state.lock().await.lag[damasi::Color::White].quota_ms;
    // 500 to start, +100 for the first move (no lag measured yet), then -300 +100.
    assert_eq!(quota, 500 + 100 - 300 + 100);
}

#[tokio::test(start_paused = true)]
async fn a_player_who_leaves_can_come_back_or_be_claimed_against() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let t = online.create_paired(&a, &b, BLITZ).await.unwrap();
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    online.connected(&t.id, damasi::Color::Black, true).await;
    online.connected(&t.id, damasi::Color::Black, false).await;
    assert_eq!(state(&online, &t.id).await["gone"]["black"], true);
    tokio::time::advance(Duration::from_secs(30)).await;
    assert_eq!(
        code(
            online
                .run(&t.id, &a, Command::Claim { win: true })
                .await
                .unwrap_err()
        ),
        "opponent-present"
    );
    // Black reconnects (a reload): not gone any more, the game is as it was.
    online.connected(&t.id, damasi::Color::Black, true).await;
    let s = state(&online, &t.id).await;
    assert_eq!(s["gone"]["black"], false);
    assert_eq!(s["moves"], "c3-c4 f6-f5");
    online.connected(&t.id, damasi::Color::Black, false).await;
    tokio::time::advance(Duration::from_secs(61)).await;
    online
        .run(&t.id, &a, Command::Claim { win: true })
        .await
        .unwrap();
    let s = state(&online, &t.id).await;
    assert_eq!(s["status"], "timeout");
    assert_eq!(s["outcome"], "white:abandonment");
    assert_eq!(s["winner"], "white");
}

#[tokio::test(start_paused = true)]
async fn draw_offers_and_takebacks_need_the_opponent() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let t = online.create_paired(&a, &b, BLITZ).await.unwrap();
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    // White asks to take back d3-d4; Black declines, then White asks again and Black accepts.
    play(&online, &t.id, &a, "d3-d4").await.unwrap();
    online
        .run(&t.id, &a, Command::Takeback { yes: true })
        .await
        .unwrap();
    assert_eq!(state(&online, &t.id).await["wtakeback"], true);
    online
        .run(&t.id, &b, Command::Takeback { yes: false })
        .await
        .unwrap();
    assert_eq!(state(&online, &t.id).await["wtakeback"], false);
    online
        .run(&t.id, &a, Command::Takeback { yes: true })
        .await
        .unwrap();
    online
        .run(&t.id, &b, Command::Takeback { yes: true })
        .await
        .unwrap();
    let s = state(&online, &t.id).await;
    assert_eq!(s["moves"], "c3-c4 f6-f5");
    assert_eq!(s["turn"], "white");
    // A draw offer stands until answered; a decline clears it; a yes to an offer accepts.
    online
        .run(&t.id, &b, Command::Draw { yes: true })
        .await
        .unwrap();
    assert_eq!(state(&online, &t.id).await["bdraw"], true);
    online
        .run(&t.id, &a, Command::Draw { yes: false })
        .await
        .unwrap();
    assert_eq!(state(&online, &t.id).await["bdraw"], false);
    online
        .run(&t.id, &b, Command::Draw { yes: true })
        .await
        .unwrap();
    online
        .run(&t.id, &a, Command::Draw { yes: true })
        .await
        .unwrap();
    let s = state(&online, &t.id).await;
    assert_eq!(s["status"], "draw");
    assert_eq!(s["outcome"], "draw:agreement");
}

#[tokio::test(start_paused = true)]
async fn offers_cannot_be_toggled_faster_than_the_opponent_answers() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let t = online.create_paired(&a, &b, BLITZ).await.unwrap();
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    let version = |v: &Value| v["version"].as_u64();
    // Offered, withdrawn, offered again at once: refused with a 429 and when to try again.
    let first = online
        .run(&t.id, &a, Command::Draw { yes: true })
        .await
        .unwrap();
    // The same offer again changes nothing.
    let same = online
        .run(&t.id, &a, Command::Draw { yes: true })
        .await
        .unwrap();
    assert_eq!(version(&first), version(&same));
    online
        .run(&t.id, &a, Command::Draw { yes: false })
        .await
        .unwrap();
    let mut refused = 0;
    for _ in 0..26 {
        match online.run(&t.id, &a, Command::Draw { yes: true }).await {
            Err(e) => {
                assert_eq!(damasi_web::error::status(&e).as_u16(), 429);
                assert_eq!(e.code(), "offer-too-soon");
                assert_eq!(retry_after(&e), Some(10));
                refused += 1;
            }
            Ok(_) => panic!("a draw offer repeated at once went through"),
        }
        online
            .run(&t.id, &a, Command::Draw { yes: false })
            .await
            .unwrap();
    }
    assert_eq!(refused, 26);
    assert_eq!(state(&online, &t.id).await["wdraw"], false);
    // Ten seconds later the offer may be made again.
    tokio::time::advance(Duration::from_secs(6)).await;
    let e = online
        .run(&t.id, &a, Command::Draw { yes: true })
        .await
        .unwrap_err();
    assert_eq!(retry_after(&e), Some(4));
    tokio::time::advance(Duration::from_secs(4)).await;
    online
        .run(&t.id, &a, Command::Draw { yes: true })
        .await
        .unwrap();
    assert_eq!(state(&online, &t.id).await["wdraw"], true);
    // Once the opponent has answered, at once.
    online
        .run(&t.id, &b, Command::Draw { yes: false })
        .await
        .unwrap();
    online
        .run(&t.id, &a, Command::Draw { yes: true })
        .await
        .unwrap();
    assert_eq!(state(&online, &t.id).await["wdraw"], true);
    // The other side's offers are counted apart.
    online
        .run(&t.id, &a, Command::Draw { yes: false })
        .await
        .unwrap();
    online
        .run(&t.id, &b, Command::Draw { yes: true })
        .await
        .unwrap();
    assert_eq!(state(&online, &t.id).await["bdraw"], true);
    // Takebacks the same way.
    play(&online, &t.id, &a, "d3-d4").await.unwrap();
    online
        .run(&t.id, &a, Command::Takeback { yes: true })
        .await
        .unwrap();
    online
        .run(&t.id, &a, Command::Takeback { yes: false })
        .await
        .unwrap();
    let e = online
        .run(&t.id, &a, Command::Takeback { yes: true })
        .await
        .unwrap_err();
    assert_eq!(
        (damasi_web::error::status(&e).as_u16(), e.code()),
        (429, "offer-too-soon")
    );
    assert_eq!(state(&online, &t.id).await["wtakeback"], false);
    tokio::time::advance(Duration::from_secs(10)).await;
    online
        .run(&t.id, &a, Command::Takeback { yes: true })
        .await
        .unwrap();
    online
        .run(&t.id, &b, Command::Takeback { yes: false })
        .await
        .unwrap();
    online
        .run(&t.id, &a, Command::Takeback { yes: true })
        .await
        .unwrap();
    assert_eq!(state(&online, &t.id).await["wtakeback"], true);
}

#[tokio::test(start_paused = true)]
async fn a_rated_game_moves_both_ratings_and_a_rematch_swaps_colours() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let rated = NewGame {
        rated: true,
        ..BLITZ
    };
    let t = online.create_paired(&a, &b, rated).await.unwrap();
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    online.run(&t.id, &b, Command::Resign).await.unwrap();
    let s = state(&online, &t.id).await;
    assert_eq!(s["status"], "resign");
    assert_eq!(s["outcome"], "white:resignation");
    // Two new players, first game: Glicko-2 moves each by about 162 points.
    assert_eq!(s["ratingDiff"]["white"], 162);
    assert_eq!(s["ratingDiff"]["black"], -162);
    let ra = online.db().rating(a.id, "blitz").await.unwrap().unwrap();
    let rb = online.db().rating(b.id, "blitz").await.unwrap().unwrap();
    assert!((ra.rating - 1662.3).abs() < 1.0 && (rb.rating - 1337.7).abs() < 1.0);
    assert_eq!((ra.games, rb.games), (1, 1));
    // Rematch: both ask, a new game starts with the colours swapped.
    online.run(&t.id, &a, Command::Rematch).await.unwrap();
    assert!(state(&online, &t.id).await["rematch"].is_null());
    online.run(&t.id, &b, Command::Rematch).await.unwrap();
    let next = state(&online, &t.id).await["rematch"]
        .as_str()
        .unwrap()
        .to_string();
    let n = online.table(&next).await.unwrap();
    let ns = n.state.lock().await;
    assert_eq!(ns.side_of(b.id), Some(damasi::Color::White));
    assert_eq!(ns.side_of(a.id), Some(damasi::Color::Black));
}

#[tokio::test(start_paused = true)]
async fn guests_play_casual_games_only_and_an_aborted_game_is_unrated() {
    let online = service();
    let g = online.accounts().guest(0).await.unwrap();
    let (a, b) = two_players(&online).await;
    let rated = NewGame {
        rated: true,
        ..BLITZ
    };
    assert_eq!(
        code(online.create(Some(&g), rated, None).await.err().unwrap()),
        "guests-casual-only"
    );
    let t = online.create(Some(&a), rated, None).await.unwrap();
    assert_eq!(
        code(online.join(&t.id, &g, None).await.unwrap_err()),
        "guests-casual-only"
    );
    online.join(&t.id, &b, None).await.unwrap();
    online.run(&t.id, &a, Command::Abort).await.unwrap();
    assert!(online.db().rating(a.id, "blitz").await.unwrap().is_none());
    let casual = online.create(Some(&g), BLITZ, None).await.unwrap();
    online.join(&casual.id, &a, None).await.unwrap();
    assert_eq!(state(&online, &casual.id).await["status"], "started");
}

#[tokio::test]
async fn a_game_comes_back_after_a_restart_with_its_moves_and_clocks() {
    let dir = std::env::temp_dir().join(format!("damasi-online-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (id, white_left) = {
        let online = Online::new(OnlineDb::open(&dir).unwrap(), OnlineConfig::default());
        let (a, b) = two_players(&online).await;
        let t = online.create_paired(&a, &b, BLITZ).await.unwrap();
        play(&online, &t.id, &a, "c3-c4").await.unwrap();
        play(&online, &t.id, &b, "f6-f5").await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        play(&online, &t.id, &a, "d3-d4").await.unwrap();
        let s = state(&online, &t.id).await;
        (t.id.clone(), s["wtime"].as_u64().unwrap())
    };
    // A new process over the same files.
    let online = Online::new(OnlineDb::open(&dir).unwrap(), OnlineConfig::default());
    assert_eq!(online.resume_all().await.unwrap(), 1);
    let s = state(&online, &id).await;
    assert_eq!(s["moves"], "c3-c4 f6-f5 d3-d4");
    assert_eq!(s["wtime"].as_u64().unwrap(), white_left);
    assert_eq!(s["turn"], "black");
    let mehmet = online.db().user_by_name("mehmet").await.unwrap().unwrap();
    online
        .run(
            &id,
            &Player::from(mehmet),
            Command::Move {
                text: "e6-e5".into(),
            },
        )
        .await
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fifty rated games of one player ending at the same instant (an audit saw +1,834 announced
/// and +352 stored when ratings were read outside the transaction that wrote them).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn rated_games_ending_at_once_lose_no_rating_change() {
    let online = service();
    ratings::end_rated_games_at_once(&online, "hero", 50).await;
}

#[tokio::test]
async fn open_games_nobody_takes_in_a_day_are_withdrawn() {
    let db = OnlineDb::in_memory();
    let online = Online::new(db.clone(), OnlineConfig::default());
    let (a, b) = two_players(&online).await;
    let old = online
        .create(Some(&a), BLITZ, None)
        .await
        .unwrap()
        .id
        .clone();
    let fresh = online
        .create(Some(&a), BLITZ, None)
        .await
        .unwrap()
        .id
        .clone();
    let challenge = online
        .challenge(&a, &b, BLITZ, None)
        .await
        .unwrap()
        .id
        .clone();
    let loaded = online
        .create(Some(&b), BLITZ, None)
        .await
        .unwrap()
        .id
        .clone();
    // Three of them were created 25 hours ago.
    let day_ago = damasi_online::now_ms() - 25 * 60 * 60 * 1000;
    for id in [&old, &challenge, &loaded] {
        let (mut row, _) = db.game(id).await.unwrap().unwrap();
        row.created_ms = day_ago;
        db.save_game(row.clone()).await.unwrap();
        if id == &loaded {
            online
                .table(id)
                .await
                .unwrap()
                .state
                .lock()
                .await
                .row
                .created_ms = day_ago;
        }
    }
    // A restart withdraws the old ones without loading them; the one challenged hears of it.
    let restarted = Online::new(db.clone(), OnlineConfig::default());
    let mut events = restarted.user_events(b.id);
    restarted.resume_all().await.unwrap();
    for id in [&old, &challenge, &loaded] {
        let (row, _) = db.game(id).await.unwrap().unwrap();
        assert_eq!(row.status, "over", "{id}");
        assert_eq!(row.outcome.as_deref(), Some("aborted"), "{id}");
    }
    let (row, _) = db.game(&fresh).await.unwrap().unwrap();
    assert_eq!(row.status, "open");
    let ev = wire(&*events.try_recv().expect("challengeCanceled"));
    assert_eq!(ev["type"], "challengeCanceled");
    assert_eq!(ev["challenge"]["id"], challenge.as_str());
    assert!(db.unfinished().await.unwrap() == vec![fresh.clone()]);
    // A game held in memory is withdrawn through its table (its watchers hear of it).
    let held = online.create(Some(&a), BLITZ, None).await.unwrap();
    let mut watch = held.events.subscribe();
    let (mut row, _) = db.game(&held.id).await.unwrap().unwrap();
    row.created_ms = day_ago;
    db.save_game(row).await.unwrap();
    assert_eq!(online.expire_open().await.unwrap(), 1);
    assert_eq!(held.state.lock().await.row.status, "over");
    let ev = wire(&watch.try_recv().expect("the state after the abort").message);
    assert_eq!(ev["status"], "aborted", "{ev}");
    // Nothing more to withdraw.
    assert_eq!(online.expire_open().await.unwrap(), 0);
}

/// The lobby has no global cap that strangers can fill (#32 item 8): with 1,200 seeks open
/// from 400 accounts (the audit filled the old cap of 1,000 with 350 guests), a real account
/// still posts its seek.
#[tokio::test]
async fn many_strangers_seeking_do_not_shut_a_player_out_of_the_lobby() {
    let online = service();
    let casual = NewGame {
        rated: false,
        ..BLITZ
    };
    for i in 0..400 {
        let p = online
            .accounts()
            .add_bot(&format!("stranger-{i}"), 0)
            .await
            .unwrap();
        for _ in 0..3 {
            online
                .matchmaking()
                .seek(&p, casual, None, None)
                .await
                .unwrap();
        }
    }
    let real = online.accounts().add_bot("ayse", 0).await.unwrap();
    online
        .matchmaking()
        .seek(&real, casual, None, None)
        .await
        .unwrap();
    assert_eq!(online.matchmaking().seeks().await.unwrap().len(), 1_201);
}

const DAY: Duration = Duration::from_secs(24 * 60 * 60);

/// A correspondence game of two days a move: no chess clock, each move gives the side to move
/// its whole two days again, the first moves have the full days too (not 30 s), nobody may
/// claim an absent opponent, and the flag falls on the server with nobody connected.
#[tokio::test(start_paused = true)]
async fn a_correspondence_flag_falls_after_its_days_with_nobody_connected() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let mut turns = online.your_turns();
    let new = NewGame::correspondence(2, true, true).unwrap();
    let t = online.create_paired(&a, &b, new).await.unwrap();
    let full = wire(&online.full(&t.id, Some(&a)).await.unwrap());
    assert_eq!(full["speed"], "correspondence");
    assert_eq!(full["clock"], Value::Null);
    assert_eq!(full["daysPerTurn"], 2);
    let two_days = 2 * DAY.as_millis() as u64;
    assert_eq!(full["state"]["wtime"].as_u64(), Some(two_days));
    assert_eq!(full["state"]["firstMoveMs"], Value::Null);
    // White hears that the game waits for them.
    let turn = turns.try_recv().expect("White's turn");
    assert_eq!((turn.player, turn.days_per_turn), (a.id, 2));
    assert_eq!(turn.last_move, None);
    // An hour without a first move aborts nothing.
    tokio::time::advance(Duration::from_secs(3600)).await;
    wait().await;
    assert_eq!(state(&online, &t.id).await["status"], "started");
    play(&online, &t.id, &a, "c3-c4").await.unwrap();
    let turn = turns.try_recv().expect("Black's turn");
    assert_eq!(turn.player, b.id);
    assert_eq!(turn.opponent.as_deref(), Some("ayse"));
    assert_eq!(turn.last_move.as_deref(), Some("c3-c4"));
    // A day and a half for Black's reply: White's time is whole again after it.
    tokio::time::advance(DAY + DAY / 2).await;
    play(&online, &t.id, &b, "f6-f5").await.unwrap();
    let s = state(&online, &t.id).await;
    assert_eq!(s["wtime"].as_u64(), Some(two_days));
    assert_eq!(s["btime"].as_u64(), Some(two_days));
    // Nobody is connected, and that gives Black no claim.
    assert_eq!(
        code(
            online
                .run(&t.id, &b, Command::Claim { win: true })
                .await
                .unwrap_err()
        ),
        "no-claim-correspondence"
    );
    // White does not answer: a minute before the two days the game goes on...
    tokio::time::advance(2 * DAY - Duration::from_secs(60)).await;
    wait().await;
    let s = state(&online, &t.id).await;
    assert_eq!(s["status"], "started");
    assert_eq!(s["wtime"].as_u64(), Some(60_000));
    // ... and then the flag falls by itself: a loss on time, rated in its own speed class.
    tokio::time::advance(Duration::from_secs(120)).await;
    wait().await;
    let s = state(&online, &t.id).await;
    assert_eq!(s["status"], "outoftime");
    assert_eq!(s["outcome"], "black:time");
    assert_eq!(s["winner"], "black");
    assert_eq!(s["wtime"], 0);
    let (row, _) = online.db().game(&t.id).await.unwrap().unwrap();
    assert_eq!(row.outcome.as_deref(), Some("black:time"));
    let rating = online.db().rating(b.id, "correspondence").await.unwrap();
    assert!(rating.is_some_and(|r| r.rating > 1500.0));
    assert!(online
        .db()
        .rating(b.id, "classical")
        .await
        .unwrap()
        .is_none());
}

#[tokio::test(start_paused = true)]
async fn a_correspondence_game_without_a_first_move_in_its_days_is_aborted() {
    let online = service();
    let (a, b) = two_players(&online).await;
    let new = NewGame::correspondence(1, false, true).unwrap();
    let t = online.create_paired(&a, &b, new).await.unwrap();
    tokio::time::advance(DAY - Duration::from_secs(1)).await;
    wait().await;
    assert_eq!(state(&online, &t.id).await["status"], "started");
    tokio::time::advance(Duration::from_secs(2)).await;
    wait().await;
    let s = state(&online, &t.id).await;
    assert_eq!(s["status"], "aborted");
    assert_eq!(
        s["description"],
        "Aborted: White did not move within 1 day."
    );
}

#[tokio::test]
async fn correspondence_controls_are_only_the_listed_days() {
    for days in [1, 2, 3, 5, 7, 14] {
        let g = NewGame::correspondence(days, false, true).unwrap();
        assert_eq!(g.days_per_turn(), Some(days));
        g.check().unwrap();
    }
    for days in [0, 4, 15, -1, i64::MAX] {
        assert_eq!(
            code(NewGame::correspondence(days, false, true).unwrap_err()),
            "bad-request"
        );
    }
    // Four days written as a time control is refused too.
    let four = NewGame {
        initial_ms: 4 * DAY.as_millis() as i64,
        increment_ms: 0,
        ..BLITZ
    };
    assert_eq!(code(four.check().unwrap_err()), "bad-request");
}

/// A stored correspondence game whose time ran out while the server was down ends as a loss
/// on time when the server starts: the deadline comes from the stored start of the turn.
#[tokio::test]
async fn a_correspondence_game_that_ran_out_while_the_server_was_down_ends_at_start() {
    let dir = std::env::temp_dir().join(format!("damasi-online-corr-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (id, waiting) = {
        let online = Online::new(OnlineDb::open(&dir).unwrap(), OnlineConfig::default());
        let (a, b) = two_players(&online).await;
        let new = NewGame::correspondence(3, true, true).unwrap();
        let late = online.create_paired(&a, &b, new).await.unwrap();
        play(&online, &late.id, &a, "c3-c4").await.unwrap();
        play(&online, &late.id, &b, "f6-f5").await.unwrap();
        play(&online, &late.id, &a, "d3-d4").await.unwrap();
        // Another one whose turn began a day ago: it goes on after the restart.
        let waiting = online.create_paired(&a, &b, new).await.unwrap();
        play(&online, &waiting.id, &a, "c3-c4").await.unwrap();
        play(&online, &waiting.id, &b, "f6-f5").await.unwrap();
        (late.id.clone(), waiting.id.clone())
    };
    // The server was down for a while: Black's turn in the first game began four days ago,
    // White's in the second one day ago.
    let db = OnlineDb::open(&dir).unwrap();
    let now = damasi_online::now_ms();
    for (game, plies, ago) in [(&id, 3, 4), (&waiting, 2, 1)] {
        // Keeps the plies and stores when the turn began (as a takeback does).
        db.truncate_moves(game, plies, now - ago * DAY.as_millis() as i64)
            .await
            .unwrap();
    }
    let online = Online::new(db.clone(), OnlineConfig::default());
    let mut finished = online.finished_games();
    assert_eq!(online.resume_all().await.unwrap(), 2);
    let done = tokio::time::timeout(Duration::from_secs(30), finished.recv())
        .await
        .expect("the late game ends at start")
        .unwrap();
    assert_eq!(done.id, id);
    assert_eq!(
        done.outcome.map(|o| o.code()).as_deref(),
        Some("white:time")
    );
    let (row, _) = db.game(&id).await.unwrap().unwrap();
    assert_eq!(row.status, "over");
    assert_eq!(row.outcome.as_deref(), Some("white:time"));
    let ayse = db.user_by_name("ayse").await.unwrap().unwrap();
    assert!(db
        .rating(ayse.id, "correspondence")
        .await
        .unwrap()
        .is_some());
    // The other has two days of its turn left, as its stored start says.
    let s = state(&online, &waiting).await;
    assert_eq!(s["status"], "started");
    let left = s["wtime"].as_u64().unwrap();
    let two_days = 2 * DAY.as_millis() as u64;
    assert!(left <= two_days && left > two_days - 60_000, "{left}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A correspondence challenge waits a week for its seat to be taken, not a day.
#[tokio::test]
async fn an_open_correspondence_game_waits_a_week() {
    let db = OnlineDb::in_memory();
    let online = Online::new(db.clone(), OnlineConfig::default());
    let (a, b) = two_players(&online).await;
    let new = NewGame::correspondence(3, false, true).unwrap();
    let waiting = online
        .challenge(&a, &b, new, None)
        .await
        .unwrap()
        .id
        .clone();
    let old = online
        .challenge(&a, &b, new, None)
        .await
        .unwrap()
        .id
        .clone();
    let now = damasi_online::now_ms();
    for (id, hours) in [(&waiting, 25), (&old, 8 * 24)] {
        let (mut row, _) = db.game(id).await.unwrap().unwrap();
        row.created_ms = now - hours * 60 * 60 * 1000;
        db.save_game(row).await.unwrap();
    }
    let restarted = Online::new(db.clone(), OnlineConfig::default());
    restarted.resume_all().await.unwrap();
    assert_eq!(db.game(&waiting).await.unwrap().unwrap().0.status, "open");
    let (row, _) = db.game(&old).await.unwrap().unwrap();
    assert_eq!(row.outcome.as_deref(), Some("aborted"));
}
