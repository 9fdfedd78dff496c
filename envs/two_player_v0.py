"""The PettingZoo AEC environment of belote for two players (``two_player_v0``; the
``two`` family, RULES.md §12): :class:`coinche_rl.envs.coinche_v0.raw_env` with the two
family's rules (same options, same action space, same reward conventions).

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

from .coinche_v0 import REWARD_SCALE, SideTerminateIllegalWrapper, family_functions
from .family import TWO

__all__ = ["env", "raw_env", "parallel_env", "REWARD_SCALE", "AGENTS"]

AGENTS = TWO.agents
#: ``TerminateIllegalWrapper`` that also ends the raw env's game (the offender gets the
#: penalty, the other player 0)
TwoPlayerTerminateIllegalWrapper = SideTerminateIllegalWrapper

raw_env, env, parallel_env = family_functions(TWO.key)
