//! End-of-game rules (docs/rules.md, "End of the game"), one named test each, plus undo/redo and
//! rule-set names. Every expected outcome is worked out by hand from the position in the
//! comment next to it.

use damasi::{
    position_outcome, Color, DrawReason, Game, GameError, Outcome, Position, RuleSet, WinReason,
};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap()
}

fn game(fen: &str) -> Game {
    Game::from_position(pos(fen), RuleSet::default())
}

fn play(g: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        g.play_text(m)
            .unwrap_or_else(|e| panic!("{m} at ply {}: {e}", g.ply()));
    }
}

fn white_wins(reason: WinReason) -> Option<Outcome> {
    Some(Outcome::Win {
        winner: Color::White,
        reason,
    })
}

const KINGS_ONLY: RuleSet = RuleSet {
    no_capture_limit: None,
    king_beats_lone_man: true,
};

#[test]
fn win_by_capturing_all_pieces() {
    // White king a1 sees the black man a5 up the a-file: it must take it, landing on a6, a7
    // or a8. Black, to move, then has no piece left.
    let mut g = game("W:WKa1,b2:Ba5");
    assert_eq!(g.outcome(), None);
    assert_eq!(g.legal_moves().len(), 3);
    play(&mut g, "a1xa8");
    assert_eq!(g.outcome(), white_wins(WinReason::NoPieces));
    assert_eq!(
        g.outcome().unwrap().describe(),
        "Black has no pieces left: White wins"
    );
    assert!(g.legal_moves().is_empty());
}

#[test]
fn win_by_block() {
    // Black's only man, h3: h2 and g3 are taken by white men; it cannot jump h2 (h1 holds a
    // white king) nor g3 (f3 holds a white man). White can still move (f3-f4, for one).
    let p = pos("B:WKh1,h2,g3,f3:Bh3");
    assert_eq!(
        position_outcome(&p, &RuleSet::default()),
        white_wins(WinReason::Blocked)
    );
    let g = Game::from_position(p, RuleSet::default());
    assert_eq!(g.outcome(), white_wins(WinReason::Blocked));
    assert_eq!(
        g.outcome().unwrap().describe(),
        "Black is blocked: White wins"
    );
    assert!(g.legal_moves().is_empty());
}

#[test]
fn draw_by_mutual_block() {
    // Four full ranks: white men on ranks 3 and 4, black men on 5 and 6. Every man is hemmed
    // in by its own side's men sideways and the enemy's ahead, and no jump has an empty
    // landing square. White, to move, is blocked, and so would Black be: a draw (seed 000
    // 9.5), not a win for Black.
    let p = pos("W:Wa3,b3,c3,d3,e3,f3,g3,h3,a4,b4,c4,d4,e4,f4,g4,h4\
         :Ba5,b5,c5,d5,e5,f5,g5,h5,a6,b6,c6,d6,e6,f6,g6,h6");
    let draw = Outcome::Draw(DrawReason::MutualBlock);
    let expected = Some(draw);
    assert_eq!(position_outcome(&p, &RuleSet::default()), expected);
    assert_eq!(game(&p.to_fen()).outcome(), expected);
    assert_eq!(draw.describe(), "draw: both sides blocked");
    // The same placement with Black to move is a mutual block as well.
    assert_eq!(
        position_outcome(&p.with_side_to_move(Color::Black), &RuleSet::default()),
        expected
    );
}

#[test]
fn draw_one_piece_each() {
    // White's man d4 must jump the black man d5 (landing d6); that leaves a man each: a draw
    // at once.
    let mut g = game("W:Wd4:Bd5,h7");
    assert_eq!(g.outcome(), None);
    play(&mut g, "d4xd6");
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::OnePieceEach)));
    assert_eq!(g.outcome().unwrap().describe(), "draw: one piece each");
    // Kings count the same as men, and by default a king against a man is a draw too.
    for fen in ["B:WKa1:BKh8", "W:WKa1:Bh7", "W:Wa2:BKh8"] {
        assert_eq!(
            game(fen).outcome(),
            Some(Outcome::Draw(DrawReason::OnePieceEach)),
            "{fen}"
        );
    }
}

#[test]
fn king_beats_lone_man_option() {
    // The white king a1 must take a4 (landing on a5..a8), leaving king against the black man
    // h7: a draw by default, a White win with the option (seed 002).
    let mut plain = game("W:WKa1:Ba4,h7");
    play(&mut plain, "a1xa8");
    assert_eq!(
        plain.outcome(),
        Some(Outcome::Draw(DrawReason::OnePieceEach))
    );

    let mut g = Game::from_position(pos("W:WKa1:Ba4,h7"), KINGS_ONLY);
    play(&mut g, "a1xa8");
    assert_eq!(g.outcome(), white_wins(WinReason::KingBeatsLoneMan));
    assert_eq!(
        g.outcome().unwrap().describe(),
        "king against a lone man: White wins"
    );
    // Black's king against White's man wins for Black; king against king and man against man
    // stay draws under the option.
    assert_eq!(
        game("W:Wa7:BKh1").outcome(),
        Some(Outcome::Draw(DrawReason::OnePieceEach))
    );
    assert_eq!(
        Game::from_position(pos("W:Wa7:BKh1"), KINGS_ONLY).outcome(),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::KingBeatsLoneMan
        })
    );
    for fen in ["W:WKa1:BKh8", "W:Wa2:Bh7"] {
        assert_eq!(
            Game::from_position(pos(fen), KINGS_ONLY).outcome(),
            Some(Outcome::Draw(DrawReason::OnePieceEach)),
            "{fen}"
        );
    }
}

