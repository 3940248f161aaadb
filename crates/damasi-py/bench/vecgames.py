#!/usr/bin/env python3
"""Steps per second of damasi.VecGames: a batch of games stepped in Rust with random legal actions.

Each batch step plays one action in every game (auto-reset on game end) and counts n steps.
Ways to pick the random legal actions (--sampler, several allowed):
  * rust:  games.random_actions(), a uniform legal action per game drawn in Rust;
  * numpy: vectorised in numpy from the (n, 4096) action masks: np.flatnonzero over the
           masks, then one uniform pick per game (a pass over n x 4096 bytes per step).
The step writes into the batch's own arrays (copy=False); --copy measures the default
copy=True, which returns fresh copies of the observations, rewards and flags. The last column
counts the time spent in step() alone (the sampling off the clock).

    python3 crates/damasi-py/bench/vecgames.py [--batch 4096] [--steps 200] [--threads 1 2]
"""

import argparse
import os
import time

import numpy as np

import damasi


def run(games, steps, sampler, copy, rng):
    """Seconds for `steps` batch steps in all, and of them in `step` alone."""
    masks = games.action_masks(copy=False)
    in_step = 0.0
    t = time.perf_counter()
    for _ in range(steps):
        if sampler == "rust":
            actions = games.random_actions()
        else:
            legal = np.flatnonzero(masks)  # the legal (game, action) pairs, game by game
            counts = np.bincount(legal >> 12, minlength=len(masks))
            first = np.cumsum(counts) - counts
            pick = first + (rng.random(len(masks)) * counts).astype(np.int64)
            actions = legal[pick] & 4095
        s = time.perf_counter()
        games.step(actions, copy=copy)
        in_step += time.perf_counter() - s
    return time.perf_counter() - t, in_step


def best_rates(n, threads, steps, sampler, copy, rounds, seed):
    rng = np.random.default_rng(seed)
    best, best_step = 0.0, 0.0
    for _ in range(rounds):
        games = damasi.VecGames(n, max_plies=500, seed=seed, threads=threads)
        run(games, 20, "rust", copy, rng)  # warm up: games of mixed lengths, threads started
        total, in_step = run(games, steps, sampler, copy, rng)
        best, best_step = max(best, n * steps / total), max(best_step, n * steps / in_step)
    return best, best_step


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=200, help="batch steps per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, os.cpu_count() or 1])
    ap.add_argument("--sampler", nargs="+", default=["rust", "numpy"], choices=["rust", "numpy"])
    ap.add_argument("--copy", action="store_true", help="step(copy=True): fresh arrays each step")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    print(f"damasi {damasi.__version__}, batch {args.batch}, {args.steps} steps x best of {args.rounds}, "
          f"copy={args.copy}, {os.cpu_count()} CPUs")
    print("| threads | actions | steps/s | steps/s counting `step` alone |")
    print("|---|---|---|---|")
    for threads in sorted(set(args.threads)):
        for sampler in args.sampler:
            what = {"rust": "`random_actions()`", "numpy": "numpy, from the masks"}[sampler]
            rate, step_rate = best_rates(args.batch, threads, args.steps, sampler, args.copy, args.rounds, args.seed)
            print(f"| {threads} | {what} | {rate:,.0f} | {step_rate:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
