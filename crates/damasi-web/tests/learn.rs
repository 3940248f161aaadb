//! The learning data against the rules library: every course step's accepted moves are
//! exactly the legal moves that reach its goal; the federation's examples give the answers
//! its rule text states (captured squares written here by hand from the text); the puzzles
//! are legal lines whose first move the engine finds; the puzzle rating moves the right way.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use damasi::{DrawReason, Game, Move, MoveError, MoveList, Notation, Outcome, Position, RuleSet};
use damasi_engine::{Engine, EngineOptions, Limits, SearchControl, SearchRequest, SearchRoot};
use damasi_web::learn::{
    check_attempt, course, examples, near_rating, puzzles, rate_attempt, Goal, PuzzleRating, Step,
    NEAREST,
};

fn squares(m: &Move) -> BTreeSet<String> {
    m.captured().map(|s| s.to_string()).collect()
}

/// The game a step starts from: its FEN and its history.
fn step_game(step: &Step) -> Game {
    let start = Position::from_fen(&step.fen)
        .unwrap_or_else(|e| panic!("step {}: bad FEN {}: {e}", step.id, step.fen));
    let mut game = Game::from_position(start, RuleSet::default());
    for text in &step.history {
        game.play_text(text)
            .unwrap_or_else(|e| panic!("step {}: history move {text}: {e}", step.id));
    }
    game
}

/// Parses `texts` in `pos`, checking that each is the library's own landing notation of the
/// move (so that a page may compare texts).
fn parse_canonical(pos: &Position, texts: &[String], what: &str) -> Vec<Move> {
    texts
        .iter()
        .map(|t| {
            let m = pos
                .parse_move(t)
                .unwrap_or_else(|e| panic!("{what}: {t} does not parse: {e}"));
            assert_eq!(
                &pos.write_move(&m, Notation::Landing),
                t,
                "{what}: not written as the library writes it"
            );
            m
        })
        .collect()
}

fn set(moves: &[Move]) -> HashSet<Move> {
    moves.iter().copied().collect()
}

#[test]
fn the_course_has_lessons_of_short_bilingual_steps() {
    let c = course();
    assert_eq!(c.format, 1);
    let steps: Vec<&Step> = c.lessons.iter().flat_map(|l| &l.steps).collect();
    assert!((25..=35).contains(&steps.len()), "{} steps", steps.len());
    let ids: HashSet<&str> = steps.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids.len(), steps.len(), "step ids are unique");
    for s in &steps {
        for t in [&s.title, &s.text, &s.wrong] {
            assert!(
                !t.en.trim().is_empty() && !t.tr.trim().is_empty(),
                "{}",
                s.id
            );
            assert_ne!(t.en, t.tr, "{}: the Turkish text is a translation", s.id);
        }
        assert!(s.text.en.len() < 400, "{}: a step's text is short", s.id);
    }
    let lessons: Vec<&str> = c.lessons.iter().map(|l| l.id.as_str()).collect();
    for topic in [
        "men",
        "kings",
        "capture",
        "maximum",
        "removal",
        "turns",
        "promotion",
        "end",
    ] {
        assert!(lessons.contains(&topic), "a lesson on {topic}");
    }
}

