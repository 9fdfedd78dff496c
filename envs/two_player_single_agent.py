"""The single-agent Gymnasium adapter of belote for two players: the names
:class:`~coinche_rl.envs.single_agent.CoincheSingleAgentEnv` takes with the two family's
rules (``coinche_rl.envs.two_player_single_agent``; see :mod:`.single_agent`).

>>> import gymnasium
>>> env = gymnasium.make("coinche_rl.envs:coinche_rl/TwoPlayer-v0", rules="belote_decouverte",
...                      illegal_action="penalty")
>>> obs, info = env.reset(seed=0)
>>> obs.shape, bool(info["action_mask"].any())
((502,), True)
"""

from .single_agent import TWO_PLAYER_ENV_ID, TwoPlayerSingleAgentEnv

__all__ = ["TwoPlayerSingleAgentEnv", "TWO_PLAYER_ENV_ID"]
