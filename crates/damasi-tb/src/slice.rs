//! Slices of a signature by the ranks of its men, and a dense index inside one slice.
//!
//! Men only move forward or sideways, so the ranks of the men never go back: a quiet move
//! either keeps every man on its rank (a king move, a sideways step) and stays in its slice,
//! or steps a man forward into a slice that is further advanced. The builder solves the
//! slices most advanced first, so only one slice's working state is in memory at a time and
//! forward moves are looked up in slices already solved.
//!
//! Inside a slice each group of kings is a combination of the 64 squares (colex rank, as in
//! [`crate::index`]) and each group of men is, rank by rank, a combination of that rank's 8
//! files. The slice index is not mirror-reduced: a position and its mirror image both have an
//! entry, and the builder uses the smaller one ([`SliceIndexer::canonical`]), leaving the
//! other unused. That costs memory in the slice, never in the files.

use crate::index::{rank, unrank, BINOMIAL};
use crate::placement::Placement;
use crate::signature::Signature;

/// How many men of one colour stand on each rank (index 0 = rank 1 ... 7 = rank 8; men
/// stand on ranks 2 to 7 only).
pub type RankCounts = [u8; 8];

/// Which slice a position of one signature is in: the men's ranks of each side.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct SliceKey {
    /// White's men per rank.
    pub white: RankCounts,
    /// Black's men per rank.
    pub black: RankCounts,
}

/// Men per rank of a set of squares.
#[inline]
fn counts_of(men: u64) -> RankCounts {
    let mut c = [0u8; 8];
    for (r, slot) in c.iter_mut().enumerate() {
        *slot = ((men >> (8 * r)) & 0xFF).count_ones() as u8;
    }
    c
}

impl SliceKey {
    /// The slice of a placement.
    #[inline]
    pub fn of(p: &Placement) -> SliceKey {
        SliceKey {
            white: counts_of(p.wm),
            black: counts_of(p.bm),
        }
    }

    /// The same slice seen after the colour flip (the key of the positions the other side
    /// reaches by a quiet move that keeps the ranks): colours exchanged, ranks turned over.
    pub fn flip(self) -> SliceKey {
        let turn = |c: RankCounts| {
            let mut t = c;
            t.reverse();
            t
        };
        SliceKey {
            white: turn(self.black),
            black: turn(self.white),
        }
    }

    /// How far the men have come: ranks White's men stand above rank 2 plus ranks Black's
    /// men stand below rank 7. Every forward step raises it by one, and the colour flip keeps
    /// it, so slices are solved in decreasing advancement.
    pub fn advancement(self) -> u32 {
        (1..7)
            .map(|r| self.white[r] as u32 * (r as u32 - 1) + self.black[r] as u32 * (6 - r as u32))
            .sum()
    }

    /// Every slice of a signature.
    pub fn all(sig: Signature) -> Vec<SliceKey> {
        let whites = spreads(sig.wm);
        let blacks = spreads(sig.bm);
        let mut v = Vec::with_capacity(whites.len() * blacks.len());
        for &white in &whites {
            for &black in &blacks {
                v.push(SliceKey { white, black });
            }
        }
        v
    }
}

/// Every way to spread `n` men over ranks 2 to 7 (at most 8 on a rank).
fn spreads(n: u8) -> Vec<RankCounts> {
    fn go(r: usize, left: u8, cur: &mut RankCounts, out: &mut Vec<RankCounts>) {
        if r == 7 {
            if left == 0 {
                out.push(*cur);
            }
            return;
        }
        for c in 0..=left.min(8) {
            cur[r] = c;
            go(r + 1, left - c, cur, out);
        }
        cur[r] = 0;
    }
    let mut out = Vec::new();
    go(1, n, &mut [0; 8], &mut out);
    out
}

/// One group of the slice index: kings anywhere, or men rank by rank.
#[derive(Clone, Debug)]
enum Group {
    /// `k` kings of set `which` over the 64 squares.
    Kings { which: usize, k: usize },
    /// Men of set `which`: for each occupied rank, its index (0 = rank 1) and how many.
    Men {
        which: usize,
        ranks: Vec<(usize, usize)>,
    },
}

/// The four sets of a placement in group order: white kings, white men, black kings, black men.
#[inline(always)]
fn sets(p: &Placement) -> [u64; 4] {
    [p.wk, p.wm, p.bk, p.bm]
}

/// The dense index of one slice of one signature (White to move).
#[derive(Clone, Debug)]
pub struct SliceIndexer {
    key: SliceKey,
    /// Groups with their radix, most significant first.
    groups: Vec<(Group, u64)>,
    size: u64,
}

