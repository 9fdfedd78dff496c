"""Chances of the hidden cards (``coinche_rl.agents.chance``): the counting kernels the
heuristic bots of every family share to weigh what an opponent's unknown cards may be
(:func:`p_miss`), whether a card is master (:func:`is_master`), and which of two cards
to play to keep the master trump for the last trick (:func:`keep_master_trump`).

>>> round(p_miss(24, 2, 6), 4)      # 6 cards drawn among 24 hold neither of 2 given ones
0.5543
>>> p_miss(8, 3, 6), p_miss(8, 0, 6)
(0.0, 1.0)
"""

from __future__ import annotations

from ..engine.bits import kernel, lowest_card
from ..rules import ABOVE

__all__ = ["p_miss", "is_master", "keep_master_trump"]


@kernel
def p_miss(n, k, h):
    """The chance that ``h`` cards drawn without replacement among ``n`` miss ``k``
    given ones (1 when ``k`` or ``h`` is 0 or less)."""
    if k <= 0 or h <= 0:
        return 1.0
    if n - k < h:
        return 0.0
    p = 1.0
    for i in range(h):
        p *= (n - k - i) / (n - i)
    return p


@kernel
def is_master(c, outside, strain):
    """No card of ``outside`` (a mask: the cards not ours, nor played) beats ``c`` in its
    own suit under ``strain``."""
    return (outside & ABOVE[strain, c]) == 0


@kernel
def keep_master_trump(cards, outside, strain):
    """Of the two ``cards`` (a mask) left to lead, the one to play so as to keep the best
    trump left (``outside``: the cards not ours, nor played) for the last trick and its
    dix de der; -1 when neither or both are (or ``strain`` has no trump suit)."""
    c0 = lowest_card(cards)
    c1 = lowest_card(cards & (cards - 1))
    m0 = strain < 4 and (c0 >> 3) == strain and is_master(c0, outside, strain)
    m1 = strain < 4 and (c1 >> 3) == strain and is_master(c1, outside, strain)
    if m0 and not m1:
        return c1
    if m1 and not m0:
        return c0
    return -1
