//! The package's exceptions: all subclasses of `ValueError`, one per kind of bad input.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;

create_exception!(
    damasi,
    FenError,
    PyValueError,
    "A FEN text that is not a valid Turkish draughts position."
);
create_exception!(
    damasi,
    MoveError,
    PyValueError,
    "A move that is malformed, illegal in the position, ambiguous, or played after the end."
);
create_exception!(
    damasi,
    PdnError,
    PyValueError,
    "A PDN record that cannot be read."
);
create_exception!(
    damasi,
    RulesError,
    PyValueError,
    "A rule-set name that is not understood (e.g. 'turkish; no-capture-limit 50')."
);
