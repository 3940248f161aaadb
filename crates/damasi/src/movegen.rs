//! Legal move generation. The one place where the maximum-capture rule is enforced is
//! `CaptureGen::record`.
//!
//! Captures are found by a depth-first walk per capturing piece over a copy of the board in
//! which every captured piece is removed at once (Turkish rule: captured pieces leave the
//! board before the next jump) and the 180-degree turn is forbidden. A king's jumps are
//! found with precomputed rays, and a jump after which no landing square can jump again is
//! recorded for all its landing squares at once. Only sequences of the
//! global maximum length are kept. Two routes with the same (from, to, captured set) are one
//! move; such duplicates can only come from kings, so only king captures are checked.

use crate::bitboard::{fill, lowest, shift, Dir, Squares, FILE_A, FILE_H};
use crate::color::Color;
use crate::isa::{Isa, Portable};
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
    let jumpers = man_jumpers(pos);
    pos.men_of(us) & (jumpers[0] | jumpers[1] | jumpers[2]) != 0 || kings_can_capture(pos)
}

/// For each of `man_dirs`, the squares from which a man of the side to move would jump in
/// that direction: an enemy piece next to it, an empty square behind.
#[inline(always)]
fn man_jumpers(pos: &Position) -> [u64; 3] {
    man_jumpers_of(pos.side, pos.by_color[!pos.side as usize], pos.empty())
}

/// [`man_jumpers`] for men of `us` against the pieces `them`, with the squares `empty` empty.
#[inline(always)]
fn man_jumpers_of(us: Color, them: u64, empty: u64) -> [u64; 3] {
    // Written out rather than with `shift`: a jump's two squares are one shift of 2 (16 for
    // ranks), and only the start files need masking.
    const NOT_GH: u64 = !(FILE_H | (FILE_H >> 1));
    const NOT_AB: u64 = !(FILE_A | (FILE_A << 1));
    let forward = match us {
        Color::White => (them >> 8) & (empty >> 16),
        Color::Black => (them << 8) & (empty << 16),
    };
    let east = (them >> 1) & (empty >> 2) & NOT_GH;
    let west = (them << 1) & (empty << 2) & NOT_AB;
    [forward, east, west]
}

/// Whether a king of the side to move can capture (set-wise: slide, then an enemy, then an
/// empty square).
#[inline(always)]
fn kings_can_capture(pos: &Position) -> bool {
    let us = pos.side;
    let kings = pos.kings_of(us);
    kings != 0 && kings_capture(kings, pos.by_color[!us as usize], pos.empty())
}

/// Whether one of `kings` can capture one of the pieces `them`, with the squares `empty` empty.
#[inline(always)]
fn kings_capture(kings: u64, them: u64, empty: u64) -> bool {
    Dir::ALL.into_iter().any(|d| {
        let reach = fill(kings, empty, d);
        shift(shift(reach, d) & them, d) & empty != 0
    })
}

/// Number of legal moves, or with `ROUTES` of routes, without listing them (perft's leaves).
/// Inlined into its callers, so that it is compiled for their instruction set (`isa`).
#[inline(always)]
pub(crate) fn count_legal<I: Isa, const ROUTES: bool>(isa: I, pos: &Position) -> u64 {
    if kings_can_capture(pos) {
        return count_captures::<ROUTES>(pos);
    }
    let men = pos.men_of(pos.side);
    let jumpers = man_jumpers(pos);
    if men & (jumpers[0] | jumpers[1] | jumpers[2]) == 0 {
        count_quiet(pos)
    } else {
        match pos.side {
            Color::White => ManCaptures::<I, true> { men, jumpers, isa }.count(),
            Color::Black => ManCaptures::<I, false> { men, jumpers, isa }.count(),
        }
    }
}

/// Captures by men counted set-wise, with no walk (when no king can capture).
///
/// A man's capture never comes back to a square it has been on or jumped over: it never moves
/// backwards, and within a rank it keeps one direction, since a 180-degree turn is forbidden.
/// So the pieces it removes and the square it left never matter to its later jumps, and its
/// sequences are paths over the board as it stands. States after a jump say which direction is
/// now forbidden: none (at the start or after a forward jump), west (after an east jump), east
/// (after a west jump); directions are indexed as in `man_dirs`: forward, east, west. Men's
/// routes never coincide, so routes and moves are the same count. `WHITE` is the side to move,
/// so that every shift is known when compiling.
pub(crate) struct ManCaptures<I: Isa, const WHITE: bool> {
    men: u64,
    /// For each direction, the squares from which a man jumps that way.
    jumpers: [u64; 3],
    /// The instruction set the recursion is compiled for.
    isa: I,
}

