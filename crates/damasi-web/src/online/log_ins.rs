//! Failed log-ins, counted so that guessing a password is slow and nobody can lock another
//! person out.
//!
//! The delays count per (name, address): after [`FREE_LOG_IN_FAILURES`] failures in a row for
//! a name from one address, that address's next attempts for the name wait 1 s, 2 s, 4 s ...
//! (at most [`MAX_LOG_IN_DELAY`]). Another address is not concerned, so an attacker's
//! guesses never refuse the owner's log-in from the owner's address.
//!
//! Guesses spread over many addresses are counted per name too: once a name has had
//! [`NAME_FAILURE_BUDGET`] failures within [`FORGET_FAILURES`], from whatever addresses, the
//! name is under attack and every address gets a single free failure for it (then the delays).
//! An address that has not failed for the name is still let through at once, so the owner
//! still logs in. Unknown names are counted exactly as names with an account, so the answers
//! tell nothing about which names exist.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::error::ApiError;

/// Failed log-ins in a row for one name from one address that are let through at once;
/// after them each attempt waits a growing delay.
pub const FREE_LOG_IN_FAILURES: u32 = 5;

/// Failures for one name, from all addresses together, after which each address has a
/// single free failure for it.
pub const NAME_FAILURE_BUDGET: u32 = 20;

/// Longest delay between two log-in attempts for one name from one address.
pub const MAX_LOG_IN_DELAY: Duration = Duration::from_secs(5 * 60);

/// Failed log-ins are forgotten after this long without an attempt.
pub const FORGET_FAILURES: Duration = Duration::from_secs(60 * 60);

/// Most (name, address) pairs, and most names, whose failures are remembered (the oldest are
/// forgotten first).
const MAX_REMEMBERED: usize = 100_000;

/// Failed log-ins in a row.
#[derive(Clone, Copy)]
struct Failures {
    /// Attempts since the last success (one under way counts).
    count: u32,
    /// The last attempt let through.
    last: Instant,
}

impl Failures {
    fn new(now: Instant) -> Failures {
        Failures {
            count: 0,
            last: now,
        }
    }
}

/// The wait after `count` attempts in a row that all failed, when `free` are let through:
/// none for those, then 1 s, 2 s, 4 s ... up to [`MAX_LOG_IN_DELAY`].
fn log_in_delay(count: u32, free: u32) -> Duration {
    match count.checked_sub(free) {
        None => Duration::ZERO,
        Some(k) => Duration::from_secs(1u64 << k.min(20)).min(MAX_LOG_IN_DELAY),
    }
}

/// The key of a name: lower case (names are unique case-insensitively), and short (no account
/// has a longer name; a huge one must not take memory).
fn name_key(name: &str) -> String {
    name.trim()
        .chars()
        .take(32)
        .collect::<String>()
        .to_lowercase()
}

#[derive(Default)]
struct Maps {
    /// Per (name, address).
    pairs: HashMap<(String, String), Failures>,
    /// Per name, from every address.
    names: HashMap<String, Failures>,
}

/// Makes room for one more entry in `map`: forgets entries older than [`FORGET_FAILURES`],
/// then the oldest.
fn make_room<K: Clone + Eq + std::hash::Hash>(map: &mut HashMap<K, Failures>, now: Instant) {
    if map.len() < MAX_REMEMBERED {
        return;
    }
    map.retain(|_, f| now.saturating_duration_since(f.last) < FORGET_FAILURES);
    if map.len() >= MAX_REMEMBERED {
        let oldest = map
            .iter()
            .min_by_key(|(_, f)| f.last)
            .map(|(k, _)| k.clone());
        if let Some(k) = oldest {
            map.remove(&k);
        }
    }
}

/// The entry of `key`, started again when it was last used longer ago than
/// [`FORGET_FAILURES`].
fn entry<K: Clone + Eq + std::hash::Hash>(
    map: &mut HashMap<K, Failures>,
    key: K,
    now: Instant,
) -> &mut Failures {
    if !map.contains_key(&key) {
        make_room(map, now);
    }
    let f = map.entry(key).or_insert(Failures::new(now));
    if now.saturating_duration_since(f.last) >= FORGET_FAILURES {
        *f = Failures::new(now);
    }
    f
}

