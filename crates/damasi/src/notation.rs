//! Move notation: writing and reading moves.
//!
//! Two styles are written (docs/rules.md, "Notation"):
//! - **Landing** notation (seed 000, the default): the start square, then every square the piece
//!   lands on: `d3-d4` (quiet), `d4xd6`, `b3xd3xd5`, `c7-c8=K`, `c7xc8=K`.
//! - **Captured**-square notation (the federation's style, seed 001): the start square, then
//!   each captured square in capture order: `d4xc4xb3`. When that does not fix where the piece
//!   ends, the end square follows a `>`: `a8xa3>a1`. Quiet moves are `from-to` in both styles.
//!
//! A [`Move`] only knows (from, to, captured set), so writing a capture first recovers a route
//! ([`Position::route`]) by a depth-first search restricted to the captured pieces; the first
//! route in a fixed order (directions north, east, south, west; nearest landing square first)
//! is the canonical one. A king that goes straight on after a capture is written as stopping
//! on the square right behind the captured piece.
//!
//! Reading accepts both styles and their short forms, and tries every reading of the text:
//! the move is returned only if exactly one legal move fits.
//!
//! ```
//! use damasi::{Notation, Position};
//!
//! let pos = Position::from_fen("B:Wa3,b3,c4:Bd4,Ka8").unwrap();
//! let m = pos.parse_move("d4xc4xb3").unwrap(); // the federation's example 9
//! assert_eq!(pos.write_move(&m, Notation::Landing), "d4xb4xb2");
//! assert_eq!(pos.write_move(&m, Notation::Captured), "d4xc4xb3");
//! assert_eq!(pos.parse_move("d4xb2"), Ok(m)); // a short form
//! assert!(pos.parse_move("a8xa3").is_err()); // legal only if it took as many
//! ```

use std::fmt;

use crate::bitboard::{shift, Dir};
use crate::color::Color;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::square::Square;

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

/// Longest move text read, in bytes. The longest real move (16 captures, every landing
/// square written, `=K`) is under 70 bytes; the cap bounds the work done on hostile input.
pub const MAX_MOVE_TEXT: usize = 256;

/// One jump of a capture route.
#[derive(Clone, Copy, Debug)]
struct Jump {
    dir: Dir,
    victim: Square,
    land: Square,
}

/// A move text split into its parts, before any legality check.
#[derive(Debug)]
struct MoveText {
    /// The squares in the order written, separators dropped.
    squares: Vec<Square>,
    /// The square after `>` (captured-square notation's explicit end).
    end: Option<Square>,
    /// Whether the text ends in `=K`.
    promotion: bool,
}

/// Splits `text` into squares, an optional `>end` and an optional `=K`.
fn split_move_text(text: &str) -> Result<MoveText, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("the text is empty".into());
    }
    if t.len() > MAX_MOVE_TEXT {
        return Err(format!(
            "the text is {} bytes long; no move needs more than {MAX_MOVE_TEXT}",
            t.len()
        ));
    }
    let (body, promotion) = match t.strip_suffix("=K").or_else(|| t.strip_suffix("=k")) {
        Some(rest) => (rest.trim_end(), true),
        None => (t, false),
    };
    let (body, end) = match body.split_once('>') {
        Some((left, right)) => {
            let right = right.trim();
            let sq = read_square_token(right).ok_or_else(|| {
                format!("after '>' expected the end square (a1..h8), found '{right}'")
            })?;
            (left.trim_end(), Some(sq))
        }
        None => (body, None),
    };
    let chars: Vec<char> = body.chars().collect();
    let mut squares = Vec::new();
    let mut i = 0;
    loop {
        let sq = match (chars.get(i), chars.get(i + 1)) {
            (Some(&f), Some(&r)) => square_of(f, r),
            _ => None,
        };
        let Some(sq) = sq else {
            let found: String = chars[i.min(chars.len())..].iter().take(2).collect();
            return Err(if found.is_empty() {
                format!("expected a square (a1..h8) at character {}", i + 1)
            } else {
                format!(
                    "expected a square (a1..h8) at character {}, found '{found}'",
                    i + 1
                )
            });
        };
        squares.push(sq);
        i += 2;
        match chars.get(i) {
            None => break,
            Some(c) if is_separator(*c) => i += 1,
            Some(c) => {
                return Err(format!(
                    "expected a separator ('-', 'x' or ':') at character {}, found '{c}'",
                    i + 1
                ))
            }
        }
    }
    if squares.len() < 2 && end.is_none() {
        return Err("a move needs at least two squares, e.g. d3-d4".into());
    }
    Ok(MoveText {
        squares,
        end,
        promotion,
    })
}

