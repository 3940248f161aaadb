//! One named test per rule of docs/rules.md ("Men", "Kings", "Captures", "Promotion",
//! "Move identity").
//!
//! Every expected move list was worked out by hand from the rules on the position drawn in the
//! comment above it. Moves are compared by identity (from, to, captured set), written
//! `from-to` or `fromxto{captured squares}`, so these tests do not depend on notation.

use damasi::{perft_with, Counting, Move, Position, Square};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// A move's identity as text: `d4-d5`, `d4-d5=K`, `b3xb5{c3,d4}` (captured squares a1..h8).
fn id(from: &str, to: &str, captured: &[&str], promotes: bool) -> String {
    let mut caps: Vec<Square> = captured.iter().map(|s| sq(s)).collect();
    caps.sort();
    let promo = if promotes { "=K" } else { "" };
    if caps.is_empty() {
        format!("{from}-{to}{promo}")
    } else {
        let names: Vec<String> = caps.iter().map(|s| s.to_string()).collect();
        format!("{from}x{to}{{{}}}{promo}", names.join(","))
    }
}

fn id_of(m: &Move) -> String {
    let caps: Vec<String> = m.captured().map(|s| s.to_string()).collect();
    let promo = if m.is_promotion() { "=K" } else { "" };
    if caps.is_empty() {
        format!("{}-{}{promo}", m.from(), m.to())
    } else {
        format!("{}x{}{{{}}}{promo}", m.from(), m.to(), caps.join(","))
    }
}

