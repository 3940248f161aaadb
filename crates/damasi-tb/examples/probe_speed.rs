//! Probe speed: `cargo run --release -p damasi-tb --example probe_speed -- DIR [PIECES]`.
//! Probes a million positions drawn uniformly from the entries of every table with PIECES
//! pieces (default 5) in DIR, on one thread, and prints probes per second. Positions with a
//! capture are included (their probe searches the captures).

use std::time::Instant;

use damasi::Position;
use damasi_tb::Tablebase;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: probe_speed DIR [PIECES]")?;
    let pieces: u32 = args.next().map(|p| p.parse()).transpose()?.unwrap_or(5);
    let t = Instant::now();
    let tb = Tablebase::open(std::path::Path::new(&dir))?;
    println!(
        "loaded {} tables in {:.1} s",
        tb.signatures().len(),
        t.elapsed().as_secs_f64()
    );
    let sigs: Vec<_> = tb
        .signatures()
        .into_iter()
        .filter(|s| s.pieces() == pieces)
        .collect();
    // A fixed pseudo-random sequence (64-bit LCG), so runs are comparable.
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut positions: Vec<Position> = Vec::new();
    while positions.len() < 1_000_000 {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let ix = tb
            .table(sigs[(seed >> 33) as usize % sigs.len()])
            .unwrap()
            .indexer();
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        if let Some(p) = ix.decode((seed >> 11) % ix.size()) {
            positions.push(p.to_position().unwrap());
        }
    }
    let t = Instant::now();
    let mut wins = 0u64;
    for pos in &positions {
        wins += (tb.probe(pos)? == damasi::Wdl::Win) as u64;
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "{} probes in {s:.2} s: {:.0} probes/s ({wins} wins)",
        positions.len(),
        positions.len() as f64 / s
    );
    Ok(())
}
