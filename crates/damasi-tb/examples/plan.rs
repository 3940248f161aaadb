//! The build plan of every pair with N pieces: `cargo run --release -p damasi-tb --example plan
//! -- N`. Prints for each pair its entries, its number of slices, its largest unit (the
//! slices solved together) and the builder's memory for it: the pair's tables at 2 bits an
//! entry, and 2 bytes plus two frontier bits an entry of the largest unit.

use damasi_tb::{Indexer, Signature};
use damasi_tb::{SliceIndexer, SliceKey};

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(6);
    let gb = |b: f64| b / 1e9;
    let (mut total, mut peak) = (0u64, 0f64);
    for pair in Signature::build_order(n) {
        let entries: u64 = pair.iter().map(|&s| Indexer::new(s).size()).sum();
        let keys = SliceKey::all(pair[0]);
        let largest = keys
            .iter()
            .map(|&k| {
                let a = SliceIndexer::new(pair[0], k).size();
                let b = if pair.len() == 2 || k.flip() != k {
                    SliceIndexer::new(pair[pair.len() - 1], k.flip()).size()
                } else {
                    0
                };
                a + b
            })
            .max()
            .unwrap_or(0);
        let memory = entries as f64 / 4.0 + largest as f64 * (2.0 + 2.0 / 8.0);
        peak = peak.max(memory);
        total += entries;
        let names: Vec<String> = pair.iter().map(|s| s.to_string()).collect();
        println!(
            "{:<24} {:>14} entries {:>6} slices, largest unit {:>14} entries, {:>6.2} GB",
            names.join(" "),
            entries,
            keys.len(),
            largest,
            gb(memory)
        );
    }
    println!(
        "{} entries in all; the largest pair needs {:.2} GB",
        total,
        gb(peak)
    );
}
