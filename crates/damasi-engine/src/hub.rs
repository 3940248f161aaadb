//! The Hub protocol (version 2) engine loop: `damasi hub`.
//!
//! The reader (the caller's thread) handles one line at a time and never blocks on a search:
//! each `go` runs on its own thread, which owns the [`Engine`] until the search ends and then
//! hands it back. So `ping`, `stop` and `ponder-hit` are answered while the engine thinks.
//!
//! Conventions, chosen to work with pydraughts 0.6.7 (`draughts.engine.HubEngine`), the one
//! client that drives Turkish Hub engines:
//! - It splits every `id`, `param` and `info` argument at `=` and unpacks two parts, so those
//!   lines carry no flags and no `=` inside values.
//! - It reads `done move=.. [ponder=..]` by position: `done` carries nothing else.
//! - It sends `time` as the clock minus the increment ("Hub engines first add the
//!   increment"), so the engine plans with `time + inc`.
//! - It reads a score above 90 men as a win: `100 - n/100` means a win in `n` plies (and the
//!   negative for a loss), which is how wins and losses are written.
//! - It merges the engine's stderr into stdout, so the loop writes nothing to stderr.
//!
//! End of input ends the loop like `quit`: the client is gone, so a running search is stopped
//! (an orphaned engine must not think on for minutes). A search with a limit (depth, nodes,
//! time) gets a short grace ([`END_OF_INPUT_GRACE`]) to finish and report first, so that
//! `echo "pos ... go think" | damasi hub` prints a move.
//!
//! Hardening: a line longer than [`MAX_LINE`] is answered with an `error` (that does not echo
//! it) and dropped without being kept in memory; `threads` is capped at the machine's
//! hardware threads and `hash` at half its memory, each with an `info message=..` line.

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::clock::Instant;

use damasi::hub::{parse_hub_move, read_hub_position, write_hub_move};
use damasi::{Move, Position};

use crate::eval::Weights;
pub use crate::line_reader::MAX_LINE;
use crate::line_reader::{read_line, LineRead};
use crate::machine::{available_threads, max_hash_mb};
use crate::oracle::EndgameOracle;
use crate::protocol::Line;
use crate::{
    Clock, Engine, EngineOptions, Info, Level, Limits, RuleSet, Score, SearchControl,
    SearchRequest, SearchRoot,
};

/// Largest hash size the `hash` parameter accepts, in MiB.
const MAX_HASH_MB: usize = 65_536;
/// Most search threads the `threads` parameter accepts.
const MAX_THREADS: usize = 256;
/// Longest no-capture limit the parameter accepts, in plies.
const MAX_NO_CAPTURE_LIMIT: u32 = 10_000;
/// The largest `contempt` a client may set (centi-men): three men.
const MAX_CONTEMPT: i32 = 300;
/// How long a search with a limit may go on after the end of input before it is stopped.
pub const END_OF_INPUT_GRACE: Duration = Duration::from_secs(1);
/// Thinking time when no `level` line has been sent.
const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);
/// pydraughts reads scores above 90 men as wins: a win in `n` plies is written `100 - n/100`.
const WIN_SCORE_CENTI: i64 = 10_000;

/// Settings the engine starts with; the client can change them with `set-param`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HubConfig {
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// Playing strength 1..=10.
    pub level: u8,
    /// Rule set options the game is played under.
    pub rules: RuleSet,
    /// Whether `go think` at full strength may play a move from the opening book (the `book`
    /// parameter); analysis and pondering never do.
    pub book: bool,
    /// How much less than nothing a draw is worth to the engine in `go think` and `go ponder`,
    /// in centi-men (the `contempt` parameter, [`crate::PLAY_CONTEMPT`] by default); `go
    /// analyze` always uses none.
    pub contempt: i32,
}

impl Default for HubConfig {
    fn default() -> Self {
        let o = EngineOptions::default();
        HubConfig {
            hash_mb: o.hash_mb,
            threads: o.threads,
            level: Level::MAX.get(),
            rules: RuleSet::default(),
            book: crate::book::USE_BY_DEFAULT,
            contempt: crate::PLAY_CONTEMPT,
        }
    }
}

