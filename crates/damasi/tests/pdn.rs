//! PDN records: round trips, streaming many games, broken games reported with their line and
//! the rest still read, FEN and rule-set tags, comments, variations, NAGs and pydraughts-style
//! numbered squares. Expected texts are written out by hand.

use std::io::BufReader;

use damasi::pdn::{read_game, read_games, write_game, write_games, PdnErrorKind, PdnGame};
use damasi::{Color, DrawReason, Game, Notation, Outcome, Position, RuleSet, WinReason};

fn landing(g: &Game) -> Vec<String> {
    let mut pos = *g.initial_position();
    let mut out = Vec::new();
    for m in g.history() {
        out.push(pos.write_move(m, Notation::Landing));
        pos = pos.play(m);
    }
    out
}

fn played(moves: &str) -> Game {
    let mut g = Game::new();
    for m in moves.split_whitespace() {
        g.play_text(m).unwrap();
    }
    g
}

const ROSTER: &str = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
                      [White \"?\"]\n[Black \"?\"]\n";

#[test]
fn writes_the_standard_layout() {
    // d4xd6xd8: the man takes d5 and d7 and is promoted on d8; PDN carries no "=K".
    let g = played("d3-d4 d6-d5 d4xd6xd8");
    let mut record = PdnGame::new(g);
    record.set_tag("Event", "Club \"Dama\" night");
    record.set_tag("Annotator", "x");
    let text = write_game(&record, Notation::Landing);
    let expected = "[Event \"Club \\\"Dama\\\" night\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n\
                    [Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n\
                    [GameType \"30\"]\n[Annotator \"x\"]\n\n1. d3-d4 d6-d5 2. d4xd6xd8 *\n";
    assert_eq!(text, expected);
    // Captured-square notation: start square, then the captured squares d5 and d7.
    let captured = write_game(&record, Notation::Captured);
    assert!(
        captured.ends_with("\n1. d3-d4 d6-d5 2. d4xd5xd7 *\n"),
        "{captured}"
    );
    for text in [text, captured] {
        let back = read_game(&text).unwrap();
        assert_eq!(back.game, record.game);
        assert_eq!(back.tag("Event"), Some("Club \"Dama\" night"));
        assert_eq!(back.tag("Annotator"), Some("x"));
    }
}

#[test]
fn fen_tag_and_black_to_move() {
    // Black plays h7-g7; the white king must then take a4 and g7: up the a-file to a7, then
    // along rank 7 to h7. Black has nothing left: 1-0, from the board.
    let start = Position::from_fen("B:WKa1,b2:Ba4,h7").unwrap();
    let mut g = Game::from_position(start, RuleSet::default());
    g.play_text("h7-g7").unwrap();
    g.play_text("a1xa7xh7").unwrap();
    let text = write_game(&PdnGame::new(g.clone()), Notation::Landing);
    let expected = format!(
        "{ROSTER}[Result \"1-0\"]\n[GameType \"30\"]\n[SetUp \"1\"]\n[FEN \"B:WKa1,b2:Ba4,h7\"]\n\
         [Termination \"no-pieces\"]\n\n1... h7-g7 2. a1xa7xh7 1-0\n"
    );
    assert_eq!(text, expected);
    let back = read_game(&text).unwrap();
    assert_eq!(back.game, g);
    assert_eq!(
        back.game.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::NoPieces
        })
    );
}

#[test]
fn rules_tag_names_the_rule_set() {
    let rules = RuleSet {
        no_capture_limit: Some(50),
        king_beats_lone_man: true,
    };
    let g = Game::with_rules(rules);
    let text = write_game(&PdnGame::new(g), Notation::Landing);
    assert!(text.contains(
        "[GameType \"30\"]\n[Rules \"turkish; no-capture-limit 50; king-beats-lone-man\"]\n"
    ));
    assert_eq!(*read_game(&text).unwrap().game.rules(), rules);
    // The default rules are not named.
    let plain = write_game(&PdnGame::new(Game::new()), Notation::Landing);
    assert!(!plain.contains("[Rules"));
}

