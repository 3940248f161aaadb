//! A scripted Hub protocol session with `damasi hub`: the handshake, malformed lines that get
//! `error` replies while the engine keeps working, `ping` answered during a search, `stop`
//! ending an endless search with `done`, pondering with `ponder-hit`, `new-game` and `quit`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use damasi::hub::{parse_hub_move, read_hub_position};
use damasi::Position;
use damasi_engine::protocol::Line;

const START: &str = "Weeeeeeeebbbbbbbbbbbbbbbbeeeeeeeeeeeeeeeewwwwwwwwwwwwwwwweeeeeeee";

struct Hub {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Every line received, for failure messages.
    seen: Vec<String>,
}

impl Hub {
    fn start() -> Hub {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damasi"))
            .args(["hub", "--hash", "4"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start damasi hub");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.expect("utf-8 output")).is_err() {
                    break;
                }
            }
        });
        Hub {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Reads lines until one starts with `prefix`; returns it and the lines before it.
    fn expect(&mut self, prefix: &str, within: Duration) -> (String, Vec<String>) {
        let deadline = Instant::now() + within;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.starts_with(prefix) {
                        return (line, before);
                    }
                    before.push(line);
                }
                Err(e) => panic!(
                    "no line starting with '{prefix}' ({e}); received:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }
}

fn done_move(done: &str, pos: &Position) {
    let line = Line::parse(done).unwrap();
    let m = line
        .get("move")
        .unwrap_or_else(|| panic!("no move in '{done}'"));
    parse_hub_move(pos, m).unwrap_or_else(|e| panic!("illegal move in '{done}': {e}"));
}

const SHORT: Duration = Duration::from_secs(10);

#[test]
fn a_session_with_errors_searches_and_quit() {
    let mut hub = Hub::start();
    hub.send("hub");
    let (_, hello) = hub.expect("wait", SHORT);
    assert!(hello[0].starts_with("id name=damasi "), "{hello:?}");
    assert!(hello.iter().any(|l| l.starts_with("param name=variant ")));

    // Malformed and bad lines: each gets an error, then the engine carries on.
    let bad = [
        "set-param name=hash value=lots",
        "set-param name=variant value=international",
        "pos pos=\"Wbad",
        "pos pos=Wxyz",
        &format!("pos pos={START} moves=\"20-36\""),
        &format!("pos pos={START} moves=\"20-28 d6-d5 banana\""),
        "level depth=deep",
        "=oops",
    ];
    for line in bad {
        hub.send(line);
        let (e, _) = hub.expect("error message=", SHORT);
        assert!(Line::parse(&e).unwrap().get("message").is_some(), "{e}");
    }
    hub.send("some-future-command with=args");
    hub.send("set-param name=variant value=turkish");
    hub.send("init");
    let (_, before) = hub.expect("ready", SHORT);
    assert!(
        before.is_empty(),
        "unknown commands and good parameters are silent: {before:?}"
    );

    // `go` without a valid position (the last `pos` failed): an error, and still `done`.
    hub.send("go think");
    hub.expect("error message=", SHORT);
    hub.expect("done", SHORT);

    // An endless analysis: ping is answered during it, stop ends it with a legal move.
    let start = read_hub_position(START).unwrap();
    let after = start.play(&parse_hub_move(&start, "20-28").unwrap());
    hub.send(&format!("pos pos={START} moves=\"20-28\""));
    hub.send("level infinite");
    hub.send("go analyze");
    hub.expect("info ", SHORT);
    hub.send("ping");
    let (_, during) = hub.expect("pong", Duration::from_secs(2));
    assert!(during.iter().all(|l| l.starts_with("info ")), "{during:?}");
    std::thread::sleep(Duration::from_millis(100));
    hub.send("stop");
    let (done, _) = hub.expect("done", SHORT);
    done_move(&done, &after);

    // A new game, then a short search to a fixed depth with an algebraic move list (the
    // opening book, on by default, would answer this position without a search).
    hub.send("set-param name=book value=false");
    hub.send("new-game");
    hub.send(&format!("pos pos={START} moves=\"d3-d4\""));
    hub.send("level depth=3");
    hub.send("go think");
    let (done, infos) = hub.expect("done", SHORT);
    assert!(
        infos.iter().any(|l| l.starts_with("info depth=3 ")),
        "{infos:?}"
    );
    done_move(&done, &after);

    // Pondering: nothing ends the search until ponder-hit; then the clock counts.
    hub.send(&format!("pos pos={START}"));
    hub.send("level move-time=0.2");
    hub.send("go ponder");
    hub.expect("info ", SHORT);
    hub.send("ponder-hit");
    let (done, _) = hub.expect("done", SHORT);
    done_move(&done, &start);

    // A `go` right after `done` is fine; a second `go` during a search is refused.
    hub.send("level infinite");
    hub.send("go analyze");
    hub.send("go think");
    hub.expect("error message=", SHORT);
    hub.send("stop");
    hub.expect("done", SHORT);

    hub.send("quit");
    let deadline = Instant::now() + SHORT;
    loop {
        if let Some(status) = hub.child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(Instant::now() < deadline, "the engine did not quit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn end_of_input_lets_a_limited_search_finish() {
    let out = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(["hub", "--hash", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            let mut stdin = c.stdin.take().unwrap();
            writeln!(stdin, "pos pos={START}\nlevel depth=2\ngo think")?;
            drop(stdin);
            c.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let done = text.lines().last().unwrap();
    done_move(done, &Position::start());
}
