//! Start-position perft, damasi against the published `kish` crate, side by side in one run.
//!
//! `cargo bench -p damasi --bench perft_vs_kish -- [DEPTH] [ROUNDS]` (defaults 8 and 5).
//! Each round runs kish's `Board::perft(DEPTH)`, then damasi on one thread counting routes
//! (kish's count), then damasi on one thread counting moves by identity, so the machine's noise
//! hits all three alike; the medians and the ratios to kish's time are printed. Both counts are
//! checked against docs/rules.md by the tests.
//!
//! Here kish is compiled with this workspace's profile, not its own, and runs slower than as
//! its own program: for the comparison as users run it, whole processes each built with its
//! own release profile, use `scripts/perft-vs-kish`. Both are in docs/performance.md.
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
    let rounds = args.get(1).copied().unwrap_or(5).max(1);
    let start = damasi::Position::start();
    let mut times: [Vec<Duration>; 3] = Default::default();
    let mut nodes = [0u64; 3];
    for round in 1..=rounds {
        let runs: [&dyn Fn() -> u64; 3] = [
            &|| kish::Board::new_default().perft(depth as u64),
            &|| damasi::perft_with(&start, depth, damasi::Counting::Routes),
            &|| damasi::perft_with(&start, depth, damasi::Counting::Moves),
        ];
        for (i, run) in runs.iter().enumerate() {
            let (n, t) = time(run);
            nodes[i] = n;
            times[i].push(t);
        }
        eprintln!(
            "round {round}: kish {:?}, damasi routes {:?}, damasi moves {:?}",
            times[0][times[0].len() - 1],
            times[1][times[1].len() - 1],
            times[2][times[2].len() - 1]
        );
    }
    let medians: Vec<Duration> = times.into_iter().map(median).collect();
    let names = [
        "kish 1.1.7 Board::perft (routes)",
        "damasi, 1 thread, routes       ",
        "damasi, 1 thread, moves        ",
    ];
    println!("perft({depth}) from the start position, one core, median of {rounds} rounds");
    for i in 0..3 {
        let t = medians[i].as_secs_f64();
        println!(
            "{} {:>13} nodes {:>8.3} s {:>7.1} M nodes/s  kish time / this time {:.2}",
            names[i],
            nodes[i],
            t,
            nodes[i] as f64 / t / 1e6,
            medians[0].as_secs_f64() / t
        );
    }
}
