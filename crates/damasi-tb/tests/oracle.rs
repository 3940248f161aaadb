//! The tables as the engine's endgame oracle: the search knows the endings the tables know.

mod common;

use std::sync::Arc;

use damasi::{Color, Game, Position, RuleSet, Wdl};
use damasi_engine::oracle::EndgameOracle;
use damasi_engine::{
    Engine, EngineOptions, Limits, Score, SearchControl, SearchRequest, SearchResult, SearchRoot,
};
use damasi_tb::{build_all, Signature, Tablebase, TablebaseOracle};

/// The oracle over every table up to four pieces, read from the files when needed.
fn oracle() -> Arc<TablebaseOracle> {
    let _ = common::tables(); // built before the files are read
    let o = TablebaseOracle::open(&common::dir(), 5).expect("the directory lists");
    Arc::new(o.expect("complete up to four pieces"))
}

fn engine(oracle: Option<Arc<TablebaseOracle>>) -> Engine {
    let mut e = Engine::new(EngineOptions {
        hash_mb: 8,
        threads: 1,
    });
    e.set_endgame_oracle(oracle.map(|o| o as Arc<dyn EndgameOracle>));
    e
}

fn search(engine: &mut Engine, root: SearchRoot, depth: u32) -> SearchResult {
    let control = Arc::new(SearchControl::new());
    engine.search(
        &SearchRequest::new(root, Limits::depth(depth)),
        &control,
        &mut |_| {},
    )
}

#[test]
fn the_oracle_covers_what_was_built() {
    let _ = common::tables();
    let o = oracle();
    assert_eq!(o.max_pieces(), 4);
    let pos = Position::from_fen("W:WKa1,Kb2:BKh8").unwrap();
    assert_eq!(o.probe(&pos), Some(Wdl::Draw));
    // Five pieces: not covered, so unknown rather than a guess.
    let five = Position::from_fen("W:WKa1,Kb2,Kc3:BKh8,Kg8").unwrap();
    assert_eq!(o.probe(&five), None);
    assert_eq!(o.probe_wdl(&five), None);
    // A directory without tables gives no oracle, and no error.
    let empty = std::env::temp_dir().join(format!("damasi-tb-none-{}", std::process::id()));
    assert!(TablebaseOracle::open(&empty, 5).unwrap().is_none());
    // Asked for three pieces, it covers three.
    let three = TablebaseOracle::open(&common::dir(), 3).unwrap().unwrap();
    assert_eq!(three.max_pieces(), 3);
    assert_eq!(
        three.probe(&Position::from_fen("W:WKa1,Kb1,Kc1:BKh8").unwrap()),
        None
    );
    // Tables already in memory serve as well.
    let loaded = TablebaseOracle::new(Tablebase::open(&common::dir()).unwrap()).unwrap();
    assert_eq!(loaded.max_pieces(), 4);
    assert_eq!(loaded.probe(&pos), Some(Wdl::Draw));
    assert_eq!(o.load_all(), 0);
    assert!(o.errors().is_empty());
}

