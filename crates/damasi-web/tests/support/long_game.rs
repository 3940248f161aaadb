//! A legal, very long game for the long-game tests and `scripts/measure-long-game`: two kings
//! against two kings walking the board with quiet, reversible moves. Each move is chosen
//! (pseudo-randomly, from a fixed seed) among those after which the opponent has no capture
//! and the position has come back least often, so no capture, promotion or threefold
//! repetition ends the game; the default rules have no move limit.

use std::collections::HashMap;

use damasi::{Game, Notation, Position, RuleSet};

/// The start position of the long game.
pub const LONG_GAME_FEN: &str = "W:WKa1,Kb1:BKh8,Kg8";

/// The first `plies` moves of the long game, in landing notation, with the game they make.
/// The walk backs up when every move is refused (a depth-first search), so it does not get
/// stuck.
pub fn long_game(plies: usize) -> (Vec<String>, Game) {
    let start = Position::from_fen(LONG_GAME_FEN).expect("a good FEN");
    let mut game = Game::from_position(start, RuleSet::default());
    let mut seen: HashMap<u64, u32> = HashMap::new();
    seen.insert(game.position().key(), 1);
    let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
    // Moves still to try at each ply, the one to try next last.
    let mut frames: Vec<Vec<(damasi::Move, u64)>> = Vec::new();
    while game.ply() < plies {
        let pos = *game.position();
        let mut cands: Vec<(u32, u64, damasi::Move, u64)> = Vec::new();
        for m in pos.legal_moves().iter() {
            let next = pos.play(m);
            if m.is_capture() || next.has_capture() {
                continue;
            }
            let n = seen.get(&next.key()).copied().unwrap_or(0);
            if n < 2 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                cands.push((n, rng, *m, next.key()));
            }
        }
        // Least seen first, at random among equals; popped from the end.
        cands.sort_by_key(|c| std::cmp::Reverse((c.0, c.1)));
        frames.push(cands.into_iter().map(|(_, _, m, k)| (m, k)).collect());
        loop {
            let top = frames.last_mut().expect("the long game has no way on");
            if let Some((m, key)) = top.pop() {
                if seen.get(&key).copied().unwrap_or(0) >= 2 {
                    continue;
                }
                game.play(&m).expect("a legal move");
                assert!(game.outcome().is_none(), "the long game ended");
                *seen.entry(key).or_insert(0) += 1;
                break;
            }
            frames.pop();
            let left = game.position().key();
            if let Some(n) = seen.get_mut(&left) {
                *n -= 1;
            }
            game.take_back().expect("a move to take back");
        }
    }
    let texts = game
        .history()
        .iter()
        .enumerate()
        .map(|(i, m)| {
            game.position_at(i)
                .expect("a position before every move")
                .write_move(m, Notation::Landing)
        })
        .collect();
    (texts, game)
}

/// The long game as a PDN text (both players people, no result yet).
pub fn long_game_pdn(plies: usize) -> String {
    let (moves, _) = long_game(plies);
    let mut s = format!("[FEN \"{LONG_GAME_FEN}\"]\n[Result \"*\"]\n\n");
    for (i, m) in moves.iter().enumerate() {
        if i % 2 == 0 {
            s.push_str(&format!("{}. ", i / 2 + 1));
        }
        s.push_str(m);
        s.push(if i % 20 == 19 { '\n' } else { ' ' });
    }
    s.push_str("*\n");
    s
}
