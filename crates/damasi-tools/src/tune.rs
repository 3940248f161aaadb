//! Texel tuning: fits the evaluation [`Weights`] by logistic regression on positions from the
//! engine's own games, and an in-process self-play match to check that fitted weights win.
//!
//! The evaluation is linear in its features (see [`damasi_engine::eval::features`]), so the model is
//! `P(White wins) = sigmoid(k * eval_white)`: `k` is fitted first with the current weights,
//! then every weight except the man's (which fixes the scale) by gradient descent (Adam) on
//! the mean squared error between the game result and the prediction.
//!
//! Run it with `cargo run --release -p damasi-tools --example tune`.

use std::sync::Arc;

use damasi::{Color, Game, Move, Position, RuleSet};

use damasi_engine::eval::{feature, features, phase, Weights, PHASE_MAX};
use damasi_engine::{
    Engine, EngineOptions, Limits, SearchControl, SearchRequest, SearchResult, SearchRoot,
};

use crate::sprt::MatchScore;

const N: usize = feature::COUNT;

/// One training position: its features (middlegame share, then endgame share, from White's
/// view) and the result of its game for White (1 win, 0.5 draw, 0 loss).
#[derive(Clone, Debug)]
pub struct Sample {
    /// Features times the middlegame share, then times the endgame share.
    pub x: [f32; 2 * N],
    /// Result for White.
    pub result: f32,
}

impl Sample {
    /// The sample of a quiet position from a game that White scored `result` in.
    pub fn new(pos: &Position, result: f32) -> Sample {
        let mut f = [0f32; N];
        let sign = if pos.side_to_move() == Color::White {
            1.0
        } else {
            -1.0
        };
        let mut g = [0f32; N];
        features(pos, |i, v| f[i] += v as f32, |i, v| g[i] += sign * v as f32);
        for (a, b) in f.iter_mut().zip(g) {
            *a += b;
        }
        let p = phase(pos) as f32 / PHASE_MAX as f32;
        let mut x = [0f32; 2 * N];
        for i in 0..N {
            x[i] = f[i] * p;
            x[N + i] = f[i] * (1.0 - p);
        }
        Sample { x, result }
    }

    fn eval(&self, w: &[f32; 2 * N]) -> f32 {
        self.x.iter().zip(w.iter()).map(|(a, b)| a * b).sum()
    }
}

fn to_vec(w: &Weights) -> [f32; 2 * N] {
    let mut v = [0f32; 2 * N];
    for i in 0..N {
        v[i] = w.mg[i] as f32;
        v[N + i] = w.eg[i] as f32;
    }
    v
}

