//! When a message may be edited again, within Telegram's limits: about one edit a second per
//! chat, and twenty a minute in a group. Moves that come faster are applied at once; the
//! message is edited when it may be, showing the position of that moment, so no move is lost
//! and no edit is wasted on a position already gone.
//!
//! An inline message does not say which chat it is in, so the limits are kept per message,
//! with the group limit for messages sent from an inline query in a group (its `chat_type`).

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use tokio::time::Instant;

/// Telegram's limits on editing one message.
#[derive(Clone, Copy, Debug)]
pub struct EditLimits {
    /// The least time between two edits.
    pub gap: Duration,
    /// At most `group_edits` edits within `group_window` in a group.
    pub group_window: Duration,
    /// See `group_window`.
    pub group_edits: usize,
}

impl Default for EditLimits {
    fn default() -> Self {
        EditLimits {
            gap: Duration::from_secs(1),
            group_window: Duration::from_secs(60),
            group_edits: 20,
        }
    }
}

/// The edits made lately, per message.
#[derive(Debug, Default)]
pub struct Throttle {
    limits: EditLimits,
    made: HashMap<String, VecDeque<Instant>>,
}

impl Throttle {
    /// A throttle keeping `limits`.
    pub fn new(limits: EditLimits) -> Throttle {
        Throttle {
            limits,
            made: HashMap::new(),
        }
    }

    /// The earliest time message `key` may be edited (`now` if it may be now).
    pub fn next_allowed(&self, key: &str, group: bool, now: Instant) -> Instant {
        let Some(made) = self.made.get(key) else {
            return now;
        };
        let mut at = now;
        if let Some(&last) = made.back() {
            at = at.max(last + self.limits.gap);
        }
        if group && made.len() >= self.limits.group_edits {
            // The edit `group_edits` back must have left the window.
            let oldest = made[made.len() - self.limits.group_edits];
            at = at.max(oldest + self.limits.group_window);
        }
        at
    }

    /// Notes an edit of `key` made at `now`, forgetting those too old to matter.
    pub fn record(&mut self, key: &str, now: Instant) {
        let made = self.made.entry(key.to_string()).or_default();
        made.push_back(now);
        while made.len() > self.limits.group_edits {
            made.pop_front();
        }
    }

    /// Forgets `key` (its game is over and shown).
    pub fn forget(&mut self, key: &str) {
        self.made.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_keep_a_second_apart_and_twenty_a_minute_in_a_group() {
        let start = Instant::now();
        let mut t = Throttle::new(EditLimits::default());
        // A change every half second for three minutes, each edit made as soon as allowed.
        let mut edits = Vec::new();
        let mut now = start;
        let end = start + Duration::from_secs(180);
        let mut pending = false;
        let mut next_change = start;
        while now < end {
            if now >= next_change {
                pending = true;
                next_change += Duration::from_millis(500);
            }
            if pending && t.next_allowed("m", true, now) <= now {
                t.record("m", now);
                edits.push(now);
                pending = false;
            }
            now += Duration::from_millis(100);
        }
        for w in edits.windows(2) {
            assert!(w[1] - w[0] >= Duration::from_secs(1));
        }
        for (i, &e) in edits.iter().enumerate() {
            let in_minute = edits[i..]
                .iter()
                .take_while(|&&x| x < e + Duration::from_secs(60))
                .count();
            assert!(in_minute <= 20, "{in_minute} edits in a minute");
        }
        // And the limit is used, not starved: three minutes allow 60.
        assert!(edits.len() >= 57, "{} edits", edits.len());
    }

    #[test]
    fn a_private_chat_may_edit_every_second() {
        let start = Instant::now();
        let mut t = Throttle::new(EditLimits::default());
        for i in 0..30 {
            let now = start + Duration::from_secs(i);
            assert_eq!(t.next_allowed("m", false, now), now);
            t.record("m", now);
        }
        assert_eq!(
            t.next_allowed("m", false, start + Duration::from_millis(29_500)),
            start + Duration::from_secs(30)
        );
        assert_eq!(t.next_allowed("other", true, start), start);
    }
}
