//! The fair-play screen on the online core: rated games played through commands are screened
//! as they end; the account whose moves were the engine's own goes to the moderators' queue
//! as the screen's report with the games as evidence, its opponent does not, and the games
//! are screened once.

use std::sync::Arc;
use std::time::Duration;

use damasi::{Game, Notation};
use damasi_engine::{Engine, EngineOptions, Limits, SearchControl, SearchRequest, SearchRoot};
use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::fair_play::{self, ScreenSettings};
use damasi_online::{NewGame, Online};

/// The screen's settings for the test: shallow, and two games enough to report.
fn settings() -> ScreenSettings {
    ScreenSettings {
        depth: 5,
        opening_plies: 4,
        min_moves: 6,
        min_games: 2,
        ..ScreenSettings::default()
    }
}

/// Plays one rated game to its end: `engine_side` plays the engine's first choice at the
/// screen's depth, the other side the last move its list gives (a poor player); the poor
/// side resigns after 160 plies if the game is not over by then.
async fn play_game(online: &Online, players: [&Player; 2], engine_side: usize) {
    let game = online
        .create_paired(
            players[0],
            players[1],
            NewGame {
                initial_ms: 600_000,
                increment_ms: 5_000,
                rated: true,
                chat: false,
                rules: damasi::RuleSet::default(),
            },
        )
        .await
        .unwrap();
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 1,
    });
    let mut local = Game::new();
    while !local.is_over() {
        let side = local.position().side_to_move().index();
        if local.ply() >= 160 {
            online
                .run(&game.id, players[1 - engine_side], Command::Resign)
                .await
                .unwrap();
            return;
        }
        let m = if side == engine_side {
            let request = SearchRequest::new(SearchRoot::from_game(&local), Limits::depth(5));
            engine
                .search(&request, &Arc::new(SearchControl::new()), &mut |_| {})
                .best
                .unwrap()
        } else {
            *local.legal_moves().last().unwrap()
        };
        let text = local.position().write_move(&m, Notation::Landing);
        local.play(&m).unwrap();
        online
            .run(&game.id, players[side], Command::Move { text })
            .await
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_account_playing_the_engines_moves_is_reported_with_its_games() {
    let online = Online::in_memory();
    let ayse = online.accounts().add_bot("ayse", 0).await.unwrap();
    let bora = online.accounts().add_bot("bora", 0).await.unwrap();
    let mo = online.accounts().add_bot("mo", 0).await.unwrap();
    online.moderation().set_moderator("mo", true).await.unwrap();
    let db = online.db().clone();

    // One game before the screen listens (taken up at its start), one after.
    play_game(&online, [&ayse, &bora], 0).await;
    let screen = fair_play::follow(&online, settings());
    play_game(&online, [&bora, &ayse], 1).await;

    let mut waited = Duration::ZERO;
    let report = loop {
        let open = db.reports(true, Some(ayse.id), 10).await.unwrap();
        if let Some(r) = open.into_iter().next() {
            break r;
        }
        assert!(
            waited < Duration::from_secs(60),
            "no report of the engine's account"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
        waited += Duration::from_millis(100);
    };
    assert_eq!(report.reporter, None);
    assert_eq!(report.reason, "cheating");
    assert!(
        report.note.starts_with("fair-play screen: "),
        "{}",
        report.note
    );
    let evidence: serde_json::Value = serde_json::from_str(&report.evidence).unwrap();
    let screen_figures = &evidence["screen"];
    assert_eq!(screen_figures["games"], 2);
    assert!(screen_figures["agreement"].as_f64().unwrap() >= 0.8);
    let per_game = screen_figures["perGame"].as_array().unwrap();
    let colors: Vec<&str> = per_game
        .iter()
        .map(|g| g["color"].as_str().unwrap())
        .collect();
    assert_eq!(colors, ["black", "white"], "newest first");

    // Both games screened once, both sides; the poor player is not reported.
    let ayse_rows = db.screens_of(ayse.id, 10).await.unwrap();
    let bora_rows = db.screens_of(bora.id, 10).await.unwrap();
    assert_eq!((ayse_rows.len(), bora_rows.len()), (2, 2));
    let bora_figures = settings().figures(&bora_rows.iter().map(|r| r.score()).collect::<Vec<_>>());
    assert!(bora_figures.agreement < 0.8, "{bora_figures:?}");
    assert!(db
        .reports(true, Some(bora.id), 10)
        .await
        .unwrap()
        .is_empty());

    // The moderators' queue shows it as the screen's, with no reporter's name.
    let queue = online.moderation().report_queue(&mo).await.unwrap();
    assert_eq!(queue.len(), 1);
    assert_eq!(queue[0]["reported"], "ayse");
    assert!(queue[0]["reporter"].is_null());
    assert_eq!(
        queue[0]["evidence"]["screen"]["perGame"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // A second screen (another process of a cluster, a restart) takes up nothing again.
    screen.abort();
    let again = fair_play::follow(&online, settings());
    tokio::time::sleep(Duration::from_millis(500)).await;
    again.abort();
    assert_eq!(db.screens_of(ayse.id, 10).await.unwrap().len(), 2);
    assert_eq!(db.reports(true, Some(ayse.id), 10).await.unwrap().len(), 1);
}
