//! The dense index of a signature's positions (White to move).
//!
//! Technique: each group of like pieces (white kings, white men, black kings, black men) is a
//! combination of squares from its domain (64 squares for kings, the 48 squares of ranks 2..7
//! for men), ranked in colexicographic order (`rank = sum C(square_i, i + 1)`); the group ranks
//! combine in mixed radix. Groups are ranked independently, so placements where two groups
//! share a square get an index too; they are "don't care" entries (a few percent of a table).
//!
//! The left-right mirror halves the table: the first non-empty group (in the order white
//! kings, white men, black kings, black men) keeps only combinations that are not larger than
//! their mirror image, renumbered densely by a lookup table. When that group is its own
//! mirror image the rest decides: the smaller of the two indices is the position's, the other
//! entry stays unused. So every position and its mirror image share exactly one entry.

use std::sync::OnceLock;

use crate::placement::{mirror, Placement};
use crate::signature::Signature;

/// Most pieces in one group (five kings against one piece in a six-piece table).
const MAX_GROUP: usize = 5;

/// Binomial coefficients `C(n, k)` for `n <= 64`, `k <= MAX_GROUP`.
pub(crate) static BINOMIAL: [[u64; MAX_GROUP + 1]; 65] = binomials();

const fn binomials() -> [[u64; MAX_GROUP + 1]; 65] {
    let mut t = [[0u64; MAX_GROUP + 1]; 65];
    let mut n = 0;
    while n <= 64 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_GROUP {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
}

/// The squares a group may use.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Domain {
    /// Kings: all 64 squares.
    Board,
    /// Men: ranks 2..7 (48 squares), for both colours.
    MenRanks,
}

impl Domain {
    const fn len(self) -> usize {
        match self {
            Domain::Board => 64,
            Domain::MenRanks => 48,
        }
    }

    /// Board bits to domain bits.
    #[inline(always)]
    const fn to_domain(self, b: u64) -> u64 {
        match self {
            Domain::Board => b,
            Domain::MenRanks => b >> 8,
        }
    }

    /// Domain bits to board bits.
    #[inline(always)]
    const fn to_board(self, d: u64) -> u64 {
        match self {
            Domain::Board => d,
            Domain::MenRanks => d << 8,
        }
    }
}

/// Colex rank of the set `d` (domain bits).
#[inline]
pub(crate) fn rank(mut d: u64) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while d != 0 {
        let sq = d.trailing_zeros() as usize;
        r += BINOMIAL[sq][i];
        d &= d - 1;
        i += 1;
    }
    r
}

/// The set of `k` domain squares with colex rank `r` (inverse of [`rank`]): greedily the
/// largest square whose binomial still fits.
#[inline]
pub(crate) fn unrank(mut r: u64, k: usize, len: usize) -> u64 {
    unrank_highest(&mut r, k, 0, len)
}

/// The highest `k - keep` squares of the set of `k` domain squares with colex rank `r`;
/// leaves in `r` the rank of the lowest `keep` among sets of `keep`.
#[inline]
pub(crate) fn unrank_highest(r: &mut u64, k: usize, keep: usize, len: usize) -> u64 {
    let mut d = 0u64;
    let mut c = len;
    for j in (keep + 1..=k).rev() {
        c -= 1;
        while BINOMIAL[c][j] > *r {
            c -= 1;
        }
        d |= 1u64 << c;
        *r -= BINOMIAL[c][j];
    }
    d
}

/// The mirror-reduced numbering of one group's combinations.
struct CanonTable {
    /// For each colex rank: its dense number if it is canonical, `SYMMETRIC` added when the
    /// combination is its own mirror image; `NOT_CANONICAL` if its mirror image is smaller.
    to_canon: Vec<u32>,
    /// Dense number to colex rank.
    from_canon: Vec<u32>,
}

const NOT_CANONICAL: u32 = u32::MAX;
const SYMMETRIC: u32 = 1 << 31;

impl CanonTable {
    fn new(domain: Domain, k: usize) -> CanonTable {
        let n = BINOMIAL[domain.len()][k] as usize;
        let mut to_canon = vec![NOT_CANONICAL; n];
        let mut from_canon = Vec::with_capacity(n / 2 + 64);
        for (r, slot) in to_canon.iter_mut().enumerate() {
            let d = unrank(r as u64, k, domain.len());
            let m = rank(domain.to_domain(mirror(domain.to_board(d))));
            if m as usize >= r {
                let sym = if m as usize == r { SYMMETRIC } else { 0 };
                *slot = from_canon.len() as u32 | sym;
                from_canon.push(r as u32);
            }
        }
        CanonTable {
            to_canon,
            from_canon,
        }
    }

    /// The shared table for `k` pieces of a domain, built on first use.
    fn get(domain: Domain, k: usize) -> &'static CanonTable {
        static TABLES: [[OnceLock<CanonTable>; MAX_GROUP + 1]; 2] = [
            [const { OnceLock::new() }; MAX_GROUP + 1],
            [const { OnceLock::new() }; MAX_GROUP + 1],
        ];
        let slot = match domain {
            Domain::Board => &TABLES[0][k],
            Domain::MenRanks => &TABLES[1][k],
        };
        slot.get_or_init(|| CanonTable::new(domain, k))
    }
}

