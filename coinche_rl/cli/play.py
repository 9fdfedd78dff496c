"""``coinche-rl play``: a person against agents in the terminal
(:mod:`coinche_rl.terminal`, the game of every family)."""

from __future__ import annotations

import os
import sys

from ..agents import AgentSpecError
from ..game import IllegalActionError
from ..rules import get_rules
from ..terminal import PlaySetupError, TerminalGame
from .common import RULES_HELP, int_range, output_problem, rules_arg, seat_int


def cmd_play(args) -> int:
    """``coinche-rl play``: a person at one seat against agents (coinche_rl.terminal)."""
    problem = output_problem(args.save, "--save")
    if problem is None and args.save and os.path.exists(args.save) \
            and not os.access(args.save, os.W_OK):
        problem = f"--save {args.save}: the file is not writable"
    if problem:
        print(f"coinche-rl: error: {problem}", file=sys.stderr)
        return 2
    try:
        # every family: the game of belote for two players refuses --partner and more
        # than one --opponent in one line
        game = TerminalGame(seat=args.seat, partner=args.partner, opponents=args.opponents,
                            rules=args.rules, seed=args.seed, deals=args.deals,
                            match=args.match, dealer=args.dealer, target=args.target,
                            save=args.save)
    except (AgentSpecError, PlaySetupError) as e:
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted before the first deal", file=sys.stderr)
        return 130
    try:
        return game.run().status
    except IllegalActionError as e:          # a bot chose an illegal action
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 1


def add_parser(sub) -> None:
    pl = sub.add_parser(
        "play", help="play against the bots in the terminal (you take one seat)",
        description="Play Coinche in the terminal: you take one seat, agents (see coinche-rl "
                    "agents) the partner's and the opponents'. Answer with the number of a "
                    "choice or its text (80H, pass, coinche, JH; any case); quit or Ctrl-D "
                    "leaves (what was played is still saved with --save). With --rules "
                    "belote_a_deux or belote_decouverte: belote for two players, you against "
                    "one bot (--opponent SPEC; take, pass, nameH, exchange, no-exchange, JH).")
    pl.add_argument("--seat", type=seat_int, default=0,
                    help="your seat, 0..3 (default 0; team 0 = seats 0 and 2); belote for two "
                         "players: your player, 0 or 1")
    pl.add_argument("--partner", default=None, metavar="SPEC",
                    help="your partner's agent spec (default heuristic)")
    pl.add_argument("--opponents", "--opponent", nargs="+", default=["heuristic"], metavar="SPEC",
                    help="one agent spec for both opponents, or two: the seat after you "
                         "(right), then the seat before you (left) (default heuristic); belote "
                         "for two players: the one opponent's two-player agent spec")
    pl.add_argument("--rules", "--preset", dest="rules", type=rules_arg, default=get_rules("ffb"),
                    help=RULES_HELP.format(default="ffb"))
    pl.add_argument("--seed", type=int_range(0), default=0,
                    help="seed of the deals, the first dealer and the bots (default 0)")
    how = pl.add_mutually_exclusive_group()
    how.add_argument("--deals", type=int_range(1), default=1,
                     help="deals to play, scored as a match (it ends earlier if a team reaches "
                          "the target; default 1)")
    how.add_argument("--match", action="store_true", help="play a whole match to the target")
    pl.add_argument("--target", type=int_range(1), help="match target (default: the preset's)")
    pl.add_argument("--dealer", type=seat_int,
                    help="the first dealer, 0..3 (0 or 1 for two players; default: drawn "
                         "from the seed)")
    pl.add_argument("--save", metavar="FILE",
                    help="save the game as a record (one deal: a deal record, else a match "
                         "record) that coinche-rl replay checks")
    pl.set_defaults(func=cmd_play)