#[test]
fn every_step_accepts_exactly_the_legal_moves_that_reach_its_goal() {
    for step in course().lessons.iter().flat_map(|l| &l.steps) {
        let game = step_game(step);
        assert!(
            game.outcome().is_none(),
            "step {}: the game goes on",
            step.id
        );
        let pos = *game.position();
        let side = pos.side_to_move();
        let legal: Vec<Move> = game.legal_moves().iter().copied().collect();
        let accepted = parse_canonical(&pos, &step.accepted, &step.id);
        assert!(!accepted.is_empty(), "step {}", step.id);
        let after = |m: &Move| {
            let mut g = game.clone();
            g.play(m).unwrap();
            g.outcome()
        };
        let reaching: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| match &step.goal {
                Goal::Reach { from, to } => {
                    m.to().to_string() == *to
                        && from.as_ref().is_none_or(|f| m.from().to_string() == *f)
                }
                Goal::Piece { from } => m.from().to_string() == *from,
                Goal::OnlyMove | Goal::MaxCapture { .. } => true,
                Goal::Promote => m.is_promotion(),
                Goal::Win => after(m).and_then(|o| o.winner()) == Some(side),
                Goal::Draw => matches!(after(m), Some(Outcome::Draw(_))),
            })
            .collect();
        assert_eq!(set(&accepted), set(&reaching), "step {}", step.id);
        assert_eq!(
            accepted.len(),
            step.accepted.len(),
            "step {}: no duplicates",
            step.id
        );
        match &step.goal {
            Goal::OnlyMove => assert_eq!(legal.len(), 1, "step {}", step.id),
            Goal::MaxCapture { count, captured } => {
                for m in &legal {
                    assert_eq!(m.capture_count(), *count, "step {}", step.id);
                    if let Some(c) = captured {
                        let want: BTreeSet<String> = c.iter().cloned().collect();
                        assert_eq!(squares(m), want, "step {}", step.id);
                    }
                }
            }
            // A goal that some legal moves miss, so the step is a real choice.
            Goal::Reach { .. } | Goal::Piece { .. } | Goal::Promote => {
                assert!(reaching.len() < legal.len(), "step {}", step.id)
            }
            Goal::Win | Goal::Draw => {}
        }
    }
}

fn step(id: &str) -> &'static Step {
    course()
        .lessons
        .iter()
        .flat_map(|l| &l.steps)
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no step {id}"))
}

fn legal_of(fen: &str) -> (Position, MoveList) {
    let pos = Position::from_fen(fen).unwrap();
    (pos, pos.legal_moves())
}

#[test]
fn the_steps_show_what_their_rules_say() {
    // Men never move backwards: from d4 only the sideways steps.
    let (pos, legal) = legal_of(&step("men-never-back").fen);
    let d4: Vec<String> = legal
        .iter()
        .filter(|m| m.from().to_string() == "d4")
        .map(|m| pos.write_move(m, Notation::Landing))
        .collect();
    assert_eq!(d4.len(), 2);
    assert!(!d4.contains(&"d4-d3".to_string()));
    // A reversal would take d6 and d2 together; no legal move does.
    let (_, legal) = legal_of(&step("turn-no-reverse").fen);
    assert!(legal.iter().all(|m| m.capture_count() == 1));
    // Mid-capture on the last rank a man goes on as a man: g8 is out of its reach.
    let (_, legal) = legal_of(&step("promote-end-of-move").fen);
    assert!(legal
        .iter()
        .all(|m| !squares(m).contains("g8") && m.is_promotion()));
    // b3 is taken last, across the square c3 left when it was captured first.
    let s = step("removal-opens");
    let (pos, _) = legal_of(&s.fen);
    let m = pos.parse_move(&s.accepted[0]).unwrap();
    let order: Vec<String> = pos
        .capture_order(&m)
        .iter()
        .map(|q| q.to_string())
        .collect();
    assert_eq!(order, ["c3", "e5", "g4", "b3"]);
    // Going round the start square: the capture may end on b2 itself.
    let s = step("removal-own-start");
    assert!(s.accepted.iter().any(|t| t.ends_with("xb2")));
    // The draws are the ones the steps name.
    let draw_of = |id: &str| {
        let s = step(id);
        let mut game = step_game(s);
        game.play_text(&s.accepted[0]).unwrap();
        game.outcome()
    };
    assert_eq!(
        draw_of("end-one-each"),
        Some(Outcome::Draw(DrawReason::OnePieceEach))
    );
    assert_eq!(
        draw_of("end-repetition"),
        Some(Outcome::Draw(DrawReason::Repetition))
    );
}

// ---- The federation's examples (seed 001) ----

/// What the rule text says about each example, written here from the text: the answer in
/// its notation, the captured squares in order, and where the capture ends when it says.
const TEXT: [(u32, &str, &[&str], Option<&str>); 10] = [
    (1, "d4xc4xb3", &["c4", "b3"], None),
    (
        2,
        "a7xa6xb5xc4xd3xe2",
        &["a6", "b5", "c4", "d3", "e2"],
        None,
    ),
    (
        3,
        "f1xf2xf4xd7xb7xa5xa3xc1xe1",
        &["f2", "f4", "d7", "b7", "a5", "a3", "c1", "e1"],
        Some("f1"),
    ),
    (4, "b3xd3xf5xd7xb7", &["d3", "f5", "d7", "b7"], Some("a7")),
    (5, "d5xd4xd2", &["d4", "d2"], Some("d1")),
    (6, "d1xd6xe7xg7", &["d6", "e7", "g7"], None),
    (7, "c3xc2xd1", &["c2", "d1"], Some("e1")),
    (8, "d4xc4", &["c4"], None),
    (9, "d4xc4xb3", &["c4", "b3"], None),
    (10, "a8xa3xb2", &["a3", "b2"], None),
];

