"""A single-agent Gymnasium view of :mod:`coinche_rl.envs.coinche_v0`
(``coinche_rl.envs.single_agent``).

:class:`CoincheSingleAgentEnv` seats one learner (``seat``, default 0) at the table; the
three other seats are played by ``policies`` (callables ``policy(observation, agent) ->
action id``, given the AEC observation dict ``{"observation", "action_mask"}`` of that
seat and its agent name ``"player_i"``). A seat without a policy plays a uniformly random
legal action drawn from the env's own ``np_random`` (seeded by ``reset(seed=...)``).

* ``observation_space``: ``Box(0, observation.HIGH, (OBSERVATION_SIZE,), float32)``, the
  learner's observation vector; ``action_space``: ``Discrete(N_ACTIONS)``.
* ``reset(seed, options)`` resets the AEC env (``options`` passed through: ``"deal"``,
  ``"dealer"``), then lets the other seats act until the learner must act. If the episode
  ends before the learner acts (possible only for a void deal, which in practice cannot
  happen before every seat has spoken), the AEC env is reset again with its next
  seed-derived deal (the ``"deal"`` option dropped), so ``reset`` always returns a state
  in which the learner acts. ``info["action_mask"]`` (int8) is the learner's legal mask.
* ``step(action)`` applies the learner's action, then the other seats' until the learner
  acts again or the game ends. The reward is the learner's reward from the AEC env summed
  over that span (points, given at the end of each deal; see ``coinche_v0``);
  ``terminated`` when the game (deal, or match in ``mode="match"``) ends; ``truncated``
  is always False.
* ``action_masks()``: the current legal mask as bool (for sb3-contrib ``MaskablePPO``).
* An illegal learner action raises ``coinche_rl.game.IllegalActionError`` (a
  ``ValueError``), the state unchanged, unless ``illegal_action="penalty"`` is passed
  through to the AEC env (then the game ends with the AEC penalty as reward).

Registered as ``gymnasium.make("coinche_rl/Coinche-v0", **kwargs)`` when imported.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional

import gymnasium
import numpy as np
from gymnasium import spaces

from ..actions import N_ACTIONS
from . import coinche_v0
from . import observation as O

__all__ = ["CoincheSingleAgentEnv", "ENV_ID"]

ENV_ID = "coinche_rl/Coinche-v0"

Policy = Callable[[dict, str], int]


class CoincheSingleAgentEnv(gymnasium.Env):
    """One learning seat against policies for the other three (see the module docstring).

    :param seat: the learner's seat 0..3.
    :param policies: ``{seat: policy(observation_dict, agent) -> action}`` for other seats.
    :param env_kwargs: passed to ``coinche_v0.raw_env`` (``rules``, ``mode``, ``dealer``,
        ``reward``, ``illegal_action``, ``illegal_penalty``, ``render_mode``).
    """

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(self, seat: int = 0, policies: Optional[Dict[int, Policy]] = None,
                 **env_kwargs):
        if isinstance(seat, bool) or seat not in range(4):
            raise ValueError(f"seat must be 0..3, not {seat!r}")
        policies = dict(policies or {})
        for s in policies:
            if s not in range(4) or s == seat:
                raise ValueError(f"policies must be for seats other than the learner's "
                                 f"({seat}), got seat {s!r}")
        self.seat = int(seat)
        self.agent = coinche_v0.AGENTS[self.seat]
        self.policies = policies
        self.aec = coinche_v0.raw_env(**env_kwargs)
        self.render_mode = self.aec.render_mode
        self.observation_space = spaces.Box(low=0.0, high=O.HIGH, shape=(O.OBSERVATION_SIZE,),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._done = True

    # ------------------------------------------------------------------ helpers
    @property
    def game(self):
        """The AEC env's ``Deal`` (deal mode) or ``Match``."""
        return self.aec.game

    def _random_action(self) -> int:
        legal = np.flatnonzero(self.aec.deal.legal_action_mask())
        return int(legal[self.np_random.integers(len(legal))])

    def _advance(self) -> float:
        """Let the other seats act until the learner acts or the game ends; returns the
        learner's reward over those steps."""
        total = 0.0
        aec = self.aec
        while not aec.terminations[aec.agent_selection] and aec.agent_selection != self.agent:
            agent = aec.agent_selection
            policy = self.policies.get(coinche_v0._seat(agent))
            a = self._random_action() if policy is None else int(policy(aec.observe(agent), agent))
            aec.step(a)
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

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        self.aec.reset(seed=seed, options=options)
        self._advance()
        redeal = {k: v for k, v in (options or {}).items() if k != "deal"}
        while self._over:                  # void deal before the learner acted: redeal
            self.aec.reset(seed=None, options=redeal)
            self._advance()
        self._done = False
        return self._obs_info()

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called on a finished episode: call reset()")
        self.aec.step(int(action))          # IllegalActionError (ValueError), state unchanged
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


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="coinche_rl.envs.single_agent:CoincheSingleAgentEnv")
