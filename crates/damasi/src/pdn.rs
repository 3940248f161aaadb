//! Game records in PDN (Portable Draughts Notation), the draughts form of chess's PGN.
//!
//! Writing ([`write_game`]) gives the Seven Tag Roster (`Event`, `Site`, `Date`, `Round`,
//! `White`, `Black`, `Result`), then `[GameType "30"]` (Turkish draughts), then
//! `[Rules "..."]` when the game was not played under the default rules (the
//! [`RuleSet::name`], e.g. `turkish; no-capture-limit 50`), then `[SetUp "1"]` and
//! `[FEN "..."]` when it did not start from the start position, then any other tags. The
//! movetext has move numbers, moves in landing notation (or captured-square notation on
//! request) without the `=K` promotion mark (the PDN move grammar has none; the board implies
//! it), and the result token `1-0`, `0-1`, `1/2-1/2` or `*`.
//!
//! Reading ([`read_games`]) streams a file of many games. It accepts tags in any order,
//! move numbers (`12.`, `12...`), comments (`{..}`, `;` to the end of the line), variations
//! `(..)` (skipped, nested), NAGs (`$3`), move suffixes (`!`, `?!`), the result tokens of every
//! PDN version (`2-0`, `0-2`, `1-1`, `0-0` too), `%` escape lines, squares as numbers 1..64
//! (a1 = 1, b1 = 2, .., h8 = 64, as pydraughts writes them) and every move notation
//! [`Position::parse_move`] reads. A game that cannot be read (bad tag, GameType other than 30,
//! bad FEN or rule set, illegal move) is reported with its line number and what is wrong; the
//! reader then skips to the end of that game and reads the next. Memory stays bounded on any
//! input: a line longer than [`MAX_LINE`] is skipped without being held, and is such an
//! error.
//!
//! The writer adds `[TimeControl "..."]` for a timed game and `[Termination "..."]` with the
//! outcome's reason code ([`Outcome::reason_code`]: `resignation`, `time`, `agreement`,
//! `aborted`, ...) for a finished one. A result token that the board does not explain (the
//! game is not over after the last move) is read with the `Termination` tag: a reason code or
//! one of PGN's words (`time forfeit`, `abandoned`, `adjudication`, `rules infraction`) names
//! the reason; without one it is kept as a resignation (`1-0`, `0-1`) or an agreed draw
//! (`1/2-1/2`). When the board has
//! ended the game, the board decides and a contradicting token is ignored (the `Result` tag in
//! [`PdnGame::tags`] still holds what the file said). Moves after the end of the game (by the
//! rules the game is played under, draws included) are an error.
//!
//! ```
//! use damasi::pdn::{read_games, write_game, PdnGame};
//! use damasi::{Game, Notation};
//!
//! let mut game = Game::new();
//! game.play_text("d3-d4").unwrap();
//! game.play_text("e6-e5").unwrap();
//! let text = write_game(&PdnGame::new(game.clone()), Notation::Landing);
//! assert!(text.contains("[GameType \"30\"]"));
//! assert!(text.contains("1. d3-d4 e6-e5 *"));
//!
//! let read: Vec<_> = read_games(text.as_bytes()).collect();
//! assert_eq!(read.len(), 1);
//! assert_eq!(read[0].as_ref().unwrap().game.history(), game.history());
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufRead};

use crate::clock::TimeControl;
use crate::color::Color;
use crate::fen::FenError;
use crate::game::{DrawReason, Game, GameError, Outcome, RuleSet, RuleSetError, WinReason};
use crate::notation::Notation;
use crate::position::Position;
use crate::square::Square;

/// The PDN game type number of Turkish draughts.
pub const GAME_TYPE: u32 = 30;

/// The tag naming the rule set, written when it is not the default.
pub const RULES_TAG: &str = "Rules";

/// The Seven Tag Roster, in the order PDN writes it, with the values used when unknown.
const ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// Tags whose value the writer derives from the game itself.
const DERIVED_TAGS: [&str; 7] = [
    "Result",
    "GameType",
    RULES_TAG,
    "SetUp",
    "FEN",
    TERMINATION_TAG,
    TIME_CONTROL_TAG,
];

