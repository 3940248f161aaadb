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

use std::sync::OnceLock;

use crate::index::{rank, unrank, unrank_highest, BINOMIAL};
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

/// Colex rank of every 8-bit set among the sets of its size (a rank's files), for sets of
/// at most five (six pieces: at most five men a side).
static RANK8: [u8; 256] = rank8();

const fn rank8() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut m = 0;
    while m < 256 {
        if (m as u8).count_ones() > 5 {
            m += 1;
            continue;
        }
        let (mut r, mut i, mut sq) = (0u64, 1, 0);
        while sq < 8 {
            if m >> sq & 1 != 0 {
                r += BINOMIAL[sq][i];
                i += 1;
            }
            sq += 1;
        }
        t[m] = r as u8;
        m += 1;
    }
    t
}

/// The 8-bit set of `k` files with colex rank `r` ([`RANK8`] inverted), `[k][r]`.
static UNRANK8: [[u8; 70]; 6] = unrank8();

const fn unrank8() -> [[u8; 70]; 6] {
    let mut t = [[0u8; 70]; 6];
    let mut m = 0;
    while m < 256 {
        let k = (m as u8).count_ones() as usize;
        if k <= 5 {
            t[k][RANK8[m] as usize] = m as u8;
        }
        m += 1;
    }
    t
}

/// Colex rank of a set of `k` kings among the 64 squares (one king: its square).
#[inline(always)]
fn king_rank(b: u64, k: usize) -> u64 {
    if k == 1 {
        b.trailing_zeros() as u64
    } else {
        rank(b)
    }
}

/// The set of `k` kings with colex rank `r`.
#[inline(always)]
fn king_unrank(mut r: u64, k: usize) -> u64 {
    match k {
        1 => 1 << r,
        2 | 3 => king_sets(k)[r as usize],
        _ => {
            // The kings above the lowest three by the greedy search, the lowest three from
            // the table.
            let high = unrank_highest(&mut r, k, 3, 64);
            high | king_sets(3)[r as usize]
        }
    }
}

/// Every set of `k` (2 or 3) kings in colex order: decoding is the slices' most frequent
/// step, and a table lookup replaces the greedy search of [`unrank`] (17 KB and 333 KB).
fn king_sets(k: usize) -> &'static [u64] {
    static SETS: [OnceLock<Vec<u64>>; 2] = [OnceLock::new(), OnceLock::new()];
    SETS[k - 2].get_or_init(|| (0..BINOMIAL[64][k]).map(|r| unrank(r, k, 64)).collect())
}

/// One group of the slice index: kings anywhere, or men rank by rank.
#[derive(Clone, Copy, Debug, Default)]
struct Group {
    /// Which set of the placement (0 white kings, 1 white men, 2 black kings, 3 black men).
    which: usize,
    /// Kings in the group; 0 for men.
    kings: usize,
    /// For men: the occupied ranks (board shift 8 * rank) and how many men stand on each.
    ranks: [(u32, usize); 6],
    /// Number of occupied ranks.
    rank_count: usize,
    /// Combinations of the group.
    radix: u64,
}

impl Group {
    #[inline(always)]
    fn rank(&self, b: u64) -> u64 {
        if self.kings > 0 {
            return king_rank(b, self.kings);
        }
        let mut r = 0u64;
        for &(shift, c) in &self.ranks[..self.rank_count] {
            r = r * BINOMIAL[8][c] + RANK8[(b >> shift & 0xFF) as usize] as u64;
        }
        r
    }

    /// Whether `a` ranks below `b` (two sets of this group, e.g. a set and its mirror image),
    /// without ranking either. Kings: colex order over the board, decided by the highest
    /// square in one set only. Men: the lowest rank is the most significant digit, and inside
    /// a rank colex order again, so the lowest rank where they differ decides, by its highest
    /// square in one set only.
    #[inline(always)]
    fn ranks_below(&self, a: u64, b: u64) -> bool {
        let d = a ^ b;
        if d == 0 {
            return false;
        }
        let top = if self.kings > 0 {
            63 - d.leading_zeros()
        } else {
            let row = d.trailing_zeros() / 8 * 8;
            row + 7 - ((d >> row) as u8).leading_zeros()
        };
        b >> top & 1 != 0
    }

