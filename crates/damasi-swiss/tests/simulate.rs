//! Whole tournaments paired round after round with random results: every round must
//! respect the absolute criteria (no rematch, everybody paired once, no second bye, no two
//! non-topscorers with the same absolute colour preference) and survive a TRF round trip.

use damasi_swiss::{pair_next_round, Colour, GameResult, Tournament};
use std::collections::HashSet;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn new_tournament(n: u32, rounds: u32) -> Tournament {
    let mut trf = String::new();
    for i in 1..=n {
        trf.push_str(&format!(
            "001 {i:>4}      {:<33} {:>4}                             0.0\n",
            format!("Player {i}"),
            2700 - i
        ));
    }
    trf.push_str(&format!("XXR {rounds}\nXXC white1\n"));
    Tournament::from_trf(&trf).unwrap()
}

/// Colours of a player's played games.
fn colours(t: &Tournament, number: u32) -> Vec<Colour> {
    let p = &t.players[t.index_of(number).unwrap()];
    p.rounds
        .iter()
        .filter(|e| e.game_played())
        .filter_map(|e| e.colour)
        .collect()
}

fn simulate(n: u32, rounds: u32, seed: u64) {
    let mut rng = Rng(seed);
    let mut t = new_tournament(n, rounds);
    for round in 1..=rounds {
        let pairing = match pair_next_round(&t) {
            Ok(p) => p,
            // Late rounds of small tournaments may have no legal pairing left.
            Err(damasi_swiss::PairError::NoValidPairing) if round > 1 => return,
            Err(e) => panic!("round {round}: {e}"),
        };
        let mut seen = HashSet::new();
        for &(w, b) in &pairing.pairs {
            assert!(
                seen.insert(w) && seen.insert(b),
                "round {round}: twice paired"
            );
            let pw = &t.players[t.index_of(w).unwrap()];
            assert!(
                !pw.rounds
                    .iter()
                    .any(|e| e.game_played() && e.opponent == Some(b)),
                "round {round}: rematch {w}-{b}"
            );
        }
        if let Some(b) = pairing.bye {
            assert!(seen.insert(b));
            let pb = &t.players[t.index_of(b).unwrap()];
            assert!(
                !pb.rounds
                    .iter()
                    .any(|e| e.result == damasi_swiss::ResultCode::PairingAllocatedBye),
                "round {round}: second bye for {b}"
            );
        }
        assert_eq!(seen.len() as u32, n, "round {round}: not everybody paired");
        let results: Vec<GameResult> = pairing
            .pairs
            .iter()
            .map(|_| match rng.next() % 20 {
                0 => GameResult::WhiteWinsByForfeit,
                1..=7 => GameResult::WhiteWins,
                8..=13 => GameResult::Draw,
                _ => GameResult::BlackWins,
            })
            .collect();
        t.add_round(&pairing, &results).unwrap();
        // Before the last round nobody gets a colour difference beyond 2 or three times
        // the same colour in a row.
        if round + 1 < rounds {
            for p in &t.players {
                let c = colours(&t, p.number);
                let whites = c.iter().filter(|&&x| x == Colour::White).count() as i64;
                let diff = 2 * whites - c.len() as i64;
                assert!(
                    diff.abs() <= 2,
                    "round {round}: player {} colours {c:?}",
                    p.number
                );
                assert!(
                    !c.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]),
                    "round {round}: player {} colours {c:?}",
                    p.number
                );
            }
        }
        let again = Tournament::from_trf(&t.to_trf()).unwrap();
        assert_eq!(again, t);
    }
}

#[test]
fn simulated_tournaments_respect_the_absolute_criteria() {
    for (i, &(n, rounds)) in [(7, 5), (10, 9), (16, 7), (25, 9), (40, 9), (51, 11)]
        .iter()
        .enumerate()
    {
        simulate(n, rounds, 0x1234_5678 + i as u64);
    }
}

#[test]
fn a_large_open_tournament_pairs() {
    // 201 players, 9 rounds: many score groups, weights of more than 512 bits.
    simulate(201, 9, 42);
}
