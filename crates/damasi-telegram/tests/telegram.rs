//! The bot against a stand-in for Telegram's Bot API (`support/bot_api.rs`): people play
//! through inline queries and button presses as Telegram's clients send them.

mod support;

use std::time::Duration;

use damasi::{Color, Notation, Position};
use damasi_online::brain::Brain;
use damasi_online::db::SecretKind;
use damasi_online::{now_ms, Online};
use damasi_telegram::edits::EditLimits;
use damasi_telegram::{Telegram, TelegramConfig};
use serde_json::{json, Value};
use support::bot_api::{self, BotApi};

struct World {
    api: BotApi,
    online: Online,
    presses: std::sync::atomic::AtomicUsize,
}

/// Edit limits a tenth of Telegram's, so that tests of a minute take six seconds.
const FAST: EditLimits = EditLimits {
    gap: Duration::from_millis(100),
    group_window: Duration::from_secs(6),
    group_edits: 20,
};

async fn world() -> World {
    let api = BotApi::start().await;
    let online = Online::in_memory();
    let mut config = TelegramConfig::new("123456:TEST");
    config.api_url = Some(api.url.clone());
    config.public_url = Some("https://dama.example".into());
    config.poll_timeout = Duration::from_secs(1);
    config.limits = FAST;
    let tournaments = damasi_tournaments::Tournaments::new(online.clone());
    let tg = Telegram::start(online.clone(), Brain::new(), tournaments, config)
        .await
        .expect("the bot starts");
    assert_eq!(tg.username(), bot_api::BOT_USERNAME);
    World {
        api,
        online,
        presses: Default::default(),
    }
}

fn ali() -> Value {
    bot_api::user(111, "Ali", "ali", "tr")
}
fn bob() -> Value {
    bot_api::user(222, "Bob", "bob", "en")
}
fn cem() -> Value {
    bot_api::user(333, "Cem", "cem", "en")
}

/// Who moves in `position`: Ali plays White, Bob Black.
fn mover(position: &Position) -> Value {
    if position.side_to_move() == Color::White {
        ali()
    } else {
        bob()
    }
}

impl World {
    /// `from` asks inline for `query` in a `chat_type` chat and sends result `result`.
    async fn offer(&self, from: &Value, query: &str, chat_type: &str, result: &str) -> String {
        let qid = format!("q{}", self.next());
        self.api
            .push(bot_api::inline_query(&qid, from, query, chat_type));
        self.api
            .wait_call("answerInlineQuery", |b| {
                b["inline_query_id"] == qid.as_str()
            })
            .await;
        self.api.choose(&qid, result)
    }

    fn next(&self) -> usize {
        self.presses
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    }

    /// `from` presses the button with `data` on `message`; answers what the bot told them.
    async fn press_data(&self, from: &Value, message: &str, data: &str) -> String {
        self.api.press_button(from, message, data).await
    }

    /// `from` presses square `sq` as the message shows it now (rank 8 on top, seen from White).
    async fn press(&self, from: &Value, message: &str, sq: &str) -> String {
        self.api.press_square(from, message, sq).await
    }

    /// Waits until the message shows the game's board (its squares and the actions).
    async fn board_shown(&self, message: &str) {
        self.api
            .wait_message(message, |s| s.keyboard.len() == 9)
            .await;
    }

    async fn game_of(&self, message: &str) -> String {
        let shown = self
            .online
            .db()
            .shown_game(&format!("tg:{message}"))
            .await
            .unwrap()
            .expect("the message shows a game");
        shown.game_id
    }

    async fn state(&self, game: &str) -> Value {
        let full = self.online.full(game, None).await.unwrap();
        serde_json::to_value(damasi_online::messages::GameMessage::from(full)).unwrap()
    }

    /// The side to move of `position` plays its first legal move in `game` by pressing, and
    /// `position` follows. Answers the move and what the bot said, or `None` once it is over.
    async fn play_first(
        &self,
        game: &str,
        message: &str,
        position: &mut Position,
    ) -> Option<(String, String)> {
        let state = self.state(game).await["state"].clone();
        if !state["outcome"].is_null() {
            return None;
        }
        let m = state["legal"][0].clone();
        let mover = mover(position);
        let answer = self.play(&mover, message, &m).await;
        let landing = m["landing"].as_str().unwrap().to_string();
        *position = position.play(&position.parse_move(&landing).unwrap());
        Some((landing, answer))
    }

