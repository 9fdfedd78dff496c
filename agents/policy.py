"""A policy trained on the environments, as an agent (``coinche_rl.agents.policy``).

A policy trained on ``coinche_v0`` (of either family, or the single-agent Gymnasium
envs) reads the env's observation ``{"observation": float32[...], "action_mask":
int8[120]}``. :class:`PolicyAgent` wraps such a policy, a callable
``policy(observation, action_mask) -> action``, into an :class:`~coinche_rl.agents.Agent`
that plays in :func:`~coinche_rl.agents.play_deal` and the tournaments. At each decision
it builds the observation of its seat with the env's own encoder (the family's
``encoder(rules)``, :mod:`coinche_rl.envs.family`) from what the seat may know (its
public state), so the policy sees exactly what it saw in training; the mask is the env's
(the legal actions as int8). An illegal action is refused by the harness as for any
agent (:class:`~coinche_rl.game.IllegalActionError`, or the tournament's ArenaError
naming the deal).

The tournaments take agent specs: register a factory under a name with
:func:`~coinche_rl.agents.register_agent` (serial backend), or give an import path
``my_module:make_policy_agent`` whose function returns a ``PolicyAgent`` (every backend).

>>> import numpy as np
>>> from coinche_rl.agents import play_deal, make_agent
>>> from coinche_rl.game import Deal
>>> first = PolicyAgent(lambda obs, mask: int(np.flatnonzero(mask)[0]))
>>> deal = Deal("ffb", seed=7, dealer=0)
>>> result = play_deal(deal, [first, make_agent("random")] * 2, seeds=[1, 2, 3, 4])
>>> deal.is_terminal
True
"""

from __future__ import annotations

import os
from typing import Callable, Dict, Optional

import numpy as np

from .base import Agent

__all__ = ["PolicyAgent"]


class PolicyAgent(Agent):
    """``policy(observation, action_mask) -> action`` as an agent of the four-player
    families and of belote for two players: ``observation`` is the env's float32
    observation of the seat to act, ``action_mask`` the env's int8 mask of its legal
    actions; ``action`` any integer (a numpy scalar or 0-d array included).

    ``name`` is the agent's name in messages and tables (``spec``). ``version`` names
    what the policy plays with (say the hash of its weights file): a tournament's results
    file is resumed only by the same version. Without it the tournament hashes the
    policy itself, pickled with its closure (its weights, a model it calls): the same
    policy resumes its results; a policy that cannot be pickled is never taken for
    another one, so its runs start anew (:meth:`fingerprint_data`)."""

    FAMILIES = ("coinche", "classic", "two")
    DESCRIPTION = "a policy(observation, action_mask) -> action trained on the envs"
    ROSTER = False

    def __init__(self, policy: Callable[[np.ndarray, np.ndarray], int], name: str = "policy",
                 version: Optional[str] = None):
        super().__init__()
        if not callable(policy):
            raise TypeError(f"PolicyAgent needs a callable policy(observation, action_mask) "
                            f"-> action, not {type(policy).__name__}")
        self.policy = policy
        self.name = self.spec = str(name)
        self.version = None if version is None else str(version)
        self._encoders: Dict[object, object] = {}

    def fingerprint_data(self) -> bytes:
        """What determines this agent's play beyond its code, for the tournaments'
        results files (:func:`coinche_rl.agents.fingerprint.agent_fingerprint`): the
        ``version`` given, else the policy pickled by cloudpickle (its code and closure:
        weights, a model), else, where it cannot be pickled, bytes of this process alone
        (the policy is taken for none other)."""
        if self.version is not None:
            return b"version\0" + self.version.encode()
        try:
            import cloudpickle
            return b"pickle\0" + cloudpickle.dumps(self.policy)
        except Exception:                    # a lock, a socket, a C object: unknowable
            return b"unpicklable\0" + os.urandom(16)

    def _encoder(self, rules):
        enc = self._encoders.get(rules)
        if enc is None:
            from ..envs.family import env_family
            enc = self._encoders[rules] = env_family(rules).encoder(rules)
        return enc

    def observation(self, view) -> np.ndarray:
        """The env's observation of the seat to act in ``view`` (a
        :class:`~coinche_rl.agents.PlayerView`, or a ``TwoPlayerView`` in the two
        family), built by the env's encoder from what the seat may know."""
        return self._encoder(view.rules).encode_view(view.public_state, view.seat, view.match)

    def act(self, view) -> int:
        mask = np.asarray(view.legal).astype(np.int8)
        return self.policy(self.observation(view), mask)
