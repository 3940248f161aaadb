//! A club's Swiss inside its Telegram group, through `damasi serve` and a stand-in for the Bot
//! API: the organiser (a linked account) sends `/swiss 1+0 2` in the group, four people press
//! Join, the organiser presses Start, each game appears in the group as a board and is played
//! by presses; the server is killed (SIGKILL) in the middle of round 1 and started again on the
//! same data directory, and the round goes on from the same messages, round 2's boards come
//! from the new process, and the final standings are posted once, equal to the web's and to
//! the results recomputed from the games.

#[path = "../../damasi-telegram/tests/support/bot_api.rs"]
mod bot_api;
#[path = "support/telegram_serve.rs"]
mod telegram_serve;

use std::collections::HashMap;
use std::time::Duration;

use bot_api::{BotApi, GROUP};
use serde_json::{json, Value};
use telegram_serve::{add_user, get_json, post_json, serve};

/// The Telegram people of the club, by their account's name on the site: the organiser's
/// linked account, the others the bot's accounts for Telegram users (`tg-` and their username).
fn club() -> Vec<(&'static str, Value)> {
    vec![
        ("ali", bot_api::user(111, "Ali", "ali", "en")),
        ("tg-bob", bot_api::user(222, "Bob", "bob", "en")),
        ("tg-cem", bot_api::user(333, "Cem", "cem", "tr")),
        ("tg-dan", bot_api::user(444, "Dan", "dan", "en")),
    ]
}

/// The button data of the button whose text is `text` on `shown`.
fn button(shown: &bot_api::Shown, text: &str) -> String {
    shown
        .keyboard
        .iter()
        .flatten()
        .find(|b| b["text"].as_str().unwrap_or("").contains(text))
        .and_then(|b| b["callback_data"].as_str())
        .unwrap_or_else(|| panic!("no {text} button on {shown:?}"))
        .to_string()
}

/// The link of the last button of the last row (the web page's).
fn page_of(shown: &bot_api::Shown) -> String {
    let link = shown.keyboard.last().unwrap().last().unwrap()["url"]
        .as_str()
        .expect("a web button")
        .to_string();
    link.rsplit('/').next().unwrap().to_string()
}

/// Waits (up to `wait`) for `n` boards of round `round` in the group: their message ids and
/// their games' ids.
async fn boards_of_round(
    api: &BotApi,
    round: &str,
    n: usize,
    wait: Duration,
) -> Vec<(i64, String)> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let boards =
            api.chat_messages(GROUP.0, |m| m.text.contains(round) && m.keyboard.len() >= 9);
        if boards.len() >= n {
            assert_eq!(boards.len(), n, "each game once: {boards:?}");
            return boards.iter().map(|(id, m)| (*id, page_of(m))).collect();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} boards of {round} in the group",
            boards.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The person to move in `game` plays its first legal move by pressing the board's two
/// squares in the group.
async fn play_first(
    api: &BotApi,
    site: &str,
    people: &HashMap<&str, Value>,
    (message, game): &(i64, String),
) {
    let full = get_json(&format!("{site}/api/online/games/{game}"));
    let state = &full["state"];
    let m = &state["legal"][0];
    let side = state["turn"].as_str().unwrap();
    let mover = &people[full[side]["name"].as_str().unwrap()];
    let from = api
        .press_chat_square(mover, GROUP.0, *message, m["from"].as_str().unwrap())
        .await;
    assert!(!from.contains("Not"), "{from}");
    let played = api
        .press_chat_square(mover, GROUP.0, *message, m["to"].as_str().unwrap())
        .await;
    assert!(played.contains(m["landing"].as_str().unwrap()), "{played}");
}

