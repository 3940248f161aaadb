//! A Hub protocol session that answers each line at once: the shape a Web Worker needs.
//!
//! `damasi hub` reads lines on one thread and searches on another, so `stop` and `ping` are
//! answered while it thinks. A browser worker has one thread, and a search occupies it: here
//! `go` searches to the limits of the last `level` line before it returns, with its `info`
//! lines and its `done` line. So searches must be bounded: `level infinite`, `go analyze`
//! without a limit and `go ponder` are answered with an `error` and a `done` (never a hang),
//! and `stop` and `ponder-hit` have nothing to act on. Everything else — the lines, their
//! arguments, the errors and the parsers behind them — is the engine's Hub protocol
//! ([`damasi_engine::hub`], [`damasi_engine::protocol`]).

use std::sync::Arc;
use std::time::Duration;

use damasi_engine::hub::{build_root, done_line, info_line, parse_limits};
use damasi_engine::protocol::{Line, LineError};
use damasi_engine::{
    Engine, EngineOptions, Level, Limits, RuleSet, SearchControl, SearchRequest, SearchResult,
    SearchRoot,
};

/// Hash size a session starts with, in MiB (browser memory is dearer than a server's).
pub const DEFAULT_HASH_MB: usize = 16;
/// Largest hash the `hash` parameter accepts in the browser, in MiB (wasm32 memory is 4 GiB
/// at most, and a tab gets far less).
pub const MAX_HASH_MB: usize = 1024;
/// The largest `contempt` a client may set (centi-men): three men.
const MAX_CONTEMPT: i32 = 300;
/// Thinking time before any `level` line.
const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);

/// One Hub session: settings, the engine (made at the first `init` or `go`), the position of
/// the last `pos` and the limits of the last `level`.
pub struct HubSession {
    hash_mb: usize,
    level: u8,
    rules: RuleSet,
    /// The `book` parameter: off by default here, since the page also analyses with `go think`;
    /// the page turns it on for the engine's moves in games.
    book: bool,
    /// The `contempt` parameter (centi-men, [`damasi_engine::SearchRequest::contempt`]): 0 by
    /// default here, since the page also analyses with `go think`; the page sets
    /// [`damasi_engine::PLAY_CONTEMPT`] for the engine's moves in games.
    contempt: i32,
    engine: Option<Engine>,
    root: Result<SearchRoot, String>,
    limits: Limits,
    quit: bool,
}

impl Default for HubSession {
    fn default() -> Self {
        HubSession::new()
    }
}

impl HubSession {
    /// A session with the default settings (level 10, 16 MiB hash, one thread).
    pub fn new() -> HubSession {
        HubSession {
            hash_mb: DEFAULT_HASH_MB,
            level: Level::MAX.get(),
            rules: RuleSet::default(),
            book: false,
            contempt: 0,
            engine: None,
            root: Err("no position: send 'pos' first".to_string()),
            limits: Limits::move_time(DEFAULT_MOVE_TIME),
            quit: false,
        }
    }

    /// Whether `quit` was received.
    pub fn has_quit(&self) -> bool {
        self.quit
    }

    /// Handles one input line and returns the output lines (none for most commands; `id` ..
    /// `wait` for `hub`; `info` lines then `done` for `go`).
    pub fn handle(&mut self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let line = match Line::parse(text) {
            Ok(line) => line,
            Err(LineError::Empty) => return out,
            Err(e) => {
                out.push(error(format!("cannot read '{}': {e}", text.trim())));
                return out;
            }
        };
        match line.command.as_str() {
            "hub" => self.hello(&mut out),
            "set-param" => {
                if let Err(message) = self.set_param(&line) {
                    out.push(error(message));
                }
            }
            "init" => {
                self.engine();
                out.push(Line::new("ready").to_string());
            }
            "new-game" => self.engine().new_game(),
            "pos" => match line.get("pos") {
                Some(pos) => {
                    self.root = build_root(pos, line.get("moves").unwrap_or(""), self.rules);
                    if let Err(message) = &self.root {
                        out.push(error(message));
                    }
                }
                None => out.push(error("pos needs pos=<side><64 squares>")),
            },
            "level" => match parse_limits(&line) {
                Ok(limits) => self.limits = limits,
                Err(message) => out.push(error(message)),
            },
            "go" => self.go(&line, &mut out),
            "ping" => out.push(Line::new("pong").to_string()),
            "quit" => self.quit = true,
            // `stop` and `ponder-hit` (no search runs between lines) and unknown commands are
            // ignored, the protocol's rule for both sides.
            _ => {}
        }
        out
    }