    #[inline(always)]
    fn unrank(&self, mut r: u64) -> u64 {
        if self.kings > 0 {
            return king_unrank(r, self.kings);
        }
        let mut b = 0u64;
        for &(shift, c) in self.ranks[..self.rank_count].iter().rev() {
            let radix = BINOMIAL[8][c];
            b |= (UNRANK8[c][(r % radix) as usize] as u64) << shift;
            r /= radix;
        }
        b
    }
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
    /// Groups, most significant first.
    groups: [Group; 4],
    group_count: usize,
    size: u64,
}

impl SliceIndexer {
    /// The index of slice `key` of `sig` (the key's men must match the signature's).
    pub fn new(sig: Signature, key: SliceKey) -> SliceIndexer {
        debug_assert_eq!(key.white.iter().sum::<u8>(), sig.wm);
        debug_assert_eq!(key.black.iter().sum::<u8>(), sig.bm);
        let men = |which: usize, counts: &RankCounts| {
            let mut g = Group {
                which,
                radix: 1,
                ..Group::default()
            };
            for (r, &c) in counts.iter().enumerate() {
                if c > 0 {
                    g.ranks[g.rank_count] = (8 * r as u32, c as usize);
                    g.rank_count += 1;
                    g.radix *= BINOMIAL[8][c as usize];
                }
            }
            g
        };
        let kings = |which: usize, k: u8| Group {
            which,
            kings: k as usize,
            radix: BINOMIAL[64][k as usize],
            ..Group::default()
        };
        let mut groups = [Group::default(); 4];
        let mut group_count = 0;
        for (count, g) in [
            (sig.wk, kings(0, sig.wk)),
            (sig.wm, men(1, &key.white)),
            (sig.bk, kings(2, sig.bk)),
            (sig.bm, men(3, &key.black)),
        ] {
            if count > 0 {
                groups[group_count] = g;
                group_count += 1;
            }
        }
        let size = groups[..group_count].iter().map(|g| g.radix).product();
        SliceIndexer {
            key,
            groups,
            group_count,
            size,
        }
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
        let first = &self.groups[0];
        self.index_after(p, first.rank(sets(p)[first.which]))
    }

    /// The entry of a placement whose first group has rank `r`.
    #[inline(always)]
    fn index_after(&self, p: &Placement, r: u64) -> u64 {
        let s = sets(p);
        let mut i = r;
        for g in &self.groups[1..self.group_count] {
            i = i * g.radix + g.rank(s[g.which]);
        }
        i
    }

    /// The entry shared by a placement and its mirror image (the smaller of their entries).
    /// The first group decides which is smaller unless it is its own mirror image.
    #[inline]
    pub fn canonical(&self, p: &Placement) -> u64 {
        let first = &self.groups[0];
        let b = sets(p)[first.which];
        let m = crate::placement::mirror(b);
        // One rank, not two: the order of the set and its mirror image is read off the bits.
        match first.order(b, m) {
            std::cmp::Ordering::Less => self.index_after(p, first.rank(b)),
            std::cmp::Ordering::Greater => self.index_after(&p.mirror(), first.rank(m)),
            std::cmp::Ordering::Equal => {
                let r = first.rank(b);
                self.index_after(p, r).min(self.index_after(&p.mirror(), r))
            }
        }
    }

    /// The placement at entry `i` if the entry is the one it shares with its mirror image
    /// ([`SliceIndexer::canonical`]), `None` if it is not or two pieces would share a
    /// square. Entries whose first group is larger than its mirror image are ruled out
    /// before anything else is decoded.
    #[inline]
    pub fn decode_canonical(&self, i: u64) -> Option<Placement> {
        let first = &self.groups[0];
        let r = i / (self.size / first.radix);
        let b = first.unrank(r);
        let m = crate::placement::mirror(b);
        if first.ranks_below(m, b) {
            return None;
        }
        let p = self.decode(i)?;
        self.is_canonical_entry(&p, r, i).then_some(p)
    }