#[test]
fn the_ten_examples_have_the_answers_the_rule_text_states() {
    let ex = examples();
    assert_eq!(ex.examples.len(), 10);
    for (e, &(number, answer, captured, end)) in ex.examples.iter().zip(TEXT.iter()) {
        let what = format!("example {number}");
        assert_eq!(e.number, number);
        assert_eq!(e.answer, answer, "{what}");
        assert_eq!(e.captured, captured, "{what}");
        assert_eq!(e.end.as_deref(), end.or(e.end.as_deref()), "{what}");
        for t in [&e.title, &e.statement, &e.explanation, &e.wrong] {
            assert!(!t.en.is_empty() && !t.tr.is_empty(), "{what}");
        }
        let pos = Position::from_fen(&e.fen).unwrap_or_else(|err| panic!("{what}: {err}"));
        let legal: Vec<Move> = pos.legal_moves().iter().copied().collect();
        // The answer, read in the federation's notation, is a legal move capturing those
        // squares in that order.
        let m = pos
            .parse_move(answer)
            .unwrap_or_else(|err| panic!("{what}: {answer}: {err}"));
        assert!(legal.contains(&m), "{what}");
        let order: Vec<String> = pos
            .capture_order(&m)
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(order, captured, "{what}");
        if let Some(end) = end {
            assert_eq!(m.to().to_string(), end, "{what}");
        }
        // Maximum capture: every legal move takes as many pieces as the text's answer.
        assert!(
            legal
                .iter()
                .all(|l| l.capture_count() == captured.len() as u32),
            "{what}"
        );
        // The answer is the one legal move, unless the text offers a choice.
        assert_eq!(e.choice, number == 8, "{what}");
        if !e.choice {
            assert_eq!(legal, vec![m], "{what}");
        }
        let accepted = parse_canonical(&pos, &e.accepted, &what);
        assert_eq!(set(&accepted), set(&legal), "{what}");
    }
}

fn example(n: u32) -> (Position, Vec<Move>) {
    let e = &examples().examples[n as usize - 1];
    let pos = Position::from_fen(&e.fen).unwrap();
    (pos, pos.legal_moves().iter().copied().collect())
}

#[test]
fn the_examples_show_what_the_text_says_about_them() {
    // 1: taking the right-hand man e4 alone is the wrong capture.
    let (_, legal) = example(1);
    assert!(legal.iter().all(|m| !squares(m).contains("e4")));
    // 2: the man ends on the first rank with five pieces and promotes.
    let (_, legal) = example(2);
    assert!(legal[0].is_promotion());
    // 3: two paths (routes) take the same eight pieces: one move.
    let pos = example(3).0;
    let mut routes = MoveList::new();
    pos.legal_routes_into(&mut routes);
    assert_eq!(routes.len(), 2);
    assert_eq!(squares(&routes[0]), squares(&routes[1]));
    // 4: the piece only a reverse turn would reach (g7) stays.
    let (_, legal) = example(4);
    assert!(!squares(&legal[0]).contains("g7"));
    // 5: the man stops on d1 and becomes a king.
    let (_, legal) = example(5);
    assert!(legal[0].is_promotion());
    // 6: Black's c2-c1 is a quiet promotion that cannot take d1; then White must take d6,
    // e7 and g7, and may take neither c1 nor c7.
    let e = &examples().examples[5];
    let setup = e.setup.as_ref().expect("example 6 starts a move earlier");
    let before = Position::from_fen(&setup.fen).unwrap();
    assert!(!before.has_capture());
    let c1 = before.parse_move(&setup.mv).unwrap();
    assert!(!c1.is_capture() && c1.is_promotion());
    assert_eq!(
        before.play(&c1).to_fen(),
        Position::from_fen(&e.fen).unwrap().to_fen()
    );
    let (_, legal) = example(6);
    assert!(legal
        .iter()
        .all(|m| !squares(m).contains("c1") && !squares(m).contains("c7")));
    // 7: a man (not a king) captures onto the first rank and on along it, promotes at e1,
    // and cannot fly on to g1.
    let (pos, legal) = example(7);
    assert!(pos.kings() & (1u64 << legal[0].from().index()) == 0);
    assert!(legal[0].is_promotion() && !squares(&legal[0]).contains("g1"));
    // 8: the man's capture and the king's are both allowed; "a8xa3" leaves the king's
    // landing square open (a2 or a1).
    let (pos, legal) = example(8);
    let sets: BTreeSet<BTreeSet<String>> = legal.iter().map(squares).collect();
    let want: BTreeSet<BTreeSet<String>> = [["c4"], ["a3"]]
        .iter()
        .map(|s| s.iter().map(|q| q.to_string()).collect())
        .collect();
    assert_eq!(sets, want);
    assert!(matches!(
        pos.parse_move("a8xa3"),
        Err(MoveError::Ambiguous { .. })
    ));
    // 9: the king's single capture is not allowed.
    let (_, legal) = example(9);
    assert!(legal.iter().all(|m| m.from().to_string() == "d4"));
    // 10: the king must capture, and White takes it on the next move.
    let (pos, legal) = example(10);
    let king = legal[0];
    assert_eq!(king.from().to_string(), "a8");
    let after = pos.play(&king);
    let replies = after.legal_moves();
    assert!(!replies.is_empty());
    assert!(replies
        .iter()
        .all(|r| r.captured_bits() & (1u64 << king.to().index()) != 0));
}

