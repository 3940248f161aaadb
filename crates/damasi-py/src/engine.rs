//! The engine for Python: analysis, play and self-play data for training.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use damasi::{Color, Game, Move, Position};
use damasi_engine::{
    Engine, EngineOptions, Info, Level, Limits, Score, SearchControl, SearchRequest, SearchResult,
    SearchRoot,
};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::game::PyGame;
use crate::ml::{self, Rng};
use crate::rules::{parse_rules, PyMove, PyPosition};

/// The one place this crate calls [`Engine::search`]: searches `root` and returns the result
/// with the last reported line of each multi-PV rank (best first).
fn run_search(
    engine: &mut Engine,
    root: &SearchRoot,
    limits: &Limits,
    level: Level,
    multipv: usize,
) -> (SearchResult, Vec<Info>) {
    let control = Arc::new(SearchControl::new());
    let mut lines: BTreeMap<usize, Info> = BTreeMap::new();
    let request = SearchRequest::new(root.clone(), limits.clone())
        .with_level(level)
        .with_multipv(multipv);
    let result = engine.search(&request, &control, &mut |info| {
        lines.insert(info.multipv, info.clone());
    });
    (result, lines.into_values().collect())
}

/// The search root for a `Position` or a `Game` (a game brings its repetitions and rules).
fn root_of(obj: &Bound<'_, PyAny>) -> PyResult<SearchRoot> {
    if let Ok(p) = obj.cast::<PyPosition>() {
        return Ok(SearchRoot::new(p.get().pos));
    }
    if let Ok(g) = obj.cast::<PyGame>() {
        return Ok(SearchRoot::from_game(g.borrow().game()));
    }
    Err(PyValueError::new_err(format!(
        "expected a Position or a Game, not {}",
        obj.get_type().name()?
    )))
}

/// Limits from the keyword arguments; `default_time` when none is given (or an error if
/// `None`).
fn limits_of(
    depth: Option<u32>,
    nodes: Option<u64>,
    time: Option<f64>,
    default_time: Option<f64>,
) -> PyResult<Limits> {
    let time = time.or(if depth.is_none() && nodes.is_none() {
        default_time
    } else {
        None
    });
    if depth.is_none() && nodes.is_none() && time.is_none() {
        return Err(PyValueError::new_err(
            "give a limit: depth=, nodes= or time= (seconds)",
        ));
    }
    let mut limits = Limits::default();
    if let Some(d) = depth {
        if d == 0 || d > 200 {
            return Err(PyValueError::new_err("depth must be in 1..=200"));
        }
        limits.depth = Some(d);
    }
    if let Some(n) = nodes {
        if n == 0 {
            return Err(PyValueError::new_err("nodes must be at least 1"));
        }
        limits.nodes = Some(n);
    }
    if let Some(t) = time {
        if !(t.is_finite() && t > 0.0 && t <= 86_400.0) {
            return Err(PyValueError::new_err(
                "time must be a number of seconds above 0 and at most a day",
            ));
        }
        limits.move_time = Some(Duration::from_secs_f64(t));
    }
    Ok(limits)
}

/// The moves of `pv` as Python moves, each with the position it is played in.
fn pv_moves(start: &Position, pv: &[Move]) -> Vec<PyMove> {
    let mut pos = *start;
    let mut out = Vec::with_capacity(pv.len());
    for &mv in pv {
        if !pos.legal_moves().contains(&mv) {
            break;
        }
        out.push(PyMove { position: pos, mv });
        pos = pos.play(&mv);
    }
    out
}

/// One line of an analysis.
#[pyclass(name = "Line", module = "damasi", frozen, get_all)]
#[derive(Clone)]
pub struct PyLine {
    /// Rank of the line, 1 = best.
    pub multipv: usize,
    /// Score in men from the side to move's view (wins and losses near +-300).
    pub score: f64,
    /// Plies to the end of the game when the score is a known win (> 0) or loss (< 0).
    pub mate: Option<i32>,
    /// The principal variation, starting with the line's move.
    pub pv: Vec<PyMove>,
    /// Depth of the iteration that produced the line.
    pub depth: u32,
}

#[pymethods]
impl PyLine {
    fn __repr__(&self) -> String {
        let pv: Vec<String> = self.pv.iter().map(|m| m.__str__()).collect();
        format!(
            "Line(multipv={}, score={:+.2}, mate={:?}, pv='{}')",
            self.multipv,
            self.score,
            self.mate,
            pv.join(" ")
        )
    }
}

