"""The ``coinche-rl`` command line.

::

    coinche-rl demo [--deals N] [--rules ffb] [--seed S]   # random deals, summary table
    coinche-rl replay FILE                                  # check a record, print scoring
    coinche-rl random-deal [--seed S] [--rules R] [-o FILE] # a random deal record
    coinche-rl random-match [--seed S] [--rules R] [-o FILE]
    coinche-rl presets                                      # rule presets and parameters

Errors print ``coinche-rl: error: ...`` on stderr and exit non-zero.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import List, Optional

import numpy as np

from .rules import PRESETS, STRAIN_NAMES, InvalidRulesError, UnknownPresetError, get_rules


def _rules_arg(name: str):
    try:
        return get_rules(name)
    except UnknownPresetError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def summary_table(res, seconds: float) -> str:
    """A text summary of a :class:`~coinche_rl.simulate.SimulationResult`."""
    n = len(res)
    played = res.played
    lines = [f"{n:,} random deals in {seconds:.2f} s ({n / max(seconds, 1e-9):,.0f} deals/s, one core)",
             f"void deals (all passed): {np.mean(~played):.1%}", ""]
    lines.append(f"{'contract':14s}{'deals':>9s}{'share':>8s}{'made':>8s}{'takers':>9s}{'defenders':>11s}")
    taker_team = res.taker & 1

    def row(label, sel):
        k = int(sel.sum())
        if k == 0:
            return
        tt = taker_team[sel]
        sc = res.scores[sel]
        takers = np.where(tt == 0, sc[:, 0], sc[:, 1]).mean()
        defenders = np.where(tt == 0, sc[:, 1], sc[:, 0]).mean()
        lines.append(f"{label:14s}{k:9,d}{k / n:8.1%}{(res.made[sel] == 1).mean():8.1%}{takers:9.1f}{defenders:11.1f}")

    for lo, hi, label in ((80, 100, "80-100"), (110, 130, "110-130"), (140, 180, "140-180"),
                          (250, 250, "capot")):
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
    from .simulate import simulate_deals, warmup
    t0 = time.perf_counter()
    warmup()
    t1 = time.perf_counter()
    res = simulate_deals(args.deals, rules=args.rules, seed=args.seed, pass_prob=args.pass_prob)
    t2 = time.perf_counter()
    print(f"coinche-rl demo: rules {args.rules.name!r}, seed {args.seed}, "
          f"auction: pass with probability {args.pass_prob}, else a uniformly random legal bid")
    print(f"(kernels ready in {t1 - t0:.1f} s)\n")
    print(summary_table(res, t2 - t1))
    return 0


def cmd_replay(args) -> int:
    from .records import RecordError, load_record, replay_deal, replay_match, DEAL_FORMAT, MATCH_FORMAT
    try:
        rec = load_record(args.file)
        fmt = rec.get("format")
        if fmt == DEAL_FORMAT:
            deal = replay_deal(rec)
            print(f"{args.file}: deal record OK ({len(deal.history)} actions checked)")
            print(deal.render())
        elif fmt == MATCH_FORMAT:
            m = replay_match(rec)
            print(f"{args.file}: match record OK ({len(m['deals'])} deals, rules {m['rules'].name!r}, "
                  f"target {m['rules'].target})")
            for i, d in enumerate(m["deals"]):
                r = d.result
                if r is None:
                    print(f"  deal {i + 1}: unfinished")
                elif r.void:
                    print(f"  deal {i + 1}: dealer {d.dealer}, void")
                else:
                    print(f"  deal {i + 1}: dealer {d.dealer}, {r.contract}, "
                          f"{'made' if r.made else 'failed'}, {r.scores[0]} - {r.scores[1]}")
            print(f"final scores {m['scores'][0]} - {m['scores'][1]}; winner: "
                  + ("none yet" if m["winner"] is None else f"team {m['winner']}"))
            if m["deals"] and m["deals"][-1].is_terminal and not m["deals"][-1].is_void:
                print("\nlast deal:\n" + m["deals"][-1].result.table())
        else:
            raise RecordError(f"format: expected {DEAL_FORMAT!r} or {MATCH_FORMAT!r}, got {fmt!r}")
    except RecordError as e:
        print(f"coinche-rl: error: {args.file}: {e}", file=sys.stderr)
        return 1
    return 0


def _random_game(args, match: bool):
    from .game import Deal, Match
    from .records import deal_to_record, match_to_record
    rng = np.random.default_rng(args.seed)
    game = Match(args.rules, seed=args.seed) if match else Deal(args.rules, seed=args.seed)
    while not game.is_terminal:
        legal = game.legal_actions()
        # auction: pass 70% of the time, else any legal action; play: any legal card
        if legal[0] == 0 and rng.random() < 0.7:
            game.apply(0)
        else:
            game.apply(legal[int(rng.integers(len(legal)))])
    rec = match_to_record(game) if match else deal_to_record(game)
    text = json.dumps(rec, indent=1, ensure_ascii=False)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        print(f"wrote {args.output}")
    else:
        print(text)
    return 0


def cmd_presets(args) -> int:
    if args.markdown:
        from .rules import presets_markdown
        print(presets_markdown())
        return 0
    names = list(PRESETS)
    fields = list(PRESETS[names[0]].to_dict())
    print(f"{'parameter':24s}" + "".join(f"{n:>22s}" for n in names))
    for f in fields:
        if f == "name":
            continue
        print(f"{f:24s}" + "".join(f"{str(PRESETS[n].to_dict()[f]):>22s}" for n in names))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="coinche-rl", description="coinche-rl: Coinche research toolkit")
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="simulate random deals and print a summary table")
    d.add_argument("--deals", type=int, default=100_000)
    d.add_argument("--rules", type=_rules_arg, default=get_rules("ffb"))
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--pass-prob", type=float, default=0.6)
    d.set_defaults(func=cmd_demo)
    r = sub.add_parser("replay", help="replay a deal or match record, checking every action and score")
    r.add_argument("file")
    r.set_defaults(func=cmd_replay)
    for name, match in (("random-deal", False), ("random-match", True)):
        g = sub.add_parser(name, help=f"play a random {'match' if match else 'deal'} and write its record")
        g.add_argument("--seed", type=int, default=0)
        g.add_argument("--rules", type=_rules_arg, default=get_rules("ffb"))
        g.add_argument("-o", "--output")
        g.set_defaults(func=lambda a, m=match: _random_game(a, m))
    pr = sub.add_parser("presets", help="list rule presets and their parameters")
    pr.add_argument("--markdown", action="store_true", help="print the table as markdown")
    pr.set_defaults(func=cmd_presets)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "deals", 1) < 1:
        parser.error(f"--deals must be at least 1, got {args.deals}")
    try:
        return args.func(args)
    except (InvalidRulesError, UnknownPresetError) as e:
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
