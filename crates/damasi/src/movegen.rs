//! Legal move generation. The one place where the maximum-capture rule is enforced is
//! `CaptureGen::record`.
//!
//! Captures are found by a depth-first walk per capturing piece over a copy of the board in
//! which every captured piece is removed at once (Turkish rule: captured pieces leave the
//! board before the next jump) and the 180-degree turn is forbidden. Only sequences of the
//! global maximum length are kept. Two routes with the same (from, to, captured set) are one
//! move; such duplicates can only come from kings, so only king captures are checked.

use crate::bitboard::{fill, lowest, shift, Dir, Squares};
use crate::color::Color;
use crate::moves::{Move, MoveList};
use crate::position::Position;

/// The three directions a man of `c` moves and captures in: forward, east, west.
#[inline(always)]
const fn man_dirs(c: Color) -> [Dir; 3] {
    [c.forward(), Dir::East, Dir::West]
}

/// Whether the side to move has a capture (set-wise test, no walk).
#[inline]
pub(crate) fn has_capture(pos: &Position) -> bool {
    let us = pos.side;
    let empty = pos.empty();
    let them = pos.by_color[!us as usize];
    let men = pos.men_of(us);
    for d in man_dirs(us) {
        if shift(shift(men, d) & them, d) & empty != 0 {
            return true;
        }
    }
    let kings = pos.kings_of(us);
    if kings != 0 {
        for d in Dir::ALL {
            let reach = fill(kings, empty, d);
            if shift(shift(reach, d) & them, d) & empty != 0 {
                return true;
            }
        }
    }
    false
}

/// Depth-first capture search. `ROUTES` keeps every route (for `perft --paths`) instead of one
/// move per (from, to, captured set).
struct CaptureGen<'a, const ROUTES: bool> {
    list: &'a mut MoveList,
    max: u32,
    from: crate::square::Square,
    promotion_rank: u64,
}

impl<const ROUTES: bool> CaptureGen<'_, ROUTES> {
    /// Adds a finished sequence if it captures at least as many pieces as the best so far
    /// (the maximum-capture rule: men and kings count the same, as captors and as victims).
    #[inline]
    fn record(&mut self, at: u64, captured: u64, is_king: bool) {
        let n = captured.count_ones();
        if n < self.max {
            return;
        }
        if n > self.max {
            self.max = n;
            self.list.clear();
        }
        let m = Move {
            captured,
            from: self.from,
            to: lowest(at),
            promotes: !is_king && at & self.promotion_rank != 0,
        };
        // Distinct routes to one (from, to, captured set) need a loop, so at least three
        // captures by a king; men never go back, so their routes never coincide.
        if !ROUTES && is_king && n >= 3 && self.list.contains(&m) {
            return;
        }
        self.list.push(m);
    }

    /// A man at `at` continues capturing; `banned` is the reverse of its last jump.
    fn man(&mut self, us: Color, at: u64, them: u64, empty: u64, captured: u64, banned: Dir) {
        let mut extended = false;
        for d in man_dirs(us) {
            if d == banned {
                continue;
            }
            let over = shift(at, d);
            if over & them == 0 {
                continue;
            }
            let land = shift(over, d);
            if land & empty == 0 {
                continue;
            }
            extended = true;
            // The victim leaves the board at once: its square is empty from now on.
            self.man(
                us,
                land,
                them & !over,
                empty | over,
                captured | over,
                d.opposite(),
            );
        }
        if !extended && captured != 0 {
            self.record(at, captured, false);
        }
    }

    /// A king at `at` continues capturing. `last` is the direction of its last jump (its
    /// reverse is forbidden); `straight_ok` is false on landing squares past the first one,
    /// since going straight on from any of them meets the same piece as from the first
    /// (so one branch covers them all, except when counting routes).
    fn king(
        &mut self,
        at: u64,
        them: u64,
        empty: u64,
        captured: u64,
        last: Option<Dir>,
        straight_ok: bool,
    ) {
        let mut extended = false;
        for d in Dir::ALL {
            if let Some(l) = last {
                if d == l.opposite() || (!ROUTES && !straight_ok && d == l) {
                    continue;
                }
            }
            let mut victim = shift(at, d);
            while victim & empty != 0 {
                victim = shift(victim, d);
            }
            if victim & them == 0 {
                continue; // the edge, or one of our own pieces
            }
            let mut land = shift(victim, d);
            let mut first = true;
            while land & empty != 0 {
                extended = true;
                self.king(
                    land,
                    them & !victim,
                    empty | victim,
                    captured | victim,
                    Some(d),
                    first,
                );
                first = false;
                land = shift(land, d);
            }
        }
        if !extended && captured != 0 {
            self.record(at, captured, true);
        }
    }
}

