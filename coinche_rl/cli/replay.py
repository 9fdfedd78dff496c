"""``coinche-rl replay``: check a deal or match record action by action, or replay one
deal pair of a tournament results file through the Python agents."""

from __future__ import annotations

import json
import sys

from ..records import (DEAL_FORMAT, MATCH_FORMAT, RecordError, load_record, replay_deal,
                       replay_match)
from ..rules import PRESETS, STRAIN_NAMES, rules_label
from .common import cwd_on_sys_path, engine_notice, nonnegative_int


def _is_results_file(path: str) -> bool:
    """A tournament results file (JSON lines starting with a ``run`` line)?"""
    if path.endswith(".jsonl"):
        return True
    try:
        with open(path, "rb") as f:
            first = f.readline(4096)
        return json.loads(first).get("type") == "run"
    except (OSError, ValueError, AttributeError):
        return False


def cmd_replay_pair(args) -> int:
    from ..arena import ArenaError, replay_pair     # lazy: see the imports at the top
    if args.pair is None:
        print(f"coinche-rl: error: {args.file} is a tournament results file: give the deal "
              f"pair to replay with --pair I", file=sys.stderr)
        return 2
    from ..arena.tasks import cfg_family, pair_play
    try:
        deals, row, cfg = replay_pair(args.file, args.pair, args.run)     # either family
    except (ArenaError, RecordError, OSError) as e:
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 1
    x, y = cfg["x"], cfg["y"]
    print(f"{args.file}: run {row['run']}, deal pair {args.pair} (rules {cfg['rules']['preset']}, "
          f"seed {cfg['seed']}{', frozen contract ' + cfg['frozen'] if cfg.get('frozen') else ''})")
    ok = True
    play = pair_play(cfg_family(cfg))               # its family's seatings
    for t, deal in enumerate(deals):
        seats, where = play.seatings(x, y)[t], play.unit
        print(f"\nseating {t + 1}: " + ", ".join(f"{where} {s} {spec}" for s, spec in enumerate(seats)))
        print(deal.render())
        xs, ys = (deal.scores if t == 0 else deal.scores[::-1])
        if [xs, ys] != row["scores"][t]:
            ok = False
            print(f"MISMATCH: replayed scores (X, Y) = ({xs}, {ys}), stored {row['scores'][t]}")
    print(f"\nmargin X - Y per deal: {row['margin']:+g}")
    if not ok:
        print("coinche-rl: error: the replay through the Python agents differs from the stored "
              "row", file=sys.stderr)
        return 1
    print("stored scores reproduced")
    return 0


def cmd_replay(args) -> int:
    if args.pair is not None or _is_results_file(args.file):
        return cmd_replay_pair(args)
    try:
        rec = load_record(args.file)
    except RecordError as e:                 # its message starts with the file's name
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 1
    try:
        fmt = rec.get("format")
        family = "coinche"
        if isinstance(rec.get("rules"), dict) and isinstance(rec["rules"].get("preset"), str):
            family = getattr(PRESETS.get(rec["rules"]["preset"]), "family", "coinche")
        engine_notice("replay", family)
        if fmt == DEAL_FORMAT:
            deal = replay_deal(rec)
            print(f"{args.file}: deal record OK ({len(deal.history)} actions checked)")
            print(deal.render())
        elif fmt == MATCH_FORMAT:
            m = replay_match(rec)
            print(f"{args.file}: match record OK ({len(m['deals'])} deals, rules {rules_label(m['rules'])!r}, "
                  f"target {m['rules'].target})")
            for i, d in enumerate(m["deals"]):
                r = d.result
                if r is None:
                    print(f"  deal {i + 1}: unfinished")
                elif r.void:
                    print(f"  deal {i + 1}: dealer {d.dealer}, void")
                else:
                    what = r.contract if hasattr(r, "contract") else \
                        f"player {r.taker} took {STRAIN_NAMES[r.trump]}"
                    print(f"  deal {i + 1}: dealer {d.dealer}, {what}, "
                          f"{'litige' if r.litige else 'made' if r.made else 'failed'}, "
                          f"{r.scores[0]} - {r.scores[1]}")
            side = "player" if m["rules"].family == "two" else "team"
            print(f"final scores {m['scores'][0]} - {m['scores'][1]}; winner: "
                  + ("none yet" if m["winner"] is None else f"{side} {m['winner']}"))
            if m["deals"] and m["deals"][-1].is_terminal and not m["deals"][-1].is_void:
                print("\nlast deal:\n" + m["deals"][-1].result.table())
        else:
            raise RecordError(f"format: expected {DEAL_FORMAT!r} or {MATCH_FORMAT!r}, got {fmt!r}")
    except RecordError as e:
        print(f"coinche-rl: error: {args.file}: {e}", file=sys.stderr)
        return 1
    return 0


def add_parser(sub) -> None:
    r = sub.add_parser("replay", help="replay a deal or match record, checking every action and score")
    r.add_argument("file", help="a deal or match record (JSON), or a tournament results file "
                                "(JSON lines, with --pair)")
    r.add_argument("--pair", type=nonnegative_int,
                   help="results file: the deal pair to replay (0, 1, ...)")
    r.add_argument("--run", help="results file: the run id, when it holds several")
    r.set_defaults(func=cmd_replay, prepare=lambda args, error: cwd_on_sys_path())
