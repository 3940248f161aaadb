//! Runs one start-position perft on one thread, for profilers and instruction counters:
//! `cargo run --release -p damasi --example perft_one -- DEPTH [routes]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let depth = args.next().and_then(|d| d.parse().ok()).unwrap_or(7);
    let counting = if args.next().as_deref() == Some("routes") {
        damasi::Counting::Routes
    } else {
        damasi::Counting::Moves
    };
    println!(
        "{}",
        damasi::perft_with(&damasi::Position::start(), depth, counting)
    );
}
