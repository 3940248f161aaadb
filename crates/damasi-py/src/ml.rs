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

use damasi::{position_outcome, Color, DrawReason, Move, MoveList, Outcome, Position, RuleSet};
use numpy::{PyArray1, PyArray2, PyArray3, PyArray4, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

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
    mark_planes(pos, out, 1.0);
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

/// Games a rayon task steps at least (fewer tasks than games: each has a fixed cost).
const MIN_CHUNK: usize = 64;

/// One game of a [`PyVecGames`] batch: what the rules need to end it (the same outcome as
/// `damasi::Game`: the board, threefold repetition, the no-capture limit) and its legal
/// actions, without the full history a `Game` keeps for undo and PDN.
#[derive(Clone, Debug)]
struct Episode {
    pos: Position,
    /// Plies played in this episode.
    ply: usize,
    /// Plies since the last capture.
    quiet: u32,
    /// The positions since the last irreversible move (capture, promotion, man advancing),
    /// the current one last: only these can repeat.
    run: Vec<Position>,
    /// The legal actions of `pos`, each with the move it stands for (the tie rule applied).
    legal: Vec<(u16, Move)>,
    /// The result of the last finished episode from White's view (see `last_outcomes`).
    last: Option<i8>,
}

/// What one step did to a game: its reward for the mover and how the episode ended.
#[derive(Clone, Copy, Debug, Default)]
struct StepResult {
    reward: f32,
    terminated: bool,
    truncated: bool,
}

impl Episode {
    /// A game at the start position.
    fn start() -> Episode {
        let mut e = Episode {
            pos: Position::start(),
            ply: 0,
            quiet: 0,
            run: Vec::new(),
            legal: Vec::new(),
            last: None,
        };
        e.restart();
        e
    }

    /// Back to the start position (the last result is kept).
    fn restart(&mut self) {
        self.pos = Position::start();
        self.ply = 0;
        self.quiet = 0;
        self.run.clear();
        self.run.push(self.pos);
        self.find_legal();
    }

    /// Fills `legal` from `pos`: one entry per action, for the move with the smallest captured
    /// set among those sharing from and to squares.
    fn find_legal(&mut self) {
        let side = self.pos.side_to_move();
        let mut moves = MoveList::new();
        self.pos.legal_moves_into(&mut moves);
        self.legal.clear();
        for m in moves.iter() {
            let a = raw_action(side, m) as u16;
            match self.legal.iter_mut().find(|(b, _)| *b == a) {
                Some((_, kept)) if m.captured_bits() < kept.captured_bits() => *kept = *m,
                Some(_) => {}
                None => self.legal.push((a, *m)),
            }
        }
    }

    /// The move action `a` stands for here, if legal.
    fn move_for(&self, a: i64) -> Option<Move> {
        self.legal
            .iter()
            .find(|(b, _)| i64::from(*b) == a)
            .map(|&(_, m)| m)
    }

    /// Plays `m` (one of `legal`); ends the episode and restarts at once when the rules end
    /// the game or it reaches `max_plies`.
    fn play(&mut self, m: &Move, rules: &RuleSet, max_plies: usize) -> StepResult {
        let before = self.pos;
        let mover = before.side_to_move();
        let after = before.play(m);
        self.pos = after;
        self.ply += 1;
        self.quiet = if m.is_capture() {
            0
        } else {
            self.quiet.saturating_add(1)
        };
        if before.is_irreversible(m) {
            self.run.clear();
        }
        self.run.push(after);
        let outcome = position_outcome(&after, rules).or_else(|| {
            let seen = self.run.iter().filter(|p| **p == after).count();
            if seen >= 3 {
                Some(Outcome::Draw(DrawReason::Repetition))
            } else if rules.no_capture_limit.is_some_and(|n| self.quiet >= n) {
                Some(Outcome::Draw(DrawReason::NoCaptureLimit))
            } else {
                None
            }
        });
        let mut r = StepResult::default();
        if let Some(o) = outcome {
            r.terminated = true;
            r.reward = match o.winner() {
                Some(w) if w == mover => 1.0,
                Some(_) => -1.0,
                None => 0.0,
            };
            self.last = Some(match o.winner() {
                Some(Color::White) => 1,
                Some(Color::Black) => -1,
                None => 0,
            });
            self.restart();
        } else if self.ply >= max_plies {
            r.truncated = true;
            self.last = Some(0);
            self.restart();
        } else {
            self.find_legal();
        }
        r
    }
}

/// Sets the plane entries of `pos`'s pieces to `value` in `out` (length [`OBS_LEN`]): with
/// 1.0 on a cleared slice it writes the planes, with 0.0 it clears exactly those entries.
fn mark_planes(pos: &Position, out: &mut [f32], value: f32) {
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
            out[plane * 64 + view(sq, us)] = value;
        }
    }
}

