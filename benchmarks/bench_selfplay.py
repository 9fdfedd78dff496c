"""The learning curve of self-play policy iteration (``train play --labels selfplay``).

For a self-play run folder (``--run``), every ``--every``-th generation's weights
(``generations/gen_NNN.npz``: the weights that labelled that generation) and the run's
final ``weights.npz`` are measured on deal sets the trainer never evaluates on (seed
``--seed``; the trainer's own evaluations use its ``--eval-seed``), each a paired
duplicate with its 95 % interval, both seatings:

* ``vs_heuristic_frozen``: the card player against the heuristic, frozen auction
  (``vs_heuristic_full``, whole deals, in a family without an auction to freeze: belote
  for two players);
* ``vs_random_full``: whole deals against ``random`` (the shipped bidding network bids);
* ``vs_pimc_frozen`` (``vs_pimc_full``): against PIMC-32 (uniform worlds), frozen
  auction, on ``--workers`` processes (skipped with ``--quick``).

Also ``selfplay_labels_per_s``: labelled decisions per second of the self-play label
generator (one core; the shipped card net as the learner and as a past generation, the
default opponent pool), and ``selfplay_playout_steps_per_s``.

Without ``--run`` the curve has one point: the shipped weights. ``--rules`` (default
``ffb``): any preset with a card-play net, of either family (what differs is read from
the family's description, :func:`coinche_rl.agents.neural.family.net_family`: its
frozen contract, its shipped weights).

Usage: ``python benchmarks/bench_selfplay.py [--quick] [--rules PRESET] [--run RUN]
[--every K] [--workers K] [--seed S]``; the last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from bench_arena import machine  # noqa: E402
from coinche_rl.agents.neural.agent import load_bid_net, load_play_net  # noqa: E402
from coinche_rl.agents.neural.agent import warmup as nn_warmup  # noqa: E402
from coinche_rl.agents.neural.family import net_family  # noqa: E402
from coinche_rl.agents.neural.net import default_weights_path  # noqa: E402
from coinche_rl.agents.neural.selfplay import (SelfPlayTable, parse_opponents,  # noqa: E402
                                               selfplay_chunk)
from coinche_rl.agents.neural.selfplay import warmup as selfplay_warmup  # noqa: E402
from coinche_rl.train.play import Args  # noqa: E402
from coinche_rl.arena import run_duplicate, shutdown_pool, warmup  # noqa: E402
from coinche_rl.rules import get_rules  # noqa: E402

#: (pairs vs heuristic, pairs vs random, pairs vs pimc, label deals)
SIZES = {"quick": (500, 200, 0, 256), "full": (3000, 1000, 200, 2048)}


def points(run: str, every: int):
    """``[(label, weights file)]``: every ``every``-th generation of ``run`` (always the
    first and the last) and its final weights."""
    gens = sorted(glob.glob(os.path.join(run, "generations", "gen_*.npz")))
    pick = [g for i, g in enumerate(gens) if i % every == 0 or i == len(gens) - 1]
    out = [(int(re.search(r"gen_(\d+)", g).group(1)), g) for g in pick]
    final = os.path.join(run, "weights.npz")
    if os.path.isfile(final):
        out.append(("final", final))
    return out


def duel(spec: str, other: str, pairs: int, seed: int, frozen: bool, workers: int = 1,
         preset: str = "ffb") -> dict:
    backend = "pool" if workers > 1 else "serial"
    r = run_duplicate(spec, other, pairs, preset=preset, seed=seed, frozen_contract=frozen,
                      backend=backend, workers=workers if workers > 1 else None)
    return {"margin": round(float(r.mean), 2), "ci95": round(float(r.ci95), 2),
            "pairs": int(r.n)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small numbers (a few minutes)")
    ap.add_argument("--run", default="", help="a self-play run folder (default: none)")
    ap.add_argument("--every", type=int, default=5, help="measure every K-th generation")
    ap.add_argument("--workers", type=int, default=2, help="processes for the PIMC matchup")
    ap.add_argument("--seed", type=int, default=7, help="the deal sets")
    ap.add_argument("--rules", default="ffb", help="the preset (default ffb)")
    args = ap.parse_args(argv)
    n_heur, n_rand, n_pimc, n_label = SIZES["quick" if args.quick else "full"]
    rules = get_rules(args.rules)
    frozen = net_family(rules).frozen          # the family's deals have a frozen contract
    deals = "frozen" if frozen else "full"
    t0 = time.perf_counter()
    warmup(rules.family)
    nn_warmup()
    selfplay_warmup(rules.name)
    out = {"bench": "selfplay", "quick": args.quick, "machine": machine(), "rules": rules.name,
           "warmup_s": round(time.perf_counter() - t0, 2), "run": args.run or None}

    # ---- label generation (one core)
    net = load_play_net("", rules)
    table = SelfPlayTable(net, load_bid_net(rules=rules, required=False), [net])
    pool = parse_opponents(Args().opponents)
    selfplay_chunk(rules, 1, 0, 8, table, pool)          # the first call's own set-up
    ch = selfplay_chunk(rules, 12345, 0, n_label, table, pool, frozen=0.5 if frozen else 0.0,
                        epsilon=0.05)
    out["selfplay_labels_per_s"] = round(len(ch) / ch.seconds)
    out["selfplay_playout_steps_per_s"] = round(ch.playout_steps / ch.seconds)
    out["selfplay_deals_per_s"] = round(ch.deals / ch.seconds, 1)

    # ---- the curve
    pts = points(args.run, max(1, args.every)) if args.run else \
        [("shipped", default_weights_path(rules.name))]
    curve = []
    for label, path in pts:
        spec = f"nn:weights={path}"
        row = {"point": label, "weights": path,
               f"vs_heuristic_{deals}": duel(spec, "heuristic", n_heur, args.seed, frozen,
                                             preset=rules.name),
               "vs_random_full": duel(spec, "random", n_rand, args.seed, False,
                                      preset=rules.name)}
        if n_pimc:
            row[f"vs_pimc_{deals}"] = duel(spec, "pimc", n_pimc, args.seed, frozen, args.workers,
                                           preset=rules.name)
        curve.append(row)
        print(json.dumps(row), flush=True)
    shutdown_pool()
    out["curve"] = curve
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
    sys.exit(0)
