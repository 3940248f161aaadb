"""Reads a PDN file with pydraughts and replays every game on a pydraughts board.

Usage: python3 read_pdn.py GAMES.pdn

Prints one line per game: `OK <variant> <final FEN>` when every move was accepted, or
`ERR <ply> <move> <reason>` at the first move pydraughts refuses. Used by
crates/damasi/tests/pydraughts_interop.rs (damasi writes, pydraughts reads).
"""

import sys

from draughts import Board, Move
from draughts.PDN import PDNReader


def moves_of(game):
    """The game's moves, working round a pydraughts 0.6.7 reader bug: when the FEN has Black to
    move, the movetext `1... a b 2. c d` comes back as [a, a, b, c, d]. The same text twice in a
    row is never legal (the first move empties its start square), so dropping the copy is safe.
    """
    moves = list(game.moves)
    fen = game.tags.get("FEN", "W")
    if fen.strip().upper().startswith("B") and len(moves) >= 2 and moves[0] == moves[1]:
        del moves[1]
    return moves


def replay(game):
    board = Board(variant="turkish", fen=game.tags.get("FEN", "startpos"))
    for ply, text in enumerate(moves_of(game)):
        try:
            move = Move(board, pdn_move=text)
            board.push(move)
        except Exception as error:  # pydraughts raises several kinds
            reason = repr(error).replace("\n", " ")
            return f"ERR {ply} {text} {reason}"
    return f"OK {game.variant} {board.fen}"


def main():
    reader = PDNReader(filename=sys.argv[1])
    for game in reader.games:
        print(replay(game))


if __name__ == "__main__":
    main()
