//! Every way a game ends, its stable code, clocks, and what a finished game refuses. Expected
//! values are worked out by hand from the rules (and the clock arithmetic from the time
//! control), never taken from the code under test.

use std::time::Duration;

use damasi::pdn::{read_game, read_games, write_game, PdnGame};
use damasi::{
    cannot_win, Clock, Color, DrawReason, Game, GameError, Notation, Outcome, Position, RuleSet,
    TimeControl, WinReason,
};

fn play(g: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        g.play_text(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn every_outcome() -> Vec<Outcome> {
    let mut all = vec![Outcome::Aborted];
    for winner in Color::BOTH {
        for reason in WinReason::ALL {
            all.push(Outcome::Win { winner, reason });
        }
    }
    all.extend(DrawReason::ALL.map(Outcome::Draw));
    all
}

#[test]
fn every_outcome_has_a_distinct_code_that_reads_back() {
    let all = every_outcome();
    assert_eq!(all.len(), 1 + 2 * 9 + 7);
    let mut codes: Vec<String> = all.iter().map(Outcome::code).collect();
    for (o, code) in all.iter().zip(&codes) {
        assert_eq!(code.parse::<Outcome>(), Ok(*o), "{code}");
        assert!(!o.describe().is_empty());
    }
    codes.sort();
    codes.dedup();
    assert_eq!(codes.len(), all.len(), "codes are unique");
}

#[test]
fn outcome_codes_are_stable() {
    // Databases and clients keep these strings: they must never change.
    let cases = [
        (
            Outcome::Win {
                winner: Color::White,
                reason: WinReason::NoPieces,
            },
            "white:no-pieces",
        ),
        (
            Outcome::Win {
                winner: Color::Black,
                reason: WinReason::Blocked,
            },
            "black:blocked",
        ),
        (
            Outcome::Win {
                winner: Color::Black,
                reason: WinReason::Resignation,
            },
            "black:resignation",
        ),
        (
            Outcome::Win {
                winner: Color::White,
                reason: WinReason::Time,
            },
            "white:time",
        ),
        (
            Outcome::Win {
                winner: Color::White,
                reason: WinReason::IllegalMove,
            },
            "white:illegal-move",
        ),
        (
            Outcome::Win {
                winner: Color::Black,
                reason: WinReason::EngineFailure,
            },
            "black:engine-failure",
        ),
        (
            Outcome::Win {
                winner: Color::White,
                reason: WinReason::Adjudication,
            },
            "white:adjudication",
        ),
        (
            Outcome::Win {
                winner: Color::White,
                reason: WinReason::KingBeatsLoneMan,
            },
            "white:king-beats-lone-man",
        ),
        (
            Outcome::Win {
                winner: Color::Black,
                reason: WinReason::Abandonment,
            },
            "black:abandonment",
        ),
        (
            Outcome::Draw(DrawReason::OnePieceEach),
            "draw:one-piece-each",
        ),
        (Outcome::Draw(DrawReason::Repetition), "draw:repetition"),
        (Outcome::Draw(DrawReason::MutualBlock), "draw:mutual-block"),
        (
            Outcome::Draw(DrawReason::NoCaptureLimit),
            "draw:no-capture-limit",
        ),
        (Outcome::Draw(DrawReason::Agreement), "draw:agreement"),
        (
            Outcome::Draw(DrawReason::TimeoutCannotWin),
            "draw:timeout-cannot-win",
        ),
        (Outcome::Draw(DrawReason::Adjudication), "draw:adjudication"),
        (Outcome::Aborted, "aborted"),
    ];
    for (o, code) in cases {
        assert_eq!(o.code(), code);
    }
}

#[test]
fn malformed_outcome_codes_are_refused() {
    for bad in [
        "",
        "white",
        "white:",
        "draw:resignation",
        "white:agreement",
        "red:time",
        "WHITE:time",
        "aborted:now",
    ] {
        let err = bad.parse::<Outcome>().unwrap_err();
        assert!(err.to_string().contains("outcome code"), "{bad}: {err}");
    }
}

#[test]
fn pdn_results_of_off_board_endings() {
    assert_eq!(Outcome::Aborted.pdn_result(), "*");
    assert_eq!(
        Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Time
        }
        .pdn_result(),
        "0-1"
    );
    assert_eq!(
        Outcome::Draw(DrawReason::TimeoutCannotWin).pdn_result(),
        "1/2-1/2"
    );
}

#[test]
fn clock_first_move_is_free_then_increment() {
    let mut c = Clock::new(TimeControl::from_secs(60, 5));
    assert!(!c.is_running());
    // The first move (White's) is neither charged nor credited.
    c.charge(Color::White, secs(100)).unwrap();
    assert_eq!(c.remaining(Color::White), secs(60));
    assert!(c.is_running());
    // Black thinks 20 s: 60 - 20 + 5 = 45.
    c.charge(Color::Black, secs(20)).unwrap();
    assert_eq!(c.remaining(Color::Black), secs(45));
    // White thinks 1 s: 60 - 1 + 5 = 64 (the increment may take a side above its start).
    c.charge(Color::White, secs(1)).unwrap();
    assert_eq!(c.remaining(Color::White), secs(64));
    // A move in progress: Black has thought 30 s of its 45.
    assert_eq!(c.remaining_after(Color::Black, secs(30)), secs(15));
    assert!(!c.is_flagged(Color::Black, secs(44)));
    assert!(c.is_flagged(Color::Black, secs(45)));
    // Using all of one's time is a flag, and the increment does not save it.
    assert!(c.charge(Color::Black, secs(45)).is_err());
    assert_eq!(c.remaining(Color::Black), Duration::ZERO);
}

#[test]
fn federation_time_control() {
    let c = TimeControl::FEDERATION;
    assert_eq!(c.initial, secs(45 * 60));
    assert_eq!(c.increment, Duration::ZERO);
    assert_eq!(c.pdn(), "2700");
    assert_eq!("2700".parse::<TimeControl>(), Ok(c));
    assert_eq!(TimeControl::from_secs(180, 2).pdn(), "180+2");
    assert_eq!(
        "180+2".parse::<TimeControl>(),
        Ok(TimeControl::from_secs(180, 2))
    );
    assert_eq!(
        "0.5+0.01".parse::<TimeControl>(),
        Ok(TimeControl {
            initial: Duration::from_millis(500),
            increment: Duration::from_millis(10)
        })
    );
    for bad in ["", "?", "-", "0", "abc", "60+x", "1e99", "-5", "NaN"] {
        assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
    }
}

#[test]
fn a_timed_game_charges_the_mover() {
    let mut g = Game::new().with_time_control(TimeControl::from_secs(10, 1));
    let first = g.position().parse_move("d3-d4").unwrap();
    g.play_timed(&first, secs(5)).unwrap();
    let reply = g.position().parse_move("e6-e5").unwrap();
    g.play_timed(&reply, secs(4)).unwrap();
    let clock = g.clock().unwrap();
    assert_eq!(clock.remaining(Color::White), secs(10));
    assert_eq!(clock.remaining(Color::Black), secs(7)); // 10 - 4 + 1
                                                        // Taking back the last move gives back its clock reading.
    g.take_back().unwrap();
    assert_eq!(g.clock().unwrap().remaining(Color::Black), secs(10));
    assert_eq!(g.clock_at(0).unwrap().remaining(Color::White), secs(10));
}

#[test]
fn a_move_after_the_flag_loses_on_time() {
    let mut g = Game::new().with_time_control(TimeControl::from_secs(10, 0));
    play(&mut g, "d3-d4");
    let reply = g.position().parse_move("e6-e5").unwrap();
    let err = g.play_timed(&reply, secs(11)).unwrap_err();
    let lost = Outcome::Win {
        winner: Color::White,
        reason: WinReason::Time,
    };
    assert_eq!(err, GameError::Over(lost));
    assert_eq!(g.outcome(), Some(lost));
    assert_eq!(g.ply(), 1, "the late move is not played");
    assert_eq!(g.clock().unwrap().remaining(Color::Black), Duration::ZERO);
    assert_eq!(g.outcome().unwrap().code(), "white:time");
}

#[test]
fn flag_against_a_lone_piece_is_a_draw() {
    // Black has a single king: it can never win, so White's flag is a draw.
    let start = Position::from_fen("W:Wa3,b3,c3:BKh8").unwrap();
    let mut g = Game::from_position(start, RuleSet::default())
        .with_time_control(TimeControl::from_secs(60, 0));
    assert!(cannot_win(g.position(), Color::Black, g.rules()));
    assert!(!cannot_win(g.position(), Color::White, g.rules()));
    assert_eq!(
        g.lose_on_time(Color::White),
        Ok(Outcome::Draw(DrawReason::TimeoutCannotWin))
    );
    // Black flagging instead loses: White has pieces that can win.
    let mut g = Game::from_position(start, RuleSet::default());
    assert_eq!(
        g.lose_on_time(Color::Black),
        Ok(Outcome::Win {
            winner: Color::White,
            reason: WinReason::Time
        })
    );
}

#[test]
fn flag_against_a_lone_king_under_king_beats_lone_man() {
    // Under the option a lone king still wins against a lone man, so it can win against men.
    let start = Position::from_fen("W:Wa3,b3:BKh8").unwrap();
    let rules = RuleSet {
        king_beats_lone_man: true,
        ..RuleSet::default()
    };
    assert!(!cannot_win(&start, Color::Black, &rules));
    let mut g = Game::from_position(start, rules);
    assert_eq!(
        g.lose_on_time(Color::White),
        Ok(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Time
        })
    );
    // Facing kings only, the lone king cannot win even then.
    let kings = Position::from_fen("W:WKa3,Kb3:BKh8").unwrap();
    assert!(cannot_win(&kings, Color::Black, &rules));
}