fn is_separator(c: char) -> bool {
    matches!(c, '-' | 'x' | 'X' | ':' | '×')
}

/// The square named by a file letter (either case) and a rank digit.
fn square_of(file: char, rank: char) -> Option<Square> {
    let f = file.to_ascii_lowercase();
    if !('a'..='h').contains(&f) || !('1'..='8').contains(&rank) {
        return None;
    }
    Square::from_coords(f as u8 - b'a', rank as u8 - b'1')
}

fn read_square_token(s: &str) -> Option<Square> {
    let mut it = s.chars();
    match (it.next(), it.next(), it.next()) {
        (Some(f), Some(r), None) => square_of(f, r),
        _ => None,
    }
}

/// The squares strictly between two squares of one line, walking `dir` from `a` to `b`.
fn between(a: Square, b: Square, dir: Dir) -> u64 {
    let mut out = 0;
    let mut s = shift(a.bit(), dir);
    while s != 0 && s != b.bit() {
        out |= s;
        s = shift(s, dir);
    }
    out
}

/// Depth-first search for the routes of one capture: only the pieces of the captured set may
/// be taken, each leaves the board at once, no 180-degree turn, men step forward or sideways
/// (also on the far rank: promotion waits for the end of the move), kings fly.
///
/// A king that goes straight on after a capture is only let do so from the square right behind
/// the captured piece: from a farther landing square it would meet the same next piece, so
/// these routes differ only in where the stop is written (see [`RouteSearch::stop_squares`]).
struct RouteSearch {
    is_king: bool,
    us: Color,
    to: u64,
    /// The jumps made so far.
    path: Vec<Jump>,
}

impl RouteSearch {
    /// Calls `visit` with every canonical route that takes exactly `remaining` and ends on
    /// `to`, until `visit` returns true (stop); returns whether it was stopped.
    fn walk(
        &mut self,
        at: u64,
        occupied: u64,
        remaining: u64,
        last: Option<Dir>,
        straight_ok: bool,
        visit: &mut dyn FnMut(&[Jump]) -> bool,
    ) -> bool {
        if remaining == 0 {
            return at == self.to && visit(&self.path);
        }
        let dirs: &[Dir] = if self.is_king {
            &Dir::ALL
        } else {
            match self.us {
                Color::White => &[Dir::North, Dir::East, Dir::West],
                Color::Black => &[Dir::East, Dir::South, Dir::West],
            }
        };
        for &d in dirs {
            if let Some(l) = last {
                if d == l.opposite() || (d == l && !straight_ok) {
                    continue;
                }
            }
            let mut victim = shift(at, d);
            if self.is_king {
                while victim != 0 && victim & occupied == 0 {
                    victim = shift(victim, d);
                }
            }
            // Only pieces of the move's captured set may be taken (own pieces and other
            // enemy pieces block).
            if victim & remaining == 0 {
                continue;
            }
            let mut land = shift(victim, d);
            let mut first = true;
            while land != 0 && land & occupied == 0 {
                self.path.push(Jump {
                    dir: d,
                    victim: Square::new(victim.trailing_zeros() as u8).expect("on the board"),
                    land: Square::new(land.trailing_zeros() as u8).expect("on the board"),
                });
                let stop = self.walk(
                    land,
                    occupied & !victim,
                    remaining & !victim,
                    Some(d),
                    first,
                    visit,
                );
                self.path.pop();
                if stop {
                    return true;
                }
                if !self.is_king {
                    break;
                }
                first = false;
                land = shift(land, d);
            }
        }
        false
    }

