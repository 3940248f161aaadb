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
//! returning the output lines joined by `\n`, `perft(fen, depth)`, `bench(depth)`, and `Game`
//! ([`web_game::WebGame`]) for the offline page, whose static files are in [`site`].

pub mod session;
pub mod site;
pub mod web_game;

#[cfg(target_arch = "wasm32")]
mod bindings;

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
