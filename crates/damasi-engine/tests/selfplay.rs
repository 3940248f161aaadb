//! Self-play smoke test: a few fast games to completion at low depth. Fails on an illegal
//! move, a panic or a stall (a game that does not end).

use std::sync::Arc;

use damasi::{Game, RuleSet};
use damasi_engine::{Engine, EngineOptions, Limits, SearchControl, SearchRequest, SearchRoot};

#[test]
fn fast_games_end_without_illegal_moves() {
    let rules = RuleSet {
        no_capture_limit: Some(50),
        king_beats_lone_man: false,
    };
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 1,
    });
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for g in 0..4 {
        engine.new_game();
        let mut game = Game::with_rules(rules);
        let mut plies = 0;
        while game.outcome().is_none() {
            assert!(
                plies < 2000,
                "game {g} stalled: {}",
                game.position().to_fen()
            );
            let legal = game.legal_moves();
            let m = if plies < 2 {
                // Vary the openings.
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                legal[(seed % legal.len() as u64) as usize]
            } else {
                let control = Arc::new(SearchControl::new());
                let depth = 2 + (g % 3) as u32;
                let r = engine.search(
                    &SearchRequest::new(SearchRoot::from_game(&game), Limits::depth(depth)),
                    &control,
                    &mut |_| {},
                );
                r.best.expect("a move while the game is not over")
            };
            assert!(
                legal.contains(&m),
                "illegal move in {}",
                game.position().to_fen()
            );
            game.play(&m).expect("legal move");
            plies += 1;
        }
    }
}
