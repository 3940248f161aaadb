//! Tactics puzzles from self-play: positions where exactly one move wins.
//!
//! [`generate`] plays engine self-play games from the opening set (with a few random plies
//! and a small, varying node budget per move, so that the games differ and contain
//! mistakes), and looks at every position of them. A position becomes a puzzle when
//!
//! - the side to move has at least two legal moves (a forced move is no puzzle);
//! - a search of the position says the best move wins (a score of at least [`WIN`]
//!   centi-men, a win on the board or a win the endgame tables know of);
//! - a deeper search of the position after each other move scores it at most [`EQUAL`]
//!   (roughly equal or worse), and the endgame tables, where they reach, agree: the best
//!   move wins and no other move does.
//!
//! The solution line is the winning move, the engine's best reply, and further winning
//! moves as long as each of them is again the only winning move (or the only legal move);
//! it always ends with a move of the solving side. The rating grows with the depth at which
//! the search first settles on the winning move, the number of legal moves, the length of
//! the line, and for quiet moves and sacrifices.
//!
//! `damasi puzzles generate` writes the puzzles as JSON ([`puzzles_json`]).

use std::collections::HashSet;
use std::sync::Arc;

use damasi::{Color, Game, Move, Notation, Position, RuleSet, Wdl};
use damasi_engine::oracle::EndgameOracle;
use damasi_engine::{
    Engine, EngineOptions, Limits, Score, SearchControl, SearchRequest, SearchRoot,
};
use serde_json::{json, Value};

/// A score (centi-men, side to move's view) at or above which a move counts as winning.
pub const WIN: i32 = 200;
/// A score at or below which a move counts as no better than roughly equal.
pub const EQUAL: i32 = 60;

/// Longest self-play game, in plies.
const MAX_PLIES: usize = 200;
/// Plies of a game skipped before looking for puzzles (the opening).
const FIRST_PLY: usize = 6;
/// Most moves of the solving side in a solution line.
const MAX_SOLVER_MOVES: usize = 3;
/// Most puzzles taken from one game.
const MAX_PER_GAME: usize = 3;

/// How to generate puzzles.
#[derive(Clone, Debug)]
pub struct PuzzleConfig {
    /// Self-play games to play.
    pub games: usize,
    /// Fewest nodes per self-play move (each game uses a budget between this and 4 times
    /// it).
    pub play_nodes: u64,
    /// Nodes of the first, cheap look at each position (two lines).
    pub scan_nodes: u64,
    /// Nodes of the deeper search of the position and of each alternative.
    pub verify_nodes: u64,
    /// Seed of the random plies after each opening.
    pub seed: u64,
    /// Percentage of self-play moves chosen at random instead of by the engine (the
    /// mistakes that make puzzles).
    pub random_percent: u32,
    /// The openings (moves from the start position); games go round them.
    pub openings: Vec<Vec<Move>>,
}

impl Default for PuzzleConfig {
    fn default() -> Self {
        PuzzleConfig {
            games: 100,
            play_nodes: 100,
            scan_nodes: 60_000,
            verify_nodes: 400_000,
            seed: 1,
            random_percent: 3,
            openings: Vec::new(),
        }
    }
}

/// One puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    /// Stable identifier: the position's Zobrist key in hexadecimal (16 digits).
    pub id: String,
    /// The position (side to move solves).
    pub fen: String,
    /// The solution: the winning move, the reply, the next winning move, ... (odd length,
    /// ends with a move of the solving side).
    pub line: Vec<Move>,
    /// Estimated difficulty on a Glicko-like scale (600..2600).
    pub rating: u32,
    /// Depth (plies) of the first iteration from which the search kept the winning move
    /// with a winning score.
    pub found_depth: u32,
    /// Legal moves in the position.
    pub legal_moves: usize,
    /// Score of the winning move from the deeper search (centi-men, or a win).
    pub score: Score,
    /// Best score of any other move from the deeper searches.
    pub second: Score,
    /// Short tags: `quiet`, `sacrifice`, `capture`, `promotion`, `king`, `endgame`,
    /// `tablebase`.
    pub themes: Vec<&'static str>,
}