/// The tag saying how the game ended, written with the outcome's reason code
/// ([`Outcome::reason_code`]: `resignation`, `time`, `repetition`, `aborted`, ...).
pub const TERMINATION_TAG: &str = "Termination";

/// The tag with the game's time control, in the PGN form (`2700`, `180+2`).
pub const TIME_CONTROL_TAG: &str = "TimeControl";

/// Longest tag name or value, and longest move or comment word, read before the input is
/// called broken: real records stay far below; the cap bounds memory on hostile input.
const MAX_TOKEN: usize = 4096;

/// Longest line read, in bytes. A longer line is never held in memory: it is read to its end,
/// dropped and reported as a [`PdnErrorKind::Syntax`] error of its game (which is then
/// skipped, like any broken game). Writers wrap movetext at 80 columns; a whole game of tens
/// of thousands of plies on one line stays under this.
pub const MAX_LINE: usize = 1 << 20;

/// A game record: the tags as read or set (name, value), in order, and the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnGame {
    /// Tag pairs in file order. The writer takes `Result`, `GameType`, `Rules`, `SetUp` and
    /// `FEN` from the game instead of from here.
    pub tags: Vec<(String, String)>,
    /// The game: rules, start position, moves, result.
    pub game: Game,
}

impl PdnGame {
    /// A record of `game` with no tags yet.
    pub fn new(game: Game) -> PdnGame {
        PdnGame {
            tags: Vec::new(),
            game,
        }
    }

    /// The value of the first tag called `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets tag `name` to `value`, replacing an existing one or adding it at the end.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
    }
}

/// What is wrong with a PDN game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PdnErrorKind {
    /// The input could not be read (an I/O error); reading stops.
    Io(String),
    /// The text is not PDN here: a broken tag, an unclosed comment or variation.
    Syntax(String),
    /// The `GameType` tag names another game than Turkish draughts.
    GameType(String),
    /// The `FEN` tag does not describe a valid position.
    Fen(FenError),
    /// The rule-set tag is not understood.
    Rules(RuleSetError),
    /// A move could not be played.
    Move {
        /// The move's number and side, e.g. `12.` or `12...`.
        number: String,
        /// The move as written.
        text: String,
        /// Why it could not be played.
        error: GameError,
    },
}

/// A game that could not be read: where (line, and which game of the input) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnError {
    /// Line of the input (1 = first) where the fault is.
    pub line: usize,
    /// Which game of the input (1 = first), counting broken games too.
    pub game: usize,
    /// What is wrong.
    pub kind: PdnErrorKind,
}

impl fmt::Display for PdnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} (game {}): ", self.line, self.game)?;
        match &self.kind {
            PdnErrorKind::Io(e) => write!(f, "cannot read the input: {e}"),
            PdnErrorKind::Syntax(e) => write!(f, "{e}"),
            PdnErrorKind::GameType(v) => write!(
                f,
                "GameType \"{v}\" is not Turkish draughts (GameType {GAME_TYPE})"
            ),
            PdnErrorKind::Fen(e) => write!(f, "FEN tag: {e}"),
            PdnErrorKind::Rules(e) => write!(f, "{RULES_TAG} tag: {e}"),
            PdnErrorKind::Move {
                number,
                text,
                error,
            } => write!(f, "move {number} {text}: {error}"),
        }
    }
}

impl std::error::Error for PdnError {}

/// The PDN move number of the move played at `ply` (0-based) from `start`: `1.` for White's
/// first move, `1...` for Black's.
fn move_number(start: Color, ply: usize) -> String {
    let k = ply + usize::from(start == Color::Black);
    if k % 2 == 0 {
        format!("{}.", k / 2 + 1)
    } else {
        format!("{}...", k / 2 + 1)
    }
}

/// The result token for `game`: from its outcome, else `*`.
fn result_token(game: &Game) -> &'static str {
    game.outcome().map_or("*", |o| o.pdn_result())
}

