//! The native side of the wasm speed comparison: the same functions the wasm module exports,
//! on this machine's CPU. `cargo run --release -p damasi-wasm --example native_speed -- [PERFT
//! DEPTH] [BENCH DEPTH]` prints one JSON line.

fn main() {
    let mut args = std::env::args().skip(1);
    let perft_depth: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(8);
    let bench_depth: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(8);
    let t = std::time::Instant::now();
    let leaves = damasi_wasm::perft_fen("startpos", perft_depth).expect("startpos is valid");
    let perft_secs = t.elapsed().as_secs_f64();
    let (nodes, bench_secs) = damasi_wasm::run_bench(bench_depth);
    println!(
        "{{\"where\":\"native\",\"perft_depth\":{perft_depth},\"leaves\":{leaves},\"perft_secs\":{perft_secs},\
         \"bench_depth\":{bench_depth},\"bench_nodes\":{nodes},\"bench_secs\":{bench_secs}}}"
    );
}
