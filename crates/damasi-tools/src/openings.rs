//! Opening sets for engine matches: short lines that start each game pair, so that two
//! deterministic engines do not play the same game over and over.
//!
//! A file holds one opening per line. `#` starts a comment; blank lines are skipped. A line is
//! a list of moves from the start position in any notation the engine reads (landing
//! `d3-d4`, captured-square style, or the numeric `20-28`), or a FEN followed by `|` and
//! moves from that position (`W:Wa3,b3:Ba6,b6 | a3-a4`), or a FEN alone.
//!
//! ```
//! use damasi_tools::openings::{parse_openings, Opening};
//!
//! let set = parse_openings("# two openings\nd3-d4 d6-d5\n20-28 44-36\n").unwrap();
//! assert_eq!(set.len(), 2);
//! assert_eq!(set[0].moves.len(), 2);
//! assert_eq!(set[0].position_after(), set[1].position_after());
//! ```

use std::fmt;

use damasi::hub::parse_hub_move;
use damasi::{Move, Position};

/// The opening set used when none is given: balanced lines of a few plies, one per line (see
/// the file's header for how it was made).
pub const DEFAULT_OPENINGS: &str = include_str!("../data/openings.txt");

/// One opening: a start position and the moves played from it before the engines take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Where the game starts (the start position unless the line gave a FEN).
    pub start: Position,
    /// The opening moves, all legal, in order.
    pub moves: Vec<Move>,
    /// The line as written in the file, for reports.
    pub text: String,
}

impl Opening {
    /// The position after the opening moves, where the engines start thinking.
    pub fn position_after(&self) -> Position {
        self.moves.iter().fold(self.start, |p, m| p.play(m))
    }
}

/// Why an opening file was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningError {
    /// Line number, from 1.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for OpeningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "opening line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for OpeningError {}

/// Reads an opening set (format in the module documentation). Every move must be legal and
/// no opening may end the game.
pub fn parse_openings(text: &str) -> Result<Vec<Opening>, OpeningError> {
    let mut set = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let err = |message: String| OpeningError {
            line: i + 1,
            message,
        };
        let (start, moves_text) = match line.split_once('|') {
            Some((fen, moves)) => (
                Position::from_fen(fen.trim()).map_err(|e| err(e.to_string()))?,
                moves,
            ),
            None if line.contains(':') => (
                Position::from_fen(line).map_err(|e| err(e.to_string()))?,
                "",
            ),
            None => (Position::start(), line),
        };
        let mut pos = start;
        let mut moves = Vec::new();
        for word in moves_text.split_whitespace() {
            // Move numbers such as `1.` are allowed and skipped.
            if word.ends_with('.') && word[..word.len() - 1].bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let m = parse_hub_move(&pos, word).map_err(|e| err(e.to_string()))?;
            pos = pos.play(&m);
            moves.push(m);
        }
        if !pos.has_legal_move() {
            return Err(err("the opening leaves no legal move".to_string()));
        }
        set.push(Opening {
            start,
            moves,
            text: line.to_string(),
        });
    }
    if set.is_empty() {
        return Err(OpeningError {
            line: 0,
            message: "the opening set is empty".to_string(),
        });
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_set_is_valid_and_distinct() {
        let set = parse_openings(DEFAULT_OPENINGS).unwrap();
        assert!(set.len() >= 20, "{}", set.len());
        let mut seen = std::collections::HashSet::new();
        for o in &set {
            assert!(seen.insert(o.position_after()), "repeated: {}", o.text);
        }
    }

    #[test]
    fn fen_lines_and_move_numbers() {
        let set =
            parse_openings("W:Wa3,b3:Ba6,b6 | 1. a3-a4 a6-a5\nB:Wa3:Bh6\n  # only a comment\n")
                .unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(set[0].moves.len(), 2);
        assert_eq!(set[1].moves.len(), 0);
        assert_eq!(set[1].start.to_fen(), "B:Wa3:Bh6");
    }

    #[test]
    fn bad_lines_name_their_number() {
        let e = parse_openings("d3-d4\nd3-d4 d3-d4\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(parse_openings("# nothing\n").is_err());
        assert!(parse_openings("W:Wz9:Ba6 | \n").is_err());
    }
}