#[test]
fn a_finished_game_stays_finished() {
    let declared = [
        Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Resignation,
        },
        Outcome::Draw(DrawReason::Agreement),
        Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Time,
        },
        Outcome::Win {
            winner: Color::White,
            reason: WinReason::IllegalMove,
        },
        Outcome::Win {
            winner: Color::White,
            reason: WinReason::EngineFailure,
        },
        Outcome::Draw(DrawReason::Adjudication),
        Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Abandonment,
        },
    ];
    for o in declared {
        let mut g = Game::new();
        play(&mut g, "d3-d4 e6-e5 c3-c4");
        g.end(o).unwrap();
        assert_eq!(g.outcome(), Some(o));
        assert_eq!(g.take_back(), Err(GameError::Over(o)), "{o:?}");
        assert_eq!(
            g.end(Outcome::Draw(DrawReason::Agreement)),
            Err(GameError::Over(o))
        );
        assert!(matches!(g.play_text("e5-e4"), Err(GameError::Over(_))));
        assert!(g.legal_moves().is_empty());
        assert_eq!(g.ply(), 3);
    }
    // A game the board ended refuses a take-back too.
    let mut g = Game::from_position(
        Position::from_fen("W:Wd4:Bd5,h7").unwrap(),
        RuleSet::default(),
    );
    play(&mut g, "d4xd6");
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::OnePieceEach)));
    assert!(matches!(g.take_back(), Err(GameError::Over(_))));
}