impl<I: Isa, const WHITE: bool> ManCaptures<I, WHITE> {
    /// `to` moved two squares in direction `i` (no masks: only jumpers' squares are moved,
    /// and their landing squares are on the board).
    #[inline(always)]
    fn jump(i: usize, to: u64) -> u64 {
        match (i, WHITE) {
            (0, true) => to << 16,
            (0, false) => to >> 16,
            (1, _) => to << 2,
            _ => to >> 2,
        }
    }

    /// The number of maximum captures (the side must have one).
    #[inline(always)]
    fn count(&self) -> u64 {
        self.isa.longest::<WHITE, 0>(self, self.men).1
    }

    /// [`Self::longest`] after a jump: squares that cannot jump on (most) are counted here,
    /// without a call.
    #[inline(always)]
    fn then<const STATE: usize>(&self, from: u64) -> (u32, u64) {
        let mut jumpers = self.jumpers[0];
        if STATE != 2 {
            jumpers |= self.jumpers[1];
        }
        if STATE != 1 {
            jumpers |= self.jumpers[2];
        }
        if from & jumpers == 0 {
            (0, from.count_ones() as u64)
        } else {
            self.isa.longest::<WHITE, STATE>(self, from)
        }
    }

    /// The longest jump sequences from the squares of `from` in `STATE`: their length and how
    /// many there are, each square counted with its multiplicity (a shift keeps squares apart,
    /// so sets will do). Squares that cannot jump count as sequences of length 0. Called
    /// through [`Isa::longest`], which compiles it for an instruction set.
    #[inline(always)]
    pub(crate) fn longest<const STATE: usize>(&self, from: u64) -> (u32, u64) {
        let forward = from & self.jumpers[0];
        let east = if STATE != 2 {
            from & self.jumpers[1]
        } else {
            0
        };
        let west = if STATE != 1 {
            from & self.jumpers[2]
        } else {
            0
        };
        if forward | east | west == 0 {
            return (0, from.count_ones() as u64);
        }
        let mut best = (0, 0);
        let mut add = |(len, n): (u32, u64)| {
            if len + 1 > best.0 {
                best = (len + 1, n);
            } else if len + 1 == best.0 {
                best.1 += n;
            }
        };
        if forward != 0 {
            add(self.then::<0>(Self::jump(0, forward)));
        }
        if east != 0 {
            add(self.then::<1>(Self::jump(1, east)));
        }
        if west != 0 {
            add(self.then::<2>(Self::jump(2, west)));
        }
        best
    }
}

/// Where the capture walk puts the sequences it finds: a move list, or a counter when only the
/// number of moves is wanted (perft's leaves).
trait CaptureSink {
    /// Forgets everything kept so far (a longer capture was found).
    fn clear(&mut self);
    /// Keeps `m`; `maybe_duplicate` is true when another route may already have given it.
    fn keep(&mut self, m: Move, maybe_duplicate: bool);
}

impl CaptureSink for MoveList {
    #[inline]
    fn clear(&mut self) {
        MoveList::clear(self);
    }

    #[inline]
    fn keep(&mut self, m: Move, maybe_duplicate: bool) {
        if !(maybe_duplicate && self.contains(&m)) {
            self.push(m);
        }
    }
}

/// Counts the sequences; only those that may repeat another route's move are listed, to be
/// recognised (a king's captures of three pieces or more: rare even among captures).
struct CaptureCount {
    n: u64,
    seen: MoveList,
}

impl CaptureSink for CaptureCount {
    #[inline]
    fn clear(&mut self) {
        self.n = 0;
        self.seen.clear();
    }

    #[inline]
    fn keep(&mut self, m: Move, maybe_duplicate: bool) {
        if maybe_duplicate {
            if self.seen.contains(&m) {
                return;
            }
            self.seen.push(m);
        }
        self.n += 1;
    }
}

