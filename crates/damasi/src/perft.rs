//! Perft: the number of leaf nodes of the legal move tree to a fixed depth, the standard test
//! of a move generator. Draw rules are ignored; a position with no legal move has no children.

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
pub fn perft_with(pos: &Position, depth: u32, counting: Counting) -> u64 {
    match counting {
        Counting::Moves => walk::<false>(pos, depth),
        Counting::Routes => walk::<true>(pos, depth),
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

fn walk<const ROUTES: bool>(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        // Bulk counting: the last ply is counted, not played.
        1 if ROUTES => pos.count_legal_routes(),
        1 => pos.count_legal_moves(),
        2 => crate::movegen::count_grandchildren::<ROUTES>(pos),
        _ => {
            let mut list = MoveList::new();
            if ROUTES {
                pos.legal_routes_into(&mut list);
            } else {
                pos.legal_moves_into(&mut list);
            }
            list.iter()
                .map(|m| walk::<ROUTES>(&pos.play_unkeyed(m), depth - 1))
                .sum()
        }
    }
}
