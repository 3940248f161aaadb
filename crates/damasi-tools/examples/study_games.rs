//! Finds where a player went wrong in a PDN file of games, and whether the engine of today
//! would still play those moves:
//! `cargo run --release -p damasi-tools --example study_games -- GAMES.pdn PLAYER [FAST DEEP]`
//!
//! For every move made by `PLAYER` (the name in the `White` or `Black` tag), the position is
//! searched for `DEEP` seconds (default 2) from scratch, and the position after the game's
//! move too; the difference is what the move cost, in centi-men, as the deep search sees it.
//! Moves that cost at least 30 (and are not the deep search's own choice) are listed with the
//! deep search's choice and the move the engine picks in `FAST` seconds (default 0.1, the time
//! the games were played at), so a row whose fast move is the deep one is a mistake the engine
//! no longer makes.

use std::fs::File;
use std::io::BufReader;
use std::sync::Arc;
use std::time::Duration;

use damasi::pdn::read_games;
use damasi::{Color, Move, Notation};
use damasi_engine::{Engine, EngineOptions, Limits, SearchControl, SearchRequest, SearchRoot};

/// A move listed as a mistake costs at least this much.
const THRESHOLD: i32 = 30;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: study_games GAMES.pdn PLAYER [FAST_SECONDS DEEP_SECONDS]");
        std::process::exit(2);
    }
    let seconds = |i: usize, default: f64| -> Duration {
        let s = args.get(i).map_or(Ok(default), |a| a.parse::<f64>());
        match s {
            Ok(s) if s > 0.0 && s < 3600.0 => Duration::from_secs_f64(s),
            _ => {
                eprintln!("study_games: argument {} must be seconds, 0 to 3600", i + 1);
                std::process::exit(2);
            }
        }
    };
    let (fast, deep) = (seconds(2, 0.1), seconds(3, 2.0));
    let file = match File::open(&args[0]) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("study_games: {}: {e}", args[0]);
            std::process::exit(1);
        }
    };
    let player = &args[1];
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 64,
        threads: 1,
    });
    let (mut mistakes, mut fixed) = (0, 0);
    for (n, record) in read_games(BufReader::new(file)).enumerate() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                eprintln!("game {}: {e}", n + 1);
                continue;
            }
        };
        let color = if record.tag("White") == Some(player) {
            Color::White
        } else if record.tag("Black") == Some(player) {
            Color::Black
        } else {
            continue;
        };
        let game = &record.game;
        println!(
            "game {} ({} as {:?}, {}): {}",
            n + 1,
            player,
            color,
            record.tag("Result").unwrap_or("?"),
            record.tag("FEN").unwrap_or("start")
        );
        let start = *game.initial_position();
        let moves = game.history();
        let mut pos = start;
        for (ply, m) in moves.iter().enumerate() {
            let before = pos;
            pos = pos.play(m);
            if before.side_to_move() == color && before.legal_moves().len() > 1 {
                let mut search = |line: &[Move], t: Duration| {
                    engine.new_game();
                    let root = SearchRoot::from_moves(start, line, Default::default())
                        .expect("the game's moves are legal");
                    let req = SearchRequest::new(root, Limits::move_time(t));
                    engine.search(&req, &Arc::new(SearchControl::new()), &mut |_| {})
                };
                let best = search(&moves[..ply], deep);
                // The game's move found best by the deep search costs nothing (a difference
                // then is only two searches' noise), so only another move is searched after.
                if best.best == Some(*m) {
                    continue;
                }
                let after = search(&moves[..=ply], deep);
                let cost = best.score.0 - (-after.score.0);
                if cost >= THRESHOLD {
                    let now = search(&moves[..ply], fast).best;
                    let text = |m: Option<Move>| {
                        m.map_or("-".to_string(), |m| {
                            before.write_move(&m, Notation::Landing)
                        })
                    };
                    let same = now.is_some() && now == best.best;
                    mistakes += 1;
                    fixed += usize::from(same);
                    println!(
                        "  ply {:>3}: played {:<12} cost {:>5}  deep best {:<12} ({:+})  now at {:.2} s: {}{}",
                        ply + 1,
                        text(Some(*m)),
                        cost,
                        text(best.best),
                        best.score.0,
                        fast.as_secs_f64(),
                        text(now),
                        if same { " (fixed)" } else { "" }
                    );
                }
            }
        }
    }
    println!("{mistakes} costly moves; the engine now plays the deep search's move in {fixed}");
}