    /// Plays the move `landing` (from the state's legal moves) by pressing its squares, and a
    /// route's button if the bot asks which.
    async fn play(&self, from: &Value, message: &str, m: &Value) -> String {
        let start = m["from"].as_str().unwrap();
        let end = m["to"].as_str().unwrap();
        let landing = m["landing"].as_str().unwrap();
        let first = self.press(from, message, start).await;
        assert!(!first.is_empty(), "picking {start} says nothing");
        let second = self.press(from, message, end).await;
        if second.contains("routes") || second.contains("yoldan") {
            let data = format!("m{landing}");
            let shown = self
                .api
                .wait_message(message, |s| {
                    s.keyboard
                        .iter()
                        .flatten()
                        .any(|b| b["callback_data"] == data.as_str())
                })
                .await;
            assert!(
                shown.keyboard.len() > 9,
                "the routes are buttons under the board"
            );
            return self.press_data(from, message, &data).await;
        }
        second
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_play_a_whole_game_by_pressing_buttons() {
    let w = world().await;
    let msg = w.offer(&ali(), "", "group", "p").await;
    let first = w.api.message(&msg).unwrap();
    assert!(first.text.contains("Ali"), "{}", first.text);
    assert_eq!(
        first.keyboard.len(),
        8,
        "the board, and no actions before the game"
    );

    // Ali cannot play himself; Bob joins as Black by pressing any square.
    assert_eq!(
        w.press(&ali(), &msg, "a1").await,
        "Beyazla sen oynuyorsun: bir rakip bekle"
    );
    assert_eq!(w.press(&bob(), &msg, "e5").await, "You play Black");
    let game = w.game_of(&msg).await;
    let shown = w
        .api
        .wait_message(&msg, |s| s.text.contains("tg-bob") && s.keyboard.len() == 9)
        .await;
    let web = shown.keyboard[8].last().unwrap();
    assert_eq!(
        web["url"],
        format!("https://dama.example/online/{game}").as_str()
    );

    // A stranger's press and an out-of-turn press change nothing and say why.
    assert_eq!(
        w.press(&cem(), &msg, "c3").await,
        "This game is between tg-ali and tg-bob"
    );
    assert_eq!(w.press(&bob(), &msg, "c6").await, "It is not your move");
    assert_eq!(w.state(&game).await["state"]["moves"], "");
    // A piece that cannot move, then a square it cannot reach.
    assert_eq!(
        w.press(&ali(), &msg, "a2").await,
        "Oynayabilen taşlarından birine bas"
    );
    assert_eq!(
        w.press(&ali(), &msg, "c3").await,
        "Şimdi gideceği kareye bas"
    );
    assert_eq!(w.press(&ali(), &msg, "c5").await, "Bu taş oraya gidemez");

    // Then the whole game: each side plays its first legal move, by pressing.
    let mut played: Vec<String> = Vec::new();
    let mut position = Position::start();
    for _ in 0..400 {
        let Some((landing, answer)) = w.play_first(&game, &msg, &mut position).await else {
            break;
        };
        assert!(answer.contains(&landing), "{answer} for {landing}");
        played.push(landing);
    }
    let end = w.state(&game).await;
    if end["state"]["outcome"].is_null() {
        // No end by the rules in 400 plies: the side to move resigns from the button.
        let mover = mover(&position);
        let resign = w.api.message(&msg).unwrap().keyboard[8][0]["callback_data"].clone();
        w.press_data(&mover, &msg, resign.as_str().unwrap()).await;
    }
    let end = w.state(&game).await["state"].clone();
    let outcome: damasi::Outcome = end["outcome"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        end["fen"],
        position.to_fen().as_str(),
        "the stored game is the one pressed"
    );
    assert_eq!(
        end["moves"].as_str().unwrap().split_whitespace().count(),
        played.len()
    );
    // The message ends showing the result in Ali's language (he sent it).
    let result = damasi_telegram::texts::Lang::Tr.outcome(&outcome);
    w.api.wait_message(&msg, |s| s.text.contains(&result)).await;
    assert!(played.len() >= 10, "{} plies", played.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capture_with_two_routes_to_one_square_asks_which() {
    // Find a game from the start whose position offers two captures from one square to one
    // square (random legal moves with a fixed seed, checked by the rules library), then play
    // it through the bot and choose the second route.
    let (line, routes) = two_route_line();
    let w = world().await;
    let msg = w.offer(&ali(), "", "private", "p").await;
    w.press(&bob(), &msg, "a1").await;
    w.board_shown(&msg).await;
    let game = w.game_of(&msg).await;
    let mut position = Position::start();
    for landing in &line {
        let mover = mover(&position);
        let state = w.state(&game).await["state"].clone();
        let m = state["legal"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["landing"] == landing.as_str())
            .cloned()
            .unwrap_or_else(|| panic!("{landing} not legal in {}", state["fen"]));
        w.play(&mover, &msg, &m).await;
        position = position.play(&position.parse_move(landing).unwrap());
    }
    let mover = mover(&position);
    let (from, to) = (&routes[0].1, &routes[0].2);
    w.press(&mover, &msg, from).await;
    let asked = w.press(&mover, &msg, to).await;
    assert!(
        asked.contains("routes") || asked.contains("yoldan"),
        "{asked}"
    );
    let chosen = &routes[1].0;
    let data = format!("m{chosen}");
    w.api
        .wait_message(&msg, |s| {
            s.keyboard
                .iter()
                .flatten()
                .any(|b| b["callback_data"] == data.as_str())
        })
        .await;
    w.press_data(&mover, &msg, &data).await;
    let moves = w.state(&game).await["state"]["moves"]
        .as_str()
        .unwrap()
        .to_string();
    let after = position.play(&position.parse_move(chosen).unwrap());
    assert_eq!(
        w.state(&game).await["state"]["fen"],
        after.to_fen().as_str()
    );
    assert_eq!(moves.split_whitespace().count(), line.len() + 1);
}

/// A line of moves from the start after which the side to move has two captures from the
/// same square to the same square by different routes: the line, and those captures
/// (landing notation, from, to).
fn two_route_line() -> (Vec<String>, Vec<(String, String, String)>) {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..20_000 {
        let mut pos = Position::start();
        let mut line = Vec::new();
        for _ in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let infos: Vec<(String, String, String)> = moves
                .iter()
                .map(|m| {
                    (
                        pos.write_move(m, Notation::Landing),
                        m.from().to_string(),
                        m.to().to_string(),
                    )
                })
                .collect();
            for a in &infos {
                let same: Vec<_> = infos
                    .iter()
                    .filter(|b| b.1 == a.1 && b.2 == a.2)
                    .cloned()
                    .collect();
                if same.len() >= 2 {
                    return (line, same);
                }
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let m = moves
                .iter()
                .nth((seed % moves.len() as u64) as usize)
                .unwrap();
            line.push(pos.write_move(m, Notation::Landing));
            pos = pos.play(m);
        }
    }
    panic!("no position with two routes found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_faster_than_edits_are_all_kept_within_the_group_limits() {
    let w = world().await;
    let msg = w.offer(&ali(), "", "supergroup", "p").await;
    w.press(&bob(), &msg, "a1").await;
    w.board_shown(&msg).await;
    let game = w.game_of(&msg).await;
    let started = tokio::time::Instant::now();
    let mut position = Position::start();
    // Forty plies as fast as the presses go: many more changes than edits allowed.
    for _ in 0..40 {
        if w.play_first(&game, &msg, &mut position).await.is_none() {
            break;
        }
    }
    // Every move is kept, and the message comes to show the last position.
    let state = w.state(&game).await["state"].clone();
    assert_eq!(state["fen"], position.to_fen().as_str());
    let last = state["moves"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .last()
        .unwrap()
        .to_string();
    let shown = w
        .api
        .wait_message(&msg, |s| s.text.contains(&format!(": {last}")))
        .await;
    let edits = shown.edits;
    for pair in edits.windows(2) {
        assert!(
            pair[1] - pair[0] >= FAST.gap,
            "edits {:?} apart",
            pair[1] - pair[0]
        );
    }
    for (i, &e) in edits.iter().enumerate() {
        let in_window = edits[i..]
            .iter()
            .take_while(|&&x| x < e + FAST.group_window)
            .count();
        assert!(
            in_window <= FAST.group_edits,
            "{in_window} edits in a window"
        );
    }
    assert!(
        edits.len() < 80,
        "{} edits for 40 plies and their picks in {:?}",
        edits.len(),
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_answers_a_move() {
    let w = world().await;
    let msg = w.offer(&ali(), "motor 1", "private", "e1").await;
    let shown = w.api.message(&msg).unwrap();
    assert!(shown.text.contains("seviye 1"), "{}", shown.text);
    // Only Ali may start it; his first press starts the game.
    assert!(w.press(&bob(), &msg, "c3").await.contains("tg-ali"));
    w.press(&ali(), &msg, "c3").await;
    w.board_shown(&msg).await;
    let game = w.game_of(&msg).await;
    let state = w.state(&game).await;
    assert_eq!(state["black"]["name"], "damasi-level-1");
    let m = state["state"]["legal"][0].clone();
    w.play(&ali(), &msg, &m).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let moves = w.state(&game).await["state"]["moves"]
            .as_str()
            .unwrap()
            .to_string();
        if moves.split_whitespace().count() == 2 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the engine did not move: {moves}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    w.api
        .wait_message(&msg, |s| s.text.contains("Motor (seviye 1)"))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn linked_accounts_play_rated_games() {
    let w = world().await;
    let accounts = w.online.accounts();
    let mut codes = Vec::new();
    for name in ["ayse", "bora"] {
        let p = accounts
            .sign_up(name, "a long password 1".into(), now_ms())
            .await
            .unwrap();
        codes.push((
            p.clone(),
            accounts
                .issue(p.id, SecretKind::Link, now_ms())
                .await
                .unwrap(),
        ));
    }
    let people = [ali(), bob()];
    for (person, (account, code)) in people.iter().zip(&codes) {
        w.api
            .push(bot_api::private_message(person, &format!("/link {code}")));
        let reply = w
            .api
            .wait_call("sendMessage", |b| {
                b["chat_id"] == person["id"]
                    && b["text"].as_str().unwrap_or("").contains(&account.name)
            })
            .await;
        assert!(reply["text"].as_str().unwrap().contains(&account.name));
    }
    // A used code is gone; a made-up one is refused.
    w.api.push(bot_api::private_message(
        &cem(),
        &format!("/link {}", codes[0].1),
    ));
    w.api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == 333 && b["text"].as_str().unwrap_or("").contains("not valid")
        })
        .await;

    let msg = w.offer(&ali(), "rated 5+3", "private", "r").await;
    // A guest cannot take a rated game.
    assert!(w.press(&cem(), &msg, "a1").await.contains("/link"));
    assert_eq!(w.press(&bob(), &msg, "a1").await, "You play Black");
    w.board_shown(&msg).await;
    let game = w.game_of(&msg).await;
    let full = w.state(&game).await;
    assert_eq!(full["rated"], true);
    assert_eq!(full["white"]["name"], "ayse");
    assert_eq!(full["black"]["name"], "bora");
    assert_eq!(full["clock"], json!({"initial": 300000, "increment": 3000}));
    // Two moves each side, then Black resigns: both ratings change.
    for _ in 0..2 {
        for person in [ali(), bob()] {
            let m = w.state(&game).await["state"]["legal"][0].clone();
            w.play(&person, &msg, &m).await;
        }
    }
    let resign = w
        .api
        .wait_message(&msg, |s| s.keyboard.len() == 9)
        .await
        .keyboard[8][0]["callback_data"]
        .clone();
    w.press_data(&bob(), &msg, resign.as_str().unwrap()).await;
    let end = w.state(&game).await["state"].clone();
    assert_eq!(end["outcome"], "white:resignation");
    assert!(end["ratingDiff"]["white"].as_i64().unwrap() > 0, "{end}");
    assert!(end["ratingDiff"]["black"].as_i64().unwrap() < 0, "{end}");
}

/// Messages "your move" sent to Telegram user `chat` about `game` so far.
fn your_move_messages(w: &World, chat: i64, game: &str) -> Vec<Value> {
    w.api
        .calls("sendMessage")
        .into_iter()
        .map(|c| c.body)
        .filter(|b| {
            b["chat_id"] == chat
                && b["text"].as_str().unwrap_or("").contains("Your move")
                && b.to_string().contains(&format!("/online/{game}"))
        })
        .collect()
}

/// A correspondence game asked for inline (`3d`): each turn is told to the linked player whose
/// move it is, in their private chat with the bot, with the opponent's move and a link to the
/// game; a live game between the same people sends no such message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn linked_players_hear_when_a_correspondence_game_waits_for_their_move() {
    let w = world().await;
    let accounts = w.online.accounts();
    for (person, name) in [(ali(), "ayse"), (bob(), "bora")] {
        let p = accounts
            .sign_up(name, "a long password 1".into(), now_ms())
            .await
            .unwrap();
        let code = accounts
            .issue(p.id, SecretKind::Link, now_ms())
            .await
            .unwrap();
        w.api
            .push(bot_api::private_message(&person, &format!("/link {code}")));
        w.api
            .wait_call("sendMessage", |b| {
                b["chat_id"] == person["id"] && b["text"].as_str().unwrap_or("").contains(name)
            })
            .await;
    }
    let msg = w.offer(&ali(), "3d rated", "private", "r").await;
    assert_eq!(w.press(&bob(), &msg, "a1").await, "You play Black");
    w.board_shown(&msg).await;
    let game = w.game_of(&msg).await;
    let full = w.state(&game).await;
    assert_eq!(full["speed"], "correspondence");
    assert_eq!(full["daysPerTurn"], 3);
    assert_eq!(full["clock"], Value::Null);
    // The message (in Ali's language) shows the turn's time in days.
    w.api
        .wait_message(&msg, |s| s.text.contains("⏱ 3g · 3g (hamle başına 3 gün)"))
        .await;
    // White (Ali, linked to ayse) hears the game waits for them.
    let told = w
        .api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == 111 && b["text"].as_str().unwrap_or("").contains("Your move")
        })
        .await;
    assert!(told["text"].as_str().unwrap().contains("bora"), "{told}");
    assert!(told["text"].as_str().unwrap().contains("3d"), "{told}");
    assert_eq!(
        told["reply_markup"]["inline_keyboard"][0][0]["url"],
        format!("https://dama.example/online/{game}")
    );
    // Ali moves: Bob hears it is his move, with Ali's move.
    let m = full["state"]["legal"][0].clone();
    w.play(&ali(), &msg, &m).await;
    let landing = m["landing"].as_str().unwrap();
    let told = w
        .api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == 222 && b["text"].as_str().unwrap_or("").contains("Your move")
        })
        .await;
    let text = told["text"].as_str().unwrap();
    assert!(text.contains("ayse") && text.contains(landing), "{text}");
    assert_eq!(your_move_messages(&w, 222, &game).len(), 1);

    // A live game between the same two: moves send no such message.
    let live_msg = w.offer(&ali(), "5+3", "private", "p").await;
    assert_eq!(w.press(&bob(), &live_msg, "a1").await, "You play Black");
    w.board_shown(&live_msg).await;
    let live = w.game_of(&live_msg).await;
    for person in [ali(), bob()] {
        let m = w.state(&live).await["state"]["legal"][0].clone();
        w.play(&person, &live_msg, &m).await;
    }
    // Bob answers in the correspondence game: Ali hears of it (a later message than any the
    // live moves could have sent).
    let m = w.state(&game).await["state"]["legal"][0].clone();
    w.play(&bob(), &msg, &m).await;
    w.api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == 111
                && b["text"].as_str().unwrap_or("").contains("Your move")
                && b["text"]
                    .as_str()
                    .unwrap_or("")
                    .contains(m["landing"].as_str().unwrap())
        })
        .await;
    assert_eq!(your_move_messages(&w, 111, &game).len(), 2);
    for chat in [111, 222] {
        assert!(your_move_messages(&w, chat, &live).is_empty());
    }
}