impl Puzzle {
    /// The solution in landing notation, each move written in the position it is played in.
    pub fn line_text(&self) -> Vec<String> {
        let mut pos = Position::from_fen(&self.fen).expect("a puzzle's FEN is valid");
        let mut out = Vec::new();
        for m in &self.line {
            out.push(pos.write_move(m, Notation::Landing));
            pos = pos.play(m);
        }
        out
    }

    /// The puzzle as a JSON object (`id`, `fen`, `side`, `solution`, `rating`, ...).
    pub fn to_json(&self) -> Value {
        let pos = Position::from_fen(&self.fen).expect("a puzzle's FEN is valid");
        json!({
            "id": self.id,
            "fen": self.fen,
            "side": pos.side_to_move().name(),
            "solution": self.line_text(),
            "rating": self.rating,
            "found_depth": self.found_depth,
            "legal_moves": self.legal_moves,
            "score": self.score.to_string(),
            "second": self.second.to_string(),
            "themes": self.themes,
        })
    }
}

/// The file `damasi puzzles generate` writes: a header and the puzzles.
pub fn puzzles_json(puzzles: &[Puzzle], config: &PuzzleConfig, note: &str) -> Value {
    json!({
        "format": 1,
        "generator": "damasi puzzles generate",
        "note": note,
        "settings": {
            "games": config.games,
            "play_nodes": config.play_nodes,
            "scan_nodes": config.scan_nodes,
            "verify_nodes": config.verify_nodes,
            "seed": config.seed,
            "random_percent": config.random_percent,
            "win": WIN,
            "equal": EQUAL,
        },
        "puzzles": puzzles.iter().map(Puzzle::to_json).collect::<Vec<_>>(),
    })
}

/// [`puzzles_json`] as the text of a file (indented, with a final newline).
pub fn puzzles_file(puzzles: &[Puzzle], config: &PuzzleConfig, note: &str) -> String {
    serde_json::to_string_pretty(&puzzles_json(puzzles, config, note))
        .expect("JSON values serialise")
        + "\n"
}

/// What [`generate`] reports after each game.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    /// Games played so far.
    pub games: usize,
    /// Positions looked at so far.
    pub positions: usize,
    /// Positions that passed the cheap look.
    pub candidates: usize,
    /// Puzzles found so far.
    pub puzzles: usize,
}

/// A small xorshift generator (reproducible games; not for anything secret).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The searches behind the puzzle tests.
struct Analyst {
    engine: Engine,
    oracle: Option<Arc<dyn EndgameOracle>>,
}

/// What a search of one position found.
struct Look {
    /// Best line's score and moves.
    best: (Score, Vec<Move>),
    /// Second line's score, if there was one.
    second: Option<Score>,
    /// First depth from which the best move and a winning score stayed.
    found_depth: u32,
}

fn is_winning(s: Score) -> bool {
    s.0 >= WIN
}

impl Analyst {
    fn search(&mut self, game: &Game, nodes: u64, multipv: usize) -> Look {
        let request = SearchRequest::new(SearchRoot::from_game(game), Limits::nodes(nodes))
            .with_multipv(multipv);
        let control = Arc::new(SearchControl::new());
        let mut per_depth: Vec<(u32, Option<Move>, Score)> = Vec::new();
        let mut lines: Vec<(Score, Vec<Move>)> = Vec::new();
        let mut last_depth = 0;
        let result = self.engine.search(&request, &control, &mut |info| {
            if info.depth != last_depth {
                last_depth = info.depth;
                lines.clear();
            }
            if info.multipv == 1 {
                per_depth.push((info.depth, info.pv.first().copied(), info.score));
            }
            lines.push((info.score, info.pv.clone()));
        });
        let best_move = result.best;
        let mut found_depth = result.depth.max(1);
        for &(d, m, s) in per_depth.iter().rev() {
            if m == best_move && is_winning(s) {
                found_depth = d;
            } else {
                break;
            }
        }
        lines.sort_by_key(|l| std::cmp::Reverse(l.0));
        let second = if multipv > 1 && lines.len() > 1 {
            Some(lines[1].0)
        } else {
            None
        };
        Look {
            best: (result.score, result.pv),
            second,
            found_depth,
        }
    }