impl HubConfig {
    /// Caps `threads` at the machine's hardware threads and `hash` at half its memory;
    /// returns a message for each setting it lowered.
    pub fn cap_to_machine(&mut self) -> Vec<String> {
        let mut lowered = Vec::new();
        let threads = available_threads();
        if self.threads > threads {
            self.threads = threads;
            lowered.push(format!(
                "threads capped at {threads}, the hardware threads of this machine"
            ));
        }
        if let Some(max) = max_hash_mb() {
            if self.hash_mb > max {
                self.hash_mb = max;
                lowered.push(format!(
                    "hash capped at {max} MiB, half the memory of this machine"
                ));
            }
        }
        lowered
    }
}

/// Loads endgame tables from a directory for the `tablebases` parameter: the oracle and a
/// description of it for people (`Ok(None)` when the directory holds no tables), or why they
/// cannot be read. The engine crate knows no table format, so the caller (`damasi hub`, with
/// `damasi-tb`) provides this.
pub type TablebaseLoader = Arc<dyn Fn(&Path) -> Result<Option<LoadedTables>, String> + Send + Sync>;

/// Tables a [`TablebaseLoader`] found.
pub struct LoadedTables {
    /// What the engine probes.
    pub oracle: Arc<dyn EndgameOracle>,
    /// For people, e.g. "endgame tables up to 5 pieces".
    pub description: String,
}

/// Endgame tables for a Hub session: where they are and how to read them.
#[derive(Clone, Default)]
pub struct HubTablebases {
    /// The table directory to start with (`None`: no tables until `set-param`).
    pub dir: Option<PathBuf>,
    /// Reads a directory's tables; without it the engine has no `tablebases` parameter.
    pub loader: Option<TablebaseLoader>,
}

/// The `tablebases` parameter's value that turns the tables off.
pub const NO_TABLEBASES: &str = "none";

/// Where protocol lines go: shared by the reader and the search thread, one line at a time.
#[derive(Clone)]
struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    /// Writes one line and flushes it. A closed output is ignored here: the reader notices end
    /// of input soon after.
    fn send(&self, line: &Line) {
        let mut w = match self.0.lock() {
            Ok(w) => w,
            Err(poisoned) => poisoned.into_inner(),
        };
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }

    fn error(&self, message: impl std::fmt::Display) {
        self.send(&Line::new("error").arg("message", message));
    }
}

/// A search running on its own thread.
struct Running {
    control: Arc<SearchControl>,
    /// Set just before the search thread writes `done`: the search is over even if the
    /// thread has not returned yet.
    done: Arc<AtomicBool>,
    /// Whether it only ends on `stop` (analysis, pondering, `infinite`).
    endless: bool,
    /// The engine comes back when the thread ends (`None` if the search panicked).
    thread: JoinHandle<Option<Engine>>,
}

/// The state of a Hub session.
struct Session {
    out: Output,
    config: HubConfig,
    /// `None` while a search thread owns it or before the first use.
    engine: Option<Engine>,
    running: Option<Running>,
    /// The position of the last valid `pos`, or why the last one was rejected.
    root: Result<SearchRoot, String>,
    limits: Limits,
    tablebases: HubTablebases,
    /// The tables read from `tablebases.dir`, handed to the engine at its next use.
    oracle: Option<Arc<dyn EndgameOracle>>,
    /// The evaluation weights (`eval-file`), handed to the engine at its next use.
    weights: Weights,
    /// The `eval-file` in use, for `hello`.
    eval_file: Option<String>,
}

/// Runs the Hub protocol on `input` and `output` until `quit` or end of input.
pub fn run(
    input: impl BufRead,
    output: impl Write + Send + 'static,
    config: HubConfig,
) -> io::Result<()> {
    run_with_tablebases(input, output, config, HubTablebases::default())
}

