"""What the PettingZoo AEC envs of both families share (``coinche_rl.envs.aec_base``).

:mod:`~coinche_rl.envs.coinche_v0` (four players) and
:mod:`~coinche_rl.envs.two_player_v0` (belote for two players) are the same AEC
bookkeeping over different games: :class:`CardGameAEC` holds it once (argument checks,
spaces, seeding and reset options, turn order, rewards of the two sides, the
illegal-action penalty, legal masks in the infos, render). A family subclass names its
agents, deal and match classes and observation module, and supplies its rules check,
its encoder, its observation, its legal mask and how a given deal is read;
:func:`env_functions` makes its module's ``env`` and ``parallel_env``.

Seat ``i`` plays for side ``i & 1`` (the teams of four players; each player of two).
"""

from __future__ import annotations

import abc
from typing import Optional

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .._numba_cache import compile_notice
from ..actions import N_ACTIONS

__all__ = ["CardGameAEC", "SideTerminateIllegalWrapper", "wrap", "env_functions", "REWARD_SCALE",
           "NO_ACTIONS"]

#: rewards are divided by this with ``normalize_reward=True``: the card points of one
#: deal (152 + 10 for the last trick, under every preset)
REWARD_SCALE = 162.0

#: the mask of an agent not to act (read-only, shared)
NO_ACTIONS = np.zeros(N_ACTIONS, dtype=np.int8)
NO_ACTIONS.setflags(write=False)


class SideTerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """``TerminateIllegalWrapper`` that also ends the raw env's game: the penalty goes
    to the offender's side (its team; the player alone with two players)."""

    def step(self, action):
        agent = self.agent_selection
        before = self._terminated
        super().step(action)
        if self._terminated and not before:
            self.env.unwrapped._penalize(agent)


def wrap(e: "CardGameAEC"):
    """``e`` in PettingZoo's standard wrappers (and the penalty wrapper in penalty mode)."""
    if e.illegal_action == "penalty":
        e = SideTerminateIllegalWrapper(e, illegal_reward=-e.illegal_penalty / e.reward_scale)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def env_functions(raw_env):
    """A family module's ``env`` and ``parallel_env`` over its ``raw_env`` class (a
    :class:`CardGameAEC` subclass), as functions of that module."""

    def env(**kwargs):
        """The environment in PettingZoo's standard wrappers (:class:`raw_env`)."""
        return wrap(raw_env(**kwargs))

    def parallel_env(**kwargs):
        """The parallel API over :func:`env` (turn-based: only the agent to act acts; the
        others' actions are ignored)."""
        return turn_based_aec_to_parallel(env(**kwargs))

    for f in (env, parallel_env):
        f.__module__ = raw_env.__module__
        f.__qualname__ = f.__name__
    return env, parallel_env