/// Signs up `name` and links Telegram user `person` to it with `/link`; answers the account.
async fn link(w: &World, person: &Value, name: &str) -> damasi_online::accounts::Player {
    let accounts = w.online.accounts();
    let p = accounts
        .sign_up(name, "a long password 1".into(), now_ms())
        .await
        .unwrap();
    let code = accounts
        .issue(p.id, SecretKind::Link, now_ms())
        .await
        .unwrap();
    w.api
        .push(bot_api::private_message(person, &format!("/link {code}")));
    w.api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == person["id"]
                && b["text"]
                    .as_str()
                    .unwrap_or("")
                    .contains(&format!(" {name}"))
        })
        .await;
    p
}

/// The games of account `id` so far.
async fn games_of(w: &World, id: i64) -> usize {
    w.online.db().games_of(id, 1000).await.unwrap().len()
}

/// Issue #46, E: the data of the button that begins a game is the bot's own, signed. A
/// modified client's presses (an offer "by" the victim, made up; a real offer's data changed;
/// a real offer's data sent again on another message) begin nothing; a person whom the offer's
/// sender blocks cannot take it; and one Telegram user begins at most a few games at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_or_replayed_presses_begin_no_game_and_blocks_hold() {
    let w = world().await;
    let ayse = link(&w, &ali(), "ayse").await;
    let bora = link(&w, &bob(), "bora").await;
    let cemal = link(&w, &cem(), "cemal").await;
    // Ayşe blocks Cemal, as on the web (where his direct challenge gets a 403).
    w.online.relations().block(&ayse, "cemal").await.unwrap();

    // A real rated offer of Ali's, and its buttons' signed data.
    let msg = w.offer(&ali(), "rated 5+3", "private", "r").await;
    let genuine = w.api.message(&msg).unwrap().keyboard[0][0]["callback_data"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(genuine.len() <= 64, "{genuine}");

    // Forty presses of a modified client on messages the bot never sent, naming Ali as the
    // offer's sender: in the bot's old unsigned form, with a made-up tag, with the real data
    // changed to another control or unrated.
    let made_up_tag = format!("{}AAAAAAAAAAAA", &genuine[..genuine.len() - 12]);
    let changed = genuine.replacen(":5:3:", ":1:0:", 1);
    let unrated = genuine.replacen(":0:1:", ":0:0:", 1);
    let forged = [
        "J111:5:3:0:1:en:plain".to_string(),
        "J111:5:3:0:1:tr:turkish".to_string(),
        made_up_tag,
        changed,
        unrated,
    ];
    let started = tokio::time::Instant::now();
    for i in 0..40 {
        let data = &forged[i % forged.len()];
        let answer = w.press_data(&cem(), &format!("FAKE{i}"), data).await;
        assert!(answer.contains("not valid"), "{data}: {answer}");
    }
    let elapsed = started.elapsed();
    assert_eq!(games_of(&w, ayse.id).await, 0, "after {elapsed:?}");
    assert_eq!(games_of(&w, cemal.id).await, 0);
    for i in 0..40 {
        let shown = w
            .online
            .db()
            .shown_game(&format!("tg:FAKE{i}"))
            .await
            .unwrap();
        assert!(shown.is_none(), "FAKE{i} shows a game");
    }

    // The real offer: Cemal, whom Ayşe blocks, cannot take it, on its message or another.
    for message in [msg.as_str(), "FAKE-B"] {
        let answer = w.press_data(&cem(), message, &genuine).await;
        assert!(answer.contains("cannot play"), "{answer}");
    }
    assert_eq!(games_of(&w, ayse.id).await, 0);

    // Bora takes it; its data sent again on another message begins nothing more.
    assert_eq!(w.press(&bob(), &msg, "a1").await, "You play Black");
    w.board_shown(&msg).await;
    for message in ["FAKE-R1", "FAKE-R2"] {
        let answer = w.press_data(&bob(), message, &genuine).await;
        assert!(answer.contains("not valid"), "{answer}");
    }
    assert_eq!(games_of(&w, ayse.id).await, 1);

    // Many real offers: one Telegram user begins a few games at once, then must wait.
    let burst = damasi_telegram::bot::BEGIN_BURST as usize;
    let mut answers = Vec::new();
    for _ in 0..burst + 2 {
        let m = w.offer(&ali(), "5+3", "private", "p").await;
        answers.push(w.press(&bob(), &m, "a1").await);
    }
    let begun = answers.iter().filter(|a| *a == "You play Black").count();
    assert_eq!(begun, burst - 1, "{answers:?}");
    assert!(answers[burst - 1..].iter().all(|a| a.contains("Too many")));
    assert_eq!(games_of(&w, bora.id).await, burst);
}

