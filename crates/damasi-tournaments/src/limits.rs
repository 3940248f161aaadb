//! What one account or one address may ask of the director in a while (docs/security.md,
//! "Tournaments"): how many tournaments an account creates (and keeps open), and how many
//! wrong entry passwords an account may send for one tournament and an address for all.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Mutex as StdMutex;
use std::time::{Duration, Instant};

use damasi_online::addresses::address_key;
use damasi_online::error::ApiError;

use crate::lock;

/// Tournaments (Swiss and arenas together) one account may create in [`CREATE_WINDOW`].
pub const CREATIONS_PER_WINDOW: usize = 10;
/// The window of [`CREATIONS_PER_WINDOW`].
pub const CREATE_WINDOW: Duration = Duration::from_secs(3600);
/// Tournaments one account may have open (created or started, not finished) at once.
pub const OPEN_PER_ACCOUNT: usize = 8;
/// Wrong passwords one account may send for one tournament in [`PASSWORD_WINDOW`].
pub const WRONG_PASSWORDS_PER_TOURNAMENT: usize = 5;
/// Wrong passwords one address (IPv4, or IPv6 /64) may send, all tournaments together, in
/// [`PASSWORD_WINDOW`].
pub const WRONG_PASSWORDS_PER_ADDRESS: usize = 20;
/// The window of the wrong-password limits.
pub const PASSWORD_WINDOW: Duration = Duration::from_secs(600);

/// Keys with no event younger than their window are forgotten when there are more than this.
const KEYS_KEPT: usize = 10_000;

/// At most `max` events per key in any `per`.
struct Window<K> {
    max: usize,
    per: Duration,
    events: StdMutex<HashMap<K, VecDeque<Instant>>>,
}

impl<K: Hash + Eq + Clone> Window<K> {
    fn new(max: usize, per: Duration) -> Window<K> {
        Window {
            max,
            per,
            events: StdMutex::new(HashMap::new()),
        }
    }

    /// The seconds until `key` may act again, none if it may now.
    fn wait(&self, key: &K) -> Option<u64> {
        let now = Instant::now();
        let mut events = lock(&self.events);
        let seen = events.get_mut(key)?;
        while seen
            .front()
            .is_some_and(|t| now.duration_since(*t) >= self.per)
        {
            seen.pop_front();
        }
        if seen.len() < self.max {
            return None;
        }
        let oldest = *seen.front()?;
        Some((self.per - now.duration_since(oldest)).as_secs().max(1))
    }

    /// Counts one event of `key`.
    fn hit(&self, key: K) {
        let now = Instant::now();
        let mut events = lock(&self.events);
        if events.len() > KEYS_KEPT {
            let per = self.per;
            events.retain(|_, seen| seen.back().is_some_and(|t| now.duration_since(*t) < per));
        }
        let seen = events.entry(key).or_default();
        seen.push_back(now);
        while seen.len() > self.max {
            seen.pop_front();
        }
    }
}

/// The director's limits.
pub(crate) struct Limits {
    created: Window<i64>,
    wrong_for: Window<(i64, String)>,
    wrong_from: Window<IpAddr>,
}

fn limited(code: &'static str, message: String, retry_after: u64) -> ApiError {
    ApiError::Limited {
        code,
        message,
        retry_after: Some(retry_after),
    }
}

impl Limits {
    pub(crate) fn new() -> Limits {
        Limits {
            created: Window::new(CREATIONS_PER_WINDOW, CREATE_WINDOW),
            wrong_for: Window::new(WRONG_PASSWORDS_PER_TOURNAMENT, PASSWORD_WINDOW),
            wrong_from: Window::new(WRONG_PASSWORDS_PER_ADDRESS, PASSWORD_WINDOW),
        }
    }

    /// Refuses a new tournament of `user`, who has `open` tournaments not finished, over
    /// either limit (429); else counts it.
    pub(crate) fn create(&self, user: i64, open: usize) -> Result<(), ApiError> {
        if open >= OPEN_PER_ACCOUNT {
            return Err(limited(
                "too-many-tournaments",
                format!(
                    "you have {open} tournaments not finished: at most {OPEN_PER_ACCOUNT} at \
                     once (finish or terminate one first)"
                ),
                CREATE_WINDOW.as_secs() / 6,
            ));
        }
        if let Some(wait) = self.created.wait(&user) {
            return Err(limited(
                "too-many-tournaments",
                format!(
                    "at most {CREATIONS_PER_WINDOW} new tournaments an hour: try again in {wait} s"
                ),
                wait,
            ));
        }
        self.created.hit(user);
        Ok(())
    }

    /// Refuses a password from `user` for `tournament` (from `from`) after too many wrong
    /// ones (429).
    pub(crate) fn password_allowed(
        &self,
        user: i64,
        tournament: &str,
        from: Option<IpAddr>,
    ) -> Result<(), ApiError> {
        let wait = self
            .wrong_for
            .wait(&(user, tournament.to_string()))
            .or_else(|| from.and_then(|ip| self.wrong_from.wait(&address_key(ip))));
        match wait {
            Some(wait) => Err(limited(
                "too-many-wrong-passwords",
                format!("too many wrong passwords: try again in {wait} s"),
                wait,
            )),
            None => Ok(()),
        }
    }

    /// Counts a wrong password.
    pub(crate) fn wrong_password(&self, user: i64, tournament: &str, from: Option<IpAddr>) {
        self.wrong_for.hit((user, tournament.to_string()));
        if let Some(ip) = from {
            self.wrong_from.hit(address_key(ip));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_refuses_past_its_maximum_and_says_how_long() {
        let w = Window::new(2, Duration::from_secs(60));
        assert_eq!(w.wait(&1), None);
        w.hit(1);
        w.hit(1);
        let wait = w.wait(&1).expect("refused");
        assert!((1..=60).contains(&wait), "{wait}");
        assert_eq!(w.wait(&2), None, "another key is apart");
    }
}
