# noqa: D212, D415
"""
# Belote for two players

A PettingZoo AEC environment for belote for two players (the `two` family, RULES.md §12,
`docs/two_player.md`): the presets `belote_a_deux` (a hand plus stacks on the table) and
`belote_decouverte` (every card on the table). Thin over
:mod:`coinche_rl.two_player`: the engine decides legality, play and scoring; this module
only handles agents, spaces, observations, rewards and turn order. It mirrors
`coinche_v0` (same options, same action space, same reward conventions).

| Import             | `from coinche_rl.envs import two_player_v0`        |
|--------------------|----------------------------------------------------|
| Actions            | Discrete                                           |
| Parallel API       | Yes (turn-based: `two_player_v0.parallel_env()`)   |
| Manual Control     | No                                                 |
| Agents             | `agents= ['player_0', 'player_1']`                 |
| Agents             | 2 (each its own side)                              |
| Action Shape       | Discrete(120)                                      |
| Action Values      | Discrete(120)                                      |
| Observation Shape  | (502,) + action mask (120,)                        |
| Observation Values | [0, 1] (the match ratios above 1, see `two_player_observation.HIGH`) |

`player_i` is player `i` of the engine.

## Arguments

``two_player_v0.env(rules="belote_a_deux", mode="deal", dealer=None, reward="difference",
illegal_action="raise", illegal_penalty=1000.0, render_mode=None, normalize_reward=False)``

* `rules`: `"belote_a_deux"`, `"belote_decouverte"` or a two-family `RuleSet` (a
  four-player rule set raises `InvalidRulesError`).
* `mode`: `"deal"` (one deal per episode) or `"match"` (deals to the rule set's target,
  `coinche_rl.two_player.TwoPlayerMatch`: the dealer alternates, each deal freshly
  shuffled).
* `dealer`: the (first) dealer, 0 or 1, or None to draw it from the episode's seed.
* `reward`: `"difference"` or `"raw"` (see *Rewards*).
* `illegal_action`: `"raise"` (default: `IllegalActionError`, whose message names the
  legal actions, the state unchanged) or `"penalty"` (see *Rewards*).
* `illegal_penalty`: the penalty of `"penalty"` mode (default 1000.0 points).
* `render_mode`: `"human"` (prints) or `"ansi"` (returns the text of
  `TwoPlayerDeal.render()`: the whole table; `env.unwrapped.render_for(agent)` gives one
  player's side only).
* `normalize_reward`: divide every reward (the penalty too) by
  `coinche_v0.REWARD_SCALE` = 162, the card points of one deal.

## Observation Space

A dictionary: `'observation'`, a float32 vector of
`two_player_observation.OBSERVATION_SIZE` (502) built **only** from the agent's public
view `deal.public_state(player)` (the engine's
`two_public_view_into`: no face-down card, no card of the other hand beyond
`TwoPlayerView.known_other`) and, in match mode, the public match score: its own hand,
both players' face-up table cards and which of them cover a face-down card, the number
of face-down cards, both hand sizes, the dealer, the phase, the player to act, the prise
actions, the retourne and who received it, trump, taker, the exchange choice, every card
played (by whom, in which trick), the current trick, trick number, card points and tricks
won, the declarations announced and their winner (with the winning cards), the belotes,
the match score and the rule switches. `two_player_observation.encode(deal.view(player))`
is the readable definition; the env computes the identical vector with the numba kernel
`two_player_kernels.encode_into` (tested equal at every step of random games of both
presets); `two_player_observation.decode(obs, observer=i)` gives readable values back.
Players are relative to the observer (me, the other). And `'action_mask'`.

`env.unwrapped.view(agent)` returns the `TwoPlayerView` itself; `env.unwrapped.state()`
a copy of the engine state vector (full information, for centralized critics);
`env.unwrapped.game` the `TwoPlayerDeal` (deal mode) or `TwoPlayerMatch`.

### Legal Actions Mask

`'action_mask'` (int8, shape (120,)) marks the legal actions of the agent to act; it is
all zeros for the other agent and once the episode is over. It is mirrored in
`infos[agent]["action_mask"]`. The mask arrays are read-only (shared by the observation
and the infos); copy one to modify it.

## Action Space

The one action encoding of the package (`coinche_rl.actions`); the two family uses:

| ids        | action |
|------------|--------|
| 0          | pass (prise) |
| 75 .. 106  | play `card`: `75 + card` (card = `suit * 8 + rank`, suits S H D C, ranks 7 8 9 T J Q K A) |
| 107        | take the retourne's suit (prise, round 1) |
| 108 .. 111 | name suit `s` as trump (prise, round 2; not the retourne's suit) |
| 118 / 119  | exchange the 7 of trump for the retourne / keep it (`belote_a_deux`, the non-taker after a round-1 take) |

## Rewards

Rewards are in game points, given when a deal ends (the last step of each deal), to both
agents:

* `"difference"` (default): my deal score minus the other's: zero-sum.
* `"raw"`: my deal score.

In match mode the same reward is given at the end of **every** deal, computed on the
change of the match scores (the deal scores plus, with `litige=True`, a litige pot won
with the deal); the episode ends when a player wins the match. The sum of an agent's
rewards is the final match-score difference (or its final score). A void deal (both
passed twice) rewards 0.

Illegal action with `illegal_action="penalty"`: the game ends at once; the offender gets
`-illegal_penalty`, the other 0 (`env()` applies it through a `TerminateIllegalWrapper`
subclass; `raw_env` applies the same rule itself).

## Version History

* v0: initial release (observation encoding version 1).
"""

