//! Machine-learning helpers: board planes, the fixed action space and its legal-action mask,
//! and a batch of games stepped in Rust.
//!
//! Everything is seen from the side to move: square index `rank * 8 + file` for White, with
//! the ranks reversed (`index ^ 56`) for Black, so a network sees every position as if it
//! played "up the board". Action = `from * 64 + to` in that frame (4096 actions). Two legal
//! captures can share both squares and differ only in the pieces taken (flying kings going
//! round a loop, or reaching a square by two routes); the action then stands for the one whose
//! captured set, as a 64-bit mask of board squares, is smallest, and the others have no action.
//! Such positions are rare (0.14 % of the positions of uniformly random games, in 8 % of those
//! games): an agent restricted to the action space plays a legal game, only without those
//! alternatives.

use damasi::{Color, Game, Move, Position, RuleSet};
use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::MoveError;
use crate::rules::{parse_rules, PyPosition};

/// Size of the action space: from-square x to-square.
pub const ACTION_COUNT: usize = 64 * 64;
/// Number of board planes: own men, own kings, opponent men, opponent kings.
pub const PLANES: usize = 4;
/// Floats in one observation.
const OBS_LEN: usize = PLANES * 64;

/// A square index seen from `side` (ranks reversed for Black). Its own inverse.
#[inline]
fn view(index: usize, side: Color) -> usize {
    match side {
        Color::White => index,
        Color::Black => index ^ 56,
    }
}

/// Writes the planes of `pos` into `out` (length [`OBS_LEN`]), `[plane][row][file]`.
pub(crate) fn write_planes(pos: &Position, out: &mut [f32]) {
    out.fill(0.0);
    let us = pos.side_to_move();
    let boards = [
        pos.men_of(us),
        pos.kings_of(us),
        pos.men_of(!us),
        pos.kings_of(!us),
    ];
    for (plane, mut bits) in boards.into_iter().enumerate() {
        while bits != 0 {
            let sq = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            out[plane * 64 + view(sq, us)] = 1.0;
        }
    }
}

/// The action of `m` ignoring the tie rule.
#[inline]
fn raw_action(side: Color, m: &Move) -> usize {
    view(m.from().index(), side) * 64 + view(m.to().index(), side)
}

/// Sets the mask entries of the legal actions of `pos` (the slice is cleared first).
pub(crate) fn write_mask(pos: &Position, out: &mut [bool]) {
    out.fill(false);
    let side = pos.side_to_move();
    for m in pos.legal_moves().iter() {
        out[raw_action(side, m)] = true;
    }
}

/// The action number of the legal move `m` of `pos`; an error for a capture that loses the
/// tie rule (see the module docs).
pub(crate) fn move_to_action(pos: &Position, m: &Move) -> PyResult<i64> {
    let side = pos.side_to_move();
    let a = raw_action(side, m);
    let canonical = canonical_move(pos, a).expect("a legal move's action has a move");
    if canonical != *m {
        return Err(MoveError::new_err(format!(
            "{} has no action: {} ends on the same square from the same start taking fewer \
             (lower) squares, and action {a} stands for it",
            pos.write_move(m, damasi::Notation::Landing),
            pos.write_move(&canonical, damasi::Notation::Landing)
        )));
    }
    Ok(a as i64)
}

/// The legal move action `a` stands for, if any.
fn canonical_move(pos: &Position, a: usize) -> Option<Move> {
    let side = pos.side_to_move();
    pos.legal_moves()
        .iter()
        .filter(|m| raw_action(side, m) == a)
        .min_by_key(|m| m.captured_bits())
        .copied()
}

/// The legal move for an action number, or a `MoveError`.
pub(crate) fn action_to_move(pos: &Position, action: i64) -> PyResult<Move> {
    let a = usize::try_from(action)
        .ok()
        .filter(|&a| a < ACTION_COUNT)
        .ok_or_else(|| MoveError::new_err(format!("action {action} is not in 0..4096")))?;
    canonical_move(pos, a).ok_or_else(|| {
        let side = pos.side_to_move();
        let name = |i: usize| {
            damasi::Square::new(view(i, side) as u8)
                .expect("index below 64")
                .to_string()
        };
        MoveError::new_err(format!(
            "action {a} ({} to {}) is not legal in {}",
            name(a / 64),
            name(a % 64),
            pos.to_fen()
        ))
    })
}

/// The planes of one position as a `(4, 8, 8)` array.
pub(crate) fn planes_array<'py>(
    py: Python<'py>,
    pos: &Position,
) -> PyResult<Bound<'py, PyArray3<f32>>> {
    let mut v = vec![0.0f32; OBS_LEN];
    write_planes(pos, &mut v);
    PyArray1::from_vec(py, v).reshape([PLANES, 8, 8])
}

/// The legal-action mask of one position as a `(4096,)` array.
pub(crate) fn mask_array<'py>(py: Python<'py>, pos: &Position) -> Bound<'py, PyArray1<bool>> {
    let mut v = vec![false; ACTION_COUNT];
    write_mask(pos, &mut v);
    PyArray1::from_vec(py, v)
}

/// SplitMix64: a small, fast, seedable generator (Steele, Lea and Flood, 2014), enough for
/// picking random moves.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; the modulo bias is negligible for move counts).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// A batch of independent games stepped together in Rust, for reinforcement learning.
///
/// `step(actions)` plays one action in every game (each for its own side to move) and returns
/// `(observations, rewards, terminated, truncated)`. The reward is for the player who just
/// moved: +1 if the move won the game, -1 if it lost it (it cannot, in Turkish draughts, but
/// the sign convention holds), 0 otherwise. A game that ends is reset to the start at once
/// (auto-reset); its final result is in `last_outcomes()` until its next end.
#[pyclass(name = "VecGames", module = "damasi")]
pub struct PyVecGames {
    games: Vec<Game>,
    rules: RuleSet,
    max_plies: usize,
    rng: Rng,
    /// Result of each game's last finished episode: 1 White won, -1 Black won, 0 draw, None
    /// if none finished yet.
    last: Vec<Option<i8>>,
}

