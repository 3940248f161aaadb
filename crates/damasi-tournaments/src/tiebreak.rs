//! Standings of a Swiss tournament or a round robin: points, then the tie-breaks the organiser
//! chose in their order (the federation's default for a Swiss: Buchholz cut-1, Buchholz,
//! Sonneborn-Berger, wins; for a round robin: Sonneborn-Berger, direct encounter, wins, Koya),
//! then the pairing number.
//!
//! The tie-breaks follow FIDE's tie-break regulations (C.07, 2023 and later):
//! - an opponent's score is their final score as it stands;
//! - a round the player did not play over the board (a bye, a forfeit either way, an absence)
//!   counts as a game against a *dummy opponent* with the player's own score;
//! - cut-1 drops the least value, and a round the player chose not to play (a zero- or
//!   half-point bye, a forfeit loss, an absence) is cut before any other.
//!
//! - direct encounter (DE) is worked out among the players still tied when it is reached (equal
//!   points and equal on every tie-break before it): the points each scored in the games
//!   between them, forfeits counted as their result, if every two of them have met (at least
//!   once); else, or for a player tied with nobody, 0;
//! - Koya (KS) is the points scored against the opponents who have at least half of the
//!   points they could have scored (one a round, rounds without an opponent or a game left
//!   out: a round robin's rest round, an absence), forfeits counted as their result.
//!
//! Points are counted in half points (`u32`, a win 2, a draw 1) so that every value is exact.

use damasi_swiss::{ResultCode, RoundEntry};
use serde::{Deserialize, Serialize};

/// A tie-break.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Tiebreak {
    /// Buchholz with the least significant value cut (FIDE's BH-C1).
    BuchholzCut1,
    /// Buchholz: the sum of the opponents' scores (BH).
    Buchholz,
    /// Sonneborn-Berger: the sum of each opponent's score times the points scored against
    /// them (SB).
    SonnebornBerger,
    /// Games won over the board (FIDE's WON).
    Wins,
    /// Direct encounter (FIDE's DE): the points scored in the games among the tied players,
    /// if all of them have met.
    DirectEncounter,
    /// The Koya system (FIDE's KS): points scored against the opponents with at least half of
    /// the possible points.
    Koya,
}

impl Tiebreak {
    /// The federation's order: Buchholz cut-1, Buchholz, Sonneborn-Berger, wins.
    pub const FEDERATION: [Tiebreak; 4] = [
        Tiebreak::BuchholzCut1,
        Tiebreak::Buchholz,
        Tiebreak::SonnebornBerger,
        Tiebreak::Wins,
    ];

    /// The default for a round robin: Sonneborn-Berger, direct encounter, wins, Koya.
    pub const ROUND_ROBIN: [Tiebreak; 4] = [
        Tiebreak::SonnebornBerger,
        Tiebreak::DirectEncounter,
        Tiebreak::Wins,
        Tiebreak::Koya,
    ];

    /// Its short name (FIDE's abbreviation).
    pub fn abbreviation(self) -> &'static str {
        match self {
            Tiebreak::BuchholzCut1 => "BH-C1",
            Tiebreak::Buchholz => "BH",
            Tiebreak::SonnebornBerger => "SB",
            Tiebreak::Wins => "WON",
            Tiebreak::DirectEncounter => "DE",
            Tiebreak::Koya => "KS",
        }
    }
}

/// One player's line in the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Standing {
    /// Place, from 1.
    pub rank: u32,
    /// Pairing number.
    pub number: u32,
    /// Points in half points.
    pub halves: u32,
    /// The tie-break values in the order asked: Buchholz, direct encounter and Koya in half
    /// points, Sonneborn-Berger in quarter points (a score times points), wins as a count.
    pub tiebreaks: Vec<u32>,
}

/// Half points a round gave.
fn halves(result: ResultCode) -> u32 {
    result.points_tenths() / 5
}

/// Whether the round is one the player chose not to play (cut first).
fn voluntarily_unplayed(result: ResultCode) -> bool {
    matches!(
        result,
        ResultCode::ZeroPointBye
            | ResultCode::HalfPointBye
            | ResultCode::ForfeitLoss
            | ResultCode::Absent
    )
}

