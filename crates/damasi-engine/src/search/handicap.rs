//! How a weaker level picks its move among the best root moves: noisy scores, and now and
//! then a deliberate pick of the second to fourth best.

use super::root::RootMove;
use super::{INF, MATE_BOUND};
use crate::Level;

/// A small deterministic random number generator (xorshift*), for the level noise.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A weaker level's choice among the best `lines` root moves (sorted best first): the index
/// of the move to play.
pub(super) fn pick_handicapped(moves: &[RootMove], lines: usize, level: Level, key: u64) -> usize {
    let seed = key ^ crate::clock::unix_nanos() | 1;
    let mut rng = Rng(seed);
    let n = lines.min(moves.len()).max(1);
    let noise = level.noise() as u64;
    let best_score = moves[0].score;
    let max_loss = 40 * (11 - level.get() as i32);
    if n > 1 && rng.below(100) < level.slip_percent() as u64 {
        let candidates: Vec<usize> = (1..n)
            .filter(|&i| moves[i].score > -INF && best_score - moves[i].score <= max_loss)
            .collect();
        if !candidates.is_empty() {
            return candidates[rng.below(candidates.len() as u64) as usize];
        }
    }
    let mut pick = 0;
    let mut pick_score = i32::MIN;
    for (i, rm) in moves.iter().take(n).enumerate() {
        if rm.score == -INF {
            continue;
        }
        let jitter = if noise == 0 {
            0
        } else {
            rng.below(2 * noise + 1) as i32 - noise as i32
        };
        let s = rm.score
            + if rm.score.abs() < MATE_BOUND {
                jitter
            } else {
                0
            };
        if s > pick_score {
            pick_score = s;
            pick = i;
        }
    }
    debug_assert!(pick < n);
    pick
}
