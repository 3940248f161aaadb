//! Material signatures: how many men and kings each side has. One table per signature.

use std::fmt;
use std::str::FromStr;

use damasi::Position;

/// Most pieces any table holds (six: the largest the builder is sized for).
pub const MAX_PIECES: u32 = 6;

/// The material of a position with White to move: men and kings of each side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Signature {
    /// White men.
    pub wm: u8,
    /// White kings.
    pub wk: u8,
    /// Black men.
    pub bm: u8,
    /// Black kings.
    pub bk: u8,
}

impl Signature {
    /// A signature from its four counts.
    pub const fn new(wm: u8, wk: u8, bm: u8, bk: u8) -> Signature {
        Signature { wm, wk, bm, bk }
    }

    /// The material of `pos` seen from the side to move ("White" = the side to move).
    pub fn of(pos: &Position) -> Signature {
        let us = pos.side_to_move();
        let them = !us;
        Signature {
            wm: pos.men_of(us).count_ones() as u8,
            wk: pos.kings_of(us).count_ones() as u8,
            bm: pos.men_of(them).count_ones() as u8,
            bk: pos.kings_of(them).count_ones() as u8,
        }
    }

    /// The signature with the colours exchanged (Black's material becomes White's).
    pub const fn flip(self) -> Signature {
        Signature::new(self.bm, self.bk, self.wm, self.wk)
    }

    /// Number of pieces on the board.
    pub const fn pieces(self) -> u32 {
        (self.wm + self.wk + self.bm + self.bk) as u32
    }

    /// Number of men on the board (both sides): promotions lower it, so signatures with fewer
    /// men are built first.
    pub const fn men(self) -> u32 {
        (self.wm + self.bm) as u32
    }

    /// Every signature with `n` pieces where both sides have at least one piece.
    pub fn all_with(n: u32) -> Vec<Signature> {
        let mut v = Vec::new();
        for white in 1..n {
            let black = n - white;
            for wm in 0..=white {
                for bm in 0..=black {
                    v.push(Signature::new(
                        wm as u8,
                        (white - wm) as u8,
                        bm as u8,
                        (black - bm) as u8,
                    ));
                }
            }
        }
        v
    }

    /// The signatures with `n` pieces in build order, as pairs `{s, s.flip()}` (a position of
    /// one has its children after a quiet move in the other, so a pair is solved together;
    /// a colour-symmetric signature is a pair of one). Pairs with fewer men come first, because
    /// a promotion leads to a signature with one man fewer and the same number of pieces.
    pub fn build_order(n: u32) -> Vec<Vec<Signature>> {
        let mut pairs: Vec<Vec<Signature>> = Vec::new();
        for s in Signature::all_with(n) {
            if s.flip() < s {
                continue;
            }
            if s.flip() == s {
                pairs.push(vec![s]);
            } else {
                pairs.push(vec![s, s.flip()]);
            }
        }
        pairs.sort_by_key(|p| (p[0].men(), p[0]));
        pairs
    }

    /// The file name of this signature's table, e.g. `w0m2k-b0m1k.dtb`.
    pub fn file_name(self) -> String {
        format!("{self}.dtb")
    }

    /// The file name of this signature's distances to conversion, e.g. `w0m2k-b0m1k.dtc`.
    pub fn dtc_file_name(self) -> String {
        format!("{self}.dtc")
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "w{}m{}k-b{}m{}k", self.wm, self.wk, self.bm, self.bk)
    }
}

/// Text that is not a signature name like `w0m2k-b0m1k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSignatureError(pub String);

impl fmt::Display for ParseSignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a signature (expected like w0m2k-b0m1k)",
            self.0
        )
    }
}

impl std::error::Error for ParseSignatureError {}

impl FromStr for Signature {
    type Err = ParseSignatureError;

    fn from_str(s: &str) -> Result<Signature, ParseSignatureError> {
        let err = || ParseSignatureError(s.to_string());
        let b = s.as_bytes();
        if b.len() != 11 || &b[0..1] != b"w" || &b[2..3] != b"m" || &b[4..7] != b"k-b" {
            return Err(err());
        }
        if &b[8..9] != b"m" || &b[10..11] != b"k" {
            return Err(err());
        }
        let digit = |c: u8| -> Result<u8, ParseSignatureError> {
            if c.is_ascii_digit() {
                Ok(c - b'0')
            } else {
                Err(err())
            }
        };
        let sig = Signature::new(digit(b[1])?, digit(b[3])?, digit(b[7])?, digit(b[9])?);
        if sig.pieces() > MAX_PIECES || sig.wm + sig.wk == 0 || sig.bm + sig.bk == 0 {
            return Err(err());
        }
        Ok(sig)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_counts() {
        for n in 2..=6 {
            for s in Signature::all_with(n) {
                assert_eq!(s.to_string().parse::<Signature>(), Ok(s));
                assert_eq!(s.pieces(), n);
            }
        }
        // Sides of 1..4 pieces for 5: (2+5) * 2 + (3+4) * 2 = 2*5+3*4 each way = 44.
        assert_eq!(Signature::all_with(5).len(), 44);
        assert!("w9m9k-b0m0k".parse::<Signature>().is_err());
        assert!("nonsense".parse::<Signature>().is_err());
    }
}
