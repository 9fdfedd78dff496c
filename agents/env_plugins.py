"""The environments' opponent plugins (``coinche_rl.agents.env_plugins``).

The environments (``coinche_rl.envs``) never import the agents (the layers are engine <
envs < agents); they reach them through the entry points that ``pyproject.toml``
declares for the two functions here (see :mod:`coinche_rl.envs`):

* ``coinche_rl.env_opponents``: :func:`env_opponent`, an agent spec as an opponent of
  ``CoincheSingleAgentEnv(opponents="heuristic")``;
* ``coinche_rl.vector_opponents``: :func:`vector_opponent`, an agent spec as a batched
  policy of ``CoincheVectorEnv(opponents="heuristic")``.
"""

from __future__ import annotations

import numpy as np

from ..rules import RuleSet, get_rules
from .base import PRIVATE_ACTIONS, Agent, BatchedAgent, PlayerView
from .numba_bots import BOT_RANDOM, batch_bot_actions, bot_kind
from .registry import make_agent

__all__ = ["env_opponent", "vector_opponent"]


class _EnvOpponent:
    """An agent behind the single-agent env's opponent protocol (``reset``, ``observe``
    every action of the deal, ``act(deal, seat, match)``): the other seats' private
    declare / belote choices are not shown to it, and it sees the deal only through a
    :class:`PlayerView`, as in :func:`coinche_rl.agents.base.play_deal`."""

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
        return int(self.agent.act(PlayerView(deal, seat, match)))

    def __repr__(self) -> str:
        return f"<env opponent {self.agent.spec!r}>"


def env_opponent(spec: str) -> _EnvOpponent:
    """The ``coinche_rl.env_opponents`` plugin: agent ``spec`` (``make_agent``) as an
    opponent of ``coinche_rl.envs.single_agent.CoincheSingleAgentEnv``.

    :raises coinche_rl.agents.AgentSpecError: (a ``ValueError``) unknown agent or
        parameter, naming the available ones.
    """
    return _EnvOpponent(make_agent(spec))


def vector_opponent(spec: str, rules: RuleSet):
    """The ``coinche_rl.vector_opponents`` plugin: agent ``spec`` as a batched policy
    ``f(public_states, params, seats) -> actions`` for
    ``coinche_rl.envs.vector.CoincheVectorEnv`` under ``rules``: a deterministic numba
    bot (``heuristic`` and its parameters) through :func:`batch_bot_actions`, an agent
    :class:`~coinche_rl.agents.base.BatchedAgent` (``nn``) through its ``batch_policy``.

    :raises ValueError: unknown spec (naming the agents), or an agent with no batched form.
    """
    agent = make_agent(spec)
    if isinstance(agent, BatchedAgent):
        return agent.batch_policy(get_rules(rules))
    bot = agent.numba_bot
    if bot is not None and bot_kind(bot) != BOT_RANDOM:
        bot = int(bot)

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
    raise ValueError(f"agent {agent.spec!r} has no batched form for the vector env; "
                     f"opponents there: 'random', 'heuristic[:params]', 'nn[:params]' or a "
                     f"callable f(public_states, params, seats) -> actions (play "
                     f"{agent.spec!r} in CoincheSingleAgentEnv(opponents={agent.spec!r}))")
