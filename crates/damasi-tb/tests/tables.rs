//! The tables up to four pieces against hand analysis, symmetry, their own moves and a second,
//! independent solver.

mod common;

use std::collections::HashMap;

use damasi::{Color, Piece, Position, Role, Square, Wdl};
use damasi_tb::{
    signature_stats, verify_distances, verify_table, Placement, ProbeError, Signature,
};

use common::{tables, value};

#[test]
fn two_kings_against_one_king_draw_in_the_open() {
    // A lone flying king in the open always has a square off the two kings' lines: a draw.
    // Only a capture on the board or a king shut in at the edge loses (440 of the 124,992
    // placements; one is in `distances_to_conversion_by_hand_and_over_every_table`).
    for fen in [
        "W:WKa1,Kb2:BKh8",
        "B:WKa1,Kb2:BKh8",
        "W:WKd4,Ke5:BKa8",
        "W:WKc3,Kf6:BKh1",
        "B:WKa8,Kb7:BKd1",
    ] {
        assert_eq!(value(fen), Wdl::Draw, "{fen}");
    }
    // d4 takes d6 (landing d7 or d8): Black has no piece left.
    assert_eq!(value("W:WKd4,Ka1:BKd6"), Wdl::Win);
    // Black to move takes the king on b5 and is left king against king: a draw, not a win.
    assert_eq!(value("B:WKb5,Kh1:BKb8"), Wdl::Draw);
    // Black's e8 takes e4 (landing e3, e2 or e1): one piece each, a draw.
    assert_eq!(value("B:WKe4,Kh1:BKe8"), Wdl::Draw);
}

#[test]
fn three_kings_against_one_king_win() {
    for fen in [
        "W:WKa1,Kb2,Kc3:BKh8",
        "W:WKa1,Kb1,Kc1:BKe5",
        "W:WKd4,Kd5,Ke4:BKa8",
    ] {
        assert_eq!(value(fen), Wdl::Win, "{fen}");
        // The same positions with the lone king to move lose for it (no capture on the board).
        let black = fen.replacen('W', "B", 1);
        assert_eq!(value(&black), Wdl::Loss, "{black}");
    }
    // ... unless the lone king captures first: h4 takes d4 and lands on c4 (a4 and b4 would be
    // taken back by a1 or b1), leaving two kings against one out of reach: a draw.
    assert_eq!(value("B:WKd4,Ka1,Kb1:BKh4"), Wdl::Draw);
}

#[test]
fn one_piece_each_is_a_draw_even_with_a_capture() {
    for fen in ["W:WKd4:BKd6", "W:Wd4:Bd5", "B:Wa7:BKh1", "W:WKa1:Bh2"] {
        assert_eq!(value(fen), Wdl::Draw, "{fen}");
    }
}

#[test]
fn a_blocked_side_loses_and_a_mutual_block_needs_more_pieces() {
    // The man on a7 cannot step to a8 (occupied), cannot capture a8 (no square behind it),
    // and cannot take b7 because c7 is occupied: White has no move and loses.
    assert_eq!(value("W:Wa7:BKa8,b7,c7"), Wdl::Loss);
    // Black to move there plays on; White is not lost before it is to move.
    assert_ne!(value("B:Wa7:BKa8,b7,c7"), Wdl::Loss);
    // A mutual block (both sides without a move: a draw, RULES.md) needs more pieces than
    // these tables hold: every man that is blocked needs its front square taken by a piece
    // that cannot be captured, which on an open board takes a wall of pieces. Checked here
    // over every placement of three and four pieces.
    for n in 3..=4 {
        for sig in Signature::all_with(n) {
            let ix = tables().table(sig).unwrap().indexer();
            for i in 0..ix.size() {
                let Some(p) = ix.decode(i) else { continue };
                let pos = p.to_position().unwrap();
                assert!(
                    pos.has_legal_move() || pos.with_side_to_move(Color::Black).has_legal_move(),
                    "mutual block {}",
                    pos.to_fen()
                );
            }
        }
    }
}

/// `pos` with colours exchanged and the board turned upside down (the same game).
fn colour_flipped(pos: &Position) -> Position {
    let pieces = pos.pieces().map(|(sq, p)| {
        let sq = Square::new(sq.index() as u8 ^ 56).unwrap();
        (
            sq,
            Piece {
                color: !p.color,
                role: p.role,
            },
        )
    });
    Position::from_pieces(pieces, !pos.side_to_move()).unwrap()
}

/// `pos` mirrored left to right.
fn mirrored(pos: &Position) -> Position {
    let pieces = pos
        .pieces()
        .map(|(sq, p)| (Square::from_coords(7 - sq.file(), sq.rank()).unwrap(), p));
    Position::from_pieces(pieces, pos.side_to_move()).unwrap()
}