    /// The squares a writer may name for the landing of jump `i` of `route`: its landing
    /// square, or, when the king goes straight on, any square up to the next captured piece.
    fn stop_squares(route: &[Jump], i: usize) -> u64 {
        match route.get(i + 1) {
            Some(next) if next.dir == route[i].dir => {
                between(route[i].victim, next.victim, route[i].dir)
            }
            _ => route[i].land.bit(),
        }
    }
}

impl Position {
    /// Calls `visit` with each canonical route of the capture `m`, in the canonical order,
    /// until it returns true. Does nothing for a quiet move or a move of another position.
    fn for_each_route(&self, m: &Move, visit: &mut dyn FnMut(&[Jump]) -> bool) {
        let us = self.side_to_move();
        let from = m.from().bit();
        if !m.is_capture() || self.pieces_of(us) & from == 0 {
            return;
        }
        let them = self.pieces_of(!us);
        if m.captured_bits() & !them != 0 {
            return;
        }
        let mut search = RouteSearch {
            is_king: self.kings() & from != 0,
            us,
            to: m.to().bit(),
            path: Vec::with_capacity(16),
        };
        let occupied = !self.empty() & !from;
        search.walk(from, occupied, m.captured_bits(), None, true, visit);
    }

    /// The canonical route of `m`, jump by jump, if it has one here.
    fn canonical_route(&self, m: &Move) -> Option<Vec<Jump>> {
        let mut found = None;
        self.for_each_route(m, &mut |route| {
            found = Some(route.to_vec());
            true
        });
        found
    }

    /// The squares the piece stands on along the canonical route of `m`: the start square,
    /// each landing square, the end square. A quiet move gives `[from, to]`. When a king goes
    /// straight on after a capture, the stop is the square right behind the captured piece.
    /// When `m` has no route here (a move of another position), the result is `[from, to]`.
    ///
    /// ```
    /// use damasi::Position;
    /// let pos = Position::from_fen("W:Wb3:Bc3,d4,h7").unwrap();
    /// let m = pos.parse_move("b3xd5").unwrap();
    /// let names: Vec<String> = pos.route(&m).iter().map(|s| s.to_string()).collect();
    /// assert_eq!(names, ["b3", "d3", "d5"]);
    /// ```
    pub fn route(&self, m: &Move) -> Vec<Square> {
        let (landings, _) = self.landings_and_victims(m);
        std::iter::once(m.from()).chain(landings).collect()
    }

    /// [`Position::route`] without the start square, and [`Position::capture_order`], from one
    /// search of the canonical route (a capture's description wants both). The one place that
    /// says what a move with no route here gives: its end square, and its captured squares a1
    /// first.
    pub(crate) fn landings_and_victims(&self, m: &Move) -> (Vec<Square>, Vec<Square>) {
        match self.canonical_route(m) {
            Some(jumps) => (
                jumps.iter().map(|j| j.land).collect(),
                jumps.iter().map(|j| j.victim).collect(),
            ),
            None => (vec![m.to()], m.captured().collect()),
        }
    }

    /// The squares `m` captures, in the order of its canonical route (empty for a quiet move).
    /// When `m` has no route here, its captured squares a1 first.
    pub fn capture_order(&self, m: &Move) -> Vec<Square> {
        self.landings_and_victims(m).1
    }

