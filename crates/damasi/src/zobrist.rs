//! Zobrist keys: one random 64-bit number per (side, kind, square) and one for Black to move.
//! A position's key is the XOR of the numbers of what is on the board; `Position::play`
//! updates it incrementally and `Position::compute_key` recomputes it from scratch.

use crate::color::{Color, Role};
use crate::square::Square;

/// SplitMix64, run at compile time so the keys are the same in every build and on every machine.
const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn make_keys() -> [[[u64; 64]; 2]; 2] {
    let mut keys = [[[0u64; 64]; 2]; 2];
    let mut state = 0x6461_6D61_7369_2021; // "damasi !"
    let mut c = 0;
    while c < 2 {
        let mut r = 0;
        while r < 2 {
            let mut s = 0;
            while s < 64 {
                let (next, k) = splitmix(state);
                state = next;
                keys[c][r][s] = k;
                s += 1;
            }
            r += 1;
        }
        c += 1;
    }
    keys
}

static PIECE_KEYS: [[[u64; 64]; 2]; 2] = make_keys();

/// XORed in when Black is to move.
pub const BLACK_TO_MOVE: u64 = splitmix(0x7475_726B_6973_6821).1;

/// The key of a piece of `color` and `role` on `sq`.
#[inline(always)]
pub fn piece_key(color: Color, role: Role, sq: Square) -> u64 {
    PIECE_KEYS[color as usize][role as usize][sq.index()]
}
