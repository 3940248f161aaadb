//! The per-ply search stack: what a node needs to know about the path that led to it, and
//! what sibling nodes at the same ply share (the killers). A parent fills its child's frame
//! before the call ([`Frame::enter`]), so the node function takes only the window, the depth
//! and the ply.

use damasi::{Move, Position};

use super::MAX_PLY;

/// One ply of the search stack.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    /// Zobrist key of the position at this ply (for repetitions).
    pub key: u64,
    /// The ply just after the last irreversible move on the path (0 if there was none since
    /// the root): positions before it cannot repeat.
    pub irrev: usize,
    /// Plies since the last capture, counting the game before the root (no-capture limit).
    pub nocap: u32,
    /// Quiet moves that caused a cut-off in earlier nodes at this ply (killer heuristic).
    pub killers: [Option<Move>; 2],
}

impl Frame {
    const EMPTY: Frame = Frame {
        key: 0,
        irrev: 0,
        nocap: 0,
        killers: [None; 2],
    };
}

/// The frames of plies 0 ..= MAX_PLY + 1. Kept small (no PV lines in it), so that the
/// repetition scan back along the keys touches few cache lines.
pub(super) struct Stack {
    frames: [Frame; MAX_PLY + 2],
}

impl Stack {
    /// A stack for a search from `root`, `nocap` plies after the last capture of the game.
    pub fn new(root: &Position, nocap: u32) -> Stack {
        let mut frames = [Frame::EMPTY; MAX_PLY + 2];
        frames[0].key = root.key();
        frames[0].nocap = nocap;
        Stack { frames }
    }

    /// Fills the frame of the child `child` reached from `parent` at `ply` by `m` (its key,
    /// last irreversible move and capture count); the child's killers stay.
    #[inline]
    pub fn enter(&mut self, ply: usize, parent: &Position, m: &Move, child: &Position) {
        debug_assert!(ply <= MAX_PLY);
        let irrev = if parent.is_irreversible(m) {
            ply + 1
        } else {
            self.frames[ply].irrev
        };
        let nocap = if m.is_capture() {
            0
        } else {
            self.frames[ply].nocap + 1
        };
        let next = &mut self.frames[ply + 1];
        next.key = child.key();
        next.irrev = irrev;
        next.nocap = nocap;
    }
}

impl std::ops::Index<usize> for Stack {
    type Output = Frame;

    #[inline]
    fn index(&self, ply: usize) -> &Frame {
        &self.frames[ply]
    }
}

impl std::ops::IndexMut<usize> for Stack {
    #[inline]
    fn index_mut(&mut self, ply: usize) -> &mut Frame {
        &mut self.frames[ply]
    }
}
