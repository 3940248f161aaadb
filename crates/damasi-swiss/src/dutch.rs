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

use crate::matching::Dynamic;
use crate::trf::{Colour, RoundEntry, Tournament};
use crate::wide::Wide;
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

/// The rounds considered played, following the TRF: the last round in which someone was
/// paired; a column where every player has an entry counts as played too.
fn played_rounds(t: &Tournament) -> usize {
    let mut played = 0;
    for p in &t.players {
        for (i, e) in p.rounds.iter().enumerate() {
            played = played.max(if e.participated() { i + 1 } else { i });
        }
    }
    if !t.players.is_empty() && t.players.iter().all(|p| p.rounds.len() > played) {
        played += 1;
    }
    played
}

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

impl<const N: usize> Ctx<N> {
    fn sh(&self, score: u32) -> u32 {
        self.shift[&score]
    }

    fn compatible(&self, a: &Pl, b: &Pl) -> bool {
        !a.met.contains(&b.number)
            && (!a.absolute()
                || !b.absolute()
                || a.pref != b.pref
                || (self.last_round
                    && (a.score > self.top_threshold || b.score > self.top_threshold)))
    }

    fn bye_candidate(&self, p: &Pl) -> bool {
        p.bye_ok && p.score <= self.bye_score
    }

    /// The unplayed games `p` brings to the C9 field when paired: those of a player who may
    /// receive the bye, once C9 is in force.
    fn c9_games(&self, p: &Pl) -> u32 {
        if self.c9 && self.bye_candidate(p) {
            p.unplayed
        } else {
            0
        }
    }

    /// The weight of pairing `h` (ranked higher) with `l`, where `l` is in the current
    /// bracket (`in_cur`) or in the next score group (`in_next`).
    fn base_weight(&self, h: usize, l: usize, in_cur: bool, in_next: bool) -> Wide<N> {
        let (hp, lp) = (&self.ps[h], &self.ps[l]);
        if !self.compatible(hp, lp) {
            return Wide::<N>::ZERO;
        }
        let w_bits = self.w_bits;
        let s_bits = self.s_bits;
        let mut w = Wide::<N>::from_u64(
            1 + !self.bye_candidate(hp) as u64 + !self.bye_candidate(lp) as u64,
        );
        let push = |w: &mut Wide<N>, width: u32, v: Wide<N>| *w = w.shl(width).add(&v);
        let small = |b: bool| Wide::<N>::from_u64(b as u64);
        // C6, C7: pairs and their scores in the current bracket.
        push(&mut w, w_bits, small(in_cur));
        push(
            &mut w,
            s_bits,
            if in_cur {
                Wide::<N>::bit(self.sh(hp.score))
            } else {
                Wide::<N>::ZERO
            },
        );
        // C8: pairs and scores in the next bracket.
        push(&mut w, w_bits, small(in_next));
        push(
            &mut w,
            s_bits,
            if in_next {
                Wide::<N>::bit(self.sh(hp.score))
            } else {
                Wide::<N>::ZERO
            },
        );
        // C9: the unplayed games of the players who may get the bye, counted when paired,
        // so that the one left out has the fewest.
        push(
            &mut w,
            self.u_bits,
            Wide::<N>::from_u64((self.c9_games(hp) + self.c9_games(lp)) as u64),
        );
        // C10: topscorers' colour difference beyond ±2.
        push(
            &mut w,
            w_bits,
            small(
                in_cur
                    && (!lp.absolute_imbalance() || !hp.absolute_imbalance() || lp.pref != hp.pref),
            ),
        );
        // C11: topscorers' same colour three times in a row.
        let c11 = !lp.absolute()
            || !hp.absolute()
            || lp.pref != hp.pref
            || if lp.imbalance == hp.imbalance {
                lp.repeated.is_none() || lp.repeated != hp.repeated
            } else {
                let less = if lp.imbalance > hp.imbalance { hp } else { lp };
                less.repeated != lp.pref.map(Colour::invert)
            };
        push(&mut w, w_bits, small(in_cur && c11));
        // C12: colour preferences.
        push(
            &mut w,
            w_bits,
            small(in_cur && compatible_prefs(lp.pref, hp.pref)),
        );
        // C13: strong colour preferences.
        let c13 = (!lp.strong && !lp.absolute())
            || (!hp.strong && !hp.absolute())
            || (lp.absolute() && hp.absolute())
            || lp.pref != hp.pref;
        push(&mut w, w_bits, small(in_cur && c13));
        // C14-C17: repeated floats, one then two rounds back.
        for back in 1..=2usize {
            if self.played < back {
                continue;
            }
            let down = if in_cur {
                (lp.floats[back] == Float::Down) as u64
                    + (hp.score <= lp.score && hp.floats[back] == Float::Down) as u64
            } else {
                0
            };
            push(&mut w, w_bits, Wide::<N>::from_u64(down));
            let up = in_cur && !(hp.score > lp.score && lp.floats[back] == Float::Up);
            push(&mut w, w_bits, small(up));
        }
        // C18-C21: scores of the repeated floaters.
        for back in 1..=2usize {
            if self.played < back {
                continue;
            }
            let mut down = Wide::<N>::ZERO;
            if in_cur {
                if lp.floats[back] == Float::Down {
                    down = down.add(&Wide::<N>::bit(self.sh(lp.score)));
                }
                if hp.floats[back] == Float::Down {
                    down = down.add(&Wide::<N>::bit(self.sh(hp.score)));
                }
            }
            push(&mut w, s_bits, down);
            let up = in_cur && !(lp.floats[back] == Float::Up && hp.score > lp.score);
            push(
                &mut w,
                s_bits,
                if up {
                    Wide::<N>::bit(self.sh(hp.score))
                } else {
                    Wide::<N>::ZERO
                },
            );
        }
        // Room for the ordering rules of the bracket.
        w = w.shl(3 * w_bits + 1);
        w
    }

