//! The worked examples of the rule sources (the seeds listed in docs/rules.md, "Sources"):
//! - seed 001 (the Turkish federation's text, Atila Zeybek), Examples 1 to 10. The seed's
//!   diagrams are lost; each position below is built to match its text, and the expected moves
//!   were worked out by hand from the text and docs/rules.md.
//! - seed 000 section 10, the notation examples, each read and written in a position where it
//!   is legal.

use damasi::{MoveError, Notation, Position, Square};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

fn squares(names: &[&str]) -> u64 {
    names.iter().fold(0, |b, n| b | sq(n).bit())
}

/// Every legal move as (from, to, captured set), sorted.
fn legal(p: &Position) -> Vec<(Square, Square, u64)> {
    let mut v: Vec<_> = p
        .legal_moves()
        .iter()
        .map(|m| (m.from(), m.to(), m.captured_bits()))
        .collect();
    v.sort();
    v
}

fn mv(from: &str, to: &str, captured: &[&str]) -> (Square, Square, u64) {
    (sq(from), sq(to), squares(captured))
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

// ---------------------------------------------------------------------------------------------
// Seed 001, the federation's examples
// ---------------------------------------------------------------------------------------------

#[test]
fn example_1_maximum_capture_two_on_the_left_not_one_on_the_right() {
    // Black man d4: to its left c4 then (turning down) b3, two pieces; to its right e4, one.
    let p = pos("B:Wb3,c4,e4,h2:Bd4");
    assert_eq!(legal(&p), vec![mv("d4", "b2", &["c4", "b3"])]);
    let right = p.parse_move("d4xf4");
    assert!(matches!(right, Err(MoveError::Illegal { .. })), "{right:?}");
}

#[test]
fn example_2_maximum_capture_all_five_pieces() {
    // Black man a7 zigzags down: a6, b5, c4, d3, e2 (five), ending on e1 and promoting. The
    // wrong capture turns down at a5 over a4 and stops after two.
    let p = pos("B:Wa6,b5,c4,d3,e2,a4:Ba7");
    assert_eq!(
        legal(&p),
        vec![mv("a7", "e1", &["a6", "b5", "c4", "d3", "e2"])]
    );
    let m = p.legal_moves()[0];
    assert!(m.is_promotion());
    assert_eq!(p.write_move(&m, Notation::Landing), "a7xa5xc5xc3xe3xe1=K");
    assert_eq!(p.write_move(&m, Notation::Captured), "a7xa6xb5xc4xd3xe2=K");
    assert!(p.parse_move("a7xa5xa3").is_err());
}

#[test]
fn example_3_king_takes_eight_by_two_l_shaped_paths() {
    // White king f1 and eight black pieces (black kings on rank 1). Two routes take all eight
    // and end on a1: round the rectangle f3, d5, c3, d1 either way back to f1, then g1, h3,
    // d7, a5. They are one move (same start, end and captured set).
    let p = pos("W:WKf1:Bf3,d5,c3,Kd1,Kg1,h3,d7,a5");
    let first = p.parse_move("f1xf5xc5xc1xe1xh1xh7xa7xa1").unwrap();
    let second = p.parse_move("f1xc1xc5xf5xf1xh1xh7xa7xa1").unwrap();
    assert_eq!(first, second);
    assert_eq!(
        first.captured_bits(),
        squares(&["f3", "d5", "c3", "d1", "g1", "h3", "d7", "a5"])
    );
    // Every legal move takes all eight.
    assert!(!p.legal_moves().is_empty());
    assert!(p.legal_moves().iter().all(|m| m.capture_count() == 8));
}

#[test]
fn example_4_no_reverse_direction_the_king_stops_on_a7() {
    // King h1: h3 (landing h4), f4 (landing d4), d6 (landing d7), b7 (landing a7): four. From
    // d7 the way back down the d-file to d2 is a 180-degree turn; taking d2 first and then
    // turning back up over d6 would make five, and is forbidden as well.
    let p = pos("W:WKh1:Bd2,h3,f4,d6,b7");
    assert_eq!(legal(&p), vec![mv("h1", "a7", &["h3", "f4", "d6", "b7"])]);
    let m = p.legal_moves()[0];
    assert_eq!(p.write_move(&m, Notation::Landing), "h1xh4xd4xd7xa7");
    assert_eq!(p.write_move(&m, Notation::Captured), "h1xh3xf4xd6xb7");
}

#[test]
fn example_5_capture_through_the_dama_row() {
    // Black man b3 takes b2 (landing b1 on the dama row) and the white king c1, stopping on
    // d1; it is promoted when the move ends.
    let p = pos("B:Wb2,Kc1,h4:Bb3");
    assert_eq!(legal(&p), vec![mv("b3", "d1", &["b2", "c1"])]);
    let m = p.legal_moves()[0];
    assert!(m.is_promotion());
    assert_eq!(p.write_move(&m, Notation::Landing), "b3xb1xd1=K");
}

#[test]
fn example_6_moving_onto_the_last_row_then_the_king_takes_three() {
    // Black man c2 steps to c1; it cannot take the white king d1 in that move.
    let p = pos("B:WKd1:Bc2,d6,a7,c7,e7,g7");
    assert!(!p.has_capture());
    let step = p.parse_move("c2-c1").unwrap();
    assert!(step.is_promotion() && !step.is_capture());
    let p = p.play(&step);
    // White's king must take d6, e7, g7 (three) rather than d6, c7 or c1, a7 (two each).
    assert_eq!(legal(&p), vec![mv("d1", "h7", &["d6", "e7", "g7"])]);
    let m = p.legal_moves()[0];
    assert_eq!(p.write_move(&m, Notation::Landing), "d1xd7xf7xh7");
    assert_eq!(p.write_move(&m, Notation::Captured), "d1xd6xe7xg7");
    assert!(matches!(
        p.parse_move("d1xd6xc7"),
        Err(MoveError::Illegal { .. })
    ));
    assert!(matches!(
        p.parse_move("d1xc1xa7"),
        Err(MoveError::Illegal { .. })
    ));
}

#[test]
fn example_7_moving_through_the_dama_row_by_capturing() {
    // Black man c3 takes c2 and the king d1 as a man, stopping on e1.
    let p = pos("B:Wc2,Kd1,h4:Bc3");
    assert_eq!(legal(&p), vec![mv("c3", "e1", &["c2", "d1"])]);
    let m = p.legal_moves()[0];
    assert!(m.is_promotion());
    assert_eq!(p.parse_move("c3xc2xd1"), Ok(m));
    assert_eq!(p.parse_move("c3xc1xe1=K"), Ok(m));
}

#[test]
fn example_8_equal_captures_man_or_king_may_move() {
    // Man d4 takes c4; king a8 takes a3 (landing a2 or a1): all three are legal.
    let p = pos("B:Wa3,c4:Bd4,Ka8");
    assert_eq!(
        legal(&p),
        sorted(vec![
            mv("d4", "b4", &["c4"]),
            mv("a8", "a2", &["a3"]),
            mv("a8", "a1", &["a3"]),
        ])
    );
    // The federation's texts: d4xc4 is one move; a8xa3 names two and needs its end square.
    let man = p.parse_move("d4xc4").unwrap();
    assert_eq!(man.to(), sq("b4"));
    match p.parse_move("a8xa3") {
        Err(MoveError::Ambiguous { candidates, .. }) => {
            assert_eq!(sorted(candidates), vec!["a8xa1", "a8xa2"]);
        }
        other => panic!("a8xa3 should be ambiguous: {other:?}"),
    }
    assert_eq!(p.parse_move("a8xa3>a1").unwrap().to(), sq("a1"));
}

#[test]
fn example_9_a_man_taking_more_than_the_king_must_move() {
    // Man d4 takes c4 then b3 (two); king a8 takes only a3 (one).
    let p = pos("B:Wa3,b3,c4:Bd4,Ka8");
    assert_eq!(legal(&p), vec![mv("d4", "b2", &["c4", "b3"])]);
    let m = p.parse_move("d4xc4xb3").unwrap();
    assert_eq!(p.write_move(&m, Notation::Captured), "d4xc4xb3");
    assert_eq!(p.write_move(&m, Notation::Landing), "d4xb4xb2");
    assert!(matches!(
        p.parse_move("a8xa3"),
        Err(MoveError::Illegal { .. })
    ));
}

#[test]
fn example_10_a_king_taking_more_than_the_man_must_move() {
    // King a8 takes a3 then b2 (two); man d4 takes only c4 (one). The king's second landing
    // square is c2 or d2 (black man e2 stops it; c3 covers c4 from the c-file).
    let p = pos("B:Wa3,b2,c3,c4:Bd4,e2,Ka8");
    assert_eq!(
        legal(&p),
        sorted(vec![
            mv("a8", "c2", &["a3", "b2"]),
            mv("a8", "d2", &["a3", "b2"]),
        ])
    );
    assert!(matches!(
        p.parse_move("d4xc4"),
        Err(MoveError::Illegal { .. })
    ));
    // The federation writes a8xa3xb2; here it fits both landing squares.
    assert!(matches!(
        p.parse_move("a8xa3xb2"),
        Err(MoveError::Ambiguous { .. })
    ));
    let texts = sorted(
        p.legal_moves()
            .iter()
            .map(|m| p.write_move(m, Notation::Captured))
            .collect(),
    );
    assert_eq!(texts, vec!["a8xa3xb2>c2", "a8xa3xb2>d2"]);
}

// ---------------------------------------------------------------------------------------------
// Seed 000 section 10, notation examples
// ---------------------------------------------------------------------------------------------

/// Reads `text` in `fen`, checks it names the move from `from` to `to`, and that the move is
/// written back as `text` in landing notation.
fn round_trip(fen: &str, text: &str, from: &str, to: &str) {
    let p = pos(fen);
    let m = p
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{text} in {fen}: {e}"));
    assert_eq!((m.from(), m.to()), (sq(from), sq(to)), "{text}");
    assert_eq!(p.write_move(&m, Notation::Landing), text);
}

#[test]
fn seed_000_simple_move_e3_e4() {
    round_trip("startpos", "e3-e4", "e3", "e4");
}

#[test]
fn seed_000_sideways_move_d4_e4() {
    round_trip("W:Wd4:Bh7", "d4-e4", "d4", "e4");
}

#[test]
fn seed_000_single_capture_d4xd6() {
    round_trip("W:Wd4:Bd5,h7", "d4xd6", "d4", "d6");
}

#[test]
fn seed_000_multi_capture_d4xd6xf6_and_b3xd3xd5() {
    round_trip("W:Wd4:Bd5,e6,h7", "d4xd6xf6", "d4", "f6");
    round_trip("W:Wb3:Bc3,d4,h7", "b3xd3xd5", "b3", "d5");
}

#[test]
fn seed_000_king_long_range_move_a1_a7() {
    round_trip("W:WKa1:Bh6", "a1-a7", "a1", "a7");
}

#[test]
fn seed_000_promotion_c7_c8_and_d7_d8() {
    round_trip("W:Wc7:Bh5", "c7-c8=K", "c7", "c8");
    round_trip("W:Wd7:Bh5", "d7-d8=K", "d7", "d8");
}

#[test]
fn seed_000_capture_with_promotion() {
    // Seed 000 writes `c7xc8=K`, but a jump covers two squares and a man on rank 7 can only
    // reach rank 8 by a step, so a capture from c7 never lands on c8. A capture from c6 over
    // c7 lands on c8 and promotes; it is written c6xc8=K.
    round_trip("W:Wc6:Bc7,h5", "c6xc8=K", "c6", "c8");
    // In a position with a capture elsewhere, `c7xc8=K` names no legal move.
    let p = pos("W:Wc7,e4:Be5,h5");
    assert!(matches!(
        p.parse_move("c7xc8=K"),
        Err(MoveError::Illegal { .. })
    ));
}

#[test]
fn seed_000_game_record_opening() {
    // "1. d3-d4 d6-d5 2. c3-c4 e6-e5 3. c4xc6 d7xd5" shows the format only: after 1... d6-d5
    // White must capture, d4 taking d5 (landing on d6, emptied by Black's move) and d7
    // (landing on d8, where it is promoted). So 2. c3-c4 is rejected with that move listed.
    let mut p = Position::start();
    for text in ["d3-d4", "d6-d5"] {
        let m = p.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(p.write_move(&m, Notation::Landing), text);
        p = p.play(&m);
    }
    match p.parse_move("c3-c4") {
        Err(MoveError::Illegal { legal, .. }) => assert_eq!(legal, vec!["d4xd6xd8=K"]),
        other => panic!("c3-c4: {other:?}"),
    }
}
