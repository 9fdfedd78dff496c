"""Tournament throughput and the first strength figures (``coinche_rl.arena``).

Figures (one core unless said; best of ``--repeats`` timed runs after a warm-up):

* ``random_vs_heuristic_deals_per_s``: a duplicate ``heuristic`` against ``random``
  under the FFB preset, both bots in numba (``run_duplicate``, serial backend), end to
  end: the deal set built from its seed, every deal played in both seatings, the result
  assembled. Deals played per second, both seatings counted (``..._pairs_per_s``: deal
  pairs).
* ``heuristic_margin_vs_random``: the heuristic's margin over random in points per deal
  (mean over deal pairs of the two seatings' score differences), with
  ``heuristic_margin_ci95`` the half-width of its 95% Student-t interval;
  ``paired_sd`` the standard deviation of the per-pair margins, which sizes every later
  experiment (pairs needed for a half-width h: about ``(1.96 * paired_sd / h) ** 2``);
  ``heuristic_win_rate`` the deal-pair win rate.
* ``frozen_*``: the same with the auction frozen (a contract drawn per deal, the same in
  both seatings), the format of card-play comparisons.
* ``similar_margin`` / ``similar_paired_sd``: between two close agents (``heuristic``
  and ``heuristic:aggression=10``, which differ in the auction only), the typical case
  of an ablation.
* ``python_path_deals_per_s``: the same matchup through the Python agents
  (``fast=False``: ``play_deal`` and a ``PlayerView`` per decision).
* ``pool2_deals_per_s`` (full run only): the process pool with 2 workers.

Usage: ``python benchmarks/bench_arena.py [--quick] [--repeats K]``. The last line of
output is one JSON object.
"""

from __future__ import annotations

import json
import os
import sys
import time

from coinche_rl.arena import run_duplicate, warmup


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_engine import machine  # noqa: E402  (one machine description for every benchmark)
from bench_lib import bench_arguments, timed  # noqa: E402


def main(argv=None) -> dict:
    args = bench_arguments(__doc__, argv)
    repeats = args.repeats or (3 if args.quick else 5)
    n = 10_000 if args.quick else 50_000
    n_py = 100 if args.quick else 500

    t0 = time.perf_counter()
    warmup()
    run_duplicate("heuristic", "random", 10, seed=1, fast=False)     # the Python path's kernels
    warm_s = time.perf_counter() - t0

    secs, res = timed(repeats, lambda: run_duplicate("heuristic", "random", n, seed=1))
    frozen = run_duplicate("heuristic", "random", n, seed=1, frozen_contract=True)
    similar = run_duplicate("heuristic", "heuristic:aggression=10", n, seed=1)
    py_secs, py = timed(1, lambda: run_duplicate("heuristic", "random", n_py, seed=1, fast=False))
    assert (py.scores == res.scores[:n_py]).all(), "the Python path differs from numba"

    out = {
        "bench": "arena",
        "quick": args.quick,
        "machine": machine(),
        "warmup_s": round(warm_s, 2),
        "deal_pairs": n,
        "random_vs_heuristic_deals_per_s": round(2 * n / secs),
        "random_vs_heuristic_pairs_per_s": round(n / secs),
        "heuristic_margin_vs_random": round(res.mean, 2),
        "heuristic_margin_ci95": round(res.ci95, 2),
        "paired_sd": round(res.paired_sd, 1),
        "heuristic_win_rate": round(res.win_rate, 4),
        "frozen_heuristic_margin_vs_random": round(frozen.mean, 2),
        "frozen_heuristic_margin_ci95": round(frozen.ci95, 2),
        "frozen_paired_sd": round(frozen.paired_sd, 1),
        "similar_margin": round(similar.mean, 2),
        "similar_margin_ci95": round(similar.ci95, 2),
        "similar_paired_sd": round(similar.paired_sd, 1),
        "python_path_deals_per_s": round(2 * n_py / py_secs),
        "pool2_deals_per_s": None,
    }
    if not args.quick:
        run_duplicate("heuristic", "random", 2000, seed=2, backend="pool", workers=2)  # start-up
        p_secs, pooled = timed(1, lambda: run_duplicate("heuristic", "random", n, seed=1,
                                                        backend="pool", workers=2))
        assert (pooled.scores == res.scores).all(), "the pool differs from the serial run"
        out["pool2_deals_per_s"] = round(2 * n / p_secs)
    print(f"duplicate heuristic vs random, {n:,} deal pairs, ffb: "
          f"{out['random_vs_heuristic_deals_per_s']:,} deals/s on one core; margin "
          f"{res.mean:+.1f} ± {res.ci95:.1f} points per deal, paired sd {res.paired_sd:.0f}, "
          f"win rate {res.win_rate:.3f}", file=sys.stderr)
    print(f"frozen auction: {frozen.mean:+.1f} ± {frozen.ci95:.1f}, paired sd "
          f"{frozen.paired_sd:.0f}; heuristic vs heuristic:aggression=10: {similar.mean:+.1f} ± "
          f"{similar.ci95:.1f}, paired sd {similar.paired_sd:.0f}", file=sys.stderr)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