/// Two kings a side in opposite corners: no king sees an enemy piece, so every move is quiet.
const KINGS: &str = "W:WKa1,Kb1:BKg8,Kh8";

#[test]
fn draw_by_threefold_repetition_not_in_a_row() {
    let mut g = game(KINGS);
    // The start placement comes back after ply 4 (second time) ...
    play(&mut g, "a1-a2 h8-h7 a2-a1 h7-h8");
    assert_eq!(g.position(), g.initial_position());
    assert_eq!(g.outcome(), None);
    // ... and after ply 8, by another route (third time): a draw.
    play(&mut g, "b1-b2 g8-g7 b2-b1");
    assert_eq!(g.outcome(), None);
    play(&mut g, "g7-g8");
    assert_eq!(g.ply(), 8);
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    assert_eq!(
        g.outcome().unwrap().describe(),
        "draw: threefold repetition"
    );
    assert!(g.legal_moves().is_empty());
    // No move was irreversible: the engine sees all nine keys, the start's three times.
    let keys = g.repetition_keys();
    assert_eq!(keys.len(), 9);
    let start = g.initial_position().key();
    assert_eq!(keys.iter().filter(|&&k| k == start).count(), 3);
}

#[test]
fn same_placement_other_side_to_move_is_no_repetition() {
    let mut g = game(KINGS);
    // After a1-a2 h8-h7 a2-a1 the white kings are home but Black is to move: not the start.
    play(&mut g, "a1-a2 h8-h7 a2-a1 h7-h8 a1-a2 h8-h7 a2-a1");
    assert_eq!(g.outcome(), None);
    play(&mut g, "h7-h8");
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
}

#[test]
fn irreversible_move_starts_the_repetition_keys_afresh() {
    // The white man c2 stepping forward can never be undone: earlier positions are gone.
    let mut g = game("W:WKa1,c2:BKh8,Kg8");
    play(&mut g, "a1-a2 h8-h7");
    assert_eq!(g.repetition_keys().len(), 3);
    play(&mut g, "c2-c3");
    assert_eq!(g.repetition_keys(), &[g.position().key()]);
    // A sideways man step is reversible: it does not cut the list.
    play(&mut g, "h7-h8 c3-d3");
    assert_eq!(g.repetition_keys().len(), 3);
}

#[test]
fn no_capture_limit_option() {
    let limit4 = RuleSet {
        no_capture_limit: Some(4),
        king_beats_lone_man: false,
    };
    let mut g = Game::from_position(pos(KINGS), limit4);
    play(&mut g, "a1-a2 h8-h7 a2-a3");
    assert_eq!(g.outcome(), None);
    play(&mut g, "h7-h6");
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::NoCaptureLimit)));
    // Off by default.
    let mut plain = game(KINGS);
    play(&mut plain, "a1-a2 h8-h7 a2-a3 h7-h6");
    assert_eq!(plain.outcome(), None);
}

#[test]
fn capture_resets_the_no_capture_count() {
    // Limit 3. Black h6-h5 (1 ply without capture); the white king a1 takes a5 (count back to
    // 0; it cannot go on: ranks 6, 7 and 8 hold no black piece it can jump); then three quiet
    // plies reach the limit.
    let limit3 = RuleSet {
        no_capture_limit: Some(3),
        king_beats_lone_man: false,
    };
    let mut g = Game::from_position(pos("B:WKa1,b2:Ba5,h6,Kh8"), limit3);
    play(&mut g, "h6-h5");
    assert_eq!(g.plies_without_capture(), 1);
    play(&mut g, "a1xa7");
    assert_eq!(g.plies_without_capture(), 0);
    play(&mut g, "h5-g5 b2-b3");
    assert_eq!(g.plies_without_capture(), 2);
    assert_eq!(g.outcome(), None);
    play(&mut g, "g5-f5");
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::NoCaptureLimit)));
}

#[test]
fn draw_by_agreement() {
    let mut g = Game::new();
    play(&mut g, "d3-d4 e6-e5");
    g.agree_draw();
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Agreement)));
    assert_eq!(g.outcome().unwrap().describe(), "draw: agreed");
    assert_eq!(g.outcome().unwrap().pdn_result(), "1/2-1/2");
    assert!(g.legal_moves().is_empty());
    assert!(matches!(g.play_text("d4-d5"), Err(GameError::Over(_))));
}

