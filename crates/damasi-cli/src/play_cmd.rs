//! `damasi play`: a game in the terminal, against the engine or between two people.
//!
//! Interactive in a terminal (Unicode pieces, colour when the terminal has it); with input
//! from a pipe it reads one move or command per line and prints one line per event, so it can
//! be scripted.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use clap::{Args, ValueEnum};
use damasi::pdn::{self, PdnGame};
use damasi::{Color, Game, Move, Notation, Position, Role, RuleSet, Square, Wdl};
use damasi_engine::line_reader::{read_line, LineRead};
use damasi_engine::{
    Engine, EngineOptions, Level, Limits, SearchControl, SearchRequest, SearchRoot,
};

use damasi_engine::oracle::EndgameOracle;
use damasi_tb::TablebaseOracle;

use crate::rules_cmds::NotationArg;

/// Who sits across the board.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Opponent {
    /// The engine plays the other side.
    Engine,
    /// Two people share the keyboard.
    Human,
}

/// A side, on the command line.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SideArg {
    /// White (moves first).
    White,
    /// Black.
    Black,
}

/// How to draw the board.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Style {
    /// Unicode and colour on a terminal, plain text otherwise.
    Auto,
    /// Unicode pieces with ANSI colours.
    Color,
    /// Unicode pieces, no colours.
    Unicode,
    /// Letters only: w b for men, W B for kings.
    Plain,
}

/// Arguments of `damasi play`.
#[derive(Args)]
pub struct PlayArgs {
    /// Play the engine or another person.
    #[arg(long, value_enum, default_value_t = Opponent::Engine)]
    vs: Opponent,
    /// Your side when playing the engine.
    #[arg(long, value_enum, default_value_t = SideArg::White)]
    color: SideArg,
    /// Engine strength, 1 (beginner) to 10 (full strength).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=10))]
    level: u8,
    /// Engine thinking time per move, in seconds.
    #[arg(long, default_value_t = 1.0)]
    time: f64,
    /// Start position (FEN or `startpos`).
    #[arg(long)]
    fen: Option<String>,
    /// Rule set, e.g. `turkish` or `turkish; no-capture-limit 50; king-beats-lone-man`.
    #[arg(long, default_value = "turkish")]
    rules: String,
    /// How moves are written.
    #[arg(long, value_enum, default_value_t = NotationArg::Landing)]
    notation: NotationArg,
    /// How the board is drawn.
    #[arg(long, value_enum, default_value_t = Style::Auto)]
    style: Style,
    /// Endgame table directory for `hint`, or `none` (default: `tablebases/` in the user's
    /// data directory, used if tables are there).
    #[arg(long, value_name = "DIR")]
    tb_dir: Option<std::path::PathBuf>,
}

const HELP: &str = "\
Type a move (d3-d4, b3xd3xd5, or the federation's d4xc4xb3; short forms like d4xd6 when
they are unambiguous) or a command:
  help             this text
  moves            list the legal moves
  undo             take back your last move (and the engine's answer)
  redo             play a taken-back move again
  hint             ask the engine for a move
  flip             turn the board round
  board            draw the board again
  fen              print the position as FEN
  save FILE.pdn    save the game
  load FILE.pdn    load the first game of a PDN file
  new              start again
  resign           give up the game
  quit             leave";

/// Longest input line, in bytes: a move or a command with a file name (no path is longer
/// than 4 KiB on Linux). A longer line is dropped as it is read, and refused without being
/// echoed.
const MAX_LINE: usize = 4096;

/// Most bytes `load` reads from a file looking for its first game (real game files are a few
/// KiB; a large PDN database is fine when its first game comes early). Past it, `load` stops
/// and says so: a device or endless file (`/dev/zero`) cannot keep it reading.
const MAX_LOAD: u64 = 64 << 20;

/// A reader that fails, once it has given `limit` bytes, with an error saying so.
struct Limited<R> {
    inner: R,
    left: u64,
    /// Set when the limit stopped the reading.
    hit: bool,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            // An empty buffer asks for nothing: only a real read is past the limit.
            if buf.is_empty() {
                return Ok(0);
            }
            let mut probe = [0u8; 1];
            if self.inner.read(&mut probe)? == 0 {
                return Ok(0);
            }
            self.hit = true;
            return Err(std::io::Error::other(format!(
                "more than {} MiB",
                MAX_LOAD >> 20
            )));
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= n as u64;
        Ok(n)
    }
}