/// What a search found: the best move, its score, the principal variation, the lines of a
/// multi-PV search, depth and nodes.
#[pyclass(name = "Analysis", module = "damasi", frozen, get_all)]
#[derive(Clone)]
pub struct PyAnalysis {
    /// The best move (`None` if the side to move has no move).
    pub best: Option<PyMove>,
    /// Score of the best move in men from the side to move's view.
    pub score: f64,
    /// Plies to the end when the score is a known win (> 0) or loss (< 0).
    pub mate: Option<i32>,
    /// The principal variation.
    pub pv: Vec<PyMove>,
    /// The best lines, best first (one unless `multipv` > 1).
    pub lines: Vec<PyLine>,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
}

#[pymethods]
impl PyAnalysis {
    fn __repr__(&self) -> String {
        format!(
            "Analysis(best={}, score={:+.2}, depth={}, nodes={})",
            self.best
                .as_ref()
                .map_or("None".to_string(), |m| format!("'{}'", m.__str__())),
            self.score,
            self.depth,
            self.nodes
        )
    }
}

/// The damasi engine (iterative-deepening PVS, transposition table, Lazy SMP threads).
///
/// ```python
/// >>> engine = damasi.Engine(level=10, threads=1, hash_mb=16)
/// >>> a = engine.analyse(damasi.Position(), depth=6, multipv=2)
/// >>> a.best, a.score, len(a.lines)
/// ```
#[pyclass(name = "Engine", module = "damasi")]
pub struct PyEngine {
    engine: Engine,
    level: Level,
}

#[pymethods]
impl PyEngine {
    /// An engine playing at `level` (1 = beginner .. 10 = full strength), with `threads`
    /// search threads and a `hash_mb` MiB transposition table.
    #[new]
    #[pyo3(signature = (level=10, threads=1, hash_mb=16))]
    fn new(level: u8, threads: usize, hash_mb: usize) -> PyResult<Self> {
        if !(1..=10).contains(&level) {
            return Err(PyValueError::new_err("level must be in 1..=10"));
        }
        if !(1..=256).contains(&threads) {
            return Err(PyValueError::new_err("threads must be in 1..=256"));
        }
        if !(1..=65_536).contains(&hash_mb) {
            return Err(PyValueError::new_err("hash_mb must be in 1..=65536"));
        }
        Ok(PyEngine {
            engine: Engine::new(EngineOptions { hash_mb, threads }),
            level: Level::new(level),
        })
    }

    /// The playing level, 1..=10.
    #[getter]
    fn level(&self) -> u8 {
        self.level.get()
    }

    /// Analyses a `Position` or a `Game` at full strength within `depth` (plies), `nodes`
    /// or `time` (seconds; the first limit reached ends the search), reporting the `multipv`
    /// best lines. Releases the GIL while searching.
    #[pyo3(signature = (position, *, depth=None, nodes=None, time=None, multipv=1))]
    fn analyse(
        &mut self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        depth: Option<u32>,
        nodes: Option<u64>,
        time: Option<f64>,
        multipv: usize,
    ) -> PyResult<PyAnalysis> {
        let root = root_of(position)?;
        let limits = limits_of(depth, nodes, time, None)?;
        if !(1..=64).contains(&multipv) {
            return Err(PyValueError::new_err("multipv must be in 1..=64"));
        }
        let engine = &mut self.engine;
        let (result, infos) = py.detach(|| run_search(engine, &root, &limits, Level::MAX, multipv));
        Ok(analysis(&root.position, &result, &infos))
    }

    /// The move the engine plays at its level in a `Position` or a `Game` (`None` if there
    /// is no legal move), within `depth`, `nodes` or `time` seconds (default: 1 second).
    #[pyo3(signature = (position, *, depth=None, nodes=None, time=None))]
    fn play(
        &mut self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        depth: Option<u32>,
        nodes: Option<u64>,
        time: Option<f64>,
    ) -> PyResult<Option<PyMove>> {
        let root = root_of(position)?;
        let limits = limits_of(depth, nodes, time, Some(1.0))?;
        let (engine, level) = (&mut self.engine, self.level);
        let (result, _) = py.detach(|| run_search(engine, &root, &limits, level, 1));
        Ok(result.best.map(|mv| PyMove {
            position: root.position,
            mv,
        }))
    }

    /// Forgets what earlier searches learnt (hash table, move-ordering history).
    fn new_game(&mut self) {
        self.engine.new_game();
    }

    fn __repr__(&self) -> String {
        let o = self.engine.options();
        format!(
            "Engine(level={}, threads={}, hash_mb={})",
            self.level.get(),
            o.threads,
            o.hash_mb
        )
    }
}

/// `(score in men, plies to the end)` of an engine score.
fn score_parts(s: Score) -> (f64, Option<i32>) {
    (s.to_men(), s.plies_to_end())
}

