//! The Telegram bot survives a kill -9: `damasi serve --telegram-token` against a stand-in
//! for the Bot API, two people play three plies by pressing buttons, the server is killed with
//! SIGKILL and started again on the same data directory; the message is redrawn from the
//! stored game and the next presses go on from the true position.

#[path = "../../damasi-telegram/tests/support/bot_api.rs"]
mod bot_api;
#[path = "support/telegram_serve.rs"]
mod telegram_serve;

use std::time::Duration;

use bot_api::BotApi;
use telegram_serve::{edits_of, get_json, inline_game, play_first, serve, wait_redrawn};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_comes_back_with_its_telegram_games() {
    let dir = std::env::temp_dir().join(format!("damasi-tg-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let api = BotApi::start().await;
    let people = [
        bot_api::user(111, "Ali", "ali", "en"),
        bot_api::user(222, "Bob", "bob", "en"),
    ];
    let (server, site) = serve(&dir, &api, &[]);
    api.wait_call("getMe", |_| true).await;
    let (msg, game) = inline_game(&api, &people).await;
    for _ in 0..3 {
        play_first(&api, &site, &game, &msg, &people).await;
    }
    let before = get_json(&format!("{site}/api/online/games/{game}"))["state"].clone();
    let last = before["moves"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .last()
        .unwrap()
        .to_string();
    // The old server's last edit has landed: any edit from here on is the new server's.
    api.wait_message(&msg, |s| s.text.contains(&last)).await;
    let edits_before = edits_of(&api, &msg).len();
    // SIGKILL: no shutdown of any kind.
    drop(server);
    let gets = api.calls("getMe").len();
    let (_server, site) = serve(&dir, &api, &[]);
    api.wait_call("getMe", |_| true).await;
    assert_eq!(api.calls("getMe").len(), gets + 1);
    let after = get_json(&format!("{site}/api/online/games/{game}"))["state"].clone();
    assert_eq!(after["moves"], before["moves"], "no move lost");
    assert_eq!(after["fen"], before["fen"]);
    // The bot redraws the message from the stored game at start: an edit after the restart
    // with the third move as the last.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let redrawn = wait_redrawn(&api, &msg, edits_before, deadline).await;
    let text = redrawn["text"].as_str().unwrap();
    assert!(text.contains(&last), "{text} lacks {last}");
    // And the game goes on by pressing.
    for _ in 0..2 {
        play_first(&api, &site, &game, &msg, &people).await;
    }
    let end = get_json(&format!("{site}/api/online/games/{game}"))["state"].clone();
    assert_eq!(end["moves"].as_str().unwrap().split_whitespace().count(), 5);
    let _ = std::fs::remove_dir_all(&dir);
}
