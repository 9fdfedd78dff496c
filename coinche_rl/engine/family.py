"""What a family of rule sets is, in one place: :class:`Family` (players, sides, tricks,
action space, state size, phases, presets), read by the layers above instead of forking
on ``rules.family``.

>>> from coinche_rl.engine.family import family_of
>>> f = family_of("belote_a_deux")
>>> f.name, f.n_players, f.n_tricks, f.phases, f.presets
('two', 2, 16, ('prise', 'play', 'done', 'exchange'), ('belote_a_deux', 'belote_decouverte'))
>>> family_of("ffb").side(3), f.side(1)
(1, 1)
>>> family_of("ffb").who, f.who
('seat', 'player')

The kernels of every family answer the same entry points (:mod:`.entry`); a family's
state is ``np.empty(family.state_size, np.int64)`` and its hidden information (what
:func:`.entry.game_determinize_into` takes) ``np.empty(family.hidden_size, np.int64)``.
The observation's size is the environments' (``coinche_rl.envs``), not the engine's.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Optional, Tuple, Union

import numpy as np

from ..actions import N_ACTIONS
from ..cards import N_CARDS
from ..rules import (FAMILY_PRESETS, N_SEATS, N_TRICKS, P_FAMILY, RuleSet, _CHOICES, get_rules,
                     team)
from .entry import HIDDEN_SIZE
from . import layout as L4
from . import two_layout as L2
from .layout import STATE_SIZE
from .two_layout import N_PLAYERS, N_TRICKS_TWO, TWO_STATE_SIZE


@dataclass(frozen=True)
class Family:
    """A family of rule sets (``RuleSet.family``) as the layers above the engine read it."""

    #: ``RuleSet.family``: ``coinche``, ``classic`` or ``two``
    name: str
    #: ``P[P_FAMILY]``, the id the kernels branch on
    id: int
    #: seats (players) at the table, numbered ``0..n_players-1`` in turn
    n_players: int
    #: tricks of a deal
    n_tricks: int
    #: the action ids' range (``coinche_rl.actions``: every family uses a part of it)
    n_actions: int
    #: the state vector's length (int64)
    state_size: int
    #: the hidden information's length (:func:`.entry.game_private_into`)
    hidden_size: int
    #: the phases' names by id (:data:`.entry.PHASE_BIDDING` ...), as ``Deal.phase`` says
    #: them: the bidding phase is the auction with four players (the classic prise
    #: included) and the prise with two
    phases: Tuple[str, ...]
    #: the presets of the family (:data:`coinche_rl.rules.PRESETS` order)
    presets: Tuple[str, ...]
    #: what a place at the table is called in messages: ``"seat"`` (four players in
    #: two teams) or ``"player"`` (two players, no partners)
    who: str = "seat"
    #: the places in words (``"0..3"``, ``"0 or 1"``)
    seats: str = "0..3"
    #: where a finished deal's outcome lies in the state (the layouts' slots): side 0's
    #: score (side 1's follows it), the void flag, and the contract's value, strain,
    #: taker, coinche level and made flag (None: the game has none, read as 0)
    score_slot: int = L4.S_SCORE
    void_slot: int = L4.S_VOID
    contract_slots: Tuple[Optional[int], ...] = (L4.S_BID_VALUE, L4.S_BID_STRAIN, L4.S_BID_SEAT,
                                                 L4.S_COINCHE, L4.S_MADE)

    @property
    def cards_per_player(self) -> int:
        """The cards each player owns in a deal."""
        return N_CARDS // self.n_players

    @property
    def n_sides(self) -> int:
        """The sides that score: two teams, or two players."""
        return 2

    def side(self, seat: int) -> int:
        """The side ``seat`` scores for (its team; a player of two is his own side):
        :func:`.entry.game_side`."""
        return int(seat) if self.n_players == 2 else team(int(seat))

    def scores(self, states: np.ndarray, side: int) -> np.ndarray:
        """The deal score of ``side`` in each finished state of ``states`` (``(n, state
        size)``): what :func:`.entry.game_score` answers, read as numpy (no kernel to
        compile); a view."""
        return states[:, self.score_slot + int(side)]

    def contracts(self, states: np.ndarray) -> np.ndarray:
        """``(n, 5)``: the contract of each finished state of ``states``: value, strain,
        taker, coinche level, made (a void deal: 0, 0, -1, 0, -1; belote for two
        players: 0, the trump, the taker, 0, made)."""
        out = np.zeros((len(states), len(self.contract_slots)), dtype=np.int64)
        for k, slot in enumerate(self.contract_slots):
            if slot is not None:
                out[:, k] = states[:, slot]
        void = states[:, self.void_slot] == 1
        out[void] = (0, 0, -1, 0, -1)
        return out

    def new_state(self) -> np.ndarray:
        """A zeroed state vector of the family (a deal is dealt into it by
        :func:`.entry.game_new_deal`)."""
        return np.zeros(self.state_size, dtype=np.int64)


def _four(name: str) -> Family:
    return Family(name=name, id=_CHOICES["family"].index(name), n_players=N_SEATS,
                  n_tricks=N_TRICKS, n_actions=N_ACTIONS, state_size=STATE_SIZE,
                  hidden_size=HIDDEN_SIZE, phases=("auction", "play", "done"),
                  presets=FAMILY_PRESETS[name])


#: every family by name
FAMILIES: Mapping[str, Family] = MappingProxyType({
    "coinche": _four("coinche"),
    "classic": _four("classic"),
    "two": Family(name="two", id=_CHOICES["family"].index("two"), n_players=N_PLAYERS,
                  n_tricks=N_TRICKS_TWO, n_actions=N_ACTIONS, state_size=TWO_STATE_SIZE,
                  hidden_size=HIDDEN_SIZE, phases=("prise", "play", "done", "exchange"),
                  presets=FAMILY_PRESETS["two"], who="player", seats="0 or 1",
                  score_slot=L2.T_SCORE, void_slot=L2.T_VOID,
                  contract_slots=(None, L2.T_TRUMP, L2.T_TAKER, None, L2.T_MADE)),
})
assert tuple(FAMILIES) == _CHOICES["family"]
assert all(f.id == i for i, f in enumerate(FAMILIES.values()))


def family_of(rules: Union[str, RuleSet, np.ndarray]) -> Family:
    """The :class:`Family` of a rule set, a preset name or a rule vector
    (:func:`coinche_rl.rules.params_vector`)."""
    if isinstance(rules, np.ndarray):
        return tuple(FAMILIES.values())[int(rules[P_FAMILY])]
    return FAMILIES[get_rules(rules).family]