#[test]
fn board_outcomes_cannot_be_declared() {
    let mut g = Game::new();
    let o = Outcome::Win {
        winner: Color::White,
        reason: WinReason::Blocked,
    };
    assert_eq!(g.end(o), Err(GameError::NotDeclarable(o)));
    let o = Outcome::Draw(DrawReason::Repetition);
    assert_eq!(g.end(o), Err(GameError::NotDeclarable(o)));
    assert_eq!(g.outcome(), None);
}

#[test]
fn abort_only_before_both_sides_moved() {
    let mut g = Game::new();
    assert!(g.can_abort());
    g.end(Outcome::Aborted).unwrap();
    assert_eq!(g.outcome(), Some(Outcome::Aborted));
    assert_eq!(g.outcome().unwrap().pdn_result(), "*");

    let mut g = Game::new();
    play(&mut g, "d3-d4");
    assert!(g.can_abort());
    play(&mut g, "e6-e5");
    assert!(!g.can_abort());
    assert_eq!(g.end(Outcome::Aborted), Err(GameError::TooLateToAbort));
    assert_eq!(g.outcome(), None);
}

#[test]
fn take_back_with_nothing_played() {
    let mut g = Game::new();
    assert_eq!(g.take_back(), Err(GameError::NothingToTakeBack));
}

