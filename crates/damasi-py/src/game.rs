//! Games for Python: history, undo and redo, draw rules, resignation, PDN.

use damasi::pdn::{self, PdnGame};
use damasi::{Game, GameError, Position};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::errors::{MoveError, PdnError};
use crate::rules::{
    color_name, parse_color, parse_notation, parse_rules, resolve_move, PyMove, PyOutcome,
    PyPosition,
};

/// A game: rules, start position, the moves played, and how it ends (no pieces or no move,
/// mutual block, one piece each, threefold repetition, the rule set's options, agreement,
/// resignation). PDN tags are kept for `pdn()`.
///
/// ```python
/// >>> g = damasi.Game()
/// >>> g.play("d3-d4")
/// Move('d3-d4')
/// >>> g.undo()
/// Move('d3-d4')
/// ```
#[pyclass(name = "Game", module = "damasi")]
#[derive(Clone)]
pub struct PyGame {
    pub(crate) record: PdnGame,
}

impl PyGame {
    /// The game itself.
    pub(crate) fn game(&self) -> &Game {
        &self.record.game
    }
}

/// A game error as a Python exception.
fn game_err(e: GameError) -> PyErr {
    MoveError::new_err(e.to_string())
}

#[pymethods]
impl PyGame {
    /// A game from `fen` (default: the start position) under `rules` (default `"turkish"`;
    /// options such as `"turkish; no-capture-limit 50; king-beats-lone-man"`).
    #[new]
    #[pyo3(signature = (fen=None, rules="turkish"))]
    fn new(fen: Option<&str>, rules: &str) -> PyResult<Self> {
        let start = match fen {
            None => Position::start(),
            Some(f) => PyPosition::from_fen(f)?.pos,
        };
        Ok(PyGame {
            record: PdnGame::new(Game::from_position(start, parse_rules(rules)?)),
        })
    }

    /// Reads the first game of a PDN text; raises `PdnError` if it cannot be read.
    #[staticmethod]
    fn from_pdn(text: &str) -> PyResult<Self> {
        let record = pdn::read_game(text).map_err(|e| PdnError::new_err(e.to_string()))?;
        Ok(PyGame { record })
    }

    /// Reads every game of a PDN text; raises `PdnError` at the first broken one.
    #[staticmethod]
    fn read_all_pdn(text: &str) -> PyResult<Vec<PyGame>> {
        pdn::read_games(text.as_bytes())
            .map(|r| {
                r.map(|record| PyGame { record })
                    .map_err(|e| PdnError::new_err(e.to_string()))
            })
            .collect()
    }

    /// The game as PDN text, moves in `"landing"` or `"captured"` notation.
    #[pyo3(signature = (notation="landing"))]
    fn pdn(&self, notation: &str) -> PyResult<String> {
        Ok(pdn::write_game(&self.record, parse_notation(notation)?))
    }

    /// The PDN tags, in order (`Event`, `White`, ... as read or set).
    #[getter]
    fn tags(&self) -> Vec<(String, String)> {
        self.record.tags.clone()
    }

    /// Sets a PDN tag (`Result`, `GameType`, `FEN` and the rules come from the game itself).
    fn set_tag(&mut self, name: &str, value: &str) {
        self.record.set_tag(name, value);
    }

    /// The rule set's name.
    #[getter]
    fn rules(&self) -> String {
        self.game().rules().name()
    }

    /// The current position.
    #[getter]
    fn position(&self) -> PyPosition {
        PyPosition {
            pos: *self.game().position(),
        }
    }

    /// The start position.
    #[getter]
    fn initial_position(&self) -> PyPosition {
        PyPosition {
            pos: *self.game().initial_position(),
        }
    }

    /// The moves played, first to last.
    #[getter]
    fn history(&self) -> Vec<PyMove> {
        let g = self.game();
        g.history()
            .iter()
            .enumerate()
            .map(|(ply, &mv)| PyMove {
                position: g.position_at(ply).expect("a position before every move"),
                mv,
            })
            .collect()
    }

    /// Plies played.
    #[getter]
    fn ply(&self) -> usize {
        self.game().ply()
    }

    /// The position after `ply` plies (0 = the start).
    fn position_at(&self, ply: usize) -> PyResult<PyPosition> {
        self.game()
            .position_at(ply)
            .map(|pos| PyPosition { pos })
            .ok_or_else(|| {
                pyo3::exceptions::PyIndexError::new_err(format!(
                    "ply {ply} is past the {} plies played",
                    self.game().ply()
                ))
            })
    }

    /// The legal moves; empty once the game is over.
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let g = self.game();
        let position = *g.position();
        let moves = g.legal_moves();
        crate::fastobj::new_list(py, moves.iter().map(|&mv| PyMove { position, mv }))
    }

    /// Plays a move (a `Move`, a text in either notation, or an action number) and returns
    /// it; raises `MoveError` if it is not legal or the game is over.
    fn play(&mut self, r#move: &Bound<'_, PyAny>) -> PyResult<PyMove> {
        if let Some(o) = self.game().outcome() {
            return Err(game_err(GameError::Over(o)));
        }
        let position = *self.game().position();
        let mv = resolve_move(&position, r#move)?;
        self.record.game.play(&mv).map_err(game_err)?;
        Ok(PyMove { position, mv })
    }

    /// Takes back the last move and returns it (`None` at the start).
    fn undo(&mut self) -> Option<PyMove> {
        let mv = self.record.game.undo()?;
        Some(PyMove {
            position: *self.game().position(),
            mv,
        })
    }

    /// Plays again the last move taken back, if any.
    fn redo(&mut self) -> Option<PyMove> {
        let position = *self.game().position();
        let mv = self.record.game.redo()?;
        Some(PyMove { position, mv })
    }

    /// The result, or `None` while the game goes on.
    fn outcome(&self) -> Option<PyOutcome> {
        self.game().outcome().map(PyOutcome::from)
    }

    /// Whether the game is over.
    #[getter]
    fn is_over(&self) -> bool {
        self.game().outcome().is_some()
    }

    /// How often the current position has occurred (1 the first time; 3 draws).
    fn repetition_count(&self) -> usize {
        self.game().repetition_count()
    }

    /// Plies since the last capture.
    fn plies_without_capture(&self) -> u32 {
        self.game().plies_without_capture()
    }

    /// `color` (`"white"` or `"black"`) resigns.
    fn resign(&mut self, color: &str) -> PyResult<()> {
        let c = parse_color(color)?;
        self.record.game.resign(c);
        Ok(())
    }

    /// The players agree a draw.
    fn agree_draw(&mut self) {
        self.record.game.agree_draw();
    }

    /// The side to move.
    #[getter]
    fn turn(&self) -> &'static str {
        color_name(self.game().position().side_to_move())
    }

    fn __len__(&self) -> usize {
        self.game().ply()
    }

    fn __repr__(&self) -> String {
        format!(
            "Game(ply={}, position='{}')",
            self.game().ply(),
            self.game().position().to_fen()
        )
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
}