#[pymethods]
impl PyVecGames {
    /// `n` games from the start position under `rules`; a game is truncated (and reset) after
    /// `max_plies` plies. `seed` drives `random_actions`.
    #[new]
    #[pyo3(signature = (n, rules="turkish", max_plies=500, seed=0))]
    fn new(n: usize, rules: &str, max_plies: usize, seed: u64) -> PyResult<Self> {
        if n == 0 {
            return Err(PyValueError::new_err("a batch needs at least one game"));
        }
        if max_plies == 0 {
            return Err(PyValueError::new_err("max_plies must be at least 1"));
        }
        let rules = parse_rules(rules)?;
        Ok(PyVecGames {
            games: vec![Game::with_rules(rules); n],
            rules,
            max_plies,
            rng: Rng::new(seed),
            last: vec![None; n],
        })
    }

    fn __len__(&self) -> usize {
        self.games.len()
    }

    /// Resets every game to the start; returns the observations.
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray4<f32>>> {
        for g in &mut self.games {
            *g = Game::with_rules(self.rules);
        }
        self.observations(py)
    }

    /// The observations, `float32` of shape `(n, 4, 8, 8)` (see `Position.planes`).
    fn observations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray4<f32>>> {
        let mut v = vec![0.0f32; self.games.len() * OBS_LEN];
        for (g, out) in self.games.iter().zip(v.chunks_mut(OBS_LEN)) {
            write_planes(g.position(), out);
        }
        PyArray1::from_vec(py, v).reshape([self.games.len(), PLANES, 8, 8])
    }

    /// The legal-action masks, `bool` of shape `(n, 4096)`.
    fn action_masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray2<bool>>> {
        let mut v = vec![false; self.games.len() * ACTION_COUNT];
        for (g, out) in self.games.iter().zip(v.chunks_mut(ACTION_COUNT)) {
            write_mask(g.position(), out);
        }
        PyArray1::from_vec(py, v).reshape([self.games.len(), ACTION_COUNT])
    }

    /// One uniformly random legal action per game, `int64` of shape `(n,)`.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let mut v = Vec::with_capacity(self.games.len());
        for g in &self.games {
            let pos = g.position();
            let moves = pos.legal_moves();
            // A live game always has a move: finished games are reset at once.
            let m = moves[self.rng.below(moves.len())];
            let a = raw_action(pos.side_to_move(), &m);
            let canonical = canonical_move(pos, a).expect("legal");
            v.push(raw_action(pos.side_to_move(), &canonical) as i64);
        }
        PyArray1::from_vec(py, v)
    }

    /// The side to move in each game, `int8` of shape `(n,)`: 0 White, 1 Black.
    fn turns<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let v = self
            .games
            .iter()
            .map(|g| g.position().side_to_move() as i8)
            .collect();
        PyArray1::from_vec(py, v)
    }

    /// The current positions.
    fn positions(&self) -> Vec<PyPosition> {
        self.games
            .iter()
            .map(|g| PyPosition { pos: *g.position() })
            .collect()
    }

    /// The result of each game's last finished episode from White's view: 1 White won, -1
    /// Black won, 0 drawn or truncated, `None` if no episode has finished yet.
    fn last_outcomes(&self) -> Vec<Option<i8>> {
        self.last.clone()
    }

    /// Plays `actions[i]` in game `i` (any integer sequence or array of length `n`). Raises
    /// `MoveError` and changes nothing if any action is not legal in its game.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: Vec<i64>,
    ) -> PyResult<(
        Bound<'py, numpy::PyArray4<f32>>,
        Bound<'py, PyArray1<f32>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyArray1<bool>>,
    )> {
        if actions.len() != self.games.len() {
            return Err(PyValueError::new_err(format!(
                "{} actions for {} games",
                actions.len(),
                self.games.len()
            )));
        }
        let mut moves = Vec::with_capacity(actions.len());
        for (i, (g, &a)) in self.games.iter().zip(&actions).enumerate() {
            let m = action_to_move(g.position(), a)
                .map_err(|e| MoveError::new_err(format!("game {i}: {}", e.value(py))))?;
            moves.push(m);
        }
        let n = self.games.len();
        let mut rewards = vec![0.0f32; n];
        let mut terminated = vec![false; n];
        let mut truncated = vec![false; n];
        for (i, (g, m)) in self.games.iter_mut().zip(&moves).enumerate() {
            let mover = g.position().side_to_move();
            g.play(m)
                .expect("the move was checked against the legal moves");
            if let Some(outcome) = g.outcome() {
                terminated[i] = true;
                rewards[i] = match outcome.winner() {
                    Some(w) if w == mover => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
                self.last[i] = Some(match outcome.winner() {
                    Some(Color::White) => 1,
                    Some(Color::Black) => -1,
                    None => 0,
                });
            } else if g.ply() >= self.max_plies {
                truncated[i] = true;
                self.last[i] = Some(0);
            }
            if terminated[i] || truncated[i] {
                *g = Game::with_rules(self.rules);
            }
        }
        let obs = self.observations(py)?;
        Ok((
            obs,
            PyArray1::from_vec(py, rewards),
            PyArray1::from_vec(py, terminated),
            PyArray1::from_vec(py, truncated),
        ))
    }
}
