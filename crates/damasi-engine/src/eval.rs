//! Static evaluation: a weighted sum of features, blended between a middlegame and an
//! endgame weight set by the number of men left (tapered evaluation). The weights live in one
//! struct, [`Weights`], so that `damasi_tools::tune` can fit them by logistic regression.
//!
//! Only called in quiet positions: the search resolves pending captures first.

use damasi::bitboard::{fill, shift, Dir, FILE_A, FILE_H};
use std::sync::Arc;

use damasi::{Color, Position};

use crate::network::Network;
use crate::patterns::PatternTables;

/// Features, counted for White minus Black unless marked "side to move".
pub mod feature {
    /// Men.
    pub const MAN: usize = 0;
    /// Kings.
    pub const KING: usize = 1;
    /// Men on relative rank 3 .. 7 (index 2..=6 from the own side; rank 2 is the baseline).
    pub const ADV: usize = 2; // ADV + 0 ..= ADV + 4
    /// Men with a free run to promotion (no piece ahead, no enemy man beside the path, no
    /// enemy king), by distance 1, 2, 3, 4+.
    pub const RUNAWAY: usize = 7; // RUNAWAY + 0 ..= RUNAWAY + 3
    /// Quiet moves of men.
    pub const MOB_MAN: usize = 11;
    /// Quiet moves of kings.
    pub const MOB_KING: usize = 12;
    /// Men with a friendly piece right behind them (cannot be taken from the front).
    pub const SUPPORTED: usize = 13;
    /// Men with a friendly piece beside them.
    pub const SIDE_PAIR: usize = 14;
    /// Men on the edge files a and h.
    pub const EDGE: usize = 15;
    /// Men on the own baseline (rank 2 for White) while the opponent still has men: the guard
    /// against enemy promotion.
    pub const GUARD: usize = 16;
    /// Having kings while the opponent has none.
    pub const KING_VS_MEN: usize = 17;
    /// Side to move: pieces of the side to move that the opponent could capture (flying
    /// kings included) if it were its turn.
    pub const THREATENED: usize = 18;
    /// Side to move: a bonus for having the move.
    pub const TEMPO: usize = 19;
    /// Material balance in men (White minus Black, kings as men) times the share of pieces
    /// already gone, `(32 - pieces) / 4`: a side that is ahead wants to trade.
    pub const TRADE: usize = 20;
    /// Men on the central files c to f.
    pub const CENTER: usize = 21;
    /// Number of features.
    pub const COUNT: usize = 22;
    /// Names, for the tuner's output.
    pub const NAMES: [&str; COUNT] = [
        "man",
        "king",
        "adv3",
        "adv4",
        "adv5",
        "adv6",
        "adv7",
        "run1",
        "run2",
        "run3",
        "run4+",
        "mob_man",
        "mob_king",
        "supported",
        "side_pair",
        "edge",
        "guard",
        "king_vs_men",
        "threatened",
        "tempo",
        "trade",
        "center",
    ];
}

use feature as f;

/// Evaluation weights in centi-men: one set for the middlegame (`mg`, many men) and one for the
/// endgame (`eg`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Weights {
    /// Middlegame weights, indexed by [`feature`].
    pub mg: [i32; f::COUNT],
    /// Endgame weights, indexed by [`feature`].
    pub eg: [i32; f::COUNT],
    /// Learned pattern tables added to the feature sum ([`crate::patterns`]); `None` (the
    /// default) is the feature evaluation alone.
    pub patterns: Option<Arc<PatternTables>>,
    /// A learned network added to the feature sum ([`crate::network`]); `None` (the default)
    /// is the feature evaluation alone.
    pub network: Option<Arc<Network>>,
}

impl Default for Weights {
    /// Round 2: the 44 weights refitted (`damasi train fit`, pattern tables off) on 169,982
    /// quiet positions of 2,300 depth-5 self-play games, labels half game result and half
    /// search score (docs/training.md). Beat round 1 (below) +100 ± 47 Elo at 5,000 nodes and
    /// +100 ± 54 at 0.05 s a move (100 games each), then the SPRT in the README.
    fn default() -> Self {
        Weights {
            mg: [
                100, 273, -28, -17, -4, 17, 164, 158, 53, 2, 63, -4, 18, -5, -5, 3, -40, -5, -8,
                15, 18, 1,
            ],
            eg: [
                100, 212, -41, -37, -14, 41, 51, 189, 147, 97, -1, 1, -5, -6, -11, 38, -37, 240,
                -23, 24, 1, -2,
            ],
            patterns: None,
            network: None,
        }
    }
}