// ---- Puzzles ----

#[test]
fn the_puzzles_are_legal_lines_from_positions_with_a_choice() {
    let all = puzzles();
    assert!(all.len() >= 100, "{} puzzles", all.len());
    let ids: HashSet<&str> = all.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids.len(), all.len());
    for p in all {
        let pos = Position::from_fen(&p.fen).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert_eq!(pos.side_to_move().name(), p.side, "{}", p.id);
        assert!(pos.legal_moves().len() >= 2, "{}: not a forced move", p.id);
        assert_eq!(
            p.solution.len() % 2,
            1,
            "{}: ends with the solver's move",
            p.id
        );
        assert!((600..=2600).contains(&p.rating), "{}", p.id);
        let mut game = Game::from_position(pos, RuleSet::default());
        for (i, text) in p.solution.iter().enumerate() {
            assert!(game.outcome().is_none(), "{}: ply {i} after the end", p.id);
            let before = *game.position();
            let m = game
                .play_text(text)
                .unwrap_or_else(|e| panic!("{}: {text}: {e}", p.id));
            assert_eq!(&before.write_move(&m, Notation::Landing), text, "{}", p.id);
        }
    }
}

#[test]
fn the_engine_finds_the_first_move_of_the_first_puzzles() {
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 16,
        threads: 1,
    });
    for p in puzzles().iter().step_by(puzzles().len() / 6 + 1) {
        let pos = Position::from_fen(&p.fen).unwrap();
        engine.new_game();
        let r = engine.search(
            &SearchRequest::new(SearchRoot::new(pos), Limits::nodes(2_000_000)),
            &Arc::new(SearchControl::new()),
            &mut |_| {},
        );
        let best = r.best.unwrap();
        assert_eq!(
            pos.write_move(&best, Notation::Landing),
            p.solution[0],
            "{}",
            p.id
        );
        assert!(r.score.0 >= 150, "{}: winning ({})", p.id, r.score);
    }
}

#[test]
fn a_puzzle_near_a_rating_is_among_the_nearest_and_not_excluded() {
    let all = puzzles();
    let target = 1400.0;
    let mut distances: Vec<f64> = all
        .iter()
        .map(|p| (p.rating as f64 - target).abs())
        .collect();
    distances.sort_by(f64::total_cmp);
    let limit = distances[NEAREST.min(distances.len()) - 1];
    let mut seen = HashSet::new();
    for pick in 0..20 {
        let p = near_rating(target, &[], pick).unwrap();
        assert!((p.rating as f64 - target).abs() <= limit);
        seen.insert(p.id.clone());
    }
    assert!(seen.len() > 1, "different picks give different puzzles");
    let first = near_rating(target, &[], 0).unwrap();
    for pick in 0..20 {
        assert_ne!(
            near_rating(target, &[&first.id], pick).unwrap().id,
            first.id
        );
    }
    let every: Vec<&str> = all.iter().map(|p| p.id.as_str()).collect();
    assert!(near_rating(target, &every, 0).is_none());
}