/// [`run`] with endgame tables: the engine starts with the tables in `tablebases.dir` (read
/// quietly: nothing may come before the handshake; tables that cannot be read are left out)
/// and has a `tablebases` parameter to change the directory.
pub fn run_with_tablebases(
    input: impl BufRead,
    output: impl Write + Send + 'static,
    config: HubConfig,
    tablebases: HubTablebases,
) -> io::Result<()> {
    let mut config = config;
    let oracle = match (&tablebases.dir, &tablebases.loader) {
        (Some(dir), Some(load)) => load(dir).ok().flatten().map(|t| t.oracle),
        _ => None,
    };
    // Quietly: nothing may come before the handshake (pydraughts even reads stderr as
    // protocol output).
    let _ = config.cap_to_machine();
    let mut session = Session {
        out: Output(Arc::new(Mutex::new(Box::new(output)))),
        config,
        engine: None,
        running: None,
        root: Err("no position: send 'pos' first".to_string()),
        limits: Limits::move_time(DEFAULT_MOVE_TIME),
        tablebases,
        oracle,
        weights: Weights::shipped(),
        eval_file: None,
    };
    let mut input = input;
    let mut buf = Vec::new();
    loop {
        match read_line(&mut input, &mut buf, MAX_LINE)? {
            LineRead::Line => {}
            LineRead::TooLong => {
                session.out.error(format!(
                    "line too long (more than {MAX_LINE} bytes), ignored"
                ));
                continue;
            }
            LineRead::End => {
                session.finish_at_end_of_input();
                return Ok(());
            }
        }
        // Invalid UTF-8 becomes replacement characters: a bad line, never a crash.
        let text = String::from_utf8_lossy(&buf);
        if !session.handle(&text) {
            return Ok(());
        }
    }
}

impl Session {
    /// Handles one input line; `false` means quit.
    fn handle(&mut self, text: &str) -> bool {
        let line = match Line::parse(text) {
            Ok(line) => line,
            Err(crate::protocol::LineError::Empty) => return true,
            Err(e) => {
                self.out
                    .error(format!("cannot read '{}': {e}", text.trim()));
                return true;
            }
        };
        match line.command.as_str() {
            "hub" => self.hello(),
            "set-param" => self.set_param(&line),
            "init" => {
                self.wait_for_search(true);
                self.ensure_engine();
                self.prepare_tables();
                self.out.send(&Line::new("ready"));
            }
            "new-game" => {
                self.wait_for_search(true);
                self.ensure_engine();
                self.prepare_tables();
                if let Some(e) = self.engine.as_mut() {
                    e.new_game();
                }
            }
            "pos" => self.set_position(&line),
            "level" => self.set_level(&line),
            "go" => self.go(&line),
            "ping" => self.out.send(&Line::new("pong")),
            "stop" => {
                if let Some(r) = &self.running {
                    r.control.stop();
                }
            }
            "ponder-hit" => {
                if let Some(r) = &self.running {
                    r.control.ponder_hit();
                }
            }
            "quit" => {
                self.wait_for_search(true);
                return false;
            }
            // Unknown commands are ignored (the protocol's rule for both sides).
            _ => {}
        }
        true
    }

    fn hello(&self) {
        self.out.send(
            &Line::new("id")
                .arg("name", "damasi")
                .arg("version", env!("CARGO_PKG_VERSION"))
                .arg("author", "the damasi authors")
                .arg("country", "international"),
        );
        let c = &self.config;
        let params = [
            Line::new("param")
                .arg("name", "variant")
                .arg("value", "turkish")
                .arg("type", "enum")
                .arg("values", "turkish"),
            Line::new("param")
                .arg("name", "hash")
                .arg("value", c.hash_mb)
                .arg("type", "int")
                .arg("min", 1)
                .arg("max", MAX_HASH_MB),
            Line::new("param")
                .arg("name", "threads")
                .arg("value", c.threads)
                .arg("type", "int")
                .arg("min", 1)
                .arg("max", MAX_THREADS),
            Line::new("param")
                .arg("name", "level")
                .arg("value", c.level)
                .arg("type", "int")
                .arg("min", Level::MIN.get())
                .arg("max", Level::MAX.get()),
            Line::new("param")
                .arg("name", "no-capture-limit")
                .arg("value", c.rules.no_capture_limit.unwrap_or(0))
                .arg("type", "int")
                .arg("min", 0)
                .arg("max", MAX_NO_CAPTURE_LIMIT),
            Line::new("param")
                .arg("name", "king-beats-lone-man")
                .arg("value", c.rules.king_beats_lone_man)
                .arg("type", "bool"),
            Line::new("param")
                .arg("name", "book")
                .arg("value", c.book)
                .arg("type", "bool"),
            Line::new("param")
                .arg("name", "contempt")
                .arg("value", c.contempt)
                .arg("type", "int")
                .arg("min", 0)
                .arg("max", MAX_CONTEMPT),
        ];
        for p in &params {
            self.out.send(p);
        }
        self.out.send(
            &Line::new("param")
                .arg("name", "eval-file")
                .arg("value", self.eval_file.as_deref().unwrap_or("none"))
                .arg("type", "string"),
        );
        if self.tablebases.loader.is_some() {
            let dir = match &self.tablebases.dir {
                Some(d) => d.display().to_string(),
                None => NO_TABLEBASES.to_string(),
            };
            self.out.send(
                &Line::new("param")
                    .arg("name", "tablebases")
                    .arg("value", dir)
                    .arg("type", "string"),
            );
        }
        self.out.send(&Line::new("wait"));
    }

