//! The Telegram bot among several server processes: two `damasi serve --database postgres://
//! --pubsub redis://` processes, both given the bot's token and the same stand-in for the Bot
//! API (Telegram is one server for all). One runs the bot: every press is answered exactly
//! once (two pollers would both get each update and answer it twice). It is killed with
//! SIGKILL mid-game; the other takes the bot over within the lease, redraws the message from
//! the stored game and answers the next presses, which go on from the true position.
//!
//! Runs when `DAMASI_TEST_POSTGRES` and `DAMASI_TEST_REDIS` name servers (`scripts/with-postgres
//! scripts/with-redis CMD` starts both; the test script does); `DAMASI_REQUIRE_REDIS=1` makes
//! their absence a failure.

#[path = "../../damasi-telegram/tests/support/bot_api.rs"]
mod bot_api;
#[path = "support/telegram_serve.rs"]
mod telegram_serve;

use std::time::Duration;

use bot_api::BotApi;
use telegram_serve::{edits_of, get_json, inline_game, play_first, serve, wait_redrawn};

fn servers() -> Option<(String, String)> {
    let get = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (get("DAMASI_TEST_POSTGRES"), get("DAMASI_TEST_REDIS")) {
        (Some(pg), Some(redis)) => Some((pg, redis)),
        _ => {
            assert!(
                std::env::var("DAMASI_REQUIRE_REDIS").as_deref() != Ok("1"),
                "DAMASI_REQUIRE_REDIS=1 but DAMASI_TEST_POSTGRES or DAMASI_TEST_REDIS is not set"
            );
            eprintln!("skipped: no DAMASI_TEST_POSTGRES and DAMASI_TEST_REDIS");
            None
        }
    }
}

/// How many times each press (callback query) was answered.
fn answers_per_press(api: &BotApi) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for call in api.calls("answerCallbackQuery") {
        let id = call.body["callback_query_id"]
            .as_str()
            .unwrap_or("")
            .to_string();
        match counts.iter_mut().find(|(i, _)| *i == id) {
            Some((_, n)) => *n += 1,
            None => counts.push((id, 1)),
        }
    }
    counts
}

fn moves_of(site: &str, game: &str) -> String {
    get_json(&format!("{site}/api/online/games/{game}"))["state"]["moves"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_process_runs_the_bot_and_another_takes_it_over() {
    let Some((pg, redis)) = servers() else {
        return;
    };
    let base = std::env::temp_dir().join(format!("damasi-tg-cluster-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let api = BotApi::start().await;
    let cluster = ["--database", pg.as_str(), "--pubsub", redis.as_str()];
    // Telegram users of their own, so that a database left by another test does not matter.
    let stamp = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        % 1_000_000_000) as i64;
    let people = [
        bot_api::user(stamp * 10 + 1, "Ali", "ali", "en"),
        bot_api::user(stamp * 10 + 2, "Bob", "bob", "en"),
    ];

    let (first, site1) = serve(&base.join("1"), &api, &cluster);
    api.wait_call("getUpdates", |_| true).await;
    let (_second, site2) = serve(&base.join("2"), &api, &cluster);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while api.calls("getMe").len() < 2 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the second never started"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // A game from an inline query, two plies: each press answered once.
    let (msg, game) = inline_game(&api, &people).await;
    for _ in 0..2 {
        play_first(&api, &site1, &game, &msg, &people).await;
    }
    // Both processes see the same game.
    let before = moves_of(&site1, &game);
    assert_eq!(before.split_whitespace().count(), 2);
    assert_eq!(moves_of(&site2, &game), before);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let twice: Vec<_> = answers_per_press(&api)
        .into_iter()
        .filter(|(_, n)| *n != 1)
        .collect();
    assert!(
        twice.is_empty(),
        "presses answered more than once: {twice:?}"
    );
    let answered = api.calls("answerInlineQuery").len();
    assert_eq!(
        answered, 1,
        "the inline query was answered {answered} times"
    );
    let last = before.split_whitespace().last().unwrap().to_string();
    api.wait_message(&msg, |s| s.text.contains(&last)).await;
    let edits_before = edits_of(&api, &msg).len();

    // SIGKILL the process running the bot: the other takes it over within the lease (10 s)
    // and a renewal (3 s): it polls, and redraws the message from the stored game.
    drop(first);
    let polls = api.calls("getUpdates").len();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while api.calls("getUpdates").len() <= polls {
        assert!(
            tokio::time::Instant::now() < deadline,
            "nobody took the bot over"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let redrawn = wait_redrawn(&api, &msg, edits_before, deadline).await;
    let text = redrawn["text"].as_str().unwrap();
    assert!(text.contains(&last), "{text} lacks {last}");

    // The next presses are answered (once each) and go on from the true position.
    for _ in 0..2 {
        play_first(&api, &site2, &game, &msg, &people).await;
    }
    let after = moves_of(&site2, &game);
    assert_eq!(after.split_whitespace().count(), 4, "{after}");
    assert!(after.starts_with(&before), "{before} then {after}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let twice: Vec<_> = answers_per_press(&api)
        .into_iter()
        .filter(|(_, n)| *n != 1)
        .collect();
    assert!(
        twice.is_empty(),
        "presses answered more than once: {twice:?}"
    );
    let _ = std::fs::remove_dir_all(&base);
}