#[test]
fn colour_flip_and_mirror_keep_the_value() {
    let tb = tables();
    for sig in tb.signatures() {
        let ix = tb.table(sig).unwrap().indexer();
        // A sample of each table: every 97th entry.
        for i in (0..ix.size()).step_by(97) {
            let Some(p) = ix.decode(i) else { continue };
            let pos = p.to_position().unwrap();
            let v = tb.probe(&pos).unwrap();
            assert_eq!(
                tb.probe(&colour_flipped(&pos)).unwrap(),
                v,
                "{}",
                pos.to_fen()
            );
            assert_eq!(tb.probe(&mirrored(&pos)).unwrap(), v, "{}", pos.to_fen());
        }
    }
}

#[test]
fn a_placement_probes_as_its_position_and_a_non_position_is_an_error() {
    let tb = tables();
    // Black to move is probed as the colour flip, which is what `Placement::of` gives.
    for (fen, want) in [
        ("W:WKa1,Kh1:BKa8", Wdl::Win),
        ("B:WKd4,Ka1:BKd6", Wdl::Draw),
        ("W:WKa1,Kb2:BKh8", Wdl::Draw),
    ] {
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(
            tb.probe_placement(&Placement::of(&pos)).unwrap(),
            want,
            "{fen}"
        );
    }
    let p = Placement::of(&Position::from_fen("W:Wd4,Ka1:BKh8").unwrap());
    let shared_square = Placement {
        wk: p.wk | p.wm,
        ..p
    };
    let man_on_an_edge = Placement {
        wm: p.wm | 1 << 63 | 1,
        ..p
    };
    for q in [shared_square, man_on_an_edge] {
        let e = tb.probe_placement(&q).unwrap_err();
        assert!(
            matches!(e, ProbeError::NotAPosition(r) if r == q),
            "{q:?}: {e}"
        );
        assert!(e.to_string().starts_with("not a position"), "{e}");
    }
}

#[test]
fn every_stored_value_is_the_best_over_its_moves() {
    let tb = tables();
    for sig in tb.signatures() {
        let v = verify_table(tb, sig).unwrap();
        assert!(v.checked > 0, "{sig}");
        assert_eq!(v.mismatch_count, 0, "{sig}: {:?}", v.mismatches);
    }
}

#[test]
fn distances_to_conversion_by_hand_and_over_every_table() {
    let tb = tables();
    let dtc = |fen: &str| tb.probe_dtc(&Position::from_fen(fen).unwrap()).unwrap();
    // h1-h8 shuts the lone king in on a8: every square it can go to, the other king takes
    // it. White's move, Black's move, the capture: three plies, and no quicker win (no
    // capture now, and no king move of White's takes at once).
    assert_eq!(value("W:WKa1,Kh1:BKa8"), Wdl::Win);
    assert_eq!(dtc("W:WKa1,Kh1:BKa8"), Some(3));
    // Black to move after h1-h8: one move, then the capture.
    assert_eq!(dtc("B:WKa1,Kh8:BKa8"), Some(2));
    // A capture on the board converts at once; a blocked side has lost already.
    assert_eq!(dtc("W:WKd4,Ka1:BKd6"), Some(1));
    assert_eq!(dtc("W:Wa7:BKa8,b7,c7"), Some(0));
    // Draws have no distance.
    assert_eq!(dtc("W:WKa1,Kb2:BKh8"), None);
    for sig in tb.signatures() {
        let v = verify_distances(tb, sig).unwrap();
        assert_eq!(v.mismatch_count, 0, "{sig}: {:?}", v.mismatches);
    }
}

#[test]
fn statistics_count_every_placement() {
    let tb = tables();
    // Two kings against one: C(64, 2) * 62 placements.
    let s = signature_stats(tb, Signature::new(0, 2, 0, 1)).unwrap();
    assert_eq!(s.positions, 2016 * 62);
    assert_eq!(s.win + s.draw + s.loss, s.positions);
    // One king against two, White to move: C(64, 2) * 62 again.
    let s = signature_stats(tb, Signature::new(0, 1, 0, 2)).unwrap();
    assert_eq!(s.positions, 2016 * 62);
    // A white man and a black man on ranks 2..7, a white king anywhere else: 48 * 47 * 62.
    let s = signature_stats(tb, Signature::new(1, 1, 1, 0)).unwrap();
    assert_eq!(s.positions, 48 * 47 * 62);
}