    /// Writes a legal move of this position in the chosen notation.
    ///
    /// The text always reads back as `m` with [`Position::parse_move`]. In the rare position
    /// where the canonical text would also fit another legal move under another reading, a
    /// different route (landing notation) or the explicit `>to` (captured-square notation) is
    /// written instead. A move that is not legal here is written from its start square, its
    /// captured squares and its end square, without any check.
    ///
    /// ```
    /// use damasi::{Notation, Position};
    /// // A black king on a8 can take a3 and stop on a2 or a1: two moves.
    /// let pos = Position::from_fen("B:Wa3,h2:BKa8,h7").unwrap();
    /// let texts: Vec<String> =
    ///     pos.legal_moves().iter().map(|m| pos.write_move(m, Notation::Captured)).collect();
    /// assert_eq!(texts, ["a8xa3>a2", "a8xa3>a1"]);
    /// ```
    pub fn write_move(&self, m: &Move, notation: Notation) -> String {
        if !m.is_capture() {
            return self.write_move_among(m, notation, &MoveList::new());
        }
        self.write_move_among(m, notation, &self.legal_moves())
    }

    /// [`Position::write_move`] with this position's legal moves already generated, so that
    /// writing every legal move generates them once, not once per move (a king that can take
    /// many pieces makes generation slow).
    pub(crate) fn write_move_among(
        &self,
        m: &Move,
        notation: Notation,
        legal: &MoveList,
    ) -> String {
        let promo = if m.is_promotion() { "=K" } else { "" };
        if !m.is_capture() {
            let mut s = String::with_capacity(5 + promo.len());
            m.from().push_name(&mut s);
            s.push('-');
            m.to().push_name(&mut s);
            s.push_str(promo);
            return s;
        }
        if !legal.contains(m) {
            let mut s = m.from().to_string();
            for sq in m.captured() {
                s.push('x');
                s.push_str(&sq.to_string());
            }
            return format!("{s}>{}{promo}", m.to());
        }
        let reads_back = |text: &str| match split_move_text(text) {
            Ok(parsed) => self.matching_moves(&parsed, legal) == [*m],
            Err(_) => false,
        };
        match notation {
            Notation::Landing => {
                let mut first = None;
                let mut chosen = None;
                self.for_each_route(m, &mut |route| {
                    let mut s = m.from().name();
                    for j in route {
                        s.push('x');
                        j.land.push_name(&mut s);
                    }
                    s.push_str(promo);
                    if reads_back(&s) {
                        chosen = Some(s);
                        return true;
                    }
                    if first.is_none() {
                        first = Some(s);
                    }
                    false
                });
                chosen
                    .or(first)
                    .unwrap_or_else(|| format!("{}x{}{promo}", m.from(), m.to()))
            }
            Notation::Captured => {
                let mut s = m.from().name();
                for sq in self.capture_order(m) {
                    s.push('x');
                    sq.push_name(&mut s);
                }
                let short = format!("{s}{promo}");
                if reads_back(&short) {
                    short
                } else {
                    format!("{s}>{}{promo}", m.to())
                }
            }
        }
    }

