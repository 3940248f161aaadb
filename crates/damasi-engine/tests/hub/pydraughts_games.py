"""Plays whole games of Turkish draughts with `damasi hub` through pydraughts' HubEngine.

Usage: python3 pydraughts_games.py /path/to/damasi

Two engine processes play each other: one game at a fixed depth and one on a clock (with
increment), the second from a few random opening moves. Every move an engine returns must
be legal for pydraughts' own board (pydraughts raises on an unknown move), and the engine
must accept every move list pydraughts sends back to it (it would answer `error` and then a
bare `done`, which pydraughts cannot read). The script also checks the handshake (the
`variant` parameter listing `turkish`) and `ping`. Exit status 0 means every check passed.
"""

import random
import sys

from draughts import Board
from draughts.engine import HubEngine, Limit

MAX_PLIES = 80


def start_engine(path):
    engine = HubEngine([path, "hub", "--hash", "4"])
    assert "variant" in engine.options, engine.options
    assert "turkish" in engine.variants, engine.variants
    assert engine.id.get("name") == "damasi", engine.id
    engine.setoption("variant", "turkish")
    engine.init()
    engine.ping()
    return engine


def play_game(engines, limit, opening_plies, rng, label):
    board = Board("turkish")
    for _ in range(opening_plies):
        moves = board.legal_moves()
        if not moves or board.is_over():
            break
        board.push(rng.choice(moves))
    plies = 0
    while not board.is_over() and len(board.move_stack) < MAX_PLIES:
        engine = engines[len(board.move_stack) % 2]
        # play() turns the engine's `done move=..` into a pydraughts Move by looking it up
        # among the legal moves of the board, which raises on an unknown or illegal move.
        try:
            result = engine.play(board, limit, ponder=False)
        except Exception as e:
            raise AssertionError(
                f"{label}: no legal engine move at ply {len(board.move_stack)} in "
                f"{board.fen}: {e!r}"
            ) from e
        move = result.move
        assert move is not None and not move.is_null, f"{label}: no move"
        assert "depth" in result.info and "score" in result.info, result.info
        board.push(move)
        plies += 1
    winner = board.winner()
    print(
        f"{label}: {len(board.move_stack)} plies ({plies} by the engines), "
        f"winner={winner}, moves: {' '.join(m.hub_move for m in board.move_stack)}"
    )
    assert plies > 0, "the engines played no move"


def main():
    path = sys.argv[1]
    rng = random.Random(20261121)
    engines = [start_engine(path), start_engine(path)]
    try:
        play_game(engines, Limit(depth=2), 0, rng, "game 1 (depth 2)")
        # pydraughts sends `level time=<clock - inc> inc=<inc>`.
        play_game(engines, Limit(time=1, inc=0.01), 3, rng, "game 2 (1s + 0.01s)")
        engines[0].ping()
    finally:
        for engine in engines:
            engine.quit()
            engine.p.communicate(timeout=10)
    for engine in engines:
        assert engine.p.returncode == 0, engine.p.returncode
    print("ok")


if __name__ == "__main__":
    main()