/// The failed log-ins of a server (see the module's text).
#[derive(Default)]
pub struct LogInFailures {
    maps: Mutex<Maps>,
}

impl LogInFailures {
    fn maps(&self) -> MutexGuard<'_, Maps> {
        // Plain counts: still right after a panic elsewhere.
        self.maps.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Lets a log-in attempt for `name` from `address` (as the rate limits key it) go ahead,
    /// or refuses it with a 429 `too-many-failures` (and `Retry-After`) while the delay of
    /// that address's last failures for the name runs. The attempt counts as failed until
    /// [`LogInFailures::succeeded`] (or [`LogInFailures::not_tried`]) says otherwise, so
    /// attempts sent at once do not slip through together.
    pub fn check(&self, name: &str, address: &str) -> Result<(), ApiError> {
        let name = name_key(name);
        let now = Instant::now();
        let mut maps = self.maps();
        let under_attack = entry(&mut maps.names, name.clone(), now).count >= NAME_FAILURE_BUDGET;
        let free = if under_attack {
            1
        } else {
            FREE_LOG_IN_FAILURES
        };
        let pair = entry(&mut maps.pairs, (name.clone(), address.to_string()), now);
        let next = pair.last + log_in_delay(pair.count, free);
        if now < next {
            let wait = next - now;
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            return Err(ApiError::Limited {
                code: "too-many-failures",
                message: format!(
                    "too many failed log-ins for this name from here: try again in {secs} s"
                ),
                retry_after: Some(secs),
            });
        }
        pair.count = pair.count.saturating_add(1);
        pair.last = now;
        let n = entry(&mut maps.names, name, now);
        n.count = n.count.saturating_add(1);
        n.last = now;
        Ok(())
    }

    /// A log-in for `name` from `address` succeeded: that address's failures for the name are
    /// forgotten (and the attempt no longer counts against the name).
    pub fn succeeded(&self, name: &str, address: &str) {
        let name = name_key(name);
        let mut maps = self.maps();
        maps.pairs.remove(&(name.clone(), address.to_string()));
        if let Some(n) = maps.names.get_mut(&name) {
            n.count = n.count.saturating_sub(1);
        }
    }

    /// A log-in for `name` from `address` could not check the password (the server was
    /// busy): it does not count as a failure.
    pub fn not_tried(&self, name: &str, address: &str) {
        let name = name_key(name);
        let mut maps = self.maps();
        if let Some(f) = maps.pairs.get_mut(&(name.clone(), address.to_string())) {
            f.count = f.count.saturating_sub(1);
        }
        if let Some(n) = maps.names.get_mut(&name) {
            n.count = n.count.saturating_sub(1);
        }
    }

    /// Forgets failures older than [`FORGET_FAILURES`].
    pub fn shrink(&self) {
        let mut maps = self.maps();
        maps.pairs.retain(|_, f| f.last.elapsed() < FORGET_FAILURES);
        maps.names.retain(|_, f| f.last.elapsed() < FORGET_FAILURES);
    }

    /// (Name, address) pairs and names remembered now.
    pub fn remembered(&self) -> (usize, usize) {
        let maps = self.maps();
        (maps.pairs.len(), maps.names.len())
    }
}

/// The password checks under way (log-ins, sign-ups, password changes), one an address at a
/// time: a client that sends many at once has the others refused before they wait for a
/// password thread, so that the queue in front of those threads holds at most one request an
/// address, and everybody else is answered after at most one hash an address waiting.
#[derive(Default)]
pub struct PasswordChecks {
    under_way: Mutex<HashSet<String>>,
}

/// One address's password check under way; the next may start once it is dropped.
pub struct PasswordCheck<'a> {
    checks: &'a PasswordChecks,
    address: String,
}

