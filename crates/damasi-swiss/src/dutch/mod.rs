//! The FIDE Dutch system (C.04.3, rules in force from 2025).
//!
//! # How the pairing is found
//!
//! Every pairing decision is made with a maximum-weight matching over *all* players still to
//! be paired. Each possible pair gets one big integer weight whose bit fields, most
//! significant first, hold the criteria in FIDE's order of priority, so that a heavier
//! matching is always the better one by the rules (the criteria are numbered as in the 2025
//! text, C1 to C21 of its Article 2):
//!
//! 1. completion: the absolute criteria C1 (no rematch) and C3 (no two non-topscorers with
//!    the same absolute colour preference) remove the edge; every pair counts, plus each
//!    player who may not receive the pairing-allocated bye (C2) or whose score is above
//!    the lowest that the bye can go to (C5, found by a first matching), so the whole
//!    round is always paired (the completion criterion, C4);
//! 2. the number of pairs in the current bracket, then the scores paired (fewest and
//!    lowest downfloaters, C6 and C7);
//! 3. the number of pairs and the scores in the next bracket (C8: the downfloaters chosen
//!    must let the next bracket pair as well as possible);
//! 4. the unplayed games of the bye assignee (C9, Article 2.4.4): each player who may
//!    receive the pairing-allocated bye adds, when paired, the number of rounds in which
//!    they had no game over the board (forfeits, byes, absences), so the one left out has
//!    the fewest. The rule applies only to the brackets that downfloat exactly one player,
//!    who ends up with the bye: the field stays at zero until the first such bracket (at
//!    or below the bye's score, with one downfloater by the matching) and is then added to
//!    every edge still open;
//! 5. the topscorers' colour criteria (colour difference beyond ±2, same colour three times
//!    in a row; they only arise in the last round, where C3 is relaxed for topscorers),
//!    then colour preferences, then strong colour preferences (C10 to C13);
//! 6. repeated floats: downfloats and upfloats of the previous round, then of two rounds
//!    before (C14 to C17), then the scores of those floaters (C18 to C21);
//! 7. low bits left free for the bracket's ordering rules (exchanges and transpositions,
//!    Article 4), used in the steps below.
//!
//! Readings of the rules, matching the reference implementation (bbpPairings `--dutch`):
//! a forfeited game is no game (no rematch ban, no colour, no float), but a player who
//! scores more than a loss without playing (forfeit win, bye) counts as a downfloater
//! (1.4.3); a forfeit win or any bye worth a win makes the player ineligible for the
//! pairing-allocated bye; topscorers are those above half the maximum score when the last
//! round (`XXR`) is paired.
//!
//! Brackets are then processed from the top score down. For each one the matching tells how
//! many moved-down players (MDPs) can be paired and with which scores; the MDPs actually
//! paired are chosen in rank order, each given the highest-ranked resident that still allows
//! an optimal matching. The remainder is split into S1 (top half) and S2; the exchanges
//! between them are the fewest possible, with the smallest difference of pairing positions,
//! taking the lowest S1 players and the highest S2 players first (Article 4 of C.04.3); then
//! each S1 player in turn gets the highest S2 player that still allows an optimal matching
//! (the transposition order). Players left unpaired move down to the next bracket; because
//! every decision keeps the whole round completable, the "collapsed last bracket" is never
//! needed explicitly.
//!
//! Colours follow Article 5 (E1-E5): both preferences if compatible, else the stronger
//! preference (absolute, then greater colour difference, then strong), else alternate from
//! the last round the two players had different colours, else the higher ranked player's
//! preference, else the initial colour by pairing number parity.
//!
//! The code is split by what each part does: `players` reads the tournament into the
//! players to pair, `weights` holds the edge weights and the matching, `brackets` walks the
//! brackets and makes the decisions, and `colour` gives each pair its colours. The shared
//! types stay here, so that every part reads their fields directly.

