//! How the Hub protocol (the draughts engines' protocol, and pydraughts) writes positions and
//! moves for Turkish draughts: the engine notation, beside the human one of [`crate::Notation`].
//!
//! - Positions: the side to move (`W` or `B`), then 64 characters from `w b W B e` (white man,
//!   black man, white king, black king, empty), read a8 to h8, then a7 .. h7, down to a1 .. h1.
//! - Moves: pydraughts' numeric format, squares numbered 1..64 with a1 = 1, b1 = 2, .., h8 = 64
//!   (the opposite row order from the position string). A quiet move is `from-to`; a capture
//!   is `fromxto` followed by every captured square, e.g. `25x57x33x49`. pydraughts requires
//!   all captured squares, in any order (it sorts them); we write them lowest first.
//!   People may also type algebraic moves (`d3-d4`, `a4xa8xa5xa7`) in either notation the
//!   rules library reads.
//!
//! ```
//! use damasi::Position;
//! use damasi::hub::{parse_hub_move, read_hub_position, write_hub_move};
//!
//! let start = read_hub_position(
//!     "Weeeeeeeebbbbbbbbbbbbbbbbeeeeeeeeeeeeeeeewwwwwwwwwwwwwwwweeeeeeee",
//! ).unwrap();
//! assert_eq!(start, Position::start());
//! let m = parse_hub_move(&start, "20-28").unwrap();
//! assert_eq!(write_hub_move(&m), "20-28");
//! assert_eq!(parse_hub_move(&start, "d3-d4").unwrap(), m);
//! ```

use std::fmt;

use crate::color::{Color, Piece, Role};
use crate::moves::Move;
use crate::position::Position;
use crate::square::Square;

/// Why a position string or a move was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HubNotationError {
    /// The position string is malformed or describes an impossible position.
    Position(String),
    /// The move text is malformed, not legal, or fits several moves.
    Move(String),
}

