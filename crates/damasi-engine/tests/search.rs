//! Search basics on hand-made positions, at low depth so that the tests stay fast.

use std::sync::Arc;
use std::time::Duration;

use damasi::{Notation, Position, RuleSet};
use damasi_engine::{
    Engine, EngineOptions, Level, Limits, Score, SearchControl, SearchRequest, SearchResult,
    SearchRoot,
};

fn search_root(root: &SearchRoot, limits: &Limits) -> SearchResult {
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 1,
    });
    let control = Arc::new(SearchControl::new());
    engine.search(
        &SearchRequest::new(root.clone(), limits.clone()),
        &control,
        &mut |_| {},
    )
}

fn search_fen(fen: &str, depth: u32) -> (Position, SearchResult) {
    let pos = Position::from_fen(fen).unwrap();
    (
        pos,
        search_root(&SearchRoot::new(pos), &Limits::depth(depth)),
    )
}

fn best_text(pos: &Position, r: &SearchResult) -> String {
    pos.write_move(&r.best.expect("a move"), Notation::Landing)
}

#[test]
fn finds_a_shot_that_wins_material() {
    // d4-d5 forces d6xd4 (d2 guards d3), then d3xd5xb5xb7 takes three.
    let (pos, r) = search_fen("W:Wd2,d3,d4,e5:Bb6,c5,d6,h7", 4);
    assert_eq!(best_text(&pos, &r), "d4-d5");
    assert!(r.score.0 >= 150, "score {}", r.score);
}

#[test]
fn sees_the_draw_by_one_piece_each() {
    // The king must take a5, leaving one piece each: a draw under the default rules.
    let (_, r) = search_fen("W:WKa1:Ba5,h7", 3);
    assert_eq!(r.score, Score::DRAW);
}

#[test]
fn king_beats_lone_man_is_a_win_with_the_option() {
    let pos = Position::from_fen("W:WKa1:Ba5,h7").unwrap();
    let mut root = SearchRoot::new(pos);
    root.rules = RuleSet {
        king_beats_lone_man: true,
        ..RuleSet::default()
    };
    let r = search_root(&root, &Limits::depth(3));
    assert_eq!(r.score, Score::win_in(1));
}

#[test]
fn prefers_a_blocking_win() {
    // b6-b7 leaves the a7 man no move: Black, to move and blocked, loses.
    let (pos, r) = search_fen("W:WKa8,a6,a5,b6,c7:Ba7", 3);
    assert_eq!(best_text(&pos, &r), "b6-b7");
    assert_eq!(r.score, Score::win_in(1));
}

#[test]
fn a_side_with_no_move_loses() {
    let pos = Position::from_fen("B:WKa8,a6,a5,b7,c7:Ba7").unwrap();
    let r = search_root(&SearchRoot::new(pos), &Limits::depth(2));
    assert_eq!(r.best, None);
    assert_eq!(r.score, Score::loss_in(0));
}

#[test]
fn repetition_with_game_history_is_a_draw() {
    // Every move leads to a position the game has already seen: each one is a draw.
    let pos = Position::from_fen("W:WKa1,Kb1:BKh8,Kg8").unwrap();
    let mut root = SearchRoot::new(pos);
    root.history = pos
        .legal_moves()
        .iter()
        .map(|m| pos.play(m).key())
        .collect();
    let r = search_root(&root, &Limits::depth(4));
    assert_eq!(r.score, Score::DRAW);
}

#[test]
fn no_capture_limit_is_a_draw() {
    let pos = Position::from_fen("W:WKa1,Kb1,c3:BKh8,d6").unwrap();
    let mut root = SearchRoot::new(pos);
    root.rules = RuleSet {
        no_capture_limit: Some(50),
        ..RuleSet::default()
    };
    root.plies_since_capture = 49;
    let r = search_root(&root, &Limits::depth(3));
    // Unless a capture can be forced at once, the next ply ends the game drawn.
    if !r.best.unwrap().is_capture() {
        assert_eq!(r.score, Score::DRAW);
    }
}

#[test]
fn a_block_on_the_last_ply_before_the_no_capture_limit_still_wins() {
    // As the rules library judges it: a side left with no move loses, even on the ply that
    // reaches the no-capture limit.
    let pos = Position::from_fen("W:WKa8,a6,a5,b6,c7:Ba7").unwrap();
    let mut root = SearchRoot::new(pos);
    root.rules = RuleSet {
        no_capture_limit: Some(50),
        ..RuleSet::default()
    };
    root.plies_since_capture = 49;
    let r = search_root(&root, &Limits::depth(3));
    assert_eq!(best_text(&pos, &r), "b6-b7");
    assert_eq!(r.score, Score::win_in(1));
}