/// The legal moves of `p` by identity, sorted, after checking there are no duplicates.
fn legal(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().map(id_of).collect();
    let n = v.len();
    v.sort();
    v.dedup();
    assert_eq!(v.len(), n, "duplicate moves in {p}");
    v
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn quiet(from: &str, to: &str) -> String {
    id(from, to, &[], false)
}

fn cap(from: &str, to: &str, captured: &[&str]) -> String {
    id(from, to, captured, false)
}

// ---------------------------------------------------------------------------------------------
// Men
// ---------------------------------------------------------------------------------------------

#[test]
fn man_steps_forward_or_sideways_never_back_or_diagonal() {
    // White man d4 alone: d5, c4, e4; not d3, c5, e5, c3, e3.
    let p = pos("W:Wd4:Bh7");
    let w: Vec<String> = legal(&p)
        .into_iter()
        .filter(|m| m.starts_with("d4"))
        .collect();
    assert_eq!(
        w,
        sorted(vec![
            quiet("d4", "d5"),
            quiet("d4", "c4"),
            quiet("d4", "e4")
        ])
    );
    // Black men move down the board: d5 -> d4, c5, e5.
    let p = pos("B:Wa2:Bd5");
    assert_eq!(
        legal(&p),
        sorted(vec![
            quiet("d5", "d4"),
            quiet("d5", "c5"),
            quiet("d5", "e5")
        ])
    );
    // On the edge file only two moves remain.
    let p = pos("W:Wa4:Bh7");
    assert_eq!(
        legal(&p),
        sorted(vec![quiet("a4", "a5"), quiet("a4", "b4")])
    );
}

#[test]
fn man_captures_forward_and_sideways() {
    // White man d4 with black men on d5, c4, e4: three single captures.
    let p = pos("W:Wd4:Bd5,c4,e4");
    assert_eq!(
        legal(&p),
        sorted(vec![
            cap("d4", "d6", &["d5"]),
            cap("d4", "b4", &["c4"]),
            cap("d4", "f4", &["e4"]),
        ])
    );
}

#[test]
fn man_never_captures_backward_or_diagonally() {
    // Black pieces behind (d3) and on the diagonals (c5, e5, c3, e3), each with an empty
    // square beyond: White has no capture, only its three steps.
    let p = pos("W:Wd4:Bd3,c5,e5,c3,e3");
    assert!(!p.has_capture());
    assert_eq!(
        legal(&p),
        sorted(vec![
            quiet("d4", "d5"),
            quiet("d4", "c4"),
            quiet("d4", "e4")
        ])
    );
}

#[test]
fn man_jump_needs_an_empty_square_right_behind() {
    // d5 is black but d6 is taken: no capture forward; c4 is black with b4 empty: capture.
    let p = pos("W:Wd4:Bd5,d6,c4");
    assert_eq!(legal(&p), vec![cap("d4", "b4", &["c4"])]);
}

// ---------------------------------------------------------------------------------------------
// Kings
// ---------------------------------------------------------------------------------------------

#[test]
fn king_slides_any_distance_along_ranks_and_files() {
    // King d4 on an otherwise empty board (black man h7 far away): 4 + 3 + 4 + 3 = 14 moves.
    let p = pos("W:WKd4:Bh7");
    let mut expected = Vec::new();
    for to in [
        "d5", "d6", "d7", "d8", "d3", "d2", "d1", "e4", "f4", "g4", "h4", "c4", "b4", "a4",
    ] {
        expected.push(quiet("d4", to));
    }
    assert_eq!(legal(&p), sorted(expected));
    assert_eq!(p.count_legal_moves(), 14);
}

#[test]
fn king_flying_capture_lands_on_any_empty_square_beyond() {
    // King a1, black man a4 three squares away: it may land on a5, a6, a7 or a8.
    let p = pos("W:WKa1:Ba4,h6");
    assert_eq!(
        legal(&p),
        sorted(vec![
            cap("a1", "a5", &["a4"]),
            cap("a1", "a6", &["a4"]),
            cap("a1", "a7", &["a4"]),
            cap("a1", "a8", &["a4"]),
        ])
    );
}

#[test]
fn king_cannot_jump_two_adjacent_pieces() {
    // a4 and a5 stand next to each other: no capture; a2, a3 and b1..h1 remain.
    let p = pos("W:WKa1:Ba4,a5,h7");
    assert!(!p.has_capture());
    assert_eq!(p.legal_moves().len(), 2 + 7);
}

#[test]
fn king_cannot_jump_own_pieces() {
    // Own man a3 between the king and black a5: no capture. King: a2, b1..h1; man a3: a4, b3.
    let p = pos("W:WKa1,a3:Ba5,h7");
    assert!(!p.has_capture());
    assert_eq!(p.legal_moves().len(), 1 + 7 + 2);
}

// ---------------------------------------------------------------------------------------------
// Removal, turns, mandatory and maximum capture
// ---------------------------------------------------------------------------------------------

#[test]
fn captured_pieces_leave_at_once_so_a_king_crosses_their_squares() {
    //   . K . . . . . .  8      White king a7; black a5, d3, e5, king b8, a2.
    //   K . . . . . . .  7      a7 x a5 -> a3, x d3 -> e3, x e5 -> e8, x b8 -> a8, then down
    //   . . . . . . . .  6      the a-file across a7 (its start square) and a5 (captured
    //   b . . . b . . .  5      earlier) to take a2 and land on a1: five pieces. Were a5
    //   . . . . . . . .  4      still on the board, the last jump would be blocked and four
    //   . . . b . . . .  3      would be the most.
    //   b . . . . . . .  2
    let p = pos("W:WKa7:Ba2,a5,d3,e5,Kb8");
    assert_eq!(
        legal(&p),
        vec![cap("a7", "a1", &["a5", "d3", "e5", "b8", "a2"])]
    );
}

#[test]
fn removal_opens_jumps_over_former_pairs() {
    // c3 and c4 stand together, so c3 cannot be jumped at first. King h4 takes c4 (landing
    // a4), a2 (landing a1), king b1 (landing c1) and then c3, whose neighbour c4 is gone:
    // four pieces, landing anywhere from c4 (a captured piece's square) to c8.
    let p = pos("W:WKh4:Bc3,c4,a2,Kb1");
    let expected: Vec<String> = ["c4", "c5", "c6", "c7", "c8"]
        .iter()
        .map(|to| cap("h4", to, &["c4", "a2", "b1", "c3"]))
        .collect();
    assert_eq!(legal(&p), sorted(expected));
}

#[test]
fn no_180_degree_turn_between_jumps() {
    // King d4 between black d6 and d2. Taking d6 (landing d7/d8) and then turning back over
    // d2 is forbidden; from d7 it can take b7 instead. Taking d2 first and turning back over d6
    // and then b7 would take three, but is forbidden too. Most: 2, one move.
    let p = pos("W:WKd4:Bd6,d2,b7");
    assert_eq!(legal(&p), vec![cap("d4", "a7", &["d6", "b7"])]);
    // With nothing to turn to, the three single captures remain.
    let p = pos("W:WKd4:Bd6,d2");
    assert_eq!(
        legal(&p),
        sorted(vec![
            cap("d4", "d7", &["d6"]),
            cap("d4", "d8", &["d6"]),
            cap("d4", "d1", &["d2"]),
        ])
    );
}

#[test]
fn two_90_degree_turns_in_a_row_are_fine() {
    // White man b3: east over c3 to d3, north over d4 to d5, west over c5 to b5 (a U-turn
    // made of two right angles).
    let p = pos("W:Wb3:Bc3,d4,c5,h7");
    assert_eq!(legal(&p), vec![cap("b3", "b5", &["c3", "d4", "c5"])]);
}

#[test]
fn a_capture_sequence_goes_on_while_a_jump_exists() {
    // White man b3 must go on after c3 (d4 is there to take) and after d4 (c5): stopping on
    // d3 or d5 is not a move.
    let p = pos("W:Wb3:Bc3,d4,c5,h7");
    let tos: Vec<Square> = p.legal_moves().iter().map(|m| m.to()).collect();
    assert_eq!(tos, vec![sq("b5")]);
    assert!(p.parse_move("b3xd3").is_err());
    assert!(p.parse_move("b3xd3xd5").is_err());
}

#[test]
fn capture_is_mandatory() {
    // d4 can take d5; the quiet moves of a2 and d4 are not allowed.
    let p = pos("W:Wd4,a2:Bd5,h7");
    assert!(p.has_capture());
    assert_eq!(legal(&p), vec![cap("d4", "d6", &["d5"])]);
    assert_eq!(p.count_legal_moves(), 1);
}

#[test]
fn maximum_capture_counts_men_and_kings_alike_as_victims() {
    // White man d4: west over king c4 then north over b5 (2), east over e4 then north over
    // f5 (2), or forward over d5 (1). Both twos are legal (a king counts as one piece), the one
    // is not.
    let p = pos("W:Wd4:Bd5,Kc4,b5,e4,f5");
    assert_eq!(
        legal(&p),
        sorted(vec![
            cap("d4", "b6", &["c4", "b5"]),
            cap("d4", "f6", &["e4", "f5"]),
        ])
    );
}

#[test]
fn counting_without_listing_agrees_on_branching_man_captures() {
    // White d2 takes d3 and lands on d4, then has three second jumps: over d5 to d6, over e4
    // to f4, over c4 to b4 (none goes on). White a2 could take a3, one piece only: not legal.
    // Three moves, three routes; perft's leaf count (set-wise, no walk) must agree.
    let p = pos("W:Wd2,a2:Bd3,d5,e4,c4,a3");
    assert_eq!(
        legal(&p),
        sorted(vec![
            cap("d2", "d6", &["d3", "d5"]),
            cap("d2", "f4", &["d3", "e4"]),
            cap("d2", "b4", &["d3", "c4"]),
        ])
    );
    assert_eq!(p.count_legal_moves(), 3);
    assert_eq!(p.count_legal_routes(), 3);
    // Black to move in the same placement: a3 over a2 to a1 and d3 over d2 to d1, one piece
    // each (both promote).
    let q = pos("B:Wd2,a2:Bd3,d5,e4,c4,a3");
    assert_eq!(q.count_legal_moves(), 2);
    assert_eq!(q.count_legal_routes(), 2);
}

#[test]
fn maximum_capture_counts_men_and_kings_alike_as_captors() {
    // Black man d4 takes 2 (c4 then b3), black king a8 takes 1 (a3): the man must move.
    let p = pos("B:Wa3,b3,c4:Bd4,Ka8");
    assert_eq!(legal(&p), vec![cap("d4", "b2", &["c4", "b3"])]);
    // Black king a8 takes 2 (a3 then b2), the man takes 1 (c4): the king must move; its
    // second jump lands on c2 or d2 (own man e2 stops it), and c3 guards c4 from the c-file.
    let p = pos("B:Wa3,b2,c3,c4:Bd4,e2,Ka8");
    assert_eq!(
        legal(&p),
        sorted(vec![
            cap("a8", "c2", &["a3", "b2"]),
            cap("a8", "d2", &["a3", "b2"]),
        ])
    );
    // Equal numbers: the player chooses between man and king.
    let p = pos("B:Wa3,c4:Bd4,Ka8");
    assert_eq!(
        legal(&p),
        sorted(vec![
            cap("d4", "b4", &["c4"]),
            cap("a8", "a2", &["a3"]),
            cap("a8", "a1", &["a3"]),
        ])
    );
}

// ---------------------------------------------------------------------------------------------
// Promotion
// ---------------------------------------------------------------------------------------------

#[test]
fn man_reaching_far_rank_mid_capture_goes_on_as_a_man_and_promotes_at_the_end() {
    // White man c6: north over c7 to c8, then east along rank 8 over king d8 to e8 and stops.
    // As a king it could go on, back over e7 or flying over f8 to king g8; a man cannot.
    let p = pos("W:Wc6:Bc7,e7,Kd8,Kg8");
    assert_eq!(legal(&p), vec![id("c6", "e8", &["c7", "d8"], true)]);
    let m = p.legal_moves()[0];
    let after = p.play(&m);
    assert_eq!(
        after.piece_at(sq("e8")).map(|pc| pc.role),
        Some(damasi::Role::King)
    );
    // A black man the same way: c3 over c2 to c1, over king d1 to e1; the white man e4 is
    // behind it (north) and is not taken.
    let p = pos("B:Wc2,Kd1,e4:Bc3");
    assert_eq!(legal(&p), vec![id("c3", "e1", &["c2", "d1"], true)]);
}

#[test]
fn man_reaching_far_rank_with_a_quiet_move_cannot_capture_in_that_move() {
    // Black man c2 steps to c1 next to the white king d1 (e1 empty): the step ends the move.
    // (White's king b1 keeps d1 from taking c1 back.)
    let p = pos("B:WKb1,Kd1,d5:Bc2");
    assert!(!p.has_capture());
    assert_eq!(
        legal(&p),
        sorted(vec![
            id("c2", "c1", &[], true),
            quiet("c2", "b2"),
            quiet("c2", "d2")
        ])
    );
    let m = p.parse_move("c2-c1").unwrap();
    let after = p.play(&m);
    assert!(after.piece_at(sq("d1")).is_some(), "d1 is not captured");
    assert_eq!(after.side_to_move(), damasi::Color::White);
    // The man is promoted at the end of its move: on Black's next turn it is a king, which
    // flies over d1 (landing e1..h1) or b1 (landing a1).
    assert_eq!(
        after.piece_at(sq("c1")).map(|pc| pc.role),
        Some(damasi::Role::King)
    );
    let later = after.play(&after.parse_move("d5-d6").unwrap());
    assert_eq!(
        legal(&later),
        sorted(vec![
            cap("c1", "e1", &["d1"]),
            cap("c1", "f1", &["d1"]),
            cap("c1", "g1", &["d1"]),
            cap("c1", "h1", &["d1"]),
            cap("c1", "a1", &["b1"]),
        ])
    );
}

#[test]
fn quiet_promotion_on_the_far_rank() {
    let p = pos("W:Wc7:Bh5");
    assert_eq!(
        legal(&p),
        sorted(vec![
            id("c7", "c8", &[], true),
            quiet("c7", "b7"),
            quiet("c7", "d7")
        ])
    );
    // A man already on rank 7 moving sideways is not promoted.
    assert!(p
        .legal_moves()
        .iter()
        .all(|m| m.is_promotion() == (m.to() == sq("c8"))));
    // Capturing forward onto the far rank promotes too.
    let p = pos("W:Wc6:Bc7,h5");
    assert_eq!(legal(&p), vec![id("c6", "c8", &["c7"], true)]);
}

// ---------------------------------------------------------------------------------------------
// Move identity
// ---------------------------------------------------------------------------------------------

#[test]
fn king_loop_either_direction_is_one_move_and_may_end_on_its_start_square() {
    //   . . . . b . . .  6     King c3 takes c5, e6, f4, d3 clockwise (north first, ending
    //   . . b . . . . .  5     on rank 3: c3, b3, a3) or anticlockwise (east first, ending on
    //   . . . . . b . .  4     the c-file: c4, c3, c2, c1). The end c3, its own start square,
    //   . . K b . . . .  3     is reached both ways: one move, two routes.
    let p = pos("W:WKc3:Bc5,d3,e6,f4");
    let all = ["c5", "d3", "e6", "f4"];
    let expected: Vec<String> = ["c3", "b3", "a3", "c4", "c2", "c1"]
        .iter()
        .map(|to| cap("c3", to, &all))
        .collect();
    assert_eq!(legal(&p), sorted(expected));
    assert_eq!(perft_with(&p, 1, Counting::Moves), 6);
    assert_eq!(perft_with(&p, 1, Counting::Routes), 7);
    // Both directions read as the same move.
    let cw = p.parse_move("c3xc6xf6xf3xc3").unwrap();
    let ccw = p.parse_move("c3xf3xf6xc6xc3").unwrap();
    assert_eq!(cw, ccw);
    assert_eq!(cw.from(), cw.to());
}

#[test]
fn king_going_straight_on_after_different_stops_is_one_move() {
    // King a1 takes a3, stops on a4 or a5, and takes a6, landing on a7 or a8: two moves
    // (different end squares), four routes.
    let p = pos("W:WKa1:Ba3,a6,h7");
    assert_eq!(
        legal(&p),
        sorted(vec![
            cap("a1", "a7", &["a3", "a6"]),
            cap("a1", "a8", &["a3", "a6"]),
        ])
    );
    assert_eq!(perft_with(&p, 1, Counting::Routes), 4);
}

#[test]
fn different_end_squares_are_different_moves() {
    // One piece taken, four landing squares: four moves.
    let p = pos("W:WKa1:Ba4,h6");
    assert_eq!(p.legal_moves().len(), 4);
    let ends: std::collections::BTreeSet<Square> = p.legal_moves().iter().map(|m| m.to()).collect();
    assert_eq!(ends.len(), 4);
}

#[test]
fn positions_the_rules_forbid_are_rejected() {
    // A white man can never stand on rank 1 or 8, a black man never on rank 8 or 1.
    for fen in ["W:Wa1:Bh7", "W:Wa8:Bh7", "W:Wa2:Bh8", "W:Wa2:Bh1"] {
        assert!(Position::from_fen(fen).is_err(), "{fen}");
    }
    // Kings may stand anywhere.
    assert!(Position::from_fen("W:WKa1,Ka8:BKh1,Kh8").is_ok());
}

#[test]
fn start_position_has_eight_forward_steps() {
    let p = Position::start();
    let expected: Vec<String> = ["a", "b", "c", "d", "e", "f", "g", "h"]
        .iter()
        .map(|f| quiet(&format!("{f}3"), &format!("{f}4")))
        .collect();
    assert_eq!(legal(&p), sorted(expected));
}

#[test]
fn no_legal_move_when_blocked_or_without_pieces() {
    // White man a7, black kings a8 and b7, black man c7 behind b7: no step, no jump.
    let p = pos("W:Wa7:BKa8,Kb7,c7");
    assert!(!p.has_legal_move());
    assert!(p.legal_moves().is_empty());
    // A side without pieces has no move.
    let p = pos("B:Wd4:B");
    assert!(!p.has_legal_move());
}
