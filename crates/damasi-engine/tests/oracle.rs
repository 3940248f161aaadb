//! The endgame oracle hook: probed in the search once captures are resolved, used at the root
//! to keep only the moves that keep the best value, and only under the default rules. (The
//! real tables drive it in `damasi-tb`'s tests; here small oracles with hand-analysed
//! knowledge do.)

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use damasi::{Color, MoveList, Notation, Position, RuleSet, Wdl};
use damasi_engine::oracle::{EndgameOracle, TB_WIN, TB_WIN_BOUND};
use damasi_engine::{
    Engine, EngineOptions, Limits, Score, SearchControl, SearchRequest, SearchResult, SearchRoot,
};

/// Knows what hand analysis knows about kings-only positions of up to three pieces: a side
/// without pieces has lost, one piece each is a draw, two kings against one are a draw once
/// no capture is pending (the lone king always escapes the diagonals and files); with a
/// capture pending the value is the best over the captures. Counts its probes.
#[derive(Default)]
struct KingsOracle {
    probes: AtomicU64,
    /// Probes of positions with more pieces than `max_pieces`.
    too_large: AtomicU64,
    /// Probes of positions with a capture pending.
    with_capture: AtomicU64,
}

impl KingsOracle {
    fn value(pos: &Position) -> Option<Wdl> {
        let us = pos.side_to_move();
        let (n_us, n_them) = (pos.count(us), pos.count(!us));
        if n_us == 0 {
            return Some(Wdl::Loss);
        }
        if n_them == 0 {
            return Some(Wdl::Win);
        }
        if n_us + n_them > 3 || pos.men_of(Color::White) | pos.men_of(Color::Black) != 0 {
            return None;
        }
        if n_us == 1 && n_them == 1 {
            return Some(Wdl::Draw);
        }
        if !pos.has_capture() {
            return Some(Wdl::Draw);
        }
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        moves
            .iter()
            .map(|m| KingsOracle::value(&pos.play(m)).map(Wdl::negate))
            .try_fold(Wdl::Loss, |best, v| Some(best.max(v?)))
    }
}

impl EndgameOracle for KingsOracle {
    fn max_pieces(&self) -> u32 {
        3
    }

    fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        self.probes.fetch_add(1, Ordering::Relaxed);
        if pos.count(Color::White) + pos.count(Color::Black) > self.max_pieces() {
            self.too_large.fetch_add(1, Ordering::Relaxed);
        }
        if pos.has_capture() {
            self.with_capture.fetch_add(1, Ordering::Relaxed);
        }
        KingsOracle::value(pos)
    }
}

/// A made-up oracle for three-piece positions: the side to move loses when a white king
/// stands on h8, every other position is a draw.
struct H8Oracle;

impl EndgameOracle for H8Oracle {
    fn max_pieces(&self) -> u32 {
        3
    }

    fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        if pos.count(Color::White) + pos.count(Color::Black) > 3 {
            return None;
        }
        let h8 = "h8".parse::<damasi::Square>().unwrap().bit();
        Some(if pos.kings_of(Color::White) & h8 != 0 {
            Wdl::Loss
        } else {
            Wdl::Draw
        })
    }
}

fn search(root: SearchRoot, depth: u32, oracle: Option<Arc<dyn EndgameOracle>>) -> SearchResult {
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        threads: 1,
    });
    engine.set_endgame_oracle(oracle);
    let control = Arc::new(SearchControl::new());
    engine.search(
        &SearchRequest::new(root, Limits::depth(depth)),
        &control,
        &mut |_| {},
    )
}

fn root(fen: &str) -> SearchRoot {
    SearchRoot::new(Position::from_fen(fen).unwrap())
}

#[test]
fn two_kings_against_one_is_a_draw_with_the_oracle_and_a_win_without() {
    // The evaluation likes White's extra king; the oracle knows it cannot win.
    let fen = "W:WKa1,Kb2:BKh8";
    let without = search(root(fen), 8, None);
    assert!(without.score.0 >= 100, "{}", without.score);
    let oracle = Arc::new(KingsOracle::default());
    let with = search(root(fen), 8, Some(oracle.clone()));
    assert_eq!(with.score, Score::DRAW);
    let pos = Position::from_fen(fen).unwrap();
    assert!(pos.legal_moves().contains(&with.best.unwrap()));
    assert!(oracle.probes.load(Ordering::Relaxed) > 0);
}

#[test]
fn the_search_asks_only_about_quiet_positions_in_the_oracles_range() {
    // Five kings: beyond the oracle at the root; captures lead into its range.
    let oracle = Arc::new(KingsOracle::default());
    let r = search(root("W:WKa1,Kb2,Kd4:BKh8,Kd6"), 6, Some(oracle.clone()));
    assert!(r.best.is_some());
    assert_eq!(oracle.too_large.load(Ordering::Relaxed), 0);
    assert_eq!(oracle.with_capture.load(Ordering::Relaxed), 0);
}

#[test]
fn the_root_keeps_only_moves_that_keep_the_best_value() {
    // Only h1-h8 leaves Black (to move) lost by the made-up oracle.
    let pos = Position::from_fen("W:WKh1,Kb2:BKd5").unwrap();
    let r = search(SearchRoot::new(pos), 6, Some(Arc::new(H8Oracle)));
    assert_eq!(pos.write_move(&r.best.unwrap(), Notation::Landing), "h1-h8");
    assert!(r.score.is_tb_win(), "{}", r.score);
    assert!(r.score.0 <= TB_WIN);
}

#[test]
fn other_rules_do_not_ask_the_oracle() {
    let mut r = root("W:WKa1,Kb2:BKh8");
    r.rules = RuleSet {
        no_capture_limit: Some(50),
        ..RuleSet::default()
    };
    let oracle = Arc::new(KingsOracle::default());
    let res = search(r, 6, Some(oracle.clone()));
    assert!(res.score.0 >= 100, "{}", res.score);
    assert_eq!(oracle.probes.load(Ordering::Relaxed), 0);
}

#[test]
fn known_wins_rank_between_evaluations_and_wins_on_the_board() {
    assert!(Score::win_in(100).0 > TB_WIN);
    const { assert!(TB_WIN_BOUND > 10_000) };
    assert!(Score(TB_WIN - 5).is_tb_win());
    assert!(!Score(TB_WIN - 5).is_win());
}