mod brackets;
mod colour;
mod players;
mod weights;

use crate::matching::Dynamic;
use crate::trf::{Colour, RoundEntry, Tournament};
use crate::{PairError, Pairing};
use std::collections::{BTreeMap, HashSet};

/// Float direction of a player in a past round.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Float {
    Down,
    Up,
    None,
}

/// What the pairing needs to know about one player.
#[derive(Clone, Debug)]
struct Pl {
    /// Pairing number.
    number: u32,
    /// Rank among the valid players by pairing number (0-based).
    rank: usize,
    /// Score in tenths.
    score: u32,
    /// Colour preference.
    pref: Option<Colour>,
    /// |whites - blacks| over played games.
    imbalance: u32,
    /// Colour of the last two played games when they are the same.
    repeated: Option<Colour>,
    /// Strong (not absolute) preference: colour difference ±1.
    strong: bool,
    /// May receive the pairing-allocated bye (C2).
    bye_ok: bool,
    /// Rounds so far without a game played over the board (C9).
    unplayed: u32,
    /// Floats one and two rounds back (index 1 and 2).
    floats: [Float; 3],
    /// Colours of played games, in order.
    colours: Vec<Colour>,
    /// Pairing numbers of the opponents actually met over the board.
    met: HashSet<u32>,
}

impl Pl {
    fn absolute(&self) -> bool {
        self.imbalance > 1 || self.repeated.is_some()
    }
    fn absolute_imbalance(&self) -> bool {
        self.imbalance > 1
    }
}

/// Number of bits needed to write `x`.
fn bits(x: usize) -> u32 {
    usize::BITS - x.leading_zeros()
}

/// Points in tenths of one round entry, as the pairing counts them.
fn entry_points(e: &RoundEntry) -> u32 {
    e.result.points_tenths()
}

fn compatible_prefs(a: Option<Colour>, b: Option<Colour>) -> bool {
    a.is_none() || b.is_none() || a != b
}

/// The state of one pairing: the players, the bit fields of the weights, the matching and
/// the decisions made so far.
struct Ctx<const N: usize> {
    ps: Vec<Pl>,
    w_bits: u32,
    s_bits: u32,
    shift: BTreeMap<u32, u32>,
    played: usize,
    last_round: bool,
    top_threshold: u32,
    bye_score: u32,
    /// Width of the field of the bye assignee's unplayed games (C9).
    u_bits: u32,
    /// Whether C9 is in force: set from the bracket that downfloats only the bye assignee.
    c9: bool,
    /// The matching over the sorted players, kept up to date as edge weights change.
    matching: Dynamic<N>,
    /// Finalised partner of each sorted player.
    fin: Vec<Option<usize>>,
}

/// Pairs the next round of the tournament by the Dutch system.
pub(crate) fn pair(t: &Tournament) -> Result<Pairing, PairError> {
    let (ps, played, initial) = players::prepare(t)?;
    if ps.is_empty() {
        return Ok(Pairing {
            pairs: Vec::new(),
            bye: None,
        });
    }
    // Score groups and their bit fields, from the lowest score up.
    let mut group_sizes: BTreeMap<u32, usize> = BTreeMap::new();
    for p in &ps {
        *group_sizes.entry(p.score).or_default() += 1;
    }
    let mut shift = BTreeMap::new();
    let mut s_bits = 0;
    for (&score, &size) in &group_sizes {
        shift.insert(score, s_bits);
        s_bits += bits(size);
    }
    let w_bits = bits(group_sizes.values().copied().max().unwrap_or(1));
    let expected = t.total_rounds.unwrap_or(0) as usize;
    // The C9 field holds at most the unplayed games of every player who may get the bye.
    let u_bits = bits(
        ps.iter()
            .filter(|p| p.bye_ok)
            .map(|p| p.unplayed as usize)
            .sum(),
    );
    let setup = Setup {
        ps,
        w_bits,
        s_bits,
        u_bits,
        shift,
        played,
        last_round: expected > 0 && played + 1 >= expected,
        initial,
    };
    // The weights' width, with room for sums over all pairs, the matching's factor of 4 and
    // the duals of its perfect mode (which may go below zero).
    let needed = setup.weight_bits() + bits(setup.ps.len()) + 6;
    // Every limb costs time in the matching's inner loop: the narrowest that fits.
    match needed.div_ceil(64) {
        0..=2 => brackets::pair_with::<2>(setup),
        3 => brackets::pair_with::<3>(setup),
        4 => brackets::pair_with::<4>(setup),
        5..=6 => brackets::pair_with::<6>(setup),
        7..=8 => brackets::pair_with::<8>(setup),
        9..=12 => brackets::pair_with::<12>(setup),
        13..=16 => brackets::pair_with::<16>(setup),
        17..=24 => brackets::pair_with::<24>(setup),
        25..=32 => brackets::pair_with::<32>(setup),
        33..=64 => brackets::pair_with::<64>(setup),
        _ => Err(PairError::TooLarge),
    }
}

