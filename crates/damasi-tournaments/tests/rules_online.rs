//! Tournaments under a rule set other than the federation's: the settings choose it, every
//! game the director makes is played under it (checked by the rule making a difference: under
//! `no-capture-limit 4` four quiet plies draw the game, docs/rules.md "Rule-set options"),
//! and the tournament's view says it. A rated tournament under other rules is refused (those
//! games are casual, docs/online.md "Ratings").

use std::time::Duration;

use damasi::{DrawReason, Outcome, RuleSet};
use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::db::OnlineDb;
use damasi_online::{now_ms, Online, OnlineConfig};
use damasi_tournaments::arena::ArenaSettings;
use damasi_tournaments::swiss::{Entry, SwissSettings};
use damasi_tournaments::tiebreak::Tiebreak;
use damasi_tournaments::{NewArena, NewSwiss, Tournaments};

/// Four plies from the start that capture nothing: White, Black, White, Black.
const QUIET: [&str; 4] = ["a3-a4", "h6-h5", "b3-b4", "g6-g5"];

fn limit_4() -> RuleSet {
    RuleSet::from_name("turkish; no-capture-limit 4").unwrap()
}

fn swiss(rules: RuleSet, rated: bool) -> SwissSettings {
    SwissSettings {
        name: "Kural turnuvası".into(),
        rounds: 1,
        initial_ms: 300_000,
        increment_ms: 2000,
        rated,
        starts_ms: None,
        round_pause_ms: 0,
        entry: Entry::Anyone,
        tiebreaks: Tiebreak::FEDERATION.to_vec(),
        system: damasi_tournaments::swiss::System::Swiss,
        rules,
        allow_bots: false,
    }
}

/// Waits (up to 10 s) for `look` to give something.
async fn until<T, F, Fut>(mut look: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(v) = look().await {
            return v;
        }
        assert!(std::time::Instant::now() < deadline, "nothing came in 10 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Plays the four quiet plies in game `id` (its seated players move in turn) and answers the
/// game's outcome.
async fn play_quiet(online: &Online, id: &str) -> Option<Outcome> {
    let table = online.table(id).await.unwrap();
    let seats: [Player; 2] = {
        let s = table.state.lock().await;
        [
            s.seats.white.clone().unwrap(),
            s.seats.black.clone().unwrap(),
        ]
    };
    for (i, mv) in QUIET.iter().enumerate() {
        online
            .run(id, &seats[i % 2], Command::Move { text: (*mv).into() })
            .await
            .unwrap_or_else(|e| panic!("{mv}: {e:?}"));
    }
    let s = table.state.lock().await;
    s.core.game.outcome()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swiss_under_other_rules_plays_every_game_under_them() {
    let online = Online::new(OnlineDb::in_memory(), OnlineConfig::default());
    let director = Tournaments::new(online.clone());
    director.run().await.unwrap();
    let now = now_ms();
    let organiser = online.accounts().add_bot("organiser", now).await.unwrap();
    let a = online.accounts().add_bot("birinci", now).await.unwrap();
    let b = online.accounts().add_bot("ikinci", now).await.unwrap();

    // Rated under other rules: refused, naming the variant.
    let refused = director
        .create(
            &organiser,
            NewSwiss {
                settings: swiss(limit_4(), true),
                password: None,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "bad-request");
    assert!(
        refused.message().starts_with("variant: "),
        "{}",
        refused.message()
    );

    let created = director
        .create(
            &organiser,
            NewSwiss {
                settings: swiss(limit_4(), false),
                password: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(
        created["variant"], "turkish; no-capture-limit 4",
        "{created}"
    );
    assert_eq!(created["rules"]["noCaptureLimit"], 4);
    let id = created["id"].as_str().unwrap().to_string();
    director.join(&id, &a, None).await.unwrap();
    director.join(&id, &b, None).await.unwrap();
    director.next_round_now(&id, &organiser).await.unwrap();
    let game = until(|| async {
        let view = director.show(&id).await.ok()?;
        view["rounds"][0]["games"][0]["id"]
            .as_str()
            .map(String::from)
    })
    .await;
    // The round's game carries the tournament's rules, and plays by them.
    let full = serde_json::to_value(online.full(&game, None).await.unwrap()).unwrap();
    assert_eq!(
        full["variant"]["key"], "turkish; no-capture-limit 4",
        "{full}"
    );
    assert_eq!(full["rated"], false);
    assert_eq!(
        play_quiet(&online, &game).await,
        Some(Outcome::Draw(DrawReason::NoCaptureLimit))
    );
    // The tournament hears the draw: half a point each, and it is over.
    let view = until(|| async {
        let view = director.show(&id).await.ok()?;
        (view["status"] == "finished").then_some(view)
    })
    .await;
    let points: Vec<f64> = view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["points"].as_f64().unwrap())
        .collect();
    assert_eq!(points, vec![0.5, 0.5], "{view}");
    director.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_under_other_rules_pairs_its_games_under_them() {
    let online = Online::new(OnlineDb::in_memory(), OnlineConfig::default());
    let director = Tournaments::new(online.clone());
    director.run().await.unwrap();
    let now = now_ms();
    let organiser = online.accounts().add_bot("organiser", now).await.unwrap();
    let a = online.accounts().add_bot("birinci", now).await.unwrap();
    let b = online.accounts().add_bot("ikinci", now).await.unwrap();
    let settings = |rated| ArenaSettings {
        name: "Kural arenası".into(),
        minutes: 30,
        initial_ms: 300_000,
        increment_ms: 2000,
        rated,
        starts_ms: None,
        entry: Entry::Anyone,
        rules: limit_4(),
        allow_bots: false,
    };
    let refused = director
        .create_arena(
            &organiser,
            NewArena {
                settings: settings(true),
                password: None,
            },
        )
        .await
        .unwrap_err();
    assert!(
        refused.message().starts_with("variant: "),
        "{}",
        refused.message()
    );
    let created = director
        .create_arena(
            &organiser,
            NewArena {
                settings: settings(false),
                password: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(
        created["variant"], "turkish; no-capture-limit 4",
        "{created}"
    );
    let id = created["id"].as_str().unwrap().to_string();
    director.join_arena(&id, &a, None).await.unwrap();
    director.join_arena(&id, &b, None).await.unwrap();
    director.start_arena(&id, &organiser).await.unwrap();
    let game = until(|| async {
        let arena = director.get_arena(&id).await.ok()?;
        arena.games.first().map(|g| g.id.clone())
    })
    .await;
    let full = serde_json::to_value(online.full(&game, None).await.unwrap()).unwrap();
    assert_eq!(
        full["variant"]["key"], "turkish; no-capture-limit 4",
        "{full}"
    );
    assert_eq!(
        play_quiet(&online, &game).await,
        Some(Outcome::Draw(DrawReason::NoCaptureLimit))
    );
    director.stop().await;
}
