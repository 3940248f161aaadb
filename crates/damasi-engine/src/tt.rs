//! Transposition table shared by all search threads.
//!
//! Lock-free: each entry is two atomic words, the key stored XORed with the data (the
//! "lockless hashing" trick), so a torn write from two threads reads as a miss instead of
//! returning another position's data. Buckets of four entries fill one cache line;
//! replacement prefers shallow and old entries (depth-preferred with ageing).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use damasi::Move;

/// How a stored score bounds the true score.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The true score is at most the stored one (fail low).
    Upper = 1,
    /// The true score is at least the stored one (fail high).
    Lower = 2,
    /// The stored score is exact.
    Exact = 3,
}

/// A move as stored in the table: from, to and an 8-bit hash of the captured set, matched
/// against the legal moves when read (a collision can only reorder moves, never make an
/// illegal one).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct TtMove(u32);

impl TtMove {
    /// No move.
    pub const NONE: TtMove = TtMove(0);

    /// The stored form of a legal move.
    pub fn new(m: &Move) -> TtMove {
        let cap = (m.captured_bits().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u32;
        TtMove(1 | (m.from().index() as u32) << 1 | (m.to().index() as u32) << 7 | cap << 13)
    }

    /// Whether this is the stored form of `m`.
    #[inline]
    pub fn matches(self, m: &Move) -> bool {
        self.0 != 0 && self == TtMove::new(m)
    }

    /// Whether a move is stored.
    pub fn is_some(self) -> bool {
        self.0 != 0
    }
}

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    /// Best or refuting move, if one was found.
    pub mv: TtMove,
    /// Score (mate scores relative to the stored node, see `search`).
    pub score: i32,
    /// Depth the score was searched to.
    pub depth: i32,
    /// How the score bounds the true score.
    pub bound: Bound,
}

#[derive(Default)]
struct Entry {
    key: AtomicU64,
    data: AtomicU64,
}

#[repr(align(64))]
#[derive(Default)]
struct Bucket([Entry; 4]);

/// The shared transposition table.
pub struct Table {
    buckets: Vec<Bucket>,
    age: AtomicU8,
    /// Entries of another game epoch read as empty (see [`Table::new_game`]).
    epoch: AtomicU8,
}

// Data word: score i16 | move 21 bits | depth u8 | bound 2 bits | age 6 bits.
const MOVE_SHIFT: u32 = 16;
const DEPTH_SHIFT: u32 = 37;
const BOUND_SHIFT: u32 = 45;
const AGE_SHIFT: u32 = 47;
const EPOCH_SHIFT: u32 = 53;

#[inline]
fn epoch_of(data: u64) -> u8 {
    (data >> EPOCH_SHIFT) as u8
}

fn pack(score: i32, mv: TtMove, depth: i32, bound: Bound, age: u8, epoch: u8) -> u64 {
    (score as i16 as u16 as u64)
        | (mv.0 as u64) << MOVE_SHIFT
        | (depth.clamp(0, 255) as u64) << DEPTH_SHIFT
        | (bound as u64) << BOUND_SHIFT
        | ((age & 63) as u64) << AGE_SHIFT
        | (epoch as u64) << EPOCH_SHIFT
}

fn unpack(data: u64) -> Option<Hit> {
    let bound = match (data >> BOUND_SHIFT) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    Some(Hit {
        score: data as u16 as i16 as i32,
        mv: TtMove(((data >> MOVE_SHIFT) & 0x1F_FFFF) as u32),
        depth: ((data >> DEPTH_SHIFT) & 255) as i32,
        bound,
    })
}

impl Table {
    /// A table of about `mb` MiB.
    /// Sizes the memory cannot hold are halved until the allocation succeeds.
    pub fn new(mb: usize) -> Table {
        let bytes = mb.clamp(1, 1 << 20).saturating_mul(1 << 20);
        let mut n = (bytes / std::mem::size_of::<Bucket>()).max(1024);
        // A power of two not above the requested size.
        n = 1 << (usize::BITS - 1 - n.leading_zeros());
        let mut buckets: Vec<Bucket> = Vec::new();
        while buckets.try_reserve_exact(n).is_err() && n > 1024 {
            n /= 2;
        }
        buckets.resize_with(n, Bucket::default);
        Table {
            buckets,
            age: AtomicU8::new(0),
            epoch: AtomicU8::new(0),
        }
    }

    /// Forgets every entry at once, without touching the memory: entries written before read
    /// as empty. (After 256 games an old entry may show again; it still describes the same
    /// position, so that is harmless.) Clearing a large table took tens of milliseconds,
    /// counted on the clock of a game that had just started.
    pub fn new_game(&self) {
        self.epoch.fetch_add(1, Ordering::Relaxed);
        self.age.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // Multiply-shift maps the key to a bucket using its high bits.
        let i = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[i]
    }