#[test]
fn comments_variations_nags_and_move_numbers_are_skipped() {
    let text = "% an escape line, ignored\n\
                [Event \"x\"] ; a comment after a tag\n\
                \n\
                1. d3-d4 {a comment (with a paren) and\n\
                over two lines} d6-d5 $1 (1... e6-e5 {inside} (2. a3-a4) 2. d4-e4)\n\
                2.d4xd8! ; short form of d4xd6xd8\n\
                2... e6-e5?! 3. a3-a4 1/2-1/2\n";
    let r = read_game(text).unwrap();
    assert_eq!(
        landing(&r.game),
        ["d3-d4", "d6-d5", "d4xd6xd8=K", "e6-e5", "a3-a4"]
    );
    assert_eq!(r.tag("Event"), Some("x"));
    // The game is not over on the board: the draw token is kept as an agreed draw.
    assert_eq!(r.game.outcome(), Some(Outcome::Draw(DrawReason::Agreement)));
}

#[test]
fn result_tokens_of_every_pdn_version() {
    let cases = [
        ("1-0", Some((Some(Color::White), "1-0"))),
        ("2-0", Some((Some(Color::White), "1-0"))),
        ("0-1", Some((Some(Color::Black), "0-1"))),
        ("0-2", Some((Some(Color::Black), "0-1"))),
        ("1/2-1/2", Some((None, "1/2-1/2"))),
        ("1-1", Some((None, "1/2-1/2"))),
        ("*", None),
        ("0-0", None),
    ];
    for (token, expected) in cases {
        let r = read_game(&format!("1. d3-d4 {token}\n")).unwrap();
        let got = r.game.outcome().map(|o| (o.winner(), o.pdn_result()));
        assert_eq!(got, expected, "{token}");
    }
    // Without a result token the Result tag is used.
    let r = read_game("[Result \"0-1\"]\n1. d3-d4\n").unwrap();
    assert_eq!(r.game.outcome().unwrap().winner(), Some(Color::Black));
}

#[test]
fn numbered_squares_as_pydraughts_writes_them() {
    // a1 = 1 .. h8 = 64: 20 = d3, 28 = d4, 43 = c6, 35 = c5, 19 = c3, 27 = c4, 3 = c1.
    // The black man c5 jumps c4 (landing c3) and c2 (landing c1), promoted.
    let text = "[GameType \"30,W,8,8,A0,0\"]\n1. 20-28 43-35 2. 19-27 35x3 *\n";
    let r = read_game(text).unwrap();
    assert_eq!(landing(&r.game), ["d3-d4", "c6-c5", "c3-c4", "c5xc3xc1=K"]);
    let e = read_game("1. 20-99 *").unwrap_err();
    assert!(
        e.to_string().contains("square 99 is not on the board"),
        "{e}"
    );
}