impl Weights {
    /// The engine's default evaluation: the features with the [`Default`] weights plus the
    /// network shipped with damasi ([`crate::network::shipped`]).
    pub fn shipped() -> Weights {
        Weights {
            network: Some(crate::network::shipped()),
            ..Weights::default()
        }
    }

    /// Round 1, the default before round 2: Texel-fitted on 54,767 positions of 640 self-play
    /// games; beat the hand-set weights +75 =16 -37 in 128 games (3000 nodes a move).
    pub fn round1() -> Weights {
        Weights {
            mg: [
                100, 252, -8, 6, 13, 35, 48, 69, 42, 27, 11, -2, 39, -10, -3, 10, -15, 1, -8, 11,
                0, 0,
            ],
            eg: [
                100, 301, -3, 7, 23, 44, 75, 159, 103, 63, 28, -3, -7, 4, -7, 25, 3, 74, -23, 14,
                0, 0,
            ],
            patterns: None,
            network: None,
        }
    }

    /// The hand-set weights the tuning started from.
    pub fn hand_set() -> Weights {
        Weights {
            mg: [
                100, 250, 3, 7, 13, 22, 35, 60, 40, 25, 10, 2, 1, 3, 2, -3, 4, 0, -12, 6, 0, 0,
            ],
            eg: [
                100, 300, 6, 13, 24, 40, 65, 150, 100, 60, 25, 2, 2, 2, 1, -2, 0, 60, -12, 4, 0, 0,
            ],
            patterns: None,
            network: None,
        }
    }
}

/// The weights an `eval-file` value names: `none` or empty, the engine's default
/// ([`Weights::shipped`]); `features`, the feature evaluation alone ([`Weights::default`], the
/// evaluation before the network); anything else, a weights or network file
/// ([`crate::patterns::load`]).
pub fn weights_named(value: &str) -> Result<Weights, crate::patterns::WeightsFileError> {
    let value = value.trim();
    if value.is_empty() || value.eq_ignore_ascii_case("none") {
        Ok(Weights::shipped())
    } else if value.eq_ignore_ascii_case("features") {
        Ok(Weights::default())
    } else {
        crate::patterns::load(std::path::Path::new(value))
    }
}

/// Phase scale: [`phase`] returns 0 (no men) ..= `PHASE_MAX` (all 32 men).
pub const PHASE_MAX: i32 = 32;

/// Number of men on the board (the middlegame share of the blend).
#[inline]
pub fn phase(pos: &Position) -> i32 {
    ((pos.pieces_of(Color::White) | pos.pieces_of(Color::Black)) & !pos.kings()).count_ones() as i32
}

/// Relative-rank masks: `RANK_MASK[c][r]` = squares on rank `r` counted from side `c`.
const fn rank_mask(c: usize, r: usize) -> u64 {
    let rank = if c == 0 { r } else { 7 - r };
    0xFFu64 << (8 * rank)
}

/// Squares on the same file strictly ahead of `sq` for side `c`.
const fn ahead(c: usize, sq: usize) -> u64 {
    let file = sq % 8;
    let rank = sq / 8;
    let mut m = 0u64;
    let mut r = 0;
    while r < 8 {
        if (c == 0 && r > rank) || (c == 1 && r < rank) {
            m |= 1u64 << (r * 8 + file);
        }
        r += 1;
    }
    m
}

/// Squares on the neighbouring files at the rank of `sq` and ahead, for side `c`.
const fn beside_ahead(c: usize, sq: usize) -> u64 {
    let file = sq % 8;
    let rank = sq / 8;
    let mut m = 0u64;
    let mut r = 0;
    while r < 8 {
        if (c == 0 && r >= rank) || (c == 1 && r <= rank) {
            if file > 0 {
                m |= 1u64 << (r * 8 + file - 1);
            }
            if file < 7 {
                m |= 1u64 << (r * 8 + file + 1);
            }
        }
        r += 1;
    }
    m
}