/// Writes a tag pair, escaping `\` and `"` in the value as PGN does.
fn write_tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        // A line break would end the tag line: keep records one tag a line.
        out.push(if c == '\n' || c == '\r' { ' ' } else { c });
    }
    out.push_str("\"]\n");
}

/// A moment (seconds since 1970-01-01 UTC) as PDN's `Date` tag writes it: `2026.11.26`.
///
/// ```
/// assert_eq!(damasi::pdn::pdn_date(0), "1970.01.01");
/// assert_eq!(damasi::pdn::pdn_date(1_795_651_200), "2026.11.26");
/// ```
pub fn pdn_date(unix_secs: i64) -> String {
    // Howard Hinnant's `civil_from_days`: the calendar date of a day counted from 1970.
    let z = unix_secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Writes one game as PDN text, ending in a line break. Separate games with a blank line
/// (as [`write_games`] does). Moves are written in `notation` without the `=K` mark.
pub fn write_game(record: &PdnGame, notation: Notation) -> String {
    let game = &record.game;
    let result = result_token(game);
    let mut out = String::new();
    for (name, default) in ROSTER {
        let value = if name == "Result" {
            result
        } else {
            record.tag(name).unwrap_or(default)
        };
        write_tag(&mut out, name, value);
    }
    write_tag(&mut out, "GameType", &GAME_TYPE.to_string());
    if *game.rules() != RuleSet::default() {
        write_tag(&mut out, RULES_TAG, &game.rules().name());
    }
    let start = *game.initial_position();
    if start != Position::start() {
        write_tag(&mut out, "SetUp", "1");
        write_tag(&mut out, "FEN", &start.to_fen());
    }
    if let Some(clock) = game.clock() {
        write_tag(&mut out, TIME_CONTROL_TAG, &clock.control().pdn());
    }
    if let Some(outcome) = game.outcome() {
        write_tag(&mut out, TERMINATION_TAG, outcome.reason_code());
    }
    for (name, value) in &record.tags {
        let known = ROSTER.iter().any(|(n, _)| n == name) || DERIVED_TAGS.contains(&name.as_str());
        if !known {
            write_tag(&mut out, name, value);
        }
    }
    out.push('\n');

    // Movetext, wrapped before 80 columns as PGN export format asks.
    let mut line = String::new();
    let push_word = |out: &mut String, line: &mut String, word: &str| {
        if !line.is_empty() && line.len() + 1 + word.len() > 79 {
            out.push_str(line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    };
    let side = start.side_to_move();
    let mut pos = start;
    for (ply, m) in game.history().iter().enumerate() {
        let number = move_number(side, ply);
        let written = pos.write_move(m, notation);
        let written = written.strip_suffix("=K").unwrap_or(&written);
        // White's moves carry their number; Black's only when they open the movetext.
        let word = if ply == 0 || !number.ends_with("...") {
            format!("{number} {written}")
        } else {
            written.to_string()
        };
        push_word(&mut out, &mut line, &word);
        pos = pos.play(m);
    }
    push_word(&mut out, &mut line, result);
    out.push_str(&line);
    out.push('\n');
    out
}

/// Writes several games, separated by blank lines.
pub fn write_games<'a>(
    records: impl IntoIterator<Item = &'a PdnGame>,
    notation: Notation,
) -> String {
    let mut out = String::new();
    for (i, r) in records.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&write_game(r, notation));
    }
    out
}

/// Reads the first game of `text`; an error if there is none.
pub fn read_game(text: &str) -> Result<PdnGame, PdnError> {
    read_games(text.as_bytes()).next().unwrap_or(Err(PdnError {
        line: 1,
        game: 1,
        kind: PdnErrorKind::Syntax("no game found".to_string()),
    }))
}

/// Streams the games of a PDN input, one `Result` per game, broken games included (as errors)
/// so that the rest can still be read. Reading stops after an I/O error.
pub fn read_games<R: BufRead>(input: R) -> PdnReader<R> {
    PdnReader {
        lexer: Lexer::new(input),
        games: 0,
        stopped: false,
    }
}