from __future__ import annotations

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
from ..engine import two as E2
from ..rules import RuleSet
from ..two_player import TwoPlayerDeal, TwoPlayerMatch, TwoPlayerView, two_player_rules
from . import two_player_kernels as K
from . import two_player_observation as O
from .coinche_v0 import REWARD_SCALE

__all__ = ["env", "raw_env", "parallel_env", "REWARD_SCALE", "AGENTS"]

AGENTS = ("player_0", "player_1")
_SEATS = {a: i for i, a in enumerate(AGENTS)}
#: the mask of an agent not to act (read-only, shared)
_NO_ACTIONS = np.zeros(N_ACTIONS, dtype=np.int8)
_NO_ACTIONS.setflags(write=False)


def env(**kwargs):
    """The environment in PettingZoo's standard wrappers (see the module docstring)."""
    e = raw_env(**kwargs)
    if e.illegal_action == "penalty":
        e = TwoPlayerTerminateIllegalWrapper(e, illegal_reward=-e.illegal_penalty / e.reward_scale)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def parallel_env(**kwargs):
    """The parallel API over :func:`env` (turn-based: only the agent to act acts; the
    other's action is ignored)."""
    return turn_based_aec_to_parallel(env(**kwargs))


class TwoPlayerTerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """``TerminateIllegalWrapper`` that also ends the raw env's game (the offender gets
    the penalty, the other player 0)."""

    def step(self, action):
        agent = self.agent_selection
        before = self._terminated
        super().step(action)
        if self._terminated and not before:
            self.env.unwrapped._penalize(agent)


def _seat(agent: str) -> int:
    return _SEATS[agent]