#[test]
fn returns_legal_moves_from_many_positions() {
    // Positions from a deterministic random playout.
    let mut pos = Position::start();
    let mut seed = 0x9E37_79B9u64;
    for _ in 0..120 {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let r = search_root(&SearchRoot::new(pos), &Limits::depth(3));
        let best = r.best.expect("a move when there are legal moves");
        assert!(
            legal.contains(&best),
            "illegal {best:?} in {}",
            pos.to_fen()
        );
        let mut p = pos;
        for m in &r.pv {
            assert!(
                p.legal_moves().contains(m),
                "illegal pv move in {}",
                pos.to_fen()
            );
            p = p.play(m);
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        pos = pos.play(&legal[(seed % legal.len() as u64) as usize]);
    }
}

#[test]
fn searches_nodes_with_more_moves_than_are_ordered() {
    // Sixteen white kings: 122 moves at the root and more than 128 after some replies, past
    // the part of the list the search orders.
    let fen = "W:WKb4,Kc3,Kd2,Kh4,Kh7,Kg8,Kc7,Kf6,Kg3,Kf2,Kh2,Kb8,Ke5,Kd8,Kb6,Kb2:BKa1";
    let (pos, r) = search_fen(fen, 4);
    assert!(pos.legal_moves().contains(&r.best.expect("a move")));
}

#[test]
fn a_first_iteration_cut_short_reports_no_made_up_score() {
    // The first root move alone takes more than the node limit (checked every 1024 nodes), so
    // depth 1 ends before any move has a score. Nothing may read as a win (the position is
    // about four men down for White at depth 3).
    let fen = "W:WKe2,Ka6,Ka3,e7,Kg6,a7,Kd1,Kc1,f6,Kc8:BKg8,d2,Kh8,Kc7,Kg2,Kc2,Kg3,Kh7,Ka2,Kf8";
    let pos = Position::from_fen(fen).unwrap();
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 1,
    });
    let control = Arc::new(SearchControl::new());
    let mut scores = Vec::new();
    let r = engine.search(
        &SearchRequest::new(SearchRoot::new(pos), Limits::nodes(1)),
        &control,
        &mut |info| scores.push(info.score),
    );
    assert!(pos.legal_moves().contains(&r.best.expect("a move")));
    assert!(!r.score.is_win() && !r.score.is_loss(), "{}", r.score);
    for s in scores {
        assert!(!s.is_win() && !s.is_loss(), "info score {s}");
    }
}

#[test]
fn a_panic_in_the_main_thread_also_ends_the_helpers() {
    // The Hub catches a panicking search and still answers; that only works if the panic
    // reaches it, i.e. if the helper threads stop too (an infinite search never ends alone).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| {
            let mut engine = Engine::new(EngineOptions {
                hash_mb: 4,
                threads: 2,
            });
            let control = Arc::new(SearchControl::new());
            let limits = Limits {
                infinite: true,
                ..Limits::default()
            };
            let root = SearchRoot::new(Position::start());
            engine.search(
                &SearchRequest::new(root.clone(), limits.clone()),
                &control,
                &mut |_| panic!("a failure in the main search thread"),
            )
        });
        let _ = tx.send(outcome.is_err());
    });
    let panicked = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the search returned (by panicking)");
    assert!(panicked);
}

#[test]
fn stops_on_node_and_time_limits_and_on_stop() {
    let root = SearchRoot::new(Position::start());
    let r = search_root(&root, &Limits::nodes(5_000));
    assert!(r.best.is_some());
    assert!(r.nodes < 20_000, "{} nodes", r.nodes);

    let r = search_root(&root, &Limits::move_time(Duration::from_millis(50)));
    assert!(r.best.is_some());

    // An infinite search returns after `stop` from another thread.
    let control = Arc::new(SearchControl::new());
    let c2 = Arc::clone(&control);
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        c2.stop();
    });
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 2,
    });
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let r = engine.search(
        &SearchRequest::new(root.clone(), limits.clone()),
        &control,
        &mut |_| {},
    );
    stopper.join().unwrap();
    assert!(r.best.is_some());
}

#[test]
fn ponder_search_becomes_timed_after_ponder_hit() {
    let root = SearchRoot::new(Position::start());
    let control = Arc::new(SearchControl::new_ponder());
    let c2 = Arc::clone(&control);
    let hitter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        c2.ponder_hit();
    });
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 1,
    });
    let r = engine.search(
        &SearchRequest::new(root.clone(), Limits::move_time(Duration::from_millis(40))),
        &control,
        &mut |_| {},
    );
    hitter.join().unwrap();
    assert!(r.best.is_some());
}