/// What [`pair`] computes before choosing the width of the weights.
struct Setup {
    ps: Vec<Pl>,
    w_bits: u32,
    s_bits: u32,
    u_bits: u32,
    shift: BTreeMap<u32, u32>,
    played: usize,
    last_round: bool,
    initial: Colour,
}

impl Setup {
    /// Total number of bits of [`Ctx::base_weight`].
    fn weight_bits(&self) -> u32 {
        let f = (self.played >= 1) as u32 + (self.played >= 2) as u32;
        2 + self.w_bits * (1 + 1 + 4 + 2 * f + 3) + self.u_bits + self.s_bits * (4 + 2 * f) + 1
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::{pair_next_round, GameResult, Tournament};
    use std::cell::Cell;

    thread_local! {
        /// Solve every matching from scratch (the way the pairing was first written).
        pub(crate) static FRESH_SOLVES: Cell<bool> = const { Cell::new(false) };
    }

    /// The matching kept up to date over a round's decisions pairs exactly as a matching
    /// solved anew for each decision: random tournaments of 20 to 70 players (with some
    /// forfeits), every round.
    #[test]
    fn kept_matching_pairs_as_a_new_one_would() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut rounds_checked = 0;
        for _ in 0..12 {
            let n = 20 + rnd() % 51;
            let rounds = 5 + rnd() % 4;
            let mut trf = String::new();
            for i in 1..=n {
                let rating = 2400 - i * 7;
                trf.push_str(&format!(
                    "001 {i:>4}      {:<33} {rating:>4}                             0.0\n",
                    format!("Player {i}")
                ));
            }
            trf.push_str(&format!("XXR {rounds}\nXXC white1\n"));
            let mut t = Tournament::from_trf(&trf).expect("a valid tournament");
            for round in 1..=rounds {
                FRESH_SOLVES.set(true);
                let fresh = pair_next_round(&t);
                FRESH_SOLVES.set(false);
                let kept = pair_next_round(&t);
                assert_eq!(kept, fresh, "{n} players, round {round}");
                let Ok(pairing) = kept else { break };
                let results: Vec<GameResult> = pairing
                    .pairs
                    .iter()
                    .map(|_| match rnd() % 12 {
                        0..=3 => GameResult::WhiteWins,
                        4..=6 => GameResult::Draw,
                        7..=9 => GameResult::BlackWins,
                        // Forfeits: unplayed games, so the bye's criterion C9 is at work.
                        10 => GameResult::WhiteWinsByForfeit,
                        _ => GameResult::BlackWinsByForfeit,
                    })
                    .collect();
                t.add_round(&pairing, &results).expect("the round fits");
                rounds_checked += 1;
            }
        }
        assert!(rounds_checked > 50, "{rounds_checked} rounds");
    }
}
