//! The triangular principal-variation table: the line below each ply of the current path.

use damasi::Move;

use super::MAX_PLY;

/// PV lines by ply: `line(ply)` is the best line found so far from the node at `ply`.
pub(super) struct PvTable {
    moves: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    len: [usize; MAX_PLY + 2],
}

impl PvTable {
    /// An empty table (`filler` is any move; it is never read before being written).
    pub fn new(filler: Move) -> PvTable {
        PvTable {
            moves: Box::new([[filler; MAX_PLY + 1]; MAX_PLY + 1]),
            len: [0; MAX_PLY + 2],
        }
    }

    /// Forgets the line at `ply` (a node starts with none).
    #[inline]
    pub fn clear(&mut self, ply: usize) {
        self.len[ply] = 0;
    }

    /// The line at `ply` becomes `m` followed by the line at `ply + 1`.
    #[inline]
    pub fn update(&mut self, ply: usize, m: &Move) {
        debug_assert!(ply < MAX_PLY);
        let n = self.len[ply + 1].min(MAX_PLY - ply - 1);
        let (upper, lower) = self.moves.split_at_mut(ply + 1);
        let line = &mut upper[ply];
        line[0] = *m;
        line[1..=n].copy_from_slice(&lower[0][..n]);
        self.len[ply] = n + 1;
    }

    /// The line at `ply`.
    #[inline]
    pub fn line(&self, ply: usize) -> &[Move] {
        &self.moves[ply][..self.len[ply]]
    }
}
