//! A stand-in for Telegram's Bot API on loopback, for tests (Telegram cannot be reached from
//! them): the methods the bot calls, answered as the Bot API documents them; every call
//! recorded; updates injected by the test; inline messages kept with their text and buttons
//! as a Telegram client would show them.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::sync::Notify;
use tokio::time::Instant;

/// The bot's own user.
pub const BOT_ID: i64 = 7_000_000_001;
pub const BOT_USERNAME: &str = "damasi_test_bot";

/// One call the bot made.
#[derive(Clone, Debug)]
pub struct Call {
    pub method: String,
    pub body: Value,
    pub at: Instant,
}

/// An inline message as a client shows it.
#[derive(Clone, Debug, Default)]
pub struct Shown {
    pub text: String,
    pub keyboard: Vec<Vec<Value>>,
    pub edits: Vec<Instant>,
}

#[derive(Default)]
struct Inner {
    calls: Vec<Call>,
    updates: Vec<Value>,
    next_update: i64,
    messages: HashMap<String, Shown>,
    /// Messages sent to chats, by (chat id, message id).
    chat_messages: HashMap<(i64, i64), Shown>,
    next_message: i64,
    next_press: i64,
}

/// The stand-in server.
#[derive(Clone)]
pub struct BotApi {
    inner: Arc<Mutex<Inner>>,
    news: Arc<Notify>,
    /// Its address, to give the bot as `--telegram-api-url`.
    pub url: String,
}