/// Issue #46, F: `/unlink` unties the Telegram user from the account `/link` tied it to; the
/// bot plays them as a guest again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlink_unties_the_telegram_user_from_the_account() {
    let w = world().await;
    let ayse = link(&w, &ali(), "ayse").await;
    let db = w.online.db();
    let linked = db
        .outside_account("telegram", "111")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(linked.user.id, ayse.id);

    w.api.push(bot_api::private_message(&ali(), "/unlink"));
    let reply = w
        .api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == 111 && b["text"].as_str().unwrap_or("").contains("kaldırıldı")
        })
        .await;
    assert!(reply["text"].as_str().unwrap().contains("ayse"), "{reply}");
    let now = db.outside_account("telegram", "111").await.unwrap();
    assert!(now.is_none(), "{now:?}");
    // Ali plays as a guest again: no rated game is offered to him.
    let msg = w.offer(&ali(), "rated 5+3", "private", "p").await;
    let answer = w
        .api
        .calls("answerInlineQuery")
        .last()
        .unwrap()
        .body
        .clone();
    assert!(answer.to_string().contains("\"id\":\"p\""));
    assert!(!answer.to_string().contains("\"id\":\"r\""), "{answer}");
    assert!(w.api.message(&msg).is_some());
    let guest = db
        .outside_account("telegram", "111")
        .await
        .unwrap()
        .unwrap();
    assert!(guest.user.guest && guest.user.id != ayse.id);
    // Unlinking a guest says there is nothing to undo.
    w.api.push(bot_api::private_message(&ali(), "/unlink"));
    w.api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == 111 && b["text"].as_str().unwrap_or("").contains("bağlı değil")
        })
        .await;
}

