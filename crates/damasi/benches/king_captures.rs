//! King captures: how fast the legal moves of positions with a king capture are listed (the
//! work of the tablebase builder's capture positions, and of the engine in king endings).
//!
//! `cargo bench -p damasi --bench king_captures -- [ROUNDS]` (default 5). A fixed
//! pseudo-random set of positions is drawn for each of a few endings (kings only, kings with
//! men), keeping those where the side to move has a capture; each round lists the legal moves
//! of every position, and the median time a position is printed per ending with the number of
//! moves found (the same from run to run: compare two builds by running this in each).
use std::time::{Duration, Instant};

use damasi::{Color, MoveList, Position};

/// A 64-bit LCG, so that runs draw the same positions.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 11
    }

    /// A set of `n` squares among `allowed` not in `taken`.
    fn squares(&mut self, n: u32, allowed: u64, taken: &mut u64) -> u64 {
        let mut set = 0u64;
        while set.count_ones() < n {
            let sq = 1u64 << (self.next() % 64);
            if sq & allowed != 0 && sq & *taken == 0 {
                set |= sq;
                *taken |= sq;
            }
        }
        set
    }
}

/// Up to `count` positions of the ending (white men, white kings, black men, black kings)
/// with a capture for the side to move.
fn positions(rng: &mut Lcg, ending: [u32; 4], count: usize) -> Vec<Position> {
    const MEN_SQUARES: u64 = 0x00FF_FFFF_FFFF_FF00;
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut taken = 0;
        let wm = rng.squares(ending[0], MEN_SQUARES, &mut taken);
        let wk = rng.squares(ending[1], !0, &mut taken);
        let bm = rng.squares(ending[2], MEN_SQUARES, &mut taken);
        let bk = rng.squares(ending[3], !0, &mut taken);
        let side = if rng.next() % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        if let Ok(p) = Position::from_bitboards(wm, wk, bm, bk, side) {
            if p.has_capture() {
                out.push(p);
            }
        }
    }
    out
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5)
        .max(1);
    let endings: [(&str, [u32; 4]); 4] = [
        ("3 kings v 3 kings", [0, 3, 0, 3]),
        ("2 kings v 4 kings", [0, 2, 0, 4]),
        ("king + 2 men v 2 kings + man", [2, 1, 1, 2]),
        ("2 kings + 3 men v 2 kings + 3 men", [3, 2, 3, 2]),
    ];
    let mut rng = Lcg(0x2545_F491_4F6C_DD1D);
    for (name, ending) in endings {
        let set = positions(&mut rng, ending, 200_000);
        let mut list = MoveList::new();
        let mut times = Vec::new();
        let mut moves = 0;
        for _ in 0..rounds {
            moves = 0;
            let t = Instant::now();
            for p in &set {
                p.legal_moves_into(&mut list);
                moves += list.len();
            }
            times.push(t.elapsed());
        }
        times.sort();
        let median: Duration = times[times.len() / 2];
        println!(
            "{name:36} {:7.1} ns a position ({} positions, {moves} moves)",
            median.as_nanos() as f64 / set.len() as f64,
            set.len()
        );
    }
}