    /// The value of playing `m` in `game` for the side that plays it: the game's end if it
    /// ends, else minus a search of the position after it.
    fn move_score(&mut self, game: &Game, m: &Move, nodes: u64) -> Score {
        let mut g = game.clone();
        let me = game.position().side_to_move();
        if g.play(m).is_err() {
            return Score(-Score::MATE);
        }
        if let Some(o) = g.outcome() {
            return match o.winner() {
                Some(w) if w == me => Score::win_in(1),
                Some(_) => Score::loss_in(1),
                None => Score::DRAW,
            };
        }
        let look = self.search(&g, nodes, 1);
        Score(-look.best.0 .0)
    }

    /// The tables' value of the position after `m`, for the side that plays it.
    fn tb_value(&self, pos: &Position, m: &Move) -> Option<Wdl> {
        let o = self.oracle.as_ref()?;
        let child = pos.play(m);
        let pieces = child.count(Color::White) + child.count(Color::Black);
        if pieces > o.max_pieces() {
            return None;
        }
        o.probe_wdl(&child).map(Wdl::negate)
    }

    /// The single winning move of `game`'s position, if there is exactly one, with its score
    /// and the best other score, the depth it was found at and whether the tables vouched.
    fn only_winning_move(
        &mut self,
        game: &Game,
        scan_nodes: u64,
        verify_nodes: u64,
    ) -> Option<(Move, Score, Score, u32, Vec<Move>, bool)> {
        let pos = *game.position();
        let legal = pos.legal_moves();
        if legal.len() < 2 {
            return None;
        }
        let scan = self.search(game, scan_nodes, 2);
        let best = *scan.best.1.first()?;
        if !is_winning(scan.best.0) || scan.second.is_some_and(|s| s.0 > WIN / 2) {
            return None;
        }
        // The tables, where they reach, decide first.
        let mut tb_used = false;
        if self.oracle.is_some() {
            let values: Vec<Option<Wdl>> = legal.iter().map(|m| self.tb_value(&pos, m)).collect();
            if values.iter().all(Option::is_some) {
                let winners = values.iter().filter(|v| **v == Some(Wdl::Win)).count();
                let best_i = legal.iter().position(|m| *m == best)?;
                if winners != 1 || values[best_i] != Some(Wdl::Win) {
                    return None;
                }
                tb_used = true;
            }
        }
        let deep = self.search(game, verify_nodes * 2, 1);

        if deep.best.1.first() != Some(&best) || !is_winning(deep.best.0) {
            return None;
        }
        let mut second = Score(-Score::INFINITE);
        for m in legal.iter().filter(|m| **m != best) {
            let s = self.move_score(game, m, verify_nodes);
            if s.0 > EQUAL {
                return None;
            }
            second = second.max(s);
        }
        Some((
            best,
            deep.best.0,
            second,
            deep.found_depth,
            deep.best.1,
            tb_used,
        ))
    }

