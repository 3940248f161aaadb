//! Moves and fixed-capacity move lists.

use crate::bitboard::Squares;
use crate::square::Square;
use std::mem::MaybeUninit;

/// A legal move, identified by its start square, end square and set of captured squares
/// (docs/rules.md, "Move identity"): two routes that capture the same set and end on the same
/// square are the same move. The route itself is recovered by the notation module when needed.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    pub(crate) captured: u64,
    pub(crate) from: Square,
    pub(crate) to: Square,
    pub(crate) promotes: bool,
}

impl Move {
    /// The square the moving piece starts on.
    #[inline]
    pub fn from(&self) -> Square {
        self.from
    }

    /// The square the moving piece ends on (may equal `from` for a capture going round a loop).
    #[inline]
    pub fn to(&self) -> Square {
        self.to
    }

    /// The captured squares as a bitboard (empty for a quiet move).
    #[inline]
    pub fn captured_bits(&self) -> u64 {
        self.captured
    }

    /// The captured squares, lowest first.
    pub fn captured(&self) -> Squares {
        Squares(self.captured)
    }

    /// How many pieces the move captures.
    #[inline]
    pub fn capture_count(&self) -> u32 {
        self.captured.count_ones()
    }

    /// Whether the move captures anything.
    #[inline]
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// Whether a man is promoted to king at the end of this move.
    #[inline]
    pub fn is_promotion(&self) -> bool {
        self.promotes
    }
}

/// Moves kept inline before a list spills to the heap. The worst quiet case is bounded by the
/// 4 nearest pieces seen from each empty square (4 x 62 = 248 king moves); ordinary play stays
/// far below 100. Capture lists of pathological king positions could in theory exceed it, so
/// instead of a hard limit the list then moves to a `Vec` (never in normal play).
const INLINE: usize = 256;

/// A list of moves that lives on the stack: no allocation in move generation.
pub struct MoveList {
    len: usize,
    inline: [MaybeUninit<Move>; INLINE],
    spill: Vec<Move>,
}

impl MoveList {
    /// An empty list.
    #[inline]
    pub fn new() -> MoveList {
        MoveList {
            len: 0,
            // An array of `MaybeUninit` needs no initialisation.
            inline: [const { MaybeUninit::uninit() }; INLINE],
            spill: Vec::new(),
        }
    }

    /// Adds a move.
    #[inline]
    pub fn push(&mut self, m: Move) {
        if self.len < INLINE {
            self.inline[self.len].write(m);
            self.len += 1;
        } else {
            if self.spill.is_empty() {
                let mut spill = Vec::with_capacity(2 * INLINE);
                spill.extend_from_slice(self.inline_slice());
                self.spill = spill;
            }
            self.spill.push(m);
            self.len += 1;
        }
    }

    #[inline]
    fn inline_slice(&self) -> &[Move] {
        let n = self.len.min(INLINE);
        // SAFETY: the first `min(len, INLINE)` inline slots were written by `push`.
        unsafe { std::slice::from_raw_parts(self.inline.as_ptr().cast::<Move>(), n) }
    }

    /// The moves as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        if self.len > INLINE {
            &self.spill
        } else {
            self.inline_slice()
        }
    }

    /// The moves as a mutable slice (for ordering them in a search).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        if self.len > INLINE {
            &mut self.spill
        } else {
            let n = self.len;
            // SAFETY: the first `len` inline slots were written by `push`.
            unsafe { std::slice::from_raw_parts_mut(self.inline.as_mut_ptr().cast::<Move>(), n) }
        }
    }

    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no move.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes every move.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
        self.spill.clear();
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    /// Keeps the moves for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&Move) -> bool) {
        let mut kept = MoveList::new();
        for m in self.iter() {
            if keep(m) {
                kept.push(*m);
            }
        }
        *self = kept;
    }

    /// Whether the list holds the move.
    pub fn contains(&self, m: &Move) -> bool {
        self.as_slice().contains(m)
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Clone for MoveList {
    fn clone(&self) -> Self {
        let mut l = MoveList::new();
        for m in self.iter() {
            l.push(*m);
        }
        l
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spills_without_losing_moves() {
        let mut l = MoveList::new();
        for i in 0..600u32 {
            l.push(Move {
                captured: i as u64,
                from: Square::new_unchecked((i % 64) as u8),
                to: Square::new_unchecked(0),
                promotes: false,
            });
        }
        assert_eq!(l.len(), 600);
        for (i, m) in l.iter().enumerate() {
            assert_eq!(m.captured, i as u64);
        }
        l.retain(|m| m.captured % 2 == 0);
        assert_eq!(l.len(), 300);
    }
}
