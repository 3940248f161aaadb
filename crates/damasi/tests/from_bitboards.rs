//! `Position::from_bitboards` accepts exactly the piece sets `Position::from_pieces` accepts,
//! builds the same position (key included), and names what is wrong with the others.

use damasi::bitboard::Squares;
use damasi::{Color, Piece, Position, PositionError, Role, Square};
use proptest::prelude::*;

/// The pieces of four sets, in the order white men, white kings, black men, black kings.
fn pieces_of(sets: [u64; 4]) -> Vec<(Square, Piece)> {
    let roles = [
        (Color::White, Role::Man),
        (Color::White, Role::King),
        (Color::Black, Role::Man),
        (Color::Black, Role::King),
    ];
    sets.into_iter()
        .zip(roles)
        .flat_map(|(set, (color, role))| Squares(set).map(move |sq| (sq, Piece { color, role })))
        .collect()
}

/// A sparse random set: each square in with probability about 1 / `sparseness`.
fn sparse_set(sparseness: u8) -> impl Strategy<Value = u64> {
    prop::collection::vec(0u8..sparseness, 64).prop_map(|cells| {
        cells
            .iter()
            .enumerate()
            .filter(|(_, &c)| c == 0)
            .fold(0u64, |b, (i, _)| b | 1 << i)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn agrees_with_from_pieces(
        mut sets in prop::array::uniform4(sparse_set(12)),
        black in any::<bool>(),
        tidy in any::<bool>(),
    ) {
        if tidy {
            // Half the cases made valid: men off ranks 1 and 8, no square used twice.
            const MIDDLE: u64 = 0x00FF_FFFF_FFFF_FF00;
            sets[0] &= MIDDLE;
            sets[2] &= MIDDLE & !sets[0];
            sets[1] &= !(sets[0] | sets[2]);
            sets[3] &= !(sets[0] | sets[1] | sets[2]);
        }
        let side = if black { Color::Black } else { Color::White };
        let by_sets = Position::from_bitboards(sets[0], sets[1], sets[2], sets[3], side);
        let by_pieces = Position::from_pieces(pieces_of(sets), side);
        match (&by_sets, &by_pieces) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a, b);
                prop_assert_eq!(a.key(), a.compute_key());
            }
            (Err(_), Err(_)) => {}
            _ => prop_assert!(false, "{:?} against {:?}", by_sets, by_pieces),
        }
    }
}

#[test]
fn names_the_first_problem_square() {
    let sq = |name: &str| name.parse::<Square>().unwrap();
    let bit = |name: &str| 1u64 << sq(name).index();
    // A white man and a black king on d4.
    assert_eq!(
        Position::from_bitboards(bit("d4"), 0, 0, bit("d4") | bit("h8"), Color::White),
        Err(PositionError::SquareTwice(sq("d4")))
    );
    // A white man on its own back rank, a black man on its promotion rank.
    assert_eq!(
        Position::from_bitboards(bit("c1"), 0, 0, 0, Color::White),
        Err(PositionError::ManOnImpossibleRank(sq("c1"), Color::White))
    );
    assert_eq!(
        Position::from_bitboards(0, 0, bit("a1"), 0, Color::Black),
        Err(PositionError::ManOnImpossibleRank(sq("a1"), Color::Black))
    );
    // Seventeen white kings.
    assert_eq!(
        Position::from_bitboards(0, (1 << 17) - 1, 0, 0, Color::White),
        Err(PositionError::TooManyPieces(Color::White, 17))
    );
    // A valid one: the FEN reader agrees.
    let p = Position::from_bitboards(bit("b2"), bit("h1"), bit("e7"), 0, Color::Black).unwrap();
    assert_eq!(p, Position::from_fen("B:Wb2,Kh1:Be7").unwrap());
}
