//! Start-position perft with the published `kish` 1.1.7 crate, as a whole process, for
//! `scripts/perft-vs-kish`: `kish-perft [DEPTH]` (default 8). Prints the node count (kish
//! counts routes, as `damasi perft --paths`) and, on stderr, the time taken, like
//! `damasi perft`.
fn main() {
    let depth: u64 = std::env::args()
        .nth(1)
        .and_then(|d| d.parse().ok())
        .unwrap_or(8);
    let start = std::time::Instant::now();
    let nodes = kish::Board::new_default().perft(depth);
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{:.3} s, {:.1} M nodes/s",
        secs,
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    println!("{nodes}");
}
