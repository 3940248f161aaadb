//! Invariants over random legal games (proptest), from the start position and from random
//! valid positions: the incremental Zobrist key equals the recomputed one, FEN round-trips,
//! every move written in either notation reads back as itself, perft by moves never exceeds
//! perft by routes, the bulk move count equals the list length, and played moves do what
//! they say.

use damasi::{perft_with, Color, Counting, Notation, Piece, Position, Role, Square};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Checks every invariant on one position.
fn check(p: &Position) -> Result<(), TestCaseError> {
    prop_assert_eq!(p.key(), p.compute_key(), "key of {}", p);
    let fen = p.to_fen();
    prop_assert_eq!(Position::from_fen(&fen), Ok(*p), "FEN {}", fen);

    let legal = p.legal_moves();
    prop_assert_eq!(p.count_legal_moves(), legal.len() as u64, "count in {}", p);
    prop_assert_eq!(p.has_legal_move(), !legal.is_empty());
    for (i, m) in legal.iter().enumerate() {
        prop_assert!(!legal[..i].contains(m), "duplicate move in {}", p);
    }
    // Maximum capture: all moves take the same number of pieces, and none if none can.
    let n = legal.first().map_or(0, |m| m.capture_count());
    prop_assert!(legal.iter().all(|m| m.capture_count() == n));
    prop_assert_eq!(n > 0, p.has_capture());

    for m in legal.iter() {
        for notation in [Notation::Landing, Notation::Captured] {
            let text = p.write_move(m, notation);
            prop_assert_eq!(p.parse_move(&text), Ok(*m), "{} in {}", text, p);
        }
        let route = p.route(m);
        prop_assert_eq!(route.first(), Some(&m.from()));
        prop_assert_eq!(route.last(), Some(&m.to()));
        if m.is_capture() {
            prop_assert_eq!(route.len(), m.capture_count() as usize + 1);
            let mut order = p.capture_order(m);
            order.sort();
            prop_assert_eq!(order, m.captured().collect::<Vec<Square>>());
        }
        // Playing the move: the piece arrives, the captured pieces are gone.
        let after = p.play(m);
        let us = p.side_to_move();
        prop_assert_eq!(after.side_to_move(), !us);
        prop_assert_eq!(after.piece_at(m.to()).map(|pc| pc.color), Some(us));
        prop_assert_eq!(after.count(!us), p.count(!us) - m.capture_count());
        prop_assert_eq!(after.count(us), p.count(us));
    }

    for depth in 1..=2 {
        let moves = perft_with(p, depth, Counting::Moves);
        let routes = perft_with(p, depth, Counting::Routes);
        prop_assert!(
            moves <= routes,
            "depth {}: {} > {} in {}",
            depth,
            moves,
            routes,
            p
        );
    }
    Ok(())
}

/// Plays `choices` as indices into the legal move lists, checking every position on the way.
fn play_out(mut p: Position, choices: &[u32]) -> Result<(), TestCaseError> {
    for &c in choices {
        check(&p)?;
        let legal = p.legal_moves();
        if legal.is_empty() {
            return Ok(());
        }
        p = p.play(&legal[c as usize % legal.len()]);
    }
    check(&p)
}

/// A random valid position: each square empty or holding a man or king of either side (about
/// 10 squares in `sparseness` hold a piece), men kept off the ranks they can never stand on,
/// at most 16 pieces a side.
fn any_position(sparseness: u8) -> impl Strategy<Value = Position> {
    (prop::collection::vec(0u8..sparseness, 64), any::<bool>()).prop_map(|(cells, black)| {
        let mut pieces = Vec::new();
        let mut count = [0; 2];
        for (i, &c) in cells.iter().enumerate() {
            let (color, role) = match c {
                0..=3 => (Color::White, Role::Man),
                4..=7 => (Color::Black, Role::Man),
                8 => (Color::White, Role::King),
                9 => (Color::Black, Role::King),
                _ => continue,
            };
            let sq = Square::new(i as u8).unwrap();
            let rank = sq.rank();
            if role == Role::Man && (rank == 0 || rank == 7) {
                continue;
            }
            if count[color as usize] == 16 {
                continue;
            }
            count[color as usize] += 1;
            pieces.push((sq, Piece { color, role }));
        }
        let side = if black { Color::Black } else { Color::White };
        Position::from_pieces(pieces, side).expect("built valid")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_games_from_the_start(choices in prop::collection::vec(any::<u32>(), 0..150)) {
        play_out(Position::start(), &choices)?;
    }

    #[test]
    fn random_games_from_random_positions(
        p in (12u8..80).prop_flat_map(any_position),
        choices in prop::collection::vec(any::<u32>(), 0..60),
    ) {
        play_out(p, &choices)?;
    }

    #[test]
    fn random_king_endgames(
        p in (12u8..120).prop_flat_map(any_position).prop_map(|p| {
            // Crown every piece: flying kings make the long, branching captures.
            let pieces: Vec<_> = p
                .pieces()
                .map(|(sq, pc)| (sq, Piece { color: pc.color, role: Role::King }))
                .collect();
            Position::from_pieces(pieces, p.side_to_move()).expect("kings stand anywhere")
        }),
        choices in prop::collection::vec(any::<u32>(), 0..30),
    ) {
        play_out(p, &choices)?;
    }
}
