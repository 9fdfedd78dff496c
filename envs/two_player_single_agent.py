"""A single-agent Gymnasium view of :mod:`coinche_rl.envs.two_player_v0`
(``coinche_rl.envs.two_player_single_agent``), as :mod:`coinche_rl.envs.single_agent` is
for four players.

:class:`TwoPlayerSingleAgentEnv` seats one learner (``seat``, default 0); the other
player is played by ``opponent``:

* ``None`` or ``"random"`` (default): a uniformly random legal action drawn from the
  env's own ``np_random`` (seeded by ``reset(seed=...)``);
* a **callable** ``policy(observation, agent) -> action id``, given the AEC observation
  dict ``{"observation", "action_mask"}`` of the other player (his own information only)
  and his agent name ``"player_i"``.

(No agent of ``coinche_rl.agents`` plays the two family yet, so agent spec strings other
than ``"random"`` are refused.)

* ``observation_space``: ``Box(0, two_player_observation.HIGH, (502,), float32)``, the
  learner's observation vector; ``action_space``: ``Discrete(N_ACTIONS)`` (120).
* ``reset(seed, options)`` resets the AEC env (``options`` passed through: ``"deal"``,
  ``"dealer"``), then lets the other player act until the learner must act (the learner
  always speaks in the first prise round, so a deal cannot end before he acts; the env
  would redeal if it did). ``info["action_mask"]`` (int8) is the learner's legal mask.
* ``step(action)`` applies the learner's action, then the other player's until the
  learner acts again or the game ends. The reward is the learner's reward from the AEC
  env summed over that span (points at the end of each deal: his deal score minus the
  other's by default; see ``two_player_v0``); ``terminated`` when the game (deal, or
  match with ``mode="match"``) ends; ``truncated`` is always False.
* ``action_masks()``: the current legal mask as bool (for sb3-contrib ``MaskablePPO``).
* **Illegal actions.** By default an illegal learner action raises
  ``coinche_rl.game.IllegalActionError`` naming the legal actions, the state unchanged.
  Samplers that ignore the mask (``action_space.sample()``, gymnasium's ``check_env``)
  need ``illegal_action="penalty"``: an illegal action then ends the game with
  ``-illegal_penalty`` as the learner's reward.

``env_kwargs`` go to ``two_player_v0.raw_env``: ``rules``, ``mode``, ``dealer``,
``reward``, ``illegal_action``, ``illegal_penalty``, ``render_mode``,
``normalize_reward``.

Registered as ``gymnasium.make("coinche_rl/TwoPlayer-v0", **kwargs)`` by importing
``coinche_rl.envs``; ``gymnasium.make("coinche_rl.envs:coinche_rl/TwoPlayer-v0")``
works in a fresh interpreter.

>>> import gymnasium
>>> env = gymnasium.make("coinche_rl.envs:coinche_rl/TwoPlayer-v0", rules="belote_decouverte",
...                      illegal_action="penalty")
>>> obs, info = env.reset(seed=0)
>>> obs.shape, bool(info["action_mask"].any())
((502,), True)
"""

from __future__ import annotations

from typing import Callable, Union

from ..actions import N_ACTIONS
from ..engine.two_layout import other
from ..game import IllegalActionError
from . import TWO_PLAYER_ENV_ID, register_gymnasium_envs
from . import two_player_observation as O
from . import two_player_v0
from .single_agent_base import LearnerEnv

__all__ = ["TwoPlayerSingleAgentEnv", "TWO_PLAYER_ENV_ID"]

Policy = Callable[[dict, str], int]

_PENALTY_HINT = (
    'To let a sampler that ignores the action mask run (action_space.sample(), '
    "gymnasium's check_env), create the env with illegal_action=\"penalty\": an illegal "
    'action then ends the episode with reward -illegal_penalty instead of raising; '
    'otherwise choose among info["action_mask"] / env.action_masks().')


class TwoPlayerSingleAgentEnv(LearnerEnv):
    """One learning player against an opponent (see the module docstring).

    :param seat: the learner's player, 0 or 1.
    :param opponent: ``None`` / ``"random"`` (uniformly random legal actions) or a
        ``policy(observation, agent) -> action`` callable.
    :param env_kwargs: passed to ``two_player_v0.raw_env``.
    """

    PENALTY_HINT = _PENALTY_HINT

    def __init__(self, seat: int = 0, opponent: Union[None, str, Policy] = None,
                 **env_kwargs):
        if isinstance(seat, bool) or seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, not {seat!r}")
        if isinstance(opponent, str):
            if opponent.strip() != "random":
                raise ValueError(f"opponent {opponent!r}: no agent of coinche_rl.agents plays "
                                 f"belote for two players yet; give 'random' or a callable "
                                 f"policy(observation, agent) -> action")
            opponent = None
        elif opponent is not None and not callable(opponent):
            raise ValueError(f"opponent must be None, 'random' or a callable "
                             f"policy(observation, agent) -> action, not {opponent!r}")
        self.other = two_player_v0.AGENTS[other(int(seat))]
        #: the other player's policy (None: uniformly random legal actions)
        self.opponent = opponent
        self._setup(seat, two_player_v0.raw_env(**env_kwargs), O)

    def _opponent_action(self, seat: int, agent: str) -> int:
        if self.opponent is None:
            return self._random_action()
        a = int(self.opponent(self.aec.observe(agent), agent))
        if not (0 <= a < N_ACTIONS and self.aec._live_mask[a]):
            raise IllegalActionError(f"the opponent policy chose the illegal action {a!r}")
        return a


register_gymnasium_envs()
