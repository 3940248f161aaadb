//! # damasi-swiss: Swiss-system pairing (FIDE Dutch system)
//!
//! Pairs the next round of a Swiss tournament by the FIDE Dutch system (FIDE Handbook
//! C.04.3, the rules in force from 2025, with the general rules of C.04.1 and C.04.2), and
//! reads and writes tournaments as FIDE Tournament Report Files (TRF).
//!
//! ```
//! use damasi_swiss::{pair_next_round, Tournament};
//!
//! let mut trf = String::new();
//! for n in 1..=8 {
//!     trf.push_str(&format!(
//!         "001 {n:>4}      Player{n:<27} {:>4}                             0.0\n",
//!         2500 - 10 * n
//!     ));
//! }
//! trf.push_str("XXR 5\nXXC white1\n");
//! let t = Tournament::from_trf(&trf)?;
//! let pairing = pair_next_round(&t)?;
//! assert_eq!(pairing.pairs, vec![(1, 5), (6, 2), (3, 7), (8, 4)]);
//! assert_eq!(pairing.bye, None);
//! print!("{}", pairing.to_pairs_format());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The pairing is computed with maximum-weight matchings (Edmonds' blossom algorithm) whose
//! edge weights encode the FIDE criteria in their order of priority; see [`mod@dutch`] for
//! the details.
//!
//! All-play-all tournaments are paired by FIDE's Berger tables (C.05 Annex 1): see
//! [`mod@berger`].

pub mod berger;
pub mod dutch;
mod matching;
pub mod trf;
mod wide;

pub use trf::{Colour, Player, ResultCode, RoundEntry, Tournament, TrfError};

use std::fmt;

/// The pairing of one round.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Pairing {
    /// The games as `(white, black)` pairing numbers, in the order of publication (by the
    /// higher score of the pair, then the lower score, then the rank of the higher player).
    pub pairs: Vec<(u32, u32)>,
    /// The player given the pairing-allocated bye, if the number of players is odd.
    pub bye: Option<u32>,
}

impl Pairing {
    /// Formats the pairing as JaVaFo / bbpPairings do: the number of pairs (the bye counts as
    /// one) on the first line, then `WHITE BLACK` a line, the bye as `N 0`.
    pub fn to_pairs_format(&self) -> String {
        let mut out = format!("{}\n", self.pairs.len() + self.bye.is_some() as usize);
        for (w, b) in &self.pairs {
            out.push_str(&format!("{w} {b}\n"));
        }
        if let Some(b) = self.bye {
            out.push_str(&format!("{b} 0\n"));
        }
        out
    }

    /// Reads the format written by [`Pairing::to_pairs_format`].
    pub fn from_pairs_format(text: &str) -> Result<Pairing, TrfError> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let bad = |line: usize, message: &str| TrfError {
            line,
            message: message.to_string(),
        };
        let (i, first) = lines.next().ok_or_else(|| bad(0, "empty pairing file"))?;
        let count: usize = first
            .trim()
            .parse()
            .map_err(|_| bad(i + 1, "the first line must be the number of pairs"))?;
        let mut p = Pairing::default();
        let mut seen = 0;
        for (i, line) in lines {
            let nums: Vec<&str> = line.split_whitespace().collect();
            let parse = |s: &str| {
                s.parse::<u32>()
                    .map_err(|_| bad(i + 1, "expected two pairing numbers"))
            };
            if nums.len() != 2 {
                return Err(bad(i + 1, "expected two pairing numbers"));
            }
            let (w, b) = (parse(nums[0])?, parse(nums[1])?);
            if b == 0 {
                if p.bye.is_some() {
                    return Err(bad(i + 1, "two byes"));
                }
                p.bye = Some(w);
            } else {
                p.pairs.push((w, b));
            }
            seen += 1;
        }
        if seen != count {
            return Err(bad(0, "the number of pairs does not match the first line"));
        }
        Ok(p)
    }
}

