"""``coinche-rl demo``: random deals simulated in numba, and their summary table."""

from __future__ import annotations

import time
from typing import List

import numpy as np

from ..rules import N_TEAMS, STRAIN_NAMES, get_rules, rules_label
from ..simulate import simulate_deals
from ..simulate import warmup as engine_warmup
from .common import RULES_HELP, engine_notice, nonnegative_int, positive_int, probability, rules_arg


def value_bands(rules) -> List[tuple]:
    """``(lo, hi, label)`` of the contract-value rows of the demo table: the rule set's
    bid values in three bands (low, middle, high: 80-100, 110-130, 140-160 under ffb),
    each labelled by the values it holds, then capot. The classic prise has no values."""
    if rules.family == "classic":
        return []
    values = list(rules.bid_values)
    bands = []
    for lo, hi in ((values[0], 100), (110, 130), (140, values[-1])):
        held = [v for v in values if lo <= v <= hi]
        if held:
            label = f"{held[0]}-{held[-1]}" if len(held) > 1 else f"{held[0]}"
            bands.append((held[0], held[-1], label))
    return bands + [(250, 250, "capot")]


def summary_table(res, seconds: float, rules=None) -> str:
    """A text summary of a :class:`~coinche_rl.simulate.SimulationResult` under
    ``rules`` (default ffb; the value bands are read from its bids)."""
    rules = get_rules("ffb") if rules is None else rules
    n = len(res)
    played = res.played
    lines = [f"{n:,} random deals in {seconds:.2f} s ({n / max(seconds, 1e-9):,.0f} deals/s, one core)",
             f"void deals (all passed): {np.mean(~played):.1%}", ""]
    lines.append(f"{'contract':14s}{'deals':>9s}{'share':>8s}{'made':>8s}{'takers':>9s}{'defenders':>11s}")
    taker_team = res.taker & (N_TEAMS - 1)      # rules.team, on the array

    def row(label, sel):
        k = int(sel.sum())
        if k == 0:
            return
        tt = taker_team[sel]
        sc = res.scores[sel]
        takers = np.where(tt == 0, sc[:, 0], sc[:, 1]).mean()
        defenders = np.where(tt == 0, sc[:, 1], sc[:, 0]).mean()
        lines.append(f"{label:14s}{k:9,d}{k / n:8.1%}{(res.made[sel] == 1).mean():8.1%}{takers:9.1f}{defenders:11.1f}")

    for lo, hi, label in value_bands(rules):
        row(label, played & (res.value >= lo) & (res.value <= hi))
    if (res.made == 2).any():
        row("litige", played & (res.made == 2))
    for s in sorted(set(res.strain[played].tolist())):
        row(f"strain {STRAIN_NAMES[s]}", played & (res.strain == s))
    row("coinched", played & (res.coinche == 1))
    row("surcoinched", played & (res.coinche == 2))
    row("all contracts", played)
    lines.append("")
    lines.append(f"mean deal score per team: team 0 {res.scores[:, 0].mean():.1f}, team 1 {res.scores[:, 1].mean():.1f}")
    return "\n".join(lines)


def cmd_demo(args) -> int:
    engine_notice("demo")
    t0 = time.perf_counter()
    engine_warmup()
    t1 = time.perf_counter()
    res = simulate_deals(args.deals, rules=args.rules, seed=args.seed, pass_prob=args.pass_prob)
    t2 = time.perf_counter()
    print(f"coinche-rl demo: rules {rules_label(args.rules)!r}, seed {args.seed}, "
          f"auction: pass with probability {args.pass_prob}, else a uniformly random legal bid")
    print(f"(kernels ready in {t1 - t0:.1f} s)\n")
    print(summary_table(res, t2 - t1, args.rules))
    return 0


def add_parser(sub) -> None:
    d = sub.add_parser("demo", help="simulate random deals and print a summary table",
                       description="Simulate random deals in numba (random legal auctions "
                                   "and card play) and print a table of the contracts, how "
                                   "often they are made and the mean scores.")
    d.add_argument("--deals", type=positive_int, default=100_000,
                   help="deals to simulate (default 100000)")
    d.add_argument("--rules", type=rules_arg, default=get_rules("ffb"),
                   help=RULES_HELP.format(default="ffb"))
    d.add_argument("--seed", type=nonnegative_int, default=0,
                   help="seed of the deals and the auctions (default 0)")
    d.add_argument("--pass-prob", type=probability, default=0.6,
                   help="probability that a seat passes in the auction, else it takes a "
                        "uniformly random legal bid (default 0.6)")
    d.set_defaults(func=cmd_demo)
