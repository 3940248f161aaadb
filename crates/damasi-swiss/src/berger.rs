//! Round-robin (all-play-all) pairings by FIDE's Berger tables (FIDE Handbook C.05, General
//! regulations for competitions, Annex 1: Berger tables for round-robin tournaments).
//!
//! The players are numbered 1 to N by the drawing of lots. With an odd number of players,
//! the highest number of the table (N + 1) counts as a bye: whoever the table pairs against
//! it has the bye of that round. A table of `n` numbers (`n` even) has `n - 1` rounds:
//!
//! - round 1 is `1-n, 2-(n-1), ..., (n/2)-(n/2+1)`, the first number of each pair White;
//! - each later round is the one before it with every number but `n` advanced by `n/2`
//!   (equivalently moved back by `n/2 - 1`), counting round from `n - 1` to 1, the boards
//!   kept in place; `n` stays on the first board and changes colour every round (Black in
//!   odd rounds, White in even ones).
//!
//! For 10 players that gives round 2 as `10-6, 7-5, 8-4, 9-3, 1-2` and round 3 as
//! `2-10, 3-1, 4-9, 5-8, 6-7`, as printed in the handbook.
//!
//! A double round robin plays the table twice, the second cycle with the colours reversed.
//! Annex 1 strongly recommends reversing the order of the last two rounds of the first cycle,
//! so that nobody plays three games in a row with the same colour across the two cycles;
//! damasi follows it: the first cycle plays the table's rounds `1, ..., n-3, n-1, n-2`, and
//! the second cycle the table's rounds `1, ..., n-1` in their order, colours reversed.
//!
//! ```
//! use damasi_swiss::berger;
//!
//! let round = berger::pair_round(5, 2, false)?;
//! assert_eq!(round.pairs, vec![(5, 3), (1, 2)]);
//! assert_eq!(round.bye, Some(4));
//! print!("{}", round.to_pairs_format());
//! # Ok::<(), berger::BergerError>(())
//! ```

use std::fmt;

use crate::Pairing;

/// The fewest players of a round robin paired by the tables.
pub const MIN_PLAYERS: u32 = 3;

/// The most players of a round robin paired by the tables.
pub const MAX_PLAYERS: u32 = 24;

/// Why a round robin's round cannot be given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BergerError {
    /// The number of players is outside [`MIN_PLAYERS`]..=[`MAX_PLAYERS`].
    Players(u32),
    /// The round is not one of the tournament's rounds (1 to `rounds`).
    Round {
        /// The round asked for.
        round: u32,
        /// The number of rounds of the tournament.
        rounds: u32,
    },
}

impl fmt::Display for BergerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BergerError::Players(n) => write!(
                f,
                "a round robin has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}"
            ),
            BergerError::Round { round, rounds } => write!(
                f,
                "there is no round {round}: this round robin has rounds 1 to {rounds}"
            ),
        }
    }
}

impl std::error::Error for BergerError {}

/// The size of the table for `players` players: the number itself if even, else one more
/// (the bye).
fn table_size(players: u32) -> Result<u32, BergerError> {
    if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players) {
        return Err(BergerError::Players(players));
    }
    Ok(players + players % 2)
}

/// The number of rounds of a round robin of `players` players: `n - 1` for a table of `n`
/// numbers, twice that for a double round robin.
pub fn round_count(players: u32, double: bool) -> Result<u32, BergerError> {
    let cycle = table_size(players)? - 1;
    Ok(if double { 2 * cycle } else { cycle })
}

/// Round `round` (1 to `n - 1`) of the table of `n` numbers, as `(white, black)` pairs in the
/// order of the boards.
fn table_round(n: u32, round: u32) -> Vec<(u32, u32)> {
    let shift = (round - 1) * (n / 2);
    let moved = |x: u32| (x - 1 + shift) % (n - 1) + 1;
    (1..=n / 2)
        .map(|board| {
            if board == 1 {
                let other = moved(1);
                if round % 2 == 0 {
                    (n, other)
                } else {
                    (other, n)
                }
            } else {
                (moved(board), moved(n + 1 - board))
            }
        })
        .collect()
}

/// The pairing of round `round` (1 to [`round_count`]) of a round robin of `players` players
/// (3 to 24), single or double, by the Berger tables.
///
/// The pairs are `(white, black)` in the order of the table's boards; with an odd number of
/// players the one drawn against the missing number `players + 1` has the bye.
pub fn pair_round(players: u32, round: u32, double: bool) -> Result<Pairing, BergerError> {
    let n = table_size(players)?;
    let rounds = round_count(players, double)?;
    if !(1..=rounds).contains(&round) {
        return Err(BergerError::Round { round, rounds });
    }
    let cycle = n - 1;
    let second_cycle = round > cycle;
    let mut r = (round - 1) % cycle + 1;
    if double && !second_cycle {
        // Annex 1: the last two rounds of the first cycle are played in reverse order.
        if r == cycle - 1 {
            r = cycle;
        } else if r == cycle {
            r = cycle - 1;
        }
    }
    let mut pairing = Pairing::default();
    for (white, black) in table_round(n, r) {
        let (white, black) = if second_cycle {
            (black, white)
        } else {
            (white, black)
        };
        if white > players {
            pairing.bye = Some(black);
        } else if black > players {
            pairing.bye = Some(white);
        } else {
            pairing.pairs.push((white, black));
        }
    }
    Ok(pairing)
}

/// Every round of a round robin of `players` players, in order (see [`pair_round`]).
pub fn schedule(players: u32, double: bool) -> Result<Vec<Pairing>, BergerError> {
    (1..=round_count(players, double)?)
        .map(|round| pair_round(players, round, double))
        .collect()
}
