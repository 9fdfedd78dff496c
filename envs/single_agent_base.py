"""What the single-agent Gymnasium adapters of both families share
(``coinche_rl.envs.single_agent_base``).

:mod:`~coinche_rl.envs.single_agent` (over ``coinche_v0``) and
:mod:`~coinche_rl.envs.two_player_single_agent` (over ``two_player_v0``) seat one
learner in an AEC env (a :class:`~coinche_rl.envs.aec_base.CardGameAEC`) and play the
other seats for it: :class:`LearnerEnv` holds that loop once (spaces, reset with its
redeal, step, rewards summed over the others' turns, masks, render). A family subclass
calls :meth:`LearnerEnv._setup` and says how an opponent chooses
(:meth:`LearnerEnv._opponent_action`); hooks let it follow the game (spec opponents).
"""

from __future__ import annotations

import abc
from typing import Optional

import gymnasium
import numpy as np
from gymnasium import spaces

from ..actions import N_ACTIONS
from ..game import IllegalActionError

__all__ = ["LearnerEnv"]


class LearnerEnv(gymnasium.Env, abc.ABC):
    """One learning seat of an AEC env; the other seats act in between (see a family's
    module). ``PENALTY_HINT`` ends the message of the learner's illegal action."""

    metadata = {"render_modes": ["human", "ansi"]}
    PENALTY_HINT = ""

    def _setup(self, seat: int, aec, obs_module) -> None:
        """The learner at ``seat`` of ``aec``; spaces from ``obs_module``."""
        self.seat = int(seat)
        self.aec = aec
        self.agent = aec.AGENTS[self.seat]
        self.render_mode = aec.render_mode
        self.observation_space = spaces.Box(low=0.0, high=obs_module.HIGH,
                                            shape=(obs_module.OBSERVATION_SIZE,),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._done = True

    # ------------------------------------------------------------ family hooks
    @abc.abstractmethod
    def _opponent_action(self, seat: int, agent: str) -> int:
        """The action of the opponent at ``seat`` (``agent``), whose turn it is."""

    def _seed_opponents(self, seed: Optional[int]) -> None:
        """``reset(seed=...)`` begins: reseed what the opponents draw from."""

    def _start_agents(self) -> None:
        """A deal may have begun (after the AEC env's reset)."""

    def _apply(self, action: int) -> None:
        """Step the AEC env with the action of the seat to act (it raises, state
        unchanged, on an illegal one)."""
        self.aec.step(action)

    # ------------------------------------------------------------------ helpers
    @property
    def game(self):
        """The AEC env's deal (deal mode) or match."""
        return self.aec.game

    def _random_action(self) -> int:
        """A uniformly random legal action of the seat to act, from ``np_random``."""
        legal = np.flatnonzero(self.aec._live_mask)
        return int(legal[self.np_random.integers(len(legal))])

    def _advance(self) -> float:
        """Let the other seats act until the learner acts or the game ends; returns the
        learner's reward over those steps."""
        total = 0.0
        aec = self.aec
        while not aec.terminations[aec.agent_selection] and aec.agent_selection != self.agent:
            agent = aec.agent_selection
            self._apply(self._opponent_action(aec._seat_of[agent], agent))
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
        self._seed_opponents(seed)
        self.aec.reset(seed=seed, options=options)
        self._start_agents()
        self._advance()
        redeal = {k: v for k, v in (options or {}).items() if k != "deal"}
        while self._over:                  # the game ended before the learner acted: redeal
            self.aec.reset(seed=None, options=redeal)
            self._start_agents()
            self._advance()
        self._done = False
        return self._obs_info()

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called on a finished episode: call reset()")
        try:
            self._apply(int(action))
        except IllegalActionError as e:     # state unchanged
            raise type(e)(f"{e} (the learner, {self.agent}). {self.PENALTY_HINT}") from None
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
