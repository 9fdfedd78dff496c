"""The blank states the families' resets copy (engine.layout.blank_state): each named
slot's whole block holds its value, every other slot 0, read-only (plain Python, no
compilation)."""

from __future__ import annotations

import numpy as np
import pytest

from coinche_rl.engine import layout as L
from coinche_rl.engine import two_layout as L2


def test_blank_state_fills_whole_blocks_and_nothing_else():
    layout = (("A", 2), ("B", 3), ("C", 1))
    s = L.blank_state(layout, {"B": -1, "C": 7})
    assert s.dtype == np.int64
    assert s.tolist() == [0, 0, -1, -1, -1, 7]
    with pytest.raises(ValueError):
        s[0] = 1


def test_the_families_blank_states():
    s = L.STATE_BLANK
    assert len(s) == L.STATE_SIZE
    assert (s[L.S_PLAYS:L.S_PLAYS + 32] == L.NO_CARD).all()
    assert (s[L.S_AUCTION:L.S_AUCTION + L.MAX_AUCTION] == L.NO_ACTION).all()
    assert s[L.S_DECL_WINNER] == L.DECL_UNRESOLVED and s[L.S_HAND:L.S_HAND + 4].sum() == 0
    t = L2.TWO_BLANK
    assert len(t) == L2.TWO_STATE_SIZE
    assert (t[L2.T_PRISE:L2.T_PRISE + L2.MAX_PRISE] == -1).all()
    assert t[L2.T_ROUND] == 1 and t[L2.T_MADE] == L2.MADE_UNSCORED
    assert (t[L2.T_STACK_UP:L2.T_UNDER + 32] == L2.NO_CARD).all()