#[test]
fn broken_games_are_reported_with_their_line_and_the_rest_is_read() {
    let text = "[Event \"one\"]\n\
                \n\
                1. d3-d4 d6-d5 *\n\
                \n\
                [Event \"two: illegal move on line 7\"]\n\
                \n\
                1. d3-d4 d6-d5 2. d4-d5 e6-e5 1-0\n\
                \n\
                [Event \"three\"]\n\
                1. a3-a4 *\n\
                [Event \"four: wrong game type\"]\n\
                [GameType \"20\"]\n\
                1. 32-28 *\n\
                [Event \"five: bad FEN\"]\n\
                [FEN \"W:Wa1:Bh7\"]\n\
                1. a1-a2 *\n\
                [Event \"six: broken tag\"]\n\
                [Round 3]\n\
                1. d3-d4 *\n\
                [Event \"seven: no result token, ends at the next tag\"]\n\
                1. h3-h4\n\
                [Event \"eight\"]\n\
                [Rules \"turkish; no-capture-limit many\"]\n\
                *\n\
                [Event \"nine\"]\n\
                1. b3-b4 {never closed\n";
    let results: Vec<_> = read_games(BufReader::new(text.as_bytes())).collect();
    assert_eq!(results.len(), 9);
    let ok = |i: usize| results[i].as_ref().unwrap();
    let err = |i: usize| results[i].as_ref().unwrap_err();
    assert_eq!(landing(&ok(0).game), ["d3-d4", "d6-d5"]);
    assert_eq!((err(1).line, err(1).game), (7, 2));
    assert!(
        matches!(&err(1).kind, PdnErrorKind::Move { number, text, .. } if number == "2." && text == "d4-d5")
    );
    assert!(err(1)
        .to_string()
        .starts_with("line 7 (game 2): move 2. d4-d5:"));
    assert_eq!(landing(&ok(2).game), ["a3-a4"]);
    assert_eq!(ok(2).tag("Event"), Some("three"));
    assert_eq!((err(3).line, err(3).game), (12, 4));
    assert!(matches!(err(3).kind, PdnErrorKind::GameType(_)));
    assert_eq!((err(4).line, err(4).game), (15, 5));
    assert!(matches!(err(4).kind, PdnErrorKind::Fen(_)));
    assert!(err(4).to_string().contains("a1"), "{}", err(4));
    assert_eq!((err(5).line, err(5).game), (18, 6));
    assert!(err(5).to_string().contains("tag Round"), "{}", err(5));
    assert_eq!(landing(&ok(6).game), ["h3-h4"]);
    assert_eq!((err(7).line, err(7).game), (23, 8));
    assert!(matches!(err(7).kind, PdnErrorKind::Rules(_)));
    assert_eq!((err(8).line, err(8).game), (26, 9));
    assert!(err(8).to_string().contains("never closed"), "{}", err(8));
}

#[test]
fn moves_after_the_end_are_refused() {
    // After d4xd6 each side has one man: the game is drawn, so h7-h6 cannot follow.
    let text = "[FEN \"W:Wd4:Bd5,h7\"]\n1. d4xd6 h7-h6 *\n";
    let e = read_game(text).unwrap_err();
    assert!(
        e.to_string()
            .contains("the game is over (draw: one piece each)"),
        "{e}"
    );
}

#[test]
fn bad_input_never_panics() {
    for text in [
        "",
        "[",
        "[Event",
        "[Event \"x",
        "[Event \"x\\",
        "]]]",
        "\"\"\"",
        "1.",
        "1... ...",
        "(((",
        ")",
        "}",
        "$",
        "$$$1",
        "éé-üü",
        "1. d3-d4x",
        "1. 1-",
        "1. -1",
        "1. 0x0",
        "1. 99999999999999999999-1",
        "[FEN \"\"]\n*",
        "[GameType \"\"]\n*",
        "[Rules \"\"]\n*",
    ] {
        let _ = read_games(text.as_bytes()).count();
    }
    // Bytes that are not UTF-8 are read as Latin-1.
    let latin1 = b"[Event \"Caf\xe9\"]\n1. d3-d4 *\n";
    let r = read_games(&latin1[..]).next().unwrap().unwrap();
    assert_eq!(r.tag("Event"), Some("Caf\u{e9}"));
}

/// A small deterministic generator (xorshift64*) for reproducible random games.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn random_game(rng: &mut Rng, max_plies: usize) -> Game {
    let mut g = Game::new();
    for _ in 0..max_plies {
        let moves = g.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[(rng.next() % moves.len() as u64) as usize];
        g.play(&m).unwrap();
    }
    g
}