/// Fills `list` with the maximum captures of the side to move, or leaves it empty if there is
/// none. With `ROUTES`, every route is listed instead of one entry per move.
fn generate_captures<const ROUTES: bool>(pos: &Position, list: &mut MoveList) {
    let us = pos.side;
    let them = pos.by_color[!us as usize];
    let mut gen = CaptureGen::<ROUTES> {
        list,
        max: 1,
        from: crate::square::Square::new_unchecked(0),
        promotion_rank: us.promotion_rank(),
    };
    let empty = pos.empty();
    let men = pos.men_of(us);
    // Men that can start a capture, found set-wise so that only they are walked.
    let mut starters = 0;
    for d in man_dirs(us) {
        let back = d.opposite();
        let landing = shift(shift(men, d) & them, d) & empty;
        starters |= shift(shift(landing, back), back);
    }
    for sq in Squares(starters) {
        gen.from = sq;
        // The mover's start square is empty during the sequence.
        gen.man(
            us,
            sq.bit(),
            them,
            empty | sq.bit(),
            0,
            us.forward().opposite(),
        );
    }
    for sq in Squares(pos.kings_of(us)) {
        gen.from = sq;
        gen.king(sq.bit(), them, empty | sq.bit(), 0, None, true);
    }
}

/// Fills `list` with the quiet (non-capturing) moves of the side to move.
fn generate_quiet(pos: &Position, list: &mut MoveList) {
    let us = pos.side;
    let empty = pos.empty();
    let men = pos.men_of(us);
    let promo = us.promotion_rank();
    for d in man_dirs(us) {
        let back = d.opposite();
        for to in Squares(shift(men, d) & empty) {
            let from = lowest(shift(to.bit(), back));
            list.push(Move {
                captured: 0,
                from,
                to,
                promotes: to.bit() & promo != 0,
            });
        }
    }
    for from in Squares(pos.kings_of(us)) {
        for d in Dir::ALL {
            for to in Squares(fill(from.bit(), empty, d) & !from.bit()) {
                list.push(Move {
                    captured: 0,
                    from,
                    to,
                    promotes: false,
                });
            }
        }
    }
}

/// Number of quiet moves, by popcounts of whole-board shifts and fills (bulk counting).
#[inline]
fn count_quiet(pos: &Position) -> u64 {
    let us = pos.side;
    let empty = pos.empty();
    let men = pos.men_of(us);
    let mut n = 0;
    for d in man_dirs(us) {
        n += (shift(men, d) & empty).count_ones();
    }
    let kings = pos.kings_of(us);
    if kings != 0 {
        // Fills from different kings in one direction never overlap: a king blocks the other.
        for d in Dir::ALL {
            n += (fill(kings, empty, d) & !kings).count_ones();
        }
    }
    n as u64
}

impl Position {
    /// The legal moves: the maximum captures if any capture exists, else every quiet move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// Like [`Position::legal_moves`], reusing `list`.
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        if has_capture(self) {
            generate_captures::<false>(self, list);
        } else {
            generate_quiet(self, list);
        }
    }

    /// Every legal route: like [`Position::legal_moves`], but a capture reachable by several
    /// routes (a loop run either way, different stops before going straight on) appears once
    /// per route. Used by `perft --paths` to compare with libraries that count routes.
    pub fn legal_routes_into(&self, list: &mut MoveList) {
        list.clear();
        if has_capture(self) {
            generate_captures::<true>(self, list);
        } else {
            generate_quiet(self, list);
        }
    }

    /// Number of legal moves (counted without listing quiet moves).
    #[inline]
    pub fn count_legal_moves(&self) -> u64 {
        if has_capture(self) {
            let mut list = MoveList::new();
            generate_captures::<false>(self, &mut list);
            list.len() as u64
        } else {
            count_quiet(self)
        }
    }

    /// Whether a capture is available (and so forced).
    #[inline]
    pub fn has_capture(&self) -> bool {
        has_capture(self)
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        has_capture(self) || count_quiet(self) > 0
    }
}
