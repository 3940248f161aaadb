//! A fixed benchmark: set positions searched to a set depth, one thread, fresh hash. Its
//! node count identifies the search's behaviour; record it when the search changes.

use std::sync::Arc;
use std::time::Duration;

use crate::clock::Instant;

use damasi::Position;

use crate::eval::Weights;
use crate::{Engine, EngineOptions, Limits, SearchControl, SearchRequest, SearchRoot};

/// Default bench depth.
pub const DEFAULT_DEPTH: u32 = 8;

/// The bench positions: openings, middlegames and king endgames.
pub const POSITIONS: &[&str] = &[
    // Openings.
    "startpos",
    "W:Wa2,b2,c2,d2,f2,g2,h2,a3,b3,d3,e3,g3,d4,e4,f4,h4:Ba5,b5,e5,g5,c6,d6,e6,g6,h6,a7,b7,c7,d7,e7,f7,h7",
    "W:Wa2,b2,c2,e2,g2,b3,c3,d3,e3,f3,b4,d4,g4,h5:Ba5,b5,e5,f5,b6,c6,d6,e6,g6,b7,c7,d7,e7,g7",
    // Middlegames.
    "W:Wa2,c2,d2,f2,b3,d3,e3,g3,h3,a4,d4,e4,h4:Bb5,e5,f5,g5,h5,b6,c6,d6,e6,h6,c7,d7,e7",
    "B:Wd2,g2,b3,d3,f3,g3,h3,a4,d4,h4:Bb5,d5,g5,h5,a6,d6,g6,h6,d7,g7",
    "W:Wb2,d2,f2,g2,h2,c3,e3,g3,g4:Ba4,d4,c6,g6,h6,d7,f7,g7,h7",
    "W:Wa2,b2,f2,g2,h2,b3,c3,d3,e3,g3,b4,Kc4,e4,h4:Ba5,a6,d6,e6,g6,h6,h7",
    // Endgames: men only, kings on both sides, kings against men.
    "W:Wa3,h3,b4,f4,h4:Ba5,d5,e5,h5,h6",
    "W:Wb2,e2,a3,b3,Kc8:BKc1,d3,f5,d6,e6,b7,d7,e7",
    "W:WKb2,a4,c4:Be3,e4,e6,c7",
    "W:We2,h3,f4,g5:BKc1,d7,g7",
];

/// Searches every bench position to `depth` (default [`DEFAULT_DEPTH`]) with one thread and a
/// fresh 16 MiB hash. Returns the total nodes and the time taken.
pub fn bench(depth: Option<u32>) -> (u64, Duration) {
    bench_with(depth, &Weights::shipped())
}

/// [`bench()`] with the evaluation weights `weights` (to measure a pattern evaluation's speed).
pub fn bench_with(depth: Option<u32>, weights: &Weights) -> (u64, Duration) {
    let depth = depth.unwrap_or(DEFAULT_DEPTH);
    let mut nodes = 0;
    let start = Instant::now();
    for fen in POSITIONS {
        let pos = Position::from_fen(fen).expect("bench positions are valid");
        let mut engine = Engine::new(EngineOptions {
            hash_mb: 16,
            threads: 1,
        });
        engine.set_weights(weights.clone());
        let control = Arc::new(SearchControl::new());
        let r = engine.search(
            &SearchRequest::new(SearchRoot::new(pos), Limits::depth(depth)),
            &control,
            &mut |_| {},
        );
        nodes += r.nodes;
    }
    (nodes, start.elapsed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_valid_and_not_over() {
        for fen in POSITIONS {
            let pos = Position::from_fen(fen).unwrap();
            assert!(pos.has_legal_move(), "{fen}");
        }
    }

    #[test]
    fn bench_is_deterministic() {
        assert_eq!(bench(Some(3)).0, bench(Some(3)).0);
    }
}