/// Sets the mask entries of `legal` to `value` in `out` (length [`ACTION_COUNT`]).
fn mark_mask(legal: &[(u16, Move)], out: &mut [bool], value: bool) {
    for &(a, _) in legal {
        out[usize::from(a)] = value;
    }
}

/// The per-game slices of the batch's output buffers for one run of games.
struct Lanes<'a> {
    obs: &'a mut [f32],
    masks: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut [bool],
    truncated: &'a mut [bool],
}

/// Steps a run of games, `moves[i]` in `games[i]`, keeping `lanes` equal to their
/// observations, masks and step results. Only the entries that change are written: the old
/// position's pieces and legal actions are cleared, the new ones set.
fn step_run(
    games: &mut [Episode],
    moves: &[Move],
    lanes: Lanes<'_>,
    rules: &RuleSet,
    max_plies: usize,
) {
    let n = games.len();
    for i in 0..n {
        // A later game's mask entries are far apart in a large array: ask for their cache
        // lines now, so they arrive while the games before it are stepped.
        if let Some(next) = games.get(i + PREFETCH_AHEAD) {
            let j = i + PREFETCH_AHEAD;
            let row = &lanes.masks[j * ACTION_COUNT..(j + 1) * ACTION_COUNT];
            for &(a, _) in &next.legal {
                prefetch(&row[usize::from(a)]);
            }
        }
        let g = &mut games[i];
        let o = &mut lanes.obs[i * OBS_LEN..(i + 1) * OBS_LEN];
        let mask = &mut lanes.masks[i * ACTION_COUNT..(i + 1) * ACTION_COUNT];
        mark_planes(&g.pos, o, 0.0);
        mark_mask(&g.legal, mask, false);
        let r = g.play(&moves[i], rules, max_plies);
        mark_planes(&g.pos, o, 1.0);
        mark_mask(&g.legal, mask, true);
        lanes.rewards[i] = r.reward;
        lanes.terminated[i] = r.terminated;
        lanes.truncated[i] = r.truncated;
    }
}

/// How many games ahead `step_run` asks for the mask lines a game will write.
const PREFETCH_AHEAD: usize = 3;

/// A hint to bring the cache line holding `x` into the cache for writing (a no-op off x86-64).
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; it reads nothing and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (x as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// A mutable slice over a numpy array's data.
///
/// # Safety
/// The array must be C-contiguous, hold `len` elements, outlive the slice, and not be read or
/// written through anything else while the slice lives.
unsafe fn array_slice<'a, T: numpy::Element, D: numpy::ndarray::Dimension>(
    array: &Bound<'_, numpy::PyArray<T, D>>,
    len: usize,
) -> &'a mut [T] {
    // SAFETY: as the caller promises.
    unsafe { std::slice::from_raw_parts_mut(array.data(), len) }
}

/// The actions passed to `step` as `int64` values: from an `int64` or `int32` numpy array
/// without a Python object per element, else from any sequence of integers.
fn read_actions(actions: &Bound<'_, PyAny>, out: &mut Vec<i64>) -> PyResult<()> {
    out.clear();
    if let Ok(a) = actions.cast::<PyArray1<i64>>() {
        out.extend(a.readonly().as_array().iter().copied());
    } else if let Ok(a) = actions.cast::<PyArray1<i32>>() {
        out.extend(a.readonly().as_array().iter().map(|&x| i64::from(x)));
    } else {
        *out = actions.extract()?;
    }
    Ok(())
}

