//! # damasi-py: Python bindings for damasi
//!
//! The Python module `damasi` (built by maturin from `crates/damasi-py`): the rules
//! ([`rules`]: positions, moves, outcomes, perft), games with draw rules and PDN ([`game`]),
//! the engine ([`engine`]: analysis, play, self-play data) and machine-learning helpers
//! ([`ml`]: board planes, a fixed action space with its legal-action mask, a batch of games
//! stepped in Rust), endgame tablebase probing ([`tablebase`]). The Gymnasium and PettingZoo
//! environments are pure Python on top (`python/damasi/gym_env.py`, `aec_env.py`).
//!
//! The per-call paths a search or a tree walk written in Python hits (`Position.legal_moves`,
//! `Position.play`) make their `Move` and `Position` objects through `fastobj`, which skips
//! PyO3's general object path, and the extension is built for the `abi3` API of CPython 3.10,
//! the first whose stable ABI has the fast calling convention (`METH_FASTCALL`): with 3.9's,
//! every call with arguments built a tuple.
//!
//! Every error a caller can cause (a bad FEN, an illegal move, a broken PDN record, a bad
//! argument) raises a Python exception; nothing panics across the boundary.

use pyo3::prelude::*;

pub mod engine;
pub mod errors;
mod fastobj;
pub mod game;
pub mod ml;
pub mod rules;
pub mod tablebase;

/// The extension module `damasi._damasi`, re-exported by the package `damasi`.
#[pymodule]
fn _damasi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("FenError", py.get_type::<errors::FenError>())?;
    m.add("MoveError", py.get_type::<errors::MoveError>())?;
    m.add("PdnError", py.get_type::<errors::PdnError>())?;
    m.add("RulesError", py.get_type::<errors::RulesError>())?;
    m.add_class::<rules::PyPosition>()?;
    m.add_class::<rules::PyMove>()?;
    m.add_class::<rules::PyOutcome>()?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<engine::PyEngine>()?;
    m.add_class::<engine::PyAnalysis>()?;
    m.add_class::<engine::PyLine>()?;
    m.add_class::<ml::PyVecGames>()?;
    m.add_class::<tablebase::PyTablebase>()?;
    m.add_function(wrap_pyfunction!(rules::perft, m)?)?;
    m.add_function(wrap_pyfunction!(engine::selfplay, m)?)?;
    m.add("ACTION_COUNT", ml::ACTION_COUNT)?;
    m.add("PLANES", ml::PLANES)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
