"""Belote for two players: engine and agent throughput, and the heuristic's strength
(``coinche_rl.engine.two``, ``coinche_rl.agents.numba_bots``, ``coinche_rl.arena``).

Figures (one core; best of ``--repeats`` timed runs after a warm-up), for each preset
(``belote_a_deux``, ``belote_decouverte``):

* ``<preset>_engine_random_deals_per_s``: random deals played to the score with
  uniformly random legal actions (``engine.two.two_simulate``: the deal, the prise,
  the exchange, 16 tricks, scoring).
* ``<preset>_heuristic_deals_per_s``: deals played by the heuristic at both players in
  numba (``agents.numba_bots.play_deals``: a public view built for every
  decision), from the deal set's initial states.
* ``<preset>_duplicate_deals_per_s``: a duplicate ``heuristic`` against ``random``
  end to end (``run_duplicate`` under its rules, serial): deal set, both seatings, result;
  both seatings counted.
* ``<preset>_heuristic_margin_vs_random``: its margin in points per deal (the pair's
  summed score difference halved), ``..._ci95`` the half-width of the 95% Student-t
  interval, ``..._paired_sd``, ``..._win_rate`` (deal pairs won) and ``..._pairs``.
* ``python_path_deals_per_s``: the duplicate through the Python agents (``fast=False``:
  a ``TwoPlayerView`` per decision), belote à deux.

Usage: ``python benchmarks/bench_two_player.py [--quick] [--repeats K]``. The last line
of output is one JSON object.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

from coinche_rl.agents.numba_bots import BOT_HEURISTIC, play_deals
from coinche_rl.arena import DealSet, run_duplicate, warmup
from coinche_rl.engine.two import two_simulate
from coinche_rl.engine.two import warmup as engine_warmup
from coinche_rl.rules import get_rules, params_vector

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_engine import machine  # noqa: E402  (one machine description for every benchmark)
from bench_lib import bench_arguments, timed  # noqa: E402

PRESETS = ("belote_a_deux", "belote_decouverte")


def best_seconds(repeats: int, fn) -> float:
    """The best seconds of ``repeats`` calls of ``fn``."""
    return timed(repeats, fn)[0]


def main(argv=None) -> dict:
    args = bench_arguments(__doc__, argv)
    repeats = args.repeats or (3 if args.quick else 5)
    n_engine = 100_000 if args.quick else 1_000_000
    n_bot = 20_000 if args.quick else 200_000
    n_pairs = 5_000 if args.quick else 50_000
    n_py = 50 if args.quick else 300

    t0 = time.perf_counter()
    engine_warmup()
    warmup("two")
    run_duplicate("heuristic", "random", 4, "belote_a_deux", fast=False)      # the Python path
    out = {"bench": "two_player", "quick": args.quick, "machine": machine(),
           "warmup_s": round(time.perf_counter() - t0, 2)}
    bots = np.array([BOT_HEURISTIC, BOT_HEURISTIC], dtype=np.int64)
    for preset in PRESETS:
        P = params_vector(get_rules(preset))
        scores = np.zeros((n_engine, 2), np.int64)
        made = np.zeros(n_engine, np.int64)
        void = np.zeros(n_engine, np.uint8)
        secs = best_seconds(repeats, lambda: two_simulate(P, n_engine, np.int64(1), scores, made,
                                                          void))
        out[f"{preset}_engine_random_deals_per_s"] = round(n_engine / secs)
        states, seeds = DealSet(preset, 1).states(np.arange(n_bot))
        secs = best_seconds(repeats, lambda: play_deals(P, states.copy(), bots, seeds))
        out[f"{preset}_heuristic_deals_per_s"] = round(n_bot / secs)
        t1 = time.perf_counter()
        r = run_duplicate("heuristic", "random", n_pairs, preset, seed=1)
        secs = time.perf_counter() - t1
        out[f"{preset}_duplicate_deals_per_s"] = round(2 * n_pairs / secs)
        out[f"{preset}_heuristic_margin_vs_random"] = round(r.mean, 2)
        out[f"{preset}_heuristic_margin_ci95"] = round(r.ci95, 2)
        out[f"{preset}_paired_sd"] = round(r.paired_sd, 1)
        out[f"{preset}_win_rate"] = round(r.win_rate, 4)
        out[f"{preset}_pairs"] = n_pairs
        print(f"{preset}: engine {out[f'{preset}_engine_random_deals_per_s']:,} random deals/s, "
              f"heuristic {out[f'{preset}_heuristic_deals_per_s']:,} deals/s; heuristic vs "
              f"random {r.mean:+.1f} ± {r.ci95:.1f} points per deal over {n_pairs:,} pairs "
              f"(win rate {r.win_rate:.3f})", file=sys.stderr)
        if preset == "belote_a_deux":
            py_secs = best_seconds(1, lambda: run_duplicate(
                "heuristic", "random", n_py, preset, seed=1, fast=False))
            out["python_path_deals_per_s"] = round(2 * n_py / py_secs)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