/// White and Black each play a move, then Black resigns by pressing 🏳 (White wins).
async fn white_wins(
    api: &BotApi,
    site: &str,
    people: &HashMap<&str, Value>,
    board: &(i64, String),
) {
    let plies = |site: &str| {
        get_json(&format!("{site}/api/online/games/{}", board.1))["state"]["moves"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .count()
    };
    while plies(site) < 2 {
        play_first(api, site, people, board).await;
    }
    let full = get_json(&format!("{site}/api/online/games/{}", board.1));
    let black = &people[full["black"]["name"].as_str().unwrap()];
    let shown = api.chat_message(GROUP.0, board.0).unwrap();
    let resign = button(&shown, "🏳");
    api.press_in_chat(black, GROUP.0, board.0, &resign).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let state = &get_json(&format!("{site}/api/online/games/{}", board.1))["state"];
        if state["status"] != "started" {
            assert_eq!(state["winner"], "white", "{state}");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the game did not end"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_plays_its_swiss_by_presses_through_a_restart() {
    let dir = std::env::temp_dir().join(format!("damasi-tg-group-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let token = add_user(&dir, "ali");
    let api = BotApi::start().await;
    let (server, site) = serve(&dir, &api, &[]);
    api.wait_call("getMe", |_| true).await;
    let club = club();
    let people: HashMap<&str, Value> = club.iter().cloned().collect();
    let ali = &people["ali"];

    // The organiser links the account made on the site (the code from its account page).
    let code = post_json(&format!("{site}/api/account/link-code"), &token, &json!({}));
    let code = code["code"].as_str().expect("a link code").to_string();
    api.push(bot_api::private_message(ali, &format!("/link {code}")));
    api.wait_call("sendMessage", |b| {
        b["chat_id"] == 111 && b["text"].as_str().unwrap_or("").contains(" ali")
    })
    .await;
    // A Telegram guest cannot organise: the bot says how to link.
    api.push(bot_api::group_message(&people["tg-bob"], GROUP.0, "/swiss"));
    api.wait_call("sendMessage", |b| {
        b["chat_id"] == GROUP.0 && b["text"].as_str().unwrap_or("").contains("/link")
    })
    .await;

    // `/swiss 1+0 2` in the group: one message for the event, with Join and Start.
    api.push(bot_api::group_message(
        ali,
        GROUP.0,
        "/swiss@damasi_test_bot 1+0 2",
    ));
    let event = api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == GROUP.0 && b["text"].as_str().unwrap_or("").starts_with("🏆")
        })
        .await;
    assert!(event["text"]
        .as_str()
        .unwrap()
        .contains("Kadıköy Dama Swiss"));
    let (event_msg, shown) = api
        .chat_messages(GROUP.0, |m| m.text.starts_with("🏆 Kadıköy"))
        .pop()
        .unwrap();
    let tournament = page_of(&shown);
    let web = get_json(&format!("{site}/api/swiss/{tournament}"));
    assert_eq!(web["name"], "Kadıköy Dama Swiss");
    assert_eq!(web["nbRounds"], 2);
    assert_eq!(web["clock"]["limit"], 60);
    let join = button(&shown, "Join");
    for (_, person) in &club {
        assert_eq!(
            api.press_in_chat(person, GROUP.0, event_msg, &join).await,
            if person["language_code"] == "tr" {
                "Katıldın"
            } else {
                "You are in"
            }
        );
    }
    let shown = api
        .wait_chat_message(GROUP.0, event_msg, |m| m.text.contains("Players (4)"))
        .await;
    for name in ["ali", "tg-bob", "tg-cem", "tg-dan"] {
        assert!(shown.text.contains(name), "{name} in {}", shown.text);
    }
    let start = button(&shown, "Start");
    let not_organiser = api
        .press_in_chat(&people["tg-dan"], GROUP.0, event_msg, &start)
        .await;
    assert!(not_organiser.contains("organiser"), "{not_organiser}");
    assert_eq!(
        api.press_in_chat(ali, GROUP.0, event_msg, &start).await,
        "Started"
    );

    // Round 1: a board for each game in the group, each once; a ply on each.
    let round1 = boards_of_round(&api, "Round 1 of 2", 2, Duration::from_secs(15)).await;
    for board in &round1 {
        play_first(&api, &site, &people, board).await;
    }
    api.wait_chat_message(GROUP.0, event_msg, |m| m.text.contains("Standings"))
        .await;

    // SIGKILL in the middle of the round, and the same data directory again.
    drop(server);
    let (_server, site) = serve(&dir, &api, &[]);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while api.calls("getMe").len() < 2 {
        assert!(tokio::time::Instant::now() < deadline, "no restart");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The round goes on by pressing the same messages.
    for board in &round1 {
        white_wins(&api, &site, &people, board).await;
    }
    // Round 2 is paired after the pause and posted by the new process, each game once.
    let round2 = boards_of_round(&api, "Round 2 of 2", 2, Duration::from_secs(40)).await;
    for board in &round2 {
        assert!(!round1.iter().any(|b| b.1 == board.1));
        white_wins(&api, &site, &people, board).await;
    }

    // The final standings, once, equal to the web's and to the results.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    let last = loop {
        let finals = api.chat_messages(GROUP.0, |m| m.text.contains("final standings"));
        if let Some((_, m)) = finals.first() {
            assert_eq!(finals.len(), 1);
            break m.text.clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "no final standings");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let web = get_json(&format!("{site}/api/swiss/{tournament}"));
    assert_eq!(web["status"], "finished");
    let mut points: HashMap<String, f64> = HashMap::new();
    for round in web["rounds"].as_array().unwrap() {
        for g in round["games"].as_array().unwrap() {
            assert_eq!(g["result"], "1-0", "{g}");
            *points
                .entry(g["white"].as_str().unwrap().into())
                .or_default() += 1.0;
            points
                .entry(g["black"].as_str().unwrap().into())
                .or_default();
        }
    }
    assert_eq!(points.len(), 4);
    let standings = web["standings"].as_array().unwrap();
    for (i, line) in standings.iter().enumerate() {
        let name = line["username"].as_str().unwrap();
        assert_eq!(line["points"].as_f64().unwrap(), points[name], "{name}");
        let shown = format!("{}. {name} — {}", line["rank"], points[name]);
        assert_eq!(last.lines().nth(i + 1), Some(shown.as_str()), "{last}");
    }
    // The event's message says it is over and offers no more buttons but its page.
    let shown = api
        .wait_chat_message(GROUP.0, event_msg, |m| m.text.contains("Finished"))
        .await;
    assert_eq!(shown.keyboard.len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
