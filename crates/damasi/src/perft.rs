//! Perft: the number of leaf nodes of the legal move tree to a fixed depth, the standard test
//! of a move generator. Draw rules are ignored; a position with no legal move has no children.

use crate::isa::{Isa, Portable};
use crate::moves::{Move, MoveList};
use crate::position::Position;

/// What perft counts as distinct moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Counting {
    /// Moves by identity (from, to, captured set): the first column of the perft table in
    /// docs/rules.md.
    #[default]
    Moves,
    /// Routes: a capture reachable by several routes counts once per route (`--paths`).
    Routes,
}

/// Leaf count at `depth`, counting moves by identity.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    perft_with(pos, depth, Counting::Moves)
}

/// Leaf count at `depth` with the chosen way of counting.
///
/// On x86-64 the count runs in code compiled with the `popcnt` instruction if this CPU has it,
/// else in code for any x86-64 CPU (see the `isa` module); both give the same counts.
pub fn perft_with(pos: &Position, depth: u32, counting: Counting) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if let Some(isa) = crate::isa::Popcnt::detect() {
        return perft_on(isa, pos, depth, counting);
    }
    perft_on(Portable, pos, depth, counting)
}

/// [`perft_with`] compiled for the instruction set `isa`.
fn perft_on<I: Isa>(isa: I, pos: &Position, depth: u32, counting: Counting) -> u64 {
    match counting {
        Counting::Moves => isa.walk::<false>(pos, depth),
        Counting::Routes => isa.walk::<true>(pos, depth),
    }
}

/// The leaf count below each legal move at the root (`divide`), in move generation order.
pub fn divide(pos: &Position, depth: u32, counting: Counting) -> Vec<(Move, u64)> {
    let mut list = MoveList::new();
    root_moves(pos, counting, &mut list);
    list.iter()
        .map(|m| {
            (
                *m,
                if depth == 0 {
                    1
                } else {
                    perft_with(&pos.play(m), depth - 1, counting)
                },
            )
        })
        .collect()
}

/// Leaf count at `depth`, splitting the root moves over `threads` threads (at most one per
/// root move).
pub fn perft_parallel(pos: &Position, depth: u32, counting: Counting, threads: usize) -> u64 {
    if depth < 3 || threads <= 1 {
        return perft_with(pos, depth, counting);
    }
    let mut list = MoveList::new();
    root_moves(pos, counting, &mut list);
    let moves: Vec<Move> = list.iter().copied().collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    // A thread per root move at most: more would have nothing to do.
    let threads = threads.min(moves.len());
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut total = 0;
                    // Work stealing by index: subtrees differ a lot in size.
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(m) = moves.get(i) else { break };
                        total += perft_with(&pos.play(m), depth - 1, counting);
                    }
                    total
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("perft worker"))
            .sum()
    })
}

fn root_moves(pos: &Position, counting: Counting, list: &mut MoveList) {
    match counting {
        Counting::Moves => pos.legal_moves_into(list),
        Counting::Routes => pos.legal_routes_into(list),
    }
}

/// Perft below `pos`, compiled for `isa`: called through [`Isa::walk`], into which it is
/// inlined.
#[inline(always)]
pub(crate) fn walk<I: Isa, const ROUTES: bool>(isa: I, pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        // Bulk counting: the last ply is counted, not played.
        1 => crate::movegen::count_legal::<I, ROUTES>(isa, pos),
        2 => crate::movegen::count_grandchildren::<I, ROUTES>(isa, pos),
        _ => {
            let mut list = MoveList::new();
            if ROUTES {
                pos.legal_routes_into(&mut list);
            } else {
                pos.legal_moves_into(&mut list);
            }
            list.iter()
                .map(|m| isa.walk::<ROUTES>(&pos.play_unkeyed(m), depth - 1))
                .sum()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions from the start, from endings with kings, and along pseudo-random games (which
    /// reach kings and long captures), each with a depth small enough for a test.
    fn positions() -> Vec<(Position, u32)> {
        let mut out = vec![(Position::start(), 6)];
        for fen in [
            "W:WKa1:BKh8",
            "W:WKc3:Bc5,d3,e6,f4",
            "W:WKa1:Ba3,a6,h7",
            "B:WKd4,c3,e3,f2:BKe6,c6,b7,g7",
        ] {
            out.push((Position::from_fen(fen).expect(fen), 4));
        }
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for game in 0..12 {
            let mut pos = Position::start();
            for ply in 0..40 + 8 * game {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos = pos.play(&moves[(seed % moves.len() as u64) as usize]);
                if ply % 10 == 9 {
                    out.push((pos, 4));
                }
            }
        }
        out
    }

    /// Perft by listing and playing every move down to the leaves: no bulk counting.
    fn listed(pos: &Position, depth: u32, counting: Counting) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut list = MoveList::new();
        root_moves(pos, counting, &mut list);
        list.iter()
            .map(|m| listed(&pos.play(m), depth - 1, counting))
            .sum()
    }

    /// Bulk counting (the last two plies counted from bitboards) agrees with listing.
    #[test]
    fn bulk_counts_agree_with_listed_moves() {
        for (pos, depth) in positions() {
            for counting in [Counting::Moves, Counting::Routes] {
                for d in 1..=depth.min(4) {
                    assert_eq!(
                        perft_with(&pos, d, counting),
                        listed(&pos, d, counting),
                        "{} depth {d} {counting:?}",
                        pos.to_fen()
                    );
                }
            }
        }
    }

    /// The code compiled for this CPU (with `popcnt` on most x86-64 CPUs) and the code for any
    /// CPU count alike, so the fallback stays tested on machines that never run it.
    #[test]
    fn dispatched_and_portable_counts_agree() {
        let positions = positions();
        assert!(positions.len() > 40);
        // Kings on both sides, for kings' captures and steps at the leaves.
        assert!(positions
            .iter()
            .any(|(p, _)| p.kings & p.by_color[0] != 0 && p.kings & p.by_color[1] != 0));
        for (pos, depth) in positions {
            for counting in [Counting::Moves, Counting::Routes] {
                for d in 1..=depth {
                    assert_eq!(
                        perft_with(&pos, d, counting),
                        perft_on(Portable, &pos, d, counting),
                        "{} depth {d} {counting:?}",
                        pos.to_fen()
                    );
                }
            }
        }
    }
}
