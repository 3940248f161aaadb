//! Invariants over random legal games (proptest), from the start position and from random
//! valid positions: the incremental Zobrist key equals the recomputed one, FEN round-trips,
//! every move written in either notation reads back as itself, perft by moves never exceeds
//! perft by routes, the bulk move count equals the list length, played moves do what they
//! say, and the legal moves and routes agree with a slow reference generator written here
//! straight from docs/rules.md.

use std::collections::BTreeSet;

use damasi::{perft_with, Color, Counting, Move, Notation, Piece, Position, Role, Square};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// A move by identity: from, to, captured squares, promotion.
type Id = (Square, Square, u64, bool);

/// (file, rank) steps of the four directions.
const DIRS: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

fn step(sq: Square, (df, dr): (i8, i8)) -> Option<Square> {
    let f = sq.file() as i8 + df;
    let r = sq.rank() as i8 + dr;
    if (0..8).contains(&f) && (0..8).contains(&r) {
        Square::from_coords(f as u8, r as u8)
    } else {
        None
    }
}

/// The slow reference: every capture route by plain recursion over a board array (captured
/// pieces removed at once, no 180-degree turn, men forward or sideways, kings flying), the
/// longest kept; quiet moves when there is none. Returns the moves and the number of routes.
fn reference_moves(p: &Position) -> (BTreeSet<Id>, usize) {
    let us = p.side_to_move();
    let mut board: [Option<Piece>; 64] = [None; 64];
    for (sq, pc) in p.pieces() {
        board[sq.index()] = Some(pc);
    }
    let far_rank = if us == Color::White { 7 } else { 0 };
    let forward: (i8, i8) = if us == Color::White { (0, 1) } else { (0, -1) };
    let man_dirs = [forward, (1, 0), (-1, 0)];
    let mut routes: Vec<Id> = Vec::new();

    #[allow(clippy::too_many_arguments)]
    fn walk(
        board: &mut [Option<Piece>; 64],
        us: Color,
        from: Square,
        at: Square,
        is_king: bool,
        dirs: &[(i8, i8)],
        last: Option<(i8, i8)>,
        captured: u64,
        far_rank: u8,
        out: &mut Vec<Id>,
    ) {
        let mut extended = false;
        for &d in dirs {
            if last == Some((-d.0, -d.1)) {
                continue;
            }
            let mut victim = step(at, d);
            if is_king {
                while let Some(v) = victim {
                    if board[v.index()].is_some() {
                        break;
                    }
                    victim = step(v, d);
                }
            }
            let Some(v) = victim else { continue };
            match board[v.index()] {
                Some(pc) if pc.color != us => {}
                _ => continue,
            }
            let mut land = step(v, d);
            while let Some(l) = land {
                if board[l.index()].is_some() {
                    break;
                }
                extended = true;
                let taken = board[v.index()].take();
                walk(
                    board,
                    us,
                    from,
                    l,
                    is_king,
                    dirs,
                    Some(d),
                    captured | v.bit(),
                    far_rank,
                    out,
                );
                board[v.index()] = taken;
                if !is_king {
                    break;
                }
                land = step(l, d);
            }
        }
        if !extended && captured != 0 {
            out.push((from, at, captured, !is_king && at.rank() == far_rank));
        }
    }

    for (from, pc) in p.pieces().filter(|(_, pc)| pc.color == us) {
        let is_king = pc.role == Role::King;
        let dirs: &[(i8, i8)] = if is_king { &DIRS } else { &man_dirs };
        board[from.index()] = None;
        walk(
            &mut board,
            us,
            from,
            from,
            is_king,
            dirs,
            None,
            0,
            far_rank,
            &mut routes,
        );
        board[from.index()] = Some(pc);
    }
    let best = routes.iter().map(|r| r.2.count_ones()).max().unwrap_or(0);
    if best > 0 {
        routes.retain(|r| r.2.count_ones() == best);
        let n = routes.len();
        return (routes.into_iter().collect(), n);
    }
    let mut quiet = BTreeSet::new();
    for (from, pc) in p.pieces().filter(|(_, pc)| pc.color == us) {
        let is_king = pc.role == Role::King;
        let dirs: &[(i8, i8)] = if is_king { &DIRS } else { &man_dirs };
        for &d in dirs {
            let mut to = step(from, d);
            while let Some(t) = to {
                if board[t.index()].is_some() {
                    break;
                }
                quiet.insert((from, t, 0, !is_king && t.rank() == far_rank));
                if !is_king {
                    break;
                }
                to = step(t, d);
            }
        }
    }
    let n = quiet.len();
    (quiet, n)
}

fn id_of(m: &Move) -> Id {
    (m.from(), m.to(), m.captured_bits(), m.is_promotion())
}

/// Replays the route `p.route(m)` square by square, checking each leg against the rules: one
/// line, exactly one enemy piece jumped (still on the board), only empty squares crossed,
/// a man's leg two squares forward or sideways, no 180-degree turn; and that the legs take
/// exactly the move's captured set.
fn check_route(p: &Position, m: &Move) -> Result<(), TestCaseError> {
    let route = p.route(m);
    let us = p.side_to_move();
    let is_king = p.kings() & m.from().bit() != 0;
    let mut occupied = !p.empty() & !m.from().bit();
    let mut taken = 0u64;
    let mut last: Option<(i8, i8)> = None;
    for leg in route.windows(2) {
        let (a, b) = (leg[0], leg[1]);
        let df = b.file() as i8 - a.file() as i8;
        let dr = b.rank() as i8 - a.rank() as i8;
        prop_assert!(df == 0 || dr == 0, "leg {}-{} of {} not on a line", a, b, p);
        let d = (df.signum(), dr.signum());
        prop_assert!(
            last != Some((-d.0, -d.1)),
            "180-degree turn at {} in {}",
            a,
            p
        );
        if !is_king {
            prop_assert_eq!(df.abs() + dr.abs(), 2);
            prop_assert!(us == Color::White && dr >= 0 || us == Color::Black && dr <= 0);
        }
        let mut crossed = Vec::new();
        let mut s = step(a, d).unwrap();
        while s != b {
            crossed.push(s);
            s = step(s, d).unwrap();
        }
        let pieces: Vec<Square> = crossed
            .into_iter()
            .filter(|s| occupied & s.bit() != 0)
            .collect();
        prop_assert_eq!(pieces.len(), 1, "leg {}-{} of {}", a, b, p);
        prop_assert!(p.pieces_of(!us) & pieces[0].bit() != 0);
        prop_assert!(occupied & b.bit() == 0, "lands on a piece at {}", b);
        occupied &= !pieces[0].bit();
        taken |= pieces[0].bit();
        last = Some(d);
    }
    prop_assert_eq!(taken, m.captured_bits(), "route of {:?} in {}", m, p);
    Ok(())
}

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

    let (reference, reference_routes) = reference_moves(p);
    let ids: BTreeSet<Id> = legal.iter().map(id_of).collect();
    prop_assert_eq!(&ids, &reference, "legal moves of {}", p);
    prop_assert_eq!(
        perft_with(p, 1, Counting::Routes),
        reference_routes as u64,
        "routes of {}",
        p
    );

    for m in legal.iter() {
        if m.is_capture() {
            check_route(p, m)?;
        }
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
