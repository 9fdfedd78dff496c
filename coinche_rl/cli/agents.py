"""``coinche-rl agents``: the registered agents of a rule family and their parameters
(the listing is the registry's, :func:`coinche_rl.agents.describe_agents`)."""

from __future__ import annotations

from ..agents import describe_agents
from ..rules import get_rules
from .common import RULES_HELP, rules_arg


def cmd_agents(args) -> int:
    print(describe_agents(args.rules))
    return 0


def add_parser(sub) -> None:
    a = sub.add_parser("agents", help="list the registered agents of a rule family and "
                       "their parameters")
    a.add_argument("--rules", "--preset", dest="rules", type=rules_arg, default=get_rules("ffb"),
                   help=RULES_HELP.format(default="ffb") + "; the agents of its family are listed")
    a.set_defaults(func=cmd_agents)
