//! A player's network lag as the server measures it, and the compensation quota that keeps a
//! slow line from costing its owner the clock without letting a claimed lag buy time.

use std::time::Duration;

/// Lag compensation quota a player starts with (ms).
pub const LAG_QUOTA_START: u64 = 500;

/// Quota earned with every move (ms).
pub const LAG_QUOTA_GAIN: u64 = 100;

/// Most quota a player can hold (ms).
pub const LAG_QUOTA_MAX: u64 = 1_500;

/// Most compensation for one move (ms).
pub const LAG_COMP_MAX: u64 = 1_000;

/// What the server knows of one player's network lag, and the compensation left to them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lag {
    /// The one-way lag the server measured (half the round trip of its pings), smoothed; none
    /// before the first measurement.
    pub one_way_ms: Option<f64>,
    /// Compensation still available (ms).
    pub quota_ms: u64,
}

impl Default for Lag {
    fn default() -> Self {
        Lag {
            one_way_ms: None,
            quota_ms: LAG_QUOTA_START,
        }
    }
}

impl Lag {
    /// Records a measured round trip.
    pub fn observe_round_trip(&mut self, rtt: Duration) {
        let one_way = rtt.as_secs_f64() * 500.0;
        self.one_way_ms = Some(match self.one_way_ms {
            None => one_way,
            Some(old) => old * 0.7 + one_way * 0.3,
        });
    }

    /// The compensation owed to a move that took `elapsed_ms` by the server's clock, taken
    /// from the quota, which then earns its per-move gain.
    pub fn compensate(&mut self, elapsed_ms: u64) -> u64 {
        let lag = self.one_way_ms.unwrap_or(0.0).max(0.0) as u64;
        let comp = lag.min(self.quota_ms).min(LAG_COMP_MAX).min(elapsed_ms);
        self.quota_ms = (self.quota_ms - comp + LAG_QUOTA_GAIN).min(LAG_QUOTA_MAX);
        comp
    }

    /// The most compensation a move now could get: how long after the flag a move may still be
    /// in flight.
    pub fn grace_ms(&self) -> u64 {
        let lag = self.one_way_ms.unwrap_or(0.0).max(0.0) as u64;
        lag.min(self.quota_ms).min(LAG_COMP_MAX)
    }
}
