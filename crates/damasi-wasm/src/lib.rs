//! # damasi-wasm: damasi in the browser
//!
//! The rules library and the engine compiled to WebAssembly (`wasm32-unknown-unknown`, built
//! by `scripts/build-wasm`). A Web Worker feeds it Hub protocol lines and gets back the lines
//! `damasi hub` would write ([`session::HubSession`]), so the page talks to the in-browser
//! engine exactly as it would to a Hub engine process. Also exported for speed measurements:
//! perft and the engine's fixed bench.
//!
//! ```
//! use damasi_wasm::session::HubSession;
//!
//! let mut hub = HubSession::new();
//! assert_eq!(hub.handle("init"), ["ready"]);
//! assert_eq!(hub.handle("ping"), ["pong"]);
//! ```
//!
//! The JavaScript side (from `wasm-bindgen --target web`): `new Hub()`, `hub.line(text)`
//! returning the output lines joined by `\n`, `perft(fen, depth)`, `bench(depth)`,
//! `moveTimeMs(level)` ([`browser_move_time`]), and `Game`
//! ([`web_game::WebGame`]) for the offline page, whose static files are in [`site`].

pub mod session;
pub mod site;
pub mod web_game;

#[cfg(target_arch = "wasm32")]
mod bindings;

/// How long the in-browser engine thinks per move at `level` (1..=10) against people: two
/// thirds of the server's time ([`damasi_engine::Level::move_time`]), so level 10 thinks 2 s
/// where the server thinks 3 s. The browser's engine runs one thread in a Web Worker on the
/// player's own machine, which the page also needs; the lower levels stop at their depth and
/// node limits long before either time.
pub fn browser_move_time(level: u8) -> std::time::Duration {
    damasi_engine::Level::new(level).move_time() * 2 / 3
}

/// Leaf count of the legal move tree of `fen` (`startpos` for the start) to `depth`, or the
/// FEN's error.
pub fn perft_fen(fen: &str, depth: u32) -> Result<u64, String> {
    let pos = damasi::Position::from_fen(fen).map_err(|e| e.to_string())?;
    Ok(damasi::perft(&pos, depth.min(12)))
}

/// The engine's fixed bench at `depth`: `(nodes, seconds)`.
pub fn run_bench(depth: u32) -> (u64, f64) {
    let (nodes, time) = damasi_engine::bench::bench(Some(depth.clamp(1, 20)));
    (nodes, time.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_browser_thinks_two_thirds_of_the_servers_time() {
        // The server: 0.3 s up to level 3, 3 s at level 10 (docs/web-app.md, "The web server is
        // the referee").
        assert_eq!(browser_move_time(1), Duration::from_millis(200));
        assert_eq!(browser_move_time(10), Duration::from_secs(2));
        assert_eq!(browser_move_time(99), Duration::from_secs(2));
    }
}
