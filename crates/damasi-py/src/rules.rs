//! Positions, moves, outcomes and perft for Python.

use damasi::{
    position_outcome, Color, Move, MoveList, Notation, Outcome, Piece, Position, Role, RuleSet,
    Square,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyList;

use crate::errors::{FenError, MoveError, RulesError};
use crate::fastobj::{self, FastClass, FastNew};
use crate::ml;

/// `"white"` or `"black"`.
pub(crate) fn color_name(c: Color) -> &'static str {
    c.name()
}

/// Reads `"white"`/`"black"` (also `"w"`/`"b"`, any case).
pub(crate) fn parse_color(text: &str) -> PyResult<Color> {
    Color::from_name(text).ok_or_else(|| {
        PyValueError::new_err(format!(
            "'{text}' is not a colour (expected 'white' or 'black')"
        ))
    })
}

/// Reads a rule-set name such as `turkish; no-capture-limit 50`.
pub(crate) fn parse_rules(name: &str) -> PyResult<RuleSet> {
    RuleSet::from_name(name).map_err(|e| RulesError::new_err(e.to_string()))
}

/// Reads `"landing"` or `"captured"`.
pub(crate) fn parse_notation(text: &str) -> PyResult<Notation> {
    match text {
        "landing" => Ok(Notation::Landing),
        "captured" => Ok(Notation::Captured),
        _ => Err(PyValueError::new_err(format!(
            "'{text}' is not a notation (expected 'landing' or 'captured')"
        ))),
    }
}

/// Reads a square name (`"d3"`) or index (0 = a1 .. 63 = h8).
fn parse_square(obj: &Bound<'_, PyAny>) -> PyResult<Square> {
    if let Ok(i) = obj.extract::<i64>() {
        return u8::try_from(i)
            .ok()
            .and_then(Square::new)
            .ok_or_else(|| PyValueError::new_err(format!("square index {i} is not in 0..64")));
    }
    let text: String = obj.extract()?;
    text.parse::<Square>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The legal move of `pos` that `obj` names: a [`PyMove`] of this position, a move text in
/// either notation, or an action number of the fixed action space.
pub(crate) fn resolve_move(pos: &Position, obj: &Bound<'_, PyAny>) -> PyResult<Move> {
    if let Ok(m) = obj.cast::<PyMove>() {
        let m = m.get();
        // Every `Move` object is made from a legal move of its own position, so a move of
        // this very position needs no check; one of another position must be legal here.
        if m.position == *pos || pos.legal_moves().contains(&m.mv) {
            return Ok(m.mv);
        }
        return Err(MoveError::new_err(format!(
            "{} is not legal in {}",
            m.position.write_move(&m.mv, Notation::Landing),
            pos.to_fen()
        )));
    }
    if let Ok(text) = obj.extract::<String>() {
        return pos
            .parse_move(&text)
            .map_err(|e| MoveError::new_err(e.to_string()));
    }
    if let Ok(action) = obj.extract::<i64>() {
        return ml::action_to_move(pos, action);
    }
    Err(MoveError::new_err(format!(
        "expected a Move, a move text or an action number, not {}",
        obj.get_type().name()?
    )))
}

/// A Turkish draughts position: where the pieces stand and who is to move. Immutable:
/// `play` returns a new position.
///
/// ```python
/// >>> import damasi
/// >>> pos = damasi.Position.from_fen("W:Wd4,a3:Bd5,h7")
/// >>> [str(m) for m in pos.legal_moves()]
/// ['d4xd6']
/// ```
#[pyclass(name = "Position", module = "damasi", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyPosition {
    pub(crate) pos: Position,
}

#[pymethods]
impl PyPosition {
    /// `Position()` is the start position; `Position(fen)` reads a FEN.
    #[new]
    #[pyo3(signature = (fen=None))]
    fn new(fen: Option<&str>) -> PyResult<Self> {
        match fen {
            None => Ok(PyPosition {
                pos: Position::start(),
            }),
            Some(f) => PyPosition::from_fen(f),
        }
    }

    /// The start position, White to move.
    #[staticmethod]
    fn start() -> Self {
        PyPosition {
            pos: Position::start(),
        }
    }

    /// Reads a FEN such as `W:Wa2,b2,Kc4:Bd6,Ke8` (or `startpos`); raises `FenError`.
    #[staticmethod]
    pub(crate) fn from_fen(fen: &str) -> PyResult<Self> {
        let pos = if fen.trim() == "startpos" {
            Position::start()
        } else {
            Position::from_fen(fen).map_err(|e| FenError::new_err(e.to_string()))?
        };
        Ok(PyPosition { pos })
    }

