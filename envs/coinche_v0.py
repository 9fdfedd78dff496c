# noqa: D212, D415
"""
# Coinche

A PettingZoo AEC environment for Coinche (belote coinchée) and the French Belote family,
thin over :mod:`coinche_rl.game`: the engine decides legality, play and scoring; this
module only handles agents, spaces, observations, rewards and turn order.

| Import             | `from coinche_rl.envs import coinche_v0`            |
|--------------------|-----------------------------------------------------|
| Actions            | Discrete                                            |
| Parallel API       | Yes (turn-based: `coinche_v0.parallel_env()`)       |
| Manual Control     | No                                                  |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` |
| Agents             | 4 (teams: player_0 + player_2, player_1 + player_3) |
| Action Shape       | Discrete(118)                                       |
| Action Values      | Discrete(118)                                       |
| Observation Shape  | (620,) + action mask (118,)                         |
| Observation Values | [0, 1] (a few slices above 1, see `observation.HIGH`) |

`player_i` sits at seat `i`; seats `i` and `i + 2` are partners.

## Arguments

``coinche_v0.env(rules="ffb", mode="deal", dealer=None, reward="difference",
illegal_action="raise", illegal_penalty=1000.0, render_mode=None, normalize_reward=False)``

* `rules`: a preset name (`coinche_rl.rules.PRESETS`) or a `RuleSet`.
* `mode`: `"deal"` (one deal per episode) or `"match"` (deals to the rule set's target).
* `dealer`: the (first) dealer seat, or None to draw it from the episode's seed.
* `reward`: `"difference"` or `"raw"` (see *Rewards*).
* `illegal_action`: `"raise"` (default: `coinche_rl.game.IllegalActionError`, whose
  message names the legal actions) or `"penalty"` (see *Rewards*).
* `illegal_penalty`: the penalty of `"penalty"` mode (default 1000.0, in points like
  the rewards).
* `render_mode`: `"human"` (prints) or `"ansi"` (returns the text of `Deal.render()`).
* `normalize_reward`: divide every reward (the illegal-action penalty too) by
  `coinche_v0.REWARD_SCALE` = 162 (see *Rewards*).

## Observation Space

A dictionary: `'observation'`, a float32 vector of `observation.OBSERVATION_SIZE` (620)
built **only** from the agent's information set (`coinche_rl.envs.infoset`, leak-free)
and, in match mode, the public match score: `coinche_rl.envs.observation.encode` is the
readable definition, and the env computes the identical vector from the engine state
with the numba kernel `coinche_rl.envs.kernels.encode_into` (tested equal at every step
of random games, every preset); and `'action_mask'`. Seats are relative to the observer. The named slices (hand, dealer,
phase, bids, coinche, contract, declarations, belote, cards played with seat and trick,
current trick, points, match, rule switches, voids, ceilings) are documented in
`observation.LAYOUT` and the table of the `observation` module;
`observation.decode(obs, observer=seat)` gives readable values back.

`env.unwrapped.information_set(agent)` returns the `InformationSet` itself;
`env.unwrapped.state()` a copy of the engine state vector (full information, for
centralized critics); `env.unwrapped.game` the `Deal` (deal mode) or `Match`.

### Legal Actions Mask

`'action_mask'` (int8, shape (118,)) marks the legal actions of the agent to act; it is
all zeros for the other agents and once the episode is over. It is mirrored in
`infos[agent]["action_mask"]`. The mask arrays are read-only (one array per step,
shared by the observation and the infos); copy one to modify it.

## Action Space

One integer space for every phase of every rule set (`coinche_rl.actions`):

| ids        | action |
|------------|--------|
| 0          | pass |
| 1 .. 66    | bid `value` in `strain`: `1 + 6 * (value - 80) // 10 + strain` |
| 67 .. 72   | capot in `strain`: `67 + strain` |
| 73 / 74    | coinche / surcoinche |
| 75 .. 106  | play `card`: `75 + card` (card = `suit * 8 + rank`, suits S H D C, ranks 7 8 9 T J Q K A) |
| 107        | take (classic prise, round 1) |
| 108 .. 113 | name `strain` as trump (classic prise, round 2) |
| 114 / 115  | declare / do not declare (`optional_declare`) |
| 116 / 117  | announce belote / do not (`optional_belote`) |

Strains 0..5 = S H D C NT AT. `coinche_rl.actions.action_to_str(a)` gives the text.

## Rewards

Rewards are in game points, given when a deal ends (the last step of each deal), to
all four agents; partners always get the same reward.

* `"difference"` (default): our team's deal score minus theirs: zero-sum.
* `"raw"`: our team's deal score.

In match mode the same reward is given at the end of **every** deal, computed on the
change of the match scores (the deal scores, plus, in the classic family, a litige pot
won with the deal); the episode ends when a team wins the match. The sum of an agent's
rewards is therefore the final match-score difference (or its team's final score).
A void deal (four passes) rewards 0.

Illegal action with `illegal_action="penalty"`: the game ends at once; the offender and
its partner get `-illegal_penalty`, the opponents 0 (`env()` applies it through a
`TerminateIllegalWrapper` subclass; `raw_env` applies the same rule itself).

`normalize_reward=True` divides every reward, the penalty included, by `REWARD_SCALE`
= 162, the card points of one deal (152 in the cards plus 10 for the last trick, the
same under every preset: the AT tables that count more are scaled back to 162), for
learners that expect rewards of order 1. Measured on 3,000 deals of four `heuristic`
bots, the normalised team difference has a median size of 1.5 under `ffb` (95%
below 2.6; coinched contracts and capots reach about 11) and 0.5 under `classic` (at most
1.7); random play, which coinches wildly, reaches 16. One constant for every rule set
keeps rewards comparable across presets (a per-preset maximum deal score, a
surcoinched capot, would shrink every ordinary deal to almost 0); it is the single
source of the scale of the single-agent (`single_agent`) and vector (`vector`) envs too.

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

from .. import engine
from .._numba_cache import compile_notice
from ..actions import N_ACTIONS
from ..engine import legal_actions_into
from ..game import Deal, Match
from ..rules import RuleSet, four_player_rules
from . import observation as O
from . import kernels
from .infoset import InformationSet, information_set
from .kernels import ObservationEncoder

__all__ = ["env", "raw_env", "parallel_env", "REWARD_SCALE"]

#: rewards are divided by this with ``normalize_reward=True``: the card points of one
#: deal (152 + 10 for the last trick, under every preset; see *Rewards*)
REWARD_SCALE = 162.0

AGENTS = tuple(f"player_{i}" for i in range(4))
#: the mask of an agent not to act (read-only, shared)
_NO_ACTIONS = np.zeros(N_ACTIONS, dtype=np.int8)
_NO_ACTIONS.setflags(write=False)


def env(**kwargs):
    """The environment in PettingZoo's standard wrappers (see the module docstring)."""
    e = raw_env(**kwargs)
    if e.illegal_action == "penalty":
        e = TeamTerminateIllegalWrapper(e, illegal_reward=-e.illegal_penalty / e.reward_scale)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def parallel_env(**kwargs):
    """The parallel API over :func:`env` (turn-based: only the agent to act acts; the
    others' actions are ignored)."""
    return turn_based_aec_to_parallel(env(**kwargs))


class TeamTerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """``TerminateIllegalWrapper`` whose penalty goes to the offender's whole team."""

    def step(self, action):
        agent = self.agent_selection
        before = self._terminated
        super().step(action)
        if self._terminated and not before:
            raw = self.env.unwrapped
            raw._penalize_team(agent)


_SEATS = {a: i for i, a in enumerate(AGENTS)}


def _seat(agent: str) -> int:
    return _SEATS[agent]


class raw_env(AECEnv, EzPickle):
    """Coinche / Belote, one deal or a match (see the module docstring)."""

    metadata = {"name": "coinche_v0", "render_modes": ["human", "ansi"],
                "is_parallelizable": True}

    def __init__(self, rules="ffb", mode: str = "deal", dealer: Optional[int] = None,
                 reward: str = "difference", illegal_action: str = "raise",
                 illegal_penalty: float = 1000.0, render_mode: Optional[str] = None,
                 normalize_reward: bool = False):
        EzPickle.__init__(self, rules, mode, dealer, reward, illegal_action, illegal_penalty,
                          render_mode, normalize_reward)
        super().__init__()
        compile_notice("the environment", (kernels._encode, engine.legal_actions_into),
                       "about 10-20 s")
        self.rules: RuleSet = four_player_rules(rules)
        if mode not in ("deal", "match"):
            raise ValueError(f"mode must be 'deal' or 'match', not {mode!r}")
        if reward not in ("difference", "raw"):
            raise ValueError(f"reward must be 'difference' or 'raw', not {reward!r}")
        if illegal_action not in ("raise", "penalty"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalty', not {illegal_action!r}")
        if dealer is not None and (isinstance(dealer, bool) or dealer not in range(4)):
            raise ValueError(f"dealer must be a seat 0..3 or None, not {dealer!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"{render_mode!r} is not a valid render mode; "
                             f"valid modes: {self.metadata['render_modes']}")
        self.mode = mode
        self.dealer = dealer
        self.reward_kind = reward
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        if not isinstance(normalize_reward, (bool, np.bool_)):
            raise ValueError(f"normalize_reward must be True or False, not {normalize_reward!r}")
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
        self._encoder = ObservationEncoder(self.rules)
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
    def deal(self) -> Deal:
        """The deal in progress (the last one once a match is over)."""
        return self.game.deal if isinstance(self.game, Match) else self.game

    def information_set(self, agent: str) -> InformationSet:
        return information_set(self.deal, _seat(agent))

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
        # the numba encoder, identical to O.encode(information_set(...)) (tested)
        obs = self._encoder.encode(self._deal.state, _SEATS[agent], self._match_info())
        return {"observation": obs, "action_mask": self._mask(agent)}

    def _update_infos(self):
        """Refresh the legal mask of the agent to act (one engine call per step; the
        arrays handed out are read-only, so they can be shared) and the infos of the
        agents whose mask changed."""
        agent = self.agent_selection
        live = _NO_ACTIONS
        if self.agents and not (self.terminations.get(agent, True)
                                or self.truncations.get(agent, False)):
            live = np.zeros(N_ACTIONS, dtype=np.int8)
            legal_actions_into(self._deal.state, self._deal.params, live)
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
        """Start an episode. ``options``: ``{"deal": four hands (masks or text, coinche
        family) or 32 cards in dealing order, "dealer": seat}`` replays a given deal
        (in match mode, as the first deal)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = options or {}
        dealer = options.get("dealer", self.dealer)
        if dealer is None:
            dealer = int(self._rng.integers(4))
        given = options.get("deal")
        kw = {}
        if given is not None:
            if isinstance(given, str):
                kw = {"deck": given}
            elif len(given) == 4:
                kw = {"hands": list(given)}
            else:
                kw = {"deck": " ".join(given) if all(isinstance(g, str) for g in given)
                      else list(given)}
        if self.mode == "match":
            self.game = Match(self.rules, dealer=int(dealer), seed=int(self._rng.integers(2 ** 62)))
            if kw:
                self.game.deal = Deal(self.rules, dealer=int(dealer), **kw)
        else:
            if not kw:
                kw = {"seed": int(self._rng.integers(2 ** 62))}
            self.game = Deal(self.rules, dealer=int(dealer), **kw)
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
            t = _seat(a) & 1
            r = delta[t] - delta[1 - t] if self.reward_kind == "difference" else delta[t]
            self.rewards[a] = float(r) / self.reward_scale

    def _penalize_team(self, agent: str) -> None:
        """The offender's team gets ``-illegal_penalty``, the game ends (penalty mode)."""
        team = _seat(agent) & 1
        for a in self.agents:
            r = -self.illegal_penalty / self.reward_scale if _seat(a) & 1 == team else 0.0
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
            self._penalize_team(agent)
            return
        if isinstance(self.game, Match):
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
            self.agent_selection = AGENTS[(_seat(agent) + 1) % 4]
        else:
            self.agent_selection = AGENTS[self.game.current_player]
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
