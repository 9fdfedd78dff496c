"""Strength and speed of the PIMC agent (``coinche_rl.agents.pimc``), through the
tournament harness (``coinche_rl.arena.run_duplicate``).

Figures:

* ``pimc_world_ms``: one world solved exactly (every legal card's value) at a decision
  of the first trick (the opening lead included), median over positions (and ``_p90``);
  ``pimc32_decision_ms``: a whole ``pimc`` decision (32 worlds) there, median (and
  ``_p90``). Goals: 1 ms and 100 ms. ``pimc32_decision_ms_trick2``: the same at the
  second trick. CPU time of this process (``time.process_time``).
* ``frozen_*``: PIMC-32 against ``heuristic`` with the auction frozen (the same contract
  in both seatings: card play only), duplicate under ``ffb``: the margin in points per
  deal with its 95% interval, the deal pairs, the paired standard deviation and the win
  rate. Goal: at least +20 with the interval clear of 0, over at least 1,000 pairs.
* ``full_*_heuristic`` / ``full_*_random``: whole deals (PIMC bids too) under ``ffb``.
* ``colver_<bot>_*``: against colver's bots (``colver:heuristic``, ``colver:maxi``,
  ``colver:rule``, ``colver:ismcts``) under the ``colver`` preset, whole deals; null
  when colver is not installed.

Every matchup is a duplicate (both seatings of every deal). ``--out FILE`` keeps the
finished deal pairs in a JSON-lines file, so a killed run resumes where it stopped.
``--workers K`` plays on ``K`` processes (default 2; 1 plays in this process).

Usage: ``python benchmarks/bench_strength.py [--quick] [--workers K] [--out FILE]``. The
last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from bench_arena import machine
from bench_lib import pimc_decision_ms, pimc_world_ms
from coinche_rl.agents.pimc import warmup as pimc_warmup
from coinche_rl.arena import run_duplicate, shutdown_pool, warmup

COLVER_BOTS = ("colver:heuristic", "colver:maxi", "colver:rule", "colver:ismcts")

#: (frozen pairs, full pairs vs heuristic, full pairs vs random, pairs per colver bot,
#: timing positions)
SIZES = {"quick": (24, 4, 4, 2, 8), "full": (1000, 300, 100, 60, 40)}


def _figures(prefix: str, r) -> dict:
    return {f"{prefix}_margin": round(r.mean, 2), f"{prefix}_ci95": round(r.ci95, 2),
            f"{prefix}_pairs": r.n, f"{prefix}_paired_sd": round(r.paired_sd, 1),
            f"{prefix}_win_rate": round(r.win_rate, 4),
            f"{prefix}_seconds": round(r.wall_seconds, 1)}


def _colver_installed() -> bool:
    try:
        import colver  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small numbers (a few minutes)")
    ap.add_argument("--workers", type=int, default=2, help="processes (1: this one)")
    ap.add_argument("--out", default=None, help="JSON-lines file of finished deal pairs (resume)")
    ap.add_argument("--seed", type=int, default=0, help="the deal sets")
    ap.add_argument("--spec", default="pimc", help="the PIMC agent's spec")
    args = ap.parse_args(argv)
    n_frozen, n_heur, n_random, n_colver, n_pos = SIZES["quick" if args.quick else "full"]
    backend = "serial" if args.workers <= 1 else "pool"
    workers = None if args.workers <= 1 else args.workers
    t_all = time.perf_counter()

    t0 = time.perf_counter()
    warmup()
    pimc_warmup()
    warm_s = time.perf_counter() - t0
    world = pimc_world_ms(n_pos * 2, seed=args.seed)
    decision = pimc_decision_ms(n_pos, worlds=32, seed=args.seed)
    decision2 = pimc_decision_ms(n_pos, worlds=32, seed=args.seed, trick=2)
    out = {
        "bench": "strength",
        "quick": args.quick,
        "machine": machine(),
        "spec": args.spec,
        "workers": args.workers,
        "warmup_s": round(warm_s, 2),
        "pimc_world_ms": round(float(np.median(world)), 3),
        "pimc_world_ms_p90": round(float(np.percentile(world, 90)), 3),
        "pimc32_decision_ms": round(float(np.median(decision)), 1),
        "pimc32_decision_ms_p90": round(float(np.percentile(decision, 90)), 1),
        "pimc32_decision_ms_trick2": round(float(np.median(decision2)), 1),
        "timing_positions": n_pos,
    }

    def duel(opponent, n, preset="ffb", frozen=False):
        r = run_duplicate(args.spec, opponent, n, preset=preset, seed=args.seed, backend=backend,
                          workers=workers, out=args.out, frozen_contract=frozen)
        print(f"{args.spec} vs {opponent} ({preset}{', frozen auction' if frozen else ''}): "
              f"{r.mean:+.1f} ± {r.ci95:.1f} points per deal over {r.n} deal pairs, paired sd "
              f"{r.paired_sd:.0f}, win rate {r.win_rate:.3f}, {r.wall_seconds:.0f} s",
              file=sys.stderr, flush=True)
        return r

    try:
        out.update(_figures("frozen_vs_heuristic", duel("heuristic", n_frozen, frozen=True)))
        out.update(_figures("full_vs_heuristic", duel("heuristic", n_heur)))
        out.update(_figures("full_vs_random", duel("random", n_random)))
        have_colver = _colver_installed()
        for bot in COLVER_BOTS:
            key = "colver_" + bot.split(":")[1]
            if have_colver:
                out.update(_figures(key, duel(bot, n_colver, preset="colver")))
            else:
                out.update({f"{key}_margin": None, f"{key}_ci95": None, f"{key}_pairs": 0})
    finally:
        shutdown_pool()
    out["frozen_goal_met"] = bool(out["frozen_vs_heuristic_margin"] >= 20
                                  and out["frozen_vs_heuristic_margin"]
                                  - out["frozen_vs_heuristic_ci95"] > 0
                                  and out["frozen_vs_heuristic_pairs"] >= 1000)
    out["wall_s"] = round(time.perf_counter() - t_all, 1)
    print(f"PIMC world {out['pimc_world_ms']:.2f} ms, PIMC-32 decision "
          f"{out['pimc32_decision_ms']:.0f} ms (median, first trick)", file=sys.stderr)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
