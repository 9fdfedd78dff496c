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

from typing import Callable, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from ..actions import N_ACTIONS
from ..game import IllegalActionError
from . import TWO_PLAYER_ENV_ID, register_gymnasium_envs
from . import two_player_observation as O
from . import two_player_v0

__all__ = ["TwoPlayerSingleAgentEnv", "TWO_PLAYER_ENV_ID"]

Policy = Callable[[dict, str], int]

_PENALTY_HINT = (
    'To let a sampler that ignores the action mask run (action_space.sample(), '
    "gymnasium's check_env), create the env with illegal_action=\"penalty\": an illegal "
    'action then ends the episode with reward -illegal_penalty instead of raising; '
    'otherwise choose among info["action_mask"] / env.action_masks().')


class TwoPlayerSingleAgentEnv(gymnasium.Env):
    """One learning player against an opponent (see the module docstring).

    :param seat: the learner's player, 0 or 1.
    :param opponent: ``None`` / ``"random"`` (uniformly random legal actions) or a
        ``policy(observation, agent) -> action`` callable.
    :param env_kwargs: passed to ``two_player_v0.raw_env``.
    """

    metadata = {"render_modes": ["human", "ansi"]}

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
        self.seat = int(seat)
        self.agent = two_player_v0.AGENTS[self.seat]
        self.other = two_player_v0.AGENTS[1 - self.seat]
        #: the other player's policy (None: uniformly random legal actions)
        self.opponent = opponent
        self.aec = two_player_v0.raw_env(**env_kwargs)
        self.render_mode = self.aec.render_mode
        self.observation_space = spaces.Box(low=0.0, high=O.HIGH, shape=(O.OBSERVATION_SIZE,),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._done = True

    @property
    def game(self):
        """The AEC env's ``TwoPlayerDeal`` (deal mode) or ``TwoPlayerMatch``."""
        return self.aec.game

    def _opponent_action(self) -> int:
        if self.opponent is None:
            legal = np.flatnonzero(self.aec._live_mask)
            return int(legal[self.np_random.integers(len(legal))])
        a = int(self.opponent(self.aec.observe(self.other), self.other))
        if not (0 <= a < N_ACTIONS and self.aec._live_mask[a]):
            raise IllegalActionError(f"the opponent policy chose the illegal action {a!r}")
        return a

    def _advance(self) -> float:
        """Let the other player act until the learner acts or the game ends; returns the
        learner's reward over those steps."""
        total = 0.0
        aec = self.aec
        while not aec.terminations[aec.agent_selection] and aec.agent_selection != self.agent:
            aec.step(self._opponent_action())
            total += aec.rewards[self.agent]
        return total

    @property
    def _over(self) -> bool:
        return bool(self.aec.terminations.get(self.agent, True))

    def _obs_info(self):
        obs = self.aec.observe(self.agent)
        return obs["observation"], {"action_mask": obs["action_mask"]}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool; all False once the game is over)."""
        return self.aec._mask(self.agent).astype(bool)

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        self.aec.reset(seed=seed, options=options)
        self._advance()
        redeal = {k: v for k, v in (options or {}).items() if k != "deal"}
        while self._over:                  # the game ended before the learner acted
            self.aec.reset(seed=None, options=redeal)
            self._advance()
        self._done = False
        return self._obs_info()

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called on a finished episode: call reset()")
        try:
            self.aec.step(int(action))
        except IllegalActionError as e:     # state unchanged
            raise type(e)(f"{e} (the learner, {self.agent}). {_PENALTY_HINT}") from None
        reward = self.aec.rewards[self.agent]
        reward += self._advance()
        terminated = self._over
        self._done = terminated
        obs, info = self._obs_info()
        return obs, float(reward), terminated, False, info

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()


register_gymnasium_envs()
