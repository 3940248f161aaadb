//! Search limits and time management: how long to think for `time`/`inc`/`moves_to_go`,
//! `move_time`, `depth`, `nodes` and `infinite`, with a safety margin so that the engine never
//! loses on time.

use std::time::Duration;

use crate::clock::Instant;

/// A player's clock.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Clock {
    /// Time left on the clock.
    pub time: Duration,
    /// Increment added after each move.
    pub inc: Duration,
    /// Moves to play before the next time control (`None`: the rest of the game).
    pub moves_to_go: Option<u32>,
}

/// What ends a search. Several limits may be given; the first one reached stops it. With no
/// limit at all the search runs to its maximum depth.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Limits {
    /// Deepest iteration to search.
    pub depth: Option<u32>,
    /// Most nodes to search (checked every few thousand nodes).
    pub nodes: Option<u64>,
    /// Exact thinking time for this move.
    pub move_time: Option<Duration>,
    /// The side to move's clock; the engine budgets its own time from it.
    pub clock: Option<Clock>,
    /// Search until stopped, even after the maximum depth (analysis mode).
    pub infinite: bool,
}

impl Limits {
    /// Search to a fixed depth.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Think for a fixed time.
    pub fn move_time(t: Duration) -> Limits {
        Limits {
            move_time: Some(t),
            ..Limits::default()
        }
    }

    /// Search a fixed number of nodes.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Play on a clock.
    pub fn clock(time: Duration, inc: Duration, moves_to_go: Option<u32>) -> Limits {
        Limits {
            clock: Some(Clock {
                time,
                inc,
                moves_to_go,
            }),
            ..Limits::default()
        }
    }
}

/// Time kept back from every clock budget: process scheduling, the protocol round trip.
const MOVE_OVERHEAD: Duration = Duration::from_millis(30);

/// Moves the engine assumes are left when the time control does not say.
const DEFAULT_MOVES_TO_GO: u32 = 30;

/// Thinking-time budget for one move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Budget {
    /// Do not start a new iteration after this much time (the target).
    pub soft: Duration,
    /// Stop the search at once after this much time (never loses on time).
    pub hard: Duration,
}

/// The budget for a move from the limits, or `None` when time does not limit the search.
pub fn budget(limits: &Limits) -> Option<Budget> {
    let mut best: Option<Budget> = None;
    if let Some(t) = limits.move_time {
        // Use the time given, minus a little to answer in time.
        let margin = (t / 20).min(MOVE_OVERHEAD);
        let hard = t.saturating_sub(margin).max(Duration::from_millis(1));
        best = Some(Budget { soft: hard, hard });
    }
    if let Some(c) = limits.clock {
        let b = clock_budget(&c);
        best = Some(match best {
            Some(m) => Budget {
                soft: m.soft.min(b.soft),
                hard: m.hard.min(b.hard),
            },
            None => b,
        });
    }
    best
}

fn clock_budget(c: &Clock) -> Budget {
    // Never plan on the last part of the clock: keep an overhead per move plus 5%.
    let reserve = MOVE_OVERHEAD.saturating_add(c.time / 20);
    let usable = c.time.saturating_sub(reserve);
    let mtg = c.moves_to_go.unwrap_or(DEFAULT_MOVES_TO_GO).clamp(1, 50);
    // One share of the remaining time plus most of the increment.
    let share = (usable / mtg).saturating_add(c.inc.saturating_mul(3) / 4);
    let soft = share.min(usable);
    // A search that runs long may use up to four shares, never more than a fifth of what is
    // left (unless this is the last move before the time control): on short clocks the
    // protocol round trip and the scheduler cost time the engine cannot see.
    let cap = if mtg == 1 { usable } else { usable / 5 };
    let hard = share.saturating_mul(4).min(cap).max(soft);
    let floor = Duration::from_millis(1);
    Budget {
        soft: soft.max(floor),
        hard: hard.max(floor),
    }
}

/// Decides during a search whether to go on.
#[derive(Clone, Debug)]
pub struct TimeManager {
    start: Instant,
    budget: Option<Budget>,
}

impl TimeManager {
    /// Starts timing now.
    pub fn new(limits: &Limits) -> TimeManager {
        TimeManager {
            start: Instant::now(),
            budget: budget(limits),
        }
    }

    /// Restarts the clock (after a ponder hit).
    pub fn restart(&mut self, at: Instant) {
        self.start = at;
    }

