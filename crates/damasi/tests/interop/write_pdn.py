"""Plays games given move by move on a pydraughts board and has pydraughts write them as PDN.

Usage: python3 write_pdn.py GAMES.txt BOARD.pdn NUMBERS.pdn

GAMES.txt has one game a line: `<FEN>|<result>|<move> <move> ...`, each move written as
`from-to-c1.c2..` with squares numbered 1..64 from a1 (captured squares after the second dash,
empty for a quiet move). Each move is looked up among pydraughts' own legal moves by start
square, end square and set of captured squares; a move pydraughts does not have stops the
script with exit code 2 and a message naming it.

BOARD.pdn gets the games as pydraughts writes a board's move stack (its algebraic squares);
NUMBERS.pdn gets them as pydraughts writes a list of its move strings (numbered squares).
Used by crates/damasi/tests/pydraughts_interop.rs (pydraughts writes, damasi reads).
"""

import sys

from draughts import Board
from draughts.PDN import PDNWriter


def find(board, spec):
    start, end, caught = spec.split("-")
    start, end = int(start), int(end)
    caught = {int(sq) for sq in caught.split(".") if sq}
    for move in board.legal_moves():
        steps = move.steps_move
        if steps[0] == start and steps[-1] == end and set(move.captures) == caught:
            return move
    legal = [f"{m.steps_move}x{sorted(m.captures)}" for m in board.legal_moves()]
    sys.stderr.write(f"pydraughts has no move {spec} in {board.fen}; its moves: {legal}\n")
    sys.exit(2)


def main():
    games_path, board_path, numbers_path = sys.argv[1:4]
    board_text, numbers_text = [], []
    with open(games_path, encoding="utf8") as games:
        for line in games:
            line = line.rstrip("\n")
            if not line:
                continue
            fen, result, moves = line.split("|")
            board = Board(variant="turkish", fen=fen)
            strings = []
            for spec in moves.split():
                move = find(board, spec)
                strings.append(move.pdn_move)
                board.push(move)
            tags = {"Event": "pydraughts interop"}
            by_board = PDNWriter("", board=board, tags=dict(tags), game_ending=result)
            by_strings = PDNWriter("", moves=strings, variant="turkish", starting_fen=fen,
                                   tags=dict(tags), game_ending=result)
            board_text.append(by_board.pdn_text)
            numbers_text.append(by_strings.pdn_text)
    with open(board_path, "w", encoding="utf8") as out:
        out.write("".join(board_text))
    with open(numbers_path, "w", encoding="utf8") as out:
        out.write("".join(numbers_text))


if __name__ == "__main__":
    main()