    fn hello(&self, out: &mut Vec<String>) {
        let lines = [
            Line::new("id")
                .arg("name", "damasi")
                .arg("version", env!("CARGO_PKG_VERSION"))
                .arg("author", "the damasi authors")
                .arg("country", "international"),
            Line::new("param")
                .arg("name", "variant")
                .arg("value", "turkish")
                .arg("type", "enum")
                .arg("values", "turkish"),
            Line::new("param")
                .arg("name", "hash")
                .arg("value", self.hash_mb)
                .arg("type", "int")
                .arg("min", 1)
                .arg("max", MAX_HASH_MB),
            Line::new("param")
                .arg("name", "threads")
                .arg("value", 1)
                .arg("type", "int")
                .arg("min", 1)
                .arg("max", 1),
            Line::new("param")
                .arg("name", "level")
                .arg("value", self.level)
                .arg("type", "int")
                .arg("min", Level::MIN.get())
                .arg("max", Level::MAX.get()),
            Line::new("param")
                .arg("name", "no-capture-limit")
                .arg("value", self.rules.no_capture_limit.unwrap_or(0))
                .arg("type", "int")
                .arg("min", 0)
                .arg("max", 10_000),
            Line::new("param")
                .arg("name", "king-beats-lone-man")
                .arg("value", self.rules.king_beats_lone_man)
                .arg("type", "bool"),
            Line::new("param")
                .arg("name", "book")
                .arg("value", self.book)
                .arg("type", "bool"),
            Line::new("param")
                .arg("name", "contempt")
                .arg("value", self.contempt)
                .arg("type", "int")
                .arg("min", 0)
                .arg("max", MAX_CONTEMPT),
            Line::new("wait"),
        ];
        out.extend(lines.iter().map(Line::to_string));
    }

    fn set_param(&mut self, line: &Line) -> Result<(), String> {
        let (Some(name), Some(value)) = (line.get("name"), line.get("value")) else {
            return Err("set-param needs name=<parameter> value=<value>".to_string());
        };
        let int = |min: u64, max: u64| -> Result<u64, String> {
            value
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| {
                    format!("{name} must be a whole number from {min} to {max}, not '{value}'")
                })
        };
        match name {
            "variant" if value.eq_ignore_ascii_case("turkish") => {}
            "variant" => return Err(format!("variant '{value}' is not supported (only turkish)")),
            "hash" => self.hash_mb = int(1, MAX_HASH_MB as u64)? as usize,
            // The browser build searches on one thread (wasm32 has no std threads).
            "threads" => {
                int(1, 1)?;
            }
            "level" => self.level = int(1, 10)? as u8,
            "contempt" => self.contempt = int(0, MAX_CONTEMPT as u64)? as i32,
            "no-capture-limit" => {
                let n = int(0, 10_000)?;
                self.rules.no_capture_limit = (n > 0).then_some(n as u32);
            }
            "king-beats-lone-man" | "book" => {
                let flag = match value.trim() {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    _ => return Err(format!("{name} must be true or false, not '{value}'")),
                };
                if name == "book" {
                    self.book = flag;
                } else {
                    self.rules.king_beats_lone_man = flag;
                }
            }
            _ => return Err(format!("unknown parameter '{name}'")),
        }
        Ok(())
    }

    /// The engine, made or resized to the current hash setting.
    fn engine(&mut self) -> &mut Engine {
        let options = EngineOptions {
            hash_mb: self.hash_mb,
            threads: 1,
        };
        let engine = self.engine.get_or_insert_with(|| Engine::new(options));
        if engine.options() != options {
            engine.set_options(options);
        }
        engine
    }

    fn go(&mut self, line: &Line, out: &mut Vec<String>) {
        let mode = line.first_flag().unwrap_or("think");
        let mut root = match &self.root {
            Ok(root) => root.clone(),
            Err(message) => {
                out.push(error(message));
                // Always end a `go` with `done`, so that a client waiting for it goes on.
                out.push(done_line(None, None).to_string());
                return;
            }
        };
        if mode == "ponder" || self.limits.infinite {
            out.push(error(
                "in the browser a search cannot be stopped: send 'level' with depth=, nodes=, \
                 move-time= or time=, and do not ponder",
            ));
            out.push(done_line(None, None).to_string());
            return;
        }
        // Rule options set after `pos` apply too.
        root.rules = self.rules;
        let limits = self.limits.clone();
        let level = Level::new(self.level);
        let (book, contempt) = (self.book, self.contempt);
        let result = search(self.engine(), &root, &limits, level, book, contempt, out);
        out.push(done_line(result.best.as_ref(), result.ponder.as_ref()).to_string());
    }
}

