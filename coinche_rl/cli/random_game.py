"""``coinche-rl random-deal`` and ``random-match``: a random game and its record."""

from __future__ import annotations

import json
import sys

import numpy as np

from ..files import atomic_write_text
from ..records import deal_to_record, game_classes, match_to_record
from ..rules import get_rules
from .common import RULES_HELP, engine_notice, nonnegative_int, rules_arg


def random_game(args, match: bool):
    engine_notice("random-deal")
    rng = np.random.default_rng(args.seed)
    game = game_classes(args.rules)[1 if match else 0](args.rules, seed=args.seed)
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
        try:
            atomic_write_text(args.output, text + "\n")
        except OSError as e:
            print(f"coinche-rl: error: cannot write {args.output!r}: {e.strerror}",
                  file=sys.stderr)
            return 2
        print(f"wrote {args.output}")
    else:
        print(text)
    return 0


def add_parser(sub) -> None:
    for name, match in (("random-deal", False), ("random-match", True)):
        what = "match" if match else "deal"
        g = sub.add_parser(name, help=f"play a random {what} and write its record",
                           description=f"Play a random {what} (in the auction each seat passes "
                                       f"with probability 0.7, else takes a random legal "
                                       f"action; random legal cards) and print or write its "
                                       f"record, which coinche-rl replay checks.")
        g.add_argument("--seed", type=nonnegative_int, default=0,
                       help=f"seed of the {what} and of the random play (default 0)")
        g.add_argument("--rules", type=rules_arg, default=get_rules("ffb"),
                       help=RULES_HELP.format(default="ffb"))
        g.add_argument("-o", "--output", metavar="FILE",
                       help="write the record (JSON) to FILE (default: print it)")
        g.set_defaults(func=lambda a, m=match: random_game(a, m))