    /// Starts loading the bucket of `key` into the cache (the probe comes a little later, after
    /// the child's move generation): the table is far larger than the caches, and the load was
    /// the largest single cost of a node in profiles.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: `p` points into `self.buckets`; a prefetch is only a hint and never
            // faults or changes memory.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks a position up.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        let epoch = self.epoch.load(Ordering::Relaxed);
        for e in &self.bucket(key).0 {
            let data = e.data.load(Ordering::Relaxed);
            if e.key.load(Ordering::Relaxed) ^ data == key {
                if epoch_of(data) != epoch {
                    return None;
                }
                return unpack(data);
            }
        }
        None
    }

    /// Stores a search result. Keeps the old move when the new result has none.
    #[inline]
    pub fn store(&self, key: u64, score: i32, mut mv: TtMove, depth: i32, bound: Bound) {
        let age = self.age.load(Ordering::Relaxed) & 63;
        let epoch = self.epoch.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let mut victim = &bucket.0[0];
        let mut victim_worth = i32::MAX;
        for e in &bucket.0 {
            let data = e.data.load(Ordering::Relaxed);
            let k = e.key.load(Ordering::Relaxed) ^ data;
            if k == key {
                if let Some(old) = unpack(data).filter(|_| epoch_of(data) == epoch) {
                    // Keep a deeper exact result of this search.
                    if bound != Bound::Exact
                        && old.depth > depth + 2
                        && ((data >> AGE_SHIFT) & 63) as u8 == age
                    {
                        return;
                    }
                    if !mv.is_some() {
                        mv = old.mv;
                    }
                }
                victim = e;
                break;
            }
            let worth = match unpack(data).filter(|_| epoch_of(data) == epoch) {
                None => i32::MIN,
                Some(h) => {
                    let e_age = ((data >> AGE_SHIFT) & 63) as u8;
                    let stale = (age.wrapping_sub(e_age) & 63) as i32;
                    h.depth - 8 * stale
                }
            };
            if worth < victim_worth {
                victim_worth = worth;
                victim = e;
            }
        }
        let data = pack(score, mv, depth, bound, age, epoch);
        victim.key.store(key ^ data, Ordering::Relaxed);
        victim.data.store(data, Ordering::Relaxed);
    }

    /// Permille of entries used by the current search (sampled).
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed) & 63;
        let epoch = self.epoch.load(Ordering::Relaxed);
        let n = self.buckets.len().min(250);
        let mut used = 0;
        for b in &self.buckets[..n] {
            for e in &b.0 {
                let data = e.data.load(Ordering::Relaxed);
                if unpack(data).is_some()
                    && ((data >> AGE_SHIFT) & 63) as u8 == age
                    && epoch_of(data) == epoch
                {
                    used += 1;
                }
            }
        }
        (used * 1000 / (n * 4)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damasi::Position;

    #[test]
    fn stores_and_finds() {
        let t = Table::new(1);
        let pos = Position::start();
        let m = pos.legal_moves()[3];
        t.store(pos.key(), -1234, TtMove::new(&m), 7, Bound::Lower);
        let h = t.probe(pos.key()).unwrap();
        assert_eq!(h.score, -1234);
        assert_eq!(h.depth, 7);
        assert_eq!(h.bound, Bound::Lower);
        assert!(h.mv.matches(&m));
        assert!(!h.mv.matches(&pos.legal_moves()[2]));
        assert!(t.probe(pos.key() ^ 1).is_none());
    }

    #[test]
    fn sizes_are_powers_of_two_within_the_request() {
        for mb in [0, 1, 3, 64] {
            let t = Table::new(mb);
            let bytes = t.buckets.len() * std::mem::size_of::<Bucket>();
            assert!(t.buckets.len().is_power_of_two());
            assert!(bytes <= mb.max(1) << 20, "{mb} MiB gave {bytes} bytes");
        }
    }

    #[test]
    fn a_new_game_forgets_everything() {
        let t = Table::new(1);
        let pos = Position::start();
        t.store(pos.key(), 10, TtMove::NONE, 3, Bound::Exact);
        assert!(t.probe(pos.key()).is_some());
        t.new_game();
        assert!(t.probe(pos.key()).is_none());
        t.store(pos.key(), 20, TtMove::NONE, 1, Bound::Exact);
        assert_eq!(t.probe(pos.key()).unwrap().score, 20);
    }

    #[test]
    fn keeps_move_when_storing_without_one() {
        let t = Table::new(1);
        let pos = Position::start();
        let m = pos.legal_moves()[0];
        t.store(pos.key(), 10, TtMove::new(&m), 3, Bound::Exact);
        t.store(pos.key(), 20, TtMove::NONE, 4, Bound::Upper);
        let h = t.probe(pos.key()).unwrap();
        assert_eq!(h.score, 20);
        assert!(h.mv.matches(&m));
    }
}