fn from_vec(v: &[f32; 2 * N]) -> Weights {
    let mut w = Weights::default();
    for i in 0..N {
        w.mg[i] = v[i].round() as i32;
        w.eg[i] = v[N + i].round() as i32;
    }
    w
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean squared error of the predictions `sigmoid(k * eval)` against the results.
pub fn error(samples: &[Sample], w: &Weights, k: f32) -> f64 {
    let v = to_vec(w);
    let sum: f64 = samples
        .iter()
        .map(|s| {
            let d = s.result - sigmoid(k * s.eval(&v));
            (d * d) as f64
        })
        .sum();
    sum / samples.len().max(1) as f64
}

/// The scale `k` that best predicts the results with weights `w` (golden-section search).
pub fn fit_k(samples: &[Sample], w: &Weights) -> f32 {
    let (mut lo, mut hi) = (0.0001f32, 0.05f32);
    let g = 0.618_034f32;
    for _ in 0..40 {
        let a = hi - g * (hi - lo);
        let b = lo + g * (hi - lo);
        if error(samples, w, a) < error(samples, w, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// Strength of the L2 pull towards the starting weights (keeps weights of rare features
/// near their hand-set values instead of fitting noise).
pub const L2: f64 = 2e-7;

/// Fits the weights by `epochs` passes of full-batch Adam, starting from `start`. The man's
/// weights stay fixed (they set the scale: 100 = one man).
pub fn fit(samples: &[Sample], start: &Weights, k: f32, epochs: usize) -> Weights {
    let w0 = to_vec(start);
    let mut w = w0;
    let mut m = [0f32; 2 * N];
    let mut v = [0f32; 2 * N];
    let (b1, b2, lr, eps) = (0.9f32, 0.999f32, 0.5f32, 1e-8f32);
    let fixed = [feature::MAN, N + feature::MAN];
    for t in 1..=epochs {
        let mut grad = [0f64; 2 * N];
        for s in samples {
            let p = sigmoid(k * s.eval(&w));
            // d/dw (r - p)^2 = -2 (r - p) p (1 - p) k x
            let c = (-2.0 * (s.result - p) * p * (1.0 - p) * k) as f64;
            for (g, x) in grad.iter_mut().zip(s.x.iter()) {
                *g += c * *x as f64;
            }
        }
        let n = samples.len().max(1) as f64;
        for i in 0..2 * N {
            if fixed.contains(&i) {
                continue;
            }
            let g = (grad[i] / n + 2.0 * L2 * (w[i] - w0[i]) as f64) as f32;
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            let mh = m[i] / (1.0 - b1.powi(t as i32));
            let vh = v[i] / (1.0 - b2.powi(t as i32));
            w[i] -= lr * mh / (vh.sqrt() + eps);
        }
    }
    from_vec(&w)
}

/// A small xorshift generator for varying self-play games.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// How one self-play game ended, for White.
fn white_result(game: &Game) -> f32 {
    match game.outcome().and_then(|o| o.winner()) {
        Some(Color::White) => 1.0,
        Some(Color::Black) => 0.0,
        None => 0.5,
    }
}

/// Plies after which an unfinished game is scored a draw.
const MAX_PLIES: usize = 300;

/// Plays one game between two weight sets from `opening` (moves from the start position).
/// Returns the game and the positions it went through.
fn play_game(
    engines: [&mut Engine; 2],
    opening: &[Move],
    nodes: u64,
    rng: Option<&mut Rng>,
) -> (Game, Vec<Position>) {
    let [white, black] = engines;
    white.new_game();
    black.new_game();
    let mut game = Game::with_rules(RuleSet::default());
    let mut seen = Vec::new();
    for m in opening {
        if game.play(m).is_err() {
            break;
        }
    }
    // A few random plies make the games of one opening differ (data generation only).
    if let Some(r) = rng {
        for _ in 0..r.below(4) {
            if game.outcome().is_some() {
                break;
            }
            let legal = game.legal_moves();
            let m = legal[r.below(legal.len())];
            let _ = game.play(&m);
        }
    }
    while game.outcome().is_none() && game.ply() < MAX_PLIES {
        seen.push(*game.position());
        let engine = if game.position().side_to_move() == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let Some(m) = search_game(engine, &game, Limits::nodes(nodes)).best else {
            break;
        };
        if game.play(&m).is_err() {
            break;
        }
    }
    (game, seen)
}

/// Plays `games` self-play games with `weights` (`nodes` per move, openings from
/// `openings` plus a few random plies) and returns the quiet positions with their results.
pub fn generate(
    weights: &Weights,
    openings: &[Vec<Move>],
    games: usize,
    nodes: u64,
    seed: u64,
) -> Vec<Sample> {
    let opts = EngineOptions {
        hash_mb: 8,
        threads: 1,
    };
    let mut a = Engine::new(opts);
    let mut b = Engine::new(opts);
    a.set_weights(weights.clone());
    b.set_weights(weights.clone());
    let mut rng = Rng(seed | 1);
    let mut out = Vec::new();
    for g in 0..games {
        let opening = openings
            .get(g % openings.len().max(1))
            .cloned()
            .unwrap_or_default();
        let (game, seen) = play_game([&mut a, &mut b], &opening, nodes, Some(&mut rng));
        let result = white_result(&game);
        for pos in seen {
            if !pos.has_capture() {
                out.push(Sample::new(&pos, result));
            }
        }
    }
    out
}

/// Plays every opening twice, colours swapped, between weight sets `a` and `b` at `nodes`
/// per move; returns `a`'s wins, draws and losses.
pub fn self_play_match(a: &Weights, b: &Weights, openings: &[Vec<Move>], nodes: u64) -> MatchScore {
    let opts = EngineOptions {
        hash_mb: 8,
        threads: 1,
    };
    let mut ea = Engine::new(opts);
    let mut eb = Engine::new(opts);
    ea.set_weights(a.clone());
    eb.set_weights(b.clone());
    match_engines(&mut ea, &mut eb, openings, nodes)
}

/// Plays every opening twice, colours swapped, between engines `a` and `b` at `nodes` per
/// move; returns `a`'s wins, draws and losses.
pub fn match_engines(
    a: &mut Engine,
    b: &mut Engine,
    openings: &[Vec<Move>],
    nodes: u64,
) -> MatchScore {
    let mut score = MatchScore::default();
    for opening in openings {
        for a_white in [true, false] {
            let (game, _) = if a_white {
                play_game([&mut *a, &mut *b], opening, nodes, None)
            } else {
                play_game([&mut *b, &mut *a], opening, nodes, None)
            };
            let r = white_result(&game);
            score.add(f64::from(if a_white { r } else { 1.0 - r }));
        }
    }
    score
}

/// Prints weights as Rust source for [`Weights::default`].
pub fn weights_source(w: &Weights) -> String {
    let row = |v: &[i32; N]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = String::new();
    s.push_str(&format!("mg: [{}],\n", row(&w.mg)));
    s.push_str(&format!("eg: [{}],\n", row(&w.eg)));
    for i in 0..N {
        s.push_str(&format!(
            "// {:>12}: mg {:>5} eg {:>5}\n",
            feature::NAMES[i],
            w.mg[i],
            w.eg[i]
        ));
    }
    s
}

/// One search of `game`'s position within `limits`, reporting nothing: the engine's move in
/// the self-play of the tuner, the training data and the puzzle generator.
pub(crate) fn search_game(engine: &mut Engine, game: &Game, limits: Limits) -> SearchResult {
    let control = Arc::new(SearchControl::new());
    engine.search(
        &SearchRequest::new(SearchRoot::from_game(game), limits),
        &control,
        &mut |_| {},
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_eval_matches_the_engine_eval() {
        let w = Weights::default();
        let v = to_vec(&w);
        for fen in [
            "W:Wa3,Kd4,e5:Ba6,h7",
            "B:Wa2,b3,c4,d4:Bb6,c6,Kh1",
            "W:Wa2,b2,c2,d2,f2,g2,h2,a3,b3,d3,e3,g3,d4,e4,f4,h4:Ba5,b5,e5,g5,c6,d6,e6,g6,h6,a7,b7,c7,d7,e7,f7,h7",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let white = Sample::new(&pos, 0.5).eval(&v);
            let stm = damasi_engine::eval::evaluate(&pos, &w) as f32;
            let expect = if pos.side_to_move() == Color::White { stm } else { -stm };
            assert!((white - expect).abs() <= 2.0, "{fen}: {white} vs {expect}");
        }
    }

    #[test]
    fn fitting_reduces_the_error() {
        let openings: Vec<Vec<Move>> = vec![Vec::new()];
        let samples = generate(&Weights::default(), &openings, 2, 300, 7);
        assert!(!samples.is_empty());
        let w = Weights::default();
        let k = fit_k(&samples, &w);
        let fitted = fit(&samples, &w, k, 20);
        assert!(error(&samples, &fitted, k) <= error(&samples, &w, k) + 1e-9);
    }
}