    /// Extends the solution after its first move: the reply, then the next move of the
    /// solving side if it is the only winning (or only legal) move, up to the limit.
    fn extend_line(&mut self, game: &Game, first: Move, pv: &[Move], scan_nodes: u64) -> Vec<Move> {
        let mut line = vec![first];
        let mut g = game.clone();
        if g.play(&first).is_err() {
            return line;
        }
        let mut pv: Vec<Move> = pv.iter().skip(1).copied().collect();
        while line.len() < 2 * MAX_SOLVER_MOVES - 1 {
            if g.outcome().is_some() {
                break;
            }
            // The reply: the engine's line, or a fresh search when the line ran out.
            let reply = match pv.first() {
                Some(m) if g.legal_moves().contains(m) => *m,
                _ => match self.search(&g, scan_nodes, 1).best.1.first() {
                    Some(m) => *m,
                    None => break,
                },
            };
            let mut after = g.clone();
            if after.play(&reply).is_err() || after.outcome().is_some() {
                break;
            }
            let legal = after.legal_moves();
            let look = self.search(&after, scan_nodes, 2);
            let Some(&next) = look.best.1.first() else {
                break;
            };
            let unique = legal.len() == 1
                || (is_winning(look.best.0) && look.second.is_some_and(|s| s.0 <= EQUAL));
            if !unique {
                break;
            }
            line.push(reply);
            line.push(next);
            if after.play(&next).is_err() {
                break;
            }
            g = after;
            pv = look.best.1.iter().skip(1).copied().collect();
        }
        line
    }
}

fn themes_of(pos: &Position, line: &[Move], tb_used: bool) -> Vec<&'static str> {
    let mut themes = Vec::new();
    let first = line[0];
    let side = pos.side_to_move();
    if first.is_capture() {
        themes.push("capture");
    } else {
        themes.push("quiet");
        if line.get(1).is_some_and(Move::is_capture) {
            themes.push("sacrifice");
        }
    }
    if line.iter().step_by(2).any(Move::is_promotion) {
        themes.push("promotion");
    }
    if pos.kings_of(side) != 0 {
        themes.push("king");
    }
    if pos.count(Color::White) + pos.count(Color::Black) <= 8 {
        themes.push("endgame");
    }
    if tb_used {
        themes.push("tablebase");
    }
    themes
}

/// The difficulty estimate (see the module documentation).
pub fn rating_of(
    found_depth: u32,
    legal_moves: usize,
    solver_moves: usize,
    themes: &[&str],
) -> u32 {
    let mut r = 700 + 90 * found_depth.min(16) as i64;
    r += 10 * legal_moves.min(20) as i64;
    r += 80 * (solver_moves.saturating_sub(1)) as i64;
    if themes.contains(&"quiet") {
        r += 100;
    }
    if themes.contains(&"sacrifice") {
        r += 150;
    }
    r.clamp(600, 2600) as u32
}

