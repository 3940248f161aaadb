//! `damasi serve` with the Telegram bot against the Bot API stand-in, for the command line's
//! tests: the process, a plain HTTP GET, and a ply played by pressing buttons.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::bot_api::{self, BotApi};

/// A `damasi serve` process, killed (SIGKILL) when dropped.
pub struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `damasi serve` with the bot and `more` arguments; answers it and the site's
/// address.
pub fn serve(dir: &Path, api: &BotApi, more: &[&str]) -> (Server, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(["serve", "--port", "0", "--data-dir"])
        .arg(dir)
        .args(more)
        .args([
            "--telegram-token",
            "123456:TEST",
            "--telegram-api-url",
            &api.url,
        ])
        .args(["--public-url", "https://dama.example"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start damasi serve");
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut url = None;
    for _ in 0..20 {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        if let Some(u) = line.split_whitespace().find(|w| w.starts_with("http://")) {
            url = Some(u.trim_end_matches('/').to_string());
            break;
        }
    }
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    (Server(child), url.expect("the server prints its address"))
}

/// `GET url` with nothing but the standard library.
pub fn get_json(url: &str) -> Value {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut s = TcpStream::connect(host).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"))
}

/// `POST url` with a JSON `body` and a bearer `token`, with nothing but the standard library;
/// answers the JSON body.
pub fn post_json(url: &str, token: &str, body: &Value) -> Value {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let body = body.to_string();
    let mut s = TcpStream::connect(host).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"))
}

/// `damasi user add NAME` in `dir`: answers the account's API token.
pub fn add_user(dir: &Path, name: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(["user", "add", name, "--data-dir"])
        .arg(dir)
        .output()
        .expect("run damasi user add");
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    stdout.lines().last().unwrap().trim().to_string()
}

/// The side to move plays its first legal move by pressing its two squares.
pub async fn play_first(api: &BotApi, site: &str, game: &str, msg: &str, people: &[Value; 2]) {
    let full = get_json(&format!("{site}/api/online/games/{game}"));
    let state = &full["state"];
    let m = &state["legal"][0];
    let mover = if state["turn"] == "white" {
        &people[0]
    } else {
        &people[1]
    };
    api.press_square(mover, msg, m["from"].as_str().unwrap())
        .await;
    let played = api
        .press_square(mover, msg, m["to"].as_str().unwrap())
        .await;
    assert!(played.contains(m["landing"].as_str().unwrap()), "{played}");
}

/// `people[0]` sends a game from an inline query in a private chat and `people[1]` takes
/// Black by pressing the board; answers the inline message's id and the online game's id (from
/// the message's web button).
pub async fn inline_game(api: &BotApi, people: &[Value; 2]) -> (String, String) {
    api.push(bot_api::inline_query("q1", &people[0], "", "private"));
    api.wait_call("answerInlineQuery", |b| b["inline_query_id"] == "q1")
        .await;
    let msg = api.choose("q1", "p");
    assert_eq!(
        api.press_square(&people[1], &msg, "a1").await,
        "You play Black"
    );
    let shown = api.wait_message(&msg, |s| s.keyboard.len() == 9).await;
    let link = shown.keyboard[8].last().unwrap()["url"]
        .as_str()
        .unwrap()
        .to_string();
    let game = link.rsplit('/').next().unwrap().to_string();
    (msg, game)
}

/// The bot's edits of inline message `msg` so far (their bodies).
pub fn edits_of(api: &BotApi, msg: &str) -> Vec<Value> {
    api.calls("editMessageText")
        .into_iter()
        .filter(|c| c.body["inline_message_id"] == msg)
        .map(|c| c.body)
        .collect()
}

/// Waits until `deadline` for an edit of `msg` after the first `seen` ones (a redraw), and
/// answers it.
pub async fn wait_redrawn(
    api: &BotApi,
    msg: &str,
    seen: usize,
    deadline: tokio::time::Instant,
) -> Value {
    loop {
        if let Some(edit) = edits_of(api, msg).get(seen) {
            return edit.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the message was not redrawn"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
