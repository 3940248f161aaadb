//! Position text (FEN): `W:Wa2,b2,Kc4:Bd6,Ke8` = side to move, White's pieces, Black's pieces,
//! `K` before a square marks a king. `startpos` names the start position. Squares may also be
//! given as numbers 1..64 (a1 = 1, h8 = 64), as pydraughts writes them.
//!
//! ```
//! use damasi::Position;
//! let pos = Position::from_fen("W:Wa2,b2,Kc4:Bd6,Ke8").unwrap();
//! assert_eq!(pos.to_fen(), "W:Wa2,b2,Kc4:Bd6,Ke8");
//! assert_eq!(Position::from_fen("startpos").unwrap(), Position::start());
//! ```

use std::fmt;

use crate::color::{Color, Piece, Role};
use crate::position::{Position, PositionError};
use crate::square::Square;

/// Why a FEN could not be read, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// The text is not `side:pieces:pieces`.
    Syntax(String),
    /// The side-to-move field is not `W` or `B`.
    BadSide(String),
    /// A piece field does not start with `W` or `B`, or names one colour twice.
    BadColorField(String),
    /// A piece item is not a square (optionally preceded by `K`).
    BadSquare {
        /// The colour of the field it is in.
        color: Color,
        /// The text of the item.
        item: String,
    },
    /// The text is well formed but the position cannot occur.
    Invalid(PositionError),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Syntax(s) => write!(f, "FEN syntax: {s}"),
            FenError::BadSide(s) => {
                write!(f, "FEN side to move must be W or B, found '{s}'")
            }
            FenError::BadColorField(s) => write!(
                f,
                "FEN piece field '{s}' must start with W or B (once each)"
            ),
            FenError::BadSquare { color, item } => {
                write!(
                    f,
                    "FEN {} pieces: '{item}' is not a square (expected e.g. d4, Kd4 or 28)",
                    color.name()
                )
            }
            FenError::Invalid(e) => write!(f, "FEN describes an impossible position: {e}"),
        }
    }
}

impl std::error::Error for FenError {}

fn parse_square(item: &str) -> Option<Square> {
    if !item.is_empty() && item.bytes().all(|b| b.is_ascii_digit()) {
        return item.parse::<u8>().ok().and_then(Square::from_number);
    }
    item.parse().ok()
}

impl Position {
    /// Reads a FEN such as `W:Wa2,b2,Kc4:Bd6,Ke8`, or `startpos`.
    pub fn from_fen(text: &str) -> Result<Position, FenError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("startpos") {
            return Ok(Position::start());
        }
        // PDN FEN tags may end in a full stop.
        let text = text.strip_suffix('.').unwrap_or(text);
        let fields: Vec<&str> = text.split(':').map(str::trim).collect();
        if fields.len() != 3 {
            return Err(FenError::Syntax(format!(
                "expected 3 fields separated by ':' (side:white:black), found {} in '{text}'",
                fields.len()
            )));
        }
        let side = match fields[0] {
            "W" | "w" => Color::White,
            "B" | "b" => Color::Black,
            s => return Err(FenError::BadSide(s.to_string())),
        };
        let mut seen = [false; 2];
        let mut pieces = Vec::new();
        for field in &fields[1..] {
            let color = match field.chars().next() {
                Some('W' | 'w') => Color::White,
                Some('B' | 'b') => Color::Black,
                _ => return Err(FenError::BadColorField(field.to_string())),
            };
            if std::mem::replace(&mut seen[color as usize], true) {
                return Err(FenError::BadColorField(field.to_string()));
            }
            let list = field[1..].trim();
            if list.is_empty() {
                continue;
            }
            for item in list.split(',') {
                let item = item.trim();
                let (role, name) = match item.strip_prefix(['K', 'k']) {
                    Some(rest) => (Role::King, rest),
                    None => (Role::Man, item),
                };
                let sq = parse_square(name).ok_or_else(|| FenError::BadSquare {
                    color,
                    item: item.to_string(),
                })?;
                pieces.push((sq, Piece { color, role }));
            }
        }
        Position::from_pieces(pieces, side).map_err(FenError::Invalid)
    }

    /// The FEN of this position, squares in a1..h8 order, e.g. `W:Wa2,b2,Kc4:Bd6,Ke8`.
    pub fn to_fen(&self) -> String {
        let mut s = String::with_capacity(120);
        s.push(self.side_to_move().letter());
        for color in Color::BOTH {
            s.push(':');
            s.push(color.letter());
            let mut first = true;
            for (sq, p) in self.pieces().filter(|(_, p)| p.color == color) {
                if !first {
                    s.push(',');
                }
                first = false;
                if p.role == Role::King {
                    s.push('K');
                }
                s.push_str(&sq.to_string());
            }
        }
        s
    }
}

impl std::str::FromStr for Position {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Position, FenError> {
        Position::from_fen(s)
    }
}

impl fmt::Display for Position {
    /// Writes the FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_fen() {
        let fen = Position::start().to_fen();
        assert_eq!(
            fen,
            "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7"
        );
        assert_eq!(Position::from_fen(&fen).unwrap(), Position::start());
    }

    #[test]
    fn example_from_rules() {
        let p = Position::from_fen("W:Wa2,b2,Kc4:Bd6,Ke8").unwrap();
        assert_eq!(p.count(Color::White), 3);
        assert_eq!(
            p.piece_at("c4".parse().unwrap()),
            Some(Piece {
                color: Color::White,
                role: Role::King
            })
        );
        assert_eq!(
            p.piece_at("e8".parse().unwrap()),
            Some(Piece {
                color: Color::Black,
                role: Role::King
            })
        );
        // Black first, numbers for squares, spaces: all accepted.
        let q = Position::from_fen("W: Bd6,Ke8 : W9,10,K27").unwrap();
        assert_eq!(p, q);
    }

    #[test]
    fn errors_name_the_problem() {
        let e = |s: &str| Position::from_fen(s).unwrap_err().to_string();
        assert!(e("W:Wa2,z9:Bd6").contains("'z9'"));
        assert!(e("X:Wa2:Bd6").contains("'X'"));
        assert!(e("W:Wa2,a2:Bd6").contains("a2 is listed twice"));
        assert!(e("W:Wa2:Ba2").contains("a2 is listed twice"));
        assert!(e("W:Wa1:Bd6").contains("a1"));
        assert!(e("W:Wa8:Bd6").contains("a8"));
        assert!(e("W:Wd4:Bd1").contains("d1"));
        assert!(e("W:Wa2").contains("3 fields"));
        assert!(e("W:Wa2:Wb2").contains("'Wb2'"));
        let many = (0..17)
            .map(|i| Square::new(16 + i).unwrap().to_string())
            .collect::<Vec<_>>()
            .join(",");
        assert!(e(&format!("W:W{many}:Bh7")).contains("17 pieces"));
        // Kings may stand on any rank.
        assert!(Position::from_fen("B:WKa1,Ka8:BKh1").is_ok());
    }
}
