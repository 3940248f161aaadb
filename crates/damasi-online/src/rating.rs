//! Ratings: Glicko-2 (the `skillratings` crate), each game its own rating period as lichess
//! does, one rating per speed class. A rating is provisional while its deviation is above
//! [`PROVISIONAL_DEVIATION`].

use damasi::{Color, Outcome};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

use super::db::RatingRow;

/// Deviation above which a rating is shown as provisional (`1500?`).
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// A speed class, from a game's estimated length (initial time + 40 increments, as lichess).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Speed {
    /// Under 3 minutes.
    Bullet,
    /// 3 to 8 minutes.
    Blitz,
    /// 8 to 25 minutes.
    Rapid,
    /// 25 minutes or more (the federation's 45+0).
    Classical,
    /// Days a move (see [`crate::days_per_turn`]): its own rating, as on lichess.
    Correspondence,
}

impl Speed {
    /// Every class, fastest first.
    pub const ALL: [Speed; 5] = [
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
    ];

    /// The class of a control of `initial_ms` and `increment_ms`.
    pub fn of(initial_ms: i64, increment_ms: i64) -> Speed {
        if crate::days_per_turn(initial_ms, increment_ms).is_some() {
            return Speed::Correspondence;
        }
        let estimate_s = (initial_ms + 40 * increment_ms) / 1000;
        match estimate_s {
            s if s < 180 => Speed::Bullet,
            s if s < 480 => Speed::Blitz,
            s if s < 1500 => Speed::Rapid,
            _ => Speed::Classical,
        }
    }

    /// Its name in the API and the database.
    pub fn name(self) -> &'static str {
        match self {
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }
}

/// A new player's rating.
pub fn initial() -> RatingRow {
    let r = Glicko2Rating::new();
    RatingRow {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
        games: 0,
    }
}

/// Whether `r` is still provisional.
pub fn is_provisional(r: &RatingRow) -> bool {
    r.deviation > PROVISIONAL_DEVIATION
}

/// The new ratings of White and Black after a game with `outcome`; `None` for an aborted game
/// (it counts for no one).
pub fn update(
    white: &RatingRow,
    black: &RatingRow,
    outcome: &Outcome,
) -> Option<(RatingRow, RatingRow)> {
    let result = match outcome {
        Outcome::Aborted => return None,
        Outcome::Draw(_) => Outcomes::DRAW,
        Outcome::Win { winner, .. } => match winner {
            Color::White => Outcomes::WIN,
            Color::Black => Outcomes::LOSS,
        },
    };
    let g = |r: &RatingRow| Glicko2Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    };
    let (w, b) = glicko2(&g(white), &g(black), &result, &Glicko2Config::new());
    let back = |n: Glicko2Rating, old: &RatingRow| RatingRow {
        rating: n.rating,
        deviation: n.deviation,
        volatility: n.volatility,
        games: old.games + 1,
    };
    Some((back(w, white), back(b, black)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use damasi::{DrawReason, WinReason};

    fn win(winner: Color) -> Outcome {
        Outcome::Win {
            winner,
            reason: WinReason::Resignation,
        }
    }

    #[test]
    fn speed_classes_follow_the_estimate() {
        assert_eq!(Speed::of(60_000, 0), Speed::Bullet);
        assert_eq!(Speed::of(180_000, 2_000), Speed::Blitz); // 180 + 80 = 260 s
        assert_eq!(Speed::of(300_000, 3_000), Speed::Blitz); // 300 + 120 = 420 s
        assert_eq!(Speed::of(600_000, 5_000), Speed::Rapid); // 600 + 200 = 800 s
        assert_eq!(Speed::of(2_700_000, 0), Speed::Classical);
        assert_eq!(Speed::of(180 * 60_000, 60_000), Speed::Classical);
        assert_eq!(Speed::of(3 * crate::DAY_MS, 0), Speed::Correspondence);
    }

    #[test]
    fn a_win_between_new_players_moves_both_by_the_same_amount() {
        let (w, b) = update(&initial(), &initial(), &win(Color::White)).unwrap();
        assert!(w.rating > 1500.0 && b.rating < 1500.0);
        // Symmetric players, symmetric change: Glicko-2 gives about ±162 for the first game.
        assert!(((w.rating - 1500.0) - (1500.0 - b.rating)).abs() < 1e-6);
        assert!((w.rating - 1662.3).abs() < 1.0, "{}", w.rating);
        assert!(w.deviation < 350.0);
        assert_eq!((w.games, b.games), (1, 1));
        assert!(is_provisional(&w));
    }

    #[test]
    fn a_draw_between_equals_changes_no_rating_and_an_abort_counts_for_nothing() {
        let (w, b) = update(
            &initial(),
            &initial(),
            &Outcome::Draw(DrawReason::Agreement),
        )
        .unwrap();
        assert!((w.rating - 1500.0).abs() < 1e-6 && (b.rating - 1500.0).abs() < 1e-6);
        assert!(update(&initial(), &initial(), &Outcome::Aborted).is_none());
    }

    #[test]
    fn beating_a_stronger_player_gains_more() {
        let strong = RatingRow {
            rating: 1800.0,
            deviation: 60.0,
            volatility: 0.06,
            games: 40,
        };
        let me = RatingRow {
            rating: 1500.0,
            deviation: 60.0,
            volatility: 0.06,
            games: 40,
        };
        let (up_vs_strong, _) = update(&me, &strong, &win(Color::White)).unwrap();
        let (up_vs_equal, _) = update(&me, &me, &win(Color::White)).unwrap();
        assert!(up_vs_strong.rating - 1500.0 > up_vs_equal.rating - 1500.0);
        assert!(!is_provisional(&me));
    }
}