    /// Time since the search (or the ponder hit) started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether the hard limit is passed: stop now.
    pub fn out_of_time(&self) -> bool {
        self.budget.is_some_and(|b| self.elapsed() >= b.hard)
    }

    /// Whether to start another iteration. `stability` scales the soft limit (below 1 when the
    /// best move has been the same for several iterations, above 1 when it keeps changing).
    pub fn may_start_iteration(&self, stability: f64) -> bool {
        match self.budget {
            None => true,
            Some(b) => {
                // Scaled in seconds: `mul_f64` panics past `Duration::MAX` (huge clocks).
                let scaled = b.soft.as_secs_f64() * stability.clamp(0.3, 2.5);
                let target = Duration::try_from_secs_f64(scaled)
                    .unwrap_or(b.hard)
                    .min(b.hard);
                // An iteration costs several times the previous one: do not start one that
                // cannot finish.
                self.elapsed() < target.mul_f64(0.6)
            }
        }
    }

    /// Whether time limits the search at all.
    pub fn is_timed(&self) -> bool {
        self.budget.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn no_time_limit_without_clock_or_move_time() {
        assert_eq!(budget(&Limits::depth(5)), None);
        assert_eq!(budget(&Limits::nodes(1000)), None);
        assert_eq!(
            budget(&Limits {
                infinite: true,
                ..Limits::default()
            }),
            None
        );
    }

    #[test]
    fn move_time_keeps_a_small_margin() {
        let b = budget(&Limits::move_time(ms(1000))).unwrap();
        assert!(b.hard <= ms(1000) && b.hard >= ms(950));
        assert_eq!(b.soft, b.hard);
        let b = budget(&Limits::move_time(ms(0))).unwrap();
        assert!(b.hard >= ms(1));
    }

    #[test]
    fn clock_budget_never_exceeds_the_clock() {
        for time in [0u64, 1, 10, 50, 100, 1000, 10_000, 60_000, 600_000] {
            for inc in [0u64, 100, 2000] {
                for mtg in [None, Some(1), Some(5), Some(40)] {
                    let b = budget(&Limits::clock(ms(time), ms(inc), mtg)).unwrap();
                    assert!(b.soft <= b.hard, "{time} {inc} {mtg:?}");
                    if time > 40 {
                        assert!(b.hard < ms(time), "{time} {inc} {mtg:?}: {b:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn huge_clocks_do_not_overflow() {
        let huge = Duration::from_secs(u64::MAX / 2);
        for mtg in [None, Some(1), Some(5)] {
            let b = budget(&Limits::clock(huge, huge, mtg)).unwrap();
            assert!(b.soft <= b.hard, "{mtg:?}: {b:?}");
            let tm = TimeManager::new(&Limits::clock(huge, huge, mtg));
            assert!(tm.may_start_iteration(2.5) && !tm.out_of_time());
        }
    }

    #[test]
    fn clock_budget_is_a_fraction_of_the_time() {
        let b = budget(&Limits::clock(ms(60_000), ms(0), None)).unwrap();
        assert!(b.soft >= ms(1500) && b.soft <= ms(2500), "{b:?}");
        assert!(b.hard <= ms(20_000));
        // The increment adds to the budget.
        let c = budget(&Limits::clock(ms(60_000), ms(1000), None)).unwrap();
        assert!(c.soft > b.soft);
        // The last move before the control may use most of the time.
        let d = budget(&Limits::clock(ms(10_000), ms(0), Some(1))).unwrap();
        assert!(d.soft >= ms(9000) && d.hard < ms(10_000));
    }

    #[test]
    fn move_time_and_clock_take_the_tighter() {
        let mut l = Limits::clock(ms(60_000), ms(0), None);
        l.move_time = Some(ms(100));
        let b = budget(&l).unwrap();
        assert!(b.hard <= ms(100));
    }

    #[test]
    fn manager_stops_iterations_before_the_soft_limit() {
        let tm = TimeManager::new(&Limits::move_time(ms(100_000)));
        assert!(tm.may_start_iteration(1.0));
        assert!(!tm.out_of_time());
        let mut tm = TimeManager::new(&Limits::move_time(ms(10)));
        tm.restart(Instant::now() - ms(50));
        assert!(tm.out_of_time());
        assert!(!tm.may_start_iteration(1.0));
        let tm = TimeManager::new(&Limits::depth(3));
        assert!(!tm.is_timed() && !tm.out_of_time());
    }
}