/// The one place this crate calls [`Engine::search`]: one bounded search whose `info` lines
/// go to `out`.
fn search(
    engine: &mut Engine,
    root: &SearchRoot,
    limits: &Limits,
    level: Level,
    book: bool,
    contempt: i32,
    out: &mut Vec<String>,
) -> SearchResult {
    let control = Arc::new(SearchControl::new());
    let request = SearchRequest::new(root.clone(), limits.clone())
        .with_level(level)
        .with_book(book)
        .with_contempt(contempt);
    engine.search(&request, &control, &mut |info| {
        out.push(info_line(info).to_string());
    })
}

/// An `error` line.
fn error(message: impl std::fmt::Display) -> String {
    Line::new("error").arg("message", message).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use damasi::hub::{parse_hub_move, write_hub_position};
    use damasi::Position;

    fn lines(session: &mut HubSession, text: &str) -> Vec<String> {
        text.lines().flat_map(|l| session.handle(l)).collect()
    }

    #[test]
    fn hello_lists_the_parameters_and_ends_with_wait() {
        let out = lines(&mut HubSession::new(), "hub");
        assert!(out[0].starts_with("id name=damasi"));
        assert!(out
            .iter()
            .any(|l| l.contains("name=variant") && l.contains("turkish")));
        assert_eq!(out.last().unwrap(), "wait");
    }

    #[test]
    fn go_plays_a_legal_move_of_the_position() {
        let mut s = HubSession::new();
        let pos = Position::from_fen("W:Wd4,a3:Bd5,h7").unwrap();
        let script = format!(
            "init\npos pos={}\nlevel depth=4\ngo think",
            write_hub_position(&pos)
        );
        let out = lines(&mut s, &script);
        assert_eq!(out[0], "ready");
        assert!(out.iter().any(|l| l.starts_with("info depth=")));
        let done = out.last().unwrap();
        let m = done.strip_prefix("done move=").expect("a move");
        // The only legal move: d4 takes d5 and lands on d6.
        let m = parse_hub_move(&pos, m.split_whitespace().next().unwrap()).unwrap();
        assert_eq!(pos.write_move(&m, damasi::Notation::Landing), "d4xd6");
    }

    #[test]
    fn contempt_is_off_until_the_page_sets_it_for_a_game() {
        // One king each: every move keeps the draw; its worth to the engine is -contempt.
        let pos = write_hub_position(&Position::from_fen("W:WKa1:BKh8").unwrap());
        let score = |script: &str| -> String {
            let out = lines(&mut HubSession::new(), script);
            let info = out.iter().rev().find(|l| l.starts_with("info depth="));
            let info = Line::parse(info.expect("an info line")).unwrap();
            info.get("score").unwrap().to_string()
        };
        let go = format!("pos pos={pos}\nlevel depth=3\ngo think");
        assert_eq!(score(&go), "0.00");
        let play = damasi_engine::PLAY_CONTEMPT;
        let game = score(&format!("set-param name=contempt value={play}\n{go}"));
        assert_eq!(game, format!("-0.{play:02}"));
        let out = lines(&mut HubSession::new(), "set-param name=contempt value=301");
        assert!(
            out[0].contains("contempt must be a whole number from 0 to 300"),
            "{out:?}"
        );
    }

    #[test]
    fn unbounded_searches_are_refused_with_done() {
        let mut s = HubSession::new();
        let script = format!(
            "pos pos={}\nlevel infinite\ngo analyze",
            write_hub_position(&Position::start())
        );
        let out = lines(&mut s, &script);
        assert!(out[0].starts_with("error "));
        assert_eq!(out[1], "done");
    }

    #[test]
    fn bad_lines_get_errors_and_the_session_goes_on() {
        let mut s = HubSession::new();
        let out = lines(
            &mut s,
            "pos pos=zz\nset-param name=threads value=4\nset-param name=hash value=x\ngo\nping",
        );
        assert_eq!(out.iter().filter(|l| l.starts_with("error ")).count(), 4);
        // pos, threads, hash, then go without a position (error and done).
        assert_eq!(out[4], "done");
        assert_eq!(out.last().unwrap(), "pong");
        assert!(!s.has_quit());
        s.handle("quit");
        assert!(s.has_quit());
    }
}
