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

import numpy as np
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .. import engine
from ..actions import N_ACTIONS
from ..engine import legal_actions_into
from ..game import Deal, Match
from ..rules import four_player_rules
from . import observation as O
from . import kernels
from .aec_base import REWARD_SCALE, CardGameAEC, SideTerminateIllegalWrapper, wrap
from .infoset import InformationSet, information_set
from .kernels import ObservationEncoder

__all__ = ["env", "raw_env", "parallel_env", "REWARD_SCALE"]

AGENTS = tuple(f"player_{i}" for i in range(4))
#: ``TerminateIllegalWrapper`` whose penalty goes to the offender's whole team
TeamTerminateIllegalWrapper = SideTerminateIllegalWrapper


def env(**kwargs):
    """The environment in PettingZoo's standard wrappers (see the module docstring)."""
    return wrap(raw_env(**kwargs))


def parallel_env(**kwargs):
    """The parallel API over :func:`env` (turn-based: only the agent to act acts; the
    others' actions are ignored)."""
    return turn_based_aec_to_parallel(env(**kwargs))


_SEATS = {a: i for i, a in enumerate(AGENTS)}


def _seat(agent: str) -> int:
    return _SEATS[agent]


class raw_env(CardGameAEC):
    """Coinche / Belote, one deal or a match (see the module docstring)."""

    metadata = {"name": "coinche_v0", "render_modes": ["human", "ansi"],
                "is_parallelizable": True}
    AGENTS = AGENTS
    DEAL = Deal
    MATCH = Match
    O = O
    RULES_OF = staticmethod(four_player_rules)
    ENCODER = ObservationEncoder
    NOTICE = ("the environment", (kernels._encode, engine.legal_actions_into))
    DEALER = "a seat 0..3 or None"

    def __init__(self, rules="ffb", mode: str = "deal", dealer=None,
                 reward: str = "difference", illegal_action: str = "raise",
                 illegal_penalty: float = 1000.0, render_mode=None,
                 normalize_reward: bool = False):
        super().__init__(rules, mode, dealer, reward, illegal_action, illegal_penalty,
                         render_mode, normalize_reward)

    def information_set(self, agent: str) -> InformationSet:
        return information_set(self.deal, _seat(agent))

    def _observation(self, agent: str) -> np.ndarray:
        # the numba encoder, identical to O.encode(information_set(...)) (tested)
        return self._encoder.encode(self._deal.state, _SEATS[agent], self._match_info())

    def _legal_mask(self) -> np.ndarray:
        live = np.zeros(N_ACTIONS, dtype=np.int8)
        legal_actions_into(self._deal.state, self._deal.params, live)
        return live

    def _deal_kwargs(self, given) -> dict:
        """``options["deal"]``: four hands (masks or text, coinche family) or 32 cards in
        dealing order (ints, or text as one string or a list)."""
        if isinstance(given, str):
            return {"deck": given}
        if len(given) == 4:
            return {"hands": list(given)}
        return {"deck": " ".join(given) if all(isinstance(g, str) for g in given)
                else list(given)}