impl PasswordChecks {
    fn under_way(&self) -> MutexGuard<'_, HashSet<String>> {
        self.under_way.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The place of `address`'s check, or a 429 `rate-limited` (with `Retry-After`) while
    /// another of its checks is under way.
    pub fn start(&self, address: &str) -> Result<PasswordCheck<'_>, ApiError> {
        if !self.under_way().insert(address.to_string()) {
            return Err(ApiError::Limited {
                code: "rate-limited",
                message: "another log-in from this address is being checked: wait for its answer"
                    .into(),
                retry_after: Some(1),
            });
        }
        Ok(PasswordCheck {
            checks: self,
            address: address.to_string(),
        })
    }
}

impl Drop for PasswordCheck<'_> {
    fn drop(&mut self) {
        self.checks.under_way().remove(&self.address);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_in_delays_grow_to_a_cap() {
        let secs = |n| log_in_delay(n, FREE_LOG_IN_FAILURES).as_secs();
        assert_eq!(
            (1..=8).map(secs).collect::<Vec<_>>(),
            [0, 0, 0, 0, 1, 2, 4, 8]
        );
        assert_eq!(secs(13), 256);
        assert_eq!(secs(14), 300);
        assert_eq!(secs(u32::MAX), 300);
        assert_eq!(log_in_delay(1, 1).as_secs(), 1);
    }

    fn refused(r: Result<(), ApiError>) -> Option<u64> {
        match r {
            Err(ApiError::Limited {
                code: "too-many-failures",
                retry_after,
                ..
            }) => retry_after,
            Err(e) => panic!("another error: {e:?}"),
            Ok(()) => None,
        }
    }

    #[test]
    fn failures_count_per_name_and_address_and_a_success_forgets_them() {
        let f = LogInFailures::default();
        for _ in 0..FREE_LOG_IN_FAILURES {
            assert!(f.check("Ayse", "203.0.113.1").is_ok());
        }
        assert_eq!(refused(f.check(" ayse ", "203.0.113.1")), Some(1));
        // The owner, from another address: let through, whatever the guesser did.
        assert!(f.check("ayse", "198.51.100.7").is_ok());
        f.succeeded("ayse", "198.51.100.7");
        // Another name from the guesser's address is not concerned.
        assert!(f.check("mehmet", "203.0.113.1").is_ok());
        // A success from the guesser's address forgets its failures.
        f.succeeded("AYSE", "203.0.113.1");
        assert!(f.check("ayse", "203.0.113.1").is_ok());
        // A huge name is kept short.
        assert!(f.check(&"x".repeat(100_000), "203.0.113.1").is_ok());
        assert!(f.maps().names.keys().all(|k| k.len() <= 32));
    }

    #[test]
    fn one_password_check_an_address_at_a_time() {
        let checks = PasswordChecks::default();
        let first = checks.start("203.0.113.1").unwrap();
        let e = checks.start("203.0.113.1").err().expect("refused");
        assert_eq!(e.code(), "rate-limited");
        let _other = checks.start("203.0.113.2").unwrap();
        drop(first);
        let _again = checks.start("203.0.113.1").unwrap();
    }

    #[test]
    fn a_name_under_attack_gives_each_address_one_free_failure() {
        let f = LogInFailures::default();
        // Four addresses spend their five free failures: the name's budget is used up.
        for a in 1..=4 {
            for _ in 0..FREE_LOG_IN_FAILURES {
                assert!(f.check("ayse", &format!("203.0.113.{a}")).is_ok());
            }
        }
        // Each new address now gets one failure, then waits.
        for a in 10..20 {
            let address = format!("203.0.113.{a}");
            assert!(f.check("ayse", &address).is_ok());
            assert_eq!(refused(f.check("ayse", &address)), Some(1), "{address}");
        }
        // The owner's address, which has not failed, is let through.
        assert!(f.check("ayse", "198.51.100.7").is_ok());
        // Other names are not under attack.
        for _ in 0..FREE_LOG_IN_FAILURES {
            assert!(f.check("mehmet", "203.0.113.10").is_ok());
        }
    }
}