/// Issue #44, items 3 and 4: a linked person hears in their private chat of a tournament's
/// game that has begun (with its page) and of a direct challenge, which they accept or
/// decline with its buttons; only the one challenged can answer, and other games begin
/// without a message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn linked_people_hear_of_challenges_and_tournament_games() {
    let w = world().await;
    let ayse = link(&w, &ali(), "ayse").await;
    let bora = link(&w, &bob(), "bora").await;
    let blitz = damasi_online::NewGame {
        initial_ms: 300_000,
        increment_ms: 3_000,
        rated: false,
        chat: true,
        rules: damasi::RuleSet::default(),
    };
    let sent_to = |chat: i64, words: &'static str| {
        move |b: &Value| b["chat_id"] == chat && b["text"].as_str().unwrap_or("").contains(words)
    };

    // Bora challenges Ayşe: Ali (her Telegram) gets the challenge with two buttons.
    let challenge = w.online.challenge(&bora, &ayse, blitz, None).await.unwrap();
    let told = w
        .api
        .wait_call("sendMessage", sent_to(111, "challenges you"))
        .await;
    let text = told["text"].as_str().unwrap();
    assert!(text.contains("bora") && text.contains("(5+3)"), "{told}");
    let buttons = &told["reply_markup"]["inline_keyboard"][0];
    assert_eq!(buttons[0]["callback_data"], format!("Ca{}", challenge.id));
    assert_eq!(buttons[1]["callback_data"], format!("Cd{}", challenge.id));
    let has_button = |data: String| {
        move |m: &support::bot_api::Shown| {
            m.keyboard
                .iter()
                .flatten()
                .any(|b| b["callback_data"] == data.as_str())
        }
    };
    let message_id = w
        .api
        .find_chat_message(111, has_button(format!("Ca{}", challenge.id)))
        .unwrap();
    // Cem sends the same press (a made-up one: the data is no secret): refused, as Cem's
    // account is not the one challenged.
    w.api.push(bot_api::private_message(&cem(), "/help"));
    w.api
        .wait_call("sendMessage", |b| b["chat_id"] == 333)
        .await;
    let cems = w.api.find_chat_message(333, |_| true).unwrap();
    let answer = w
        .api
        .press_chat_button(&cem(), cems, &format!("Ca{}", challenge.id))
        .await;
    assert!(
        !answer.is_empty() && !answer.contains("Accepted") && !answer.contains("Kabul edildi"),
        "{answer}"
    );
    // Ali accepts: the game begins, the buttons give way to the game's page.
    let answer = w
        .api
        .press_chat_button(&ali(), message_id, &format!("Ca{}", challenge.id))
        .await;
    // The answer is in the language of Ali's Telegram app.
    assert_eq!(answer, "Kabul edildi: oyun başladı");
    let full = w.state(&challenge.id).await;
    assert_eq!(full["state"]["status"], "started");
    assert!(
        full["white"].is_object() && full["black"].is_object(),
        "{full}"
    );
    let shown = w.api.chat_message(111, message_id).unwrap();
    assert_eq!(
        shown.keyboard[0][0]["url"],
        format!("https://dama.example/online/{}", challenge.id)
    );
    // A second challenge, declined: the game never begins and Bora hears the decline.
    let mut bora_events = w.online.user_events(bora.id);
    let second = w.online.challenge(&bora, &ayse, blitz, None).await.unwrap();
    w.api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == 111 && b.to_string().contains(&format!("Cd{}", second.id))
        })
        .await;
    let message_id = w
        .api
        .find_chat_message(111, has_button(format!("Cd{}", second.id)))
        .unwrap();
    let answer = w
        .api
        .press_chat_button(&ali(), message_id, &format!("Cd{}", second.id))
        .await;
    assert_eq!(answer, "Davet reddedildi");
    let declined = loop {
        let e = serde_json::to_value(&*bora_events.recv().await.unwrap()).unwrap();
        if e["type"] == "challengeDeclined" {
            break e;
        }
    };
    assert_eq!(declined["challenge"]["id"], second.id.as_str());
    assert_eq!(w.state(&second.id).await["state"]["status"], "aborted");
    assert!(w
        .api
        .chat_message(111, message_id)
        .unwrap()
        .keyboard
        .is_empty());

    // A tournament pairs them: both hear, with the game's page; a game paired otherwise
    // (a pool, a seek) begins with no message.
    let event = w
        .online
        .create_paired_in(&ayse, &bora, blitz, "swiss/club1".into())
        .await
        .unwrap();
    for chat in [111, 222] {
        let told = w
            .api
            .wait_call("sendMessage", |b| {
                b["chat_id"] == chat && b.to_string().contains(&format!("/online/{}", event.id))
            })
            .await;
        let text = told["text"].as_str().unwrap();
        assert!(text.contains("Your tournament game has begun"), "{text}");
        assert!(
            text.contains(if chat == 111 { "bora" } else { "ayse" }),
            "{text}"
        );
    }
    let full = w.state(&event.id).await;
    assert_eq!(full["swissId"], "club1");
    let other = w.online.create_paired(&ayse, &bora, blitz).await.unwrap();
    // The tournament's messages came after the pairing: any for `other` would have too.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!w.api.calls("sendMessage").iter().any(|c| c
        .body
        .to_string()
        .contains(&format!("/online/{}", other.id))));
}