/// Plays `config.games` self-play games and returns the puzzles found in them (see the
/// module documentation), calling `progress` after each game; it returns `false` to stop.
pub fn generate(
    config: &PuzzleConfig,
    oracle: Option<Arc<dyn EndgameOracle>>,
    progress: &mut dyn FnMut(&Progress, &[Puzzle]) -> bool,
) -> Vec<Puzzle> {
    let opts = EngineOptions {
        hash_mb: 16,
        threads: 1,
    };
    let mut player = Engine::new(opts);
    player.set_endgame_oracle(oracle.clone());
    let mut analyst_engine = Engine::new(EngineOptions {
        hash_mb: 32,
        threads: 1,
    });
    analyst_engine.set_endgame_oracle(oracle.clone());
    let mut analyst = Analyst {
        engine: analyst_engine,
        oracle,
    };
    let mut rng = Rng(config.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut seen = HashSet::new();
    let mut puzzles = Vec::new();
    let mut stats = Progress::default();
    for g in 0..config.games {
        let opening = if config.openings.is_empty() {
            Vec::new()
        } else {
            config.openings[g % config.openings.len()].clone()
        };
        let nodes = config.play_nodes * (1 + rng.below(4) as u64);
        let mut game = Game::with_rules(RuleSet::default());
        for m in &opening {
            if game.play(m).is_err() {
                break;
            }
        }
        for _ in 0..rng.below(5) {
            if game.outcome().is_some() {
                break;
            }
            let legal = game.legal_moves();
            let m = legal[rng.below(legal.len())];
            let _ = game.play(&m);
        }
        player.new_game();
        analyst.engine.new_game();
        let mut found_here = 0;
        let mut skip_until = 0;
        while game.outcome().is_none() && game.ply() < MAX_PLIES {
            let pos = *game.position();
            if game.ply() >= FIRST_PLY
                && game.ply() >= skip_until
                && found_here < MAX_PER_GAME
                && seen.insert(pos.key())
            {
                stats.positions += 1;
                if let Some((best, score, second, depth, pv, tb_used)) =
                    analyst.only_winning_move(&game, config.scan_nodes, config.verify_nodes)
                {
                    stats.candidates += 1;
                    let line = analyst.extend_line(&game, best, &pv, config.scan_nodes);
                    let themes = themes_of(&pos, &line, tb_used);
                    let legal_moves = pos.legal_moves().len();
                    let solver_moves = line.len().div_ceil(2);
                    puzzles.push(Puzzle {
                        id: format!("{:016x}", pos.key()),
                        fen: pos.to_fen(),
                        rating: rating_of(depth, legal_moves, solver_moves, &themes),
                        line,
                        found_depth: depth,
                        legal_moves,
                        score,
                        second,
                        themes,
                    });
                    found_here += 1;
                    skip_until = game.ply() + 6;
                }
            }
            // Now and then a random move: the mistakes that puzzles punish.
            if rng.below(100) < config.random_percent as usize {
                let legal = game.legal_moves();
                let m = legal[rng.below(legal.len())];
                if game.play(&m).is_err() {
                    break;
                }
                continue;
            }
            let r = crate::tune::search_game(&mut player, &game, Limits::nodes(nodes));
            let Some(m) = r.best else { break };
            if game.play(&m).is_err() {
                break;
            }
        }
        stats.games = g + 1;
        stats.puzzles = puzzles.len();
        if !progress(&stats, &puzzles) {
            break;
        }
    }
    puzzles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rating_grows_with_depth_and_quiet_moves() {
        let quiet = rating_of(6, 8, 1, &["quiet"]);
        let capture = rating_of(6, 8, 1, &["capture"]);
        assert!(quiet > capture);
        assert!(rating_of(10, 8, 1, &["capture"]) > capture);
        assert!((600..=2600).contains(&rating_of(40, 100, 9, &["quiet", "sacrifice"])));
    }

    #[test]
    fn a_quiet_move_answered_by_a_capture_is_a_sacrifice() {
        // White c3-c4 puts the man in front of Black's c5 man, which must take it (c5xc3).
        let pos = Position::from_fen("W:Wc3,h2:Bc5,h7").unwrap();
        let offer = pos.parse_move("c3-c4").unwrap();
        let reply = pos.play(&offer).parse_move("c5xc3").unwrap();
        let themes = themes_of(&pos, &[offer, reply, reply], false);
        assert_eq!(themes[..2], ["quiet", "sacrifice"]);
        let calm = pos.parse_move("h2-h3").unwrap();
        let reply = pos.play(&calm).parse_move("h7-h6").unwrap();
        assert_eq!(
            themes_of(&pos, &[calm, reply, reply], false)[..1],
            ["quiet"]
        );
        assert!(!themes_of(&pos, &[calm, reply, reply], false).contains(&"sacrifice"));
    }

    #[test]
    fn one_game_yields_valid_puzzles() {
        let config = PuzzleConfig {
            games: 1,
            play_nodes: 500,
            scan_nodes: 5_000,
            verify_nodes: 10_000,
            ..PuzzleConfig::default()
        };
        let puzzles = generate(&config, None, &mut |_, _| true);
        for p in &puzzles {
            let pos = Position::from_fen(&p.fen).unwrap();
            assert!(pos.legal_moves().len() >= 2);
            assert!(pos.legal_moves().contains(&p.line[0]));
            assert_eq!(p.line.len() % 2, 1);
            assert!(p.score.0 >= WIN && p.second.0 <= EQUAL);
        }
    }
}
