//! Perft beyond the quick start-position test: the deep start-position counts of docs/rules.md
//! (ignored by default; run with `cargo test -p damasi --test perft_deep -- --ignored`), and
//! small positions whose counts were worked out by hand.

use damasi::{perft_parallel, perft_with, Counting, Position};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[test]
#[ignore = "about 20 s of CPU time; run with --ignored"]
fn start_position_depth_8_moves_and_routes() {
    let start = Position::start();
    assert_eq!(
        perft_parallel(&start, 8, Counting::Moves, threads()),
        123_285_642
    );
    assert_eq!(
        perft_parallel(&start, 8, Counting::Routes, threads()),
        123_290_300
    );
}

#[test]
#[ignore = "about 3 min of CPU time; run with --ignored"]
fn start_position_depth_9_moves() {
    assert_eq!(
        perft_parallel(&Position::start(), 9, Counting::Moves, threads()),
        1_454_012_156
    );
}

#[test]
fn two_lone_kings() {
    // King a1 has 7 + 7 moves. King h8 then has 14, except when White stands on h1 or a8
    // (13: one square of its lines is taken, and a piece on the edge cannot be jumped).
    let p = pos("W:WKa1:BKh8");
    assert_eq!(perft_with(&p, 1, Counting::Moves), 14);
    assert_eq!(perft_with(&p, 2, Counting::Moves), 12 * 14 + 2 * 13);
    assert_eq!(perft_with(&p, 2, Counting::Routes), 12 * 14 + 2 * 13);
}

#[test]
fn position_without_a_reply_has_no_children() {
    // King d4 must take d6 (landing d7 or d8); Black then has no piece and no move.
    let p = pos("W:WKd4:Bd6");
    assert_eq!(perft_with(&p, 1, Counting::Moves), 2);
    assert_eq!(perft_with(&p, 2, Counting::Moves), 0);
    assert_eq!(perft_with(&p, 3, Counting::Routes), 0);
}

#[test]
fn straight_on_stops_count_once_as_moves_and_separately_as_routes() {
    // King a1 takes a3 and a6 (stop a4 or a5, end a7 or a8): 2 moves, 4 routes. Black's man
    // h7 then has h6 and g7.
    let p = pos("W:WKa1:Ba3,a6,h7");
    assert_eq!(perft_with(&p, 1, Counting::Moves), 2);
    assert_eq!(perft_with(&p, 1, Counting::Routes), 4);
    assert_eq!(perft_with(&p, 2, Counting::Moves), 2 * 2);
    assert_eq!(perft_with(&p, 2, Counting::Routes), 4 * 2);
}

#[test]
fn king_loop_counts_six_moves_and_seven_routes() {
    // See tests/rules.rs: six end squares, c3 reached both ways round.
    let p = pos("W:WKc3:Bc5,d3,e6,f4");
    assert_eq!(perft_with(&p, 1, Counting::Moves), 6);
    assert_eq!(perft_with(&p, 1, Counting::Routes), 7);
    assert_eq!(perft_with(&p, 2, Counting::Moves), 0);
}

#[test]
fn two_men_far_apart() {
    // White a2: a3, b2. Black h7: h6, g7. Then a3: a4, b3 and b2: b3, a2, c2 (5 two-step
    // paths); h6: h5, g6 and g7: g6, f7, h7 (5). The men never meet within four plies.
    let p = pos("W:Wa2:Bh7");
    let expected = [2, 2 * 2, 2 * 5, 5 * 5];
    for (depth, &n) in (1..).zip(expected.iter()) {
        assert_eq!(perft_with(&p, depth, Counting::Moves), n, "depth {depth}");
        assert_eq!(perft_with(&p, depth, Counting::Routes), n, "depth {depth}");
    }
}