    /// Reads a move in any accepted notation and returns the legal move it names.
    ///
    /// Accepted: landing notation (`d3-d4`, `b3xd3xd5`, any subset of the intermediate
    /// landing squares, so also `b3xd5`), captured-square notation (`d4xc4xb3`, captured
    /// squares in any order, optional `>to`), with `x`, `-` or `:` between squares, squares in
    /// either case, an optional `=K`, surrounding spaces. Every reading is tried: exactly one
    /// fitting legal move is returned, several give [`MoveError::Ambiguous`], none
    /// [`MoveError::Illegal`]; text that is no move at all gives [`MoveError::Syntax`].
    ///
    /// ```
    /// use damasi::{MoveError, Position};
    /// let pos = Position::start();
    /// assert!(pos.parse_move("D3-d4").is_ok());
    /// assert!(matches!(pos.parse_move("d3-d5"), Err(MoveError::Illegal { .. })));
    /// assert!(matches!(pos.parse_move("d3d4"), Err(MoveError::Syntax { .. })));
    /// ```
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let parsed = split_move_text(text).map_err(|reason| MoveError::Syntax {
            text: text.to_string(),
            reason,
        })?;
        let legal = self.legal_moves();
        let hits = self.matching_moves(&parsed, &legal);
        match hits.as_slice() {
            [m] => Ok(*m),
            [] => Err(MoveError::Illegal {
                text: text.to_string(),
                legal: legal
                    .iter()
                    .map(|m| self.write_move_among(m, Notation::Landing, &legal))
                    .collect(),
            }),
            _ => Err(MoveError::Ambiguous {
                text: text.to_string(),
                candidates: hits
                    .iter()
                    .map(|m| self.write_move_among(m, Notation::Landing, &legal))
                    .collect(),
            }),
        }
    }

    /// The distinct legal moves that fit `text` under some reading, in generation order.
    fn matching_moves(&self, text: &MoveText, legal: &MoveList) -> Vec<Move> {
        let sq = &text.squares;
        let mut hits: Vec<Move> = Vec::new();
        let promo_ok = |m: &Move| !text.promotion || m.is_promotion();
        // Landing reading: from, stops on some route (in order, any subset), to.
        if text.end.is_none() && sq.len() >= 2 {
            let (from, to) = (sq[0], sq[sq.len() - 1]);
            let stops = &sq[1..sq.len() - 1];
            for m in legal.iter() {
                if m.from() != from || m.to() != to || !promo_ok(m) {
                    continue;
                }
                let fits = if !m.is_capture() {
                    stops.is_empty()
                } else if stops.is_empty() {
                    true
                } else {
                    self.has_route_through(m, stops)
                };
                if fits && !hits.contains(m) {
                    hits.push(*m);
                }
            }
        }
        // Captured-square reading: from, the captured set in any order, optional `>to`.
        if sq.len() >= 2 {
            let captured = sq[1..].iter().fold(0u64, |b, s| b | s.bit());
            let distinct = captured.count_ones() as usize == sq.len() - 1;
            for m in legal.iter() {
                if distinct
                    && m.from() == sq[0]
                    && m.captured_bits() == captured
                    && text.end.is_none_or(|end| m.to() == end)
                    && promo_ok(m)
                    && !hits.contains(m)
                {
                    hits.push(*m);
                }
            }
        }
        hits
    }

    /// Whether some route of the capture `m` stops on `stops`, in that order (each one a
    /// landing square of the route; landing squares may be left out).
    fn has_route_through(&self, m: &Move, stops: &[Square]) -> bool {
        let mut found = false;
        self.for_each_route(m, &mut |route| {
            // Greedy subsequence matching is exact: taking the earliest stop that fits
            // never rules out a later match.
            let mut next = 0;
            // The last jump lands on `to`, which is not an intermediate stop.
            for i in 0..route.len().saturating_sub(1) {
                if next < stops.len()
                    && RouteSearch::stop_squares(route, i) & stops[next].bit() != 0
                {
                    next += 1;
                }
            }
            found = next == stops.len();
            found
        });
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_texts() {
        let t = split_move_text("  B3xD3:d5=K ").unwrap();
        assert_eq!(t.squares.len(), 3);
        assert!(t.promotion);
        assert_eq!(t.end, None);
        let t = split_move_text("a8xa3>a1").unwrap();
        assert_eq!(t.end, Some("a1".parse().unwrap()));
        for bad in [
            "", "d3", "d3d4", "d3--d4", "d3-", "-d3-d4", "z9-a1", "d3-d4>", "é",
        ] {
            assert!(split_move_text(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn straight_on_stops() {
        // King a1 takes a3 and a6 going north: after a3 it may stop on a4 or a5.
        let pos = Position::from_fen("W:WKa1:Ba3,a6,h7").unwrap();
        let m = pos.parse_move("a1xa7").unwrap();
        assert_eq!(pos.write_move(&m, Notation::Landing), "a1xa4xa7");
        assert_eq!(pos.parse_move("a1xa5xa7"), Ok(m));
        assert!(pos.parse_move("a1xa2xa7").is_err());
    }
}