/// One group of like pieces: which set of the placement, its domain and its size.
#[derive(Clone, Copy, Debug)]
struct Group {
    which: usize,
    domain: Domain,
    k: usize,
    /// Number of combinations (`C(domain, k)`).
    radix: u64,
}

/// The four sets of a placement in group order: white kings, white men, black kings, black men.
#[inline(always)]
fn sets(p: &Placement) -> [u64; 4] {
    [p.wk, p.wm, p.bk, p.bm]
}

/// The dense, mirror-reduced index of one signature.
pub struct Indexer {
    sig: Signature,
    first: Group,
    rest: Vec<Group>,
    rest_size: u64,
    canon: &'static CanonTable,
    size: u64,
}

impl Indexer {
    /// The index of `sig`, which must have at least one piece and groups of at most 5.
    pub fn new(sig: Signature) -> Indexer {
        let counts = [sig.wk, sig.wm, sig.bk, sig.bm];
        let domains = [
            Domain::Board,
            Domain::MenRanks,
            Domain::Board,
            Domain::MenRanks,
        ];
        let mut groups: Vec<Group> = (0..4)
            .filter(|&i| counts[i] > 0)
            .map(|i| Group {
                which: i,
                domain: domains[i],
                k: counts[i] as usize,
                radix: BINOMIAL[domains[i].len()][counts[i] as usize],
            })
            .collect();
        assert!(
            !groups.is_empty(),
            "a signature without pieces has no index"
        );
        assert!(groups.iter().all(|g| g.k <= MAX_GROUP), "group too large");
        let first = groups.remove(0);
        let canon = CanonTable::get(first.domain, first.k);
        let rest_size = groups.iter().map(|g| g.radix).product::<u64>();
        Indexer {
            sig,
            first,
            rest: groups,
            rest_size,
            canon,
            size: canon.from_canon.len() as u64 * rest_size,
        }
    }

    /// The signature indexed.
    pub fn signature(&self) -> Signature {
        self.sig
    }

    /// Number of entries (positions, mirror images once, plus unused entries).
    pub fn size(&self) -> u64 {
        self.size
    }

    #[inline]
    fn rest_index(&self, s: &[u64; 4]) -> u64 {
        let mut i = 0;
        for g in &self.rest {
            i = i * g.radix + rank(g.domain.to_domain(s[g.which]));
        }
        i
    }

    /// The entry of a placement of this signature (its mirror image has the same entry).
    #[inline]
    pub fn index(&self, p: &Placement) -> u64 {
        let s = sets(p);
        let g = self.first;
        let c = self.canon.to_canon[rank(g.domain.to_domain(s[g.which])) as usize];
        if c == NOT_CANONICAL {
            let m = sets(&p.mirror());
            let c = self.canon.to_canon[rank(g.domain.to_domain(m[g.which])) as usize];
            debug_assert!(c != NOT_CANONICAL);
            return (c & !SYMMETRIC) as u64 * self.rest_size + self.rest_index(&m);
        }
        let mut rest = self.rest_index(&s);
        if c & SYMMETRIC != 0 {
            rest = rest.min(self.rest_index(&sets(&p.mirror())));
        }
        (c & !SYMMETRIC) as u64 * self.rest_size + rest
    }

    /// The placement stored at entry `i`, or `None` for an unused entry (two pieces on one
    /// square, or the mirror image of a position stored elsewhere).
    pub fn decode(&self, i: u64) -> Option<Placement> {
        if i >= self.size {
            return None;
        }
        let mut s = [0u64; 4];
        let mut rest = i % self.rest_size;
        for g in self.rest.iter().rev() {
            let r = rest % g.radix;
            rest /= g.radix;
            s[g.which] = g.domain.to_board(unrank(r, g.k, g.domain.len()));
        }
        let g = self.first;
        let r = self.canon.from_canon[(i / self.rest_size) as usize];
        s[g.which] = g.domain.to_board(unrank(r as u64, g.k, g.domain.len()));
        let p = Placement {
            wk: s[0],
            wm: s[1],
            bk: s[2],
            bm: s[3],
        };
        if !p.is_disjoint() {
            return None;
        }
        // With a self-symmetric first group only the smaller of the two rests is used.
        let symmetric = self.canon.to_canon[r as usize] & SYMMETRIC != 0;
        if symmetric && self.rest_index(&sets(&p.mirror())) < i % self.rest_size {
            return None;
        }
        debug_assert_eq!(self.index(&p), i);
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_and_unrank_are_inverse() {
        for (k, count) in BINOMIAL[48].iter().enumerate().take(4).skip(1) {
            for r in 0..*count {
                assert_eq!(rank(unrank(r, k, 48)), r);
            }
        }
    }

    #[test]
    fn every_entry_round_trips_and_mirrors_share_it() {
        for sig in [
            Signature::new(0, 2, 0, 1),
            Signature::new(1, 1, 1, 0),
            Signature::new(2, 0, 0, 2),
        ] {
            let ix = Indexer::new(sig);
            let mut used = 0u64;
            for i in 0..ix.size() {
                if let Some(p) = ix.decode(i) {
                    used += 1;
                    assert_eq!(p.signature(), sig);
                    assert_eq!(ix.index(&p), i);
                    assert_eq!(ix.index(&p.mirror()), i);
                }
            }
            assert!(used * 10 > ix.size() * 9, "{sig}: {used} of {}", ix.size());
        }
    }
}