    fn set_param(&mut self, line: &Line) {
        let (Some(name), Some(value)) = (line.get("name"), line.get("value")) else {
            self.out
                .error("set-param needs name=<parameter> value=<value>");
            return;
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
        let result = match name {
            "variant" => {
                if value.eq_ignore_ascii_case("turkish") {
                    Ok(())
                } else {
                    Err(format!("variant '{value}' is not supported (only turkish)"))
                }
            }
            "hash" => int(1, MAX_HASH_MB as u64).map(|n| {
                self.config.hash_mb = n as usize;
                self.cap_to_machine();
            }),
            "threads" => int(1, MAX_THREADS as u64).map(|n| {
                self.config.threads = n as usize;
                self.cap_to_machine();
            }),
            "level" => int(1, 10).map(|n| self.config.level = n as u8),
            "contempt" => int(0, MAX_CONTEMPT as u64).map(|n| self.config.contempt = n as i32),
            "no-capture-limit" => int(0, MAX_NO_CAPTURE_LIMIT as u64)
                .map(|n| self.config.rules.no_capture_limit = (n > 0).then_some(n as u32)),
            "king-beats-lone-man" => parse_bool(value)
                .map(|b| self.config.rules.king_beats_lone_man = b)
                .ok_or_else(|| format!("king-beats-lone-man must be true or false, not '{value}'")),
            "book" => parse_bool(value)
                .map(|b| self.config.book = b)
                .ok_or_else(|| format!("book must be true or false, not '{value}'")),
            "eval-file" => self.set_eval_file(value),
            "tablebases" if self.tablebases.loader.is_some() => self.set_tablebases(value),
            _ => Err(format!("unknown parameter '{name}'")),
        };
        if let Err(message) = result {
            self.out.error(message);
        }
    }

    /// The `eval-file` parameter: reads a pattern weights file ([`crate::patterns`]) or a
    /// network file ([`crate::network`]); `features` is the feature evaluation alone, `none`
    /// or empty goes back to the default ([`crate::eval::weights_named`]). The engine uses it
    /// from its next search.
    fn set_eval_file(&mut self, value: &str) -> Result<(), String> {
        let value = value.trim();
        self.weights = crate::eval::weights_named(value).map_err(|e| e.to_string())?;
        if value.is_empty() || value.eq_ignore_ascii_case("none") {
            self.eval_file = None;
            return Ok(());
        }
        let kind = if value.eq_ignore_ascii_case("features") {
            "feature"
        } else if self.weights.network.is_some() {
            "network"
        } else {
            "pattern"
        };
        self.eval_file = Some(value.to_string());
        self.out
            .send(&Line::new("info").arg("message", format!("{kind} evaluation from {value}")));
        Ok(())
    }

    /// The `tablebases` parameter: reads the tables of a directory (`none` or empty: no
    /// tables) and says what it found; the engine uses them from its next search.
    fn set_tablebases(&mut self, value: &str) -> Result<(), String> {
        let Some(load) = self.tablebases.loader.clone() else {
            return Err("unknown parameter 'tablebases'".to_string());
        };
        let value = value.trim();
        if value.is_empty() || value.eq_ignore_ascii_case(NO_TABLEBASES) {
            self.tablebases.dir = None;
            self.oracle = None;
            self.out
                .send(&Line::new("info").arg("message", "endgame tables off"));
            return Ok(());
        }
        let dir = PathBuf::from(value);
        match load(&dir)? {
            Some(t) => {
                self.out.send(&Line::new("info").arg(
                    "message",
                    format!("{} from {}", t.description, dir.display()),
                ));
                self.oracle = Some(t.oracle);
            }
            None => {
                self.out.send(
                    &Line::new("info")
                        .arg("message", format!("no endgame tables in {}", dir.display())),
                );
                self.oracle = None;
            }
        }
        self.tablebases.dir = Some(dir);
        Ok(())
    }

    /// Caps the settings to the machine, telling the client when one was lowered.
    fn cap_to_machine(&mut self) {
        for message in self.config.cap_to_machine() {
            self.out.send(&Line::new("info").arg("message", message));
        }
    }

    fn set_position(&mut self, line: &Line) {
        let Some(text) = line.get("pos") else {
            self.out.error("pos needs pos=<side><64 squares>");
            return;
        };
        self.root = build_root(text, line.get("moves").unwrap_or(""), self.config.rules);
        if let Err(message) = &self.root {
            self.out.error(message);
        }
    }

    fn set_level(&mut self, line: &Line) {
        match parse_limits(line) {
            Ok(limits) => self.limits = limits,
            Err(message) => self.out.error(message),
        }
    }

    fn go(&mut self, line: &Line) {
        // A search that has already written `done` is only returning the engine: wait for it.
        if let Some(r) = &self.running {
            if r.done.load(Ordering::Acquire) || r.thread.is_finished() {
                self.wait_for_search(false);
            } else {
                self.out
                    .error("a search is already running: send 'stop' and wait for 'done'");
                return;
            }
        }
        let mode = line.first_flag().unwrap_or("think");
        let mut root = match &self.root {
            Ok(root) => root.clone(),
            Err(message) => {
                self.out.error(message);
                // Always end a `go` with `done`, so that a client waiting for it goes on.
                self.out.send(&Line::new("done"));
                return;
            }
        };
        // Rule options set after `pos` apply too.
        root.rules = self.config.rules;
        let mut limits = self.limits.clone();
        let control = Arc::new(match mode {
            "ponder" => SearchControl::new_ponder(),
            _ => SearchControl::new(),
        });
        if mode == "analyze" {
            limits.infinite = true;
        }
        let endless = limits.infinite || mode == "ponder";
        self.ensure_engine();
        let Some(mut engine) = self.engine.take() else {
            return;
        };
        let request = SearchRequest::new(root, limits)
            .with_level(Level::new(self.config.level))
            .with_book(self.config.book && mode == "think")
            .with_contempt(if mode == "analyze" {
                0
            } else {
                self.config.contempt
            });
        let out = self.out.clone();
        let done = Arc::new(AtomicBool::new(false));
        let thread_control = Arc::clone(&control);
        let thread_done = Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let search = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                engine.search(&request, &thread_control, &mut |info| {
                    out.send(&info_line(info));
                })
            }));
            thread_done.store(true, Ordering::Release);
            match search {
                Ok(result) => {
                    out.send(&done_line(result.best.as_ref(), result.ponder.as_ref()));
                    Some(engine)
                }
                Err(_) => {
                    // Never leave the client waiting: report, and play a legal move.
                    out.error("the search failed; playing the first legal move");
                    let first = request.root.position.legal_moves().iter().next().copied();
                    out.send(&done_line(first.as_ref(), None));
                    None
                }
            }
        });
        self.running = Some(Running {
            control,
            done,
            endless,
            thread,
        });
    }

    /// Waits for the running search, if any, to end; with `stop` it is told to stop first.
    fn wait_for_search(&mut self, stop: bool) {
        if let Some(r) = self.running.take() {
            if stop {
                r.control.stop();
            }
            if let Ok(Some(engine)) = r.thread.join() {
                self.engine = Some(engine);
            }
        }
    }

    /// End of input: stop an endless search at once, a limited one after a short grace.
    fn finish_at_end_of_input(&mut self) {
        if let Some(r) = &self.running {
            let deadline = Instant::now() + END_OF_INPUT_GRACE;
            while !r.endless && !r.thread.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        self.wait_for_search(true);
    }

    /// Reads the endgame tables now, not in the first search that probes them: reading
    /// them there took over a second of a 1 s + 0.01 s clock and lost games on time.
    /// Already read tables cost nothing, so this is cheap at every new game.
    fn prepare_tables(&self) {
        if let Some(o) = &self.oracle {
            o.prepare();
        }
    }

    /// Creates the engine if there is none, and applies changed hash or thread settings.
    fn ensure_engine(&mut self) {
        let options = EngineOptions {
            hash_mb: self.config.hash_mb,
            threads: self.config.threads,
        };
        let engine = self.engine.get_or_insert_with(|| Engine::new(options));
        if engine.options() != options {
            engine.set_options(options);
        }
        engine.set_endgame_oracle(self.oracle.clone());
        engine.set_weights(self.weights.clone());
    }
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// Reads a number of seconds; negative times count as zero (pydraughts subtracts the
/// increment from the clock, which can go below zero).
fn parse_seconds(name: &str, text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{name} must be a number of seconds, not '{text}'"))?;
    if !secs.is_finite() {
        return Err(format!("{name} must be a number of seconds, not '{text}'"));
    }
    Duration::try_from_secs_f64(secs.max(0.0)).map_err(|_| format!("{name}={text} is too long"))
}

/// Reads a `level` line into search limits. A `level` line replaces all earlier limits.
pub fn parse_limits(line: &Line) -> Result<Limits, String> {
    let mut limits = Limits::default();
    let number = |name: &str| -> Result<Option<u64>, String> {
        line.get(name)
            .map(|v| {
                v.trim()
                    .parse::<u64>()
                    .map_err(|_| format!("{name} must be a whole number, not '{v}'"))
            })
            .transpose()
    };
    limits.depth = number("depth")?.map(|d| d.min(u32::MAX as u64) as u32);
    limits.nodes = number("nodes")?;
    limits.move_time = line
        .get("move-time")
        .map(|v| parse_seconds("move-time", v))
        .transpose()?;
    if let Some(time) = line.get("time") {
        let time = parse_seconds("time", time)?;
        let inc = line
            .get("inc")
            .map(|v| parse_seconds("inc", v))
            .transpose()?
            .unwrap_or_default();
        let moves_to_go = number("moves")?
            .filter(|&n| n > 0)
            .map(|n| n.min(u32::MAX as u64) as u32);
        limits.clock = Some(Clock {
            // The client sent the clock minus the increment: the engine adds it back.
            time: time.saturating_add(inc),
            inc,
            moves_to_go,
        });
    }
    limits.infinite = line.has("infinite");
    if limits == Limits::default() {
        return Err(
            "level needs depth=, nodes=, move-time=, time= [inc=] [moves=], or infinite"
                .to_string(),
        );
    }
    Ok(limits)
}

/// The search root for `pos pos=.. moves=".."`.
pub fn build_root(text: &str, moves: &str, rules: RuleSet) -> Result<SearchRoot, String> {
    let start = read_hub_position(text).map_err(|e| format!("bad position: {e}"))?;
    let mut pos: Position = start;
    let mut played: Vec<Move> = Vec::new();
    for (i, word) in moves.split_whitespace().enumerate() {
        let m =
            parse_hub_move(&pos, word).map_err(|e| format!("move {} ('{word}'): {e}", i + 1))?;
        pos = pos.play(&m);
        played.push(m);
    }
    SearchRoot::from_moves(start, &played, rules).map_err(|i| format!("move {} is illegal", i + 1))
}

/// A score as the protocol writes it: men with two decimals; a win in `n` plies as
/// `100 - n/100` (pydraughts reads more than 90 men as a win), a loss as its negative.
pub fn score_text(score: Score) -> String {
    let centi: i64 = match score.plies_to_end() {
        Some(n) if n >= 0 => WIN_SCORE_CENTI - n as i64,
        Some(n) => -(WIN_SCORE_CENTI + n as i64),
        // Keep ordinary scores below what reads as a win.
        None => (score.0 as i64).clamp(-8_999, 8_999),
    };
    let sign = if centi < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", centi.abs() / 100, centi.abs() % 100)
}

/// The `info` line reporting a search's progress.
pub fn info_line(info: &Info) -> Line {
    let pv: Vec<String> = info.pv.iter().map(write_hub_move).collect();
    let secs = info.time.as_secs_f64();
    Line::new("info")
        .arg("depth", info.depth)
        // No mean depth is measured: the selective depth (deepest ply reached) stands in.
        .arg("mean-depth", info.seldepth.max(info.depth))
        .arg("score", score_text(info.score))
        .arg("nodes", info.nodes)
        .arg("time", format!("{secs:.3}"))
        .arg("nps", format!("{:.3}", info.nps as f64 / 1e6))
        .arg("pv", pv.join(" "))
}

/// The `done` line ending a search, with the move to play and the expected reply.
pub fn done_line(best: Option<&Move>, ponder: Option<&Move>) -> Line {
    let mut line = Line::new("done");
    if let Some(m) = best {
        line = line.arg("move", write_hub_move(m));
        if let Some(p) = ponder {
            line = line.arg("ponder", write_hub_move(p));
        }
    }
    line
}

#[cfg(test)]
mod tests;