/// The result of a game, from White's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// White won over the board.
    WhiteWins,
    /// Draw.
    Draw,
    /// Black won over the board.
    BlackWins,
    /// Black did not appear: White wins by forfeit.
    WhiteWinsByForfeit,
    /// White did not appear: Black wins by forfeit.
    BlackWinsByForfeit,
}

impl Tournament {
    /// Appends a round: the games of `pairing` with `results` (one per pair, in the same
    /// order), the pairing-allocated bye (`U`, one point), and an absence for everybody
    /// else. Points are updated.
    pub fn add_round(&mut self, pairing: &Pairing, results: &[GameResult]) -> Result<(), TrfError> {
        let bad = |message: String| TrfError { line: 0, message };
        if results.len() != pairing.pairs.len() {
            return Err(bad(format!(
                "{} results for {} games",
                results.len(),
                pairing.pairs.len()
            )));
        }
        let round = self
            .players
            .iter()
            .map(|p| p.rounds.len())
            .max()
            .unwrap_or(0);
        let mut entries: Vec<Option<RoundEntry>> = vec![None; self.players.len()];
        let mut put = |t: &Tournament, number: u32, e: RoundEntry| -> Result<(), TrfError> {
            let i = t
                .index_of(number)
                .ok_or_else(|| bad(format!("player {number} is not in the tournament")))?;
            if entries[i].replace(e).is_some() {
                return Err(bad(format!("player {number} is paired twice")));
            }
            Ok(())
        };
        for (&(w, b), &r) in pairing.pairs.iter().zip(results) {
            use ResultCode as R;
            let (rw, rb) = match r {
                GameResult::WhiteWins => (R::Win, R::Loss),
                GameResult::Draw => (R::Draw, R::Draw),
                GameResult::BlackWins => (R::Loss, R::Win),
                GameResult::WhiteWinsByForfeit => (R::ForfeitWin, R::ForfeitLoss),
                GameResult::BlackWinsByForfeit => (R::ForfeitLoss, R::ForfeitWin),
            };
            put(
                self,
                w,
                RoundEntry {
                    opponent: Some(b),
                    colour: Some(Colour::White),
                    result: rw,
                },
            )?;
            put(
                self,
                b,
                RoundEntry {
                    opponent: Some(w),
                    colour: Some(Colour::Black),
                    result: rb,
                },
            )?;
        }
        if let Some(b) = pairing.bye {
            put(
                self,
                b,
                RoundEntry {
                    opponent: None,
                    colour: None,
                    result: ResultCode::PairingAllocatedBye,
                },
            )?;
        }
        for (p, e) in self.players.iter_mut().zip(entries) {
            p.rounds.resize(round, RoundEntry::absent());
            let e = e.unwrap_or(RoundEntry {
                opponent: None,
                colour: None,
                result: ResultCode::ZeroPointBye,
            });
            p.points_tenths += e.result.points_tenths();
            p.rounds.push(e);
        }
        Ok(())
    }
}

/// Why no pairing could be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairError {
    /// No pairing satisfies the absolute criteria (every player paired once, no rematch, no
    /// two non-topscorers with the same absolute colour preference, at most one bye).
    NoValidPairing,
    /// The tournament is too large for the weight arithmetic.
    TooLarge,
    /// The tournament data is inconsistent (for example points that do not match the
    /// results).
    InvalidTournament(String),
}

impl fmt::Display for PairError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairError::NoValidPairing => {
                write!(f, "no pairing satisfies the absolute criteria")
            }
            PairError::TooLarge => write!(f, "the tournament is too large to pair"),
            PairError::InvalidTournament(m) => write!(f, "invalid tournament: {m}"),
        }
    }
}

impl std::error::Error for PairError {}

/// Pairs the next round of the tournament by the FIDE Dutch system.
///
/// The round paired is the one after the last round with results in the TRF. Players with
/// an entry for that round already (a requested bye, an absence) are not paired.
pub fn pair_next_round(tournament: &Tournament) -> Result<Pairing, PairError> {
    dutch::pair(tournament)
}