    /// The FEN of this position.
    fn fen(&self) -> String {
        self.pos.to_fen()
    }

    /// The side to move: `"white"` or `"black"`.
    #[getter]
    fn turn(&self) -> &'static str {
        color_name(self.pos.side_to_move())
    }

    /// The 64-bit Zobrist key (equal positions have equal keys).
    #[getter]
    fn key(&self) -> u64 {
        self.pos.key()
    }

    /// The legal moves (captures are forced, and only the longest ones).
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        // Generated into a list on the stack (a returned `MoveList` would be copied whole) and
        // turned into Python objects straight into the result list, with no `Vec` between.
        let mut list = MoveList::new();
        self.pos.legal_moves_into(&mut list);
        let pos = self.pos;
        fastobj::new_list(py, list.iter().map(|&mv| PyMove { position: pos, mv }))
    }

    /// The position after `move` (a `Move`, a move text or an action number); raises
    /// `MoveError` if it is not legal here.
    fn play<'py>(&self, r#move: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyPosition>> {
        let m = resolve_move(&self.pos, r#move)?;
        fastobj::new_object(
            r#move.py(),
            PyPosition {
                pos: self.pos.play(&m),
            },
        )
    }

    /// Reads a move text in landing (`b3xd3xd5`) or captured-square (`b3xc3xd4`) notation;
    /// raises `MoveError` if it is malformed, illegal or ambiguous.
    fn parse_move(&self, text: &str) -> PyResult<PyMove> {
        let mv = self
            .pos
            .parse_move(text)
            .map_err(|e| MoveError::new_err(e.to_string()))?;
        Ok(PyMove {
            position: self.pos,
            mv,
        })
    }

    /// How the game stands from the board alone under `rules` (no pieces, blocked, mutual
    /// block, one piece each, king against lone man with that option), or `None`.
    #[pyo3(signature = (rules="turkish"))]
    fn outcome(&self, rules: &str) -> PyResult<Option<PyOutcome>> {
        let rules = parse_rules(rules)?;
        Ok(position_outcome(&self.pos, &rules).map(PyOutcome::from))
    }

    /// Whether the side to move must capture.
    fn has_capture(&self) -> bool {
        self.pos.has_capture()
    }

    /// The piece on `square` (a name like `"d3"` or an index 0..64) as `(colour, role)`, e.g.
    /// `("white", "man")`, or `None`.
    fn piece_at(
        &self,
        square: &Bound<'_, PyAny>,
    ) -> PyResult<Option<(&'static str, &'static str)>> {
        let sq = parse_square(square)?;
        Ok(self.pos.piece_at(sq).map(piece_names))
    }

    /// Every piece: `{square name: (colour, role)}`.
    fn pieces(&self) -> Vec<(String, (&'static str, &'static str))> {
        self.pos
            .pieces()
            .map(|(sq, p)| (sq.to_string(), piece_names(p)))
            .collect()
    }

    /// Number of pieces of `color`.
    fn count(&self, color: &str) -> PyResult<u32> {
        Ok(self.pos.count(parse_color(color)?))
    }

    /// The same placement with the files mirrored (a <-> h); colours and side to move kept.
    /// The rules are symmetric, so the mirrored position has the mirrored moves.
    fn mirror(&self) -> Self {
        PyPosition {
            pos: transform(&self.pos, |sq| (7 - sq.file(), sq.rank()), false),
        }
    }

    /// The colour-swapped position: ranks reversed (1 <-> 8), White and Black exchanged and
    /// the other side to move. Same game from the other player's chair.
    fn flip(&self) -> Self {
        PyPosition {
            pos: transform(&self.pos, |sq| (sq.file(), 7 - sq.rank()), true),
        }
    }

    /// The same placement with `color` to move.
    fn with_turn(&self, color: &str) -> PyResult<Self> {
        Ok(PyPosition {
            pos: self.pos.with_side_to_move(parse_color(color)?),
        })
    }

    /// The board as a `float32` array of shape `(4, 8, 8)` from the side to move's view:
    /// planes own men, own kings, opponent men, opponent kings; `[plane, row, file]` with row
    /// 0 the side to move's back rank (ranks are reversed when Black is to move).
    fn planes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray3<f32>>> {
        ml::planes_array(py, &self.pos)
    }

    /// The legal-action mask: a `bool` array of shape `(4096,)`, see `move_to_action`.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<bool>> {
        ml::mask_array(py, &self.pos)
    }

    /// The action number of a legal move: `from * 64 + to` with squares seen from the side to
    /// move (index `rank * 8 + file`, ranks reversed for Black). Among legal captures with the
    /// same from and to squares, the action stands for the one whose captured set, as a 64-bit
    /// mask of board squares, is smallest; the others have no action.
    fn move_to_action(&self, r#move: &Bound<'_, PyAny>) -> PyResult<i64> {
        let m = resolve_move(&self.pos, r#move)?;
        ml::move_to_action(&self.pos, &m)
    }

    /// The legal move an action number stands for; raises `MoveError` if none.
    fn action_to_move(&self, action: i64) -> PyResult<PyMove> {
        Ok(PyMove {
            position: self.pos,
            mv: ml::action_to_move(&self.pos, action)?,
        })
    }

    /// A board diagram (rank 8 on top).
    fn diagram(&self) -> String {
        damasi::diagram(&self.pos)
    }

    fn __str__(&self) -> String {
        self.pos.to_fen()
    }

    fn __repr__(&self) -> String {
        format!("Position('{}')", self.pos.to_fen())
    }

    fn __copy__(&self) -> Self {
        *self
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        *self
    }

    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, (String,))> {
        let cls = py.get_type::<PyPosition>().into_any().unbind();
        Ok((cls, (self.pos.to_fen(),)))
    }
}

