//! Plain-text board diagrams.

use crate::color::{Color, Role};
use crate::position::Position;
use crate::square::Square;

/// The board as text, rank 8 at the top: `w`/`b` men, `W`/`B` kings, `.` empty squares.
///
/// ```
/// let text = damasi::diagram(&damasi::Position::start());
/// assert!(text.contains("7 b b b b b b b b 7"));
/// assert!(text.contains("2 w w w w w w w w 2"));
/// ```
pub fn diagram(pos: &Position) -> String {
    let mut s = String::with_capacity(256);
    s.push_str("  a b c d e f g h\n");
    for rank in (0..8).rev() {
        s.push((b'1' + rank) as char);
        for file in 0..8 {
            let sq = Square::from_coords(file, rank).expect("on the board");
            s.push(' ');
            s.push(match pos.piece_at(sq) {
                None => '.',
                Some(p) => match (p.color, p.role) {
                    (Color::White, Role::Man) => 'w',
                    (Color::White, Role::King) => 'W',
                    (Color::Black, Role::Man) => 'b',
                    (Color::Black, Role::King) => 'B',
                },
            });
        }
        s.push(' ');
        s.push((b'1' + rank) as char);
        s.push('\n');
    }
    s.push_str("  a b c d e f g h\n");
    s
}