/// Issue #44, 8: a Swiss made in a group with `private` sends each game's board to its players'
/// private chats with the bot (not to the group, and without the separate notice of the game);
/// both boards show the same game, either plays it, and the final standings come to the group.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_swiss_can_send_its_boards_to_the_players_private_chats() {
    let w = world().await;
    link(&w, &ali(), "ayse").await;
    let (group, _) = bot_api::GROUP;
    w.api.push(bot_api::group_message(
        &ali(),
        group,
        "/swiss 3+2 1 private",
    ));
    let event = w
        .api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == group && b["text"].as_str().unwrap_or("").starts_with("🏆")
        })
        .await;
    let text = event["text"].as_str().unwrap();
    // In the organiser's language (Ali's Telegram is Turkish).
    assert!(text.contains("⏱ 3+2 · 1 tur · puansız"), "{text}");
    assert!(
        text.contains("@damasi_test_bot ile özel sohbetine"),
        "{text}"
    );
    let (event_msg, shown) = w
        .api
        .chat_messages(group, |m| m.text.starts_with("🏆"))
        .pop()
        .unwrap();
    let data = |shown: &support::bot_api::Shown, label: &str| {
        shown
            .keyboard
            .iter()
            .flatten()
            .find(|b| b["text"].as_str().unwrap().contains(label))
            .map(|b| b["callback_data"].as_str().unwrap().to_string())
            .unwrap()
    };
    let join = data(&shown, "Katıl");
    for p in [ali(), bob()] {
        w.api.press_in_chat(&p, group, event_msg, &join).await;
    }
    w.api
        .wait_chat_message(group, event_msg, |m| m.text.contains("(2)"))
        .await;
    let start = data(&shown, "Başlat");
    assert_eq!(
        w.api.press_in_chat(&ali(), group, event_msg, &start).await,
        "Başladı"
    );
    // One board in each player's private chat, none in the group.
    let board_in = |chat: i64| {
        let w = &w;
        async move {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            loop {
                let boards = w.api.chat_messages(chat, |m| m.keyboard.len() >= 9);
                if let Some(b) = boards.first() {
                    assert_eq!(boards.len(), 1);
                    return b.0;
                }
                assert!(tokio::time::Instant::now() < deadline, "no board in {chat}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    let (at_ali, at_bob) = (board_in(111).await, board_in(222).await);
    assert!(w
        .api
        .chat_messages(group, |m| m.keyboard.len() >= 9)
        .is_empty());
    let ali_board = w.api.chat_message(111, at_ali).unwrap();
    assert!(ali_board.text.contains("🏆"), "{}", ali_board.text);
    // The boards say it all: no "your tournament game has begun" besides.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(w.api.calls("sendMessage").iter().all(|c| {
        let text = c.body["text"].as_str().unwrap_or("");
        !text.contains("tournament game") && !text.contains("Turnuva oyunun")
    }));

    // White plays on its own board; the other board follows.
    let game = w
        .online
        .db()
        .shown_game(&format!("tg:chat:111:{at_ali}"))
        .await
        .unwrap()
        .unwrap()
        .game_id;
    let full = w.state(&game).await;
    let white_is_ali = full["white"]["name"] == "ayse";
    let (white, white_chat, white_msg) = if white_is_ali {
        (ali(), 111, at_ali)
    } else {
        (bob(), 222, at_bob)
    };
    let m = &full["state"]["legal"][0];
    for sq in ["from", "to"] {
        w.api
            .press_chat_square(&white, white_chat, white_msg, m[sq].as_str().unwrap())
            .await;
    }
    let landing = m["landing"].as_str().unwrap().to_string();
    for (chat, msg) in [(111, at_ali), (222, at_bob)] {
        w.api
            .wait_chat_message(chat, msg, |s| s.text.contains(&landing))
            .await;
    }
    // White resigns on its board: the tournament ends, its standings come to the group.
    let (loser, loser_chat, loser_msg) = (white, white_chat, white_msg);
    let resign = data(&w.api.chat_message(loser_chat, loser_msg).unwrap(), "🏳");
    w.api
        .press_in_chat(&loser, loser_chat, loser_msg, &resign)
        .await;
    let last = w
        .api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == group && b["text"].as_str().unwrap_or("").contains("son sıralama")
        })
        .await;
    let winner = if white_is_ali { "tg-bob" } else { "ayse" };
    let text = last["text"].as_str().unwrap();
    assert_eq!(
        text.lines().nth(1),
        Some(format!("1. {winner} — 1").as_str()),
        "{text}"
    );
}