/// The iterator of [`read_games`].
pub struct PdnReader<R> {
    lexer: Lexer<R>,
    /// Games started so far.
    games: usize,
    /// Set after an I/O error.
    stopped: bool,
}

impl<R: BufRead> Iterator for PdnReader<R> {
    type Item = Result<PdnGame, PdnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.stopped {
            return None;
        }
        let r = self.read_one();
        if let Some(Err(PdnError {
            kind: PdnErrorKind::Io(_),
            ..
        })) = &r
        {
            self.stopped = true;
        }
        r
    }
}

/// A token of PDN text.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Tag(String, String),
    Move(String),
    Result(String),
    Eof,
}

/// A token and the line it starts on.
#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

/// A lexer fault: the line, what is wrong, and whether it is an I/O error.
#[derive(Debug)]
struct LexError {
    line: usize,
    message: String,
    io: bool,
}

/// Where a game being read stands.
#[derive(PartialEq, Eq, Clone, Copy)]
enum Section {
    Tags,
    Moves,
}

impl<R: BufRead> PdnReader<R> {
    fn error(&self, line: usize, kind: PdnErrorKind) -> PdnError {
        PdnError {
            line,
            game: self.games,
            kind,
        }
    }

    /// Reads one game, or `None` at the end of the input.
    fn read_one(&mut self) -> Option<Result<PdnGame, PdnError>> {
        let mut tags: Vec<(String, String, usize)> = Vec::new();
        let mut game: Option<Game> = None;
        let mut section = Section::Tags;
        let mut result: Option<String> = None;
        loop {
            let token = match self.lexer.next_token() {
                Ok(t) => t,
                Err(e) => {
                    if tags.is_empty() && game.is_none() {
                        self.games += 1;
                    }
                    let kind = if e.io {
                        PdnErrorKind::Io(e.message)
                    } else {
                        PdnErrorKind::Syntax(e.message)
                    };
                    let err = self.error(e.line, kind);
                    if !e.io {
                        self.skip_game(section);
                    }
                    return Some(Err(err));
                }
            };
            if section == Section::Tags && tags.is_empty() && token.tok != Tok::Eof {
                self.games += 1;
            }
            match token.tok {
                Tok::Eof => {
                    if section == Section::Tags && tags.is_empty() {
                        return None;
                    }
                    break;
                }
                Tok::Tag(name, value) => {
                    if section == Section::Moves {
                        // A new game starts without this one having a result token.
                        self.lexer.push_back(Token {
                            tok: Tok::Tag(name, value),
                            line: token.line,
                        });
                        break;
                    }
                    tags.push((name, value, token.line));
                }
                Tok::Move(text) => {
                    if section == Section::Tags {
                        section = Section::Moves;
                        match self.set_up(&tags) {
                            Ok(g) => game = Some(g),
                            Err(e) => {
                                self.skip_game(section);
                                return Some(Err(e));
                            }
                        }
                    }
                    let g = game.as_mut().expect("set up on the first move");
                    if let Err(e) = play_word(g, &text) {
                        let number = move_number(g.initial_position().side_to_move(), g.ply());
                        let err = self.error(
                            token.line,
                            PdnErrorKind::Move {
                                number,
                                text,
                                error: e,
                            },
                        );
                        self.skip_game(section);
                        return Some(Err(err));
                    }
                }
                Tok::Result(r) => {
                    result = Some(r);
                    break;
                }
            }
        }
        let mut game = match game {
            Some(g) => g,
            None => match self.set_up(&tags) {
                Ok(g) => g,
                Err(e) => return Some(Err(e)),
            },
        };
        let result = result.or_else(|| {
            tags.iter()
                .find(|(n, _, _)| n == "Result")
                .map(|(_, v, _)| v.clone())
        });
        if game.outcome().is_none() {
            let termination = tags
                .iter()
                .find(|(n, _, _)| n == TERMINATION_TAG)
                .map(|(_, v, _)| v.as_str());
            if let Some(o) = declared_result(result.as_deref().unwrap_or("*"), termination) {
                game.declare(o);
            }
        }
        Some(Ok(PdnGame {
            tags: tags.into_iter().map(|(n, v, _)| (n, v)).collect(),
            game,
        }))
    }