#[test]
fn one_thread_is_deterministic() {
    let root = SearchRoot::new(Position::start());
    let a = search_root(&root, &Limits::depth(6));
    let b = search_root(&root, &Limits::depth(6));
    assert_eq!(a, b);
}

#[test]
fn multipv_reports_distinct_lines() {
    let root = SearchRoot::new(Position::start());
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 1,
    });
    let control = Arc::new(SearchControl::new());
    let mut last = Vec::new();
    engine.search(
        &SearchRequest::new(root.clone(), Limits::depth(4)).with_multipv(3),
        &control,
        &mut |i| {
            if i.depth == 4 {
                last.push((i.multipv, i.pv[0], i.score));
            }
        },
    );
    assert_eq!(last.len(), 3);
    assert_eq!(last.iter().map(|l| l.0).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert!(last[0].1 != last[1].1 && last[1].1 != last[2].1 && last[0].1 != last[2].1);
    assert!(last[0].2 >= last[1].2 && last[1].2 >= last[2].2);
}

#[test]
fn a_search_restricted_to_given_moves_scores_just_those() {
    // The position of the shot above: d4-d5 wins material, the quiet moves do not.
    let pos = Position::from_fen("W:Wd2,d3,d4,e5:Bb6,c5,d6,h7").unwrap();
    let mv = |text: &str| pos.parse_move(text).unwrap();
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 1,
    });
    let mut run = |moves: Vec<damasi::Move>, lines: usize| {
        let control = Arc::new(SearchControl::new());
        let mut last = Vec::new();
        let request = SearchRequest::new(SearchRoot::new(pos), Limits::depth(4))
            .with_multipv(lines)
            .with_root_moves(moves);
        let r = engine.search(&request, &control, &mut |i| {
            if i.depth == 4 {
                last.push((i.pv[0], i.score));
            }
        });
        (r, last)
    };
    // Two quiet moves: both lines reported, one each, and the shot in neither.
    let quiet = [mv("e5-f5"), mv("d2-c2")];
    let (r, lines) = run(quiet.to_vec(), 2);
    assert!(quiet.contains(&r.best.unwrap()));
    let mut firsts: Vec<_> = lines.iter().map(|l| l.0).collect();
    firsts.sort_by_key(|m| pos.write_move(m, Notation::Landing));
    assert_eq!(firsts, vec![quiet[1], quiet[0]]);
    // The shot among the candidates is the best of them, scored above the quiet move.
    let (r, lines) = run(vec![quiet[0], mv("d4-d5")], 2);
    assert_eq!(r.best.unwrap(), mv("d4-d5"));
    assert!(lines[0].1 .0 >= lines[1].1 .0 + 100, "{lines:?}");
    // A restriction with no legal move in it is no restriction.
    let elsewhere = Position::start().parse_move("a3-a4").unwrap();
    let (r, _) = run(vec![elsewhere], 1);
    assert_eq!(r.best.unwrap(), mv("d4-d5"));
}

#[test]
fn weak_levels_play_legal_moves() {
    let pos = Position::start();
    let root = SearchRoot::new(pos);
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 1,
    });
    for level in 1..=10 {
        let control = Arc::new(SearchControl::new());
        let r = engine.search(
            &SearchRequest::new(root.clone(), Limits::depth(6)).with_level(Level::new(level)),
            &control,
            &mut |_| {},
        );
        assert!(pos.legal_moves().contains(&r.best.unwrap()));
    }
}

#[test]
fn never_loses_on_time_with_a_short_clock() {
    // Both sides start with 300 ms and 10 ms a move; the clock runs on wall time.
    let mut game = damasi::Game::new();
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 1,
    });
    let mut left = [Duration::from_millis(300); 2];
    let inc = Duration::from_millis(10);
    for _ in 0..40 {
        if game.outcome().is_some() {
            break;
        }
        let side = game.position().side_to_move() as usize;
        let limits = Limits::clock(left[side], inc, None);
        let control = Arc::new(SearchControl::new());
        let start = std::time::Instant::now();
        let r = engine.search(
            &SearchRequest::new(SearchRoot::from_game(&game), limits.clone()),
            &control,
            &mut |_| {},
        );
        let used = start.elapsed();
        assert!(
            used < left[side],
            "flag fell: used {used:?} of {:?}",
            left[side]
        );
        left[side] = left[side] - used + inc;
        game.play(&r.best.unwrap()).unwrap();
    }
}

