//! Hub protocol lines (version 2): `command name=value name="a value" flag ...`.
//!
//! A value is written in double quotes when it contains a space, a `=` or a quote, or is
//! empty; a flag is a name without a value. The protocol has no escape character, so a value
//! cannot hold a double quote: [`Line`]'s writer turns one into a single quote. Both sides
//! ignore arguments they do not know, so the reader keeps every argument and lets the caller
//! pick.
//!
//! ```
//! use damasi_engine::protocol::Line;
//!
//! let line = Line::parse(r#"pos pos=Wee moves="17-25 41-33""#).unwrap();
//! assert_eq!(line.command, "pos");
//! assert_eq!(line.get("moves"), Some("17-25 41-33"));
//!
//! let reply = Line::new("done").arg("move", "17-25");
//! assert_eq!(reply.to_string(), "done move=17-25");
//! ```

use std::fmt;

/// One argument of a line: a name with a value, or a flag (a name alone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The argument's name.
    pub name: String,
    /// Its value; `None` for a flag.
    pub value: Option<String>,
}

/// A protocol line: a command word and its arguments, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The first word, e.g. `pos`, `go`, `info`.
    pub command: String,
    /// The arguments after the command.
    pub args: Vec<Arg>,
}

/// Why a line could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// The line holds only white space.
    Empty,
    /// The line starts with `name=value` instead of a command word.
    NoCommand,
    /// A `"` opens a value that the line never closes.
    UnclosedQuote {
        /// The argument whose value is unclosed.
        name: String,
    },
    /// A `=` with no name before it.
    MissingName,
    /// Text right after a closing quote, e.g. `a="b"c`.
    TextAfterQuote {
        /// The argument whose value is followed by text.
        name: String,
    },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Empty => write!(f, "empty line"),
            LineError::NoCommand => write!(f, "the line starts with an argument, not a command"),
            LineError::UnclosedQuote { name } => {
                write!(
                    f,
                    "the value of '{name}' opens a quote that is never closed"
                )
            }
            LineError::MissingName => write!(f, "'=' without an argument name before it"),
            LineError::TextAfterQuote { name } => {
                write!(f, "text follows the closing quote of '{name}'")
            }
        }
    }
}

impl std::error::Error for LineError {}

impl Line {
    /// A line with a command and no arguments yet.
    pub fn new(command: &str) -> Line {
        Line {
            command: command.to_string(),
            args: Vec::new(),
        }
    }

    /// Adds `name=value` (builder style).
    pub fn arg(mut self, name: &str, value: impl fmt::Display) -> Line {
        self.args.push(Arg {
            name: name.to_string(),
            value: Some(value.to_string()),
        });
        self
    }

    /// Adds a flag, an argument without a value (builder style).
    pub fn flag(mut self, name: &str) -> Line {
        self.args.push(Arg {
            name: name.to_string(),
            value: None,
        });
        self
    }

    /// The value of the first argument called `name`; `None` if it is absent or a flag.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|a| a.name == name)
            .and_then(|a| a.value.as_deref())
    }

    /// Whether an argument called `name` is present, with or without a value.
    pub fn has(&self, name: &str) -> bool {
        self.args.iter().any(|a| a.name == name)
    }

    /// The first flag (argument without a value), e.g. `think` in `go think`.
    pub fn first_flag(&self) -> Option<&str> {
        self.args
            .iter()
            .find(|a| a.value.is_none())
            .map(|a| a.name.as_str())
    }

    /// Reads a line. Leading and trailing white space (also `\r`) is ignored, and words are
    /// separated by any run of spaces or tabs.
    pub fn parse(text: &str) -> Result<Line, LineError> {
        let mut rest = text.trim();
        if rest.is_empty() {
            return Err(LineError::Empty);
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let command = &rest[..end];
        if command.contains('=') || command.starts_with('"') {
            return Err(LineError::NoCommand);
        }
        rest = rest[end..].trim_start();
        let mut args = Vec::new();
        while !rest.is_empty() {
            let word_end = rest
                .find(|c: char| c.is_whitespace() || c == '=')
                .unwrap_or(rest.len());
            let name = &rest[..word_end];
            if name.is_empty() {
                return Err(LineError::MissingName);
            }
            rest = &rest[word_end..];
            let value = match rest.strip_prefix('=') {
                None => None,
                Some(after) => {
                    let (value, after) = read_value(name, after)?;
                    rest = after;
                    Some(value)
                }
            };
            args.push(Arg {
                name: name.to_string(),
                value,
            });
            rest = rest.trim_start();
        }
        Ok(Line {
            command: command.to_string(),
            args,
        })
    }
}