const fn tables() -> ([[u64; 64]; 2], [[u64; 64]; 2]) {
    let mut a = [[0u64; 64]; 2];
    let mut b = [[0u64; 64]; 2];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 64 {
            a[c][s] = ahead(c, s);
            b[c][s] = beside_ahead(c, s);
            s += 1;
        }
        c += 1;
    }
    (a, b)
}

static AHEAD_TABLES: ([[u64; 64]; 2], [[u64; 64]; 2]) = tables();

/// Files c, d, e and f.
const CENTER_FILES: u64 = 0x3C3C_3C3C_3C3C_3C3C;

/// Pieces of `victims` that the pieces of `side` (men `men`, kings `kings`) could capture in
/// one jump on a board with empty squares `empty`.
#[inline]
fn attacked(side: Color, men: u64, kings: u64, victims: u64, empty: u64) -> u64 {
    let mut hit = 0;
    for d in [side.forward(), Dir::East, Dir::West] {
        hit |= shift(men, d) & victims & shift(empty, d.opposite());
    }
    if kings != 0 {
        for d in Dir::ALL {
            let reach = fill(kings, empty, d);
            hit |= shift(reach, d) & victims & shift(empty, d.opposite());
        }
    }
    hit
}

/// Whether the opponent of the side to move could capture something if it were its turn
/// (the side to move faces a threat).
#[inline]
pub fn is_threatened(pos: &Position) -> bool {
    let us = pos.side_to_move();
    let them = !us;
    attacked(
        them,
        pos.men_of(them),
        pos.kings_of(them),
        pos.pieces_of(us),
        pos.empty(),
    ) != 0
}

/// Adds the features of one side (its share of "White minus Black") through `add`.
#[inline(always)]
fn side_features(pos: &Position, c: Color, mut add: impl FnMut(usize, i32)) {
    let ci = c as usize;
    let us = pos.pieces_of(c);
    let men = pos.men_of(c);
    let kings = pos.kings_of(c);
    let them_men = pos.men_of(!c);
    let them_kings = pos.kings_of(!c);
    let empty = pos.empty();

    add(f::MAN, men.count_ones() as i32);
    add(f::KING, kings.count_ones() as i32);
    for r in 0..5 {
        add(f::ADV + r, (men & rank_mask(ci, r + 2)).count_ones() as i32);
    }

    // Runaway men: nothing on the file ahead, no enemy man on the neighbouring files at or
    // ahead of it, and no enemy king that could come back.
    if them_kings == 0 {
        let occupied = !empty;
        let mut m =
            men & (rank_mask(ci, 3) | rank_mask(ci, 4) | rank_mask(ci, 5) | rank_mask(ci, 6));
        while m != 0 {
            let sq = m.trailing_zeros() as usize;
            m &= m - 1;
            if AHEAD_TABLES.0[ci][sq] & occupied == 0 && AHEAD_TABLES.1[ci][sq] & them_men == 0 {
                let rank = if ci == 0 { sq / 8 } else { 7 - sq / 8 };
                let dist = 7 - rank; // 1..=4
                add(f::RUNAWAY + (dist - 1).min(3), 1);
            }
        }
    }

    let fwd = c.forward();
    let mob = (shift(men, fwd) & empty).count_ones()
        + (shift(men, Dir::East) & empty).count_ones()
        + (shift(men, Dir::West) & empty).count_ones();
    add(f::MOB_MAN, mob as i32);
    if kings != 0 {
        let mut k = 0;
        for d in Dir::ALL {
            k += (fill(kings, empty, d) & !kings).count_ones();
        }
        add(f::MOB_KING, k as i32);
    }
    add(f::SUPPORTED, (men & shift(us, fwd)).count_ones() as i32);
    add(
        f::SIDE_PAIR,
        (men & shift(us, Dir::East)).count_ones() as i32,
    );
    add(f::EDGE, (men & (FILE_A | FILE_H)).count_ones() as i32);
    add(f::CENTER, (men & CENTER_FILES).count_ones() as i32);
    if them_men != 0 {
        add(f::GUARD, (men & rank_mask(ci, 1)).count_ones() as i32);
    }
    if kings != 0 && them_kings == 0 {
        add(f::KING_VS_MEN, 1);
    }
}