#[test]
fn search_root_from_moves_checks_legality_and_counts_quiet_plies() {
    let start = Position::start();
    let m1 = start.legal_moves()[0];
    let p1 = start.play(&m1);
    let m2 = p1.legal_moves()[0];
    let root = SearchRoot::from_moves(start, &[m1, m2], RuleSet::default()).unwrap();
    assert_eq!(root.position, p1.play(&m2));
    assert_eq!(root.history, vec![start.key(), p1.key()]);
    assert_eq!(root.plies_since_capture, 2);
    // The second move is played from the wrong position: error at index 1.
    assert_eq!(
        SearchRoot::from_moves(start, &[m1, m1], RuleSet::default()),
        Err(1)
    );
}

/// The score and move of a search of `root` at depth 4 with `contempt`, and the depth-4 score
/// of each line when `moves` restricts the root (two lines).
fn search_with_contempt(
    root: &SearchRoot,
    contempt: i32,
    moves: Vec<damasi::Move>,
) -> (SearchResult, Vec<(damasi::Move, Score)>) {
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 1,
    });
    let control = Arc::new(SearchControl::new());
    let request = SearchRequest::new(root.clone(), Limits::depth(4))
        .with_contempt(contempt)
        .with_multipv(moves.len().max(1))
        .with_root_moves(moves);
    let mut lines = Vec::new();
    let r = engine.search(&request, &control, &mut |i| {
        if i.depth == 4 {
            lines.push((i.pv[0], i.score));
        }
    });
    (r, lines)
}

#[test]
fn with_contempt_a_forced_draw_is_worth_less_than_nothing_to_the_side_to_move() {
    // Every move repeats a position of the game (as in the repetition test above): a draw,
    // worth 0 without contempt and exactly -contempt to the side that must take it.
    let pos = Position::from_fen("W:WKa1,Kb1:BKh8,Kg8").unwrap();
    let mut root = SearchRoot::new(pos);
    root.history = pos
        .legal_moves()
        .iter()
        .map(|m| pos.play(m).key())
        .collect();
    assert_eq!(
        search_with_contempt(&root, 0, Vec::new()).0.score,
        Score::DRAW
    );
    assert_eq!(
        search_with_contempt(&root, 20, Vec::new()).0.score,
        Score(-20)
    );
    // One king each: every move keeps it a draw by the rules, for either side to move.
    for fen in ["W:WKa1:BKh8", "B:WKa1:BKh8"] {
        let root = SearchRoot::new(Position::from_fen(fen).unwrap());
        assert_eq!(
            search_with_contempt(&root, 35, Vec::new()).0.score,
            Score(-35),
            "{fen}"
        );
    }
}

#[test]
fn with_contempt_the_engine_plays_on_rather_than_repeat_in_a_level_position() {
    // Two kings each, no capture anywhere: a level position (at depth 4 every quiet move
    // scores a little below 0 for White; which is best and by how much depends on the
    // network). c3-b3 repeats a position the game has had.
    let pos = Position::from_fen("W:WKa1,Kc3:BKh8,Kf6").unwrap();
    let repeat = pos.parse_move("c3-b3").unwrap();
    let mut root = SearchRoot::new(pos);
    root.history = vec![pos.play(&repeat).key()];
    let every: Vec<damasi::Move> = pos.legal_moves().iter().copied().collect();
    // Without contempt the draw (0) beats playing on a little worse: the engine repeats.
    let (r, lines) = search_with_contempt(&root, 0, every.clone());
    let last = &lines[lines.len() - every.len()..];
    assert_eq!(r.best, Some(repeat), "{lines:?}");
    assert!(last.contains(&(repeat, Score::DRAW)), "{last:?}");
    let &(on, level) = last
        .iter()
        .filter(|l| l.0 != repeat)
        .max_by_key(|l| l.1)
        .unwrap();
    assert!(
        (-60..0).contains(&level.0),
        "the best other move is level: {level:?}"
    );
    // With a contempt beyond that shortfall the repetition is worth -contempt, less than
    // playing on.
    let contempt = 10 - level.0;
    let (r, lines) = search_with_contempt(&root, contempt, vec![repeat, on]);
    let score_of = |m| {
        lines
            .iter()
            .rev()
            .find(|l: &&(damasi::Move, Score)| l.0 == m)
            .unwrap()
            .1
    };
    assert_eq!(score_of(repeat), Score(-contempt));
    assert_eq!(r.best, Some(on), "{lines:?}");
    // And unrestricted, with a contempt well beyond every quiet move's shortfall: the
    // engine's move is not the repetition.
    let (r, _) = search_with_contempt(&root, 100, Vec::new());
    assert_ne!(r.best, Some(repeat));
}