    /// The game the tags describe: rules, start position, game type.
    fn set_up(&self, tags: &[(String, String, usize)]) -> Result<Game, PdnError> {
        let mut start = Position::start();
        let mut rules = RuleSet::default();
        let mut control = None;
        for (name, value, line) in tags {
            match name.as_str() {
                "GameType" => {
                    let kind = value.split(',').next().unwrap_or("").trim();
                    if kind.parse::<u32>().ok() != Some(GAME_TYPE) {
                        return Err(self.error(*line, PdnErrorKind::GameType(value.clone())));
                    }
                }
                "FEN" => {
                    start = Position::from_fen(value)
                        .map_err(|e| self.error(*line, PdnErrorKind::Fen(e)))?;
                }
                RULES_TAG => {
                    rules = RuleSet::from_name(value)
                        .map_err(|e| self.error(*line, PdnErrorKind::Rules(e)))?;
                }
                TIME_CONTROL_TAG => {
                    // PGN writes `?` or `-` for unknown or untimed; only a readable control
                    // makes the game timed, and an unreadable one is not worth losing the game.
                    control = value.parse::<TimeControl>().ok();
                }
                _ => {}
            }
        }
        let game = Game::from_position(start, rules);
        Ok(match control {
            Some(c) => game.with_time_control(c),
            None => game,
        })
    }

    /// Skips the rest of a broken game: the remaining tags if still in the tag section, then
    /// moves up to and including the result token, or up to the next tag section.
    fn skip_game(&mut self, mut section: Section) {
        loop {
            match self.lexer.next_token() {
                Err(e) if e.io => return,
                Err(_) => {}
                Ok(Token { tok: Tok::Eof, .. }) => return,
                Ok(Token {
                    tok: Tok::Result(_),
                    ..
                }) => return,
                Ok(
                    t @ Token {
                        tok: Tok::Tag(..), ..
                    },
                ) => {
                    if section == Section::Moves {
                        self.lexer.push_back(t);
                        return;
                    }
                }
                Ok(Token {
                    tok: Tok::Move(_), ..
                }) => section = Section::Moves,
            }
        }
    }
}

/// The declared outcome a result token and a `Termination` tag stand for when the board has
/// not ended the game. A termination this crate writes (a reason code such as `time` or
/// `agreement`) or one of PGN's standard words (`time forfeit`, `abandoned`, `adjudication`,
/// `rules infraction`) names the reason; otherwise a decisive result is read as a resignation
/// and a drawn one as an agreement. `*` with the termination `aborted` is an aborted game.
fn declared_result(token: &str, termination: Option<&str>) -> Option<Outcome> {
    let winner = match token {
        "1-0" | "2-0" => Some(Color::White),
        "0-1" | "0-2" => Some(Color::Black),
        "1/2-1/2" | "1-1" => None,
        _ => {
            let aborted = termination.is_some_and(|t| t.trim().eq_ignore_ascii_case("aborted"));
            return aborted.then_some(Outcome::Aborted);
        }
    };
    let term = termination.map(|t| t.trim().to_ascii_lowercase());
    let term = term.as_deref().map(|t| match t {
        "time forfeit" => "time",
        "abandoned" => "abandonment",
        "rules infraction" => "illegal-move",
        other => other,
    });
    let declared = |o: Outcome| (!o.is_on_board()).then_some(o);
    match winner {
        Some(winner) => {
            let reason = term
                .and_then(|t| WinReason::ALL.into_iter().find(|r| r.code() == t))
                .and_then(|reason| declared(Outcome::Win { winner, reason }));
            Some(reason.unwrap_or(Outcome::Win {
                winner,
                reason: WinReason::Resignation,
            }))
        }
        None => {
            let reason = term
                .and_then(|t| DrawReason::ALL.into_iter().find(|r| r.code() == t))
                .and_then(|reason| declared(Outcome::Draw(reason)));
            Some(reason.unwrap_or(Outcome::Draw(DrawReason::Agreement)))
        }
    }
}