    /// Whether entry `i`, which holds placement `p` with first-group rank `r`, is the entry
    /// `p` shares with its mirror image ([`SliceIndexer::canonical`]): the first group and
    /// its mirror image decide, or if they are the same, the two placements' entries.
    #[inline(always)]
    fn is_canonical_entry(&self, p: &Placement, r: u64, i: u64) -> bool {
        let first = &self.groups[0];
        let b = sets(p)[first.which];
        let m = crate::placement::mirror(b);
        first.ranks_below(b, m)
            || (!first.ranks_below(m, b) && self.index_after(&p.mirror(), r) >= i)
    }

    /// Each group's rank at entry `i` (most significant first) and the four sets they
    /// stand for (white kings, white men, black kings, black men).
    #[inline(always)]
    fn digits_and_sets(&self, mut i: u64) -> ([u64; 4], [u64; 4]) {
        let (mut digits, mut s) = ([0u64; 4], [0u64; 4]);
        for k in (0..self.group_count).rev() {
            let g = &self.groups[k];
            digits[k] = i % g.radix;
            s[g.which] = g.unrank(digits[k]);
            i /= g.radix;
        }
        (digits, s)
    }

    /// The entries `range` in order with their placements, as [`SliceIndexer::decode`]
    /// gives them (or [`SliceIndexer::decode_canonical`] with `canonical`), decoded one
    /// step at a time: consecutive entries mostly differ in the last group only, so only
    /// the groups whose digit changed are unranked, where decoding each entry afresh
    /// divides by every group's radix.
    pub fn walk(&self, range: std::ops::Range<u64>, canonical: bool) -> Walk<'_> {
        let mut w = Walk {
            indexer: self,
            next: range.start,
            end: range.end.min(self.size),
            canonical,
            digits: [0; 4],
            sets: [0; 4],
        };
        if w.next < w.end {
            (w.digits, w.sets) = self.digits_and_sets(w.next);
        }
        w
    }

    /// The placement at entry `i`, or `None` if two pieces would share a square.
    #[inline]
    pub fn decode(&self, i: u64) -> Option<Placement> {
        let [wk, wm, bk, bm] = self.digits_and_sets(i).1;
        let p = Placement { wk, wm, bk, bm };
        p.is_disjoint().then_some(p)
    }
}

/// The entries of a range of one slice with their placements, in order
/// ([`SliceIndexer::walk`]).
pub struct Walk<'a> {
    indexer: &'a SliceIndexer,
    /// The entry the next item is for, and the end of the range.
    next: u64,
    end: u64,
    /// Whether entries that are not canonical give `None`, as in
    /// [`SliceIndexer::decode_canonical`].
    canonical: bool,
    /// The rank of each group at entry `next` (most significant first), and the sets they
    /// stand for (white kings, white men, black kings, black men).
    digits: [u64; 4],
    sets: [u64; 4],
}

impl Iterator for Walk<'_> {
    type Item = (u64, Option<Placement>);

    #[inline(always)]
    fn next(&mut self) -> Option<(u64, Option<Placement>)> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        let [wk, wm, bk, bm] = self.sets;
        let p = Placement { wk, wm, bk, bm };
        let ix = self.indexer;
        let item = if !p.is_disjoint() {
            None
        } else if self.canonical {
            ix.is_canonical_entry(&p, self.digits[0], i).then_some(p)
        } else {
            Some(p)
        };
        // The next entry: the last digit goes up, carrying into the groups before it.
        self.next += 1;
        if self.next < self.end {
            let mut k = ix.group_count - 1;
            loop {
                let g = &ix.groups[k];
                self.digits[k] += 1;
                if self.digits[k] < g.radix {
                    self.sets[g.which] = g.unrank(self.digits[k]);
                    break;
                }
                self.digits[k] = 0;
                self.sets[g.which] = g.unrank(0);
                // Entries below `end <= size` never carry out of the first group.
                k -= 1;
            }
        }
        Some((i, item))
    }
}