struct Session {
    game: Game,
    vs: Opponent,
    human: Color,
    level: Level,
    think: Duration,
    notation: Notation,
    style: Style,
    flipped: bool,
    interactive: bool,
    engine: Option<Engine>,
    /// Endgame tables for `hint`.
    tables: Option<Arc<TablebaseOracle>>,
    out: std::io::Stdout,
}

/// `damasi play`.
pub fn play(a: PlayArgs) -> Result<()> {
    let rules = RuleSet::from_name(&a.rules).map_err(|e| anyhow::anyhow!("--rules: {e}"))?;
    // `clamp` keeps NaN, and a NaN duration panics.
    if a.time.is_nan() {
        anyhow::bail!("--time must be a number of seconds, not {}", a.time);
    }
    let start = crate::rules_cmds::position_arg(a.fen.as_deref())?;
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let style = match a.style {
        Style::Auto if interactive && std::env::var_os("NO_COLOR").is_none() => Style::Color,
        Style::Auto => Style::Plain,
        s => s,
    };
    let human = match a.color {
        SideArg::White => Color::White,
        SideArg::Black => Color::Black,
    };
    let mut s = Session {
        game: Game::from_position(start, rules),
        vs: a.vs,
        human,
        level: Level::new(a.level),
        think: Duration::from_secs_f64(a.time.clamp(0.01, 3600.0)),
        notation: a.notation.into(),
        style,
        flipped: a.vs == Opponent::Engine && human == Color::Black,
        interactive,
        engine: None,
        tables: crate::tb_cmds::open_oracle(a.tb_dir.as_deref())?,
        out: std::io::stdout(),
    };
    if interactive {
        s.say("damasi: Turkish draughts. Type 'help' for the commands.");
    }
    s.run(std::io::stdin().lock())
}

impl Session {
    fn say(&mut self, line: &str) {
        // A closed pipe ends the session quietly rather than with a panic.
        let _ = writeln!(self.out, "{line}");
    }

    fn engine_to_move(&self) -> bool {
        self.vs == Opponent::Engine && self.game.position().side_to_move() != self.human
    }

    fn run(&mut self, mut input: impl BufRead) -> Result<()> {
        let mut bytes = Vec::new();
        self.show_board();
        loop {
            if self.game.outcome().is_none() && self.engine_to_move() {
                self.engine_move();
                continue;
            }
            if self.interactive {
                let who = self.game.position().side_to_move();
                let prompt = if self.game.outcome().is_some() {
                    "game over".to_string()
                } else {
                    format!("{who} to move")
                };
                let _ = write!(self.out, "{prompt}> ");
                let _ = self.out.flush();
            }
            match read_line(&mut input, &mut bytes, MAX_LINE) {
                Ok(LineRead::End) => break,
                Ok(LineRead::Line) => {}
                Ok(LineRead::TooLong) => {
                    // Dropped as it was read, and not echoed: the session goes on.
                    self.say(&format!(
                        "error: line too long (more than {MAX_LINE} bytes), ignored"
                    ));
                    continue;
                }
                Err(e) => {
                    self.say(&format!("error: cannot read input: {e}"));
                    break;
                }
            }
            // A line that is not UTF-8 is read with replacement characters: it is then refused
            // like any other unreadable line, and the session goes on.
            let line = String::from_utf8_lossy(&bytes);
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if !self.command(line) {
                break;
            }
        }
        Ok(())
    }

