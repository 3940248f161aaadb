//! The players to pair, read from the tournament.

use super::{entry_points, Float, Pl};
use crate::trf::{Colour, RoundEntry, Tournament};
use crate::PairError;
use std::collections::HashSet;

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

/// Builds the per-player data of the players to pair, sorted by score then rank.
pub(super) fn prepare(t: &Tournament) -> Result<(Vec<Pl>, usize, Colour), PairError> {
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
