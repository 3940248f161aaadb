//! One game being played live: the part every referee of damasi shares. It holds the game
//! with its clocks, the thinking time charged for every ply, and when the side to move's turn
//! began (or what that side had used when its clock was paused), and it answers the clock
//! readings from them. The online table ([`crate::table::TableState`], timed by the process's
//! [`Instant`]) and the local games' referee (`damasi-web`, timed in Unix ms so that a turn
//! survives a restart) both wrap it, so neither reads a clock of its own.

use std::time::Duration;

use damasi::{ByColor, Color, DrawReason, Game, GameError, Move, Outcome, Position, RuleSet};
use damasi::{TimeControl, WinReason};
use tokio::time::Instant;

use crate::error::ApiError;
use crate::record::Record;

/// A point in time a live game is read at: the process's [`Instant`], or Unix ms (`i64`).
pub trait Moment: Copy {
    /// Milliseconds from `earlier` to `self` (0 if `earlier` is later).
    fn ms_since(self, earlier: Self) -> u64;
    /// The moment `ms` milliseconds before `self`.
    fn earlier_by(self, ms: u64) -> Self;
}

impl Moment for Instant {
    fn ms_since(self, earlier: Self) -> u64 {
        self.saturating_duration_since(earlier).as_millis() as u64
    }

    fn earlier_by(self, ms: u64) -> Self {
        self.checked_sub(Duration::from_millis(ms)).unwrap_or(self)
    }
}

impl Moment for i64 {
    fn ms_since(self, earlier: Self) -> u64 {
        self.saturating_sub(earlier).max(0) as u64
    }

    fn earlier_by(self, ms: u64) -> Self {
        self.saturating_sub(ms.min(i64::MAX as u64) as i64)
    }
}

/// A game being played, with its times (see the module's text).
#[derive(Clone, Debug)]
pub struct LiveGame<T> {
    /// The game with its clocks.
    pub game: Game,
    /// Thinking time charged for every ply (ms).
    pub elapsed: Vec<u64>,
    /// When the side to move's turn began; none before the game starts.
    pub turn_started: Option<T>,
    /// While the side to move's clock is paused, the time it had used (ms).
    pub paused_ms: Option<u64>,
}

impl<T: Moment> LiveGame<T> {
    /// A game about to begin (no turn started yet).
    pub fn new(game: Game) -> LiveGame<T> {
        LiveGame {
            game,
            elapsed: Vec::new(),
            turn_started: None,
            paused_ms: None,
        }
    }

    /// Rebuilds a stored game: its plies (stored tokens with their charged times) replayed, so
    /// the clocks come out exactly as they were.
    pub fn replay<'a>(
        start: Position,
        rules: RuleSet,
        control: Option<TimeControl>,
        plies: impl IntoIterator<Item = (&'a str, u64)>,
    ) -> Result<LiveGame<T>, ApiError> {
        let plies: Vec<(&str, u64)> = plies.into_iter().collect();
        let game = Record::replay(start, rules, control, plies.iter().copied())?.into_game();
        Ok(LiveGame {
            game,
            elapsed: plies.iter().map(|(_, ms)| *ms).collect(),
            turn_started: None,
            paused_ms: None,
        })
    }

    /// Puts back a stored outcome the board does not decide (a resignation, an agreed draw, a
    /// loss on time, which also empties the loser's clock). Nothing when the game is over
    /// already.
    pub fn restore_outcome(&mut self, outcome: Outcome) -> Result<(), GameError> {
        if self.game.is_over() {
            return Ok(());
        }
        let flagged = match outcome {
            Outcome::Win {
                winner,
                reason: WinReason::Time,
            } => Some(!winner),
            Outcome::Draw(DrawReason::TimeoutCannotWin) => {
                Some(self.game.position().side_to_move())
            }
            _ => None,
        };
        match flagged {
            Some(loser)
                if self.game.clock().is_some() && self.game.time_outcome(loser) == outcome =>
            {
                self.game.lose_on_time(loser).map(|_| ())
            }
            _ => self.game.end(outcome),
        }
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.game.position().side_to_move()
    }

    /// Thinking time spent on the current turn as of `now` (ms); frozen while paused.
    pub fn elapsed_now(&self, now: T) -> u64 {
        match (self.paused_ms, self.turn_started) {
            (Some(used), _) => used,
            (None, Some(t)) => now.ms_since(t),
            (None, None) => 0,
        }
    }

    /// Both sides' clock as of `now` (ms; none without a clock): the side to move's less its
    /// current turn when `thinking` (its clock runs, or is paused with time used).
    pub fn clocks_now(&self, now: T, thinking: bool) -> Option<ByColor<u64>> {
        let clock = self.game.clock()?;
        let to_move = self.side_to_move();
        let used = Duration::from_millis(self.elapsed_now(now));
        Some(ByColor::from_fn(|side| {
            let left = if thinking && side == to_move {
                clock.remaining_after(side, used)
            } else {
                clock.remaining(side)
            };
            left.as_millis() as u64
        }))
    }

