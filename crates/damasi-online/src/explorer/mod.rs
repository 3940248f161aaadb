//! The opening explorer: for each position, the moves played from it, how often, with how
//! many wins for White, draws and wins for Black, and the players' average rating, in two
//! sources kept apart: the games played on this server ([`Source::Server`], lichess's
//! "lichess" database) and a collection of master games imported from PDN files
//! ([`Source::Masters`]).
//!
//! What is counted: games under the federation's rules from the standard start position that
//! ended with a result (not aborted); of each, its first [`MAX_PLIES`] plies, each position
//! once (a position repeated within a game counts the first move played from it). A game is
//! counted in the speed class of its clock and in the rating band of its players' average
//! rating (lichess's bands, [`BANDS`]). The counts are kept in one row per (position, move,
//! speed, band) (`db/explorer.rs`), so a query reads a few rows of one position whatever
//! the number of games below it ([`query`]).
//!
//! Kept up to date by [`sources::follow`]: each game that ends is counted, and the games that
//! ended while no process listened are caught up at start and every few minutes; a game is
//! counted once however often it is offered (a cluster's processes all hear every game's end).

pub mod query;
pub mod sources;

use std::collections::HashSet;

use damasi::{Color, Game, Outcome, Position, RuleSet};

use crate::rating::Speed;
use crate::record::Record;

pub use query::{explore, ExplorerAnswer, Filter, Request};
pub use sources::{catch_up, count_online_game, follow, import_masters, ImportReport};

/// Where a game comes from; stored as its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// The games played on this server (lichess's `/lichess` database).
    Server = 0,
    /// Master games imported from PDN files (lichess's `/masters` database).
    Masters = 1,
}

/// The rating bands, as lichess's explorer has them: a game is in the band of the highest
/// bound its players' average rating reaches (`ratings=1600` is 1600 to 1799).
pub const BANDS: [i64; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

/// The plies of each game counted: the opening, not the whole game.
pub const MAX_PLIES: usize = 50;

/// Most rows one query reads: five speeds, nine bands and every legal move of a position are
/// far fewer, so this only bounds what damage could make one query cost.
pub const MAX_ROWS: usize = 4096;

/// The band (an index of [`BANDS`]) of an average rating.
pub fn band_of(rating: i64) -> usize {
    BANDS.iter().rposition(|&b| rating >= b).unwrap_or(0)
}

/// What is known of a game besides its moves and result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameFacts {
    /// White's and Black's names.
    pub names: [Option<String>; 2],
    /// White's and Black's ratings when it was played.
    pub ratings: [Option<i64>; 2],
    /// Its speed class (master games are over the board: classical).
    pub speed: Option<Speed>,
    /// When it was played (Unix ms; 0 when unknown): orders `recentGames`.
    pub at_ms: i64,
    /// Its year and month, when known.
    pub year: Option<i64>,
    /// The month (1 to 12), when known.
    pub month: Option<i64>,
}

/// One game as the explorer counts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExploredGame {
    /// Its source.
    pub source: Source,
    /// Its key within the source, counted once: an online game's id, a master game's hash.
    pub key: String,
    /// White's and Black's names.
    pub names: [Option<String>; 2],
    /// White's and Black's ratings.
    pub ratings: [Option<i64>; 2],
    /// The winner; none for a draw.
    pub winner: Option<Color>,
    /// The speed class.
    pub speed: Speed,
    /// When it was played (Unix ms).
    pub at_ms: i64,
    /// The year it was played.
    pub year: Option<i64>,
    /// The month it was played (1 to 12).
    pub month: Option<i64>,
    /// The positions (Zobrist keys) and the move played from each, in the stable form the
    /// database keeps moves in ([`Record::token`]).
    pub plies: Vec<(u64, String)>,
}

impl ExploredGame {
    /// The game as counted, or why it is not: another rule set, a set-up position, no
    /// result.
    pub fn new(
        source: Source,
        key: String,
        game: &Game,
        outcome: Option<Outcome>,
        facts: GameFacts,
    ) -> Result<ExploredGame, String> {
        if *game.rules() != RuleSet::default() {
            return Err(format!(
                "played under '{}': the explorer counts the federation's rules only",
                game.rules().name()
            ));
        }
        if *game.initial_position() != Position::start() {
            return Err("starts from a set-up position, not the start".into());
        }
        let winner = match outcome {
            None => return Err("has no result".into()),
            Some(Outcome::Aborted) => return Err("was aborted".into()),
            Some(Outcome::Draw(_)) => None,
            Some(o @ Outcome::Win { .. }) => o.winner(),
        };
        let mut pos = *game.initial_position();
        let mut seen = HashSet::new();
        let mut plies = Vec::new();
        for m in game.history().iter().take(MAX_PLIES) {
            if seen.insert(pos.key()) {
                plies.push((pos.key(), Record::token(m)));
            }
            pos = pos.play(m);
        }
        Ok(ExploredGame {
            source,
            key,
            names: facts.names,
            ratings: facts.ratings,
            winner,
            speed: facts.speed.unwrap_or(Speed::Classical),
            at_ms: facts.at_ms,
            year: facts.year,
            month: facts.month,
            plies,
        })
    }

