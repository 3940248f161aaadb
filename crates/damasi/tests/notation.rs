//! Move notation: writing both styles, reading every accepted form, and the errors.
//! Expected texts were written by hand from docs/rules.md ("Notation") and the positions drawn in
//! the comments.

use damasi::{Move, MoveError, Notation, Position, Square};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

fn parse(p: &Position, text: &str) -> Move {
    p.parse_move(text)
        .unwrap_or_else(|e| panic!("{text} in {p}: {e}"))
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn all_written(p: &Position, notation: Notation) -> Vec<String> {
    sorted(
        p.legal_moves()
            .iter()
            .map(|m| p.write_move(m, notation))
            .collect(),
    )
}

/// White man b3 takes c3, d4, c5: b3 -> d3 -> d5 -> b5 (east, north, west).
const U_TURN: &str = "W:Wb3:Bc3,d4,c5,h7";
/// Black man d4 takes c4 (one) or king a8 takes a3 landing on a2 or a1 (seed 001, Example 8).
const EXAMPLE_8: &str = "B:Wa3,c4:Bd4,Ka8";
/// White king a1 takes a3, goes straight on over a6, lands on a7 or a8.
const STRAIGHT_ON: &str = "W:WKa1:Ba3,a6,h7";
/// White king c3 goes round c5, e6, f4, d3 either way (see tests/rules.rs).
const LOOP: &str = "W:WKc3:Bc5,d3,e6,f4";

#[test]
fn quiet_moves_are_from_dash_to_in_both_styles() {
    let p = Position::start();
    let m = parse(&p, "e3-e4");
    assert_eq!(p.write_move(&m, Notation::Landing), "e3-e4");
    assert_eq!(p.write_move(&m, Notation::Captured), "e3-e4");
    let p = pos("W:WKa1:Bh6");
    let m = parse(&p, "a1-a7");
    assert_eq!(p.write_move(&m, Notation::Captured), "a1-a7");
}

#[test]
fn landing_notation_lists_every_landing_square() {
    let p = pos(U_TURN);
    assert_eq!(all_written(&p, Notation::Landing), vec!["b3xd3xd5xb5"]);
}

#[test]
fn captured_notation_lists_captured_squares_in_capture_order() {
    let p = pos(U_TURN);
    assert_eq!(all_written(&p, Notation::Captured), vec!["b3xc3xd4xc5"]);
    let m = parse(&p, "b3xd3xd5xb5");
    let order: Vec<String> = p.capture_order(&m).iter().map(|s| s.to_string()).collect();
    assert_eq!(order, ["c3", "d4", "c5"]);
}

#[test]
fn route_gives_start_and_landing_squares() {
    let p = pos(U_TURN);
    let m = parse(&p, "b3xb5");
    assert_eq!(p.route(&m), [sq("b3"), sq("d3"), sq("d5"), sq("b5")]);
    let p = Position::start();
    let m = parse(&p, "a3-a4");
    assert_eq!(p.route(&m), [sq("a3"), sq("a4")]);
    // Straight on: the stop is the square right behind the first captured piece.
    let p = pos(STRAIGHT_ON);
    let m = parse(&p, "a1xa8");
    assert_eq!(p.route(&m), [sq("a1"), sq("a4"), sq("a8")]);
}

#[test]
fn captured_notation_adds_the_end_square_only_when_needed() {
    let p = pos(EXAMPLE_8);
    assert_eq!(
        all_written(&p, Notation::Captured),
        vec!["a8xa3>a1", "a8xa3>a2", "d4xc4"]
    );
    assert_eq!(
        all_written(&p, Notation::Landing),
        vec!["a8xa1", "a8xa2", "d4xb4"]
    );
}

#[test]
fn king_going_straight_on_is_written_with_the_square_behind_the_piece() {
    let p = pos(STRAIGHT_ON);
    assert_eq!(
        all_written(&p, Notation::Landing),
        vec!["a1xa4xa7", "a1xa4xa8"]
    );
    assert_eq!(
        all_written(&p, Notation::Captured),
        vec!["a1xa3xa6>a7", "a1xa3xa6>a8"]
    );
}

#[test]
fn any_stop_on_a_straight_stretch_is_read() {
    let p = pos(STRAIGHT_ON);
    let m = parse(&p, "a1xa4xa7");
    assert_eq!(parse(&p, "a1xa5xa7"), m);
    assert_eq!(parse(&p, "a1xa7"), m);
    // a6 is the second captured piece, a2 is before the first: not stops.
    for bad in ["a1xa6xa7", "a1xa2xa7", "a1xa8xa7"] {
        assert!(
            matches!(p.parse_move(bad), Err(MoveError::Illegal { .. })),
            "{bad}"
        );
    }
}

#[test]
fn short_forms_separators_case_and_spaces() {
    let p = pos(U_TURN);
    let m = parse(&p, "b3xd3xd5xb5");
    for text in [
        "b3xb5",
        "b3-b5",
        "b3:b5",
        "b3xd5xb5",
        "b3xd3xb5",
        "B3XD3XD5XB5",
        "b3:d3:d5:b5",
        "b3-d3-d5-b5",
        "b3×d3×d5×b5",
        "  b3xd3xd5xb5 \n",
        "\tb3xb5",
        "b3xc3xd4xc5",
        "b3xc5xc3xd4",
        "b3xd4xc5xc3",
        "b3xc3xd4xc5>b5",
    ] {
        assert_eq!(p.parse_move(text), Ok(m), "{text}");
    }
    // Landing squares out of order are not a route.
    assert!(p.parse_move("b3xd5xd3xb5").is_err());
}

#[test]
fn promotion_mark_is_optional_but_must_be_right() {
    let p = pos("W:Wc7:Bh5");
    let m = parse(&p, "c7-c8=K");
    assert!(m.is_promotion());
    assert_eq!(parse(&p, "c7-c8"), m);
    assert_eq!(parse(&p, "C7-C8=k"), m);
    assert_eq!(p.write_move(&m, Notation::Landing), "c7-c8=K");
    assert_eq!(p.write_move(&m, Notation::Captured), "c7-c8=K");
    // A sideways step is no promotion.
    assert!(matches!(
        p.parse_move("c7-d7=K"),
        Err(MoveError::Illegal { .. })
    ));
    // Promotion by capture, and after a captured-square text.
    let p = pos("W:Wc6:Bc7,h5");
    let m = parse(&p, "c6xc8=K");
    assert_eq!(p.write_move(&m, Notation::Captured), "c6xc7=K");
    assert_eq!(parse(&p, "c6xc7=K"), m);
    assert_eq!(parse(&p, "c6xc7>c8=K"), m);
}

#[test]
fn ambiguous_text_lists_the_candidates() {
    let p = pos(EXAMPLE_8);
    match p.parse_move("a8xa3") {
        Err(MoveError::Ambiguous { text, candidates }) => {
            assert_eq!(text, "a8xa3");
            assert_eq!(sorted(candidates.clone()), vec!["a8xa1", "a8xa2"]);
            // Each candidate reads back unambiguously.
            for c in candidates {
                assert!(p.parse_move(&c).is_ok(), "{c}");
            }
        }
        other => panic!("expected Ambiguous, got {other:?}"),
    }
    let e = p.parse_move("a8xa3").unwrap_err().to_string();
    assert!(e.contains("ambiguous") && e.contains("a8xa1") && e.contains("a8xa2"));
}

#[test]
fn end_square_after_gt_disambiguates() {
    let p = pos(EXAMPLE_8);
    assert_eq!(parse(&p, "a8xa3>a1").to(), sq("a1"));
    assert_eq!(parse(&p, "a8xa3>a2").to(), sq("a2"));
    assert_eq!(parse(&p, " a8xa3 > a1 ").to(), sq("a1"));
    // An explicit end square is allowed where it is not needed, but must be right.
    assert_eq!(parse(&p, "d4xc4>b4").to(), sq("b4"));
    assert!(matches!(
        p.parse_move("a8xa3>a4"),
        Err(MoveError::Illegal { .. })
    ));
    assert!(matches!(
        p.parse_move("d4xc4>a4"),
        Err(MoveError::Illegal { .. })
    ));
}

#[test]
fn illegal_text_lists_every_legal_move() {
    let p = Position::start();
    match p.parse_move("d3-d5") {
        Err(MoveError::Illegal { text, legal }) => {
            assert_eq!(text, "d3-d5");
            let expected: Vec<String> = "abcdefgh".chars().map(|f| format!("{f}3-{f}4")).collect();
            assert_eq!(sorted(legal), expected);
        }
        other => panic!("expected Illegal, got {other:?}"),
    }
    // A quiet move when a capture is forced.
    let p = pos("W:Wd4,a2:Bd5,h7");
    match p.parse_move("a2-a3") {
        Err(MoveError::Illegal { legal, .. }) => assert_eq!(legal, vec!["d4xd6"]),
        other => panic!("expected Illegal, got {other:?}"),
    }
    // Backward, diagonal and too-long steps of a man.
    let p = pos("W:Wd4:Bh7");
    for bad in ["d4-d3", "d4-e5", "d4-c3", "d4-d6", "d4xd6"] {
        assert!(
            matches!(p.parse_move(bad), Err(MoveError::Illegal { .. })),
            "{bad}"
        );
    }
}

#[test]
fn text_that_is_no_move_is_a_syntax_error() {
    let p = Position::start();
    let long = "d3-d4".repeat(1000);
    for bad in [
        "",
        "   ",
        "d3",
        "d3d4",
        "d3 d4",
        "d3--d4",
        "d3-",
        "-d3-d4",
        "d9-d4",
        "i3-i4",
        "d3-d4=Q",
        "d3-d4=",
        "a8xa3>",
        "a8xa3>a1>a2",
        "d3-d4x",
        "ä1-a2",
        "d3\u{200b}-d4",
        "hello",
        "1. d3-d4",
        long.as_str(),
    ] {
        assert!(
            matches!(p.parse_move(bad), Err(MoveError::Syntax { .. })),
            "{bad:?}: {:?}",
            p.parse_move(bad)
        );
    }
    // The error names the text and what is wrong.
    let e = p.parse_move("d3-z4").unwrap_err().to_string();
    assert!(e.contains("'d3-z4'") && e.contains("z4"), "{e}");
}

#[test]
fn king_loop_routes_read_as_one_move_and_ending_on_the_start_square() {
    let p = pos(LOOP);
    let cw = parse(&p, "c3xc6xf6xf3xc3");
    let ccw = parse(&p, "c3xf3xf6xc6xc3");
    assert_eq!(cw, ccw);
    assert_eq!(parse(&p, "c3xc3"), cw);
    assert_eq!(parse(&p, "c3-c3"), cw);
    // Written with the first route in the fixed order (north first).
    assert_eq!(p.write_move(&cw, Notation::Landing), "c3xc6xf6xf3xc3");
    // The end square is needed in captured-square notation: six ends share the set.
    assert_eq!(p.write_move(&cw, Notation::Captured), "c3xc5xe6xf4xd3>c3");
    assert!(matches!(
        p.parse_move("c3xc5xe6xf4xd3"),
        Err(MoveError::Ambiguous { candidates, .. }) if candidates.len() == 6
    ));
}

#[test]
fn every_written_move_reads_back_in_sample_positions() {
    for fen in [
        "startpos",
        U_TURN,
        EXAMPLE_8,
        STRAIGHT_ON,
        LOOP,
        "W:WKf1:Bf3,d5,c3,Kd1,Kg1,h3,d7,a5",
        "W:WKa7:Ba2,a5,d3,e5,Kb8",
        "W:WKh4:Bc3,c4,a2,Kb1",
        "B:Wa3,b2,c3,c4:Bd4,e2,Ka8",
        "W:WKd4,Ka1:BKd6,Kd2,Kb7,Kh8",
    ] {
        let p = pos(fen);
        for m in p.legal_moves().iter() {
            for notation in [Notation::Landing, Notation::Captured] {
                let text = p.write_move(m, notation);
                assert_eq!(p.parse_move(&text), Ok(*m), "{fen}: {text}");
            }
        }
    }
}