    /// Sets the weight between `a` and `b`; `a` is the player whose decision it is (the one
    /// the matching re-examines when the change disturbs it).
    fn set(&mut self, a: usize, b: usize, w: Wide<N>) {
        // A finalised pair has left the graph.
        if self.fin[a].is_none() && self.fin[b].is_none() {
            self.matching.set(a, b, w);
        }
    }

    /// Puts the bye criterion C9 in force (C.04.3 Article 2.4.4: minimise the number of
    /// unplayed games of the assignee of the pairing-allocated bye; it applies to the
    /// brackets that downfloat exactly one player, who will end up receiving the bye). The
    /// C9 field is added to every open edge that touches a player who may get the bye, the
    /// rest of each weight (the decisions of the brackets above) kept as it is.
    fn start_c9(&mut self) {
        let n = self.ps.len();
        self.c9 = true;
        let touches: Vec<bool> = (0..n)
            .map(|v| self.fin[v].is_none() && self.c9_games(&self.ps[v]) > 0)
            .collect();
        let mut changes = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                if !(touches[a] || touches[b]) || self.fin[a].is_some() || self.fin[b].is_some() {
                    continue;
                }
                let current = self.matching.weight(a, b);
                if current.is_zero() {
                    continue;
                }
                self.c9 = true;
                let with = self.base_weight(a, b, false, false);
                self.c9 = false;
                let without = self.base_weight(a, b, false, false);
                if with != without {
                    changes.push((a, b, current.add(&with.sub(&without))));
                }
            }
        }
        self.c9 = true;
        for (a, b, w) in changes {
            self.set(a, b, w);
        }
    }

    /// Whether C9 comes into force with this bracket: the number of players is odd, the
    /// bracket is at or below the score of the bye and, by the matching `m` (which already
    /// has the bracket's number of pairs, C6), exactly one of its players `current` floats
    /// down (unpaired, or paired with a player below `end`, the first sorted index of the
    /// scoregroups below the bracket).
    fn c9_applies(&self, current: &[usize], end: usize, m: &[usize]) -> bool {
        let Some(&lowest) = current.last() else {
            return false;
        };
        !self.c9
            && self.ps.len() % 2 == 1
            && self.ps[lowest].score <= self.bye_score
            && current
                .iter()
                .filter(|&&v| m[v] == v || m[v] >= end)
                .count()
                == 1
    }

    /// Maximum-weight matching of the players not finalised yet; `m[v] == v` when unmatched.
    fn compute(&mut self) -> Vec<usize> {
        #[cfg(test)]
        if tests::FRESH_SOLVES.get() {
            self.matching = self.matching.rebuilt();
        }
        let mate = self.matching.solve();
        (0..self.ps.len())
            .map(|v| self.fin[v].or(mate[v]).unwrap_or(v))
            .collect()
    }

    fn finalize(&mut self, a: usize, b: usize) -> Result<(), PairError> {
        if a == b || self.fin[a].is_some() || self.fin[b].is_some() {
            return Err(PairError::NoValidPairing);
        }
        self.fin[a] = Some(b);
        self.fin[b] = Some(a);
        self.matching.fix(a, b);
        Ok(())
    }
}