/// Depth-first capture search. `ROUTES` keeps every route (for `perft --paths`) instead of one
/// move per (from, to, captured set).
struct CaptureGen<'a, S: CaptureSink, const ROUTES: bool> {
    sink: &'a mut S,
    max: u32,
    from: crate::square::Square,
    promotion_rank: u64,
}

impl<S: CaptureSink, const ROUTES: bool> CaptureGen<'_, S, ROUTES> {
    /// Adds a finished sequence if it captures at least as many pieces as the best so far
    /// (the maximum-capture rule: men and kings count the same, as captors and as victims).
    /// `n` is the number of squares in `captured` (counted on the way, not by a popcount: the
    /// walk is compiled for every CPU, and a popcount without `popcnt` is a dozen operations).
    #[inline]
    fn record(&mut self, at: u64, captured: u64, n: u32, is_king: bool) {
        if n < self.max {
            return;
        }
        if n > self.max {
            self.max = n;
            self.sink.clear();
        }
        let m = Move {
            captured,
            from: self.from,
            to: lowest(at),
            promotes: !is_king && at & self.promotion_rank != 0,
        };
        // Distinct routes to one (from, to, captured set) need a loop, so at least three
        // captures by a king; men never go back, so their routes never coincide.
        self.sink.keep(m, !ROUTES && is_king && n >= 3);
    }

    /// A man at `at` continues capturing, having captured the `n` pieces of `captured`;
    /// `banned` is the reverse of its last jump.
    #[allow(clippy::too_many_arguments)]
    fn man(
        &mut self,
        us: Color,
        at: u64,
        them: u64,
        empty: u64,
        captured: u64,
        n: u32,
        banned: Dir,
    ) {
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
                n + 1,
                d.opposite(),
            );
        }
        if !extended && captured != 0 {
            self.record(at, captured, n, false);
        }
    }

    /// A king at `at` continues capturing, having captured the `n` pieces of `captured`.
    /// `last` is the direction of its last jump (its
    /// reverse is forbidden); `straight_ok` is false on landing squares past the first one,
    /// since going straight on from any of them meets the same piece as from the first
    /// (so one branch covers them all, except when counting routes).
    #[allow(clippy::too_many_arguments)]
    fn king(
        &mut self,
        at: u64,
        them: u64,
        empty: u64,
        captured: u64,
        n: u32,
        last: Option<Dir>,
        straight_ok: bool,
    ) {
        let mut extended = false;
        let from = at.trailing_zeros() as usize;
        for d in Dir::ALL {
            if let Some(l) = last {
                if d == l.opposite() || (!ROUTES && !straight_ok && d == l) {
                    continue;
                }
            }
            // The first piece along the ray must be theirs, with empty squares behind it.
            let blockers = RAYS[d as usize][from] & !empty;
            if blockers == 0 {
                continue; // the edge
            }
            let victim = nearest(d, blockers);
            if victim & them == 0 {
                continue; // one of our own pieces
            }
            let beyond = RAYS[d as usize][victim.trailing_zeros() as usize];
            // The first piece behind the victim, if any: the landing squares end before it.
            let stop = beyond & !empty;
            let stop = if stop == 0 { 0 } else { nearest(d, stop) };
            let mut lands = if stop == 0 {
                beyond
            } else {
                beyond & !(stop | RAYS[d as usize][stop.trailing_zeros() as usize])
            };
            if lands == 0 {
                continue; // no empty square behind the piece
            }
            let (them, empty) = (them & !victim, empty | victim);
            extended = true;
            // Most captures end here: if no landing square can jump again, record them all
            // without a call each (the usual case, tested for the whole ray at once).
            let turns = match d {
                Dir::North | Dir::South => [Dir::East, Dir::West],
                Dir::East | Dir::West => [Dir::North, Dir::South],
            };
            let straight_on = stop & them != 0 && shift(stop, d) & empty != 0;
            let can_jump = straight_on
                || turns
                    .into_iter()
                    .any(|t| shift(shift(fill(lands, empty, t), t) & them, t) & empty != 0);
            if !can_jump {
                let captured = captured | victim;
                if n + 1 >= self.max {
                    while lands != 0 {
                        let land = nearest(d, lands);
                        lands ^= land;
                        self.record(land, captured, n + 1, true);
                    }
                }
                continue;
            }
            let mut first = true;
            // Landing squares nearest first (the order moves are listed in).
            while lands != 0 {
                let land = nearest(d, lands);
                lands ^= land;
                self.king(land, them, empty, captured | victim, n + 1, Some(d), first);
                first = false;
            }
        }
        if !extended && captured != 0 {
            self.record(at, captured, n, true);
        }
    }
}