/// The standings of players whose rounds are `rounds[i]` (player `i` has pairing number
/// `i + 1`; an entry's `opponent` is a pairing number), by points then `order`.
pub fn standings(rounds: &[Vec<RoundEntry>], order: &[Tiebreak]) -> Vec<Standing> {
    let score: Vec<u32> = rounds
        .iter()
        .map(|r| r.iter().map(|e| halves(e.result)).sum())
        .collect();
    let opponent_score = |e: &RoundEntry, own: u32| -> u32 {
        match e.opponent {
            Some(o) if e.game_played() => score.get(o as usize - 1).copied().unwrap_or(0),
            _ => own,
        }
    };
    // Koya: whether player `o` has at least half of the points they could have scored, a
    // point for each round but a rest round (zero-point bye) or an absence: their score in
    // half points is at least that number of rounds.
    let at_least_half = |o: u32| -> bool {
        let Some(r) = rounds.get(o as usize - 1) else {
            return false;
        };
        let possible = r
            .iter()
            .filter(|e| !matches!(e.result, ResultCode::ZeroPointBye | ResultCode::Absent))
            .count() as u32;
        score[o as usize - 1] >= possible
    };
    let mut lines: Vec<Standing> = rounds
        .iter()
        .enumerate()
        .map(|(i, entries)| {
            let own = score[i];
            let values = order
                .iter()
                .map(|t| match t {
                    Tiebreak::Buchholz => entries.iter().map(|e| opponent_score(e, own)).sum(),
                    Tiebreak::BuchholzCut1 => {
                        let all: Vec<(bool, u32)> = entries
                            .iter()
                            .map(|e| (voluntarily_unplayed(e.result), opponent_score(e, own)))
                            .collect();
                        let total: u32 = all.iter().map(|(_, v)| v).sum();
                        let cut = all
                            .iter()
                            .find(|(vur, _)| *vur)
                            .map(|(_, v)| *v)
                            .or_else(|| all.iter().map(|(_, v)| *v).min())
                            .unwrap_or(0);
                        total - cut
                    }
                    // Score (half points) times points (half points): quarter points.
                    Tiebreak::SonnebornBerger => entries
                        .iter()
                        .map(|e| opponent_score(e, own) * halves(e.result))
                        .sum(),
                    Tiebreak::Wins => entries
                        .iter()
                        .filter(|e| {
                            e.game_played()
                                && matches!(e.result, ResultCode::Win | ResultCode::UnratedWin)
                        })
                        .count() as u32,
                    // Worked out below, among the tied players.
                    Tiebreak::DirectEncounter => 0,
                    Tiebreak::Koya => entries
                        .iter()
                        .filter(|e| e.opponent.is_some_and(&at_least_half))
                        .map(|e| halves(e.result))
                        .sum(),
                })
                .collect();
            Standing {
                rank: 0,
                number: i as u32 + 1,
                halves: own,
                tiebreaks: values,
            }
        })
        .collect();
    // Direct encounter depends on who is still tied when it is reached: worked out in order,
    // each time over the groups equal on points and on the tie-breaks before it.
    for (k, t) in order.iter().enumerate() {
        if *t != Tiebreak::DirectEncounter {
            continue;
        }
        let mut groups: std::collections::BTreeMap<(u32, Vec<u32>), Vec<usize>> =
            std::collections::BTreeMap::new();
        for (i, l) in lines.iter().enumerate() {
            groups
                .entry((l.halves, l.tiebreaks[..k].to_vec()))
                .or_default()
                .push(i);
        }
        for group in groups.values().filter(|g| g.len() > 1) {
            let numbers: Vec<u32> = group.iter().map(|&i| lines[i].number).collect();
            let among = |i: usize| -> (Vec<u32>, u32) {
                let mut met = Vec::new();
                let mut points = 0;
                for e in &rounds[i] {
                    match e.opponent {
                        Some(o) if numbers.contains(&o) => {
                            met.push(o);
                            points += halves(e.result);
                        }
                        _ => {}
                    }
                }
                (met, points)
            };
            let all_met = group.iter().all(|&i| {
                let (met, _) = among(i);
                numbers
                    .iter()
                    .all(|&o| o == lines[i].number || met.contains(&o))
            });
            if all_met {
                for &i in group {
                    lines[i].tiebreaks[k] = among(i).1;
                }
            }
        }
    }
    lines.sort_by(|a, b| {
        b.halves
            .cmp(&a.halves)
            .then_with(|| b.tiebreaks.cmp(&a.tiebreaks))
            .then(a.number.cmp(&b.number))
    });
    for (i, l) in lines.iter_mut().enumerate() {
        l.rank = i as u32 + 1;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use damasi_swiss::Colour;

    fn game(opponent: u32, white: bool, result: char) -> RoundEntry {
        RoundEntry {
            opponent: Some(opponent),
            colour: Some(if white { Colour::White } else { Colour::Black }),
            result: ResultCode::from_char(result).unwrap(),
        }
    }

    fn unplayed(result: char) -> RoundEntry {
        RoundEntry {
            opponent: None,
            colour: None,
            result: ResultCode::from_char(result).unwrap(),
        }
    }

    /// Five players, three rounds, worked by hand:
    ///
    /// | round | games |
    /// |---|---|
    /// | 1 | 1-4 1:0, 2-5 ½:½, 3 bye (U) |
    /// | 2 | 3-1 0:1, 4-2 0:1, 5 bye (U) |
    /// | 3 | 1-2 ½:½, 5-3 1:0 (forfeit: 3 did not come), 4 zero-point bye (Z) |
    ///
    /// Scores: 1: 2.5, 2: 2.0, 3: 1.0, 4: 0.0, 5: 2.5.
    fn example() -> Vec<Vec<RoundEntry>> {
        vec![
            vec![game(4, true, '1'), game(3, false, '1'), game(2, true, '=')],
            vec![game(5, true, '='), game(4, false, '1'), game(1, false, '=')],
            vec![unplayed('U'), game(1, true, '0'), game(5, false, '-')],
            vec![game(1, false, '0'), game(2, true, '0'), unplayed('Z')],
            vec![game(2, false, '='), unplayed('U'), game(3, true, '+')],
        ]
    }

    #[test]
    fn a_hand_worked_tournament() {
        let s = standings(&example(), &Tiebreak::FEDERATION);
        // Buchholz (opponents' final scores; unplayed rounds count the player's own score):
        //   1: 0.0 (p4) + 1.0 (p3) + 2.0 (p2)        = 3.0, cut 0.0          -> 3.0
        //   2: 2.5 (p5) + 0.0 (p4) + 2.5 (p1)        = 5.0, cut 0.0          -> 5.0
        //   3: 1.0 (bye) + 2.5 (p1) + 1.0 (forfeit)  = 4.5, cut the forfeit loss 1.0 -> 3.5
        //   4: 2.5 (p1) + 2.0 (p2) + 0.0 (Z)         = 4.5, cut the Z 0.0     -> 4.5
        //   5: 2.0 (p2) + 2.5 (bye) + 2.5 (forfeit)  = 7.0, cut 2.0          -> 5.0
        // Sonneborn-Berger (opponent's score times points scored against them):
        //   1: 0*1 + 1.0*1 + 2.0*0.5 = 2.0;  2: 2.5*0.5 + 0*1 + 2.5*0.5 = 2.5
        //   3: 1.0*1 + 0 + 0 = 1.0;  4: 0;  5: 2.0*0.5 + 2.5*1 + 2.5*1 = 6.0
        // Wins over the board: 1: 2, 2: 1, 3: 0, 4: 0, 5: 0.
        let got: Vec<(u32, u32, Vec<u32>)> = s
            .iter()
            .map(|l| (l.number, l.halves, l.tiebreaks.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                // 5 and 1 tie on 2.5; 5's cut Buchholz 5.0 beats 1's 3.0.
                (5, 5, vec![10, 14, 24, 0]),
                (1, 5, vec![6, 6, 8, 2]),
                (2, 4, vec![10, 10, 10, 1]),
                (3, 2, vec![7, 9, 4, 0]),
                (4, 0, vec![9, 9, 0, 0]),
            ]
        );
        assert_eq!(
            s.iter().map(|l| l.rank).collect::<Vec<_>>(),
            vec![1, 2, 3, 4, 5]
        );
    }

    #[test]
    fn the_order_of_tie_breaks_is_the_organisers() {
        // Players 1 and 5 tie on 2.5. By wins first, 1 (two wins) is ahead of 5 (none).
        let s = standings(&example(), &[Tiebreak::Wins, Tiebreak::Buchholz]);
        assert_eq!(s[0].number, 1);
        assert_eq!(s[1].number, 5);
        assert_eq!(s[0].tiebreaks, vec![2, 6]);
    }

    #[test]
    fn equal_players_are_ordered_by_pairing_number() {
        let rounds = vec![vec![game(2, true, '=')], vec![game(1, false, '=')]];
        let s = standings(&rounds, &Tiebreak::FEDERATION);
        assert_eq!((s[0].number, s[1].number), (1, 2));
        assert_eq!(s[0].tiebreaks, s[1].tiebreaks);
    }

    /// A round robin of `players` by the Berger tables, each game's result given by
    /// `result(a, b)` for the lower number `a` (`'1'`, `'='`, `'0'`); the rest rounds are
    /// zero-point byes.
    fn round_robin(players: u32, result: impl Fn(u32, u32) -> char) -> Vec<Vec<RoundEntry>> {
        let mut rounds = vec![Vec::new(); players as usize];
        for pairing in damasi_swiss::berger::schedule(players, false).unwrap() {
            for (w, b) in pairing.pairs {
                let r = result(w.min(b), w.max(b));
                let flip = |c: char| match c {
                    '1' => '0',
                    '0' => '1',
                    c => c,
                };
                let (rw, rb) = if w < b { (r, flip(r)) } else { (flip(r), r) };
                rounds[w as usize - 1].push(game(b, true, rw));
                rounds[b as usize - 1].push(game(w, false, rb));
            }
            if let Some(p) = pairing.bye {
                rounds[p as usize - 1].push(unplayed('Z'));
            }
        }
        rounds
    }

    /// Five players, a single round robin (each has one rest round, `Z`, 0 points). Results,
    /// the lower number's first:
    ///
    /// | | 1 | 2 | 3 | 4 | 5 |
    /// |---|---|---|---|---|---|
    /// | 1 | | 1 | ½ | ½ | 0 |
    /// | 2 | 0 | | 1 | 1 | 0 |
    /// | 3 | ½ | 0 | | 1 | ½ |
    /// | 4 | ½ | 0 | 0 | | 0 |
    /// | 5 | 1 | 1 | ½ | 1 | |
    ///
    /// Scores: 1: 2, 2: 2, 3: 2, 4: ½, 5: 3½ (10 games, 10 points).
    fn five() -> Vec<Vec<RoundEntry>> {
        round_robin(5, |a, b| match (a, b) {
            (1, 2) | (2, 3) | (2, 4) | (3, 4) => '1',
            (1, 3) | (1, 4) | (3, 5) => '=',
            _ => '0',
        })
    }

    #[test]
    fn a_hand_worked_round_robin() {
        let s = standings(&five(), &Tiebreak::ROUND_ROBIN);
        // Sonneborn-Berger (opponent's score times the points scored against them; the rest
        // round scores nothing):
        //   1: 2 (p2, won) + 2*½ (p3) + ½*½ (p4) + 0 (p5)  = 3¼ -> 13 quarters
        //   2: 0 (p1) + 2 (p3, won) + ½ (p4, won) + 0 (p5) = 2½ -> 10
        //   3: 2*½ (p1) + 0 (p2) + ½ (p4, won) + 3½*½ (p5)  = 3¼ -> 13
        //   4: 2*½ (p1)                                     = 1  -> 4
        //   5: 2 (p1) + 2 (p2) + 2*½ (p3) + ½ (p4)          = 5½ -> 22
        // Tied after points and SB: 1 and 3 (2 points, 3¼); they met and drew: DE ½ each
        // (1 half point); 2, 4 and 5 are tied with nobody: DE 0.
        // Wins over the board: 1: 1, 2: 2, 3: 1, 4: 0, 5: 3.
        // Koya: half of the 4 possible points is 2: players 1, 2, 3 (2) and 5 (3½) qualify,
        // 4 (½) does not.
        //   1: 1 (p2) + ½ (p3) + 0 (p5) = 1½ -> 3 halves;  2: 0 + 1 (p3) + 0 = 1 -> 2
        //   3: ½ (p1) + 0 (p2) + ½ (p5) = 1 -> 2;  4: ½ (p1) -> 1;  5: 1 + 1 + ½ = 2½ -> 5
        // 1 and 3 are still tied after WON (1 each): Koya puts 1 (1½) ahead of 3 (1).
        let got: Vec<(u32, u32, Vec<u32>)> = s
            .iter()
            .map(|l| (l.number, l.halves, l.tiebreaks.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (5, 7, vec![22, 0, 3, 5]),
                (1, 4, vec![13, 1, 1, 3]),
                (3, 4, vec![13, 1, 1, 2]),
                (2, 4, vec![10, 0, 2, 2]),
                (4, 1, vec![4, 0, 0, 1]),
            ]
        );
    }

    #[test]
    fn direct_encounter_first_separates_three_who_all_met() {
        // 1, 2 and 3 are tied on 2 points and have all met: among them 1 scored 1½ (beat 2,
        // drew 3), 2 scored 1 (lost to 1, beat 3), 3 scored ½: DE 3, 2, 1 half points.
        let s = standings(
            &five(),
            &[Tiebreak::DirectEncounter, Tiebreak::SonnebornBerger],
        );
        let got: Vec<(u32, Vec<u32>)> = s.iter().map(|l| (l.number, l.tiebreaks.clone())).collect();
        assert_eq!(
            got,
            vec![
                (5, vec![0, 22]),
                (1, vec![3, 13]),
                (2, vec![2, 10]),
                (3, vec![1, 13]),
                (4, vec![0, 4]),
            ]
        );
    }

    #[test]
    fn direct_encounter_needs_every_tied_player_to_have_met() {
        // In the Swiss example, 1 and 5 are tied on 2½ and never met: DE gives nothing, and
        // the next tie-break (wins: 1 has two, 5 none) decides.
        let s = standings(&example(), &[Tiebreak::DirectEncounter, Tiebreak::Wins]);
        let got: Vec<(u32, Vec<u32>)> = s.iter().map(|l| (l.number, l.tiebreaks.clone())).collect();
        assert_eq!(got[0], (1, vec![0, 2]));
        assert_eq!(got[1], (5, vec![0, 0]));
        // Two tied players who met: the winner of their game is ahead, whatever the numbers.
        let rounds = vec![
            vec![game(2, true, '0'), game(3, false, '1')],
            vec![game(1, false, '1'), game(3, true, '0')],
            vec![game(2, false, '1'), game(1, true, '0')],
        ];
        // All three have 1 point and all met: DE 1 each; by pairing number.
        let s = standings(&rounds, &[Tiebreak::DirectEncounter]);
        assert!(s.iter().all(|l| l.tiebreaks == vec![2]));
        let two = vec![vec![game(2, true, '0')], vec![game(1, false, '1')]];
        let s = standings(&two, &[Tiebreak::DirectEncounter]);
        assert_eq!(s[0].number, 2);
    }

    #[test]
    fn koya_leaves_out_the_rest_round_from_the_possible_points() {
        // Three players, single round robin: 1 beats 2, 2 beats 3, 1 and 3 draw. Each has one
        // rest round and two games: half of the possible is 1 point. Scores: 1: 1½, 2: 1,
        // 3: ½; 1 and 2 qualify.
        // Koya: 1: 1 (p2) -> 2 halves; 2: 0 (p1) -> 0; 3: ½ (p1) + 0 (p2) -> 1.
        let rounds = round_robin(3, |a, b| match (a, b) {
            (1, 2) | (2, 3) => '1',
            _ => '=',
        });
        let s = standings(&rounds, &[Tiebreak::Koya]);
        let got: Vec<(u32, u32, Vec<u32>)> = s
            .iter()
            .map(|l| (l.number, l.halves, l.tiebreaks.clone()))
            .collect();
        assert_eq!(got, vec![(1, 3, vec![2]), (2, 2, vec![0]), (3, 1, vec![1])]);
    }
}