class CardGameAEC(AECEnv, EzPickle, abc.ABC):
    """One deal or a match of a card game as a PettingZoo AEC env (see a family's module).

    A subclass sets ``metadata``, ``AGENTS``, ``DEAL`` and ``MATCH`` (the game classes),
    ``O`` (its observation module), ``RULES_OF`` (``rules`` -> a rule set of the family,
    raising for another family's), ``ENCODER`` (its observation encoder class),
    ``NOTICE`` (what compiles and its kernels, for the compile notice) and ``DEALER``
    (the allowed dealers, in messages), and implements the hooks below.
    """

    AGENTS: tuple = ()
    DEAL = None
    MATCH = None
    O = None
    RULES_OF = None
    ENCODER = None
    NOTICE = ("the environment", ())
    DEALER = "a seat 0..3 or None"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # each agent's seat, on the class: with it on the instance (one attribute more,
        # 29), the steps of the raw env measured about 3% slower (CPython 3.11)
        cls._seat_of = {a: i for i, a in enumerate(cls.AGENTS)}

    def __init__(self, rules, mode: str = "deal", dealer: Optional[int] = None,
                 reward: str = "difference", illegal_action: str = "raise",
                 illegal_penalty: float = 1000.0, render_mode: Optional[str] = None,
                 normalize_reward: bool = False):
        EzPickle.__init__(self, rules, mode, dealer, reward, illegal_action, illegal_penalty,
                          render_mode, normalize_reward)
        super().__init__()
        compile_notice(*self.NOTICE, "about 10-20 s")
        self.rules = self.RULES_OF(rules)
        n = len(self.AGENTS)
        if mode not in ("deal", "match"):
            raise ValueError(f"mode must be 'deal' or 'match', not {mode!r}")
        if reward not in ("difference", "raw"):
            raise ValueError(f"reward must be 'difference' or 'raw', not {reward!r}")
        if illegal_action not in ("raise", "penalty"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalty', not {illegal_action!r}")
        if dealer is not None and (isinstance(dealer, bool) or dealer not in range(n)):
            raise ValueError(f"dealer must be {self.DEALER}, not {dealer!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"{render_mode!r} is not a valid render mode; "
                             f"valid modes: {self.metadata['render_modes']}")
        if not isinstance(normalize_reward, (bool, np.bool_)):
            raise ValueError(f"normalize_reward must be True or False, not {normalize_reward!r}")
        self.mode = mode
        self.dealer = dealer
        self.reward_kind = reward
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.normalize_reward = bool(normalize_reward)
        #: what the rewards are divided by: ``REWARD_SCALE`` when normalised, else 1
        self.reward_scale = REWARD_SCALE if self.normalize_reward else 1.0

        self.possible_agents = list(self.AGENTS)
        self.agents = []
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=self.O.HIGH,
                                      shape=(self.O.OBSERVATION_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        })
        self._action_space = spaces.Discrete(N_ACTIONS)
        self._encoder = self.ENCODER(self.rules)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self._rng = np.random.default_rng()
        self.game = None
        self._deal = None
        self._live_mask = NO_ACTIONS

    # ------------------------------------------------------------ family hooks
    @abc.abstractmethod
    def _observation(self, agent: str) -> np.ndarray:
        """The observation vector of ``agent`` now."""

    @abc.abstractmethod
    def _legal_mask(self) -> np.ndarray:
        """A new int8 legal mask of the deal in progress."""

    @abc.abstractmethod
    def _deal_kwargs(self, given) -> dict:
        """The keywords of ``DEAL`` that replay ``options["deal"]``."""

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    # ------------------------------------------------------------------ access
    @property
    def deal(self):
        """The deal in progress (the last one once a match is over)."""
        return self.game.deal if isinstance(self.game, self.MATCH) else self.game

    def state(self) -> np.ndarray:
        """A copy of the engine state vector of the deal in progress (full information)."""
        return self.deal.state.copy()

    def _match_info(self):
        if self.mode != "match":
            return None
        m = self.game
        return {"scores": tuple(m.scores), "target": m.target, "pot": m.pot}

    def _mask(self, agent: str) -> np.ndarray:
        if agent == self.agent_selection:
            return self._live_mask
        return NO_ACTIONS

    def observe(self, agent: str):
        mask = self._live_mask if agent == self.agent_selection else NO_ACTIONS  # _mask, inline
        return {"observation": self._observation(agent), "action_mask": mask}

    def _update_infos(self):
        """Refresh the legal mask of the agent to act (one engine call per step; the
        arrays handed out are read-only, so they can be shared) and the infos of the
        agents whose mask changed."""
        agent = self.agent_selection
        live = NO_ACTIONS
        if self.agents and not (self.terminations.get(agent, True)
                                or self.truncations.get(agent, False)):
            live = self._legal_mask()
            live.setflags(write=False)
        self._live_mask = live
        infos = self.infos
        for a in self.agents:
            mask = live if a == agent else NO_ACTIONS
            info = infos.get(a)
            if info is None or info.get("action_mask") is not mask or len(info) != 1:
                infos[a] = {"action_mask": mask}

    # ------------------------------------------------------------------ reset
    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        """Start an episode. ``options``: ``{"deal": ..., "dealer": seat}`` replays a
        given deal (read by the family's ``_deal_kwargs``; in match mode, as the first
        deal); other keys are ignored."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = options or {}
        dealer = options.get("dealer", self.dealer)
        if dealer is None:
            dealer = int(self._rng.integers(len(self.AGENTS)))
        given = options.get("deal")
        kw = {} if given is None else self._deal_kwargs(given)
        if self.mode == "match":
            self.game = self.MATCH(self.rules, dealer=int(dealer),
                                   seed=int(self._rng.integers(2 ** 62)))
            if kw:
                self.game.deal = self.DEAL(self.rules, dealer=int(dealer), **kw)
        else:
            if not kw:
                kw = {"seed": int(self._rng.integers(2 ** 62))}
            self.game = self.DEAL(self.rules, dealer=int(dealer), **kw)
        self._deal = self.deal
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.AGENTS[self.game.current_player]
        self._update_infos()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------- step
    def _deal_rewards(self, delta):
        """Each agent's reward from its side's score ``delta`` and the other side's."""
        for a in self.agents:
            t = self._seat_of[a] & 1
            r = delta[t] - delta[1 - t] if self.reward_kind == "difference" else delta[t]
            self.rewards[a] = float(r) / self.reward_scale

    def _penalize(self, agent: str) -> None:
        """The offender's side gets ``-illegal_penalty``, the other 0; the game ends
        (penalty mode)."""
        side = self._seat_of[agent] & 1
        for a in self.agents:
            r = -self.illegal_penalty / self.reward_scale if self._seat_of[a] & 1 == side else 0.0
            self._cumulative_rewards[a] += r - self.rewards.get(a, 0.0)
            self.rewards[a] = r
        self.terminations = dict.fromkeys(self.agents, True)
        self._update_infos()

    def step(self, action):
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            return self._was_dead_step(action)
        agent = self.agent_selection
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        a = int(action)
        deal = self._deal                   # the deal in progress (kept by reset and step)
        if self.illegal_action == "penalty" and not (0 <= a < N_ACTIONS and deal.is_legal(a)):
            gymnasium.logger.warn(f"illegal action {a!r} by {agent}: the game ends")
            self._penalize(agent)
            return
        if isinstance(self.game, self.MATCH):
            m = self.game
            before = list(m.scores)
            n = len(m.deals)
            m.apply(a)                      # raises IllegalActionError, state unchanged
            if len(m.deals) > n:
                self._deal_rewards([m.scores[0] - before[0], m.scores[1] - before[1]])
            over = m.is_terminal
        else:
            deal.apply(a)                   # raises IllegalActionError, state unchanged
            if deal.is_terminal:
                self._deal_rewards(deal.scores)
            over = deal.is_terminal
        if over:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.AGENTS[(self._seat_of[agent] + 1) % len(self.AGENTS)]
        else:
            self.agent_selection = self.AGENTS[self.game.current_player]
        self._deal = self.deal
        self._accumulate_rewards()
        self._update_infos()
        if self.render_mode == "human":
            self.render()

    # ----------------------------------------------------------------- render
    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"{self.render_mode!r} is not a valid render mode; "
                             f"valid modes: {self.metadata['render_modes']}")
        text = self.deal.render() if self.game is not None else ""
        if self.mode == "match" and self.game is not None:
            text = f"match scores {self.game.scores[0]} - {self.game.scores[1]} " \
                   f"(target {self.game.target})\n" + text
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self):
        """Nothing to release: the env holds no window, file or process."""
