//! A Hub engine run as a subprocess: start it, go through the handshake, ask it for moves,
//! stop it. Used by the match runner and by `damasi bot`.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use damasi::hub::{write_hub_move, write_hub_position};
use damasi::{Move, Position, RuleSet};
use damasi_engine::line_reader::{read_line, LineRead, MAX_LINE};
use damasi_engine::protocol::Line;

/// One engine to run: of a match, or behind `damasi bot`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name used in reports and records.
    pub name: String,
    /// The program to run.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Parameters sent with `set-param` after the handshake, as (name, value).
    pub params: Vec<(String, String)>,
}

/// How long an engine may take to start up and answer `hub` and `init`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long an engine may take to send `done` after `stop`, or to exit after `quit`.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// How a request to an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// No answer in time.
    Timeout,
    /// The process ended or its pipes broke.
    Closed(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Timeout => f.write_str("no answer in time"),
            Failure::Closed(why) => write!(f, "the engine stopped: {why}"),
        }
    }
}

/// A running Hub engine.
pub struct HubProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl HubProcess {
    /// Starts the engine and goes through `hub` .. `wait`, the parameters, `init` .. `ready`.
    pub fn start(spec: &EngineSpec, rules: &RuleSet) -> Result<HubProcess, String> {
        let mut child = Command::new(&spec.program)
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start '{}': {e}", spec.program))?;
        let stdin = child.stdin.take().ok_or("no stdin pipe")?;
        let stdout = child.stdout.take().ok_or("no stdout pipe")?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            // Bounded lines: an engine writing one endless line must not take all memory.
            // Such a line, like invalid UTF-8, ends the reading: the engine's output counts
            // as closed.
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            while let Ok(LineRead::Line) = read_line(&mut reader, &mut buf, MAX_LINE) {
                let Ok(line) = std::str::from_utf8(&buf) else {
                    break;
                };
                if tx.send(line.trim_end_matches('\r').to_string()).is_err() {
                    break;
                }
            }
        });
        let mut p = HubProcess {
            child,
            stdin,
            lines,
        };
        // On failure, dropping `p` kills the process.
        p.handshake(spec, rules)?;
        Ok(p)
    }

    fn handshake(&mut self, spec: &EngineSpec, rules: &RuleSet) -> Result<(), String> {
        self.send(&Line::new("hub"))?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        let mut params: Vec<(String, Option<String>)> = Vec::new();
        loop {
            let line = self
                .recv_until(deadline)
                .map_err(|f| format!("during 'hub': {f}"))?;
            match line.command.as_str() {
                "wait" => break,
                "param" => {
                    if let Some(name) = line.get("name") {
                        params.push((name.to_string(), line.get("values").map(str::to_string)));
                    }
                }
                _ => {}
            }
        }
        let has = |name: &str| params.iter().any(|(n, _)| n == name);
        if let Some((_, values)) = params.iter().find(|(n, _)| n == "variant") {
            let values = values.as_deref().unwrap_or("");
            if !values.split_whitespace().any(|v| v == "turkish") {
                return Err(format!(
                    "it does not play Turkish draughts (variants: {values})"
                ));
            }
            self.send(
                &Line::new("set-param")
                    .arg("name", "variant")
                    .arg("value", "turkish"),
            )?;
        }
        let mut rule_params: Vec<(String, String)> = Vec::new();
        if let Some(n) = rules.no_capture_limit {
            rule_params.push(("no-capture-limit".into(), n.to_string()));
        }
        if rules.king_beats_lone_man {
            rule_params.push(("king-beats-lone-man".into(), "true".into()));
        }
        for (name, value) in rule_params.iter().filter(|(n, _)| has(n)) {
            self.send(&Line::new("set-param").arg("name", name).arg("value", value))?;
        }
        for (name, value) in &spec.params {
            self.send(&Line::new("set-param").arg("name", name).arg("value", value))?;
        }
        self.send(&Line::new("init"))?;
        loop {
            let line = self
                .recv_until(deadline)
                .map_err(|f| format!("during 'init': {f}"))?;
            match line.command.as_str() {
                "ready" => return Ok(()),
                "error" => {
                    let message = line.get("message").unwrap_or("");
                    return Err(format!("it rejected its settings: {message}"));
                }
                _ => {}
            }
        }
    }

    /// Sends one line.
    pub fn send(&mut self, line: &Line) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| format!("cannot write to the engine: {e}"))
    }

    /// The next line that reads as a protocol line, before `deadline`.
    pub fn recv_until(&mut self, deadline: Instant) -> Result<Line, Failure> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(text) => {
                    if let Ok(line) = Line::parse(&text) {
                        return Ok(line);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(Failure::Timeout),
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self
                        .child
                        .try_wait()
                        .ok()
                        .flatten()
                        .map_or("its output closed".to_string(), |s| {
                            format!("it exited ({s})")
                        });
                    return Err(Failure::Closed(status));
                }
            }
        }
    }

    /// Asks for a move: `pos` (start position and every move so far), `level`, `go think`.
    /// Returns the move text (`None` for a bare `done`) and the time taken.
    pub fn think(
        &mut self,
        start: &Position,
        moves: &[Move],
        level: &Line,
        limit: Duration,
    ) -> Result<(Option<String>, Duration), Failure> {
        let mut pos = Line::new("pos").arg("pos", write_hub_position(start));
        if !moves.is_empty() {
            let list: Vec<String> = moves.iter().map(write_hub_move).collect();
            pos = pos.arg("moves", list.join(" "));
        }
        let began = Instant::now();
        for line in [&pos, level, &Line::new("go").flag("think")] {
            self.send(line).map_err(Failure::Closed)?;
        }
        // A limit past what an `Instant` can hold waits a year instead (never, in practice).
        let deadline = began
            .checked_add(limit)
            .unwrap_or_else(|| began + Duration::from_secs(365 * 24 * 3600));
        loop {
            let line = match self.recv_until(deadline) {
                Ok(line) => line,
                Err(Failure::Timeout) => {
                    // Ask for the move, to tell a slow engine from a hung one; the game is
                    // lost either way.
                    let _ = self.send(&Line::new("stop"));
                    return Err(Failure::Timeout);
                }
                Err(f) => return Err(f),
            };
            if line.command == "done" {
                return Ok((line.get("move").map(str::to_string), began.elapsed()));
            }
        }
    }

    /// Sends `quit` and waits a moment for the process to end, then kills it.
    pub fn quit(mut self) {
        let _ = self.send(&Line::new("quit"));
        let deadline = Instant::now() + STOP_GRACE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HubProcess {
    fn drop(&mut self) {
        // A process dropped without `quit` (a failure) must not outlive the match.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Splits a command line into words as a POSIX shell would (the `shell-words` crate): white
/// space separates, single and double quotes group, a backslash escapes the next character.
pub fn split_command(text: &str) -> Result<Vec<String>, String> {
    let words =
        shell_words::split(text).map_err(|e| format!("cannot split '{text}' into words: {e}"))?;
    if words.is_empty() {
        return Err("empty engine command".to_string());
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_commands_like_a_shell() {
        assert_eq!(
            split_command("damasi hub --level 5").unwrap(),
            vec!["damasi", "hub", "--level", "5"]
        );
        assert_eq!(
            split_command(r#"  "/opt/my engine/scan" 'a b' c\ d e"f"  "#).unwrap(),
            vec!["/opt/my engine/scan", "a b", "c d", "ef"]
        );
        assert!(split_command("a 'b").is_err());
        assert!(split_command("a \"b").is_err());
        // A backslash at the very end escapes nothing and is kept.
        assert_eq!(split_command("a\\").unwrap(), vec!["a\\"]);
        // A word that starts with # begins a comment, as in a shell.
        assert_eq!(
            split_command("damasi hub # the engine").unwrap(),
            vec!["damasi", "hub"]
        );
        assert!(split_command("   ").is_err());
    }
}