/// Builds the per-player data of the players to pair, sorted by score then rank.
fn prepare(t: &Tournament) -> Result<(Vec<Pl>, usize, Colour), PairError> {
    let played = played_rounds(t);
    let np = t.players.len();
    // Scores after each number of rounds.
    let score_after = |i: usize, r: usize| t.players[i].score_after(r);
    for p in &t.players {
        let s = p.score_after(played);
        if p.points_tenths != s && p.points_tenths != p.score_after(p.rounds.len()) {
            return Err(PairError::InvalidTournament(format!(
                "player {} has {}.{} points in the file but {}.{} by the results",
                p.number,
                p.points_tenths / 10,
                p.points_tenths % 10,
                s / 10,
                s % 10
            )));
        }
    }
    let valid: Vec<bool> = t
        .players
        .iter()
        .map(|p| p.rounds.len() <= played || p.rounds.iter().any(|e| e.participated()))
        .collect();
    let mut rank = vec![0usize; np];
    let mut r = 0;
    for i in 0..np {
        if valid[i] {
            rank[i] = r;
            r += 1;
        }
    }
    let entry = |i: usize, round: usize| -> RoundEntry {
        t.players[i]
            .rounds
            .get(round)
            .copied()
            .unwrap_or_else(RoundEntry::absent)
    };
    let float_of = |i: usize, back: usize| -> Float {
        if played < back {
            return Float::None;
        }
        let round = played - back;
        let e = entry(i, round);
        if !e.game_played() {
            // No game, no float, unless the player scored more than a loss without
            // playing (1.4.3).
            return if entry_points(&e) > 0 {
                Float::Down
            } else {
                Float::None
            };
        }
        let Some(o) = e.opponent.and_then(|o| t.index_of(o)) else {
            return Float::None;
        };
        let (a, b) = (score_after(i, round), score_after(o, round));
        match a.cmp(&b) {
            std::cmp::Ordering::Greater => Float::Down,
            std::cmp::Ordering::Less => Float::Up,
            std::cmp::Ordering::Equal => Float::None,
        }
    };
    let mut ps = Vec::new();
    for i in 0..np {
        let p = &t.players[i];
        if !valid[i] || p.rounds.len() > played {
            continue;
        }
        let mut colours = Vec::new();
        let mut met = HashSet::new();
        for e in &p.rounds {
            if e.game_played() {
                colours.push(e.colour.expect("played game has a colour"));
                met.insert(e.opponent.expect("played game has an opponent"));
            }
        }
        let whites = colours.iter().filter(|&&c| c == Colour::White).count() as u32;
        let blacks = colours.len() as u32 - whites;
        let last = colours.last().copied();
        let run = colours
            .iter()
            .rev()
            .take_while(|&&c| Some(c) == last)
            .count();
        let lower = if whites > blacks {
            Colour::Black
        } else {
            Colour::White
        };
        let imbalance = whites.abs_diff(blacks);
        let pref = if imbalance > 1 {
            Some(lower)
        } else if run > 1 {
            last.map(Colour::invert)
        } else if imbalance > 0 {
            Some(lower)
        } else {
            last.map(Colour::invert)
        };
        let repeated = if run > 1 { last } else { None };
        let absolute = imbalance > 1 || repeated.is_some();
        let bye_ok = !p
            .rounds
            .iter()
            .any(|e| !e.game_played() && entry_points(e) >= 10);
        // Rounds paired so far in which the player had no game over the board: forfeits
        // (won or lost), byes and absences, and rounds before a late entry.
        let unplayed = (0..played).filter(|&r| !entry(i, r).game_played()).count() as u32;
        ps.push(Pl {
            number: p.number,
            rank: rank[i],
            score: p.score_after(played),
            pref,
            imbalance,
            repeated,
            strong: !absolute && imbalance != 0,
            bye_ok,
            unplayed,
            floats: [Float::None, float_of(i, 1), float_of(i, 2)],
            colours,
            met,
        });
    }
    ps.sort_by(|a, b| b.score.cmp(&a.score).then(a.rank.cmp(&b.rank)));
    // Initial colour: given, or read from the first round where colours were given.
    let initial = t.initial_colour.or_else(|| {
        let min_round = t
            .players
            .iter()
            .filter_map(|p| p.rounds.iter().position(|e| e.colour.is_some()))
            .min()?;
        let mut count = 0usize;
        for (i, p) in t.players.iter().enumerate() {
            if !valid[i] {
                continue;
            }
            if p.rounds
                .iter()
                .take(min_round + 1)
                .any(|e| e.participated())
            {
                if let Some(c) = p.rounds.get(min_round).and_then(|e| e.colour) {
                    return Some(if count % 2 == 1 { c.invert() } else { c });
                }
                count += 1;
            }
        }
        None
    });
    Ok((ps, played, initial.unwrap_or(Colour::White)))
}