impl fmt::Display for HubNotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HubNotationError::Position(m) | HubNotationError::Move(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for HubNotationError {}

/// The square at index `i` (0..64) of the position string: a8 first, h1 last.
fn string_square(i: usize) -> Square {
    let rank = 7 - (i / 8) as u8;
    let file = (i % 8) as u8;
    Square::from_coords(file, rank).expect("index below 64")
}

/// Reads a Hub position string such as `W` followed by 64 characters. A FEN (`W:Wa3:Bb6`,
/// `startpos`) is accepted too, for people typing to the engine.
pub fn read_hub_position(text: &str) -> Result<Position, HubNotationError> {
    let text = text.trim();
    if text.contains(':') || text.eq_ignore_ascii_case("startpos") {
        return Position::from_fen(text).map_err(|e| HubNotationError::Position(e.to_string()));
    }
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != 65 {
        return Err(HubNotationError::Position(format!(
            "a position is the side to move and 64 squares (65 characters), found {} characters",
            chars.len()
        )));
    }
    let side = match chars[0] {
        'W' | 'w' => Color::White,
        'B' | 'b' => Color::Black,
        c => {
            return Err(HubNotationError::Position(format!(
                "the side to move must be W or B, found '{c}'"
            )))
        }
    };
    let mut pieces = Vec::new();
    for (i, &c) in chars[1..].iter().enumerate() {
        let sq = string_square(i);
        let piece = match c {
            'e' | 'E' | '.' => continue,
            'w' => (Color::White, Role::Man),
            'b' => (Color::Black, Role::Man),
            'W' => (Color::White, Role::King),
            'B' => (Color::Black, Role::King),
            _ => {
                return Err(HubNotationError::Position(format!(
                    "unknown piece '{c}' on {sq} (expected w, b, W, B or e)"
                )))
            }
        };
        pieces.push((
            sq,
            Piece {
                color: piece.0,
                role: piece.1,
            },
        ));
    }
    Position::from_pieces(pieces, side).map_err(|e| HubNotationError::Position(e.to_string()))
}

/// Writes a position as a Hub position string.
pub fn write_hub_position(pos: &Position) -> String {
    let mut s = String::with_capacity(65);
    s.push(pos.side_to_move().letter());
    for i in 0..64 {
        s.push(match pos.piece_at(string_square(i)) {
            None => 'e',
            Some(Piece { color, role }) => match (color, role) {
                (Color::White, Role::Man) => 'w',
                (Color::Black, Role::Man) => 'b',
                (Color::White, Role::King) => 'W',
                (Color::Black, Role::King) => 'B',
            },
        });
    }
    s
}

/// Writes a move in pydraughts' numeric format: `20-28`, or `25x57x33x49` (from, to, then
/// every captured square, lowest first).
pub fn write_hub_move(m: &Move) -> String {
    if !m.is_capture() {
        return format!("{}-{}", m.from().number(), m.to().number());
    }
    let mut s = format!("{}x{}", m.from().number(), m.to().number());
    for sq in m.captured() {
        s.push('x');
        s.push_str(&sq.number().to_string());
    }
    s
}

/// Reads a move given to the engine: pydraughts' numeric format (all captured squares
/// required, in any order), else any algebraic notation [`Position::parse_move`] reads.
pub fn parse_hub_move(pos: &Position, text: &str) -> Result<Move, HubNotationError> {
    let t = text.trim();
    if t.starts_with(|c: char| c.is_ascii_digit()) {
        return parse_numeric(pos, t);
    }
    pos.parse_move(t)
        .map_err(|e| HubNotationError::Move(e.to_string()))
}

/// The legal moves written in the numeric format, for error messages.
fn legal_list(pos: &Position) -> String {
    let list: Vec<String> = pos.legal_moves().iter().map(write_hub_move).collect();
    if list.is_empty() {
        "none".to_string()
    } else {
        list.join(" ")
    }
}

fn parse_numeric(pos: &Position, t: &str) -> Result<Move, HubNotationError> {
    let syntax = |why: &str| HubNotationError::Move(format!("'{t}' is not a move: {why}"));
    let (sep, is_capture) = if t.contains('x') || t.contains('X') {
        ('x', true)
    } else if t.contains('-') {
        ('-', false)
    } else {
        return Err(syntax("expected 'from-to' or 'fromxtox<captured squares>'"));
    };
    let mut squares = Vec::new();
    for part in t.split(|c: char| c == sep || (is_capture && c == 'X')) {
        let n: u8 = part
            .parse()
            .map_err(|_| syntax(&format!("'{part}' is not a square number")))?;
        squares.push(Square::from_number(n).ok_or_else(|| syntax("squares are numbered 1..64"))?);
    }
    if squares.len() < 2 || (!is_capture && squares.len() != 2) {
        return Err(syntax("expected 'from-to' or 'fromxtox<captured squares>'"));
    }
    let (from, to) = (squares[0], squares[1]);
    let mut captured = 0u64;
    for sq in &squares[2..] {
        if captured & sq.bit() != 0 {
            return Err(syntax(&format!("square {} is captured twice", sq.number())));
        }
        captured |= sq.bit();
    }
    let legal = pos.legal_moves();
    legal
        .iter()
        .find(|m| {
            m.from() == from
                && m.to() == to
                && m.is_capture() == is_capture
                && m.captured_bits() == captured
        })
        .copied()
        .ok_or_else(|| {
            HubNotationError::Move(format!(
                "'{t}' is not legal here ({}); legal moves: {}",
                pos.to_fen(),
                legal_list(pos)
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "Weeeeeeeebbbbbbbbbbbbbbbbeeeeeeeeeeeeeeeewwwwwwwwwwwwwwwweeeeeeee";

    #[test]
    fn start_position_round_trips() {
        let p = read_hub_position(START).unwrap();
        assert_eq!(p, Position::start());
        assert_eq!(write_hub_position(&p), START);
    }

    #[test]
    fn first_character_after_the_side_is_a8() {
        // A white king on a8, black man on h2, black to move.
        let mut chars: Vec<char> = "e".repeat(64).chars().collect();
        chars[0] = 'W'; // a8
        chars[6 * 8 + 7] = 'b'; // rank 2, file h
        let s: String = std::iter::once('B').chain(chars).collect();
        let p = read_hub_position(&s).unwrap();
        assert_eq!(p.to_fen(), "B:WKa8:Bh2");
        assert_eq!(write_hub_position(&p), s);
    }

    #[test]
    fn bad_positions_are_errors() {
        assert!(read_hub_position("W").is_err());
        assert!(read_hub_position(&format!("X{}", &START[1..])).is_err());
        assert!(read_hub_position(&START.replace('e', "x")).is_err());
        // A white man on rank 1 cannot exist.
        let mut chars: Vec<char> = START.chars().collect();
        chars[64] = 'w';
        let bad: String = chars.into_iter().collect();
        assert!(read_hub_position(&bad).is_err());
        // Multi-byte characters never panic.
        assert!(read_hub_position(&"ü".repeat(65)).is_err());
        // FEN is accepted too.
        assert_eq!(read_hub_position("startpos").unwrap(), Position::start());
    }

    #[test]
    fn captures_list_every_captured_square_in_any_order() {
        // White man d4 (28) takes d5 (36) and d7 (52): d4xd6xd8, black men on d5, d7.
        let p = Position::from_fen("W:Wd4,a2:Bd5,d7,h7").unwrap();
        let m = parse_hub_move(&p, "28x60x36x52").unwrap();
        assert_eq!(write_hub_move(&m), "28x60x36x52");
        assert_eq!(parse_hub_move(&p, "28x60x52x36").unwrap(), m);
        assert_eq!(parse_hub_move(&p, "28X60X52X36").unwrap(), m);
        // Captured squares are required and must be right.
        assert!(parse_hub_move(&p, "28x60").is_err());
        assert!(parse_hub_move(&p, "28x60x36").is_err());
        assert!(parse_hub_move(&p, "28x60x36x52x55").is_err());
        assert!(parse_hub_move(&p, "28x60x36x36").is_err());
        assert!(parse_hub_move(&p, "28-60").is_err());
    }

    #[test]
    fn malformed_moves_are_errors() {
        let p = Position::start();
        for bad in [
            "", "20", "20-", "-28", "20-28-36", "0-8", "20-65", "20_28", "999-1", "20x",
        ] {
            assert!(parse_hub_move(&p, bad).is_err(), "{bad}");
        }
        let e = parse_hub_move(&p, "20-36").unwrap_err();
        assert!(e.to_string().contains("20-28"), "{e}");
    }
}