#[test]
fn an_attempt_is_checked_move_by_move() {
    let p = puzzles()
        .iter()
        .find(|p| p.solution.len() >= 3)
        .expect("a puzzle with a reply");
    let pos = Position::from_fen(&p.fen).unwrap();
    // The right first move, in the federation's notation too: right, with the reply.
    let first = pos.parse_move(&p.solution[0]).unwrap();
    let captured_style = pos.write_move(&first, Notation::Captured);
    let a = check_attempt(p, &[captured_style]).unwrap();
    assert!(a.correct && !a.complete);
    assert_eq!(a.reply.as_ref().unwrap().landing, p.solution[1]);
    assert_eq!(a.remaining, p.solution.len().div_ceil(2) - 1);
    let after = pos.play(&first);
    let reply = after.parse_move(&p.solution[1]).unwrap();
    assert_eq!(a.fen, after.play(&reply).to_fen());
    // The whole line: solved.
    let mine: Vec<String> = p.solution.iter().step_by(2).cloned().collect();
    let a = check_attempt(p, &mine).unwrap();
    assert!(a.correct && a.complete && a.reply.is_none());
    // Another legal move (it does not win at once): wrong, with the expected move.
    let other = pos
        .legal_moves()
        .iter()
        .copied()
        .find(|m| *m != first)
        .unwrap();
    let a = check_attempt(p, &[pos.write_move(&other, Notation::Landing)]).unwrap();
    assert!(!a.correct && !a.complete);
    assert_eq!(a.expected.unwrap().landing, p.solution[0]);
    assert_eq!(a.fen, pos.to_fen());
    // An illegal move and too many moves are errors.
    assert_eq!(
        check_attempt(p, &["a1-h8".to_string()]).unwrap_err().code(),
        "illegal-move"
    );
    let mut too_many = mine.clone();
    too_many.push(mine[0].clone());
    assert_eq!(
        check_attempt(p, &too_many).unwrap_err().code(),
        "bad-request"
    );
}

#[test]
fn a_move_that_wins_at_once_is_right_even_if_not_the_stored_one() {
    // Any puzzle whose solution ends the game: the last move wins; any other move that also
    // ends the game with a win would be accepted the same way.
    for p in puzzles() {
        let mut game = Game::from_position(Position::from_fen(&p.fen).unwrap(), RuleSet::default());
        for t in &p.solution {
            game.play_text(t).unwrap();
        }
        if game.outcome().and_then(|o| o.winner()).is_some() {
            let mine: Vec<String> = p.solution.iter().step_by(2).cloned().collect();
            let a = check_attempt(p, &mine).unwrap();
            assert!(a.correct && a.complete);
        }
    }
}

#[test]
fn the_puzzle_rating_follows_glicko_2() {
    let new = PuzzleRating::default();
    assert_eq!(new.rating, 1500.0);
    let win_hard = rate_attempt(new, 1800.0, true);
    let win_easy = rate_attempt(new, 1200.0, true);
    let lose_easy = rate_attempt(new, 1200.0, false);
    let lose_hard = rate_attempt(new, 1800.0, false);
    assert!(win_hard.rating > win_easy.rating && win_easy.rating > 1500.0);
    assert!(lose_easy.rating < lose_hard.rating && lose_hard.rating < 1500.0);
    assert!(win_hard.deviation < new.deviation);
    // An established player moves less than a new one.
    let settled = PuzzleRating {
        rating: 1500.0,
        deviation: 60.0,
        volatility: 0.06,
    };
    let moved = rate_attempt(settled, 1500.0, true).rating - 1500.0;
    assert!(moved > 0.0 && moved < win_easy.rating - 1500.0);
    // Nonsense in: a new player's rating is the start.
    let junk = PuzzleRating {
        rating: f64::NAN,
        deviation: -1.0,
        volatility: 0.0,
    };
    assert_eq!(
        rate_attempt(junk, 1500.0, true),
        rate_attempt(new, 1500.0, true)
    );
}
