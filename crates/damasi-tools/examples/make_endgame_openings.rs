//! Makes an endgame-rich opening set for `damasi match` (`data/endgames.txt`), so that a match
//! of the engine with endgame tables against the engine without them reaches the tables often:
//! `cargo run --release -p damasi-tools --example make_endgame_openings > crates/damasi-tools/data/endgames.txt`
//!
//! From each line of the default opening set the engine plays itself at each of the `NODES`
//! node counts a move until the first position with no capture pending and `MIN_PIECES` to `MAX_PIECES` pieces;
//! the position is kept if a depth-`DEPTH` search scores it within `MAX_SCORE` centi-men of
//! equality (the match plays each opening with both colours, so what is left of an edge
//! cancels out). Positions found twice are kept once. Deterministic: one search thread, a
//! fresh engine for every game.

use std::sync::Arc;

use damasi::{Color, Game, RuleSet};
use damasi_engine::{Engine, EngineOptions, Limits, SearchControl, SearchRequest, SearchRoot};
use damasi_tools::openings::{parse_openings, DEFAULT_OPENINGS};

/// Node counts a move: each gives its own games from the same opening.
const NODES: [u64; 3] = [3000, 5000, 8000];
const DEPTH: u32 = 8;
const MIN_PIECES: u32 = 8;
const MAX_PIECES: u32 = 10;
const MAX_SCORE: i32 = 150;
const MAX_PLIES: usize = 200;

fn main() {
    let openings = parse_openings(DEFAULT_OPENINGS).expect("the default set reads");
    let mut lines = Vec::new();
    let mut tried = 0;
    let mut seen = std::collections::HashSet::new();
    for (opening, nodes) in openings
        .iter()
        .flat_map(|o| NODES.iter().map(move |&n| (o, n)))
    {
        tried += 1;
        let mut engine = Engine::new(EngineOptions {
            hash_mb: 16,
            threads: 1,
        });
        let mut game = Game::from_position(opening.start, RuleSet::default());
        for m in &opening.moves {
            game.play(m).expect("a legal opening");
        }
        let control = Arc::new(SearchControl::new());
        let mut found = None;
        while !game.is_over() && game.ply() < MAX_PLIES {
            let pos = *game.position();
            let pieces = pos.count(Color::White) + pos.count(Color::Black);
            if pieces < MIN_PIECES {
                break;
            }
            if pieces <= MAX_PIECES && !pos.has_capture() {
                let r = engine.search(
                    &SearchRequest::new(SearchRoot::from_game(&game), Limits::depth(DEPTH)),
                    &control,
                    &mut |_| {},
                );
                if r.score.0.abs() <= MAX_SCORE {
                    found = Some((pos.to_fen(), r.score.0));
                }
                break;
            }
            let r = engine.search(
                &SearchRequest::new(SearchRoot::from_game(&game), Limits::nodes(nodes)),
                &control,
                &mut |_| {},
            );
            let Some(m) = r.best else { break };
            game.play(&m).expect("the engine plays legal moves");
        }
        if let Some((fen, score)) = found.filter(|(fen, _)| seen.insert(fen.clone())) {
            lines.push(format!("{fen} # {score:+}"));
        }
    }
    println!("# Endgame-rich openings for `damasi match`: from each of the default openings,");
    println!(
        "# damasi played itself at {NODES:?} nodes a move ({tried} games) to the first position"
    );
    println!("# with no capture pending and {MIN_PIECES} to {MAX_PIECES} pieces, kept when a depth-{DEPTH} search");
    println!(
        "# scored it within {MAX_SCORE} centi-men ({} distinct positions kept). Made by",
        lines.len()
    );
    println!("# crates/damasi-tools/examples/make_endgame_openings.rs; the number after each FEN");
    println!("# is that score for the side to move.");
    for l in lines {
        println!("{l}");
    }
}
