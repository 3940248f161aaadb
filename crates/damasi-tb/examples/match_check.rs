//! Checks the games of a `damasi match` against the endgame tables: for every move played in a
//! position the tables cover, whether it kept the mover's value (win, draw or loss with best
//! play) or threw some away, counted per player.
//!
//! `cargo run --release -p damasi-tb --example match_check -- GAMES.pdn [TABLE_DIR]`
//! (the table directory defaults to `~/.local/share/damasi/tablebases`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use damasi::pdn::read_games;
use damasi::{Position, Wdl};
use damasi_tb::{TablebaseOracle, ORACLE_PIECES};

/// What one player did in covered positions.
#[derive(Default)]
struct Tally {
    /// Games in which the player made a move in a covered position.
    games: u64,
    /// Moves made in covered positions.
    moves: u64,
    /// Moves that lowered the player's value (win to draw or loss, draw to loss).
    drops: u64,
    /// Of those, a won position thrown away (to a draw or a loss).
    wins_lost: u64,
    /// Covered positions the player reached with a win in hand...
    won: u64,
    /// ... and of those, games the player went on to win.
    converted: u64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let pdn = args
        .next()
        .ok_or("usage: match_check GAMES.pdn [TABLE_DIR]")?;
    let dir = match args.next() {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var("HOME")?).join(".local/share/damasi/tablebases"),
    };
    let tables = TablebaseOracle::open(&dir, ORACLE_PIECES)?.ok_or("no tables there")?;
    let file = std::io::BufReader::new(std::fs::File::open(&pdn)?);
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let (mut games, mut reached) = (0u64, 0u64);
    for record in read_games(file) {
        let record = record?;
        games += 1;
        let names = [
            record.tag("White").unwrap_or("?").to_string(),
            record.tag("Black").unwrap_or("?").to_string(),
        ];
        let game = &record.game;
        let mut pos: Position = *game.initial_position();
        let mut seen = [false; 2];
        let mut had_win = [false; 2];
        for m in game.history() {
            let side = pos.side_to_move() as usize;
            let before = tables.probe(&pos);
            let next = pos.play(m);
            if let (Some(before), Some(after)) = (before, tables.probe(&next)) {
                let after = after.negate();
                let t = tallies.entry(names[side].clone()).or_default();
                if !seen[side] {
                    seen[side] = true;
                    t.games += 1;
                }
                t.moves += 1;
                if after < before {
                    t.drops += 1;
                    if before == Wdl::Win {
                        t.wins_lost += 1;
                    }
                }
                if before == Wdl::Win && !had_win[side] {
                    had_win[side] = true;
                    t.won += 1;
                    let winner = game.outcome().and_then(|o| o.winner());
                    if winner.map(|c| c as usize) == Some(side) {
                        t.converted += 1;
                    }
                }
            }
            pos = next;
        }
        if seen.iter().any(|&s| s) {
            reached += 1;
        }
    }
    println!(
        "{games} games, {reached} reached a position with at most {} pieces",
        tables.max_pieces()
    );
    println!("player: games moves drops wins-thrown-away won-positions converted");
    for (name, t) in &tallies {
        println!(
            "{name}: {} {} {} {} {} {}",
            t.games, t.moves, t.drops, t.wins_lost, t.won, t.converted
        );
    }
    Ok(())
}