    /// Runs one command or move; false means quit.
    fn command(&mut self, line: &str) -> bool {
        let (word, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(w, r)| (w, r.trim()));
        match word.to_ascii_lowercase().as_str() {
            "quit" | "exit" | "q" => return false,
            "help" | "?" => self.say(HELP),
            "moves" => {
                let pos = *self.game.position();
                let list: Vec<String> = self
                    .game
                    .legal_moves()
                    .iter()
                    .map(|m| pos.write_move(m, self.notation))
                    .collect();
                self.say(&if list.is_empty() {
                    "no legal moves".to_string()
                } else {
                    list.join(" ")
                });
            }
            "undo" | "takeback" => self.undo(),
            "redo" => match self.game.redo() {
                Some(m) => self.announce_redo(&m),
                None => self.say("error: nothing to redo"),
            },
            "hint" => self.hint(),
            "flip" => {
                self.flipped = !self.flipped;
                self.show_board();
            }
            "board" | "show" => self.draw_board(),
            "fen" => {
                let fen = self.game.position().to_fen();
                self.say(&fen);
            }
            "save" => self.save(rest),
            "load" => self.load(rest),
            "new" => {
                self.game = Game::from_position(*self.game.initial_position(), *self.game.rules());
                if let Some(e) = self.engine.as_mut() {
                    e.new_game();
                }
                self.say("new game");
                self.show_board();
            }
            "resign" => {
                if self.game.outcome().is_some() {
                    self.say("error: the game is already over");
                } else {
                    let loser = if self.vs == Opponent::Engine {
                        self.human
                    } else {
                        self.game.position().side_to_move()
                    };
                    self.game.resign(loser);
                    self.report_outcome();
                }
            }
            _ => self.human_move(line),
        }
        true
    }

    fn human_move(&mut self, text: &str) {
        if let Some(o) = self.game.outcome() {
            self.say(&format!(
                "error: the game is over ({}); 'new' or 'quit'",
                o.describe()
            ));
            return;
        }
        let before = *self.game.position();
        match self.game.play_text(text) {
            Ok(m) => self.announce(&before, &m, false),
            Err(e) => self.say(&format!("error: {e}")),
        }
    }

    fn announce(&mut self, before: &Position, m: &Move, by_engine: bool) {
        let who = before.side_to_move();
        let tag = if by_engine { " (engine)" } else { "" };
        let text = format!("{who}{tag} plays {}", before.write_move(m, self.notation));
        self.say(&text);
        self.show_board();
        self.report_outcome();
    }

    fn announce_redo(&mut self, m: &Move) {
        let before = self
            .game
            .position_at(self.game.ply() - 1)
            .unwrap_or(*self.game.position());
        let text = format!("redo {}", before.write_move(m, self.notation));
        self.say(&text);
        self.show_board();
    }

    fn report_outcome(&mut self) {
        if let Some(o) = self.game.outcome() {
            self.say(&format!("game over: {} ({})", o.describe(), o.pdn_result()));
        }
    }

    fn undo(&mut self) {
        if let Err(e) = self.game.take_back() {
            let hint = match e {
                damasi::GameError::Over(_) => "; 'new' starts another game",
                _ => "",
            };
            self.say(&format!("error: {e}{hint}"));
            return;
        }
        // Against the engine, take back its answer too, so that it is the person's turn again.
        if self.engine_to_move() {
            self.game.undo();
        }
        self.say("undone");
        self.show_board();
    }

    fn engine(&mut self) -> &mut Engine {
        self.engine.get_or_insert_with(|| {
            Engine::new(EngineOptions {
                hash_mb: 32,
                threads: 1,
            })
        })
    }

