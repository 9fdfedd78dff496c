"""The PettingZoo AEC environment of Coinche and the French Belote family
(``coinche_v0``), thin over :mod:`coinche_rl.game`: the engine decides legality, play and
scoring; this module handles agents, spaces, observations, rewards and turn order.

Agents ``player_0`` .. ``player_3`` (``player_i`` at seat ``i``; seats ``i`` and ``i + 2``
are partners), one ``Discrete(120)`` action space for every phase, observations
``{"observation": float32[620], "action_mask": int8[120]}`` built from the agent's
information set only; rewards when a deal ends. The arguments, spaces, rewards and
version history: docs/envs.md.

>>> e = env(rules="ffb")
>>> e.reset(seed=0)
>>> e.agent_selection, e.observe("player_0")["observation"].shape
('player_0', (620,))
"""

from __future__ import annotations

import numpy as np

from .. import engine
from ..actions import N_ACTIONS
from ..engine import legal_actions_into
from ..game import Deal, Match
from ..rules import N_SEATS, four_player_rules
from . import observation as O
from . import kernels
from .aec_base import REWARD_SCALE, CardGameAEC, SideTerminateIllegalWrapper, env_functions
from .infoset import InformationSet, information_set
from .kernels import ObservationEncoder

__all__ = ["env", "raw_env", "parallel_env", "REWARD_SCALE"]

AGENTS = tuple(f"player_{i}" for i in range(N_SEATS))
#: ``TerminateIllegalWrapper`` whose penalty goes to the offender's whole team
TeamTerminateIllegalWrapper = SideTerminateIllegalWrapper


class raw_env(CardGameAEC):
    """Coinche / Belote, one deal or a match (docs/envs.md)."""

    metadata = {"name": "coinche_v0", "render_modes": ["human", "ansi"],
                "is_parallelizable": True}
    AGENTS = AGENTS
    DEAL = Deal
    MATCH = Match
    O = O
    RULES_OF = staticmethod(four_player_rules)
    ENCODER = ObservationEncoder
    NOTICE = ("the environment", (kernels._encode, engine.legal_actions_into))
    DEALER = "a seat 0..3 or None"

    def __init__(self, rules="ffb", mode: str = "deal", dealer=None,
                 reward: str = "difference", illegal_action: str = "raise",
                 illegal_penalty: float = 1000.0, render_mode=None,
                 normalize_reward: bool = False):
        super().__init__(rules, mode, dealer, reward, illegal_action, illegal_penalty,
                         render_mode, normalize_reward)

    def information_set(self, agent: str) -> InformationSet:
        return information_set(self.deal, self._seat_of[agent])

    def _observation(self, agent: str) -> np.ndarray:
        # the numba encoder, identical to O.encode(information_set(...)) (tested)
        return self._encoder.encode(self._deal.state, self._seat_of[agent], self._match_info())

    def _legal_mask(self) -> np.ndarray:
        live = np.zeros(N_ACTIONS, dtype=np.int8)
        legal_actions_into(self._deal.state, self._deal.params, live)
        return live

    def _deal_kwargs(self, given) -> dict:
        """``options["deal"]``: four hands (masks or text, coinche family) or 32 cards in
        dealing order (ints, or text as one string or a list)."""
        if isinstance(given, str):
            return {"deck": given}
        if len(given) == N_SEATS:
            return {"hands": list(given)}
        return {"deck": " ".join(given) if all(isinstance(g, str) for g in given)
                else list(given)}


env, parallel_env = env_functions(raw_env)
#: the seat of an agent (``'player_2'`` -> 2)
_seat = raw_env._seat_of.__getitem__
