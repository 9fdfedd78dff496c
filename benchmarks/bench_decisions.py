"""Time per card decision with a choice of a searching agent (default ``nnsearch``), in
whole deals against the heuristic.

For each preset of ``--rules`` (default: belote à deux and belote découverte), the deals
``0 .. --deals - 1`` of ``--seed`` (a random deal and dealer each), the agent ``--agent``
at the places of one side (side 0 in even deals, side 1 in odd ones) and the heuristic at
the others; every card decision of the agent with two or more legal cards is timed
(``act``, from the view to the card: wall clock, and the process's CPU time).
Figures per preset: ``decisions``, ``median_ms``, ``p90_ms``, ``mean_ms``,
``cpu_median_ms``; where the agent solves its late decisions exactly (``nnsearch``'s
``solve_from``) the decisions played out and those solved apart (``played_out``,
``solved``: n and median); the median by trick (0-based). Set ``OPENBLAS_NUM_THREADS=1``
(the default here, as in the pool workers: two BLAS threads on a loaded 2-core machine
make a forward pass of a few rows several times slower).

Usage: ``python benchmarks/bench_decisions.py [--quick] [--rules PRESET ...] [--agent SPEC]
[--deals N] [--seed S]`` (``coinche-rl bench decisions``); the last line of output is one
JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from bench_arena import machine  # noqa: E402
from coinche_rl.agents import agent_view, make_agent  # noqa: E402
from coinche_rl.arena import warmup  # noqa: E402
from coinche_rl.engine import family_of  # noqa: E402
from coinche_rl.envs.family import env_family  # noqa: E402
from coinche_rl.rules import get_rules  # noqa: E402


def _ms(values) -> dict:
    v = np.asarray(values, dtype=float)
    if not len(v):
        return {"n": 0}
    return {"n": int(len(v)), "median_ms": round(float(np.median(v)), 2)}


def time_decisions(preset: str, spec: str = "nnsearch", deals: int = 16, seed: int = 0) -> dict:
    """The figures of one preset (module docstring)."""
    rules = get_rules(preset)
    game = family_of(rules)
    deal_class = env_family(rules).deal
    rng = np.random.default_rng([seed, 0xDEC])
    rows = []                                      # (wall ms, cpu ms, trick, solved)
    for k in range(deals):
        deal = deal_class(rules, seed=int(rng.integers(2 ** 62)),
                          dealer=int(rng.integers(game.n_players)))
        agents = [make_agent(spec if game.side(s) == k % 2 else "heuristic", rules)
                  for s in range(game.n_players)]
        for s, a in enumerate(agents):
            a.reset(s, rules, int(rng.integers(2 ** 31)))
        while not deal.is_terminal:
            seat = deal.current_player
            view = agent_view(deal, seat)
            timed = game.side(seat) == k % 2 and deal.phase == "play" \
                and bin(int(deal.legal_cards())).count("1") >= 2
            if timed:
                solves = getattr(agents[seat], "_solves", None)
                solved = bool(solves(view)) if solves is not None else False
                trick = deal.trick_number
                t, c = time.perf_counter(), time.process_time()
            a = agents[seat].act(view)
            if timed:
                rows.append((1000 * (time.perf_counter() - t), 1000 * (time.process_time() - c),
                             trick, solved))
            deal.apply(a)
    wall = np.array([r[0] for r in rows])
    out = {"rules": rules.name, "agent": spec, "deals": deals, "decisions": len(rows),
           "median_ms": round(float(np.median(wall)), 2),
           "p90_ms": round(float(np.percentile(wall, 90)), 2),
           "mean_ms": round(float(wall.mean()), 2),
           "cpu_median_ms": round(float(np.median([r[1] for r in rows])), 2)}
    if any(r[3] for r in rows):
        out["played_out"] = _ms([r[0] for r in rows if not r[3]])
        out["solved"] = _ms([r[0] for r in rows if r[3]])
    out["by_trick"] = {str(t): round(float(np.median([r[0] for r in rows if r[2] == t])), 2)
                       for t in sorted({r[2] for r in rows})}
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", nargs="+", default=["belote_a_deux", "belote_decouverte"],
                    help="presets (default: belote_a_deux belote_decouverte)")
    ap.add_argument("--agent", default="nnsearch", help="the agent spec timed")
    ap.add_argument("--deals", type=int, default=None, help="deals per preset (default 16; "
                    "4 with --quick)")
    ap.add_argument("--quick", action="store_true", help="4 deals per preset")
    ap.add_argument("--seed", type=int, default=0, help="the deals")
    args = ap.parse_args(argv)
    if args.deals is None:
        args.deals = 4 if args.quick else 16
    t0 = time.perf_counter()
    for family in sorted({get_rules(r).family for r in args.rules}):
        warmup(family)
    out = {"bench": "decisions", "machine": machine(),
           "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"), "presets": []}
    for preset in args.rules:
        time_decisions(preset, args.agent, 1, args.seed + 1)     # the first call's set-up
        r = time_decisions(preset, args.agent, args.deals, args.seed)
        out["presets"].append(r)
        print(json.dumps(r), file=sys.stderr, flush=True)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