/// Marks a numpy array read-only for Python (the batch writes it in place at every step).
fn make_read_only(array: &Bound<'_, PyAny>) -> PyResult<()> {
    array.getattr("flags")?.setattr("writeable", false)
}

/// A batch of independent games stepped together in Rust, for reinforcement learning.
///
/// `step(actions)` plays one action in every game (each for its own side to move) and returns
/// `(observations, rewards, terminated, truncated)`. The reward is for the player who just
/// moved: +1 if the move won the game, -1 if it lost it (it cannot, in Turkish draughts, but
/// the sign convention holds), 0 otherwise. A game that ends is reset to the start at once
/// (auto-reset); its final result is in `last_outcomes()` until its next end.
///
/// The batch keeps its observations, action masks, rewards and end flags in numpy arrays it
/// allocates once and updates in place; a step runs in Rust with the GIL released, split
/// between `threads` threads (default: every core, through rayon). `step(actions,
/// copy=False)`, `observations(copy=False)` and `action_masks(copy=False)` return those
/// arrays themselves (read-only, overwritten by the next step); with `copy=True`, the
/// default, fresh copies.
#[pyclass(name = "VecGames", module = "damasi")]
pub struct PyVecGames {
    games: Vec<Episode>,
    rules: RuleSet,
    max_plies: usize,
    rng: Rng,
    /// `None`: rayon's global pool; `Some(None)`: this thread alone; `Some(Some(pool))`: a
    /// pool of the requested size.
    pool: Option<Option<rayon::ThreadPool>>,
    obs: Py<PyArray4<f32>>,
    masks: Py<PyArray2<bool>>,
    rewards: Py<PyArray1<f32>>,
    terminated: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    /// Scratch: the actions of a step, and the moves they stand for.
    actions: Vec<i64>,
    moves: Vec<Move>,
}

impl PyVecGames {
    /// Rewrites every buffer from the games (after a reset).
    fn write_all(&mut self, py: Python<'_>) {
        let n = self.games.len();
        let obs = self.obs.bind(py);
        let masks = self.masks.bind(py);
        // SAFETY: the batch made these arrays C-contiguous with these sizes and keeps them;
        // Python can only read them (read-only), and not during this call (GIL held).
        let (o, m) = unsafe {
            (
                array_slice(obs, n * OBS_LEN),
                array_slice(masks, n * ACTION_COUNT),
            )
        };
        o.fill(0.0);
        m.fill(false);
        for ((g, o), m) in self
            .games
            .iter()
            .zip(o.chunks_mut(OBS_LEN))
            .zip(m.chunks_mut(ACTION_COUNT))
        {
            mark_planes(&g.pos, o, 1.0);
            mark_mask(&g.legal, m, true);
        }
    }

    /// Whether steps run on this thread alone.
    fn sequential(&self) -> bool {
        matches!(self.pool, Some(None))
    }
}

