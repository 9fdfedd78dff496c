"""``coinche-rl serve``: the web page (:mod:`coinche_rl.web`, the web extra)."""

from __future__ import annotations

import os
import sys

from ..rules import get_rules
from .common import RULES_HELP, int_range, rules_arg


def cmd_serve(args) -> int:
    """``coinche-rl serve``: the web page (coinche_rl.web), with the web extra."""
    from .. import web                       # lazy: the web layer and its extra
    missing = web.missing_extra()
    if missing:
        print(f"coinche-rl: error: coinche-rl serve needs the web extra ({missing} is not "
              f"installed): {web.INSTALL_HINT}", file=sys.stderr)
        return 2
    for path in args.results:
        if not os.path.exists(path):
            print(f"coinche-rl: error: --results {path}: no such file or folder", file=sys.stderr)
            return 2
    if args.records and os.path.exists(args.records) and not os.path.isdir(args.records):
        print(f"coinche-rl: error: --records {args.records}: not a folder", file=sys.stderr)
        return 2
    try:
        web.serve(args.host, args.port, args.rules, records=args.records or None,
                  results=args.results, searches=args.searches, worlds=args.worlds)
    except KeyboardInterrupt:
        return 130
    except OSError as e:                    # the port is taken, say
        print(f"coinche-rl: error: cannot serve on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 1
    return 0


def add_parser(sub) -> None:
    sv = sub.add_parser(
        "serve", help="serve the web page: play the bots, replay and analyse records, browse "
                      "tournament results (needs the web extra)",
        description="Serve one web page (open the address it prints): play against agents, "
                    "replay and analyse records (double-dummy, PIMC and nn values of every "
                    "legal action), browse tournament results files; four players and belote "
                    "for two players (belote_a_deux, belote_decouverte) alike. Needs the web "
                    "extra: pip install -e '.[web]' in the clone.")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sv.add_argument("--port", type=int_range(1, 65535), default=8000, help="port (default 8000)")
    sv.add_argument("--rules", "--preset", dest="rules", type=rules_arg, default=get_rules("ffb"),
                    help=RULES_HELP.format(default="ffb") + "; the rules a new game starts with "
                         "(any family: the page plays belote_a_deux too)")
    sv.add_argument("--records", default="coinche-rl-records", metavar="DIR",
                    help="folder where every game's record is saved and whose records (.json) "
                         "and results files (.jsonl) the page lists (default "
                         "coinche-rl-records; '' saves nothing)")
    sv.add_argument("--results", nargs="+", default=[], metavar="FILE",
                    help="tournament results files (coinche-rl tournament --out) or folders of "
                         "them to browse")
    sv.add_argument("--searches", type=int_range(1, 16), default=2,
                    help="searches (analyses, branches, deal pairs) running at once (default 2)")
    sv.add_argument("--worlds", type=int_range(1, 256), default=16,
                    help="PIMC worlds of an analysis unless the page asks otherwise (default 16)")
    sv.set_defaults(func=cmd_serve)