#[test]
fn the_build_counts_the_statistics_that_a_recount_over_the_files_finds() {
    let tb = tables();
    let built = common::built_stats();
    assert_eq!(
        built.len(),
        Signature::all_with(3).len() + Signature::all_with(4).len()
    );
    for b in built {
        let sig = b.signature.expect("every table has its signature");
        // Counted two ways: from the builder's states (capture positions included), and
        // placement by placement through the probe.
        assert_eq!(*b, signature_stats(tb, sig).unwrap(), "{sig}");
    }
}

/// Value of a position that needs no search: the side to move has no pieces, one piece
/// each, or no legal move (a loss, a draw if the other side is blocked too).
fn terminal(pos: &Position) -> Option<Wdl> {
    let (us, them) = (pos.side_to_move(), !pos.side_to_move());
    if pos.count(us) == 0 {
        return Some(Wdl::Loss);
    }
    if pos.count(us) == 1 && pos.count(them) == 1 {
        return Some(Wdl::Draw);
    }
    if !pos.has_legal_move() {
        let other = pos.with_side_to_move(them).has_legal_move();
        return Some(if other { Wdl::Loss } else { Wdl::Draw });
    }
    None
}

/// Every position of three pieces, both sides to move, each listed once.
fn all_three_piece_positions() -> Vec<Position> {
    let kinds = [
        Piece {
            color: Color::White,
            role: Role::Man,
        },
        Piece {
            color: Color::White,
            role: Role::King,
        },
        Piece {
            color: Color::Black,
            role: Role::Man,
        },
        Piece {
            color: Color::Black,
            role: Role::King,
        },
    ];
    let mut out = Vec::new();
    for a in 0..4 {
        for b in a..4 {
            for c in b..4 {
                let trio = [kinds[a], kinds[b], kinds[c]];
                let whites = trio.iter().filter(|p| p.color == Color::White).count();
                if whites == 0 || whites == 3 {
                    continue;
                }
                for s0 in 0..64u8 {
                    for s1 in 0..64u8 {
                        for s2 in 0..64u8 {
                            // Like pieces in increasing square order, so each set is listed once.
                            if (a == b && s1 <= s0) || (b == c && s2 <= s1) {
                                continue;
                            }
                            let sq = [s0, s1, s2].map(|s| Square::new(s).unwrap());
                            let pieces = sq.into_iter().zip(trio);
                            for side in Color::BOTH {
                                if let Ok(p) = Position::from_pieces(pieces.clone(), side) {
                                    out.push(p);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// The second solver: plain forward iteration over the legal-move generator, without
/// tables, symmetry or unmoves. A position is won when a move reaches a lost position, lost
/// when every move reaches a won one; repeat until nothing changes; the rest are draws.
#[test]
fn an_independent_slow_solver_agrees_on_every_three_piece_position() {
    let positions = all_three_piece_positions();
    let id: HashMap<Position, u32> = positions
        .iter()
        .enumerate()
        .map(|(i, p)| (p.with_side_to_move(p.side_to_move()), i as u32))
        .collect();
    assert_eq!(id.len(), positions.len(), "each position listed once");
    // Successors: another three-piece position by its number, or a fixed value.
    enum Next {
        Pos(u32),
        Known(Wdl),
    }
    let mut value: Vec<Option<Wdl>> = positions.iter().map(terminal).collect();
    let next: Vec<Vec<Next>> = positions
        .iter()
        .map(|p| {
            p.legal_moves()
                .iter()
                .map(|m| {
                    let c = p.play(m);
                    match terminal(&c) {
                        Some(v) if c.count(Color::White) + c.count(Color::Black) < 3 => {
                            Next::Known(v)
                        }
                        _ => Next::Pos(id[&c]),
                    }
                })
                .collect()
        })
        .collect();
    loop {
        let mut changed = false;
        for i in 0..positions.len() {
            if value[i].is_some() {
                continue;
            }
            let mut all_won = true;
            let mut wins = false;
            for n in &next[i] {
                let v = match n {
                    Next::Known(v) => Some(*v),
                    Next::Pos(j) => value[*j as usize],
                };
                wins |= v == Some(Wdl::Loss);
                all_won &= v == Some(Wdl::Win);
            }
            if wins {
                value[i] = Some(Wdl::Win);
                changed = true;
            } else if all_won {
                value[i] = Some(Wdl::Loss);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let tb = tables();
    let mut counts = [0u64; 3];
    for (p, v) in positions.iter().zip(&value) {
        let slow = v.unwrap_or(Wdl::Draw);
        counts[slow as usize] += 1;
        assert_eq!(tb.probe(p).unwrap(), slow, "{}", p.to_fen());
    }
    // Not all draws: the solvers agree on something that matters.
    assert!(counts.iter().all(|&c| c > 10_000), "{counts:?}");
}