class raw_env(AECEnv, EzPickle):
    """Belote for two players, one deal or a match (see the module docstring)."""

    metadata = {"name": "two_player_v0", "render_modes": ["human", "ansi"],
                "is_parallelizable": True}

    def __init__(self, rules="belote_a_deux", mode: str = "deal", dealer: Optional[int] = None,
                 reward: str = "difference", illegal_action: str = "raise",
                 illegal_penalty: float = 1000.0, render_mode: Optional[str] = None,
                 normalize_reward: bool = False):
        EzPickle.__init__(self, rules, mode, dealer, reward, illegal_action, illegal_penalty,
                          render_mode, normalize_reward)
        super().__init__()
        compile_notice("the two-player environment", (K.encode_view, E2.two_apply),
                       "about 10-20 s")
        self.rules: RuleSet = two_player_rules(rules)
        if mode not in ("deal", "match"):
            raise ValueError(f"mode must be 'deal' or 'match', not {mode!r}")
        if reward not in ("difference", "raw"):
            raise ValueError(f"reward must be 'difference' or 'raw', not {reward!r}")
        if illegal_action not in ("raise", "penalty"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalty', not {illegal_action!r}")
        if dealer is not None and (isinstance(dealer, bool) or dealer not in (0, 1)):
            raise ValueError(f"dealer must be a player 0 or 1, or None, not {dealer!r}")
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

        self.possible_agents = list(AGENTS)
        self.agents = []
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=O.HIGH, shape=(O.OBSERVATION_SIZE,),
                                      dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        })
        self._action_space = spaces.Discrete(N_ACTIONS)
        self._encoder = K.TwoPlayerEncoder(self.rules)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self._rng = np.random.default_rng()
        self.game = None
        self._deal = None
        self._live_mask = _NO_ACTIONS

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    # ------------------------------------------------------------------ access
    @property
    def deal(self) -> TwoPlayerDeal:
        """The deal in progress (the last one once a match is over)."""
        return self.game.deal if isinstance(self.game, TwoPlayerMatch) else self.game

    def view(self, agent: str) -> TwoPlayerView:
        """What ``agent`` knows now (``deal.view(player)``)."""
        return self.deal.view(_seat(agent))

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
        return _NO_ACTIONS

    def observe(self, agent: str):
        # the numba encoder of the agent's public view (the engine's, a fresh vector with
        # nothing hidden in it), identical to O.encode(deal.view(player)) (tested)
        p = _SEATS[agent]
        obs = self._encoder.encode_view(self._deal.public_state(p), p, self._match_info())
        return {"observation": obs, "action_mask": self._mask(agent)}

    def _update_infos(self):
        """Refresh the legal mask of the agent to act (read-only arrays, shared) and the
        infos of the agents whose mask changed."""
        agent = self.agent_selection
        live = _NO_ACTIONS
        if self.agents and not (self.terminations.get(agent, True)
                                or self.truncations.get(agent, False)):
            live = self._deal.legal_action_mask().astype(np.int8)
            live.setflags(write=False)
        self._live_mask = live
        infos = self.infos
        for a in self.agents:
            mask = live if a == agent else _NO_ACTIONS
            info = infos.get(a)
            if info is None or info.get("action_mask") is not mask or len(info) != 1:
                infos[a] = {"action_mask": mask}

    # ------------------------------------------------------------------ reset
    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        """Start an episode. ``options``: ``{"deal": 32 cards in dealing order (ints or
        text, docs/two_player.md), "dealer": 0 or 1}`` replays a given deal (in match
        mode, as the first deal); other keys are ignored."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = options or {}
        dealer = options.get("dealer", self.dealer)
        if dealer is None:
            dealer = int(self._rng.integers(2))
        given = options.get("deal")
        if given is not None and not isinstance(given, str) and all(isinstance(g, str) for g in given):
            given = " ".join(given)
        if self.mode == "match":
            self.game = TwoPlayerMatch(self.rules, dealer=int(dealer),
                                       seed=int(self._rng.integers(2 ** 62)))
            if given is not None:
                self.game.deal = TwoPlayerDeal(self.rules, deck=given, dealer=int(dealer))
        elif given is not None:
            self.game = TwoPlayerDeal(self.rules, deck=given, dealer=int(dealer))
        else:
            self.game = TwoPlayerDeal(self.rules, dealer=int(dealer),
                                      seed=int(self._rng.integers(2 ** 62)))
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
        for a in self.agents:
            p = _seat(a)
            r = delta[p] - delta[1 - p] if self.reward_kind == "difference" else delta[p]
            self.rewards[a] = float(r) / self.reward_scale

    def _penalize(self, agent: str) -> None:
        """The offender gets ``-illegal_penalty``, the other 0; the game ends (penalty
        mode)."""
        for a in self.agents:
            r = -self.illegal_penalty / self.reward_scale if a == agent else 0.0
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
        deal = self.deal
        if self.illegal_action == "penalty" and not (0 <= a < N_ACTIONS and deal.is_legal(a)):
            gymnasium.logger.warn(f"illegal action {a!r} by {agent}: the game ends")
            self._penalize(agent)
            return
        if isinstance(self.game, TwoPlayerMatch):
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
            self.agent_selection = AGENTS[1 - _seat(agent)]
        else:
            self.agent_selection = AGENTS[self.game.current_player]
        self._deal = self.deal
        self._accumulate_rewards()
        self._update_infos()
        if self.render_mode == "human":
            self.render()

    # ----------------------------------------------------------------- render
    def render_for(self, agent: str) -> str:
        """The table as ``agent`` sees it (his hand, ``??`` for every face-down card,
        the other hand as a count)."""
        return self.deal.render(viewer=_seat(agent))

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