impl FastClass for PyPosition {
    fn fast_new() -> &'static PyOnceLock<Option<FastNew>> {
        static CACHE: PyOnceLock<Option<FastNew>> = PyOnceLock::new();
        &CACHE
    }
}

impl FastClass for PyMove {
    fn fast_new() -> &'static PyOnceLock<Option<FastNew>> {
        static CACHE: PyOnceLock<Option<FastNew>> = PyOnceLock::new();
        &CACHE
    }
}

/// `(colour, role)` names of a piece.
fn piece_names(p: Piece) -> (&'static str, &'static str) {
    let role = match p.role {
        Role::Man => "man",
        Role::King => "king",
    };
    (color_name(p.color), role)
}

/// Moves every piece to `map(square)`, swapping colours (and the side to move) if asked.
fn transform(pos: &Position, map: impl Fn(Square) -> (u8, u8), swap: bool) -> Position {
    let pieces = pos.pieces().map(|(sq, p)| {
        let (file, rank) = map(sq);
        let square = Square::from_coords(file, rank).expect("a board symmetry stays on the board");
        let color = if swap { !p.color } else { p.color };
        (
            square,
            Piece {
                color,
                role: p.role,
            },
        )
    });
    let side = if swap {
        !pos.side_to_move()
    } else {
        pos.side_to_move()
    };
    Position::from_pieces(pieces, side)
        .expect("a board symmetry of a valid position is a valid position")
}

/// A legal move together with the position it is played in (so it can be written in either
/// notation). `str(move)` is landing notation.
#[pyclass(name = "Move", module = "damasi", frozen)]
#[derive(Clone, Copy)]
pub struct PyMove {
    pub(crate) position: Position,
    pub(crate) mv: Move,
}

#[pymethods]
impl PyMove {
    /// The start square, e.g. `"d3"`.
    #[getter(from_square)]
    fn get_from_square(&self) -> String {
        self.mv.from().to_string()
    }

    /// The end square (equal to the start for a capture that goes round a loop).
    #[getter(to_square)]
    fn get_to_square(&self) -> String {
        self.mv.to().to_string()
    }

    /// Index of the start square (a1 = 0, h1 = 7, h8 = 63).
    #[getter(from_index)]
    fn get_from_index(&self) -> usize {
        self.mv.from().index()
    }

    /// Index of the end square.
    #[getter(to_index)]
    fn get_to_index(&self) -> usize {
        self.mv.to().index()
    }