#[test]
fn a_piece_count_in_progress_is_covered_table_by_table() {
    let full = common::tables();
    // Every three-piece table and one four-piece pair (a king against three, both sides to
    // move), as a four-piece build stopped after its first pair would leave them.
    let dir = std::env::temp_dir().join(format!("damasi-tb-partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let built = [Signature::new(0, 1, 0, 3), Signature::new(0, 3, 0, 1)];
    for sig in Signature::all_with(3).into_iter().chain(built) {
        let name = sig.file_name();
        std::fs::copy(common::dir().join(&name), dir.join(&name)).unwrap();
    }
    let o = TablebaseOracle::open(&dir, 4).unwrap().unwrap();
    assert_eq!((o.complete_pieces(), o.max_pieces()), (3, 4));
    assert_eq!(
        o.partial(),
        Some((2, Signature::all_with(4).len())),
        "two of the four-piece tables"
    );
    let probe = |fen: &str| o.probe(&Position::from_fen(fen).unwrap());
    // Three kings against one, either side to move: known, and as the full set says.
    for fen in [
        "W:WKa1,Kb1,Kc1:BKh8",
        "B:WKa1,Kb1,Kc1:BKh8",
        "W:WKd4:BKa8,Kb7,Kh1",
    ] {
        let want = full.probe(&Position::from_fen(fen).unwrap()).unwrap();
        assert_eq!(probe(fen), Some(want), "{fen}");
    }
    // Two kings against two: that table is not there, so unknown, never a guess.
    assert_eq!(probe("W:WKa1,Kc1:BKh8,Kf8"), None);
    // ...unless a capture is on the board: it leads into the complete three-piece tables.
    // White's king b2 must take b5 (landing b6 to b8), leaving two kings against one.
    let fen = "W:WKa1,Kb2:BKb5,Kh8";
    let want = full.probe(&Position::from_fen(fen).unwrap()).unwrap();
    assert_eq!(probe(fen), Some(want));
    // The engine asks about four pieces, and gets what is known.
    assert_eq!(o.max_pieces(), EndgameOracle::max_pieces(&o));
    // Asked for three pieces, the same directory is complete to three and nothing more.
    let three = TablebaseOracle::open(&dir, 3).unwrap().unwrap();
    assert_eq!((three.max_pieces(), three.partial()), (3, None));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_table_makes_its_probes_unknown_not_wrong() {
    let dir = std::env::temp_dir().join(format!("damasi-tb-damaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    build_all(&dir, 3, |_| {}).unwrap();
    // Two kings against one, White to move: cut the file short.
    let path = dir.join(Signature::new(0, 2, 0, 1).file_name());
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let o = TablebaseOracle::open(&dir, 5).unwrap().unwrap();
    assert_eq!(o.max_pieces(), 3);
    assert_eq!(
        o.probe(&Position::from_fen("W:WKa1,Kb2:BKh8").unwrap()),
        None
    );
    // Other tables still answer.
    // Other tables still answer: the lone king to move against two is not lost.
    let other = Position::from_fen("W:WKa1:BKh8,Kg8").unwrap();
    assert_eq!(o.probe(&other), Some(Wdl::Draw));
    let errors = o.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("not a valid table"), "{errors:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_kings_against_one_are_a_draw_for_the_engine_with_tables() {
    let _ = common::tables();
    let fen = "W:WKa1,Kb2:BKh8";
    let root = || SearchRoot::new(Position::from_fen(fen).unwrap());
    // Without the tables the search takes the extra king for a winning advantage.
    let without = search(&mut engine(None), root(), 10);
    assert!(without.score.0 >= 100, "{}", without.score);
    let with = search(&mut engine(Some(oracle())), root(), 10);
    assert_eq!(with.score, Score::DRAW);
}

#[test]
fn three_kings_against_one_score_as_a_win_and_the_engine_converts_it() {
    let _ = common::tables();
    let fen = "W:WKa1,Kb1,Kc1:BKh8";
    let start = Position::from_fen(fen).unwrap();
    assert_eq!(common::value(fen), Wdl::Win);
    let o = oracle();
    let r = search(&mut engine(Some(o.clone())), SearchRoot::new(start), 8);
    assert!(r.score.is_tb_win() || r.score.is_win(), "{}", r.score);

    // White with the tables against Black without them: the win must be converted, not
    // circled (a repetition would be a draw).
    let mut white = engine(Some(o.clone()));
    let mut black = engine(None);
    let mut game = Game::from_position(start, RuleSet::default());
    for _ in 0..200 {
        if game.is_over() {
            break;
        }
        let e = if game.position().side_to_move() == Color::White {
            &mut white
        } else {
            &mut black
        };
        let r = search(e, SearchRoot::from_game(&game), 8);
        game.play(&r.best.expect("a legal move")).unwrap();
        if game.position().side_to_move() == Color::Black {
            // Every white move keeps the win.
            assert_eq!(
                o.probe(game.position()),
                Some(Wdl::Loss),
                "{:?}",
                game.history()
            );
        }
    }
    let outcome = game.outcome().expect("the game ends within 200 plies");
    assert_eq!(outcome.winner(), Some(Color::White), "{outcome:?}");
}

#[test]
fn with_distances_every_winning_move_brings_the_conversion_nearer() {
    let _ = common::tables();
    let o = oracle();
    // Depth 1: the search alone cannot see a conversion; the distances at the root keep only
    // the moves that bring it nearest, so the win is still converted at once.
    for fen in [
        "W:WKa1,Kb1,Kc1:BKh8",
        "W:WKa1,Kh1:BKa8",
        "W:WKa1,Kb1,c3:BKh8",
    ] {
        let mut white = engine(Some(o.clone()));
        let mut black = engine(None);
        let mut game = Game::from_position(Position::from_fen(fen).unwrap(), RuleSet::default());
        assert_eq!(o.probe(game.position()), Some(Wdl::Win), "{fen}");
        let mut conversions = 0;
        for _ in 0..200 {
            if game.is_over() {
                break;
            }
            let before = *game.position();
            let white_to_move = before.side_to_move() == Color::White;
            let e = if white_to_move {
                &mut white
            } else {
                &mut black
            };
            let r = search(e, SearchRoot::from_game(&game), 1);
            game.play(&r.best.expect("a legal move")).unwrap();
            let after = game.position();
            if damasi_engine::oracle::converts(&before, after) {
                conversions += 1;
            } else if white_to_move {
                // The distance left drops by exactly the ply just played.
                let d = o.probe_dtc(&before).expect("a won root has a distance");
                assert_eq!(
                    o.probe_dtc(after),
                    Some(d - 1),
                    "{fen}: {:?}",
                    game.history()
                );
            }
        }
        let outcome = game.outcome().expect("the game ends within 200 plies");
        assert_eq!(outcome.winner(), Some(Color::White), "{fen}: {outcome:?}");
        assert!(conversions > 0);
    }
}
