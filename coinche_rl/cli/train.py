"""``coinche-rl train play|bid|belief`` (the trainers, with torch) and ``train export``."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
from typing import List, Optional


def cmd_train(args) -> int:
    """``coinche-rl train play|bid|belief ...`` / ``coinche-rl train export ...`` (torch
    needed)."""
    problem = _train_rules_problem(args.rest) if args.what != "export" else None
    if problem:
        print(f"coinche-rl: error: {problem}", file=sys.stderr)
        return 2
    try:
        import torch  # noqa: F401
        if importlib.util.find_spec("tyro") is None:    # the trainers' command lines
            raise ModuleNotFoundError("no tyro", name="tyro")
    except ModuleNotFoundError as e:
        print(f"coinche-rl: error: training needs torch and tyro, the nn extra ({e.name} is "
              "missing): pip install -e '.[nn]' in the coinche-rl clone, or make venv (the CPU "
              "build: pip install torch==2.13.0 tyro)", file=sys.stderr)
        return 2
    from ..train import belief, bid, play          # here: the command line starts without them
    if args.what in ("play", "bid", "belief"):
        trainer = {"play": play, "bid": bid, "belief": belief}[args.what]
        try:
            targs = trainer.parse_args(args.rest)
            res = trainer.train(targs)
        except (ValueError, FileExistsError, FileNotFoundError) as e:
            print(f"coinche-rl: error: {e}", file=sys.stderr)
            return 2
        print(json.dumps({k: v for k, v in res.items() if k != "history"}))
        if res["interrupted"]:
            print(f"interrupted: checkpoint saved in {targs.out}; the same command with "
                  f"--resume continues", file=sys.stderr)
            return 130
        return 0
    ep = argparse.ArgumentParser(prog="coinche-rl train export",
                                 description="write the torch-free weights of a run's checkpoint")
    ep.add_argument("run", help="the run folder (holds checkpoint.pt)")
    ep.add_argument("-o", "--output", required=True,
                    help="the weights file to write (.npz, in an existing folder)")
    ep.add_argument("--float32", action="store_true", help="float32 instead of float16")
    ea = ep.parse_args(args.rest)
    try:
        path = _export_run(ea.run, ea.output, ea.float32)
    except (ValueError, FileNotFoundError) as e:
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 2
    print(f"weights written to {path}")
    return 0


def _train_rules_problem(rest: List[str]) -> Optional[str]:
    """Why the ``--rules`` of a ``train play|bid|belief`` command line cannot be trained, or
    None: a network is trained for a preset (its weights' manifest names it, and the
    agents check it), so overrides (``ffb:target=2000``), which the other commands
    take, are refused here with a message rather than as an unknown preset."""
    for i, word in enumerate(rest):
        if word == "--":
            break
        if word == "--rules" and i + 1 < len(rest):
            value = rest[i + 1]
        elif word.startswith("--rules="):
            value = word.split("=", 1)[1]
        else:
            continue
        if ":" in value or "=" in value:
            preset = value.split(":", 1)[0]
            return (f"train --rules {value}: a network is trained for a preset's rules, "
                    f"without overrides: give a preset name such as --rules {preset} "
                    f"(coinche-rl presets lists them)")
    return None


def _export_run(run: str, output: str, float32: bool) -> str:
    """Export a card-play, bidding or belief run, by the kind its checkpoint stores
    (:func:`coinche_rl.train.common.run_kind`, which tells the runs written before
    checkpoints stored it by what they hold)."""
    import torch
    from ..train import belief, bid, common, play   # here: the command line starts without them
    common.check_output_path(output)               # before reading anything
    ckpt = os.path.join(run, "checkpoint.pt")
    if not os.path.isfile(ckpt):
        raise FileNotFoundError(f"no checkpoint.pt in {run!r}: not a training run folder")
    kind = common.run_kind(torch.load(ckpt, weights_only=True))
    trainer = {"play": play, "bid": bid, "belief": belief}[kind]
    return trainer.export_run(run, output, float32=float32)


def add_parser(sub) -> None:
    tr = sub.add_parser("train", help="train a network (play, bid, belief) or export a run's "
                                      "weights (export); needs the nn extra (torch)")
    tr.add_argument("what", choices=("play", "bid", "belief", "export"),
                    help="play: the card-play trainer, bid: the bidding trainer, belief: the "
                         "card-inference net for PIMC (train play --help etc. list their "
                         "options); export RUN -o FILE: a run's torch-free weights")
    tr.add_argument("rest", nargs=argparse.REMAINDER, metavar="...",
                    help="the trainer's options (train play --help, train bid --help, train "
                         "belief --help), or for export: RUN -o FILE [--float32]")
    tr.set_defaults(func=cmd_train)