/// Reads a value right after `=`: quoted up to the next `"`, or bare up to white space.
fn read_value<'a>(name: &str, text: &'a str) -> Result<(String, &'a str), LineError> {
    if let Some(quoted) = text.strip_prefix('"') {
        let close = quoted.find('"').ok_or_else(|| LineError::UnclosedQuote {
            name: name.to_string(),
        })?;
        let after = &quoted[close + 1..];
        if after.starts_with(|c: char| !c.is_whitespace()) {
            return Err(LineError::TextAfterQuote {
                name: name.to_string(),
            });
        }
        Ok((quoted[..close].to_string(), after))
    } else {
        let end = text.find(char::is_whitespace).unwrap_or(text.len());
        Ok((text[..end].to_string(), &text[end..]))
    }
}

/// Whether a value must be written in quotes.
fn needs_quotes(value: &str) -> bool {
    value.is_empty() || value.contains(|c: char| c.is_whitespace() || c == '=' || c == '"')
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.command)?;
        for arg in &self.args {
            write!(f, " {}", arg.name)?;
            if let Some(value) = &arg.value {
                if needs_quotes(value) {
                    // No escapes exist in the protocol; a quote inside would end the value.
                    // Line breaks would end the line, so they become spaces.
                    let clean: String = value
                        .chars()
                        .map(|c| match c {
                            '"' => '\'',
                            '\n' | '\r' => ' ',
                            c => c,
                        })
                        .collect();
                    write!(f, "=\"{clean}\"")?;
                } else {
                    write!(f, "={value}")?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(name: &str, value: Option<&str>) -> Arg {
        Arg {
            name: name.to_string(),
            value: value.map(str::to_string),
        }
    }

    #[test]
    fn reads_values_flags_and_quotes() {
        let l =
            Line::parse("  level  time=30.5 inc=0.2\tinfinite name=\"a b=c\" e=\"\"\r").unwrap();
        assert_eq!(l.command, "level");
        assert_eq!(
            l.args,
            vec![
                arg("time", Some("30.5")),
                arg("inc", Some("0.2")),
                arg("infinite", None),
                arg("name", Some("a b=c")),
                arg("e", Some("")),
            ]
        );
        assert_eq!(l.get("time"), Some("30.5"));
        assert_eq!(l.get("infinite"), None);
        assert!(l.has("infinite"));
        assert_eq!(l.first_flag(), Some("infinite"));
        assert_eq!(l.get("missing"), None);
    }

    #[test]
    fn a_command_alone_and_a_bare_empty_value() {
        assert_eq!(Line::parse("hub").unwrap(), Line::new("hub"));
        let l = Line::parse("set-param name=x value=").unwrap();
        assert_eq!(l.get("value"), Some(""));
        let l = Line::parse("go think").unwrap();
        assert_eq!(l.first_flag(), Some("think"));
    }

    #[test]
    fn rejects_malformed_lines() {
        assert_eq!(Line::parse(""), Err(LineError::Empty));
        assert_eq!(Line::parse(" \t "), Err(LineError::Empty));
        assert_eq!(Line::parse("pos=x"), Err(LineError::NoCommand));
        assert_eq!(Line::parse("\"pos\""), Err(LineError::NoCommand));
        assert_eq!(
            Line::parse("pos moves=\"17-25"),
            Err(LineError::UnclosedQuote {
                name: "moves".into()
            })
        );
        assert_eq!(Line::parse("pos =x"), Err(LineError::MissingName));
        assert_eq!(
            Line::parse("pos a=\"b\"c"),
            Err(LineError::TextAfterQuote { name: "a".into() })
        );
        // Errors read as sentences.
        assert!(LineError::MissingName.to_string().contains("'='"));
    }

    #[test]
    fn writes_quotes_only_where_needed() {
        let l = Line::new("id")
            .arg("name", "damasi")
            .arg("author", "A. Person")
            .arg("empty", "")
            .arg("eq", "a=b")
            .arg("q", "say \"hi\"")
            .flag("infinite");
        assert_eq!(
            l.to_string(),
            "id name=damasi author=\"A. Person\" empty=\"\" eq=\"a=b\" q=\"say 'hi'\" infinite"
        );
    }

    #[test]
    fn written_lines_read_back() {
        let l = Line::new("info")
            .arg("depth", 7)
            .arg("score", "-0.25")
            .arg("pv", "17-25 41-33")
            .arg("x", "")
            .flag("f");
        assert_eq!(Line::parse(&l.to_string()), Ok(l));
    }

    #[test]
    fn never_panics_on_odd_text() {
        for text in [
            "=",
            "==",
            "a ==",
            "a b=\"",
            "a \"",
            "a b=\"\"\"",
            "ü ä=ö",
            "a b= c",
            "a b=\"x\"=",
        ] {
            let _ = Line::parse(text);
        }
    }
}