    /// The engine's move at `level` within `time`: for its own move in the game (`play`: the
    /// opening book if it is on by default, and contempt for a draw) or a hint (neither).
    fn search(&mut self, level: Level, time: Duration, play: bool) -> Option<Move> {
        let root = SearchRoot::from_game(&self.game);
        let control = Arc::new(SearchControl::new());
        let request = SearchRequest::new(root, Limits::move_time(time))
            .with_level(level)
            .with_book(play && damasi_engine::book::USE_BY_DEFAULT)
            .with_contempt(if play {
                damasi_engine::PLAY_CONTEMPT
            } else {
                0
            });
        self.engine().search(&request, &control, &mut |_| {}).best
    }

    fn engine_move(&mut self) {
        let before = *self.game.position();
        let (level, time) = (self.level, self.think);
        match self.search(level, time, true) {
            Some(m) if self.game.play(&m).is_ok() => self.announce(&before, &m, true),
            _ => {
                // Cannot happen for a game that is not over; fail loudly rather than loop.
                self.say("error: the engine found no move");
                self.vs = Opponent::Human;
            }
        }
    }

    fn hint(&mut self) {
        if self.game.outcome().is_some() {
            self.say("error: the game is over");
            return;
        }
        let think = self.think.min(Duration::from_secs(2));
        let pos = *self.game.position();
        // The endgame tables know the default rules only.
        let known = match &self.tables {
            Some(t) if *self.game.rules() == RuleSet::default() => {
                t.probe(&pos).map(|v| (t.clone(), v))
            }
            _ => None,
        };
        // With the tables the hint keeps the position's value (the search picks among the
        // moves that do); the engine's own moves stay without them.
        if let Some((t, _)) = &known {
            let oracle: Arc<dyn EndgameOracle> = t.clone();
            self.engine().set_endgame_oracle(Some(oracle));
        }
        let best = self.search(Level::MAX, think, false);
        if known.is_some() {
            self.engine().set_endgame_oracle(None);
        }
        match best {
            Some(m) => {
                let mut text = format!("hint: {}", pos.write_move(&m, self.notation));
                if let Some((_, v)) = known {
                    let side = pos.side_to_move();
                    let what = match v {
                        Wdl::Win => format!("{side} wins"),
                        Wdl::Draw => "a draw".to_string(),
                        Wdl::Loss => format!("{side} loses"),
                    };
                    text.push_str(&format!(" (endgame tables: {what} with best play)"));
                }
                self.say(&text);
            }
            None => self.say("error: no legal move"),
        }
    }

    fn save(&mut self, path: &str) {
        if path.is_empty() {
            self.say("error: save needs a file name, e.g. save game.pdn");
            return;
        }
        let mut record = PdnGame::new(self.game.clone());
        record.set_tag("Event", "damasi play");
        let engine_name = format!("damasi level {}", self.level.get());
        let (white, black) = match (self.vs, self.human) {
            (Opponent::Human, _) => ("?".to_string(), "?".to_string()),
            (Opponent::Engine, Color::White) => ("You".to_string(), engine_name),
            (Opponent::Engine, Color::Black) => (engine_name, "You".to_string()),
        };
        record.set_tag("White", &white);
        record.set_tag("Black", &black);
        let text = pdn::write_game(&record, self.notation);
        match std::fs::write(path, text) {
            Ok(()) => self.say(&format!("saved {path}")),
            Err(e) => self.say(&format!("error: cannot write {path}: {e}")),
        }
    }