/// Calls `add(feature, value)` for every feature of `pos`: White-minus-Black features from
/// White's view, then the side-to-move features (positive = good for the side to move).
/// The evaluation is `sum(weight * value)` with White's view turned to the side to move's.
#[inline(always)]
pub fn features(
    pos: &Position,
    mut white: impl FnMut(usize, i32),
    mut stm: impl FnMut(usize, i32),
) {
    side_features(pos, Color::White, &mut white);
    side_features(pos, Color::Black, |i, v| white(i, -v));
    let (nw, nb) = (
        pos.count(Color::White) as i32,
        pos.count(Color::Black) as i32,
    );
    white(f::TRADE, (nw - nb) * (32 - nw - nb) / 4);
    let us = pos.side_to_move();
    let them = !us;
    let threatened = attacked(
        them,
        pos.men_of(them),
        pos.kings_of(them),
        pos.pieces_of(us),
        pos.empty(),
    );
    stm(f::THREATENED, threatened.count_ones() as i32);
    stm(f::TEMPO, 1);
}

/// The evaluation of a quiet position in centi-men, from the side to move's view.
#[inline]
pub fn evaluate(pos: &Position, w: &Weights) -> i32 {
    evaluate_within(pos, w, -i32::MAX, i32::MAX)
}

/// How far (centi-men) the pattern tables or the network are assumed to move an evaluation at
/// most, for [`evaluate_within`].
pub const LAZY_MARGIN: i32 = 150;

/// [`evaluate`] for a search that only needs to know how the value compares with `alpha`
/// and `beta`: with pattern tables or a network, a position whose feature sum lies more than
/// [`LAZY_MARGIN`] below `alpha` or above `beta` is given the feature sum, without the
/// tables' lookups or the network (lazy evaluation). Without either it is [`evaluate`].
#[inline]
pub fn evaluate_within(pos: &Position, w: &Weights, alpha: i32, beta: i32) -> i32 {
    evaluate_with(pos, w, alpha, beta, |net, pos| net.score(pos))
}

/// [`evaluate_within`] with the network's value given by `network(net, pos)`: the search
/// passes one that keeps the first layer's sums from ply to ply ([`crate::network::Accumulator`]).
/// It must return [`Network::score`] of `pos`.
#[inline]
pub fn evaluate_with(
    pos: &Position,
    w: &Weights,
    alpha: i32,
    beta: i32,
    network: impl FnOnce(&Network, &Position) -> i32,
) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports `popcnt`, checked just above.
        return unsafe { evaluate_popcnt(pos, w, alpha, beta, network) };
    }
    evaluate_inline(pos, w, alpha, beta, network)
}

/// [`evaluate_within`] compiled with the `popcnt` instruction. The workspace builds for
/// baseline x86-64, where `count_ones` is a dozen instructions; the evaluation counts about
/// fifty bitboards, and this version made `bench` about 10% faster (1.86 s to 1.6-1.7 s of
/// CPU).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn evaluate_popcnt(
    pos: &Position,
    w: &Weights,
    alpha: i32,
    beta: i32,
    network: impl FnOnce(&Network, &Position) -> i32,
) -> i32 {
    evaluate_inline(pos, w, alpha, beta, network)
}

