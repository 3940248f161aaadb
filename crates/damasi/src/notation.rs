//! Move notation. PLACEHOLDER API (being completed): landing notation (`d4xd6xf6`, `c7-c8=K`),
//! the federation's captured-square notation (`d4xc4xb3`, `a8xa3>a1`), parsing of both styles
//! and of unambiguous short forms, and errors that list the candidates.

use std::fmt;

use crate::moves::Move;
use crate::position::Position;

/// Which way to write moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub enum Notation {
    /// Every landing square: `d3-d4`, `b3xd3xd5`, `c7-c8=K` (seed 000, the default).
    #[default]
    Landing,
    /// Start square then each captured square: `d4xc4xb3`, `a8xa3>a1` (federation style).
    Captured,
}

/// Why a move text was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not a move in any notation.
    Syntax {
        /// The text given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The text is a move, but not a legal one here.
    Illegal {
        /// The text given.
        text: String,
        /// The legal moves, in landing notation.
        legal: Vec<String>,
    },
    /// The text fits more than one legal move.
    Ambiguous {
        /// The text given.
        text: String,
        /// The legal moves it fits, in landing notation.
        candidates: Vec<String>,
    },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax { text, reason } => write!(f, "'{text}' is not a move: {reason}"),
            MoveError::Illegal { text, legal } => {
                write!(
                    f,
                    "'{text}' is not legal here; legal moves: {}",
                    legal.join(" ")
                )
            }
            MoveError::Ambiguous { text, candidates } => {
                write!(
                    f,
                    "'{text}' is ambiguous; it could be: {}",
                    candidates.join(" ")
                )
            }
        }
    }
}

impl std::error::Error for MoveError {}

impl Position {
    /// Writes a legal move of this position in the chosen notation.
    pub fn write_move(&self, m: &Move, notation: Notation) -> String {
        let _ = notation;
        let sep = if m.is_capture() { 'x' } else { '-' };
        let mut s = format!("{}{sep}{}", m.from(), m.to());
        if m.is_promotion() {
            s.push_str("=K");
        }
        s
    }

    /// Reads a move in any accepted notation and returns the legal move it names.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let legal = self.legal_moves();
        let t = text.trim();
        let hits: Vec<Move> = legal
            .iter()
            .filter(|m| self.write_move(m, Notation::Landing) == t)
            .copied()
            .collect();
        match hits.len() {
            1 => Ok(hits[0]),
            0 => Err(MoveError::Illegal {
                text: text.to_string(),
                legal: legal
                    .iter()
                    .map(|m| self.write_move(m, Notation::Landing))
                    .collect(),
            }),
            _ => Err(MoveError::Ambiguous {
                text: text.to_string(),
                candidates: hits
                    .iter()
                    .map(|m| self.write_move(m, Notation::Landing))
                    .collect(),
            }),
        }
    }
}
