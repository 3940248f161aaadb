//! Search scores: centi-men from the side to move's point of view, with wins and losses in a
//! known number of plies encoded near ±[`Score::MATE`].

use std::fmt;

/// A score in centi-men (100 = one man) from the side to move's view. A win in `n` plies is
/// `MATE - n`, a loss in `n` plies is `-(MATE - n)`; draws are 0. A win the endgame tables
/// know of, found `n` plies from the root, is [`TB_WIN`]` - n` (see [`crate::oracle`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Score(pub i32);

/// The score of a position the endgame tables know as won, at the root; found `n` plies from
/// the root it is `TB_WIN - n`. Above every evaluation, below every win on the board.
pub const TB_WIN: i32 = 20_000;
/// Scores at or beyond this magnitude (and below [`Score::MATE_BOUND`]) are wins or losses
/// the endgame tables know of.
pub const TB_WIN_BOUND: i32 = TB_WIN - 1_000;

impl Score {
    /// The score of a win on the board right now (the opponent cannot move).
    pub const MATE: i32 = 30_000;
    /// Scores at or beyond this magnitude are wins or losses in a known number of plies.
    pub const MATE_BOUND: i32 = Score::MATE - 1_000;
    /// A draw.
    pub const DRAW: Score = Score(0);
    /// Above every reachable score (used as an infinite window bound).
    pub const INFINITE: i32 = Score::MATE + 1;

    /// A win for the side to move in `plies` plies.
    pub const fn win_in(plies: u32) -> Score {
        Score(Score::MATE - plies as i32)
    }

    /// A loss for the side to move in `plies` plies.
    pub const fn loss_in(plies: u32) -> Score {
        Score(-(Score::MATE - plies as i32))
    }

    /// Whether this is a win in a known number of plies.
    pub const fn is_win(self) -> bool {
        self.0 >= Score::MATE_BOUND
    }

    /// Whether this is a loss in a known number of plies.
    pub const fn is_loss(self) -> bool {
        self.0 <= -Score::MATE_BOUND
    }

    /// Whether this is a win the endgame tables know of (and not a win on the board).
    pub const fn is_tb_win(self) -> bool {
        self.0 >= TB_WIN_BOUND && self.0 < Score::MATE_BOUND
    }

    /// Whether this is a loss the endgame tables know of (and not a loss on the board).
    pub const fn is_tb_loss(self) -> bool {
        self.0 <= -TB_WIN_BOUND && self.0 > -Score::MATE_BOUND
    }

    /// For a win or a loss: the number of plies to the end of the game, positive for a win,
    /// negative for a loss. `None` for ordinary scores.
    pub const fn plies_to_end(self) -> Option<i32> {
        if self.is_win() {
            Some(Score::MATE - self.0)
        } else if self.is_loss() {
            Some(-(Score::MATE + self.0))
        } else {
            None
        }
    }

    /// The score in men (centi-men / 100). Wins and losses come out near ±300.
    pub fn to_men(&self) -> f64 {
        self.0 as f64 / 100.0
    }
}

impl fmt::Display for Score {
    /// `+1.25` / `-0.50` in men; a win in 7 plies is `#7`, a loss in 6 plies `#-6`; a win
    /// the endgame tables know of, 3 plies from the root, `TB#3` (a loss `TB#-3`), and a
    /// known win the search has not yet turned into one of those `TB` (a loss `-TB`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.plies_to_end() {
            Some(n) => write!(f, "#{n}"),
            None if self.0 == TB_WIN_BOUND => f.write_str("TB"),
            None if self.0 == -TB_WIN_BOUND => f.write_str("-TB"),
            None if self.is_tb_win() => write!(f, "TB#{}", TB_WIN - self.0),
            None if self.is_tb_loss() => write!(f, "TB#-{}", TB_WIN + self.0),
            None => write!(f, "{:+.2}", self.to_men()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wins_and_losses_round_trip() {
        assert_eq!(Score::win_in(7).plies_to_end(), Some(7));
        assert_eq!(Score::loss_in(6).plies_to_end(), Some(-6));
        assert_eq!(Score(125).plies_to_end(), None);
        assert_eq!(Score(125).to_string(), "+1.25");
        assert_eq!(Score(-50).to_string(), "-0.50");
        assert_eq!(Score::win_in(7).to_string(), "#7");
        assert_eq!(Score::loss_in(6).to_string(), "#-6");
        assert!(Score::win_in(3) > Score::win_in(5));
        assert!(Score::loss_in(3) < Score::loss_in(5));
        assert_eq!(Score(TB_WIN - 3).to_string(), "TB#3");
        assert_eq!(Score(-(TB_WIN - 4)).to_string(), "TB#-4");
        assert_eq!(Score(TB_WIN_BOUND).to_string(), "TB");
        assert_eq!(Score(-TB_WIN_BOUND).to_string(), "-TB");
        assert!(Score(TB_WIN - 3).is_tb_win() && !Score(TB_WIN - 3).is_win());
        assert!(Score::win_in(40) > Score(TB_WIN) && Score(TB_WIN_BOUND) > Score(9_999));
    }
}
