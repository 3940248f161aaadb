//! Start-position perft, damasi against the published `kish` crate, side by side in one run.
//!
//! `cargo bench -p damasi --bench perft_vs_kish -- [DEPTH] [ROUNDS]` (defaults 8 and 3).
//! Each round runs kish's `Board::perft(DEPTH)`, then damasi on one thread, then damasi on
//! every core, so the machine's noise hits all three alike; the medians and their ratios are
//! printed. Note that kish counts routes, damasi counts moves by identity (both are checked
//! against docs/rules.md).
use std::time::{Duration, Instant};

fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let depth = args.first().copied().unwrap_or(8);
    let rounds = args.get(1).copied().unwrap_or(3).max(1);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let start = damasi::Position::start();
    let (mut tk, mut t1, mut tn) = (vec![], vec![], vec![]);
    let (mut nk, mut n1, mut nn) = (0, 0, 0);
    for round in 1..=rounds {
        let (n, t) = time(|| kish::Board::new_default().perft(depth as u64));
        nk = n;
        tk.push(t);
        let (n, t) = time(|| damasi::perft(&start, depth));
        n1 = n;
        t1.push(t);
        let (n, t) =
            time(|| damasi::perft_parallel(&start, depth, damasi::Counting::Moves, threads));
        nn = n;
        tn.push(t);
        eprintln!(
            "round {round}: kish {:?}, damasi 1 thread {:?}, damasi {threads} threads {:?}",
            tk[tk.len() - 1],
            t1[t1.len() - 1],
            tn[tn.len() - 1]
        );
    }
    let (k, o, p) = (median(tk), median(t1), median(tn));
    let mnps = |n: u64, t: Duration| n as f64 / t.as_secs_f64() / 1e6;
    println!("perft({depth}) from the start position, median of {rounds} rounds");
    println!(
        "kish 1.1.7 Board::perft      {nk:>13} nodes {:>8.3} s {:>7.1} M nodes/s",
        k.as_secs_f64(),
        mnps(nk, k)
    );
    println!(
        "damasi perft, 1 thread       {n1:>13} nodes {:>8.3} s {:>7.1} M nodes/s  time ratio {:.2}",
        o.as_secs_f64(),
        mnps(n1, o),
        o.as_secs_f64() / k.as_secs_f64()
    );
    println!("damasi perft, {threads} threads      {nn:>13} nodes {:>8.3} s {:>7.1} M nodes/s  time ratio {:.2}", p.as_secs_f64(), mnps(nn, p), p.as_secs_f64() / k.as_secs_f64());
}
