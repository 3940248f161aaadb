#!/usr/bin/env python3
"""Move-generation speed from Python: damasi, kish (PyPI) and pydraughts 0.6.7, in one run.

Two measures from the start position:
  * native perft: one call, the whole tree counted in compiled code (damasi.perft,
    kish.Board.perft; pydraughts has none);
  * Python tree walk: a recursive perft written in Python that asks each library for the
    legal moves and plays them (what an agent or a search written in Python does).
Each timing is the best of --rounds rounds. Libraries that are not installed are skipped.

    python3 crates/damasi-py/bench/movegen.py [--native-depth 7] [--walk-depth 6] [--rounds 5]
"""

import argparse
import time
from importlib.metadata import version


def best_time(fn, rounds):
    best, result = float("inf"), None
    for _ in range(rounds):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def damasi_walk(pos, depth):
    moves = pos.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(damasi_walk(pos.play(m), depth - 1) for m in moves)


def kish_walk(board, depth):
    actions = board.actions()
    if depth == 1:
        return len(actions)
    return sum(kish_walk(board.apply(a), depth - 1) for a in actions)


def pydraughts_walk(board, depth):
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    n = 0
    for m in moves:
        board.push(m)
        n += pydraughts_walk(board, depth - 1)
        board.pop()
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--native-depth", type=int, default=7)
    ap.add_argument("--walk-depth", type=int, default=6)
    ap.add_argument("--pydraughts-depth", type=int, default=3, help="0 skips pydraughts")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()

    rows = []
    import damasi

    t, n = best_time(lambda: damasi.perft(damasi.Position(), args.native_depth), args.rounds)
    rows.append((f"damasi {damasi.__version__}", f"`damasi.perft(Position(), {args.native_depth})`", n, t))
    try:
        import kish

        kv = version("kish")
        t, n = best_time(lambda: kish.Board().perft(args.native_depth), args.rounds)
        rows.append((f"kish {kv}", f"`kish.Board().perft({args.native_depth})` (routes)", n, t))
    except ImportError:
        kish = None

    d = args.walk_depth
    t, n = best_time(lambda: damasi_walk(damasi.Position(), d), args.rounds)
    rows.append((f"damasi {damasi.__version__}", f"Python walk depth {d}: `legal_moves()` + `play()`", n, t))
    if kish is not None:
        t, n = best_time(lambda: kish_walk(kish.Board(), d), args.rounds)
        rows.append((f"kish {kv}", f"Python walk depth {d}: `actions()` + `apply()`", n, t))
    try:
        if args.pydraughts_depth < 1:
            raise ImportError("pydraughts skipped")
        import draughts
        from draughts import Board

        pv = version("pydraughts")
        pd = args.pydraughts_depth
        t, n = best_time(lambda: pydraughts_walk(Board("turkish"), pd), 1)
        rows.append((f"pydraughts {pv}", f"Python walk depth {pd}: `legal_moves()` + `push()`/`pop()`", n, t))
    except ImportError:
        pass

    print("| library | what | leaves | time (s) | leaves/s |")
    print("|---|---|---|---|---|")
    for lib, what, n, t in rows:
        print(f"| {lib} | {what} | {n:,} | {t:.3f} | {n / t:,.0f} |")


if __name__ == "__main__":
    main()