/// The entries of many placements that differ from one base placement in one set (the
/// parents of a position, see [`crate::unmove::for_each_parent_set`]): the base's groups and
/// its mirror image's are ranked once, and each placement ranks only the group that changed.
/// The entries are those of [`SliceIndexer::canonical`].
pub struct Around<'a> {
    indexer: &'a SliceIndexer,
    /// The group of each set of the placement (white kings, white men, black kings, black
    /// men), for the sets that have one.
    group_of: [usize; 4],
    /// Per group: the base's rank, its mirror image's rank, and the group's place value.
    ranks: [u64; 4],
    mirror_ranks: [u64; 4],
    strides: [u64; 4],
    /// The entries of the base and of its mirror image.
    index: u64,
    mirror_index: u64,
    /// The order of the base's first group and its mirror image.
    first: std::cmp::Ordering,
}

impl SliceIndexer {
    /// Ready to index the placements one set away from `base` (a placement of this slice).
    #[inline]
    pub fn around(&self, base: &Placement) -> Around<'_> {
        let own = sets(base);
        let mirrored = sets(&base.mirror());
        let mut a = Around {
            indexer: self,
            group_of: [0; 4],
            ranks: [0; 4],
            mirror_ranks: [0; 4],
            strides: [0; 4],
            index: 0,
            mirror_index: 0,
            first: std::cmp::Ordering::Equal,
        };
        let mut stride = 1;
        for k in (0..self.group_count).rev() {
            let g = &self.groups[k];
            a.group_of[g.which] = k;
            a.strides[k] = stride;
            a.ranks[k] = g.rank(own[g.which]);
            a.mirror_ranks[k] = g.rank(mirrored[g.which]);
            a.index += a.ranks[k] * stride;
            a.mirror_index += a.mirror_ranks[k] * stride;
            stride *= g.radix;
        }
        let first = &self.groups[0];
        a.first = first.order(own[first.which], mirrored[first.which]);
        a
    }
}

impl Group {
    /// How set `a` ranks against set `b` (see [`Group::ranks_below`]).
    #[inline(always)]
    fn order(&self, a: u64, b: u64) -> std::cmp::Ordering {
        if self.ranks_below(a, b) {
            std::cmp::Ordering::Less
        } else if self.ranks_below(b, a) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }
}

