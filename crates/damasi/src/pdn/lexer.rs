//! PDN text into tokens: tags, moves and results, one line at a time, memory bounded.

use std::collections::VecDeque;
use std::io::{self, BufRead};

use super::*;

/// A token of PDN text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Tag(String, String),
    Move(String),
    Result(String),
    Eof,
}

/// A token and the line it starts on.
#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) line: usize,
}

/// A lexer fault: the line, what is wrong, and whether it is an I/O error.
#[derive(Debug)]
pub(super) struct LexError {
    pub(super) line: usize,
    pub(super) message: String,
    pub(super) io: bool,
}

/// Splits PDN text into tags, moves and results, dropping comments, variations, NAGs, move
/// numbers and `%` lines. Reads one line at a time, so files of any size stream.
pub(super) struct Lexer<R> {
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
    pub(super) fn new(input: R) -> Lexer<R> {
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

    pub(super) fn push_back(&mut self, t: Token) {
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

    pub(super) fn next_token(&mut self) -> Result<Token, LexError> {
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