/// Plays a movetext word: numbered squares (1..64, a1 = 1) are turned into names first.
fn play_word(game: &mut Game, word: &str) -> Result<(), GameError> {
    let text = numbers_to_names(word).map_err(|reason| {
        GameError::Notation(crate::notation::MoveError::Syntax {
            text: word.to_string(),
            reason,
        })
    })?;
    game.play_text(&text).map(|_| ())
}

/// `17-25` -> `a3-a4`: pydraughts numbers Turkish squares 1..64 from a1. Text that is not all
/// numbers and separators is returned as it is.
fn numbers_to_names(word: &str) -> Result<String, String> {
    if !word.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(word.to_string());
    }
    let mut out = String::new();
    let mut number = String::new();
    let flush = |number: &mut String, out: &mut String| -> Result<(), String> {
        if number.is_empty() {
            return Err("a separator must stand between two squares".to_string());
        }
        let sq = number
            .parse::<u8>()
            .ok()
            .and_then(Square::from_number)
            .ok_or_else(|| format!("square {number} is not on the board (1..64)"))?;
        out.push_str(&sq.to_string());
        number.clear();
        Ok(())
    };
    for c in word.chars() {
        match c {
            '0'..='9' => number.push(c),
            '-' | 'x' | 'X' | ':' => {
                flush(&mut number, &mut out)?;
                out.push(if c == 'X' { 'x' } else { c });
            }
            _ => return Err(format!("'{c}' cannot stand in a move of numbered squares")),
        }
    }
    flush(&mut number, &mut out)?;
    Ok(out)
}

/// Splits PDN text into tags, moves and results, dropping comments, variations, NAGs, move
/// numbers and `%` lines. Reads one line at a time, so files of any size stream.
struct Lexer<R> {
    input: R,
    /// The bytes of the current line, as read (kept to reuse the allocation).
    bytes: Vec<u8>,
    /// The current line.
    chars: Vec<char>,
    pos: usize,
    /// Number of the current line (1-based; 0 before the first).
    line: usize,
    eof: bool,
    pending: VecDeque<Token>,
}

/// What [`read_bounded_line`] found.
enum LineRead {
    /// A line (without its `\n`) is in the buffer.
    Line,
    /// A line longer than [`MAX_LINE`] was read to its end and dropped.
    TooLong,
    /// End of input.
    End,
}

/// Reads the next line into `buf` (cleared first, the `\n` dropped) if it has at most
/// [`MAX_LINE`] bytes; a longer one is consumed to its end a limited piece at a time, so that
/// one endless line never takes more than about `MAX_LINE` bytes of memory.
fn read_bounded_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<LineRead> {
    let limit = MAX_LINE as u64 + 1;
    buf.clear();
    if io::Read::take(&mut *input, limit).read_until(b'\n', buf)? == 0 {
        return Ok(LineRead::End);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(LineRead::Line);
    }
    if buf.len() <= MAX_LINE {
        return Ok(LineRead::Line); // the last line, without a newline
    }
    loop {
        buf.clear();
        if io::Read::take(&mut *input, limit).read_until(b'\n', buf)? == 0
            || buf.last() == Some(&b'\n')
        {
            buf.clear();
            return Ok(LineRead::TooLong);
        }
    }
}

impl<R: BufRead> Lexer<R> {
    fn new(input: R) -> Lexer<R> {
        Lexer {
            input,
            bytes: Vec::new(),
            chars: Vec::new(),
            pos: 0,
            line: 0,
            eof: false,
            pending: VecDeque::new(),
        }
    }

    fn push_back(&mut self, t: Token) {
        self.pending.push_front(t);
    }

