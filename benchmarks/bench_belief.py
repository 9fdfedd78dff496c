"""Card inference for PIMC: how good the belief net is, and what it buys PIMC.

Figures:

* ``report_*``: :func:`coinche_rl.agents.neural.belief.belief_report` on the card
  decisions of ``--report-deals`` whole deals (nn and heuristic players): mean log-loss
  per hidden card of the exact uniform sampler's marginals, of the net's marginals, and
  of the marginals of the worlds PIMC draws from the belief; by trick, by phase, and the
  net's calibration by decile.
* ``frozen_belief_vs_uniform_*``: ``pimc`` drawing its worlds from the belief against
  ``pimc:worlds_from=uniform``, both 32 worlds, the auction frozen (card play only),
  duplicate under ``--rules``: margin per deal of the belief side with its 95% interval.
  ``frozen_belief16_vs_uniform32_*``: the belief with half the worlds.
  ``full_belief_vs_uniform_*``: whole deals (both bid with the bidding net).
* ``decision_ms_*``: median CPU time of one 32-world decision at the first trick,
  belief and uniform (the belief's cost: one forward pass and the weighted table).

Every matchup is a duplicate (both seatings of every deal). ``--out FILE`` keeps the
finished deal pairs (resume). ``--workers K`` (default 2). ``--sections`` picks
``report``, ``frozen``, ``few``, ``full``, ``timing`` (default: every section the rules
have). ``--rules`` (default ``ffb``): any preset with a belief net, ``belote_a_deux``
included (the report scores there whether each card the player cannot see lies in the
other hand or face down; the frozen sections need an auction to freeze and the timing
section takes four-player positions, so those rules have ``report`` and ``full``).

Usage: ``python benchmarks/bench_belief.py [--quick] [--rules PRESET] [--workers K]
[--out FILE]``. The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from bench_arena import machine
from bench_lib import pimc_decision_ms
from coinche_rl.arena import run_duplicate, shutdown_pool, warmup
from coinche_rl.engine import family_of
from coinche_rl.rules import get_rules

#: (report deals, frozen pairs, few-worlds pairs, full pairs, timing positions)
SIZES = {"quick": (4, 6, 4, 4, 4), "full": (150, 2000, 600, 300, 40)}
SECTIONS = ("report", "timing", "frozen", "few", "full")


def sections_of(rules) -> tuple:
    """The sections ``rules`` have: ``frozen`` and ``few`` where the family's deals have
    the arena's frozen contract, ``timing`` with four players (its positions)."""
    from coinche_rl.agents.neural.family import net_family
    out = ["report"]
    if family_of(rules).n_players == 4:
        out.append("timing")
    if net_family(rules).frozen:
        out += ["frozen", "few"]
    return tuple(s for s in SECTIONS if s in out + ["full"])


def _figures(prefix: str, r) -> dict:
    return {f"{prefix}_margin": round(r.mean, 2), f"{prefix}_ci95": round(r.ci95, 2),
            f"{prefix}_pairs": r.n, f"{prefix}_paired_sd": round(r.paired_sd, 1),
            f"{prefix}_win_rate": round(r.win_rate, 4),
            f"{prefix}_seconds": round(r.wall_seconds, 1)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small numbers (a few minutes)")
    ap.add_argument("--workers", type=int, default=2, help="processes (1: this one)")
    ap.add_argument("--out", default=None, help="JSON-lines file of finished deal pairs (resume)")
    ap.add_argument("--seed", type=int, default=7, help="the deal sets")
    ap.add_argument("--belief", default="", help="belief weights (default: shipped)")
    ap.add_argument("--rules", default="ffb", help="the preset (default ffb)")
    ap.add_argument("--report-deals", type=int, default=None,
                    help="deals of the report (default: 4 with --quick, else 150)")
    ap.add_argument("--sections", nargs="+", default=None, choices=SECTIONS,
                    help="default: every section the rules have")
    args = ap.parse_args(argv)
    rules = get_rules(args.rules)
    from coinche_rl.agents.neural.family import net_family
    missing = net_family(rules).belief_missing(rules)
    if missing:
        ap.error(f"--rules {rules.name}: {missing}")
    have = sections_of(rules)
    if args.sections is None:
        args.sections = list(have)
    elif set(args.sections) - set(have):
        ap.error(f"--rules {rules.name}: no section {', '.join(sorted(set(args.sections) - set(have)))} "
                 f"(its sections: {', '.join(have)})")
    n_report, n_frozen, n_few, n_full, n_pos = SIZES["quick" if args.quick else "full"]
    n_report = n_report if args.report_deals is None else args.report_deals
    backend = "serial" if args.workers <= 1 else "pool"
    workers = None if args.workers <= 1 else args.workers
    extra = f",belief_weights={args.belief}" if args.belief else ""
    belief = "pimc:worlds_from=belief" + extra
    uniform = "pimc:worlds_from=uniform"
    t_all = time.perf_counter()
    warmup(rules.family)
    out = {"bench": "belief", "quick": args.quick, "machine": machine(), "seed": args.seed,
           "rules": rules.name,
           "workers": args.workers, "belief_spec": belief, "uniform_spec": uniform}

    if "report" in args.sections:
        from coinche_rl.agents.neural.belief import belief_report, load_belief_net
        t0 = time.perf_counter()
        rep = belief_report(load_belief_net(args.belief, rules), rules, n_deals=n_report,
                            seed=args.seed)
        out.update({f"report_{k}": v for k, v in rep.items()})
        out["report_seconds"] = round(time.perf_counter() - t0, 1)
        print(f"belief log-loss per hidden card: uniform sampler {rep['log_loss_uniform']:.4f}, "
              f"net {rep['log_loss_net']:.4f}, belief worlds {rep['log_loss_worlds']:.4f} "
              f"({rep['positions']} positions)", file=sys.stderr, flush=True)

    if "timing" in args.sections:
        for name, spec in (("belief", belief), ("uniform", uniform)):
            ms = pimc_decision_ms(n_pos, worlds=32, seed=args.seed, spec=spec)
            out[f"decision_ms_{name}"] = round(float(np.median(ms)), 1)

    def duel(a, b, n, frozen):
        r = run_duplicate(a, b, n, preset=rules.name, seed=args.seed, backend=backend,
                          workers=workers, out=args.out, frozen_contract=frozen,
                          append=True)
        print(f"{a} vs {b} ({'frozen auction' if frozen else 'whole deals'}): "
              f"{r.mean:+.1f} ± {r.ci95:.1f} points per deal over {r.n} deal pairs, "
              f"{r.wall_seconds:.0f} s", file=sys.stderr, flush=True)
        return r

    try:
        if "frozen" in args.sections:
            out.update(_figures("frozen_belief_vs_uniform", duel(belief, uniform, n_frozen, True)))
        if "few" in args.sections:
            out.update(_figures("frozen_belief16_vs_uniform32",
                                duel(belief + ",worlds=16", uniform, n_few, True)))
        if "full" in args.sections:
            out.update(_figures("full_belief_vs_uniform", duel(belief, uniform, n_full, False)))
    finally:
        shutdown_pool()
    out["wall_s"] = round(time.perf_counter() - t_all, 1)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