impl SliceIndexer {
    /// The index of slice `key` of `sig` (the key's men must match the signature's).
    pub fn new(sig: Signature, key: SliceKey) -> SliceIndexer {
        debug_assert_eq!(key.white.iter().sum::<u8>(), sig.wm);
        debug_assert_eq!(key.black.iter().sum::<u8>(), sig.bm);
        let men = |which: usize, counts: &RankCounts| {
            let ranks: Vec<(usize, usize)> = (0..8)
                .filter(|&r| counts[r] > 0)
                .map(|r| (r, counts[r] as usize))
                .collect();
            let radix = ranks.iter().map(|&(_, c)| BINOMIAL[8][c]).product();
            (Group::Men { which, ranks }, radix)
        };
        let kings = |which: usize, k: u8| {
            let k = k as usize;
            (Group::Kings { which, k }, BINOMIAL[64][k])
        };
        let mut groups = Vec::new();
        if sig.wk > 0 {
            groups.push(kings(0, sig.wk));
        }
        if sig.wm > 0 {
            groups.push(men(1, &key.white));
        }
        if sig.bk > 0 {
            groups.push(kings(2, sig.bk));
        }
        if sig.bm > 0 {
            groups.push(men(3, &key.black));
        }
        let size = groups.iter().map(|g| g.1).product();
        SliceIndexer { key, groups, size }
    }

    /// The slice indexed.
    pub fn key(&self) -> SliceKey {
        self.key
    }

    /// Number of entries (every placement of the slice, mirror images apart, plus placements
    /// with two pieces on one square).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The entry of a placement of this slice.
    #[inline]
    pub fn index(&self, p: &Placement) -> u64 {
        let s = sets(p);
        let mut i = 0u64;
        for (g, radix) in &self.groups {
            let r = match g {
                Group::Kings { which, .. } => rank(s[*which]),
                Group::Men { which, ranks } => {
                    let mut r = 0u64;
                    for &(rk, c) in ranks {
                        r = r * BINOMIAL[8][c] + rank((s[*which] >> (8 * rk)) & 0xFF);
                    }
                    r
                }
            };
            i = i * radix + r;
        }
        i
    }

    /// The entry shared by a placement and its mirror image (the smaller of their entries).
    #[inline]
    pub fn canonical(&self, p: &Placement) -> u64 {
        self.index(p).min(self.index(&p.mirror()))
    }

    /// The placement at entry `i`, or `None` if two pieces would share a square.
    #[inline]
    pub fn decode(&self, mut i: u64) -> Option<Placement> {
        let mut s = [0u64; 4];
        for (g, radix) in self.groups.iter().rev() {
            let mut r = i % radix;
            i /= radix;
            match g {
                Group::Kings { which, k } => s[*which] = unrank(r, *k, 64),
                Group::Men { which, ranks } => {
                    for &(rk, c) in ranks.iter().rev() {
                        let sub = r % BINOMIAL[8][c];
                        r /= BINOMIAL[8][c];
                        s[*which] |= unrank(sub, c, 8) << (8 * rk);
                    }
                }
            }
        }
        let p = Placement {
            wk: s[0],
            wm: s[1],
            bk: s[2],
            bm: s[3],
        };
        p.is_disjoint().then_some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Indexer;

    #[test]
    fn slices_partition_a_signature() {
        // Every used entry of the dense index lies in exactly one slice, where it round-trips
        // and shares its canonical entry with its mirror image.
        for sig in [
            Signature::new(1, 1, 1, 0),
            Signature::new(2, 0, 0, 1),
            Signature::new(1, 0, 2, 0),
        ] {
            let ix = Indexer::new(sig);
            let slices: Vec<SliceIndexer> = SliceKey::all(sig)
                .into_iter()
                .map(|k| SliceIndexer::new(sig, k))
                .collect();
            let mut canonical = 0u64;
            for s in &slices {
                for i in 0..s.size() {
                    if let Some(p) = s.decode(i) {
                        assert_eq!(SliceKey::of(&p), s.key());
                        assert_eq!(s.index(&p), i);
                        if s.canonical(&p) == i {
                            canonical += 1;
                        }
                    }
                }
            }
            let used = (0..ix.size()).filter(|&i| ix.decode(i).is_some()).count() as u64;
            assert_eq!(canonical, used, "{sig}");
        }
    }

    #[test]
    fn flip_and_advancement() {
        let sig = Signature::new(2, 0, 1, 0);
        assert_eq!(SliceKey::all(sig).len(), 21 * 6);
        for k in SliceKey::all(sig) {
            assert_eq!(k.flip().flip(), k);
            assert_eq!(k.flip().advancement(), k.advancement());
        }
        // White men on b2 and c3 (1 + 0 ranks up), a black man on d5 (2 ranks down).
        let p = Placement {
            wm: (1 << 9) | (1 << 18),
            wk: 0,
            bm: 1 << 35,
            bk: 0,
        };
        assert_eq!(SliceKey::of(&p).advancement(), 1 + 2);
    }
}