impl BotApi {
    /// Starts a stand-in on a free loopback port.
    pub async fn start() -> BotApi {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let api = BotApi {
            inner: Arc::new(Mutex::new(Inner {
                next_update: 1,
                next_message: 100,
                ..Inner::default()
            })),
            news: Arc::new(Notify::new()),
            url,
        };
        let app = Router::new()
            .route("/{bot}/{method}", post(call).get(call))
            .with_state(api.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        api
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues an update (its `update_id` is added).
    pub fn push(&self, mut update: Value) {
        {
            let mut inner = self.lock();
            update["update_id"] = json!(inner.next_update);
            inner.next_update += 1;
            inner.updates.push(update);
        }
        self.news.notify_waiters();
    }

    /// The calls of `method` so far.
    pub fn calls(&self, method: &str) -> Vec<Call> {
        self.lock()
            .calls
            .iter()
            .filter(|c| c.method.eq_ignore_ascii_case(method))
            .cloned()
            .collect()
    }

    /// Waits (up to 10 s) for a call of `method` that `matches`, and answers its body.
    pub async fn wait_call(&self, method: &str, matches: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(c) = self.calls(method).into_iter().find(|c| matches(&c.body)) {
                return c.body;
            }
            assert!(Instant::now() < deadline, "no {method} call as expected");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits (up to 15 s) for inline message `id` to show something for which `matches`.
    pub async fn wait_message(&self, id: &str, matches: impl Fn(&Shown) -> bool) -> Shown {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(m) = self.message(id) {
                if matches(&m) {
                    return m;
                }
            }
            if Instant::now() >= deadline {
                panic!("message {id} is {:?}", self.message(id));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The id of the newest message sent to chat `chat` for which `matches`.
    pub fn find_chat_message(&self, chat: i64, matches: impl Fn(&Shown) -> bool) -> Option<i64> {
        self.lock()
            .chat_messages
            .iter()
            .filter(|((c, _), m)| *c == chat && matches(m))
            .map(|((_, id), _)| *id)
            .max()
    }

    /// The message `message_id` sent to chat `chat`, as shown now.
    pub fn chat_message(&self, chat: i64, message_id: i64) -> Option<Shown> {
        self.lock().chat_messages.get(&(chat, message_id)).cloned()
    }

    /// The messages sent to chat `chat` for which `matches`, oldest first, with their ids.
    pub fn chat_messages(&self, chat: i64, matches: impl Fn(&Shown) -> bool) -> Vec<(i64, Shown)> {
        let mut found: Vec<(i64, Shown)> = self
            .lock()
            .chat_messages
            .iter()
            .filter(|((c, _), m)| *c == chat && matches(m))
            .map(|((_, id), m)| (*id, m.clone()))
            .collect();
        found.sort_by_key(|(id, _)| *id);
        found
    }

    /// Waits (up to 15 s) until message `message_id` of chat `chat` shows something for
    /// which `matches`.
    pub async fn wait_chat_message(
        &self,
        chat: i64,
        message_id: i64,
        matches: impl Fn(&Shown) -> bool,
    ) -> Shown {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(m) = self.chat_message(chat, message_id) {
                if matches(&m) {
                    return m;
                }
            }
            if Instant::now() >= deadline {
                panic!(
                    "message {message_id} of {chat} is {:?}",
                    self.chat_message(chat, message_id)
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// `from` presses the button with `data` under message `message_id` of their private
    /// chat with the bot; answers what the bot told them.
    pub async fn press_chat_button(&self, from: &Value, message_id: i64, data: &str) -> String {
        let chat = from["id"].as_i64().unwrap();
        self.press_in_chat(from, chat, message_id, data).await
    }

    /// `from` presses square `sq` of the board message `message_id` in chat `chat`, as it
    /// shows now (rank 8 on top, seen from White); answers what the bot told them.
    pub async fn press_chat_square(
        &self,
        from: &Value,
        chat: i64,
        message_id: i64,
        sq: &str,
    ) -> String {
        let shown = self
            .chat_message(chat, message_id)
            .expect("the message exists");
        let data = square_data(&shown, sq);
        self.press_in_chat(from, chat, message_id, &data).await
    }

    /// `from` presses the button with `data` under message `message_id` of chat `chat` (their
    /// private chat with the bot, or a group); answers what the bot told them.
    pub async fn press_in_chat(
        &self,
        from: &Value,
        chat: i64,
        message_id: i64,
        data: &str,
    ) -> String {
        let id = {
            let mut inner = self.lock();
            inner.next_press += 1;
            format!("cb{}", inner.next_press)
        };
        let shown = self
            .chat_message(chat, message_id)
            .expect("the message was sent");
        self.push(json!({"callback_query": {
            "id": id, "from": from, "chat_instance": "-78", "data": data,
            "message": {
                "message_id": message_id, "date": 1_764_150_000,
                "chat": chat_json(chat),
                "from": {"id": BOT_ID, "is_bot": true, "first_name": "damasi", "username": BOT_USERNAME},
                "text": shown.text,
                "reply_markup": {"inline_keyboard": shown.keyboard},
            }
        }}));
        let answer = self
            .wait_call("answerCallbackQuery", |b| {
                b["callback_query_id"] == id.as_str()
            })
            .await;
        answer["text"].as_str().unwrap_or("").to_string()
    }

    /// Inline message `id` as shown now.
    pub fn message(&self, id: &str) -> Option<Shown> {
        self.lock().messages.get(id).cloned()
    }

    /// `from` presses the button with `data` on inline message `message`; answers what the
    /// bot told them (`answerCallbackQuery`'s text).
    pub async fn press_button(&self, from: &Value, message: &str, data: &str) -> String {
        let id = {
            let mut inner = self.lock();
            inner.next_press += 1;
            format!("cb{}", inner.next_press)
        };
        self.push(press(&id, from, message, data));
        let answer = self
            .wait_call("answerCallbackQuery", |b| {
                b["callback_query_id"] == id.as_str()
            })
            .await;
        answer["text"].as_str().unwrap_or("").to_string()
    }

    /// `from` presses square `sq` as the message shows it now: the top row rank 8, files a
    /// to h from the left (the board seen from White).
    pub async fn press_square(&self, from: &Value, message: &str, sq: &str) -> String {
        let shown = self.message(message).expect("the message exists");
        let data = square_data(&shown, sq);
        self.press_button(from, message, &data).await
    }

    /// A person picks result `result_id` of the bot's answer to inline query `query_id`: the
    /// message is sent; answers its inline message id.
    pub fn choose(&self, query_id: &str, result_id: &str) -> String {
        let answer = self
            .calls("answerInlineQuery")
            .into_iter()
            .rev()
            .find(|c| c.body["inline_query_id"] == query_id)
            .expect("the bot answered the inline query");
        let results = answer.body["results"].as_array().unwrap().clone();
        let result = results
            .iter()
            .find(|r| r["id"] == result_id)
            .unwrap_or_else(|| panic!("no result {result_id} in {results:?}"));
        let mut inner = self.lock();
        inner.next_message += 1;
        let id = format!("IM{}", inner.next_message);
        inner.messages.insert(
            id.clone(),
            Shown {
                text: result["input_message_content"]["message_text"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                keyboard: keyboard_of(&result["reply_markup"]),
                edits: Vec::new(),
            },
        );
        id
    }
}

/// The data of square `sq`'s button on a board as `shown` (rank 8 on top, seen from White).
fn square_data(shown: &Shown, sq: &str) -> String {
    let file = (sq.as_bytes()[0] - b'a') as usize;
    let rank = (sq.as_bytes()[1] - b'1') as usize;
    shown.keyboard[7 - rank][file]["callback_data"]
        .as_str()
        .expect("a square's button")
        .to_string()
}

/// The groups the stand-in knows: chat id, title.
pub const GROUP: (i64, &str) = (-100_777, "Kadıköy Dama");

/// A chat as the Bot API describes it: a group for a negative id, else `id`'s private chat.
fn chat_json(chat: i64) -> Value {
    if chat < 0 {
        json!({"id": chat, "type": "supergroup", "title": GROUP.1})
    } else {
        json!({"id": chat, "type": "private", "first_name": "someone"})
    }
}

/// A message from `from` in group `chat`.
pub fn group_message(from: &Value, chat: i64, text: &str) -> Value {
    json!({"message": {
        "message_id": 6, "date": 1_764_150_000,
        "chat": chat_json(chat),
        "from": from, "text": text
    }})
}

fn keyboard_of(markup: &Value) -> Vec<Vec<Value>> {
    markup["inline_keyboard"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| r.as_array().cloned().unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}

/// A Telegram user.
pub fn user(id: i64, first_name: &str, username: &str, lang: &str) -> Value {
    json!({"id": id, "is_bot": false, "first_name": first_name, "username": username, "language_code": lang})
}

/// An inline query update.
pub fn inline_query(id: &str, from: &Value, query: &str, chat_type: &str) -> Value {
    json!({"inline_query": {"id": id, "from": from, "query": query, "offset": "", "chat_type": chat_type}})
}

/// A press of a button with `data` on inline message `message`.
pub fn press(id: &str, from: &Value, message: &str, data: &str) -> Value {
    json!({"callback_query": {"id": id, "from": from, "inline_message_id": message, "chat_instance": "-77", "data": data}})
}

/// A private message from `from`.
pub fn private_message(from: &Value, text: &str) -> Value {
    json!({"message": {
        "message_id": 5, "date": 1_764_150_000,
        "chat": {"id": from["id"], "type": "private", "first_name": from["first_name"]},
        "from": from, "text": text
    }})
}

fn ok(result: Value) -> Json<Value> {
    Json(json!({"ok": true, "result": result}))
}

async fn call(
    State(api): State<BotApi>,
    Path((_bot, method)): Path<(String, String)>,
    body: Option<Json<Value>>,
) -> Json<Value> {
    let body = body.map(|b| b.0).unwrap_or(Value::Null);
    // The Bot API's method names are case-insensitive (teloxide writes `GetMe`).
    let method = method.to_ascii_lowercase();
    api.lock().calls.push(Call {
        method: method.clone(),
        body: body.clone(),
        at: Instant::now(),
    });
    match method.as_str() {
        "getme" => ok(json!({
            "id": BOT_ID, "is_bot": true, "first_name": "damasi", "username": BOT_USERNAME,
            "can_join_groups": true, "can_read_all_group_messages": false,
            "supports_inline_queries": true, "can_connect_to_business": false,
            "has_main_web_app": false
        })),
        "getupdates" => {
            let offset = body["offset"].as_i64().unwrap_or(0);
            let timeout = body["timeout"].as_u64().unwrap_or(0);
            let deadline = Instant::now() + Duration::from_secs(timeout);
            loop {
                let news = api.news.notified();
                let ready: Vec<Value> = {
                    let mut inner = api.lock();
                    inner
                        .updates
                        .retain(|u| u["update_id"].as_i64().unwrap_or(0) >= offset);
                    inner.updates.clone()
                };
                if !ready.is_empty() || Instant::now() >= deadline {
                    return ok(Value::Array(ready));
                }
                let _ = tokio::time::timeout_at(deadline, news).await;
            }
        }
        // A chat's message, by chat and message id: the edited message comes back (an
        // inline message's edit answers `true`).
        "editmessagereplymarkup" | "editmessagetext" if body["inline_message_id"].is_null() => {
            let key = (
                body["chat_id"].as_i64().unwrap_or(0),
                body["message_id"].as_i64().unwrap_or(0),
            );
            let mut inner = api.lock();
            let Some(m) = inner.chat_messages.get_mut(&key) else {
                return Json(json!({"ok": false, "error_code": 400,
                    "description": "Bad Request: message to edit not found"}));
            };
            let keyboard = keyboard_of(&body["reply_markup"]);
            let text = body["text"]
                .as_str()
                .map(str::to_string)
                .unwrap_or(m.text.clone());
            if keyboard == m.keyboard && text == m.text {
                return Json(json!({"ok": false, "error_code": 400,
                    "description": "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"}));
            }
            m.keyboard = keyboard;
            m.text = text;
            m.edits.push(Instant::now());
            let mut message = json!({
                "message_id": key.1, "date": 1_764_150_000, "edit_date": 1_764_150_001,
                "chat": chat_json(key.0),
                "from": {"id": BOT_ID, "is_bot": true, "first_name": "damasi", "username": BOT_USERNAME},
                "text": m.text,
            });
            if !m.keyboard.is_empty() {
                message["reply_markup"] = json!({"inline_keyboard": m.keyboard});
            }
            ok(message)
        }
        "editmessagetext" | "editmessagereplymarkup" => {
            let id = body["inline_message_id"].as_str().unwrap_or("").to_string();
            let mut inner = api.lock();
            let Some(m) = inner.messages.get_mut(&id) else {
                return Json(json!({"ok": false, "error_code": 400,
                    "description": "Bad Request: MESSAGE_ID_INVALID"}));
            };
            let text = body["text"]
                .as_str()
                .map(str::to_string)
                .unwrap_or(m.text.clone());
            let keyboard = keyboard_of(&body["reply_markup"]);
            if text == m.text && keyboard == m.keyboard {
                return Json(json!({"ok": false, "error_code": 400,
                    "description": "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"}));
            }
            m.text = text;
            m.keyboard = keyboard;
            m.edits.push(Instant::now());
            ok(json!(true))
        }
        "answerinlinequery" | "answercallbackquery" => ok(json!(true)),
        "sendmessage" => {
            let mut inner = api.lock();
            inner.next_message += 1;
            let message_id = 900 + inner.next_message;
            let chat = body["chat_id"].as_i64().unwrap_or(0);
            inner.chat_messages.insert(
                (chat, message_id),
                Shown {
                    text: body["text"].as_str().unwrap_or("").to_string(),
                    keyboard: keyboard_of(&body["reply_markup"]),
                    edits: Vec::new(),
                },
            );
            let mut message = json!({
                "message_id": message_id, "date": 1_764_150_000,
                "chat": chat_json(chat),
                "from": {"id": BOT_ID, "is_bot": true, "first_name": "damasi", "username": BOT_USERNAME},
                "text": body["text"]
            });
            if !body["reply_markup"].is_null() {
                message["reply_markup"] = body["reply_markup"].clone();
            }
            ok(message)
        }
        other => Json(json!({"ok": false, "error_code": 404,
            "description": format!("Not Found: method {other} is not in the stand-in")})),
    }
}