/// The Python analysis of a search.
fn analysis(start: &Position, result: &SearchResult, infos: &[Info]) -> PyAnalysis {
    let (score, mate) = score_parts(result.score);
    let lines = infos
        .iter()
        .map(|i| {
            let (score, mate) = score_parts(i.score);
            PyLine {
                multipv: i.multipv,
                score,
                mate,
                pv: pv_moves(start, &i.pv),
                depth: i.depth,
            }
        })
        .collect();
    PyAnalysis {
        best: result.best.map(|mv| PyMove {
            position: *start,
            mv,
        }),
        score,
        mate,
        pv: pv_moves(start, &result.pv),
        lines,
        depth: result.depth,
        nodes: result.nodes,
    }
}

/// Training data from self-play, flat arrays over all recorded positions.
#[derive(Default)]
struct SelfPlayData {
    planes: Vec<f32>,
    fens: Vec<String>,
    scores: Vec<f32>,
    actions: Vec<i64>,
    results: Vec<i8>,
    games: Vec<u32>,
    plies: Vec<u32>,
}

/// Plays `games` engine games (after `random_plies` random moves each) and records every
/// searched position.
fn play_selfplay(
    games: u32,
    nodes: u64,
    random_plies: u32,
    max_plies: u32,
    rules: damasi::RuleSet,
    seed: u64,
) -> SelfPlayData {
    let mut data = SelfPlayData::default();
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 16,
        threads: 1,
    });
    let mut rng = Rng::new(seed);
    let mut planes = [0.0f32; ml::PLANES * 64];
    for game_index in 0..games {
        engine.new_game();
        let mut game = Game::with_rules(rules);
        // Positions of this game: (side to move, index in data).
        let mut recorded: Vec<(Color, usize)> = Vec::new();
        while game.outcome().is_none() && (game.ply() as u32) < max_plies {
            let pos = *game.position();
            let mv = if (game.ply() as u32) < random_plies {
                let moves = pos.legal_moves();
                moves[rng.below(moves.len())]
            } else {
                let root = SearchRoot::from_game(&game);
                let (result, _) =
                    run_search(&mut engine, &root, &Limits::nodes(nodes), Level::MAX, 1);
                let best = result.best.expect("a game that is not over has a move");
                ml::write_planes(&pos, &mut planes);
                recorded.push((pos.side_to_move(), data.fens.len()));
                data.planes.extend_from_slice(&planes);
                data.fens.push(pos.to_fen());
                data.scores.push(result.score.0 as f32);
                data.actions
                    .push(ml::move_to_action(&pos, &best).unwrap_or(-1));
                data.games.push(game_index);
                data.plies.push(game.ply() as u32);
                data.results.push(0);
                best
            };
            game.play(&mv).expect("a legal move");
        }
        let winner = game.outcome().and_then(|o| o.winner());
        for (side, i) in recorded {
            data.results[i] = match winner {
                Some(w) if w == side => 1,
                Some(_) => -1,
                None => 0,
            };
        }
    }
    data
}

/// Self-play training data: the engine plays `games` games against itself (`nodes` nodes a
/// move, full strength, after `random_plies` uniformly random opening plies so the games
/// differ; games longer than `max_plies` count as draws) and every searched position is
/// recorded. Returns a dict of arrays, one entry per position: `planes` `(m, 4, 8, 8)`
/// float32 (see `Position.planes`), `scores` float32 (the search score in centi-men, side to
/// move's view), `actions` int64 (the move played, -1 if it has no action), `results` int8
/// (the game's result for the side to move: 1, 0, -1), `games` and `plies` uint32, and
/// `fens` (a list). Releases the GIL.
#[pyfunction]
#[pyo3(signature = (games, *, nodes=2000, random_plies=6, max_plies=300, rules="turkish", seed=0))]
pub fn selfplay<'py>(
    py: Python<'py>,
    games: u32,
    nodes: u64,
    random_plies: u32,
    max_plies: u32,
    rules: &str,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    if nodes == 0 {
        return Err(PyValueError::new_err("nodes must be at least 1"));
    }
    let rules = parse_rules(rules)?;
    let data = py.detach(|| play_selfplay(games, nodes, random_plies, max_plies, rules, seed));
    let m = data.fens.len();
    let out = PyDict::new(py);
    out.set_item(
        "planes",
        PyArray1::from_vec(py, data.planes).reshape([m, ml::PLANES, 8, 8])?,
    )?;
    out.set_item("scores", PyArray1::from_vec(py, data.scores))?;
    out.set_item("actions", PyArray1::from_vec(py, data.actions))?;
    out.set_item("results", PyArray1::from_vec(py, data.results))?;
    out.set_item("games", PyArray1::from_vec(py, data.games))?;
    out.set_item("plies", PyArray1::from_vec(py, data.plies))?;
    out.set_item("fens", data.fens)?;
    Ok(out)
}