/// The data of the button whose text holds `label` on `shown`.
fn button_data(shown: &support::bot_api::Shown, label: &str) -> String {
    shown
        .keyboard
        .iter()
        .flatten()
        .find(|b| b["text"].as_str().unwrap_or("").contains(label))
        .and_then(|b| b["callback_data"].as_str())
        .unwrap_or_else(|| panic!("no {label} on {shown:?}"))
        .to_string()
}

/// Issue #44, 8: an arena in a group. The organiser's `/arena` makes it, two people join and
/// it starts; their game appears in the group, is played by presses, and its result is in
/// the arena's standings on the group's message; Leave pauses a player.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_arena_pairs_its_players_on_boards_in_the_group() {
    let w = world().await;
    link(&w, &bob(), "bora").await;
    let (group, _) = bot_api::GROUP;
    w.api
        .push(bot_api::group_message(&bob(), group, "/arena 1+0 20"));
    w.api
        .wait_call("sendMessage", |b| {
            b["chat_id"] == group && b["text"].as_str().unwrap_or("").starts_with("🏆")
        })
        .await;
    let (event_msg, shown) = w
        .api
        .chat_messages(group, |m| m.text.starts_with("🏆"))
        .pop()
        .unwrap();
    assert!(shown.text.contains("Kadıköy Dama Arena"), "{}", shown.text);
    assert!(
        shown.text.contains("⏱ 1+0 · 20 minutes · casual"),
        "{}",
        shown.text
    );
    let join = button_data(&shown, "Join");
    for p in [bob(), cem()] {
        assert_eq!(
            w.api.press_in_chat(&p, group, event_msg, &join).await,
            "You are in"
        );
    }
    let start = button_data(&shown, "Start");
    assert_eq!(
        w.api.press_in_chat(&bob(), group, event_msg, &start).await,
        "Started"
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let (board, _) = loop {
        if let Some(b) = w.api.chat_messages(group, |m| m.keyboard.len() >= 9).pop() {
            break b;
        }
        assert!(tokio::time::Instant::now() < deadline, "no board");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let game = w
        .online
        .db()
        .shown_game(&format!("tg:chat:{group}:{board}"))
        .await
        .unwrap()
        .unwrap()
        .game_id;
    // Two plies by pressing the group's board, then Black resigns there.
    let person = |name: &Value| if name == "bora" { bob() } else { cem() };
    for _ in 0..2 {
        let full = w.state(&game).await;
        let side = full["state"]["turn"].as_str().unwrap().to_string();
        let mover = person(&full[side.as_str()]["name"]);
        let m = &full["state"]["legal"][0];
        for sq in ["from", "to"] {
            w.api
                .press_chat_square(&mover, group, board, m[sq].as_str().unwrap())
                .await;
        }
    }
    let full = w.state(&game).await;
    let (white, black) = (
        full["white"]["name"].as_str().unwrap().to_string(),
        person(&full["black"]["name"]),
    );
    let resign = button_data(&w.api.chat_message(group, board).unwrap(), "🏳");
    w.api.press_in_chat(&black, group, board, &resign).await;
    // The arena's standings on the group's message: the winner has a win's 2 points.
    w.api
        .wait_chat_message(group, event_msg, |m| {
            m.text.contains(&format!("1. {white} — 2"))
        })
        .await;
    // Leave pauses: the arena pairs nobody else for the one who left.
    let leave = button_data(&shown, "Leave");
    assert_eq!(
        w.api.press_in_chat(&cem(), group, event_msg, &leave).await,
        "You left"
    );
}
