//! Writes a legal, very long game as PDN on stdout (`scripts/measure-long-game` imports it):
//! `cargo run --release -p damasi-web --example long_game -- 150000 > long.pdn`.

#[path = "../tests/support/long_game.rs"]
mod long_game;

fn main() {
    let plies = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(150_000);
    print!("{}", long_game::long_game_pdn(plies));
}