/// Colour given to `p` when paired with `o` (Article 5).
fn choose_colour(p: &Pl, o: &Pl, initial: Colour) -> Colour {
    let neutral = if compatible_prefs(p.pref, o.pref) {
        p.pref.or(o.pref.map(Colour::invert))
    } else if p.absolute() && (p.imbalance > o.imbalance || !o.absolute()) {
        p.pref
    } else if o.absolute() && (o.imbalance > p.imbalance || !p.absolute()) {
        o.pref.map(Colour::invert)
    } else if p.strong && !o.strong {
        p.pref
    } else if o.strong && !p.strong {
        o.pref.map(Colour::invert)
    } else {
        // Go back to the last round in which the two had different colours.
        let mut a = p.colours.iter().rev();
        let mut b = o.colours.iter().rev();
        loop {
            match (a.next(), b.next()) {
                (Some(x), Some(y)) if x == y => continue,
                (Some(_), Some(y)) => break Some(*y),
                _ => break None,
            }
        }
    };
    if let Some(c) = neutral {
        return c;
    }
    let p_lower = (p.score, o.rank) < (o.score, p.rank);
    match p.pref {
        None => {
            if p_lower {
                if o.rank % 2 == 1 {
                    initial
                } else {
                    initial.invert()
                }
            } else if p.rank % 2 == 1 {
                initial.invert()
            } else {
                initial
            }
        }
        Some(pref) => {
            if p_lower {
                o.pref.map(Colour::invert).unwrap_or(pref)
            } else {
                pref
            }
        }
    }
}

