//! Endgame tablebases from Python: `Tablebase(dir)` opens the tables `damasi tb build` (or
//! `Tablebase.build`) wrote, `probe(position)` gives win, draw or loss for the side to move,
//! `probe_moves(position)` the value of each legal move.

use std::path::PathBuf;

use damasi::{Position, Wdl};
use damasi_tb::{build_all, ProbeError, Tablebase};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use crate::game::PyGame;
use crate::rules::{PyMove, PyPosition};

/// The largest tables `Tablebase.build` makes (six pieces take hours and tens of GB).
const MAX_BUILD_PIECES: u32 = 5;

/// Win/draw/loss tables of endgames with few pieces, read from a directory of `*.dtb` files
/// (`damasi tb build --dir DIR`, or `Tablebase.build(DIR, pieces)`). Values are for the side
/// to move, with perfect play under the default rules (no legal move loses; mutual block, one
/// piece each and repetition draw): a rule-set option such as a no-capture limit is not
/// taken into account.
#[pyclass(name = "Tablebase", module = "damasi", frozen)]
pub struct PyTablebase {
    tb: Tablebase,
    dir: PathBuf,
}

/// A position from a `Position` or a `Game` (its current position).
fn position_of(obj: &Bound<'_, PyAny>) -> PyResult<Position> {
    if let Ok(p) = obj.cast::<PyPosition>() {
        return Ok(p.get().pos);
    }
    if let Ok(g) = obj.cast::<PyGame>() {
        return Ok(*g.borrow().game().position());
    }
    Err(PyValueError::new_err(format!(
        "expected a Position or a Game, not {}",
        obj.get_type().name()?
    )))
}

impl PyTablebase {
    /// The value for the side to move, `None` when no table covers the position; a damaged
    /// table raises `OSError`.
    fn value(&self, pos: &Position) -> PyResult<Option<Wdl>> {
        match self.tb.probe(pos) {
            Ok(v) => Ok(Some(v)),
            Err(ProbeError::TooManyPieces(_)) | Err(ProbeError::MissingTable(_)) => Ok(None),
            Err(e @ ProbeError::File(_)) => Err(PyOSError::new_err(e.to_string())),
            // Only placements can fail to be positions; kept for completeness.
            Err(e @ ProbeError::NotAPosition(_)) => Err(PyValueError::new_err(e.to_string())),
        }
    }
}

#[pymethods]
impl PyTablebase {
    /// Opens every table in `dir`. A directory that does not exist holds no tables (every
    /// probe with three or more pieces gives `None`); a damaged file raises `OSError`.
    #[new]
    fn new(py: Python<'_>, dir: PathBuf) -> PyResult<Self> {
        let tb = py
            .detach(|| Tablebase::open(&dir))
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok(PyTablebase { tb, dir })
    }

    /// Builds (or completes) every table with 3 up to `pieces` pieces in `dir` and opens
    /// them. Three pieces take a second, four about a minute, five much longer; at most 5.
    #[staticmethod]
    #[pyo3(signature = (dir, pieces=3))]
    fn build(py: Python<'_>, dir: PathBuf, pieces: u32) -> PyResult<Self> {
        if !(3..=MAX_BUILD_PIECES).contains(&pieces) {
            return Err(PyValueError::new_err(format!(
                "pieces must be 3 to {MAX_BUILD_PIECES}, not {pieces}"
            )));
        }
        let tb = py
            .detach(|| build_all(&dir, pieces, |_| {}))
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok(PyTablebase { tb, dir })
    }

    /// The directory the tables were read from.
    #[getter]
    fn directory(&self) -> PathBuf {
        self.dir.clone()
    }

    /// The material signatures loaded, e.g. `"w0m2k-b0m1k"` (White's men and kings, then
    /// Black's), fewest pieces first.
    #[getter]
    fn signatures(&self) -> Vec<String> {
        self.tb.signatures().iter().map(|s| s.to_string()).collect()
    }

    /// Whether every table up to `pieces` pieces is loaded (so every such position can be
    /// probed).
    fn is_complete_to(&self, pieces: u32) -> bool {
        self.tb.is_complete_to(pieces)
    }

    /// The value of a `Position` (or a `Game`'s position) for the side to move: `"win"`,
    /// `"draw"` or `"loss"`, or `None` when no loaded table covers it (too many pieces, or a
    /// table missing). Positions where one side has no piece, or each side one, need no table.
    fn probe(&self, position: &Bound<'_, PyAny>) -> PyResult<Option<&'static str>> {
        let pos = position_of(position)?;
        Ok(self.value(&pos)?.map(Wdl::name))
    }

    /// Each legal move of a `Position` (or a `Game`'s position) with its value for the side
    /// that plays it: `"win"`, `"draw"`, `"loss"`, or `None` when no table covers the
    /// position after it. Best moves first (wins, then draws, then losses, then unknown),
    /// in the order of `legal_moves()` among equals.
    fn probe_moves(
        &self,
        position: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<(PyMove, Option<&'static str>)>> {
        let pos = position_of(position)?;
        let mut out = Vec::new();
        for m in pos.legal_moves().iter() {
            let after = pos.play(m);
            let v = self.value(&after)?.map(Wdl::negate);
            out.push((
                PyMove {
                    position: pos,
                    mv: *m,
                },
                v,
            ));
        }
        let rank = |v: &Option<Wdl>| match v {
            Some(Wdl::Win) => 0,
            Some(Wdl::Draw) => 1,
            Some(Wdl::Loss) => 2,
            None => 3,
        };
        out.sort_by_key(|(_, v)| rank(v));
        Ok(out
            .into_iter()
            .map(|(m, v)| (m, v.map(Wdl::name)))
            .collect())
    }

    fn __len__(&self) -> usize {
        self.tb.signatures().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Tablebase({:?}, {} tables)",
            self.dir.display().to_string(),
            self.tb.signatures().len()
        )
    }
}