    /// Loads the next line; false at the end of the input.
    fn next_line(&mut self) -> Result<bool, LexError> {
        if self.eof {
            return Ok(false);
        }
        let mut bytes = std::mem::take(&mut self.bytes);
        let read = read_bounded_line(&mut self.input, &mut bytes);
        let result = match read {
            Ok(LineRead::End) => {
                self.eof = true;
                self.chars.clear();
                self.pos = 0;
                Ok(false)
            }
            Ok(LineRead::TooLong) => {
                // Never held whole, never echoed: the line is dropped and reported.
                self.line += 1;
                self.chars.clear();
                self.pos = 0;
                Err(self.syntax(
                    self.line,
                    format!("the line is longer than {MAX_LINE} bytes; it is skipped"),
                ))
            }
            Ok(LineRead::Line) => {
                self.line += 1;
                // UTF-8, else Latin-1 (older PDN files), so no byte is ever refused.
                self.chars.clear();
                match std::str::from_utf8(&bytes) {
                    Ok(s) => self.chars.extend(s.chars()),
                    Err(_) => self.chars.extend(bytes.iter().map(|&b| b as char)),
                }
                if self.line == 1 && self.chars.first() == Some(&'\u{feff}') {
                    self.chars.remove(0);
                }
                self.pos = 0;
                if self.chars.first() == Some(&'%') {
                    // PGN escape line: ignored whole.
                    self.chars.clear();
                }
                Ok(true)
            }
            Err(e) => {
                self.eof = true;
                Err(LexError {
                    line: self.line + 1,
                    message: e.to_string(),
                    io: true,
                })
            }
        };
        self.bytes = bytes;
        result
    }

    /// The next character, loading lines as needed; `None` at the end of the input.
    fn peek(&mut self) -> Result<Option<char>, LexError> {
        while self.pos >= self.chars.len() {
            if !self.next_line()? {
                return Ok(None);
            }
        }
        Ok(Some(self.chars[self.pos]))
    }