/// Pairs the next round of the tournament by the Dutch system.
pub(crate) fn pair(t: &Tournament) -> Result<Pairing, PairError> {
    let (ps, played, initial) = prepare(t)?;
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
        0..=2 => pair_with::<2>(setup),
        3 => pair_with::<3>(setup),
        4 => pair_with::<4>(setup),
        5..=6 => pair_with::<6>(setup),
        7..=8 => pair_with::<8>(setup),
        9..=12 => pair_with::<12>(setup),
        13..=16 => pair_with::<16>(setup),
        17..=24 => pair_with::<24>(setup),
        25..=32 => pair_with::<32>(setup),
        33..=64 => pair_with::<64>(setup),
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

/// The pairing proper, with weights of `64 * N` bits.
fn pair_with<const N: usize>(setup: Setup) -> Result<Pairing, PairError> {
    let Setup {
        ps,
        w_bits,
        s_bits,
        u_bits,
        shift,
        played,
        last_round,
        initial,
    } = setup;
    let n = ps.len();
    let mut cx = Ctx::<N> {
        ps,
        w_bits,
        s_bits,
        shift,
        played,
        last_round,
        top_threshold: (played as u32 * 10) / 2,
        bye_score: 0,
        u_bits,
        c9: false,
        matching: Dynamic::new(n),
        fin: vec![None; n],
    };

    // Completability, and the score of the player who will get the bye.
    if n % 2 == 1 {
        let top = cx.ps[0].score;
        for a in 0..n {
            for b in a + 1..n {
                let (h, l) = (&cx.ps[a], &cx.ps[b]);
                let w = if cx.compatible(h, l) {
                    let v = 1 + !h.bye_ok as u64 + !l.bye_ok as u64;
                    Wide::<N>::from_u64(v)
                        .shl(s_bits)
                        .add_u64((cx.sh(h.score) + cx.sh(l.score)) as u64)
                        .shl(w_bits)
                        .add_u64((l.score >= top) as u64)
                } else {
                    Wide::<N>::ZERO
                };
                cx.set(a, b, w);
            }
        }
        let m = cx.compute();
        let unmatched: Vec<usize> = (0..n).filter(|&v| m[v] == v).collect();
        if unmatched.len() > 1 {
            return Err(PairError::NoValidPairing);
        }
        cx.bye_score = cx.ps[unmatched[0]].score;
        cx.matching = Dynamic::new(n);
    }
    for a in 0..n {
        for b in a + 1..n {
            let w = cx.base_weight(a, b, false, false);
            cx.set(a, b, w);
        }
    }
    // With an even number of players, the first bracket's matching (the first solve: the
    // completion criterion outweighs the rest) tells whether everybody can be paired.
    let mut check_complete = n % 2 == 0;

    let mut matched = vec![false; n];
    let mut next_start = 0;
    let mut bracket: Vec<usize> = Vec::new();
    while next_start < n && cx.ps[next_start].score >= cx.ps[0].score {
        bracket.push(next_start);
        next_start += 1;
    }
    let mut n_mdp = 0;
    let mut sgbv = 0;
    while bracket.len() > 1 || next_start < n {
        let cur_end = bracket.len();
        if next_start >= n && n_mdp == cur_end {
            // Only moved-down players are left and no bracket to take them: pair them as
            // the matching says.
            let mut m = cx.compute();
            if cx.c9_applies(&bracket, n, &m) {
                cx.start_c9();
                m = cx.compute();
            }
            for &v in &bracket {
                if cx.fin[v].is_none() && m[v] != v {
                    let u = m[v];
                    cx.finalize(v, u)?;
                }
            }
            break;
        }
        let nsgbv = sgbv + (cur_end - n_mdp);
        if next_start < n {
            let s = cx.ps[next_start].score;
            while next_start < n && cx.ps[next_start].score >= s {
                bracket.push(next_start);
                next_start += 1;
            }
        }
        let len = bracket.len();
        let mut base = vec![vec![Wide::<N>::ZERO; len]; len];
        let set_base = |cx: &mut Ctx<N>, base: &mut Vec<Vec<Wide<N>>>| {
            for b in n_mdp..len {
                for a in 0..b {
                    let w = cx.base_weight(bracket[a], bracket[b], b < cur_end, b >= cur_end);
                    base[b][a] = w;
                    cx.set(bracket[a], bracket[b], w);
                }
            }
        };
        set_base(&mut cx, &mut base);
        let in_res = |u: usize| u >= sgbv && u < nsgbv;
        let mut m = cx.compute();
        if check_complete {
            check_complete = false;
            if (0..n).any(|v| m[v] == v) {
                return Err(PairError::NoValidPairing);
            }
        }
        if cx.c9_applies(&bracket[..cur_end], nsgbv, &m) {
            cx.start_c9();
            set_base(&mut cx, &mut base);
            m = cx.compute();
        }

        // Which moved-down players are paired in this bracket.
        let mut cur_score = 0;
        let mut remaining = 0usize;
        let mut remaining_matched = 0usize;
        for idx in 0..n_mdp {
            let v = bracket[idx];
            if idx == 0 || cx.ps[v].score < cur_score {
                cur_score = cx.ps[v].score;
                remaining = 0;
                remaining_matched = 0;
                let mut j = idx;
                while j < len && cx.ps[bracket[j]].score >= cur_score {
                    remaining += 1;
                    if in_res(m[bracket[j]]) {
                        remaining_matched += 1;
                    }
                    j += 1;
                }
            }
            if remaining_matched == 0 {
                continue;
            }
            if remaining <= remaining_matched {
                matched[v] = true;
                continue;
            }
            remaining -= 1;
            if !in_res(m[v]) {
                for r in n_mdp..cur_end {
                    let bw = base[r][idx];
                    if !bw.is_zero() {
                        cx.set(v, bracket[r], bw.or_u64(1));
                    }
                }
                m = cx.compute();
            }
            if in_res(m[v]) {
                matched[v] = true;
                remaining_matched -= 1;
                for r in n_mdp..cur_end {
                    let bw = base[r][idx];
                    if !bw.is_zero() {
                        cx.set(
                            v,
                            bracket[r],
                            bw.or_u64((cur_end - n_mdp) as u64).add_u64(1),
                        );
                    }
                }
            }
        }

        // Their opponents: the highest-ranked resident that keeps the matching optimal.
        for idx in 0..n_mdp {
            let v = bracket[idx];
            if !matched[v] {
                continue;
            }
            let mut addend = len as u64;
            for r in (n_mdp..cur_end).rev() {
                let u = bracket[r];
                if matched[u] {
                    continue;
                }
                let bw = base[r][idx];
                if !bw.is_zero() {
                    cx.set(v, u, bw.add_u64(addend));
                    addend += 1;
                }
            }
            m = cx.compute();
            let u = m[v];
            matched[u] = true;
            cx.finalize(v, u)?;
        }

        // The remainder (homogeneous part): S1 and S2.
        let mut rem: Vec<usize> = Vec::new();
        let mut rem_pairs = 0usize;
        for (r, &v) in bracket.iter().enumerate().take(cur_end).skip(n_mdp) {
            if m[v] < sgbv {
                continue;
            }
            rem.push(r);
            if m[v] < v {
                rem_pairs += 1;
            }
        }
        if !rem.is_empty() {
            let w2 = 2 * w_bits;
            let ewc = |base: &Vec<Vec<Wide<N>>>, a: usize, b: usize, a_rem: usize| -> Wide<N> {
                let bw = base[b][a];
                if bw.is_zero() {
                    return bw;
                }
                let addend = Wide::<N>::from_u64((a_rem < rem_pairs) as u64)
                    .shl(w2)
                    .sub_u64(a_rem as u64)
                    .shl(1);
                bw.add(&addend)
            };
            for (ai, &a) in rem.iter().enumerate() {
                for &b in &rem[ai + 1..] {
                    let w = ewc(&base, a, b, ai);
                    cx.set(bracket[a], bracket[b], w);
                }
            }
            m = cx.compute();
            let head = |m: &Vec<usize>, v: usize| m[v] > v && m[v] < nsgbv;
            let exchange_count = rem[..rem_pairs]
                .iter()
                .filter(|&&r| !head(&m, bracket[r]))
                .count();

            // Exchange the lowest S1 players first.
            let mut ex_rem = exchange_count;
            let mut pos = rem_pairs;
            while pos > 0 && ex_rem > 0 {
                pos -= 1;
                let pi = rem[pos];
                let pv = bracket[pi];
                if head(&m, pv) {
                    for &o in &rem[pos + 1..] {
                        let w = ewc(&base, pi, o, pos);
                        if !w.is_zero() {
                            cx.set(pv, bracket[o], w.sub_u64(1));
                        }
                    }
                    m = cx.compute();
                }
                let exchange = !head(&m, pv);
                if exchange {
                    ex_rem -= 1;
                }
                for &o in &rem[pos + 1..] {
                    if exchange {
                        base[o][pi] = Wide::<N>::ZERO;
                    }
                    let w = ewc(&base, pi, o, pos);
                    cx.set(pv, bracket[o], w);
                }
            }

            // And the highest S2 players.
            let mut ex_rem = exchange_count;
            let mut pos = rem_pairs;
            while pos < rem.len() && ex_rem > 1 {
                let qi = rem[pos];
                let qv = bracket[qi];
                let already = head(&m, qv);
                if !already {
                    for &o in &rem[pos + 1..] {
                        let w = ewc(&base, qi, o, pos);
                        if !w.is_zero() {
                            cx.set(qv, bracket[o], w.add_u64(1));
                        }
                    }
                    m = cx.compute();
                }
                if head(&m, qv) {
                    ex_rem -= 1;
                    for &o in &rem[..pos] {
                        base[qi][o] = Wide::<N>::ZERO;
                        cx.set(qv, bracket[o], Wide::<N>::ZERO);
                    }
                    for nx in cur_end..len {
                        base[nx][qi] = Wide::<N>::ZERO;
                        cx.set(qv, bracket[nx], Wide::<N>::ZERO);
                    }
                }
                if !already {
                    for &o in &rem[pos + 1..] {
                        let w = ewc(&base, qi, o, pos);
                        cx.set(qv, bracket[o], w);
                    }
                }
                pos += 1;
            }

            // Fix the new S1: its players may only pair downwards, the others upwards.
            for (ai, &a) in rem.iter().enumerate() {
                let av = bracket[a];
                for &b in &rem[ai + 1..] {
                    let bv = bracket[b];
                    if !head(&m, av) || head(&m, bv) {
                        base[b][a] = Wide::<N>::ZERO;
                    }
                    cx.set(av, bv, base[b][a]);
                }
            }

            // Each S1 player in turn takes the highest S2 player possible.
            for (ai, &a) in rem.iter().enumerate() {
                let av = bracket[a];
                if !head(&m, av) {
                    continue;
                }
                let mut addend = 0u64;
                for &b in rem[ai + 1..].iter().rev() {
                    let bv = bracket[b];
                    if matched[bv] {
                        continue;
                    }
                    let bw = base[b][a];
                    if !bw.is_zero() {
                        cx.set(av, bv, bw.add_u64(addend));
                    }
                    addend += 1;
                }
                m = cx.compute();
                let u = m[av];
                matched[av] = true;
                matched[u] = true;
                cx.finalize(av, u)?;
            }
        }

        // Unpaired players move down.
        let mut next = Vec::new();
        let mut next_mdp = 0;
        for (idx, &v) in bracket.iter().enumerate() {
            if idx < cur_end && matched[v] {
                continue;
            }
            next.push(v);
            if idx < cur_end {
                next_mdp += 1;
            }
        }
        bracket = next;
        n_mdp = next_mdp;
        sgbv = nsgbv;
    }

    // Collect the pairs and the bye, with colours.
    let mut pairs = Vec::new();
    let mut bye = None;
    for v in 0..n {
        match cx.fin[v] {
            Some(u) if u > v => {
                let (a, b) = if cx.ps[v].number < cx.ps[u].number {
                    (v, u)
                } else {
                    (u, v)
                };
                let c = choose_colour(&cx.ps[a], &cx.ps[b], initial);
                let (pa, pb) = (cx.ps[a].number, cx.ps[b].number);
                pairs.push(if c == Colour::White {
                    (pa, pb)
                } else {
                    (pb, pa)
                });
            }
            Some(_) => {}
            None => {
                if bye.is_some() {
                    return Err(PairError::NoValidPairing);
                }
                bye = Some(cx.ps[v].number);
            }
        }
    }
    // Order of publication: higher score of the pair, lower score, rank of the higher.
    let key = |&(w, b): &(u32, u32)| {
        let pw = cx.ps.iter().find(|p| p.number == w).expect("player");
        let pb = cx.ps.iter().find(|p| p.number == b).expect("player");
        let (hi, lo) = if (pw.score, pb.rank) >= (pb.score, pw.rank) {
            (pw, pb)
        } else {
            (pb, pw)
        };
        (
            std::cmp::Reverse(hi.score),
            std::cmp::Reverse(lo.score),
            hi.rank,
        )
    };
    pairs.sort_by_key(key);
    Ok(Pairing { pairs, bye })
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
