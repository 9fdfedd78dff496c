"""The PettingZoo AEC environment of belote for two players (``two_player_v0``; the
``two`` family, RULES.md §12), thin over :mod:`coinche_rl.two_player`: the engine decides
legality, play and scoring; this module handles agents, spaces, observations, rewards and
turn order. It mirrors :mod:`~coinche_rl.envs.coinche_v0` (same options, same action
space, same reward conventions).

Agents ``player_0``, ``player_1`` (``player_i`` is player ``i`` of the engine),
observations ``{"observation": float32[502], "action_mask": int8[120]}`` built from the
agent's public view only. The arguments, spaces, rewards and version history:
docs/two_player.md ("The AEC environment").

>>> e = env(rules="belote_a_deux")
>>> e.reset(seed=0)
>>> e.agent_selection, e.observe("player_0")["observation"].shape
('player_0', (502,))
"""

from __future__ import annotations

import numpy as np

from ..engine import two as E2
from ..two_player import TwoPlayerDeal, TwoPlayerMatch, TwoPlayerView, two_player_rules
from . import two_player_kernels as K
from . import two_player_observation as O
from .aec_base import REWARD_SCALE, CardGameAEC, SideTerminateIllegalWrapper, env_functions

__all__ = ["env", "raw_env", "parallel_env", "REWARD_SCALE", "AGENTS"]

AGENTS = ("player_0", "player_1")
#: ``TerminateIllegalWrapper`` that also ends the raw env's game (the offender gets the
#: penalty, the other player 0)
TwoPlayerTerminateIllegalWrapper = SideTerminateIllegalWrapper


class raw_env(CardGameAEC):
    """Belote for two players, one deal or a match (docs/two_player.md)."""

    metadata = {"name": "two_player_v0", "render_modes": ["human", "ansi"],
                "is_parallelizable": True}
    AGENTS = AGENTS
    DEAL = TwoPlayerDeal
    MATCH = TwoPlayerMatch
    O = O
    RULES_OF = staticmethod(two_player_rules)
    ENCODER = K.TwoPlayerEncoder
    NOTICE = ("the two-player environment", (K.encode_view, E2.two_apply))
    DEALER = "a player 0 or 1, or None"

    def __init__(self, rules="belote_a_deux", mode: str = "deal", dealer=None,
                 reward: str = "difference", illegal_action: str = "raise",
                 illegal_penalty: float = 1000.0, render_mode=None,
                 normalize_reward: bool = False):
        super().__init__(rules, mode, dealer, reward, illegal_action, illegal_penalty,
                         render_mode, normalize_reward)

    def view(self, agent: str) -> TwoPlayerView:
        """What ``agent`` knows now (``deal.view(player)``)."""
        return self.deal.view(self._seat_of[agent])

    def _observation(self, agent: str) -> np.ndarray:
        # the numba encoder of the agent's public view (the engine's, a fresh vector with
        # nothing hidden in it), identical to O.encode(deal.view(player)) (tested)
        p = self._seat_of[agent]
        return self._encoder.encode_view(self._deal.public_state(p), p, self._match_info())

    def _legal_mask(self) -> np.ndarray:
        return self._deal.legal_action_mask().astype(np.int8)

    def _deal_kwargs(self, given) -> dict:
        """``options["deal"]``: 32 cards in dealing order (ints, or text as one string or
        a list; docs/two_player.md)."""
        if not isinstance(given, str) and all(isinstance(g, str) for g in given):
            given = " ".join(given)
        return {"deck": given}

    def render_for(self, agent: str) -> str:
        """The table as ``agent`` sees it (his hand, ``??`` for every face-down card,
        the other hand as a count)."""
        return self.deal.render(viewer=self._seat_of[agent])


env, parallel_env = env_functions(raw_env)