/// For each direction and square, the squares beyond it in that direction up to the edge.
static RAYS: [[u64; 64]; 4] = {
    let mut rays = [[0u64; 64]; 4];
    let mut d = 0;
    while d < 4 {
        let dir = Dir::ALL[d];
        let mut sq = 0;
        while sq < 64 {
            let mut b = shift(1 << sq, dir);
            while b != 0 {
                rays[d][sq] |= b;
                b = shift(b, dir);
            }
            sq += 1;
        }
        d += 1;
    }
    rays
};

/// The square of `set` (not empty, on one ray in `d`) met first going in direction `d`.
#[inline(always)]
fn nearest(d: Dir, set: u64) -> u64 {
    match d {
        Dir::North | Dir::East => set & set.wrapping_neg(),
        Dir::South | Dir::West => 1 << (63 - set.leading_zeros()),
    }
}

/// Gives `sink` the maximum captures of the side to move, or nothing if there is none. With `ROUTES`, every route is listed instead of one entry per move.
fn generate_captures<S: CaptureSink, const ROUTES: bool>(pos: &Position, sink: &mut S) {
    let us = pos.side;
    let them = pos.by_color[!us as usize];
    let mut gen = CaptureGen::<S, ROUTES> {
        sink,
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
            0,
            us.forward().opposite(),
        );
    }
    for sq in Squares(pos.kings_of(us)) {
        gen.from = sq;
        gen.king(sq.bit(), them, empty | sq.bit(), 0, 0, None, true);
    }
}

/// Number of maximum captures (moves, or with `ROUTES` routes), without listing them.
fn count_captures<const ROUTES: bool>(pos: &Position) -> u64 {
    let mut count = CaptureCount {
        n: 0,
        seen: MoveList::new(),
    };
    generate_captures::<_, ROUTES>(pos, &mut count);
    count.n
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
#[inline(always)]
fn count_quiet(pos: &Position) -> u64 {
    let us = pos.side;
    let empty = pos.empty();
    let men = pos.men_of(us);
    let forward = match us {
        Color::White => men << 8,
        Color::Black => men >> 8,
    };
    let n = (forward & empty).count_ones()
        + (((men & !FILE_H) << 1) & empty).count_ones()
        + (((men & !FILE_A) >> 1) & empty).count_ones();
    n as u64 + count_king_steps(pos.kings_of(us), empty)
}

/// Number of quiet moves of `kings`, with the squares `empty` empty.
#[inline(always)]
fn count_king_steps(kings: u64, empty: u64) -> u64 {
    let mut n = 0;
    if kings != 0 {
        // Fills from different kings in one direction never overlap: a king blocks the other.
        for d in Dir::ALL {
            n += (fill(kings, empty, d) & !kings).count_ones();
        }
    }
    n as u64
}

/// Perft's last two plies from `pos`: the number of legal moves (routes with `ROUTES`) summed
/// over every child. When `pos` has no capture its quiet moves are made straight on the
/// bitboards, with no move list and no `Move` values: that is most of perft's work. Inlined
/// into its caller, so that it is compiled for their instruction set (`isa`).
#[inline(always)]
pub(crate) fn count_grandchildren<I: Isa, const ROUTES: bool>(isa: I, pos: &Position) -> u64 {
    if has_capture(pos) {
        let mut list = MoveList::new();
        generate_captures::<_, ROUTES>(pos, &mut list);
        return list
            .iter()
            .map(|m| count_legal::<I, ROUTES>(isa, &pos.play_unkeyed(m)))
            .sum();
    }
    match pos.side {
        Color::White => quiet_grandchildren::<I, ROUTES, false>(isa, pos),
        Color::Black => quiet_grandchildren::<I, ROUTES, true>(isa, pos),
    }
}

/// [`count_grandchildren`] of a position without a capture, whose children have `CHILD_WHITE`
/// (White) to move. A child differs from `pos` by one of our pieces moved from `from` to `to`:
/// its side to move (they) has the same men and kings, so only the squares of our pieces and
/// the empty squares change, and each child is counted from bitboards, with no `Position`
/// (unless one of their kings can capture).
#[inline(always)]
fn quiet_grandchildren<I: Isa, const ROUTES: bool, const CHILD_WHITE: bool>(
    isa: I,
    pos: &Position,
) -> u64 {
    let (us, them) = if CHILD_WHITE {
        (Color::Black, Color::White)
    } else {
        (Color::White, Color::Black)
    };
    let empty = pos.empty();
    let men = pos.men_of(us);
    let promo = us.promotion_rank();
    let leaf = Leaf::<I, ROUTES, CHILD_WHITE> {
        isa,
        pos,
        ours: pos.by_color[us as usize],
        empty,
        their_men: pos.men_of(them),
        their_kings: pos.kings_of(them),
        // The squares their men step to, for each of their directions (as in `count_quiet`).
        steps: man_dirs(them).map(|d| shift(pos.men_of(them), d)),
    };
    let leaf = |from, to, king_after| leaf.count(from, to, king_after);
    let mut n = 0;
    for d in man_dirs(us) {
        let back = d.opposite();
        let mut targets = shift(men, d) & empty;
        while targets != 0 {
            let to = targets & targets.wrapping_neg();
            targets &= targets - 1;
            n += leaf(shift(to, back), to, to & promo);
        }
    }
    let mut kings = pos.kings_of(us);
    while kings != 0 {
        let from = kings & kings.wrapping_neg();
        kings &= kings - 1;
        for d in Dir::ALL {
            let mut targets = fill(from, empty, d) & !from;
            while targets != 0 {
                let to = targets & targets.wrapping_neg();
                targets &= targets - 1;
                n += leaf(from, to, to);
            }
        }
    }
    n
}

/// What the children of one position in [`quiet_grandchildren`] share.
struct Leaf<'a, I: Isa, const ROUTES: bool, const CHILD_WHITE: bool> {
    isa: I,
    pos: &'a Position,
    ours: u64,
    empty: u64,
    their_men: u64,
    their_kings: u64,
    steps: [u64; 3],
}

