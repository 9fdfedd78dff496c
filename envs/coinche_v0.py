"""The PettingZoo AEC environment of every family (``coinche_v0``), thin over the
engine's deal and match classes: the engine decides legality, play and scoring; this
module handles agents, spaces, observations, rewards and turn order.

Coinche and the French Belote family (the default, ``rules="ffb"``): agents
``player_0`` .. ``player_3`` (``player_i`` at seat ``i``; seats ``i`` and ``i + 2`` are
partners), one ``Discrete(120)`` action space for every phase, observations
``{"observation": float32[620], "action_mask": int8[120]}`` built from the agent's
information set only; rewards when a deal ends. The arguments, spaces, rewards and
version history: docs/envs.md.

Belote for two players is the same class with the two family's rules
(``raw_env(rules="belote_a_deux")``, or ``family="two"``; its metadata name is
``two_player_v0``): agents ``player_0``, ``player_1``, observations of 502 built from the
player's public view only (docs/two_player.md). What differs is read from the family's
description (:class:`~coinche_rl.envs.family.EnvFamily`: its deal and match classes,
observation encoder, rules check); seat ``i`` plays for side ``i & 1`` (its team of
four, or itself of two).

>>> e = env(rules="ffb")
>>> e.reset(seed=0)
>>> e.agent_selection, e.observe("player_0")["observation"].shape
('player_0', (620,))
>>> e = env(rules="belote_a_deux")
>>> e.reset(seed=0)
>>> e.possible_agents, e.observe("player_0")["observation"].shape
(['player_0', 'player_1'], (502,))
"""

from __future__ import annotations

from typing import Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .._numba_cache import compile_notice
from ..actions import N_ACTIONS
from ..engine import legal_actions_into
from ..engine.two import two_apply
from ..rules import RuleSet
from . import kernels, encoder_two
from .family import AGENT_NAMES, REWARD_SCALE, EnvFamily, env_family

__all__ = ["env", "raw_env", "parallel_env", "REWARD_SCALE", "NO_ACTIONS",
           "SideTerminateIllegalWrapper"]

#: the mask of an agent not to act (read-only, shared)
NO_ACTIONS = np.zeros(N_ACTIONS, dtype=np.int8)
NO_ACTIONS.setflags(write=False)

#: the four-player agents (``player_i`` at seat ``i``); every family's agents are the
#: first ``n_players`` of them
AGENTS = AGENT_NAMES

#: each family's kernels that compile on a first run, for the compile notice
_KERNELS = {"four": (kernels._encode, legal_actions_into),
            "two": (encoder_two.encode_view, two_apply)}


class SideTerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """``TerminateIllegalWrapper`` that also ends the raw env's game: the penalty goes
    to the offender's side (its team; the player alone with two players)."""

    def step(self, action):
        agent = self.agent_selection
        before = self._terminated
        super().step(action)
        if self._terminated and not before:
            self.env.unwrapped._penalize(agent)


#: the attributes every step of an AEC loop reads through the wrappers (``agent_iter``,
#: ``last``, the wrappers' own checks)
_HOT = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos",
        "_cumulative_rewards")
#: of them, those PettingZoo's order-enforcing wrapper refuses before ``reset``
_BEFORE_RESET = frozenset(_HOT) - {"_cumulative_rewards"}


def _forwarded(name: str, guarded: bool) -> property:
    """``name`` read from (and written to) the wrapped env, as PettingZoo's
    ``BaseWrapper.__getattr__`` does, but as a property: found by the first lookup,
    where ``__getattr__`` runs only after a failed one (raising and catching an
    AttributeError inside Python: about a third of a wrapped step's time). ``guarded``:
    refused before ``reset`` with the order-enforcing wrapper's error."""
    if guarded:
        def get(self):
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self.env, name)
    else:
        def get(self):
            return getattr(self.env, name)

    def put(self, value):
        setattr(self.env, name, value)
    return property(get, put, doc=f"the wrapped env's ``{name}``")


class OutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper``, the same checks, with the step's
    attributes forwarded by properties and a Python ``int`` in ``0..N_ACTIONS-1`` taken
    without asking the space (what ``Discrete.contains`` answers for it)."""

    def step(self, action):
        if type(action) is int and 0 <= action < N_ACTIONS:
            self.env.step(action)
        else:
            super().step(action)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, the same checks and errors, with the
    step's attributes forwarded by properties and ``last`` reading them from the
    unwrapped env (every wrapper forwards them there) once the env has been reset."""

    def last(self, observe: bool = True):
        if not self._has_reset:
            return super().last(observe)            # its error, as PettingZoo raises it
        raw = self.env.unwrapped
        agent = raw.agent_selection
        assert agent is not None
        return (self.env.observe(agent) if observe else None, raw._cumulative_rewards[agent],
                raw.terminations[agent], raw.truncations[agent], raw.infos[agent])


for _name in _HOT:
    setattr(OutOfBoundsWrapper, _name, _forwarded(_name, False))
    setattr(OrderEnforcingWrapper, _name, _forwarded(_name, _name in _BEFORE_RESET))
del _name


def wrap(e: "raw_env"):
    """``e`` in PettingZoo's standard wrappers (and the penalty wrapper in penalty mode):
    subclasses of ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` that check
    the same things with less work per step (:class:`OutOfBoundsWrapper`,
    :class:`OrderEnforcingWrapper`)."""
    if e.illegal_action == "penalty":
        e = SideTerminateIllegalWrapper(e, illegal_reward=-e.illegal_penalty / e.reward_scale)
    e = OutOfBoundsWrapper(e)
    e = OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """One deal or a match of the family of ``rules`` (docs/envs.md; two players:
    docs/two_player.md).

    :param rules: a preset name or a ``RuleSet`` (None: the family's default preset,
        ``ffb`` or ``belote_a_deux``).
    :param family: ``"four"`` or ``"two"`` (an :class:`~coinche_rl.envs.family.EnvFamily`
        key) to require rules of that family; None: the family of ``rules``.
    """

    metadata = {"name": "coinche_v0", "render_modes": ["human", "ansi"],
                "is_parallelizable": True}
    #: each agent's seat, on the class: with it on the instance (one attribute more,
    #: 29), the steps of the raw env measured about 3% slower (CPython 3.11)
    _seat_of = {a: i for i, a in enumerate(AGENTS)}

    def __init__(self, rules: Union[None, str, RuleSet] = None, mode: str = "deal",
                 dealer: Optional[int] = None, reward: str = "difference",
                 illegal_action: str = "raise", illegal_penalty: float = 1000.0,
                 render_mode: Optional[str] = None, normalize_reward: bool = False,
                 family: Union[None, str, EnvFamily] = None):
        fam = env_family(rules, family)
        EzPickle.__init__(self, rules, mode, dealer, reward, illegal_action, illegal_penalty,
                          render_mode, normalize_reward, fam.key)
        super().__init__()
        compile_notice(f"{fam.title} environment", _KERNELS[fam.key], "about 10-20 s")
        self.family = fam
        self.rules = fam.rules(rules)
        if fam.env_name != self.metadata["name"]:
            self.metadata = {**self.metadata, "name": fam.env_name}
        self._n = n = fam.n_players
        if mode not in ("deal", "match"):
            raise ValueError(f"mode must be 'deal' or 'match', not {mode!r}")
        if reward not in ("difference", "raw"):
            raise ValueError(f"reward must be 'difference' or 'raw', not {reward!r}")
        if illegal_action not in ("raise", "penalty"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalty', not {illegal_action!r}")
        if dealer is not None and (isinstance(dealer, bool) or dealer not in range(n)):
            raise ValueError(f"dealer must be a {fam.engine.who} {fam.engine.seats} or None, not {dealer!r}")
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

        self.possible_agents = list(fam.agents)
        self.agents = []
        O = fam.observation
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=O.HIGH,
                                      shape=(O.OBSERVATION_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        })
        self._action_space = spaces.Discrete(N_ACTIONS)
        self._encoder = fam.encoder(self.rules)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self._rng = np.random.default_rng()
        self.game = None
        self._deal = None
        self._live_mask = NO_ACTIONS

    # ------------------------------------------------------------ the family's parts
    def information_set(self, agent: str):
        """What ``agent`` knows now: its :class:`~coinche_rl.envs.infoset.InformationSet`
        (four players) or ``deal.view(player)`` (a ``TwoPlayerView``)."""
        return self.family.knowledge(self.deal, self._seat_of[agent])

    def view(self, agent: str):
        """What ``agent`` knows now (:meth:`information_set`; the two-player name)."""
        return self.information_set(agent)

    def render_for(self, agent: str) -> str:
        """The table as ``agent`` sees it: his hand, the other hands as counts (two
        players: ``??`` for every face-down card)."""
        return self.deal.render(viewer=self._seat_of[agent])

    def _observation(self, agent: str) -> np.ndarray:
        # the numba encoder, identical to the observation module's encode of what the
        # agent knows (tested)
        return self._encoder.observe(self._deal, self._seat_of[agent], self._match_info())

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    # ------------------------------------------------------------------ access
    @property
    def deal(self):
        """The deal in progress (the last one once a match is over)."""
        return self.game.deal if self.mode == "match" else self.game

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
            live = self._encoder.legal_mask(self._deal)
            live.flags.writeable = False
        self._live_mask = live
        infos = self.infos
        for a in self.agents:
            info = infos.get(a)
            if info is None or len(info) != 1 or info.get("action_mask") is not (
                    live if a == agent else NO_ACTIONS):
                infos[a] = {"action_mask": live if a == agent else NO_ACTIONS}

    # ------------------------------------------------------------------ reset
    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        """Start an episode. ``options``: ``{"deal": ..., "dealer": seat}`` replays a
        given deal (read by the family's ``_deal_kwargs``; in match mode, as the first
        deal); in match mode ``"match_seed"`` seeds the match (``Match(rules, dealer=...,
        seed=...)``: a vector env's match, from its ``match_seeds``); other keys are
        ignored."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = options or {}
        dealer = options.get("dealer", self.dealer)
        if dealer is None:
            dealer = int(self._rng.integers(self._n))
        given = options.get("deal")
        fam = self.family
        kw = {} if given is None else fam.deal_kwargs(given)
        if self.mode == "match":
            seed = int(self._rng.integers(2 ** 62))
            self.game = fam.match(self.rules, dealer=int(dealer),
                                  seed=int(options.get("match_seed", seed)))
            if kw:
                self.game.deal = fam.deal(self.rules, dealer=int(dealer), **kw)
        else:
            if not kw:
                kw = {"seed": int(self._rng.integers(2 ** 62))}
            self.game = fam.deal(self.rules, dealer=int(dealer), **kw)
        self._deal = self.deal
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self.game.current_player]
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
        if self.mode == "match":
            m = self.game
            before = list(m.scores)
            n = len(m.deals)
            m.apply(a)                      # raises IllegalActionError, state unchanged
            if len(m.deals) > n:
                self._deal_rewards([m.scores[0] - before[0], m.scores[1] - before[1]])
            over = m.is_terminal
            self._deal = m.deal             # the next deal's, when this one ended
            to_act = None if over else m.current_player
        else:
            deal.apply(a)                   # raises IllegalActionError, state unchanged
            to_act = deal.current_player    # None: the deal is over
            over = to_act is None
            if over:
                self._deal_rewards(deal.scores)
        if over:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = AGENTS[(self._seat_of[agent] + 1) % self._n]
        else:
            self.agent_selection = AGENTS[to_act]
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


def env(**kwargs):
    """The environment in PettingZoo's standard wrappers (:class:`raw_env`)."""
    return wrap(raw_env(**kwargs))


def parallel_env(**kwargs):
    """The parallel API over :func:`env` (turn-based: only the agent to act acts; the
    others' actions are ignored)."""
    return turn_based_aec_to_parallel(env(**kwargs))


#: ``TerminateIllegalWrapper`` whose penalty goes to the offender's whole team
TeamTerminateIllegalWrapper = SideTerminateIllegalWrapper
#: the seat of an agent (``'player_2'`` -> 2)
_seat = raw_env._seat_of.__getitem__
