//! Online play from the command line, for real: `damasi serve` on a free port, accounts made
//! with `damasi user add` (each printing its token as the last line), `damasi token`, and
//! `damasi bot` processes with engines: two people's accounts (`--board`) that meet in a
//! quick-pairing pool and play a rated game through the Board API; two BOTs (the default)
//! that play a Swiss open to BOTs, and a 20-game match by challenges through the Bot API.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn damasi() -> Command {
    Command::new(env!("CARGO_BIN_EXE_damasi"))
}

fn last_line(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[test]
fn two_bots_meet_in_a_pool_and_play_a_rated_game() {
    let dir = std::env::temp_dir().join(format!("damasi-bot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = damasi()
        .args(["serve", "--port", "0", "--data-dir"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start damasi serve");
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut reader = BufReader::new(stdout);
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    // Keep reading what the server prints, so it never writes into a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    // "damasi: open http://127.0.0.1:PORT/ in a browser ..."
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("the server prints its address")
        .trim_end_matches('/')
        .to_string();

    let add = |name: &str| {
        last_line(
            &damasi()
                .args(["user", "add", name, "--data-dir"])
                .arg(&dir)
                .output()
                .unwrap(),
        )
    };
    let t1 = add("alpha");
    let t2 = add("beta");
    assert_eq!(t1.len(), 32, "a token is 32 hex digits: {t1}");
    assert_ne!(t1, t2);
    // A second token for the same account; the name must exist.
    let again = last_line(
        &damasi()
            .args(["token", "alpha", "--data-dir"])
            .arg(&dir)
            .output()
            .unwrap(),
    );
    assert_eq!(again.len(), 32);
    assert_ne!(again, t1);
    let missing = damasi()
        .args(["token", "nobody", "--data-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no account called 'nobody'"));
    // A taken name is refused.
    let taken = damasi()
        .args(["user", "add", "Alpha", "--data-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!taken.status.success());

    let bot = |token: &str| {
        damasi()
            .args([
                "bot",
                "--engine",
                "damasi hub --level 3 --hash 4",
                "--server",
                &url,
                "--token",
                token,
                "--board",
                "--pool",
                "3+2",
                "--games",
                "1",
                "--move-time",
                "0.02",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let b1 = bot(&t1);
    std::thread::sleep(Duration::from_millis(300));
    let b2 = bot(&t2);
    for b in [b1, b2] {
        let out = b.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("starts"), "{text}");
        assert!(text.contains("is over: "), "{text}");
        assert!(!text.contains("refused"), "{text}");
    }
    // A wrong token is told clearly.
    let bad = damasi()
        .args(["bot", "--server", &url, "--token", "nope", "--games", "1"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("the API token is not valid"));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// One HTTP/1.1 request with a bearer token and a JSON body; answers the body.
fn http(method: &str, url: &str, path: &str, token: &str, body: &str) -> String {
    use std::io::{Read, Write};
    let host = url.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(host).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(head.contains(" 200 "), "{method} {path}: {head}\n{body}");
    body.to_string()
}

/// Two `damasi bot`s join a Swiss tournament (`--swiss ID`), the organiser starts it, and they
/// play its game, announced on their event streams like any other; the tournament finishes.
#[test]
fn two_bots_play_a_swiss_tournament() {
    let dir = std::env::temp_dir().join(format!("damasi-bot-swiss-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = damasi()
        .args(["serve", "--port", "0", "--data-dir"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start damasi serve");
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut reader = BufReader::new(stdout);
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("the server prints its address")
        .trim_end_matches('/')
        .to_string();
    let add = |name: &str| {
        last_line(
            &damasi()
                .args(["user", "add", name, "--data-dir"])
                .arg(&dir)
                .output()
                .unwrap(),
        )
    };
    let (org, t1, t2) = (add("organiser"), add("gamma"), add("delta"));
    let created = http(
        "POST",
        &url,
        "/api/swiss/new",
        &org,
        r#"{"name":"Bot cup","clock":{"limit":60,"increment":1},"nbRounds":1,"roundInterval":0,"rated":false,"conditions":{"bots":true}}"#,
    );
    let id = created
        .split("\"id\":\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("the tournament's id")
        .to_string();
    let bot = |token: &str| {
        damasi()
            .args([
                "bot",
                "--engine",
                "damasi hub --level 3 --hash 4",
                "--server",
                &url,
                "--token",
                token,
                "--swiss",
                &id,
                "--games",
                "1",
                "--move-time",
                "0.02",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (b1, b2) = (bot(&t1), bot(&t2));
    // Both have joined once the tournament lists two players.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !http("GET", &url, &format!("/api/swiss/{id}"), &org, "").contains("\"nbPlayers\":2") {
        assert!(
            std::time::Instant::now() < deadline,
            "the bots did not join"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Their event streams are open a moment after joining.
    std::thread::sleep(Duration::from_millis(500));
    http("POST", &url, &format!("/api/swiss/{id}/start"), &org, "{}");
    for b in [b1, b2] {
        let out = b.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("is a BOT account now"), "{text}");
        assert!(text.contains(&format!("joined tournament {id}")), "{text}");
        assert!(text.contains("is over: "), "{text}");
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let t = http("GET", &url, &format!("/api/swiss/{id}"), &org, "");
        if t.contains("\"status\":\"finished\"") {
            assert!(t.contains("\"result\":\""), "{t}");
            // Both are shown as BOTs in the standings.
            assert_eq!(t.matches("\"title\":\"BOT\"").count(), 2, "{t}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "not finished: {t}");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two `damasi bot`s as BOT accounts (the default) play a 20-game match through the server by
/// challenges: one challenges the other by name after each game, the other accepts from its
/// event stream; every request succeeds, and the server has the 20 games between two BOTs.
#[test]
fn two_bots_play_a_twenty_game_match_by_challenges() {
    let dir = std::env::temp_dir().join(format!("damasi-bot-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = damasi()
        .args(["serve", "--port", "0", "--data-dir"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start damasi serve");
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut reader = BufReader::new(stdout);
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("the server prints its address")
        .trim_end_matches('/')
        .to_string();
    let add = |name: &str| {
        last_line(
            &damasi()
                .args(["user", "add", name, "--data-dir"])
                .arg(&dir)
                .output()
                .unwrap(),
        )
    };
    let (ta, tb) = (add("kartal"), add("sahin"));
    const GAMES: usize = 20;
    let bot = |token: &str, extra: &[&str]| {
        damasi()
            .args([
                "bot",
                "--engine",
                "damasi hub --level 1 --hash 4",
                "--server",
                &url,
                "--token",
                token,
                "--games",
                &GAMES.to_string(),
                "--move-time",
                "0.01",
            ])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // The challenged one first, so that it is a BOT before the first challenge reaches it.
    let b = bot(&tb, &[]);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !http("GET", &url, "/api/bot/online", &ta, "").contains("\"username\":\"sahin\"") {
        assert!(std::time::Instant::now() < deadline, "sahin is not online");
        std::thread::sleep(Duration::from_millis(100));
    }
    let a = bot(&ta, &["--challenge", "sahin", "--control", "1+1"]);
    for (who, b) in [("kartal", a), ("sahin", b)] {
        let out = b.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{who}: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("is a BOT account now"), "{who}: {text}");
        assert_eq!(text.matches(" is over: ").count(), GAMES, "{who}: {text}");
        for failed in ["refused", "not accepted", "cannot"] {
            assert!(!text.contains(failed), "{who}: {text}");
        }
    }
    // The server's record (PDN, as lichess's export): 20 finished games between the two,
    // each naming both as BOTs with lichess's title tags.
    let games = http("GET", &url, "/api/games/user/kartal?max=100", &ta, "");
    assert_eq!(games.matches("[Event ").count(), GAMES, "{games}");
    for tag in ["[WhiteTitle \"BOT\"]", "[BlackTitle \"BOT\"]"] {
        assert_eq!(games.matches(tag).count(), GAMES, "{games}");
    }
    assert!(!games.contains("[Result \"*\"]"), "{games}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