impl<I: Isa, const ROUTES: bool, const CHILD_WHITE: bool> Leaf<'_, I, ROUTES, CHILD_WHITE> {
    /// The number of legal moves (routes) after our piece moves from `from` to `to`, a king
    /// there after the move if `king_after` is `to`.
    #[inline(always)]
    fn count(&self, from: u64, to: u64, king_after: u64) -> u64 {
        let them = if CHILD_WHITE {
            Color::White
        } else {
            Color::Black
        };
        let ours = self.ours ^ from ^ to;
        let empty = self.empty ^ from ^ to;
        if self.their_kings != 0 && kings_capture(self.their_kings, ours, empty) {
            let mut c = *self.pos;
            c.by_color[!them as usize] = ours;
            c.kings = (c.kings & !from) | king_after;
            c.side = them;
            return count_captures::<ROUTES>(&c);
        }
        let jumpers = man_jumpers_of(them, ours, empty);
        if self.their_men & (jumpers[0] | jumpers[1] | jumpers[2]) != 0 {
            return ManCaptures::<I, CHILD_WHITE> {
                men: self.their_men,
                jumpers,
                isa: self.isa,
            }
            .count();
        }
        let steps = self.steps;
        ((steps[0] & empty).count_ones()
            + (steps[1] & empty).count_ones()
            + (steps[2] & empty).count_ones()) as u64
            + count_king_steps(self.their_kings, empty)
    }
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
            generate_captures::<_, false>(self, list);
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
            generate_captures::<_, true>(self, list);
        } else {
            generate_quiet(self, list);
        }
    }

    /// Number of legal moves (counted without listing them).
    #[inline]
    pub fn count_legal_moves(&self) -> u64 {
        count_legal::<_, false>(Portable, self)
    }

    /// Number of legal routes (see [`Position::legal_routes_into`]), counted without listing.
    #[inline]
    pub fn count_legal_routes(&self) -> u64 {
        count_legal::<_, true>(Portable, self)
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
