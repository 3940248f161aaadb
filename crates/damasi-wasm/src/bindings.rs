//! The JavaScript interface (wasm-bindgen).

use wasm_bindgen::prelude::*;

use crate::session::HubSession;

/// A Hub session for JavaScript.
#[wasm_bindgen]
pub struct Hub {
    session: HubSession,
}

#[wasm_bindgen]
impl Hub {
    /// A new session.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Hub {
        Hub {
            session: HubSession::new(),
        }
    }

    /// Handles one Hub line; returns the output lines joined by `\n` (empty if none).
    pub fn line(&mut self, text: &str) -> String {
        self.session.handle(text).join("\n")
    }
}

impl Default for Hub {
    fn default() -> Self {
        Hub::new()
    }
}

/// Perft of a FEN (`startpos` for the start) as a number; throws on a bad FEN.
#[wasm_bindgen]
pub fn perft(fen: &str, depth: u32) -> Result<f64, JsError> {
    crate::perft_fen(fen, depth)
        .map(|n| n as f64)
        .map_err(|e| JsError::new(&e))
}

/// Milliseconds the engine thinks per move at `level` in the browser
/// ([`crate::browser_move_time`]).
#[wasm_bindgen(js_name = moveTimeMs)]
pub fn move_time_ms(level: u8) -> f64 {
    crate::browser_move_time(level).as_millis() as f64
}

/// The contempt (centi-men) the page sets for the engine's moves in games
/// ([`damasi_engine::PLAY_CONTEMPT`]); analysis uses none.
#[wasm_bindgen(js_name = playContempt)]
pub fn play_contempt() -> i32 {
    damasi_engine::PLAY_CONTEMPT
}

/// The engine's bench: `[nodes, seconds]`.
#[wasm_bindgen]
pub fn bench(depth: u32) -> Vec<f64> {
    let (nodes, secs) = crate::run_bench(depth);
    vec![nodes as f64, secs]
}