    /// White wins, draws and Black wins: one of them 1.
    pub(crate) fn result_counts(&self) -> (i64, i64, i64) {
        match self.winner {
            Some(Color::White) => (1, 0, 0),
            None => (0, 1, 0),
            Some(Color::Black) => (0, 0, 1),
        }
    }

    /// The result as stored: 1 White won, 0 a draw, -1 Black won.
    pub(crate) fn result_code(&self) -> i64 {
        match self.winner {
            Some(Color::White) => 1,
            None => 0,
            Some(Color::Black) => -1,
        }
    }

    /// The speed class as stored: its place in [`Speed::ALL`].
    pub(crate) fn speed_code(&self) -> i64 {
        Speed::ALL
            .iter()
            .position(|s| *s == self.speed)
            .unwrap_or(3) as i64
    }

    /// The players' average rating (rounded down), the one rating known, or none.
    pub fn average_rating(&self) -> Option<i64> {
        match self.ratings {
            [Some(w), Some(b)] => Some((w + b).div_euclid(2)),
            [Some(r), None] | [None, Some(r)] => Some(r),
            [None, None] => None,
        }
    }

    /// The rating band (an index of [`BANDS`]); a game with no rating known is in the first.
    pub fn band(&self) -> usize {
        self.average_rating().map_or(0, band_of)
    }
}

/// One aggregate row: the games of one source that played move `mv` in one position, in one
/// speed class and rating band.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRow {
    /// The move ([`Record::token`]).
    pub mv: String,
    /// The speed class.
    pub speed: Speed,
    /// The rating band (an index of [`BANDS`]).
    pub band: usize,
    /// White wins, draws, Black wins.
    pub counts: [i64; 3],
    /// Games with a rating known.
    pub rated: i64,
    /// The sum of their average ratings.
    pub rating_sum: i64,
    /// The best-rated game (its number) and its average rating (-1 when unknown).
    pub top: (i64, i64),
    /// The latest game (its number) and when it was played.
    pub last: (i64, i64),
}

/// A counted game as `topGames` and `recentGames` show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRef {
    /// Its number in the explorer.
    pub n: i64,
    /// Its key: an online game's id, a master game's hash.
    pub key: String,
    /// White's and Black's names.
    pub names: [Option<String>; 2],
    /// White's and Black's ratings.
    pub ratings: [Option<i64>; 2],
    /// The winner; none for a draw.
    pub winner: Option<Color>,
    /// The speed class.
    pub speed: Speed,
    /// The year it was played.
    pub year: Option<i64>,
    /// The month it was played (1 to 12).
    pub month: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_are_lichess_s() {
        assert_eq!(band_of(-5), 0);
        assert_eq!(band_of(999), 0);
        assert_eq!(band_of(1000), 1);
        assert_eq!(band_of(1599), 3);
        assert_eq!(band_of(1600), 4);
        assert_eq!(band_of(2499), 7);
        assert_eq!(band_of(2500), 8);
        assert_eq!(band_of(3200), 8);
    }

    #[test]
    fn a_game_counts_its_opening_once_per_position() {
        let mut game = Game::new();
        for text in ["c3-c4", "f6-f5", "c4-c5"] {
            game.play_text(text).unwrap();
        }
        let facts = GameFacts {
            ratings: [Some(1501), Some(1700)],
            ..GameFacts::default()
        };
        let g = ExploredGame::new(
            Source::Server,
            "k".into(),
            &game,
            Some(Outcome::Draw(damasi::DrawReason::Agreement)),
            facts,
        )
        .unwrap();
        assert_eq!(g.plies.len(), 3);
        assert_eq!(g.plies[0].0, Position::start().key());
        assert_eq!(g.average_rating(), Some(1600));
        assert_eq!(g.band(), 4);
        assert_eq!(g.result_counts(), (0, 1, 0));
        let aborted = ExploredGame::new(
            Source::Server,
            "k".into(),
            &game,
            Some(Outcome::Aborted),
            GameFacts::default(),
        );
        assert_eq!(aborted.unwrap_err(), "was aborted");
    }
}
