"""``coinche-rl agents``: the registered agents and their parameters."""

from __future__ import annotations

from ..agents import describe_agents


def cmd_agents(args) -> int:
    print(describe_agents())
    return 0


def add_parser(sub) -> None:
    a = sub.add_parser("agents", help="list the registered agents and their parameters")
    a.set_defaults(func=cmd_agents)
