"""damasi: Turkish draughts (Dama) for Python.

Exact rules (positions, moves, games with draw rules, PDN, perft), the damasi engine,
endgame tablebase probing (``Tablebase``), and machine-learning helpers: board planes, a fixed
4096-action space with its legal-action mask,
a batch of games stepped in Rust (``VecGames``), self-play data (``selfplay``), and, in pure
Python on top, a Gymnasium environment (``damasi.gym_env``) and a PettingZoo AEC environment
(``damasi.aec_env``).

>>> import damasi
>>> pos = damasi.Position()
>>> len(pos.legal_moves())
8
>>> damasi.perft(pos, 4)
7538
"""

from ._damasi import (
    ACTION_COUNT,
    PLANES,
    Analysis,
    Engine,
    FenError,
    Game,
    Line,
    Move,
    MoveError,
    Outcome,
    PdnError,
    Position,
    RulesError,
    Tablebase,
    VecGames,
    __version__,
    perft,
    selfplay,
)

__all__ = [
    "ACTION_COUNT",
    "PLANES",
    "Analysis",
    "Engine",
    "FenError",
    "Game",
    "Line",
    "Move",
    "MoveError",
    "Outcome",
    "PdnError",
    "Position",
    "RulesError",
    "Tablebase",
    "VecGames",
    "__version__",
    "perft",
    "save_selfplay",
    "selfplay",
]


def save_selfplay(path, data):
    """Saves the dict returned by :func:`selfplay` as a compressed NumPy ``.npz`` file.

    The FEN strings are stored as a unicode array under ``fens``; load with
    ``numpy.load(path)``.
    """
    import numpy as np

    arrays = {k: v for k, v in data.items() if k != "fens"}
    arrays["fens"] = np.array(data["fens"], dtype=np.str_)
    np.savez_compressed(path, **arrays)