#[pymethods]
impl PyVecGames {
    /// `n` games from the start position under `rules`; a game is truncated (and reset) after
    /// `max_plies` plies. `seed` drives `random_actions`. `threads`: how many threads a step
    /// uses (default: rayon's pool, one per core or `RAYON_NUM_THREADS`; 1 steps on the
    /// calling thread).
    #[new]
    #[pyo3(signature = (n, rules="turkish", max_plies=500, seed=0, threads=None))]
    fn new(
        py: Python<'_>,
        n: usize,
        rules: &str,
        max_plies: usize,
        seed: u64,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        if n == 0 {
            return Err(PyValueError::new_err("a batch needs at least one game"));
        }
        if max_plies == 0 {
            return Err(PyValueError::new_err("max_plies must be at least 1"));
        }
        let rules = parse_rules(rules)?;
        let pool = match threads {
            None => None,
            Some(0) => return Err(PyValueError::new_err("threads must be at least 1")),
            Some(1) => Some(None),
            Some(t) => Some(Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t.min(256))
                    .build()
                    .map_err(|e| PyValueError::new_err(e.to_string()))?,
            )),
        };
        let games = vec![Episode::start(); n];
        let obs = PyArray4::<f32>::zeros(py, [n, PLANES, 8, 8], false);
        let masks = PyArray2::<bool>::zeros(py, [n, ACTION_COUNT], false);
        let rewards = PyArray1::<f32>::zeros(py, n, false);
        let terminated = PyArray1::<bool>::zeros(py, n, false);
        let truncated = PyArray1::<bool>::zeros(py, n, false);
        for a in [
            obs.as_any(),
            masks.as_any(),
            rewards.as_any(),
            terminated.as_any(),
            truncated.as_any(),
        ] {
            make_read_only(a)?;
        }
        let mut v = PyVecGames {
            games,
            rules,
            max_plies,
            rng: Rng::new(seed),
            pool,
            obs: obs.unbind(),
            masks: masks.unbind(),
            rewards: rewards.unbind(),
            terminated: terminated.unbind(),
            truncated: truncated.unbind(),
            actions: Vec::with_capacity(n),
            moves: Vec::with_capacity(n),
        };
        v.write_all(py);
        Ok(v)
    }

    fn __len__(&self) -> usize {
        self.games.len()
    }

    /// Resets every game to the start; returns the observations (a copy).
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray4<f32>>> {
        for g in &mut self.games {
            g.restart();
        }
        self.write_all(py);
        self.observations(py, true)
    }

    /// The observations, `float32` of shape `(n, 4, 8, 8)` (see `Position.planes`): a copy,
    /// or with `copy=False` the batch's own read-only array, which every step updates.
    #[pyo3(signature = (copy=true))]
    fn observations<'py>(
        &self,
        py: Python<'py>,
        copy: bool,
    ) -> PyResult<Bound<'py, PyArray4<f32>>> {
        let obs = self.obs.bind(py);
        if copy {
            Ok(obs.call_method0("copy")?.cast_into::<PyArray4<f32>>()?)
        } else {
            Ok(obs.clone())
        }
    }

    /// The legal-action masks, `bool` of shape `(n, 4096)`: a copy, or with `copy=False` the
    /// batch's own read-only array, which every step updates.
    #[pyo3(signature = (copy=true))]
    fn action_masks<'py>(
        &self,
        py: Python<'py>,
        copy: bool,
    ) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let masks = self.masks.bind(py);
        if copy {
            Ok(masks.call_method0("copy")?.cast_into::<PyArray2<bool>>()?)
        } else {
            Ok(masks.clone())
        }
    }

    /// One uniformly random legal action per game, `int64` of shape `(n,)`.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let mut v = Vec::with_capacity(self.games.len());
        for g in &self.games {
            // A live game always has a move: finished games are reset at once.
            let (a, _) = g.legal[self.rng.below(g.legal.len())];
            v.push(i64::from(a));
        }
        PyArray1::from_vec(py, v)
    }

    /// The side to move in each game, `int8` of shape `(n,)`: 0 White, 1 Black.
    fn turns<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let v = self
            .games
            .iter()
            .map(|g| g.pos.side_to_move() as i8)
            .collect();
        PyArray1::from_vec(py, v)
    }

    /// The current positions.
    fn positions(&self) -> Vec<PyPosition> {
        self.games
            .iter()
            .map(|g| PyPosition { pos: g.pos })
            .collect()
    }

    /// Plies played in each game's current episode, `int64` of shape `(n,)`.
    fn plies<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let v = self.games.iter().map(|g| g.ply as i64).collect();
        PyArray1::from_vec(py, v)
    }

    /// The result of each game's last finished episode from White's view: 1 White won, -1
    /// Black won, 0 drawn or truncated, `None` if no episode has finished yet.
    fn last_outcomes(&self) -> Vec<Option<i8>> {
        self.games.iter().map(|g| g.last).collect()
    }

    /// Plays `actions[i]` in game `i` (an `int64` or `int32` array, or any integer sequence,
    /// of length `n`) and returns `(observations, rewards, terminated, truncated)`: copies, or
    /// with `copy=False` the batch's own read-only arrays. Raises `MoveError` and changes
    /// nothing if any action is not legal in its game. The games are stepped in Rust with the
    /// GIL released, on the batch's threads.
    #[allow(clippy::type_complexity)]
    #[pyo3(signature = (actions, copy=true))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
        copy: bool,
    ) -> PyResult<(
        Bound<'py, PyArray4<f32>>,
        Bound<'py, PyArray1<f32>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyArray1<bool>>,
    )> {
        let mut acts = std::mem::take(&mut self.actions);
        read_actions(actions, &mut acts)?;
        let n = self.games.len();
        if acts.len() != n {
            let got = acts.len();
            self.actions = acts;
            return Err(PyValueError::new_err(format!(
                "{got} actions for {n} games"
            )));
        }
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        // Overwritten below; a live game always has a legal move.
        moves.resize(n, self.games[0].legal[0].1);
        let (obs, masks) = (self.obs.bind(py), self.masks.bind(py));
        let (rewards, terminated, truncated) = (
            self.rewards.bind(py),
            self.terminated.bind(py),
            self.truncated.bind(py),
        );
        // SAFETY: the batch made these arrays C-contiguous with these sizes and keeps them
        // alive; they are read-only to Python, so nothing else writes them while the GIL is
        // released, and each is borrowed here once.
        let lanes = unsafe {
            Lanes {
                obs: array_slice(obs, n * OBS_LEN),
                masks: array_slice(masks, n * ACTION_COUNT),
                rewards: array_slice(rewards, n),
                terminated: array_slice(terminated, n),
                truncated: array_slice(truncated, n),
            }
        };
        let sequential = self.sequential();
        let (games, rules, max_plies) = (&mut self.games, self.rules, self.max_plies);
        let pool = &self.pool;
        let bad = py.detach(|| {
            let work = || {
                // First find every move, so a bad action changes nothing.
                let find = |(i, ((g, &a), m)): (usize, ((&Episode, &i64), &mut Move))| match g
                    .move_for(a)
                {
                    Some(found) => {
                        *m = found;
                        None
                    }
                    None => Some(i),
                };
                let bad = if sequential {
                    games
                        .iter()
                        .zip(&acts)
                        .zip(moves.iter_mut())
                        .enumerate()
                        .find_map(find)
                } else {
                    games
                        .par_iter()
                        .zip(&acts)
                        .zip(moves.par_iter_mut())
                        .enumerate()
                        .with_min_len(MIN_CHUNK)
                        .find_map_first(find)
                };
                if bad.is_some() {
                    return bad;
                }
                if sequential {
                    step_run(games, &moves, lanes, &rules, max_plies);
                } else {
                    let threads = rayon::current_num_threads().max(1);
                    let chunk = n.div_ceil(threads * 4).max(MIN_CHUNK);
                    games
                        .par_chunks_mut(chunk)
                        .zip(moves.par_chunks(chunk))
                        .zip(lanes.obs.par_chunks_mut(chunk * OBS_LEN))
                        .zip(lanes.masks.par_chunks_mut(chunk * ACTION_COUNT))
                        .zip(lanes.rewards.par_chunks_mut(chunk))
                        .zip(lanes.terminated.par_chunks_mut(chunk))
                        .zip(lanes.truncated.par_chunks_mut(chunk))
                        .for_each(
                            |((((((g, m), obs), masks), rewards), terminated), truncated)| {
                                let lanes = Lanes {
                                    obs,
                                    masks,
                                    rewards,
                                    terminated,
                                    truncated,
                                };
                                step_run(g, m, lanes, &rules, max_plies);
                            },
                        );
                }
                None
            };
            match pool {
                Some(Some(p)) => p.install(work),
                _ => work(),
            }
        });
        self.actions = acts;
        self.moves = moves;
        if let Some(i) = bad {
            let g = &self.games[i];
            let e = action_to_move(&g.pos, self.actions[i])
                .err()
                .map(|e| e.value(py).to_string())
                .unwrap_or_else(|| "no move".into());
            return Err(MoveError::new_err(format!("game {i}: {e}")));
        }
        if copy {
            Ok((
                obs.call_method0("copy")?.cast_into()?,
                rewards.call_method0("copy")?.cast_into()?,
                terminated.call_method0("copy")?.cast_into()?,
                truncated.call_method0("copy")?.cast_into()?,
            ))
        } else {
            Ok((
                obs.clone(),
                rewards.clone(),
                terminated.clone(),
                truncated.clone(),
            ))
        }
    }
}
