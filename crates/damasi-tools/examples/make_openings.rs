//! Makes the balanced opening set `data/openings.txt` for `damasi match`:
//! `cargo run --release -p damasi-tools --example make_openings > crates/damasi-tools/data/openings.txt`
//!
//! Every line of `PLIES` plies from the start position is played out, transpositions merged,
//! and each resulting position searched to `DEPTH` plies at full strength. Positions whose
//! score is within `MAX_SCORE` centi-men of equality and that have no capture pending (so the
//! first engine move is not forced) are kept, and `DEFAULT_COUNT` of them are taken evenly
//! spread over the list sorted by their move text, so the set is reproducible. A number as the
//! first argument takes that many instead (a bigger set for long matches: 200 for 400 games).

use std::collections::HashSet;
use std::sync::Arc;

use damasi::{Move, Notation, Position};
use damasi_engine::{Engine, EngineOptions, Limits, SearchControl, SearchRequest, SearchRoot};

const PLIES: usize = 4;
const DEPTH: u32 = 6;
const MAX_SCORE: i32 = 15;
const DEFAULT_COUNT: usize = 100;

fn lines(pos: Position, plies: usize, line: &mut Vec<Move>, out: &mut Vec<Vec<Move>>) {
    if plies == 0 {
        out.push(line.clone());
        return;
    }
    for m in pos.legal_moves().iter() {
        line.push(*m);
        lines(pos.play(m), plies - 1, line, out);
        line.pop();
    }
}

fn main() {
    let count: usize = match std::env::args().nth(1) {
        Some(a) => match a.parse() {
            Ok(n) => n,
            Err(_) => {
                eprintln!("make_openings: the count must be a whole number, not {a:?}");
                std::process::exit(2);
            }
        },
        None => DEFAULT_COUNT,
    };
    let mut all = Vec::new();
    lines(Position::start(), PLIES, &mut Vec::new(), &mut all);
    let mut seen = HashSet::new();
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 16,
        threads: 1,
    });
    let mut kept: Vec<(String, i32)> = Vec::new();
    for line in &all {
        let end = line.iter().fold(Position::start(), |p, m| p.play(m));
        if !seen.insert(end) || end.has_capture() || !end.has_legal_move() {
            continue;
        }
        let root = SearchRoot::from_moves(Position::start(), line, Default::default())
            .expect("legal by construction");
        let control = Arc::new(SearchControl::new());
        let result = engine.search(
            &SearchRequest::new(root.clone(), Limits::depth(DEPTH)),
            &control,
            &mut |_| {},
        );
        if result.score.0.abs() > MAX_SCORE {
            continue;
        }
        let mut pos = Position::start();
        let mut words = Vec::new();
        for m in line {
            words.push(pos.write_move(m, Notation::Landing));
            pos = pos.play(m);
        }
        kept.push((words.join(" "), result.score.0));
    }
    kept.sort();
    let step = (kept.len() as f64 / count as f64).max(1.0);
    println!("# Balanced openings for `damasi match`: {PLIES}-ply lines from the start position,");
    println!("# transpositions merged, no capture pending, scored within {MAX_SCORE} centi-men of");
    println!(
        "# equality by a depth-{DEPTH} damasi search ({} of {} distinct positions qualified),",
        kept.len(),
        seen.len()
    );
    println!(
        "# {count} taken evenly spread. Made by crates/damasi-tools/examples/make_openings.rs;"
    );
    println!("# the number after each line is the search score in centi-men for the side to move.");
    let mut i = 0.0;
    let mut n = 0;
    while (i as usize) < kept.len() && n < count {
        let (text, score) = &kept[i as usize];
        println!("{text} # {score:+}");
        i += step;
        n += 1;
    }
}
