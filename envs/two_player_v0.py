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

import numpy as np
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ..engine import two as E2
from ..two_player import TwoPlayerDeal, TwoPlayerMatch, TwoPlayerView, two_player_rules
from . import two_player_kernels as K
from . import two_player_observation as O
from .aec_base import REWARD_SCALE, CardGameAEC, SideTerminateIllegalWrapper, wrap

__all__ = ["env", "raw_env", "parallel_env", "REWARD_SCALE", "AGENTS"]

AGENTS = ("player_0", "player_1")
_SEATS = {a: i for i, a in enumerate(AGENTS)}
#: ``TerminateIllegalWrapper`` that also ends the raw env's game (the offender gets the
#: penalty, the other player 0)
TwoPlayerTerminateIllegalWrapper = SideTerminateIllegalWrapper


def env(**kwargs):
    """The environment in PettingZoo's standard wrappers (see the module docstring)."""
    return wrap(raw_env(**kwargs))


def parallel_env(**kwargs):
    """The parallel API over :func:`env` (turn-based: only the agent to act acts; the
    other's action is ignored)."""
    return turn_based_aec_to_parallel(env(**kwargs))


def _seat(agent: str) -> int:
    return _SEATS[agent]


class raw_env(CardGameAEC):
    """Belote for two players, one deal or a match (see the module docstring)."""

    metadata = {"name": "two_player_v0", "render_modes": ["human", "ansi"],
                "is_parallelizable": True}
    AGENTS = AGENTS
    DEAL = TwoPlayerDeal
    MATCH = TwoPlayerMatch
    O = O
    RULES_OF = staticmethod(two_player_rules)
    ENCODER = K.TwoPlayerEncoder
    NOTICE = ("the two-player environment", (K.encode_view, E2.two_apply))
    DEALER = "a player 0 or 1, or None"

    def __init__(self, rules="belote_a_deux", mode: str = "deal", dealer=None,
                 reward: str = "difference", illegal_action: str = "raise",
                 illegal_penalty: float = 1000.0, render_mode=None,
                 normalize_reward: bool = False):
        super().__init__(rules, mode, dealer, reward, illegal_action, illegal_penalty,
                         render_mode, normalize_reward)

    def view(self, agent: str) -> TwoPlayerView:
        """What ``agent`` knows now (``deal.view(player)``)."""
        return self.deal.view(_seat(agent))

    def _observation(self, agent: str) -> np.ndarray:
        # the numba encoder of the agent's public view (the engine's, a fresh vector with
        # nothing hidden in it), identical to O.encode(deal.view(player)) (tested)
        p = _SEATS[agent]
        return self._encoder.encode_view(self._deal.public_state(p), p, self._match_info())

    def _legal_mask(self) -> np.ndarray:
        return self._deal.legal_action_mask().astype(np.int8)

    def _deal_kwargs(self, given) -> dict:
        """``options["deal"]``: 32 cards in dealing order (ints, or text as one string or
        a list; docs/two_player.md)."""
        if not isinstance(given, str) and all(isinstance(g, str) for g in given):
            given = " ".join(given)
        return {"deck": given}

    def render_for(self, agent: str) -> str:
        """The table as ``agent`` sees it (his hand, ``??`` for every face-down card,
        the other hand as a count)."""
        return self.deal.render(viewer=_seat(agent))
