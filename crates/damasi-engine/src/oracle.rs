//! The hook for endgame tablebases: an [`EndgameOracle`] knows the game-theoretic value of
//! positions with few pieces (for example `damasi-tb`'s tables, through its adapter). The
//! engine holds one optionally ([`crate::Engine::set_endgame_oracle`]); the engine itself
//! depends on no table format.
//!
//! How the search uses it (default rules only: the tables know no other rule set):
//! - Inside the search, a position whose captures are resolved (no capture pending: captures
//!   are forced) and whose pieces the oracle covers scores [`TB_WIN`] minus its ply when won,
//!   0 when drawn, the negative when lost. Known wins sit above every evaluation and below
//!   every win on the board, so the search still prefers a real win, and a shorter way into a
//!   known win.
//! - At the root, the moves are filtered to those keeping the best value, so a won position
//!   is never thrown away and a drawn one never lost. When the oracle also knows distances to
//!   conversion ([`EndgameOracle::probe_dtc`]), a won root keeps only the moves that reach
//!   the next capture, promotion or forward step of a man soonest (a lost root: latest), so
//!   every move makes progress and the win is converted whatever the search then picks.
//! - When the root itself is a known win (or loss), positions with as many pieces as the root
//!   that only confirm that value are searched on instead of being cut: otherwise every move
//!   would score the same and the engine would circle. The search then looks for the real
//!   conversion (a capture into a smaller known win, a promotion, a win on the board) and
//!   the losing side for the longest resistance; the reported score is kept a known win (or
//!   loss).

use damasi::{Color, MoveList, Position};

// The value type is the rules crate's; the search (`search/tablebase.rs`) still names it here.
pub(crate) use damasi::Wdl;

pub use crate::score::{TB_WIN, TB_WIN_BOUND};

/// Something that knows the value of some positions under the default rules.
pub trait EndgameOracle: Send + Sync {
    /// The most pieces (both sides together) a position may have for [`probe_wdl`] to be
    /// worth asking; the search asks nothing about larger positions.
    ///
    /// [`probe_wdl`]: EndgameOracle::probe_wdl
    fn max_pieces(&self) -> u32;

    /// The value of `pos` for the side to move, or `None` if unknown (too many pieces, a
    /// missing or damaged table). Positions with a capture pending may be asked too (the
    /// root's children): their value is the best over the captures.
    fn probe_wdl(&self, pos: &Position) -> Option<Wdl>;

    /// For a won or lost `pos`, the distance to conversion: with best play (the winner
    /// hurrying, the loser delaying) the plies until the next capture, promotion or forward
    /// step of a man, the moves that can never be undone. `None` if unknown (a draw, no
    /// distance tables). Asked about the root's children only.
    fn probe_dtc(&self, _pos: &Position) -> Option<u32> {
        None
    }

    /// Reads now whatever the first probes would otherwise read (tables loaded from disk on
    /// first use), so that no search pays for it on its clock. The Hub engine calls it at
    /// `init` and `new-game`; the default does nothing.
    fn prepare(&self) {}
}

/// Whether the move from `pos` to `child` can never be undone: a capture, a promotion or a
/// man's forward step (a man's sideways step and a king's move can be). These are the moves
/// distances to conversion count to.
pub fn converts(pos: &Position, child: &Position) -> bool {
    let ranks =
        |men: u64| -> [u32; 8] { std::array::from_fn(|r| (men >> (8 * r) & 0xFF).count_ones()) };
    pieces(child) != pieces(pos)
        || [Color::White, Color::Black]
            .iter()
            .any(|&c| ranks(pos.men_of(c)) != ranks(child.men_of(c)))
}

/// Pieces on the board, both sides.
#[inline]
pub(crate) fn pieces(pos: &Position) -> u32 {
    pos.count(Color::White) + pos.count(Color::Black)
}

/// The search score of a value found `ply` plies from the root.
#[inline]
pub(crate) fn score_of(v: Wdl, ply: usize) -> i32 {
    match v {
        Wdl::Win => TB_WIN - ply as i32,
        Wdl::Draw => 0,
        Wdl::Loss => -(TB_WIN - ply as i32),
    }
}

/// What the oracle says about the root.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct RootValue {
    /// The best value over the root moves, for the side to move at the root.
    pub value: Wdl,
    /// Pieces on the board after the root move (the root's own, unless it must capture).
    pub pieces: u32,
}

/// Keeps only the root moves that keep the best value, when the oracle knows every move's;
/// returns that value. Leaves `legal` alone when some move's value is unknown.
pub(crate) fn filter_root(
    oracle: &dyn EndgameOracle,
    pos: &Position,
    legal: &mut MoveList,
) -> Option<RootValue> {
    if legal.is_empty() || pieces(pos) > oracle.max_pieces() {
        return None;
    }
    let mut values = Vec::with_capacity(legal.len());
    let mut after = u32::MAX;
    for m in legal.iter() {
        let child = pos.play(m);
        after = after.min(pieces(&child));
        values.push(oracle.probe_wdl(&child)?.negate());
    }
    let best = *values.iter().max()?;
    let mut i = 0;
    legal.retain(|_| {
        i += 1;
        values[i - 1] == best
    });
    if best != Wdl::Draw {
        keep_fastest_conversion(oracle, pos, legal, best);
    }
    Some(RootValue {
        value: best,
        pieces: after,
    })
}

/// With distances to conversion for every move of a won (lost) root, keeps the moves that
/// reach the next irreversible move soonest (latest): each such move brings the conversion a
/// ply nearer, so a won ending is converted, never circled, whatever the search then picks.
fn keep_fastest_conversion(
    oracle: &dyn EndgameOracle,
    pos: &Position,
    legal: &mut MoveList,
    value: Wdl,
) {
    let mut plies = Vec::with_capacity(legal.len());
    for m in legal.iter() {
        let child = pos.play(m);
        let d = if converts(pos, &child) {
            1
        } else {
            match oracle.probe_dtc(&child) {
                Some(d) => d + 1,
                None => return,
            }
        };
        plies.push(d);
    }
    let target = if value == Wdl::Win {
        plies.iter().min()
    } else {
        plies.iter().max()
    };
    let Some(&target) = target else { return };
    let mut i = 0;
    legal.retain(|_| {
        i += 1;
        plies[i - 1] == target
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_score_by_ply() {
        assert_eq!(score_of(Wdl::Win, 3), TB_WIN - 3);
        assert_eq!(score_of(Wdl::Loss, 3), -(TB_WIN - 3));
        assert_eq!(score_of(Wdl::Draw, 3), 0);
    }
}
