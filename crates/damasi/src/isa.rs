//! The instruction sets perft's hot paths are compiled for, chosen once at run time.
//!
//! Bulk counting lives on popcounts, and a release build for baseline x86-64 has no `popcnt`
//! instruction: `count_ones` becomes a dozen shifts, masks and a multiply. So on x86-64 the
//! perft recursion and everything inlined into it (the leaves' counting, men's captures counted
//! set-wise) is compiled twice: once for any CPU ([`Portable`]) and once with `popcnt`
//! ([`Popcnt`], used when the CPU has it). A plain `cargo build --release` gets both, and
//! `damasi perft` still runs on a CPU without `popcnt`.
//!
//! The hot code is generic over [`Isa`] and marked `#[inline(always)]`; each recursive call
//! goes through the `Isa` value, to the copy of the function compiled for that instruction set.

use crate::movegen::ManCaptures;
use crate::position::Position;

/// An instruction set the hot paths are compiled for. A value is a proof that the CPU has it.
pub(crate) trait Isa: Copy {
    /// Perft below `pos` (see `perft::walk`).
    fn walk<const ROUTES: bool>(self, pos: &Position, depth: u32) -> u64;

    /// Men's longest captures from `from` (see [`ManCaptures::longest`]).
    fn longest<const WHITE: bool, const STATE: usize>(
        self,
        men: &ManCaptures<Self, WHITE>,
        from: u64,
    ) -> (u32, u64);
}

/// Any CPU: the target's baseline instruction set.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Isa for Portable {
    #[inline]
    fn walk<const ROUTES: bool>(self, pos: &Position, depth: u32) -> u64 {
        crate::perft::walk::<_, ROUTES>(self, pos, depth)
    }

    #[inline]
    fn longest<const WHITE: bool, const STATE: usize>(
        self,
        men: &ManCaptures<Self, WHITE>,
        from: u64,
    ) -> (u32, u64) {
        men.longest::<STATE>(from)
    }
}

/// x86-64 with the `popcnt` instruction (nearly every x86-64 CPU since 2008; not in the
/// baseline the release build targets). Only [`Popcnt::detect`] makes one.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Popcnt(());

#[cfg(target_arch = "x86_64")]
impl Popcnt {
    /// `Some` if this CPU has `popcnt` (checked once by the standard library, then cached).
    #[inline]
    pub(crate) fn detect() -> Option<Popcnt> {
        if std::arch::is_x86_feature_detected!("popcnt") {
            Some(Popcnt(()))
        } else {
            None
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Isa for Popcnt {
    #[inline(always)]
    fn walk<const ROUTES: bool>(self, pos: &Position, depth: u32) -> u64 {
        // SAFETY: a `Popcnt` exists only when `detect` found `popcnt` on this CPU.
        unsafe { walk_popcnt::<ROUTES>(self, pos, depth) }
    }

    #[inline(always)]
    fn longest<const WHITE: bool, const STATE: usize>(
        self,
        men: &ManCaptures<Self, WHITE>,
        from: u64,
    ) -> (u32, u64) {
        // SAFETY: a `Popcnt` exists only when `detect` found `popcnt` on this CPU.
        unsafe { longest_popcnt::<WHITE, STATE>(men, from) }
    }
}

/// `perft::walk` compiled with `popcnt`.
///
/// # Safety
/// The CPU must have `popcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn walk_popcnt<const ROUTES: bool>(isa: Popcnt, pos: &Position, depth: u32) -> u64 {
    crate::perft::walk::<_, ROUTES>(isa, pos, depth)
}

/// [`ManCaptures::longest`] compiled with `popcnt`.
///
/// # Safety
/// The CPU must have `popcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn longest_popcnt<const WHITE: bool, const STATE: usize>(
    men: &ManCaptures<Popcnt, WHITE>,
    from: u64,
) -> (u32, u64) {
    men.longest::<STATE>(from)
}
