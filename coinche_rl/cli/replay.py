"""``coinche-rl replay``: check a deal or match record action by action, or replay one
deal pair of a tournament results file through the Python agents."""

from __future__ import annotations

import json
import sys
from typing import List

from ..records import (DEAL_FORMAT, MATCH_FORMAT, RecordError, game_classes, load_record,
                       replay_deal, replay_match)
from ..rules import STRAIN_NAMES, rules_label
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


def _run_line(r) -> str:
    """One run of deal pairs, as the listing of :func:`_chosen_run` shows it."""
    cfg = r.config
    frozen = f", frozen contract {cfg['frozen']}" if cfg.get("frozen") else ""
    return (f"  {r.run}  {r.teams[0]} vs {r.teams[1]}: rules {cfg['rules']['preset']}, seed "
            f"{cfg['seed']}{frozen}, {r.pairs} deal pair{'s' if r.pairs != 1 else ''}")


def _matchups(match: List[str]):
    """The ``(X, Y)`` that ``--match`` may mean: ``X Y``, or ``X:Y`` cut at any colon
    (agent specs have colons of their own: ``nnsearch:pimc:worlds=32``)."""
    if len(match) == 2:
        return [tuple(match)]
    text = match[0]
    return [(text[:i], text[i + 1:]) for i, c in enumerate(text) if c == ":"]


def _same(wanted: str, label: str, by_name: bool) -> bool:
    """Whether ``wanted`` names team ``label``: the same text, or with ``by_name`` the
    same agents whatever their parameters (``pimc`` for ``pimc:worlds=32``)."""
    if not by_name:
        return wanted == label
    return [s.split(":")[0] for s in wanted.split("+")] == [s.split(":")[0] for s in label.split("+")]


def _chosen_run(args, runs):
    """``(run id, None)`` of the run of deal pairs that ``--run`` (an id, or the start of
    one) or ``--match`` names, or the only one; else ``(None, why)``, with the runs
    listed (their agents and rules) and the options that choose one."""
    listing = "\n".join(_run_line(r) for r in runs)
    how = "choose one with --run ID or --match X:Y"
    if args.run is not None and args.match:
        return None, "--run and --match both choose the run: give one of them"
    if args.match:
        if len(args.match) > 2:
            return None, f"--match: expected X:Y or X Y (two agents), got {' '.join(args.match)!r}"
        wanted = _matchups(args.match)
        hits = []
        for by_name in (False, True):           # the specs as typed first, then by name
            hits = [r for r in runs for x, y in wanted
                    if (_same(x, r.teams[0], by_name) and _same(y, r.teams[1], by_name))
                    or (_same(y, r.teams[0], by_name) and _same(x, r.teams[1], by_name))]
            if hits:
                break
        hits = list({r.run: r for r in hits}.values())
        if len(hits) == 1:
            return hits[0].run, None
        what = " ".join(args.match)
        if hits:
            return None, (f"--match {what}: {len(hits)} runs of {args.file} play this "
                          f"matchup: choose one with --run ID:\n" + "\n".join(map(_run_line, hits)))
        return None, f"--match {what}: no run of {args.file} plays this matchup; its runs:\n{listing}"
    if args.run is not None:
        hits = [r for r in runs if r.run == args.run] or \
            [r for r in runs if r.run.startswith(args.run)]
        if len(hits) == 1:
            return hits[0].run, None
        if not hits:
            from ..arena.store import load_results
            if args.run in load_results(args.file).runs:     # a run of another kind:
                return args.run, None                       # replay_pair says how
            return None, f"--run {args.run}: no run of {args.file} has this id; its runs:\n{listing}"
        return None, (f"--run {args.run}: {len(hits)} runs of {args.file} start so; "
                      f"{how}:\n" + "\n".join(map(_run_line, hits)))
    if len(runs) > 1:
        return None, f"{args.file} holds {len(runs)} runs of deal pairs: {how}:\n{listing}"
    return None if not runs else runs[0].run, None


def cmd_replay_pair(args) -> int:
    from ..arena import ArenaError, replay_pair     # lazy: see the imports at the top
    if args.pair is None:
        print(f"coinche-rl: error: {args.file} is a tournament results file: give the deal "
              f"pair to replay with --pair I", file=sys.stderr)
        return 2
    from ..arena.replay import pair_runs
    from ..arena.tasks import cfg_family, pair_play
    try:
        run, problem = _chosen_run(args, pair_runs(args.file))
        if problem:
            print(f"coinche-rl: error: {problem}", file=sys.stderr)
            return 2
        deals, row, cfg = replay_pair(args.file, args.pair, run)     # either family
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
        engine_notice("replay")
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
            side = game_classes(m["rules"])[1].SIDE       # who wins a match: a team, a player
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
    r.add_argument("--run", metavar="ID",
                   help="results file: the run to replay, when it holds several: its id (or "
                        "the start of it; the error lists them with their agents)")
    r.add_argument("--match", nargs="+", metavar="X:Y",
                   help="results file: the run of this matchup, when it holds several, e.g. "
                        "--match nnsearch:pimc or --match nnsearch pimc (either order; "
                        "agents by name when no spec is the same as typed)")
    r.set_defaults(func=cmd_replay, prepare=lambda args, error: cwd_on_sys_path())
