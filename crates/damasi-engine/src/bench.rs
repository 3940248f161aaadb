//! A fixed benchmark: set positions searched to a set depth, one thread, fresh hash. Its
//! node count identifies the search's behaviour; record it when the search changes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use damasi::Position;

use crate::{Engine, EngineOptions, Level, Limits, SearchControl, SearchRoot};

/// Default bench depth.
pub const DEFAULT_DEPTH: u32 = 11;

/// The bench positions: openings, middlegames and king endgames.
pub const POSITIONS: &[&str] = &["startpos"];

/// Searches every bench position to `depth` (default [`DEFAULT_DEPTH`]) with one thread and a
/// fresh 16 MiB hash. Returns the total nodes and the time taken.
pub fn bench(depth: Option<u32>) -> (u64, Duration) {
    let depth = depth.unwrap_or(DEFAULT_DEPTH);
    let mut nodes = 0;
    let start = Instant::now();
    for fen in POSITIONS {
        let pos = Position::from_fen(fen).expect("bench positions are valid");
        let mut engine = Engine::new(EngineOptions {
            hash_mb: 16,
            threads: 1,
        });
        let control = Arc::new(SearchControl::new());
        let r = engine.search(
            &SearchRoot::new(pos),
            &Limits::depth(depth),
            Level::MAX,
            1,
            &control,
            &mut |_| {},
        );
        nodes += r.nodes;
    }
    (nodes, start.elapsed())
}