#[inline(always)]
fn evaluate_inline(
    pos: &Position,
    w: &Weights,
    alpha: i32,
    beta: i32,
    network: impl FnOnce(&Network, &Position) -> i32,
) -> i32 {
    let mut mg = 0i32;
    let mut eg = 0i32;
    let mut smg = 0i32;
    let mut seg = 0i32;
    features(
        pos,
        |i, v| {
            mg += w.mg[i] * v;
            eg += w.eg[i] * v;
        },
        |i, v| {
            smg += w.mg[i] * v;
            seg += w.eg[i] * v;
        },
    );
    let p = phase(pos);
    let white = (mg * p + eg * (PHASE_MAX - p)) / PHASE_MAX;
    let stm = (smg * p + seg * (PHASE_MAX - p)) / PHASE_MAX;
    let sign = if pos.side_to_move() == Color::White {
        1
    } else {
        -1
    };
    let v = sign * white + stm;
    if w.patterns.is_none() && w.network.is_none()
        || v + LAZY_MARGIN <= alpha
        || v - LAZY_MARGIN >= beta
    {
        return v;
    }
    let tables = w.patterns.as_ref().map_or(0, |t| sign * t.score_white(pos));
    let net = w.network.as_ref().map_or(0, |n| network(n, pos));
    v + tables + net
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lazy_evaluation_skips_the_tables_only_far_outside_the_window() {
        let plain = Weights::default();
        let values = (0..crate::patterns::ENTRIES)
            .map(|i| (i % 97) as i16)
            .collect();
        let tables = PatternTables::from_values(values).map(Arc::new);
        let learned = Weights {
            patterns: tables,
            ..plain.clone()
        };
        let pos = Position::from_fen("W:Wa3,b3,c2,d4,f3:Bb6,e7,f6,g7,h6").unwrap();
        let (features, full) = (evaluate(&pos, &plain), evaluate(&pos, &learned));
        assert_ne!(features, full, "the tables move this position's value");
        // Inside the window, and near it: the full value.
        assert_eq!(
            evaluate_within(&pos, &learned, features - 10, features + 10),
            full
        );
        let m = LAZY_MARGIN;
        assert_eq!(
            evaluate_within(&pos, &learned, features + m - 1, features + m),
            full
        );
        // Far below alpha or far above beta: the feature sum alone.
        assert_eq!(
            evaluate_within(&pos, &learned, features + m, features + m + 1),
            features
        );
        assert_eq!(
            evaluate_within(&pos, &learned, features - m - 2, features - m),
            features
        );
        // Without tables the window changes nothing.
        assert_eq!(
            evaluate_within(&pos, &plain, features + 500, features + 501),
            features
        );
    }

    #[test]
    fn a_network_adds_its_output_from_the_side_to_move_view() {
        // A network that outputs a constant 37 centi-men (its output bias).
        let mut v = vec![0f32; crate::network::PARAMETERS];
        v[crate::network::B2_AT] = 37.0;
        let net = Weights {
            network: Network::from_parameters(&v).map(Arc::new),
            ..Weights::default()
        };
        let plain = Weights::default();
        for fen in ["W:Wa3,Kd4,e5:Ba6,h7", "B:Wa3,Kd4,e5:Ba6,h7"] {
            let pos = Position::from_fen(fen).unwrap();
            let base = evaluate(&pos, &plain);
            assert_eq!(evaluate(&pos, &net), base + 37, "{fen}");
            // Far outside the window: the feature sum alone (lazy evaluation).
            let m = LAZY_MARGIN;
            assert_eq!(evaluate_within(&pos, &net, base + m, base + m + 1), base);
        }
    }

    #[test]
    fn start_position_is_balanced_but_for_tempo() {
        let w = Weights::default();
        let v = evaluate(&Position::start(), &w);
        assert_eq!(v, w.mg[f::TEMPO]);
        let b = Position::start().with_side_to_move(Color::Black);
        assert_eq!(evaluate(&b, &w), w.mg[f::TEMPO]);
    }

    #[test]
    fn symmetric_positions_score_the_same_for_either_side() {
        let w = Weights::default();
        let a = Position::from_fen("W:Wa3,Kd4,e5:Ba6,h7").unwrap();
        let b = Position::from_fen("B:Ba6,Kd5,e4:Wa3,h2").unwrap();
        assert_eq!(evaluate(&a, &w), evaluate(&b, &w));
    }

    #[test]
    fn material_counts() {
        let w = Weights::default();
        let up = Position::from_fen("W:Wa3,b3,c3:Ba6,b6").unwrap();
        assert!(evaluate(&up, &w) > 50);
        let king = Position::from_fen("W:Wa3,Kd4:Ba6,b6,c6").unwrap();
        assert!(evaluate(&king, &w) > 0);
    }

    #[test]
    fn runaway_man_is_worth_more() {
        let w = Weights::default();
        let free = Position::from_fen("B:Wa6:Bh6,h7").unwrap();
        let blocked = Position::from_fen("B:Wa6:Ba7,h7").unwrap();
        assert!(evaluate(&free, &w) < evaluate(&blocked, &w));
    }
}
