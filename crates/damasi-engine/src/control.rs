//! Stopping a search from another thread, and turning a ponder search into a timed one.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::clock::Instant;

/// Shared between the searching thread and whoever may stop it (wrap it in an `Arc`).
/// Use one control per search.
#[derive(Debug)]
pub struct SearchControl {
    stop: AtomicBool,
    pondering: AtomicBool,
    created: Instant,
    /// Nanoseconds after `created` when `ponder_hit` was called; `u64::MAX` before.
    hit_at: AtomicU64,
}

impl SearchControl {
    /// A control for an ordinary search.
    pub fn new() -> SearchControl {
        SearchControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            created: Instant::now(),
            hit_at: AtomicU64::new(u64::MAX),
        }
    }

    /// A control for a ponder search: the search ignores its time limits until
    /// [`SearchControl::ponder_hit`], and then counts them from that moment.
    pub fn new_ponder() -> SearchControl {
        let c = SearchControl::new();
        c.pondering.store(true, Ordering::Relaxed);
        c
    }

    /// Asks the search to stop as soon as possible; it then returns its best move so far.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The opponent played the expected move: the ponder search becomes a timed search whose
    /// clock starts now.
    pub fn ponder_hit(&self) {
        let ns = self.created.elapsed().as_nanos().min(u64::MAX as u128 - 1) as u64;
        self.hit_at.store(ns, Ordering::Relaxed);
        self.pondering.store(false, Ordering::Release);
    }

    /// Whether [`SearchControl::stop`] was called.
    #[inline]
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether the search is still pondering (no ponder hit yet).
    #[inline]
    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Acquire)
    }

    /// When the ponder hit came, if it did.
    pub(crate) fn ponder_hit_time(&self) -> Option<Instant> {
        match self.hit_at.load(Ordering::Relaxed) {
            u64::MAX => None,
            ns => Some(self.created + Duration::from_nanos(ns)),
        }
    }
}

impl Default for SearchControl {
    fn default() -> Self {
        SearchControl::new()
    }
}
