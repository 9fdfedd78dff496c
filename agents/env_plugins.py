"""The environments' opponent plugins (``coinche_rl.agents.env_plugins``).

The environments (``coinche_rl.envs``) never import the agents (the layers are engine <
envs < agents); they reach them through the entry points that ``pyproject.toml``
declares for the two functions here (see :mod:`coinche_rl.envs`):

* ``coinche_rl.env_opponents``: :func:`env_opponent`, an agent spec as an opponent of
  ``CoincheSingleAgentEnv(opponents="heuristic")``;
* ``coinche_rl.vector_opponents``: :func:`vector_opponent`, an agent spec as a batched
  policy of ``CoincheVectorEnv(opponents="heuristic")``.

Both serve every rule family: the spec is built for the family of the rules given
(:func:`~coinche_rl.agents.make_agent`), and the opponent is shown that family's view
(:func:`~coinche_rl.agents.base.agent_view`).
"""

from __future__ import annotations

import numpy as np

from typing import Optional, Union

from ..engine.family import family_of
from ..rules import RuleSet, get_rules
from .base import PRIVATE_ACTIONS, Agent, BatchedAgent, agent_view
from .numba_bots import BOT_RANDOM, batch_bot_actions, bot_kind
from .registry import make_agent

__all__ = ["env_opponent", "vector_opponent"]


class _EnvOpponent:
    """An agent behind the single-agent env's opponent protocol (``reset``, ``observe``
    every action of the deal, ``act(deal, seat, match)``): the other seats' private
    declare / belote choices are not shown to it, and it sees the deal only through its
    family's view (:func:`~coinche_rl.agents.base.agent_view`), as in
    :func:`coinche_rl.agents.base.play_deal`."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.seat = 0

    def reset(self, seat: int, rules: RuleSet, seed: int) -> None:
        self.seat = int(seat)
        self.agent.reset(seat, rules, seed)

    def observe(self, seat: int, action: int) -> None:
        if seat == self.seat or action not in PRIVATE_ACTIONS:
            self.agent.observe(seat, action)

    def act(self, deal, seat: int, match=None) -> int:
        return int(self.agent.act(agent_view(deal, seat, match)))

    def __repr__(self) -> str:
        return f"<env opponent {self.agent.spec!r}>"


def env_opponent(spec: str, rules: Union[RuleSet, str, None] = None) -> _EnvOpponent:
    """The ``coinche_rl.env_opponents`` plugin: agent ``spec`` (``make_agent``) as an
    opponent of ``coinche_rl.envs.single_agent.CoincheSingleAgentEnv``, or of a
    single-agent env of ``rules`` (a RuleSet or a preset name; default: the four-player
    game) for the agents of that rule family.

    :raises coinche_rl.agents.AgentSpecError: (a ``ValueError``) unknown agent or
        parameter, naming the available ones; an agent of another family.
    """
    return _EnvOpponent(make_agent(spec, _rules(rules)))


def _rules(rules) -> Optional[RuleSet]:
    return None if rules is None else get_rules(rules)


def vector_opponent(spec: str, rules: RuleSet):
    """The ``coinche_rl.vector_opponents`` plugin: agent ``spec`` as a batched policy
    ``f(public_states, params, seats) -> actions`` for
    ``coinche_rl.envs.vector.CoincheVectorEnv`` under ``rules``: a deterministic numba
    bot (``heuristic`` and its parameters) through :func:`batch_bot_actions`, an agent
    :class:`~coinche_rl.agents.base.BatchedAgent` (``nn``) through its ``batch_policy``;
    under two-player rules, ``f(public_views, params, players)`` for the vector env of
    belote for two players (the two-player ``heuristic``).

    :raises ValueError: unknown spec (naming the agents), or an agent with no batched form.
    """
    rules = get_rules(rules)
    agent = make_agent(spec, rules)
    if isinstance(agent, BatchedAgent):
        return agent.batch_policy(rules)
    agent.check_rules(rules)
    bot = agent.numba_bot
    if bot is not None and bot_kind(bot) != BOT_RANDOM:
        bot = np.int64(bot)

        def policy(states, params, seats):
            out = np.empty(len(states), dtype=np.int64)
            batch_bot_actions(bot, np.ascontiguousarray(states, dtype=np.int64),
                              np.ascontiguousarray(params, dtype=np.int64),
                              np.ascontiguousarray(seats, dtype=np.int64), out)
            return out
        policy.__name__ = policy.__qualname__ = f"vector_opponent({agent.spec!r})"
        return policy
    if bot is not None:
        raise ValueError(f"agent {agent.spec!r} draws random numbers: use the vector env's "
                         f"own opponents='random' (inside numba, one stream per game)")
    raise ValueError(f"agent {agent.spec!r} has no batched form for the vector env (rules "
                     f"{rules.name!r}); opponents there: 'random', 'heuristic[:params]', "
                     f"'nn[:params]' or a callable f(public_states, params, "
                     f"{family_of(rules).who}s) -> actions (play {agent.spec!r} in "
                     f"CoincheSingleAgentEnv(rules={rules.name!r}, opponents={agent.spec!r}))")
