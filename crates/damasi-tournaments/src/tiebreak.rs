//! Standings of a Swiss tournament: points, then the tie-breaks the organiser chose in their
//! order (the federation's default: Buchholz cut-1, Buchholz, Sonneborn-Berger, wins), then
//! the pairing number.
//!
//! The tie-breaks follow FIDE's tie-break regulations (C.07, 2023 and later):
//! - an opponent's score is their final score as it stands;
//! - a round the player did not play over the board (a bye, a forfeit either way, an absence)
//!   counts as a game against a *dummy opponent* with the player's own score;
//! - cut-1 drops the least value, and a round the player chose not to play (a zero- or
//!   half-point bye, a forfeit loss, an absence) is cut before any other.
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
}

impl Tiebreak {
    /// The federation's order: Buchholz cut-1, Buchholz, Sonneborn-Berger, wins.
    pub const FEDERATION: [Tiebreak; 4] = [
        Tiebreak::BuchholzCut1,
        Tiebreak::Buchholz,
        Tiebreak::SonnebornBerger,
        Tiebreak::Wins,
    ];

    /// Its short name (FIDE's abbreviation).
    pub fn abbreviation(self) -> &'static str {
        match self {
            Tiebreak::BuchholzCut1 => "BH-C1",
            Tiebreak::Buchholz => "BH",
            Tiebreak::SonnebornBerger => "SB",
            Tiebreak::Wins => "WON",
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
    /// The tie-break values in the order asked: Buchholz in half points, Sonneborn-Berger in
    /// quarter points (a score times points), wins as a count.
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
}