    /// The next character on the current line only.
    fn peek_on_line(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn syntax(&self, line: usize, message: String) -> LexError {
        LexError {
            line,
            message,
            io: false,
        }
    }

    fn next_token(&mut self) -> Result<Token, LexError> {
        if let Some(t) = self.pending.pop_front() {
            return Ok(t);
        }
        loop {
            let Some(c) = self.peek()? else {
                return Ok(Token {
                    tok: Tok::Eof,
                    line: self.line,
                });
            };
            let line = self.line;
            match c {
                c if c.is_whitespace() => self.pos += 1,
                ';' => self.pos = self.chars.len(),
                '{' => self.skip_comment()?,
                '(' => self.skip_variation()?,
                ')' => {
                    self.pos += 1;
                    return Err(self.syntax(line, "')' closes no variation".to_string()));
                }
                '}' => {
                    self.pos += 1;
                    return Err(self.syntax(line, "'}' closes no comment".to_string()));
                }
                '[' => return self.tag(),
                '*' => {
                    self.pos += 1;
                    return Ok(Token {
                        tok: Tok::Result("*".to_string()),
                        line,
                    });
                }
                '$' => {
                    self.pos += 1;
                    while self.peek_on_line().is_some_and(|c| c.is_ascii_digit()) {
                        self.pos += 1;
                    }
                }
                _ => {
                    let word = self.word();
                    if word.chars().count() > MAX_TOKEN {
                        return Err(self.syntax(line, "a word of movetext is too long".into()));
                    }
                    if let Some(tok) = classify(&word) {
                        return Ok(Token { tok, line });
                    }
                }
            }
        }
    }

    /// A run of characters up to white space or a PDN delimiter, on the current line. A
    /// stray delimiter that opens nothing (`]`, `"`) is a word of its own, so the lexer always
    /// advances (and the word is then reported as no move).
    fn word(&mut self) -> String {
        const DELIMITERS: &str = "{}()[];$\"*";
        let mut w = String::new();
        while let Some(c) = self.peek_on_line() {
            if c.is_whitespace() || (!w.is_empty() && DELIMITERS.contains(c)) {
                break;
            }
            w.push(c);
            self.pos += 1;
            if DELIMITERS.contains(c) {
                break;
            }
        }
        w
    }

    /// Skips `{ .. }`, which may span lines.
    fn skip_comment(&mut self) -> Result<(), LexError> {
        let start = self.line;
        self.pos += 1;
        loop {
            match self.peek()? {
                None => {
                    return Err(
                        self.syntax(start, "comment '{' opened here is never closed".to_string())
                    )
                }
                Some('}') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// Skips `( .. )`, nested, with comments inside.
    fn skip_variation(&mut self) -> Result<(), LexError> {
        let start = self.line;
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                None => {
                    return Err(self.syntax(
                        start,
                        "variation '(' opened here is never closed".to_string(),
                    ))
                }
                Some('(') => {
                    depth += 1;
                    self.pos += 1;
                }
                Some(')') => {
                    self.pos += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Some('{') => self.skip_comment()?,
                Some(';') => self.pos = self.chars.len(),
                Some(_) => self.pos += 1,
            }
        }
    }

    /// Reads `[Name "value"]` on the current line. On a fault the rest of the line is skipped.
    fn tag(&mut self) -> Result<Token, LexError> {
        let line = self.line;
        let r = self.tag_inner();
        if r.is_err() {
            self.pos = self.chars.len();
        }
        r.map(|(name, value)| Token {
            tok: Tok::Tag(name, value),
            line,
        })
        .map_err(|m| self.syntax(line, m))
    }

    fn tag_inner(&mut self) -> Result<(String, String), String> {
        self.pos += 1; // '['
        self.skip_blanks();
        let mut name = String::new();
        while let Some(c) = self.peek_on_line() {
            if c.is_alphanumeric() || c == '_' {
                name.push(c);
                self.pos += 1;
            } else {
                break;
            }
        }
        if name.is_empty() {
            return Err("a tag must start with its name, as in [Event \"...\"]".to_string());
        }
        if name.len() > MAX_TOKEN {
            return Err("tag name too long".to_string());
        }
        self.skip_blanks();
        if self.peek_on_line() != Some('"') {
            return Err(format!(
                "tag {name}: the value must be in double quotes, as in [{name} \"...\"]"
            ));
        }
        self.pos += 1;
        let mut value = String::new();
        loop {
            match self.peek_on_line() {
                None => {
                    return Err(format!(
                        "tag {name}: the value's closing '\"' is missing on this line"
                    ))
                }
                Some('\\') => {
                    self.pos += 1;
                    match self.peek_on_line() {
                        Some(c) => {
                            value.push(c);
                            self.pos += 1;
                        }
                        None => return Err(format!("tag {name}: '\\' at the end of the line")),
                    }
                }
                Some('"') => {
                    self.pos += 1;
                    break;
                }
                Some(c) => {
                    value.push(c);
                    self.pos += 1;
                }
            }
            if value.len() > MAX_TOKEN {
                return Err(format!("tag {name}: value too long"));
            }
        }
        self.skip_blanks();
        if self.peek_on_line() != Some(']') {
            return Err(format!("tag {name}: ']' expected after the value"));
        }
        self.pos += 1;
        Ok((name, value))
    }

    fn skip_blanks(&mut self) {
        while self.peek_on_line().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }
}

/// Result tokens of every PDN version.
const RESULTS: [&str; 8] = ["1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*"];

/// What a movetext word is: a result, a move (number and suffixes removed), or nothing to
/// keep (a bare move number, `...`).
fn classify(word: &str) -> Option<Tok> {
    if RESULTS.contains(&word) {
        return Some(Tok::Result(word.to_string()));
    }
    // Move number: digits then dots, possibly glued to the move (`12.d3-d4`, `3...e6-e5`).
    let mut rest = word;
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if rest[digits..].starts_with('.') {
        rest = rest[digits..].trim_start_matches('.');
    } else if digits == 0 {
        rest = rest.trim_start_matches('.');
    }
    let rest = rest.trim_end_matches(['!', '?']);
    if rest.is_empty() {
        return None;
    }
    Some(Tok::Move(rest.to_string()))
}
