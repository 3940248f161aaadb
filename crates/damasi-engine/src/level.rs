//! Playing strength for people.

use std::time::Duration;

/// Playing strength from 1 (a beginner who blunders believably) to 10 (full strength).
/// Lower levels search shallower, add noise to the root scores and sometimes pick the
/// second to fourth best move.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Level(u8);

impl Level {
    /// The weakest level.
    pub const MIN: Level = Level(1);
    /// Full strength.
    pub const MAX: Level = Level(10);

    /// The level `n`, clamped to 1..=10.
    pub const fn new(n: u8) -> Level {
        if n < 1 {
            Level(1)
        } else if n > 10 {
            Level(10)
        } else {
            Level(n)
        }
    }

    /// The level as a number 1..=10.
    pub const fn get(self) -> u8 {
        self.0
    }

    /// Whether this is full strength (no handicap at all).
    pub const fn is_full(self) -> bool {
        self.0 >= 10
    }

    /// How long the engine thinks per move at this level against people (the web app's games
    /// against the engine; a clock may give it less). The lower levels mostly stop earlier, at
    /// their depth and node limits. The one table of these times: the WebAssembly build gives
    /// the browser its share of them (`damasi_wasm::browser_move_time`).
    pub const fn move_time(self) -> Duration {
        Duration::from_millis(match self.0 {
            0..=3 => 300,
            4..=6 => 700,
            7..=9 => 1500,
            _ => 3000,
        })
    }

    /// Deepest iteration this level searches.
    pub(crate) fn max_depth(self) -> u32 {
        [1, 1, 2, 3, 4, 5, 7, 9, 12, u32::MAX][self.0 as usize - 1]
    }

    /// Most nodes this level searches.
    pub(crate) fn max_nodes(self) -> u64 {
        [
            200,
            500,
            2_000,
            5_000,
            20_000,
            60_000,
            200_000,
            1_000_000,
            5_000_000,
            u64::MAX,
        ][self.0 as usize - 1]
    }

    /// Amplitude of the noise added to root scores, in centi-men.
    pub(crate) fn noise(self) -> i32 {
        [150, 110, 80, 60, 45, 30, 20, 10, 5, 0][self.0 as usize - 1]
    }

    /// Chance in percent of deliberately picking one of the next best moves.
    pub(crate) fn slip_percent(self) -> u32 {
        [40, 30, 22, 16, 11, 7, 4, 2, 1, 0][self.0 as usize - 1]
    }
}

impl Default for Level {
    fn default() -> Self {
        Level::MAX
    }
}
