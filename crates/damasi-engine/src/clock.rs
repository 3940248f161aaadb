//! The clocks the engine reads. On wasm32 (`wasm32-unknown-unknown`, the browser) std's
//! `Instant::now` and `SystemTime::now` panic, so the `web-time` crate's drop-in types, backed
//! by `performance.now()` and `Date.now()`, stand in for them there.

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use std::time::{Instant, SystemTime, UNIX_EPOCH};
#[cfg(target_arch = "wasm32")]
pub(crate) use web_time::{Instant, SystemTime, UNIX_EPOCH};

/// Nanoseconds since the Unix epoch (0 if the clock is before it), for seeds.
pub(crate) fn unix_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}