#[test]
fn resignation() {
    let mut g = Game::new();
    play(&mut g, "d3-d4");
    g.resign(Color::Black);
    let o = g.outcome().unwrap();
    assert_eq!(o, white_wins(WinReason::Resignation).unwrap());
    assert_eq!(o.describe(), "Black resigns: White wins");
    assert_eq!(o.pdn_result(), "1-0");
    assert!(g.legal_moves().is_empty());
    // A finished game cannot be resigned again or drawn.
    g.resign(Color::White);
    g.agree_draw();
    assert_eq!(g.outcome(), Some(o));
    // A finished game stays finished: no take-back withdraws the resignation.
    assert!(!g.can_undo());
    assert_eq!(g.undo(), None);
    assert_eq!(g.take_back(), Err(GameError::Over(o)));
    assert_eq!(g.outcome(), Some(o));
    assert_eq!(g.ply(), 1);
    // White resigning: Black wins, 0-1.
    let mut g = Game::new();
    play(&mut g, "d3-d4");
    g.resign(Color::White);
    assert_eq!(g.outcome().unwrap().pdn_result(), "0-1");
    assert_eq!(g.outcome().unwrap().describe(), "White resigns: Black wins");
}

#[test]
fn undo_and_redo() {
    let mut g = Game::new();
    assert!(!g.can_undo());
    assert_eq!(g.undo(), None);
    // d4xd6xd8: the man takes d5, then d7, and is promoted on d8 (two captures, the maximum).
    play(&mut g, "d3-d4 d6-d5 d4xd6xd8");
    assert_eq!(g.position().count(Color::Black), 14);
    assert_eq!(g.position().kings_of(Color::White).count_ones(), 1);
    let after = [g.position_at(1).unwrap(), g.position_at(2).unwrap()];
    assert_eq!(g.position_at(4), None);
    let third = g.undo().unwrap();
    let second = g.undo().unwrap();
    assert_eq!(g.ply(), 1);
    assert_eq!(*g.position(), after[0]);
    assert!(g.can_redo());
    assert_eq!(g.redo(), Some(second));
    assert_eq!(*g.position(), after[1]);
    // Playing the move redo would play keeps the redo stack going ...
    g.play(&third).unwrap();
    assert!(!g.can_redo());
    g.undo();
    g.undo();
    // ... any other move clears it.
    play(&mut g, "f6-f5");
    assert!(!g.can_redo());
    assert_eq!(g.redo(), None);
    // Back to the start: the start position and its key.
    while g.undo().is_some() {}
    assert_eq!(*g.position(), Position::start());
    assert_eq!(g.position().key(), Position::start().key());
    assert_eq!(g.history().len(), 0);
}

#[test]
fn illegal_and_unreadable_moves_are_refused() {
    let mut g = Game::new();
    match g.play_text("d3-d5") {
        Err(GameError::Notation(e)) => assert!(e.to_string().contains("d3-d5")),
        other => panic!("expected a notation error, got {other:?}"),
    }
    assert!(matches!(g.play_text("zz"), Err(GameError::Notation(_))));
    // A move of another position is refused by `play`, with the legal moves listed.
    let m = pos("W:Wa4:Bh7").parse_move("a4-a5").unwrap();
    match g.play(&m) {
        Err(GameError::Illegal { played, legal }) => {
            assert_eq!(played, "a4-a5");
            assert_eq!(legal.len(), 8);
        }
        other => panic!("expected Illegal, got {other:?}"),
    }
    assert_eq!(g.ply(), 0);
}

#[test]
fn rule_set_names() {
    assert_eq!(RuleSet::default().name(), "turkish");
    let all = RuleSet {
        no_capture_limit: Some(50),
        king_beats_lone_man: true,
    };
    assert_eq!(
        all.name(),
        "turkish; no-capture-limit 50; king-beats-lone-man"
    );
    assert_eq!(RuleSet::from_name(&all.name()), Ok(all));
    assert_eq!(
        RuleSet::from_name(" Turkish ;king-beats-lone-man;  no-capture-limit 50 "),
        Ok(all)
    );
    assert_eq!(RuleSet::from_name("turkish"), Ok(RuleSet::default()));
    for bad in [
        "",
        "international",
        "turkish; no-capture-limit",
        "turkish; no-capture-limit x",
        "turkish; no-capture-limit 0",
        "turkish; frobnicate",
        "turkish; king-beats-lone-man; king-beats-lone-man",
    ] {
        assert!(RuleSet::from_name(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn a_move_error_is_told_once_along_the_error_chain() {
    // GameError::Notation displays the MoveError it wraps, so it must not also hand it out as
    // its source: reports that print the whole chain (anyhow's `{:#}`) would say it twice.
    let e = Game::new().play_text("zz").unwrap_err();
    let mut chain = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        chain.push_str(&format!(": {s}"));
        source = s.source();
    }
    assert_eq!(chain.matches("is not a move").count(), 1, "{chain}");
}