    /// The captured squares in the order of the capture route (empty for a quiet move).
    #[getter]
    fn captured(&self) -> Vec<String> {
        self.position
            .capture_order(&self.mv)
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    /// The captured squares as a 64-bit mask (bit `i` = square index `i`).
    #[getter]
    fn captured_mask(&self) -> u64 {
        self.mv.captured_bits()
    }

    /// Whether the move captures.
    #[getter]
    fn is_capture(&self) -> bool {
        self.mv.is_capture()
    }

    /// Whether a man becomes a king at the end of the move.
    #[getter]
    fn is_promotion(&self) -> bool {
        self.mv.is_promotion()
    }

    /// The squares the piece stands on along the way: start, each landing square.
    #[getter]
    fn route(&self) -> Vec<String> {
        self.position
            .route(&self.mv)
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    /// The position the move is played in.
    #[getter]
    fn position(&self) -> PyPosition {
        PyPosition { pos: self.position }
    }

    /// The move's action number (see `Position.move_to_action`).
    #[getter]
    fn action(&self) -> PyResult<i64> {
        ml::move_to_action(&self.position, &self.mv)
    }

    /// The move in `"landing"` (`b3xd3xd5`, `c7-c8=K`) or `"captured"` (`b3xc3xd4`)
    /// notation.
    #[pyo3(signature = (notation="landing"))]
    fn notation(&self, notation: &str) -> PyResult<String> {
        Ok(self
            .position
            .write_move(&self.mv, parse_notation(notation)?))
    }

    /// The move in pydraughts' and the Hub protocol's numbering (a1 = 1 .. h8 = 64,
    /// `25x57x33x49` with every captured square).
    fn hub(&self) -> String {
        damasi::hub::write_hub_move(&self.mv)
    }

    pub(crate) fn __str__(&self) -> String {
        self.position.write_move(&self.mv, Notation::Landing)
    }

    fn __repr__(&self) -> String {
        format!("Move('{}')", self.__str__())
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let equal = match other.cast::<PyMove>() {
            Ok(o) => {
                let o = o.get();
                o.mv == self.mv && o.position == self.position
            }
            Err(_) => match other.extract::<String>() {
                Ok(text) => self.position.parse_move(&text).ok() == Some(self.mv),
                Err(_) => return Ok(py.NotImplemented()),
            },
        };
        match op {
            CompareOp::Eq => Ok(equal.into_pyobject(py)?.to_owned().into_any().unbind()),
            CompareOp::Ne => Ok((!equal).into_pyobject(py)?.to_owned().into_any().unbind()),
            _ => Ok(py.NotImplemented()),
        }
    }

    fn __hash__(&self) -> u64 {
        let m = &self.mv;
        self.position.key()
            ^ m.captured_bits().rotate_left(17)
            ^ ((m.from().index() as u64) << 6 | m.to().index() as u64)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// How a game ended: `winner` (`"white"`, `"black"` or `None` for a draw), `reason`, and the
/// PDN `result` token.
#[pyclass(name = "Outcome", module = "damasi", frozen, eq)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PyOutcome {
    pub(crate) outcome: Outcome,
}

impl From<Outcome> for PyOutcome {
    fn from(outcome: Outcome) -> Self {
        PyOutcome { outcome }
    }
}

#[pymethods]
impl PyOutcome {
    /// The winner, or `None` for a draw.
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        self.outcome.winner().map(color_name)
    }

    /// Why the game ended: the reason part of the library's outcome code (`no-pieces`,
    /// `blocked`, `resignation`, `time`, `one-piece-each`, `repetition`, `agreement`, ...,
    /// or `aborted`).
    #[getter]
    fn reason(&self) -> &'static str {
        self.outcome.reason_code()
    }

    /// The stable outcome code: `white:time`, `draw:repetition`, `aborted`, ...
    #[getter]
    fn code(&self) -> String {
        self.outcome.code()
    }

    /// Whether the game is drawn (an aborted game is not).
    #[getter]
    fn is_draw(&self) -> bool {
        matches!(self.outcome, Outcome::Draw(_))
    }

    /// The PDN result: `1-0`, `0-1`, `1/2-1/2`, or `*` for an aborted game.
    #[getter]
    fn result(&self) -> &'static str {
        self.outcome.pdn_result()
    }

    fn __str__(&self) -> String {
        self.outcome.describe()
    }

    fn __repr__(&self) -> String {
        format!("Outcome({:?}, {:?})", self.winner(), self.reason())
    }
}

/// Counts the leaf nodes of the legal move tree `depth` plies deep (captures that reach the
/// same square taking the same pieces count once). Releases the GIL; `threads > 1` splits the
/// root moves between threads.
#[pyfunction]
#[pyo3(signature = (position, depth, threads=1))]
pub fn perft(py: Python<'_>, position: &PyPosition, depth: u32, threads: usize) -> PyResult<u64> {
    if depth > 20 {
        return Err(PyValueError::new_err("depth above 20 would not finish"));
    }
    let pos = position.pos;
    let threads = threads.clamp(1, 256);
    Ok(py.detach(|| {
        if threads == 1 {
            damasi::perft(&pos, depth)
        } else {
            damasi::perft_parallel(&pos, depth, damasi::Counting::Moves, threads)
        }
    }))
}