#[test]
fn repetitions_are_counted_through_take_backs() {
    // Kings shuffle: positions repeat; taking back must undo the counts exactly.
    let start = Position::from_fen("W:WKa1,b3,c3:BKh8,g6,f6").unwrap();
    let mut g = Game::from_position(start, RuleSet::default());
    play(&mut g, "a1-a2 h8-h7 a2-a1 h7-h8");
    assert_eq!(g.repetition_count(), 2);
    g.take_back().unwrap();
    assert_eq!(g.repetition_count(), 1);
    play(&mut g, "h7-h8 a1-a2 h8-h7 a2-a1");
    assert_eq!(g.repetition_count(), 2);
    play(&mut g, "h7-h8");
    assert_eq!(g.repetition_count(), 3);
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    // An irreversible move starts a new run; taking it back restores the old counts.
    let mut g = Game::from_position(start, RuleSet::default());
    play(&mut g, "a1-a2 h8-h7 a2-a1 h7-h8 b3-b4");
    assert_eq!(g.repetition_count(), 1);
    g.take_back().unwrap();
    assert_eq!(g.repetition_count(), 2);
}

fn pdn_round_trip(g: &Game) -> Game {
    let text = write_game(&PdnGame::new(g.clone()), Notation::Landing);
    read_game(&text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .game
}

#[test]
fn pdn_round_trip_of_off_board_endings() {
    for o in every_outcome().into_iter().filter(|o| !o.is_on_board()) {
        let mut g = Game::new();
        play(&mut g, "d3-d4");
        g.end(o).unwrap();
        let text = write_game(&PdnGame::new(g.clone()), Notation::Landing);
        assert!(
            text.contains(&format!("[Termination \"{}\"]", o.reason_code())),
            "{text}"
        );
        assert!(text.contains(&format!("[Result \"{}\"]", o.pdn_result())));
        assert_eq!(pdn_round_trip(&g).outcome(), Some(o), "{text}");
    }
}

#[test]
fn pdn_time_control_round_trip() {
    let mut g = Game::new().with_time_control(TimeControl::from_secs(180, 2));
    play(&mut g, "d3-d4");
    let text = write_game(&PdnGame::new(g.clone()), Notation::Landing);
    assert!(text.contains("[TimeControl \"180+2\"]"), "{text}");
    let back = pdn_round_trip(&g);
    assert_eq!(
        back.clock().map(|c| c.control()),
        Some(TimeControl::from_secs(180, 2))
    );
}

#[test]
fn pdn_standard_termination_words() {
    let read = |result: &str, term: &str| {
        let text = format!(
            "[GameType \"30\"]\n[Result \"{result}\"]\n[Termination \"{term}\"]\n\n1. d3-d4 {result}\n"
        );
        read_game(&text).unwrap().game.outcome()
    };
    assert_eq!(
        read("0-1", "time forfeit"),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Time
        })
    );
    assert_eq!(
        read("1-0", "abandoned"),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::Abandonment
        })
    );
    // `normal` and unknown words: a resignation or an agreement, as before.
    assert_eq!(
        read("1-0", "normal"),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::Resignation
        })
    );
    assert_eq!(
        read("1/2-1/2", "whatever"),
        Some(Outcome::Draw(DrawReason::Agreement))
    );
    // A board reason cannot be claimed by a tag the moves do not bear out.
    assert_eq!(
        read("1-0", "blocked"),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::Resignation
        })
    );
}

#[test]
fn a_broken_game_does_not_hide_the_others() {
    let text = "[GameType \"30\"]\n\n1. d3-d4 e6-e5 1-0\n\n\
                [GameType \"30\"]\n\n1. d3-d7 *\n\n\
                [GameType \"30\"]\n[Termination \"agreement\"]\n\n1. c3-c4 1/2-1/2\n";
    let games: Vec<_> = read_games(text.as_bytes()).collect();
    assert_eq!(games.len(), 3);
    assert!(games[0].is_ok());
    let err = games[1].as_ref().unwrap_err();
    assert_eq!(err.line, 7);
    assert_eq!(
        games[2].as_ref().unwrap().game.outcome(),
        Some(Outcome::Draw(DrawReason::Agreement))
    );
}
