//! Reading PDN: games from the lexer's tokens, each checked move by move against the rules.

use std::io::BufRead;

use super::lexer::{Lexer, Tok, Token};
use super::*;

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