    fn load(&mut self, path: &str) {
        if path.is_empty() {
            self.say("error: load needs a file name, e.g. load game.pdn");
            return;
        }
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) => {
                self.say(&format!("error: cannot open {path}: {e}"));
                return;
            }
        };
        let mut limited = Limited {
            inner: file,
            left: MAX_LOAD,
            hit: false,
        };
        let first = pdn::read_games(std::io::BufReader::new(&mut limited)).next();
        // A game read whole stands even if the reader's buffer then ran into the limit.
        let first = match first {
            Some(Ok(record)) => Some(Ok(record)),
            _ if limited.hit => {
                self.say(&format!(
                    "error: {path}: no whole game in its first {} MiB; load reads no further",
                    MAX_LOAD >> 20
                ));
                return;
            }
            other => other,
        };
        match first {
            Some(Ok(record)) => {
                self.game = record.game;
                if let Some(e) = self.engine.as_mut() {
                    e.new_game();
                }
                let n = self.game.ply();
                self.say(&format!("loaded {path}: {n} plies"));
                self.show_board();
                self.report_outcome();
            }
            Some(Err(e)) => self.say(&format!("error: {path}: {e}")),
            None => self.say(&format!("error: {path} holds no game")),
        }
    }

    /// Draws the board after a change, in a terminal only: scripts ask with `board`.
    fn show_board(&mut self) {
        if self.interactive {
            self.draw_board();
        }
    }

    fn draw_board(&mut self) {
        let last = self.game.history().last().copied();
        let text = draw_board(
            self.game.position(),
            last.as_ref(),
            self.flipped,
            self.style,
        );
        let _ = write!(self.out, "{text}");
    }
}

/// The board as text: rank 8 on top unless `flipped`; the last move's squares marked.
fn draw_board(pos: &Position, last: Option<&Move>, flipped: bool, style: Style) -> String {
    let mut s = String::new();
    let files: Vec<u8> = if flipped {
        (0..8).rev().collect()
    } else {
        (0..8).collect()
    };
    let ranks: Vec<u8> = if flipped {
        (0..8).collect()
    } else {
        (0..8).rev().collect()
    };
    let header: String = files
        .iter()
        .map(|&f| format!(" {}", (b'a' + f) as char))
        .collect();
    s.push_str(&format!("  {header}\n"));
    for &r in &ranks {
        s.push_str(&format!("{} ", r + 1));
        for &f in &files {
            let sq = Square::from_coords(f, r).expect("on the board");
            let piece = pos.piece_at(sq);
            let glyph = match (piece, style) {
                (None, Style::Plain) => '.',
                (None, _) => '·',
                (Some(p), Style::Plain) => match (p.color, p.role) {
                    (Color::White, Role::Man) => 'w',
                    (Color::White, Role::King) => 'W',
                    (Color::Black, Role::Man) => 'b',
                    (Color::Black, Role::King) => 'B',
                },
                (Some(p), _) => match (p.color, p.role) {
                    (Color::White, Role::Man) => '⛀',
                    (Color::White, Role::King) => '⛁',
                    (Color::Black, Role::Man) => '⛂',
                    (Color::Black, Role::King) => '⛃',
                },
            };
            if style == Style::Color {
                let marked = last.is_some_and(|m| m.from() == sq || m.to() == sq);
                let bg = if marked { 179 } else { 223 };
                let fg = match piece.map(|p| p.color) {
                    Some(Color::White) => "97",
                    Some(Color::Black) => "30",
                    None => "90",
                };
                s.push_str(&format!("\x1b[48;5;{bg}m\x1b[1;{fg}m {glyph}\x1b[0m"));
            } else {
                s.push(' ');
                s.push(glyph);
            }
        }
        s.push_str(&format!("  {}\n", r + 1));
    }
    s.push_str(&format!("  {header}\n"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_board_has_letters_and_flips() {
        let pos = Position::from_fen("W:WKa1,b2:Bh7").unwrap();
        let text = draw_board(&pos, None, false, Style::Plain);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "8  . . . . . . . .  8");
        assert_eq!(lines[2], "7  . . . . . . . b  7");
        assert_eq!(lines[8], "1  W . . . . . . .  1");
        let flipped = draw_board(&pos, None, true, Style::Plain);
        let lines: Vec<&str> = flipped.lines().collect();
        assert_eq!(lines[0], "   h g f e d c b a");
        assert_eq!(lines[1], "1  . . . . . . . W  1");
    }
}