#[test]
fn many_games_stream_in_order() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let records: Vec<PdnGame> = (0..150)
        .map(|i| {
            let mut r = PdnGame::new(random_game(&mut rng, 200));
            r.set_tag("Round", &i.to_string());
            r
        })
        .collect();
    let text = write_games(&records, Notation::Landing);
    let mut n = 0;
    for (i, r) in read_games(BufReader::with_capacity(64, text.as_bytes())).enumerate() {
        let r = r.unwrap();
        assert_eq!(r.tag("Round"), Some(i.to_string().as_str()));
        assert_eq!(r.game, records[i].game, "game {i}");
        n += 1;
    }
    assert_eq!(n, 150);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Random legal games written to PDN (both notations) read back identical.
        #[test]
        fn random_games_round_trip(choices in proptest::collection::vec(any::<u32>(), 0..160)) {
            let mut g = Game::new();
            for c in choices {
                let moves = g.legal_moves();
                if moves.is_empty() {
                    break;
                }
                g.play(&moves[c as usize % moves.len()]).unwrap();
            }
            for notation in [Notation::Landing, Notation::Captured] {
                let text = write_game(&PdnGame::new(g.clone()), notation);
                let back = read_game(&text).unwrap();
                prop_assert_eq!(&back.game, &g);
                prop_assert_eq!(write_game(&back, notation), text);
            }
        }

        /// Undoing back to the start restores every position and Zobrist key on the way.
        #[test]
        fn undo_restores_every_position(choices in proptest::collection::vec(any::<u32>(), 0..160)) {
            let mut g = Game::new();
            let mut seen = vec![(Position::start(), Position::start().key())];
            for c in choices {
                let moves = g.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // A finished game refuses take-backs: stop before the move that ends it.
                let mut next = g.clone();
                next.play(&moves[c as usize % moves.len()]).unwrap();
                if next.is_over() {
                    break;
                }
                g = next;
                seen.push((*g.position(), g.position().key()));
            }
            while let Some(expected) = seen.pop() {
                prop_assert_eq!(*g.position(), expected.0);
                prop_assert_eq!(g.position().key(), expected.1);
                prop_assert_eq!(g.position().compute_key(), expected.1);
                prop_assert_eq!(g.repetition_keys().last(), Some(&expected.1));
                if g.undo().is_none() {
                    prop_assert!(seen.is_empty());
                }
            }
            prop_assert_eq!(g.ply(), 0);
        }
    }
}

#[test]
fn declared_results_round_trip() {
    let mut resigned = played("d3-d4 e6-e5");
    resigned.resign(Color::White);
    let mut agreed = played("d3-d4");
    agreed.agree_draw();
    for (g, token) in [(resigned, "0-1"), (agreed, "1/2-1/2")] {
        let text = write_game(&PdnGame::new(g.clone()), Notation::Landing);
        assert!(text.contains(&format!("[Result \"{token}\"]")), "{text}");
        assert!(text.ends_with(&format!(" {token}\n")), "{text}");
        assert_eq!(read_game(&text).unwrap().game, g);
    }
}

#[test]
fn windows_line_ends_and_byte_order_mark() {
    let text = "\u{feff}[Event \"crlf\"]\r\n[GameType \"30\"]\r\n\r\n1. d3-d4 d6-d5\r\n*\r\n";
    let r = read_game(text).unwrap();
    assert_eq!(r.tag("Event"), Some("crlf"));
    assert_eq!(landing(&r.game), ["d3-d4", "d6-d5"]);
}

#[test]
fn a_contradicting_result_token_gives_way_to_the_board() {
    // The board says White won (Black has no piece left after a1xa8); the token says 0-1.
    // The board decides; the Result tag keeps what the file said.
    let text = "[Result \"0-1\"]\n[FEN \"W:WKa1,b2:Ba5\"]\n1. a1xa8 0-1\n";
    let r = read_game(text).unwrap();
    assert_eq!(r.game.outcome().unwrap().winner(), Some(Color::White));
    assert_eq!(r.tag("Result"), Some("0-1"));
    assert!(write_game(&r, Notation::Landing).ends_with("1. a1xa8 1-0\n"));
}

#[test]
fn dates_are_written_from_moments() {
    use damasi::pdn::pdn_date;
    let day = |n: i64| pdn_date(n * 86_400);
    assert_eq!(day(0), "1970.01.01");
    assert_eq!(day(59), "1970.03.01");
    // 2000-02-29 was day 11016; 2026-11-21 is day 20778; and before 1970.
    assert_eq!(day(11_016), "2000.02.29");
    assert_eq!(day(20_778), "2026.11.21");
    assert_eq!(pdn_date(-1), "1969.12.31");
}