    /// Starts the side to move's turn at `now` (the game begins, or a paused clock goes on
    /// from where it stopped).
    pub fn start_turn(&mut self, now: T) {
        self.turn_started = Some(match self.paused_ms.take() {
            Some(used) => now.earlier_by(used),
            None => now,
        });
    }

    /// Pauses the side to move's clock at `now`, keeping what it has used.
    pub fn pause(&mut self, now: T) {
        self.paused_ms = Some(self.elapsed_now(now));
    }

    /// Plays `m` charged `elapsed_ms`; the next turn begins at `now`.
    pub fn play(&mut self, m: &Move, elapsed_ms: u64, now: T) -> Result<(), GameError> {
        self.game.play_timed(m, Duration::from_millis(elapsed_ms))?;
        self.elapsed.push(elapsed_ms);
        self.turn_started = Some(now);
        self.paused_ms = None;
        Ok(())
    }

    /// Takes the last ply back (its time given back to the clock); the turn begins again at
    /// `now`. Answers the side that had played it.
    pub fn take_back(&mut self, now: T) -> Result<Color, GameError> {
        self.game.take_back()?;
        self.elapsed.pop();
        self.turn_started = Some(now);
        self.paused_ms = None;
        Ok(self.side_to_move())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(initial_s: u64, increment_s: u64) -> LiveGame<i64> {
        let control = TimeControl::from_secs(initial_s, increment_s);
        LiveGame::new(
            Game::from_position(Position::start(), RuleSet::default()).with_time_control(control),
        )
    }

    fn first_move(g: &LiveGame<i64>) -> Move {
        *g.game.position().legal_moves().iter().next().unwrap()
    }

    /// Hand-worked: 60 s + 2 s. White's first move is free; Black's first move of 10 s costs
    /// 10 s and earns 2 s (52 s left); White then thinks 7 s of its second move.
    #[test]
    fn the_clocks_read_the_current_turn() {
        let mut g = timed(60, 2);
        g.start_turn(1_000);
        let m = first_move(&g);
        g.play(&m, 0, 1_000).unwrap();
        let m = first_move(&g);
        g.play(&m, 10_000, 11_000).unwrap();
        let c = g.clocks_now(18_000, true).unwrap();
        assert_eq!((c[Color::White], c[Color::Black]), (53_000, 52_000));
        assert_eq!(g.elapsed_now(18_000), 7_000);
        // Not thinking: the clocks as they stand.
        let c = g.clocks_now(18_000, false).unwrap();
        assert_eq!((c[Color::White], c[Color::Black]), (60_000, 52_000));
        assert_eq!(g.elapsed, vec![0, 10_000]);
    }

    #[test]
    fn a_paused_clock_keeps_its_time_and_goes_on_from_it() {
        let mut g = timed(60, 0);
        g.start_turn(0);
        g.pause(4_000);
        assert_eq!(g.elapsed_now(100_000), 4_000, "frozen while paused");
        g.start_turn(100_000);
        assert_eq!(g.turn_started, Some(96_000));
        assert_eq!(g.elapsed_now(101_000), 5_000);
    }

    #[test]
    fn a_takeback_gives_the_time_back() {
        let mut g = timed(60, 0);
        g.start_turn(0);
        let m = first_move(&g);
        g.play(&m, 0, 0).unwrap();
        let m = first_move(&g);
        g.play(&m, 9_000, 9_000).unwrap();
        assert_eq!(g.take_back(20_000).unwrap(), Color::Black);
        assert_eq!(g.elapsed, vec![0]);
        assert_eq!(g.clocks_now(20_000, false).unwrap()[Color::Black], 60_000);
        assert_eq!(g.elapsed_now(25_000), 5_000);
    }

    #[test]
    fn a_stored_loss_on_time_comes_back_with_an_empty_clock() {
        let played = timed(60, 0);
        let control = played.game.clock().map(|c| c.control());
        let m = first_move(&played);
        let token = Record::token(&m);
        let mut g: LiveGame<i64> = LiveGame::replay(
            Position::start(),
            RuleSet::default(),
            control,
            [(token.as_str(), 0)],
        )
        .unwrap();
        let lost = Outcome::Win {
            winner: Color::White,
            reason: WinReason::Time,
        };
        g.restore_outcome(lost).unwrap();
        assert_eq!(g.game.outcome(), Some(lost));
        assert_eq!(
            g.game.clock().unwrap().remaining(Color::Black),
            Duration::ZERO
        );
        // A resignation is put back as it was.
        let mut g: LiveGame<i64> =
            LiveGame::replay(Position::start(), RuleSet::default(), control, []).unwrap();
        let resigned = Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Resignation,
        };
        g.restore_outcome(resigned).unwrap();
        assert_eq!(g.game.outcome(), Some(resigned));
    }
}