impl Around<'_> {
    /// The entry ([`SliceIndexer::canonical`]) of the base with its set `which` (0 white
    /// kings, 1 white men, 2 black kings, 3 black men) replaced by `set`, which must keep
    /// the slice (as many pieces, men on the same ranks).
    #[inline]
    pub fn canonical_with(&self, which: usize, set: u64) -> u64 {
        use std::cmp::Ordering::*;
        let k = self.group_of[which];
        let g = &self.indexer.groups[k];
        let stride = self.strides[k];
        let own = |r: u64| self.index - self.ranks[k] * stride + r * stride;
        let mirrored = |r: u64| self.mirror_index - self.mirror_ranks[k] * stride + r * stride;
        let m = crate::placement::mirror(set);
        // The first group decides, as in `canonical`: the base's unless it is the one that
        // changed.
        let order = if k == 0 { g.order(set, m) } else { self.first };
        match order {
            Less => own(g.rank(set)),
            Greater => mirrored(g.rank(m)),
            Equal => own(g.rank(set)).min(mirrored(g.rank(m))),
        }
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
            Signature::new(0, 2, 0, 1),
            Signature::new(0, 1, 0, 3),
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
                        let is_canonical = s.canonical(&p) == i;
                        assert_eq!(s.decode_canonical(i).is_some(), is_canonical);
                        canonical += u64::from(is_canonical);
                    }
                }
            }
            let used = (0..ix.size()).filter(|&i| ix.decode(i).is_some()).count() as u64;
            assert_eq!(canonical, used, "{sig}");
        }
    }

    /// Walking a range gives every entry's placement as decoding it alone does, canonical
    /// or not, from any start (carries through every group included).
    #[test]
    fn a_walk_decodes_as_each_entry_alone() {
        for sig in [
            Signature::new(1, 1, 1, 1),
            Signature::new(0, 2, 0, 1),
            Signature::new(2, 1, 0, 1),
            Signature::new(0, 1, 2, 1),
            Signature::new(3, 0, 0, 2),
        ] {
            for key in SliceKey::all(sig) {
                let s = SliceIndexer::new(sig, key);
                for canonical in [false, true] {
                    let alone = |i| {
                        if canonical {
                            s.decode_canonical(i)
                        } else {
                            s.decode(i)
                        }
                    };
                    let whole: Vec<_> = s.walk(0..s.size(), canonical).collect();
                    assert_eq!(whole.len() as u64, s.size());
                    for (k, &(i, p)) in whole.iter().enumerate() {
                        assert_eq!(i, k as u64);
                        assert_eq!(p, alone(i), "{sig} {key:?} entry {i}");
                    }
                    // A range starting and ending anywhere, past the end included.
                    let (a, b) = (s.size() / 3 + 1, s.size() + 5);
                    let part: Vec<_> = s.walk(a..b, canonical).collect();
                    assert_eq!(part, whole[a as usize..]);
                }
            }
        }
    }

    /// The parents indexed incrementally get the entries `canonical` gives them, in slices
    /// with kings and men on both sides and in kings-only ones (where the first group is
    /// often its own mirror image or the one that moved).
    #[test]
    fn around_gives_the_canonical_entries_of_the_parents() {
        use crate::unmove::{for_each_parent_set, Moved};
        for sig in [
            Signature::new(1, 1, 1, 1),
            Signature::new(0, 2, 0, 1),
            Signature::new(2, 1, 0, 1),
            Signature::new(0, 1, 2, 1),
        ] {
            let mut checked = 0;
            for key in SliceKey::all(sig) {
                let child = SliceIndexer::new(sig, key);
                let parent = SliceIndexer::new(sig.flip(), key.flip());
                let step = (child.size() / 5000).max(1);
                for i in (0..child.size()).step_by(step as usize) {
                    let Some(p) = child.decode(i) else { continue };
                    let base = p.flip();
                    let around = parent.around(&base);
                    for_each_parent_set(&p, true, |moved, set| {
                        let q = match moved {
                            Moved::Kings => Placement { wk: set, ..base },
                            Moved::Men => Placement { wm: set, ..base },
                        };
                        assert_eq!(
                            around.canonical_with(moved.which(), set),
                            parent.canonical(&q),
                            "{sig}: {q:?}"
                        );
                        checked += 1;
                    });
                }
            }
            assert!(checked > 10_000, "{sig}: {checked}");
        }
    }

    /// The order read off the bits is the order of the ranks, for kings and for men.
    #[test]
    fn ranks_below_agrees_with_the_ranks() {
        let sig = Signature::new(3, 3, 0, 0);
        let key = SliceKey {
            white: [0, 1, 0, 2, 0, 0, 0, 0],
            black: [0; 8],
        };
        let ix = SliceIndexer::new(sig, key);
        for g in &ix.groups[..ix.group_count] {
            let step = (g.radix / 3000).max(1);
            for r in (0..g.radix).step_by(step as usize) {
                let a = g.unrank(r);
                for b in [crate::placement::mirror(a), g.unrank((r * 7 + 3) % g.radix)] {
                    let (ra, rb) = (g.rank(a), g.rank(b));
                    assert_eq!(g.ranks_below(a, b), ra < rb, "{a:x} {b:x}");
                    assert_eq!(g.ranks_below(b, a), rb < ra, "{a:x} {b:x}");
                }
            }
        }
    }

    #[test]
    fn king_sets_decode_like_the_greedy_search() {
        for (k, &n) in BINOMIAL[64].iter().enumerate().skip(1) {
            for r in (0..n).step_by((n / 5000).max(1) as usize).chain([n - 1]) {
                let b = king_unrank(r, k);
                assert_eq!(b, unrank(r, k, 64), "k {k}, rank {r}");
                assert_eq!(king_rank(b, k), r);
            }
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
