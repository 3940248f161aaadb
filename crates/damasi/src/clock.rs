//! Game clocks: a time control (initial time and Fischer increment) and the time each side has
//! left. The clock never reads the time itself: whoever referees the game (a server, a match
//! runner) measures how long each move took and hands the figure to [`Clock::charge`], so a
//! player's own report of its time is never needed.
//!
//! The game's first move is not timed: the clock starts when it has been played (the
//! federation starts White's clock only after White's first move, and over a board a player
//! needs a moment to sit down). Every timed move then costs its thinking time and earns the
//! increment.
//!
//! ```
//! use std::time::Duration;
//! use damasi::{Clock, TimeControl};
//! use damasi::Color;
//!
//! let mut clock = Clock::new(TimeControl::from_secs(60, 2));
//! clock.charge(Color::White, Duration::from_secs(30)).unwrap(); // first move: free
//! clock.charge(Color::Black, Duration::from_secs(10)).unwrap();
//! assert_eq!(clock.remaining(Color::White), Duration::from_secs(60));
//! assert_eq!(clock.remaining(Color::Black), Duration::from_secs(52));
//! assert!(clock.charge(Color::White, Duration::from_secs(61)).is_err()); // flag
//! assert_eq!(clock.remaining(Color::White), Duration::ZERO);
//! ```

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::color::{ByColor, Color};

/// How much time a game gives: `initial` for each side, plus `increment` after every timed
/// move (Fischer).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TimeControl {
    /// Time each side starts with.
    pub initial: Duration,
    /// Time added after each timed move.
    pub increment: Duration,
}

impl TimeControl {
    /// The federation's setting for official games: 45 minutes each, no increment.
    pub const FEDERATION: TimeControl = TimeControl {
        initial: Duration::from_secs(45 * 60),
        increment: Duration::ZERO,
    };

    /// A control of `initial` and `increment` seconds.
    pub const fn from_secs(initial: u64, increment: u64) -> TimeControl {
        TimeControl {
            initial: Duration::from_secs(initial),
            increment: Duration::from_secs(increment),
        }
    }

    /// The PDN `TimeControl` tag value (the PGN form, seconds): `2700` without increment,
    /// `180+2` with one. Fractions of a second are written with up to three decimals.
    pub fn pdn(&self) -> String {
        let initial = secs_text(self.initial);
        if self.increment.is_zero() {
            initial
        } else {
            format!("{initial}+{}", secs_text(self.increment))
        }
    }
}

fn secs_text(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        (ms / 1000).to_string()
    } else {
        let text = format!("{}.{:03}", ms / 1000, ms % 1000);
        text.trim_end_matches('0').to_string()
    }
}

/// Why a time control text was not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeControlError(pub String);

impl fmt::Display for TimeControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "time control: {}", self.0)
    }
}

impl std::error::Error for TimeControlError {}

/// Longest initial time or increment a control may give (a day); bounds the arithmetic.
const MAX_TIME: Duration = Duration::from_secs(24 * 3600);

fn parse_secs(text: &str, whole: &str) -> Result<Duration, TimeControlError> {
    let secs: f64 = text.trim().parse().map_err(|_| {
        TimeControlError(format!(
            "'{whole}': '{text}' is not a number of seconds (expected e.g. '2700' or '180+2')"
        ))
    })?;
    if !secs.is_finite() || secs < 0.0 || secs > MAX_TIME.as_secs_f64() {
        return Err(TimeControlError(format!(
            "'{whole}': {text} s is outside 0 to {} s",
            MAX_TIME.as_secs()
        )));
    }
    Ok(Duration::from_millis((secs * 1000.0).round() as u64))
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    /// Reads the PDN/PGN form written by [`TimeControl::pdn`]: `SECONDS` or
    /// `SECONDS+INCREMENT`. The initial time must be above zero.
    fn from_str(s: &str) -> Result<TimeControl, TimeControlError> {
        let (initial, increment) = match s.split_once('+') {
            Some((a, b)) => (parse_secs(a, s)?, parse_secs(b, s)?),
            None => (parse_secs(s, s)?, Duration::ZERO),
        };
        if initial.is_zero() {
            return Err(TimeControlError(format!(
                "'{s}': the initial time must be above zero"
            )));
        }
        Ok(TimeControl { initial, increment })
    }
}

impl fmt::Display for TimeControl {
    /// `45+0` style: minutes and increment seconds, as players say it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let minutes = self.initial.as_secs_f64() / 60.0;
        let inc = self.increment.as_secs_f64();
        write!(f, "{minutes}+{inc}")
    }
}

/// A side's time ran out during a move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Flagged {
    /// The side whose time ran out.
    pub side: Color,
}

impl fmt::Display for Flagged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ran out of time", self.side)
    }
}

impl std::error::Error for Flagged {}

/// The two clocks of a game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Clock {
    control: TimeControl,
    /// Time left, White's first.
    remaining: ByColor<Duration>,
    /// Moves charged so far (the first is free).
    moves: u32,
}

impl Clock {
    /// Both sides with the control's initial time; no move played yet.
    pub fn new(control: TimeControl) -> Clock {
        let control = TimeControl {
            initial: control.initial.min(MAX_TIME),
            increment: control.increment.min(MAX_TIME),
        };
        Clock {
            control,
            remaining: ByColor::new(control.initial, control.initial),
            moves: 0,
        }
    }

    /// A clock read back from a record: the control, each side's time left, and the number of
    /// moves played under it.
    pub fn with_remaining(
        control: TimeControl,
        white: Duration,
        black: Duration,
        moves: u32,
    ) -> Clock {
        let mut clock = Clock::new(control);
        clock.remaining = ByColor::new(white, black);
        clock.moves = moves;
        clock
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// The time `side` has left, not counting a move in progress.
    pub fn remaining(&self, side: Color) -> Duration {
        self.remaining[side]
    }

    /// Whether the clock runs: false before the first move of the game has been played.
    pub fn is_running(&self) -> bool {
        self.moves > 0
    }

    /// Moves charged so far, the free first move included.
    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// The time `side`, to move, has left after thinking for `elapsed` on its current move
    /// (zero once its time is out). Before the first move the clock does not run.
    pub fn remaining_after(&self, side: Color, elapsed: Duration) -> Duration {
        if self.is_running() {
            self.remaining(side).saturating_sub(elapsed)
        } else {
            self.remaining(side)
        }
    }

    /// Whether `side`, to move, is out of time after thinking for `elapsed`.
    pub fn is_flagged(&self, side: Color, elapsed: Duration) -> bool {
        self.is_running() && elapsed >= self.remaining(side)
    }

    /// `side` played a move that took `elapsed`: its time goes down by `elapsed`, then up by
    /// the increment. The game's first move is free and earns nothing. If `elapsed` reaches
    /// the time left, the side's time is set to zero and it has lost on time (`Err`); the move
    /// does not count.
    pub fn charge(&mut self, side: Color, elapsed: Duration) -> Result<(), Flagged> {
        if !self.is_running() {
            self.moves = 1;
            return Ok(());
        }
        let left = &mut self.remaining[side];
        if elapsed >= *left {
            *left = Duration::ZERO;
            return Err(Flagged { side });
        }
        *left = (*left - elapsed).saturating_add(self.control.increment);
        self.moves = self.moves.saturating_add(1);
        Ok(())
    }

    /// Sets `side`'s time to zero: its flag fell while it was thinking.
    pub fn flag(&mut self, side: Color) {
        self.remaining[side] = Duration::ZERO;
    }
}
