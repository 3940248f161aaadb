//! How long the Dutch system takes to pair each round of a large open tournament, measured as
//! an arbiter's server would meet it: `PLAYERS` players with ratings spread over 1,000 points,
//! random results (a third each of white wins, draws and black wins, seeded), paired round
//! after round.
//!
//! ```sh
//! cargo run --release -p damasi-swiss --example pair_time -- 1000 9
//! ```

use std::time::Instant;

use damasi_swiss::{pair_next_round, GameResult, Tournament};

fn main() {
    let mut args = std::env::args().skip(1);
    let players: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let rounds: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(9);
    let mut trf = String::new();
    for i in 1..=players {
        let rating = 2400 - (i * 1000 / players);
        trf.push_str(&format!(
            "001 {i:>4}      {:<33} {rating:>4}                             0.0\n",
            format!("Player {i}")
        ));
    }
    trf.push_str(&format!("XXR {rounds}\nXXC white1\n"));
    let mut t = Tournament::from_trf(&trf).expect("a valid tournament");
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut total = 0.0;
    for round in 1..=rounds {
        let start = Instant::now();
        let pairing = pair_next_round(&t).expect("a pairing");
        let s = start.elapsed().as_secs_f64();
        total += s;
        println!(
            "round {round}: {} pairs{} in {s:.3} s",
            pairing.pairs.len(),
            if pairing.bye.is_some() {
                " and a bye"
            } else {
                ""
            }
        );
        let results: Vec<GameResult> = pairing
            .pairs
            .iter()
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                match seed % 3 {
                    0 => GameResult::WhiteWins,
                    1 => GameResult::Draw,
                    _ => GameResult::BlackWins,
                }
            })
            .collect();
        t.add_round(&pairing, &results).expect("the round fits");
    }
    println!("{players} players, {rounds} rounds: {total:.3} s pairing in all");
}
